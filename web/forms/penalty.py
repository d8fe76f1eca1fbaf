"""A referee's penalty (处罚, 大纲 第四章) as a form: the player picked by name or number, the
kind, the points or the game it concerns, and the reason; ``tournaments.services.penalty_add``
decides the rest."""

from __future__ import annotations

import re

from django import forms
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tournaments.models import Entry, Event, Penalty, Player, TeamMember

#: "张伟 (#101)", as ``str(player)`` and the form's suggestions spell a player
NUMBER_IN_LABEL = re.compile(r"\(#(\d{1,10})\)\s*$")


def event_player(event: Event, text: str) -> tuple[Player, Entry]:
    """The event's player named by ``text`` — a player number, ``name (#number)``, or a name —
    and the entry they play for (their own, or their 联邦 team's). Raises
    :class:`forms.ValidationError` naming what is wrong."""
    text = (text or "").strip()
    label = NUMBER_IN_LABEL.search(text)
    number = int(label.group(1)) if label else (
        int(text) if text.isascii() and text.isdigit() and len(text) <= 10 else None)
    in_event = Q(entries__event=event) | Q(memberships__event=event,
                                           memberships__status=TeamMember.Status.ACCEPTED)
    players = Player.objects.filter(in_event).distinct().order_by("pk")
    if number is not None:
        found = list(players.filter(number=number)[:2])
    else:
        found = list(players.filter(name__iexact=text)[:2]) or list(
            players.filter(name__icontains=text)[:2])
    if not found:
        raise forms.ValidationError(_("No player of this event is called “%(q)s”."),
                                    params={"q": text}, code="no_player")
    if len(found) > 1:
        raise forms.ValidationError(_("Several players match “%(q)s”: give the player number."),
                                    params={"q": text}, code="several_players")
    player = found[0]
    entry = Entry.objects.filter(event=event).filter(
        Q(player=player) | Q(team__members__player=player,
                             team__members__status=TeamMember.Status.ACCEPTED)).first()
    return player, entry


class PenaltyForm(forms.Form):
    """``games`` lists the table's game numbers (for a forced 大落 the game is needed)."""

    who = forms.CharField(label=_("Player (name or number)"), max_length=120)
    kind = forms.ChoiceField(label=_("Penalty"), choices=Penalty.Kind.choices)
    points = forms.IntegerField(label=_("Points deducted"), min_value=0, required=False,
                                help_text=_("For a point deduction (罚分)"))
    game_number = forms.TypedChoiceField(label=_("Game"), coerce=int, empty_value=None,
                                         required=False,
                                         help_text=_("For a forced 大落 (罚为大落)"))
    reason = forms.CharField(label=_("Reason"), max_length=2000, widget=forms.Textarea(
        attrs={"rows": 2}))

    def __init__(self, *args, event: Event, games: list[int], **kwargs):
        super().__init__(*args, **kwargs)
        self.event = event
        self.fields["game_number"].choices = [("", "—")] + [
            (n, _("game %(n)s") % {"n": n}) for n in games]

    def clean_who(self):
        self.player, self.entry = event_player(self.event, self.cleaned_data["who"])
        return self.cleaned_data["who"]
