"""Optional ArUco fiducials at the tier corners, so a board can be calibrated with no clicks.

Placement (documented for users in the README):

* dictionary ``DICT_4X4_50``; marker id = ``4 * tier + corner`` with tier
  P, Q, R, S = 0..3 and corner NW, NE, SE, SW = 0..3 (tier P's NW is id 0,
  tier S's SW is id 15);
* each marker's black square is :data:`MARKER_MM` (18 mm) across, printed on a
  sticker with a 2 mm white border (22 mm square), and stuck on the top face
  of the plate diagonally *outside* the marking, upright (the marker's top edge
  toward north), with the black square's inner corner exactly on the outer
  corner of the printed 8x8 marking (the calibration landmark).

So the landmark of a tier corner is the marker corner nearest the board centre,
which the detector finds to sub-pixel accuracy; no marker size needs to be
known for that. The markers fit in the 20 mm margin between the marking and the
plate edge of the reference board.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import cv2
import numpy as np

from calibration.fit import (
    DEFAULT_MAX_RMS_PX,
    ClicksError,
    FitResult,
    check_fit,
    fit_board,
)
from calibration.spec import CORNERS, TimeVectorsSpec
from rules.timevectors.points import TIER_LETTERS

logger = logging.getLogger(__name__)

DICTIONARY = cv2.aruco.DICT_4X4_50
MARKER_MM = 18.0
BORDER_FRACTION = 2.0 / 18.0  # white border around the black square, as a fraction of its side
_CELLS = 6  # 4x4 bits plus the black frame
# For each corner of the board, the direction from the landmark outward (x, y signs).
_OUTWARD = {"NW": (-1, 1), "NE": (1, 1), "SE": (1, -1), "SW": (-1, -1)}
# ArUco corner order is top-left, top-right, bottom-right, bottom-left of the upright
# marker; with "top" = north, the corner nearest the board centre is:
_INNER_CORNER = {"NW": 2, "NE": 3, "SE": 0, "SW": 1}


def marker_id(tier: int, corner: str) -> int:
    """The marker id for a tier (0..3) and corner name; raises ``ValueError`` for bad input."""
    if not 0 <= tier < 4 or corner not in CORNERS:
        raise ValueError(f"no marker for tier {tier!r}, corner {corner!r}")
    return 4 * tier + CORNERS.index(corner)


def _dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


def marker_image(tier: int, corner_index: int, texels: int = 120) -> np.ndarray:
    """The printable sticker (grey uint8, ``texels`` square): marker plus white border."""
    inner = int(round(texels / (1 + 2 * BORDER_FRACTION)))
    marker = cv2.aruco.generateImageMarker(
        _dictionary(), marker_id(tier, CORNERS[corner_index]), inner
    )
    pad = texels - inner
    return cv2.copyMakeBorder(
        marker, pad // 2, pad - pad // 2, pad // 2, pad - pad // 2, cv2.BORDER_CONSTANT, value=255
    )


def marker_corners_mm(
    spec: TimeVectorsSpec, tier: int, corner_index: int
) -> tuple[np.ndarray, np.ndarray]:
    """World corners (top-left, top-right, bottom-right, bottom-left; top = north) of the
    sticker and of the marker's black square at one tier corner, each ``(4, 3)``."""
    corner = CORNERS[corner_index]
    sx, sy = _OUTWARD[corner]
    # Centre of the black square: half a marker out from the landmark along both axes (in the
    # plate's own frame: the sticker turns with its plate).
    h = spec.marking_half_size
    centre = np.array([sx * h, sy * h]) + np.array([sx, sy]) * MARKER_MM / 2

    def square(side: float) -> np.ndarray:
        half = side / 2
        offsets = np.array([[-half, half], [half, half], [half, -half], [-half, -half]])
        return spec.tier_points(tier, centre + offsets)

    return square(MARKER_MM * (1 + 2 * BORDER_FRACTION)), square(MARKER_MM)


def _detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.minMarkerPerimeterRate = 0.01  # markers are small in a frame of the whole board
    params.perspectiveRemovePixelPerCell = 8
    return cv2.aruco.ArucoDetector(_dictionary(), params)


def _detect_once(grey: np.ndarray, scale: float) -> dict[int, np.ndarray]:
    image = (
        grey
        if scale == 1
        else cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    )
    corners, ids, _ = _detector().detectMarkers(image)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    flat = ids.reshape(-1).tolist()
    for marker, quad in zip(flat, corners, strict=True):
        if marker >= 16:
            continue
        if flat.count(marker) > 1:
            logger.warning("marker id %d seen %d times; ignoring it", marker, flat.count(marker))
            continue
        # Corner positions at the upscaled resolution map back with pixel centres aligned.
        found[marker] = (quad.reshape(4, 2).astype(np.float64) + 0.5) / scale - 0.5
    return found


def detect_markers(image_bgr: np.ndarray) -> dict[int, np.ndarray]:
    """Corner markers in the image: id -> ``(4, 2)`` corners (ArUco order) in pixels.

    Small or blurred markers are looked for again in a 2x upscaled copy. An id
    seen twice is dropped, since its landmark would be ambiguous.
    """
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY) if image_bgr.ndim == 3 else image_bgr
    found = _detect_once(grey, 1.0)
    if len(found) < 16:
        for marker, quad in _detect_once(grey, 2.0).items():
            found.setdefault(marker, quad)
    return found


def clicks_from_markers(markers: Mapping[int, np.ndarray]) -> dict[str, dict[str, list[float]]]:
    """The landmarks (clicks-file structure) of the markers given; missing ones are left out."""
    clicks: dict[str, dict[str, list[float]]] = {}
    for marker, quad in sorted(markers.items()):
        tier, corner = divmod(marker, 4)
        name = CORNERS[corner]
        u, v = quad[_INNER_CORNER[name]]
        clicks.setdefault(TIER_LETTERS[tier], {})[name] = [float(u), float(v)]
    return clicks


def detect_clicks(image_bgr: np.ndarray) -> dict[str, dict[str, list[float]]]:
    """Find the corner markers and return the landmarks in the clicks-file structure.

    Only the markers found are returned (a missing tier or corner is reported by
    the clicks validation of :func:`calibration.fit.fit_camera`).
    """
    return clicks_from_markers(detect_markers(image_bgr))


def fit_from_markers(
    markers: Mapping[int, np.ndarray],
    spec: TimeVectorsSpec,
    image_size: tuple[int, int],
    *,
    max_rms_px: float = DEFAULT_MAX_RMS_PX,
) -> FitResult:
    """Fit the camera to all four corners of every marker found (needs markers on 2+ tiers).

    Raises :class:`ClicksError` when the markers are too few, all on one tier, or
    fit badly (e.g. a sticker put at the wrong corner).
    """
    tiers = {marker // 4 for marker in markers}
    if len(markers) < 3 or len(tiers) < 2:
        raise ClicksError(
            f"found {len(markers)} corner marker(s) on {len(tiers)} tier(s); need at least "
            "3 markers on 2 or more tiers (are the stickers visible and the right size?)"
        )
    obj, img, names = [], [], []
    for marker, quad in sorted(markers.items()):
        tier, corner = divmod(marker, 4)
        obj.append(marker_corners_mm(spec, tier, corner)[1])
        img.append(quad)
        names += [f"marker {marker} corner {k}" for k in range(4)]
    camera, built, errors = fit_board(np.vstack(obj), np.vstack(img), image_size, spec)
    return check_fit(camera, errors, names, built, max_rms_px)
