"""Optional ArUco fiducials at the tier corners, so a board can be calibrated with no clicks.

Placement (documented for users in the README):

* dictionary ``DICT_4X4_50``; marker id = ``4 * tier + corner`` with tier
  P, Q, R, S = 0..3 and corner NW, NE, SE, SW = 0..3 (tier P's NW is id 0,
  tier S's SW is id 15);
* each marker's black square is :data:`MARKER_MM` (15 mm) across, printed on a
  sticker with a white border of a quarter of that, and stuck on the top face
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

import cv2
import numpy as np

from calibration.spec import CORNERS, TimeVectorsSpec
from rules.timevectors.points import TIER_LETTERS

logger = logging.getLogger(__name__)

DICTIONARY = cv2.aruco.DICT_4X4_50
MARKER_MM = 15.0
BORDER_FRACTION = 0.25  # white border around the black square, as a fraction of its side
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
    marker = cv2.aruco.generateImageMarker(_dictionary(), marker_id(tier, CORNERS[corner_index]), inner)
    pad = texels - inner
    return cv2.copyMakeBorder(marker, pad // 2, pad - pad // 2, pad // 2, pad - pad // 2,
                              cv2.BORDER_CONSTANT, value=255)


def marker_corners_mm(spec: TimeVectorsSpec, tier: int, corner_index: int) -> tuple[np.ndarray, np.ndarray]:
    """World corners (top-left, top-right, bottom-right, bottom-left; top = north) of the
    sticker and of the marker's black square at one tier corner, each ``(4, 3)``."""
    corner = CORNERS[corner_index]
    sx, sy = _OUTWARD[corner]
    landmark = np.array(spec.landmarks(tier)[corner])
    z = landmark[2]
    # Centre of the black square: half a marker out from the landmark along both axes.
    centre = landmark[:2] + np.array([sx, sy]) * MARKER_MM / 2

    def square(side: float) -> np.ndarray:
        h = side / 2
        offsets = np.array([[-h, h], [h, h], [h, -h], [-h, -h]])
        return np.column_stack([centre + offsets, np.full(4, z)])

    return square(MARKER_MM * (1 + 2 * BORDER_FRACTION)), square(MARKER_MM)


def detect_clicks(image_bgr: np.ndarray) -> dict[str, dict[str, list[float]]]:
    """Find the corner markers and return the landmarks in the clicks-file structure.

    Only the markers found are returned (a missing tier or corner is reported by
    the clicks validation of :func:`calibration.fit.fit_camera`). A marker id
    seen twice keeps neither, since the landmark would be ambiguous.
    """
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY) if image_bgr.ndim == 3 else image_bgr
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(_dictionary(), params)
    corners, ids, _ = detector.detectMarkers(grey)
    clicks: dict[str, dict[str, list[float]]] = {}
    if ids is None:
        return clicks
    flat = ids.reshape(-1).tolist()
    for found, marker in zip(flat, corners):
        if found >= 16:
            continue
        if flat.count(found) > 1:
            logger.warning("marker id %d seen %d times; ignoring it", found, flat.count(found))
            continue
        tier, corner = divmod(found, 4)
        name = CORNERS[corner]
        u, v = marker.reshape(4, 2)[_INNER_CORNER[name]]
        clicks.setdefault(TIER_LETTERS[tier], {})[name] = [float(u), float(v)]
    return clicks
