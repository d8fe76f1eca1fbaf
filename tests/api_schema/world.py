"""The world Schemathesis runs against: built by ``api_world`` (test_schemathesis.py) in the
test database, and by cli_world.py in DATABASE_URL's for a CLI run against a real server."""

from __future__ import annotations

import random

from django.db import transaction
from rest_framework.authtoken.models import Token


def build_world() -> dict:
    """A published event of 14 entries (13 checked in), round 1 drawn (eager Celery, on commit)
    and published: two tables and a bye. Table 1 has game 1 submitted as a full record, table 2
    game 1 confirmed as a sheet and game 2 running live; one penalty. The organizer (staff, with
    a token) also plays at table 2. Returns the token and what the path parameters are pinned
    to."""
    from engine.bots import play_match
    from engine.sheet import sheet_of
    from games import services as game_services
    from live import services as live
    from tests.factories import EventFactory, PlayerFactory, UserFactory
    from tournaments.models import Round
    from tournaments.services.entries import entry_check_in, entry_register
    from tournaments.services.events import event_publish
    from tournaments.services.penalties import penalty_add
    from tournaments.services.rounds import round_create, round_publish, round_request_draw

    organizer = UserFactory(username="organizer", is_staff=True)
    token = Token.objects.create(user=organizer)
    event = EventFactory(slug="schema-cup", games_per_match=2)
    event.organizers.add(organizer)
    event_publish(event=event, published=True)
    entries = []
    for _ in range(13):
        entry = entry_register(event=event, player=PlayerFactory())
        entry_check_in(entry=entry)
        entries.append(entry)
    late = entry_register(event=event, player=PlayerFactory())  # not checked in
    with transaction.atomic():
        rnd = round_create(event=event)
        round_request_draw(round=rnd)
    rnd = Round.objects.get(pk=rnd.pk)
    assert rnd.status == Round.Status.DRAWN, rnd.status
    round_publish(round=rnd)
    tables = list(rnd.tables.order_by("number"))
    seated = tables[1].seats.select_related("player").get(seat=1).player
    seated.user = organizer
    seated.save(update_fields=["user"])

    game, = play_match(event.rules, 1, random.Random(7))
    record, result = game.record(), game.result()
    submitted = game_services.result_submit(table=tables[0], number=1, record=record,
                                            by=organizer)
    confirmed = game_services.result_submit(table=tables[1], number=1,
                                            sheet=sheet_of(result, record["leader"]),
                                            by=organizer)
    game_services.result_confirm(result=confirmed, by=organizer, as_referee=True)
    penalty_add(event=event, entry=entries[0], kind="warning", reason="slow play",
                         by=organizer)
    return {"token": token.key, "slug": event.slug, "number": rnd.number, "entry": late.pk,
            "table": tables[0].pk, "result": submitted.pk,
            "live": live.live_start(table=tables[1]).pk}
