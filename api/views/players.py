"""Players, the signed-in user's own profile, and their invitations to 联邦 teams."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from api import serializers as s
from api.permissions import player_of
from api.views.common import ERRORS, event_entries, require
from tournaments.errors import ServiceError
from tournaments.models import Player, TeamMember
from tournaments.selectors import pending_invitations, players_visible_to
from tournaments.services.players import player_create
from tournaments.services.teams import team_invitation_accept, team_invitation_decline


class PlayerListCreateApi(generics.ListCreateAPIView):
    """Players, for the staff of events: an organizer or referee lists the players entered in
    (or named in a 联邦 team of) the events they organize or referee; a superuser, or a user the
    admin shows every player to (``tournaments.view_player``), lists all. ``/players/me/`` is a
    player's own profile."""

    serializer_class = s.PlayerSerializer
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"
    search_fields = ["name", "club", "=number"]

    def _staff(self):
        u = self.request.user
        return u.is_staff or u.organized_events.exists() or u.refereed_events.exists()

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Player.objects.none()
        require(self._staff(), "only organizers and referees list players")
        return players_visible_to(self.request.user)

    def perform_create(self, serializer):
        require(self._staff(), "only organizers create players for others; use /players/me/")
        serializer.instance = player_create(**serializer.validated_data)


class PlayerMeApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(responses={200: s.PlayerSerializer, **ERRORS})
    def get(self, request):
        """The player profile of the logged-in user."""
        player = player_of(request.user)
        if player is None:
            raise NotFound("you have no player profile yet; POST one")
        return Response(s.PlayerSerializer(player).data)

    @extend_schema(request=s.PlayerSerializer, responses={201: s.PlayerSerializer, **ERRORS})
    def post(self, request):
        """Create your own player profile (self-registration)."""
        if player_of(request.user) is not None:
            raise ServiceError("already_registered", "you already have a player profile",
                               status=409)
        ser = s.PlayerSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        player = player_create(user=request.user, **ser.validated_data)
        return Response(s.PlayerSerializer(player).data, status=status.HTTP_201_CREATED)


class InvitationListApi(generics.ListAPIView):
    """Your pending invitations to 联邦 teams (邀请): accept one to play for that team."""

    serializer_class = s.InvitationSerializer
    permission_classes = [IsAuthenticated]
    pagination_class = None

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return TeamMember.objects.none()
        return pending_invitations(player_of(self.request.user))


def _my_player(request) -> Player:
    """The logged-in user's player profile (404 without one: they have no invitations)."""
    me = player_of(request.user)
    if me is None:
        raise NotFound("no such invitation")
    return me


class InvitationAcceptApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(request=None, responses={200: s.EntrySerializer, **ERRORS})
    def post(self, request, pk):
        """Accept an invitation: you play for that team (its entry); your other invitations
        in the event are declined (their teams are dissolved)."""
        membership = team_invitation_accept(membership_id=pk,
                                                     player=_my_player(request))
        return Response(s.EntrySerializer(event_entries(membership.event).get(
            team_id=membership.team_id)).data)


class InvitationDeclineApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(request=None, responses={204: None, **ERRORS})
    def post(self, request, pk):
        """Decline an invitation: the team that sent it is dissolved."""
        team_invitation_decline(membership_id=pk, player=_my_player(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
