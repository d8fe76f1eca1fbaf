"""A game played on the service move by move (live play)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from tournaments.fields import JSONTextField


class LiveGame(models.Model):
    """A game played on the service move by move; ``state`` is the engine's JSON state and
    ``version`` the number every act must name (the ETag; never a hash of hidden cards)."""

    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")

    table = models.ForeignKey("tournaments.Table", on_delete=models.CASCADE,
                              related_name="live_games", verbose_name=_("table"))
    number = models.PositiveSmallIntegerField(_("game"))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices,
                              default=Status.RUNNING)
    state = JSONTextField(_("engine state"))
    version = models.PositiveIntegerField(_("version"), default=0)
    move_seconds = models.PositiveIntegerField(_("move time limit (s)"), default=60)
    turn_deadline = models.DateTimeField(_("turn deadline"), null=True, blank=True)
    #: seats in 托管 (bit ``s`` for seat ``s``): the bot plays their turns as they come, until
    #: their player takes the seat back (:func:`live.services.live_host`) or acts
    hosted = models.PositiveSmallIntegerField(_("seats in 托管"), default=0)
    result = models.OneToOneField("games.GameResult", null=True, blank=True,
                                  on_delete=models.SET_NULL, related_name="live_game",
                                  verbose_name=_("result"))
    #: the verifiable deal (live.deals): the game's label, the commitment published from the
    #: start, and the secret seed, shown only once the game's record may be seen (empty for
    #: games dealt before deals were verifiable)
    deal_label = models.CharField(_("deal label"), max_length=200, blank=True, default="")
    deal_commitment = models.CharField(_("deal commitment"), max_length=64, blank=True,
                                       default="")
    deal_seed = models.CharField(_("deal seed (secret)"), max_length=64, blank=True, default="")
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        db_table = "games_livegame"  # its name from before it moved here from games
        verbose_name = _("live game")
        verbose_name_plural = _("live games")
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="live_game_once_per_game"),
        ]
        indexes = [
            # the running games alone, for the 托管 sweep's query every second
            # (live.services.live_autoplay_overdue) where finished games pile up; on columns no
            # act changes, so that an act's update stays a heap-only (HOT) one
            models.Index(fields=["id"], name="live_game_running",
                         condition=models.Q(status="running")),
        ]

    def __str__(self):
        return f"{self.table} · {_('live game')} {self.number}"


class SeatReady(models.Model):
    """A seat's player is at the table for its next live game (到齐: "ready"), since ``at``.

    A player deals their table's next game live only when all six seats are present — ready
    within :data:`live.services.READY_SECONDS`, the dealer's own seat by dealing — or a
    referee deals it (:func:`live.services.live_start`): else the bots of 托管 would play the
    absent seats from the first turn on and the server would record the result as confirmed.
    Dealing a game clears the table's marks: each game asks again."""

    table = models.ForeignKey("tournaments.Table", on_delete=models.CASCADE,
                              related_name="ready_seats", verbose_name=_("table"))
    seat = models.PositiveSmallIntegerField(_("seat"))
    at = models.DateTimeField(_("ready since"))

    class Meta:
        verbose_name = _("seat ready for live play")
        verbose_name_plural = _("seats ready for live play")
        constraints = [
            models.UniqueConstraint(fields=["table", "seat"], name="seat_ready_once"),
            models.CheckConstraint(condition=models.Q(seat__lte=5), name="seat_ready_seat"),
        ]

    def __str__(self):
        return f"{self.table} · {self.seat}"


class PracticeGame(models.Model):
    """A game against five bots, for anyone (练习: no event, no account): the newcomer's way to
    learn the rules on the service. Found by an unguessable token (only its SHA-256 is stored);
    a game idle for :data:`live.practice.PRACTICE_IDLE` is gone."""

    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")

    token_hash = models.CharField(_("token hash"), max_length=64, unique=True)
    preset = models.CharField(_("rules preset"), max_length=20)
    seat = models.PositiveSmallIntegerField(_("player's seat"))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices,
                              default=Status.RUNNING)
    state = JSONTextField(_("engine state"))
    version = models.PositiveIntegerField(_("version"), default=0)
    #: the verifiable deal (live.deals): the game's label, the commitment published from the
    #: start, and the secret seed, shown only once the game's record may be seen (empty for
    #: games dealt before deals were verifiable)
    deal_label = models.CharField(_("deal label"), max_length=200, blank=True, default="")
    deal_commitment = models.CharField(_("deal commitment"), max_length=64, blank=True,
                                       default="")
    deal_seed = models.CharField(_("deal seed (secret)"), max_length=64, blank=True, default="")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True, db_index=True)

    class Meta:
        verbose_name = _("practice game")
        verbose_name_plural = _("practice games")

    def __str__(self):
        return f"{_('practice game')} {self.pk}"


