"""Synthetic photographs of the Time Vectors board with exact ground truth.

The renderer draws the scene with the painter's algorithm, far to near: a
textured table (warped by the table plane's homography), the wooden base, then
tier by tier the clear plate (tint, reflection, lit edges, printed 8x8 marking,
N/E/S/W letters, optional ArUco stickers) followed by that tier's tokens and
post segment sorted by horizontal distance from the camera, the cap, an
optional hand, and finally the camera's imperfections (light fall-off,
vignetting, colour cast, blur, noise, JPEG).

The camera is always above the top tier (as in play), so anything on a higher
tier is nearer the camera than anything below it, and on one tier the object
horizontally nearer the camera is hit first by every ray that meets both.
Every opaque occluder writes its draw-order key into a label buffer; a point's
visibility is the fraction of its (possibly hypothetical) token top disc whose
pixels carry no later key.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.fiducials import marker_corners_mm, marker_image
from calibration.markings import grid_lines
from calibration.refraction import through_plates
from calibration.spec import TimeVectorsSpec
from rules.timevectors.points import POINTS, point_coords
from vision.render_hand import HandSpec, draw_hand
from vision.render_scene import SceneStyle, random_scene
from vision.render_textures import cached_table_texture, noise_field

logger = logging.getLogger(__name__)

__all__ = ["HandSpec", "Rendered", "SceneStyle", "random_scene", "render_timevectors"]

HAND_KEY = 32000
_CIRCLE_STEPS = 32
_TEXEL_MM = 1.5  # table texture resolution


@dataclass(frozen=True)
class Rendered:
    """A rendered frame and its ground truth.

    ``visibility[p]`` is the fraction of the top disc of a token at point ``p``
    the camera sees past nearer tokens, the post and the hand (computed for
    every point, token or not). ``token_labels`` holds per pixel the point whose
    token covers it, or -1. ``tokens`` maps point -> colour index.
    """

    image_bgr: np.ndarray
    visibility: np.ndarray
    hand_mask: np.ndarray
    tokens: dict[int, int]
    token_labels: np.ndarray = field(repr=False)


@functools.lru_cache(maxsize=8)
def _centres(spec: TimeVectorsSpec) -> np.ndarray:
    """Every point centre of a spec (read-only, computed once per spec)."""
    centres = spec.point_centres()
    centres.setflags(write=False)
    return centres


def _to_fixed(pixels: np.ndarray) -> np.ndarray:
    """Pixel coordinates as the 4-bit fixed point integers OpenCV's drawing functions take."""
    return np.round(np.asarray(pixels) * 16).astype(np.int32)


def _blend(
    roi: np.ndarray, mask: np.ndarray, source: np.ndarray, alpha: float | np.ndarray = 1.0
) -> None:
    """``roi += (source - roi) * alpha * mask / 255`` in place (anti-aliased masks blend softly).

    ``source`` is one colour or an image shaped like ``roi``; ``alpha`` a number or a
    map shaped like ``mask``. Sparse masks (thin printed lines) touch only their
    pixels; dense ones (a plate's tint) use whole-array OpenCV arithmetic.
    """
    count = cv2.countNonZero(mask)
    if count == 0:
        return
    if count < 0.08 * mask.size:
        ys, xs = np.nonzero(mask)
        a = mask[ys, xs].astype(np.float32) * np.float32(1.0 / 255.0)
        a *= alpha if np.isscalar(alpha) else alpha[ys, xs]
        target = roi[ys, xs]
        src = source if source.ndim == 1 else source[ys, xs]
        roi[ys, xs] = target + (src - target) * a[:, None]
        return
    a = mask.astype(np.float32)
    a *= np.float32(1.0 / 255.0) * (alpha if np.isscalar(alpha) else 1.0)
    if not np.isscalar(alpha):
        a *= alpha
    if source.ndim == 1:
        full = np.empty_like(roi)
        full[:] = source
        source = full
    delta = cv2.multiply(cv2.subtract(source.astype(np.float32), roi), cv2.merge([a, a, a]))
    cv2.add(roi, delta, dst=roi)


def _bgr(rgb: Sequence[float]) -> np.ndarray:
    return np.array([rgb[2], rgb[1], rgb[0]], dtype=np.float32)


