"""The stream database threads' connections (live/aio.py): kept from one read to the next
while a thread is busy, checked (``close_old_connections``) after it was idle and after a read
that failed, so a connection that died is replaced before the next read."""

from __future__ import annotations

import pytest
from django.db import OperationalError

from live import aio


@pytest.fixture
def checks(monkeypatch):
    """How many times a call checked its connection first."""
    counted = []
    monkeypatch.setattr(aio, "close_old_connections", lambda: counted.append(1))
    monkeypatch.setattr(aio, "_thread", type(aio._thread)())  # a thread that has made no call
    return counted


def test_a_busy_thread_keeps_its_connection_and_an_idle_one_checks_it(checks, monkeypatch):
    aio._call(lambda: None)
    aio._call(lambda: None)
    aio._call(lambda: None)
    assert len(checks) == 1  # the first call only: the others came within IDLE_CHECK
    monkeypatch.setattr(aio, "IDLE_CHECK", -1.0)  # as if a second had passed since
    aio._call(lambda: None)
    assert len(checks) == 2


def test_after_a_failed_read_the_next_call_checks_the_connection_first(checks):
    def dead():
        raise OperationalError("server closed the connection unexpectedly")

    aio._call(lambda: None)
    with pytest.raises(OperationalError):
        aio._call(dead)
    aio._call(lambda: None)  # at once, while the thread is still busy
    assert len(checks) == 2
    assert aio.keeps_connection()


def test_a_call_runs_in_a_stream_database_thread_in_the_callers_context(checks):
    """:func:`live.aio.in_db_thread` runs the call in one of the stream database threads, with
    the caller's context (the language a request activated), and hands back its value or its
    exception."""
    import threading

    from asgiref.sync import async_to_sync
    from django.utils import translation

    def where():
        return threading.current_thread().name, translation.get_language()

    def fails():
        raise OperationalError("gone")

    async def scenario():
        translation.activate("zh-hans")
        try:
            got = await aio.in_db_thread(where)
            with pytest.raises(OperationalError):
                await aio.in_db_thread(fails)
            return got
        finally:
            translation.deactivate()

    name, language = async_to_sync(scenario)()
    assert name.startswith("live-db") and language == "zh-hans"
