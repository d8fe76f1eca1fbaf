"""Serializers: shapes of requests and responses (no rule lives here)."""

from __future__ import annotations

import threading

from django.utils.functional import cached_property
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.models import GameResult, GameResultVersion, ResultDispute, ResultProposal
from games.selectors import (
    RecordAccess,
    result_history,
    result_open_dispute,
    result_open_proposal,
)
from live.deals import result_deal
from live.queries import live_game_number
from tournaments.models import (
    TIE_BREAK_CHOICES,
    Entry,
    Event,
    Penalty,
    Player,
    Round,
    Seat,
    Standing,
    Table,
    TeamMember,
)


class PlayerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Player
        fields = ["id", "name", "club", "number"]


class PlayerBriefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Player
        fields = ["id", "name", "number"]


@extend_schema_field({"oneOf": [{"type": "string"}, {"type": "object"}]})
class RulesField(serializers.JSONField):
    """An event's rules: a preset's name or an object (never null, which the schema's untyped
    JSON allowed)."""


class EventSerializer(serializers.ModelSerializer):
    rules = RulesField(required=False, help_text="A preset name (dagang, basic, "
                       "online) or {\"preset\": …, \"options\": {…}}")
    tie_breaks = serializers.ListField(
        child=serializers.ChoiceField(choices=list(TIE_BREAK_CHOICES)), required=False)

    class Meta:
        model = Event
        fields = ["slug", "name", "format", "rules", "rounds_planned", "games_per_match",
                  "bye_points", "swiss_brackets", "tie_breaks", "knockout_teams",
                  "move_seconds", "rated", "show_ratings", "rating_balance", "knockout_seeding",
                  "duplicate", "duplicate_group",
                  "status", "published", "standings_version", "created_at"]
        read_only_fields = ["status", "published", "standings_version", "created_at"]
        extra_kwargs = {"slug": {"validators": []}}


class EventUpdateSerializer(EventSerializer):
    class Meta(EventSerializer.Meta):
        read_only_fields = ["slug", "status", "published", "standings_version", "created_at"]


ID = {"min_value": 1, "max_value": 2**62}  # database ids; bigger numbers are not ids


class PublishSerializer(serializers.Serializer):
    published = serializers.BooleanField(default=True)


class StaffSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=["organizer", "referee"])


class TeamBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    players = PlayerBriefSerializer(many=True)


def _team_data(team) -> dict:
    """A 联邦 team: its players in position order; ``complete`` once all three accepted."""
    members = sorted(team.members.all(), key=lambda m: m.position)
    return {"id": team.pk, "name": team.name,
            "players": PlayerBriefSerializer([m.player for m in members], many=True).data,
            "complete": all(m.status == TeamMember.Status.ACCEPTED for m in members)}


class EntryTeamSerializer(TeamBriefSerializer):
    """A team entry's 联邦: its three players in position order, ``complete`` once all three
    accepted their invitations (``_team_data``)."""

    complete = serializers.BooleanField()


class EntrySerializer(serializers.ModelSerializer):
    """An entry: a player's in an individual event (``team`` null), a 联邦 team's in a team
    event (``player`` null)."""

    player = PlayerBriefSerializer(read_only=True, allow_null=True, help_text=(
        "the player of an individual event's entry; null in a team event (see team)"))
    team = serializers.SerializerMethodField(help_text=(
        "the 联邦 team of a team event's entry; null in an individual event (see player)"))

    class Meta:
        model = Entry
        fields = ["id", "player", "team", "status", "late", "first_round", "left_after_round",
                  "registered_at", "checked_in_at"]

    @extend_schema_field(EntryTeamSerializer(allow_null=True))
    def get_team(self, obj) -> dict | None:
        if obj.team_id is None:
            return None
        return _team_data(obj.team)


class InvitationSerializer(serializers.ModelSerializer):
    """A pending invitation to a 联邦 team (its id is what you accept or decline)."""

    event = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    team = serializers.SerializerMethodField()

    class Meta:
        model = TeamMember
        fields = ["id", "event", "team"]

    def get_team(self, obj) -> dict:
        return _team_data(obj.team)


class EntryCreateSerializer(serializers.Serializer):
    player_id = serializers.IntegerField(required=False, **ID, help_text=(
        "Organizers register any player; a player without this registers themselves"))


class TeamCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    player_ids = serializers.ListField(child=serializers.IntegerField(**ID), min_length=3,
                                       max_length=3)


class CsvImportSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="CSV with a header: name,club,number[,checked_in]")


class RoundSerializer(serializers.ModelSerializer):
    seed = serializers.SerializerMethodField()
    tables = serializers.SerializerMethodField()
    byes = serializers.SerializerMethodField()
    draw_changes = serializers.SerializerMethodField()
    draw_history = serializers.SerializerMethodField()

    class Meta:
        model = Round
        fields = ["number", "stage", "status", "brackets", "commitment", "seed", "draw_entries",
                  "draw_input", "committed_at", "drawn_at", "published_at", "tables", "byes",
                  "draw_changes", "draw_history"]

    def _staff(self, obj) -> bool:
        from tournaments.selectors import is_referee

        request = self.context.get("request")
        return request is not None and is_referee(request.user, obj.event)

    def get_seed(self, obj) -> str | None:
        """Public once the seating is published; the event's staff see it once drawn."""
        if obj.seed_public or (obj.seed_revealed and self._staff(obj)):
            return obj.seed
        return None

    def get_tables(self, obj) -> int:
        return obj.tables.count()

    def get_byes(self, obj) -> list[int]:
        if not (obj.seed_public or self._staff(obj)):
            return []
        return list(obj.byes.values_list("entry_id", flat=True))

    @extend_schema_field(serializers.ListField(child=serializers.DictField()))
    def get_draw_changes(self, obj):
        """The organizers' seat swaps after the draw, in order (each: ``seats``, two places
        ``{table, seat 0–5, entry, player, name}`` with who sat there before; ``at``, ``by``,
        ``reason``): a re-run of the draw applies them. Public with the seed."""
        if not (obj.seed_public or self._staff(obj)):
            return []
        return obj.draw_changes

    @extend_schema_field(serializers.ListField(child=serializers.DictField()))
    def get_draw_history(self, obj):
        """The earlier draws of the round a re-draw replaced, oldest first: their commitments
        at once (each was public before its draw); with the seed, each one's seed, entries,
        input, seating, byes, swaps and ``redraw`` (``at``, ``by``, ``reason``)."""
        if obj.seed_public or self._staff(obj):
            return obj.draw_history
        return [{"commitment": d["commitment"], "committed_at": d["committed_at"]}
                for d in obj.draw_history]


class RoundCreateSerializer(serializers.Serializer):
    knockout = serializers.BooleanField(default=False, help_text=(
        "open a knockout round of the finals (team events) instead of a Swiss round"))


class BracketMatchSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    table = serializers.IntegerField()
    team_a = serializers.CharField()
    team_b = serializers.CharField()
    points_a = serializers.IntegerField()
    points_b = serializers.IntegerField()
    games = serializers.IntegerField()
    extra_games = serializers.IntegerField()
    winner = serializers.CharField(allow_null=True)


class DrawStartedSerializer(serializers.Serializer):
    round = RoundSerializer()
    task = serializers.CharField(help_text="URL to poll until the round's status is drawn")


class SeatSerializer(serializers.ModelSerializer):
    player = PlayerBriefSerializer(read_only=True)
    side = serializers.IntegerField(read_only=True, help_text="联邦: 0 (seats 0, 2, 4) or 1")

    class Meta:
        model = Seat
        fields = ["seat", "side", "player", "entry_id"]


class ResultBriefSerializer(serializers.ModelSerializer):
    class Meta:
        model = GameResult
        fields = ["id", "number", "status", "version", "points_a", "points_b", "places", "void",
                  "system_recorded", "confirmed_at"]


class TableSerializer(serializers.ModelSerializer):
    seats = SeatSerializer(many=True, read_only=True)
    results = ResultBriefSerializer(many=True, read_only=True)
    round = serializers.IntegerField(source="round.number", read_only=True)
    team_a = serializers.CharField(source="team_a.name", default=None, read_only=True)
    team_b = serializers.CharField(source="team_b.name", default=None, read_only=True)
    live_game = serializers.SerializerMethodField(
        help_text="the number of the game being played live at this table now, else null")

    class Meta:
        model = Table
        fields = ["id", "round", "number", "team_a", "team_b", "seats", "results", "live_game"]

    def get_live_game(self, table) -> int | None:
        # (the views read the tables with live.queries.with_running_live_game)
        return live_game_number(table)


