"""An event's life and settings: created, changed (some settings only before round 1), published,
finished; its prizes (奖项) and its staff (organizers, referees)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.utils.translation import gettext as _

from tournaments import locks
from tournaments.errors import Conflict, ServiceError
from tournaments.models import Event, Prize
from tournaments.services.checks import check_bounds, rules_check
from tournaments.signals import access_ended, rated_changed


def event_create(*, name: str, slug: str, format: str = Event.Format.INDIVIDUAL,
                 rules="dagang", rounds_planned: int = 7, games_per_match: int = 4,
                 bye_points: int = 0, swiss_brackets: bool = False,
                 tie_breaks: list[str] | None = None, knockout_teams: int = 0,
                 move_seconds: int = 60, rated: bool = False, show_ratings: bool = False,
                 rating_balance: bool = False,
                 knockout_seeding: str = Event.KnockoutSeeding.STANDINGS,
                 spectator_delay: int = 0, duplicate: str = Event.Duplicate.OFF,
                 duplicate_group: int = 2, organizer=None) -> Event:
    """Create an event after checking its rules with the engine and its settings against the
    bounds on the model's fields (``tournaments.models``: games per match, rounds, move time,
    bye score)."""
    check_bounds(model=Event, code="bad_event", values={
        "name": name, "slug": slug, "rounds_planned": rounds_planned,
        "games_per_match": games_per_match, "bye_points": bye_points,
        "move_seconds": move_seconds, "spectator_delay": spectator_delay})
    rules = rules_check(rules=rules)
    if tie_breaks:
        from tournaments.models import TIE_BREAK_CHOICES

        bad = [t for t in tie_breaks if t not in TIE_BREAK_CHOICES]
        if bad:
            raise ServiceError("bad_tie_break", _("unknown tie-break %(name)s") % {"name": bad[0]})
    if format not in Event.Format.values:
        raise ServiceError("bad_format", _("unknown event format %(f)s") % {"f": format})
    _check_knockout(format, knockout_teams)
    _check_knockout_seeding(knockout_seeding)
    _check_duplicate(duplicate, duplicate_group)
    with transaction.atomic():
        if Event.objects.filter(slug=slug).exists():
            raise Conflict("slug_taken", _("an event with slug %(s)s exists") % {"s": slug},
                           detail={"field": "slug"})
        event = Event.objects.create(
            name=name, slug=slug, format=format, rules=rules, rounds_planned=rounds_planned,
            games_per_match=games_per_match, bye_points=bye_points,
            swiss_brackets=swiss_brackets, tie_breaks=list(tie_breaks or []),
            knockout_teams=knockout_teams, move_seconds=move_seconds, rated=rated,
            show_ratings=show_ratings, rating_balance=rating_balance,
            knockout_seeding=knockout_seeding,
            spectator_delay=spectator_delay, duplicate=duplicate,
            duplicate_group=duplicate_group)
        if organizer is not None:
            event.organizers.add(organizer)
    return event


def event_slug(name: str) -> str:
    """A free, readable slug for an event's address made from its name: Chinese in pinyin, a
    syllable a word ("2026 青岛够级公开赛" → ``2026-qing-dao-gou-ji-gong-kai-sai``), cut at a
    word to fit the field, with ``-2``, ``-3``… if taken."""
    from django.utils.text import slugify
    from pypinyin import lazy_pinyin

    base = slugify(" ".join(lazy_pinyin(name or ""))) or "event"
    limit = Event._meta.get_field("slug").max_length - 4
    if len(base) > limit:
        base = base[:limit].rsplit("-", 1)[0] or base[:limit]
    slug, n = base, 1
    while Event.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def _check_knockout(format: str, knockout_teams: int) -> None:
    if knockout_teams not in (0, 2, 4, 8, 16, 32, 64):
        raise ServiceError("bad_event", _("knockout finals take 2, 4, 8, 16, 32 or 64 teams"))
    if knockout_teams and format != Event.Format.TEAM:
        raise ServiceError("bad_event", _("knockout finals are for team events"))


def _check_duplicate(duplicate: str, group: int) -> None:
    """A duplicate (复式) setting: off, matchpoints or IMPs, and a group of an even number of
    tables (twins in pairs), or 0 for the whole round."""
    if duplicate not in Event.Duplicate.values:
        raise ServiceError("bad_event", _("duplicate is one of %(v)s, not %(d)s") % {
            "v": ", ".join(Event.Duplicate.values), "d": str(duplicate)[:20]},
            detail={"field": "duplicate"})
    if not isinstance(group, int) or isinstance(group, bool) or group < 0 or group % 2:
        raise ServiceError("bad_event", _(
            "a duplicate group is an even number of tables (a table and its twin), or 0 for "
            "the whole round, not %(g)s") % {"g": str(group)[:20]},
            detail={"field": "duplicate_group"})


def _check_knockout_seeding(value: str) -> None:
    if value not in Event.KnockoutSeeding.values:
        raise ServiceError("bad_event", _("knockout seeding is by standings or by rating"))


EDITABLE_ALWAYS = {"name", "bye_points", "tie_breaks", "rounds_planned", "move_seconds",
                   "rated", "show_ratings", "rating_balance", "knockout_seeding",
                   "spectator_delay"}


EDITABLE_BEFORE_ROUND_1 = {"rules", "format", "games_per_match", "swiss_brackets",
                           "knockout_teams", "duplicate", "duplicate_group"}


#: the event's address (/e/<slug>/): changed only while nobody may have it (:func:`slug_fixed`)
EDITABLE_UNTIL_PUBLIC = {"slug"}


def slug_fixed(event: Event) -> str | None:
    """Why ``event``'s slug can no longer change (``None``: it can): once the event is
    published its address is out (shared links, printed QR codes, slips), and once it has a
    round its draws are committed with its pages' addresses."""
    if event.published:
        return _("the event is published: its address may be printed and shared already")
    if event.rounds.exists():
        return _("the event has rounds: their seating and slips use its address")
    return None


