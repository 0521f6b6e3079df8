"""Hands (or anything that is not board or token) over the board, and motion between frames.

The observer samples a regular grid of pixels over the board's zone (the board
outline grown by a hand's reach). A hand is a connected blob on that grid of
pixels the tokens do not explain, larger than a couple of tokens; motion is
enough grid pixels whose grey level jumped since the previous frame. Either
one means "wait": no move is ever read while a hand is in view.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

MOTION_LEVEL = 30.0  # grey-level jump between frames that counts as motion
_OPEN = np.ones((2, 2), np.uint8)


@dataclass(frozen=True)
class HandGrid:
    """Sample pixels on a regular grid over the bounding box of ``zone`` (a working-image mask).

    ``flat`` are flat indices into the working image (row-major over the grid),
    ``on_board`` says which of them lie in the zone, ``shape`` is the grid's
    ``(rows, columns)`` and ``step`` its spacing in pixels.
    """

    flat: np.ndarray
    on_board: np.ndarray
    shape: tuple[int, int]
    step: int

    @classmethod
    def over(cls, zone: np.ndarray, max_samples: int = 6000) -> HandGrid:
        """Grid over the zone's bounding box with at most about ``max_samples`` points."""
        height, width = zone.shape
        ys, xs = np.nonzero(zone)
        if len(ys):
            x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
        else:
            x0, x1, y0, y1 = 0, width, 0, height
        step = max(1, int(np.ceil(np.sqrt((x1 - x0) * (y1 - y0) / max_samples))))
        gy, gx = np.mgrid[y0:y1:step, x0:x1:step]
        flat = (gy * width + gx).ravel()
        return cls(flat=flat, on_board=zone.ravel()[flat], shape=gy.shape, step=step)

    @property
    def cell_area(self) -> int:
        """Working-image pixels one grid sample stands for."""
        return self.step**2

    def changed_fraction(self, changed: np.ndarray) -> float:
        """Share of the zone's samples flagged in ``changed`` (one bool per grid sample)."""
        return float(np.count_nonzero(changed & self.on_board)) / max(int(self.on_board.sum()), 1)

    def has_blob(self, changed: np.ndarray, min_area_px: float) -> bool:
        """Is there a connected blob of flagged samples in the zone of at least ``min_area_px``
        working pixels? Isolated samples (noise) are opened away first."""
        mask = (changed & self.on_board).reshape(self.shape)
        min_cells = min_area_px / self.cell_area
        if np.count_nonzero(mask) < min_cells:
            return False
        opened = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, _OPEN)
        count, _, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
        return bool(count > 1 and stats[1:, cv2.CC_STAT_AREA].max() >= min_cells)


class MotionDetector:
    """Remembers the grid's grey levels of the previous frame and reports motion in the zone."""

    def __init__(self, grid: HandGrid, min_area_px: float, level: float = MOTION_LEVEL) -> None:
        self.grid = grid
        self.min_area_px = float(min_area_px)
        self.level = float(level)
        self._previous: np.ndarray | None = None

    def reset(self) -> None:
        """Forget the previous frame (after a gap or an unusable frame)."""
        self._previous = None

    def update(self, grey: np.ndarray) -> bool:
        """Take this frame's grey level per grid sample; True if enough of the zone moved."""
        previous, self._previous = self._previous, np.asarray(grey, np.float32)
        return previous is not None and self.differs(self._previous, previous)

    def differs(self, grey: np.ndarray, other: np.ndarray) -> bool:
        """Do two frames' grid grey levels differ over more than the motion area?"""
        moved = (np.abs(grey - other) > self.level) & self.grid.on_board
        return bool(np.count_nonzero(moved) * self.grid.cell_area > self.min_area_px)
