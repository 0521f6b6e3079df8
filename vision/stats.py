"""Per-point statistics of pixel rows, vectorised (no loop over points)."""

from __future__ import annotations

import numpy as np

from vision.footprint import N_POINTS

# A median's chroma error (both axes together) per typical distance of its rows from it, over
# the square root of their count: rows spread as a 2-D Gaussian (sqrt(pi) / sqrt(2 ln 2)).
CHROMA_ERROR_PER_SPREAD = 1.5


def grouped_median(groups: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per point (``groups``: point of each row), the median of each column of ``values``
    (``(N_POINTS, k)``; the upper median of an even count) and the row count per point."""
    count = np.bincount(groups, minlength=N_POINTS)
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    middle = start + count // 2
    out = np.zeros((N_POINTS, values.shape[1]))
    has = count > 0
    # Sort by value, then stably by group (small ints: a radix sort); together less than
    # half the time of a two-key lexsort.
    small_groups = groups.astype(np.int16)
    for k in range(values.shape[1]):
        order = np.argsort(values[:, k])
        order = order[np.argsort(small_groups[order], kind="stable")]
        out[has, k] = values[order[middle[has]], k]
    return out, count


def chroma_error(groups: np.ndarray, values: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """Per point (``groups``: point of each row of colour features ``values``), how far the
    chroma of its ``centre`` (``(N_POINTS, 3)``, read from those rows) may be off, in feature
    units: a standard error from the rows' own spread about it. A dark token in deep shade,
    relit, spreads its chroma over several units (its few grey levels are mostly noise) where
    a lit one spreads a fraction of one."""
    spread = np.hypot(values[:, 0] - centre[groups, 0], values[:, 1] - centre[groups, 1])
    typical, count = grouped_median(groups, spread[:, None])
    return CHROMA_ERROR_PER_SPREAD * typical[:, 0] / np.sqrt(np.maximum(count, 1))
