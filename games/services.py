"""Writes for game results: submit, confirm, correct (STYLE.md: services own the writes).

The engine decides: a result sheet goes through :func:`engine.score_sheet`, a full record
through :func:`engine.replay` with the table's previous game as ``previous``. Nothing the engine
refuses is stored. Each change is a new :class:`GameResultVersion`; standings are recomputed on
commit from confirmed results only. A player's correction of a confirmed result is a
:class:`ResultProposal` until the other 联邦 or a referee accepts it (issue 15). The other 联邦
may dispute a submitted result instead of confirming it (:class:`ResultDispute`); a referee
settles it by confirming or correcting it (issue 16). Once a later round of the event is drawn,
a round is closed: its results change only by a referee, and each such change is marked
(:func:`_check_round_open`, issue 51).
"""

from __future__ import annotations

import functools
import hashlib
import json

import orjson
from django.db import connection, transaction
from django.db.models import Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

import engine
from engine.game import RESULT_KEYS
from games.models import GameResult, GameResultVersion, ResultDispute, ResultProposal
from tournaments.boards import is_board_round
from tournaments.errors import Conflict, Forbidden, ServiceError
from tournaments.locks import (
    Advisory,
    advisory_xact_lock,
    lock_round_tables,
    lock_table,
    lock_table_row,
)
from tournaments.models import Event, Player, Round, Seat, Table
from tournaments.selectors import closed_by_sql, round_closed_by, seat_of
from tournaments.sqlrows import Columns, insert_with_child, prepared_cursor

MAX_RECORD_ACTIONS = 2000


def _check_round_open(*, round_number: int, closed_by: int | None, as_referee: bool) -> None:
    """The rule of a closed round, in one place: once a later round of the event is drawn (the
    latest, round ``closed_by``: ``tournaments.selectors.round_closed_by``), that draw used
    round ``round_number``'s results as they were, so they change only by a referee (an
    organizer or referee of the event). A player's submission, confirmation, dispute,
    proposed correction or acceptance of one is refused (409 ``round_closed``); a referee's
    change goes through and is marked with ``closed_by`` (``after_close`` on the version or
    the dispute's settlement), for the history and the desk."""
    if closed_by is not None and not as_referee:
        raise Conflict("round_closed", _(
            "round %(n)s is closed: round %(m)s has been drawn, so only a referee may change "
            "its results now") % {"n": round_number, "m": closed_by},
            detail={"round": round_number, "closed_by": closed_by})


def _standings_on_commit(event_id: int, from_round=None):
    from ratings.services import ratings_refresh_on_commit
    from tournaments.standings import standings_refresh_on_commit

    standings_refresh_on_commit(event_id=event_id, from_round=from_round)
    ratings_refresh_on_commit(event_id=event_id)


def _previous_result(table: Table, number: int) -> dict | None:
    if number <= 1:
        return None
    prev = GameResult.objects.filter(table=table, number=number - 1).order_by().values_list(
        "engine_result", flat=True).first()
    return _result_keys(prev)


def _result_keys(engine_result: dict | None) -> dict | None:
    """What of a stored game's engine result the next game's record names as ``previous``."""
    if engine_result is None:
        return None
    return {k: v for k, v in engine_result.items() if k in RESULT_KEYS}


def submission_digest(*, number: int, sheet=None, record=None) -> str:
    """The sha256 of what the client sent (``{number, sheet}`` or ``{number, record}`` as
    canonical JSON): a retry of the same request has the same digest, so it is recognised
    before the engine replays anything. ``""`` for a malformed submission (neither or both,
    or not JSON), which the engine's validation refuses."""
    if (sheet is None) == (record is None):
        return ""
    body = {"number": number, "sheet": sheet} if sheet is not None else {
        "number": number, "record": record}
    try:  # orjson gives the standard library's canonical text (below) for what it takes
        text = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    except (orjson.JSONEncodeError, TypeError):
        try:
            text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                              allow_nan=False).encode("utf-8")
        except (TypeError, ValueError):
            return ""
    return hashlib.sha256(text).hexdigest()


#: ``result_validate(previous=…)`` not given: it reads game number-1's stored result itself
_READ_IT = object()


def result_validate(*, event: Event, table: Table, number: int, sheet=None, record=None,
                    as_played: bool = False, previous=_READ_IT) -> tuple:
    """Score a sheet or a record with the engine; return ``(kind, payload, engine_result)`` or
    raise :class:`ServiceError` with the engine's error object.

    A record of game N > 1 is checked against game N-1's stored result. ``as_played`` (a live
    game's record, whose ``previous`` the server set when it dealt the game): against that
    ``previous`` instead, for game N-1 may have been corrected while game N was played, and the
    game was played as it was dealt. ``previous``: game number-1's stored result (``None``: it
    has none) when the caller has read it already, under the table's lock."""
    if (sheet is None) == (record is None):
        raise ServiceError("bad_submission", _("send either a result sheet or a full record"))
    _check_game_number(event, table, number)
    rules = engine.Rules.from_spec(event.rules)
    if sheet is not None:
        if not isinstance(sheet, dict):
            raise ServiceError("bad_sheet", _("a result sheet must be a JSON object"))
        payload = dict(sheet)
        payload.setdefault("format", "gouji-sheet/1")
        if "rules" in payload and _rules_differ(payload["rules"], rules):
            raise ServiceError("wrong_rules", _("the sheet's rules are not the event's rules"))
        payload["rules"] = rules.spec()
        res = engine.score_sheet(payload)
        kind = GameResultVersion.Kind.SHEET
    else:
        if not isinstance(record, dict):
            raise ServiceError("bad_record", _("a game record must be a JSON object"))
        actions = record.get("actions")
        if isinstance(actions, list) and len(actions) > MAX_RECORD_ACTIONS:
            raise ServiceError("bad_record", _("a record holds at most %(n)s actions") % {
                "n": MAX_RECORD_ACTIONS})
        payload = dict(record)
        board = is_board_round(table.round)  # a duplicate board: a match's first game
        if board:
            previous = None
        elif as_played:
            previous = payload.get("previous")
        elif previous is _READ_IT:
            previous = _previous_result(table, number)
        _check_record_fits_table(payload, rules=rules, number=1 if board else number,
                                 previous=previous)
        payload["rules"] = rules.spec()
        if previous is not None:
            payload["previous"] = previous
        res = engine.replay(payload, first_game=((number == 1 or board) and previous is None))
        kind = GameResultVersion.Kind.RECORD
        if res.get("ok") and not res["complete"]:
            raise ServiceError("record_unfinished", _(
                "the record stops before the game ends; submit it when the game is over"),
                detail={"to_act": res.get("to_act")}, status=422)
    if not res.get("ok"):
        err = res["error"]
        raise ServiceError(err["code"], err["message"], detail=err, status=422)
    return kind, payload, res