class _Painter:
    """The canvas (float32 BGR), the occlusion label buffer and the drawing primitives."""

    def __init__(self, camera: CameraModel, style: SceneStyle, rng: np.random.Generator) -> None:
        self.camera = camera
        self.style = style
        self.rng = rng
        self.width, self.height = camera.image_size
        self.canvas = np.zeros((self.height, self.width, 3), np.float32)
        self.labels = np.full((self.height, self.width), -1, np.int16)
        self.eye = camera.centre_mm()
        self.light = style.light_vector()

    # -- lighting ---------------------------------------------------------
    def lit(self, colour_bgr: np.ndarray, normal: np.ndarray) -> np.ndarray:
        diffuse = max(0.0, float(np.dot(normal, self.light)))
        return colour_bgr * (self.style.ambient + (1.0 - self.style.ambient) * diffuse)

    # -- planes -----------------------------------------------------------
    def plane_homography(self, z: float) -> np.ndarray:
        """Homography from plane ``z`` millimetres (x, y, 1) to undistorted pixels."""
        r = cv2.Rodrigues(self.camera.rvec)[0]
        m = np.column_stack([r[:, 0], r[:, 1], r[:, 2] * z + self.camera.tvec])
        return self.camera.K @ m

    def warp_texture(
        self,
        texture: np.ndarray,
        z: float,
        origin_mm: tuple[float, float],
        texel_mm: float,
        polygon_px: np.ndarray,
        border: int,
    ) -> None:
        """Warp a texture tile lying on plane ``z`` onto the canvas inside ``polygon_px``.

        Texel ``(0, 0)`` sits at ``origin_mm``; texel rows run south (the tile is a map).
        """
        texel_to_mm = np.array(
            [[texel_mm, 0, origin_mm[0]], [0, -texel_mm, origin_mm[1]], [0, 0, 1]]
        )
        x0, y0, x1, y1 = self._bbox(polygon_px)
        if x1 <= x0 or y1 <= y0:
            return
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], dtype=np.float64)
        h = shift @ self.plane_homography(z) @ texel_to_mm
        warped = cv2.warpPerspective(
            texture, h, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=border
        )
        roi = self.canvas[y0:y1, x0:x1]
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [_to_fixed(polygon_px - [x0, y0])], 255, cv2.LINE_AA, 4)
        _blend(roi, mask, warped)

    def _bbox(self, polygon_px: np.ndarray, pad: int = 2) -> tuple[int, int, int, int]:
        x0 = int(np.clip(np.floor(polygon_px[:, 0].min()) - pad, 0, self.width))
        y0 = int(np.clip(np.floor(polygon_px[:, 1].min()) - pad, 0, self.height))
        x1 = int(np.clip(np.ceil(polygon_px[:, 0].max()) + pad, 0, self.width))
        y1 = int(np.clip(np.ceil(polygon_px[:, 1].max()) + pad, 0, self.height))
        return x0, y0, x1, y1

    def blend_polygon(self, polygon_px: np.ndarray, colour_bgr: np.ndarray, alpha: float) -> None:
        """Alpha-blend a flat colour inside a polygon (anti-aliased outline)."""
        x0, y0, x1, y1 = self._bbox(polygon_px)
        if x1 <= x0 or y1 <= y0:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [_to_fixed(polygon_px - [x0, y0])], 255, cv2.LINE_AA, 4)
        _blend(self.canvas[y0:y1, x0:x1], mask, colour_bgr, alpha)

    def fill(self, polygon_px: np.ndarray, colour_bgr: np.ndarray, key: int | None) -> None:
        """Opaque convex polygon; ``key`` also marks it as an occluder in the label buffer."""
        fixed = _to_fixed(polygon_px)
        cv2.fillConvexPoly(self.canvas, fixed, tuple(float(c) for c in colour_bgr), cv2.LINE_AA, 4)
        if key is not None:
            cv2.fillConvexPoly(self.labels, fixed, key, cv2.LINE_8, 4)

    # -- solids -----------------------------------------------------------
    def cylinder(
        self,
        centre_xy: tuple[float, float],
        radius: float,
        z0: float,
        z1: float,
        colour_bgr: np.ndarray,
        key: int | None,
        top: bool,
        facets: int = _CIRCLE_STEPS,
        grain: float = 0.0,
    ) -> None:
        """A vertical cylinder: the side facets that face the camera, then the top disc if asked."""
        angles = np.linspace(0, 2 * np.pi, facets, endpoint=False)
        ring = np.column_stack([np.cos(angles), np.sin(angles)])
        cx, cy = centre_xy
        bottom = np.column_stack(
            [cx + radius * ring[:, 0], cy + radius * ring[:, 1], np.full(facets, z0)]
        )
        upper = bottom.copy()
        upper[:, 2] = z1
        px = self.camera.project(np.vstack([bottom, upper]))
        bot_px, top_px = px[:facets], px[facets:]
        if key is not None:
            hull = cv2.convexHull(_to_fixed(px).reshape(-1, 1, 2))
            cv2.fillConvexPoly(self.labels, hull, key, cv2.LINE_8, 4)
        # Facet normals and their shading, all at once; only the facets facing the camera are drawn.
        mids = angles + np.pi / facets
        normals = np.column_stack([np.cos(mids), np.sin(mids)])
        to_eye = self.eye[:2] - np.array([cx, cy])
        facing = np.flatnonzero((normals * (to_eye - radius * normals)).sum(axis=1) > 0)
        diffuse = np.maximum(normals @ self.light[:2], 0.0)
        shades = (
            colour_bgr[None, :]
            * (0.82 * (self.style.ambient + (1.0 - self.style.ambient) * diffuse))[:, None]
        )
        if grain:
            shades = shades * (1.0 + grain * self.rng.normal(size=facets))[:, None]
        fixed_bot, fixed_top = _to_fixed(bot_px), _to_fixed(top_px)
        nxt = (facing + 1) % facets
        quads = np.stack(
            [fixed_bot[facing], fixed_bot[nxt], fixed_top[nxt], fixed_top[facing]], axis=1
        )
        for quad, shade in zip(quads, shades[facing].tolist(), strict=True):
            cv2.fillConvexPoly(self.canvas, quad, shade, cv2.LINE_AA, 4)
        if top:
            cv2.fillConvexPoly(
                self.canvas,
                _to_fixed(top_px),
                tuple(float(c) for c in self.lit(colour_bgr, np.array([0.0, 0.0, 1.0]))),
                cv2.LINE_AA,
                4,
            )
            rim = np.minimum(self.lit(colour_bgr, np.array([0.0, 0.0, 1.0])) * 1.15 + 12, 255)
            cv2.polylines(
                self.canvas,
                [_to_fixed(top_px)],
                True,
                tuple(float(c) for c in rim),
                1,
                cv2.LINE_AA,
                4,
            )

    def box(self, half: float, z0: float, z1: float, colour_bgr: np.ndarray) -> np.ndarray:
        """The camera-facing sides of a square box centred on the axis; returns its top polygon."""
        corners = np.array([[-half, half], [half, half], [half, -half], [-half, -half]])
        lower = np.column_stack([corners, np.full(4, z0)])
        upper = np.column_stack([corners, np.full(4, z1)])
        px = self.camera.project(np.vstack([lower, upper]))
        for i in range(4):
            j = (i + 1) % 4
            mid = 0.5 * (corners[i] + corners[j])
            normal = np.array([mid[0], mid[1], 0.0]) / half
            if np.dot(normal[:2], self.eye[:2] - mid) <= 0:
                continue
            quad = np.array([px[i], px[j], px[4 + j], px[4 + i]])
            self.fill(quad, self.lit(colour_bgr, normal) * 0.8, key=None)
        return px[4:]


