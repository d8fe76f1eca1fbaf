"""Login throttling (issue 15, finding 3): a password guesser against ``/auth/token/`` and the
admin's login, changing X-Forwarded-For and sending requests in parallel.

Two defences: django-axes locks a username out from an address after ``LOGIN_FAILURE_LIMIT``
failures (10 here), for the token view and the admin alike (its other tiers:
tests/test_lockout.py); and the throttles count with atomic increments (config/ratelimit.py),
so requests sent together cannot pass a limit, and take the client's address only from
trusted proxies."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.core.cache import cache
from django.test import Client as DjangoClient
from django.test import override_settings
from rest_framework.throttling import SimpleRateThrottle

from api import throttling
from config import ratelimit
from tests.api.helpers import client_for, error_of
from tests.factories import UserFactory

TOKEN = "/api/v1/auth/token/"
LIMIT = 10  # LOGIN_FAILURE_LIMIT's default


@pytest.fixture
def victim(db, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    user = UserFactory(username="victim", is_staff=True, is_superuser=True)
    user.set_password("the-right-password")
    user.save()
    return user


def guess(client, address: str, password: str, username: str = "victim"):
    return client.post(TOKEN, {"username": username, "password": password}, format="json",
                       HTTP_X_FORWARDED_FOR=address)


def test_a_guesser_changing_x_forwarded_for_is_locked_out_of_the_token_view(victim):
    # given an attacker who sends every guess with a new X-Forwarded-For
    anon = client_for(None)
    answers = [guess(anon, f"203.0.113.{i}", f"guess-{i}").status_code for i in range(LIMIT + 5)]
    # then the first guesses are answered "wrong", and the LIMITth failure locks the username
    # out from the guesser's address, whatever address the guesses claim
    assert answers[:LIMIT - 1] == [400] * (LIMIT - 1)
    assert set(answers[LIMIT - 1:]) == {429}
    # even the right password is refused now, in the API's error shape
    err = error_of(guess(anon, "198.51.100.7", "the-right-password"), 429)
    assert err["code"] == "locked_out" and "try again" in err["message"]


def test_the_admin_login_locks_a_guesser_out(victim):
    # given a guesser at the admin's login form
    browser = DjangoClient()
    answers = [browser.post("/admin/login/", {"username": "victim", "password": f"guess-{i}"},
                            HTTP_X_FORWARDED_FOR=f"203.0.113.{i}").status_code
               for i in range(LIMIT)]
    assert answers == [200] * (LIMIT - 1) + [429]  # the form again, then locked out
    # when the right password comes next, from a fresh browser
    r = DjangoClient().post("/admin/login/?next=/admin/",
                            {"username": "victim", "password": "the-right-password"})
    # then it is refused: the username is locked out from that address for the cool-off time
    assert r.status_code == 429 and "Too many failed logins" in r.content.decode()


def test_token_logins_are_throttled_per_address_before_any_password_is_checked(victim, monkeypatch):
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES",
                        {**SimpleRateThrottle.THROTTLE_RATES, "login": "3/min"})
    cache.clear()
    anon = client_for(None)
    answers = [guess(anon, "-", "x", username=f"u{i}").status_code for i in range(5)]
    assert answers == [400, 400, 400, 429, 429]
    assert error_of(guess(anon, "-", "x", username="u9"), 429)["code"] == "throttled"


def test_a_new_x_forwarded_for_does_not_reset_the_anonymous_limit(monkeypatch):
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES",
                        {**SimpleRateThrottle.THROTTLE_RATES, "anon": "5/hour"})
    monkeypatch.setattr(ratelimit.time, "time", lambda: 3_000_000.0)
    cache.clear()
    anon = client_for(None)
    codes = [anon.post("/api/v1/engine/validate", {}, format="json",
                       HTTP_X_FORWARDED_FOR=f"198.51.100.{i}").status_code for i in range(10)]
    assert codes == [400] * 5 + [429] * 5


@pytest.mark.parametrize(("proxies", "forwarded", "address"), [
    (0, "1.1.1.1", "10.0.0.9"),  # no trusted proxy: the header is the client's word, ignored
    (1, "1.1.1.1, 192.0.2.5", "192.0.2.5"),  # nginx appended the real one; 1.1.1.1 is forged
    (2, "1.1.1.1, 192.0.2.5, 10.0.0.2", "192.0.2.5"),
    (1, "", "10.0.0.9"),
])
def test_the_client_address_comes_only_from_trusted_proxies(rf, proxies, forwarded, address):
    request = rf.get("/", REMOTE_ADDR="10.0.0.9", HTTP_X_FORWARDED_FOR=forwarded)
    with override_settings(TRUSTED_PROXY_COUNT=proxies):
        assert ratelimit.client_address(request) == address


def test_the_atomic_counter_lets_exactly_the_limit_through_from_parallel_threads(monkeypatch):
    # given a limit of 300 a minute and a frozen clock (one window)
    monkeypatch.setattr(ratelimit.time, "time", lambda: 1_000_000.0)
    throttle = throttling.AnonRateThrottle()
    throttle.num_requests, throttle.duration = 300, 60
    cache.delete("race:16666")
    passed = []
    start = threading.Barrier(8)

    def client():
        start.wait()
        passed.append(sum(ratelimit.count_request(*throttle.counter("race")) <=
                          throttle.num_requests for _ in range(120)))

    # when 8 clients send 960 requests at once
    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # then exactly 300 pass
    assert sum(passed) == 300


def test_parallel_anonymous_requests_cannot_pass_the_limit(monkeypatch):
    """The attack itself, through the API: 8 threads, 240 requests, a limit of 50."""
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES",
                        {**SimpleRateThrottle.THROTTLE_RATES, "anon": "50/hour",
                         "engine": "100000/min"})
    monkeypatch.setattr(ratelimit.time, "time", lambda: 2_000_000.0)
    cache.clear()
    codes = []
    start = threading.Barrier(8)

    def client():
        anon = client_for(None)
        start.wait()
        for _ in range(30):  # a body the engine refuses without the database
            codes.append(anon.post("/api/v1/engine/validate", {}, format="json").status_code)

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(codes) == 240 and codes.count(429) == 190, sorted(set(codes))


def test_a_counter_in_local_memory_is_the_caches_own(monkeypatch):
    """Counted in one step on the local-memory cache, a counter is what the cache's ``add`` and
    ``incr`` would leave: read back by ``get``, gone when its window expires or the cache is
    cleared, then counted from 1 again."""
    now = [2_000_000.0]
    monkeypatch.setattr(ratelimit.time, "time", lambda: now[0])
    monkeypatch.setattr("django.core.cache.backends.locmem.time.time", lambda: now[0])
    monkeypatch.setattr("django.core.cache.backends.base.time.time", lambda: now[0])
    cache.delete("steps:1")
    assert [ratelimit.count_request("steps:1", 61) for _ in range(3)] == [1, 2, 3]
    assert cache.get("steps:1") == 3
    cache.incr("steps:1")  # (the cache's own API agrees with it both ways)
    assert ratelimit.count_request("steps:1", 61) == 5
    now[0] += 61  # the window is over
    assert cache.get("steps:1") is None and ratelimit.count_request("steps:1", 61) == 1
    cache.clear()
    assert ratelimit.count_request("steps:1", 61) == 1


def test_each_clients_windows_end_at_their_own_moment_the_same_for_all_its_throttles(
        rf, monkeypatch):
    """Windows that ended together for every client renewed everyone's counters at once (on a
    stream server, a round trip to Redis for nearly every act of the minute's first 18 s). A
    counter's windows start at the phase of whom its key counts: 1,000 users' windows end
    spread over the minute; a user's throttles (per user, and the view's scope) change window
    together, when the clock passes the user's phase, and say so in ``wait``; an anonymous
    client's phase is its address's."""
    class LiveView:
        throttle_scope = "live"

    def counters(request) -> list:
        throttles = (throttling.UserRateThrottle(), throttling.ScopedRateThrottle())
        found = [t.counter_for(request, LiveView()) for t in throttles]
        return [(key.rsplit(":", 1)[1], t.wait()) for t, (key, _timeout) in zip(
            throttles, found, strict=True)]

    phases = [ratelimit.key_phase(f"throttle_user_{pk}") for pk in range(1, 1001)]
    assert all(0 <= p < 1 for p in phases)
    tenths = Counter(int(p * 10) for p in phases)
    assert sorted(tenths) == list(range(10)) and min(tenths.values()) >= 60, tenths

    request = rf.get("/", REMOTE_ADDR="10.0.0.9")
    request.user = User(pk=7, username="seven")
    phase = ratelimit.key_phase("throttle_user_7")
    assert phase == ratelimit.key_phase("throttle_live_7")
    end = (1_000_000 // 60 + 1 - phase) * 60  # (a moment the user's window ends at)
    monkeypatch.setattr(ratelimit.time, "time", lambda: end - 0.5)
    before = counters(request)
    monkeypatch.setattr(ratelimit.time, "time", lambda: end + 0.5)
    after = counters(request)
    (window, wait), (window2, wait2) = before
    assert window == window2 and wait == pytest.approx(0.5) == wait2
    assert [w for w, _ in after] == [str(int(window) + 1)] * 2
    assert [wait for _w, wait in after] == [pytest.approx(59.5)] * 2

    request.user = AnonymousUser()
    key = throttling.AnonRateThrottle().get_cache_key(request, None)
    assert ratelimit.key_phase(key) == ratelimit.window_phase("10.0.0.9")


def test_one_username_from_sixty_addresses_meets_the_login_limit_once(victim, settings,
                                                                    monkeypatch):
    """The per-username limit counts one counter per username: its windows start at the
    username's own phase, whatever address each login comes from (they started at each
    address's phase, and one username's logins split over two windows)."""
    # given a limit of 20 logins a minute, one proxy in front (X-Forwarded-For's last entry
    # is the client), and a clock that stands still inside one window
    settings.TRUSTED_PROXY_COUNT = 1
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES",
                        {**SimpleRateThrottle.THROTTLE_RATES, "login": "20/min"})
    monkeypatch.setattr(ratelimit.time, "time", lambda: 1_000_050.0)
    anon = client_for(None)
    # when the right password for one username comes from 60 addresses
    codes = [guess(anon, f"203.0.113.{i}", "the-right-password").status_code
             for i in range(60)]
    # then exactly the limit of them pass, and every other one is throttled
    assert Counter(codes) == {200: 20, 429: 40}
