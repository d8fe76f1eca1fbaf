"""An event's archive: one JSON file with everything that makes its standings and its draws
(``manage.py event_export SLUG archive.json``, ``manage.py event_import archive.json``).

A service module of ``tournaments`` (as ``standings.py``): the import writes. What the file
holds, each row with every stored field of its model and its primary key:

- ``event`` (its organizers and referees by username), ``teams`` and ``team_members`` (联邦),
  ``players`` and ``entries``;
- ``rounds`` with their draw record (commitment, seed once revealed, entry list, draw input,
  manual changes, earlier draws), ``tables``, ``seats`` and ``byes``;
- ``results`` with ``result_versions`` (every version: sheet or record, who, when, why),
  ``result_proposals`` and ``result_disputes``;
- ``penalties``, ``prizes``, ``released_standings`` (written once per release, never recomputed)
  and ``round_standings`` (the per-round snapshots the players' charts read);
- ``users``: the accounts those rows name (username and names, never a password).

Primary keys are kept: a round's commitment is the SHA-256 of its seed, its entries' ids and
the event's id, so the draw verifies after an import only with the same ids. An import
therefore goes into a database where none of them is taken (a new one, or one that holds other
events: players with the same id, number and name are the same players and are shared).
Anything in the way is named and nothing is written. The live standings are not in the file:
the import recomputes them from the results (:func:`tournaments.standings.standings_rebuild`).

Not in the file: private links (their tokens are secrets of the players; issue new ones),
ratings (across events: ``manage.py ratings_recompute``), live games' in-play state (a finished
live game's record is its result's version) and login lockouts. The file holds the seed of a
round committed but not yet drawn: keep an archive as private as a database dump."""

from __future__ import annotations

import contextlib
import datetime
import json
from collections.abc import Iterator
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.color import no_style
from django.db import connection, models, transaction
from django.utils import timezone

from games.models import GameResult, GameResultVersion, ResultDispute, ResultProposal
from tournaments.models import (
    Bye,
    Entry,
    Event,
    Penalty,
    Player,
    Prize,
    ReleasedStanding,
    Round,
    RoundStandings,
    Seat,
    Table,
    Team,
    TeamMember,
)

FORMAT = "gouji-event-archive"
VERSION = 1

#: the sections of the file, in the order an import writes them (each row's references first),
#: with each model and how its rows are found from the event
SECTIONS: list[tuple[str, type[models.Model], str]] = [
    ("teams", Team, "event"),
    ("team_members", TeamMember, "team__event"),
    ("entries", Entry, "event"),
    ("rounds", Round, "event"),
    ("tables", Table, "round__event"),
    ("seats", Seat, "round__event"),
    ("byes", Bye, "round__event"),
    ("penalties", Penalty, "event"),
    ("prizes", Prize, "event"),
    ("released_standings", ReleasedStanding, "event"),
    ("round_standings", RoundStandings, "event"),
    ("results", GameResult, "table__round__event"),
    ("result_versions", GameResultVersion, "result__table__round__event"),
    ("result_proposals", ResultProposal, "result__table__round__event"),
    ("result_disputes", ResultDispute, "result__table__round__event"),
]
USER_FIELDS = ("username", "first_name", "last_name", "email", "is_active")


class ArchiveError(ValueError):
    """An archive that cannot be imported here: the message names what is wrong."""


def _user_model():
    return get_user_model()


def _is_user_fk(field: models.Field) -> bool:
    return field.is_relation and field.related_model is _user_model()


def _row(obj: models.Model, usernames: dict[int, str]) -> dict[str, Any]:
    """Every concrete field of ``obj``: references by id (accounts by username), times in ISO."""
    row: dict[str, Any] = {}
    for field in obj._meta.concrete_fields:
        value = getattr(obj, field.attname)
        if _is_user_fk(field):
            row[field.name] = usernames.get(value) if value is not None else None
            continue
        if isinstance(value, datetime.datetime | datetime.date):
            value = value.isoformat()
        row[field.attname] = value
    return row


