"""The act's short path on the ASGI server (api/fast_act.py), through config/asgi.py's
application as uvicorn calls it: the common act is answered there as the DRF view answers it
(the same status, body and headers, in either language and over HTTPS), every other act is
handed to the view, which answers as it always has, each is counted once by the throttles,
and a whole game played through it ends with its result stored and its record replaying."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.conf import settings as django_settings
from hypothesis import example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

import engine
from api import fast_act
from api.live_views import LiveActApi, LiveActSerializer, plain_act
from games.models import GameResult
from live import notify, streams
from live import services as live
from live.models import LiveGame
from tests.live.helpers import bot_pick, make_live_table, server_game
from tests.live.test_live_notify import redis_up

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def asgi_urls(settings):
    settings.ROOT_URLCONF = "config.asgi_urls"
    settings.LIVE_PUBSUB_URL = None


@pytest.fixture
def game():
    """A live game started at a table whose six players have API tokens: (table, id, keys)."""
    lt = make_live_table(client_cls=APIClient)
    keys = [Token.objects.get_or_create(user=u)[0].key for u in lt.users]
    return lt, live.live_start(table=lt.table).pk, keys


@pytest.fixture
def viewed(monkeypatch):
    """The acts the DRF view answered (the others took the short path)."""
    calls = []
    dispatch = LiveActApi.dispatch

    def counted(self, request, *args, **kwargs):
        calls.append(kwargs["pk"])
        return dispatch(self, request, *args, **kwargs)

    monkeypatch.setattr(LiveActApi, "dispatch", counted)
    return calls


def asgi(path: str, body: bytes, headers: dict[str, str], *, method: str = "POST",
         scheme: str = "http", query: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    """One request to config/asgi.py's application, built now (Django loads the middleware
    with the settings of the moment): (status, headers, body)."""
    from config.asgi import Handler

    return async_to_sync(asgi_async)(Handler(), path, body, headers, method=method,
                                     scheme=scheme, query=query)


async def asgi_async(application, path: str, body: bytes, headers: dict[str, str], *,
                     method: str = "POST", scheme: str = "http", query: bytes = b""
                     ) -> tuple[int, dict[str, str], bytes]:
    """:func:`asgi` to ``application``, on the running event loop."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": scheme, "path": path, "raw_path": path.encode(),
             "query_string": query, "root_path": "",
             "headers": [(b"host", b"testserver"),
                         *((k.lower().encode(), v.encode()) for k, v in headers.items())],
             "client": ("127.0.0.1", 50000), "server": ("testserver", 80)}
    comm = ApplicationCommunicator(application, scope)
    await comm.send_input({"type": "http.request", "body": body})
    start = await comm.receive_output(15)
    content = b""
    while True:
        message = await comm.receive_output(15)
        content += message.get("body", b"")
        if not message.get("more_body"):
            break
    await comm.wait(5)
    return (start["status"], {k.decode().lower(): v.decode() for k, v in start["headers"]},
            content)


def act(live_id: int, key: str | None, payload, *, raw: bytes | None = None, **headers):
    return asgi(*act_request(live_id, key, payload, raw=raw, **headers))


def act_request(live_id: int, key: str | None, payload, *, raw: bytes | None = None,
                **headers) -> tuple[str, bytes, dict[str, str]]:
    """The path, body and headers of an act (``raw``: that body instead of ``payload``'s
    JSON), with ``key``'s token."""
    body = raw if raw is not None else json.dumps(payload).encode()
    sent = {"Content-Type": "application/json", "Content-Length": str(len(body)), **headers}
    if key is not None:
        sent["Authorization"] = f"Token {key}"
    return f"/api/v1/live/{live_id}/act/", body, sent


def next_act(lt, live_id: int) -> tuple[int, dict]:
    game = server_game(live_id)
    seat, action = bot_pick(game, lt.bots)
    return seat, {"version": game.version, **action}


