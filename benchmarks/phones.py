"""The phones of event day (``bench_phones``, issue 54): simulated phones on the public pages
while results arrive and the desk refreshes, through nginx (aiohttp; the phones shared out
among ``clients`` processes, their figures merged).

A phone opens the leaderboard, then find-my-table as its script does it: the seating page, the
shard of the round's seating index its player's name hashes to and the round's tables' status
(web/seating_index.py), then its table's page; then it polls while the page is visible: its
table's API every :data:`POLL_SECONDS` with the ETag it was given (a 304 until the table
changes), and every third poll the standings API (the leaderboard's own poll). Phones start
spread over the first poll interval. Latencies are measured from the moment a phone wants the
page, so they include the client's own wait for one of its connections (the client processes
share the machine's two cores with the servers: part of what is measured).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import ssl
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
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

    def merge(self, other: Samples) -> None:
        for label, values in other.ms.items():
            self.ms.setdefault(label, []).extend(values)
            by = self.statuses.setdefault(label, {})
            for status, n in other.statuses[label].items():
                by[status] = by.get(status, 0) + n
            self.bytes[label] = self.bytes.get(label, 0) + other.bytes.get(label, 0)

    def p99(self, label: str) -> float | None:
        values = sorted(self.ms.get(label, []))
        return percentile(values, 99) if values else None


@dataclass(frozen=True)
class Phone:
    name: str  # the player's name, searched on find-my-table
    table_page: str  # /e/<slug>/rounds/1/tables/<n>/
    table_api: str  # /api/v1/tables/<id>/
    find: str  # /e/<slug>/rounds/1/find.json?k=…&of=…: the shard its name hashes to


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
    await _get(session, samples, "find: seating page", f"{base}/e/{slug}/seating/")
    await _get(session, samples, "find: index shard", base + who.find)
    await _get(session, samples, "find: tables' status",
               f"{base}/e/{slug}/rounds/1/status.json")
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


async def _crowd(base: str, slug: str, people: list[Phone], *, until: float, cafile: str,
                 connections: int, seed: int) -> Samples:
    samples = Samples()
    rng = random.Random(seed)
    plan = Plan(base=base, slug=slug, phones=[], results=iter(()), referee_token="",
                desk_cookie="", results_per_second=1.0, desk_every=3.0)
    connector = aiohttp.TCPConnector(limit=connections, ssl=ssl_context(cafile))
    async with aiohttp.ClientSession(connector=connector,
                                     timeout=aiohttp.ClientTimeout(total=30)) as session:
        await asyncio.gather(*(phone(session, plan, who, samples, until,
                                     random.Random(rng.random())) for who in people),
                             return_exceptions=True)
    return samples


def _crowd_process(args: tuple) -> tuple[Samples, float]:
    """One client process's phones (run in a child): its samples and its own CPU seconds."""
    base, slug, people, until, cafile, connections, seed = args
    cpu = time.process_time()
    samples = asyncio.run(_crowd(base, slug, people, until=until, cafile=cafile,
                                 connections=connections, seed=seed))
    return samples, time.process_time() - cpu


def _pool(clients: int) -> ProcessPoolExecutor:
    from django.db import connections

    connections.close_all()  # (the children touch no database; no shared socket either)
    return ProcessPoolExecutor(clients, mp_context=multiprocessing.get_context("fork"))


def event_day(plan: Plan, *, phones: int, seconds: float, cafile: str, connections: int,
              clients: int = 1, seed: int = 54) -> tuple[Samples, int, float]:
    """Run the phones (``phones`` of them, shared out among ``clients`` processes; 0: results
    and the desk alone) for ``seconds``, the results and the desk in this process. Returns the
    merged samples, the results confirmed and the client processes' CPU seconds."""
    until = time.monotonic() + seconds  # (CLOCK_MONOTONIC: the same clock in every process)
    people = [plan.phones[i % len(plan.phones)] for i in range(phones)]
    jobs = [(plan.base, plan.slug, people[k::clients], until, cafile,
             max(1, connections // clients), seed + k) for k in range(clients) if people[k::clients]]
    samples, cpu = Samples(), 0.0
    with _pool(max(1, len(jobs))) as pool:
        futures = [pool.submit(_crowd_process, job) for job in jobs]
        own_cpu = time.process_time()
        confirmed = asyncio.run(_staff(plan, samples, until, cafile))
        cpu += time.process_time() - own_cpu
        for future in futures:
            got, used = future.result(timeout=seconds + 60)
            samples.merge(got)
            cpu += used
    return samples, confirmed, cpu


async def _staff(plan: Plan, samples: Samples, until: float, cafile: str) -> int:
    # the desk and the submissions on connections of their own (a referee's laptop and the
    # tables' phones are not queued behind the crowd's)
    own = aiohttp.TCPConnector(limit=8, ssl=ssl_context(cafile))
    async with aiohttp.ClientSession(connector=own,
                                     timeout=aiohttp.ClientTimeout(total=30)) as staff:
        confirmed, _ = await asyncio.gather(results(staff, plan, samples, until),
                                            desk(staff, plan, samples, until))
    return confirmed


async def _closed_loop(urls: list[str], *, until: float, workers: int, first: int,
                       step: int, cafile: str, label: str) -> Samples:
    samples = Samples()
    connector = aiohttp.TCPConnector(limit=workers, ssl=ssl_context(cafile))
    async with aiohttp.ClientSession(connector=connector,
                                     timeout=aiohttp.ClientTimeout(total=30)) as session:

        async def one(k: int) -> None:
            i = first + k * step
            while time.monotonic() < until:
                await _get(session, samples, label, urls[i % len(urls)])
                i += workers * step

        await asyncio.gather(*(one(k) for k in range(workers)))
    return samples


def _closed_loop_process(args: tuple) -> Samples:
    urls, until, workers, first, step, cafile, label = args
    return asyncio.run(_closed_loop(urls, until=until, workers=workers, first=first, step=step,
                                    cafile=cafile, label=label))


def closed_loop(urls: list[str], *, seconds: float, workers: int, cafile: str, label: str,
                samples: Samples, clients: int = 1) -> None:
    """``workers`` clients (shared out among ``clients`` processes) GETting ``urls`` in turn,
    back to back, for ``seconds``."""
    until = time.monotonic() + seconds
    each = max(1, workers // clients)
    with _pool(clients) as pool:
        futures = [pool.submit(_closed_loop_process,
                               (urls, until, each, k, clients, cafile, label))
                   for k in range(clients)]
        for future in futures:
            samples.merge(future.result(timeout=seconds + 60))
