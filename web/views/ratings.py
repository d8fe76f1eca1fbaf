"""Ratings across events (issue 22): the public rating list and a player's page across events,
with the rating over time as an inline SVG chart (drawn here, no script)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.http import urlencode

from ratings import selectors
from ratings.models import PlayerRating
from tournaments.models import Player
from web.views.params import search_text

LIST_PAGE = 100
MIN_GAMES_CHOICES = (0, 5, 10, 20, 50)
#: the chart's drawing area (SVG user units; it scales to the page's width)
CHART_W, CHART_H, CHART_PAD = 320, 140, 24


def _min_games(value: str | None) -> int:
    return int(value) if value and value.isdigit() and int(value) in MIN_GAMES_CHOICES else 0


def rating_list(request):
    club = search_text(request, "club")
    query = search_text(request)
    min_games = _min_games(request.GET.get("min_games"))
    rows = selectors.rating_list(club=club, search=query, min_games=min_games)
    page = Paginator(rows, LIST_PAGE).get_page(request.GET.get("page"))
    filters = {k: v for k, v in (("club", club), ("search", query),
                                 ("min_games", min_games)) if v}
    keep = urlencode({k: v for k, v in (("club", club), ("q", query),
                                        ("min_games", min_games)) if v})
    first = (page.number - 1) * LIST_PAGE
    return render(request, "web/ratings/list.html", {
        "section": "ratings", "page": page, "keep": keep,
        "rows": [{"rank": first + k + 1, "rating": r} for k, r in enumerate(page.object_list)],
        "club": club, "query": query, "min_games": min_games,
        "clubs": selectors.rated_clubs(), "min_games_choices": MIN_GAMES_CHOICES,
        "csv": reverse("api:ratings-csv") + ("?" + urlencode(filters) if filters else ""),
    })


def chart(points) -> dict | None:
    """The SVG chart of the rating after each round: a polyline scaled into the drawing area,
    the y-axis labels (min, max) and one dot per point with its title."""
    if not points:
        return None
    values = [p.ordinal for p in points]
    low, high = min(values + [0.0]), max(values + [0.0])
    if high - low < 1:
        high = low + 1
    n = len(points)

    def xy(i, v):
        x = CHART_PAD + (CHART_W - 2 * CHART_PAD) * (i / (n - 1) if n > 1 else 0.5)
        y = CHART_PAD / 2 + (CHART_H - CHART_PAD) * (high - v) / (high - low)
        return round(x, 1), round(y, 1)

    dots = [{"x": x, "y": y, "point": p} for i, p in enumerate(points)
            for x, y in [xy(i, p.ordinal)]]
    zero_y = xy(0, 0.0)[1]
    return {"width": CHART_W, "height": CHART_H, "dots": dots,
            "line": " ".join(f"{d['x']},{d['y']}" for d in dots),
            "low": round(low, 1), "high": round(high, 1), "zero_y": zero_y,
            "low_y": xy(0, low)[1], "high_y": xy(0, high)[1],
            "left": CHART_PAD, "right": CHART_W - CHART_PAD}


def player_page(request, pk):
    player = get_object_or_404(Player, pk=pk)
    if not selectors.public_player(player=player):
        raise Http404("no such player")
    rating = PlayerRating.objects.filter(player=player).first()
    history = selectors.player_history(player=player)
    return render(request, "web/ratings/player.html", {
        "section": "ratings", "player": player, "rating": rating, "history": history,
        "chart": chart(history["points"]),
        "api": reverse("api:player-rating", kwargs={"pk": player.pk}),
    })
