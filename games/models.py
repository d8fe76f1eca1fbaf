"""Game results at tables: every version kept, with who, when and why; confirmation."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from tournaments.fields import FastJSONField


class GameResult(models.Model):
    """The result of game ``number`` (局) at one table; its current version is what counts."""

    class Status(models.TextChoices):
        SUBMITTED = "submitted", _("submitted, awaiting confirmation")
        CONFIRMED = "confirmed", _("confirmed")
        DISPUTED = "disputed", _("disputed, awaiting a referee")

    table = models.ForeignKey("tournaments.Table", on_delete=models.CASCADE,
                              related_name="results", verbose_name=_("table"))
    number = models.PositiveSmallIntegerField(_("game"))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices,
                              default=Status.SUBMITTED)
    version = models.PositiveIntegerField(_("current version"), default=1)
    points_a = models.IntegerField(_("points of red (红方: seats 1, 3, 5)"), default=0)
    points_b = models.IntegerField(_("points of black (黑方: seats 2, 4, 6)"), default=0)
    places = FastJSONField(_("places by seat"), default=list)
    void = models.BooleanField(_("void (流局)"), default=False)
    engine_result = FastJSONField(_("engine result"), default=dict)
    system_recorded = models.BooleanField(_("recorded by the system"), default=False)
    confirmed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                     on_delete=models.SET_NULL, related_name="+",
                                     verbose_name=_("confirmed by"))
    confirmed_at = models.DateTimeField(_("confirmed at"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("game result")
        verbose_name_plural = _("game results")
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="result_once_per_game"),
            models.CheckConstraint(condition=Q(number__gte=1), name="result_number_ge_1"),
            models.CheckConstraint(condition=Q(points_a=0) | Q(points_b=0),
                                   name="result_one_team_scores"),
            models.CheckConstraint(
                condition=Q(status__in=["submitted", "disputed"]) | Q(confirmed_at__isnull=False),
                name="result_confirmed_has_time"),
        ]
        indexes = [models.Index(fields=["status"])]

    def __str__(self):
        return f"{self.table} · {_('game')} {self.number}"


class GameResultVersion(models.Model):
    """One submitted version of a result: a result sheet or a full record, as the engine
    validated it. Versions are never changed; a correction adds a version."""

    class Kind(models.TextChoices):
        SHEET = "sheet", _("result sheet")
        RECORD = "record", _("full record")

    result = models.ForeignKey(GameResult, on_delete=models.CASCADE, related_name="versions",
                               verbose_name=_("result"))
    version = models.PositiveIntegerField(_("version"))
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    payload = FastJSONField(_("as submitted"))
    engine_result = FastJSONField(_("engine result"))
    points_a = models.IntegerField(_("points of red (红方)"))
    points_b = models.IntegerField(_("points of black (黑方)"))
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                     on_delete=models.SET_NULL, related_name="+",
                                     verbose_name=_("by"))
    submitted_at = models.DateTimeField(_("at"), auto_now_add=True)
    reason = models.TextField(_("reason"), blank=True)
    idempotency_key = models.CharField(_("idempotency key"), max_length=100, blank=True)
    #: sha256 of what the client sent ({number, sheet|record} as canonical JSON): a retry is
    #: recognised by it before the engine replays anything; blank on versions stored before it
    submission_digest = models.CharField(_("submission digest"), max_length=64, blank=True,
                                         default="")
    #: added after its round closed: the number of the latest later round then drawn (empty:
    #: the round was open). Only a referee changes a closed round's results (issue 51).
    after_close = models.PositiveSmallIntegerField(_("after round drawn"), null=True,
                                                   blank=True)

    class Meta:
        verbose_name = _("result version")
        verbose_name_plural = _("result versions")
        ordering = ["result", "version"]
        constraints = [
            models.UniqueConstraint(fields=["result", "version"], name="version_unique"),
            models.CheckConstraint(condition=Q(version=1) | ~Q(reason=""),
                                   name="correction_has_reason"),
        ]
        # an Idempotency-Key names one submission of its user (games.services.result_submit)
        indexes = [models.Index(fields=["submitted_by", "idempotency_key"],
                                name="version_key_of_user")]


class ResultProposal(models.Model):
    """A player's correction (更正) of a confirmed result, proposed: the result stays confirmed
    and counted as it is until the other 联邦 at the table or a referee accepts it
    (``games.services.result_proposal_accept``, which adds it as a new version); it may be
    declined by them or withdrawn by its proposer. At most one is open per result."""

    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("proposal", "open, awaiting the other 联邦 or a referee")
        ACCEPTED = "accepted", pgettext_lazy("proposal", "accepted")
        DECLINED = "declined", pgettext_lazy("proposal", "declined")
        WITHDRAWN = "withdrawn", pgettext_lazy("proposal", "withdrawn")
        SUPERSEDED = "superseded", pgettext_lazy("proposal", "closed by a referee's correction")

    result = models.ForeignKey(GameResult, on_delete=models.CASCADE, related_name="proposals",
                               verbose_name=_("result"))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices,
                              default=Status.OPEN)
    base_version = models.PositiveIntegerField(_("proposed against version"))
    kind = models.CharField(_("kind"), max_length=10, choices=GameResultVersion.Kind.choices)
    #: the sheet or record as sent: checked again by the engine when it is accepted
    submission = models.JSONField(_("as submitted"))
    submission_digest = models.CharField(_("submission digest"), max_length=64, blank=True,
                                         default="")
    engine_result = models.JSONField(_("engine result when proposed"))
    points_a = models.IntegerField(_("points of red (红方)"))
    points_b = models.IntegerField(_("points of black (黑方)"))
    reason = models.TextField(_("reason"))
    proposed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                    on_delete=models.SET_NULL, related_name="+",
                                    verbose_name=_("proposed by"))
    proposed_at = models.DateTimeField(_("proposed at"), auto_now_add=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+",
                                   verbose_name=_("closed by"))
    decided_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    decision_reason = models.TextField(_("reason for closing"), blank=True)
    #: the result's version it became when accepted
    version = models.PositiveIntegerField(_("version when accepted"), null=True, blank=True)

    class Meta:
        verbose_name = _("proposed correction")
        verbose_name_plural = _("proposed corrections")
        ordering = ["result", "proposed_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["result"], condition=Q(status="open"),
                                    name="proposal_one_open_per_result"),
            models.CheckConstraint(condition=~Q(reason=""), name="proposal_has_reason"),
            models.CheckConstraint(
                condition=Q(status="open", decided_at__isnull=True)
                | (~Q(status="open") & Q(decided_at__isnull=False)),
                name="proposal_closed_has_time"),
            models.CheckConstraint(
                condition=~Q(status="accepted") | Q(version__isnull=False),
                name="proposal_accepted_has_version"),
        ]


class ResultDispute(models.Model):
    """A dispute (异议) of a submitted result by a player of the other 联邦 at the table, with
    the reason: the result is ``disputed`` and counts for nothing until a referee settles it,
    by confirming it as it is (``games.services.result_confirm`` as a referee) or by
    correcting it (``result_correct`` as a referee). At most one is open per result."""

    class Settlement(models.TextChoices):
        CONFIRMED = "confirmed", pgettext_lazy("dispute", "confirmed as it was by a referee")
        CORRECTED = "corrected", pgettext_lazy("dispute", "corrected by a referee")

    result = models.ForeignKey(GameResult, on_delete=models.CASCADE, related_name="disputes",
                               verbose_name=_("result"))
    #: the result's version that was disputed
    version = models.PositiveIntegerField(_("disputed version"))
    reason = models.TextField(_("reason"))
    raised_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                  on_delete=models.SET_NULL, related_name="+",
                                  verbose_name=_("disputed by"))
    raised_at = models.DateTimeField(_("disputed at"), auto_now_add=True)
    settlement = models.CharField(_("settlement"), max_length=20, choices=Settlement.choices,
                                  blank=True)
    settled_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+",
                                   verbose_name=_("settled by"))
    settled_at = models.DateTimeField(_("settled at"), null=True, blank=True)
    settlement_reason = models.TextField(_("reason for the settlement"), blank=True)
    #: the result's version when it was settled (a correction's new version)
    settled_version = models.PositiveIntegerField(_("version when settled"), null=True,
                                                  blank=True)
    #: settled after the round closed: the latest later round then drawn (as
    #: ``GameResultVersion.after_close``)
    settled_after_close = models.PositiveSmallIntegerField(_("settled after round drawn"),
                                                           null=True, blank=True)

    class Meta:
        verbose_name = _("dispute")
        verbose_name_plural = _("disputes")
        ordering = ["result", "raised_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["result"], condition=Q(settled_at__isnull=True),
                                    name="dispute_one_open_per_result"),
            models.CheckConstraint(condition=~Q(reason=""), name="dispute_has_reason"),
            models.CheckConstraint(
                condition=Q(settlement="", settled_at__isnull=True)
                | (~Q(settlement="") & Q(settled_at__isnull=False)),
                name="dispute_settled_has_time"),
        ]