RECORD_HIDDEN = ("null for a full record until the result is confirmed, unless you referee "
                 "the event or sit at its table (a record shows all six dealt hands)")


class VersionSerializer(serializers.ModelSerializer):
    submitted_by = serializers.CharField(source="submitted_by.username", default=None)
    payload = serializers.JSONField(allow_null=True, read_only=True, help_text=(
        "the result sheet or full record as submitted; " + RECORD_HIDDEN))

    class Meta:
        model = GameResultVersion
        fields = ["version", "kind", "points_a", "points_b", "submitted_by", "submitted_at",
                  "reason", "engine_result", "payload"]


class ProposalSerializer(serializers.ModelSerializer):
    """A proposed correction (更正提议) awaiting the other 联邦 or a referee."""

    proposed_by = serializers.CharField(source="proposed_by.username", default=None,
                                        allow_null=True)
    places = serializers.ListField(child=serializers.IntegerField(),
                                   source="engine_result.places")
    submission = serializers.JSONField(allow_null=True, read_only=True, help_text=(
        "the proposed sheet or record; null for a record unless you referee the event or sit "
        "at its table"))

    class Meta:
        model = ResultProposal
        fields = ["id", "status", "base_version", "kind", "points_a", "points_b", "places",
                  "reason", "proposed_by", "proposed_at", "engine_result", "submission"]


class HistoryStepSerializer(serializers.Serializer):
    step = serializers.ChoiceField(choices=[
        "submitted", "recorded", "corrected", "proposed", "accepted", "declined", "withdrawn",
        "superseded", "disputed", "settled"])
    by = serializers.CharField(allow_null=True, help_text="username; null for the server")
    at = serializers.DateTimeField()
    reason = serializers.CharField(allow_blank=True)
    version = serializers.IntegerField(allow_null=True, help_text=(
        "the version this step made (submitted, corrected, accepted)"))
    proposal = serializers.IntegerField(allow_null=True, help_text="the proposal's id")
    settlement = serializers.ChoiceField(
        choices=["", *ResultDispute.Settlement.values], allow_blank=True,
        help_text="how a referee settled a dispute (``settled`` steps): confirmed as it was, "
                  "or corrected")
    after_close = serializers.IntegerField(allow_null=True, help_text=(
        "a change made after the result's round was closed: the number of the latest later "
        "round then drawn, whose draw used the results as they were (only a referee changes "
        "a closed round's results); null while the round was open"))


class DisputeSerializer(serializers.ModelSerializer):
    """A dispute (异议) of a submitted result, awaiting a referee."""

    raised_by = serializers.CharField(source="raised_by.username", default=None,
                                      allow_null=True)

    class Meta:
        model = ResultDispute
        fields = ["id", "version", "reason", "raised_by", "raised_at"]


class DealSerializer(serializers.Serializer):
    """A live game's verifiable deal (:mod:`live.deals`)."""

    label = serializers.CharField(help_text="the game's identity, part of the derivation")
    commitment = serializers.CharField(help_text="SHA-256 of the label and the seed, published "
                                                 "before the deal")
    seed = serializers.CharField(allow_null=True, help_text=(
        "the secret seed, shown once the game is over and its record may be seen"))
    command = serializers.CharField(help_text="the command that re-derives and checks the deal")


