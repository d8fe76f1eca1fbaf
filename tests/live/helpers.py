"""Helpers for the live-play tests: a seated table with one token client per seat, the bot
that picks acts, a driver that plays a whole game through the HTTP API, and the hidden-card
checks applied to every response.

The bot decides on the server's state (``engine.Game.from_state(LiveGame.state)``) only to pick
the act; the act itself is always sent by the acting seat's own client, naming the version that
client read in its own GET.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from django.test import TestCase
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from engine.bots import HeuristicBot, next_act
from engine.cards import card_word
from engine.game import Game
from live import services as live
from live.models import LiveGame
from tests.factories import UserFactory
from tournaments.models import Event, Seat, Table
from tournaments.services.draws import round_draw
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.events import event_create, event_publish
from tournaments.services.players import player_create
from tournaments.services.rounds import round_create, round_publish

_serial = itertools.count(1)

#: a canonical card in JSON ("10H", "AS", "BJ", "RJ")
CARD_RE = re.compile(r'"((?:10|[2-9JQKA])[SHDC]|BJ|RJ)"')
#: a card in the engine's words in a message ("10♥", "A♠", "小王", "大王")
WORD_RE = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]|小王|大王")

#: view keys that are public by the rules: plays on the table, pre-play events (tribute and
#: returned cards are shown at the table, RULES.md §9 / 003), the rules, the result
PUBLIC_KEYS = ("actions", "public_pre", "top", "rules", "result", "outcome")


class Client(APIClient):
    """An API client that runs the on-commit side effects of each request after it (as a
    committed request would), for tests inside the test transaction."""

    def request(self, **kwargs):
        with TestCase.captureOnCommitCallbacks(execute=True):
            return super().request(**kwargs)


def token_client(user=None, cls=Client) -> APIClient:
    client = cls()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@dataclass
class LiveTable:
    event: Event
    table: Table
    users: list  # by seat
    clients: list  # by seat
    anon: APIClient
    stranger: APIClient
    referee_user: object
    referee: APIClient
    bots: list = field(default_factory=list)


def make_live_table(*, move_seconds: int = 60, rules="dagang", games_per_match: int = 2,
                    client_cls=Client) -> LiveTable:
    """A published event with one drawn, published table of six players, each with a login."""
    n = next(_serial)
    tag = f"{random.randrange(10**9)}-{n}"
    event = event_create(name=f"Live cup {tag}", slug=f"live-cup-{tag}", rules=rules,
                                  games_per_match=games_per_match, rounds_planned=1)
    Event.objects.filter(pk=event.pk).update(move_seconds=move_seconds)
    event.refresh_from_db()
    referee_user = UserFactory(username=f"live-referee-{tag}")
    event.referees.add(referee_user)
    event_publish(event=event)
    for i in range(6):
        user = UserFactory(username=f"live-{tag}-p{i}")
        player = player_create(name=f"Live {tag} {i}", user=user)
        entry_check_in(entry=entry_register(event=event, player=player))
    rnd = round_create(event=event)
    rnd = round_draw(round_id=rnd.pk)
    rnd = round_publish(round=rnd)
    table = rnd.tables.get()
    seats = list(Seat.objects.filter(table=table).select_related("player__user").order_by("seat"))
    users = [s.player.user for s in seats]
    return LiveTable(
        event=event, table=table, users=users,
        clients=[token_client(u, client_cls) for u in users],
        anon=token_client(None, client_cls),
        stranger=token_client(UserFactory(username=f"live-stranger-{tag}"), client_cls),
        referee_user=referee_user, referee=token_client(referee_user, client_cls),
        bots=[HeuristicBot(random.Random(1000 + i)) for i in range(6)])


def live_url(live_id: int) -> str:
    return f"/api/v1/live/{live_id}/"


def act_url(live_id: int) -> str:
    return f"/api/v1/live/{live_id}/act/"


def start_url(table_id: int) -> str:
    return f"/api/v1/tables/{table_id}/live/"


def ready_url(table_id: int) -> str:
    return f"/api/v1/tables/{table_id}/live/ready/"


def all_ready(lt: LiveTable) -> None:
    """Every seat says it is at the table (``POST …/live/ready/``): a player may then deal."""
    for client in lt.clients:
        r = client.post(ready_url(lt.table.pk), {}, format="json")
        assert r.status_code == 200, r.content


def server_game(live_id: int) -> Game:
    return Game.from_state(LiveGame.objects.get(pk=live_id).state)


def bot_pick(game: Game, bots) -> tuple[int, dict]:
    """The next act as ``engine.bots.play_out`` would make it."""
    return next_act(game, bots)


def in_play(game: Game) -> bool:
    """Past the deal's questions (tributes, declarations…): cards are being played."""
    return game.state == "play"


