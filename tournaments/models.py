"""Players, 联邦 teams, events, entries, rounds, tables, seats, byes, penalties and standings."""

from __future__ import annotations

import base64

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.crypto import salted_hmac
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _

DEFAULT_TIE_BREAKS = ["points", "game_wins", "head_count", "opponents_points", "head_to_head",
                      "drawn"]
TIE_BREAK_CHOICES = {
    "points": _("points"),
    "match_points": _("match points"),
    "game_wins": _("games won"),
    "head_count": _("头科 count"),
    "opponents_points": _("opponents' points"),
    "head_to_head": _("head-to-head"),
    "drawn": _("drawn order"),
}


def default_rules():
    return "dagang"


# Bounds of what a player or an event may be set to, in one place: the model fields below carry
# them as validators, and the services, the API serializers (ModelSerializer copies a model
# field's validators) and the admin forms all check them through those fields.
#: a player number fits the database's 32-bit integer column
PLAYER_NUMBER_MAX = 2**31 - 1
#: a match of 1–24 games (局); knockout extra games (加赛) follow, and game numbers stop at 99
GAMES_PER_MATCH_MAX = 24
#: at most 50 Swiss rounds (a long weekend has 7–12)
ROUNDS_PLANNED_MAX = 50
#: a live seat has 1 s to an hour per move before the bot plays it (托管)
MOVE_SECONDS_MIN, MOVE_SECONDS_MAX = 1, 3600
SPECTATOR_DELAY_MAX = 3600
#: a bye (轮空) scores at most what a round of games can: ±1000 points
BYE_POINTS_MAX = 1000


class Player(models.Model):
    """A person who plays; may be linked to a login for self-service."""

    name = models.CharField(_("name"), max_length=100)
    club = models.CharField(_("club"), max_length=100, blank=True)
    number = models.PositiveIntegerField(_("player number"), unique=True, null=True, blank=True,
                                         validators=[MinValueValidator(0),
                                                     MaxValueValidator(PLAYER_NUMBER_MAX)])
    user = models.OneToOneField(settings.AUTH_USER_MODEL, null=True, blank=True,
                                on_delete=models.SET_NULL, related_name="player",
                                verbose_name=_("login"))
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
        ordering = ["name", "pk"]
        indexes = [models.Index(fields=["name"])]

    def __str__(self):
        return f"{self.name} (#{self.number})" if self.number else self.name

    def get_absolute_url(self) -> str:
        """The player's line on the leaderboard of their latest published event (the admin's
        "view on site"); the list of events if they have none."""
        entry = self.entries.filter(event__published=True).select_related("event").order_by(
            "-event__created_at").first()
        if entry is None:
            return reverse("pages:events")
        return reverse("pages:leaderboard", kwargs={"slug": entry.event.slug}) + "?" + \
            urlencode({"q": self.number if self.number is not None else self.name})