#: the seat every table of the service opens at (RULES.md §4: where 亮3 ties start, and the
#: order the live game asks its seats in): live play deals with it (live.services.live_start),
#: and a table has no other
TABLE_OPENING_SEAT = 0


def _check_record_fits_table(record: dict, *, rules: engine.Rules, number: int,
                             previous: dict | None) -> None:
    """Refuse a record (RECORD.md) that cannot be game ``number`` of this table, before the
    engine replays it: what the table knows is checked here, what the game's rules say by
    the engine (:func:`engine.replay`, given the table's ``previous``, rules and first-game
    flag). A record may leave out ``rules``, ``opening_seat`` and ``previous``: the table's
    are used; given, they must be the table's:

    - its rules are the event's (``wrong_rules``);
    - it opens at :data:`TABLE_OPENING_SEAT` (``wrong_opening_seat``), so that under
      ``first_lead = loser`` the engine judges game 1's leader by 亮3 from this table's seat;
    - its ``previous`` is game ``number``-1's stored result (``wrong_previous``), or none for
      game 1 (a table's first game follows no game; the engine then takes 亮3 or the
      rules' first lead); game N > 1 with no stored game N-1 is refused
      (``previous_missing``). With it the engine checks every tribute, return and the leader
      the previous game leaves owed.

    What no check can catch: RECORD.md names no event, table, game or player (an unknown key
    is an error), so a record cannot say who played it, and its deal is any shuffle. Any
    valid game that starts from the same state — for game 1 any game with no previous, for
    game N any game paying the tributes game N-1 left owed — fits, whether it was played at
    this table or made elsewhere (a bot game). That a record is this table's game is what
    the other 联邦's confirmation (two-person rule, with the record's replay to look at) or
    a referee vouches for; a live game's record is the server's own."""
    if "rules" in record and _rules_differ(record["rules"], rules):
        raise ServiceError("wrong_rules", _("the record's rules are not the event's rules"))
    opening = record.get("opening_seat", TABLE_OPENING_SEAT)
    if opening != TABLE_OPENING_SEAT:
        raise ServiceError("wrong_opening_seat", _(
            "the record's opening_seat is %(given)s, but every table here opens at seat "
            "%(seat)s (1号位): leave it out or set it to %(seat)s") % {
            "given": str(opening)[:20], "seat": TABLE_OPENING_SEAT},
            detail={"opening_seat": TABLE_OPENING_SEAT}, status=422)
    given = record.get("previous")
    if given is not None and not isinstance(given, dict):
        raise ServiceError("bad_record", _("previous must be a result object"), status=422)
    if previous is None and number > 1:
        # its tributes and first leader follow game number-1 (as live_start)
        raise ServiceError("previous_missing", _(
            "game %(n)s has no result yet: its tributes decide this game's start") % {
            "n": number - 1})
    if previous is None and given is not None:
        raise ServiceError("wrong_previous", _(
            "the record follows an earlier game (its previous is set), but game %(n)s of a "
            "table follows none here") % {"n": number})
    if given is not None and _without_to_act(given) != _without_to_act(previous):
        raise ServiceError("wrong_previous", _(
            "the record's previous game is not the result stored for game %(n)s") % {
            "n": number - 1})


def _without_to_act(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "to_act"}


def _checked_against_stored_previous(checked: tuple, *, event: Event, table: Table,
                                     number: int, record) -> tuple:
    """``checked`` (``(kind, payload, engine_result)`` from :func:`result_validate`), or the
    record checked again when game ``number``-1's stored result is no longer the one it was
    checked against: a correction of that game (which writes under the table's lock) came in
    between. Call under the table's lock."""
    kind, payload, _ = checked
    if kind != GameResultVersion.Kind.RECORD or number <= 1 or \
            payload.get("previous") == _previous_result(table, number):
        return checked
    return result_validate(event=event, table=table, number=number, record=record)


def _check_game_number(event: Event, table: Table, number: int) -> None:
    """Games 1..games_per_match; in a knockout round a tied match goes on with deciding extra
    games (加赛), one at a time."""
    from tournaments.services.matches import match_score, most_games

    gpm = event.games_per_match
    if 1 <= number <= gpm:
        return
    if gpm < number <= most_games(table.round):  # (a knockout round's extra games)
        score = match_score(table=table)
        if score["games"] == number - 1 and not score["decided"]:
            return
        raise ServiceError("bad_game_number", _(
            "an extra game is played only when the match is tied after every earlier game is "
            "confirmed"))
    raise ServiceError("bad_game_number", _("game number must be 1 to %(n)s") % {"n": gpm})