@pytest.mark.parametrize("variant", ["plain", "zh-hans", "https"])
def test_the_short_path_answers_a_common_act_as_the_view_does(game, viewed, settings, variant):
    lt, live_id, keys = game
    extra, scheme = {}, "http"
    if variant == "zh-hans":
        extra["Accept-Language"] = "zh-hans"
    if variant == "https":  # behind the TLS proxy: HSTS on every answer
        settings.TRUSTED_PROXY_COUNT = 1
        settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
        settings.SECURE_SSL_REDIRECT = True
        settings.SECURE_HSTS_SECONDS = 3600
        extra["X-Forwarded-Proto"] = scheme = "https"
    answers = []
    for short in (True, False):
        settings.LIVE_ACT_SHORT_PATH = short
        seat, payload = next_act(lt, live_id)
        status, headers, body = act(live_id, keys[seat], payload, **extra)
        assert status == 200, body
        view = json.loads(body)
        assert view["version"] == payload["version"] + 1 and view["seat"] == seat
        # the seat's view as GET gives it now
        got = lt.clients[seat].get(f"/api/v1/live/{live_id}/", secure=scheme == "https",
                                   HTTP_ACCEPT_LANGUAGE=extra.get("Accept-Language", "en"))
        assert got.json() == view
        assert int(headers["content-length"]) == len(body)
        answers.append(headers)
    assert viewed == [live_id]  # the second act only
    short, through_view = ({k: v for k, v in h.items() if k != "content-length"}
                           for h in answers)
    assert short == through_view
    assert short["content-language"] == ("zh-hans" if variant == "zh-hans" else "en")
    assert ("strict-transport-security" in short) == (variant == "https")


def _into_play(lt, live_id: int, keys, acts: int = 3) -> None:
    """Act through the short path until ``acts`` cards-play acts are made."""
    while len(server_game(live_id).actions) < acts:
        seat, payload = next_act(lt, live_id)
        assert act(live_id, keys[seat], payload)[0] == 200


@pytest.mark.parametrize("short", [True, False])
def test_an_answer_asked_from_an_act_on_carries_the_acts_from_there(game, viewed, settings,
                                                                    short):
    """``?actions_from=n`` (the acts the client has): the answer's ``actions`` are those from
    index ``n`` on, at ``actions_from``; the rest is the view GET gives. On the short path it
    is the very frame the seat's stream (``actions=new``, after ``n`` acts) sends."""
    lt, live_id, keys = game
    _into_play(lt, live_id, keys)
    settings.LIVE_ACT_SHORT_PATH = short
    seat, payload = next_act(lt, live_id)
    had = len(server_game(live_id).actions)
    status, _headers, body = asgi(*act_request(live_id, keys[seat], payload),
                                  query=b"actions_from=%d" % had)
    assert status == 200, body
    assert viewed == ([] if short else [live_id])
    answer = json.loads(body)
    whole = lt.clients[seat].get(f"/api/v1/live/{live_id}/").json()
    assert answer["version"] == payload["version"] + 1
    assert answer["actions_from"] == had and answer["actions"] == whole["actions"][had:]
    assert len(answer["actions"]) == 1
    assert {k: v for k, v in answer.items() if k not in ("actions", "actions_from")} == \
        {k: v for k, v in whole.items() if k != "actions"}
    if short:  # (the seat's stream renders no frame of its own for it)
        row = LiveGame.objects.get(pk=live_id)
        row.user_seat = seat
        assert streams.view_json_cached(row, seat, had) == body
    # a client that claims more acts than the game has gets them all, from 0
    seat, payload = next_act(lt, live_id)
    status, _headers, body = asgi(*act_request(live_id, keys[seat], payload),
                                  query=b"actions_from=900")
    assert status == 200
    answer = json.loads(body)
    assert answer["actions_from"] == 0 and len(answer["actions"]) == had + 2


@pytest.mark.parametrize("value", [b"-1", b"x", b"1.5", b"", b"100001", b"\xd9\xa3"])
def test_a_bad_actions_from_is_refused_and_changes_nothing(game, viewed, value):
    lt, live_id, keys = game
    seat, payload = next_act(lt, live_id)
    status, _headers, body = asgi(*act_request(live_id, keys[seat], payload),
                                  query=b"actions_from=" + value)
    error = json.loads(body)["error"]
    assert (status, error["code"]) == (400, "bad_actions_from")
    assert "actions_from" in error["message"]
    assert viewed == [live_id]  # (the view refuses it)
    assert server_game(live_id).version == payload["version"]


