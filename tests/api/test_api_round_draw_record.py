"""A round's draw record over HTTP: the organizers' seat swaps and the earlier draws a re-draw
replaced (``draw_changes``, ``draw_history``) are public with the seed — before it, the public
sees only the earlier commitments, which were public already."""

from __future__ import annotations

import pytest

from tests.api.helpers import client_for
from tournaments.models import Round, Seat
from tournaments.services.draw_changes import SeatRef, round_redraw, round_seats_swap
from tournaments.services.draws import round_draw
from tournaments.services.rounds import round_publish

pytestmark = pytest.mark.django_db


def _swapped_and_redrawn(rnd: Round, organizer) -> Round:
    """Round 1 re-drawn once, then two seats of the new draw swapped."""
    first = rnd.commitment
    round_redraw(round=rnd, by=organizer, reason="again", commitment=first)
    rnd = round_draw(round_id=rnd.pk)
    a, b = (Seat.objects.get(round=rnd, table__number=t, seat=s) for t, s in ((1, 0), (2, 3)))
    round_seats_swap(round=rnd, seat_a=SeatRef(1, 0, a.player_id),
                              seat_b=SeatRef(2, 3, b.player_id), by=organizer, reason="asked")
    return Round.objects.get(pk=rnd.pk)


def test_the_record_shows_with_the_seed(anon, organizer, drawn_round):
    rnd = _swapped_and_redrawn(drawn_round, organizer)
    url = f"/api/v1/events/{rnd.event.slug}/rounds/1/"

    hidden = anon.get(url).json()
    staff = client_for(organizer).get(url).json()
    round_publish(round=rnd)
    public = anon.get(url).json()

    (earlier,) = rnd.draw_history
    assert hidden["seed"] is None and hidden["draw_changes"] == []
    assert hidden["draw_history"] == [{"commitment": earlier["commitment"],
                                       "committed_at": earlier["committed_at"]}]
    assert staff["draw_changes"] == rnd.draw_changes and staff["draw_history"] == [earlier]
    assert public["draw_changes"] == rnd.draw_changes
    assert public["draw_history"][0]["seed"] == earlier["seed"]
    assert public["draw_history"][0]["redraw"]["reason"] == "again"
    assert public["draw_changes"][0]["reason"] == "asked"
