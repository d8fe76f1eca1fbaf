"""Verifiable deals (发牌可验证) of the games the service deals: live games and practice games.

Each game is dealt with :func:`engine.deals.derive_deal` from a fresh secret seed
(:func:`engine.deals.new_seed`, the operating system's generator: nothing a player says or does
goes into it) and the game's *label*, fixed before the deal:

* a live game of an event: ``gouji/event/<event id>/round/<round number>/table/<table
  number>/game/<game number>`` (:func:`event_game_label`);
* a live game of a duplicate (复式) event: its board's label,
  ``gouji/event/<id>/round/<n>/group/<g>/board/<k>`` (:mod:`tournaments.boards`), the same
  seed and commitment at every table of the group; a twin table's seat ``s`` holds the
  derived hand ``s − 1``;
* a practice game: ``gouji/practice/<practice id>``, the id 16 random hex digits drawn for the
  game (:func:`practice_label`): not its token, which stays the player's key.

The commitment (承诺, :func:`engine.deals.commitment`) is public from the start: the live views,
streams and the API show it with the label. The seed is revealed only once the game is over
and its record may be seen by that viewer — the rule of :class:`games.selectors.RecordAccess`
(the staff and the table at once, everyone else once the result is confirmed); a practice
game's own player, once it is over. Nothing shows it earlier.
"""

from __future__ import annotations

import secrets

from engine.cards import sort_cards
from engine.deals import commitment, derive_deal, new_seed, verify

#: how anyone checks a revealed deal (docs/DEALS.md)
VERIFY_COMMAND = "python -m engine deal --seed {seed} --label {label} --commitment {commitment}"


def event_game_label(table, number: int) -> str:
    """The label of game ``number`` of ``table`` (its round and event read)."""
    rnd = table.round
    return f"gouji/event/{rnd.event_id}/round/{rnd.number}/table/{table.number}/game/{number}"


def practice_label() -> str:
    """A new practice game's label, with a random practice id."""
    return f"gouji/practice/{secrets.token_hex(8)}"


def deal(label: str) -> tuple[list[list[str]], dict]:
    """The six hands of a new game labelled ``label`` and the fields that make it verifiable:
    ``{"deal_label", "deal_commitment", "deal_seed"}`` for the game's row."""
    seed = new_seed()
    return derive_deal(seed, label), {"deal_label": label, "deal_seed": seed,
                                      "deal_commitment": commitment(seed, label)}


def public_deal(game) -> dict | None:
    """What everyone may see of the deal of ``game`` (a LiveGame or PracticeGame, or the fields
    :func:`deal` gives) at any time: ``{"label", "commitment"}``, as the engine's game keeps
    it (:attr:`engine.game.views.Views.published_deal`: every view shows it); ``None`` for a
    game dealt before deals were verifiable."""
    fields = game if isinstance(game, dict) else vars(game)
    if not fields.get("deal_commitment"):
        return None
    return {"label": fields["deal_label"], "commitment": fields["deal_commitment"]}


def revealed_deal(game, shown: bool) -> dict | None:
    """:func:`public_deal` with ``seed`` (``None`` unless ``shown``: the caller has checked
    that the game is over and its record may be seen) and ``command``, the check to run."""
    public = public_deal(game)
    if public is None:
        return None
    seed = game.deal_seed if shown else None
    return {**public, "seed": seed, "command": VERIFY_COMMAND.format(
        seed=seed or "<seed>", label=public["label"], commitment=public["commitment"])}


def result_deal(result, record_shown: bool) -> dict | None:
    """The verifiable deal of a stored result's live game, for the replay page and the API:
    :func:`revealed_deal`, the seed shown when ``record_shown`` (the caller's
    :class:`games.selectors.RecordAccess` allows ``result``'s record) and the game is over;
    ``None`` for a result that was not played live here."""
    from live.models import LiveGame

    live = LiveGame.objects.filter(result=result).only(
        "deal_label", "deal_commitment", "deal_seed", "status", "table", "number").first()
    if live is None:
        return None
    shown = revealed_deal(live, record_shown and live.status == LiveGame.Status.FINISHED)
    if shown is not None and is_twin(live):
        shown["command"] += " --twin"
        shown["twin"] = True
    return shown


def is_twin(live) -> bool:
    """Whether ``live`` is a duplicate board's game at a twin table (dealt rotated one seat)."""
    if "/board/" not in (live.deal_label or ""):
        return False
    from tournaments.boards import table_board

    board = table_board(live.table, live.number)
    return bool(board and board[1])


def deal_verification(live) -> list[str]:
    """What does not hold of a stored live game's deal (an empty list: verified): its
    commitment is the one its seed and label give, its label names the game, and the hands it
    was dealt — in its stored state and in every record of its result — are the deal the seed
    and label derive."""
    import engine
    from games.models import GameResultVersion

    if not live.deal_commitment:
        return ["the game was dealt before deals were verifiable: it has no commitment"]
    from tournaments.boards import rotated, table_board

    problems = verify(live.deal_seed, live.deal_label, live.deal_commitment)
    board = table_board(live.table, live.number)  # a duplicate board, maybe rotated (a twin)
    expected = board[0].label if board else event_game_label(live.table, live.number)
    if live.deal_label != expected:
        problems.append(f"its label {live.deal_label} does not name the game ({expected})")
    if board and live.deal_commitment != board[0].commitment:
        problems.append("its commitment is not the board's published one")
    if problems:
        return problems
    hands = rotated(derive_deal(live.deal_seed, live.deal_label), bool(board and board[1]))
    dealt = engine.Game.from_state(live.state).record(actions=False)["deal"]
    if [sort_cards(h) for h in dealt] != hands:
        problems.append("the hands of its stored state are not the deal the seed derives")
    if live.result_id is not None:
        for version in GameResultVersion.objects.filter(
                result_id=live.result_id, kind=GameResultVersion.Kind.RECORD).order_by("version"):
            if [sort_cards(h) for h in version.payload.get("deal") or []] != hands:
                problems.append(f"the record of result version {version.version} was not dealt "
                                "the derived hands")
    return problems
