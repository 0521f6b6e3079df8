"""Test helpers: the true landmark clicks of a known camera."""

from __future__ import annotations

import numpy as np

from calibration.camera import CameraModel
from calibration.spec import TimeVectorsSpec, load_spec
from vision.render_scene import landmark_clicks

SPEC = load_spec("timevectors")


def true_clicks(
    camera: CameraModel, spec: TimeVectorsSpec = SPEC, noise_px: float = 0.0, seed: int = 0
) -> dict[str, dict[str, list[float]]]:
    """Where the 16 landmarks really are in the image (those below a plate seen through it),
    optionally with Gaussian click noise drawn from ``seed``."""
    return landmark_clicks(camera, spec, noise_px, np.random.default_rng(seed))
