"""The console's home (``/console/``): the events the signed-in user organizes (a superuser:
every event) and referees, and a new event for those who may create one
(``tournaments.selectors.can_create_event``, the API's rule)."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import redirect, render

from tournaments.models import Event
from tournaments.names import person_name
from tournaments.selectors import can_create_event, organized_events
from web.forms.event import EventForm
from web.views.console import signed_in


@signed_in
def console_home(request):
    user = request.user
    organized = list(organized_events(user))
    refereed = list(Event.objects.filter(referees=user).exclude(
        pk__in=[e.pk for e in organized]).order_by("-created_at", "pk"))
    return render(request, "web/console/home.html", {
        "organized": organized, "refereed": refereed, "may_create": can_create_event(user),
        "section": "home", "who": person_name(user)})


@signed_in
def event_new(request):
    """A new event from the settings form; its creator organizes it, and lands on its
    console. Not published: the public sees it once the organizer publishes it."""
    if not can_create_event(request.user):
        raise Http404("no such page")
    form = EventForm(request.POST or None)
    if request.method == "POST":
        event = form.save(organizer=request.user)
        if event is not None:
            return redirect("pages:console-event", slug=event.slug)
    return render(request, "web/console/event_form.html", {
        "form": form, "section": "new", "new": True})
