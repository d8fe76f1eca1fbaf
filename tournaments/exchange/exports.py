"""What an organizer hands on at the end of an event (赛事资料): its entries, every round's
seating and byes, every game's result with its versions and status, the penalties and the
standings — as tables of rows (:func:`event_sheets`), written as one XLSX workbook with a sheet
each (:func:`xlsx_bytes`), or as CSV files (:func:`csv_bytes`, all of them in a zip:
:func:`csv_zip`). The one CSV writer of the service (the API's downloads use it too:
api/csv_export.py), beside the reader of registration files (tournaments/exchange/imports.py);
the formats the whole hand-over is offered in are registered in tournaments/exchange/formats.py.

Players choose their own names, and a spreadsheet runs a cell that starts with ``=``, ``+``,
``-`` or ``@`` as a formula (``=HYPERLINK(…)``, ``=cmd|' /C calc'!A0``), as do cells starting
with a tab or a carriage return in some programs. Every text cell that starts with one of them
goes out with a leading ``'`` (OWASP's advice), in CSV and XLSX alike (:func:`csv_cell`), which
the spreadsheet shows as text. Numbers (points of −3, say) are written as numbers: a number
cell is not a formula.

People read seats as 1–6号位 and the two 联邦 as 红方 (seats 1, 3, 5) and 黑方, or by their
teams' names; the sheets' headings are in the language of the request.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Prefetch
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from tournaments.models import (
    TIE_BREAK_CHOICES,
    Bye,
    Entry,
    Event,
    Penalty,
    Seat,
    Standing,
    TeamMember,
)
from tournaments.names import person_name, plain_side_names, side_names
from tournaments.selectors import Prizes

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A cell as written: text that a spreadsheet would run as a formula gets a leading ``'``."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


@dataclass(frozen=True)
class Sheet:
    """One table of the hand-over: ``key`` names its file (``entries`` → ``…-entries.csv``),
    ``title`` its sheet in the workbook."""

    key: str
    title: str
    header: list[str]
    rows: list[list]


def _plain(value):
    """A value as a cell holds it: text, a number, or empty; times in the server's zone."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return _("yes") if value else ""
    if isinstance(value, datetime):
        return timezone.localtime(value).strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, Promise):
        return str(value)
    return value


def _sheet(key: str, title: str, header: list[str], rows: Iterable[Sequence]) -> Sheet:
    return Sheet(key, title, header, [[_plain(value) for value in row] for row in rows])


# ----------------------------------------------------------------------------- writers
def csv_bytes(header: Sequence[str], rows: Iterable[Sequence]) -> bytes:
    """A CSV file: UTF-8 with a BOM (spreadsheets then read Chinese names right), every cell
    through :func:`csv_cell`."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow([csv_cell(value) for value in header])
    writer.writerows([csv_cell(value) for value in row] for row in rows)
    return buf.getvalue().encode("utf-8-sig")


def csv_zip(sheets: Sequence[Sheet], *, prefix: str) -> bytes:
    """Every sheet as ``<prefix>-<key>.csv`` in one zip."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for sheet in sheets:
            archive.writestr(f"{prefix}-{sheet.key}.csv", csv_bytes(sheet.header, sheet.rows))
    return buf.getvalue()


def xlsx_bytes(sheets: Sequence[Sheet]) -> bytes:
    """One workbook, a sheet each, with the cells :func:`csv_bytes` writes (characters an XLSX
    cell cannot hold, the control characters, are left out)."""
    from openpyxl import Workbook
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
    from openpyxl.utils import get_column_letter

    def cell(value):  # (left out first: "\x01=1+1" would start a formula once it was)
        return csv_cell(ILLEGAL_CHARACTERS_RE.sub("", value) if isinstance(value, str)
                        else value)

    book = Workbook(write_only=True)
    for sheet in sheets:
        page = book.create_sheet(_sheet_title(sheet.title))
        page.freeze_panes = "A2"
        for i, heading in enumerate(sheet.header, start=1):
            page.column_dimensions[get_column_letter(i)].width = max(8, min(40, 2 * len(heading)))
        page.append([cell(v) for v in sheet.header])
        for row in sheet.rows:
            page.append([cell(v) for v in row])
    buf = io.BytesIO()
    book.save(buf)
    return buf.getvalue()


