"""The end of an event, for its organizers (赛事总结): the printable final report — the
standings with their tie-break columns and each place's prize, the prizes by place, and every
round's results table by table —, the form for the prizes (奖项, by place range), and the
exports of everything they hand on (tournaments/exchange/: one XLSX workbook, or the CSV
files one by one or in a zip).

For the event's organizers (and superusers) only: anyone else signed in gets a 404, an
anonymous visitor the sign-in page. The public sees the final standings on
:func:`web.views.public.final_standings`, once the event is finished or its standings
released. Every change goes through the services; every form works without JavaScript.
"""

from __future__ import annotations

from django import forms
from django.db.models import Max
from django.forms import formset_factory
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.models import GameResult
from games.selectors import round_tables_with_results
from tournaments.errors import ServiceError
from tournaments.exchange import exports
from tournaments.exchange.formats import CSV_ZIP, XLSX, ExportFormat
from tournaments.models import PRIZE_PLACE_MAX, Event, Standing
from tournaments.names import side_names
from tournaments.selectors import Prizes
from tournaments.services.events import event_prizes_set
from web.views import public, shown
from web.views.console import console_view

#: empty rows the prize form offers beyond the prizes already set
PRIZE_EXTRA = 3

#: what each export holds, in the order the export page lists them
SHEET_TEXTS = {
    "entries": gettext_lazy("every entry: name, number, club or team, status, check-in"),
    "seating": gettext_lazy("every round's tables: 1–6号位, 联邦, player"),
    "byes": gettext_lazy("who sat out which round, and the points it scored"),
    "results": gettext_lazy("every game: status, current version, points, 头科 and 大落, "
                            "each seat's place, who confirmed it"),
    "result-versions": gettext_lazy("every version of every result, with who submitted it "
                                    "and why it was corrected"),
    "penalties": gettext_lazy("every penalty: kind, points, reason, by whom"),
    "standings": gettext_lazy("the standings with every tie-break and each place's prize"),
}


# ----------------------------------------------------------------------------- reads
def _round_view(rnd) -> dict:
    """One round's results, table by table: the two 联邦 (the teams, or the players by
    号位), each game's points and the confirmed total."""
    tables = []
    for table in round_tables_with_results(rnd):
        seats = {s.seat: s for s in table.seats.all()}
        names = side_names(table)
        team_event = bool(table.team_a_id and table.team_b_id)
        sides = [{"name": names[side], "players": [] if team_event else [
            {"label": s + 1, "name": seats[s].player.name}
            for s in (side, side + 2, side + 4) if s in seats]} for side in (0, 1)]
        games = [{"number": r.number, "a": r.points_a, "b": r.points_b, "void": r.void,
                  "confirmed": r.status == GameResult.Status.CONFIRMED,
                  "status": r.get_status_display()} for r in table.results.all()]
        confirmed = [g for g in games if g["confirmed"]]
        tables.append({"number": table.number, "sides": sides, "games": games,
                       "total": [sum(g["a"] for g in confirmed), sum(g["b"] for g in confirmed)],
                       "complete": len(confirmed) == len(games) and bool(games)})
    return {"number": rnd.number, "stage": rnd.get_stage_display(), "knockout":
            rnd.stage == rnd.Stage.KNOCKOUT, "tables": tables, "byes": shown.bye_views(rnd)}


# ----------------------------------------------------------------------------- pages
@console_view
def report(request, event):
    """The final report, to print (A4) or to read on a phone."""
    standings = (Standing.objects.filter(event=event)
                 .select_related("entry__player", "entry__team").order_by("rank"))
    rounds = [_round_view(r) for r in event.rounds.order_by("number")]
    return render(request, "web/report/report.html", {
        "event": event, "section": "report", **public.standings_view(event, list(standings)),
        "rounds": rounds, "printed_at": timezone.localtime(),
        "pending": any(not g["confirmed"] for r in rounds for t in r["tables"]
                       for g in t["games"]),
        "entries_count": event.entries.exclude(status="withdrawn").count(),
        "finished": event.status == Event.Status.FINISHED,
    })


