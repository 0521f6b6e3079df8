"""The range a moved reference's details take near each pixel (``reference_envelope``)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.colours import features
from vision.observer import reference_envelope


def _lined(width: int = 40, height: int = 30, column: int = 20) -> np.ndarray:
    """A flat grey picture with one dark printed line, a pixel wide, down ``column``."""
    image = np.full((height, width, 3), 150.0, np.float32)
    image[:, column] = (40.0, 50.0, 60.0)
    return image


def test_under_half_a_pixel_there_is_no_envelope():
    assert reference_envelope(_lined(), np.arange(10), 0.49) is None
    assert reference_envelope(_lined(), np.arange(10), 0.0) is None


def test_a_line_a_pixel_away_is_within_a_pixels_misfit_and_not_three_away():
    image = _lined()
    flat = features(image).reshape(-1, 3)
    line, beside, far = (column + 10 * 40 for column in (20, 21, 23))  # (row 10)
    positions = np.array([line, beside, far])
    low, high = reference_envelope(image, positions, 1.0)
    for k in range(3):
        values = {flat[line, k], flat[far, k]}  # the line's value and the flat grey's
        assert {low[k][1], high[k][1]} == values  # beside the line: either
        assert low[k][2] == high[k][2] == flat[far, k]  # three pixels off: the grey alone
        assert {low[k][0], high[k][0]} == values


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), misfit=st.floats(0.5, 4.0))
def test_every_pixels_own_value_lies_within_its_envelope(seed, misfit):
    image = np.random.default_rng(seed).uniform(0, 255, (24, 32, 3)).astype(np.float32)
    positions = np.arange(24 * 32)
    low, high = reference_envelope(image, positions, misfit)
    own = features(image).reshape(-1, 3)
    for k in range(3):
        assert np.all(low[k] <= own[:, k]) and np.all(own[:, k] <= high[k])
    wider = reference_envelope(image, positions, misfit + 1.0)
    for k in range(3):  # a larger misfit never narrows it
        assert np.all(wider[0][k] <= low[k]) and np.all(high[k] <= wider[1][k])
