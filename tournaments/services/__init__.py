"""Writes for events, players, entries, teams, rounds and draws (STYLE.md: services own the
writes), one module a subject:

- ``checks``: the refusals the subjects share (bounds, rules, a finished event);
- ``events``: an event's settings, publication, prizes and staff;
- ``players``, ``entries``, ``teams``: registration, check-in, withdrawal, 联邦 invitations;
- ``rounds``: opening a round, queueing its draw, publishing its seating, knockout finals;
- ``matches``: the results a round still waits for, tied matches and extra games (加赛);
- ``draws``: the draw itself and its verification; ``draw_changes``: swaps and re-draws;
- ``penalties``, ``releases`` (公布成绩), ``imports`` (entries from rows), ``links`` (private
  links).

Every function is keyword-only, runs in one transaction and sends its side effects (tasks) on
commit. Refusals raise :class:`tournaments.errors.ServiceError` and change nothing. The names
are re-exported here for ``from tournaments.services import X``; new code imports from the
subject's module.
"""

from tournaments.services.checks import (
    check_bounds,
    check_open,
    next_round_number,
    rules_check,
)
from tournaments.services.draw_changes import (
    DRAW_REASON_MAX,
    SeatRef,
    round_redraw,
    round_seats_swap,
)
from tournaments.services.draws import (
    DrawVerification,
    compute_draw,
    draw_change_text,
    round_draw,
    round_verification,
    round_verify,
)
from tournaments.services.entries import (
    ACTIVE_STATUSES,
    entries_check_in,
    entry_check_in,
    entry_check_in_undo,
    entry_register,
    entry_register_by_name,
    entry_withdraw,
)
from tournaments.services.events import (
    EDITABLE_ALWAYS,
    EDITABLE_BEFORE_ROUND_1,
    EDITABLE_UNTIL_PUBLIC,
    event_create,
    event_finish,
    event_prizes_set,
    event_publish,
    event_slug,
    event_staff_add,
    event_staff_remove,
    event_update,
    slug_fixed,
)
from tournaments.services.imports import (
    entries_import,
)
from tournaments.services.links import (
    entry_link_issue,
    entry_link_revoke,
)
from tournaments.services.matches import (
    MAX_EXTRA_GAMES,
    match_score,
    most_games,
    round_missing_results,
    round_results_to_come,
    round_tied_matches,
)
from tournaments.services.penalties import (
    penalty_add,
)
from tournaments.services.players import (
    number_claimed_by,
    player_create,
)
from tournaments.services.releases import (
    standings_release,
    standings_release_missing,
    standings_release_rounds,
)
from tournaments.services.rounds import (
    bracket_order,
    knockout_seeds_by_rating,
    round_create,
    round_draw_sweep,
    round_eligible_entries,
    round_open,
    round_publish,
    round_request_draw,
    swiss_draw_entries,
    swiss_draw_input,
)
from tournaments.services.teams import (
    team_complete,
    team_invitation_accept,
    team_invitation_decline,
    team_register,
)

__all__ = [
    "check_bounds",
    "rules_check",
    "next_round_number",
    "check_open",
    "event_create",
    "event_slug",
    "EDITABLE_ALWAYS",
    "EDITABLE_BEFORE_ROUND_1",
    "EDITABLE_UNTIL_PUBLIC",
    "slug_fixed",
    "event_update",
    "event_publish",
    "event_finish",
    "event_prizes_set",
    "event_staff_add",
    "event_staff_remove",
    "player_create",
    "number_claimed_by",
    "ACTIVE_STATUSES",
    "entry_register",
    "entry_check_in",
    "entry_check_in_undo",
    "entry_register_by_name",
    "entries_check_in",
    "entry_withdraw",
    "team_register",
    "team_invitation_accept",
    "team_invitation_decline",
    "team_complete",
    "round_eligible_entries",
    "round_create",
    "swiss_draw_entries",
    "swiss_draw_input",
    "bracket_order",
    "knockout_seeds_by_rating",
    "round_request_draw",
    "round_open",
    "round_draw_sweep",
    "round_publish",
    "round_tied_matches",
    "round_results_to_come",
    "round_missing_results",
    "MAX_EXTRA_GAMES",
    "most_games",
    "match_score",
    "compute_draw",
    "round_draw",
    "DrawVerification",
    "round_verification",
    "round_verify",
    "draw_change_text",
    "DRAW_REASON_MAX",
    "SeatRef",
    "round_seats_swap",
    "round_redraw",
    "penalty_add",
    "standings_release_missing",
    "standings_release_rounds",
    "standings_release",
    "entries_import",
    "entry_link_issue",
    "entry_link_revoke",
]
