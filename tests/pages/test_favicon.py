"""The site's icon (issue 52): a card with 够 drawn as SVG, with a PNG and an ICO of it, linked
from every page and found at ``/favicon.ico`` where browsers look by themselves."""

from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_the_favicon_is_linked_from_every_page_and_found_at_the_root(event):
    html = Client().get(reverse("pages:event", kwargs={"slug": event.slug})).content.decode()
    assert '<link rel="icon" href="/static/web/favicon.svg" type="image/svg+xml">' in html
    assert '<link rel="icon" href="/static/web/favicon-32.png" type="image/png"' in html
    root = Client().get("/favicon.ico")
    assert root.status_code == 301 and root["Location"] == "/static/web/favicon.ico"

    svg = open(finders.find("web/favicon.svg"), encoding="utf-8").read()
    assert svg.startswith("<svg") and "<title>够级</title>" in svg
    with open(finders.find("web/favicon.ico"), "rb") as ico:
        head = ico.read(6)
    assert head[:4] == b"\0\0\1\0" and head[4] >= 1  # an icon file with its images
    with open(finders.find("web/favicon-32.png"), "rb") as png:
        assert png.read(8) == b"\x89PNG\r\n\x1a\n"