def event_update(*, event: Event, **fields) -> Event:
    """Change an event's settings; rules, format and games per match are fixed once round 1
    exists (results already scored under them), the slug once it is published or has a round
    (:func:`slug_fixed`)."""
    unknown = set(fields) - EDITABLE_ALWAYS - EDITABLE_BEFORE_ROUND_1 - EDITABLE_UNTIL_PUBLIC
    if unknown:
        raise ServiceError("bad_field", _("%(f)s cannot be changed") % {"f": sorted(unknown)[0]})
    check_bounds(model=Event, code="bad_event", values=fields)
    with transaction.atomic():
        event = locks.lock_event(event.pk)
        started = event.rounds.exists()
        if "slug" in fields and fields["slug"] != event.slug:
            why = slug_fixed(event)
            if why:
                raise ServiceError("slug_fixed", _("the slug cannot change: %(why)s") % {
                    "why": why}, detail={"field": "slug"})
            if Event.objects.filter(slug=fields["slug"]).exclude(pk=event.pk).exists():
                raise Conflict("slug_taken", _("an event with slug %(s)s exists") % {
                    "s": fields["slug"]}, detail={"field": "slug"})
        for key, value in fields.items():
            if key in EDITABLE_BEFORE_ROUND_1 and started and getattr(event, key) != value:
                raise ServiceError("event_started", _(
                    "%(f)s cannot change once round 1 exists") % {"f": key})
        if "rules" in fields:
            fields["rules"] = rules_check(rules=fields["rules"])
        if "knockout_teams" in fields or "format" in fields:
            _check_knockout(fields.get("format", event.format),
                            fields.get("knockout_teams", event.knockout_teams))
        if "tie_breaks" in fields:
            from tournaments.models import TIE_BREAK_CHOICES

            bad = [t for t in fields["tie_breaks"] or [] if t not in TIE_BREAK_CHOICES]
            if bad:
                raise ServiceError("bad_tie_break", _("unknown tie-break %(name)s") % {
                    "name": bad[0]})
        if "duplicate" in fields or "duplicate_group" in fields:
            _check_duplicate(fields.get("duplicate", event.duplicate),
                             fields.get("duplicate_group", event.duplicate_group))
        if "knockout_seeding" in fields:
            _check_knockout_seeding(fields["knockout_seeding"])
        if "rounds_planned" in fields:
            played = event.rounds.count()
            if fields["rounds_planned"] < max(1, played):
                raise ServiceError("bad_event", _("%(n)s rounds exist already") % {"n": played})
        for key, value in fields.items():
            setattr(event, key, value)
        event.save(update_fields=list(fields))
    if {"tie_breaks", "bye_points"} & set(fields):
        from tournaments.standings import standings_refresh_on_commit

        standings_refresh_on_commit(event_id=event.pk)
    if "rated" in fields:  # counted or no longer: its games enter or leave the ratings
        rated_changed.send(Event, event_id=event.pk)
    return event