def play_on_server(lt: LiveTable, live_id: int, until=None) -> tuple[LiveGame, Game]:
    """Drive the game with the bots through the service (fast, no HTTP) until it is over or
    ``until(game)``; the stored row and its game then."""
    while True:
        lg = LiveGame.objects.get(pk=live_id)
        game = live.live_game(lg)
        if game.state == "over" or (until is not None and until(game)):
            return lg, game
        seat, action = bot_pick(game, lt.bots)
        live.live_act(live_id=live_id, seat=seat, action=action, version=lg.version)


def warm_game(lt: LiveTable) -> tuple[LiveGame, Game]:
    """A game in which every seat has acted once through this process (so it knows the game
    and each user's seat: its acts take the unlocked path), and the stored game now."""
    lg = live.live_start(table=lt.table)
    seen = set()
    while len(seen) < 6:
        game = Game.from_state(LiveGame.objects.get(pk=lg.pk).state)
        seat, act = bot_pick(game, lt.bots)
        live.live_act(live_id=lg.pk, user=lt.users[seat], action=act, version=game.version)
        seen.add(seat)
    lg = LiveGame.objects.get(pk=lg.pk)
    return lg, Game.from_state(lg.state)


# ----------------------------------------------------------------------------- hidden cards
def hand_of(game: Game, seat: int) -> list[str]:
    return sorted(c for c, n in game.hands[seat].items() for _ in range(n))


def private_part(view: dict) -> dict:
    return {k: v for k, v in view.items() if k not in PUBLIC_KEYS}


def hidden_card_problems(view: dict, seat: int | None, game: Game) -> list[str]:
    """What in ``view`` (as seen by ``seat``; ``None``: anyone not seated) tells of another
    seat's cards. ``game`` is the server's game at the same version."""
    problems = []
    if seat is None:
        for key in ("hand", "legal"):
            if key in view:
                problems.append(f"the public view has {key!r}")
    else:
        if view.get("seat") != seat:
            problems.append(f"view of seat {seat} says seat {view.get('seat')}")
        if sorted(view.get("hand") or []) != hand_of(game, seat):
            problems.append(f"seat {seat}'s hand is not its own")
        own = set(hand_of(game, seat))
        for act in view.get("legal") or []:
            bad = [c for c in act.get("cards", []) + ([act["give"]] if "give" in act else [])
                   if c not in own]
            if bad:
                problems.append(f"seat {seat}'s legal act {act} holds cards not in its hand")
    # every card named outside the public parts is the viewer's own
    own = set(hand_of(game, seat)) if seat is not None else set()
    named = set(CARD_RE.findall(json.dumps(private_part(view), ensure_ascii=False)))
    if named - own:
        problems.append(f"the view of {seat} names cards it does not hold: {sorted(named - own)}")
    # no other seat's current hand appears whole
    text = json.dumps(view, ensure_ascii=False, sort_keys=True)
    for s in range(6):
        if s != seat and game.count[s] >= 3:
            other = json.dumps(sorted(hand_of(game, s)))
            if other in text:
                problems.append(f"seat {s}'s whole hand appears in the view of {seat}")
    # 报牌: counts of other seats above 10 shown as "10+" under le10
    le10 = game.rules["show_counts"] == "le10"
    for s, shown in enumerate(view.get("counts", [])):
        n = game.count[s]
        want = "10+" if le10 and n > 10 and s != seat else n
        if shown != want:
            problems.append(f"count of seat {s} shown as {shown!r} to {seat}, want {want!r}")
    return problems


def to_act_problems(view: dict, seat: int | None) -> list[str]:
    """Whose turn it is is public; who *could* burn, or who may revolt, depends on hidden cards
    and must not be shown to anyone but that seat."""
    ta = view.get("to_act") or {}
    problems = []
    others = [b for b in ta.get("burners", []) if b != seat]
    if others:
        problems.append(f"to_act shows {seat!r} that seat(s) {others} hold a burn")
    if "revolt" in ta.get("acts", []) and ta.get("acts") != ["decline", "revolt"]:
        problems.append(f"to_act shows {seat!r} seat {ta.get('seat')}'s own revolution options "
                        f"{ta.get('acts')} (whether it may revolt depends on its cards)")
    return problems


def refusal_problems(message: str, sent: list[str], seat: int, game: Game) -> list[str]:
    """A refusal may name the cards the seat sent, its own, and the public top; nothing else."""
    allowed = {card_word(c) for c in sent} | {card_word(c) for c in hand_of(game, seat)}
    if game.state == "play" and game.top is not None:
        allowed |= {card_word(c) for c in game.top.cards}
    named = set(WORD_RE.findall(message))
    if named - allowed:
        return [f"refusal to seat {seat} names {sorted(named - allowed)}: {message}"]
    return []


