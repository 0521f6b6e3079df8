"""Synthetic photographs of the GRYB bandanna with exact ground truth.

The cloth is printed in its own millimetre frame (spots coloured by their last
letter, quadrangle outlines through every node's four children, a border), the
ring tokens are laid on it, and the cloth is then *wrinkled*: a smooth random
displacement field moves every cloth point on the table plane (the cloth
stretches and creeps, so one homography is off by up to a centimetre) and a
height field of folds shades it. The camera looks at the table plane; every
pixel is traced back to the plane (inverse homography), then to the cloth
(fixed-point inversion of the displacement), and coloured from the printed
texture or the table. A hand, the light's fall-off, a colour cast, blur, noise
and JPEG come last (the camera defects are those of :mod:`vision.render`).

Ground truth is exact: a node's pixel is the camera's projection of its
displaced position, computed forward from the same displacement field.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.colours import features
from calibration.gryb_calibfile import GrybCalibration
from calibration.gryb_colours import ring_distance
from calibration.gryb_fit import corner_homography, parse_gryb_clicks
from calibration.gryb_spec import GrybSpec, load_gryb_spec
from rules.gryb.nodes import COLOURS, NODES
from vision.render import SceneStyle, finish_photo
from vision.render_hand import HandSpec, draw_hand
from vision.render_textures import TABLE_KINDS, cloth_texture, smooth_noise, table_texture

logger = logging.getLogger(__name__)

__all__ = [
    "BandannaStyle",
    "RenderedBandanna",
    "Wrinkles",
    "plane_homography",
    "random_bandanna_scene",
    "random_wrinkles",
    "render_bandanna",
    "render_bandanna_scene",
]

RGB = tuple[int, int, int]
N_NODES = len(NODES)
TEXELS_PER_MM = 2.5  # resolution of the printed cloth texture
_FIELD_STEP_MM = 4.0  # sample spacing of the displacement and height fields
_TABLE_TEXEL_MM = 1.5


@dataclass(frozen=True)
class BandannaStyle:
    """The look of the cloth and tokens (RGB 0..255; spots in G, R, Y, B order); ``scene`` holds the table, the light
    and the camera's defects (its plate fields do not apply to the bandanna)."""

    cloth_rgb: RGB = (238, 230, 212)
    line_rgb: RGB = (46, 44, 48)
    spot_rgb: tuple[RGB, RGB, RGB, RGB] = (
        (38, 150, 72),
        (206, 40, 44),
        (244, 204, 36),
        (36, 82, 186),
    )
    head_rgb: RGB = (124, 62, 150)
    ring_rgb: tuple[RGB, RGB] = ((24, 24, 26), (232, 110, 20))
    ring_jitter_mm: float = 1.2  # players never centre a ring exactly
    fold_shading: float = 1.0
    scene: SceneStyle = field(default_factory=SceneStyle)

    def __post_init__(self) -> None:
        if len(self.spot_rgb) != len(COLOURS):
            raise ValueError("spot_rgb must give four colours, for G, R, Y and B in that order")
        if len(self.ring_rgb) != 2:
            raise ValueError("a GRYB game has rings of exactly two colours")


