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