def event_export(*, event: Event) -> dict[str, Any]:
    """The archive of ``event`` as a JSON-ready dict (:data:`SECTIONS`)."""
    User = _user_model()
    querysets = {name: model.objects.filter(**{lookup: event}).order_by("pk")
                 for name, model, lookup in SECTIONS}
    player_ids = set(Entry.objects.filter(event=event, player__isnull=False)
                     .values_list("player_id", flat=True))
    player_ids |= set(TeamMember.objects.filter(team__event=event).values_list("player_id",
                                                                               flat=True))
    player_ids |= set(Seat.objects.filter(round__event=event).values_list("player_id", flat=True))
    player_ids |= set(Penalty.objects.filter(event=event, player__isnull=False)
                      .values_list("player_id", flat=True))
    players = Player.objects.filter(pk__in=player_ids).order_by("pk")

    # the accounts any row names
    user_ids = set(event.organizers.values_list("pk", flat=True))
    user_ids |= set(event.referees.values_list("pk", flat=True))
    user_ids |= {p.user_id for p in players if p.user_id}
    for _name, model, _lookup in SECTIONS:
        for field in model._meta.concrete_fields:
            if _is_user_fk(field):
                user_ids |= set(querysets[_name].exclude(**{f"{field.attname}__isnull": True})
                                .values_list(field.attname, flat=True))
    users = User.objects.filter(pk__in=user_ids).order_by("username")
    usernames = {u.pk: u.get_username() for u in users}

    archive: dict[str, Any] = {
        "format": FORMAT, "version": VERSION, "exported_at": timezone.now().isoformat(),
        "users": [{f: getattr(u, f) for f in USER_FIELDS if hasattr(u, f)} for u in users],
        "players": [_row(p, usernames) for p in players],
        "event": {**_row(event, usernames),
                  "organizers": sorted(usernames[pk] for pk in
                                       event.organizers.values_list("pk", flat=True)),
                  "referees": sorted(usernames[pk] for pk in
                                     event.referees.values_list("pk", flat=True))},
    }
    for name, _model, _lookup in SECTIONS:
        archive[name] = [_row(obj, usernames) for obj in querysets[name]]
    return archive


def event_export_json(*, event: Event) -> str:
    """:func:`event_export` as the file's text (UTF-8, Chinese names as they are)."""
    return json.dumps(event_export(event=event), ensure_ascii=False, indent=1, sort_keys=True)


@contextlib.contextmanager
def _stored_times_kept(models_: list[type[models.Model]]) -> Iterator[None]:
    """Within: ``auto_now`` / ``auto_now_add`` fields keep the archive's times instead of
    taking the time of the import (a management command's process, one import at a time)."""
    saved = []
    for model in models_:
        for field in model._meta.concrete_fields:
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
                saved.append((field, field.auto_now, field.auto_now_add))
                field.auto_now = field.auto_now_add = False
    try:
        yield
    finally:
        for field, auto_now, auto_now_add in saved:
            field.auto_now, field.auto_now_add = auto_now, auto_now_add


def _instance(model: type[models.Model], row: dict[str, Any], users: dict[str, int],
              where: str) -> models.Model:
    """A model instance from an archived row (its primary key kept)."""
    values = {}
    names = {f.name: f for f in model._meta.concrete_fields}
    attnames = {f.attname: f for f in model._meta.concrete_fields}
    for key, value in row.items():
        field = attnames.get(key) or names.get(key)
        if field is None:
            raise ArchiveError(f"{where}: unknown field {key!r} of {model.__name__}")
        if _is_user_fk(field):
            if value is not None and value not in users:
                raise ArchiveError(f"{where}: {key} names the account {value!r}, which is not "
                                   "among the archive's users")
            values[field.attname] = users[value] if value is not None else None
        elif isinstance(field, models.DateTimeField | models.DateField) and value is not None:
            values[field.attname] = field.to_python(value)
        else:
            values[field.attname] = value
    return model(**values)


def _read(archive: Any) -> dict[str, Any]:
    if not isinstance(archive, dict) or archive.get("format") != FORMAT:
        raise ArchiveError(f"not an event archive (its \"format\" is not {FORMAT!r})")
    if archive.get("version") != VERSION:
        raise ArchiveError(f"archive version {archive.get('version')!r}: this service reads "
                           f"version {VERSION}")
    for name in ("users", "players", *(s[0] for s in SECTIONS)):
        if not isinstance(archive.get(name), list):
            raise ArchiveError(f"the archive's {name!r} is missing or not a list")
    if not isinstance(archive.get("event"), dict):
        raise ArchiveError("the archive's \"event\" is missing")
    return archive


