"""Views (RULES.md §7.3 报牌; RECORD.md): what a seat or a spectator may see, the record of the
game so far, and the state a live game is stored as. No hidden card of another seat is shown.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import Game


def public_event(ev: dict) -> dict:
    """Pre-play events as everyone sees them: tribute cards are shown at the table (003: 所有
    玩家吃的贡牌和还的牌都要显示出来), so they are public."""
    return dict(ev)


class Views:
    """A seat's view, the record, the stored state."""

    #: the public facts of a verifiable deal (:mod:`engine.deals`) the game was dealt by,
    #: ``{"label", "commitment"}``, set by the service that dealt it: kept in the state and shown
    #: in every view from the first act; never the seed, which stays with the service
    published_deal: dict | None = None

    def view(self, seat: int | None) -> dict:
        """What ``seat`` may see (``None``: a spectator): its own cards, others' counts per
        ``show_counts`` (报牌), the table, whose turn, its legal acts. It is
        :meth:`seat_view` and :meth:`public_view` together."""
        v = self.seat_view(seat)
        v.update(self.public_view())
        return v

    def seat_view(self, seat: int | None) -> dict:
        """The part of :meth:`view` that depends on who looks: ``seat``, the seats' card
        counts as 报牌 shows them to it (``le10``: another seat's beyond ten is ``"10+"``)
        and, for a seat, its hand and its legal acts."""
        le10 = self.rules["show_counts"] == "le10"
        counts = []
        for s in range(6):
            n = self.count[s]
            counts.append("10+" if le10 and n > 10 and s != seat else n)
        v = {"seat": seat, "counts": counts}
        if seat is not None:
            v["hand"] = self.sorted_hand(seat)
            v["legal"] = self.legal_actions(seat)
        return v

    def public_view(self, actions: bool = True) -> dict:
        """The part of :meth:`view` every seat and spectator sees alike (no card of any hand):
        a live game's streams encode it once per version for all of them. ``actions=False``:
        without the acts so far (a stream that sends each client only its new acts)."""
        v = {
            "state": self.state,
            "version": self.version,
            "rules": self.rules.spec(),
            "top": None if self.top is None else {"seat": self.owner, "cards": list(self.top.cards)},
            "to_act": self._public_to_act(),
            "burn_window": bool(self.state == "play" and self.burn_window and not self.phase2()),
            "leader": self.leader,
            "finished": list(self.finish_order) if self.state != "over" else None,
            "revolutions": list(self.revolutionaries),
            "declared": list(self.declared),
            "public_pre": [public_event(e) for e in self.pre_events],
        }
        if self.published_deal is not None:
            v["verifiable_deal"] = dict(self.published_deal)
        if actions:
            v["actions"] = list(self.actions)
        if self.state == "over":
            v["result"] = self.result()
        return v

    def _public_to_act(self) -> dict | None:
        """Whose turn and which kinds of act, without ``burners`` (who could burn depends on
        hidden cards; a seat sees its own burns in its legal acts)."""
        to_act = self.to_act()
        if to_act is not None:
            to_act.pop("burners", None)
        return to_act

    def record(self, actions: bool = True) -> dict:
        """The game record so far (RECORD.md ``gouji-record/1``); ``actions=False``: its
        ``actions`` left out (``None``), for a caller that has them encoded already."""
        rec = {
            "format": "gouji-record/1",
            "rules": self.rules.spec(),
            "opening_seat": self.opening_seat,
            "previous": self.previous,
            "deal": [list(h) for h in self.deal],
            "pre": [dict(e) for e in self.pre_events],
            "leader": self.leader,
            "actions": [dict(a) for a in self.actions] if actions else None,
        }
        if self.agreed is not None:
            rec["agreed"] = list(self.agreed)
        return rec

    def to_state(self, actions: bool = True) -> dict:
        """A JSON-serialisable state; :meth:`from_state` rebuilds the same game exactly.
        ``actions=False``: the record's ``actions`` left out (``None``), for a caller that
        encodes them itself (the live service encodes each act once, not at every act)."""
        state = {
            "format": "gouji-state/1",
            "record": self.record(actions),
            "live": self.live,
            "first_game": self.first_game,
            "requested_leader": self.requested_leader,
            "pre_decided": sorted([list(x) for x in self.pre_decided]),
            "auto_seats": sorted(self.auto_seats),
            "auto_tributes_paid": self.auto_tributes_paid,
            "version": self.version,
        }
        if self.published_deal is not None:
            state["published_deal"] = dict(self.published_deal)
        return state

    @classmethod
    def from_state(cls, state: dict) -> Game:
        """Rebuild a game from :meth:`to_state` output by replaying its record."""
        if isinstance(state, str):
            state = json.loads(state)
        rec = state["record"]
        g = cls(rec["rules"], rec["deal"], rec.get("previous"), rec.get("opening_seat", 0),
                state.get("requested_leader"), first_game=state.get("first_game"), live=False)
        for ev in rec["pre"]:
            g.apply_pre_event(ev)
        g.auto_tributes_paid = state.get("auto_tributes_paid", False)
        g.pre_decided = {tuple(x) for x in state.get("pre_decided", [])}
        if rec.get("agreed") is not None:
            g.agreed = list(rec["agreed"])
        if rec.get("leader") is not None and g.state == "pre":
            g.begin_play(rec["leader"])
        for a in rec["actions"]:
            g.act(a["seat"], a)
        g.live = state.get("live", True)
        if g.live and g.state == "pre":
            g.pre_prompt()  # close the stages already answered, as the live game had
        g.auto_seats = set(state.get("auto_seats", []))
        g.version = state.get("version", g.version)
        if state.get("published_deal") is not None:
            g.published_deal = dict(state["published_deal"])
        return g