class Revocation(models.Model):
    """A change after which open streams must check their access (live.access.revoke): a
    private link revoked or re-issued, a sign-out, a deleted token, a changed password, a
    seat's player given another login, an event unpublished. ``keys`` names whose streams
    (``u:<user id>``, ``e:<event id>``, separated by spaces). Pub/sub tells the other
    processes at once; this log is how it reaches them while Redis is down, or when a message
    is lost (live.notify.catch_up_revocations). Rows older than ``live.access.KEPT`` are
    deleted as new ones come."""

    keys = models.TextField(_("whose access"))
    at = models.DateTimeField(_("revoked"), db_index=True)

    class Meta:
        verbose_name = _("access revocation")
        verbose_name_plural = _("access revocations")

    def __str__(self):
        return self.keys


class ChallengeDay(models.Model):
    """The daily challenge of one date (每日挑战): a fixed set of deals made once, played by
    anyone who gives a name, each deal by one person with five careful bots, and compared with
    everyone else who played the same deal (复式). :mod:`live.daily` makes and plays it."""

    date = models.DateField(_("date"), unique=True)
    preset = models.CharField(_("rules preset"), max_length=20)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("daily challenge")
        verbose_name_plural = _("daily challenges")

    def __str__(self):
        return f"{_('daily challenge')} {self.date.isoformat()}"


class ChallengeDeal(models.Model):
    """One deal of a :class:`ChallengeDay`: the cards come from ``seed`` and ``label``
    (:func:`engine.deals.derive_deal`); ``commitment`` is published from the start, the seed
    shown to a player once they have finished the deal (to everyone once the day is over);
    ``seat`` is the person's seat, the same for everyone who plays it."""

    day = models.ForeignKey(ChallengeDay, on_delete=models.CASCADE, related_name="deals",
                            verbose_name=_("daily challenge"))
    number = models.PositiveSmallIntegerField(_("deal"))
    seed = models.CharField(_("seed"), max_length=64)
    label = models.CharField(_("label"), max_length=100)
    commitment = models.CharField(_("commitment"), max_length=64)
    seat = models.PositiveSmallIntegerField(_("player's seat"))

    class Meta:
        verbose_name = _("daily challenge deal")
        verbose_name_plural = _("daily challenge deals")
        constraints = [models.UniqueConstraint(fields=["day", "number"],
                                               name="challenge_deal_once")]
        ordering = ["day", "number"]

    def __str__(self):
        return f"{self.day} #{self.number}"


class ChallengeEntry(models.Model):
    """A person's entry in a day's challenge: the name they gave and the browser session it is
    bound to (only the SHA-256 of the session's challenge token is stored). One entry per
    session and day, and a name once per day (compared case-folded)."""

    day = models.ForeignKey(ChallengeDay, on_delete=models.CASCADE, related_name="entries",
                            verbose_name=_("daily challenge"))
    name = models.CharField(_("name"), max_length=24)
    name_key = models.CharField(_("name as compared"), max_length=96)
    token_hash = models.CharField(_("session token hash"), max_length=64)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("daily challenge entry")
        verbose_name_plural = _("daily challenge entries")
        constraints = [
            models.UniqueConstraint(fields=["day", "token_hash"], name="challenge_entry_session"),
            models.UniqueConstraint(fields=["day", "name_key"], name="challenge_entry_name"),
        ]

    def __str__(self):
        return self.name


class ChallengePlay(models.Model):
    """One entry's play of one :class:`ChallengeDeal` (one per entry and deal: a deal of the
    day is played once): the engine's state as in a practice game, and once it is over the
    player's 联邦 net game points (:func:`engine.duplicate.net_points`), the score the field
    compares."""

    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")

    entry = models.ForeignKey(ChallengeEntry, on_delete=models.CASCADE, related_name="plays",
                              verbose_name=_("daily challenge entry"))
    deal = models.ForeignKey(ChallengeDeal, on_delete=models.CASCADE, related_name="plays",
                             verbose_name=_("daily challenge deal"))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices,
                              default=Status.RUNNING)
    state = JSONTextField(_("engine state"))
    version = models.PositiveIntegerField(_("version"), default=0)
    net_points = models.SmallIntegerField(_("net game points"), null=True, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("daily challenge play")
        verbose_name_plural = _("daily challenge plays")
        constraints = [models.UniqueConstraint(fields=["entry", "deal"],
                                               name="challenge_play_once")]

    def __str__(self):
        return f"{self.entry} · {self.deal}"
