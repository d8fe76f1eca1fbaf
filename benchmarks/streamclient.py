"""The light asyncio client of ``bench_live --streams``: thousands of open seat streams and the
tables' acts, on raw asyncio streams (no HTTP library: its bookkeeping would be the client's
CPU, and the client shares the two cores with the servers).

- A seat stream is one connection: ``GET /api/v1/live/<id>/events/`` with the seat's token
  (and ``actions=new`` unless asked otherwise, as the live table page follows a game);
  the client reads the chunked body (in the connection's data callback) and notes, for each
  ``view`` event, its version (the ``id:`` line) and when it arrived; the view's JSON is not
  parsed (the seats' acts are chosen on the tables' shadow games). A stream that ends (its
  ``seconds`` are up) reconnects with ``Last-Event-ID``.
- A table plays one act every ``move_every`` seconds: on a fixed schedule from a random phase
  (``pace="steady"``: every table's n-th act falls within the same ``move_every`` seconds, so
  the tables reach their games' stages together), or at random times ``move_every`` seconds
  apart on average (``pace="random"``: a Poisson process per table, as people take their own
  time over a move). Each act is chosen by :class:`engine.bots.HeuristicBot` on its shadow
  :class:`engine.Game` and sent by the acting seat on a keep-alive connection of a shared
  pool; the act's latency is from sending the request to reading the whole answer. With
  ``actions=new`` streams the act asks ``actions_from`` (the acts the seat has), as the live
  table page does: the answer is then the very frame the seat's stream sends, not a whole
  view.

:func:`run` drives it all and returns :class:`Figures`.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import random
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import orjson

from benchmarks.loadclient import HOST

ID_LINE = re.compile(rb"\nid: (\d+)\nevent: view\n")  # (a frame follows a chunk's size line)
CHUNKED_END = b"\r\n0\r\n\r\n"
#: in a view's data once its game is over (the row's status, in the part every viewer sees)
FINISHED = b'"status":"finished"'


@dataclass
class SeatStream:
    live_id: int
    seat: int
    token: str
    since: int  # the version the seat has (sent as Last-Event-ID)
    finished: bool = False  # its game's last view has come: the stream is not reopened


@dataclass
class TablePlay:
    """One table's shadow game and its seats' tokens."""

    live_id: int
    game: object  # engine.Game
    bots: list
    tokens: list[str]
    acts: int = 0


@dataclass
class Figures:
    act_ms: list[float] = field(default_factory=list)
    act_at: list[float] = field(default_factory=list)  # when each act was sent (monotonic)
    started: float = 0.0  # when play began (monotonic)
    act_status: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    sent: dict = field(default_factory=dict)  # (live id, new version) -> when its act was sent
    answered: dict = field(default_factory=dict)  # (live id, new version) -> answer arrived
    arrivals: list = field(default_factory=list)  # (live id, version, when it arrived)
    opened: int = 0  # streams that had their first bytes
    reconnects: int = 0
    connect_seconds: float = 0.0
    run_seconds: float = 0.0
    due_acts: int = 0  # acts the schedule asked for
    late_ms: list[float] = field(default_factory=list)  # how late an act was sent
    streams_of: Counter = field(default_factory=Counter)  # live id -> its open seat streams

    def windows(self, seconds: float = 10.0) -> list[tuple[float, list[float]]]:
        """The acts' latencies (ms) by when they were sent, in windows of ``seconds`` from the
        start of play: [(the window's start, its latencies)]. A tail that one stall of a
        server makes (every act in flight then waits) shows in one window; a server too slow
        for the load, in all of them."""
        by_window: dict[int, list[float]] = {}
        for at, ms in zip(self.act_at, self.act_ms, strict=True):
            by_window.setdefault(int((at - self.started) // seconds), []).append(ms)
        return [(k * seconds, by_window[k]) for k in sorted(by_window)]

    def summary(self) -> dict:
        """What the client process sends back (picklable, without the raw arrivals)."""
        delivery = []
        by_act = Counter()
        for live_id, version, at in self.arrivals:
            sent = self.sent.get((live_id, version))
            if sent is not None:
                delivery.append((at - sent) * 1000)
                by_act[(live_id, version)] += 1
        everywhere = sum(1 for (live_id, _v), n in by_act.items()
                         if n >= self.streams_of[live_id])
        return {"act_ms": self.act_ms, "act_windows": self.windows(), "act_status": self.act_status, "errors": self.errors,
                "delivery_ms": delivery, "events": len(self.arrivals),
                "acts_seen": len(by_act), "acts_seen_everywhere": everywhere,
                "acts": len(self.sent), "opened": self.opened,
                "reconnects": self.reconnects, "connect_seconds": self.connect_seconds,
                "run_seconds": self.run_seconds, "due_acts": self.due_acts,
                "late_ms": self.late_ms}


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            key, value = line.split(":", 1)
            headers[key.strip().lower()] = value.strip()
    return status, headers


async def follow(port: int, seat: SeatStream, seconds: float, figures: Figures,
                 opened: asyncio.Event | None, stop: asyncio.Event, actions: str = "new") -> None:
    """One seat's event stream until ``stop``; reconnects when it ends, unless its game's last
    view has come (the live table page then closes its stream). The stream is read in
    the loop's data callback (:class:`_Follower`), not by a task woken through a StreamReader
    for every frame: the client shares the two cores with the servers, and this way it takes
    a fifth less of them at 10,000 streams."""
    loop = asyncio.get_running_loop()
    request = (f"GET /api/v1/live/{seat.live_id}/events/?seconds={seconds:.0f}"
               f"&actions={actions} HTTP/1.1\r\n"
               f"Host: {HOST}\r\nAuthorization: Token {seat.token}\r\n"
               f"Accept: text/event-stream\r\nLast-Event-ID: %d\r\n\r\n")
    first = [True]  # (the seat's first bytes ever: its stream counts as opened)
    while not stop.is_set():
        transport = None
        try:
            transport, follower = await loop.create_connection(
                lambda: _Follower(seat, figures, opened, first), HOST, port)
            transport.write((request % seat.since).encode())
            code = await follower.ended
            if code is not None:
                figures.errors[f"stream {code}"] += 1
                await asyncio.sleep(1.0)
                continue
            if seat.finished:
                return  # (as the live table page closes its stream at the game's end)
            figures.reconnects += 1
        except asyncio.CancelledError:
            raise
        except (OSError, ValueError, IndexError) as exc:
            figures.errors[f"stream {type(exc).__name__}"] += 1
            await asyncio.sleep(1.0)
        finally:
            if transport is not None:
                transport.close()


class _Follower(asyncio.Protocol):
    """One connection of :func:`follow`: the answer's head, then its chunked body, whose
    ``view`` events are noted (version, when) as the bytes arrive. :attr:`ended` resolves when
    the stream has ended (``None``) or was refused (its status)."""

    def __init__(self, seat: SeatStream, figures: Figures, opened: asyncio.Event | None,
                 first: list):
        self.seat, self.figures, self.opened, self.first = seat, figures, opened, first
        self.ended: asyncio.Future = asyncio.get_running_loop().create_future()
        self.head: bytes | None = b""  # (None once the head is read)
        self.buffer = b""
        self.transport = None

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self.head is not None:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            status = int(self.head.split(b" ", 2)[1])
            data, self.head = self.head[end + 4:], None
            if status != 200:
                self._end(status)
                return
            if not data:
                return
        now = time.monotonic()
        if self.first[0]:
            self.first[0] = False
            self.figures.opened += 1
            if self.opened is not None:
                self.opened.set()
        buffer = self.buffer + data
        end = buffer.rfind(b"\n\n")
        if end >= 0:
            seat, arrivals = self.seat, self.figures.arrivals
            for match in ID_LINE.finditer(buffer, 0, end + 2):
                version = int(match.group(1))
                seat.since = max(seat.since, version)
                arrivals.append((seat.live_id, version, now))
            if buffer.find(FINISHED, 0, end) >= 0:
                seat.finished = True
            if buffer.endswith(CHUNKED_END):
                self._end(None)
                return
            buffer = buffer[end + 2:]
        self.buffer = buffer

    def connection_lost(self, exc) -> None:
        if exc is not None and not self.ended.done():
            self.figures.errors[f"stream {type(exc).__name__}"] += 1
        self._end(None)

    def _end(self, status: int | None) -> None:
        if not self.ended.done():
            self.ended.set_result(status)
        if self.transport is not None:
            self.transport.close()


class ActPool:
    """Keep-alive connections to the act server, shared by the tables."""

    def __init__(self, port: int, size: int):
        self.port = port
        self.free: asyncio.Queue = asyncio.Queue()
        for _ in range(size):
            self.free.put_nowait(None)  # opened on first use

    async def post(self, path: str, token: str, body: bytes) -> tuple[int, bytes]:
        conn = await self.free.get()
        try:
            if conn is None:
                conn = await asyncio.open_connection(HOST, self.port)
            reader, writer = conn
            writer.write((f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nAuthorization: Token "
                          f"{token}\r\nContent-Type: application/json\r\nContent-Length: "
                          f"{len(body)}\r\n\r\n").encode() + body)
            status, headers = await _read_head(reader)
            answer = await reader.readexactly(int(headers.get("content-length", 0)))
            if headers.get("connection", "").lower() == "close":
                writer.close()
                conn = None
            return status, answer
        except BaseException:
            if conn is not None:
                conn[1].close()
            conn = None
            raise
        finally:
            self.free.put_nowait(conn)

    def close(self) -> None:
        while not self.free.empty():
            conn = self.free.get_nowait()
            if conn is not None:
                conn[1].close()


#: how a table's acts are spaced (:func:`play`)
PACES = ("steady", "random")


def gaps(pace: str, move_every: float, rng: random.Random) -> Iterator[float]:
    """The seconds before a table's first act, then between its acts: ``"steady"``, a random
    phase within ``move_every``, then ``move_every`` each; ``"random"``, each drawn from the
    exponential distribution of mean ``move_every`` (a Poisson process of that rate)."""
    if pace not in PACES:
        raise ValueError(f"unknown pace {pace!r}: one of {', '.join(PACES)}")
    if pace == "steady":
        return itertools.chain([rng.uniform(0, move_every)], itertools.repeat(move_every))
    return (rng.expovariate(1 / move_every) for _ in itertools.count())


async def play(table: TablePlay, pool: ActPool, move_every: float, figures: Figures,
               stop: asyncio.Event, rng: random.Random, resync, new_acts: bool = True,
               pace: str = "steady") -> None:
    """The table's acts, one every ``move_every`` seconds at ``pace`` (:func:`gaps`), each due
    at its time whenever the one before was answered; ``new_acts``: each answer carries only
    the acts the seat does not have (``actions_from``)."""
    from engine.bots import next_act

    spacing = gaps(pace, move_every, rng)
    due = time.monotonic() + next(spacing)
    path = f"/api/v1/live/{table.live_id}/act/"
    while not stop.is_set() and table.game.state != "over":
        wait = due - time.monotonic()
        if wait > 0:
            # a bare sleep: waiting on the stop event with wait_for made a task and a
            # cancellation per act, a tenth of this client's CPU (py-spy)
            await asyncio.sleep(wait)
            if stop.is_set():
                return
        figures.due_acts += 1
        figures.late_ms.append(max(0.0, time.monotonic() - due) * 1000)
        due += next(spacing)
        seat, act = next_act(table.game, table.bots)
        version = table.game.version
        body = orjson.dumps({"version": version, **act})
        t0 = time.monotonic()
        try:
            status, answer = await pool.post(
                f"{path}?actions_from={len(table.game.actions)}" if new_acts else path,
                table.tokens[seat], body)
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            figures.errors[f"act {type(exc).__name__}"] += 1
            table.game = await resync(table.live_id)
            continue
        done = time.monotonic()
        figures.act_ms.append((done - t0) * 1000)
        figures.act_at.append(t0)
        figures.act_status[status] += 1
        if status != 200:
            table.game = await resync(table.live_id)
            continue
        # orjson, as a phone's browser parses JSON natively: the standard library's decoder
        # was a fifth of this client's CPU, and the client shares the cores with the servers
        new_version = orjson.loads(answer)["version"]
        figures.sent[(table.live_id, new_version)] = t0
        figures.answered[(table.live_id, new_version)] = done
        table.game.act(seat, dict(act))
        table.acts += 1
        if table.game.version != new_version:
            figures.errors["shadow out of step"] += 1
            table.game = await resync(table.live_id)


def pick(ports: list[int], live_id: int) -> int:
    """The port of the server that serves game ``live_id`` (:class:`benchmarks.servers.Shards`:
    ``id % len(ports)``)."""
    return ports[live_id % len(ports)]


async def run(*, stream_ports: list[int], act_ports: list[int], seats: list[SeatStream],
              tables: list[TablePlay], move_every: float, seconds: float, connect_at_once: int,
              act_connections: int, resync, stream_actions: str = "new", seed: int = 1,
              pace: str = "steady", say=print,
              figures: Figures | None = None, played=None, before_play=None) -> Figures:
    """Open every seat stream (``connect_at_once`` connecting at a time), then play for
    ``seconds``; returns the figures (``figures``, if given: its ``connect_seconds`` is set
    once every stream is open). ``played()`` is called once play has ended, every stream
    still open. ``before_play()``, awaited once every stream is open, holds play back until
    it returns (the parent's reading of the processes then, which is not play)."""
    gaps(pace, move_every, random.Random())  # (an unknown pace: refused before anything starts)
    figures = figures if figures is not None else Figures()
    figures.streams_of.update(seat.live_id for seat in seats)
    stop = asyncio.Event()
    stream_seconds = seconds + 600  # no stream ends on its own during the run
    gate = asyncio.Semaphore(connect_at_once)
    streams = []
    t0 = time.monotonic()

    async def open_one(seat: SeatStream):
        async with gate:
            opened = asyncio.Event()
            streams.append(asyncio.ensure_future(
                follow(pick(stream_ports, seat.live_id), seat, stream_seconds, figures, opened,
                       stop, stream_actions)))
            try:
                await asyncio.wait_for(opened.wait(), 120)
            except TimeoutError:
                figures.errors["stream not opened in 120 s"] += 1

    step = max(1, len(seats) // 10)
    for k in range(0, len(seats), step):
        await asyncio.gather(*(open_one(s) for s in seats[k:k + step]))
        say(f"  {min(k + step, len(seats))} streams open ({time.monotonic() - t0:.1f} s)")
    figures.connect_seconds = time.monotonic() - t0
    if before_play is not None:
        await before_play()
    # What is held now (10,000 streams, every table's shadow game) lives as long as the run,
    # and the client's own collections are not the servers' latency: each full collection
    # stopped this event loop for 0.4-0.6 s, and even its young collections for up to 0.15 s,
    # while every act and event in flight waited (gc callbacks, a move every 6 s). So the run
    # is played with the collector off (its garbage is a few minutes' worth at most).
    gc.collect()
    gc.freeze()
    gc.disable()
    pools = [ActPool(port, max(1, act_connections // len(act_ports))) for port in act_ports]
    rng = random.Random(seed)
    t1 = figures.started = time.monotonic()
    say(f"  play starts (at {time.time():.1f} s since the epoch: the servers' logs compare)")
    players = [asyncio.ensure_future(play(t, pick(pools, t.live_id), move_every, figures, stop,
                                          rng, resync, stream_actions == "new", pace))
               for t in tables]
    await asyncio.sleep(seconds)
    figures.run_seconds = time.monotonic() - t1
    stop.set()
    for player in players:  # (asleep until its next act: no act starts after the run)
        player.cancel()
    await asyncio.gather(*players, return_exceptions=True)
    if played is not None:
        played()  # (play has ended, every stream is still open)
    await asyncio.sleep(2.0)  # the last acts' events still on their way
    for task in streams:
        task.cancel()
    await asyncio.gather(*streams, return_exceptions=True)
    for pool in pools:
        pool.close()
    gc.enable()
    return figures