class Event(models.Model):
    """A tournament: rounds plus standings under one rule preset and one format."""

    class Format(models.TextChoices):
        INDIVIDUAL = "individual", _("individual, drawn teams (抽签组邦)")
        TEAM = "team", _("team Swiss (团体赛)")

    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        REGISTRATION = "registration", _("registration open")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")

    name = models.CharField(_("name"), max_length=200)
    slug = models.SlugField(_("slug"), max_length=80, unique=True)
    format = models.CharField(_("format"), max_length=20, choices=Format.choices,
                              default=Format.INDIVIDUAL)
    rules = models.JSONField(_("rules"), default=default_rules,
                             help_text=_("A preset name or {\"preset\": …, \"options\": {…}}"))
    rounds_planned = models.PositiveSmallIntegerField(
        _("rounds"), default=7,
        validators=[MinValueValidator(1), MaxValueValidator(ROUNDS_PLANNED_MAX)])
    games_per_match = models.PositiveSmallIntegerField(
        _("games per match"), default=4,
        validators=[MinValueValidator(1), MaxValueValidator(GAMES_PER_MATCH_MAX)])
    bye_points = models.IntegerField(
        _("bye score"), default=0, help_text=_("Points a bye earns for the round"),
        validators=[MinValueValidator(-BYE_POINTS_MAX), MaxValueValidator(BYE_POINTS_MAX)])
    knockout_teams = models.PositiveSmallIntegerField(
        _("knockout finals"), default=0,
        help_text=_("Team events: how many teams play the knockout finals after the Swiss "
                    "rounds (2, 4, 8, …; 0 = none). Best of the games per match, with a "
                    "deciding extra game on a tie."))
    move_seconds = models.PositiveIntegerField(
        _("live move time limit (s)"), default=60,
        validators=[MinValueValidator(MOVE_SECONDS_MIN), MaxValueValidator(MOVE_SECONDS_MAX)],
        help_text=_("A live-play seat that does not act in time is played by the bot (托管)"))
    spectator_delay = models.PositiveIntegerField(
        _("spectator delay (s)"), default=0,
        validators=[MaxValueValidator(SPECTATOR_DELAY_MAX)],
        help_text=_("Spectators of a live table see each act this many seconds after it "
                    "is made (0: at once); the players and referees are not delayed"))
    swiss_brackets = models.BooleanField(
        _("seat by score after round 1"), default=False,
        help_text=_("Individual events: Swiss-style score brackets from round 2"))
    rated = models.BooleanField(
        _("counts for ratings"), default=False,
        help_text=_("Confirmed games of this event update the players' ratings across events"))
    show_ratings = models.BooleanField(
        _("show ratings"), default=False,
        help_text=_("Show each player's rating beside their name in the seating and the "
                    "leaderboard"))
    rating_balance = models.BooleanField(
        _("balance 联邦 by rating"), default=False,
        help_text=_("Individual events: the draw keeps the two 联邦 of each table close in "
                    "summed rating (after the repeat rules); the ratings used are published "
                    "with the round"))

    class KnockoutSeeding(models.TextChoices):
        STANDINGS = "standings", _("by standings")
        RATING = "rating", _("by rating")

    knockout_seeding = models.CharField(
        _("knockout seeding"), max_length=10, choices=KnockoutSeeding.choices,
        default=KnockoutSeeding.STANDINGS,
        help_text=_("Team events: the knockout finals take the top teams of the standings and "
                    "seed the bracket by their standing or by their players' mean rating"))
    class Duplicate(models.TextChoices):
        OFF = "off", _("off")
        MP = "mp", _("复式, matchpoints")
        IMP = "imp", _("复式, IMPs")

    duplicate = models.CharField(
        _("duplicate (复式)"), max_length=3, choices=Duplicate.choices, default=Duplicate.OFF,
        help_text=_("Live-played rounds: every table of a group plays the same deals (boards), "
                    "and each 联邦 is scored against the field on the same cards"))
    duplicate_group = models.PositiveSmallIntegerField(
        _("duplicate group (tables)"), default=2,
        help_text=_("Tables that play the same boards: an even number; 0 = the whole round"))
    tie_breaks = models.JSONField(_("tie-break order"), default=list, blank=True,
                                  help_text=_("Empty: the default order"))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices,
                              default=Status.REGISTRATION)
    published = models.BooleanField(_("published"), default=False)
    organizers = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True,
                                        related_name="organized_events",
                                        verbose_name=_("organizers"))
    referees = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True,
                                      related_name="refereed_events", verbose_name=_("referees"))
    standings_version = models.PositiveIntegerField(_("standings version"), default=0)
    standings_digest = models.CharField(_("standings digest"), max_length=64, blank=True)
    results_version = models.PositiveIntegerField(
        _("results version"), default=0,
        help_text=_("Bumped by every change standings depend on"))
    standings_results_version = models.PositiveIntegerField(
        _("results version of the standings"), default=0)
    #: the earliest round a change touched since the standings last covered every change: the
    #: stored per-round standings (:class:`RoundStandings`) from that round on are out of date
    #: (0: all of them). Set with ``results_version``, cleared by the recompute.
    standings_dirty_from = models.PositiveSmallIntegerField(
        _("standings out of date from round"), null=True, blank=True, editable=False)
    #: set by ``services.standings_release`` only (it stores the snapshot), so not a form field
    standings_released_round = models.PositiveSmallIntegerField(
        _("standings released through round"), null=True, blank=True, editable=False,
        help_text=_("Empty: the public sees the live standings. A round number: the public "
                    "sees the standings after that round until the organizers release the "
                    "next (0: none yet)."))
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("events")
        ordering = ["-created_at", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(games_per_match__gte=1), name="event_games_ge_1"),
            models.CheckConstraint(condition=Q(rounds_planned__gte=1), name="event_rounds_ge_1"),
            models.CheckConstraint(condition=Q(format__in=["individual", "team"]),
                                   name="event_format_valid"),
            models.CheckConstraint(condition=Q(knockout_teams__in=[0, 2, 4, 8, 16, 32, 64]),
                                   name="event_knockout_power_of_two"),
            models.CheckConstraint(condition=Q(duplicate__in=["off", "mp", "imp"]),
                                   name="event_duplicate_valid"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("pages:event", kwargs={"slug": self.slug})

    @property
    def tie_break_order(self) -> list[str]:
        return list(self.tie_breaks) or (
            ["match_points", "points", "game_wins", "head_count", "opponents_points",
             "head_to_head", "drawn"] if self.format == self.Format.TEAM else
            list(DEFAULT_TIE_BREAKS))


class Team(models.Model):
    """A 联邦: three players who sit alternately (seats 0, 2, 4 or 1, 3, 5) in team events."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="teams",
                              verbose_name=_("event"))
    name = models.CharField(_("name"), max_length=100)
    players = models.ManyToManyField(Player, through="TeamMember", related_name="teams",
                                     verbose_name=_("players"))

    class Meta:
        verbose_name = _("联邦 team")
        verbose_name_plural = _("联邦 teams")
        ordering = ["name", "pk"]
        constraints = [models.UniqueConstraint(fields=["event", "name"],
                                               name="team_name_unique_in_event")]

    def __str__(self):
        return self.name


class TeamMember(models.Model):
    """One of a 联邦 team's three players; a player plays for at most one team per event.

    A player named by another player is *invited* (邀请) until they accept: the team takes part
    in nothing (no check-in, no draw) until all three have accepted, and an invitation does not
    keep the invitee from accepting another team's or registering their own — only accepted
    memberships are unique per event."""

    class Status(models.TextChoices):
        INVITED = "invited", _("invited")
        ACCEPTED = "accepted", _("accepted")

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="members")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="memberships")
    position = models.PositiveSmallIntegerField(_("position"))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices,
                              default=Status.ACCEPTED)

    class Meta:
        verbose_name = _("team member")
        verbose_name_plural = _("team members")
        ordering = ["team", "position"]
        constraints = [
            models.UniqueConstraint(fields=["team", "position"], name="member_position_unique"),
            models.UniqueConstraint(fields=["team", "player"], name="member_once_per_team"),
            models.UniqueConstraint(fields=["event", "player"], condition=Q(status="accepted"),
                                    name="member_one_team_per_event"),
            models.CheckConstraint(condition=Q(position__lte=2), name="member_position_0_2"),
        ]


class Entry(models.Model):
    """A player's (individual events) or team's (team events) registration in an event."""

    class Status(models.TextChoices):
        REGISTERED = "registered", _("registered")
        CHECKED_IN = "checked_in", _("checked in")
        WITHDRAWN = "withdrawn", _("withdrawn")
        DISQUALIFIED = "disqualified", _("disqualified")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="entries",
                              verbose_name=_("event"))
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT,
                               related_name="entries", verbose_name=_("player"))
    team = models.OneToOneField(Team, null=True, blank=True, on_delete=models.CASCADE,
                                related_name="entry", verbose_name=_("team"))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices,
                              default=Status.REGISTERED)
    late = models.BooleanField(_("late entry"), default=False)
    first_round = models.PositiveSmallIntegerField(_("first round"), default=1)
    left_after_round = models.PositiveSmallIntegerField(
        _("left after round"), null=True, blank=True,
        help_text=_("Withdrawn or disqualified: the last round it played"))
    registered_at = models.DateTimeField(_("registered"), auto_now_add=True)
    checked_in_at = models.DateTimeField(_("checked in"), null=True, blank=True)

    class Meta:
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        ordering = ["event", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(player__isnull=False, team__isnull=True)
                           | Q(player__isnull=True, team__isnull=False)),
                name="entry_player_xor_team"),
            models.UniqueConstraint(fields=["event", "player"], condition=Q(player__isnull=False),
                                    name="entry_player_once_per_event"),
            models.CheckConstraint(condition=Q(first_round__gte=1), name="entry_first_round_ge_1"),
        ]
        indexes = [models.Index(fields=["event", "status"])]

    def __str__(self):
        return str(self.player or self.team)

    @property
    def label(self) -> str:
        return str(self)


#: a round's draw record (the entries, the inputs, the manual changes and earlier draws of a
#: 10,000-player draw, as JSON): the hot paths and the lists of tables do not load it
ROUND_DRAW_DATA = ("draw_entries", "draw_input", "draw_changes", "draw_history")


class Round(models.Model):
    """One round: every table plays one match at the same time."""

    class Status(models.TextChoices):
        COMMITTED = "committed", _("commitment published")
        DRAWN = "drawn", _("drawn")
        PUBLISHED = "published", _("seating published")
        FINISHED = "finished", _("finished")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="rounds",
                              verbose_name=_("event"))
    class Stage(models.TextChoices):
        SWISS = "swiss", _("Swiss round")
        KNOCKOUT = "knockout", _("knockout round")

    number = models.PositiveSmallIntegerField(_("number"))
    stage = models.CharField(_("stage"), max_length=10, choices=Stage.choices,
                             default=Stage.SWISS)
    status = models.CharField(_("status"), max_length=20, choices=Status.choices,
                              default=Status.COMMITTED)
    brackets = models.BooleanField(_("seated by score"), default=False)
    commitment = models.CharField(_("commitment"), max_length=64,
                                  help_text=_("SHA-256 of the seed and the entries in the draw"))
    seed = models.CharField(_("seed"), max_length=64,
                            help_text=_("Secret until the draw, then published"))
    draw_entries = models.JSONField(_("entries in the draw"), default=list)
    draw_input = models.JSONField(_("draw input"), default=dict, blank=True,
                                  help_text=_("Scores and bye counts the draw used"))
    #: the organizers' seat swaps after this draw, in order (``services.round_seats_swap``):
    #: the verification re-runs the draw from the seed, then applies them
    draw_changes = models.JSONField(_("manual changes"), default=list, blank=True,
                                    editable=False)
    #: the earlier draws of this round that a re-draw replaced, oldest first
    #: (``services.round_redraw``): each with its commitment, seed, inputs, seating and changes
    draw_history = models.JSONField(_("earlier draws"), default=list, blank=True,
                                    editable=False)
    committed_at = models.DateTimeField(_("committed"), auto_now_add=True)
    drawn_at = models.DateTimeField(_("drawn"), null=True, blank=True)
    published_at = models.DateTimeField(_("published"), null=True, blank=True)

    class Meta:
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        ordering = ["event", "number"]
        constraints = [
            models.UniqueConstraint(fields=["event", "number"], name="round_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_ge_1"),
        ]

    def __str__(self):
        return f"{self.event} · {_('round')} {self.number}"

    def get_absolute_url(self) -> str:
        return reverse("pages:round-seating", kwargs={"slug": self.event.slug,
                                                      "number": self.number})

    @property
    def seed_revealed(self) -> bool:
        """Drawn: the seed may be shown to the event's staff."""
        return self.status != self.Status.COMMITTED

    @property
    def seed_public(self) -> bool:
        """Seating published: the seed is public (earlier, anyone could re-run the draw from
        it and learn the seating before the organizers publish it)."""
        return self.status in (self.Status.PUBLISHED, self.Status.FINISHED)


class Table(models.Model):
    """A table of six in one round; in team events team A sits 0, 2, 4 and team B 1, 3, 5."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables",
                              verbose_name=_("round"))
    number = models.PositiveIntegerField(_("table"))
    team_a = models.ForeignKey(Team, null=True, blank=True, on_delete=models.PROTECT,
                               related_name="+", verbose_name=_("team A (seats 0, 2, 4)"))
    team_b = models.ForeignKey(Team, null=True, blank=True, on_delete=models.PROTECT,
                               related_name="+", verbose_name=_("team B (seats 1, 3, 5)"))

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="table_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=1), name="table_number_ge_1"),
        ]

    def __str__(self):
        return f"{self.round} · {_('table')} {self.number}"

    def get_absolute_url(self) -> str:
        return reverse("pages:table", kwargs={"slug": self.round.event.slug,
                                              "number": self.round.number,
                                              "table": self.number})


class Board(models.Model):
    """A duplicate (复式) board: game ``number`` of a round's group of tables, dealt once from a
    secret seed and played at every table of the group; its commitment is public from the draw,
    its seed once every table of the group has finished it (:mod:`tournaments.duplicate`)."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="boards",
                              verbose_name=_("round"))
    group = models.PositiveSmallIntegerField(_("group"))
    number = models.PositiveSmallIntegerField(_("board"))
    label = models.CharField(_("deal label"), max_length=120)
    seed = models.CharField(_("seed"), max_length=64)
    commitment = models.CharField(_("commitment"), max_length=64)
    leader = models.PositiveSmallIntegerField(_("first lead (seat)"))
    scored_at = models.DateTimeField(_("scored"), null=True, blank=True)

    class Meta:
        verbose_name = _("board")
        verbose_name_plural = _("boards")
        ordering = ["round", "group", "number"]
        constraints = [models.UniqueConstraint(fields=["round", "group", "number"],
                                               name="board_unique")]

    def __str__(self):
        return f"{self.round} · {self.group}/{self.number}"


