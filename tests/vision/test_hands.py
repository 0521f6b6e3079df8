"""Hand blobs on the sampling grid and motion between frames (synthetic masks)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.hands import HandGrid, MotionDetector


def zone(height: int = 120, width: int = 160) -> np.ndarray:
    mask = np.zeros((height, width), bool)
    mask[20:100, 30:130] = True
    return mask


def grid_flags(grid: HandGrid, image_mask: np.ndarray) -> np.ndarray:
    return image_mask.ravel()[grid.flat]


def test_grid_covers_the_zone_within_the_sample_budget():
    grid = HandGrid.over(zone(), max_samples=500)
    assert len(grid.flat) <= 600
    assert grid.on_board.all()  # the zone is its own bounding box here
    assert grid.shape[0] * grid.shape[1] == len(grid.flat)


def test_big_blob_is_a_hand_small_one_is_not():
    grid = HandGrid.over(zone(), max_samples=2000)
    big = np.zeros((120, 160), bool)
    big[30:70, 40:90] = True  # 2000 px
    small = np.zeros((120, 160), bool)
    small[30:36, 40:46] = True  # 36 px
    assert grid.has_blob(grid_flags(grid, big), min_area_px=400)
    assert not grid.has_blob(grid_flags(grid, small), min_area_px=400)


def test_scattered_noise_is_not_a_hand():
    grid = HandGrid.over(zone(), max_samples=8000)
    rng = np.random.default_rng(0)
    noise = rng.random((120, 160)) < 0.08
    assert not grid.has_blob(grid_flags(grid, noise), min_area_px=300)


def test_changes_outside_the_zone_do_not_count():
    mask = zone()
    grid = HandGrid.over(np.pad(mask[20:100, 30:130], ((20, 20), (30, 30))), max_samples=8000)
    outside = np.zeros((120, 160), bool)
    outside[0:20, :] = True
    assert grid.changed_fraction(grid_flags(grid, outside)) == 0.0
    assert not grid.has_blob(grid_flags(grid, outside), min_area_px=100)


def test_motion_detector():
    grid = HandGrid.over(zone(), max_samples=2000)
    motion = MotionDetector(grid, min_area_px=200)
    still = np.full(len(grid.flat), 100.0)
    assert motion.update(still) is False  # nothing to compare with yet
    assert motion.update(still + 5) is False  # noise-sized change
    moved = still.copy()
    moved[: len(moved) // 3] += 80
    assert motion.update(moved) is True
    motion.reset()
    assert motion.update(still) is False


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 100), st.integers(0, 140), st.integers(4, 60), st.integers(4, 60))
def test_property_blob_verdict_follows_area(y, x, h, w):
    """A solid rectangle inside the zone is a hand when it is clearly bigger than the limit,
    and never when it is clearly smaller."""
    grid = HandGrid.over(np.ones((120, 160), bool), max_samples=120 * 160)  # step 1: exact areas
    mask = np.zeros((120, 160), bool)
    mask[y:y + h, x:x + w] = True
    area = int(mask.sum())
    assert grid.has_blob(grid_flags(grid, mask), min_area_px=0.75 * area)
    assert not grid.has_blob(grid_flags(grid, mask), min_area_px=area + 1)
