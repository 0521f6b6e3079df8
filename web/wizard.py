"""Calibration wizard API: capture a frame, preview the grid per click set, sample colours, save.

The wizard works on one captured frame at a time (kept on the server so the
colour samples come from the very image the user clicked on). Saving fits the
camera with :func:`calibration.fit.fit_camera`, refines it from the printed grid
as ``boardcam calibrate`` does, writes the same file and hands the calibration to
the runtime.
"""

from __future__ import annotations

import logging
import math
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import platformdirs
from flask import Blueprint, Flask, Response, current_app, jsonify

from calibration.calibfile import Calibration, save_calibration
from calibration.fit import ClicksError, FitResult, fit_camera
from calibration.refine import refine_with_markings
from calibration.spec import CORNERS, TimeVectorsSpec, load_spec
from rules.timevectors.points import TIER_LETTERS
from web.auth import control_required
from web.calibration_preview import (
    complete_tiers,
    preview_from_camera,
    preview_from_homographies,
    sample_colours,
)
from web.errors import ApiError
from web.extension import EXTENSION_KEY, extension, runtime
from web.validate import json_object

logger = logging.getLogger(__name__)

bp = Blueprint("wizard", __name__, url_prefix="/api")

MAX_COLOURS = 3


@dataclass(frozen=True)
class Capture:
    """A frame the wizard works on; ``id`` ties clicks and samples to it."""

    id: str
    image: np.ndarray  # BGR
    jpeg: bytes

    @property
    def size(self) -> tuple[int, int]:
        return int(self.image.shape[1]), int(self.image.shape[0])


