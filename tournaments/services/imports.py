"""Entries imported from rows (a CSV or XLSX file's, read by ``tournaments.exchange.imports``): players
or 联邦 teams, all rows or none, with a preview (``dry_run``)."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from tournaments.errors import Conflict, ServiceError
from tournaments.models import Entry, Event, Player, Team
from tournaments.services.checks import check_bounds
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.players import number_claimed_by, player_create
from tournaments.services.teams import team_register


def _import_row(i: int, row: dict) -> dict:
    """One CSV row's values, checked against the database's bounds (400 ``bad_csv`` naming
    the line and the field)."""
    name = (row.get("name") or "").strip()
    club = (row.get("club") or "").strip()
    number_text = str(row.get("number") or "").strip()
    try:
        number = int(number_text) if number_text else None
    except ValueError:
        raise ServiceError("bad_csv", _("line %(i)s: number %(n)s is not a whole number")
                           % {"i": i, "n": number_text},
                           detail={"line": i, "field": "number"}) from None
    if not name:
        raise ServiceError("bad_csv", _("line %(i)s: a player needs a name") % {"i": i},
                           detail={"line": i, "field": "name"})
    try:
        check_bounds(model=Player, code="bad_csv",
                     values={"name": name, "club": club, "number": number})
    except ServiceError as exc:
        raise ServiceError("bad_csv", _("line %(i)s: %(m)s") % {"i": i, "m": exc.message},
                           detail={"line": i, **exc.detail}) from None
    return {"name": name, "club": club, "number": number,
            "checked_in": _import_yes(row.get("checked_in"))}


def _import_yes(value) -> bool:
    """A yes in an import's ``checked_in`` column (1, yes, true, y, 是)."""
    return str(value or "").strip().lower() in ("1", "yes", "true", "y", "是")


def _import_team_row(i: int, row: dict) -> dict:
    """A team import row: ``team`` and three players ``player_1``…``player_3`` (with optional
    ``number_1``…``number_3``; ``club`` and ``checked_in`` for the whole team)."""
    name = (row.get("team") or "").strip()
    if not name:
        raise ServiceError("bad_csv", _("line %(i)s: a 联邦 team needs a name") % {"i": i},
                           detail={"line": i, "field": "team"})
    try:
        check_bounds(model=Team, code="bad_csv", values={"name": name})
    except ServiceError as exc:
        raise ServiceError("bad_csv", _("line %(i)s: team %(m)s") % {"i": i, "m": exc.message},
                           detail={"line": i, "field": "team"}) from None
    players = []
    for k in (1, 2, 3):
        try:
            players.append(_import_row(i, {"name": row.get(f"player_{k}"),
                                           "number": row.get(f"number_{k}"),
                                           "club": row.get("club")}))
        except ServiceError as exc:
            field = {"name": f"player_{k}", "number": f"number_{k}"}.get(
                exc.detail.get("field"), exc.detail.get("field"))
            raise ServiceError("bad_csv", _("%(m)s (player %(k)s)") % {"m": exc.message, "k": k},
                               detail={"line": i, "field": field}) from None
    return {"team": name, "players": players, "checked_in": _import_yes(row.get("checked_in"))}


def _number_claim(i: int, number: int, name: str, player: Player) -> dict:
    """An import line whose number a self-registered player holds: what the answer says."""
    return {"line": i, "number": number, "name": name, "player": player.pk,
            "message": _("line %(i)s: player number %(n)s was claimed by a self-registered "
                         "player (%(p)s, with a login): not linked; check who holds the number "
                         "and register them by hand") % {"i": i, "n": number, "p": player}}


def _number_claims_refused(*, organizer, claims: list[dict], players: dict) -> Conflict:
    """The import's refusal; each claim is written to the claimed player's history in the
    admin (and the organizer's "recent actions"), so that the admin shows what was refused."""
    from django.contrib.admin.models import CHANGE, LogEntry
    from django.contrib.contenttypes.models import ContentType

    if organizer is not None:
        content_type = ContentType.objects.get_for_model(Player)
        LogEntry.objects.bulk_create([LogEntry(
            user_id=organizer.pk, content_type=content_type, object_id=str(c["player"]),
            object_repr=str(players[c["number"]])[:200], action_flag=CHANGE,
            change_message=c["message"]) for c in claims])
    return Conflict("number_claimed", claims[0]["message"], detail={"collisions": claims})


