"""Entries in the organizer's console: the import of the players' (or teams') spreadsheet with a
preview of every line, check-in at the door (a search by name, number, club or pinyin; one tap
to check in or undo; a slip's QR code scanned with the desk phone's camera), late entries and
withdrawals. Every write is a service's (``tournaments.services``)."""

from __future__ import annotations

import re

from django.contrib import messages
from django.core import signing
from django.core.paginator import Paginator
from django.db.models import Max, Prefetch
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy
from django.views.decorators.http import require_POST

from tournaments.errors import ServiceError
from tournaments.forms import ImportForm
from tournaments.models import Entry, Event, TeamMember
from tournaments.selectors import entry_search, link_resolve
from tournaments.services import imports as entry_imports
from tournaments.services.entries import (
    ACTIVE_STATUSES,
    entry_check_in,
    entry_check_in_undo,
    entry_register_by_name,
    entry_withdraw,
)
from web.forms.entry import EntryAddForm
from web.views.console import console_view, context, wants_json
from web.views.params import search_text

#: the preview carries its rows signed for this purpose, valid for an hour (as the admin's)
IMPORT_SALT, IMPORT_MAX_AGE = "web.console.import", 3600
CHECK_IN_PAGE = 100
#: which entries the check-in list shows
SHOW = {"all": pgettext_lazy("check-in list", "all"),
        "waiting": pgettext_lazy("check-in list", "not checked in"),
        "in": pgettext_lazy("check-in list", "checked in"),
        "out": pgettext_lazy("check-in list", "withdrawn")}
#: the import's column heads: (English head, Chinese heads, what the column holds)
HEADS_INDIVIDUAL = [
    ("name", "姓名, 名字, 选手", gettext_lazy("the player's name (needed)")),
    ("number", "编号, 号码, 选手编号", gettext_lazy("the player number (optional)")),
    ("club", "俱乐部, 单位, 代表队", gettext_lazy("club or team they come from (optional)")),
    ("checked_in", "报到, 已报到, 签到", gettext_lazy("1, yes or 是: checked in at once")),
]
HEADS_TEAM = [
    ("team", "队名, 联邦, 队伍", gettext_lazy("the 联邦 team's name (needed)")),
    ("player_1 … player_3", "队员1 … 队员3", gettext_lazy("its three players (needed)")),
    ("number_1 … number_3", "编号1 … 编号3", gettext_lazy("their player numbers (optional)")),
    ("club", "俱乐部, 单位, 代表队", gettext_lazy("club (optional)")),
    ("checked_in", "报到, 已报到, 签到", gettext_lazy("1, yes or 是: checked in at once")),
]
#: a slip's QR code: the player's private link, /p/<token>/ (or a token typed alone)
TOKEN_IN_URL = re.compile(r"/p/([A-Za-z0-9_-]{20,100})/?")
TOKEN_ALONE = re.compile(r"^[A-Za-z0-9_-]{20,100}$")


# ----------------------------------------------------------------------------- import
@console_view
def entries_import(request, event):
    """The import in two steps, as the admin's: the upload (CSV in UTF-8 or GBK, XLSX, or
    pasted names) is checked line by line and shown — nothing stored — with its rows signed
    into the page; confirming imports exactly those rows."""
    team = event.format == Event.Format.TEAM
    ctx = context(event, "import", team=team,
                  heads=HEADS_TEAM if team else HEADS_INDIVIDUAL)
    form = ImportForm()
    if request.method == "POST" and "payload" in request.POST:
        return _import_confirm(request, event)
    if request.method == "POST":
        form = ImportForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                rows, source = form.rows(team=team)
                preview = entry_imports.entries_import(event=event, rows=rows,
                                                  organizer=request.user, dry_run=True)
            except ServiceError as exc:
                form.add_error(None, exc.message)
            else:
                ctx.update(preview=preview, source=source, rows=rows,
                           errors=sum("error" in line for line in preview["lines"]),
                           payload=signing.dumps({"event": event.pk, "rows": rows},
                                                 salt=IMPORT_SALT, compress=True))
    ctx["form"] = form
    return render(request, "web/console/import.html", ctx)


def _import_confirm(request, event):
    again = redirect("pages:console-import", slug=event.slug)
    try:
        signed = signing.loads(request.POST["payload"], salt=IMPORT_SALT,
                               max_age=IMPORT_MAX_AGE)
    except signing.BadSignature:
        messages.error(request, _("The preview has expired or was altered: upload the file "
                                  "again."))
        return again
    if signed.get("event") != event.pk:
        raise Http404("no such preview")
    try:
        done = entry_imports.entries_import(event=event, rows=signed["rows"],
                                       organizer=request.user)
    except ServiceError as exc:
        messages.error(request, exc.message)
        return again
    messages.success(request, _(
        "Imported: %(registered)s registered (%(players_created)s new players), "
        "%(checked_in)s checked in, %(unchanged)s unchanged.") % done)
    return redirect("pages:console-check-in", slug=event.slug)


