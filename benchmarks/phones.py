"""The phones of event day (``bench_phones``, issue 54): simulated phones on the public pages
while results arrive and the desk refreshes, through nginx (aiohttp, one client process).

A phone opens the leaderboard, searches its player's name on find-my-table, opens its table,
then polls while the page is visible: its table's API every :data:`POLL_SECONDS` with the ETag
it was given, and every third poll the standings API (the leaderboard's own poll). Phones start
spread over the first poll interval. Latencies are measured from the moment a phone wants the
page, so they include the client's own wait for one of its connections (said in the figures:
one client process on a shared 2-core machine is part of what is measured).
"""

from __future__ import annotations

import asyncio
import random
import ssl
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import aiohttp

from benchmarks.figures import percentile

POLL_SECONDS = 5.0


@dataclass
class Samples:
    """Latencies (ms) and statuses by label."""

    ms: dict[str, list[float]] = field(default_factory=dict)
    statuses: dict[str, dict[int, int]] = field(default_factory=dict)
    bytes: dict[str, int] = field(default_factory=dict)

    def add(self, label: str, ms: float, status: int, size: int = 0) -> None:
        self.ms.setdefault(label, []).append(ms)
        by = self.statuses.setdefault(label, {})
        by[status] = by.get(status, 0) + 1
        self.bytes[label] = self.bytes.get(label, 0) + size

    def rows(self, seconds: float) -> list[tuple[str, int, float, float, float, str]]:
        """(label, count, per second, p50 ms, p99 ms, statuses) by label."""
        out = []
        for label in sorted(self.ms):
            values = sorted(self.ms[label])
            statuses = " ".join(f"{k}:{v}" for k, v in sorted(self.statuses[label].items()))
            out.append((label, len(values), len(values) / seconds, percentile(values, 50),
                        percentile(values, 99), statuses))
        return out

    def p99(self, label: str) -> float | None:
        values = sorted(self.ms.get(label, []))
        return percentile(values, 99) if values else None


@dataclass(frozen=True)
class Phone:
    name: str  # the player's name, searched on find-my-table
    table_page: str  # /e/<slug>/rounds/1/tables/<n>/
    table_api: str  # /api/v1/tables/<id>/


@dataclass(frozen=True)
class Plan:
    base: str  # https://localhost:<port>
    slug: str
    phones: list[Phone]
    # (table id, seat token, body), posted in turn across the runs (each table's once)
    results: Iterator[tuple[int, str, bytes]]
    referee_token: str
    desk_cookie: str  # the referee's session cookie value
    results_per_second: float
    desk_every: float


def ssl_context(cafile: str) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=cafile)


async def _get(session, samples: Samples, label: str, url: str, headers=None,
               ) -> tuple[int, dict]:
    t0 = time.perf_counter()
    try:
        async with session.get(url, headers=headers or {}, allow_redirects=False) as r:
            body = await r.read()
            samples.add(label, (time.perf_counter() - t0) * 1000, r.status, len(body))
            return r.status, dict(r.headers)
    except (TimeoutError, aiohttp.ClientError, OSError):
        samples.add(label, (time.perf_counter() - t0) * 1000, 0)
        return 0, {}


async def phone(session, plan: Plan, who: Phone, samples: Samples, until: float,
                rng: random.Random) -> None:
    base, slug = plan.base, plan.slug
    await asyncio.sleep(rng.uniform(0, POLL_SECONDS))
    await _get(session, samples, "leaderboard", f"{base}/e/{slug}/leaderboard/")
    await _get(session, samples, "find my table (search)",
               f"{base}/e/{slug}/seating/?q={who.name.replace(' ', '+')}")
    await _get(session, samples, "table page", base + who.table_page)
    etags: dict[str, str] = {}
    polls = 0
    while time.monotonic() + POLL_SECONDS < until:
        await asyncio.sleep(POLL_SECONDS * rng.uniform(0.9, 1.1))
        polls += 1
        targets = [("poll table API", base + who.table_api)]
        if polls % 3 == 0:
            targets.append(("poll standings API",
                            f"{base}/api/v1/events/{slug}/standings/?page=1&page_size=100"))
        for label, url in targets:
            headers = {"If-None-Match": etags[url]} if url in etags else {}
            status, got = await _get(session, samples, label, url, headers)
            if status == 200 and "ETag" in got:
                etags[url] = got["ETag"]


