"""The annotated camera view: locations, accepted tokens, mismatch points and the winning line
(a vector on the stacked board, a GRYB quadrangle on the bandanna).

Projection of the 256 point centres happens once per calibration
(:class:`Overlay`); per frame only a few dozen ``cv2`` drawing calls run on a
copy of the frame, so an MJPEG stream costs little on a Pi.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import cv2
import numpy as np

from calibration.refraction import through_plates
from calibration.spec import TimeVectorsSpec, load_spec

logger = logging.getLogger(__name__)

RED = (0, 0, 255)
GREY = (160, 160, 160)
WHITE = (255, 255, 255)
DARK = (30, 30, 30)
#: BGR drawing colours per colour index when no palette is known.
DEFAULT_BGR = ((0, 215, 255), (255, 120, 0), (60, 200, 60))


def palette_bgr(palette: Sequence[Sequence[int]] | None) -> list[tuple[int, int, int]]:
    """Drawing colours from an RGB palette (``[[r, g, b], ...]``), defaults where missing."""
    colours = [tuple(int(c) for c in reversed(rgb[:3])) for rgb in (palette or [])]
    return [*colours, *DEFAULT_BGR[len(colours):]]  # type: ignore[list-item]


def camera_of(calibration: Any) -> Any:
    """The ``CameraModel`` of a calibration object, or ``None`` if it has none."""
    camera = getattr(calibration, "camera", None)
    return camera if hasattr(camera, "project") else None


class Overlay:
    """Draws board annotations for one calibration; raises nothing on a calibration without a camera
    (it then draws nothing but the frame)."""

    def __init__(self, calibration: Any, spec: TimeVectorsSpec | None = None,
                 palette: Sequence[Sequence[int]] | None = None) -> None:
        self.colours = palette_bgr(palette)
        self.centres: np.ndarray | None = None
        # A GRYB win is a quadrangle: drawn closed. A Time Vectors vector is an open line.
        self.closed_lines = False
        nodes_px = getattr(calibration, "nodes_px", None)
        camera = camera_of(calibration)
        if nodes_px is not None:  # the bandanna: every node located in the image itself
            self.centres = np.round(np.asarray(nodes_px, dtype=np.float64)).astype(np.int32)
            self.scale = max(1, round(calibration.image_size[0] / 640))
            self.closed_lines = True
        elif camera is not None:
            spec = spec or getattr(calibration, "spec", None) or load_spec()
            # Draw at half a token's height: the middle of a token standing on the point.
            points = spec.point_centres() + np.array([0.0, 0.0, spec.token_height / 2])
            seen = through_plates(camera, spec).project(points)  # where they show
            self.centres = np.round(seen).astype(np.int32)
            self.scale = max(1, round(camera.image_size[0] / 640))

    def draw(
        self,
        image: np.ndarray,
        tokens: Mapping[int, int],
        *,
        mismatch: Iterable[int] = (),
        hidden: Iterable[int] = (),
        lines: Iterable[Sequence[int]] = (),
    ) -> np.ndarray:
        """A copy of ``image`` with the annotations; ``image`` itself is never changed."""
        out = image.copy()
        if self.centres is None:
            return out
        s = self.scale
        centres = self.centres
        for x, y in centres:
            cv2.circle(out, (int(x), int(y)), s, GREY, -1, cv2.LINE_AA)
        for point, colour in tokens.items():
            bgr = self.colours[colour % len(self.colours)] if colour >= 0 else GREY
            centre = tuple(int(v) for v in centres[point])
            cv2.circle(out, centre, 7 * s, DARK, 3 * s, cv2.LINE_AA)  # dark rim: readable on any token
            cv2.circle(out, centre, 7 * s, bgr, s, cv2.LINE_AA)
        for point in hidden:
            cv2.drawMarker(out, tuple(int(v) for v in centres[point]), GREY, cv2.MARKER_TILTED_CROSS, 8 * s, s)
        for point in mismatch:
            # White halo under red: a mismatch stands out even next to red tokens.
            centre = tuple(int(v) for v in centres[point])
            cv2.circle(out, centre, 12 * s, WHITE, 5 * s, cv2.LINE_AA)
            cv2.circle(out, centre, 12 * s, RED, 3 * s, cv2.LINE_AA)
        for line in lines:
            pts = np.array([centres[p] for p in line], dtype=np.int32).reshape(-1, 1, 2)
            cv2.polylines(out, [pts], self.closed_lines, RED, 3 * s, cv2.LINE_AA)
        return out


def encode_jpeg(image: np.ndarray, quality: int = 80) -> bytes:
    """JPEG bytes of a BGR image; raises ``ValueError`` if OpenCV cannot encode it."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("cannot encode the frame as JPEG")
    return data.tobytes()