def test_every_other_act_is_answered_by_the_view_and_changes_nothing(game, viewed):
    lt, live_id, keys = game
    seat, payload = next_act(lt, live_id)
    assert act(live_id, keys[seat], payload)[0] == 200  # (a version before this one exists)
    viewed.clear()
    seat, payload = next_act(lt, live_id)
    other = (seat + 1) % 6
    version = payload["version"]
    cases = {
        "stale version": (act(live_id, keys[seat], {**payload, "version": version - 1}),
                          409, "stale_version"),
        "not its turn": (act(live_id, keys[other], payload), 422, "not_your_turn"),
        "another seat named": (act(live_id, keys[other], {**payload, "seat": seat}),
                               403, "not_your_seat"),
        "no token": (act(live_id, None, payload), 401, "not_authenticated"),
        "a wrong token": (act(live_id, "0" * 40, payload), 401, "authentication_failed"),
        "not JSON": (act(live_id, keys[seat], None, raw=b"{version"), 400,
                     "bad_request_body"),
        "a bad version": (act(live_id, keys[seat], {**payload, "version": "x"}),
                          400, "invalid"),
        "no such game": (act(live_id + 999, keys[seat], payload), 404, "not_found"),
    }
    for name, ((status, _headers, body), want_status, want_code) in cases.items():
        assert (status, json.loads(body)["error"]["code"]) == (want_status, want_code), \
            (name, body)
    assert len(viewed) == len(cases)
    assert server_game(live_id).version == version  # nothing changed
    # the act itself, answered by the short path
    status, _headers, body = act(live_id, keys[seat], payload)
    assert status == 200 and json.loads(body)["version"] == version + 1
    assert len(viewed) == len(cases)


class _NobodyActs:
    """A permission a deployment might add to the act's view: it refuses every act."""

    message = "acts are closed"

    def has_permission(self, request, view):
        return False

    def has_object_permission(self, request, view, obj):
        return False


class StampMiddleware:
    """A middleware a deployment might add: it marks every answer it sees."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response["X-Stamped"] = "yes"
        return response


def test_a_permission_added_to_the_view_is_honoured_by_the_short_path(game, viewed,
                                                                      monkeypatch):
    """The short path serves the view's own checks: a permission class added to
    ``LiveActApi`` refuses the act there too, and nothing is stored."""
    lt, live_id, keys = game
    monkeypatch.setattr(LiveActApi, "permission_classes",
                        [*LiveActApi.permission_classes, _NobodyActs])
    seat, payload = next_act(lt, live_id)
    status, _headers, body = act(live_id, keys[seat], payload)
    assert status == 403, body
    assert server_game(live_id).version == payload["version"]  # nothing stored


def test_a_middleware_added_to_the_settings_is_honoured_by_the_short_path(game, viewed,
                                                                          settings):
    """A middleware the short path does not know of sees every act: the act goes to the view
    (through the whole stack), and the answer carries the middleware's mark."""
    lt, live_id, keys = game
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "tests.api.test_fast_act.StampMiddleware"]
    seat, payload = next_act(lt, live_id)
    status, headers, body = act(live_id, keys[seat], payload)
    assert status == 200, body
    assert headers.get("x-stamped") == "yes"
    assert viewed == [live_id]


def test_the_projects_own_stack_is_one_the_short_path_accounts_for():
    """A middleware added to the settings without the short path accounting for it turns the
    short path off (every act to the view: safe, but the stream servers' budget is gone): this
    says so here rather than in a benchmark."""
    assert fast_act.policy() == fast_act.KNOWN_POLICY
    assert fast_act.fits()


class _NobodyThrottled(SimpleRateThrottle):
    """A throttle a deployment might add to the act's view: it refuses every act."""

    rate = "1/min"

    def get_cache_key(self, request, view):
        return "nobody"

    def allow_request(self, request, view):
        return False

    def wait(self):
        return None


class _NoAuthentication:
    def authenticate(self, request):
        return None