class PrizeForm(forms.Form):
    place_from = forms.IntegerField(label=gettext_lazy("from place"), min_value=1,
                                    max_value=PRIZE_PLACE_MAX, required=False)
    place_to = forms.IntegerField(label=gettext_lazy("to place"), min_value=1,
                                  max_value=PRIZE_PLACE_MAX, required=False,
                                  help_text=gettext_lazy("empty: the same place"))
    name = forms.CharField(label=gettext_lazy("prize"), max_length=100, required=False)

    def clean(self):
        data = super().clean()
        if data.get("name") and not data.get("place_from"):
            self.add_error("place_from", _("say from which place"))
        if data.get("place_from") and not (data.get("name") or "").strip():
            self.add_error("name", _("give the prize a name"))
        return data


PrizeFormSet = formset_factory(PrizeForm, extra=PRIZE_EXTRA, max_num=200, validate_max=True)


@console_view
def prizes(request, event):
    """The prizes by place range: a row each ("1–3: 一等奖"); an emptied row removes its prize."""
    error = None
    if request.method == "POST":
        formset = PrizeFormSet(request.POST, prefix="prize")
        if formset.is_valid():
            wanted = [(f.cleaned_data["place_from"],
                       f.cleaned_data.get("place_to") or f.cleaned_data["place_from"],
                       f.cleaned_data["name"]) for f in formset.forms
                      if f.cleaned_data.get("place_from")]
            try:
                event_prizes_set(event=event, prizes=wanted)
            except ServiceError as exc:
                error = exc.message
            else:
                return redirect("pages:console-report", slug=event.slug)
    else:
        formset = PrizeFormSet(prefix="prize", initial=[
            {"place_from": p.place_from, "place_to": p.place_to, "name": p.name}
            for p in Prizes(event)])
    return render(request, "web/report/prizes.html", {
        "event": event, "section": "report", "formset": formset, "error": error,
        "extra": PRIZE_EXTRA,
    }, status=400 if request.method == "POST" else 200)


@console_view
def export(request, event):
    """The exports: the workbook, the zip of CSV files, and each CSV file."""
    sheets = [{"key": k, "text": SHEET_TEXTS[k]} for k in exports.SHEET_KEYS]
    return render(request, "web/report/export.html", {
        "event": event, "section": "report", "sheets": sheets,
        "rounds": event.rounds.aggregate(n=Max("number"))["n"] or 0,
    })


def _download(content: bytes, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response


def _download_as(fmt: ExportFormat, event) -> HttpResponse:
    """The whole hand-over in a registered format (tournaments/exchange/formats.py)."""
    return _download(fmt.write(exports.event_sheets(event), event.slug), fmt.content_type,
                     f"{event.slug}{fmt.suffix}")


@console_view
def export_xlsx(request, event):
    return _download_as(XLSX, event)


@console_view
def export_zip(request, event):
    return _download_as(CSV_ZIP, event)


@console_view
def export_csv(request, event, sheet):
    if sheet not in exports.SHEET_KEYS:
        raise Http404("no such export")
    (one,) = exports.event_sheets(event, keys=[sheet])
    return _download(exports.csv_bytes(one.header, one.rows), "text/csv; charset=utf-8",
                     f"{event.slug}-{sheet}.csv")


#: included by web/urls.py at the site root
report_urls = [
    path("e/<slug:slug>/console/report/", report, name="console-report"),
    path("e/<slug:slug>/console/report/prizes/", prizes, name="console-report-prizes"),
    path("e/<slug:slug>/console/export/", export, name="console-export"),
    path("e/<slug:slug>/console/export/workbook.xlsx", export_xlsx, name="console-export-xlsx"),
    path("e/<slug:slug>/console/export/csv.zip", export_zip, name="console-export-zip"),
    path("e/<slug:slug>/console/export/<slug:sheet>.csv", export_csv, name="console-export-csv"),
]
