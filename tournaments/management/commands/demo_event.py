"""Run a whole demo event through the real services: registration, check-in, draws,
bot-played games validated by the engine, confirmations, standings; publish it, print the
leaderboard and the addresses to open once ``make serve`` runs."""

from __future__ import annotations

import random
import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.urls import reverse

from engine.bots import play_match
from engine.sheet import sheet_of
from games import services as game_services
from games.models import GameResult
from tournaments.models import Event, Round, Seat, Standing
from tournaments.services.draws import round_verify
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.events import event_create, event_finish, event_publish, event_staff_add
from tournaments.services.links import entry_link_issue
from tournaments.services.players import player_create
from tournaments.services.rounds import round_open, round_publish

#: where ``make serve`` answers
BASE_URL = "http://127.0.0.1:8000"
#: the demo organizer's login (a superuser of the local demo database only)
ORGANIZER = ("demo", "demo")
#: the demo referee's login (of the local demo database only), for the results desk
REFEREE = ("demo-referee", "demo-referee")


def demo_addresses(event: Event, base: str = BASE_URL) -> list[tuple[str, str]]:
    """The pages to open on the demo event, as (label, address) pairs; one line each to add."""
    def url(name: str, **kwargs) -> str:
        return base + reverse(name, kwargs={"slug": event.slug, **kwargs})

    return [
        ("event page", url("pages:event")),
        ("leaderboard", url("pages:leaderboard")),
        ("find my table", url("pages:seating")),
        ("round 1's results", url("pages:round-results", number=1)),
        ("projector", url("pages:projector")),
        ("organizer's console", url("pages:console-event")),
        ("referee desk", url("pages:desk")),
        ("admin", base + reverse("admin:tournaments_event_change", args=[event.pk])),
        ("practice against bots", base + reverse("pages:practice")),
    ]


def demo_player_link(event: Event, base: str = BASE_URL) -> list[tuple[str, str]]:
    """One player's private link (their table in the last round, its games and results), issued
    for the demo: ``[(label, address)]``, or nothing when nobody is seated."""
    seat = (Seat.objects.filter(round__event=event).select_related("entry", "player")
            .order_by("-round__number", "table__number", "seat").first())
    if seat is None:
        return []
    (link,) = entry_link_issue(entry=seat.entry, player=seat.player)
    return [(f"{seat.player.name}'s private link",
             base + reverse("pages:link", kwargs={"token": link.token()}))]


def demo_organizer():
    """The demo organizer (login demo / demo), created or reset."""
    User = get_user_model()
    user, _ = User.objects.get_or_create(username=ORGANIZER[0])
    user.is_staff = user.is_superuser = True
    user.set_password(ORGANIZER[1])
    user.save()
    return user


class Command(BaseCommand):
    help = "Run a demo event end to end with bot players and print the leaderboard."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=40)
        parser.add_argument("--rounds", type=int, default=3)
        parser.add_argument("--games", type=int, default=2, help="games per match")
        parser.add_argument("--rules", default="dagang")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--swiss", action="store_true", help="seat by score from round 2")

    def handle(self, *args, players, rounds, games, rules, seed, swiss, **opts):
        rng = random.Random(seed)
        t0 = time.perf_counter()
        User = get_user_model()
        referee, _ = User.objects.get_or_create(username=REFEREE[0])
        referee.set_password(REFEREE[1])  # a local demo database's referee only
        referee.save(update_fields=["password"])
        slug = f"demo-{int(time.time())}-{rng.randrange(10**6)}"
        event = event_create(
            name="够级 demo cup", slug=slug, rules=rules, rounds_planned=rounds,
            games_per_match=games, bye_points=2, swiss_brackets=swiss)
        event_staff_add(event=event, user=referee, role="referee")
        event_staff_add(event=event, user=demo_organizer(), role="organizer")
        event_publish(event=event)
        w = self.stdout.write
        w(f"event {event.name} ({event.slug}): {players} players, {rounds} rounds, "
          f"{games} games per match, rules {rules}")
        people = [player_create(name=f"Player {i + 1:03d}", number=None)
                  for i in range(players)]
        late = people[-1] if players > 12 else None
        for p in people:
            if p is late:
                continue
            entry = entry_register(event=event, player=p)
            entry_check_in(entry=entry)
        for number in range(1, rounds + 1):
            if number == 2 and late is not None:
                entry = entry_register(event=event, player=late)
                entry_check_in(entry=entry)
                w(f"late entry: {late.name} joins from round 2")
            rnd = round_open(event=event)
            rnd.refresh_from_db()
            w(f"round {number}: commitment {rnd.commitment[:16]}… → {rnd.get_status_display()}, "
              f"seed {rnd.seed[:16]}… revealed")
            round_publish(round=rnd)
            submitted = 0
            for table in rnd.tables.order_by("number"):
                for k, game in enumerate(play_match(event.rules, games, rng)):
                    record, result = game.record(), game.result()
                    if table.number % 2:
                        res = game_services.result_submit(table=table, number=k + 1,
                                                          record=record, by=referee)
                    else:
                        res = game_services.result_submit(
                            table=table, number=k + 1, sheet=sheet_of(result, record["leader"]),
                            by=referee)
                    assert res.engine_result["team_points"] == result["team_points"]
                    submitted += 1
            game_services.results_confirm(
                results=GameResult.objects.filter(table__round=rnd), by=referee, as_referee=True)
            problems = round_verify(round=Round.objects.get(pk=rnd.pk))
            w(f"  {rnd.tables.count()} tables, {rnd.byes.count()} byes, {submitted} results "
              f"validated by the engine and confirmed; draw "
              f"{'verified' if not problems else 'NOT verified: ' + '; '.join(problems)}")
        event_finish(event=event)
        w("")
        w("Leaderboard")
        w(f"{'rank':>4} {'player':<14} {'pts':>4} {'wins':>4} {'头科':>4} {'opp':>5} {'±':>3}")
        for s in Standing.objects.filter(event=event).select_related(
                "entry__player").order_by("rank")[:20]:
            move = "" if s.previous_rank is None else f"{s.previous_rank - s.rank:+d}"
            w(f"{s.rank:>4} {s.entry.player.name:<14} {s.points:>4} {s.game_wins:>4} "
              f"{s.head_count:>4} {s.opponents_points:>5} {move:>3}")
        w(f"\ndone in {time.perf_counter() - t0:.1f} s; verify the draws with:\n"
          f"  .venv/bin/python manage.py verify_draw {event.slug}")
        w("\nServe the pages with:  make serve   (then open, in a browser:)")
        for label, address in demo_addresses(event) + demo_player_link(event):
            w(f"  {label + ':':<24} {address}")
        w(f"  sign in to the console and the admin as {ORGANIZER[0]} / {ORGANIZER[1]}, "
          f"to the referee desk as {REFEREE[0]} / {REFEREE[1]}")
