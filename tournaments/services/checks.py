"""The refusals every subject's services share: a value out of its field's bounds, rules the
engine refuses, a finished event; and the number the next round takes."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db.models import Max, Model
from django.utils.translation import gettext as _

import engine
from tournaments.errors import ServiceError
from tournaments.models import Event


def check_bounds(*, model: type[Model], code: str, values: dict) -> None:
    """Refuse a value its model field's validators refuse (a length, a range: the bounds the
    database or the game needs), naming the field in the message and in ``detail.field``."""
    for name, value in values.items():
        if value is None:
            continue
        try:
            model._meta.get_field(name).run_validators(value)
        except ValidationError as exc:
            raise ServiceError(code, f"{name}: {exc.messages[0]}",
                               detail={"field": name}) from None


def rules_check(*, rules):
    """Return the rules spec if the engine accepts it, else refuse with the engine's reason."""
    try:
        return engine.Rules.from_spec(rules).spec()
    except engine.RulesError as exc:
        raise ServiceError("bad_rules", str(exc)) from None


def next_round_number(event: Event) -> int:
    last = event.rounds.aggregate(m=Max("number"))["m"] or 0
    return last + 1


def check_open(event: Event):
    if event.status == Event.Status.FINISHED:
        raise ServiceError("event_finished", _("the event is finished"))
