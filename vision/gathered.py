"""The pixels a reader gathers from each frame, and where each point's token shows among them.

A frame is read only where some token footprint or the hand grid needs it: a
sample of every point's core, ring and top disc (a sample is enough to measure
how filled a region is) plus the grid. Everything per frame is then a gather
and a bincount over index arrays into that list, chosen once here: which
gathered pixels each point's regions hold, the tier and the printed lines in
front of them, and which points lie in line (a token on one would hide most of
the other's top). The questions a reading asks about a set of points (which
pixels their tokens cover, and the nearest of them there) are answered here
too, from silhouettes stored ordered by tier.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.explain import RING_WEIGHT, Cover
from vision.footprint import N_POINTS, Footprints, spread

# Pixels read per frame: a sample of each region is enough to measure how filled it is.
CORE_SAMPLES, RING_SAMPLES, TOP_SAMPLES = 48, 32, 32
TIER_MEMO = 8  # point sets whose silhouettes' tiers are remembered (see nearest_tier)
IN_LINE_OVERLAP = 0.5  # share of a top one point's token would hide that makes two in line

#: The parts of a top disc and of a token's side (see ``GatheredPixels.top_part``).
SURFACE, RIM, BEHIND_LINE, SIDE = 0, 1, 2, 3


class GatheredPixels:
    """The gathered pixels of one camera's footprints (``footprints``) and hand grid
    (``grid_flat``: flat working-image indices).

    ``positions`` are the gathered pixels' flat working-image indices (sorted); ``grid``
    the hand grid's places among them. ``core``, ``ring``, ``top`` and ``silhouette`` are
    the points' regions (:class:`vision.footprint.PixelSets`) indexing the gathered list.
    """

    def __init__(self, footprints: Footprints, grid_flat: np.ndarray) -> None:
        fp = footprints
        width, height = fp.size
        self.footprints = fp
        core, ring, top = (
            fp.core.thinned(CORE_SAMPLES),
            fp.ring.thinned(RING_SAMPLES),
            fp.top.thinned(TOP_SAMPLES),
        )
        positions = np.unique(np.concatenate([core.index, ring.index, top.index, grid_flat]))
        self.positions = positions
        self.grid = np.searchsorted(positions, grid_flat)
        self.core = core.local_to(positions)
        self.ring = ring.local_to(positions)
        self.top = top.local_to(positions)
        self.silhouette = fp.silhouette.within(positions).local_to(positions)
        #: Top-disc samples fully inside the token's outline (no table mixed in at the rim).
        n_px = width * height
        self.top_inside = np.isin(
            top.point * n_px + top.index, fp.core.point * n_px + fp.core.index
        )
        self.core_tier = fp.tier[self.core.point]
        self.top_tier = fp.tier[self.top.point]
        #: Core samples a printed line of a plate above crosses: the line hides the token there.
        self.core_behind_line = fp.line_tier[positions[self.core.index]] > self.core_tier
        # Silhouette pixels ordered by tier (points in order within one): with each point's
        # tier and pixel count in that order, a set of points' pixels are a repeat away.
        order = np.argsort(fp.tier[self.silhouette.point], kind="stable")
        by_tier = np.argsort(fp.tier, kind="stable")
        self._by_tier = (
            self.silhouette.index[order],
            by_tier,
            self.silhouette.count[by_tier],
            fp.tier[self.silhouette.point[order]].astype(np.int8),
            self.silhouette.point[order],
        )
        self._tier_memo: dict[tuple[bytes, bool], np.ndarray] = {}
        self._prepare_parts()
        pairs = fp.overlap[fp.overlap[:, 2] >= IN_LINE_OVERLAP]
        #: Points in line: ``in_line_far[k]`` is hidden most by a token on ``in_line_near[k]``.
        self.in_line_far = pairs[:, 0].astype(np.int64)
        self.in_line_near = pairs[:, 1].astype(np.int64)
        #: The same pairs in both orders (for questions that do not care which is nearer).
        self.in_line_a = np.concatenate([self.in_line_far, self.in_line_near])
        self.in_line_b = np.concatenate([self.in_line_near, self.in_line_far])

    def _prepare_parts(self) -> None:
        """Parts of each top disc (``top_part``, per top sample): ``SURFACE`` (inside the rim
        and clear of the printed lines of the plates above by a pixel: blur and
        anti-aliasing spread a line onto its neighbours, and one such sample carries a texture
        correlation on its own), ``RIM`` (its rim or beside a line), ``BEHIND_LINE``. And the
        token's ``SIDE``: its core samples off the top disc (the wall the camera sees below
        it), clear of the lines as the surface is. ``part_samples`` are the gathered pixels of
        the surfaces, rims, lines and sides, ``part_key`` each one's ``4 * point + part``."""
        fp, positions = self.footprints, self.positions
        width, height = fp.size
        lines = fp.line_tier.astype(np.int16).reshape(height, width)
        near_line = cv2.dilate(lines, np.ones((3, 3), np.uint8)).reshape(-1)
        behind = fp.line_tier[positions[self.top.index]] > self.top_tier
        surface = self.top_inside & (near_line[positions[self.top.index]] <= self.top_tier)
        self.top_part = np.where(behind, BEHIND_LINE, np.where(surface, SURFACE, RIM))
        n_local = len(positions)
        on_top = np.isin(
            self.core.point * n_local + self.core.index,
            self.top.point * n_local + self.top.index,
        )
        side = ~on_top & (near_line[positions[self.core.index]] <= self.core_tier)
        self.part_samples = np.concatenate([self.top.index, self.core.index[side]])
        self.part_key = np.concatenate(
            [4 * self.top.point + self.top_part, 4 * self.core.point[side] + SIDE]
        )

    def nearest_tier(self, points: np.ndarray, *, farthest: bool = False) -> np.ndarray:
        """Per gathered pixel, the highest tier of the given points' silhouettes there (-1:
        none); with ``farthest``, the lowest (4: none). Read-only: one frame asks several
        times for the same points, and a stream for the same points frame after frame, so the
        last few answers are kept."""
        key = (points.tobytes(), farthest)
        memo = self._tier_memo
        if key not in memo:
            if len(memo) >= TIER_MEMO:
                del memo[next(iter(memo))]
            out = self._paint(points, self._by_tier[3], 4 if farthest else -1, farthest=farthest)
            out.setflags(write=False)
            memo[key] = out
        return memo[key]

    def nearest_owner(self, points: np.ndarray) -> np.ndarray:
        """Per gathered pixel, which of the given points' silhouettes is the nearest there
        (-1: none)."""
        return self._paint(points, self._by_tier[4], -1)

    def _paint(
        self, points: np.ndarray, values: np.ndarray, fill: int, *, farthest: bool = False
    ) -> np.ndarray:
        """Per gathered pixel, ``values`` (one per silhouette pixel in tier order) of the
        nearest (or ``farthest``) of the ``points``' (a mask) silhouettes there, ``fill``
        where none is. Silhouette pixels are stored ordered by tier, so the last write is the
        nearest token (the first, written last in reverse, the farthest)."""
        index, point_order, count, _, _ = self._by_tier
        chosen = np.repeat(points[point_order], count)
        out = np.full(len(self.positions), fill, values.dtype)
        if farthest:
            out[index[chosen][::-1]] = values[chosen][::-1]
        else:
            out[index[chosen]] = values[chosen]
        return out

    def covered(self, points: np.ndarray) -> np.ndarray:
        """Per gathered pixel: does a token on one of ``points`` (a mask) cover it?"""
        return self.nearest_tier(points) >= 0

    def cover(self, points: np.ndarray) -> Cover:
        """Which of the ``points``' (a mask) silhouettes cover each gathered pixel."""
        chosen = spread(points, self.silhouette.count)
        return Cover.of(
            self.silhouette.index[chosen], self.silhouette.point[chosen], len(self.positions)
        )

    def share_on(self, mask: np.ndarray, *, core: bool = False) -> np.ndarray:
        """Per point: the share of its silhouette's pixels (or its core's) inside ``mask``
        (per gathered pixel)."""
        pixels = self.core if core else self.silhouette
        inside = np.bincount(pixels.point, weights=mask[pixels.index], minlength=N_POINTS)
        return inside / np.maximum(pixels.count, 1)

    def in_line_with(self, points: np.ndarray) -> np.ndarray:
        """Which points lie in line with one of ``points`` (a mask): either one's token would
        hide most of the other's top."""
        return np.bincount(self.in_line_a, weights=points[self.in_line_b], minlength=N_POINTS) > 0

    def fit_to(self, changed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """How many of each point's core pixels ``changed`` (a mask per gathered pixel)
        marks, and how well a token at each point explains it: its core must be filled and
        the ring around it must not be (a point seen *inside* a bigger, nearer token's image
        has its ring filled too, which is what tells the two apart)."""
        marked = changed.astype(np.int64)
        core = self.core.tally(marked, 2)[:, 1]
        ring = self.ring.tally(marked, 2)[:, 1]
        fit = core / np.maximum(self.core.count, 1) - RING_WEIGHT * ring / np.maximum(
            self.ring.count, 1
        )
        return core, fit