def _sheet_title(title: str) -> str:
    """A sheet's name as Excel takes it: 31 characters, none of ``[]:*?/\\``."""
    return "".join(c for c in title if c not in "[]:*?/\\")[:31]


# ----------------------------------------------------------------------------- the sheets
def entry_name(entry: Entry) -> str:
    """A player's or a team's name."""
    return entry.player.name if entry.player_id else entry.team.name


def _join(names: Iterable[str]) -> str:
    return pgettext("list separator", ", ").join(names)


def event_sheets(event: Event, keys: Iterable[str] = ()) -> list[Sheet]:
    """Everything an organizer hands on of ``event``, a :class:`Sheet` each (or those of
    ``keys``, in :data:`SHEET_KEYS` order): entries, seating, byes, results, result versions,
    penalties, standings (the stored standings, as the organizers see them, with each place's
    prize)."""
    wanted = [k for k in SHEET_KEYS if k in set(keys)] if keys else list(SHEET_KEYS)
    seats = None
    if {"seating", "results"} & set(wanted):
        seats = list(Seat.objects.filter(round__event=event).select_related(
            "table__round", "table__team_a", "table__team_b", "player").order_by(
            "table__round__number", "table__number", "seat"))
    sheets = []
    for key in wanted:
        if key == "seating":
            sheets.append(_seating(seats))
        elif key == "results":
            sheets.append(_results(event, seats))
        elif key == "result-versions":
            sheets.append(_versions(event))
        else:
            sheets.append(BUILDERS[key](event))
    return sheets


def _entries(event: Event) -> Sheet:
    team = event.format == Event.Format.TEAM
    entries = Entry.objects.filter(event=event).select_related("player", "team").order_by("pk")
    if team:
        entries = entries.prefetch_related(Prefetch(
            "team__members", TeamMember.objects.select_related("player").order_by("position")))
    rows = []
    for i, entry in enumerate(entries, start=1):
        who = ([_join(m.player.name for m in entry.team.members.all()
                      if m.status == TeamMember.Status.ACCEPTED)]
               if team else [entry.player.number, entry.player.club])
        rows.append([i, entry_name(entry), *who, entry.get_status_display(), entry.late,
                     entry.first_round, entry.left_after_round, entry.checked_in_at])
    who_header = [_("players")] if team else [_("player number"), _("club")]
    return _sheet("entries", _("entries"), [
        "#", _("team") if team else _("name"), *who_header, _("status"), _("late entry"),
        _("first round"), _("left after round"), _("checked in")], rows)


def _seating(seats: list[Seat]) -> Sheet:
    rows = []
    for seat in seats:
        table = seat.table
        rows.append([table.round.number, table.round.get_stage_display(), table.number,
                     seat.seat + 1, side_names(table)[seat.side], seat.player.name,
                     seat.player.number, seat.player.club])
    return _sheet("seating", _("seating"), [
        _("round"), _("stage"), _("table"), _("seat (1–6号位)"), _("side (联邦)"), _("player"),
        _("player number"), _("club")], rows)


def _byes(event: Event) -> Sheet:
    byes = Bye.objects.filter(round__event=event).select_related(
        "round", "entry__player", "entry__team").order_by("round__number", "entry_id")
    return _sheet("byes", _("byes (轮空)"), [_("round"), _("name"), _("points")], [
        [b.round.number, entry_name(b.entry), b.points] for b in byes])


