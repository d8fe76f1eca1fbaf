"""uvicorn's HTTP protocol (httptools), its answers' head and body sent in one write:
``uvicorn config.asgi:application --http config.http_protocol:OneWriteHttpToolsProtocol``.

uvicorn writes a response's head (the status line and the headers) to the socket as the
application sends ``http.response.start``, and its body as it sends ``http.response.body``:
two writes, so two system calls and two TCP segments — for every act's answer on the short
path (api/fast_act.py), which sends both at once. uvloop sends each write at once when the
socket is free (it does not gather a loop iteration's writes), and the client wakes for each
segment. Here each request's head is held until its body's first write, which takes it along,
or until the event loop's next turn (:class:`HeadHeld`: a response that starts and waits, an
event stream, answers its head at once as before). What is written, and in what order, is
unchanged; only how many writes carry it.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class HeadHeld:
    """One request's view of its connection's transport (uvicorn's ``RequestResponseCycle``
    writes through it): its first write — the response's head, or an interim ``100
    Continue`` — is held, and sent with the next write of the same turn of the event loop, or
    alone at the next turn. Every other write, and closing, passes what is held first."""

    __slots__ = ("transport", "loop", "held", "first")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop):
        self.transport = transport
        self.loop = loop
        self.held: bytes | None = None
        self.first = True

    def write(self, data: bytes) -> None:
        if self.held is not None:
            data, self.held = self.held + data, None
        elif self.first:
            self.first = False
            self.held = data
            self.loop.call_soon(self.flush)
            return
        self.transport.write(data)

    def flush(self) -> None:
        """Send what is held (nothing if the connection is closing: its client has gone)."""
        held, self.held = self.held, None
        if held is not None and not self.transport.is_closing():
            self.transport.write(held)

    def is_closing(self) -> bool:
        return self.transport.is_closing()

    def close(self) -> None:
        self.flush()
        self.transport.close()


class OneWriteHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, each request's cycle writing through a :class:`HeadHeld`:
    an answer whose body is sent with its head goes out in one write."""

    def on_headers_complete(self) -> None:
        before = self.cycle
        super().on_headers_complete()
        if self.cycle is not before:  # (a new request: not an upgrade, not refused)
            self.cycle.transport = HeadHeld(self.transport, self.loop)
