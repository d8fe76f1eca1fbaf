"""The rating list and a player's page in a real browser on a 390 px phone, in English and in
Chinese, under the pages' Content-Security-Policy (no script runs on them; the chart is inline
SVG). With ``UPDATE_SCREENSHOTS=1`` it writes ``docs/ratings-list-{en,zh}.png`` and
``docs/rating-player-{en,zh}.png``."""

from __future__ import annotations

import os

import pytest

from ratings.models import PlayerRating, RatingPoint
from tests.pages.test_browser import CHROMIUM, REPO, browser, fits_a_phone, url  # noqa: F401
from tests.pages.test_ratings_pages import build_rated_events

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture(params=["en-US", "zh-Hans"])
def phone(request, browser):  # noqa: F811
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale=request.param,
                                  extra_http_headers={"Accept-Language": request.param.lower()})
    tab = context.new_page()
    problems = []
    tab.on("pageerror", lambda exc: problems.append(str(exc)))
    tab.on("console", lambda message: problems.append(message.text)
           if message.type == "error" else None)
    tab.suffix = "en" if request.param == "en-US" else "zh"
    yield tab
    context.close()
    assert not problems, problems


def test_rating_list_and_player_page_on_a_phone(live_server, phone, make_event, referee_user):
    build_rated_events(make_event, referee_user, players=14)
    best = PlayerRating.objects.order_by("-ordinal", "player_id").first()
    shots = os.environ.get("UPDATE_SCREENSHOTS") == "1"

    phone.goto(url(live_server, "pages:ratings"))
    assert fits_a_phone(phone)
    rows = phone.locator("table.ratings tbody tr")
    assert rows.count() == PlayerRating.objects.count()
    assert phone.locator("table.ratings tbody tr").first.locator("a").inner_text() == \
        best.player.name
    heading = phone.locator("h1").inner_text()
    assert heading == ("Ratings" if phone.suffix == "en" else "等级分")
    if shots:
        phone.screenshot(path=str(REPO / "docs" / f"ratings-list-{phone.suffix}.png"),
                         full_page=True)

    # the club filter works without a script (a plain GET form)
    phone.select_option("#r-club", "红星")
    with phone.expect_navigation():
        phone.locator("form.ratings-filter button[type=submit]").click()
    assert rows.count() == PlayerRating.objects.filter(player__club="红星").count()

    # the page of the best rated player who played three rounds or more: two of the 14 sit out
    # each round, as the draw's secret seed falls, and the best may have played only two
    # (48 seats in four rounds: some played three)
    charted = next(r for r in PlayerRating.objects.order_by("-ordinal", "player_id")
                   if RatingPoint.objects.filter(player_id=r.player_id).count() >= 3)
    phone.goto(url(live_server, "pages:player", pk=charted.player_id))
    assert fits_a_phone(phone)
    chart = phone.locator("svg.rating-chart")
    assert chart.is_visible()
    assert chart.bounding_box()["width"] <= 390
    rounds = RatingPoint.objects.filter(player_id=charted.player_id).count()
    assert rounds >= 3
    assert phone.locator("svg.rating-chart circle.dot").count() == rounds
    if shots:
        phone.screenshot(path=str(REPO / "docs" / f"rating-player-{phone.suffix}.png"),
                         full_page=True)
