"""Drift: a still camera is steady, a small bump is re-fitted, a large one needs recalibration."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.calibfile import Calibration, CalibrationError
from calibration.camera import CameraModel
from calibration.drift import DriftDetector, DriftStatus
from calibration.markings import grid_crossings
from tests.calibration.landmarks import SPEC
from vision.render import random_scene, render_timevectors


def _bumped(camera: CameraModel, degrees: float, shift_mm=(0.0, 0.0, 0.0)) -> CameraModel:
    """The camera turned about its own centre (a tripod head knocked) and shifted a little."""
    return camera.bumped(degrees, (1.0, 2.0, 0.5), tuple(-v for v in shift_mm))


@pytest.fixture(scope="module", params=[0, 3])
def scene(request):
    seed = request.param
    camera, style, colours = random_scene(seed, size=(960, 720))
    reference = render_timevectors(camera, SPEC, {}, colours, scene=style, seed=seed).image_bgr
    rng = np.random.default_rng(seed)
    tokens = {int(p): int(rng.integers(3)) for p in rng.choice(256, 25, replace=False)}
    return camera, style, colours, tokens, DriftDetector(camera, SPEC, reference)


def _frame(scene, camera: CameraModel) -> np.ndarray:
    _, style, colours, tokens, _ = scene
    return render_timevectors(camera, SPEC, tokens, colours, scene=style, seed=99).image_bgr


def test_still_camera_is_steady_even_with_tokens_on_the_board(scene) -> None:
    camera, *_, detector = scene
    result = detector.check(_frame(scene, camera))
    assert result.status is DriftStatus.STEADY and result.ok and result.refit is None
    assert result.shift_px < 2.0


@pytest.mark.parametrize("degrees, shift", [(0.6, (0, 0, 0)), (2.5, (0, 0, 0)), (1.0, (5, -4, 3))])
def test_small_bump_is_detected_and_refitted(scene, degrees: float, shift) -> None:
    camera, *_, detector = scene
    moved = _bumped(camera, degrees, shift)
    result = detector.check(_frame(scene, moved))
    centres = SPEC.point_centres()
    true_shift = np.median(np.linalg.norm(moved.project(centres) - camera.project(centres), axis=1))
    assert result.status is DriftStatus.REFIT and not result.ok and not result.needs_recalibration
    assert result.shift_px == pytest.approx(true_shift, rel=0.2)
    error = np.linalg.norm(result.refit.project(centres) - moved.project(centres), axis=1)
    assert np.median(error) < 1.0 and error.max() < 2.5


def test_large_move_asks_for_recalibration(scene) -> None:
    camera, *_, detector = scene
    result = detector.check(_frame(scene, _bumped(camera, 12.0)))
    assert result.status is DriftStatus.LOST and result.needs_recalibration and result.refit is None


def test_a_different_picture_is_not_the_board(scene) -> None:
    *_, detector = scene
    noise = np.random.default_rng(1).integers(0, 255, (720, 960, 3), dtype=np.uint8)
    assert detector.check(noise).status is DriftStatus.LOST


def test_grid_crossings_lie_on_the_printed_lines() -> None:
    crossings = grid_crossings(SPEC)
    assert crossings.shape == (400, 3)
    assert set(np.unique(crossings[:, 2])) == {0.0, 105.0, 210.0, 315.0}
    assert np.abs(crossings[:, :2]).max() == SPEC.marking_half_size


def test_calibration_without_reference_cannot_check_drift() -> None:
    camera, _, _ = random_scene(0)
    calibration = Calibration(board="timevectors", spec=SPEC, camera=camera, rms_px=0.0)
    with pytest.raises(CalibrationError, match="no reference image"):
        DriftDetector.for_calibration(calibration)
    reference = np.zeros((960, 1280, 3), np.uint8)
    assert DriftDetector.for_calibration(calibration.with_reference(reference)).camera is camera
