"""Tables and their results: submitted, confirmed, disputed, corrected, and proposed
corrections accepted, declined or withdrawn."""

from __future__ import annotations

from django.db import transaction
from django.db.models import prefetch_related_objects
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from api import serializers as s
from api.permissions import ReadOnlyOrAuthenticated
from api.views.common import ERRORS, require, table_or_404
from games import services as game_services
from games.duplicate import result_hidden, revealed
from games.models import GameResult, ResultProposal
from games.selectors import (
    RESULT_HISTORY_PREFETCH,
    record_access,
    result_first_submission,
    result_table_with_viewer,
    round_tables_with_results,
)
from live.queries import with_running_live_game
from tournaments.errors import ServiceError
from tournaments.locks import lock_table_with_viewer
from tournaments.selectors import is_referee, public_seat_of


class TableDetailApi(generics.RetrieveAPIView):
    serializer_class = s.TableSerializer
    permission_classes = [AllowAny]

    def get_object(self):
        table = table_or_404(self.request, self.kwargs["pk"])
        return with_running_live_game(round_tables_with_results(table.round)).get(pk=table.pk)


class TableResultsApi(generics.ListAPIView):
    """A table's game results; players of the table (or referees) submit them here."""

    serializer_class = s.ResultSerializer
    permission_classes = [ReadOnlyOrAuthenticated]
    throttle_scope = "results"
    pagination_class = None

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return GameResult.objects.none()
        self.table = table_or_404(self.request, self.kwargs["pk"])
        results = GameResult.objects.filter(table=self.table)
        access = record_access(self.request.user, self.table)
        if not (access.staff or access.seated):  # a duplicate board its group has not finished
            results = results.filter(revealed())
        return results.prefetch_related(
            *RESULT_HISTORY_PREFETCH).select_related("confirmed_by").order_by("number")

    def get_serializer_context(self):
        context = super().get_serializer_context()
        if hasattr(self, "table"):  # (the list: read by get_queryset before serializing)
            context["record_access"] = record_access(self.request.user, self.table)
        return context

    @extend_schema(request=s.ResultSubmitSerializer,
                   parameters=[OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER,
                                                required=False)],
                   responses={201: s.ResultSubmittedSerializer, 200: s.ResultSubmittedSerializer,
                              409: OpenApiResponse(description="already submitted"),
                              422: OpenApiResponse(description="the engine refused it"),
                              **ERRORS})
    def post(self, request, pk):
        """Submit a game's result: a result sheet or a full record, validated by the engine.
        The same submission twice (same body, or same ``Idempotency-Key``) returns the stored
        result (200) instead of creating another."""
        # the hot path (docs/BENCHMARKS.md, "Result submission"): the table, the user's seat and
        # role in one read, which locks the table's row too, then the service's read and insert
        with transaction.atomic():
            found = lock_table_with_viewer(request.user, pk)
            if found is None or not found[1].can_see(found[0]):
                raise NotFound("no such table")
            table, viewer = found
            require(viewer.public_seat(table) is not None or viewer.staff,
                     "only players of this table or the event's referees submit its results")
            ser = s.ResultSubmitSerializer(data=request.data)
            ser.is_valid(raise_exception=True)
            key = (request.headers.get("Idempotency-Key") or "")[:100]
            result = game_services.result_submit(
                table=table, number=ser.validated_data["number"],
                sheet=ser.validated_data.get("sheet"), record=ser.validated_data.get("record"),
                by=request.user, idempotency_key=key, table_locked=True,
                as_referee=viewer.staff)
        created = getattr(result, "created", False)
        if created:
            first = result.first_version
            result.first_kind, result.first_submitted_by = first.kind, request.user.username
        else:  # the stored result a retry repeats: who submitted it (one query)
            result.first_kind, result.first_submitted_by = result_first_submission(result)
        result.url = reverse("api:result-detail", kwargs={"pk": result.pk})
        return Response(s.ResultSubmittedSerializer(result).data,
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


def _result_state(result: GameResult, user) -> dict:
    """A confirmation's short answer: the result as it is now (``url``: with its history)."""
    if result.confirmed_by_id is not None and result.confirmed_by_id == user.pk:
        result.confirmed_by = user  # (no query for the confirmer's name)
    result.url = reverse("api:result-detail", kwargs={"pk": result.pk})
    return s.ResultStateSerializer(result).data


def _result_data(request, result: GameResult) -> dict:
    """A result with its versions, proposals and history, one query each; its records as
    ``request``'s user may see them (:func:`games.selectors.record_access`)."""
    prefetch_related_objects([result], *RESULT_HISTORY_PREFETCH)
    access = record_access(request.user, result.table)
    return s.ResultSerializer(result, context={"record_access": access}).data


def _result(request, pk) -> GameResult:
    result = get_object_or_404(GameResult.objects.select_related("table__round__event"), pk=pk)
    table_or_404(request, result.table_id)
    if result_hidden(result):  # a duplicate board its group has not finished it: as if none
        access = record_access(request.user, result.table)
        if not (access.staff or access.seated):
            raise NotFound("no such result")
    return result


class ResultDetailApi(generics.RetrieveAPIView):
    """A result with every version, its open proposed correction and its history (who, when,
    why)."""

    serializer_class = s.ResultSerializer
    permission_classes = [AllowAny]

    def get_object(self):
        result = _result(self.request, self.kwargs["pk"])
        prefetch_related_objects([result], *RESULT_HISTORY_PREFETCH)
        self.record_access = record_access(self.request.user, result.table)
        return result

    def get_serializer_context(self):
        return {**super().get_serializer_context(),
                "record_access": getattr(self, "record_access", None)}


class ResultConfirmApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "results"

    @extend_schema(
        request=s.ResultConfirmSerializer,
        parameters=[OpenApiParameter(
            "If-Match", str, OpenApiParameter.HEADER, required=False,
            description="the result version you are confirming (e.g. `\"2\"` or `2`); the "
                        "same as `version` in the body")],
        responses={200: s.ResultStateSerializer,
                   409: OpenApiResponse(description="stale_version: the result was corrected "
                                                    "since that version (detail.version is "
                                                    "the current one)"),
                   **ERRORS})
    def post(self, request, pk):
        """Confirm a result: the other 联邦 at the table, or a referee. Name the version you
        read (``version`` in the body, or ``If-Match``) so that a correction made meanwhile is
        not confirmed unseen: a stale version is refused (409) and nothing changes."""
        # the hot path: the result's table, the user's seat and role in one read; the
        # service reads the result itself under the table's lock
        found = result_table_with_viewer(request.user, pk)
        if found is None or not found[1].can_see(found[0]):
            raise NotFound("no such result")
        table, viewer = found
        referee = viewer.staff
        if not referee and viewer.public_seat(table) is None:
            raise PermissionDenied("only players of this table or referees confirm")
        result = GameResult(pk=pk, table=table)  # (its row is read by the service)
        ser = s.ResultConfirmSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        versions = {v for v in (ser.validated_data.get("version"),
                                self._if_match(request)) if v is not None}
        if len(versions) > 1:
            raise ServiceError("version_mismatch", "the body's version and If-Match differ")
        try:
            result = game_services.result_confirm(result=result, by=request.user,
                                                  as_referee=referee,
                                                  version=next(iter(versions), None),
                                                  reason=ser.validated_data.get("reason", ""))
        except ServiceError as exc:
            if exc.status == 403:
                raise PermissionDenied(exc.message) from None
            raise
        return Response(_result_state(result, request.user))

    @staticmethod
    def _if_match(request) -> int | None:
        """The version named by ``If-Match`` (``"2"``, ``W/"2"`` or ``2``; ``*``: any)."""
        value = request.headers.get("If-Match", "").strip()
        if value in ("", "*"):
            return None
        value = value.removeprefix("W/").strip('"')
        if not value.isascii() or not value.isdigit() or int(value) < 1:
            raise ServiceError("bad_if_match", "If-Match must be the result's version number")
        return int(value)


class ResultCorrectApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "results"

    @extend_schema(request=s.ResultCorrectSerializer, responses={
        200: s.ResultSerializer,
        202: OpenApiResponse(s.ResultSerializer, description=(
            "a player's correction of a confirmed result: stored as the open `proposal`, the "
            "result unchanged until the other 联邦 or a referee accepts it")),
        409: OpenApiResponse(description="proposal_open: another correction is proposed "
                                         "(detail.proposal is its id)"),
        422: OpenApiResponse(description="the engine refused it"),
        **ERRORS})
    def post(self, request, pk):
        """Correct a result, with the reason. A referee's correction applies at once and
        stands confirmed; a player's correction of a result awaiting confirmation adds a
        version to confirm. A player's correction of a confirmed result is a proposal (202):
        it counts only once the other 联邦 or a referee accepts it. A live game's result is
        corrected by a referee only (403 ``live_result_referee_only``)."""
        result = _result(request, pk)
        referee = is_referee(request.user, result.table.round.event)
        if not referee and public_seat_of(request.user, result.table) is None:
            raise PermissionDenied("only players of this table or referees correct")
        ser = s.ResultCorrectSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        result = game_services.result_correct(
            result=result, reason=ser.validated_data["reason"],
            sheet=ser.validated_data.get("sheet"), record=ser.validated_data.get("record"),
            by=request.user, as_referee=referee)
        proposed = getattr(result, "proposal", None) is not None
        return Response(_result_data(request, result),
                        status=status.HTTP_202_ACCEPTED if proposed else status.HTTP_200_OK)


class ResultDisputeApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "results"

    @extend_schema(request=s.ResultDisputeSerializer, responses={
        200: s.ResultSerializer,
        409: OpenApiResponse(description="not_submitted: the result is confirmed, or disputed "
                                         "already (detail.status says which)"),
        **ERRORS})
    def post(self, request, pk):
        """Dispute a submitted result, with the reason: a player of the other 联邦 at the
        table. It counts for nothing until a referee settles it by confirming or correcting
        it; the same dispute sent again changes nothing."""
        result = _result(request, pk)
        if public_seat_of(request.user, result.table) is None:
            raise PermissionDenied("only players of this table dispute its results")
        ser = s.ResultDisputeSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        result = game_services.result_dispute(result=result, by=request.user,
                                              reason=ser.validated_data["reason"])
        return Response(_result_data(request, result))


class ResultProposalApi(APIView):
    """Close a proposed correction of a result with a subclass's ``service`` (accept, decline:
    also as a referee; withdraw: its proposer only)."""

    permission_classes = [IsAuthenticated]
    throttle_scope = "results"
    request_serializer = s.ProposalDecisionSerializer
    by_referee = True  # whether a referee of the event may do it as a referee

    def post(self, request, pk, proposal):
        result = _result(request, pk)
        found = get_object_or_404(ResultProposal, pk=proposal, result=result)
        ser = self.request_serializer(data=request.data)
        ser.is_valid(raise_exception=True)
        extra = {"as_referee": is_referee(request.user, result.table.round.event)} if (
            self.by_referee) else {}
        result = self.service(proposal=found, by=request.user,
                              reason=ser.validated_data.get("reason", ""), **extra)
        return Response(_result_data(request, result))


PROPOSAL_RESPONSES = {
    200: s.ResultSerializer,
    409: OpenApiResponse(description="proposal_closed: it was closed otherwise meanwhile "
                                     "(detail.status says how)"),
    **ERRORS}


class ResultProposalAcceptApi(ResultProposalApi):
    service = staticmethod(game_services.result_proposal_accept)

    @extend_schema(request=s.ProposalDecisionSerializer, responses={
        **PROPOSAL_RESPONSES,
        422: OpenApiResponse(description="the engine refuses it now (the previous game was "
                                         "corrected since): nothing changes")})
    def post(self, request, pk, proposal):
        """Accept a proposed correction: the other 联邦 at the table, or a referee. The engine
        checks it again against the table as it is now; it becomes the result's new version,
        confirmed. Accepting it again changes nothing."""
        return super().post(request, pk, proposal)


class ResultProposalDeclineApi(ResultProposalApi):
    service = staticmethod(game_services.result_proposal_decline)
    request_serializer = s.ProposalDeclineSerializer

    @extend_schema(request=s.ProposalDeclineSerializer, responses=PROPOSAL_RESPONSES)
    def post(self, request, pk, proposal):
        """Decline a proposed correction, with the reason: the other 联邦 at the table, or a
        referee. The result stays as it is."""
        return super().post(request, pk, proposal)


class ResultProposalWithdrawApi(ResultProposalApi):
    service = staticmethod(game_services.result_proposal_withdraw)
    by_referee = False

    @extend_schema(request=s.ProposalDecisionSerializer, responses=PROPOSAL_RESPONSES)
    def post(self, request, pk, proposal):
        """Withdraw your proposed correction (its proposer only). The result stays as it
        is."""
        return super().post(request, pk, proposal)
