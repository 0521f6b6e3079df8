"""Refraction by the clear plates: where the camera sees a point below them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calibration.spec
from calibration.camera import CameraModel
from calibration.fit import fit_camera
from calibration.refraction import apparent_points, plates_crossed, through_plates
from calibration.spec import SpecError, load_spec, spec_from_values, spec_values
from tests.calibration.landmarks import true_clicks

SPEC = load_spec("timevectors")


def _traced_shift(eye: np.ndarray, point: np.ndarray, plates: int, spec) -> float:
    """How far beyond ``point`` (along the ground, away from the eye) the ray that really
    reaches it through ``plates`` whole plates seems to end: Snell's law solved exactly
    (bisection on the angle of the ray outside the plates)."""
    ground = float(np.linalg.norm(eye[:2] - point[:2]))
    rise = float(eye[2] - point[2])
    inside = plates * spec.plate_thickness

    def reach(angle: float) -> float:
        sin_in = np.sin(angle) / spec.refractive_index
        return (rise - inside) * np.tan(angle) + inside * sin_in / np.sqrt(1 - sin_in**2)

    low, high = 0.0, np.pi / 2 - 1e-9
    for _ in range(200):
        mid = 0.5 * (low + high)
        low, high = (mid, high) if reach(mid) < ground else (low, mid)
    return rise * np.tan(low) - ground


@settings(max_examples=60, deadline=None)
@given(
    x=st.floats(-100, 100),
    y=st.floats(-100, 100),
    tier=st.integers(0, 2),
    azimuth=st.floats(0, 2 * np.pi),
    elevation=st.floats(np.radians(35), np.radians(80)),
)
def test_the_shift_is_snells_law_to_two_thousandths_of_a_millimetre(x, y, tier, azimuth, elevation):
    point = np.array([x, y, SPEC.tier_spacing * tier + SPEC.token_height])
    eye = np.array([0.0, 0.0, 150.0]) + 900.0 * np.array(
        [
            np.cos(elevation) * np.sin(azimuth),
            -np.cos(elevation) * np.cos(azimuth),
            np.sin(elevation),
        ]
    )
    plates = int(plates_crossed(point[None], eye, SPEC)[0])
    seen = apparent_points(point, eye, SPEC)
    assert seen[2] == point[2]
    away = (point[:2] - eye[:2]) / np.linalg.norm(point[:2] - eye[:2])
    shift = seen[:2] - point[:2]
    assert np.linalg.norm(shift - np.dot(shift, away) * away) < 1e-9  # straight away from the eye
    assert np.dot(shift, away) == pytest.approx(_traced_shift(eye, point, plates, SPEC), abs=0.002)


def test_what_no_plate_covers_is_where_it_is():
    eye = np.array([0.0, -700.0, 700.0])
    on_top = np.array([[10.0, 20.0, 3 * SPEC.tier_spacing + SPEC.token_height]])
    on_a_plate = np.array([[10.0, 20.0, 3 * SPEC.tier_spacing]])  # its own plate is below it
    outside = np.array([[0.0, -SPEC.plate_size, 0.0]])  # in front of every plate
    for point in (on_top, on_a_plate, outside):
        assert np.array_equal(apparent_points(point, eye, SPEC), point)
    flat = dataclasses.replace(SPEC, refractive_index=1.0)
    below = np.array([[0.0, 0.0, SPEC.token_height]])
    assert np.array_equal(apparent_points(below, eye, flat), below)


def test_each_plate_in_front_shifts_a_point_further():
    camera = CameraModel.looking_at((0, 0, 150), 950, 70, 0, (640, 480))
    eye = camera.centre_mm()
    points = np.array([[0.0, 60.0, SPEC.tier_spacing * t + SPEC.token_height] for t in range(4)])
    crossed = plates_crossed(points, eye, SPEC)
    shift = np.linalg.norm(apparent_points(points, eye, SPEC) - points, axis=1)
    assert list(crossed) == [3, 2, 1, 0]
    assert shift[3] == 0 and shift[2] > 0.5 and shift[1] > shift[2] and shift[0] > shift[1]
    seen = through_plates(camera, SPEC)
    assert np.allclose(seen.project(points[3:]), camera.project(points[3:]))
    assert through_plates(seen, SPEC) is seen


def test_a_point_seen_along_a_plates_edge_counts_it_only_with_the_square_grown():
    eye = np.array([0.0, -500.0, 900.0])
    edge = SPEC.plate_size / 2
    point = np.array([[0.0, 0.0, SPEC.token_height]])
    # The line from the point to the eye crosses tier S's height at y = -edge - 0.5 mm:
    # just in front of that plate.
    height = 3 * SPEC.tier_spacing
    share = (height - point[0, 2]) / (eye[2] - point[0, 2])
    point[0, 1] = (-edge - 0.5 - share * eye[1]) / (1 - share)
    assert abs(point[0, 1]) < edge  # on tier P, below plates Q and R
    assert plates_crossed(point, eye, SPEC)[0] == 2
    assert plates_crossed(point, eye, SPEC, grow_mm=1.0)[0] == 3
    assert plates_crossed(point, eye, SPEC, grow_mm=-1.0)[0] == 2
    as_counted = apparent_points(point, eye, SPEC)
    assert np.array_equal(apparent_points(point, eye, SPEC, np.array([2.0])), as_counted)
    through_three = apparent_points(point, eye, SPEC, np.array([3.0]))
    assert point[0, 1] < as_counted[0, 1] < through_three[0, 1]  # farther from the eye


def test_clicks_seen_through_the_plates_fit_better_with_them():
    camera = CameraModel.looking_at((0, 0, 150), 900, 40, 25, (1280, 960))
    clicks = true_clicks(camera)
    with_plates = fit_camera(clicks, SPEC, camera.image_size)
    without = fit_camera(clicks, dataclasses.replace(SPEC, refractive_index=1.0), (1280, 960))
    assert with_plates.rms_px < 0.05 < 0.3 < without.rms_px


def test_specs_and_calibration_files_without_an_index_are_acrylic():
    values = spec_values(SPEC)
    assert values["refractive_index"] == pytest.approx(1.49)
    del values["refractive_index"]
    assert spec_from_values(values).refractive_index == pytest.approx(1.49)
    for wrong in (0.9, 3.5):
        with pytest.raises(SpecError, match="refractive index"):
            spec_from_values({**values, "refractive_index": wrong})


def test_a_users_spec_file_without_an_index_is_acrylic_and_a_wrong_one_is_refused(tmp_path):
    shipped = (Path(calibration.spec.__file__).parent / "specs" / "timevectors.toml").read_text()
    lines = [line for line in shipped.splitlines() if not line.startswith("refractive_index")]
    older = tmp_path / "older.toml"
    older.write_text("\n".join(lines))
    assert load_spec(older).refractive_index == pytest.approx(1.49)
    glass = tmp_path / "glass.toml"
    glass.write_text(shipped.replace("refractive_index = 1.49", "refractive_index = 1.52"))
    assert load_spec(glass).refractive_index == pytest.approx(1.52)
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(shipped.replace("refractive_index = 1.49", "refractive_index = 0.5"))
    with pytest.raises(SpecError, match="refractive index"):
        load_spec(wrong)