# -- printed letters as strokes in a unit box (x right, y up) -------------------------------
_LETTER_STROKES = {
    "N": [[(0, 0), (0, 1), (1, 0), (1, 1)]],
    "E": [[(1, 1), (0, 1), (0, 0), (1, 0)], [(0, 0.5), (0.8, 0.5)]],
    "W": [[(0, 1), (0.25, 0), (0.5, 0.65), (0.75, 0), (1, 1)]],
    "S": [
        [
            (1, 0.9),
            (0.8, 1),
            (0.2, 1),
            (0, 0.85),
            (0, 0.6),
            (0.2, 0.5),
            (0.8, 0.5),
            (1, 0.4),
            (1, 0.15),
            (0.8, 0),
            (0.2, 0),
            (0, 0.1),
        ]
    ],
}
_LETTER_MM = 9.0
_LETTER_POSITIONS = {"N": (0.0, 125.0), "E": (125.0, 0.0), "S": (0.0, -125.0), "W": (-125.0, 0.0)}


def _marking_polylines(spec: TimeVectorsSpec, tier: int) -> list[np.ndarray]:
    """The printed lines of one tier as 3D polylines (subdivided so lens distortion bends them)."""
    lines = grid_lines(spec, tier)
    for letter, (x, y) in _LETTER_POSITIONS.items():
        for stroke in _LETTER_STROKES[letter]:
            pts = np.array(stroke, dtype=np.float64) - 0.5
            design = np.column_stack([x + pts[:, 0] * _LETTER_MM * 0.75, y + pts[:, 1] * _LETTER_MM])
            lines.append(spec.tier_points(tier, design))
    return lines


def _px_per_mm(camera: CameraModel, at_mm: np.ndarray) -> float:
    px = camera.project(np.array([at_mm, at_mm + [10.0, 0, 0], at_mm + [0, 10.0, 0]]))
    return float(0.5 * (np.linalg.norm(px[1] - px[0]) + np.linalg.norm(px[2] - px[0])) / 10.0)