def _results(event: Event, seats: list[Seat]) -> Sheet:
    """Every game's result: its status, its current version (of how many), its points by
    联邦, 头科 and 大落, each seat's place, whether it was played live, who confirmed it."""
    from django.db.models import Count

    from games.models import GameResult, GameResultVersion

    at_table: dict[int, dict[int, Seat]] = defaultdict(dict)
    for seat in seats:
        at_table[seat.table_id][seat.seat] = seat
    results = GameResult.objects.filter(table__round__event=event).select_related(
        "table__round", "table__team_a", "table__team_b", "confirmed_by__player").annotate(
        versions_count=Count("versions")).order_by(
        "table__round__number", "table__number", "number")
    kinds = dict(GameResultVersion.Kind.choices)
    current_kind = {
        (result_id, version): kind for result_id, version, kind in
        GameResultVersion.objects.filter(result__table__round__event=event).values_list(
            "result_id", "version", "kind")}
    rows = []
    for result in results:
        table = result.table
        seated = at_table[table.pk]
        places = list(result.places or [])

        def at_place(place, seated=seated, places=places):
            seat = places.index(place) if place in places else None
            return seated[seat].player.name if seat in seated else ""

        if table.team_a_id and table.team_b_id:
            sides = [table.team_a.name, table.team_b.name]
        else:
            sides = [_join(seated[s].player.name for s in (side, side + 2, side + 4)
                           if s in seated) for side in (0, 1)]
        kind = current_kind.get((result.pk, result.version))
        rows.append([
            table.round.number, table.number, result.number, result.get_status_display(),
            result.version, result.versions_count, kinds.get(kind, ""), sides[0],
            result.points_a, sides[1], result.points_b, result.void, at_place(1), at_place(6),
            *(places + [""] * 6)[:6], result.system_recorded, person_name(result.confirmed_by),
            result.confirmed_at])
    red, black = plain_side_names()
    return _sheet("results", _("results"), [
        _("round"), _("table"), _("game"), _("status"), _("current version"), _("versions"),
        _("kind"), red, _("points of %(side)s") % {"side": red}, black,
        _("points of %(side)s") % {"side": black}, _("void (流局)"), _("头科"), _("大落"),
        *(_("place of seat %(n)s") % {"n": n} for n in range(1, 7)), _("played live"),
        _("confirmed by"), _("confirmed at")], rows)


def _versions(event: Event) -> Sheet:
    """Every version of every result, as submitted: a correction adds one, with its reason."""
    from games.models import GameResultVersion

    versions = GameResultVersion.objects.filter(result__table__round__event=event).select_related(
        "result__table__round", "submitted_by__player").order_by(
        "result__table__round__number", "result__table__number", "result__number", "version")
    red, black = plain_side_names()
    return _sheet("result-versions", _("result versions"), [
        _("round"), _("table"), _("game"), _("version"), _("kind"),
        _("points of %(side)s") % {"side": red}, _("points of %(side)s") % {"side": black},
        _("submitted by"), _("submitted at"), _("reason"), _("after round drawn")], [
        [v.result.table.round.number, v.result.table.number, v.result.number, v.version,
         v.get_kind_display(), v.points_a, v.points_b, person_name(v.submitted_by),
         v.submitted_at, v.reason, v.after_close] for v in versions])


def _penalties(event: Event) -> Sheet:
    penalties = Penalty.objects.filter(event=event).select_related(
        "round", "table", "entry__player", "entry__team", "player",
        "created_by__player").order_by("created_at", "pk")
    rows = [[p.round.number if p.round_id else "", p.table.number if p.table_id else "",
             p.game_number, entry_name(p.entry), p.player.name if p.player_id else "",
             p.get_kind_display(), p.points, p.reason, person_name(p.created_by), p.created_at]
            for p in penalties]
    return _sheet("penalties", _("penalties"), [
        _("round"), _("table"), _("game"), _("entry"), _("player"), _("kind"),
        _("points deducted"), _("reason"), _("given by"), _("at")], rows)


def standing_columns(event: Event) -> list[str]:
    """The standings' numeric columns: the event's tie-breaks in their order (the drawn order
    is a hash, left out), points always among them."""
    keys = [k for k in event.tie_break_order if k != "drawn"]
    return keys if "points" in keys else ["points", *keys]


def _standings(event: Event) -> Sheet:
    team = event.format == Event.Format.TEAM
    keys = standing_columns(event)
    prizes = Prizes(event)
    rows = []
    for st in Standing.objects.filter(event=event).select_related(
            "entry__player", "entry__team").order_by("rank"):
        entry = st.entry
        who = [] if team else [entry.player.number, entry.player.club]
        rows.append([st.rank, entry_name(entry), *who, *(getattr(st, k) for k in keys),
                     st.games_played, st.byes, st.penalty_points, st.through_round,
                     prizes.of(st.rank)])
    who_header = [] if team else [_("player number"), _("club")]
    return _sheet("standings", _("standings"), [
        _("place"), _("team") if team else _("name"), *who_header,
        *(str(TIE_BREAK_CHOICES[k]) for k in keys), _("games played"), _("byes"),
        _("penalty points"), _("after round"), _("prize")], rows)


#: the sheets' keys, in their order (the CSV links name them)
SHEET_KEYS = ("entries", "seating", "byes", "results", "result-versions", "penalties",
              "standings")
BUILDERS = {"entries": _entries, "byes": _byes, "penalties": _penalties,
            "standings": _standings}