def next_game_number(table: Table, taken) -> int | None:
    """The game ``table`` plays next, given the numbers it already has a result or a live game
    for: the first of games 1..games_per_match missing, then, in a knockout round, the next
    deciding extra game (加赛) if :func:`_check_game_number` allows it now (the match tied,
    every earlier game confirmed); None when there is no game to play yet or any more."""
    event = table.round.event
    taken = set(taken)
    number = next((n for n in range(1, event.games_per_match + 1) if n not in taken), None)
    if number is None and table.round.stage == Round.Stage.KNOCKOUT:
        number = max(taken, default=0) + 1
        try:
            _check_game_number(event, table, number)
        except ServiceError:
            return None
    return number


def _rules_differ(spec, rules: engine.Rules) -> bool:
    try:
        return engine.Rules.from_spec(spec) != rules
    except engine.RulesError:
        return True


def _lock_key(user_id: int, key: str) -> None:
    """Hold, until the transaction ends, a lock on ``key`` of user ``user_id``
    (:attr:`~tournaments.locks.Advisory.SUBMISSION_KEY`). Two submissions under one key sent at
    once to different tables each lock their own table, so without it each could look the key up
    before the other stored it, and both would be stored."""
    advisory_xact_lock(Advisory.SUBMISSION_KEY, f"{user_id}:{key}")


@functools.cache
def _submission_context_sql() -> str:
    results, versions = GameResult._meta.db_table, GameResultVersion._meta.db_table
    live_games = Table._meta.get_field("live_games").related_model._meta.db_table  # (live is
    # above games: its model through the relation, not an import)
    first = f"""FROM "{versions}" V JOIN "{results}" R ON R."id" = V."result_id"
                WHERE R."table_id" = %s AND R."number" = %s AND V."version" = 1"""
    mine_here = f"""FROM "{versions}" V JOIN "{results}" R ON R."id" = V."result_id"
                    WHERE V."submitted_by_id" = %s AND V."idempotency_key" = %s
                      AND R."table_id" = %s AND R."number" = %s ORDER BY V."id" LIMIT 1"""
    return f"""SELECT
        (SELECT V."result_id" {first} LIMIT 1),
        (SELECT V."submission_digest" {first} LIMIT 1),
        EXISTS (SELECT 1 FROM "{live_games}" L
                 WHERE L."table_id" = %s AND L."number" = %s AND L."status" = 'running'),
        (SELECT R."engine_result" FROM "{results}" R
          WHERE R."table_id" = %s AND R."number" = %s LIMIT 1),
        EXISTS (SELECT 1 FROM "{versions}" V
                 WHERE V."submitted_by_id" = %s AND V."idempotency_key" = %s),
        (SELECT V."result_id" {mine_here}),
        (SELECT V."submission_digest" {mine_here}),
        {closed_by_sql("%s")}"""


def _submission_context(*, table: Table, number: int, by, idempotency_key: str,
                        with_previous: bool) -> dict:
    """What a submission of game ``number`` at ``table`` checks in the database, in one query
    (call it under the table's lock, and the key's, so that it sees every result stored before
    them): ``first_result`` and ``first_digest`` (version 1 of the game's stored result, if
    any), ``live_running`` (the game is being played live), ``previous`` (game number-1's
    stored engine result; ``with_previous`` only) and, with an Idempotency-Key of ``by``,
    ``key_named`` (the key names some submission of theirs) and ``key_here_result`` /
    ``key_here_digest`` (the one at this table and game), and ``closed_by`` (the table's round
    is closed: :func:`_check_round_open`). Hand-written SQL: the ORM took milliseconds of CPU
    to build it (docs/BENCHMARKS.md)."""
    by_id = getattr(by, "pk", None) if idempotency_key else None
    here = [table.pk, number]
    previous = number - 1 if with_previous else 0  # game 0: no row
    mine = [by_id, idempotency_key, table.pk, number]
    with prepared_cursor() as cursor:
        cursor.execute(_submission_context_sql(), [
            *here, *here, *here, table.pk, previous, by_id, idempotency_key, *mine, *mine,
            table.round_id])
        row = cursor.fetchone()
    names = ("first_result", "first_digest", "live_running", "previous", "key_named",
             "key_here_result", "key_here_digest", "closed_by")
    seen = dict(zip(names, row, strict=True))
    seen["live_running"], seen["key_named"] = bool(seen["live_running"]), bool(seen["key_named"])
    if isinstance(seen["previous"], str):
        seen["previous"] = json.loads(seen["previous"])
    return seen


def _same_submission(*, stored_digest: str, result_id: int, digest: str, payload) -> bool | None:
    """Whether version 1 of result ``result_id`` (its digest ``stored_digest``) was stored from
    this submission: by its digest, else (a version stored before digests, or the same result
    spelt another way) by the normalized payload. ``None`` when that needs the payload and it
    is not known yet (before validation)."""
    if digest and stored_digest == digest:
        return True
    if payload is None:
        return None
    stored = GameResultVersion.objects.filter(result_id=result_id, version=1).order_by()
    return stored.values_list("payload", flat=True).first() == payload


def _stored_result(result_id: int) -> GameResult:
    result = GameResult.objects.select_related("confirmed_by").get(pk=result_id)
    result.created = False
    return result


def _stored_submission(seen: dict, *, table: Table, number: int, digest: str,
                       payload=None) -> GameResult | None:
    """The stored result this submission repeats, or ``None`` when there is none yet, from
    :func:`_submission_context`'s ``seen``.

    Called twice: before validation (``payload`` unknown: only what the digest decides; ``None``
    also when undecided) and with the validated ``payload``, where a different result already
    stored for the game is refused (409 ``already_submitted``). A key of ``by`` that already
    names another submission — another table or game, or another body — is refused either
    time (422 ``idempotency_key_reused``)."""
    if seen.get("key_named"):
        here = seen["key_here_result"]
        same = None if here is None else _same_submission(
            stored_digest=seen["key_here_digest"], result_id=here, digest=digest,
            payload=payload)
        if same:
            return _stored_result(here)
        if here is None or same is False:
            raise ServiceError("idempotency_key_reused", _(
                "this Idempotency-Key was used for a different submission"), status=422)
        return None  # this game, but whether the same body is known after validation
    first = seen["first_result"]
    if first is None:
        return None
    same = _same_submission(stored_digest=seen["first_digest"], result_id=first, digest=digest,
                            payload=payload)
    if same:
        return _stored_result(first)
    if same is False:
        raise Conflict("already_submitted", _(
            "game %(n)s of table %(t)s already has a result; send a correction with a "
            "reason instead") % {"n": number, "t": table.number})
    return None


