"""Logging in over the API: ``POST /auth/token/`` with a username and a password."""

from __future__ import annotations

from django.contrib.auth import authenticate, user_logged_in
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from api.throttling import LoginAddressThrottle, LoginUsernameThrottle


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False,
                                     style={"input_type": "password"})


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()


class TokenObtainApi(APIView):
    """A user's API token for their username and password.

    DRF's own view turns throttling off. This one counts every attempt, per client address and
    per username, before the password is checked (``THROTTLE_LOGIN``, atomically), and
    django-axes locks failing logins out (429 ``locked_out``, for ``LOGIN_COOLOFF_MINUTES``:
    config/lockout.py), as it does the pages' and the admin's."""

    permission_classes = [AllowAny]
    authentication_classes = []
    throttle_classes = [LoginAddressThrottle, LoginUsernameThrottle]

    @extend_schema(request=TokenRequestSerializer,
                   responses={200: TokenSerializer,
                              400: OpenApiResponse(description="wrong username or password"),
                              429: OpenApiResponse(description="too many attempts, or locked "
                                                               "out")})
    def post(self, request):
        ser = TokenRequestSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        # django-axes reads and marks the Django request (its middleware answers a lockout)
        user = authenticate(request=request._request, **ser.validated_data)
        if user is None:
            raise ValidationError(_("Unable to log in with provided credentials."))
        # a login, as django.contrib.auth.login announces one (without a session): axes clears
        # this username's failures from this address, and the user's last_login is set
        user_logged_in.send(sender=type(user), request=request._request, user=user)
        token, _created = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})
