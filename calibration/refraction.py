"""Where the camera sees a point that lies below clear plates: refraction shifts it.

A ray crossing a plate of thickness ``d`` at an angle ``theta`` from the vertical runs
inside it at the smaller angle ``theta'`` (Snell: ``sin theta = n sin theta'``) and
leaves it parallel to how it came in, offset sideways. The camera therefore sees a point
below the plate where a point ``d (tan theta - tan theta')`` farther from it (along the
ground) would show without the plate: 1 to 2.3 mm per 3 mm acrylic plate from 50 to 35
degrees up, several millimetres behind three, against 19 mm tokens. Which plates a point
is seen through depends on where its ray crosses their heights (:func:`plates_crossed`),
so the shift differs from point to point. The renderer draws the board this way and the
footprints, fits and drift checks expect it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.camera import CameraModel
from calibration.spec import TimeVectorsSpec

SHIFT_ROUNDS = 3  # steps of the incoming ray's angle: within 0.000002 mm of Snell's law


def plates_crossed(
    points_mm: np.ndarray, eye_mm: np.ndarray, spec: TimeVectorsSpec, grow_mm: float = 0.0
) -> np.ndarray:
    """``(n,)``: how many plates lie between each of ``(n, 3)`` board points and a camera at
    ``eye_mm``: plates whose top lies above the point and whose square the straight line to
    the eye crosses. Seen obliquely, the higher plates' outlines shift back across the lower
    tiers, so a lower tier's front points are seen past the plates above them. ``grow_mm``
    grows (or, negative, shrinks) every square: a point whose count changes within a
    millimetre or two is seen along a plate's edge, where a camera a hair away counts it
    otherwise."""
    flat = np.asarray(points_mm, np.float64).reshape(-1, 3)
    eye = np.asarray(eye_mm, np.float64).reshape(3)
    rise = np.maximum(eye[2] - flat[:, 2], 1e-9)
    half = spec.plate_size / 2 + grow_mm
    crossed = np.zeros(len(flat))
    for plate in range(4):
        height = spec.tier_spacing * plate
        share = (height - flat[:, 2]) / rise
        at = flat[:, :2] + share[:, None] * (eye[None, :2] - flat[:, :2])
        inside = (np.abs(spec.to_tier(plate, at)) <= half).all(axis=1)
        crossed += (height > flat[:, 2] + 1e-6) & inside
    return crossed


def apparent_points(
    points_mm: np.ndarray,
    eye_mm: np.ndarray,
    spec: TimeVectorsSpec,
    crossed: np.ndarray | None = None,
) -> np.ndarray:
    """``(..., 3)`` board points -> where a camera at ``eye_mm`` sees them without plates:
    each plate between a point and the eye (a plate whose top lies above the point and
    whose square the straight line to the eye crosses) moves it away from the eye, along
    the ground, by the plate's sideways offset of the ray. A point on a plate's top is
    not seen through that plate. The straight line stands for the bent ray when picking
    the plates (a point within a fraction of a millimetre of an edge may be picked wrong).
    ``crossed`` gives each point's number of plates instead (see :func:`plates_crossed`)."""
    points = np.asarray(points_mm, np.float64)
    flat = points.reshape(-1, 3)
    if spec.refractive_index == 1.0 or not len(flat):
        return points.copy()
    eye = np.asarray(eye_mm, np.float64).reshape(3)
    towards = eye[None, :2] - flat[:, :2]
    along_ground = np.linalg.norm(towards, axis=1)
    rise = np.maximum(eye[2] - flat[:, 2], 1e-9)
    if crossed is None:
        crossed = plates_crossed(flat, eye, spec)
    crossed = np.asarray(crossed, np.float64).reshape(-1)
    offset = np.zeros(len(flat))
    for _ in range(SHIFT_ROUNDS):  # the ray comes in aimed at where the point shows
        tan_out = (along_ground + crossed * offset) / rise
        sin_in = tan_out / np.sqrt(1.0 + tan_out * tan_out) / spec.refractive_index
        tan_in = sin_in / np.sqrt(1.0 - sin_in * sin_in)
        offset = spec.plate_thickness * (tan_out - tan_in)
    away = -towards / np.maximum(along_ground, 1e-9)[:, None]
    out = flat.copy()
    out[:, :2] += (crossed * offset)[:, None] * away
    return out.reshape(points.shape)


@dataclass(frozen=True)
class RefractingCamera(CameraModel):
    """A camera model that projects each board point where the camera sees it through the
    plates of ``spec`` (see :func:`apparent_points`); everything else as its
    :class:`CameraModel`. What a calibration stores is the plain model."""

    spec: TimeVectorsSpec | None = None

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Project ``(N, 3)`` board points to ``(N, 2)`` pixels, seen through the plates."""
        points = np.asarray(points_mm, np.float64).reshape(-1, 3)
        if self.spec is not None:
            points = apparent_points(points, self.centre_mm(), self.spec)
        return super().project(points)


def through_plates(camera: CameraModel, spec: TimeVectorsSpec) -> CameraModel:
    """``camera`` seeing the board of ``spec`` through its plates (itself when already so)."""
    if isinstance(camera, RefractingCamera):
        return camera
    return RefractingCamera(
        K=camera.K,
        dist=camera.dist,
        rvec=camera.rvec,
        tvec=camera.tvec,
        image_size=camera.image_size,
        spec=spec,
    )
