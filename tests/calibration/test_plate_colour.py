"""The per-plate colour loss: correction and its estimate from the tokens of one frame."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.plate_colour import (
    FACTOR_STEP,
    corrected,
    estimate_factor,
    estimate_plate_loss,
    plates_above,
)


def _seen_through_plates(true_feats: np.ndarray, tiers: np.ndarray, factor: float) -> np.ndarray:
    seen = np.array(true_feats, np.float32)
    seen[:, :2] *= factor ** plates_above(tiers)[:, None]
    return seen


def test_top_tier_is_unchanged_and_lower_tiers_regain_their_chroma():
    feats = np.array([[4.0, -8.0, 14.0], [2.0, -4.0, 14.0]], np.float32)
    out = corrected(feats, np.array([3, 2]), 0.5)
    assert np.allclose(out[0], feats[0])
    assert np.allclose(out[1], [4.0, -8.0, 14.0])


@settings(max_examples=40, deadline=None)
@given(
    factor=st.floats(0.5, 0.95),
    seed=st.integers(0, 10_000),
)
def test_estimate_recovers_the_factor_from_three_sets_on_all_tiers(factor, seed):
    rng = np.random.default_rng(seed)
    hues = rng.uniform(0, 2 * np.pi) + np.array([0.0, 2.1, 4.2])
    sets = np.stack([12 * np.cos(hues), 12 * np.sin(hues), rng.uniform(12, 16, 3)], axis=1)
    colour = np.repeat(np.arange(3), 8)
    tiers = np.tile(np.arange(4), 6)
    true = sets[colour] + rng.normal(0, 0.2, (24, 3))
    estimate = estimate_factor(_seen_through_plates(true, tiers, factor), tiers)
    assert estimate is not None
    assert abs(estimate - factor) <= 2 * FACTOR_STEP


def test_navy_on_top_and_blue_below_are_told_apart_after_correction():
    navy, blue = np.array([-3.0, -14.5, 13.1]), np.array([-2.0, -23.0, 14.0])
    tiers = np.array([3, 3, 3, 0, 0, 0, 3, 3, 0, 0])
    true = np.array([navy] * 3 + [navy] * 3 + [blue] * 2 + [blue] * 2, np.float32)
    seen = _seen_through_plates(true, tiers, 0.75)
    assert np.abs(seen[6, 1] - seen[3, 1]) > np.abs(seen[6, 1] - seen[8, 1])  # raw: blue below looks navy
    estimate = estimate_factor(seen, tiers)
    fixed = corrected(seen, tiers, estimate)
    assert np.allclose(fixed, true, atol=1.0)


def test_too_few_tokens_or_one_tier_say_nothing():
    feats = np.ones((10, 3), np.float32)
    assert estimate_factor(feats[:3], np.array([0, 1, 2])) is None
    assert estimate_factor(feats, np.full(10, 2)) is None


def test_mismatched_lengths_are_refused():
    with pytest.raises(ValueError, match="tiers"):
        estimate_factor(np.ones((8, 3)), np.zeros(7, int))


@settings(max_examples=30, deadline=None)
@given(
    factor=st.floats(0.6, 0.95),
    step=st.floats(-0.5, 0.5),
    seed=st.integers(0, 10_000),
)
def test_estimate_recovers_the_brightness_step_of_hazy_or_dark_plates(factor, step, seed):
    """A grey set and a dark set differ only in brightness; plates that shift brightness
    would blur them together unless the step is found."""
    rng = np.random.default_rng(seed)
    sets = np.array([[10.0, 4.0, 16.0], [0.3, 0.2, 15.5], [0.2, 0.1, 12.0]])
    colour = np.repeat(np.arange(3), 8)
    tiers = np.tile(np.arange(4), 6)
    true = sets[colour] + rng.normal(0, 0.05, (24, 3))
    seen = _seen_through_plates(true, tiers, factor)
    seen[:, 2] += step * plates_above(tiers)
    loss = estimate_plate_loss(seen, tiers)
    assert loss is not None
    assert abs(loss[1] - step) <= 0.1
    assert np.allclose(corrected(seen, tiers, *loss)[:, 2], true[:, 2], atol=0.35)
