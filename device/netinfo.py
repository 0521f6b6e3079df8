"""The dashboard's address on the LAN and its QR code for phones."""

from __future__ import annotations

import io
import logging
import socket

import segno

logger = logging.getLogger(__name__)


def lan_address() -> str:
    """This machine's LAN IPv4 address, or ``127.0.0.1`` when it has none.

    A UDP socket ``connect`` only asks the kernel for the route: no packet is sent.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: routed like any outside address
            address = probe.getsockname()[0]
        except OSError:
            address = ""
    if address and not address.startswith("0."):
        return address
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            candidate = str(info[4][0])
            if not candidate.startswith("127."):
                return candidate
    except OSError:
        logger.debug("cannot resolve this host's name", exc_info=True)
    return "127.0.0.1"


def dashboard_url(host: str, port: int) -> str:
    """The URL a phone opens: the LAN address when listening on every interface."""
    shown = lan_address() if host in ("0.0.0.0", "", "::") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def qr_terminal(url: str) -> str:
    """The QR code of ``url`` drawn with block characters for a terminal."""
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def qr_svg(url: str, scale: int = 4) -> str:
    """The QR code of ``url`` as an SVG document (for the dashboard)."""
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=scale, border=2)
    return out.getvalue().decode("utf-8")
