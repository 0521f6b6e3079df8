"""The application factory (Flask tutorial shape: no module-level app, runtime passed in)."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from typing import Any

from flask import Flask

from web import api, auth, errors, headers, pages, stream, tabletop, wizard
from web.extension import install

logger = logging.getLogger(__name__)

DEFAULT_CONFIG: dict[str, Any] = {
    # Bodies above this are refused with 413 before a view runs (a calibration is a few kB).
    "MAX_CONTENT_LENGTH": 64 * 1024,
    "SESSION_COOKIE_SAMESITE": "Strict",
    "SESSION_COOKIE_HTTPONLY": True,
    # Comment line on an idle SSE stream so proxies keep it and dead clients are noticed.
    "BOARDCAM_SSE_HEARTBEAT_S": 15.0,
    # How often the MJPEG stream looks for a new annotated frame.
    "BOARDCAM_MJPEG_INTERVAL_S": 0.1,
    # Address shown in the QR code (the LAN address printed by ``boardcam serve``); None: as requested.
    "BOARDCAM_PUBLIC_URL": None,
    # Where the wizard writes the calibration; None: ``calibration.json`` in the user data dir.
    "BOARDCAM_CALIBRATION_PATH": None,
    # Board spec the wizard fits against (shipped name or TOML path).
    "BOARDCAM_SPEC": "timevectors",
}


def create_app(config: Mapping[str, Any] | None = None, *, runtime: Any = None) -> Flask:
    """Build the dashboard application around ``runtime``.

    ``runtime`` is a ``device.runtime.Runtime`` (or any object with its
    methods); ``config`` overrides :data:`DEFAULT_CONFIG` and Flask settings.
    Raises ``ValueError`` when no runtime is given: the app has nothing to show.
    """
    if runtime is None:
        raise ValueError("create_app needs a runtime (device.runtime.Runtime) to show")
    app = Flask(__name__)
    app.config.update(DEFAULT_CONFIG)
    app.config["SECRET_KEY"] = secrets.token_hex(32)  # sessions end with the process
    if config:
        app.config.update(config)
    install(app, runtime)
    errors.init_app(app)
    headers.init_app(app)
    auth.init_app(app)
    api.init_app(app)
    stream.init_app(app)
    wizard.init_app(app)
    pages.init_app(app)
    tabletop.init_app(app)  # TSR 4D, Timeline and the GRYB games played by hand on a phone
    return app
