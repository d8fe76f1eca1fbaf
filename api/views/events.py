"""Events: listed, created, changed, published, and their staff."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Q
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from api import serializers as s
from api.filters import EventFilter
from api.permissions import ReadOnlyOrAuthenticated
from api.views.common import ERRORS, event_or_404, require
from tournaments.errors import ServiceError
from tournaments.models import Event
from tournaments.selectors import can_create_event, is_organizer
from tournaments.services.events import event_create, event_publish, event_staff_add, event_update


class EventListCreateApi(generics.ListCreateAPIView):
    """Events: the public sees published ones; staff also see their own."""

    serializer_class = s.EventSerializer
    permission_classes = [ReadOnlyOrAuthenticated]
    throttle_scope = "writes"
    filterset_class = EventFilter  # ?event_format=, ?status=
    format_filter_values = tuple(Event.Format.values)  # an older ?format=team (api/negotiation)
    search_fields = ["name", "slug"]

    def get_queryset(self):
        user = self.request.user
        q = Q(published=True)
        if user.is_authenticated:
            if user.is_superuser:
                return Event.objects.all()
            q |= Q(organizers=user) | Q(referees=user)
        return Event.objects.filter(q).distinct()

    def perform_create(self, serializer):
        user = self.request.user
        require(can_create_event(user), "only organizers may create events")
        data = serializer.validated_data
        serializer.instance = event_create(organizer=user, **data)


class EventDetailApi(generics.RetrieveUpdateAPIView):
    serializer_class = s.EventUpdateSerializer
    permission_classes = [ReadOnlyOrAuthenticated]
    http_method_names = ["get", "patch", "head", "options"]
    lookup_field = "slug"
    throttle_scope = "writes"

    def get_object(self):
        return event_or_404(self.request, self.kwargs["slug"])

    def perform_update(self, serializer):
        event = serializer.instance
        require(is_organizer(self.request.user, event), "only the event's organizers may")
        serializer.instance = event_update(event=event, **serializer.validated_data)


class EventPublishApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(request=s.PublishSerializer, responses={200: s.EventSerializer, **ERRORS})
    def post(self, request, slug):
        """Publish the event (its pages and data become public)."""
        event = event_or_404(request, slug)
        require(is_organizer(request.user, event), "only the event's organizers may publish")
        ser = s.PublishSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        event_publish(event=event, published=ser.validated_data["published"])
        return Response(s.EventSerializer(event).data)


class EventStaffApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(request=s.StaffSerializer, responses={204: None, **ERRORS})
    def post(self, request, slug):
        """Make a user an organizer or a referee of this event."""
        event = event_or_404(request, slug)
        require(is_organizer(request.user, event), "only the event's organizers may")
        ser = s.StaffSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        user = get_user_model().objects.filter(username=ser.validated_data["username"]).first()
        if user is None:
            raise ServiceError("no_such_user", "no user with that name", status=404)
        event_staff_add(event=event, user=user, role=ser.validated_data["role"])
        return Response(status=status.HTTP_204_NO_CONTENT)
