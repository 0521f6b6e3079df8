"""Token sets as a mixture of Gaussians: the partition of token colours that is most likely.

Agglomerative clustering (:func:`calibration.colours.cluster`) decides how many sets
the tokens of a picture show, but it decides *which* tokens belong together by
greedy merges of the closest pair, one at a time. One set can spread far (washed
out step by step behind the plates, or half of it in the shadow of the tiers
above) while two others lie close (a yellow and an orange, a white and a grey
laminate-coloured one): the greedy merges then split the spread set and join the
two close ones, and a third of the board reads the wrong colour.

Here each set is a Gaussian in feature space with a covariance of its own (a washed
set stretches along its wash, a shaded one along brightness), and the grouping of
the same number of sets under which the token colours are most likely wins. The
likelihood has many local optima, so expectation-maximisation starts from the
agglomerative grouping and from k-means++ seeds (a fixed random stream: the same
colours give the same grouping), and the best result is then improved by
split-and-merge moves (merge two sets, split a third along its widest axis) while
any raises the likelihood. Each set's covariance is shrunk towards a small round
one (a few tokens cannot pin down nine numbers), and the sets are weighed alike
(players take turns, so a board's sets hold about as many tokens each; a mixture
free to weigh them favours a lopsided grouping), so two or three odd readings do
not make a tight set of their own.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

PRIOR_SPREAD = 0.5  # feature units: the spread a set is assumed to have before its tokens say
PRIOR_WEIGHT = 4.0  # how many tokens' worth that assumption counts
MIN_VARIANCE = 0.3**2  # no set is tighter than this along any axis (feature units squared)
SEEDS = 32  # k-means++ starts besides the given grouping
MAX_ITERATIONS = 100
TOLERANCE = 1e-6  # log-likelihood gain below which EM has converged
SETTLING = 0.1  # log-likelihood EM from a soft optimum's hard grouping may lose on the way back
_LOG_2PI = float(np.log(2.0 * np.pi))
_PRIOR_SCATTER = np.eye(3) * (PRIOR_WEIGHT * PRIOR_SPREAD**2)


def refine_partition(samples: np.ndarray, groups: Sequence[Sequence[int]]) -> list[list[int]]:
    """The grouping of ``samples`` (``(n, 3)`` colour features) into ``len(groups)`` sets that
    makes them most likely as a Gaussian mixture, starting from ``groups`` (lists of sample
    indices covering every sample once). Returned as sorted index lists, each non-empty; the
    input grouping itself when it is already the best found, there is nothing to refine, or a
    colour is not a finite number (nothing to weigh it by)."""
    samples = np.asarray(samples, np.float64).reshape(-1, 3)
    k = len(groups)
    given = [sorted(int(i) for i in g) for g in groups]
    if k < 2 or len(samples) <= k or not np.isfinite(samples).all():
        return given
    start = np.empty(len(samples), np.int64)
    for label, members in enumerate(groups):
        start[np.asarray(members, np.int64)] = label
    best_labels, best_ll = _fit(samples, start, k)
    start_ll = best_ll
    rng = np.random.default_rng(0)
    for labels in _kmeans_pp_starts(samples, k, rng):
        fitted, ll = _fit(samples, labels, k)
        if ll > best_ll + TOLERANCE:
            best_labels, best_ll = fitted, ll
    improved = True
    while improved:
        improved = False
        for labels in _split_merge_moves(samples, best_labels, k):
            fitted, ll = _fit(samples, labels, k)
            if ll > best_ll + TOLERANCE:
                best_labels, best_ll, improved = fitted, ll, True
                break
    # The grouping is judged as the start was: by EM from it. The hard grouping of a soft
    # optimum settles a hair away from it, or in a less likely optimum: then the start stands.
    if _fit(samples, best_labels, k)[1] < start_ll - SETTLING:
        return given
    out = [sorted(np.flatnonzero(best_labels == label).tolist()) for label in range(k)]
    return given if any(not members for members in out) else out  # (EM may empty a set)


def _fit(samples: np.ndarray, labels: np.ndarray, k: int) -> tuple[np.ndarray, float]:
    """EM from a hard grouping: ``(labels, log-likelihood)`` at convergence; a start that
    leaves a set empty scores minus infinity."""
    n = len(samples)
    if len(np.unique(labels)) < k:
        return labels, -np.inf
    resp = np.zeros((n, k))
    resp[np.arange(n), labels] = 1.0
    previous = log_lik = -np.inf
    for _ in range(MAX_ITERATIONS):
        weight = resp.sum(axis=0) + 1e-9
        means = (resp.T @ samples) / weight[:, None]
        joint = np.empty((n, k))
        for j in range(k):
            offset = samples - means[j]
            joint[:, j] = log_density(offset, set_spread(offset, resp[:, j]))
        top = joint.max(axis=1, keepdims=True)
        total = top[:, 0] + np.log(np.exp(joint - top).sum(axis=1))
        resp = np.exp(joint - total[:, None])
        log_lik = float(total.sum())
        if log_lik - previous < TOLERANCE:
            break
        previous = log_lik
    return resp.argmax(axis=1), log_lik


def set_spread(
    offsets: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """A set's covariance from its members' ``offsets`` (``(n, 3)``) from its centre, each
    counted ``weights`` times (default once), shrunk towards the assumed spread: as variances
    along its axes (never below ``MIN_VARIANCE``) and the axes (columns)."""
    offsets = np.asarray(offsets, np.float64).reshape(-1, 3)
    weights = np.ones(len(offsets)) if weights is None else np.asarray(weights, np.float64)
    scatter = (weights[:, None] * offsets).T @ offsets
    values, vectors = np.linalg.eigh(
        (_PRIOR_SCATTER + scatter) / (PRIOR_WEIGHT + float(weights.sum()))
    )
    return np.maximum(values, MIN_VARIANCE), vectors


def log_density(offsets: np.ndarray, spread: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """``(n,)`` Gaussian log-density of ``offsets`` (``(n, 3)``, from a set's centre) under
    the set's ``spread`` (as :func:`set_spread` gives it)."""
    values, vectors = spread
    projected = np.asarray(offsets, np.float64) @ vectors
    mahalanobis = np.sum(projected * projected / values, axis=-1)
    return -0.5 * (mahalanobis + np.sum(np.log(values)) + 3 * _LOG_2PI)


def set_shares(offsets: np.ndarray, spreads: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """``(n, m)`` probabilities that each of n colours is each of m sets, from its offsets from
    each set's centre (``(m, n, 3)``) weighed by that set's spread (sets weighed alike, rows
    summing to 1)."""
    joint = np.stack([log_density(o, s) for o, s in zip(offsets, spreads)], axis=1)
    likelihood = np.exp(joint - joint.max(axis=1, keepdims=True)) + 1e-6
    return likelihood / likelihood.sum(axis=1, keepdims=True)


def _kmeans_pp_starts(
    samples: np.ndarray, k: int, rng: np.random.Generator
) -> Iterator[np.ndarray]:
    """``SEEDS`` groupings by nearest centre, the centres drawn k-means++ style (each next one
    with a probability growing with its squared distance from those drawn)."""
    squared = np.sum((samples[:, None, :] - samples[None, :, :]) ** 2, axis=2)
    for _ in range(SEEDS):
        centres = [int(rng.integers(len(samples)))]
        for _ in range(k - 1):
            nearest = squared[:, centres].min(axis=1)
            total = nearest.sum()
            centres.append(
                int(rng.choice(len(samples), p=nearest / total))
                if total > 0
                else int(rng.integers(len(samples)))
            )
        yield np.argmin(squared[:, centres], axis=1)


def _split_merge_moves(samples: np.ndarray, labels: np.ndarray, k: int) -> Iterator[np.ndarray]:
    """Groupings one move away: sets ``i`` and ``j`` merged, and set ``s`` split in two across
    its widest axis (the freed label takes one half)."""
    for i in range(k):
        for j in range(i + 1, k):
            for s in range(k):
                members = np.flatnonzero(labels == s)
                if s in (i, j) or len(members) < 2:
                    continue
                offset = samples[members] - samples[members].mean(axis=0)
                axis = np.linalg.svd(offset, full_matrices=False)[2][0]
                moved = labels.copy()
                moved[labels == j] = i
                moved[members[offset @ axis > 0]] = j
                yield moved
