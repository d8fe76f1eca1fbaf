"""OpenAPI post-processing: document the API's one error shape on every operation, with the
errors any request may answer (4xx, and 503 ``database_unavailable``) and a write's 409/422;
and bodies that take exactly one of two fields as a ``oneOf``."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema


class AutoSchema(SpectacularAutoSchema):
    """drf-spectacular's, knowing the API's own permission classes: an operation a permission
    lets anonymous clients call (``anonymous_methods``, api/permissions.py) lists the empty
    security requirement ``{}`` beside the token and the session, as drf-spectacular does for
    ``AllowAny`` — public reads were declared as needing a login."""

    def get_auth(self):
        auths = super().get_auth()
        if {} not in auths and any(
                self.method in getattr(permission, "anonymous_methods", ())
                for permission in self.view.get_permissions()):
            auths.append({})
        return auths


class ExactlyOneOfExtension(OpenApiSerializerExtension):
    """A serializer with ``exactly_one_of`` (api.serializers.ExactlyOneOf): its fields as
    inferred, and a ``oneOf`` of one ``required`` list per field — a body with both, or with
    neither, matches no branch or two, and is refused, as the serializer refuses it."""

    target_class = "api.serializers.ExactlyOneOf"
    match_subclasses = True

    def map_serializer(self, auto_schema, direction):
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        if direction == "request":
            schema["oneOf"] = [{"required": [name]} for name in self.target.exactly_one_of]
        return schema

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {"error": {
        "type": "object",
        "required": ["code", "message"],
        "properties": {"code": {"type": "string"}, "message": {"type": "string"},
                       "detail": {}, "fields": {"type": "object"}},
    }},
}
#: what any request may answer: bad input, no or wrong login, not allowed, not found (also an
#: invalid page), wrong method or type, too large, throttled
GENERIC = {"400": "invalid request", "401": "not authenticated", "403": "not allowed",
           "404": "not found", "405": "method not allowed", "406": "not acceptable",
           "413": "request body too large", "414": "request line too long",
           "415": "unsupported media type",
           "429": "throttled (see error.detail.retry_after)"}
#: answered by the web server in front of the application (gunicorn refuses a request line
#: over 4,094 bytes; nginx over its buffers), in its own format, not the API's error shape
FRONT_SERVER = {"414"}
#: what any request may answer when the database, or the task queue a request needs, is out
#: for a moment (api/errors.py): the one error shape with code ``database_unavailable`` (or
#: ``queue_unavailable``, ``service_unavailable``) and a ``Retry-After`` header
UNAVAILABLE = {"503": "the database is unavailable for a moment (code database_unavailable), or "
                      "the task queue this request needs (code queue_unavailable: nothing was "
                      "changed), or another service (code service_unavailable): send the same "
                      "request again after Retry-After seconds (a write with the same "
                      "Idempotency-Key)"}
RETRY_AFTER = {"Retry-After": {"description": "seconds to wait before sending the request again",
                               "schema": {"type": "integer"}}}
#: what a write may answer besides: a conflict with the stored state, or the engine's refusal
WRITES = {"409": "conflicts with what is stored (already done, stale version…)",
          "422": "refused by the rules (the engine's code, index and message in detail)"}
NULLABLE = {"Result": ("confirmed_by",), "Table": ("team_a", "team_b"),
            "Version": ("submitted_by",)}


def document_errors(result, generator, request, public):
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Error"] = ERROR_SCHEMA
    ref = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    for item in result.get("paths", {}).values():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            codes = dict(GENERIC)
            if method in ("post", "put", "patch", "delete"):
                codes.update(WRITES)
            codes.update(UNAVAILABLE)
            responses = operation["responses"]
            for code, description in codes.items():
                responses.setdefault(code, {"description": description})
            for code, response in responses.items():
                if (code.startswith("4") or code == "503") and "content" not in response and (
                        code not in FRONT_SERVER):
                    response.update(ref)
            responses["503"].setdefault("headers", RETRY_AFTER)
    for name, fields in NULLABLE.items():
        for field in fields:
            prop = schemas.get(name, {}).get("properties", {}).get(field)
            if prop is not None and "$ref" not in prop:
                prop["nullable"] = True
    return result
