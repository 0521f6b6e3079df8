"""Pinhole camera model (OpenCV convention) that maps board millimetres to pixels."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np


@dataclass(frozen=True)
class CameraModel:
    """Intrinsics ``K``/``dist`` and the board-to-camera pose ``rvec``/``tvec``.

    ``image_size`` is ``(width, height)`` in pixels. World points are board
    millimetres (see the board spec); the pose maps them into the camera frame.
    """

    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    image_size: tuple[int, int]
    _rotation: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "K", np.asarray(self.K, dtype=np.float64).reshape(3, 3))
        object.__setattr__(self, "dist", np.asarray(self.dist, dtype=np.float64).reshape(-1))
        object.__setattr__(self, "rvec", np.asarray(self.rvec, dtype=np.float64).reshape(3))
        object.__setattr__(self, "tvec", np.asarray(self.tvec, dtype=np.float64).reshape(3))
        object.__setattr__(self, "image_size", (int(self.image_size[0]), int(self.image_size[1])))
        object.__setattr__(self, "_rotation", cv2.Rodrigues(self.rvec)[0])

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Project ``(N, 3)`` board points to ``(N, 2)`` pixel coordinates."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 3)
        if len(pts) == 0:
            return np.zeros((0, 2))
        pixels, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.K, self.dist)
        return pixels.reshape(-1, 2)

    def to_camera(self, points_mm: np.ndarray) -> np.ndarray:
        """Board points in the camera frame (``z`` is the depth along the optical axis)."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3)
        return pts @ self._rotation.T + self.tvec

    def centre_mm(self) -> np.ndarray:
        """Position of the camera's optical centre in board millimetres."""
        return -self._rotation.T @ self.tvec

    def ray_directions(self, pixels: np.ndarray) -> np.ndarray:
        """``(N, 3)`` board-frame directions of the rays from :meth:`centre_mm` through
        ``(N, 2)`` pixel coordinates (lens distortion undone; unit depth, not unit length)."""
        pts = np.asarray(pixels, dtype=np.float64).reshape(-1, 1, 2)
        if len(pts) == 0:
            return np.zeros((0, 3))
        normalised = cv2.undistortPoints(pts, self.K, self.dist).reshape(-1, 2)
        return np.column_stack([normalised, np.ones(len(normalised))]) @ self._rotation

    def bumped(
        self, degrees: float, axis: tuple[float, float, float], shift_mm: tuple[float, float, float]
    ) -> CameraModel:
        """This camera knocked: turned by ``degrees`` about ``axis`` (camera frame) through
        its own centre, as a tripod head turns, and its centre then moved by ``shift_mm``
        (camera frame). Same intrinsics."""
        direction = np.asarray(axis, dtype=np.float64)
        turn = cv2.Rodrigues(np.radians(degrees) * direction / np.linalg.norm(direction))[0]
        return CameraModel(
            K=self.K,
            dist=self.dist,
            rvec=cv2.Rodrigues(turn @ self._rotation)[0],
            tvec=turn @ self.tvec - np.asarray(shift_mm, dtype=np.float64),
            image_size=self.image_size,
        )

    def to_dict(self) -> dict:
        """JSON-ready representation (used inside calibration files)."""
        return {
            "K": self.K.tolist(),
            "dist": self.dist.tolist(),
            "rvec": self.rvec.tolist(),
            "tvec": self.tvec.tolist(),
            "image_size": list(self.image_size),
        }

    @classmethod
    def from_dict(cls, data: dict) -> CameraModel:
        """Inverse of :meth:`to_dict`; raises ``KeyError``/``ValueError`` on bad data."""
        return cls(
            K=np.array(data["K"], dtype=np.float64),
            dist=np.array(data["dist"], dtype=np.float64),
            rvec=np.array(data["rvec"], dtype=np.float64),
            tvec=np.array(data["tvec"], dtype=np.float64),
            image_size=tuple(data["image_size"]),
        )

    @classmethod
    def looking_at(
        cls,
        target_mm: tuple[float, float, float],
        distance_mm: float,
        elevation_deg: float,
        azimuth_deg: float,
        image_size: tuple[int, int],
        horizontal_fov_deg: float = 62.2,
    ) -> CameraModel:
        """A camera on a sphere around ``target_mm`` looking at it, image ``up`` toward +z.

        ``azimuth_deg`` 0 puts the camera south of the board looking north.
        The default field of view is that of the Raspberry Pi camera module v2.
        """
        w, h = image_size
        f = (w / 2) / np.tan(np.radians(horizontal_fov_deg) / 2)
        K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], dtype=np.float64)
        el, az = np.radians(elevation_deg), np.radians(azimuth_deg)
        offset = np.array([np.sin(az) * np.cos(el), -np.cos(az) * np.cos(el), np.sin(el)])
        centre = np.asarray(target_mm, dtype=np.float64) + distance_mm * offset
        forward = -offset
        right = np.cross(forward, [0.0, 0.0, 1.0])
        if np.linalg.norm(right) < 1e-9:  # straight down: keep north up in the image
            right = np.array([1.0, 0.0, 0.0])
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        rotation = np.stack([right, down, forward])  # rows: camera x, y, z axes in world
        tvec = -rotation @ centre
        rvec = cv2.Rodrigues(rotation)[0].reshape(3)
        return cls(K=K, dist=np.zeros(5), rvec=rvec, tvec=tvec, image_size=(w, h))