class ResultSerializer(serializers.ModelSerializer):
    table = serializers.IntegerField(source="table_id")
    confirmed_by = serializers.CharField(source="confirmed_by.username", default=None)
    versions = VersionSerializer(many=True, read_only=True)
    proposal = serializers.SerializerMethodField(help_text=(
        "a player's proposed correction of this confirmed result, open until the other 联邦 "
        "or a referee accepts or declines it or its proposer withdraws it; the result counts "
        "as it is meanwhile"))
    dispute = serializers.SerializerMethodField(help_text=(
        "the other 联邦's open dispute of this result, awaiting a referee; the result counts "
        "for nothing meanwhile"))
    history = serializers.SerializerMethodField(help_text="every step: who, when, why")
    verifiable_deal = serializers.SerializerMethodField(help_text=(
        "a game played live here: its verifiable deal (发牌可验证, docs/DEALS.md) — the label "
        "and the commitment published before it was dealt, and the seed once its record may "
        "be seen (null before), with the command that checks them; null for a game not dealt "
        "here"))

    class Meta:
        model = GameResult
        fields = ["id", "table", "number", "status", "version", "points_a", "points_b", "places",
                  "void", "system_recorded", "confirmed_by", "confirmed_at", "engine_result",
                  "versions", "proposal", "dispute", "history", "verifiable_deal"]

    def to_representation(self, result):
        """The result, its records left out where the viewer may not see them
        (:class:`games.selectors.RecordAccess`, ``context["record_access"]``; none given:
        shown to nobody but where the result counts)."""
        data = super().to_representation(result)
        access = self.context.get("record_access") or RecordAccess()
        if not access.allows(result):
            for version in data["versions"]:
                if version["kind"] == GameResultVersion.Kind.RECORD:
                    version["payload"] = None
        return data

    @extend_schema_field(ProposalSerializer(allow_null=True))
    def get_proposal(self, obj) -> dict | None:
        proposal = result_open_proposal(obj)
        if proposal is None:
            return None
        data = ProposalSerializer(proposal).data
        access = self.context.get("record_access") or RecordAccess()
        if proposal.kind == GameResultVersion.Kind.RECORD and not access.allows_proposal():
            data["submission"] = None
        return data

    @extend_schema_field(DisputeSerializer(allow_null=True))
    def get_dispute(self, obj) -> dict | None:
        dispute = result_open_dispute(obj)
        return None if dispute is None else DisputeSerializer(dispute).data

    @extend_schema_field(HistoryStepSerializer(many=True))
    def get_history(self, obj) -> list[dict]:
        return HistoryStepSerializer(result_history(obj), many=True).data

    @extend_schema_field(DealSerializer(allow_null=True))
    def get_verifiable_deal(self, obj) -> dict | None:
        access = self.context.get("record_access") or RecordAccess()
        return result_deal(obj, access.allows_seed(obj))


class FieldsOncePerThread:
    """A serializer whose fields are built once per thread, not per instance: DRF deep-copies
    every declared field for each serializer it makes: a tenth of a live act's CPU. The fields are bound to
    the thread's first instance; fields that validate or show plain values (these) read
    nothing from it but its ``partial`` (never set here)."""

    _per_thread = threading.local()

    @cached_property
    def fields(self):
        built = self._per_thread.__dict__
        if type(self) not in built:
            built[type(self)] = super().fields
        return built[type(self)]


class ParsedJSONField(serializers.JSONField):
    """A JSON value of a body the parser has read already: DRF's ``JSONField`` checks a value
    by encoding it again (a whole 10 KB record, for nothing: what a JSON parser gives always
    encodes); this one takes what a parser can give (objects, arrays, strings, numbers,
    booleans, null) as it is."""

    _PARSED = (dict, list, str, int, float, bool, type(None))

    def to_internal_value(self, data):
        if isinstance(data, self._PARSED):
            return data
        return super().to_internal_value(data)


@extend_schema_field({"type": "object"})
class JSONObjectField(ParsedJSONField):
    """A sheet or a record: a JSON object (the engine checks what is in it). The schema says
    object: untyped JSON let a client read ``null`` or a number as valid."""


# A body that takes exactly one of the fields ``exactly_one_of`` names (a result sheet or a full
# record). The schema says so with a ``oneOf`` (api/schema.py, ExactlyOneOfExtension). (A
# comment, not a docstring: the schema would show a docstring as each body's description.)
class ExactlyOneOf:
    exactly_one_of: tuple[str, ...] = ("sheet", "record")
    exactly_one_message = "send either a result sheet or a full record"

    def validate(self, data):
        if sum(name in data for name in self.exactly_one_of) != 1:
            raise serializers.ValidationError(self.exactly_one_message)
        return data


class ResultSubmitSerializer(FieldsOncePerThread, ExactlyOneOf, serializers.Serializer):
    number = serializers.IntegerField(min_value=1, max_value=99, help_text="game number (局)")
    sheet = JSONObjectField(required=False, help_text="a gouji-sheet/1 result sheet")
    record = JSONObjectField(required=False, help_text="a gouji-record/1 full record")