# ----------------------------------------------------------------------------- check-in
def _drawn_entry_ids(event: Event) -> set[int]:
    """Entries some round's draw holds (their check-in can no longer be undone)."""
    return {i for ids in event.rounds.values_list("draw_entries", flat=True) for i in ids}


def entry_row(entry: Entry, drawn: set[int]) -> dict:
    """An entry as the check-in list shows it: who (a player, or a team and its players),
    their number and club, where they stand and what may be done."""
    if entry.player_id:
        people = [entry.player]
        name = entry.player.name
    else:
        people = [m.player for m in entry.team.members.all()]
        name = entry.team.name
    status = entry.status
    return {
        "id": entry.pk, "name": name, "team": entry.team_id is not None,
        "members": [p.name for p in people] if entry.team_id else [],
        "number": entry.player.number if entry.player_id else None,
        "club": ", ".join(sorted({p.club for p in people if p.club})),
        "status": status, "status_label": entry.get_status_display(),
        "late": entry.late, "first_round": entry.first_round,
        "left_after_round": entry.left_after_round,
        "can_check_in": status == Entry.Status.REGISTERED,
        "can_undo": status == Entry.Status.CHECKED_IN and entry.pk not in drawn,
        "can_withdraw": status in ACTIVE_STATUSES,
    }


def _shown(rows: list[dict], show: str) -> list[dict]:
    wanted = {"waiting": (Entry.Status.REGISTERED,), "in": (Entry.Status.CHECKED_IN,),
              "out": (Entry.Status.WITHDRAWN, Entry.Status.DISQUALIFIED)}.get(show)
    return rows if wanted is None else [r for r in rows if r["status"] in wanted]


@console_view
def check_in(request, event):
    """The door's list: search, filter, one button per entry; the scanner and the late entry
    form above it. ``?partial=1`` answers the list alone (the script's live search)."""
    query = search_text(request)
    show = request.GET.get("show") if request.GET.get("show") in SHOW else "all"
    drawn = _drawn_entry_ids(event)
    found = [entry_row(e, drawn) for e in entry_search(event, query)]
    page = Paginator(_shown(found, show), CHECK_IN_PAGE).get_page(request.GET.get("page"))
    counts = {key: len(_shown(found, key)) for key in SHOW}
    here = reverse("pages:console-check-in", kwargs={"slug": event.slug})
    back = here + ("?" + urlencode({k: v for k, v in (("q", query), ("show", show))
                                    if v and v != "all"}) if query or show != "all" else "")
    ctx = context(event, "check-in", rows=page.object_list, page=page, query=query,
                  show=show, shows=[(k, label, counts[k]) for k, label in SHOW.items()],
                  back=back, total=event.entries.count(),
                  checked_in=event.entries.filter(status=Entry.Status.CHECKED_IN).count(),
                  next_round=(event.rounds.aggregate(m=Max("number"))["m"] or 0) + 1,
                  add_form=EntryAddForm(), team=event.format == Event.Format.TEAM,
                  live={"scan": reverse("pages:console-scan", kwargs={"slug": event.slug}),
                        "list": here, "jsqr": static("web/vendor/jsqr/jsQR.js")},
                  js_text=JS_TEXT)
    if request.GET.get("partial") == "1":
        return render(request, "web/console/_check_in_list.html", ctx)
    return render(request, "web/console/check_in.html", ctx)


JS_TEXT = {
    "camera_off": gettext_lazy("The camera needs HTTPS (or localhost) and your permission."),
    "no_camera": gettext_lazy("No camera is available here: type or paste the slip's link "
                              "below."),
    "scanning": gettext_lazy("Point the camera at a slip's QR code…"),
    "failed": gettext_lazy("Could not reach the server; try again."),
}


def _answer(request, event, *, ok: bool, message: str, entry: Entry | None = None,
            back: str | None = None):
    """A check-in action's answer: JSON with the entry's new row for the script, else a
    message and a redirect back to the list."""
    if wants_json(request):
        html = None
        if entry is not None:
            entry = entry_search_one(event, entry.pk)
            html = render_to_string("web/console/_entry_row.html", {
                "row": entry_row(entry, _drawn_entry_ids(event)), "event": event,
                "back": back}, request=request)
        return JsonResponse({"ok": ok, "message": message, "html": html,
                             "entry": entry.pk if entry is not None else None},
                            status=200 if ok else 400)
    (messages.success if ok else messages.error)(request, message)
    return redirect(back or reverse("pages:console-check-in", kwargs={"slug": event.slug}))


