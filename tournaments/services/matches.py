"""How far a round's matches are, from their confirmed games: the results still missing, the
tied knockout matches and their deciding extra games (加赛), a table's match score."""

from __future__ import annotations

from tournaments.models import Round, Table


def _confirmed_points(round: Round) -> dict[int, list[tuple[int, int]]]:
    """The round's confirmed games' points (table id -> [(points_a, points_b), ...])."""
    from games.models import GameResult

    confirmed: dict[int, list] = {}
    for table_id, a, b in GameResult.objects.filter(
            table__round=round, status=GameResult.Status.CONFIRMED).values_list(
            "table_id", "points_a", "points_b"):
        confirmed.setdefault(table_id, []).append((a, b))
    return confirmed


def _tied(round: Round, confirmed: dict[int, list[tuple[int, int]]]) -> set[int]:
    if round.stage != Round.Stage.KNOCKOUT:
        return set()
    gpm = round.event.games_per_match
    return {table_id for table_id, games in confirmed.items() if len(games) >= gpm
            and sum(g[0] for g in games) == sum(g[1] for g in games)}


def round_tied_matches(*, round: Round) -> set[int]:
    """The tables of a knockout round whose match is tied with every game of it confirmed:
    each waits for a deciding extra game (加赛). Empty for a Swiss round."""
    if round.stage != Round.Stage.KNOCKOUT:
        return set()
    return _tied(round, _confirmed_points(round))


def round_results_to_come(*, round: Round) -> tuple[int, set[int]]:
    """:func:`round_missing_results` and :func:`round_tied_matches` from one read of the
    round's confirmed games."""
    gpm = round.event.games_per_match
    confirmed = _confirmed_points(round)
    tied = _tied(round, confirmed)
    missing = sum(max(0, gpm - len(confirmed.get(table_id, [])))
                  for table_id in round.tables.values_list("pk", flat=True))
    return missing + len(tied), tied


def round_missing_results(*, round: Round) -> int:
    """How many games of the round have no confirmed result yet (in a knockout round, a tied
    match also waits for its deciding extra game)."""
    return round_results_to_come(round=round)[0]


MAX_EXTRA_GAMES = 5


def most_games(round: Round) -> int:
    """The most games a match of ``round`` plays: its event's games per match and, in a
    knockout round, up to :data:`MAX_EXTRA_GAMES` deciding extra games (加赛) after them while
    the match stays tied."""
    gpm = round.event.games_per_match
    return gpm + MAX_EXTRA_GAMES if round.stage == Round.Stage.KNOCKOUT else gpm


def match_score(*, table: Table) -> dict:
    """A table's match so far from confirmed games: points of each side, games played, and
    (knockout) the winning team entry once decided — a tie after the games per match goes to
    deciding extra games (加赛)."""
    from games.models import GameResult

    games = list(GameResult.objects.filter(table=table, status=GameResult.Status.CONFIRMED)
                 .order_by("number").values_list("points_a", "points_b"))
    a, b = sum(g[0] for g in games), sum(g[1] for g in games)
    gpm = table.round.event.games_per_match
    decided = len(games) >= gpm and a != b
    winner = None
    if decided and table.team_a_id:
        winner = (table.team_a if a > b else table.team_b).entry.pk
    return {"points_a": a, "points_b": b, "games": len(games), "decided": decided,
            "winner": winner, "extra_games": max(0, len(games) - gpm)}
