"""The two ring colours: learned in order of appearance, kept apart when only saturation differs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.colours import features
from calibration.gryb_colours import RingColourModel, RingPaletteError, ring_distance

WHITE, PINK, BLACK = (250, 250, 246), (230, 100, 170), (24, 24, 26)


def _samples(rgb: tuple[int, int, int], n: int, seed: int = 0) -> np.ndarray:
    """Mean colours of ``n`` rings as the observer measures them (shading differs, little noise)."""
    rng = np.random.default_rng(seed)
    bgr = np.array(rgb[::-1], np.float32) * rng.uniform(0.85, 1.0, (n, 1)) + rng.normal(
        0, 0.5, (n, 3)
    )
    return features(np.clip(bgr, 0, 255))


def test_white_and_pink_are_two_colours_numbered_as_first_seen() -> None:
    model = RingColourModel()
    assert model.learn(np.concatenate([_samples(PINK, 5), _samples(WHITE, 7, 1)])) == [0, 1]
    colour, _ = model.nearest(np.concatenate([_samples(WHITE, 3, 2), _samples(PINK, 3, 3)]))
    assert list(colour) == [1, 1, 1, 0, 0, 0]


def test_one_colour_first_then_the_other() -> None:
    model = RingColourModel()
    assert model.learn(_samples(BLACK, 4)) == [0]
    assert model.learn(_samples(BLACK, 2, 5)) == []  # known: follows, nothing new
    assert model.learn(np.concatenate([_samples(BLACK, 2, 6), _samples(WHITE, 3, 7)])) == [1]
    assert model.learn(_samples(PINK, 3, 8)) == []  # both slots are taken
    assert model.n_colours == 2


def test_palette_fixes_the_numbers() -> None:
    model = RingColourModel(palette=[WHITE, PINK])
    assert sorted(model.learn(np.concatenate([_samples(PINK, 4), _samples(WHITE, 4, 1)]))) == [0, 1]
    colour, _ = model.nearest(_samples(PINK, 2, 4))
    assert list(colour) == [1, 1]


def test_palette_with_one_colour_seen_takes_the_nearest_slot() -> None:
    model = RingColourModel(palette=[BLACK, PINK])
    assert model.learn(_samples(PINK, 4)) == [1]


@pytest.mark.parametrize("palette", [[WHITE], [WHITE, WHITE], [WHITE, PINK, BLACK], [[1, 2]]])
def test_bad_palettes_are_refused(palette: list) -> None:
    with pytest.raises(RingPaletteError):
        RingColourModel(palette=palette)


def test_nothing_learned_means_no_colour() -> None:
    colour, distance = RingColourModel().nearest(_samples(WHITE, 2))
    assert list(colour) == [-1, -1] and np.all(np.isinf(distance))
    assert RingColourModel().learn(np.zeros((0, 3))) == []


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-20, 20), min_size=3, max_size=3),
    st.lists(st.floats(-20, 20), min_size=3, max_size=3),
)
def test_distance_is_a_symmetric_metric(a: list[float], b: list[float]) -> None:
    d_ab = ring_distance(np.array(a), np.array(b))[0, 0]
    assert d_ab == pytest.approx(ring_distance(np.array(b), np.array(a))[0, 0], abs=1e-4)
    assert d_ab >= 0 and ring_distance(np.array(a), np.array(a))[0, 0] == pytest.approx(0, abs=1e-5)