class ResultStateSerializer(FieldsOncePerThread, serializers.Serializer):
    """A result as it is now, without its versions and history (read them at ``url``): the
    short answer to a confirmation (docs/BENCHMARKS.md, "Result submission")."""

    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table_id")
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=GameResult.Status.choices)
    version = serializers.IntegerField(help_text="the result's current version")
    points_a = serializers.IntegerField()
    points_b = serializers.IntegerField()
    places = serializers.ListField(child=serializers.IntegerField())
    void = serializers.BooleanField()
    system_recorded = serializers.BooleanField()
    confirmed_by = serializers.CharField(source="confirmed_by.username", default=None,
                                         allow_null=True)
    confirmed_at = serializers.DateTimeField(allow_null=True)
    url = serializers.CharField(help_text="the result with every version and its history")


class ResultSubmittedSerializer(ResultStateSerializer):
    """The answer to a submission: the result as stored, with what was submitted and by whom,
    without its history (read it at ``url``). Short, so that a round's submissions are cheap
    to answer (docs/BENCHMARKS.md, "Result submission")."""

    engine_result = serializers.JSONField()
    kind = serializers.ChoiceField(choices=GameResultVersion.Kind.choices, source="first_kind",
                                   help_text="what was submitted: a result sheet or a record")
    submitted_by = serializers.CharField(allow_null=True, source="first_submitted_by",
                                         help_text="who submitted it (username)")


class RoundConfirmedSerializer(serializers.Serializer):
    confirmed = serializers.IntegerField(help_text="how many results were confirmed now")
    results = serializers.ListField(child=serializers.IntegerField(),
                                    help_text="their ids")
    disputed = serializers.IntegerField(help_text="disputed results of the round, left for a "
                                                  "referee to settle one by one")


class ResultConfirmSerializer(serializers.Serializer):
    version = serializers.IntegerField(
        min_value=1, required=False,
        help_text="the result version you are confirming (as you read it); if the result has "
                  "been corrected since, nothing is confirmed and 409 stale_version names the "
                  "current version. Optional: without it the current version is confirmed")
    reason = serializers.CharField(
        max_length=2000, required=False, allow_blank=True,
        help_text="a referee confirming a disputed result: why it stands (kept with the "
                  "dispute's settlement in the result's history)")


class ResultCorrectSerializer(ExactlyOneOf, serializers.Serializer):
    reason = serializers.CharField(max_length=2000)
    sheet = JSONObjectField(required=False)
    record = JSONObjectField(required=False)


class ResultDisputeSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000, help_text=(
        "why the result is disputed (kept in the result's history, read by the referees)"))


class ProposalDecisionSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000, required=False, allow_blank=True,
                                   help_text="why (kept in the result's history)")


class ProposalDeclineSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000, help_text=(
        "why it is declined (kept in the result's history)"))


class PenaltySerializer(serializers.ModelSerializer):
    entry_id = serializers.IntegerField(**ID)
    player_id = serializers.IntegerField(required=False, allow_null=True, **ID)
    table_id = serializers.IntegerField(required=False, allow_null=True, **ID)
    created_by = serializers.CharField(source="created_by.username", default=None,
                                       read_only=True)

    class Meta:
        model = Penalty
        fields = ["id", "entry_id", "player_id", "table_id", "game_number", "kind", "points",
                  "reason", "created_by", "created_at"]
        read_only_fields = ["id", "created_by", "created_at"]


class StandingSerializer(serializers.ModelSerializer):
    entry = serializers.SerializerMethodField()
    movement = serializers.SerializerMethodField()

    class Meta:
        model = Standing
        fields = ["rank", "entry", "points", "match_points", "game_wins", "head_count",
                  "opponents_points", "head_to_head", "games_played", "byes", "penalty_points",
                  "previous_rank", "movement", "through_round"]

    def get_entry(self, obj) -> dict:
        e = obj.entry
        return {"id": e.pk, "name": str(e), "player_id": e.player_id, "team_id": e.team_id,
                "number": e.player.number if e.player_id else None}

    def get_movement(self, obj) -> int | None:
        """Places gained since the previous round (positive = up)."""
        return None if obj.previous_rank is None else obj.previous_rank - obj.rank


class EngineValidateSerializer(ExactlyOneOf, serializers.Serializer):
    record = JSONObjectField(required=False, help_text="gouji-record/1 or gouji-match/1")
    sheet = JSONObjectField(required=False, help_text="gouji-sheet/1")
    exactly_one_message = "send either a record or a sheet"