@pytest.mark.parametrize("attribute, added", [
    ("authentication_classes", _NoAuthentication),
    ("permission_classes", _NobodyActs),
    ("throttle_classes", _NobodyThrottled),
    ("parser_classes", SimpleRateThrottle),  # (any class: the policy names it)
    ("renderer_classes", SimpleRateThrottle),
])
def test_any_class_added_to_the_views_policy_turns_the_short_path_off(monkeypatch, attribute,
                                                                      added):
    monkeypatch.setattr(LiveActApi, attribute, [*getattr(LiveActApi, attribute), added])
    assert not fast_act.fits()


@pytest.mark.parametrize("name, value", [
    ("MIDDLEWARE", [*django_settings.MIDDLEWARE, "tests.api.test_fast_act.StampMiddleware"]),
    ("MIDDLEWARE", django_settings.MIDDLEWARE[:-1]),
    ("DISALLOWED_USER_AGENTS", ["curl"]),
])
def test_any_change_of_the_middleware_turns_the_short_path_off(settings, name, value):
    setattr(settings, name, value)
    assert not fast_act.fits()


def test_a_versioning_class_turns_the_short_path_off(monkeypatch):
    from rest_framework.versioning import AcceptHeaderVersioning

    monkeypatch.setattr(LiveActApi, "versioning_class", AcceptHeaderVersioning)
    assert not fast_act.fits()


def test_a_throttle_added_to_the_view_is_honoured_by_the_short_path(game, viewed, monkeypatch):
    """A throttle the short path does not know of refuses the act there too (the view's 429),
    and nothing is stored."""
    lt, live_id, keys = game
    monkeypatch.setattr(LiveActApi, "throttle_classes",
                        [*LiveActApi.throttle_classes, _NobodyThrottled])
    seat, payload = next_act(lt, live_id)
    status, _headers, body = act(live_id, keys[seat], payload)
    assert status == 429, body
    assert viewed == [live_id]
    assert server_game(live_id).version == payload["version"]  # nothing stored


def test_a_disallowed_user_agent_is_refused_on_the_short_path_too(game, viewed, settings):
    """CommonMiddleware refuses the user agents of ``DISALLOWED_USER_AGENTS``: so does an
    act sent to the ASGI server."""
    import re

    lt, live_id, keys = game
    settings.DISALLOWED_USER_AGENTS = [re.compile(r"^BadBot")]
    seat, payload = next_act(lt, live_id)
    status, _headers, body = act(live_id, keys[seat], payload, **{"User-Agent": "BadBot/1"})
    assert status == 403, body
    assert server_game(live_id).version == payload["version"]


def test_another_answer_format_is_the_views(game, viewed):
    """``?format`` or an Accept header that asks for more than compact JSON: the view's
    renderers answer (the short path renders compact JSON only)."""
    lt, live_id, keys = game
    seat, payload = next_act(lt, live_id)
    status, headers, _body = act(live_id, keys[seat], payload,
                                 Accept="application/json; indent=2")
    assert status == 200 and viewed == [live_id]
    seat, payload = next_act(lt, live_id)
    body = json.dumps(payload).encode()
    status, headers, body = asgi(f"/api/v1/live/{live_id}/act/", body,
                                 {"Authorization": f"Token {keys[seat]}",
                                  "Content-Type": "application/json",
                                  "Content-Length": str(len(body))}, query=b"format=json")
    assert status == 200 and viewed == [live_id, live_id]


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def throttle_cache(request, settings):
    """The throttles' counters in each process's memory, or in Redis (``CACHE_URL``)."""
    if request.param == "redis":
        if not redis_up():
            pytest.skip("needs Redis on 127.0.0.1:6379")
        import uuid

        settings.CACHES = {"default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:6379/7", "KEY_PREFIX": uuid.uuid4().hex}}
    return request.param