@dataclass(frozen=True)
class Wrinkles:
    """How the cloth lies on the table: displacement (mm) and fold height (mm) sampled on a
    grid over the cloth frame (``origin_mm`` is the grid's lower-left corner, ``step_mm``
    apart). A cloth point ``c`` lies at table point ``c + displacement(c)``."""

    dx: np.ndarray
    dy: np.ndarray
    height: np.ndarray
    origin_mm: float
    step_mm: float

    @classmethod
    def flat(cls, spec: GrybSpec) -> Wrinkles:
        """A perfectly smooth, unstretched cloth."""
        n = int(np.ceil(spec.cloth_size * 1.2 / _FIELD_STEP_MM)) + 1
        zero = np.zeros((n, n), np.float32)
        return cls(zero, zero, zero, -spec.cloth_size * 0.6, _FIELD_STEP_MM)

    def _sample(self, grid: np.ndarray, xy_mm: np.ndarray) -> np.ndarray:
        """Bilinear samples of ``grid`` at ``(..., 2)`` cloth millimetres (edges clamp)."""
        xy = np.asarray(xy_mm, np.float32)
        flat = xy.reshape(-1, 2)
        # cv2.remap takes 2-D maps of at most 32767 per side: fold the list into rows.
        n = len(flat)
        width = 1024
        rows = -(-n // width)
        padded = np.zeros((rows * width, 2), np.float32)
        padded[:n] = flat
        map_x = ((padded[:, 0] - self.origin_mm) / self.step_mm).reshape(rows, width)
        map_y = ((padded[:, 1] - self.origin_mm) / self.step_mm).reshape(rows, width)
        out = cv2.remap(grid, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return out.reshape(-1)[:n].reshape(xy.shape[:-1])

    def displacement(self, cloth_mm: np.ndarray) -> np.ndarray:
        """``(..., 2)`` displacement at cloth points."""
        return np.stack([self._sample(self.dx, cloth_mm), self._sample(self.dy, cloth_mm)], axis=-1)

    def to_table(self, cloth_mm: np.ndarray) -> np.ndarray:
        """Where cloth points lie on the table plane."""
        return np.asarray(cloth_mm, np.float64) + self.displacement(cloth_mm)

    def to_cloth(self, table_mm: np.ndarray, iterations: int = 6) -> np.ndarray:
        """Inverse of :meth:`to_table` by fixed-point iteration (the field is smooth, so it converges)."""
        table_mm = np.asarray(table_mm, np.float32)
        cloth = table_mm.copy()
        for _ in range(iterations):
            cloth = table_mm - self.displacement(cloth)
        return cloth

    def max_shift_mm(self) -> float:
        """Largest displacement anywhere on the field (how far one homography can be off)."""
        return float(np.max(np.hypot(self.dx, self.dy)))


def random_wrinkles(
    seed: int, spec: GrybSpec, amplitude_mm: float = 8.0, folds: int = 4
) -> Wrinkles:
    """A random wrinkled cloth: a smooth stretch/creep field of about ``amplitude_mm`` at its
    largest, a slight uneven stretch, and ``folds`` ridges that pull cloth toward them.

    Raises ``ValueError`` for a negative amplitude or fold count.
    """
    if amplitude_mm < 0 or folds < 0:
        raise ValueError("wrinkle amplitude and fold count must not be negative")
    rng = np.random.default_rng(seed)
    n = int(np.ceil(spec.cloth_size * 1.2 / _FIELD_STEP_MM)) + 1
    origin = -spec.cloth_size * 0.6
    axis = origin + _FIELD_STEP_MM * np.arange(n, dtype=np.float32)
    gx, gy = np.meshgrid(axis, axis)
    dx = smooth_noise(rng, n, 3, 2)
    dy = smooth_noise(rng, n, 3, 2)
    scale = amplitude_mm / max(float(np.max(np.hypot(dx, dy))), 1e-6)
    dx, dy = dx * scale, dy * scale
    stretch = rng.normal(0, 0.008, 2)  # the weave gives more one way than the other
    dx += stretch[0] * gx
    dy += stretch[1] * gy
    height = 1.5 * smooth_noise(rng, n, 5, 2) * (amplitude_mm > 0)
    for _ in range(folds):
        centre = rng.uniform(-0.4, 0.4, 2) * spec.cloth_size
        angle = rng.uniform(0, np.pi)
        along = np.array([np.cos(angle), np.sin(angle)], np.float32)
        normal = np.array([-along[1], along[0]], np.float32)
        rx, ry = gx - centre[0], gy - centre[1]
        across = rx * normal[0] + ry * normal[1]
        length = rx * along[0] + ry * along[1]
        width = rng.uniform(10, 22)
        reach = rng.uniform(80, 220)
        envelope = np.exp(-((length / reach) ** 2)) * np.exp(-((across / width) ** 2))
        height += rng.uniform(3, 8) * envelope
        pull = rng.uniform(0.5, 2.0) * envelope * np.tanh(across / width)
        dx -= pull * normal[0]
        dy -= pull * normal[1]
    return Wrinkles(
        dx.astype(np.float32),
        dy.astype(np.float32),
        height.astype(np.float32),
        float(origin),
        _FIELD_STEP_MM,
    )


@dataclass(frozen=True)
class RenderedBandanna:
    """A rendered frame and its ground truth.

    ``nodes_px`` is ``(341, 2)``: where each node's spot centre is in the image.
    ``rings`` maps node index -> ring colour (0 or 1). ``visibility[i]`` is the
    fraction of a ring at node ``i`` the hand leaves in view (1.0 without a hand).
    """

    image_bgr: np.ndarray
    nodes_px: np.ndarray
    rings: dict[int, int]
    visibility: np.ndarray
    hand_mask: np.ndarray

    def landmarks_px(self) -> dict[str, list[float]]:
        """The true corner-leaf clicks ``{"GGGG": [u, v], ...}``."""
        from calibration.gryb_spec import LANDMARKS

        return {name: [float(v) for v in self.nodes_px[NODES.index(name)]] for name in LANDMARKS}


def plane_homography(camera: CameraModel) -> np.ndarray:
    """Homography from table-plane millimetres ``(x, y, 1)`` (z = 0) to undistorted pixels."""
    rotation = cv2.Rodrigues(camera.rvec)[0]
    return camera.K @ np.column_stack([rotation[:, 0], rotation[:, 1], camera.tvec])


def _bgr(rgb: Sequence[float]) -> np.ndarray:
    return np.array([rgb[2], rgb[1], rgb[0]], dtype=np.float32)


def _circle(
    image: np.ndarray, centre_tex: np.ndarray, radius_tex: float, colour: np.ndarray
) -> None:
    c = (round(centre_tex[0] * 16), round(centre_tex[1] * 16))
    cv2.circle(
        image, c, round(radius_tex * 16), tuple(float(v) for v in colour), -1, cv2.LINE_AA, 4
    )


@functools.lru_cache(maxsize=2)
def _printed_cloth(spec: GrybSpec, style: BandannaStyle, seed: int) -> _Print:
    """The print without rings; every frame of a game shares it (building it is the slow part)."""
    return _Print(spec, style, np.random.default_rng(seed))


class _Print:
    """The printed cloth in its own frame: texel ``(i, j)`` is cloth ``(x, y)`` with
    ``x = (i - half) / TEXELS_PER_MM`` and ``y = (half - j) / TEXELS_PER_MM`` (y up)."""

    def __init__(self, spec: GrybSpec, style: BandannaStyle, rng: np.random.Generator) -> None:
        self.size = int(np.ceil(spec.cloth_size * TEXELS_PER_MM))
        self.half = self.size / 2
        self.image = cloth_texture(rng, self.size, _bgr(style.cloth_rgb))
        self._draw(spec, style, rng)
        self.image.flags.writeable = False  # shared by every frame: rings go on a copy

    def with_rings(
        self, spec: GrybSpec, style: BandannaStyle, rings: Mapping[int, int], seed: int
    ) -> np.ndarray:
        """A copy of the print with ring tokens laid on it (each ring off centre by its own
        amount, the same in every frame it appears in)."""
        image = self.image.copy()
        self._lay_rings(image, spec, style, rings, seed)
        return image

    def texel(self, xy_mm: np.ndarray) -> np.ndarray:
        xy = np.asarray(xy_mm, np.float64)
        return np.stack(
            [self.half + xy[..., 0] * TEXELS_PER_MM, self.half - xy[..., 1] * TEXELS_PER_MM], -1
        )

    def _draw(self, spec: GrybSpec, style: BandannaStyle, rng: np.random.Generator) -> None:
        positions = spec.node_positions()
        line = tuple(float(v) for v in _bgr(style.line_rgb))
        width = max(1, round(spec.line_width * TEXELS_PER_MM))
        for node in NODES:
            if len(node) < 4:
                corners = self.texel(positions[[NODES.index(node + c) for c in "GRYB"]])
                cv2.polylines(
                    self.image,
                    [np.round(corners * 16).astype(np.int32)],
                    True,
                    line,
                    width,
                    cv2.LINE_AA,
                    4,
                )
        border = (sum(spec.level_offsets) + 0.6 * spec.level_offsets[-1] * 2) * TEXELS_PER_MM
        inset = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * border + self.half
        cv2.polylines(
            self.image,
            [np.round(inset * 16).astype(np.int32)],
            True,
            line,
            width * 2,
            cv2.LINE_AA,
            4,
        )
        radius = spec.spot_diameter / 2 * TEXELS_PER_MM
        for i, node in enumerate(NODES):
            colour = _bgr(style.spot_rgb[COLOURS.index(node[-1])] if node else style.head_rgb)
            colour = colour * float(rng.uniform(0.94, 1.04))  # the dye takes unevenly
            _circle(self.image, self.texel(positions[i]), radius, colour)
        hem = max(2, int(6 * TEXELS_PER_MM))
        self.image[:hem] *= 0.9
        self.image[-hem:] *= 0.9
        self.image[:, :hem] *= 0.9
        self.image[:, -hem:] *= 0.9

    def _lay_rings(
        self,
        image: np.ndarray,
        spec: GrybSpec,
        style: BandannaStyle,
        rings: Mapping[int, int],
        seed: int,
    ) -> None:
        """Lay ring tokens on the print: a soft contact shadow, then the lit ring body."""
        if not rings:
            return
        positions = spec.node_positions()
        outer = spec.ring_outer_diameter / 2 * TEXELS_PER_MM
        inner = spec.ring_inner_diameter / 2 * TEXELS_PER_MM
        light = style.scene.light_vector()
        away = light[:2] / max(
            float(np.hypot(light[0], light[1])), 1e-6
        )  # horizontal, toward the light
        pad = int(np.ceil(outer * 1.6)) + 2
        yy, xx = np.mgrid[-pad : pad + 1, -pad : pad + 1].astype(np.float32)
        for node, colour in sorted(rings.items()):
            jitter = np.random.default_rng([seed, node]).normal(0, style.ring_jitter_mm / 2, 2)
            centre = self.texel(positions[node] + jitter)
            ci, cj = int(np.floor(centre[0])), int(np.floor(centre[1]))
            fx, fy = xx - (centre[0] - ci), yy - (centre[1] - cj)
            r = np.hypot(fx, fy)
            i0, j0 = ci - pad, cj - pad
            if i0 < 0 or j0 < 0 or ci + pad + 1 > self.size or cj + pad + 1 > self.size:
                continue
            roi = image[j0 : cj + pad + 1, i0 : ci + pad + 1]
            # Shadow: the ring (about 3 mm thick) shifted away from the light, with soft edges.
            reach = (
                3.0 * TEXELS_PER_MM / max(np.tan(np.radians(style.scene.light_elevation_deg)), 0.3)
            )
            rs = np.hypot(fx + away[0] * reach, fy - away[1] * reach)
            soft = 1.0 * TEXELS_PER_MM
            shadow = np.clip((outer + soft - rs) / soft, 0, 1) * np.clip(
                (rs - inner + soft) / soft, 0, 1
            )
            roi *= (1.0 - 0.5 * style.scene.shadow_strength * shadow)[..., None]
            body = np.clip(outer + 0.5 - r, 0, 1) * np.clip(r - inner + 0.5, 0, 1)
            # Rounded ring: brighter on the side facing the light, darker at its edges.
            facing = (fx * light[0] - fy * light[1]) / np.maximum(r, 1e-3)
            middle = 1.0 - np.abs(r - (outer + inner) / 2) / ((outer - inner) / 2)
            shade = 0.72 + 0.22 * facing * (1 - middle) + 0.18 * middle
            base = _bgr(style.ring_rgb[int(colour)])
            ring = (
                base[None, None, :] * shade[..., None]
                + 18.0 * np.clip(facing * middle, 0, 1)[..., None]
            )
            roi[:] = roi * (1 - body[..., None]) + ring * body[..., None]


@functools.lru_cache(maxsize=2)
def _table_tile(style: SceneStyle, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The table's texture tile (lit) and where the cloth lies on it; shared by a game's frames."""
    rng = np.random.default_rng(seed)
    tile = table_texture(rng, style.table_kind, style.table_rgb, size=512)
    tile *= style.ambient + (1 - style.ambient) * style.light_vector()[2]
    tile.flags.writeable = False
    return tile, rng.uniform(0, 512, 2)


def _table(style: SceneStyle, seed: int, table_mm: np.ndarray) -> np.ndarray:
    tile, offset = _table_tile(style, seed)
    map_x = (table_mm[..., 0] / _TABLE_TEXEL_MM + offset[0]).astype(np.float32)
    map_y = (-table_mm[..., 1] / _TABLE_TEXEL_MM + offset[1]).astype(np.float32)
    return cv2.remap(tile, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)


def _shading(wrinkles: Wrinkles, cloth_mm: np.ndarray, style: BandannaStyle) -> np.ndarray:
    """Lambert shading of the folded cloth plus a little occlusion in the valleys."""
    scene = style.scene
    gy, gx = np.gradient(wrinkles.height * style.fold_shading, wrinkles.step_mm)
    light = scene.light_vector()
    normal_len = np.sqrt(gx**2 + gy**2 + 1.0)
    diffuse = np.clip((-gx * light[0] - gy * light[1] + light[2]) / normal_len, 0, 1)
    occlusion = 1.0 - 0.02 * np.clip(-wrinkles.height * style.fold_shading, 0, 10)
    shade = ((scene.ambient + (1 - scene.ambient) * diffuse) * occlusion).astype(np.float32)
    return wrinkles._sample(shade, cloth_mm)


def render_bandanna(
    camera: CameraModel,
    spec: GrybSpec,
    rings: Mapping[int, int],
    *,
    style: BandannaStyle | None = None,
    wrinkles: Wrinkles | None = None,
    hand: HandSpec | None = None,
    seed: int = 0,
    noise_seed: int | None = None,
) -> RenderedBandanna:
    """Render the bandanna with ``rings`` (node index -> ring colour 0 or 1) on it.

    The same ``seed``, ``style`` and ``wrinkles`` give the same cloth, table and
    light, so frames of one game differ only in rings, hand and noise;
    ``noise_seed`` varies the camera noise alone (by default it follows the seed
    and the rings). For the
    bandanna ``hand.target_point`` is a node index. Raises ``ValueError`` for a
    node outside 0..340 or a ring colour other than 0 and 1.
    """
    for node, colour in rings.items():
        if not 0 <= int(node) < N_NODES:
            raise ValueError(f"ring at node {node}: nodes are 0..{N_NODES - 1}")
        if int(colour) not in (0, 1):
            raise ValueError(f"ring at node {node} has colour {colour}; rings are colour 0 or 1")
    style = style or BandannaStyle()
    wrinkles = wrinkles or Wrinkles.flat(spec)
    cloth_print = _printed_cloth(spec, style, seed)
    rng = np.random.default_rng(
        [seed, len(rings), *sorted(rings)] if noise_seed is None else [seed, noise_seed]
    )
    printed = cloth_print.with_rings(spec, style, rings, seed)

    w, h = camera.image_size
    table_mm, cloth_mm = _pixel_maps(camera, wrinkles)
    texel = cloth_print.texel(cloth_mm).astype(np.float32)
    cloth = cv2.remap(
        printed,
        texel[..., 0],
        texel[..., 1],
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=0,
    )
    cloth *= _shading(wrinkles, cloth_mm, style)[..., None]
    half = spec.cloth_size / 2
    farthest = np.maximum(np.abs(cloth_mm[..., 0]), np.abs(cloth_mm[..., 1]))
    edge_px = np.clip((half - farthest) * TEXELS_PER_MM, 0, 1)[..., None]
    table = _table(style.scene, seed + 1, table_mm)
    canvas = (cloth * edge_px + table * (1 - edge_px)).astype(np.float32)

    positions = spec.node_positions()
    nodes_px = camera.project(np.column_stack([wrinkles.to_table(positions), np.zeros(N_NODES)]))
    hand_mask = np.zeros((h, w), bool)
    visibility = np.ones(N_NODES)
    if hand is not None:
        target = (
            np.asarray(hand.target_uv, np.float64)
            if hand.target_uv is not None
            else nodes_px[hand.target_point if hand.target_point is not None else 0]
        )
        px_per_mm = float(
            np.linalg.norm(
                camera.project(np.array([[0, 0, 0], [10, 0, 0]]))[1]
                - camera.project(np.array([[0, 0, 0]]))[0]
            )
            / 10
        )
        light = style.scene.light_vector()
        lift = hand.height_mm / max(light[2], 0.2)
        shadow = (
            camera.project(np.array([[-light[0] * lift, -light[1] * lift, 0.0]]))[0]
            - camera.project(np.zeros((1, 3)))[0]
        )
        hand_mask = draw_hand(canvas, hand, target, px_per_mm, shadow, rng)
        visibility = _ring_visibility(spec, wrinkles, camera, hand_mask)
    image = finish_photo(canvas, style.scene, rng)
    return RenderedBandanna(
        image_bgr=image,
        nodes_px=nodes_px,
        rings={int(k): int(c) for k, c in rings.items()},
        visibility=visibility,
        hand_mask=hand_mask,
    )


def _pixel_maps(
    camera: CameraModel, wrinkles: Wrinkles, step: int = 4
) -> tuple[np.ndarray, np.ndarray]:
    """Table-plane and cloth millimetres of every pixel. Both maps are smooth, so they are
    traced exactly on every ``step``-th pixel and interpolated in between (far below a
    hundredth of a pixel off)."""
    w, h = camera.image_size
    u, v = np.meshgrid(
        np.arange(0, w + step, step, dtype=np.float64),
        np.arange(0, h + step, step, dtype=np.float64),
    )
    plane = np.stack([u, v, np.ones_like(u)], -1) @ np.linalg.inv(plane_homography(camera)).T
    table = (plane[..., :2] / plane[..., 2:3]).astype(np.float32)
    cloth = wrinkles.to_cloth(table)
    # Coarse sample k sits at pixel k * step.
    map_x = np.broadcast_to(np.arange(w, dtype=np.float32) / step, (h, w))
    map_y = np.broadcast_to((np.arange(h, dtype=np.float32) / step)[:, None], (h, w))

    def full(coarse: np.ndarray) -> np.ndarray:
        return cv2.remap(
            coarse, np.ascontiguousarray(map_x), np.ascontiguousarray(map_y), cv2.INTER_LINEAR
        )

    return full(table), full(cloth)


def _ring_visibility(
    spec: GrybSpec, wrinkles: Wrinkles, camera: CameraModel, hand_mask: np.ndarray
) -> np.ndarray:
    """Fraction of each node's ring footprint (disc of the outer diameter) not under the hand."""
    radii = np.linspace(0, spec.ring_outer_diameter / 2, 4)
    angles = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    offsets = np.array([[r * np.cos(a), r * np.sin(a)] for r in radii for a in angles])
    cloth = spec.node_positions()[:, None, :] + offsets[None]
    table = wrinkles.to_table(cloth.reshape(-1, 2))
    px = camera.project(np.column_stack([table, np.zeros(len(table))]))
    h, w = hand_mask.shape
    col = np.clip(np.round(px[:, 0]).astype(int), 0, w - 1)
    row = np.clip(np.round(px[:, 1]).astype(int), 0, h - 1)
    covered = hand_mask[row, col].reshape(N_NODES, -1)
    return 1.0 - covered.mean(axis=1)


# -- random scenes ----------------------------------------------------------------------------
# Light cloths, as an auto-exposed camera records them (a little below clipping).
_CLOTH_COLOURS = (
    (226, 218, 200),
    (230, 228, 222),
    (214, 206, 184),
    (200, 206, 208),
    (224, 212, 190),
)
_RING_COLOURS = (
    (24, 24, 26),
    (250, 250, 246),
    (232, 110, 20),
    (120, 48, 156),
    (20, 150, 160),
    (230, 100, 170),
    (110, 70, 40),
)
_TABLE_RGB = {
    "wood": ((150, 112, 80), (105, 70, 45), (80, 52, 36)),
    "cloth": ((40, 90, 60), (60, 60, 70)),
    "laminate": ((60, 60, 62), (140, 150, 160)),
    "stone": ((120, 120, 118), (70, 70, 75)),
}


MIN_RING_CONTRAST = (
    3.0  # feature units (calibration.colours.features) between ring and cloth colours
)


def rings_stand_out(cloth: RGB, rings: tuple[RGB, RGB]) -> bool:
    """Are both ring colours clearly unlike the cloth and unlike each other?

    The ring reader needs that much contrast: a white ring on a cream or khaki cloth
    differs by little more than its shading and is not a colour players should pick.
    """
    feats = features(np.array([c[::-1] for c in (cloth, *rings)], np.float32))
    to_cloth = np.linalg.norm(feats[1:] - feats[0], axis=1)
    return bool(
        to_cloth.min() >= MIN_RING_CONTRAST
        and ring_distance(feats[1], feats[2])[0, 0] >= MIN_RING_CONTRAST
    )


def random_bandanna_scene(
    seed: int,
    size: tuple[int, int] = (1280, 960),
    spec: GrybSpec | None = None,
    wrinkle_mm: float | None = None,
) -> tuple[CameraModel, BandannaStyle, Wrinkles]:
    """A random but plausible camera, look and wrinkled cloth for one game.

    Camera 50-90 degrees above the table at any azimuth with the whole cloth in
    the frame; cloth, two ring colours that stand out from it and from each other,
    light, cast, noise, blur, JPEG; wrinkles of ``wrinkle_mm`` (default 6-11 mm).
    """
    spec = spec or load_gryb_spec()
    rng = np.random.default_rng(seed)
    elevation = float(rng.uniform(50, 90))
    azimuth = float(rng.uniform(0, 360))
    fov = float(rng.uniform(50, 70))
    half = spec.cloth_size / 2
    corners = np.array([[sx * half, sy * half, 0.0] for sx in (-1, 1) for sy in (-1, 1)])
    fill = float(rng.uniform(0.86, 0.94))
    distance = 1000.0
    for _ in range(6):
        camera = CameraModel.looking_at((0.0, 0.0, 0.0), distance, elevation, azimuth, size, fov)
        centre = np.array(size) / 2
        extent = np.max(np.abs(camera.project(corners) - centre) / (centre * fill))
        distance *= extent
    camera = CameraModel.looking_at((0.0, 0.0, 0.0), distance, elevation, azimuth, size, fov)
    cloth = _CLOTH_COLOURS[int(rng.integers(len(_CLOTH_COLOURS)))]
    while True:
        a, b = rng.choice(len(_RING_COLOURS), 2, replace=False)
        ring = (_RING_COLOURS[a], _RING_COLOURS[b])
        if rings_stand_out(cloth, ring):
            break
    kind = TABLE_KINDS[int(rng.integers(len(TABLE_KINDS)))]
    cast = np.exp(rng.normal(0, 0.06, 3))
    scene = SceneStyle(
        table_kind=kind,
        table_rgb=_TABLE_RGB[kind][int(rng.integers(len(_TABLE_RGB[kind])))],
        light_azimuth_deg=float(rng.uniform(0, 360)),
        light_elevation_deg=float(rng.uniform(40, 85)),
        ambient=float(rng.uniform(0.45, 0.7)),
        shadow_strength=float(rng.uniform(0.3, 0.6)),
        exposure=float(rng.uniform(0.8, 1.0)),
        white_balance=tuple(float(v) for v in cast / cast[1]),
        vignette=float(rng.uniform(0.0, 0.35)),
        gradient=float(rng.uniform(0.0, 0.2)),
        gradient_angle_deg=float(rng.uniform(0, 360)),
        noise_sigma=float(rng.uniform(0.5, 3.0)),
        blur_sigma=float(rng.uniform(0.0, 1.0)),
        jpeg_quality=None if rng.random() < 0.4 else int(rng.integers(70, 96)),
    )
    style = BandannaStyle(cloth_rgb=cloth, ring_rgb=ring, scene=scene)
    amplitude = float(rng.uniform(6, 11)) if wrinkle_mm is None else wrinkle_mm
    wrinkles = random_wrinkles(seed, spec, amplitude, folds=int(rng.integers(2, 6)))
    return camera, style, wrinkles


def render_bandanna_scene(
    seed: int,
    size: tuple[int, int],
    ring_count: int,
    *,
    hand: bool = False,
    click_noise_px: float = 0.0,
    spec: GrybSpec | None = None,
) -> dict:
    """One random scene as files would hold it (used by ``boardcam render --board gryb``).

    Returns ``{"image", "empty", "truth", "clicks", "calibration"}``: the picture with ``ring_count``
    random rings (and a hand reaching for the first one), the same scene empty,
    the ground truth document (rings, node pixels, visibility and hidden nodes by
    name, camera, wrinkle size) and the true corner clicks (plus Gaussian
    ``click_noise_px``), plus ``"calibration"``: the exact calibration of the scene
    (:func:`exact_calibration`). Raises ``ValueError`` for a ring count outside 0..341.
    """
    from calibration.gryb_spec import LANDMARKS
    from rules.gryb.nodes import node_name

    if not 0 <= ring_count <= N_NODES:
        raise ValueError(f"ring count must be 0..{N_NODES}, not {ring_count}")
    spec = spec or load_gryb_spec()
    camera, style, wrinkles = random_bandanna_scene(seed, size, spec)
    rng = np.random.default_rng([seed, 1])
    nodes = rng.choice(N_NODES, ring_count, replace=False)
    rings = {int(n): int(i % 2) for i, n in enumerate(nodes)}
    hand_spec = (
        HandSpec(target_point=int(nodes[0]) if ring_count else int(rng.integers(N_NODES)))
        if hand
        else None
    )
    rendered = render_bandanna(
        camera, spec, rings, style=style, wrinkles=wrinkles, hand=hand_spec, seed=seed
    )
    empty = render_bandanna(camera, spec, {}, style=style, wrinkles=wrinkles, seed=seed)
    clicks = {}
    for name in LANDMARKS:
        uv = rendered.nodes_px[NODES.index(name)] + (
            rng.normal(0, click_noise_px, 2) if click_noise_px > 0 else 0
        )
        clicks[name] = [round(float(uv[0]), 2), round(float(uv[1]), 2)]
    truth = {
        "board": "gryb",
        "seed": seed,
        "size": list(size),
        "rings": {node_name(NODES[n]): c for n, c in sorted(rings.items())},
        "ring_colours_rgb": [list(c) for c in style.ring_rgb],
        "nodes_px": {
            node_name(n): [round(float(u), 2), round(float(v), 2)]
            for n, (u, v) in zip(NODES, rendered.nodes_px)
        },
        "visibility": {
            node_name(n): round(float(v), 4) for n, v in zip(NODES, rendered.visibility)
        },
        "hidden": [node_name(n) for n, v in zip(NODES, rendered.visibility) if v < 0.5],
        "hand": bool(rendered.hand_mask.any()),
        "camera": camera.to_dict(),
        "wrinkle_max_mm": round(wrinkles.max_shift_mm(), 2),
    }
    return {
        "image": rendered.image_bgr,
        "empty": empty.image_bgr,
        "truth": truth,
        "clicks": clicks,
        "calibration": exact_calibration(spec, camera, empty),
    }


def exact_calibration(
    spec: GrybSpec, camera: CameraModel, empty: RenderedBandanna
) -> GrybCalibration:
    """The calibration a perfect fit would give for a rendered scene: the true corner
    homography and node pixels, with the empty picture as the reference."""
    homography = corner_homography(parse_gryb_clicks(empty.landmarks_px()), spec)
    w, h = camera.image_size
    plain = GrybCalibration(
        spec=spec,
        image_size=(w, h),
        homography=homography,
        nodes_px=empty.nodes_px,
        located=np.ones(N_NODES, bool),
        rms_px=0.0,
        landmarks=parse_gryb_clicks(empty.landmarks_px()),
    )
    return plain.with_reference(empty.image_bgr, max_width=w, quality=92)
