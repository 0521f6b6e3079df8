"""The camera model's rays: the way back from a pixel to the board (geometry only)."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.camera import CameraModel


@settings(max_examples=30, deadline=None)
@given(
    x=st.floats(-150, 150),
    y=st.floats(-150, 150),
    z=st.floats(-20, 340),
    elevation=st.floats(35, 80),
    azimuth=st.floats(0, 360),
    k1=st.floats(-0.2, 0.2),
)
def test_the_ray_through_a_points_pixel_passes_through_the_point(x, y, z, elevation, azimuth, k1):
    camera = CameraModel.looking_at((0, 0, 150), 800, elevation, azimuth, (1280, 960))
    camera = dataclasses.replace(camera, dist=np.array([k1, 0.0, 0.0, 0.0, 0.0]))
    point = np.array([x, y, z])
    pixel = camera.project(point[None])[0]
    if not (0 <= pixel[0] < 1280 and 0 <= pixel[1] < 960):
        return  # (out of the picture, where a strong distortion folds back)
    ray = camera.ray_directions(pixel[None])[0]
    towards = point - camera.centre_mm()
    along = towards @ ray / (ray @ ray)
    assert along > 0  # in front of the camera
    assert np.linalg.norm(towards - along * ray) < 1e-3 * np.linalg.norm(towards)


def test_no_pixels_no_rays():
    camera = CameraModel.looking_at((0, 0, 150), 800, 50, 0, (640, 480))
    assert camera.ray_directions(np.zeros((0, 2))).shape == (0, 3)


_axes = st.tuples(*[st.floats(-1, 1)] * 3).filter(lambda v: np.linalg.norm(v) > 0.1)


@settings(max_examples=40, deadline=None)
@given(
    degrees=st.floats(0, 5),
    axis=_axes,
    shift=st.tuples(*[st.floats(-10, 10)] * 3),
    elevation=st.floats(35, 80),
    azimuth=st.floats(0, 360),
)
def test_a_bumped_camera_turns_by_the_angle_and_moves_by_the_shift(
    degrees, axis, shift, elevation, azimuth
):
    camera = CameraModel.looking_at((0, 0, 150), 800, elevation, azimuth, (1280, 960))
    bumped = camera.bumped(degrees, axis, shift)
    turn = bumped._rotation @ camera._rotation.T  # (camera frame before -> after)
    # The axis given (in the camera's frame) stays; a vector across it turns by the angle.
    along = np.asarray(axis) / np.linalg.norm(axis)
    assert np.allclose(turn @ along, along, atol=1e-9)
    across = np.cross(along, [1.0, 0.0, 0.0] if abs(along[0]) < 0.9 else [0.0, 1.0, 0.0])
    across /= np.linalg.norm(across)
    turned = turn @ across
    angle = np.degrees(np.arctan2(np.cross(across, turned) @ along, across @ turned))
    assert abs(angle - degrees) < 1e-6
    # The centre moves by the shift, given in the bumped camera's own frame.
    moved = bumped._rotation @ (bumped.centre_mm() - camera.centre_mm())
    assert np.allclose(moved, shift, atol=1e-9 * 1000)
    assert np.array_equal(bumped.K, camera.K) and bumped.image_size == camera.image_size


def test_an_unbumped_camera_projects_as_before():
    camera = CameraModel.looking_at((0, 0, 150), 800, 50, 30, (1280, 960))
    points = np.array([[0.0, 0.0, 0.0], [100.0, -80.0, 315.0]])
    same = camera.bumped(0.0, (0, 0, 1), (0, 0, 0))
    assert np.allclose(same.project(points), camera.project(points))
