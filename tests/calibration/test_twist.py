"""Plates turned on the post: the board's geometry turns with them, and calibration finds them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.fit import ClicksError, check_fit, fit_camera, fit_correspondences
from calibration.markings import grid_crossings, grid_lines
from calibration.refine import refine_with_markings
from calibration.refraction import plates_crossed, through_plates
from calibration.spec import CORNERS, NO_TWIST, SpecError, spec_from_values, spec_values
from calibration.twist import carried, point_tiers
from rules.timevectors.points import POINTS, TIER_LETTERS, point_coords
from tests.calibration.landmarks import SPEC, true_clicks
from vision.render import random_scene, render_timevectors
from vision.render_scene import random_twist

SIZE = (1280, 960)
twists = st.tuples(*[st.floats(-4, 4, allow_nan=False)] * 3).map(lambda t: (0.0, *t))


def _seen_error(fitted_camera, fitted_spec, camera, built) -> np.ndarray:
    """Pixels between where a fit and the truth see every point centre (through the plates)."""
    seen = through_plates(fitted_camera, fitted_spec).project(fitted_spec.point_centres())
    truth = through_plates(camera, built).project(built.point_centres())
    return np.linalg.norm(seen - truth, axis=1)


# -- geometry ------------------------------------------------------------------------------
@given(twist=twists)
def test_a_turned_plate_keeps_its_points_distances_to_the_post_and_to_each_other(twist) -> None:
    built = SPEC.twisted(twist)
    for tier in range(4):
        on = [p for p in POINTS if point_coords(p)[2] == tier]
        design, turned = SPEC.point_centres()[on], built.point_centres()[on]
        assert np.allclose(np.linalg.norm(turned[:, :2], axis=1), np.linalg.norm(design[:, :2], axis=1))
        assert np.allclose(turned[:, 2], design[:, 2])
        gaps = lambda c: np.linalg.norm(c[:, None, :] - c[None, :, :], axis=2)  # noqa: E731
        assert np.allclose(gaps(turned), gaps(design))
        # the turn is the plate's: angle of every point moved by the tier's twist
        moved = np.degrees(np.arctan2(turned[:, 1], turned[:, 0]) - np.arctan2(design[:, 1], design[:, 0]))
        assert np.allclose((moved - twist[tier] + 180) % 360 - 180, 0, atol=1e-9)


@given(twist=twists)
def test_everything_printed_on_a_plate_turns_with_it(twist) -> None:
    built = SPEC.twisted(twist)
    for tier in range(4):
        turn = np.eye(1, 4, tier)[0] * twist[tier]
        for design, turned in (
            (np.vstack(grid_lines(SPEC, tier)), np.vstack(grid_lines(built, tier))),
            (np.array(list(SPEC.landmarks(tier).values())), np.array(list(built.landmarks(tier).values()))),
            (SPEC.plate_corners(tier, 5.0), built.plate_corners(tier, 5.0)),
        ):
            assert np.allclose(carried(design, np.full(len(design), tier), turn), turned)
        xy = built.point_centres()[:, :2]
        assert np.allclose(built.on_tier(tier, built.to_tier(tier, xy)), xy)
    assert np.allclose(
        grid_crossings(built), carried(grid_crossings(SPEC), point_tiers(grid_crossings(SPEC), SPEC), twist)
    )


def test_a_point_is_seen_through_a_turned_plate_where_its_ray_crosses_the_turned_square() -> None:
    eye = np.array([0.0, -900.0, 700.0])
    # Two points on P whose rays cross Q's height at (-100, -133) and (100, -133), just inside
    # the south edge of Q's square as designed. Q turned 5 degrees anticlockwise lowers the
    # west half of that edge (the west ray still crosses the plate) and raises the east half.
    points = np.array([[-100 / 0.85, 2 / 0.85, 0.0], [100 / 0.85, 2 / 0.85, 0.0]])
    assert plates_crossed(points, eye, SPEC).tolist() == [1, 1]
    assert plates_crossed(points, eye, SPEC.twisted((0.0, 5.0, 0.0, 0.0))).tolist() == [1, 0]


def test_plate_twists_are_validated() -> None:
    values = spec_values(SPEC.twisted((0.0, 1.5, -2.0, 0.25)))
    assert values["tier_twist_deg"] == [0.0, 1.5, -2.0, 0.25]
    assert spec_from_values(values).tier_twist_deg == (0.0, 1.5, -2.0, 0.25)
    assert spec_from_values({k: v for k, v in values.items() if k != "tier_twist_deg"}).tier_twist_deg == NO_TWIST
    for bad, message in (
        ([0, 1, 2], "must be 4 numbers"),
        ("0000", "must be 4 numbers"),
        ([0, 1, True, 2], "must be 4 numbers"),
        ([0, 1, float("nan"), 2], "is not a plate turned"),
        ([0, 45, 0, 0], "within 10 degrees"),
    ):
        with pytest.raises(SpecError, match=message):
            spec_from_values({**values, "tier_twist_deg": bad})
    with pytest.raises(SpecError):
        SPEC.twisted((0.0, 11.0, 0.0, 0.0))


def test_random_twists_turn_only_the_upper_plates_and_leave_the_scene_alone() -> None:
    built = random_twist(7, 3.0)
    assert built.tier_twist_deg[0] == 0.0 and all(abs(t) <= 3.0 for t in built.tier_twist_deg)
    assert len(set(built.tier_twist_deg[1:])) == 3
    assert random_twist(7, 0.0) == SPEC
    assert dataclasses.replace(built, tier_twist_deg=NO_TWIST) == SPEC


# -- fitting -------------------------------------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), twist=twists)
def test_exact_clicks_of_a_turned_board_recover_its_twists(seed: int, twist) -> None:
    camera, _, _ = random_scene(seed, size=SIZE)
    built = SPEC.twisted(twist)
    result = fit_camera(true_clicks(camera, built), SPEC, SIZE)
    assert result.rms_px < 0.05
    assert np.abs(np.subtract(result.spec.tier_twist_deg, twist)).max() < 0.02
    assert _seen_error(result.camera, result.spec, camera, built).max() < 0.2


def test_a_rigid_model_cannot_fit_a_turned_board_that_the_twists_fit() -> None:
    camera, _, _ = random_scene(6, size=SIZE)
    built = SPEC.twisted((0.0, 2.5, -2.0, 2.5))
    clicks = true_clicks(camera, built, noise_px=1.0, seed=6)
    result = fit_camera(clicks, SPEC, SIZE)
    assert result.rms_px < 2.0
    assert np.abs(np.subtract(result.spec.tier_twist_deg, built.tier_twist_deg)).max() < 0.5
    # The same clicks with the plates held straight: the error the fit refuses.
    landmarks = np.array([SPEC.landmarks(t)[c] for t in range(4) for c in CORNERS])
    pixels = np.array([clicks[t][c] for t in TIER_LETTERS for c in CORNERS])
    rigid, errors = fit_correspondences(landmarks, pixels, SIZE, spec=SPEC)
    assert np.sqrt(np.mean(errors**2)) > 5 * result.rms_px
    with pytest.raises(ClicksError, match="too large"):
        check_fit(rigid, errors, [str(i) for i in range(16)], SPEC, 8.0)


def test_noisy_clicks_of_an_aligned_board_leave_it_rigid() -> None:
    """Four clicks a tier cannot tell a turn within their own error: the fit keeps the
    plates straight rather than turn them with the noise."""
    rigid = 0
    for seed in range(8):
        camera, _, _ = random_scene(seed, size=SIZE)
        result = fit_camera(true_clicks(camera, noise_px=2.0, seed=seed), SPEC, SIZE)
        rigid += result.spec.tier_twist_deg == NO_TWIST
    assert rigid >= 7


@pytest.mark.parametrize("seed, twist", [(1, 2.5), (6, 2.0), (11, 3.0), (2, 0.0), (9, 0.0)])
def test_the_printed_grid_refines_the_twists_the_clicks_missed(seed: int, twist: float) -> None:
    """Noisy clicks: the refinement scans each plate's turn on its printed lines, and the
    board ends within a fraction of a pixel (at worst 2 px, a tenth of a token) everywhere,
    plates turned or not."""
    camera, style, colours = random_scene(seed, size=SIZE)
    built = random_twist(seed, twist)
    empty = render_timevectors(camera, built, {}, colours, scene=style, seed=seed).image_bgr
    clicked = fit_camera(true_clicks(camera, built, noise_px=2.5, seed=seed), SPEC, SIZE)
    refined = refine_with_markings(clicked, empty)
    assert refined is not clicked and len(refined.per_landmark_px) >= 100
    before = _seen_error(clicked.camera, clicked.spec, camera, built)
    after = _seen_error(refined.camera, refined.spec, camera, built)
    assert after.max() < 2.0 and np.median(after) < 0.5
    assert np.median(after) < 0.5 * np.median(before) and after.max() < before.max()


@pytest.mark.parametrize("seed", [1, 4])
def test_the_printed_grid_tells_a_barrel_lens_the_clicks_cannot(seed: int) -> None:
    """A lens with strong barrel distortion (k1 -0.35) and clicks fitted without it: points
    lie many pixels off; refined from the printed grid, the fit finds k1 and every point lies
    within a pixel."""
    camera, style, colours = random_scene(seed, size=SIZE)
    camera = dataclasses.replace(camera, dist=np.array([-0.35, 0.0, 0.0, 0.0, 0.0]))
    empty = render_timevectors(camera, SPEC, {}, colours, scene=style, seed=seed).image_bgr
    clicked = fit_camera(true_clicks(camera, noise_px=2.0, seed=seed), SPEC, SIZE, max_rms_px=20)
    refined = refine_with_markings(clicked, empty)
    assert clicked.camera.dist[0] == 0.0 and refined.camera.dist[0] == pytest.approx(-0.35, abs=0.02)
    assert _seen_error(clicked.camera, clicked.spec, camera, SPEC).max() > 3.0
    assert _seen_error(refined.camera, refined.spec, camera, SPEC).max() < 1.0
