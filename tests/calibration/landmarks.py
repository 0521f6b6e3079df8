"""Test helpers: the true landmark clicks of a known camera."""

from __future__ import annotations

import numpy as np

from calibration.camera import CameraModel
from calibration.refraction import through_plates
from calibration.spec import CORNERS, TimeVectorsSpec, load_spec
from rules.timevectors.points import TIER_LETTERS

SPEC = load_spec("timevectors")


def true_clicks(
    camera: CameraModel, spec: TimeVectorsSpec = SPEC, noise_px: float = 0.0, seed: int = 0
) -> dict[str, dict[str, list[float]]]:
    """Where the 16 landmarks really are in the image (those below a plate seen through it),
    optionally with Gaussian click noise."""
    rng = np.random.default_rng(seed)
    clicks = {}
    seen = through_plates(camera, spec)
    for tier, letter in enumerate(TIER_LETTERS):
        px = seen.project(np.array([spec.landmarks(tier)[c] for c in CORNERS]))
        px = px + rng.normal(0.0, noise_px, px.shape) if noise_px else px
        clicks[letter] = {c: [float(u), float(v)] for c, (u, v) in zip(CORNERS, px, strict=True)}
    return clicks
