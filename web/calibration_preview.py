"""Projected grids for the calibration wizard (pure numpy/OpenCV, no Flask).

While the user clicks, each tier with its 4 corners gets a homography
preview (board plane -> image), so the grid appears at once; with all 16
landmarks the fitted :class:`~calibration.camera.CameraModel` projects every
tier. Both give the same shape: per tier letter, the printed grid as
polylines and the 64 point centres, in pixels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.refraction import through_plates
from calibration.spec import CORNERS, TimeVectorsSpec
from rules.timevectors.points import POINTS, TIER_LETTERS, point_coords, point_name

Clicks = Mapping[str, Mapping[str, Sequence[float]]]

SAMPLES_PER_SEGMENT = 6  # lens distortion bends lines: sample each grid line this often


def grid_lines_xy(spec: TimeVectorsSpec) -> np.ndarray:
    """``(L, S, 2)`` board-plane polylines of the printed 4x4 grids of one tier (mm)."""
    lines = []
    half = spec.pitch / 2
    for low_index in (0, 4):  # west/south grid, then east/north grid
        edges = [spec.axis_centre(low_index + i) - half for i in range(4)]
        edges.append(spec.axis_centre(low_index + 3) + half)
        for other_low in (0, 4):
            start = spec.axis_centre(other_low) - half
            stop = spec.axis_centre(other_low + 3) + half
            along = np.linspace(start, stop, SAMPLES_PER_SEGMENT)
            for edge in edges:
                fixed = np.full_like(along, edge)
                lines.append(np.stack([fixed, along], axis=1))  # a line of constant x
                lines.append(np.stack([along, fixed], axis=1))  # a line of constant y
    return np.array(lines)


def tier_centres_xy(spec: TimeVectorsSpec, tier: int) -> tuple[list[str], np.ndarray]:
    """Names and ``(64, 2)`` board-plane centres of the points of ``tier``."""
    points = [p for p in POINTS if point_coords(p)[2] == tier]
    centres = np.array([spec.point_centre(p)[:2] for p in points])
    return [point_name(p) for p in points], centres


def _rounded(pixels: np.ndarray) -> list:
    return np.round(pixels, 1).tolist()


def complete_tiers(clicks: Clicks) -> list[str]:
    """Tier letters whose 4 corners are all clicked, bottom to top."""
    return [t for t in TIER_LETTERS if t in clicks and all(c in clicks[t] for c in CORNERS)]


def preview_from_homographies(clicks: Clicks, spec: TimeVectorsSpec) -> dict[str, dict]:
    """Per complete tier: grid and centres mapped by that tier's 4-corner homography."""
    lines_xy = grid_lines_xy(spec)
    shown: dict[str, dict] = {}
    for letter in complete_tiers(clicks):
        tier = TIER_LETTERS.index(letter)
        landmarks = spec.landmarks(tier)
        src = np.array([landmarks[c][:2] for c in CORNERS], dtype=np.float32)
        dst = np.array([clicks[letter][c] for c in CORNERS], dtype=np.float32)
        homography = cv2.getPerspectiveTransform(src, dst)
        names, centres_xy = tier_centres_xy(spec, tier)
        lines = cv2.perspectiveTransform(lines_xy.reshape(-1, 1, 2), homography).reshape(lines_xy.shape)
        centres = cv2.perspectiveTransform(centres_xy.reshape(-1, 1, 2), homography).reshape(-1, 2)
        shown[letter] = {"lines": _rounded(lines), "centres": _rounded(centres), "names": names}
    return shown


def preview_from_camera(camera: CameraModel, spec: TimeVectorsSpec) -> dict[str, dict]:
    """Every tier's grid and centres projected through a fitted camera (a lower tier's seen
    through the plates above it)."""
    camera = through_plates(camera, spec)
    lines_xy = grid_lines_xy(spec)
    shown: dict[str, dict] = {}
    for tier, letter in enumerate(TIER_LETTERS):
        lines_mm = spec.tier_points(tier, lines_xy.reshape(-1, 2))  # turned with the plate
        names, centres_xy = tier_centres_xy(spec, tier)
        centres_mm = np.column_stack([centres_xy, np.full(len(centres_xy), spec.tier_spacing * tier)])
        lines = camera.project(lines_mm).reshape(lines_xy.shape)
        shown[letter] = {"lines": _rounded(lines), "centres": _rounded(camera.project(centres_mm)), "names": names}
    return shown


def sample_colours(image_bgr: np.ndarray, taps: Sequence[Sequence[float]], radius: int = 6) -> list[list[int]]:
    """Median RGB of a small disc around each tap (a token's top), robust to glare at its edge.

    Raises ``ValueError`` for a tap outside the image.
    """
    height, width = image_bgr.shape[:2]
    yy, xx = np.mgrid[-radius : radius + 1, -radius : radius + 1]
    disc = xx**2 + yy**2 <= radius**2
    colours = []
    for u, v in taps:
        cx, cy = round(u), round(v)
        if not (0 <= cx < width and 0 <= cy < height):
            raise ValueError(f"tap ({u:.0f}, {v:.0f}) is outside the {width}x{height} image")
        x0, x1 = max(cx - radius, 0), min(cx + radius + 1, width)
        y0, y1 = max(cy - radius, 0), min(cy + radius + 1, height)
        patch = image_bgr[y0:y1, x0:x1]
        mask = disc[y0 - cy + radius : y1 - cy + radius, x0 - cx + radius : x1 - cx + radius]
        b, g, r = np.median(patch[mask], axis=0)
        colours.append([int(r), int(g), int(b)])
    return colours
