"""The API's filter sets where a field's name cannot be its query parameter."""

from __future__ import annotations

import django_filters

from tournaments.models import Event


class EventFilter(django_filters.FilterSet):
    """``GET /events/``: ``?event_format=individual|team`` and ``?status=``.

    The event's format is not ``?format=``: DRF reads ``format`` as the renderer to answer
    with (``?format=json``, ``?format=api`` for the browsable API), and ``?format=api`` was
    refused as an unknown event format (400). An older client's ``?format=team`` still filters
    (a value no renderer has is left to the filter: api/negotiation.py)."""

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