def result_submit(*, table: Table, number: int, sheet=None, record=None, by=None,
                  idempotency_key: str = "", table_locked: bool = False,
                  as_referee: bool = False) -> GameResult:
    """Store the first result of game ``number`` at ``table``.

    The same submission twice (the same body, or the same ``idempotency_key`` of the same
    user) returns the stored result instead of a second one — looked up by the digest of what
    was sent before the engine replays anything, so a retry is answered with what was stored
    even when the table's previous game was corrected since. A key names one submission of its
    user: reused for another game, table or body it is refused. A different result for a game
    that has one is refused: corrections go through :func:`result_correct`. A game being
    played live gets its result from :func:`result_record_live` when it ends. A round closed
    by a later draw takes a late result from a referee only (``as_referee``), marked
    (:func:`_check_round_open`); a retry of one stored before is still answered with it.

    Its statements (docs/BENCHMARKS.md; ``tests/api/test_api_result_statements.py`` pins
    them): the table's row lock (``table_locked``: the caller has locked it already in the
    transaction it is in, as the API reads the table:
    ``tournaments.locks.lock_table_with_viewer``), the key's advisory lock (with a key, on
    PostgreSQL), one read of everything checked (:func:`_submission_context`), and the
    result's and its version's inserts, in one statement on PostgreSQL. The engine checks the
    body under the table's lock against game number-1 as that read found it, so a correction
    of that game cannot come in between.
    """
    if table.round.status == Round.Status.COMMITTED:
        raise ServiceError("not_drawn", _("the round is not drawn yet"))
    idempotency_key = idempotency_key or ""
    digest = submission_digest(number=number, sheet=sheet, record=record)
    if table_locked and not transaction.get_connection().in_atomic_block:
        raise ValueError("table_locked: the caller locks the table in its own transaction")
    # (in the caller's transaction, no savepoint: two more statements for nothing)
    with transaction.atomic(savepoint=not table_locked):
        if not table_locked:
            lock_table_row(table.pk)  # the view read the table, its round and its event
        if idempotency_key and getattr(by, "pk", None) is not None:
            _lock_key(by.pk, idempotency_key)
        seen = _submission_context(table=table, number=number, by=by,
                                   idempotency_key=idempotency_key,
                                   with_previous=record is not None)
        if digest:
            stored = _stored_submission(seen, table=table, number=number, digest=digest)
            if stored is not None:
                return stored
        _check_round_open(round_number=table.round.number, closed_by=seen["closed_by"],
                          as_referee=as_referee)
        previous = _result_keys(seen.get("previous")) if record is not None else _READ_IT
        kind, payload, res = result_validate(event=table.round.event, table=table,
                                             number=number, sheet=sheet, record=record,
                                             previous=previous)
        # (live.models.LiveGame through its relation: games does not import live, above it)
        if seen["live_running"]:
            raise Conflict("live_game_running", _(
                "game %(n)s of this table is being played live; its result is recorded when "
                "it ends") % {"n": number})
        stored = _stored_submission(seen, table=table, number=number, digest=digest,
                                    payload=payload)
        if stored is not None:
            return stored
        return _result_create(table=table, number=number, kind=kind, payload=payload, res=res,
                              digest=digest, by=by, idempotency_key=idempotency_key,
                              after_close=seen["closed_by"])


def result_record_live(*, table_id: int, number: int, record: dict) -> GameResult:
    """Store the result of a live game that has just ended: confirmed at once and marked
    system-recorded, in the caller's transaction, which holds the running game's row lock.

    The engine checks the record as for any submission (:func:`result_validate`), against the
    previous game the server dealt it after, even if that game's result was corrected since.
    What a submission looks up first is left out: a retried or repeated body cannot reach here,
    for only the act that ends the game, once, under that lock, stores its result, and no other
    result can be stored while the game runs (:func:`result_submit` refuses it under the
    table's lock). The check under the table's lock stays: the same record stored already is
    returned, a different result is refused by name (409 ``already_submitted``)."""
    table = lock_table(table_id)
    digest = submission_digest(number=number, record=record)
    kind, payload, res = result_validate(event=table.round.event, table=table, number=number,
                                         record=record, as_played=True)
    seen = _submission_context(table=table, number=number, by=None, idempotency_key="",
                               with_previous=False)
    stored = _stored_submission(seen, table=table, number=number, digest=digest,
                                payload=payload)
    if stored is not None:
        return stored
    return _result_create(table=table, number=number, kind=kind, payload=payload, res=res,
                          digest=digest, system=True, after_close=seen["closed_by"])


def _result_create(*, table: Table, number: int, kind, payload, res: dict, digest: str,
                   by=None, idempotency_key: str = "", system: bool = False,
                   after_close: int | None = None) -> GameResult:
    """Write version 1 of a game's result (under the table's lock); a system-recorded one is
    confirmed at once, so the standings are recomputed on commit. ``after_close``: its round
    is closed (:func:`_check_round_open`), the mark the version keeps."""
    now = timezone.now()
    result = GameResult(
        table=table, number=number, version=1,
        status=GameResult.Status.CONFIRMED if system else GameResult.Status.SUBMITTED,
        points_a=res["team_points"][0], points_b=res["team_points"][1],
        places=res["places"], void=res["void"], engine_result=res, system_recorded=system,
        confirmed_at=now if system else None)
    version = GameResultVersion(
        version=1, kind=kind, payload=payload, engine_result=res,
        points_a=res["team_points"][0], points_b=res["team_points"][1],
        submitted_by=by, idempotency_key=idempotency_key, submission_digest=digest,
        after_close=after_close)
    insert_with_child(result, version, "result")  # one statement on PostgreSQL
    result.first_version = version
    if system:
        _result_counted(result=result, event_id=table.round.event_id)
    result.created = True
    return result


