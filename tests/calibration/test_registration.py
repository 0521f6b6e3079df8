"""Registering a moved reference to the frame a bump was re-fitted from (pure image logic)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.registration import registered_to


def _grid(offset: int = 0, size: tuple[int, int] = (60, 80)) -> np.ndarray:
    """A pale board with dark printed lines every 10 pixels, moved ``offset`` pixels right."""
    image = np.full((*size, 3), 190, np.uint8)
    image[:, (np.arange(offset, size[1], 10))] = (30, 40, 50)
    image[::10] = (30, 40, 50)
    return image


def _nothing_kept(image: np.ndarray) -> np.ndarray:
    return np.zeros(image.shape[:2], bool)


def test_empty_board_a_pixel_off_is_moved_where_the_frame_shows_it():
    reference, frame = _grid(0), _grid(1)
    out = registered_to(reference, frame, 1.0, _nothing_kept(reference))
    assert np.array_equal(out, frame)


def test_lines_further_off_than_the_misfit_are_not_taken():
    reference, frame = _grid(0), _grid(3)
    out = registered_to(reference, frame, 1.0, _nothing_kept(reference))
    column = 3 + 20  # a frame line three pixels from the reference's: no dark value near
    assert (out[5, column] > 150).all()


def test_a_token_nobody_knew_of_stays_a_change():
    reference = _grid(0)
    frame = _grid(1)
    frame[20:36, 30:46] = (200, 40, 40)  # a blue token, a colour the board has nowhere
    out = registered_to(reference, frame, 1.0, _nothing_kept(reference))
    token = out[22:34, 32:44].astype(int)
    assert (np.abs(token - [200, 40, 40]).max(axis=2) > 100).all()  # still unlike the token
    assert np.array_equal(out[45:, :], frame[45:, :])  # and the board elsewhere registered


def test_the_kept_pixels_are_left_as_they_were():
    reference, frame = _grid(0), _grid(1)
    keep = _nothing_kept(reference)
    keep[10:30, 10:40] = True
    out = registered_to(reference, frame, 1.0, keep)
    assert np.array_equal(out[keep], reference[keep])
    assert np.array_equal(out[~keep], frame[~keep])


def test_under_half_a_pixel_nothing_is_done():
    reference = _grid(0)
    assert registered_to(reference, _grid(1), 0.4, _nothing_kept(reference)) is reference


def test_a_frame_of_another_size_is_shrunk_to_the_reference():
    reference = _grid(0, (60, 80))
    frame = np.repeat(np.repeat(_grid(1, (60, 80)), 2, axis=0), 2, axis=1)
    assert np.array_equal(registered_to(reference, frame, 1.0, _nothing_kept(reference)), _grid(1))


def test_a_mask_of_another_size_is_refused():
    with pytest.raises(ValueError, match="the mask is 10x10, the reference 80x60"):
        registered_to(_grid(0), _grid(1), 1.0, np.zeros((10, 10), bool))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), misfit=st.floats(0.5, 3.0))
def test_each_pixel_is_the_nearest_of_the_reference_pixels_about_it(seed, misfit):
    rng = np.random.default_rng(seed)
    reference = rng.integers(0, 256, (20, 24, 3), dtype=np.uint8)
    frame = rng.integers(0, 256, (20, 24, 3), dtype=np.uint8)
    out = registered_to(reference, frame, misfit, _nothing_kept(reference))
    r = int(np.floor(misfit + 0.5))
    for y, x in [(0, 0), (7, 11), (19, 23), (10, 3)]:
        square = reference[max(0, y - r) : y + r + 1, max(0, x - r) : x + r + 1].reshape(-1, 3)
        assert (square == out[y, x]).all(axis=1).any()  # one of the reference's own, near by
        own = ((out[y, x].astype(int) - frame[y, x]) ** 2).sum()
        # No nearer than the pixel itself and its four neighbours (always within the disc).
        for dy, dx in [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)]:
            yy, xx = min(max(y + dy, 0), 19), min(max(x + dx, 0), 23)
            assert own <= ((reference[yy, xx].astype(int) - frame[y, x]) ** 2).sum()
