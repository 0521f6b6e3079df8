"""The HTML pages (dashboard, history, calibration wizard) and the QR code of the address."""

from __future__ import annotations

import io

import segno
from flask import Blueprint, Flask, Response, current_app, render_template, request

from device.events import ALERT_TYPES

bp = Blueprint("pages", __name__)


def dashboard_url() -> str:
    """The address phones should open: configured (the LAN address) or the one in use."""
    return current_app.config.get("BOARDCAM_PUBLIC_URL") or request.host_url


@bp.get("/")
def dashboard() -> str:
    return render_template(
        "dashboard.html", page="dashboard", dashboard_url=dashboard_url(), alert_types=sorted(ALERT_TYPES)
    )


@bp.get("/history")
def history() -> str:
    return render_template("history.html", page="history")


@bp.get("/calibrate")
def calibrate() -> str:
    return render_template("wizard.html", page="calibrate")


@bp.get("/qr.svg")
def qr_code() -> Response:
    """SVG QR code of :func:`dashboard_url` (segno, no network)."""
    buffer = io.BytesIO()
    segno.make(dashboard_url(), error="m").save(buffer, kind="svg", scale=6, border=2, xmldecl=False)
    response = Response(buffer.getvalue(), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-cache"
    return response


def init_app(app: Flask) -> None:
    """Register the page routes."""
    app.register_blueprint(bp)
