"""The asyncio client of ``bench_live --streams`` (benchmarks.streamclient) against a small fake
server: it reads the versions of a chunked event stream whatever the TCP reads cut, reconnects
with Last-Event-ID when a stream ends, and posts acts on kept-alive connections. (The whole
mode runs in .ci/run, step 4, against uvicorn, gunicorn, PostgreSQL and Redis.)"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import statistics

import pytest

from benchmarks import streamclient
from benchmarks.loadclient import HOST


def chunk(text: str) -> bytes:
    data = text.encode()
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


async def write_cut(writer, body: bytes, size: int) -> None:
    """Send ``body`` in pieces of ``size`` bytes, each its own TCP write."""
    for k in range(0, len(body), size):
        writer.write(body[k:k + size])
        await writer.drain()
        await asyncio.sleep(0)


def test_a_stream_is_read_across_cut_chunks_and_resumed_with_last_event_id():
    requests: list[bytes] = []
    view = json.dumps({"version": 8, "note": "id: 99\nevent: view"})  # (escaped in JSON)

    async def serve(reader, writer):
        head = await reader.readuntil(b"\r\n\r\n")
        requests.append(head)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                     b"transfer-encoding: chunked\r\n\r\n")
        if len(requests) == 1:
            body = (chunk("retry: 1000\n: 5\n\n") + chunk(f"id: 7\nevent: view\ndata: {view}\n\n")
                    + chunk(": keep-alive\n\n") + chunk(f"id: 8\nevent: view\ndata: {view}\n\n")
                    + b"0\r\n\r\n")
            await write_cut(writer, body, 7)  # cut anywhere
        else:
            writer.write(chunk("retry: 1000\n: 5\n\n"))
            await writer.drain()
            await asyncio.sleep(30)
        writer.close()

    async def scenario():
        server = await asyncio.start_server(serve, HOST, 0)
        port = server.sockets[0].getsockname()[1]
        figures = streamclient.Figures()
        stop = asyncio.Event()
        opened = asyncio.Event()
        seat = streamclient.SeatStream(live_id=5, seat=2, token="k", since=6)
        task = asyncio.ensure_future(streamclient.follow(port, seat, 60, figures, opened, stop))
        await asyncio.wait_for(opened.wait(), 5)
        for _ in range(500):
            if len(requests) >= 2:
                break
            await asyncio.sleep(0.01)
        stop.set()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        server.close()
        return figures, seat

    figures, seat = asyncio.run(scenario())
    assert [(a[0], a[1]) for a in figures.arrivals] == [(5, 7), (5, 8)]
    assert seat.since == 8 and figures.opened == 1 and figures.reconnects == 1
    assert b"Last-Event-ID: 6\r\n" in requests[0] and b"Last-Event-ID: 8\r\n" in requests[1]
    assert b"GET /api/v1/live/5/events/?seconds=60&actions=new " in requests[0]
    assert b"Authorization: Token k\r\n" in requests[0]
    assert not figures.errors


def test_a_stream_whose_game_is_over_is_not_reopened():
    """As the live table page closes its stream at the game's end, the client follows a
    finished game no further: 10,000 streams reopening as their games end would measure a
    load no page makes."""
    requests: list[bytes] = []
    last = json.dumps({"version": 9, "status": "finished"}, separators=(",", ":"))

    async def serve(reader, writer):
        requests.append(await reader.readuntil(b"\r\n\r\n"))
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                     b"transfer-encoding: chunked\r\n\r\n")
        body = chunk(f"id: 9\nevent: view\ndata: {last}\n\n") + b"0\r\n\r\n"
        await write_cut(writer, body, 5)  # the marker cut across reads
        writer.close()

    async def scenario():
        server = await asyncio.start_server(serve, HOST, 0)
        port = server.sockets[0].getsockname()[1]
        figures = streamclient.Figures()
        seat = streamclient.SeatStream(live_id=5, seat=2, token="k", since=8)
        await asyncio.wait_for(streamclient.follow(port, seat, 60, figures, None,
                                                   asyncio.Event()), 5)
        server.close()
        return figures, seat

    figures, seat = asyncio.run(scenario())
    assert seat.finished and seat.since == 9 and len(requests) == 1
    assert figures.reconnects == 0 and not figures.errors


def test_acts_share_kept_alive_connections():
    connections = []

    async def serve(reader, writer):
        connections.append(writer)
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                break
            length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
            body = json.loads(await reader.readexactly(length))
            answer = json.dumps({"version": body["version"] + 1}).encode()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: " + str(len(answer)).encode() + b"\r\n\r\n" + answer)
            await writer.drain()

    async def scenario():
        server = await asyncio.start_server(serve, HOST, 0)
        pool = streamclient.ActPool(server.sockets[0].getsockname()[1], size=2)
        answers = await asyncio.gather(*(
            pool.post("/api/v1/live/1/act/", "k", json.dumps({"version": v}).encode())
            for v in range(10)))
        pool.close()
        server.close()
        return answers

    answers = asyncio.run(scenario())
    assert [(status, json.loads(body)["version"]) for status, body in answers] == \
        [(200, v + 1) for v in range(10)]
    assert len(connections) == 2  # ten acts, two connections


def test_a_steady_pace_keeps_every_tables_acts_in_step_from_its_own_phase():
    rng = random.Random(3)
    spacings = [list(itertools.islice(streamclient.gaps("steady", 3.0, rng), 5))
                for _table in range(200)]
    assert all(0 <= first < 3.0 for first, *_rest in spacings)
    assert all(rest == [3.0] * 4 for _first, *rest in spacings)
    # (so a table's n-th act is due within the same 3 s as every other table's)


def test_a_random_pace_is_a_poisson_process_of_the_same_rate():
    rng = random.Random(3)
    drawn = list(itertools.islice(streamclient.gaps("random", 3.0, rng), 50_000))
    assert all(gap > 0 for gap in drawn)
    assert abs(statistics.fmean(drawn) - 3.0) < 0.05  # the same acts a second on average
    assert abs(statistics.stdev(drawn) - 3.0) < 0.1  # exponential: as spread as its mean
    # the 18th act (a game's first lead, about) of 1,000 tables: spread over a minute or more,
    # not over 3 s as at a steady pace
    eighteenth = [sum(itertools.islice(streamclient.gaps("random", 3.0, rng), 18))
                  for _table in range(1000)]
    assert max(eighteenth) - min(eighteenth) > 60


def test_an_unknown_pace_is_refused_before_anything_starts():
    with pytest.raises(ValueError, match="unknown pace 'lockstep': one of steady, random"):
        asyncio.run(streamclient.run(stream_ports=[], act_ports=[], seats=[], tables=[],
                                     move_every=3.0, seconds=1.0, connect_at_once=1,
                                     act_connections=1, resync=None, pace="lockstep"))
