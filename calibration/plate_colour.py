"""How the clear plates above a token wash out its colour, learned from the tokens themselves.

A token on a lower tier is seen through every plate above it. Each plate lets
through a fraction of the light and adds some of its own (tint, reflections),
so the token's chroma shrinks towards grey by roughly the same factor per plate:
a navy token on the top tier and a blue one two tiers down can look alike. The
plates are identical, so one factor ``q`` (chroma kept per plate) describes them
all: a token ``k`` plates down shows ``q**k`` of its chroma.

``q`` is estimated from the tokens of one frame: every set of tokens has members
on several tiers, and only the right ``q`` makes each token's corrected colour
land on tokens of the same set on *other* tiers. The estimate needs no known
colours, so it also works on the first picture of a game.
"""

from __future__ import annotations

import numpy as np

from calibration.colours import match_distance

TOP_TIER = 3
FACTOR_RANGE = (0.4, 1.0)  # chroma kept per plate that is searched
COARSE_STEP = 0.06  # searched on a coarse grid, then finely around the best coarse factor
FACTOR_STEP = 0.015
MIN_TOKENS = 6  # fewer tokens than this (over at least two tiers) say nothing about q


def plates_above(tiers: np.ndarray) -> np.ndarray:
    """How many plates lie between the camera and a token on each tier (0 on the top tier)."""
    return TOP_TIER - np.asarray(tiers, np.int64)


def corrected(feats: np.ndarray, tiers: np.ndarray, factor: float) -> np.ndarray:
    """Token colour features as they would look on the top tier: chroma divided by
    ``factor`` per plate above, brightness unchanged. ``feats`` is ``(n, 3)``."""
    out = np.array(feats, np.float32, copy=True).reshape(-1, 3)
    gain = np.power(np.float32(factor), -plates_above(tiers).astype(np.float32))
    out[:, :2] *= gain[:, None]
    return out


def estimate_factor(feats: np.ndarray, tiers: np.ndarray) -> float | None:
    """Chroma kept per plate, from the colours and tiers of the tokens of one frame.

    For each candidate factor, every token's corrected colour is compared with the
    nearest token on another tier; the factor with the smallest median mismatch wins.
    Returns ``None`` when the tokens cannot tell (too few, or all on one tier).
    Raises ``ValueError`` if ``feats`` and ``tiers`` do not have the same length.
    """
    feats = np.asarray(feats, np.float32).reshape(-1, 3)
    tiers = np.asarray(tiers, np.int64).reshape(-1)
    if len(feats) != len(tiers):
        raise ValueError(f"{len(feats)} colours but {len(tiers)} tiers")
    if len(feats) < MIN_TOKENS or len(np.unique(tiers)) < 2:
        return None
    other_tier = tiers[:, None] != tiers[None, :]

    def best_of(candidates: np.ndarray) -> float:
        costs = []
        for factor in candidates:
            fixed = corrected(feats, tiers, float(factor))
            d = np.where(other_tier, match_distance(fixed, fixed), np.inf)
            costs.append(float(np.median(d.min(axis=1))))
        return float(candidates[int(np.argmin(costs))])

    coarse = best_of(np.arange(FACTOR_RANGE[0], FACTOR_RANGE[1] + 1e-9, COARSE_STEP))
    fine = np.arange(coarse - COARSE_STEP, coarse + COARSE_STEP + 1e-9, FACTOR_STEP)
    return best_of(np.clip(fine, *FACTOR_RANGE))
