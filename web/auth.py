"""Who may control the game: the PIN, a session after PIN login, and cross-site protection.

Watching is open on the LAN; control requests (new game, accept, correct,
confirm, undo, saving a calibration) need either

* the header ``X-Boardcam-Pin: <pin>`` (a custom header cannot be sent
  cross-site without a CORS preflight, which this app never grants), or
* a session opened with ``POST /api/login`` plus the header
  ``X-CSRF-Token`` equal to the session's token (double submit: the token is
  also in the readable cookie ``boardcam_csrf``).

Any request whose ``Origin`` (or, without one, ``Referer``) names another site
is refused. Wrong PINs are throttled per client address.
"""

from __future__ import annotations

import functools
import hmac
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, jsonify, request, session

from web.errors import ApiError
from web.extension import EXTENSION_KEY, extension, runtime
from web.validate import json_object

logger = logging.getLogger(__name__)

PIN_HEADER = "X-Boardcam-Pin"
CSRF_HEADER = "X-CSRF-Token"
CSRF_COOKIE = "boardcam_csrf"

F = TypeVar("F", bound=Callable[..., Any])

bp = Blueprint("auth", __name__, url_prefix="/api")


class PinThrottle:
    """Refuse PIN attempts from an address after too many wrong ones in a time window.

    Memory stays bounded: at most ``max_clients`` addresses are remembered.
    """

    def __init__(self, max_failures: int = 5, window_s: float = 60.0, max_clients: int = 256) -> None:
        self.max_failures = max_failures
        self.window_s = window_s
        self.max_clients = max_clients
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, address: str, now: float) -> deque[float]:
        times = self._failures.get(address, deque())
        while times and now - times[0] > self.window_s:
            times.popleft()
        return times

    def is_blocked(self, address: str, now: float | None = None) -> bool:
        """True while ``address`` has used up its wrong attempts."""
        now = time.monotonic() if now is None else now
        with self._lock:
            return len(self._recent(address, now)) >= self.max_failures

    def record_failure(self, address: str, now: float | None = None) -> None:
        """Count one wrong PIN from ``address``."""
        now = time.monotonic() if now is None else now
        with self._lock:
            times = self._recent(address, now)
            times.append(now)
            self._failures[address] = times
            if len(self._failures) > self.max_clients:
                oldest = min(self._failures, key=lambda key: self._failures[key][-1] if self._failures[key] else 0.0)
                del self._failures[oldest]


def _throttle() -> PinThrottle:
    return extension().extras["pin_throttle"]


def verify_pin(pin: Any) -> None:
    """Check a PIN against the runtime; raises :class:`ApiError` 403 (wrong) or 429 (throttled)."""
    address = request.remote_addr or "?"
    throttle = _throttle()
    if throttle.is_blocked(address):
        raise ApiError(429, "too many wrong PINs: wait a minute and try again")
    if not isinstance(pin, str) or not pin or not runtime().check_pin(pin):
        throttle.record_failure(address)
        raise ApiError(403, "wrong PIN")


def _same_origin() -> bool:
    """False when the request says it comes from a page of another site."""
    source = request.headers.get("Origin") or request.headers.get("Referer")
    if not source or source == "null":
        return source != "null"
    parts = urlsplit(source)
    return (parts.scheme, parts.netloc) == (request.scheme, request.host)


def csrf_token() -> str:
    """The session's CSRF token, created on first use."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def check_control() -> None:
    """Raise :class:`ApiError` unless the current request may control the game."""
    if not _same_origin():
        raise ApiError(403, "cross-site control request refused")
    pin = request.headers.get(PIN_HEADER)
    if pin is not None:
        verify_pin(pin)
        return
    if not session.get("control"):
        raise ApiError(401, "control needs the PIN: log in or send the X-Boardcam-Pin header")
    sent = request.headers.get(CSRF_HEADER, "")
    expected = session.get("csrf", "")
    if not (sent and isinstance(expected, str) and hmac.compare_digest(sent, expected)):
        raise ApiError(403, "missing or wrong CSRF token: reload the page")


def control_required(view: F) -> F:
    """Decorator for views that change the game or the calibration."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        check_control()
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]


def _session_response() -> Response:
    response = jsonify({"control": bool(session.get("control")), "csrf": csrf_token()})
    response.set_cookie(CSRF_COOKIE, csrf_token(), samesite="Strict", httponly=False)
    return response


@bp.get("/session")
def session_info() -> Response:
    """Whether this browser may control, and its CSRF token."""
    return _session_response()


@bp.post("/login")
def login() -> Response:
    """Open a control session with the PIN (``{"pin": "1234"}``)."""
    if not _same_origin():
        raise ApiError(403, "cross-site login refused")
    body = json_object()
    verify_pin(body.get("pin"))
    session["control"] = True
    session["csrf"] = secrets.token_urlsafe(24)  # a fresh token after a privilege change
    logger.info("control session opened from %s", request.remote_addr)
    return _session_response()


@bp.post("/logout")
def logout() -> Response:
    """Close the control session (watching stays open)."""
    session.pop("control", None)
    return _session_response()


def init_app(app: Flask) -> None:
    """Register the login routes and the PIN throttle."""
    app.extensions[EXTENSION_KEY].extras["pin_throttle"] = PinThrottle()
    app.register_blueprint(bp)
