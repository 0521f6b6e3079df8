"""Procedural textures for the synthetic renderer (table tops, wood), built from smooth noise.

Textures are generated as square tiles in millimetre units (one texel per
millimetre) and warped onto planes of the scene by homography, so they keep a
correct perspective. Everything is vectorised numpy/OpenCV work.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

TABLE_KINDS = ("wood", "cloth", "laminate", "stone")


def smooth_noise(rng: np.random.Generator, size: int, cells: int, octaves: int = 3) -> np.ndarray:
    """Tileable fractal value noise in roughly -1..1: ``octaves`` upsampled random grids."""
    out = np.zeros((size, size), np.float32)
    amplitude, total = 1.0, 0.0
    for octave in range(octaves):
        n = max(2, cells * 2**octave)
        grid = rng.standard_normal((n, n)).astype(np.float32)
        # Pad periodically and crop so the tile wraps around without a seam.
        padded = np.pad(grid, 2, mode="wrap")
        big = cv2.resize(
            padded, (size * (n + 4) // n, size * (n + 4) // n), interpolation=cv2.INTER_CUBIC
        )
        start = (big.shape[0] - size) // 2
        out += amplitude * big[start : start + size, start : start + size]
        total += amplitude
        amplitude *= 0.5
    return out / total


def _mix(a_bgr: np.ndarray, b_bgr: np.ndarray, t: np.ndarray) -> np.ndarray:
    t = np.clip(t, 0.0, 1.0)[..., None]
    return a_bgr[None, None, :] * (1.0 - t) + b_bgr[None, None, :] * t


def wood_texture(
    rng: np.random.Generator,
    size: int,
    light_bgr: np.ndarray,
    dark_bgr: np.ndarray,
    grain_mm: float,
) -> np.ndarray:
    """Planks running along x, each with its own shade and grain, float32 BGR 0..255.

    ``grain_mm`` is the spacing of the grain lines in texels; planks are about a
    dozen grain lines wide with dark seams between them.
    """
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    plank_width = grain_mm * rng.uniform(9, 15)
    plank = np.floor(y / plank_width).astype(np.int32)
    planks = int(plank.max()) + 1
    shade = rng.uniform(0.82, 1.12, planks).astype(np.float32)[plank]
    offset = rng.uniform(0, grain_mm, planks).astype(np.float32)[plank]
    stretch = rng.uniform(0.8, 1.25, planks).astype(np.float32)[plank]
    # Grain lines wander slowly along the plank (noise stretched along x).
    wander = cv2.resize(
        rng.standard_normal((24, 3)).astype(np.float32), (size, size), interpolation=cv2.INTER_CUBIC
    )
    phase = (y * stretch + offset + 0.35 * grain_mm * wander) / grain_mm
    rings = (0.5 + 0.5 * np.sin(phase * 2 * np.pi)) ** 2
    fibres = cv2.resize(
        rng.standard_normal((size, max(2, size // 32))).astype(np.float32), (size, size)
    )
    t = 0.45 * rings + 0.08 * fibres + 0.12 * smooth_noise(rng, size, 4, 2) + 0.25
    colour = _mix(light_bgr, dark_bgr, t) * shade[..., None]
    seam = (y - plank * plank_width) < 1.2
    colour[seam] *= 0.55
    return colour.astype(np.float32)


def cloth_texture(rng: np.random.Generator, size: int, colour_bgr: np.ndarray) -> np.ndarray:
    """Woven cloth: a fine two-direction weave with blotchy dye variation."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    weave = 0.5 * (np.sin(x * 2.1) * np.sin(y * 2.1)) + 0.3 * rng.standard_normal((size, size))
    blotch = smooth_noise(rng, size, 5, 3)
    shade = 1.0 + 0.05 * weave + 0.10 * blotch
    return (colour_bgr[None, None, :] * shade[..., None]).astype(np.float32)


def laminate_texture(rng: np.random.Generator, size: int, colour_bgr: np.ndarray) -> np.ndarray:
    """Plain laminate or painted table: nearly uniform with faint mottling and scratches."""
    shade = 1.0 + 0.04 * smooth_noise(rng, size, 6, 3) + 0.015 * rng.standard_normal((size, size))
    tex = colour_bgr[None, None, :] * shade[..., None]
    for _ in range(int(rng.integers(3, 12))):
        p0 = rng.uniform(0, size, 2)
        p1 = p0 + rng.normal(0, size / 6, 2)
        cv2.line(
            tex,
            tuple(int(v) for v in p0),
            tuple(int(v) for v in p1),
            tuple(float(c) * 1.08 for c in colour_bgr),
            1,
            cv2.LINE_AA,
        )
    return tex.astype(np.float32)


def stone_texture(
    rng: np.random.Generator, size: int, light_bgr: np.ndarray, dark_bgr: np.ndarray
) -> np.ndarray:
    """Granite-like worktop: speckles over cloudy variation."""
    cloud = smooth_noise(rng, size, 8, 4)
    speck = rng.random((size, size)).astype(np.float32)
    t = 0.5 + 0.35 * cloud + np.where(speck > 0.93, 0.5, 0.0) - np.where(speck < 0.05, 0.4, 0.0)
    return _mix(light_bgr, dark_bgr, t).astype(np.float32)


def table_texture(
    rng: np.random.Generator, kind: str, colour_rgb: tuple[int, int, int], size: int = 512
) -> np.ndarray:
    """A ``size`` square float32 BGR tile for a table of ``kind`` (one of :data:`TABLE_KINDS`).

    Raises ``ValueError`` for an unknown kind.
    """
    base = np.array(colour_rgb[::-1], dtype=np.float32)
    if kind == "wood":
        return wood_texture(rng, size, base, base * 0.55, grain_mm=float(rng.uniform(6, 14)))
    if kind == "cloth":
        return cloth_texture(rng, size, base)
    if kind == "laminate":
        return laminate_texture(rng, size, base)
    if kind == "stone":
        return stone_texture(rng, size, np.minimum(base * 1.25, 255), base * 0.45)
    raise ValueError(f"unknown table kind {kind!r}; expected one of {', '.join(TABLE_KINDS)}")


@functools.lru_cache(maxsize=12)
def cached_table_texture(
    seed: int, kind: str, colour_rgb: tuple[int, int, int], size: int = 512
) -> np.ndarray:
    """:func:`table_texture` from a seed, cached: frames of one scene share their table.

    The array is read-only; copy it before changing it.
    """
    tile = table_texture(np.random.default_rng(seed), kind, tuple(colour_rgb), size)
    tile.setflags(write=False)
    return tile


@functools.lru_cache(maxsize=4)
def noise_field(height: int, width: int, margin: int = 64) -> np.ndarray:
    """A fixed field of unit Gaussian noise a little larger than a frame (read-only).

    Frames take a randomly offset (and flipped) window of it: sensor noise that
    differs from frame to frame at a fraction of the cost of drawing it afresh.
    """
    field = np.random.default_rng(12345).standard_normal(
        (height + margin, width + margin, 3), dtype=np.float32
    )
    field.setflags(write=False)
    return field
