"""The API's JSON parser: the service's one reader of a client's JSON
(:func:`config.jsonbody.read_json`, which the pages use too), its refusals as the API's 400
``bad_request_body``."""

from __future__ import annotations

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from config.jsonbody import MAX_DEPTH, JSONRefused, json_depth, read_json

__all__ = ["MAX_DEPTH", "StrictJSONParser", "json_depth"]


class StrictJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        charset = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
        try:
            return read_json(stream.read(), charset=charset)
        except JSONRefused as exc:
            raise ParseError(exc.message) from None