def _taken(model: type[models.Model], ids: list[int], name: str) -> None:
    taken = sorted(model.objects.filter(pk__in=ids).values_list("pk", flat=True))
    if taken:
        shown = ", ".join(map(str, taken[:5])) + (" …" if len(taken) > 5 else "")
        raise ArchiveError(f"{len(taken)} of the archive's {name} have ids this database "
                           f"already uses ({shown}): import into a new database")


def event_import(*, archive: Any) -> Event:
    """Write the event of ``archive`` (a dict read from an archive file) into this database,
    with its primary keys, then recompute its standings. Refused, writing nothing, with an
    :class:`ArchiveError` naming the conflict: the slug or any id already taken, a player id
    held by another player."""
    from tournaments.standings import standings_rebuild

    archive = _read(archive)
    User = _user_model()
    data = archive["event"]
    slug = data.get("slug")
    with transaction.atomic():
        if Event.objects.filter(slug=slug).exists():
            raise ArchiveError(f"an event with the slug {slug!r} is already here")
        _taken(Event, [data.get("id")], "event")
        for name, model, _lookup in SECTIONS:
            _taken(model, [row.get("id") for row in archive[name]], name)

        # accounts: the same username is the same account; the others are made, without a
        # password (set one, or let them reset it)
        users = dict(User.objects.filter(username__in=[u["username"] for u in archive["users"]])
                     .values_list("username", "pk"))
        for u in archive["users"]:
            if u["username"] not in users:
                made = User(**{k: v for k, v in u.items() if k in USER_FIELDS})
                made.set_unusable_password()
                made.save()
                users[made.username] = made.pk

        # players: one with the same id, number and name is the same player
        existing = {p.pk: p for p in Player.objects.filter(
            pk__in=[row["id"] for row in archive["players"]])}
        new_players = []
        for row in archive["players"]:
            player = _instance(Player, row, users, f"player {row.get('id')}")
            held = existing.get(player.pk)
            if held is None:
                if player.number is not None and Player.objects.filter(
                        number=player.number).exists():
                    raise ArchiveError(f"player number {player.number} ({player.name}) is "
                                       "another player's here")
                if player.user_id is not None and Player.objects.filter(
                        user_id=player.user_id).exists():
                    raise ArchiveError(f"the account of {player.name} ({row.get('user')!r}) "
                                       "is another player's here")
                new_players.append(player)
            elif (held.name, held.number) != (player.name, player.number):
                raise ArchiveError(f"player id {player.pk} is {held.name} (number "
                                   f"{held.number}) here, {player.name} (number "
                                   f"{player.number}) in the archive")

        written = [Player, Event, *(model for _n, model, _l in SECTIONS)]
        with _stored_times_kept(written):
            Player.objects.bulk_create(new_players)
            event_row = {k: v for k, v in data.items() if k not in ("organizers", "referees")}
            event = _instance(Event, event_row, users, "event")
            event.save(force_insert=True)
            for role in ("organizers", "referees"):
                missing = set(data.get(role) or []) - set(users)
                if missing:
                    raise ArchiveError(f"the event's {role} {sorted(missing)} are not among the "
                                       "archive's users")
                getattr(event, role).set([users[name] for name in data.get(role) or []])
            for name, model, _lookup in SECTIONS:
                model.objects.bulk_create(
                    [_instance(model, row, users, f"{name} {row.get('id')}")
                     for row in archive[name]], batch_size=1000)
        # the next ids after the ones written (PostgreSQL's sequences do not follow inserted ids)
        statements = connection.ops.sequence_reset_sql(no_style(), [User, *written])
        if statements:
            with connection.cursor() as cursor:
                for sql in statements:
                    cursor.execute(sql)
    standings_rebuild(event_id=event.pk)
    event.refresh_from_db()
    return event


def event_import_json(*, text: str) -> Event:
    """:func:`event_import` of an archive file's text."""
    try:
        archive = json.loads(text)
    except ValueError as exc:
        raise ArchiveError(f"not JSON: {exc}") from None
    return event_import(archive=archive)
