"""The lamp's direction from the post's shadow on the empty board.

The tokens' shadows tell the light (:mod:`vision.shadows`) only once two tokens stand above
the bottom tier and their shadows are seen; until then a new token's shadow can pass for a
token (bench game 10707 under a bare lamp: B4Q's shadow on A6P, with only A1R above it,
was read as a second token of B4Q's colour, two false alerts). The post stands on the empty
board already. Under a lamp its shadow is a band as wide as the post, from its foot away
from the lamp, on the base and on past it on the table; its length is the post's height
times the light's slope (the ``slope`` of :class:`vision.shadows.Shadows`: mm of offset per
mm of height). So the empty board's picture is mapped onto the base's plane and the
table's, and the slope is the one whose band there is darker than both its flanks along its
length and not beyond its end.

A band that could be a stain or the table's grain does not count: most of its length must be
darker than both flanks, its end must be seen, and the flanks beyond its end must not be
darker (a band as long as the map only says the lamp is low, not how low); and it must be
dark enough for its end to stand out of the grain (under the bench's softer light a gap in a
faint band read as its end, and gave a light half as long as the lamp's). Under a soft light
the post throws no such band, and the light is left to the tokens.

A clear band whose end is out of the picture still tells the lamp's way, that the light's
slope is at least as long as the band seen dark, and how deep the shadow is: enough to know
where the post shades the tokens' tops near it (:class:`PostShadow`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.colours import features
from calibration.spec import TimeVectorsSpec
from vision.footprint import frame_to_working, working_to_frame
from vision.shadows import MAX_SLOPE, MIN_DEPTH, plane_points

POST_CELL_MM = 2.0  # side of a cell of the plane maps the band is looked for on
COARSE_ANGLE_DEG = 2.0  # the band's direction is searched in these steps first ...
FINE_ANGLE_DEG = 0.25  # ... then in these within one coarse step of the best
SLOPE_STEP = 0.005  # the slopes tried for its length (about 2 mm at the tip)
INSIDE = (-0.4, 0.0, 0.4)  # across the band: offsets inside it, in post radii ...
FLANK = (1.7, 2.1, 2.5)  # ... and in each flank, clear of the penumbra
MIN_BAND_MM = 40.0  # the band's length seen, at the least, to tell the light
DARKER_SHARE = 0.75  # of its length seen, darker than both flanks by MIN_DEPTH
BEYOND_MM = 30.0  # seen past its end, where the flanks are not darker
CLEAR_DEPTH = 2 * MIN_DEPTH  # the band's median darkening below its flanks, at the least
TABLE_MARGIN_MM = 450.0  # how far past the base the table is mapped (a lamp 30 degrees up)
MAX_PIXELS = 120_000  # pixels of the picture mapped, at the most (it is shrunk to them)


@dataclass(frozen=True)
class PostShadow:
    """What the post's shadow on the empty board tells: the light's ``slope`` (as
    :class:`vision.shadows.Shadows` has it; None when the band's end is not seen), a slope
    the light's is at least as long as, the same way (``least``: as far as the band is seen
    dark), and how much darker than its flanks the band is (``depth``, brightness feature
    units: the post's shadow on a token's top is about as deep)."""

    slope: tuple[float, float] | None
    least: tuple[float, float]
    depth: float


def post_shadow(
    camera: CameraModel,
    spec: TimeVectorsSpec,
    working_bgr: np.ndarray,
    scale: tuple[float, float],
    hidden: np.ndarray,
) -> PostShadow | None:
    """What the post's shadow in the empty board's ``working_bgr`` (the reference shrunk to
    the working size, ``scale`` working pixels per frame pixel) shows, or None when it shows
    no clear band. ``hidden``: working pixels that see neither the base nor the table (the
    post itself, the plates' printed lines and edges)."""
    maps = _PlaneMaps(camera, spec, working_bgr, scale, hidden)
    coarse = np.radians(np.arange(0.0, 360.0, COARSE_ANGLE_DEG))
    angle, _ = _best_band(maps, coarse)
    fine = angle + np.radians(np.arange(-COARSE_ANGLE_DEG, COARSE_ANGLE_DEG + 1e-9, FINE_ANGLE_DEG))
    band = maps.band(*_best_band(maps, fine))
    depth = band.depth()
    if depth is None:
        return None
    end_seen = band.end_seen()
    length = band.slope if end_seen else band.least_slope()
    # (the band lies away from the lamp; the slope points at it, as in vision.shadows)
    least = (float(-length * np.cos(band.angle)), float(-length * np.sin(band.angle)))
    return PostShadow(least if end_seen else None, least, depth)


class _PlaneMaps:
    """The empty board's log brightness (feature units) mapped onto the base's top and onto
    the table around it (summed per cell, with the pixels summed), and the post's band on
    them."""

    def __init__(
        self,
        camera: CameraModel,
        spec: TimeVectorsSpec,
        working_bgr: np.ndarray,
        scale: tuple[float, float],
        hidden: np.ndarray,
    ) -> None:
        height, width = working_bgr.shape[:2]
        # (a coarser picture tells a band 25 mm wide as well, at a fraction of the cost)
        factor = min(1.0, float(np.sqrt(MAX_PIXELS / (width * height))))
        if factor < 1.0:
            size = (max(1, round(width * factor)), max(1, round(height * factor)))
            working_bgr = cv2.resize(working_bgr, size, interpolation=cv2.INTER_AREA)
            unseen = hidden.reshape(height, width).astype(np.float32)
            hidden = cv2.resize(unseen, size, interpolation=cv2.INTER_AREA) > 0
            scale = (scale[0] * size[0] / width, scale[1] * size[1] / height)
            width, height = size
        seen = np.flatnonzero(~hidden.reshape(-1))
        brightness = features(working_bgr.reshape(-1, 3)[seen].astype(np.float32))[:, 2]
        frame_px = working_to_frame(seen, (width, height), scale)
        self.base_half = spec.base_size / 2
        self.table_half = self.base_half + TABLE_MARGIN_MM
        base_z = -spec.plate_thickness
        self.drop = spec.base_height  # the table lies this far below the base's top
        on_base = plane_points(camera, frame_px, base_z)
        on_table = plane_points(camera, frame_px, base_z - self.drop)
        with np.errstate(invalid="ignore"):  # (NaN, a ray that misses, compares False)
            inside = np.all(np.abs(on_base) < self.base_half, axis=1)
            # (a ray that would meet the table under the base sees the base's side)
            beside = ~inside & np.any(np.abs(on_table) >= self.base_half, axis=1)
        self.base = _sum_map(on_base[inside], brightness[inside], self.base_half)
        self.table = _sum_map(on_table[beside], brightness[beside], self.table_half)
        radius = spec.post_diameter / 2
        self.height = spec.cap_top - base_z  # the post's top above the base's top
        self.tip = spec.cap_diameter / 2  # the band reaches this far past the top's shadow
        self.across_inside = np.asarray(INSIDE) * radius
        self.across_flank = np.asarray(FLANK) * radius
        self.steps = np.arange(radius, self.table_half * np.sqrt(2.0), POST_CELL_MM)

    def contrast(self, angles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per angle (rows) and step along it (columns, ``steps`` mm from the post's axis):
        how much darker the band's middle is than the lighter of its flanks would allow (the
        darker flank's brightness less the middle's), on the base and on the table. NaN
        where a part is not seen."""
        out = []
        for plane, half in ((self.base, self.base_half), (self.table, self.table_half)):
            middle = self._across(plane, half, angles, self.across_inside)
            left = self._across(plane, half, angles, self.across_flank)
            right = self._across(plane, half, angles, -self.across_flank)
            out.append(np.fmin(left, right) - middle)
        return out[0], out[1]

    def _across(
        self,
        plane: tuple[np.ndarray, np.ndarray],
        half: float,
        angles: np.ndarray,
        offsets: np.ndarray,
    ) -> np.ndarray:
        """The mean brightness over ``offsets`` (mm, across the band) on ``plane`` (its summed
        brightness and pixels per cell) at every step along every angle (NaN: none seen)."""
        along = np.stack([np.cos(angles), np.sin(angles)], axis=1)
        across = np.stack([-np.sin(angles), np.cos(angles)], axis=1)
        where = (
            self.steps[None, :, None, None] * along[:, None, None, :]
            + offsets[None, None, :, None] * across[:, None, None, :]
        )
        total, count = plane
        side = int(round(np.sqrt(len(total) - 1)))
        cell = np.floor((where + half) / POST_CELL_MM).astype(np.int64)
        valid = np.all((cell >= 0) & (cell < side), axis=-1)
        flat = np.where(valid, cell[..., 1] * side + cell[..., 0], side * side)
        summed, pixels = total[flat].sum(axis=2), count[flat].sum(axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(pixels > 0, summed / pixels, np.nan)

    def bounds(self, angles: np.ndarray, slopes: np.ndarray) -> tuple[np.ndarray, ...]:
        """For each angle and slope (broadcast), the steps the post's shadow covers: those
        before the first index on the base, and from the second to the third on the table."""
        edge = self.edge(angles)
        tip = (self.height + self.drop) * slopes + self.tip
        return (
            self._steps_to(np.minimum(self.height * slopes + self.tip, edge)),
            self._steps_to(edge + self.drop * slopes, inclusive=False),
            self._steps_to(tip),
        )

    def _steps_to(self, distance: np.ndarray, *, inclusive: bool = True) -> np.ndarray:
        """How many steps lie at or before (``inclusive``) or before ``distance`` (mm)."""
        return np.searchsorted(self.steps, distance, side="right" if inclusive else "left")

    def band(self, angle: float, slope: float) -> _Band:
        """The band of the light at ``angle`` (the band's way, radians) and ``slope``."""
        base, table = (c[0] for c in self.contrast(np.array([angle])))
        return _Band(self, angle, slope, base, table)

    def covered(self, angle: float, slope: float) -> tuple[np.ndarray, np.ndarray]:
        """Which steps the post's shadow covers on the base and on the table."""
        base_end, table_start, table_end = (
            int(b) for b in self.bounds(np.array(angle), np.array(slope))
        )
        index = np.arange(len(self.steps))
        return index < base_end, (index >= table_start) & (index < table_end)

    def edge(self, angles: np.ndarray) -> np.ndarray:
        """How far from the post's axis the base's edge lies along each angle (mm)."""
        return self.base_half / np.maximum(np.abs(np.cos(angles)), np.abs(np.sin(angles)))


@dataclass(frozen=True)
class _Band:
    """One band on the ``maps``: its way (``angle``), ``slope``, and its contrast profiles
    along that way on the base and on the table (see :meth:`_PlaneMaps.contrast`)."""

    maps: _PlaneMaps
    angle: float
    slope: float
    base: np.ndarray
    table: np.ndarray

    def depth(self) -> float | None:
        """How much darker than its flanks the band is (the median over its length seen),
        or None when it is no clear band (see the module's notes)."""
        on_base, on_table = self.maps.covered(self.angle, self.slope)
        band = np.concatenate([self.base[on_base], self.table[on_table]])
        band = band[~np.isnan(band)]
        if len(band) * POST_CELL_MM < MIN_BAND_MM or np.mean(band > MIN_DEPTH) < DARKER_SHARE:
            return None
        depth = float(np.median(band))
        return depth if depth >= CLEAR_DEPTH else None  # (a faint band's end is lost in the grain)

    def end_seen(self) -> bool:
        """Is the band's end seen: the stretch past it in view, and not darker than its
        flanks?"""
        maps = self.maps
        on_base, on_table = maps.covered(self.angle, self.slope)
        # Past its end: what a band longer by BEYOND_MM would cover more (where it meets
        # the table, the longer band starts a little farther out: that is not past it).
        longer_base, longer_table = maps.covered(self.angle, self.slope + BEYOND_MM / maps.height)
        meets_table = float(maps.edge(np.array(self.angle))) + maps.drop * self.slope
        past_table = longer_table & ~on_table & (maps.steps > meets_table + POST_CELL_MM)
        past = np.concatenate([self.base[longer_base & ~on_base], self.table[past_table]])
        past = past[~np.isnan(past)]
        return len(past) * POST_CELL_MM >= BEYOND_MM / 2 and float(np.median(past)) < MIN_DEPTH

    def least_slope(self) -> float:
        """The shortest slope whose band reaches as far as this one is seen dark: past that
        the picture does not say, and the best slope there is no bound (it ran on to skip
        the faint stretch where the band meets the table, and came out a third too long)."""
        maps = self.maps
        on_base, on_table = maps.covered(self.angle, self.slope)
        dark_base = on_base & (self.base > MIN_DEPTH)  # (NaN compares False)
        dark_table = on_table & (self.table > MIN_DEPTH)
        if dark_table.any():
            reach = float(maps.steps[dark_table].max())
            return max(reach - maps.tip, 0.0) / (maps.height + maps.drop)
        reach = float(maps.steps[dark_base].max()) if dark_base.any() else 0.0
        return max(reach - maps.tip, 0.0) / maps.height


def _best_band(maps: _PlaneMaps, angles: np.ndarray) -> tuple[float, float]:
    """The angle and slope among ``angles`` (and every slope up to ``MAX_SLOPE``) whose
    shadow band is darkest against its flanks: the most summed contrast beyond
    ``MIN_DEPTH`` over the steps it covers (a longer band gains while it stays dark)."""
    base, table = maps.contrast(angles)
    slopes = np.arange(SLOPE_STEP, MAX_SLOPE + 1e-9, SLOPE_STEP)
    zero = np.zeros((len(angles), 1))
    gain_base = np.hstack([zero, np.cumsum(np.nan_to_num(base - MIN_DEPTH), axis=1)])
    gain_table = np.hstack([zero, np.cumsum(np.nan_to_num(table - MIN_DEPTH), axis=1)])
    base_end, table_start, table_end = maps.bounds(angles[:, None], slopes[None, :])
    rows = np.arange(len(angles))[:, None]
    score = (
        gain_base[rows, base_end]
        + gain_table[rows, table_end]
        - gain_table[rows, np.minimum(table_start, table_end)]
    )
    a, k = np.unravel_index(int(np.argmax(score)), score.shape)
    return float(angles[a]), float(slopes[k])


def _sum_map(xy: np.ndarray, values: np.ndarray, half: float) -> tuple[np.ndarray, np.ndarray]:
    """The sum of ``values`` and their count per cell of a square map ``2 * half`` mm wide,
    each cell's with its neighbours' (a coarse picture leaves cells between its pixels),
    with one more cell at the end that stands for every cell off the map (none)."""
    side = int(np.ceil(2 * half / POST_CELL_MM))
    cell = np.floor((xy + half) / POST_CELL_MM).astype(np.int64)
    inside = np.all((cell >= 0) & (cell < side), axis=1)
    flat = cell[inside, 1] * side + cell[inside, 0]
    maps = []
    for weights in (values[inside], None):
        summed = np.bincount(flat, weights, minlength=side * side).reshape(side, side)
        summed = cv2.boxFilter(summed.astype(np.float64), -1, (3, 3), normalize=False)
        maps.append(np.append(summed.reshape(-1), 0.0).astype(np.float64))
    return maps[0], maps[1]


def hidden_pixels(
    post_polygon: np.ndarray,
    line_tier: np.ndarray,
    size: tuple[int, int],
    scale: tuple[float, float],
) -> np.ndarray:
    """The working pixels that show the post (``post_polygon``, frame pixels) or a plate's
    printed line or edge (``line_tier`` >= 0): they see neither the base nor the table."""
    width, height = size
    mask = np.zeros((height, width), np.uint8)
    outline = frame_to_working(post_polygon, scale)
    cv2.fillPoly(mask, [np.round(outline * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
    return mask.reshape(-1).astype(bool) | (line_tier.reshape(-1) >= 0)
