"""The engine's check of a game record, a match record or a result sheet."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

import engine
from api import serializers as s
from tournaments.errors import ServiceError


class EngineValidateApi(APIView):
    permission_classes = [AllowAny]
    throttle_scope = "engine"

    @extend_schema(request=s.EngineValidateSerializer,
                   responses={200: OpenApiTypes.OBJECT,
                              422: OpenApiResponse(description="illegal record or sheet")})
    def post(self, request):
        """Replay a game record (or a match record, or score a result sheet) and return the
        engine's result object; an illegal one comes back as 422 with the engine's error."""
        ser = s.EngineValidateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        if "sheet" in ser.validated_data:
            res = engine.score_sheet(ser.validated_data["sheet"])
        else:
            rec = ser.validated_data["record"]
            if isinstance(rec, dict) and rec.get("format") == "gouji-match/1":
                res = engine.replay_match(rec)
            else:
                res = engine.replay(rec)
        if not res.get("ok"):
            err = res["error"]
            detail = dict(err)
            if "game" in res:
                detail["game"] = res["game"]
            raise ServiceError(err["code"], err["message"], detail=detail, status=422)
        return Response(res)
