"""How far a pixel's colour moved from the empty board, and how surely that is a change.

Colour features (:func:`calibration.colours.features`) put chroma on two axes and
brightness on a third, in units where a token's change is a few units and the
sensor's noise a fraction of one. Darkening counts less than brightening where a
shadow could explain it (a shadow is no token).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.footprint import PixelSets

FOREGROUND_DISTANCE = 2.0  # feature units between a pixel and the reference that mean "changed"
FAINT_DISTANCE = 1.0  # changes from here up to FOREGROUND_DISTANCE count as partial evidence
SHADOW_WEIGHT = 0.5  # darkening counts half as much as brightening (shadows are not tokens)


def feature_distance(delta: np.ndarray, shadow_weight: float = 1.0) -> np.ndarray:
    """Length of feature differences (``(n, 3)`` rows), darkening weighted by
    ``shadow_weight``."""
    light = np.where(delta[:, 2] < 0, delta[:, 2] * shadow_weight, delta[:, 2])
    return np.sqrt(delta[:, 0] ** 2 + delta[:, 1] ** 2 + light**2)


def change_evidence(change: np.ndarray) -> np.ndarray:
    """0..1 per pixel: how surely a change of this size (feature units) is a real one."""
    return np.clip((change - FAINT_DISTANCE) / (FOREGROUND_DISTANCE - FAINT_DISTANCE), 0.0, 1.0)


@dataclasses.dataclass(frozen=True)
class Difference:
    """Per gathered pixel, the frame's feature difference from the empty board: chroma on
    two axes and brightness, in feature units, and whether it stands out of the sensor
    noise (a difference that does not is none)."""

    chroma_a: np.ndarray
    chroma_b: np.ndarray
    light: np.ndarray
    significant: np.ndarray
    #: Pixels a modelled shadow's part was taken out of (see :mod:`vision.shadows`).
    shadowed: np.ndarray | None = None

    @property
    def delta(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The three feature differences, as the shadow search takes them."""
        return self.chroma_a, self.chroma_b, self.light

    def at(self, index: np.ndarray) -> Difference:
        """The difference of the gathered pixels ``index`` only."""
        shadowed = None if self.shadowed is None else self.shadowed[index]
        return Difference(
            self.chroma_a[index],
            self.chroma_b[index],
            self.light[index],
            self.significant[index],
            shadowed,
        )

    def distances(self) -> tuple[np.ndarray, np.ndarray]:
        """How far each pixel is from the empty board (0 within the noise): with darkening
        counted at ``SHADOW_WEIGHT`` (a shadow is no token), and in full. Darkening left
        over where a modelled shadow was taken out counts in full: a shadow falls once
        (where one token keeps the light off, a second cannot darken it more)."""
        chroma2 = self.chroma_a * self.chroma_a + self.chroma_b * self.chroma_b
        light = self.light
        weighed_down = light < 0
        if self.shadowed is not None:
            weighed_down &= ~self.shadowed
        shaded = np.where(weighed_down, light * np.float32(SHADOW_WEIGHT), light)
        zero = np.float32(0.0)
        return (
            np.where(self.significant, np.sqrt(chroma2 + shaded * shaded), zero),
            np.where(self.significant, np.sqrt(chroma2 + light * light), zero),
        )


STILL_SIGMAS = 4.0  # a pixel changed since the last read stands this far out of the noise
STILL_CORE_SHARE = 0.25  # ... and a quarter of a point's core changed means "read again"


def cores_moved(core: PixelSets, largest: np.ndarray, noise: float) -> np.ndarray:
    """Per point: did at least ``STILL_CORE_SHARE`` of its core's pixels (``core``, over the
    gathered pixels) change between two frames (``largest``: per core entry, the largest
    channel's difference) by more than ``STILL_SIGMAS`` times the ``noise`` of such a
    difference? (A point read again.)"""
    changed = largest > np.float32(STILL_SIGMAS * noise)
    in_core = np.bincount(core.point, weights=changed, minlength=len(core.count))
    return in_core >= STILL_CORE_SHARE * np.maximum(core.count, 1)
