"""The admin's forms: an event's settings as labelled fields (rules preset and options, the
tie-break order), 联邦 teams and penalties — each saved through the services, so a refusal is a
form error that changes nothing."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.functional import lazy
from django.utils.text import capfirst
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

import engine
from engine import rules as engine_rules
from tournaments.errors import ServiceError
from tournaments.exchange import imports
from tournaments.models import TIE_BREAK_CHOICES, Entry, Event, Penalty, Team
from tournaments.rule_texts import PRESET_CHOICES, RULE_OPTIONS, VALUE_LABELS
from tournaments.services.checks import rules_check
from tournaments.services.entries import entry_register
from tournaments.services.events import (
    EDITABLE_ALWAYS,
    EDITABLE_BEFORE_ROUND_1,
    event_create,
    event_publish,
    event_slug,
    event_update,
)
from tournaments.services.penalties import penalty_add
from tournaments.services.teams import team_register


def _value_key(value) -> str:
    return {True: "on", False: "off"}.get(value, str(value))


def _option_field(name: str) -> forms.Field:
    label, help_text = RULE_OPTIONS[name]
    label = capfirst(label)
    choices = engine_rules.OPTION_CHOICES[name]
    if choices is None:
        return forms.IntegerField(label=label, help_text=help_text, required=False,
                                  min_value=0, max_value=9)
    return forms.ChoiceField(label=label, help_text=help_text, required=False, choices=[
        ("", _("as the preset"))] + [(_value_key(v), VALUE_LABELS[v]) for v in choices])


def rules_option_fields() -> dict[str, forms.Field]:
    """A field ``rule_<option>`` per rules option: empty means "as the preset"."""
    assert set(RULE_OPTIONS) == set(engine_rules.OPTION_CHOICES), "an option has no label"
    return {f"rule_{name}": _option_field(name) for name in RULE_OPTIONS}


TIE_BREAK_SLOTS = len(TIE_BREAK_CHOICES)

#: the event's name field (the model's bare "name" reads 姓名, a person's name, in Chinese)
EVENT_NAME_LABEL = pgettext_lazy("event", "event name")


def rules_initial(spec) -> dict:
    """The rules fields' values for a stored spec: ``rules_preset`` and a ``rule_<option>``
    per option set apart from the preset."""
    rules = engine.Rules.from_spec(spec).spec()
    preset, options = (rules, {}) if isinstance(rules, str) else (
        rules.get("preset", "dagang"), rules.get("options") or {})
    initial = {"rules_preset": preset}
    for name, value in options.items():
        initial[f"rule_{name}"] = value if isinstance(value, int) and not isinstance(
            value, bool) else _value_key(value)
    return initial


def rules_from(data: dict):
    """The spec the rules fields of ``data`` (a form's cleaned data) describe — a preset
    name, or the preset and its changed options — and the reason it is refused (``None``:
    the engine takes it), in the reader's language."""
    options = {}
    for name, choices in engine_rules.OPTION_CHOICES.items():
        value = data.get(f"rule_{name}")
        if value in (None, ""):
            continue
        options[name] = value if choices is None else {
            _value_key(v): v for v in choices}[value]
    preset = data.get("rules_preset") or "dagang"
    spec = {"preset": preset, "options": options} if options else preset
    bie3 = options.get("bie3", engine_rules.PRESETS.get(preset, {}).get(
        "bie3", engine_rules.DEFAULTS["bie3"]))
    if options.get("hui3") is True and bie3:
        return spec, gettext("会3 cannot be used with 憋3: turn 憋3 off or leave 会3 as "
                             "the preset.")
    try:
        return rules_check(rules=spec), None
    except ServiceError as exc:
        return spec, exc.message


def tie_breaks_from(data: dict) -> tuple[list[str], str | None]:
    """The tie-break order the ``tie_break_<k>`` fields of ``data`` give, first to last, and
    the reason it is refused (``None``: fine)."""
    order = [t for t in (data.get(f"tie_break_{k}") for k in range(TIE_BREAK_SLOTS)) if t]
    if len(set(order)) != len(order):
        return order, gettext("each tie-break may be chosen once")
    return order, None


class ServiceForm(forms.ModelForm):
    """A model form whose object the services save (:meth:`save_through_services`) once the
    form is otherwise valid: a refusal is a form error (on the field it names) and changes
    nothing. The admin's view runs in one transaction, so what the services write is committed
    with the rest of the page (e.g. an event's staff lists) or not at all; the admin saves
    nothing more (``ServiceAdmin``)."""

    def save_through_services(self, data: dict):
        """Save ``data`` through the services and return the saved object; each subclass says
        which services (this base form is never used alone)."""
        raise NotImplementedError

    def _post_clean(self):
        super()._post_clean()
        if self.errors:
            return
        try:
            self.instance = self.save_through_services(self.cleaned_data)
        except ServiceError as exc:
            field = (exc.detail or {}).get("field")
            self.add_error(field if field in self.fields else None, exc.message)


class EventAdminForm(ServiceForm):
    """An event's settings, through :func:`~tournaments.services.event_create`,
    :func:`~tournaments.services.event_update` and :func:`~tournaments.services.event_publish`.

    The rules are a preset plus one field per option (only the options set differently from
    the preset are stored: the same spec ``{"preset", "options"}`` the API takes); the
    tie-break order is a list of selects, first to last (no JavaScript needed)."""

    rules_preset = forms.ChoiceField(label=capfirst(_("rules preset")), choices=PRESET_CHOICES,
                                     initial="dagang", help_text=_(
                                         "The rule book's presets (RULES.md §13); each option "
                                         "below left “as the preset” follows it."))

    class Meta:
        model = Event
        exclude = ("rules", "tie_breaks")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "slug" in self.fields:
            self.fields["slug"].required = False
            self.fields["slug"].help_text = _(
                "The event's address (/e/…/). Leave empty to make it from the name in "
                "pinyin; it cannot change later.")
        if "name" in self.fields:
            self.fields["name"].label = capfirst(EVENT_NAME_LABEL)
        for key, value in rules_initial(self.instance.rules if self.instance.pk
                                        else "dagang").items():
            self.initial.setdefault(key, value)
        for k, name in enumerate(self.instance.tie_breaks or []):
            self.initial.setdefault(f"tie_break_{k}", name)

    def clean(self):
        data = super().clean()
        data["rules"], refused = rules_from(data)
        if refused:
            self.add_error(None, refused)
        data["tie_breaks"], refused = tie_breaks_from(data)
        if refused:
            self.add_error("tie_break_0", refused)
        if not data.get("slug") and data.get("name") and not self.instance.pk:
            data["slug"] = event_slug(data["name"])
        return data

    def save_through_services(self, data: dict) -> Event:
        settings = EDITABLE_ALWAYS | EDITABLE_BEFORE_ROUND_1
        if self.instance._state.adding:
            event = event_create(**{k: data[k] for k in settings | {"slug"}})
        else:
            stored = Event.objects.get(pk=self.instance.pk)
            event = event_update(event=stored, **{
                k: data[k] for k in settings if data[k] != getattr(stored, k)})
        if data["published"] != event.published:
            event = event_publish(event=event, published=data["published"])
        return event

    def validate_unique(self):
        """The slug's uniqueness is the service's (a clear ``slug_taken``)."""
        exclude = self._get_validation_exclusions()
        exclude.add("slug")
        try:
            self.instance.validate_unique(exclude=exclude)
        except ValidationError as e:
            self._update_errors(e)


class EntryAdminForm(ServiceForm):
    """A player's entry in an individual event, through
    :func:`~tournaments.services.entry_register` (a 联邦 team registers with its players on the
    team's page); its status then changes through the actions."""

    class Meta:
        model = Entry
        fields = ("event", "player")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "player" in self.fields:
            self.fields["player"].required = True

    def save_through_services(self, data: dict) -> Entry:
        return entry_register(event=data["event"], player=data["player"])


def _tie_break_text(n: int) -> str:
    return capfirst(gettext("tie-break %(n)s") % {"n": n})


#: translated when shown, in the page's language
_tie_break_label = lazy(_tie_break_text, str)


def tie_break_fields() -> dict[str, forms.Field]:
    """``tie_break_0`` … one select per place in the order (empty: not used)."""
    return {f"tie_break_{k}": forms.ChoiceField(
        label=_tie_break_label(k + 1), required=False,
        choices=[("", "—")] + list(TIE_BREAK_CHOICES.items()),
        help_text=_("All empty: the format's default order.") if k == 0 else "")
        for k in range(TIE_BREAK_SLOTS)}


# the option and tie-break fields are declared fields of the form (the admin builds its form
# class from them), made from the engine's list of options
for _fields in (rules_option_fields(), tie_break_fields()):
    EventAdminForm.declared_fields.update(_fields)
    EventAdminForm.base_fields.update(_fields)


class TeamAdminForm(forms.ModelForm):
    """A 联邦 team's event (team events only) and name; its players are the inline's."""

    class Meta:
        model = Team
        fields = ("event", "name")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "event" in self.fields:
            self.fields["event"].queryset = Event.objects.filter(format=Event.Format.TEAM)

    def _post_clean(self):
        super()._post_clean()
        self.instance._form_valid = not self.errors


class TeamMemberFormSet(forms.BaseInlineFormSet):
    """A new team's three players, registered with the team through
    :func:`~tournaments.services.team_register` once the team's own form is valid (the admin
    validates that form first): the event's staff register them, so all three join at once."""

    def clean(self):
        super().clean()
        team = self.instance
        if not (team._state.adding and getattr(team, "_form_valid", False)) or any(
                self.errors):
            return
        players = [f.cleaned_data["player"] for f in self.forms if f.cleaned_data.get("player")]
        try:
            entry = team_register(event=team.event, name=team.name, players=players)
        except ServiceError as exc:
            raise ValidationError(exc.message) from None
        team.pk, team._state.adding = entry.team_id, False


class PenaltyAdminForm(ServiceForm):
    """A referee's penalty, through :func:`~tournaments.services.penalty_add` (which checks the
    entry and the player are in the event, and applies a deduction, a forced 大落 or a
    disqualification). ``by``: the user recording it (set by the admin)."""

    by = None

    class Meta:
        model = Penalty
        fields = ("event", "entry", "player", "kind", "points", "reason", "round", "table",
                  "game_number")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "points" in self.fields:  # the add form (a penalty is then shown read only)
            self.fields["points"].required = False

    def save_through_services(self, data: dict) -> Penalty:
        return penalty_add(
            event=data["event"], entry=data["entry"], kind=data["kind"], reason=data["reason"],
            points=data.get("points") or 0, player=data.get("player"), round=data.get("round"),
            table=data.get("table"), game_number=data.get("game_number"), by=self.by)


class ImportForm(forms.Form):
    """A bulk registration: a CSV (UTF-8, GBK, GB18030) or XLSX file, or names pasted a line
    each (team events: the team and its three players a line)."""

    file = forms.FileField(label=_("CSV or XLSX file"), required=False, help_text=_(
        "Headings: name, club, number, checked_in (individual events); team, player_1, "
        "number_1, player_2, number_2, player_3, number_3, club, checked_in (team events). "
        "Chinese headings (姓名, 俱乐部, 编号, 队名, 队员1…) work too."))
    names = forms.CharField(label=_("or paste names"), required=False, widget=forms.Textarea(
        attrs={"rows": 8, "cols": 60}), help_text=_(
        "One player a line; team events: the team and its three players a line, separated "
        "by commas."))

    def clean(self):
        data = super().clean()
        if not data.get("file") and not (data.get("names") or "").strip():
            raise ValidationError(_("Choose a file or paste names."))
        return data

    def rows(self, *, team: bool) -> tuple[list[dict], str]:
        """The rows to import and where they came from (the file's encoding, or pasted)."""
        upload = self.cleaned_data.get("file")
        if upload:
            return imports.read_file(upload.read(imports.MAX_BYTES + 1), team=team)
        return imports.read_pasted(self.cleaned_data["names"], team=team), _("pasted text")