def entries_import(*, event: Event, rows: list[dict], organizer=None,
                   dry_run: bool = False) -> dict:
    """Register players (individual events: rows ``{"name", "club", "number", "checked_in"}``)
    or 联邦 teams (team events: rows ``{"team", "player_1", "number_1", …, "player_3",
    "number_3", "club", "checked_in"}``) imported by ``organizer``: all rows or none.

    Every value is checked against the database's bounds first (a name or club of at most 100
    characters, a number from 0 to 2³¹−1): a bad row refuses the file with 400 ``bad_csv``
    naming the line and the field (``detail.line``, ``detail.field``). A row whose number
    matches an existing player registers that player — unless that number is claimed by
    self-registration (:func:`number_claimed_by`: the player has someone else's login): then
    the whole file is refused with 409 ``number_claimed``, ``detail.collisions`` lists every
    such line (line, number, the row's name, the claimed player's id, why), and each one is
    written to that player's history in the admin. Nothing is linked silently: the organizer
    checks who holds the number and registers that player by hand, or corrects the file.

    Importing the same file again changes nothing: a player already in the event (by number,
    or by name for a player without one) and a team of that name with the same players are
    ``unchanged``; the same player twice in one file is refused. The answer counts what was
    done and lists each line (``lines``: line, what, action or error).

    ``dry_run``: check every line and roll everything back — the preview: no line raises, each
    has its ``error`` instead, and no claim is written to a player's history."""
    team_event = event.format == Event.Format.TEAM
    lines: dict[int, dict] = {}
    values = []
    for i, row in enumerate(rows, start=2):
        try:
            values.append((i, (_import_team_row if team_event else _import_row)(i, row)))
        except ServiceError as exc:
            if not dry_run:
                raise
            lines[i] = {"line": i, "what": _import_what(row, team_event), "error": exc.message}
    people = [(i, p) for i, v in values for p in (v["players"] if team_event else [v])]
    known = {p.number: p for p in Player.objects.filter(
        number__in={p["number"] for _i, p in people if p["number"] is not None})}
    claims = [_number_claim(i, p["number"], p["name"], known[p["number"]]) for i, p in people
              if number_claimed_by(player=known.get(p["number"]), organizer=organizer)]
    if claims and not dry_run:
        raise _number_claims_refused(organizer=organizer, claims=claims, players=known)
    for claim in claims:
        lines.setdefault(claim["line"], {"line": claim["line"], "error": claim["message"]})
    counts = {"players_created": 0, "registered": 0, "checked_in": 0, "unchanged": 0}
    seen: set = set()
    with transaction.atomic():
        for i, v in values:
            what = _import_what(v, team_event)
            if i in lines:
                lines[i]["what"] = what
                continue
            try:
                with transaction.atomic():
                    action = (_import_team if team_event else _import_player)(
                        line=i, event=event, values=v, organizer=organizer, counts=counts,
                        seen=seen)
            except ServiceError as exc:
                if not dry_run:
                    raise ServiceError(exc.code, exc.message if "line" in exc.detail else _(
                        "line %(i)s: %(m)s") % {"i": i, "m": exc.message},
                        detail={"line": i, **exc.detail}, status=exc.status) from None
                lines[i] = {"line": i, "what": what, "error": exc.message}
                continue
            lines[i] = {"line": i, "what": what, "action": action}
        if dry_run:
            transaction.set_rollback(True)
    return {**counts, "lines": [lines[i] for i in sorted(lines)]}


def _import_what(values: dict, team_event: bool) -> str:
    """A line as the organizer reads it: a player's name and number, or a team and its
    players."""
    def person(p):
        number = str(p.get("number") or "").strip()
        return f"{(p.get('name') or '').strip()} (#{number})" if number else (
            p.get("name") or "").strip()
    if not team_event:
        return person(values)
    players = values.get("players") or [{"name": values.get(f"player_{k}"),
                                         "number": values.get(f"number_{k}")} for k in (1, 2, 3)]
    return f"{(values.get('team') or '').strip()}: " + ", ".join(person(p) for p in players)


def _import_person(*, line: int, values: dict, organizer, counts: dict) -> Player:
    """The player a line names: the one holding its number (never a self-registered one),
    else a new player."""
    player = Player.objects.filter(number=values["number"]).first() if values[
        "number"] is not None else None
    if number_claimed_by(player=player, organizer=organizer):  # claimed meanwhile
        raise Conflict("number_claimed", _number_claim(line, values["number"], values["name"],
                                                       player)["message"], detail={"line": line})
    if player is None:
        player = player_create(name=values["name"], club=values["club"],
                               number=values["number"])
        counts["players_created"] += 1
    return player


def _import_player(*, line, event, values, organizer, counts, seen) -> str:
    key = values["number"] if values["number"] is not None else values["name"]
    if key in seen:
        raise Conflict("already_registered", _("%(p)s is already registered") % {
            "p": values["name"]})
    seen.add(key)
    entry = Entry.objects.filter(event=event, **(
        {"player__number": values["number"]} if values["number"] is not None else
        {"player__number__isnull": True, "player__name": values["name"]})).first()
    if entry is None:
        entry = entry_register(event=event, player=_import_person(
            line=line, values=values, organizer=organizer, counts=counts))
        counts["registered"] += 1
        action = "registered"
    else:
        counts["unchanged"] += 1
        action = "unchanged"
    if values["checked_in"] and entry.status == Entry.Status.REGISTERED:
        entry_check_in(entry=entry)
        counts["checked_in"] += 1
        action = "checked_in" if action == "unchanged" else action
    return action


def _import_team(*, line, event, values, organizer, counts, seen) -> str:
    if values["team"] in seen:
        raise Conflict("team_name_taken", _("team %(t)s is twice in the file") % {
            "t": values["team"]})
    seen.add(values["team"])
    team = Team.objects.filter(event=event, name=values["team"]).first()
    if team is not None:
        members = [m.player for m in team.members.select_related("player")]
        if not all(any(m.number == p["number"] if p["number"] is not None else
                       m.name == p["name"] for m in members) for p in values["players"]):
            raise Conflict("team_name_taken", _(
                "team %(t)s is registered with other players") % {"t": values["team"]})
        counts["unchanged"] += 1
        return "unchanged"
    players = [_import_person(line=line, values=p, organizer=organizer, counts=counts)
               for p in values["players"]]
    entry = team_register(event=event, name=values["team"], players=players)
    counts["registered"] += 1
    if values["checked_in"]:
        entry_check_in(entry=entry)
        counts["checked_in"] += 1
    return "registered"
