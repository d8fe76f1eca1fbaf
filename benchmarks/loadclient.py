"""The HTTP load client of the benchmarks (``bench_api``, ``load_event``): client processes
that send a list of requests (back to back, or at scheduled times) to 127.0.0.1.

Client processes are forked: the caller closes its database connections first
(:func:`run_requests` does).
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import os
import random
import socket
import time
from dataclasses import dataclass

from django.db import connections

HOST = "127.0.0.1"  # the only address these tools ever send traffic to


@dataclass(frozen=True)
class Request:
    """One request to send; ``label`` groups it in the figures (e.g. "POST results")."""

    method: str
    path: str
    headers: dict
    body: bytes | None = None
    label: str = ""


@dataclass(frozen=True)
class Outcome:
    index: int
    status: int  # 0: transport error
    seconds: float
    body: bytes  # the answer (cut to 64 KB), or the transport error

    def json(self):
        return json.loads(self.body)


def _client(jobs, counter, out, deadline: float, port: int, schedule, t0: float,
            keep: bool) -> None:
    """One client process: take the next request until none is left (or time is up), send it on
    a kept-alive connection (``http.client`` reopens it when the server closes it).

    With a ``schedule`` (seconds after ``t0``, one per request) a request is sent at its time and
    its latency counts from that time, not from when this process got to it: a server that falls
    behind shows up in the figures (no "coordinated omission")."""
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    done = []
    while True:
        with counter.get_lock():
            index = counter.value
            counter.value += 1
        if index >= len(jobs) or time.monotonic() > deadline:
            break
        req = jobs[index]
        if schedule is not None:
            due = t0 + schedule[index]
            if due > time.monotonic():
                time.sleep(due - time.monotonic())
            start = due
        else:
            start = time.monotonic()
        try:
            conn.request(req.method, req.path, body=req.body, headers=req.headers)
            resp = conn.getresponse()
            data = resp.read()
            status = resp.status
            if not keep and status < 300:
                data = b""
        except (OSError, http.client.HTTPException) as exc:
            status, data = 0, repr(exc).encode()
            conn.close()
        done.append(Outcome(index, status, time.monotonic() - start, data[:65536]))
    conn.close()
    out.put(done)


def run_requests(jobs: list[Request], clients: int, port: int, *, timeout: float = 600.0,
                 rate: float | None = None, seed: int = 1, keep_bodies: bool = False
                 ) -> tuple[list[Outcome], float]:
    """Send every request once with ``clients`` processes; return the outcomes (in job order)
    and the wall time.

    Without ``rate`` the clients send back to back (a closed loop: the server's capacity). With
    ``rate`` (requests per second) the requests arrive as a Poisson process at that rate
    whatever the server does (an open loop). Answers' bodies are kept for errors, and for every
    answer with ``keep_bodies``."""
    if not jobs:
        return [], 0.0
    connections.close_all()  # no database connection may cross the fork
    ctx = multiprocessing.get_context("fork")
    counter = ctx.Value("l", 0)
    out = ctx.Queue()
    schedule = None
    if rate:
        rng, t, schedule = random.Random(seed), 0.0, []
        for _ in jobs:
            t += rng.expovariate(rate)
            schedule.append(t)
    lead = 0.5 if rate else 0.0  # every process is up before the first request is due
    start = time.perf_counter()
    t0 = time.monotonic() + lead
    deadline = t0 + timeout
    procs = [ctx.Process(target=_client, daemon=True, args=(
        jobs, counter, out, deadline, port, schedule, t0, keep_bodies))
        for _ in range(min(clients, len(jobs)))]
    for p in procs:
        p.start()
    results = []
    for _ in procs:
        results.extend(out.get(timeout=timeout + 60))
    wall = time.perf_counter() - start - lead
    for p in procs:
        p.join(timeout=10)
        if p.is_alive():
            p.kill()
    results.sort(key=lambda o: o.index)
    return results, wall


def free_port() -> int:
    """A free port of 127.0.0.1: any, or one of ``BENCH_PORTS`` (e.g. ``18200-18299``) when
    that is set, so that benchmarks run side by side keep to their own ranges."""
    span = os.environ.get("BENCH_PORTS", "")
    candidates = [0]
    if span:
        low, _, high = span.partition("-")
        candidates = random.sample(range(int(low), int(high or low) + 1),
                                   int(high or low) - int(low) + 1)
    for port in candidates:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((HOST, port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise RuntimeError(f"no free port in BENCH_PORTS={span}")


def http_get(port: int, path: str) -> int:
    conn = http.client.HTTPConnection(HOST, port, timeout=5)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        resp.read()
        return resp.status
    finally:
        conn.close()

