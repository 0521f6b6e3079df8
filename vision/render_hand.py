"""A hand and forearm reaching into the frame, drawn in image space for the synthetic renderer.

The hand is a 2D figure (forearm, palm, four fingers and a thumb) laid out in
millimetres along the reaching direction and scaled by the board's pixel scale,
so it has a plausible size at any camera distance. It is shaded with a distance
transform so it looks rounded, and it casts a soft shadow onto the scene.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

EDGES = ("left", "right", "top", "bottom")


@dataclass(frozen=True)
class HandSpec:
    """A hand reaching from an image edge toward a target.

    ``target_point`` (a board point 0..255) or ``target_uv`` (pixels) is where the
    fingertips end; with neither, the board centre. ``edge`` is the image edge the
    arm enters from ("auto": the edge nearest the target). ``sleeve_rgb`` draws a
    sleeve over the forearm (bare arm when ``None``). ``scale`` multiplies an adult
    hand's size (about 190 mm from wrist to fingertip).
    """

    target_point: int | None = None
    target_uv: tuple[float, float] | None = None
    edge: str = "auto"
    skin_rgb: tuple[int, int, int] = (222, 170, 138)
    sleeve_rgb: tuple[int, int, int] | None = None
    scale: float = 1.0
    spread_deg: float = 8.0
    height_mm: float = 60.0

    def __post_init__(self) -> None:
        if self.edge != "auto" and self.edge not in EDGES:
            raise ValueError(f"hand edge {self.edge!r} is not one of auto, {', '.join(EDGES)}")
        if self.scale <= 0:
            raise ValueError(f"hand scale must be positive, not {self.scale}")


def _entry_point(target: np.ndarray, edge: str, size: tuple[int, int]) -> tuple[np.ndarray, str]:
    w, h = size
    distances = {
        "left": target[0],
        "right": w - target[0],
        "top": target[1],
        "bottom": h - target[1],
    }
    if edge == "auto":
        edge = min(distances, key=distances.get)
    margin = 0.25 * max(w, h)
    entry = {
        "left": (-margin, target[1] + 0.15 * h),
        "right": (w + margin, target[1] + 0.15 * h),
        "top": (target[0] + 0.1 * w, -margin),
        "bottom": (target[0] - 0.1 * w, h + margin),
    }[edge]
    return np.array(entry, dtype=np.float64), edge


def _shade(mask: np.ndarray, colour_bgr: np.ndarray, radius_px: float) -> np.ndarray:
    """Colour a mask so it looks rounded: darker toward its outline."""
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    roundness = np.minimum(dist * np.float32(1.0 / max(radius_px, 1.0)), 1.0)
    shade = 0.62 + 0.38 * cv2.sqrt(roundness)
    return cv2.merge([shade * np.float32(c) for c in colour_bgr])


def draw_hand(
    image: np.ndarray,
    spec: HandSpec,
    target_uv: np.ndarray,
    px_per_mm: float,
    shadow_offset_px: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Draw the hand onto float32 BGR ``image`` in place; return its boolean mask."""
    h, w = image.shape[:2]
    s = px_per_mm * spec.scale
    entry, _ = _entry_point(target_uv, spec.edge, (w, h))
    forward = target_uv - entry
    forward /= np.linalg.norm(forward)
    side = np.array([-forward[1], forward[0]])

    def at(along_mm: float, across_mm: float) -> np.ndarray:
        return target_uv + s * (along_mm * forward + across_mm * side)

    skin = np.zeros((h, w), np.uint8)
    sleeve = np.zeros((h, w), np.uint8)

    def pt(p: np.ndarray) -> tuple[int, int]:
        return int(round(p[0] * 16)), int(round(p[1] * 16))

    # Fingers: thick round-capped strokes from the knuckles to the tips.
    finger_specs = ((-27, 62, 15), (-9, 74, 16), (9, 70, 16), (26, 56, 14))
    spread = np.radians(spec.spread_deg)
    for i, (across, length, width) in enumerate(finger_specs):
        angle = (i - 1.5) * spread / 1.5 + rng.normal(0, 0.05)
        tip_dir = np.cos(angle) * forward + np.sin(angle) * side
        knuckle = at(-length - 5, across * 0.9)
        tip = knuckle + s * length * tip_dir
        cv2.line(skin, pt(knuckle), pt(tip), 255, max(1, int(width * s)), cv2.LINE_AA, 4)
    # Palm and thumb.
    palm_centre = at(-120, 0)
    palm_angle = float(np.degrees(np.arctan2(forward[1], forward[0])))
    cv2.ellipse(
        skin,
        pt(palm_centre),
        (int(60 * s * 16), int(45 * s * 16)),
        palm_angle,
        0,
        360,
        255,
        -1,
        cv2.LINE_AA,
        4,
    )
    thumb_base = at(-140, 38)
    thumb_tip = at(-85, 62)
    cv2.line(skin, pt(thumb_base), pt(thumb_tip), 255, max(1, int(20 * s)), cv2.LINE_AA, 4)
    # Forearm from the wrist to beyond the image edge.
    reach = np.linalg.norm(target_uv - entry) / s + 100
    arm = np.array([at(-160, -36), at(-160, 36), at(-reach, 44), at(-reach, -44)])
    arm_mask = sleeve if spec.sleeve_rgb is not None else skin
    if spec.sleeve_rgb is not None:
        arm = np.array([at(-175, -46), at(-175, 46), at(-reach, 54), at(-reach, -54)])
    cv2.fillConvexPoly(arm_mask, np.round(arm * 16).astype(np.int32), 255, cv2.LINE_AA, 4)

    full = cv2.max(skin, sleeve)
    # Work only in the box around the hand and its shadow.
    bx, by, bw, bh = cv2.boundingRect(full)
    if bw == 0 or bh == 0:
        return full > 127
    blur = max(1.0, 6 * s)
    pad = int(np.abs(shadow_offset_px).max() + 3 * blur * 4) + 4
    x0, y0 = max(bx - pad, 0), max(by - pad, 0)
    x1, y1 = min(bx + bw + pad, w), min(by + bh + pad, h)
    box_full = full[y0:y1, x0:x1]
    roi = image[y0:y1, x0:x1]
    # Soft shadow: the silhouette shifted away from the light and blurred (at quarter size).
    qw, qh = max(1, (x1 - x0) // 4), max(1, (y1 - y0) // 4)
    small = cv2.resize(box_full, (qw, qh), interpolation=cv2.INTER_AREA)
    shift = np.float32([[1, 0, shadow_offset_px[0] / 4], [0, 1, shadow_offset_px[1] / 4]])
    shadow = cv2.warpAffine(small, shift, (qw, qh)).astype(np.float32) / 255.0
    shadow = cv2.resize(
        cv2.GaussianBlur(shadow, (0, 0), blur), (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR
    )
    keep = 1.0 - 0.45 * shadow
    cv2.multiply(roi, cv2.merge([keep, keep, keep]), dst=roi)

    texture = cv2.resize(
        rng.standard_normal((qh, qw)).astype(np.float32),
        (x1 - x0, y1 - y0),
        interpolation=cv2.INTER_CUBIC,
    )
    texture = 1.0 + 0.025 * cv2.GaussianBlur(texture, (0, 0), 3.0)
    skin_bgr = np.array(spec.skin_rgb[::-1], dtype=np.float32)
    sleeve_bgr = (
        None if spec.sleeve_rgb is None else np.array(spec.sleeve_rgb[::-1], dtype=np.float32)
    )
    for mask, colour in ((skin[y0:y1, x0:x1], skin_bgr), (sleeve[y0:y1, x0:x1], sleeve_bgr)):
        if colour is None or not mask.any():
            continue
        shaded = cv2.multiply(
            _shade((mask > 127).astype(np.uint8), colour, 22 * s),
            cv2.merge([texture, texture, texture]),
        )
        alpha = mask.astype(np.float32) * np.float32(1.0 / 255.0)
        alpha3 = cv2.merge([alpha, alpha, alpha])
        # roi += (shaded - roi) * alpha
        cv2.add(roi, cv2.multiply(cv2.subtract(shaded, roi), alpha3), dst=roi)
    return full > 127