_RESULT = Columns(GameResult, "R")


@functools.cache
def _confirm_context_sql() -> str:
    versions = GameResultVersion._meta.db_table
    seat, player = Seat._meta.db_table, Player._meta.db_table
    seat_of_user = f"""SELECT S."seat" FROM "{seat}" S JOIN "{player}" P ON P."id" = S."player_id"
                        WHERE S."table_id" = R."table_id" AND P."user_id" = {{}} LIMIT 1"""
    return f"""SELECT {_RESULT.sql}, V."id", V."submitted_by_id",
        ({seat_of_user.format("%s")}), ({seat_of_user.format('V."submitted_by_id"')}),
        RD."event_id", RD."number", {closed_by_sql('RD."id"')}
      FROM "{GameResult._meta.db_table}" R
      JOIN "{Table._meta.db_table}" T ON T."id" = R."table_id"
      JOIN "{Round._meta.db_table}" RD ON RD."id" = T."round_id"
      LEFT JOIN "{versions}" V ON V."result_id" = R."id" AND V."version" = R."version"
     WHERE R."id" = %s"""


def _confirm_context(result_id: int, by) -> tuple[GameResult, dict]:
    """Result ``result_id`` as stored, and what confirming it checks, in one query (under the
    table's lock): the submitter of its current version, the seats of ``by`` and of that
    submitter at its table, its event, its round's number and whether that round is closed
    (``closed_by``: :func:`_check_round_open`)."""
    with connection.cursor() as cursor:
        cursor.execute(_confirm_context_sql(), [getattr(by, "pk", None), result_id])
        row = cursor.fetchone()
    if row is None:
        raise GameResult.DoesNotExist("no such result")
    n = len(_RESULT)
    result = _RESULT.build(row[:n])
    version_id, submitter_id, by_seat, submitter_seat, event_id, round_number, closed_by = \
        row[n:]
    return result, {"version_found": version_id is not None, "submitter_id": submitter_id,
                    "by_seat": by_seat, "submitter_seat": submitter_seat, "event_id": event_id,
                    "round_number": round_number, "closed_by": closed_by}


def result_confirm(*, result: GameResult, by, as_referee: bool = False,
                   version: int | None = None, reason: str = "") -> GameResult:
    """Confirm a submitted result (two-person rule): a referee, or a player of the table who
    did not submit it — of the other 联邦 when the submitter sat at the table.

    ``version`` is the version the confirmer saw: when given and the result has moved on (a
    correction came in between), nothing changes and 409 ``stale_version`` names the current
    one. Without it the current version is confirmed (older clients). A disputed result is
    confirmed by a referee only, which settles its dispute (``reason``, optional, is kept
    with the settlement). A result of a closed round is confirmed by a referee only
    (:func:`_check_round_open`).

    Its statements: the table's row lock, one read of the result with everything checked
    (:func:`_confirm_context`), the result's update and the event's ``results_version``
    (:func:`_result_counted`); settling a dispute adds its update."""
    with transaction.atomic():
        lock_table_row(result.table_id)
        table = result.table if GameResult.table.is_cached(result) else None
        result, seen = _confirm_context(result.pk, by)
        if table is not None:
            result.table = table
        if version is not None and version != result.version:
            raise Conflict("stale_version", _(
                "the result has changed since you saw it (version %(v)s, you confirmed "
                "%(s)s); read it again") % {"v": result.version, "s": version},
                detail={"version": result.version})
        if result.status == GameResult.Status.CONFIRMED:
            return result
        if not as_referee:
            if result.status == GameResult.Status.DISPUTED:
                raise Forbidden("disputed_referee_only", _(
                    "this result is disputed; a referee settles it"))
            _check_sides(by_id=getattr(by, "pk", None), seen=seen, not_at_table=_(
                "only a referee or a player of this table may confirm its result"))
            _check_round_open(round_number=seen["round_number"], closed_by=seen["closed_by"],
                              as_referee=False)
        disputed = result.status == GameResult.Status.DISPUTED
        result.status = GameResult.Status.CONFIRMED
        result.confirmed_by = by
        result.confirmed_at = timezone.now()
        result.save(update_fields=["status", "confirmed_by", "confirmed_at", "updated_at"])
        if disputed:  # (an open dispute is what makes a result disputed)
            _dispute_settle(result=result, by=by, reason=reason,
                            settlement=ResultDispute.Settlement.CONFIRMED,
                            after_close=seen["closed_by"])
        _result_counted(result=result, event_id=seen["event_id"])
    return result


def _results_counted(*, event_id: int, result_ids: list[int]) -> None:
    """The one place that says results of event ``event_id`` changed what they count for —
    confirmed, recorded confirmed, or corrected — (in the transaction that changed them): the
    standings and the ratings follow on commit (:func:`_standings_on_commit`). Whatever else
    must follow a counted result hooks in here. The earliest round of those results goes with
    it, in the same update (the standings stored from that round on are out of date)."""
    earliest = GameResult.objects.filter(pk__in=result_ids).order_by(
        "table__round__number").values("table__round__number")
    _standings_on_commit(event_id, from_round=Subquery(earliest[:1]))
    from games.duplicate import boards_score_on_commit

    boards_score_on_commit(result_ids)  # a duplicate board its group has finished is scored


def _result_counted(*, result: GameResult, event_id: int) -> None:
    _results_counted(event_id=event_id, result_ids=[result.pk])