class BoardResult(models.Model):
    """One table's play of a board, scored against the field on the same cards: per 联邦 of the
    table (A: seats 0, 2, 4; B: 1, 3, 5) its net game points and its duplicate score
    (``score_*``: :func:`engine.duplicate.score_board`, a share or mean IMPs; ``points_*``: the
    score times the field's size — matchpoints 2 a twin beaten, 1 a tie, or the IMPs summed —
    what the standings add up). ``twin``: the table played the board rotated one seat."""

    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="results")
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="board_results")
    twin = models.BooleanField(_("rotated (twin)"), default=False)
    net_a = models.IntegerField(_("net points A"))
    net_b = models.IntegerField(_("net points B"))
    score_a = models.FloatField(_("score A"), null=True)
    score_b = models.FloatField(_("score B"), null=True)
    points_a = models.IntegerField(_("duplicate points A"), default=0)
    points_b = models.IntegerField(_("duplicate points B"), default=0)

    class Meta:
        verbose_name = _("board result")
        verbose_name_plural = _("board results")
        ordering = ["board", "table__number"]
        constraints = [models.UniqueConstraint(fields=["board", "table"],
                                               name="board_result_unique")]


class Seat(models.Model):
    """A player's seat (0–5) at a table; team of a seat is ``seat % 2`` (联邦 0 or 1)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats",
                              verbose_name=_("table"))
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField(_("seat"))
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats",
                               verbose_name=_("player"))
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="seats",
                              verbose_name=_("entry"))

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["table", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seat"], name="seat_unique_at_table"),
            models.UniqueConstraint(fields=["round", "player"], name="seat_player_once_per_round"),
            models.CheckConstraint(condition=Q(seat__lte=5), name="seat_0_to_5"),
        ]

    def __str__(self):
        return f"{self.table} · {_('seat')} {self.seat}: {self.player}"

    @property
    def side(self) -> int:
        """The 联邦 of this seat: 0 (seats 0, 2, 4) or 1 (seats 1, 3, 5)."""
        return self.seat % 2


class Bye(models.Model):
    """An entry that sits out a round (轮空) and scores the event's bye score."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="byes",
                              verbose_name=_("round"))
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="byes",
                              verbose_name=_("entry"))
    points = models.IntegerField(_("points"))

    class Meta:
        verbose_name = _("bye")
        verbose_name_plural = _("byes")
        constraints = [models.UniqueConstraint(fields=["round", "entry"],
                                               name="bye_once_per_round")]


