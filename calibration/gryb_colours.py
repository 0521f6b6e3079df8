"""The two ring colours of a GRYB game, learned from the rings seen.

Rings lie in plain view on the cloth, so unlike the stacked board's tokens (seen
through tinted plates, where saturation means little and
:class:`~calibration.colours.ColourModel` leans on hue) a white ring and a pink
ring must stay two colours: here distance is plain Euclidean in the same
gain-normalised feature space (:func:`~calibration.colours.features`), with
brightness at half weight (shading on a rounded ring and folds of the cloth).
There are always exactly two colour slots. Without a palette they are numbered
in the order first seen; a palette of the two nominal RGB colours fixes the order.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from calibration.colours import (
    FOLLOW_RATE,
    RGB,
    feature_to_bgr,
    features,
    nearest_prototype,
    palette_features,
    parse_palette,
    prototype_array,
)

logger = logging.getLogger(__name__)

RING_COLOURS = 2
SEPARATION = 2.5  # feature units: two groups of rings nearer than this are one colour
_WEIGHTS = np.array([1.0, 1.0, 0.5], np.float32)


class RingPaletteError(ValueError):
    """A ring palette that is not exactly two distinct ``[r, g, b]`` colours."""


def ring_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(n, m)`` distances between feature rows of ``a`` and ``b``."""
    a = np.asarray(a, np.float32).reshape(-1, 1, 3) * _WEIGHTS
    b = np.asarray(b, np.float32).reshape(1, -1, 3) * _WEIGHTS
    return np.sqrt(np.sum((a - b) ** 2, axis=2))


def _two_means(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split samples in two groups (seeded by the two farthest samples); returns labels and centres."""
    d = ring_distance(samples, samples)
    i, j = np.unravel_index(int(np.argmax(d)), d.shape)
    centres = samples[[i, j]].copy()
    labels = np.zeros(len(samples), np.int64)
    for _ in range(8):
        labels = np.argmin(ring_distance(samples, centres), axis=1)
        for k in range(2):
            if np.any(labels == k):
                centres[k] = np.median(samples[labels == k], axis=0)
    return labels, centres


@dataclass
class RingColourModel:
    """Prototypes of the two ring colours in feature space.

    ``reference_balance`` (grey-world factors of the empty cloth) lets learned colours be
    compared with a nominal ``palette``. Raises :class:`RingPaletteError` for a palette
    that is not two distinct colours.
    """

    palette: Sequence[RGB] | None = None
    reference_balance: np.ndarray = field(default_factory=lambda: np.ones(3, np.float32))
    prototypes: dict[int, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.palette is not None:
            try:
                colours = parse_palette(list(self.palette))
            except ValueError as exc:
                raise RingPaletteError(str(exc)) from exc
            if len(colours) != RING_COLOURS:
                raise RingPaletteError(
                    f"a ring palette has exactly two colours, not {len(colours)}"
                )
            self.palette = colours

    @property
    def n_colours(self) -> int:
        """Always two: the observation has a column for each ring colour."""
        return RING_COLOURS

    def prototype_array(self) -> tuple[np.ndarray, np.ndarray]:
        """``(indices, features)`` of the learned prototypes."""
        return prototype_array(self.prototypes)

    def learn(self, samples: np.ndarray) -> list[int]:
        """Take in the colours of rings seen (``(n, 3)`` features); returns new colour indices.

        Known colours follow their matched samples slowly; samples far from every known
        colour start the missing one (both at once if two clear groups appear together).
        """
        samples = np.asarray(samples, np.float32).reshape(-1, 3)
        if len(samples) == 0:
            return []
        keys, protos = self.prototype_array()
        new: list[np.ndarray] = []
        if len(keys):
            d = ring_distance(samples, protos)
            nearest = np.argmin(d, axis=1)
            near = d[np.arange(len(samples)), nearest] <= SEPARATION
            for k, key in enumerate(keys):
                matched = samples[near & (nearest == k)]
                if len(matched):
                    self.prototypes[int(key)] += FOLLOW_RATE * (
                        np.median(matched, axis=0) - self.prototypes[int(key)]
                    )
            far = samples[~near]
            if len(far) and len(keys) < RING_COLOURS:
                new.append(np.median(far, axis=0))
        else:
            labels, centres = _two_means(samples)
            if len(samples) > 1 and ring_distance(centres[:1], centres[1:])[0, 0] > SEPARATION:
                order = [int(labels[0]), 1 - int(labels[0])]  # the colour seen first is colour 0
                new += [centres[order[0]], centres[order[1]]]
            else:
                new.append(np.median(samples, axis=0))
        return [self._add(centre) for centre in new]

    def _add(self, centre: np.ndarray) -> int:
        free = [k for k in range(RING_COLOURS) if k not in self.prototypes]
        colour = free[0]
        if self.palette is not None and len(free) > 1:
            nominal = palette_features(self.palette)
            observed = features(_feature_to_balanced_bgr(centre, self.reference_balance))
            colour = free[int(np.argmin(ring_distance(observed, nominal[free])[0]))]
        self.prototypes[colour] = np.asarray(centre, np.float32)
        logger.info("learned ring colour %d: %s", colour, np.round(centre, 2))
        return colour

    def nearest(self, feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Nearest learned colour (-1 when none is known) and its distance, per row."""
        return nearest_prototype(feats, self.prototypes, ring_distance)


def _feature_to_balanced_bgr(feature: np.ndarray, balance: np.ndarray) -> np.ndarray:
    return (feature_to_bgr(feature) * balance)[None, :]
