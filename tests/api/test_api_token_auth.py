"""Token authentication (api.authentication): the one query DRF's class made, written once; the
same answers, and nothing cached (a deleted token or a deactivated user stops at once)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from tests.api.helpers import client_for
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
ME = "/api/v1/players/me/"  # 404 "no player profile" once authenticated, else 401
SIGNED_IN = 404


@pytest.fixture
def user():
    return UserFactory(username="tok-user")


def test_a_token_authenticates_its_user(user):
    r = client_for(user).get(ME)
    assert r.status_code == SIGNED_IN and "no player profile" in r.content.decode(), r.content


@pytest.mark.parametrize("header, detail", [
    ("Token nosuchkey", "Invalid token."),
    ("Token", "Invalid token header. No credentials provided."),
    ("Token a b", "Invalid token header. Token string should not contain spaces."),
])
def test_a_bad_token_is_401_with_drfs_message(user, header, detail):
    client = client_for(None)
    client.credentials(HTTP_AUTHORIZATION=header)
    r = client.get(ME)
    assert r.status_code == 401, r.content[:300]
    assert detail in r.content.decode()


def test_a_deleted_token_or_an_inactive_user_stops_at_once(user):
    client = client_for(user)
    assert client.get(ME).status_code == SIGNED_IN
    get_user_model().objects.filter(pk=user.pk).update(is_active=False)
    r = client.get(ME)
    assert r.status_code == 401 and "User inactive or deleted." in r.content.decode()
    get_user_model().objects.filter(pk=user.pk).update(is_active=True)
    assert client.get(ME).status_code == SIGNED_IN
    Token.objects.filter(user=user).delete()
    assert client.get(ME).status_code == 401