class Penalty(models.Model):
    """A referee's penalty (大纲 第四章, 第二十九条)."""

    class Kind(models.TextChoices):
        WARNING = "warning", _("warning (警告)")
        LEAD_FORFEIT = "lead_forfeit", _("loss of a turn to play (取消一次发（顺）牌权)")
        POINT_DEDUCTION = "point_deduction", _("point deduction (罚分)")
        FORCED_LAST = "forced_last", _("forced 大落 (罚为大落)")
        DISQUALIFICATION = "disqualification", _("disqualification (取消参赛资格)")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="penalties",
                              verbose_name=_("event"))
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="penalties",
                              verbose_name=_("entry"))
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT,
                               related_name="penalties", verbose_name=_("player"))
    round = models.ForeignKey(Round, null=True, blank=True, on_delete=models.PROTECT,
                              related_name="penalties", verbose_name=_("round"))
    table = models.ForeignKey(Table, null=True, blank=True, on_delete=models.PROTECT,
                              related_name="penalties", verbose_name=_("table"))
    game_number = models.PositiveSmallIntegerField(_("game"), null=True, blank=True)
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    points = models.PositiveIntegerField(_("points deducted"), default=0)
    reason = models.TextField(_("reason"))
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+",
                                   verbose_name=_("by"))
    created_at = models.DateTimeField(_("at"), auto_now_add=True)

    class Meta:
        verbose_name = _("penalty")
        verbose_name_plural = _("penalties")
        ordering = ["event", "created_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind="point_deduction", points__gte=1) | ~Q(kind="point_deduction"),
                name="penalty_deduction_has_points"),
            models.CheckConstraint(condition=~Q(reason=""), name="penalty_has_reason"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()}: {self.player or self.entry}"


