"""Live streams: Server-Sent Events (``/events``) and the MJPEG camera view (``/stream.mjpg``).

Each stream holds one server thread while the client stays. A client that
goes away is noticed at the next write (heartbeats make sure one comes within
``BOARDCAM_SSE_HEARTBEAT_S``); the server then closes the generator and its
``finally`` unsubscribes, so no thread or queue is left behind.
"""

from __future__ import annotations

import json
import logging
import queue
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Flask, Response, current_app, request, stream_with_context

from web.errors import ApiError
from web.extension import runtime
from web.present import palette_of, present_state

logger = logging.getLogger(__name__)

bp = Blueprint("stream", __name__)

MJPEG_BOUNDARY = "frame"
# The browser's EventSource waits this long before reconnecting by itself.
SSE_RETRY_MS = 2000


def disconnect_probe() -> Callable[[], bool]:
    """waitress's "has the client gone?" check (with ``channel_request_lookahead`` > 0).

    Without it a gone client is still noticed, at the next write.
    """
    return request.environ.get("waitress.client_disconnected") or (lambda: False)


def sse_message(data: Any, event: str | None = None) -> bytes:
    """One SSE message; ``data`` is sent as one line of JSON."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data, separators=(',', ':'), default=str)}\n\n".encode()


def record_message(record: Any, palette: Any = None) -> bytes:
    """An event record as SSE: ``state`` records as ``event: state``, the rest as plain messages.

    Plain messages keep the flat record (``{"type": "move", ...}``) so one
    ``onmessage`` handler sees every type, including ones added later.
    """
    if isinstance(record, dict) and record.get("type") == "state":
        state = record.get("state", {k: v for k, v in record.items() if k != "type"})
        return sse_message(present_state(state, palette), "state")
    return sse_message(record)


def event_stream(rt: Any, heartbeat_s: float, is_disconnected: Callable[[], bool]) -> Iterator[bytes]:
    """The SSE body for one client: a retry hint, then every record of the subscription.

    The runtime's subscription starts with a ``state`` record (the current
    state at once, for a late client) and sends a fresh one after each batch.
    """
    records, unsubscribe = rt.subscribe()
    try:
        yield f"retry: {SSE_RETRY_MS}\n\n".encode()
        while not is_disconnected():
            try:
                record = records.get(timeout=heartbeat_s)
            except queue.Empty:
                yield b": heartbeat\n\n"
                continue
            if record is None:  # the runtime is shutting down
                return
            yield record_message(record, palette_of(rt))
    finally:
        unsubscribe()
        logger.debug("SSE client gone, unsubscribed")


@bp.get("/events")
def events() -> Response:
    """``text/event-stream`` of the event records (see :func:`event_stream`)."""
    rt = runtime()
    heartbeat = float(current_app.config["BOARDCAM_SSE_HEARTBEAT_S"])
    response = Response(
        stream_with_context(event_stream(rt, heartbeat, disconnect_probe())), mimetype="text/event-stream"
    )
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # nginx in front must not buffer the stream
    return response


PART_HEAD = f"--{MJPEG_BOUNDARY}\r\nContent-Type: image/jpeg\r\n\r\n".encode()


def mjpeg_part(jpeg: bytes) -> bytes:
    """One JPEG of a ``multipart/x-mixed-replace`` stream, followed by the next part's head.

    Chromium shows a part only once the next part has begun, so the head of
    the next part goes out with each frame (the stream starts with one head).
    """
    return jpeg + b"\r\n" + PART_HEAD


def mjpeg_stream(
    latest: Callable[[], bytes | None],
    interval_s: float,
    is_disconnected: Callable[[], bool] = lambda: False,
    resend_s: float = 5.0,
) -> Iterator[bytes]:
    """Send each new annotated frame once; resend the last one every ``resend_s`` as a keep-alive.

    Ends when ``is_disconnected()`` says the client left (or at the next write after it left).
    """
    yield PART_HEAD
    last: bytes | None = None
    sent_at = 0.0
    while not is_disconnected():
        jpeg = latest()
        now = time.monotonic()
        if jpeg is not None and (jpeg is not last or now - sent_at >= resend_s):
            yield mjpeg_part(jpeg)
            last, sent_at = jpeg, now
        time.sleep(interval_s)


@bp.get("/stream.mjpg")
def camera_stream() -> Response:
    """The annotated camera view as MJPEG (an ``<img>`` can show it)."""
    rt = runtime()
    interval = float(current_app.config["BOARDCAM_MJPEG_INTERVAL_S"])
    response = Response(
        mjpeg_stream(rt.latest_jpeg, interval, disconnect_probe()),
        mimetype=f"multipart/x-mixed-replace; boundary={MJPEG_BOUNDARY}",
    )
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/snapshot.jpg")
def snapshot() -> Response:
    """The newest annotated camera view as one JPEG; 503 before the first frame."""
    jpeg = runtime().latest_jpeg()
    if jpeg is None:
        raise ApiError(503, "no camera frame yet")
    response = Response(jpeg, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


def init_app(app: Flask) -> None:
    """Register the stream routes."""
    app.register_blueprint(bp)
