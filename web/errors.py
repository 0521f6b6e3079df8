"""JSON errors for the API: every 4xx/5xx under ``/api/`` is ``{"error": ..., "status": ...}``."""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

logger = logging.getLogger(__name__)


class ApiError(Exception):
    """A request the API refuses; ``status`` is the HTTP status, ``message`` says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def error_response(status: int, message: str) -> Response:
    """The one JSON shape of an API error."""
    response = jsonify({"error": message, "status": status})
    response.status_code = status
    return response


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.path == "/events"


def _handle_api_error(error: ApiError) -> Response:
    return error_response(error.status, error.message)


def _handle_http_exception(error: HTTPException) -> Response | HTTPException:
    if not _wants_json():
        return error
    messages = {
        413: "request body too large",
        405: f"method {request.method} is not allowed here",
        404: "no such API route",
    }
    return error_response(error.code or 500, messages.get(error.code or 0, error.description or ""))


def init_app(app: Flask) -> None:
    """Register the JSON error handlers."""
    app.register_error_handler(ApiError, _handle_api_error)
    app.register_error_handler(HTTPException, _handle_http_exception)