#: a prize names places 1 to this many (far more than any event has entries)
PRIZE_PLACE_MAX = 100_000


class Prize(models.Model):
    """A prize (奖项) the organizers give to the places ``place_from``–``place_to`` of the final
    standings ("一等奖" for 1–3, say); each place of the range gets it. The ranges of one event
    do not overlap (``tournaments.services.event_prizes_set`` checks it)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="prizes",
                              verbose_name=_("event"))
    place_from = models.PositiveIntegerField(
        _("from place"), validators=[MinValueValidator(1), MaxValueValidator(PRIZE_PLACE_MAX)])
    place_to = models.PositiveIntegerField(
        _("to place"), validators=[MinValueValidator(1), MaxValueValidator(PRIZE_PLACE_MAX)])
    name = models.CharField(_("prize"), max_length=100)

    class Meta:
        verbose_name = _("prize")
        verbose_name_plural = _("prizes")
        ordering = ["event", "place_from"]
        constraints = [
            models.CheckConstraint(condition=Q(place_from__gte=1), name="prize_place_ge_1"),
            models.CheckConstraint(condition=Q(place_to__gte=models.F("place_from")),
                                   name="prize_places_in_order"),
            models.CheckConstraint(condition=~Q(name=""), name="prize_has_name"),
            models.UniqueConstraint(fields=["event", "place_from"], name="prize_place_once"),
        ]

    def __str__(self):
        return f"{self.places}: {self.name}"

    @property
    def places(self) -> str:
        """The range as people write it: "1" or "1–3"."""
        if self.place_from == self.place_to:
            return str(self.place_from)
        return f"{self.place_from}–{self.place_to}"


class StandingValues(models.Model):
    """An entry's place and the figures behind it (shared by the live standings and the
    released ones)."""

    rank = models.PositiveIntegerField(_("rank"))
    points = models.IntegerField(_("points"), default=0)
    match_points = models.IntegerField(_("match points"), default=0)
    game_wins = models.IntegerField(_("games won"), default=0)
    head_count = models.IntegerField(_("头科 count"), default=0)
    opponents_points = models.IntegerField(_("opponents' points"), default=0)
    head_to_head = models.IntegerField(_("head-to-head"), default=0)
    games_played = models.IntegerField(_("games played"), default=0)
    byes = models.IntegerField(_("byes"), default=0)
    penalty_points = models.IntegerField(_("penalty points"), default=0)
    drawn = models.CharField(_("drawn order"), max_length=64, default="")
    previous_rank = models.PositiveIntegerField(_("previous rank"), null=True, blank=True)
    through_round = models.PositiveSmallIntegerField(_("through round"), default=0)

    class Meta:
        abstract = True


class Standing(StandingValues):
    """An entry's place in the event, from confirmed results only (live: recomputed on every
    change)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="standings",
                              verbose_name=_("event"))
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="standings",
                              verbose_name=_("entry"))
    computed_at = models.DateTimeField(_("computed"), auto_now=True)

    class Meta:
        verbose_name = _("standing")
        verbose_name_plural = _("standings")
        ordering = ["event", "rank", "pk"]
        constraints = [models.UniqueConstraint(fields=["event", "entry"],
                                               name="standing_once_per_entry")]