async def results(session, plan: Plan, samples: Samples, until: float) -> int:
    """Post the plan's results one after another at ``results_per_second`` (each: the table's
    player submits, the referee confirms); returns how many were confirmed."""
    done = 0
    gap = 1.0 / plan.results_per_second
    next_at = time.monotonic()
    referee = {"Authorization": f"Token {plan.referee_token}",
               "Content-Type": "application/json"}
    while time.monotonic() < until:
        job = next(plan.results, None)
        if job is None:
            break
        table_id, token, body = job
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
        next_at += gap
        t0 = time.perf_counter()
        try:
            async with session.post(f"{plan.base}/api/v1/tables/{table_id}/results/",
                                    data=body, headers={"Authorization": f"Token {token}",
                                                        "Content-Type": "application/json"}
                                    ) as r:
                answer = await r.json(content_type=None) if r.status in (200, 201) else {}
                samples.add("submit result", (time.perf_counter() - t0) * 1000, r.status)
            if not answer.get("id"):
                continue
            t0 = time.perf_counter()
            async with session.post(f"{plan.base}/api/v1/results/{answer['id']}/confirm/",
                                    data=b"{}", headers=referee) as r:
                await r.read()
                samples.add("confirm result", (time.perf_counter() - t0) * 1000, r.status)
                done += r.status == 200
        except (TimeoutError, aiohttp.ClientError, OSError, ValueError):
            samples.add("submit result", (time.perf_counter() - t0) * 1000, 0)
    return done


async def desk(session, plan: Plan, samples: Samples, until: float) -> None:
    """The referee's desk polling its table list (desk.js), with its ETag."""
    url = f"{plan.base}/e/{plan.slug}/desk/?fragment=1"
    headers = {"Cookie": f"sessionid={plan.desk_cookie}"}
    await _get(session, samples, "desk page", f"{plan.base}/e/{plan.slug}/desk/", headers)
    etag = None
    while time.monotonic() < until:
        await asyncio.sleep(plan.desk_every)
        status, got = await _get(session, samples, "desk poll", url,
                                 {**headers, **({"If-None-Match": etag} if etag else {})})
        if status == 200:
            etag = got.get("ETag")


async def event_day(plan: Plan, *, phones: int, seconds: float, cafile: str,
                    connections: int, seed: int = 54) -> tuple[Samples, int]:
    """Run the phones (``phones`` of them; 0: results and desk alone) for ``seconds``."""
    samples = Samples()
    rng = random.Random(seed)
    connector = aiohttp.TCPConnector(limit=connections, ssl=ssl_context(cafile))
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        until = time.monotonic() + seconds
        tasks = [asyncio.create_task(phone(session, plan, plan.phones[i % len(plan.phones)],
                                           samples, until, random.Random(rng.random())))
                 for i in range(phones)]
        # the desk and the submissions on connections of their own (a referee's laptop and
        # the tables' phones are not queued behind the crowd's)
        own = aiohttp.TCPConnector(limit=8, ssl=ssl_context(cafile))
        async with aiohttp.ClientSession(connector=own, timeout=timeout) as staff:
            confirmed, _ = await asyncio.gather(results(staff, plan, samples, until),
                                                desk(staff, plan, samples, until))
        await asyncio.gather(*tasks, return_exceptions=True)
    return samples, confirmed


async def closed_loop(urls: list[str], *, seconds: float, workers: int, cafile: str,
                      label: str, samples: Samples) -> None:
    """``workers`` clients GETting ``urls`` in turn back to back for ``seconds``."""
    connector = aiohttp.TCPConnector(limit=workers, ssl=ssl_context(cafile))
    async with aiohttp.ClientSession(connector=connector,
                                     timeout=aiohttp.ClientTimeout(total=30)) as session:
        until = time.monotonic() + seconds

        async def one(k: int) -> None:
            i = k
            while time.monotonic() < until:
                await _get(session, samples, label, urls[i % len(urls)])
                i += workers

        await asyncio.gather(*(one(k) for k in range(workers)))
