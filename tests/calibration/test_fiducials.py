"""ArUco corner stickers: drawn by the renderer, found again, and enough to fit the camera."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from calibration.fiducials import (
    clicks_from_markers,
    detect_markers,
    fit_from_markers,
    marker_corners_mm,
    marker_id,
)
from calibration.fit import ClicksError
from calibration.spec import CORNERS
from tests.calibration.landmarks import SPEC
from vision.render import random_scene, render_timevectors


def test_marker_ids_follow_the_documented_layout() -> None:
    assert marker_id(0, "NW") == 0 and marker_id(1, "NE") == 5 and marker_id(3, "SW") == 15
    with pytest.raises(ValueError):
        marker_id(4, "NW")
    with pytest.raises(ValueError):
        marker_id(0, "N")


def test_marker_inner_corner_is_the_landmark_and_the_sticker_fits_on_the_plate() -> None:
    for tier in range(4):
        for index, corner in enumerate(CORNERS):
            sticker, square = marker_corners_mm(SPEC, tier, index)
            landmark = np.array(SPEC.landmarks(tier)[corner])
            assert np.min(np.linalg.norm(square - landmark, axis=1)) < 1e-9
            assert np.abs(sticker[:, :2]).max() <= SPEC.plate_size / 2
            assert (sticker[:, 2] == landmark[2]).all()


@pytest.mark.parametrize("seed", [2, 7])
def test_rendered_markers_are_found_and_fit_the_camera(seed: int) -> None:
    camera, style, colours = random_scene(seed)
    style = dataclasses.replace(style, aruco=True)
    frame = render_timevectors(camera, SPEC, {}, colours, scene=style, seed=seed).image_bgr
    markers = detect_markers(frame)
    assert len(markers) >= 10
    clicks = clicks_from_markers(markers)
    for tier_letter, corners in clicks.items():
        tier = "PQRS".index(tier_letter)
        for corner, uv in corners.items():
            truth = camera.project(np.array([SPEC.landmarks(tier)[corner]]))[0]
            assert np.linalg.norm(np.array(uv) - truth) < 5.0
    fit = fit_from_markers(markers, SPEC, camera.image_size)
    centres = SPEC.point_centres()
    assert np.linalg.norm(fit.camera.project(centres) - camera.project(centres), axis=1).max() < 2.0


def test_no_markers_no_fit() -> None:
    camera, style, colours = random_scene(3, size=(640, 480))
    frame = render_timevectors(camera, SPEC, {}, colours, scene=style, seed=3).image_bgr
    assert detect_markers(frame) == {}
    with pytest.raises(ClicksError, match="found 0 corner marker"):
        fit_from_markers({}, SPEC, camera.image_size)


def test_markers_on_one_tier_are_not_enough() -> None:
    camera, _, _ = random_scene(1)
    markers = {
        marker_id(2, c): camera.project(marker_corners_mm(SPEC, 2, i)[1])
        for i, c in enumerate(CORNERS)
    }
    with pytest.raises(ClicksError, match="on 1 tier"):
        fit_from_markers(markers, SPEC, camera.image_size)
