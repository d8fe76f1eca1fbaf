"""The API's filter sets where a field's name cannot be its query parameter."""

from __future__ import annotations

import django_filters
from django import forms

from tournaments.models import Entry, Event


class EventFilter(django_filters.FilterSet):
    """``GET /events/``: ``?event_format=individual|team`` and ``?status=``.

    The event's format is not ``?format=``: DRF reads ``format`` as the renderer to answer
    with (``?format=json``, ``?format=api`` for the browsable API), and ``?format=api`` was
    refused as an unknown event format (400). An older client's ``?format=team`` still filters
    (api/negotiation.py leaves it to the filter there)."""

    event_format = django_filters.ChoiceFilter(
        field_name="format", choices=Event.Format.choices,
        label="the event's format (individual: drawn teams; team: 联邦 teams)")

    class Meta:
        model = Event
        fields = ["event_format", "status"]

    def __init__(self, data=None, *args, **kwargs):
        if data is not None and "event_format" not in data and (
                data.get("format") in Event.Format.values):
            data = data.copy()
            data["event_format"] = data["format"]
        super().__init__(data, *args, **kwargs)


class StrictBooleanField(forms.Field):
    """``true`` or ``false`` (a boolean as a query string spells it; also ``1`` and ``0``).
    django-filter's boolean filter read anything else as "no filter", answering every row to
    ``?late=yes please``; this refuses it, naming the parameter."""

    widget = forms.TextInput
    VALUES = {"true": True, "1": True, "false": False, "0": False}

    def to_python(self, value):
        if value in (None, ""):
            return None
        try:
            return self.VALUES[value.lower()]
        except KeyError:
            raise forms.ValidationError(f"true or false, not {value[:20]!r}") from None


class StrictBooleanFilter(django_filters.BooleanFilter):
    field_class = StrictBooleanField


class EntryFilter(django_filters.FilterSet):
    """``GET /events/{slug}/entries/``: ``?status=`` and ``?late=true|false``."""

    late = StrictBooleanFilter(label="late entries only (true), or none of them (false)")

    class Meta:
        model = Entry
        fields = ["status", "late"]