def test_an_act_is_counted_once_by_the_throttles_whichever_path_answers_it(
        game, monkeypatch, throttle_cache):
    """With 3 acts a minute: an act answered by the short path, then two the view refuses
    after the short path counted them (the same act again: stale), then the fourth, refused by
    the throttle. Were a handed-over act counted twice, the third would be. The short path
    counts all the view's throttles in one call (one round trip to Redis), in a thread or, on
    the event loop (PostgreSQL), on the loop's own connection to Redis."""
    import api.fast_act
    import api.throttling

    lt, live_id, keys = game
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES",
                        {**SimpleRateThrottle.THROTTLE_RATES, "live": "3/min"})
    calls = []
    count_requests = api.throttling.count_requests
    monkeypatch.setattr(api.throttling, "count_requests",
                        lambda counters: calls.append(len(counters)) or count_requests(counters))
    count_on_redis = api.fast_act.count_on_redis

    def on_loop(server, keys, timeouts, limits):
        calls.append(len(keys))
        return count_on_redis(server, keys, timeouts, limits)
    monkeypatch.setattr(api.fast_act, "count_on_redis", on_loop)
    seat, payload = next_act(lt, live_id)
    answers = [act(live_id, keys[seat], payload) for _ in range(4)]
    assert [status for status, _h, _b in answers] == [200, 409, 409, 429]
    assert calls == [2, 2, 2, 2]  # (the user's and the live scope's counters, together)
    status, headers, body = answers[-1]
    assert json.loads(body)["error"]["code"] == "throttled" and int(headers["retry-after"]) > 0
    # another seat's count is its own
    seat2, payload2 = next_act(lt, live_id)
    assert seat2 != seat and act(live_id, keys[seat2], payload2)[0] == 200


@pytest.mark.parametrize("how", ["token deleted", "user deactivated"])
def test_a_remembered_token_stops_acting_at_once(game, viewed, how):
    """The short path remembers a token's user; the act's own update checks the token again,
    so a token deleted or a user deactivated since is refused by the view (401) at once."""
    lt, live_id, keys = game
    acted = set()
    seat, payload = next_act(lt, live_id)
    while seat not in acted:  # until the seat to act is one whose token was remembered
        assert act(live_id, keys[seat], payload)[0] == 200
        acted.add(seat)
        seat, payload = next_act(lt, live_id)
    assert viewed == []
    if how == "token deleted":
        Token.objects.filter(key=keys[seat]).delete()
    else:
        type(lt.users[seat]).objects.filter(pk=lt.users[seat].pk).update(is_active=False)
    status, _headers, body = act(live_id, keys[seat], payload)  # a legal act, in its turn
    assert status == 401, body
    assert viewed == [live_id]
    assert server_game(live_id).version == payload["version"]  # nothing changed


def test_a_whole_game_played_through_it_ends_with_its_result_stored(game, viewed):
    """Every act of a game sent to the ASGI application: the short path stores all but the
    last (the view stores the act that ends the game with its result, under the lock), and
    the stored record replays to the stored result. Each act is announced once."""
    lt, live_id, keys = game
    announced = []
    seen = notify._seen
    notify._seen = lambda *args: (announced.append(args[:2]), seen(*args))
    try:
        acts = 0
        while LiveGame.objects.get(pk=live_id).status == LiveGame.Status.RUNNING:
            seat, payload = next_act(lt, live_id)
            status, _headers, body = act(live_id, keys[seat], payload)
            assert status == 200, body
            acts += 1
            assert acts < 2000
    finally:
        notify._seen = seen
    assert viewed == [live_id]  # the last act alone
    lg = LiveGame.objects.get(pk=live_id)
    result = GameResult.objects.get(pk=lg.result_id)
    record = result.versions.get(version=result.version).payload
    assert engine.replay(record, first_game=True) == result.engine_result
    versions = [version for game_id, version in announced if game_id == live_id]
    assert len(versions) == acts and versions == sorted(set(versions))
    assert versions[-1] == lg.version


