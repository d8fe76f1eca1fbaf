"""Error codes of RECORD.md and the exception that carries them."""

from __future__ import annotations

CODES = (
    "bad_format",
    "bad_card",
    "bad_deal",
    "bad_pre",
    "wrong_leader",
    "not_in_hand",
    "bad_combo",
    "not_your_turn",
    "not_entitled",
    "does_not_beat",
    "illegal_yield",
    "illegal_burn",
    "three_rule",
    "game_over",
)


class IllegalAction(ValueError):
    """An act, pre-play event or record part that the rules refuse.

    ``code`` is one of :data:`CODES`; ``message`` names seats and cards in a referee's words.
    ``where`` and ``index`` locate it in a record (filled in by the replayer).
    """

    def __init__(self, code: str, message: str, seat: int | None = None, where: str | None = None,
                 index: int | None = None):
        assert code in CODES, code
        super().__init__(message)
        self.code = code
        self.message = message
        self.seat = seat
        self.where = where
        self.index = index

    def to_dict(self) -> dict:
        return {
            "where": self.where,
            "index": self.index,
            "seat": self.seat,
            "code": self.code,
            "message": self.message,
        }
