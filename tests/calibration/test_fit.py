"""Camera fitting from landmark clicks: accuracy with exact and noisy clicks, every bad input."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from calibration.camera import CameraModel
from calibration.fit import ClicksError, fit_camera, load_clicks, parse_clicks
from tests.calibration.landmarks import SPEC, true_clicks
from vision.render import random_scene

SIZE = (1280, 960)


def _point_error(fitted: CameraModel, truth: CameraModel) -> np.ndarray:
    centres = SPEC.point_centres()
    return np.linalg.norm(fitted.project(centres) - truth.project(centres), axis=1)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000))
@example(seed=1221)  # two landmarks of tier R seen along the edge of tier S's plate
def test_exact_clicks_recover_the_camera(seed: int) -> None:
    camera, _, _ = random_scene(seed, size=SIZE)
    result = fit_camera(true_clicks(camera), SPEC, SIZE)
    assert result.rms_px < 0.05
    assert _point_error(result.camera, camera).max() < 0.2
    assert result.camera.K[0, 0] == pytest.approx(camera.K[0, 0], rel=1e-3)


@pytest.mark.parametrize("seed", range(6))
def test_noisy_clicks_give_point_centres_within_a_few_pixels(seed: int) -> None:
    camera, _, _ = random_scene(seed, size=SIZE)
    result = fit_camera(true_clicks(camera, noise_px=1.5, seed=seed), SPEC, SIZE)
    assert 0.5 < result.rms_px < 4.0  # the noise shows in the reported error
    assert set(result.per_landmark_px) == {
        f"{t}.{c}" for t in "PQRS" for c in ("NW", "NE", "SE", "SW")
    }
    assert _point_error(result.camera, camera).max() < 4.0


def test_distortion_can_be_fitted() -> None:
    camera, _, _ = random_scene(5, size=SIZE)
    distorted = CameraModel(
        K=camera.K, dist=[-0.08, 0, 0, 0, 0], rvec=camera.rvec, tvec=camera.tvec, image_size=SIZE
    )
    plain = fit_camera(true_clicks(distorted), SPEC, SIZE, max_rms_px=50)
    with_k1 = fit_camera(true_clicks(distorted), SPEC, SIZE, fit_distortion=True)
    assert with_k1.rms_px < 0.5 < plain.rms_px
    assert with_k1.camera.dist[0] == pytest.approx(-0.08, abs=0.02)


def _good() -> dict:
    camera, _, _ = random_scene(1, size=SIZE)
    return true_clicks(camera)


def _swap(clicks: dict, tier: str, a: str, b: str) -> dict:
    bad = copy.deepcopy(clicks)
    bad[tier][a], bad[tier][b] = bad[tier][b], bad[tier][a]
    return bad


def _rotate(clicks: dict, tier: str) -> dict:
    bad = copy.deepcopy(clicks)
    nw, ne, se, sw = (bad[tier][c] for c in ("NW", "NE", "SE", "SW"))
    bad[tier].update(NW=ne, NE=se, SE=sw, SW=nw)
    return bad


def _without(clicks: dict, tier: str) -> dict:
    bad = copy.deepcopy(clicks)
    del bad[tier]
    return bad


def _twice(clicks: dict) -> dict:
    bad = copy.deepcopy(clicks)
    bad["R"] = copy.deepcopy(bad["Q"])
    return bad


def _off_image(clicks: dict) -> dict:
    bad = copy.deepcopy(clicks)
    bad["S"]["NE"] = [1400.0, 20.0]
    return bad


def _shifted(clicks: dict) -> dict:
    bad = copy.deepcopy(clicks)
    bad["Q"]["SE"] = [bad["Q"]["SE"][0] + 60, bad["Q"]["SE"][1] - 40]
    return bad


def _reversed_tiers(clicks: dict) -> dict:
    return {"P": clicks["S"], "Q": clicks["R"], "R": clicks["Q"], "S": clicks["P"]}


@pytest.mark.parametrize(
    "make_bad, message",
    [
        (lambda c: _without(c, "R"), "tier R is missing"),
        (_twice, "tiers Q and R have the same corners"),
        (lambda c: _swap(c, "P", "NW", "NE"), "tier P: the corners cross over"),
        (lambda c: _swap(c, "Q", "NE", "SE"), "tier Q: the corners cross over"),
        (lambda c: _swap(c, "R", "NW", "SE"), "tier R: corners go anticlockwise"),
        (
            lambda c: _swap(_swap(c, "P", "NW", "NE"), "P", "SE", "SW"),
            "tier P: corners go anticlockwise",
        ),
        (lambda c: _rotate(c, "S"), "tier S: its corners are rotated"),
        (_off_image, r"S.NE \(1400.0, 20.0\) is off the 1280x960 image"),
        (_shifted, "reprojection error .* too large .* worst: Q.SE"),
        (_reversed_tiers, "too large|below the top tier"),
    ],
)
def test_bad_clicks_are_refused_with_the_reason(make_bad, message: str) -> None:
    with pytest.raises(ClicksError, match=message):
        fit_camera(make_bad(_good()), SPEC, SIZE)


@pytest.mark.parametrize(
    "data, message",
    [
        ([1, 2], "clicks must be an object"),
        ({"P": {}, "Q": {}, "R": {}, "S": {}, "T": {}}, "unknown tier"),
        ({"P": [1, 2]}, "tier P must map"),
        ({"P": {"NW": [1, 2], "NE": [1, 2], "SE": [1, 2]}}, "tier P is missing corner SW"),
        (
            {"P": {"NW": [1, 2], "NE": [1, 2], "SE": [1, 2], "SW": [1, 2], "C": [0, 0]}},
            "unknown corner",
        ),
        (
            {"P": {"NW": [1, "x"], "NE": [1, 2], "SE": [1, 2], "SW": [1, 2]}},
            r"P.NW must be two finite numbers",
        ),
        ({"P": {"NW": [1, float("nan")], "NE": [1, 2], "SE": [1, 2], "SW": [1, 2]}}, "finite"),
        ({"P": {"NW": [1, 2, 3], "NE": [1, 2], "SE": [1, 2], "SW": [1, 2]}}, "two finite numbers"),
    ],
)
def test_malformed_clicks_are_refused(data: object, message: str) -> None:
    with pytest.raises(ClicksError, match=message):
        parse_clicks(data)


def test_clicks_file_round_trip_and_errors(tmp_path) -> None:
    good = _good()
    path = tmp_path / "clicks.json"
    path.write_text(json.dumps(good))
    assert load_clicks(path)["Q"]["SE"] == tuple(good["Q"]["SE"])
    path.write_text("{not json")
    with pytest.raises(ClicksError, match="not valid JSON"):
        load_clicks(path)
    with pytest.raises(ClicksError, match="cannot read"):
        load_clicks(tmp_path / "missing.json")


@pytest.mark.parametrize("seed", [1, 4])
def test_printed_grid_refines_a_noisy_click_fit(seed: int) -> None:
    from calibration.refine import refine_with_markings
    from vision.render import render_timevectors

    camera, style, colours = random_scene(seed, size=(960, 720))
    empty = render_timevectors(camera, SPEC, {}, colours, scene=style, seed=seed).image_bgr
    clicked = fit_camera(true_clicks(camera, noise_px=2.5, seed=seed), SPEC, camera.image_size)
    refined = refine_with_markings(clicked, empty)
    before, after = _point_error(clicked.camera, camera), _point_error(refined.camera, camera)
    assert len(refined.per_landmark_px) >= 100
    assert after.max() < 1.0 and after.max() < 0.7 * before.max()


def test_refinement_keeps_the_fit_when_there_is_no_grid() -> None:
    from calibration.refine import refine_with_markings

    camera, _, _ = random_scene(2, size=(960, 720))
    clicked = fit_camera(true_clicks(camera, noise_px=1.0), SPEC, camera.image_size)
    flat = np.full((720, 960, 3), 128, np.uint8)
    assert refine_with_markings(clicked, flat) is clicked


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), tier=st.sampled_from("PQRS"), turns=st.integers(1, 3))
def test_any_rotation_of_one_tier_is_refused(seed: int, tier: str, turns: int) -> None:
    camera, _, _ = random_scene(seed, size=SIZE)
    clicks = true_clicks(camera)
    corners = ("NW", "NE", "SE", "SW")
    values = [clicks[tier][c] for c in corners]
    clicks[tier] = {c: values[(i + turns) % 4] for i, c in enumerate(corners)}
    with pytest.raises(ClicksError, match=f"tier {tier}: its corners are rotated"):
        fit_camera(clicks, SPEC, SIZE)
