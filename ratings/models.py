"""Ratings across events (等级分): a player's current rating, its value after each round
they played, and which version of each result the ratings contain."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class PlayerRating(models.Model):
    """A player's rating now: openskill's ``mu`` and ``sigma`` after every rated game, and the
    shown value ``ordinal = mu - 3 sigma`` (ratings.model)."""

    player = models.OneToOneField("tournaments.Player", primary_key=True,
                                  on_delete=models.CASCADE, related_name="rating",
                                  verbose_name=_("player"))
    mu = models.FloatField(_("strength (mu)"))
    sigma = models.FloatField(_("uncertainty (sigma)"))
    ordinal = models.FloatField(_("rating"), db_index=True)
    games = models.PositiveIntegerField(_("games rated"), default=0)
    wins = models.PositiveIntegerField(_("games won"), default=0)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("player rating")
        verbose_name_plural = _("player ratings")
        ordering = ["-ordinal", "player"]


class RatingPoint(models.Model):
    """A player's rating after a round they played (the player page's chart) — also the
    checkpoint a re-rating starts from: a change in a round re-rates from the last point of
    each player before it. ``drawn_at`` and ``round`` order rounds across events."""

    player = models.ForeignKey("tournaments.Player", on_delete=models.CASCADE,
                               related_name="rating_points", verbose_name=_("player"))
    round = models.ForeignKey("tournaments.Round", on_delete=models.CASCADE,
                              related_name="+", verbose_name=_("round"))
    event = models.ForeignKey("tournaments.Event", on_delete=models.CASCADE,
                              related_name="+", verbose_name=_("event"))
    drawn_at = models.DateTimeField(_("round drawn"))
    mu = models.FloatField(_("strength (mu)"))
    sigma = models.FloatField(_("uncertainty (sigma)"))
    ordinal = models.FloatField(_("rating"))
    games = models.PositiveIntegerField(_("games rated"))
    wins = models.PositiveIntegerField(_("games won"))

    class Meta:
        verbose_name = _("rating after a round")
        verbose_name_plural = _("ratings after rounds")
        ordering = ["player", "drawn_at", "round"]
        constraints = [models.UniqueConstraint(fields=["player", "round"],
                                               name="rating_point_once_per_round")]
        indexes = [models.Index(fields=["drawn_at", "round"], name="rating_point_order")]


class RatedResult(models.Model):
    """The version of a confirmed result that the ratings contain: what a re-rating compares
    with the results to find the first round that changed."""

    result = models.OneToOneField("games.GameResult", primary_key=True, on_delete=models.CASCADE,
                                  related_name="+", verbose_name=_("result"))
    round = models.ForeignKey("tournaments.Round", on_delete=models.CASCADE, related_name="+",
                              verbose_name=_("round"))
    version = models.PositiveIntegerField(_("version"))

    class Meta:
        verbose_name = _("rated result")
        verbose_name_plural = _("rated results")