def round_results_confirm(*, round: Round, by) -> list[int]:
    """A referee confirms every result of ``round`` awaiting confirmation, in one transaction:
    the round's tables are locked (in one order, as every table lock), the results awaiting
    confirmation then are confirmed by ``by`` in one update, and the standings follow once on
    commit. Disputed results are left for the referee to settle one by one (with a reason);
    confirmed ones are left as they are. Returns the ids of the results confirmed."""
    with transaction.atomic():
        lock_round_tables(round.pk)
        waiting = GameResult.objects.filter(table__round=round,
                                            status=GameResult.Status.SUBMITTED).order_by("pk")
        ids = list(waiting.values_list("pk", flat=True))
        if not ids:
            return []
        now = timezone.now()
        GameResult.objects.filter(pk__in=ids).update(
            status=GameResult.Status.CONFIRMED, confirmed_by=by, confirmed_at=now,
            updated_at=now)
        _results_counted(event_id=round.event_id, result_ids=ids)
    return ids


def _check_sides(*, by_id, seen: dict, not_at_table: str) -> None:
    """The two-person rule (:func:`_check_other_side`) from :func:`_confirm_context`'s read."""
    if not seen["version_found"]:
        raise Conflict("stale_version", _("the result has changed since it was read; read it "
                                          "again"))
    if seen["by_seat"] is None:
        raise Forbidden("not_at_table", not_at_table)
    if seen["submitter_id"] is not None and seen["submitter_id"] == by_id:
        raise Forbidden("own_submission", _(
            "the other 联邦 or a referee confirms or disputes a result, not its submitter"))
    if seen["submitter_seat"] is not None and seen["submitter_seat"] % 2 == seen["by_seat"] % 2:
        raise Forbidden("same_side", _(
            "a player of the other 联邦 or a referee must confirm or dispute this result"))


def _check_other_side(result: GameResult, by, not_at_table: str) -> None:
    """``by`` sits at the result's table, did not submit its current version and is not of
    the submitter's 联邦 (when the submitter sat at the table): the two-person rule of
    confirming and disputing."""
    current = result.versions.get(version=result.version)
    seat = seat_of(by, result.table)
    if seat is None:
        raise Forbidden("not_at_table", not_at_table)
    if current.submitted_by_id is not None and current.submitted_by_id == by.pk:
        raise Forbidden("own_submission", _(
            "the other 联邦 or a referee confirms or disputes a result, not its submitter"))
    submitter_seat = seat_of(current.submitted_by, result.table)
    if submitter_seat is not None and submitter_seat.side == seat.side:
        raise Forbidden("same_side", _(
            "a player of the other 联邦 or a referee must confirm or dispute this result"))


def result_dispute(*, result: GameResult, by, reason: str) -> GameResult:
    """Dispute (异议) a submitted result, with the reason: a player of the table who did not
    submit it — of the other 联邦 when the submitter sat at the table. The result becomes
    ``disputed``: it counts for nothing until a referee settles it by confirming it
    (:func:`result_confirm`) or correcting it (:func:`result_correct`). The same dispute sent
    again by its player is answered with the result as it is; a result already confirmed or
    disputed otherwise is refused (409 ``not_submitted``), as is any dispute once the round is
    closed (409 ``round_closed``: :func:`_check_round_open`)."""
    reason = (reason or "").strip()
    if not reason:
        raise ServiceError("reason_required", _("a dispute needs a reason"))
    with transaction.atomic():
        lock_table(result.table_id)
        result = GameResult.objects.select_related("table__round__event").get(pk=result.pk)
        if result.status == GameResult.Status.DISPUTED:
            open_one = result.disputes.filter(settled_at__isnull=True).first()
            if open_one is not None and open_one.raised_by_id == getattr(by, "pk", None) \
                    and open_one.reason == reason:
                return result  # the same dispute sent again
        _check_round_open(round_number=result.table.round.number,
                          closed_by=round_closed_by(result.table.round), as_referee=False)
        if result.status != GameResult.Status.SUBMITTED:
            raise Conflict("not_submitted", _(
                "only a result awaiting confirmation can be disputed; this one is %(status)s")
                % {"status": result.get_status_display()}, detail={"status": result.status})
        _check_other_side(result, by, _(
            "only a player of this table may dispute its result"))
        ResultDispute.objects.create(result=result, version=result.version, reason=reason,
                                     raised_by=by)
        result.status = GameResult.Status.DISPUTED
        result.save(update_fields=["status", "updated_at"])
    return result


def _dispute_settle(*, result: GameResult, by, reason: str, settlement: str,
                    after_close: int | None) -> None:
    """Close the result's open dispute, if any, as settled by a referee ``by`` (under the
    table's lock), at the result's current version; ``after_close``: its round is closed
    (:func:`_check_round_open`)."""
    result.disputes.filter(settled_at__isnull=True).update(
        settlement=settlement, settled_by=by, settled_at=timezone.now(),
        settlement_reason=(reason or "").strip(), settled_version=result.version,
        settled_after_close=after_close)


def results_confirm(*, results, by, as_referee: bool = True) -> int:
    """Confirm many results (admin action for referees); returns how many changed."""
    n = 0
    for r in results:
        if r.status != GameResult.Status.CONFIRMED:
            result_confirm(result=r, by=by, as_referee=as_referee)
            n += 1
    return n


