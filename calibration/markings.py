"""The printed marking as features: where its grid lines cross, and an image of thin lines."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.spec import TimeVectorsSpec

_LINE_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))


def grid_crossings(spec: TimeVectorsSpec) -> np.ndarray:
    """``(400, 3)`` crossings of the printed 4x4 grids on all four tiers, in millimetres
    (tier by tier, bottom first; 100 per tier, the landmarks among them)."""
    half = spec.marking_half_size
    inner = half - 4 * spec.pitch
    lines = np.concatenate([np.linspace(-half, -inner, 5), np.linspace(inner, half, 5)])
    xs, ys = np.meshgrid(lines, lines)
    flat = np.column_stack([xs.ravel(), ys.ravel()])
    return np.vstack([spec.tier_points(t, flat) for t in range(4)])


def grid_lines(spec: TimeVectorsSpec, tier: int) -> list[np.ndarray]:
    """The printed 4x4 grids' lines of tier ``tier`` as 3D polylines in millimetres (turned
    with its plate), subdivided so that lens distortion can bend them when projected."""
    half = spec.marking_half_size
    inner = half - 4 * spec.pitch
    lines = []
    for lo, hi in ((-half, -inner), (inner, half)):
        for c in np.linspace(lo, hi, 5):
            for span_lo, span_hi in ((-half, -inner), (inner, half)):
                t = np.linspace(span_lo, span_hi, 6)
                lines.append(spec.tier_points(tier, np.column_stack([np.full(6, c), t])))
                lines.append(spec.tier_points(tier, np.column_stack([t, np.full(6, c)])))
    return lines


def thin_lines(image_bgr: np.ndarray) -> np.ndarray:
    """Grey image where thin dark or light lines (the printed marking) stand out and broad
    texture (the table and base seen through the clear plates) fades."""
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY) if image_bgr.ndim == 3 else image_bgr
    lines = cv2.add(
        cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, _LINE_KERNEL),
        cv2.morphologyEx(grey, cv2.MORPH_TOPHAT, _LINE_KERNEL),
    )
    return cv2.GaussianBlur(lines, (0, 0), 0.8)
