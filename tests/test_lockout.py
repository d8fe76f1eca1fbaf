"""Login lockouts in tiers (config/lockout.py), through each of the three logins: the API's
token view, the pages' sign-in and the admin's login.

An attacker who fails a user's password must not lock that user out: failures lock out the
pair (username, address) after ``LOGIN_FAILURE_LIMIT`` (10), the username from every
address only after ``LOGIN_FAILURE_LIMIT_USERNAME`` (100), and an address for every username
after ``LOGIN_FAILURE_LIMIT_ADDRESS`` (100). The client's address is the last entry of
X-Forwarded-For, one trusted proxy standing in front."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from tests.factories import UserFactory

PAIR, USERNAME, ADDRESS = 10, 100, 100  # the limits' defaults
RIGHT = "the-right-password"


@pytest.fixture(autouse=True)
def _logins(db, settings, monkeypatch):
    """One proxy in front, fast password hashes, and the token view's rate limits out of the
    way (they count attempts, not failures: tests/api/test_api_login_throttle.py)."""
    settings.TRUSTED_PROXY_COUNT = 1
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES",
                        {**SimpleRateThrottle.THROTTLE_RATES, "login": "100000/min"})
    cache.clear()
    for username in ("victim", "sprayer"):
        user = UserFactory(username=username, is_staff=True)  # (staff: the admin lets them in)
        user.set_password(RIGHT)
        user.save()


def _token(address, username, password):
    r = APIClient().post("/api/v1/auth/token/", {"username": username, "password": password},
                         format="json", HTTP_X_FORWARDED_FOR=address)
    return {200: "in", 400: "wrong"}.get(r.status_code) or (
        r.status_code == 429 and r.json()["error"]["code"] == "locked_out" and "locked") or r


def _form(path):
    def attempt(address, username, password):
        r = Client().post(path, {"username": username, "password": password},
                          HTTP_X_FORWARDED_FOR=address)
        return {302: "in", 200: "wrong"}.get(r.status_code) or (
            r.status_code == 429 and "Too many failed logins" in r.content.decode()
            and "locked") or r
    return attempt


LOGINS = {"token": _token, "page": _form("/accounts/login/"),
          "admin": _form("/admin/login/?next=/admin/")}


@pytest.fixture(params=list(LOGINS))
def login(request):
    """One login attempt through one of the three logins: ``login(address, password,
    username="victim")`` is "in", "wrong" or "locked"."""
    attempt = LOGINS[request.param]
    return lambda address, password, username="victim": attempt(address, username, password)


def test_an_attacker_elsewhere_does_not_lock_the_user_out(login):
    # given an attacker who fails the victim's password far past the limit from one address
    answers = [login("203.0.113.66", f"guess-{i}") for i in range(PAIR * 15)]
    # then the attacker is locked out after the limit (the attempts refused since not counted)
    assert answers == ["wrong"] * (PAIR - 1) + ["locked"] * (PAIR * 14 + 1)
    # and the victim, from their own address, signs in
    assert login("198.51.100.7", RIGHT) == "in"


def test_a_username_and_address_are_locked_out_together_after_the_limit(login):
    # given a user who fails their password from one address up to the limit
    answers = [login("198.51.100.7", f"typo-{i}") for i in range(PAIR)]
    assert answers == ["wrong"] * (PAIR - 1) + ["locked"]
    # then even the right password is refused from there
    assert login("198.51.100.7", RIGHT) == "locked"
    # but not from another address, nor for another username from that address
    assert login("198.51.100.8", RIGHT) == "in"
    assert login("198.51.100.7", RIGHT, username="sprayer") == "in"


def test_signing_in_clears_the_users_own_failures_from_their_address(login):
    # given a user one typo short of the limit at home, who then signs in
    assert [login("198.51.100.7", f"typo-{i}") for i in range(PAIR - 1)] == ["wrong"] * (
        PAIR - 1)
    assert login("198.51.100.7", RIGHT) == "in"
    # then their typos count anew
    assert [login("198.51.100.7", f"typo-{i}") for i in range(PAIR - 1)] == ["wrong"] * (
        PAIR - 1)
    assert login("198.51.100.7", RIGHT) == "in"


def test_a_username_is_locked_out_everywhere_only_after_the_high_limit(login):
    # given failures for one username spread over many addresses, one short of its limit
    addresses = [f"203.0.113.{i}" for i in range(USERNAME // PAIR)]
    for address in addresses[:-1]:
        assert [login(address, "x") for _ in range(PAIR)] == ["wrong"] * (PAIR - 1) + ["locked"]
    assert [login(addresses[-1], "x") for _ in range(PAIR - 1)] == ["wrong"] * (PAIR - 1)
    # then the user still signs in from a new address
    assert login("198.51.100.7", RIGHT) == "in"
    # when the next failure reaches the username's limit
    assert login(addresses[-1], "x") == "locked"
    # then the username is locked out from every address, its own included
    assert login("198.51.100.7", RIGHT) == "locked"
    assert login("198.51.100.9", RIGHT) == "locked"
    # and another username signs in from the attackers' addresses
    assert login(addresses[0], RIGHT, username="sprayer") == "in"


def test_an_address_is_locked_out_for_every_username_after_the_high_limit(login):
    # given one address that tries one password on many usernames (password spraying), and
    # signs in to an account of its own halfway (which clears none of the others' failures)
    sprayed = [login("203.0.113.5", "Summer2024!", username=f"user{i}")
               for i in range(ADDRESS // 2)]
    assert login("203.0.113.5", RIGHT, username="sprayer") == "in"
    sprayed += [login("203.0.113.5", "Summer2024!", username=f"user{i}")
                for i in range(ADDRESS // 2, ADDRESS)]
    # then the failure that reaches the address's limit locks it out
    assert sprayed == ["wrong"] * (ADDRESS - 1) + ["locked"]
    # for every username, the victim's too
    assert login("203.0.113.5", RIGHT) == "locked"
    # while the victim signs in from their own address
    assert login("198.51.100.7", RIGHT) == "in"
