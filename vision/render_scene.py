"""Scene styles for the synthetic renderer and random but plausible scenes.

A :class:`SceneStyle` holds everything about a picture that is not geometry
(materials, light, camera defects); :func:`random_scene` draws a camera, a
style and three token colours from a seed, covering what the vision pipeline
must cope with: elevations 35-70 degrees, any azimuth, lenses from 50 to 75
degrees, tables of wood, cloth, laminate or stone, coloured light, noise, blur
and JPEG.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.refraction import through_plates
from calibration.spec import CORNERS, TimeVectorsSpec, load_spec
from rules.timevectors.points import TIER_LETTERS
from vision.render_textures import TABLE_KINDS


@dataclass(frozen=True)
class SceneStyle:
    """Everything about a scene that is not geometry: materials, light and camera defects.

    Colours are RGB 0..255. The light direction points toward the light.
    ``white_balance`` multiplies R, G, B after rendering (a colour cast);
    ``noise_sigma`` is in 8-bit grey levels; ``jpeg_quality`` None keeps PNG quality.
    """

    table_kind: str = "wood"
    table_rgb: tuple[int, int, int] = (150, 112, 80)
    base_rgb: tuple[int, int, int] = (182, 132, 84)
    post_rgb: tuple[int, int, int] = (160, 108, 62)
    plate_tint_rgb: tuple[int, int, int] = (205, 238, 230)
    plate_alpha: float = 0.08
    edge_rgb: tuple[int, int, int] = (200, 245, 235)
    marking_rgb: tuple[int, int, int] = (28, 28, 30)
    marking_alpha: float = 0.85
    marking_width_mm: float = 1.0
    light_azimuth_deg: float = 210.0
    light_elevation_deg: float = 60.0
    ambient: float = 0.5
    shadow_strength: float = 0.45
    reflection: float = 0.06
    exposure: float = 1.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)
    vignette: float = 0.25
    gradient: float = 0.12
    gradient_angle_deg: float = 30.0
    noise_sigma: float = 2.0
    blur_sigma: float = 0.6
    jpeg_quality: int | None = None
    aruco: bool = False

    def __post_init__(self) -> None:
        if self.table_kind not in TABLE_KINDS:
            raise ValueError(
                f"table kind {self.table_kind!r} is not one of {', '.join(TABLE_KINDS)}"
            )
        if self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100:
            raise ValueError(f"JPEG quality must be 1..100, not {self.jpeg_quality}")

    def light_vector(self) -> np.ndarray:
        """Unit vector from the scene toward the light."""
        az, el = np.radians(self.light_azimuth_deg), np.radians(self.light_elevation_deg)
        return np.array([np.sin(az) * np.cos(el), -np.cos(az) * np.cos(el), np.sin(el)])


# -- random scenes ----------------------------------------------------------------------------
_TOKEN_COLOURS = (
    (200, 32, 38),
    (36, 150, 64),
    (32, 72, 190),
    (236, 200, 30),
    (240, 122, 24),
    (122, 52, 150),
    (236, 236, 228),
    (34, 34, 36),
    (232, 112, 162),
    (22, 150, 150),
    (122, 72, 40),
    (152, 202, 44),
    (28, 36, 92),
    (150, 150, 156),
)
_TABLE_COLOURS = {
    "wood": ((150, 112, 80), (105, 70, 45), (190, 150, 105), (80, 52, 36)),
    "cloth": ((40, 90, 60), (120, 30, 40), (60, 60, 70), (170, 160, 140), (30, 50, 100)),
    "laminate": ((225, 225, 220), (60, 60, 62), (200, 190, 170), (140, 150, 160)),
    "stone": ((120, 120, 118), (180, 175, 165), (70, 70, 75)),
}


def _lab(rgb: tuple[int, int, int]) -> np.ndarray:
    pixel = np.array([[rgb[::-1]]], np.uint8)
    return cv2.cvtColor(pixel, cv2.COLOR_BGR2LAB).reshape(3).astype(np.float64)


def _pick_token_colours(rng: np.random.Generator, count: int = 3) -> list[tuple[int, int, int]]:
    """Distinct token colours (far apart in Lab), each jittered so no set repeats exactly."""
    while True:
        picks = rng.choice(len(_TOKEN_COLOURS), size=count, replace=False)
        colours = [
            tuple(int(np.clip(c + rng.normal(0, 10), 0, 255)) for c in _TOKEN_COLOURS[i])
            for i in picks
        ]
        labs = [_lab(c) for c in colours]
        if all(np.linalg.norm(labs[i] - labs[j]) > 45 for i in range(count) for j in range(i)):
            return colours


def _fit_distance(
    spec: TimeVectorsSpec,
    target: np.ndarray,
    elevation: float,
    azimuth: float,
    size: tuple[int, int],
    fov: float,
    fill: float,
) -> CameraModel:
    """The camera at ``elevation``/``azimuth`` whose board view fills ``fill`` of the frame."""
    half = spec.plate_size / 2
    extremes = np.array(
        [
            [sx * half, sy * half, z]
            for sx in (-1, 1)
            for sy in (-1, 1)
            for z in (-spec.plate_thickness - spec.base_height, spec.tier_spacing * 3)
        ]
        + [[0, 0, spec.cap_top]]
    )
    distance = 900.0
    for _ in range(6):
        camera = CameraModel.looking_at(tuple(target), distance, elevation, azimuth, size, fov)
        px = camera.project(extremes)
        centre = np.array(size) / 2
        extent = np.max(np.abs(px - centre) / (centre * fill))
        distance *= extent
    return CameraModel.looking_at(tuple(target), distance, elevation, azimuth, size, fov)


def landmark_clicks(
    camera: CameraModel,
    spec: TimeVectorsSpec,
    noise_px: float = 0.0,
    rng: np.random.Generator | None = None,
) -> dict[str, dict[str, list[float]]]:
    """The 16 landmarks where ``camera`` sees them (a lower tier's through the plates above),
    in the clicks-file structure, with Gaussian click noise of ``noise_px`` drawn from ``rng``
    (required with noise, so that every scene's clicks can be drawn again)."""
    if noise_px > 0 and rng is None:
        raise ValueError("click noise needs the random generator to draw it from")
    seen = through_plates(camera, spec)
    clicks = {}
    for tier, letter in enumerate(TIER_LETTERS):
        px = seen.project(np.array([spec.landmarks(tier)[c] for c in CORNERS]))
        if noise_px > 0:
            px = px + rng.normal(0.0, noise_px, px.shape)
        clicks[letter] = {c: [float(u), float(v)] for c, (u, v) in zip(CORNERS, px, strict=True)}
    return clicks


def random_twist(seed: int, max_deg: float, spec: TimeVectorsSpec | None = None) -> TimeVectorsSpec:
    """The board of ``spec`` (default the reference board) with tiers Q, R and S turned about
    the post by up to ``max_deg`` degrees each, at random for ``seed``: the plates of a real
    board are lined up by hand. Its own random stream, so the rest of a scene is unchanged."""
    spec = spec or load_spec("timevectors")
    if max_deg <= 0:
        return spec
    turns = np.random.default_rng([seed, 2]).uniform(-max_deg, max_deg, 3)
    return spec.twisted([0.0, *(float(t) for t in turns)])


def random_scene(
    seed: int, size: tuple[int, int] = (1280, 960)
) -> tuple[CameraModel, SceneStyle, list[tuple[int, int, int]]]:
    """A random but plausible camera, scene style and three token colours.

    Camera elevation 35-70 degrees, any azimuth, field of view 50-75 degrees, the
    board filling most of the frame with every tier corner inside it.
    """
    rng = np.random.default_rng(seed)
    spec = load_spec("timevectors")
    target = np.array([rng.normal(0, 10), rng.normal(0, 10), rng.uniform(120, 180)])
    camera = _fit_distance(
        spec,
        target,
        float(rng.uniform(35, 70)),
        float(rng.uniform(0, 360)),
        size,
        float(rng.uniform(50, 75)),
        float(rng.uniform(0.82, 0.95)),
    )
    kind = TABLE_KINDS[int(rng.integers(len(TABLE_KINDS)))]
    table_choices = _TABLE_COLOURS[kind]
    cast = rng.normal(0, 0.08, 3)
    white = np.exp(cast - cast[1])
    dark_print = rng.random() < 0.8
    style = SceneStyle(
        table_kind=kind,
        table_rgb=table_choices[int(rng.integers(len(table_choices)))],
        base_rgb=tuple(
            int(v) for v in np.clip(np.array([182, 132, 84]) * rng.uniform(0.7, 1.15), 0, 255)
        ),
        post_rgb=tuple(
            int(v) for v in np.clip(np.array([160, 108, 62]) * rng.uniform(0.7, 1.15), 0, 255)
        ),
        plate_tint_rgb=tuple(
            int(v) for v in np.clip(np.array([205, 238, 230]) + rng.normal(0, 12, 3), 0, 255)
        ),
        plate_alpha=float(rng.uniform(0.04, 0.12)),
        marking_rgb=(28, 28, 30) if dark_print else (235, 235, 235),
        marking_alpha=float(rng.uniform(0.6, 0.9)),
        light_azimuth_deg=float(rng.uniform(0, 360)),
        light_elevation_deg=float(rng.uniform(35, 85)),
        ambient=float(rng.uniform(0.35, 0.65)),
        shadow_strength=float(rng.uniform(0.2, 0.55)),
        reflection=float(rng.uniform(0.0, 0.15)),
        exposure=float(rng.uniform(0.8, 1.15)),
        white_balance=(float(white[0]), float(white[1]), float(white[2])),
        vignette=float(rng.uniform(0.0, 0.4)),
        gradient=float(rng.uniform(0.0, 0.25)),
        gradient_angle_deg=float(rng.uniform(0, 360)),
        noise_sigma=float(rng.uniform(0.5, 4.0)),
        blur_sigma=float(rng.uniform(0.0, 1.2)),
        jpeg_quality=None if rng.random() < 0.5 else int(rng.integers(60, 96)),
    )
    return camera, style, _pick_token_colours(rng)
