"""The one error type services raise for refused requests (views translate it to HTTP)."""

from __future__ import annotations


class ServiceError(Exception):
    """A request the rules of the event refuse; nothing was changed.

    ``code`` is a short machine name, ``message`` a sentence for a person, ``detail`` extra data
    (for engine refusals: the engine's error object).
    """

    status = 400

    def __init__(self, code: str, message: str, detail: dict | None = None, status: int | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.detail = detail or {}
        if status is not None:
            self.status = status

    def to_dict(self) -> dict:
        out = {"code": self.code, "message": str(self.message)}
        if self.detail:
            out["detail"] = self.detail
        return out


class NotFound(ServiceError):
    status = 404


class Conflict(ServiceError):
    status = 409


class Forbidden(ServiceError):
    status = 403