def result_correct(*, result: GameResult, reason: str, sheet=None, record=None, by=None,
                   as_referee: bool = False) -> GameResult:
    """Correct a result, keeping every earlier version with who, when and why.

    A referee's (or organizer's) correction applies at once and stands confirmed; it closes an
    open proposal as superseded and settles an open dispute. A disputed result is corrected by
    a referee only. A player's correction of a result still awaiting confirmation
    adds a version that the other side confirms. A player's correction of a *confirmed* result
    changes nothing yet: it is stored as a :class:`ResultProposal` (``result.proposal``), for
    the other 联邦 or a referee to accept (:func:`result_proposal_accept`) — the result stays
    confirmed and counted as it is meanwhile. A live game's result, recorded by the server, is
    corrected by a referee only. One proposal is open at a time: another is refused (409
    ``proposal_open``) until it is accepted, declined or withdrawn; the same proposal sent
    again by its proposer is answered with the result as it is. Once the round is closed,
    only a referee corrects it, and the new version is marked (:func:`_check_round_open`)."""
    reason = (reason or "").strip()
    if not reason:
        raise ServiceError("reason_required", _("a correction needs a reason"))
    table = result.table
    event = table.round.event
    if not as_referee:
        if seat_of(by, table) is None:
            raise Forbidden("not_at_table", _("only a referee or a player of this table may "
                                              "correct its result"))
        if result.system_recorded:
            raise Forbidden("live_result_referee_only", _(
                "this result was recorded by the server as the game was played live; only a "
                "referee may correct it"))
    closed_by = round_closed_by(table.round)
    _check_round_open(round_number=table.round.number, closed_by=closed_by,
                      as_referee=as_referee)
    kind, payload, res = result_validate(event=event, table=table, number=result.number,
                                         sheet=sheet, record=record)
    digest = submission_digest(number=result.number, sheet=sheet, record=record)
    with transaction.atomic():
        lock_table(table.pk)
        result = GameResult.objects.get(pk=result.pk)
        kind, payload, res = _checked_against_stored_previous(
            (kind, payload, res), event=event, table=table, number=result.number, record=record)
        if not as_referee and result.status == GameResult.Status.DISPUTED:
            raise Forbidden("disputed_referee_only", _(
                "this result is disputed; a referee settles it"))
        if not as_referee and result.status == GameResult.Status.CONFIRMED:
            result.proposal = _proposal_create(result=result, kind=kind, res=res, digest=digest,
                                               sheet=sheet, record=record, by=by, reason=reason)
            return result
        _version_add(result=result, kind=kind, payload=payload, res=res, by=by, reason=reason,
                     digest=digest, confirmed_by=by if as_referee else None,
                     after_close=closed_by)
        if as_referee:
            _dispute_settle(result=result, by=by, reason=reason,
                            settlement=ResultDispute.Settlement.CORRECTED, after_close=closed_by)
            result.proposals.filter(status=ResultProposal.Status.OPEN).update(
                status=ResultProposal.Status.SUPERSEDED, decided_by=by,
                decided_at=result.confirmed_at, decision_reason=reason)
    return result


def _version_add(*, result: GameResult, kind, payload, res: dict, by, reason: str, digest: str,
                 confirmed_by, after_close: int | None) -> None:
    """Make a new version current (under the table's lock): confirmed by ``confirmed_by``, or
    awaiting confirmation again when that is ``None``; the standings follow on commit.
    ``after_close``: its round is closed (:func:`_check_round_open`), kept with the version."""
    version = result.version + 1
    GameResultVersion.objects.create(
        result=result, version=version, kind=kind, payload=payload, engine_result=res,
        points_a=res["team_points"][0], points_b=res["team_points"][1], submitted_by=by,
        reason=reason, submission_digest=digest, after_close=after_close)
    result.version = version
    result.points_a, result.points_b = res["team_points"]
    result.places = res["places"]
    result.void = res["void"]
    result.engine_result = res
    if confirmed_by is not None:
        result.status = GameResult.Status.CONFIRMED
        result.confirmed_by = confirmed_by
        result.confirmed_at = timezone.now()
    else:
        result.status = GameResult.Status.SUBMITTED
        result.confirmed_by = None
        result.confirmed_at = None
    result.save()
    _result_counted(result=result, event_id=result.table.round.event_id)


def _proposal_create(*, result: GameResult, kind, res: dict, digest: str, sheet, record, by,
                     reason: str) -> ResultProposal | None:
    """Store a player's correction of a confirmed result as an open proposal (under the
    table's lock); the result itself does not change. ``None`` when what was sent is the
    result's current version already (a retry after its proposal was accepted)."""
    if digest and result.versions.filter(version=result.version,
                                         submission_digest=digest).exists():
        return None
    open_one = result.proposals.filter(status=ResultProposal.Status.OPEN).first()
    if open_one is not None:
        if (open_one.proposed_by_id == getattr(by, "pk", None) and digest
                and open_one.submission_digest == digest and open_one.reason == reason):
            return open_one  # the same proposal sent again
        raise Conflict("proposal_open", _(
            "a correction of this result is already proposed; it must be accepted, declined "
            "or withdrawn before another is proposed"), detail={"proposal": open_one.pk})
    return ResultProposal.objects.create(
        result=result, base_version=result.version, kind=kind,
        submission=sheet if sheet is not None else record, submission_digest=digest,
        engine_result=res, points_a=res["team_points"][0], points_b=res["team_points"][1],
        reason=reason, proposed_by=by)


def result_proposal_accept(*, proposal: ResultProposal, by, as_referee: bool = False,
                           reason: str = "") -> GameResult:
    """Accept a proposed correction: the other 联邦 at the table or a referee. The engine
    checks it again, under the table's lock, against the table's previous game as it is now
    (it may have been corrected since); then it becomes the result's new version, confirmed
    by ``by``. Accepting an accepted proposal again changes nothing. Once the round is closed,
    only a referee accepts it, and the version is marked (:func:`_check_round_open`)."""
    return _proposal_close(proposal=proposal, by=by, as_referee=as_referee, reason=reason,
                           outcome=ResultProposal.Status.ACCEPTED)