class ReleasedStanding(StandingValues):
    """An entry's place after round ``through_round`` as the organizers released it (公布): what
    the public sees while the event holds its standings back (``Event.standings_released_round``).
    Written once per release, never recomputed (a correction shows when the round is released
    again)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="released_standings",
                              verbose_name=_("event"))
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+",
                              verbose_name=_("entry"))
    released_at = models.DateTimeField(_("released"), auto_now_add=True)

    class Meta:
        verbose_name = _("released standing")
        verbose_name_plural = _("released standings")
        ordering = ["event", "through_round", "rank", "pk"]
        constraints = [models.UniqueConstraint(fields=["event", "through_round", "entry"],
                                               name="released_standing_once_per_round")]


class RoundStandings(models.Model):
    """Every entry's cumulative standing figures through round ``round_number`` (before
    penalties, opponents' points and ranks, which are worked out from them on each use), stored
    once that round is over, so that a recompute starts from the last of them and reads only the
    results of later rounds (``tournaments.standings``). A cache: a change to a round deletes the
    stored rounds from it on, and ``standings_rebuild`` deletes them all.

    ``rows`` is JSON, one list per entry: ``[entry id, points, match points, games won, 头科
    count, games played, byes, [[round, [opponent ids]], …], [[my total, their total, [opponent
    ids]], …]]`` — one row per event and round, not per entry, for it is read and written whole
    (10,000 rows a round cost more to write than the recompute saves)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="round_standings",
                              verbose_name=_("event"))
    round_number = models.PositiveSmallIntegerField(_("through round"))
    rows = models.TextField(_("rows"))
    #: the ranks through this round (``[[entry id, rank], …]``: the ▲▼ arrows of the round
    #: after), and a digest of what they depend on besides ``rows`` (entries, penalties, the
    #: drawn order's seed, the tie-break order): used only while that digest still matches
    ranks = models.TextField(_("ranks"), blank=True)
    ranks_key = models.CharField(_("ranks digest"), max_length=64, blank=True)

    class Meta:
        verbose_name = _("standings through a round")
        verbose_name_plural = _("standings through rounds")
        constraints = [models.UniqueConstraint(fields=["event", "round_number"],
                                               name="round_standings_once_per_round")]


