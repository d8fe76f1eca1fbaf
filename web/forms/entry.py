"""A player registered at the desk (a late entry after round 1), as a form of the console."""

from __future__ import annotations

from django import forms
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from tournaments.models import Player


class EntryAddForm(forms.Form):
    """A player's name, and optionally their number and club; checked in at once unless the
    box is cleared. A number an existing player holds registers that player."""

    name = Player._meta.get_field("name").formfield(label=capfirst(_("player's name")))
    number = Player._meta.get_field("number").formfield(required=False, help_text=_(
        "Optional: a player who already has this number is registered as they are."))
    club = Player._meta.get_field("club").formfield(required=False)
    check_in = forms.BooleanField(label=_("check in now"), required=False, initial=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.label = capfirst(field.label)
