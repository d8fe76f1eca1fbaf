"""A result sheet as a form (成绩单): the finishing order and the fields the event's rules use,
turned into the engine's ``gouji-sheet/1`` dict (engine/sheet.py); the engine's refusals of it
come back on the form's fields through :mod:`web.refusals`.

The one form for everyone who writes a sheet down: the seated players' phone form
(web/views/table.py) and the referee copying a paper sheet at the desk (web/views/desk.py). It
checks only the form's shape (each seat placed once); whether the sheet is possible under the
rules is the engine's to say, when the service (``games.services.result_validate``) scores it —
:func:`web.refusals.refusal` then names the field.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

from games.models import GameResultVersion

ELIMINATION = {"smothered": pgettext_lazy("elimination", "闷 (smothered)"),
               "failed_burn": pgettext_lazy("elimination", "诈烧 (failed burn)")}
DECLARATION = {"mingdian": gettext_lazy("明点"), "yudian": gettext_lazy("预点")}
#: a seat's 开点 answer: asked of every seat, none preselected (不开点 costs 点贡 next game)
KAIDIAN = [("yes", gettext_lazy("开点")), ("no", gettext_lazy("不开点"))]
#: the six places, 头科 to 大落 (as the sheet lists them)
PLACE_NAMES = ["头科", "二科", "三科", "四科", "二落", "大落"]
BURN_ROWS = SMOTHER_ROWS = 2


def seat_label(seat: int) -> str:
    """A seat as people say it: 1–6号位 (the engine's 0–5 inside)."""
    return pgettext("seat position", "seat %(n)s") % {"n": seat + 1}


def seats_words(seats) -> str:
    """Seats as people list them: "3号位、5号位" ("seat 3, seat 5")."""
    return pgettext("a list's separator", ", ").join(seat_label(s) for s in seats)


class SheetForm(forms.Form):
    """A result sheet (gouji-sheet/1): the six places from 头科 to 大落, then only what the
    event's rules use — revolutions (革命), a void game and who led, 开点 and declarations
    (打点), eliminations (闷 when the rules eliminate smothered seats; 诈烧), burns, smothers
    (憋3). ``seats``: the table's seats as ``{"seat", "label", "name"}`` dicts."""

    #: its labels begin with a capital ("Burner:"): their texts are lower-case, as the
    #: refusals' sentences use them too
    template_name_label = "web/forms/label_capfirst.html"

    def __init__(self, *args, rules, seats: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        self.rules = rules
        seat_choices = [("", "—")] + [(str(s["seat"]), f"{s['label']} · {s['name']}")
                                      for s in seats]
        self.seats = seats

        def seat_or_none(label):
            return forms.TypedChoiceField(required=False, choices=seat_choices, coerce=int,
                                          empty_value=None, label=label)

        for i, word in enumerate(PLACE_NAMES):
            # not required: a void game (流局) has no finishing order; clean() asks for it
            self.fields[f"place_{i}"] = seat_or_none(word)
        eliminations = [("", "—")]
        if rules["bie3"] and rules["men"] == "last_place":
            eliminations.append(("smothered", ELIMINATION["smothered"]))
        eliminations.append(("failed_burn", ELIMINATION["failed_burn"]))
        for s in seats:
            n = s["seat"]
            if rules["revolution"]:
                self.fields[f"revolution_{n}"] = forms.BooleanField(required=False,
                                                                    label=_("革命"))
            self.fields[f"out_{n}"] = forms.ChoiceField(required=False, choices=eliminations,
                                                        label=_("eliminated"))
            if rules["dadian"]:
                # (not required by the field: a seat that revolted is answered by the rules;
                # clean() asks every other seat)
                self.fields[f"kaidian_{n}"] = forms.ChoiceField(
                    required=False, choices=KAIDIAN, widget=forms.RadioSelect, label=_("开点"))
                self.fields[f"declared_{n}"] = forms.ChoiceField(
                    required=False, label=_("declared"),
                    choices=[("", "—"), *DECLARATION.items()])
        if rules["revolution"]:
            self.fields["void"] = forms.BooleanField(required=False, label=_("void (流局)"),
                                                     label_suffix="")  # (after its box)
            self.fields["leader"] = forms.TypedChoiceField(
                label=_("led the first trick"), choices=seat_choices[1:], coerce=int,
                initial="0")
        for k in range(BURN_ROWS):
            self.fields[f"burn_{k}_burner"] = seat_or_none(_("burner"))
            self.fields[f"burn_{k}_burned"] = seat_or_none(_("burned"))
            self.fields[f"burn_{k}_counter"] = forms.BooleanField(required=False,
                                                                  label=_("counter-burn"))
        if rules["bie3"]:
            for k in range(SMOTHER_ROWS):
                self.fields[f"smother_{k}_seat"] = seat_or_none(_("smothered seat"))
                self.fields[f"smother_{k}_by"] = seat_or_none(pgettext_lazy("smother", "smothered by"))

    # the templates lay these out: one row per seat, one per burn or smother
    def seat_rows(self):
        names = ("revolution", "kaidian", "out", "declared")
        return [{**s, "fields": [self[f"{name}_{s['seat']}"] for name in names
                                 if f"{name}_{s['seat']}" in self.fields]}
                for s in self.seats]

    def error_messages(self) -> list[str]:
        """Every error of the bound form, the whole form's first, then by field in the
        form's order: the summary at its top."""
        fields = [self[name] for name in self.fields]
        return [*map(str, self.non_field_errors()),
                *(str(m) for f in fields for m in f.errors)]

    def place_fields(self):
        return [self[f"place_{i}"] for i in range(6)]

    def burn_rows(self):
        return [[self[f"burn_{k}_{p}"] for p in ("burner", "burned", "counter")]
                for k in range(BURN_ROWS)]

    def smother_rows(self):
        return [[self[f"smother_{k}_{p}"] for p in ("seat", "by")]
                for k in range(SMOTHER_ROWS) if f"smother_{k}_seat" in self.fields]

    def kaidian_by_rule(self, data: dict) -> dict[int, bool]:
        """The seats whose 开点 the rules decide from the rest of the sheet, and how: a seat
        that revolted (革命) is 不开点; with ``revolution_kaidian`` ``auto`` its 对头 开点s
        (RULES.md §6, 开点). Nothing else on a sheet decides a seat's 开点."""
        if not self.rules["dadian"]:
            return {}
        revolted = [s for s in range(6) if data.get(f"revolution_{s}")]
        forced = {}
        if self.rules["revolution_kaidian"] == "auto":
            forced.update({(s + 3) % 6: True for s in revolted})
        forced.update({s: False for s in revolted})
        return forced

    def clean(self):
        data = super().clean()
        if data.get("void"):
            return data
        order = [data.get(f"place_{i}") for i in range(6)]
        for i, seat in enumerate(order):
            if seat is None:
                self.add_error(f"place_{i}", _("pick the seat placed %(place)s") % {
                    "place": PLACE_NAMES[i]})
        if None not in order and len(set(order)) != 6:
            self.add_error("place_0", _("tap each of the six seats once, from 头科 to 大落"))
        forced = self.kaidian_by_rule(data)
        for s in range(6):
            if self.rules["dadian"] and s not in forced and not data.get(f"kaidian_{s}"):
                self.add_error(f"kaidian_{s}", _("answer 开点 or 不开点 for %(seat)s") % {
                    "seat": seat_label(s)})
        return data

    def sheet(self) -> dict:
        """The sheet the cleaned form says (``is_valid()`` first), without ``format`` and
        ``rules`` (the service sets them from the event). Eliminated seats are listed from
        the bottom place up, as the engine places them (engine.game.scoring)."""
        d = self.cleaned_data
        seats = range(6)
        sheet = {}
        if self.rules["revolution"]:
            sheet["revolutions"] = [s for s in seats if d.get(f"revolution_{s}")]
            sheet["void"] = bool(d.get("void"))
            sheet["leader"] = d["leader"]
            if sheet["void"]:
                return sheet
        order = [d[f"place_{i}"] for i in range(6)]
        sheet["order"] = order
        sheet["eliminated"] = [{"seat": s, "reason": d[f"out_{s}"]} for s in reversed(order)
                               if d.get(f"out_{s}")]
        if self.rules["dadian"]:
            # an answer the rules contradict is kept, for the engine to refuse by name
            forced = self.kaidian_by_rule(d)
            sheet["kaidian"] = [d[f"kaidian_{s}"] == "yes" if d.get(f"kaidian_{s}")
                                else forced[s] for s in seats]
            declared = [d.get(f"declared_{s}") or None for s in seats]
            if any(declared):
                sheet["declared"] = declared
        burns = [{"burner": d[f"burn_{k}_burner"], "burned": d[f"burn_{k}_burned"],
                  "counter": bool(d[f"burn_{k}_counter"])} for k in range(BURN_ROWS)
                 if d.get(f"burn_{k}_burner") is not None
                 and d.get(f"burn_{k}_burned") is not None]
        if burns:
            sheet["burns"] = burns
        smothers = [{"seat": d[f"smother_{k}_seat"], "by": d[f"smother_{k}_by"]}
                    for k in range(SMOTHER_ROWS)
                    if d.get(f"smother_{k}_seat") is not None
                    and d.get(f"smother_{k}_by") is not None]
        if smothers:
            sheet["smothers"] = smothers
        return sheet

    @staticmethod
    def initial_from_result(result) -> dict:
        """Form data from the current version of ``result`` (a ``games.models.GameResult``):
        its sheet as handed in, or what its record came to, with the record's first leader."""
        current = next((v for v in result.versions.all() if v.version == result.version), None)
        source = dict(result.engine_result)
        if current is not None and isinstance(current.payload, dict):
            source["leader"] = current.payload.get("leader", 0)
            if current.kind == GameResultVersion.Kind.SHEET:
                source = current.payload
        return SheetForm.initial_from(source)

    @staticmethod
    def initial_from(sheet: dict) -> dict:
        """Form data from a stored sheet (or an engine result with its ``leader``): a
        correction starts from what stands."""
        initial = {"leader": sheet.get("leader", 0), "void": bool(sheet.get("void"))}
        for i, seat in enumerate(sheet.get("order") or []):
            initial[f"place_{i}"] = seat
        for s in sheet.get("revolutions") or []:
            initial[f"revolution_{s}"] = True
        for e in sheet.get("eliminated") or []:
            initial[f"out_{e['seat']}"] = e["reason"]
        for s, flag in enumerate(sheet.get("kaidian") or []):
            if flag is not None:
                initial[f"kaidian_{s}"] = "yes" if flag else "no"
        for s, word in enumerate(sheet.get("declared") or []):
            initial[f"declared_{s}"] = word or ""
        for k, burn in enumerate((sheet.get("burns") or [])[:BURN_ROWS]):
            initial.update({f"burn_{k}_burner": burn["burner"],
                            f"burn_{k}_burned": burn["burned"],
                            f"burn_{k}_counter": burn["counter"]})
        smothers = [m for m in sheet.get("smothers") or [] if isinstance(m, dict)]
        for k, smother in enumerate(smothers[:SMOTHER_ROWS]):
            initial.update({f"smother_{k}_seat": smother["seat"],
                            f"smother_{k}_by": smother["by"]})
        return initial