class PlayerLink(models.Model):
    """A player's private link (私人链接) for an entry: ``/p/<token>/`` opens that player's
    table in the event's current round — no password, as Tabbycat's private URLs.

    The token is never stored: it is an HMAC of ``nonce`` under the site's SECRET_KEY
    (:meth:`token`), so the slips can be printed again, while the database alone (a backup, a
    leak) gives no working link. ``token_hash`` (its SHA-256) finds the link from a URL. A
    re-issued link has a new nonce; a revoked one has ``revoked_at`` and opens nothing.
    Individual entries have one player; a 联邦 team's entry has one link per member."""

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="links",
                              verbose_name=_("entry"))
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="links",
                               verbose_name=_("player"))
    nonce = models.CharField(_("nonce"), max_length=64)
    token_hash = models.CharField(_("token hash"), max_length=64, unique=True)
    created_at = models.DateTimeField(_("issued"), auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+",
                                   verbose_name=_("issued by"))
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        verbose_name = _("private link")
        verbose_name_plural = _("private links")
        ordering = ["entry", "player", "-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["entry", "player"],
                                    condition=Q(revoked_at__isnull=True),
                                    name="link_one_active_per_player"),
        ]

    def __str__(self):
        return f"{self.player} · {self.entry.event}"

    def token(self) -> str:
        """The token of the link's URL (43 URL-safe characters, 256 bits)."""
        digest = salted_hmac("tournaments.PlayerLink", self.nonce, algorithm="sha256").digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")
