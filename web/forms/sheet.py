"""A result sheet as a form (成绩单): finishing order and the fields the event's rules use,
turned into the engine's ``gouji-sheet/1`` dict (engine/sheet.py).

One form for everyone who writes a sheet down: the referee copying a paper sheet at the desk and
the players' phone form. It checks only the form's shape (a seat named once per place, a
complete burn row); whether the sheet is possible under the rules is the engine's to say, when
:meth:`SheetForm.score` or the service (``games.services.result_validate``) scores it.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

import engine

#: the finishing places, 头科 to 大落 (engine.game.PLACE_WORD)
PLACES = [_("头科 (1st)"), _("二科 (2nd)"), _("三科 (3rd)"), _("四科 (4th)"), _("五科 (5th)"),
          _("大落 (last)")]
#: burn rows (烧牌) on a sheet, and smother rows (闷) when 憋3 is on
BURN_ROWS = 3
SMOTHER_ROWS = 2


def seat_label(seat: int, name: str = "") -> str:
    """A seat as people see it: 1–6号位 (the engine's 0–5), with the player's name."""
    label = _("%(n)s号位") % {"n": seat + 1}
    return f"{label} {name}" if name else label


class SheetForm(forms.Form):
    """The fields of one game's sheet. ``rules`` (an :class:`engine.Rules` or a spec) decides
    which fields exist: revolutions and 流局 with 革命, 开点 and declarations with 打点, smothers
    with 憋3; ``names`` (seat → player name) labels the seats. :meth:`sheet` is the engine's
    dict, once the form is valid."""

    def __init__(self, *args, rules, names: dict[int, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.rules = rules if isinstance(rules, engine.Rules) else engine.Rules.from_spec(rules)
        names = names or {}
        seats = [(str(s), seat_label(s, names.get(s, ""))) for s in range(6)]
        optional = [("", "—"), *seats]
        for i, label in enumerate(PLACES):
            self.fields[f"place_{i + 1}"] = forms.TypedChoiceField(
                label=label, choices=optional, coerce=int, empty_value=None, required=False)
        self.fields["leader"] = forms.TypedChoiceField(
            label=_("First lead"), choices=seats, coerce=int, initial=0,
            help_text=_("The seat that led the game's first combo"))
        out = [("", "—"), ("failed_burn", _("failed burn (诈烧)"))]
        if self.rules["bie3"] and self.rules["men"] == "last_place":
            out.append(("smothered", _("smothered (闷)")))
        for s in range(6):
            if self.rules["revolution"]:
                self.fields[f"revolution_{s}"] = forms.BooleanField(
                    label=_("革命"), required=False)
            self.fields[f"out_{s}"] = forms.ChoiceField(
                label=_("Eliminated"), choices=out, required=False)
            if self.rules["dadian"]:
                self.fields[f"kaidian_{s}"] = forms.BooleanField(label=_("开点"), required=False)
                self.fields[f"declared_{s}"] = forms.ChoiceField(
                    label=_("Declared"), required=False, choices=[
                        ("", "—"), ("mingdian", _("明点")), ("yudian", _("预点"))])
        if self.rules["revolution"]:
            self.fields["void"] = forms.BooleanField(
                label=_("Void (流局): two or more revolutions"), required=False)
        for k in range(1, BURN_ROWS + 1):
            self.fields[f"burn_{k}_burner"] = forms.TypedChoiceField(
                label=_("Burner"), choices=optional, coerce=int, empty_value=None,
                required=False)
            self.fields[f"burn_{k}_burned"] = forms.TypedChoiceField(
                label=_("Burned"), choices=optional, coerce=int, empty_value=None,
                required=False)
            self.fields[f"burn_{k}_counter"] = forms.BooleanField(
                label=pgettext_lazy("burn", "Countered"), required=False)
        if self.rules["bie3"]:
            for k in range(1, SMOTHER_ROWS + 1):
                self.fields[f"smother_{k}_seat"] = forms.TypedChoiceField(
                    label=_("Smothered seat"), choices=optional, coerce=int, empty_value=None,
                    required=False)
                self.fields[f"smother_{k}_by"] = forms.TypedChoiceField(
                    label=_("by"), choices=optional, coerce=int, empty_value=None,
                    required=False)

    # ------------------------------------------------------------------ layout helpers
    def place_fields(self):
        return [self[f"place_{i}"] for i in range(1, 7)]

    def seat_rows(self):
        """Per seat (1–6号位), its bound fields that exist under these rules."""
        rows = []
        for s in range(6):
            rows.append({"seat": s, "label": self.fields[f"out_{s}"].label, "fields": [
                self[name] for name in (f"revolution_{s}", f"out_{s}", f"kaidian_{s}",
                                        f"declared_{s}") if name in self.fields]})
        return rows

    def burn_rows(self):
        return [[self[f"burn_{k}_{part}"] for part in ("burner", "burned", "counter")]
                for k in range(1, BURN_ROWS + 1)]

    def smother_rows(self):
        return [[self[f"smother_{k}_{part}"] for part in ("seat", "by")]
                for k in range(1, SMOTHER_ROWS + 1) if f"smother_{k}_seat" in self.fields]

    # ------------------------------------------------------------------ checking
    def clean(self):
        data = super().clean()
        void = data.get("void", False)
        order = [data.get(f"place_{i}") for i in range(1, 7)]
        if not void:
            seen = {}
            for i, seat in enumerate(order, start=1):
                if seat is None:
                    self.add_error(f"place_{i}", _("Pick the seat that finished here."))
                elif seat in seen:
                    self.add_error(f"place_{i}", _(
                        "%(seat)s is already %(place)s.") % {
                        "seat": seat_label(seat), "place": PLACES[seen[seat]]})
                else:
                    seen[seat] = i - 1
        for k in range(1, BURN_ROWS + 1):
            burner, burned = data.get(f"burn_{k}_burner"), data.get(f"burn_{k}_burned")
            if (burner is None) != (burned is None):
                self.add_error(f"burn_{k}_burned" if burned is None else f"burn_{k}_burner",
                               _("A burn names both the burner and the burned seat."))
        for k in range(1, SMOTHER_ROWS + 1):
            if f"smother_{k}_seat" not in self.fields:
                continue
            seat, by = data.get(f"smother_{k}_seat"), data.get(f"smother_{k}_by")
            if (seat is None) != (by is None):
                self.add_error(f"smother_{k}_by" if by is None else f"smother_{k}_seat",
                               _("A smother names the smothered seat and who beat it."))
        return data

    def sheet(self) -> dict:
        """The engine's sheet (without ``format`` and ``rules``, which the service sets from
        the event): eliminated seats listed from the bottom place up, as the engine places
        them (engine.game.scoring)."""
        d = self.cleaned_data
        revolutions = [s for s in range(6) if d.get(f"revolution_{s}")]
        sheet = {"leader": d["leader"], "revolutions": revolutions}
        if d.get("void"):
            sheet["void"] = True
            return sheet
        order = [d[f"place_{i}"] for i in range(1, 7)]
        sheet["order"] = order
        sheet["eliminated"] = [{"seat": s, "reason": d[f"out_{s}"]} for s in reversed(order)
                               if d.get(f"out_{s}")]
        if self.rules["dadian"]:
            sheet["kaidian"] = [bool(d.get(f"kaidian_{s}")) for s in range(6)]
            declared = [d.get(f"declared_{s}") or None for s in range(6)]
            if any(declared):
                sheet["declared"] = declared
        sheet["burns"] = [
            {"burner": d[f"burn_{k}_burner"], "burned": d[f"burn_{k}_burned"],
             "counter": bool(d.get(f"burn_{k}_counter"))}
            for k in range(1, BURN_ROWS + 1) if d.get(f"burn_{k}_burner") is not None]
        smothers = [{"seat": d[f"smother_{k}_seat"], "by": d[f"smother_{k}_by"]}
                    for k in range(1, SMOTHER_ROWS + 1) if d.get(f"smother_{k}_seat") is not None]
        if smothers:
            sheet["smothers"] = smothers
        return sheet

    def score(self) -> dict:
        """The engine's result for this sheet under the form's rules (``ok`` false with the
        engine's ``error`` when it refuses it): the team points to show before sending."""
        return engine.score_sheet({"format": "gouji-sheet/1", "rules": self.rules.spec(),
                                   **self.sheet()})

    @classmethod
    def initial_from(cls, sheet: dict) -> dict:
        """Form data from a stored sheet or engine result (to start a correction from what
        stands)."""
        initial = {"leader": sheet.get("leader", 0), "void": bool(sheet.get("void"))}
        for i, seat in enumerate(sheet.get("order") or [], start=1):
            initial[f"place_{i}"] = seat
        for s in sheet.get("revolutions") or []:
            initial[f"revolution_{s}"] = True
        for e in sheet.get("eliminated") or []:
            initial[f"out_{e['seat']}"] = e["reason"]
        for s, flag in enumerate(sheet.get("kaidian") or []):
            initial[f"kaidian_{s}"] = bool(flag)
        for s, word in enumerate(sheet.get("declared") or []):
            initial[f"declared_{s}"] = word or ""
        for k, burn in enumerate((sheet.get("burns") or [])[:BURN_ROWS], start=1):
            initial.update({f"burn_{k}_burner": burn["burner"],
                            f"burn_{k}_burned": burn["burned"],
                            f"burn_{k}_counter": burn["counter"]})
        for k, smother in enumerate((sheet.get("smothers") or [])[:SMOTHER_ROWS], start=1):
            initial.update({f"smother_{k}_seat": smother["seat"],
                            f"smother_{k}_by": smother["by"]})
        return initial
