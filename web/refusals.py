"""Refusals of a result sheet or a game record as people read them: a sentence in their
language, seats as 1–6号位.

The engine's messages are English with seats 0–5 (``engine/`` knows no Django) and stay so in
the API's JSON, which carries the engine's error object (``code``, ``where``, ``index``,
``seat``, ``message``) in ``detail``. The pages say them here, in one place (the table-side
pages, the referee desk): :func:`refusal` gives the form field a refusal is about and its
message. An engine error is said by its code (:data:`CODE_MESSAGES`: every code of
``engine.errors.CODES``, a test checks), where it is in the record and which seat; the
refusals a sheet's fields lead to, and a record's common mistakes, are said exactly
(:data:`SHEET_REFUSALS`, :data:`RECORD_REFUSALS`, matched on the engine's message; a test has
the engine produce each). The service's own refusals are translated where they are raised.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from engine.errors import CODES
from tournaments.errors import ServiceError
from web.forms.sheet import seat_label

#: what each engine error code says is wrong, when nothing more exact is known
CODE_MESSAGES = {
    "bad_format": gettext_lazy("it is not written as a game record is (gouji-record/1)"),
    "bad_card": gettext_lazy("a card is not written as a card (such as 10H, BJ or RJ)"),
    "bad_deal": gettext_lazy("the deal is not six hands of 36 cards from four decks"),
    "bad_pre": gettext_lazy("an event before play (革命, tribute, 还贡, 买3, 明点 or 预点) "
                            "breaks the rules"),
    "wrong_leader": gettext_lazy("the wrong seat leads the first trick"),
    "not_in_hand": gettext_lazy("a seat plays cards it does not hold"),
    "bad_combo": gettext_lazy("a play is not a combination the rules allow"),
    "not_your_turn": gettext_lazy("a seat acts out of turn"),
    "not_entitled": gettext_lazy("a seat answers a combination it may not answer"),
    "does_not_beat": gettext_lazy("a play does not beat the cards on the table"),
    "illegal_yield": gettext_lazy("a yield (让牌) the rules do not allow"),
    "illegal_burn": gettext_lazy("a burn (烧牌) the rules do not allow"),
    "three_rule": gettext_lazy("3s are played against the rule of 憋3"),
    "game_over": gettext_lazy("the record goes on after the game is over"),
}

#: a sheet the engine refuses for a reason no pattern below names
SHEET_FALLBACK = gettext_lazy("the sheet is not possible under the event's rules")


def _seat(m: re.Match, group: int = 1) -> str:
    return seat_label(int(m[group]))


@dataclass(frozen=True)
class Pattern:
    """An engine message (``pattern``, searched) said exactly: ``text`` of the match, on the
    form's ``field`` (of the match; ``None``: the whole form). ``located``: the message is
    said with where in the record it is (a missing event has no place of its own)."""

    pattern: str
    text: Callable[[re.Match], str]
    field: Callable[[re.Match], str] | None = None
    located: bool = True


SHEET_REFUSALS = [
    Pattern(r"two or more revolutions void the game",
            lambda m: _("two or more revolutions void the game (流局): tick “void”"),
            lambda m: "void"),
    Pattern(r"a game is void \(流局\) only after two or more revolutions",
            lambda m: _("a game is void (流局) only after two or more revolutions"),
            lambda m: "void"),
    Pattern(r"seat (\d) revolted and cannot have led",
            lambda m: _("%(seat)s revolted, so it cannot have led") % {"seat": _seat(m)},
            lambda m: "leader"),
    Pattern(r"seat (\d) cannot be eliminated as smothered",
            lambda m: _("these rules do not eliminate a smothered seat (闷)"),
            lambda m: f"out_{m[1]}"),
    Pattern(r"seat (\d) cannot be eliminated here",
            lambda m: _("a seat that revolted cannot also be eliminated"),
            lambda m: f"out_{m[1]}"),
    Pattern(r"seat (\d) revolted, so it is placed (\S+), not",
            lambda m: _("%(seat)s revolted, so it is placed %(place)s") % {
                "seat": _seat(m), "place": m[2]},
            lambda m: "place_0"),
    Pattern(r"seat (\d) was eliminated, so it is placed (\S+), not",
            lambda m: _("%(seat)s was eliminated, so it is placed %(place)s (eliminated seats "
                        "take the last places)") % {"seat": _seat(m), "place": m[2]},
            lambda m: "place_0"),
    Pattern(r"seat (\d) revolted and is 不开点",
            lambda m: _("%(seat)s revolted and is 不开点") % {"seat": _seat(m)},
            lambda m: f"kaidian_{m[1]}"),
    Pattern(r"seat (\d) is the 对头 of seat (\d), which revolted",
            lambda m: _("%(seat)s is the 对头 of %(rebel)s, which revolted: it 开点s") % {
                "seat": _seat(m), "rebel": _seat(m, 2)},
            lambda m: f"kaidian_{m[1]}"),
    Pattern(r"seat (\d) cannot burn seat (\d)",
            lambda m: _("a seat cannot burn itself or its 对头"),
            lambda m: "burn_0_burner"),
    Pattern(r"each smother is",
            lambda m: _("a smother names two different seats: the smothered one and the one "
                        "that beat it"),
            lambda m: "smother_0_seat"),
]


def _cards(n: int) -> str:
    return ngettext("%(n)s card", "%(n)s cards", n) % {"n": n}


RECORD_REFUSALS = [
    Pattern(r"^unknown key in the record: '([^']*)'",
            lambda m: _("the file has a key “%(key)s” that a game record does not have: is it "
                        "a game record (gouji-record/1)?") % {"key": m[1]}),
    Pattern(r'^format must be "gouji-record/1"',
            lambda m: _("the file is not a game record: its format must be gouji-record/1")),
    Pattern(r"^the record has no '(\w+)'",
            lambda m: _("the record has no “%(key)s”") % {"key": m[1]}),
    Pattern(r"seat (\d) still owes seat (\d) (\d+) (\S+) card",
            lambda m: _("%(seat)s still owes %(to)s %(cards)s of %(kind)s (the tributes follow "
                        "this table's previous game)") % {
                "seat": _seat(m), "to": _seat(m, 2), "cards": _cards(int(m[3])),
                "kind": m[4]}, located=False),
    Pattern(r"seat (\d) has not returned \(还贡\) the (\d+) 落贡 card\(s\) of seat (\d)",
            lambda m: _("%(seat)s has not returned (还贡) %(cards)s of 落贡 to %(to)s") % {
                "seat": _seat(m), "to": _seat(m, 3), "cards": _cards(int(m[2]))},
            located=False),
    Pattern(r"seat (\d) owes seat (\d) no (\S+) \(already paid\)",
            lambda m: _("%(seat)s has already paid %(to)s its %(kind)s") % {
                "seat": _seat(m), "to": _seat(m, 2), "kind": m[3]}),
    Pattern(r"seat (\d) owes seat (\d) no (\S+) from the previous game",
            lambda m: _("%(seat)s owes %(to)s no %(kind)s from this table's previous game") % {
                "seat": _seat(m), "to": _seat(m, 2), "kind": m[3]}),
    Pattern(r"seat (\d) owes seat (\d) (\d+) (\S+) card\(s\), not (\d+)",
            lambda m: _("%(seat)s owes %(to)s %(cards)s of %(kind)s, not %(given)s") % {
                "seat": _seat(m), "to": _seat(m, 2), "cards": _cards(int(m[3])),
                "kind": m[4], "given": m[5]}),
    Pattern(r"seat (\d) must give its biggest tribute cards",
            lambda m: _("%(seat)s must give its biggest cards as tribute: 大王, then 小王, then "
                        "2s (never a card it received as tribute)") % {"seat": _seat(m)}),
    Pattern(r"seat (\d) must lead, not seat (\d)",
            lambda m: _("%(seat)s leads the first trick, not %(other)s") % {
                "seat": _seat(m), "other": _seat(m, 2)}),
    Pattern(r"seat (\d) revolted and cannot lead",
            lambda m: _("%(seat)s revolted, so it cannot lead") % {"seat": _seat(m)}),
    Pattern(r"seat (\d) does not hold (\S+)",
            lambda m: _("%(seat)s does not hold %(card)s") % {"seat": _seat(m), "card": m[2]}),
    Pattern(r"seat (\d) holds (\d+) (\S+), not (\d+)",
            lambda m: _("%(seat)s holds only %(have)s × %(card)s, not %(n)s") % {
                "seat": _seat(m), "have": m[2], "card": m[3], "n": m[4]}),
    Pattern(r"it is seat (\d)'s turn, not seat (\d)'s",
            lambda m: _("it is %(turn)s's turn, not %(seat)s's") % {
                "turn": _seat(m), "seat": _seat(m, 2)}),
    Pattern(r"seat (\d) is no longer playing in this game",
            lambda m: _("%(seat)s is no longer playing in this game") % {"seat": _seat(m)}),
    Pattern(r"seat (\d)'s (.+) does not beat seat (\d)'s (.+?)(?: \(|$)",
            lambda m: _("%(seat)s's %(cards)s does not beat %(owner)s's %(top)s") % {
                "seat": _seat(m), "cards": m[2], "owner": _seat(m, 3), "top": m[4]}),
    Pattern(r"seat (\d) was dealt (\d+) cards, not 36",
            lambda m: _("%(seat)s was dealt %(n)s cards, not 36") % {
                "seat": _seat(m), "n": m[2]}),
    Pattern(r"the deal is not one four-deck set",
            lambda m: _("the deal is not one set of four decks with their jokers"),
            located=False),
    Pattern(r"the game is void \(流局\)",
            lambda m: _("two or more revolutions void the game (流局): nothing may follow "
                        "them")),
]


def _where(error: dict, seat: bool) -> str:
    """Where in a record ``error`` is, with its seat when ``seat``: "act 12 (seat 3)"."""
    index = error.get("index")
    where = {"deal": _("the deal"), "leader": _("the first lead")}.get(error.get("where"))
    if error.get("where") == "pre" and index is not None:
        where = _("event %(n)s before play") % {"n": index + 1}
    elif error.get("where") == "actions" and index is not None:
        where = _("act %(n)s") % {"n": index + 1}
    who = seat_label(error["seat"]) if seat and isinstance(error.get("seat"), int) and \
        0 <= error["seat"] <= 5 else None
    if where and who:
        return _("%(where)s (%(seat)s)") % {"where": where, "seat": who}
    return where or who or ""


def engine_refusal(error: dict) -> tuple[str, str]:
    """The form field (``"__all__"``: the whole form) and the message of the engine's error
    object ``error`` (a refused sheet, ``where`` ``"sheet"``, or record)."""
    message = str(error.get("message") or "")
    if error.get("where") == "sheet":
        for p in SHEET_REFUSALS:
            if m := re.search(p.pattern, message):
                return p.field(m) if p.field else "__all__", p.text(m)
        return "__all__", str(SHEET_FALLBACK)
    for p in RECORD_REFUSALS:
        if m := re.search(p.pattern, message):
            what, where = p.text(m), _where(error, seat=False) if p.located else ""
            break
    else:
        what = str(CODE_MESSAGES.get(error.get("code"), CODE_MESSAGES["bad_format"]))
        where = _where(error, seat=True)
    return "__all__", _("%(where)s: %(what)s") % {"where": where, "what": what} if where else what


def refusal(exc: ServiceError) -> tuple[str, str]:
    """The form field a refusal of a sheet or record is about (``"__all__"``: the whole form)
    and its message in the reader's language: the engine's (its error object in
    ``exc.detail``) by :func:`engine_refusal`, the service's as it was raised."""
    detail = exc.detail or {}
    if detail.get("code") in CODES and "message" in detail:
        return engine_refusal(detail)
    return "__all__", str(exc.message)


def live_refusal(exc: ServiceError) -> str | None:
    """The message of the service's refusal of a sheet or record for a game being played live
    at its table (dealt live after the page was loaded), ``None`` for any other refusal: the
    pages then show that game live with no sheet for it, so they say it apart from the form
    (the player's page at its top, the desk in its sheet section)."""
    return str(exc.message) if exc.code == "live_game_running" else None
