"""config/http_protocol.py: uvicorn's httptools protocol sending an answer's head with its body
in one write, and otherwise writing what it always wrote, in the same order."""

import asyncio

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState

from config.http_protocol import OneWriteHttpToolsProtocol


class Transport(asyncio.Transport):
    """A connection's transport that keeps each write apart."""

    def __init__(self):
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data):
        assert not self.closed, "written after closing"
        self.writes.append(bytes(data))

    def is_closing(self):
        return self.closed

    def close(self):
        self.closed = True

    def get_extra_info(self, name, default=None):
        return {"sockname": ("127.0.0.1", 8002), "peername": ("127.0.0.1", 50000)}.get(
            name, default)

    def pause_reading(self):
        pass

    def resume_reading(self):
        pass


def whole(body: bytes):
    """An application answering at once: head and body sent together."""
    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
    return app


def connected(app) -> tuple[OneWriteHttpToolsProtocol, Transport]:
    config = Config(app=app, http=OneWriteHttpToolsProtocol, lifespan="off",
                    access_log=False)
    protocol = OneWriteHttpToolsProtocol(config=config, server_state=ServerState(),
                                         app_state={})
    transport = Transport()
    protocol.connection_made(transport)
    return protocol, transport


async def settle(turns: int = 20) -> None:
    for _ in range(turns):
        await asyncio.sleep(0)


def run(coroutine):
    return asyncio.run(coroutine)


def test_an_answer_sent_whole_goes_out_in_one_write():
    async def scenario():
        protocol, transport = connected(whole(b'{"version": 7}'))
        protocol.data_received(b"POST /api/v1/live/3/act/ HTTP/1.1\r\nHost: x\r\n"
                               b"Content-Length: 2\r\n\r\n{}")
        await settle()
        return transport.writes

    writes = run(scenario())
    assert len(writes) == 1
    head, body = writes[0].split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"content-length: 14" in head
    assert body == b'{"version": 7}'


def test_a_stream_gets_its_head_at_once_and_each_frame_as_it_comes():
    async def scenario():
        go = asyncio.Event()

        async def app(scope, receive, send):
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"text/event-stream")]})
            await go.wait()
            await send({"type": "http.response.body", "body": b"data: 1\n\n",
                        "more_body": True})
            await send({"type": "http.response.body", "body": b""})

        protocol, transport = connected(app)
        protocol.data_received(b"GET /api/v1/live/3/events/ HTTP/1.1\r\nHost: x\r\n\r\n")
        await settle()
        before_any_frame = list(transport.writes)
        go.set()
        await settle()
        return before_any_frame, transport.writes

    before_any_frame, writes = run(scenario())
    assert len(before_any_frame) == 1
    assert before_any_frame[0].startswith(b"HTTP/1.1 200 OK\r\n")
    assert before_any_frame[0].endswith(b"transfer-encoding: chunked\r\n\r\n")
    assert writes[1:] == [b"9\r\ndata: 1\n\n\r\n", b"0\r\n\r\n"]


def test_a_head_request_gets_its_head():
    async def scenario():
        protocol, transport = connected(whole(b"{}"))
        protocol.data_received(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
        await settle()
        return transport.writes

    writes = run(scenario())
    assert len(writes) == 1 and writes[0].startswith(b"HTTP/1.1 200 OK\r\n")
    assert writes[0].endswith(b"\r\n\r\n")


@pytest.mark.parametrize("keep_alive", [True, False])
def test_requests_on_one_connection_are_answered_in_order(keep_alive):
    async def scenario():
        async def app(scope, receive, send):
            body = scope["path"].encode()
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})

        protocol, transport = connected(app)
        close = b"" if keep_alive else b"Connection: close\r\n"
        protocol.data_received(b"GET /one HTTP/1.1\r\nHost: x\r\n\r\n"
                               b"GET /two HTTP/1.1\r\nHost: x\r\n" + close + b"\r\n")
        await settle()
        return transport

    transport = run(scenario())
    assert [write.split(b"\r\n\r\n", 1)[1] for write in transport.writes] == [b"/one", b"/two"]
    assert transport.closed is not keep_alive


def test_a_client_gone_before_the_head_is_sent_is_not_written_to():
    async def scenario():
        async def app(scope, receive, send):
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"text/event-stream")]})
            transport.close()  # (the client leaves in the same turn)

        protocol, transport = connected(app)
        protocol.data_received(b"GET /events/ HTTP/1.1\r\nHost: x\r\n\r\n")
        await settle()
        return transport.writes

    assert run(scenario()) == []