def _draw_plate(painter: _Painter, spec: TimeVectorsSpec, tier: int) -> None:
    style = painter.style
    camera = painter.camera
    z = spec.tier_spacing * tier
    top3d = spec.plate_corners(tier)
    bottom3d = spec.plate_corners(tier, z_mm=z - spec.plate_thickness)
    corners = top3d[:, :2]
    px = camera.project(np.vstack([top3d, bottom3d]))
    top_px = px[:4]
    _tint_and_reflection(painter, top_px, tier)
    # Lit edges: the 3 mm sides facing the camera glow.
    edge = _bgr(style.edge_rgb)
    for i in range(4):
        j = (i + 1) % 4
        mid = 0.5 * (corners[i] + corners[j])
        if np.dot(mid, painter.eye[:2] - mid) <= 0:
            continue
        painter.blend_polygon(np.array([px[i], px[j], px[4 + j], px[4 + i]]), edge, 0.55)
    _draw_polylines(painter, [np.vstack([top_px, top_px[:1]])], edge, 0.6, 1.0, top_px)
    if style.aruco:
        _draw_markers(painter, spec, tier)
    scale = _px_per_mm(camera, np.array([0.0, 0.0, z]))
    polylines = _marking_polylines(spec, tier)
    flat = camera.project(np.vstack(polylines))
    projected = np.split(flat, np.cumsum([len(line) for line in polylines])[:-1])
    width = style.marking_width_mm * scale
    _draw_polylines(painter, projected, _bgr(style.marking_rgb), style.marking_alpha, width, top_px)


def _draw_polylines(
    painter: _Painter,
    polylines: list[np.ndarray],
    colour_bgr: np.ndarray,
    alpha: float,
    width: float,
    clip_px: np.ndarray,
) -> None:
    """Blend polylines of any lengths in one pass (grouped by vertex count for OpenCV)."""
    by_length: dict[int, list[np.ndarray]] = {}
    for line in polylines:
        by_length.setdefault(len(line), []).append(line)
    x0, y0, x1, y1 = painter._bbox(clip_px, pad=4)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    thickness = max(1, int(round(width)))
    strength = alpha * min(1.0, width)  # lines thinner than a pixel print fainter
    for lines in by_length.values():
        cv2.polylines(
            mask, list(_to_fixed(np.array(lines) - [x0, y0])), False, 255, thickness, cv2.LINE_AA, 4
        )
    _blend(painter.canvas[y0:y1, x0:x1], mask, colour_bgr, strength)