def event_publish(*, event: Event, published: bool = True) -> Event:
    """Publish an event, or hide it again (its open streams then end: :data:`access_ended`)."""
    changed = Event.objects.filter(pk=event.pk, published=not published).update(
        published=published)
    if changed and not published:
        access_ended.send(Event, users=[], events=[event.pk])
    event.refresh_from_db(fields=["published"])
    return event


def event_finish(*, event: Event) -> Event:
    """Close the event: it takes no more entries, check-ins or rounds."""
    with transaction.atomic():
        event = locks.lock_event(event.pk)
        if event.status != Event.Status.FINISHED:
            event.status = Event.Status.FINISHED
            event.save(update_fields=["status"])
    return event


def event_prizes_set(*, event: Event, prizes: Iterable[tuple[int, int, str]]) -> list[Prize]:
    """Set the event's prizes (奖项) by place range, replacing those it had: each
    ``(place_from, place_to, name)`` gives ``name`` to every place of the range in the final
    standings. Refused (naming the prize, counted from 1) when a range is out of order or
    overlaps another, or a name is empty or too long; ``[]`` removes them all."""
    wanted = []
    for i, (place_from, place_to, name) in enumerate(prizes, start=1):
        name = (name or "").strip()
        where = {"n": i}
        if not name:
            raise ServiceError("bad_prize", _("prize %(n)s: give it a name") % where,
                               detail={"prize": i, "field": "name"})
        values = {"place_from": place_from, "place_to": place_to, "name": name}
        try:
            check_bounds(model=Prize, code="bad_prize", values=values)
        except ServiceError as exc:
            raise ServiceError("bad_prize", _("prize %(n)s: %(why)s") % {**where,
                               "why": exc.message}, detail={"prize": i, **exc.detail}) from None
        if place_to < place_from:
            raise ServiceError("bad_prize", _(
                "prize %(n)s: its places run from %(a)s to %(b)s, backwards") % {
                **where, "a": place_from, "b": place_to}, detail={"prize": i})
        wanted.append(Prize(event=event, place_from=place_from, place_to=place_to, name=name))
    wanted.sort(key=lambda p: p.place_from)
    for before, after in zip(wanted, wanted[1:], strict=False):
        if after.place_from <= before.place_to:
            raise ServiceError("bad_prize", _(
                "prizes “%(a)s” and “%(b)s” both name place %(p)s") % {
                "a": before.name, "b": after.name, "p": after.place_from})
    with transaction.atomic():
        locks.lock_event(event.pk)
        Prize.objects.filter(event=event).delete()
        return Prize.objects.bulk_create(wanted)


def event_staff_add(*, event: Event, user, role: str) -> None:
    if role == "organizer":
        event.organizers.add(user)
    elif role == "referee":
        event.referees.add(user)
    else:
        raise ServiceError("bad_role", _("role must be organizer or referee"))


def event_staff_remove(*, event: Event, user, role: str) -> None:
    """Take ``user``'s role (organizer or referee) in ``event`` away; an event keeps at least
    one organizer (or it could be run from the admin only)."""
    if role == "organizer":
        with transaction.atomic():
            event = locks.lock_event(event.pk)
            if not event.organizers.exclude(pk=user.pk).exists():
                raise ServiceError("last_organizer", _("an event keeps at least one organizer"))
            event.organizers.remove(user)
    elif role == "referee":
        event.referees.remove(user)
    else:
        raise ServiceError("bad_role", _("role must be organizer or referee"))