def entry_search_one(event: Event, pk: int) -> Entry:
    """One entry of the event, read as the list reads them (its players, its team's)."""
    return (Entry.objects.filter(event=event, pk=pk).select_related("player", "team")
            .prefetch_related(Prefetch("team__members", TeamMember.objects.select_related(
                "player").order_by("position"))).get())


def _back(request, event) -> str:
    wanted = request.POST.get("back", "")
    here = reverse("pages:console-check-in", kwargs={"slug": event.slug})
    return wanted if wanted.startswith(here) else here


ENTRY_ACTIONS = {
    "check-in": (lambda entry: entry_check_in(entry=entry),
                 gettext_lazy("%(name)s is checked in.")),
    "undo": (lambda entry: entry_check_in_undo(entry=entry),
             gettext_lazy("%(name)s is no longer checked in.")),
    "withdraw": (lambda entry: entry_withdraw(entry=entry),
                 gettext_lazy("%(name)s is withdrawn: they leave from the next round.")),
}


@require_POST
@console_view
def entry_action(request, event, entry_id: int, action: str):
    """Check an entry in, undo its check-in, or withdraw it (from the next round on)."""
    if action not in ENTRY_ACTIONS:
        raise Http404("no such action")
    entry = get_object_or_404(Entry, pk=entry_id, event=event)
    act, done = ENTRY_ACTIONS[action]
    name = entry.player.name if entry.player_id else entry.team.name
    try:
        act(entry)
    except ServiceError as exc:
        return _answer(request, event, ok=False, message=exc.message, entry=entry,
                       back=_back(request, event))
    return _answer(request, event, ok=True, message=done % {"name": name}, entry=entry,
                   back=_back(request, event))


def token_of(code: str) -> str | None:
    """The private link's token in what a slip's QR code (or a typed link) reads."""
    code = (code or "").strip()
    found = TOKEN_IN_URL.search(code)
    if found:
        return found.group(1)
    return code if TOKEN_ALONE.match(code) else None


@require_POST
@console_view
def scan(request, event):
    """Check in the player whose slip was scanned (its QR code opens their private link,
    ``/p/<token>/``): the scanner sends what it read; without a camera, the link is typed or
    pasted into the same form. A link of another event, a revoked or unknown one, is refused
    the same way (it opens nothing here)."""
    token = token_of(request.POST.get("code", ""))
    link = link_resolve(token) if token else None
    back = _back(request, event)
    if link is None or link.entry.event_id != event.pk:
        return _answer(request, event, ok=False, back=back, message=_(
            "This code is not a slip of this event (or its link was re-issued)."))
    entry, player = link.entry, link.player
    who = f"{player.name} (#{player.number})" if player.number is not None else player.name
    if entry.status == Entry.Status.CHECKED_IN:
        return _answer(request, event, ok=True, entry=entry, back=back,
                       message=_("%(name)s was checked in already.") % {"name": who})
    try:
        entry_check_in(entry=entry)
    except ServiceError as exc:
        return _answer(request, event, ok=False, message=exc.message, entry=entry, back=back)
    return _answer(request, event, ok=True, entry=entry, back=back,
                   message=_("%(name)s is checked in.") % {"name": who})


@require_POST
@console_view
def entry_add(request, event):
    """Register a player at the desk — after round 1 a late entry that joins from the next
    round — checked in at once unless the box is cleared."""
    if event.format == Event.Format.TEAM:
        raise Http404("team events add teams through the import")
    form = EntryAddForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            entry = entry_register_by_name(
                event=event, name=data["name"], club=data["club"], number=data["number"],
                check_in=data["check_in"], organizer=request.user)
        except ServiceError as exc:
            messages.error(request, exc.message)
        else:
            if entry.late:
                messages.success(request, _(
                    "%(name)s is registered: a late entry, in the draw from round %(n)s.") % {
                    "name": entry.player.name, "n": entry.first_round})
            else:
                messages.success(request, _("%(name)s is registered.") % {
                    "name": entry.player.name})
    else:
        messages.error(request, " ".join(f"{form.fields[k].label}: {' '.join(v)}"
                                         if k in form.fields else " ".join(v)
                                         for k, v in form.errors.items()))
    return redirect("pages:console-check-in", slug=event.slug)

