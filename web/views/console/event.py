"""An event's settings, its publication (the public sees the event only once it is
published) and its referees, in the organizer's console."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from tournaments.errors import ServiceError
from tournaments.names import person_name
from tournaments.selectors import staff_candidates
from tournaments.services import events
from web.forms.event import EventForm
from web.views.console import console_view, context


@console_view
def event_settings(request, event):
    form = EventForm(request.POST or None, instance=event)
    if request.method == "POST":
        saved = form.save(organizer=request.user)
        if saved is not None:
            messages.success(request, _("The settings are saved."))
            return redirect("pages:console-settings", slug=saved.slug)
    return render(request, "web/console/event_form.html", context(
        event, "settings", form=form, new=False))


@require_POST
@console_view
def event_publish(request, event):
    """Publish the event (its pages, seating and slips' tables become public) or take it back
    (``published=0``)."""
    published = request.POST.get("published") != "0"
    events.event_publish(event=event, published=published)
    messages.success(request, _("The event is public now.") if published else _(
        "The event is hidden from the public now."))
    return redirect(_safe_next(request, event))


def _safe_next(request, event) -> str:
    """The console page the form came from (``next``), else the event's console."""
    wanted = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(wanted, allowed_hosts={request.get_host()},
                                       require_https=request.is_secure()):
        return wanted
    return reverse("pages:console-event", kwargs={"slug": event.slug})


def _person(user) -> dict:
    player = getattr(user, "player", None)
    return {"id": user.pk, "name": person_name(user, number=True), "username": user.get_username(),
            "player": player is not None}


@console_view
def event_referees(request, event):
    """The event's referees by name, a list of people to add (players of the event who sign
    in, the site's staff, the staff of the organizer's other events — not the logins made
    for private links) or one to find by username, and removal."""
    User = get_user_model()
    if request.method == "POST":
        try:
            user = _picked_user(request, User)
            if request.POST.get("remove"):
                events.event_staff_remove(event=event, user=user, role="referee")
                messages.success(request, _("%(name)s no longer referees this event.") % {
                    "name": person_name(user)})
            else:
                events.event_staff_add(event=event, user=user, role="referee")
                messages.success(request, _("%(name)s referees this event now.") % {
                    "name": person_name(user)})
        except ServiceError as exc:
            messages.error(request, exc.message)
        return redirect("pages:console-referees", slug=event.slug)
    referees = sorted(event.referees.select_related("player"),
                      key=lambda u: person_name(u, number=True).casefold())
    taken = {u.pk for u in referees}
    return render(request, "web/console/referees.html", context(
        event, "referees", referees=[_person(u) for u in referees],
        candidates=[_person(u) for u in staff_candidates(event, request.user)
                    if u.pk not in taken],
        organizers=[person_name(u) for u in event.organizers.select_related("player")]))


def _picked_user(request, User):
    """The user a referee form names: picked from the list (``user``: an id) or typed
    (``username``). A login without a password (made for a private link) is refused: it
    could not sign in to the desk."""
    picked = request.POST.get("user", "")
    typed = (request.POST.get("username") or "").strip()
    if picked.isdigit():
        user = User.objects.filter(pk=int(picked)).select_related("player").first()
    elif typed:
        user = User.objects.filter(username=typed).select_related("player").first()
    else:
        raise ServiceError("no_user", _("Choose a person, or type a username."))
    if user is None:
        raise ServiceError("no_user", _("No one signs in as “%(name)s”.") % {"name": typed})
    if not request.POST.get("remove") and not user.has_usable_password():
        raise ServiceError("no_password", _(
            "%(name)s has no password (a login made for a private link): it cannot sign in to "
            "the desk. Give them a password first.") % {"name": person_name(user)})
    return user