def test_only_the_act_path_is_taken_by_it():
    """What the short path looks at: a POST of JSON with a token to an act's URL, no query."""
    base = {"type": "http", "method": "POST", "path": "/api/v1/live/12/act/",
            "query_string": b"", "headers": [(b"content-length", b"30"),
                                             (b"content-type", b"application/json"),
                                             (b"authorization", b"Token abc")]}
    assert fast_act.handles(base) == (12, 30, None)  # the game, the body's length, every act
    assert fast_act.handles({**base, "method": "GET"}) is None
    assert fast_act.handles({**base, "path": "/api/v1/live/12/host/"}) is None
    assert fast_act.handles({**base, "query_string": b"format=api"}) is None
    assert fast_act.handles({**base, "query_string": b"actions_from=7"}) == (12, 30, 7)
    for query in (b"actions_from=7&format=api", b"actions_from=-1", b"actions_from=",
                  b"actions_from=100001", b"format=api&actions_from=7"):
        assert fast_act.handles({**base, "query_string": query}) is None, query
    assert fast_act.handles({**base, "headers": base["headers"][:2]}) is None  # a session
    assert fast_act.handles({**base, "headers": base["headers"][1:]}) is None  # chunked
    assert fast_act.handles({**base, "headers": [*base["headers"],
                                                 (b"accept", b"text/html")]}) is None
    assert fast_act.handles({**base, "headers": [*base["headers"],
                                                 (b"accept", b"*/*")]}) == (12, 30, None)
    assert fast_act.handles({**base, "headers": [*base["headers"],
                                                 (b"content-type", b"text/plain")]}) is None


_WORDS = st.sampled_from(["play", "pass", " play", "3S ", "", "10H", "BJ", "a\x00",
                          "\u3000pass", "x" * 21, "12345", "2S", "10HS"])
_TEXT = st.one_of(_WORDS, _WORDS, _WORDS, st.text(max_size=24))
_NUMBER = st.one_of(st.integers(-2, 7), st.integers(-2, 7), st.booleans(), st.none(),
                    st.floats(0, 6), st.sampled_from(["12", " 3", 10**30]))
_CARDS = st.one_of(st.lists(_TEXT, max_size=3), st.lists(st.integers(0, 9), max_size=3),
                   st.lists(st.sampled_from(["3S", "10H", "BJ", "RJ", "2D"]), min_size=50,
                            max_size=56), _TEXT)
_OPTIONAL = {"cards": _CARDS, "kind": _TEXT, "give": _TEXT, "seat": _NUMBER, "extra": _NUMBER}
_ACTS = st.one_of(st.fixed_dictionaries({"version": _NUMBER, "act": _TEXT}, optional=_OPTIONAL),
                  st.fixed_dictionaries({}, optional={"version": _NUMBER, "act": _TEXT,
                                                      **_OPTIONAL}))


@hypothesis_settings(max_examples=600, deadline=None)
@given(_ACTS)
@example({"version": -1, "act": "pass"})
@example({"version": 0, "act": "pass", "seat": True})
@example({"version": True, "act": "pass"})
@example({"version": 0, "act": "pass", "seat": 6})
@example({"version": 0, "act": "play", "cards": ["3S"] * 55})
@example({"version": 0, "act": "play", "cards": ["3S"] * 54})
@example({"version": 0, "act": "x" * 21})
@example({"version": 0, "act": "pass", "give": "10HS "})
@example({"version": 0, "act": "play", "cards": ["3S", ""]})
@example({"version": 0, "act": "a\x00"})
def test_the_plain_act_is_what_the_serializer_gives(data):
    """:func:`api.live_views.plain_act` answers only what :class:`LiveActSerializer` would: the
    same action, version and seat for the plainest acts, ``None`` (the serializer decides)
    for the rest — never an act the serializer refuses or reads otherwise."""
    plain = plain_act(data)
    serializer = LiveActSerializer(data=data)
    if plain is None:
        return
    assert serializer.is_valid(), (data, serializer.errors)
    action = dict(serializer.validated_data)
    assert plain == (action, action.pop("version"), action.pop("seat", None))
    assert list(plain[0]) == list(action)  # (the same order)


def test_the_common_acts_are_plain():
    for body in ({"version": 0, "act": "pass"}, {"version": 7, "act": "play", "cards": []},
                 {"version": 31, "act": "play", "cards": ["10H", "10S", "BJ"], "seat": 5},
                 {"version": 2, "act": "tribute", "give": "2S"},
                 {"version": 3, "act": "kaidian", "kind": "x"}):
        assert plain_act(body) is not None, body
    assert plain_act({"version": "3", "act": "pass"}) is None  # (the serializer reads it)