# ----------------------------------------------------------------------------- the driver
@dataclass
class Played:
    live_id: int
    acts: int = 0
    responses: int = 0
    problems: list = field(default_factory=list)
    to_act_problems: list = field(default_factory=list)
    final_views: dict = field(default_factory=dict)


def play_through_api(lt: LiveTable, live_id: int, *, all_views: bool = True,
                     check_hidden: bool = False, probe_refusals: bool = False,
                     max_acts: int = 2000, on_step: Callable | None = None) -> Played:
    """Play the game to its end through the API. Each step the seat to act GETs its own view
    (with ``all_views``, every seat and the public GET theirs); the bot picks the act on the
    server's state; the acting seat's client sends it with the version from its own GET."""
    out = Played(live_id=live_id)
    rng = random.Random(live_id)
    while True:
        game = server_game(live_id)
        seat, action = bot_pick(game, lt.bots) if game.state != "over" else (None, None)
        views = {}
        for s, client in enumerate(lt.clients):
            if all_views or s == seat or game.state == "over":
                r = client.get(live_url(live_id))
                assert r.status_code == 200, (s, r.status_code, r.content[:300])
                views[s] = r.json()
                out.responses += 1
        if all_views or game.state == "over":
            r = lt.anon.get(live_url(live_id))
            assert r.status_code == 200, r.content[:300]
            views[None] = r.json()
            out.responses += 1
        if check_hidden:
            for viewer, view in views.items():
                assert view["version"] == game.version, "the game moved while nobody acted"
                out.problems += hidden_card_problems(view, viewer, game)
                out.to_act_problems += to_act_problems(view, viewer)
        if game.state == "over":
            out.final_views = views
            return out
        assert out.acts < max_acts, "the game did not end"
        version = views[seat]["version"]
        if probe_refusals and rng.random() < 0.25:
            probe(lt, live_id, seat, version, game, out, rng)
        r = lt.clients[seat].post(act_url(live_id), {"version": version, **action},
                                  format="json")
        assert r.status_code == 200, (seat, action, r.status_code, r.content[:500])
        out.acts += 1
        out.responses += 1
        body = r.json()
        assert body["version"] > version
        if check_hidden:
            after = server_game(live_id)
            out.problems += hidden_card_problems(body, seat, after)
            out.to_act_problems += to_act_problems(body, seat)
        if on_step is not None:
            on_step(seat, action, body)


def probe(lt, live_id, seat, version, game, out, rng):
    """Send illegal acts for ``seat`` (cards of other seats' hands it does not hold; a pass
    when it leads) and check each refusal: 422, no hidden card named, nothing changed."""
    others = [c for s in range(6) if s != seat for c in hand_of(game, s)
              if c not in game.hands[seat]]
    tries = []
    if others:
        tries.append({"act": "play", "cards": [rng.choice(others)]})
        tries.append({"act": "burn", "cards": [rng.choice(others)] * 2})
    if game.state == "play" and game.leading and game.turn == seat:
        tries.append({"act": "pass"})
    for action in tries:
        before = LiveGame.objects.get(pk=live_id)
        r = lt.clients[seat].post(act_url(live_id), {"version": version, **action},
                                  format="json")
        out.responses += 1
        assert r.status_code == 422, (action, r.status_code, r.content[:300])
        err = r.json()["error"]
        out.problems += refusal_problems(err["message"], action.get("cards", []), seat, game)
        after = LiveGame.objects.get(pk=live_id)
        assert (after.version, after.state) == (before.version, before.state)


def deleted_while_waiting(live_id: int, since: int, timeout: float, read_version,
                          watched=None) -> int:
    """A stand-in for ``live.notify.wait_for_version`` (patch it into ``live.streams``): the
    game is deleted while the request waits (its round drawn again…), and the waiter woken as
    the announcement of a later version would wake it."""
    LiveGame.objects.filter(pk=live_id).delete()
    return since + 1


def lifespan(application):
    """The ASGI lifespan of ``application`` as uvicorn drives it: (communicator, ``start``,
    ``stop``), the last two awaited for the server's answer."""
    from asgiref.testing import ApplicationCommunicator

    comm = ApplicationCommunicator(application, {"type": "lifespan", "asgi": {"version": "3.0"}})

    async def step(kind: str) -> dict:
        await comm.send_input({"type": f"lifespan.{kind}"})
        return await comm.receive_output(15)

    return comm, (lambda: step("startup")), (lambda: step("shutdown"))
