"""An event's settings as the organizer's console edits them (赛事设置): the fields of
:class:`tournaments.models.Event` an organizer sets, with their model validators and labels, the
rules as a preset and one control per option, and the tie-break order as a list of selects —
saved through ``tournaments.services.event_create`` / ``event_update``, whose refusals become
errors on the field they name."""

from __future__ import annotations

from django import forms
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from tournaments.errors import ServiceError
from tournaments.forms import (
    EVENT_NAME_LABEL,
    rules_from,
    rules_initial,
    rules_option_fields,
    tie_break_fields,
    tie_breaks_from,
)
from tournaments.models import Event
from tournaments.rule_texts import PRESET_CHOICES, RULE_OPTIONS
from tournaments.services.events import (
    EDITABLE_ALWAYS,
    EDITABLE_BEFORE_ROUND_1,
    event_create,
    event_slug,
    event_update,
    slug_fixed,
)

#: the settings, in the order the form shows them (the rules and tie-breaks follow)
EVENT_FIELDS = ("name", "slug", "format", "rounds_planned", "games_per_match", "bye_points",
                "swiss_brackets", "knockout_teams", "knockout_seeding", "move_seconds",
                "spectator_delay", "duplicate", "duplicate_group", "rated", "show_ratings",
                "rating_balance")
GROUPS = [
    (_("The event"), ["name", "slug", "format", "rounds_planned", "games_per_match",
                      "bye_points", "swiss_brackets"]),
    (_("Knockout finals (team events)"), ["knockout_teams", "knockout_seeding"]),
    (_("Live play"), ["move_seconds", "spectator_delay", "duplicate", "duplicate_group"]),
    (_("Ratings"), ["rated", "show_ratings", "rating_balance"]),
]
KNOCKOUT_CHOICES = [(0, _("none")), *((n, str(n)) for n in (2, 4, 8, 16, 32, 64))]


class EventForm(forms.Form):
    """A new event (``instance=None``) or an existing one's settings. What can no longer
    change — the slug once the event is public or has a round, the rules, format and games
    per match once round 1 exists — is shown disabled with the reason as its help."""

    rules_preset = forms.ChoiceField(label=capfirst(_("rules preset")), choices=PRESET_CHOICES,
                                     initial="dagang", help_text=_(
                                         "The rule book's presets (RULES.md §13); each option "
                                         "below left “as the preset” follows it."))

    def __init__(self, *args, instance: Event | None = None, **kwargs):
        self.instance = instance
        initial = kwargs.pop("initial", None) or {}
        if instance is not None:
            initial = {**{k: getattr(instance, k) for k in EVENT_FIELDS},
                       **rules_initial(instance.rules),
                       **{f"tie_break_{k}": t for k, t in enumerate(instance.tie_breaks or [])},
                       **initial}
        super().__init__(*args, initial=initial, **kwargs)
        fields = {}
        for name in EVENT_FIELDS:
            model_field = Event._meta.get_field(name)
            field = model_field.formfield()
            field.label = capfirst(field.label)
            if isinstance(field, forms.IntegerField):  # the model's bounds, said at the field
                field.validators = [*field.validators, *model_field.validators]
            fields[name] = field
        fields["name"].label = capfirst(EVENT_NAME_LABEL)
        fields["knockout_teams"] = forms.TypedChoiceField(
            label=fields["knockout_teams"].label, help_text=fields["knockout_teams"].help_text,
            choices=KNOCKOUT_CHOICES, coerce=int, initial=0)
        for name in ("duplicate", "duplicate_group"):  # left out: off, a pair of tables
            fields[name].required = False
        slug = fields["slug"]
        slug.required = False
        slug.help_text = _("The event's address (/e/…/). Leave it empty to make it from the "
                           "name in pinyin. It can change until the event is published or "
                           "has a round.")
        self.fields = {**{n: fields[n] for n in EVENT_FIELDS},
                       "rules_preset": self.fields["rules_preset"], **rules_option_fields(),
                       **tie_break_fields()}
        self.fixed_reasons = {}
        if instance is not None:
            why = slug_fixed(instance)
            if why:
                self._fix(["slug"], why)
            if instance.rounds.exists():
                self._fix(["format", "games_per_match", "swiss_brackets", "knockout_teams",
                           "duplicate", "duplicate_group",
                           "rules_preset", *(f"rule_{n}" for n in RULE_OPTIONS)],
                          _("fixed once round 1 exists: results are scored under it"))
                self.fixed_reasons["rules"] = self.fixed_reasons["rules_preset"]

    def _fix(self, names, why) -> None:
        for name in names:
            self.fields[name].disabled = True
            self.fields[name].help_text = why
            self.fixed_reasons[name] = why

    # the form's parts, for the template's sections
    def groups(self) -> list[tuple]:
        """The settings in sections: (title, bound fields)."""
        return [(title, [self[name] for name in names]) for title, names in GROUPS]

    def rules_fields(self):
        return [self["rules_preset"]] + [self[f"rule_{n}"] for n in RULE_OPTIONS]

    def tie_break_fields(self):
        return [self[name] for name in self.fields if name.startswith("tie_break_")]

    def clean(self):
        data = super().clean()
        data["rules"], refused = rules_from(data)
        if refused:
            self.add_error("rules_preset", refused)
        data["tie_breaks"], refused = tie_breaks_from(data)
        if refused:
            self.add_error("tie_break_0", refused)
        if not data.get("duplicate"):
            data["duplicate"] = getattr(self.instance, "duplicate", Event.Duplicate.OFF)
        if data.get("duplicate_group") is None:
            data["duplicate_group"] = getattr(self.instance, "duplicate_group", 2)
        if not data.get("slug"):
            if self.instance is not None:
                data["slug"] = self.instance.slug
            elif data.get("name"):
                data["slug"] = event_slug(data["name"])
        return data

    def save(self, *, organizer) -> Event | None:
        """Create or update the event through the services; a refusal becomes a form error and
        ``None`` is returned (nothing changed)."""
        if not self.is_valid():
            return None
        data = self.cleaned_data
        settings = EDITABLE_ALWAYS | EDITABLE_BEFORE_ROUND_1 | {"slug"}
        try:
            if self.instance is None:
                return event_create(organizer=organizer,
                                             **{k: data[k] for k in settings})
            changed = {k: data[k] for k in settings
                       if k not in self.fixed_reasons and data[k] != getattr(self.instance, k)}
            return event_update(event=self.instance, **changed)
        except ServiceError as exc:
            field = (exc.detail or {}).get("field")
            if field not in self.fields:
                field = None
            message = str(exc.message)
            if field and message.startswith(f"{field}: "):  # the service names the field
                message = message[len(field) + 2:]
            self.add_error(field, message)
            return None