def result_proposal_decline(*, proposal: ResultProposal, by, reason: str,
                            as_referee: bool = False) -> GameResult:
    """Decline a proposed correction, with a reason: the other 联邦 at the table or a referee.
    The result stays as it is."""
    reason = (reason or "").strip()
    if not reason:
        raise ServiceError("reason_required", _("declining a proposed correction needs a "
                                                "reason"))
    return _proposal_close(proposal=proposal, by=by, as_referee=as_referee, reason=reason,
                           outcome=ResultProposal.Status.DECLINED)


def result_proposal_withdraw(*, proposal: ResultProposal, by, reason: str = "") -> GameResult:
    """Withdraw a proposed correction: its proposer only. The result stays as it is."""
    return _proposal_close(proposal=proposal, by=by, as_referee=False, reason=reason,
                           outcome=ResultProposal.Status.WITHDRAWN)


def _proposal_close(*, proposal: ResultProposal, by, as_referee: bool, reason: str,
                    outcome: str) -> GameResult:
    """Close an open proposal with ``outcome`` under the table's lock and record who, when and
    why. The same outcome again (a retry) returns the result unchanged; a proposal closed
    otherwise is refused (409 ``proposal_closed``)."""
    reason = (reason or "").strip()
    with transaction.atomic():
        table = lock_table(proposal.result.table_id)
        proposal = ResultProposal.objects.select_related("result").get(pk=proposal.pk)
        result = proposal.result
        result.table = table
        _proposal_check_who(proposal=proposal, table=table, by=by, as_referee=as_referee,
                            outcome=outcome)
        if proposal.status == outcome:
            return result
        if proposal.status != ResultProposal.Status.OPEN:
            raise Conflict("proposal_closed", _("this proposed correction is %(status)s") % {
                "status": proposal.get_status_display()}, detail={"status": proposal.status})
        if outcome == ResultProposal.Status.ACCEPTED:
            closed_by = round_closed_by(table.round)
            _check_round_open(round_number=table.round.number, closed_by=closed_by,
                              as_referee=as_referee)
            submission = proposal.submission
            is_sheet = proposal.kind == GameResultVersion.Kind.SHEET
            kind, payload, res = result_validate(
                event=table.round.event, table=table, number=result.number,
                sheet=submission if is_sheet else None,
                record=None if is_sheet else submission)
            _version_add(result=result, kind=kind, payload=payload, res=res,
                         by=proposal.proposed_by, reason=proposal.reason,
                         digest=proposal.submission_digest, confirmed_by=by,
                         after_close=closed_by)
            proposal.version = result.version
        proposal.status = outcome
        proposal.decided_by = by
        proposal.decided_at = timezone.now()
        proposal.decision_reason = reason
        proposal.save(update_fields=["status", "decided_by", "decided_at", "decision_reason",
                                     "version"])
    return result


def _proposal_check_who(*, proposal: ResultProposal, table: Table, by, as_referee: bool,
                        outcome: str) -> None:
    """Its proposer withdraws a proposal; the other 联邦 at the table, or a referee, accepts
    or declines it — never the proposer's own 联邦."""
    if outcome == ResultProposal.Status.WITHDRAWN:
        if getattr(by, "pk", None) is None or by.pk != proposal.proposed_by_id:
            raise Forbidden("not_proposer", _("only its proposer may withdraw a proposed "
                                              "correction"))
        return
    if as_referee:
        return
    seat = seat_of(by, table)
    if seat is None:
        raise Forbidden("not_at_table", _("only a referee or a player of this table may accept "
                                          "or decline a proposed correction"))
    proposer_seat = seat_of(proposal.proposed_by, table)
    if by.pk == proposal.proposed_by_id or (
            proposer_seat is not None and proposer_seat.side == seat.side):
        raise Forbidden("same_side", _(
            "a player of the other 联邦 or a referee must accept or decline this proposed "
            "correction"))


# ----------------------------------------------------------------------------- penalties
def result_force_last(*, entry, player, table, game_number, reason: str, by) -> None:
    """Place ``entry``'s player (``player``, or whoever of the entry sat there) 大落 in game
    ``game_number`` of ``table``: the result a referee's 罚为大落 penalty implies, written as a
    referee's correction with the penalty as its reason (``tournaments.services.penalty_add``
    asks for it through :data:`tournaments.signals.forced_last`)."""
    if table is None or game_number is None:
        raise ServiceError("bad_penalty", _("a forced 大落 names the table and the game"))
    seat = Seat.objects.filter(table=table, entry=entry, **(
        {"player": player} if player is not None else {})).first()
    if seat is None:
        raise ServiceError("bad_penalty", _("%(e)s did not sit at table %(t)s") % {
            "e": entry, "t": table.number})
    result = GameResult.objects.filter(table=table, number=game_number).first()
    if result is None:
        raise ServiceError("bad_penalty", _("game %(n)s of table %(t)s has no result yet") % {
            "n": game_number, "t": table.number})
    res = result.engine_result
    if res.get("void"):
        raise ServiceError("bad_penalty", _("the game was void (流局)"))
    if seat.seat in res.get("revolutions", []):
        raise ServiceError("bad_penalty", _("a revolutionary's place is fixed by the rules"))
    order = [s for s in res["order"] if s != seat.seat] + [seat.seat]
    kaidian = res.get("kaidian")
    sheet = {"format": "gouji-sheet/1", "order": order, "revolutions": res["revolutions"],
             "kaidian": kaidian if kaidian and kaidian[0] is not None else None,
             # the penalty decides the bottom place; earlier eliminations keep their order
             "eliminated": [], "burns": res.get("burns", [])}
    result_correct(result=result, sheet=sheet, by=by, as_referee=True,
                   reason=_("penalty: forced 大落 — %(r)s") % {"r": reason})


def forced_last_received(sender, *, entry, player, table, game_number, reason, by, **kwargs):
    """The receiver of :data:`tournaments.signals.forced_last` (games/apps.py connects it)."""
    result_force_last(entry=entry, player=player, table=table, game_number=game_number,
                      reason=reason, by=by)