class CaptureStore:
    """Holds the newest captured frame only, so memory stays flat however often people capture."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._capture: Capture | None = None

    def put(self, image: np.ndarray) -> Capture:
        ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        if not ok:
            raise ApiError(500, "could not encode the captured frame")
        capture = Capture(secrets.token_hex(8), image, encoded.tobytes())
        with self._lock:
            self._capture = capture
        return capture

    def get(self, capture_id: Any) -> Capture:
        """The capture with ``capture_id``; raises :class:`ApiError` 410 when it was replaced."""
        with self._lock:
            capture = self._capture
        if capture is None or capture.id != capture_id:
            raise ApiError(410, "that capture is gone (someone captured again): capture a new frame")
        return capture


def _store() -> CaptureStore:
    return extension().extras["captures"]


def _spec() -> TimeVectorsSpec:
    return load_spec(current_app.config["BOARDCAM_SPEC"])


def calibration_path() -> Path:
    """Where the wizard writes: the configured path or ``calibration.json`` in the user data dir."""
    configured = current_app.config.get("BOARDCAM_CALIBRATION_PATH")
    if configured:
        return Path(configured)
    return Path(platformdirs.user_data_dir("boardcam")) / "calibration.json"


def _frame_image(frame: Any) -> np.ndarray:
    """``latest_frame()`` may give a ``Frame`` or the BGR array itself."""
    image = getattr(frame, "image", frame)
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
        raise ApiError(503, "the camera gave no usable frame")
    return image


def parse_clicks(body: dict[str, Any], size: tuple[int, int]) -> dict[str, dict[str, tuple[float, float]]]:
    """``{"P": {"NW": [u, v], ...}, ...}`` checked for shape, numbers and the image bounds."""
    raw = body.get("clicks")
    if not isinstance(raw, dict):
        raise ApiError(400, "'clicks' must be an object like {\"P\": {\"NW\": [u, v], ...}}")
    width, height = size
    clicks: dict[str, dict[str, tuple[float, float]]] = {}
    for tier, corners in raw.items():
        if tier not in TIER_LETTERS or not isinstance(corners, dict):
            raise ApiError(400, f"clicks: {tier!r} is not a tier (P, Q, R, S) with corners")
        clicks[tier] = {}
        for corner, uv in corners.items():
            if corner not in CORNERS:
                raise ApiError(400, f"clicks: {corner!r} is not a corner ({', '.join(CORNERS)})")
            valid = (
                isinstance(uv, list) and len(uv) == 2
                and all(isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c) for c in uv)
            )
            if not valid:
                raise ApiError(400, f"clicks: {tier} {corner} must be [u, v] in pixels")
            if not (0 <= uv[0] <= width and 0 <= uv[1] <= height):
                raise ApiError(400, f"clicks: {tier} {corner} is outside the {width}x{height} frame")
            clicks[tier][corner] = (float(uv[0]), float(uv[1]))
    return clicks


def parse_palette(body: dict[str, Any]) -> list[tuple[int, int, int]]:
    """Optional ``palette``: up to 3 ``[r, g, b]`` token colours, each 0..255."""
    raw = body.get("palette", [])
    if not isinstance(raw, list) or len(raw) > MAX_COLOURS:
        raise ApiError(400, f"'palette' must be a list of at most {MAX_COLOURS} [r, g, b] colours")
    palette = []
    for colour in raw:
        if not (isinstance(colour, list) and len(colour) == 3
                and all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in colour)):
            raise ApiError(400, "each palette colour must be [r, g, b] with integers 0..255")
        palette.append((colour[0], colour[1], colour[2]))
    return palette


def _fit(clicks: dict, size: tuple[int, int]) -> FitResult:
    """Fit the camera to 16 landmarks; a refusal of the fit is a 422 saying why."""
    try:
        return fit_camera(clicks, _spec(), size)
    except ClicksError as exc:
        raise ApiError(422, str(exc)) from exc


@bp.post("/wizard/capture")
def capture() -> Response:
    """Freeze the newest camera frame for the wizard; returns its id and size."""
    frame = runtime().latest_frame()
    if frame is None:
        raise ApiError(503, "no camera frame yet: is the camera connected?")
    shot = _store().put(_frame_image(frame))
    return jsonify({"capture": shot.id, "width": shot.size[0], "height": shot.size[1]})


@bp.get("/wizard/capture/<capture_id>.jpg")
def capture_image(capture_id: str) -> Response:
    """The captured frame as JPEG."""
    response = Response(_store().get(capture_id).jpeg, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "private, max-age=3600"
    return response


@bp.post("/wizard/fit")
def fit() -> Response:
    """Projected grid for the clicks so far: per-tier homographies, or the full camera fit.

    With all 16 landmarks the answer has ``rms_px`` and ``per_landmark_px``; a
    fit the calibration refuses comes back as ``problem`` (with the
    homography preview still drawn) so the user can drag a corner and retry.
    """
    body = json_object()
    shot = _store().get(body.get("capture"))
    clicks = parse_clicks(body, shot.size)
    spec = _spec()
    answer: dict[str, Any] = {"complete": False, "tiers": preview_from_homographies(clicks, spec)}
    if len(complete_tiers(clicks)) == len(TIER_LETTERS):
        try:
            result = _fit(clicks, shot.size)
        except ApiError as exc:
            answer["problem"] = exc.message
        else:
            answer.update(
                complete=True,
                tiers=preview_from_camera(result.camera, result.spec),
                rms_px=round(float(result.rms_px), 2),
                per_landmark_px=_jsonable(result.per_landmark_px),
                tier_twist_deg=_jsonable(list(result.spec.tier_twist_deg)),
            )
    return jsonify(answer)


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return np.round(value, 2).tolist()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return round(float(value), 2)
    return value


@bp.post("/wizard/sample")
def sample() -> Response:
    """Token colours at tapped pixels of the capture: ``{"capture", "taps": [[u, v], ...]}``."""
    body = json_object()
    shot = _store().get(body.get("capture"))
    taps = body.get("taps")
    valid = isinstance(taps, list) and 0 < len(taps) <= 16 and all(
        isinstance(t, list) and len(t) == 2
        and all(isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c) for c in t)
        for t in taps
    )
    if not valid:
        raise ApiError(400, "'taps' must be a list of 1 to 16 [u, v] pixel positions")
    try:
        colours = sample_colours(shot.image, taps)
    except ValueError as exc:
        raise ApiError(400, str(exc)) from exc
    return jsonify({"colours": colours})


@bp.get("/calibration")
def calibration_summary() -> Response:
    """The calibration in use (the runtime's summary), ``null`` when uncalibrated."""
    return jsonify(runtime().state().get("calibration"))


@bp.post("/calibration")
@control_required
def save() -> Response:
    """Fit, write the calibration file and use it: ``{"capture", "clicks", "palette"}``.

    The captured frame becomes the calibration's reference image (drift
    detection compares later frames with it).
    """
    body = json_object()
    shot = _store().get(body.get("capture"))
    clicks = parse_clicks(body, shot.size)
    palette = parse_palette(body)
    missing = [t for t in TIER_LETTERS if t not in complete_tiers(clicks)]
    if missing:
        raise ApiError(400, f"click all 4 corners of every tier first (missing: {', '.join(missing)})")
    # As `boardcam calibrate` does: the clicks' fit refined from the printed grid crossings.
    result = refine_with_markings(_fit(clicks, shot.size), shot.image)
    spec_source = current_app.config["BOARDCAM_SPEC"]
    calibration = Calibration(
        board="timevectors",
        spec=result.spec,
        camera=result.camera,
        rms_px=float(result.rms_px),
        spec_name=spec_source if "/" not in spec_source and not spec_source.endswith(".toml") else None,
        palette_rgb=tuple(palette) or None,
        landmarks=clicks,
    ).with_reference(shot.image)
    path = calibration_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    save_calibration(calibration, path)
    runtime().set_calibration(calibration)
    logger.info("calibration saved to %s (rms %.2f px)", path, result.rms_px)
    return jsonify({"ok": True, "path": str(path), "rms_px": round(float(result.rms_px), 2)})


def init_app(app: Flask) -> None:
    """Register the wizard routes and its capture store."""
    app.extensions[EXTENSION_KEY].extras["captures"] = CaptureStore()
    app.register_blueprint(bp)