def _tint_and_reflection(painter: _Painter, polygon_px: np.ndarray, tier: int) -> None:
    """The plate's slight tint and a soft band of reflected light, blended in one pass."""
    style = painter.style
    x0, y0, x1, y1 = painter._bbox(polygon_px)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [_to_fixed(polygon_px - [x0, y0])], 255, cv2.LINE_AA, 4)
    coverage = mask.astype(np.float32) * np.float32(1.0 / 255.0)
    tint_alpha = coverage * np.float32(style.plate_alpha)
    roi = painter.canvas[y0:y1, x0:x1]
    if style.reflection > 0:
        # The band varies slowly: evaluate it on a coarse grid and scale it up.
        angle = np.radians(style.light_azimuth_deg + 35 * tier)
        size = max(painter.width, painter.height)
        cw, ch = max(2, (x1 - x0) // 8), max(2, (y1 - y0) // 8)
        xs = np.linspace(x0, x1, cw, dtype=np.float32)[None, :] * np.float32(np.cos(angle) / size)
        ys = np.linspace(y0, y1, ch, dtype=np.float32)[:, None] * np.float32(np.sin(angle) / size)
        band = np.exp(-(((xs + ys - (0.3 + 0.15 * tier)) / 0.12) ** 2)).astype(np.float32)
        band = cv2.resize(band, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
        glare = coverage * band * np.float32(style.reflection)
    else:
        glare = np.zeros_like(coverage)
    keep = 1.0 - tint_alpha - glare
    white = 255.0 * glare
    added = cv2.merge(
        [cv2.scaleAdd(tint_alpha, float(c), white) for c in _bgr(style.plate_tint_rgb)]
    )
    cv2.multiply(roi, cv2.merge([keep, keep, keep]), dst=roi)
    cv2.add(roi, added, dst=roi)


def _draw_markers(painter: _Painter, spec: TimeVectorsSpec, tier: int) -> None:
    """Paper ArUco stickers (white border) at the four corners of a tier."""
    for corner_index in range(4):
        sticker, inner = marker_corners_mm(spec, tier, corner_index)
        image = marker_image(tier, corner_index, texels=120)
        sticker_px = painter.camera.project(sticker)
        x0, y0, x1, y1 = painter._bbox(sticker_px)
        if x1 <= x0 or y1 <= y0:
            continue
        src = np.float32([[0, 0], [120, 0], [120, 120], [0, 120]])
        h = cv2.getPerspectiveTransform(src, np.float32(sticker_px - [x0, y0]))
        warped = cv2.warpPerspective(image, h, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, _to_fixed(sticker_px - [x0, y0]), 255, cv2.LINE_AA, 4)
        paper = painter.lit(np.float32([235, 238, 240]), np.array([0.0, 0.0, 1.0])).astype(
            np.float32
        )
        tone = warped.astype(np.float32)[..., None] * (paper / 255.0)
        _blend(painter.canvas[y0:y1, x0:x1], mask, tone)


def _draw_order(
    spec: TimeVectorsSpec, eye: np.ndarray
) -> tuple[list[tuple[int, str, int]], np.ndarray]:
    """Items far to near: ``(key, kind, index)`` with kind "token" (index = point) or "post"
    (index = tier of the segment starting there; 3 is the cap).

    Returns the list and each point's key.
    """
    centres = _centres(spec)
    order: list[tuple[int, str, int]] = []
    key_of_point = np.zeros(256, np.int16)
    key = 0
    for tier in range(4):
        items = [
            (float(np.hypot(*(centres[p, :2] - eye[:2]))), "token", p)
            for p in POINTS
            if point_coords(p)[2] == tier
        ]
        items.append((float(np.hypot(*eye[:2])), "post", tier))
        items.sort(key=lambda item: -item[0])
        for _, kind, index in items:
            order.append((key, kind, index))
            if kind == "token":
                key_of_point[index] = key
            key += 1
    return order, key_of_point


def _disc_polygons(camera: CameraModel, spec: TimeVectorsSpec) -> np.ndarray:
    """``(256, n, 2)`` pixel outlines of a token's top disc at every point."""
    angles = np.linspace(0, 2 * np.pi, _CIRCLE_STEPS, endpoint=False)
    r = spec.token_diameter / 2
    centres = _centres(spec)
    ring = np.stack(
        [r * np.cos(angles), r * np.sin(angles), np.full_like(angles, spec.token_height)], axis=1
    )
    pts = (centres[:, None, :] + ring[None]).reshape(-1, 3)
    return camera.project(pts).reshape(256, _CIRCLE_STEPS, 2)


def _visibility(labels: np.ndarray, discs: np.ndarray, key_of_point: np.ndarray) -> np.ndarray:
    """Fraction of each point's top disc whose pixels carry no key drawn after the point."""
    h, w = labels.shape
    vis = np.zeros(256, np.float64)
    for p in POINTS:
        poly = discs[p]
        x0, y0 = np.floor(poly.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + 2
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, _to_fixed(poly - [x0, y0]), 1, cv2.LINE_8, 4)
        total = int(mask.sum())
        if total == 0:
            continue
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if cx1 <= cx0 or cy1 <= cy0:
            continue
        inside = mask[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0].astype(bool)
        seen = labels[cy0:cy1, cx0:cx1][inside] <= key_of_point[p]
        vis[p] = float(seen.sum()) / total
    return vis


def finish_photo(canvas: np.ndarray, style: SceneStyle, rng: np.random.Generator) -> np.ndarray:
    """The 8-bit BGR photo of a float32 BGR ``canvas`` as a camera would take it: light
    fall-off, vignetting, cast, blur, noise, 8-bit, JPEG. Every renderer ends with it so all
    boards' test pictures share one camera."""
    h, w = canvas.shape[:2]
    sh, sw = max(2, h // 8), max(2, w // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    nx, ny = (xx / (sw - 1)) * 2 - 1, (yy / (sh - 1)) * 2 - 1
    angle = np.radians(style.gradient_angle_deg)
    gain = (1.0 + style.gradient * (nx * np.cos(angle) + ny * np.sin(angle))) * (
        1.0 - style.vignette * 0.5 * (nx**2 + ny**2)
    )
    wb = np.array(style.white_balance[::-1], dtype=np.float32) * style.exposure
    gain3 = cv2.resize(
        (gain[..., None] * wb).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR
    )
    image = cv2.multiply(canvas, gain3)
    if style.blur_sigma > 0:
        image = cv2.GaussianBlur(image, (0, 0), style.blur_sigma)
    if style.noise_sigma > 0:
        field = noise_field(h, w)
        dy, dx = (int(v) for v in rng.integers(0, 64, 2))
        noise = field[dy : dy + h, dx : dx + w]
        if rng.random() < 0.5:
            noise = noise[::-1]
        if rng.random() < 0.5:
            noise = noise[:, ::-1]
        # Shot noise grows with brightness (judged on a small copy); read noise does not.
        small = cv2.resize(image, (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA)
        brightness = np.sqrt(np.clip(small.mean(axis=2), 0.0, 255.0) / 255.0)
        level = cv2.resize(
            np.float32(style.noise_sigma) * (brightness + np.float32(0.5)),
            (w, h),
            interpolation=cv2.INTER_LINEAR,
        )
        cv2.add(
            image,
            cv2.multiply(np.ascontiguousarray(noise), cv2.merge([level, level, level])),
            dst=image,
        )
    # Saturating conversion; the few noise values below black fold back to small positives.
    out = cv2.convertScaleAbs(image)
    if style.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(style.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def render_timevectors(
    camera: CameraModel,
    spec: TimeVectorsSpec,
    tokens: Mapping[int, int],
    token_colors_rgb: Sequence[tuple[int, int, int]],
    *,
    hand: HandSpec | None = None,
    scene: SceneStyle | None = None,
    seed: int = 0,
) -> Rendered:
    """Render the board with ``tokens`` (point -> colour index into ``token_colors_rgb``).

    The camera must be above the top tier, as in play (the drawing order relies on it).
    Raises ``ValueError`` for a point outside 0..255, a colour index with no colour, or a
    camera at or below the top tier.
    """
    if camera.centre_mm()[2] <= spec.tier_spacing * 3 + spec.token_height:
        raise ValueError("the camera must look down on the board from above its top tier")
    for point, colour in tokens.items():
        if not 0 <= int(point) < 256:
            raise ValueError(f"token at point {point}: points are 0..255")
        if not 0 <= int(colour) < len(token_colors_rgb):
            raise ValueError(
                f"token at point {point} has colour {colour}, but only "
                f"{len(token_colors_rgb)} colours were given"
            )
    camera = through_plates(camera, spec)  # what lies below a plate shows shifted by it
    style = scene or SceneStyle()
    rng = np.random.default_rng(seed)
    painter = _Painter(camera, style, rng)
    base_top = -spec.plate_thickness
    table_z = base_top - spec.base_height

    _draw_table(painter, table_z, rng, _table_shadow(painter, spec, table_z, tokens))
    top_px = painter.box(spec.base_size / 2, table_z, base_top, _bgr(style.base_rgb))
    base_tex = cached_table_texture(
        int(rng.integers(2**31)), "wood", tuple(style.base_rgb), size=320
    )
    base_tex = base_tex * np.float32(style.ambient + (1 - style.ambient) * painter.light[2])
    painter.warp_texture(
        base_tex,
        base_top,
        (-spec.base_size / 2, spec.base_size / 2),
        spec.base_size / 320,
        top_px,
        cv2.BORDER_REFLECT,
    )
    if style.shadow_strength > 0:
        box = painter._bbox(top_px)
        region = np.zeros((box[3] - box[1], box[2] - box[0]), np.uint8)
        cv2.fillPoly(region, [_to_fixed(top_px - box[:2])], 255, cv2.LINE_AA, 4)
        _apply_shadow(
            painter,
            _shadow_mask(painter, spec, base_top, tokens, 0),
            box,
            region.astype(np.float32) / 255.0,
        )

    order, key_of_point = _draw_order(spec, painter.eye)
    centres = _centres(spec)
    post_r = spec.post_diameter / 2
    r = spec.token_diameter / 2
    tier_started = -1
    tier_keys: list[list[int]] = [[] for _ in range(4)]
    for key, kind, index in order:
        tier = point_coords(index)[2] if kind == "token" else index
        if tier != tier_started:
            if tier_started >= 0:
                _shade_tier(painter, spec, tokens, tier_started, tier_keys[tier_started])
            _draw_plate(painter, spec, tier)
            tier_started = tier
        if kind == "token" and index in tokens:
            tier_keys[tier].append(key)
        if kind == "token":
            if index in tokens:
                colour = _bgr(token_colors_rgb[int(tokens[index])])
                cx, cy, cz = centres[index]
                painter.cylinder((cx, cy), r, cz, cz + spec.token_height, colour, key, top=True)
        elif index < 3:
            z0 = spec.tier_spacing * index
            painter.cylinder(
                (0.0, 0.0),
                post_r,
                z0,
                z0 + spec.tier_spacing,
                _bgr(style.post_rgb),
                key,
                top=False,
                grain=0.03,
            )
        else:
            z0 = spec.tier_spacing * 3
            painter.cylinder(
                (0.0, 0.0),
                post_r,
                z0,
                spec.post_top,
                _bgr(style.post_rgb),
                key,
                top=False,
                grain=0.03,
            )
            painter.cylinder(
                (0.0, 0.0),
                spec.cap_diameter / 2,
                spec.post_top,
                spec.cap_top,
                _bgr(style.post_rgb),
                key,
                top=True,
                grain=0.03,
            )

    _shade_tier(painter, spec, tokens, 3, tier_keys[3])
    hand_mask = np.zeros((painter.height, painter.width), bool)
    if hand is not None:
        hand_mask = _draw_hand(painter, spec, hand, rng)
        painter.labels[hand_mask] = HAND_KEY

    visibility = _visibility(painter.labels, _disc_polygons(camera, spec), key_of_point)
    point_of_key = np.full(HAND_KEY + 1, -1, np.int16)
    for p in POINTS:
        if p in tokens:
            point_of_key[key_of_point[p]] = p
    token_labels = np.where(
        painter.labels >= 0, point_of_key[np.clip(painter.labels, 0, HAND_KEY)], -1
    )
    image = finish_photo(painter.canvas, painter.style, rng)
    return Rendered(
        image_bgr=image,
        visibility=visibility,
        hand_mask=hand_mask,
        tokens={int(p): int(c) for p, c in tokens.items()},
        token_labels=token_labels.astype(np.int16),
    )


def _draw_table(
    painter: _Painter, table_z: float, rng: np.random.Generator, shadow_q: np.ndarray
) -> None:
    """The table plane under the board and a wall past its horizon.

    Drawn at half resolution and scaled up: the table is out of focus anyway.
    """
    style = painter.style
    tile = cached_table_texture(
        int(rng.integers(2**31)), style.table_kind, tuple(style.table_rgb), size=512
    )
    tile = tile * np.float32(style.ambient + (1 - style.ambient) * painter.light[2])
    offset = rng.uniform(0, 512 * _TEXEL_MM, 2)
    texel_to_mm = np.array([[_TEXEL_MM, 0, offset[0]], [0, -_TEXEL_MM, offset[1]], [0, 0, 1]])
    half = (max(1, painter.width // 2), max(1, painter.height // 2))
    to_half = np.diag([half[0] / painter.width, half[1] / painter.height, 1.0])
    h = to_half @ painter.plane_homography(table_z) @ texel_to_mm
    small = cv2.warpPerspective(
        tile, h, half, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101
    )
    # Rays that do not go down never meet the table: paint a dim wall there.
    rotation = cv2.Rodrigues(painter.camera.rvec)[0]
    ray_z = (rotation.T @ np.linalg.inv(painter.camera.K @ np.linalg.inv(to_half)))[2]
    u = np.arange(half[0], dtype=np.float32)
    v = np.arange(half[1], dtype=np.float32)[:, None]
    upward = (ray_z[0] * u + ray_z[1] * v + ray_z[2]) > -0.02
    if upward.any():
        small[upward] = _bgr(style.table_rgb) * 0.5 + 60
    if style.shadow_strength > 0:
        shade = cv2.resize(shadow_q, half, interpolation=cv2.INTER_LINEAR)
        small *= (1.0 - np.float32(style.shadow_strength) * shade)[..., None]
    painter.canvas[:] = cv2.resize(
        small, (painter.width, painter.height), interpolation=cv2.INTER_LINEAR
    )


def _along_light(points: np.ndarray, light: np.ndarray, z0: float) -> np.ndarray:
    """Where the shadows of 3D ``points`` fall on the plane ``z = z0``."""
    drop = (points[:, 2] - z0) / max(light[2], 0.05)
    return points - light[None, :] * drop[:, None]


def _circle(centre: np.ndarray, radius: float, steps: int = 16) -> np.ndarray:
    angles = np.linspace(0, 2 * np.pi, steps, endpoint=False)
    return np.column_stack(
        [
            centre[0] + radius * np.cos(angles),
            centre[1] + radius * np.sin(angles),
            np.full(steps, centre[2]),
        ]
    )


def _shadow_mask(
    painter: _Painter,
    spec: TimeVectorsSpec,
    z0: float,
    tokens: Mapping[int, int],
    from_tier: int,
    extra: Sequence[tuple[np.ndarray, float]] = (),
) -> np.ndarray:
    """Quarter-resolution soft shadow (0..1) cast on the plane ``z0`` by the tokens on tiers
    >= ``from_tier``, the post, the plates (faintly) and ``extra`` solids ``(points, opacity)``."""
    light = painter.light
    quarter = (max(1, painter.width // 4), max(1, painter.height // 4))
    solids: list[tuple[np.ndarray, float]] = list(extra)
    r = spec.token_diameter / 2
    centres = _centres(spec)
    ring = _circle(np.zeros(3), r)
    for p in tokens:
        if point_coords(p)[2] >= from_tier and centres[p, 2] + spec.token_height > z0 + 1:
            solids.append(
                (np.vstack([ring + centres[p], ring + centres[p] + [0, 0, spec.token_height]]), 1.0)
            )
    post = _circle(np.zeros(3), spec.post_diameter / 2)
    solids.append((np.vstack([post + [0, 0, max(z0, 0.0)], post + [0, 0, spec.post_top]]), 1.0))
    cap = _circle(np.zeros(3), spec.cap_diameter / 2)
    solids.append((np.vstack([cap + [0, 0, max(z0, spec.post_top)], cap + [0, 0, spec.cap_top]]), 1.0))
    for tier in range(4):
        if spec.tier_spacing * tier > z0 + 1:
            solids.append((spec.plate_corners(tier), 0.12))
    points = np.vstack([solid for solid, _ in solids])
    projected = painter.camera.project(_along_light(points, light, z0)) / 4.0
    pieces = np.split(projected, np.cumsum([len(solid) for solid, _ in solids])[:-1])
    mask = np.zeros((quarter[1], quarter[0]), np.float32)
    faint = np.zeros_like(mask)
    for px, (_, opacity) in zip(pieces, solids, strict=True):
        hull = cv2.convexHull(_to_fixed(px).reshape(-1, 1, 2))
        cv2.fillConvexPoly(mask if opacity >= 1 else faint, hull, min(opacity, 1.0), cv2.LINE_AA, 4)
    mask = cv2.max(mask, faint)
    scale = _px_per_mm(painter.camera, np.array([0.0, 0.0, z0])) / 4.0
    return cv2.GaussianBlur(mask, (0, 0), max(0.8, 3.0 * scale))


def _upsampled(mask_q: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """The full-resolution values of a quarter-resolution map inside ``box`` (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    qx0, qy0 = x0 // 4, y0 // 4
    qx1, qy1 = min(mask_q.shape[1], -(-x1 // 4) + 1), min(mask_q.shape[0], -(-y1 // 4) + 1)
    crop = mask_q[qy0:qy1, qx0:qx1]
    big = cv2.resize(crop, ((qx1 - qx0) * 4, (qy1 - qy0) * 4), interpolation=cv2.INTER_LINEAR)
    out = big[y0 - 4 * qy0 : y1 - 4 * qy0, x0 - 4 * qx0 : x1 - 4 * qx0]
    if out.shape != (y1 - y0, x1 - x0):  # the frame is not a multiple of 4: pad the last row/column
        out = cv2.copyMakeBorder(
            out, 0, y1 - y0 - out.shape[0], 0, x1 - x0 - out.shape[1], cv2.BORDER_REPLICATE
        )
    return out


def _apply_shadow(
    painter: _Painter, mask_q: np.ndarray, box: tuple[int, int, int, int], region: np.ndarray
) -> None:
    """Darken the canvas inside ``box`` where ``region`` (float 0..1, box-shaped) is set."""
    x0, y0, x1, y1 = box
    if x1 <= x0 or y1 <= y0:
        return
    light_left = 1.0 - _upsampled(mask_q, box) * region * np.float32(painter.style.shadow_strength)
    roi = painter.canvas[y0:y1, x0:x1]
    cv2.multiply(roi, cv2.merge([light_left, light_left, light_left]), dst=roi)


def _shade_tier(
    painter: _Painter, spec: TimeVectorsSpec, tokens: Mapping[int, int], tier: int, keys: list[int]
) -> None:
    """Shadows from everything above onto the tokens of one tier (only their pixels)."""
    if not keys or tier == 3 or painter.style.shadow_strength <= 0:
        return
    centres = _centres(spec)
    on_tier = [p for p in tokens if point_coords(p)[2] == tier]
    px = painter.camera.project(
        np.vstack([centres[on_tier], centres[on_tier] + [0, 0, spec.token_height]])
    )
    box = painter._bbox(
        px, pad=int(spec.token_diameter * _px_per_mm(painter.camera, centres[on_tier[0]])) + 2
    )
    x0, y0, x1, y1 = box
    labels = painter.labels[y0:y1, x0:x1]
    region = ((labels >= min(keys)) & (labels <= max(keys)) & np.isin(labels, keys)).astype(
        np.float32
    )
    mask_q = _shadow_mask(
        painter, spec, spec.tier_spacing * tier + spec.token_height, tokens, tier + 1
    )
    _apply_shadow(painter, mask_q, box, region)


def _table_shadow(
    painter: _Painter, spec: TimeVectorsSpec, table_z: float, tokens: Mapping[int, int]
) -> np.ndarray:
    """Quarter-resolution shadow of the whole board (base box included) on the table."""
    half = spec.base_size / 2
    base = np.array(
        [
            [sx * half, sy * half, z]
            for sx in (-1, 1)
            for sy in (-1, 1)
            for z in (table_z, table_z + spec.base_height)
        ]
    )
    return _shadow_mask(painter, spec, table_z, tokens, 0, extra=[(base, 1.0)])


def _draw_hand(
    painter: _Painter, spec: TimeVectorsSpec, hand: HandSpec, rng: np.random.Generator
) -> np.ndarray:
    if hand.target_uv is not None:
        ground = None
        target_uv = np.asarray(hand.target_uv, dtype=np.float64)
        anchor = np.array([0.0, 0.0, spec.tier_spacing * 2])
    else:
        ground = (
            np.array(spec.point_centre(hand.target_point))
            if hand.target_point is not None
            else np.array([0.0, 0.0, spec.tier_spacing * 3])
        )
        anchor = ground + [0, 0, hand.height_mm]
        target_uv = painter.camera.project(anchor[None])[0]
    scale = _px_per_mm(painter.camera, anchor)
    below = ground if ground is not None else anchor - [0, 0, hand.height_mm]
    shadow_at = _along_light(anchor[None], painter.light, below[2])[0]
    offset = painter.camera.project(shadow_at[None])[0] - painter.camera.project(anchor[None])[0]
    return draw_hand(painter.canvas, hand, target_uv, scale, offset, rng)
