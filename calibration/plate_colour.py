"""How the clear plates above a token wash out its colour, learned from the tokens themselves.

A token on a lower tier is seen through every plate above it. Each plate lets
through a fraction of the light and adds some of its own (tint, reflections),
so the token's chroma shrinks towards grey by roughly the same factor per plate,
and its brightness moves by roughly the same step (darker through a clean plate,
lighter through a hazy one): a navy token on the top tier and a blue one two
tiers down can look alike. The plates are identical, so one factor ``q`` (chroma
kept per plate) and one step (log brightness per plate) describe them all: a
token ``k`` plates down shows ``q**k`` of its chroma.

Both are estimated from the tokens of one frame: every set of tokens has members
on several tiers, and only the right ``q`` makes each token's corrected colour
land on tokens of the same set on *other* tiers. The estimate needs no known
colours, so it also works on the first picture of a game.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from calibration.colours import match_distance

TOP_TIER = 3
FACTOR_RANGE = (0.4, 1.0)  # chroma kept per plate that is searched
COARSE_STEP = 0.06  # searched on a coarse grid, then finely around the best coarse factor
FACTOR_STEP = 0.015
LIGHT_RANGE = (-0.6, 0.6)  # brightness step per plate searched, feature units
LIGHT_STEP = 0.05
MIN_TOKENS = 6  # fewer tokens than this (over at least two tiers) say nothing about q


def plates_above(tiers: np.ndarray) -> np.ndarray:
    """How many plates lie between the camera and a token on each tier (0 on the top tier)."""
    return TOP_TIER - np.asarray(tiers, np.int64)


def corrected(feats: np.ndarray, tiers: np.ndarray, factor: float, light_step: float = 0.0) -> np.ndarray:
    """Token colour features as they would look on the top tier: chroma divided by
    ``factor`` and ``light_step`` taken off the brightness per plate above. ``feats`` is ``(n, 3)``."""
    out = np.array(feats, np.float32, copy=True).reshape(-1, 3)
    plates = plates_above(tiers).astype(np.float32)
    out[:, :2] *= np.power(np.float32(factor), -plates)[:, None]
    out[:, 2] -= np.float32(light_step) * plates
    return out


def estimate_factor(feats: np.ndarray, tiers: np.ndarray) -> float | None:
    """Chroma kept per plate (see :func:`estimate_plate_loss`)."""
    loss = estimate_plate_loss(feats, tiers)
    return None if loss is None else loss[0]


def estimate_plate_loss(feats: np.ndarray, tiers: np.ndarray) -> tuple[float, float] | None:
    """Chroma kept and brightness step per plate, from the colours and tiers of the tokens
    of one frame.

    For candidate values, every token's corrected colour is compared with the nearest
    token on another tier; the values with the smallest median mismatch win (searched
    one at a time, chroma first, each then finely again). Returns ``None`` when the
    tokens cannot tell (too few, or all on one tier). Raises ``ValueError`` if ``feats``
    and ``tiers`` differ in length.
    """
    feats = np.asarray(feats, np.float32).reshape(-1, 3)
    tiers = np.asarray(tiers, np.int64).reshape(-1)
    if len(feats) != len(tiers):
        raise ValueError(f"{len(feats)} colours but {len(tiers)} tiers")
    if len(feats) < MIN_TOKENS or len(np.unique(tiers)) < 2:
        return None
    other_tier = tiers[:, None] != tiers[None, :]

    def cost(factor: float, step: float) -> float:
        fixed = corrected(feats, tiers, factor, step)
        d = np.where(other_tier, match_distance(fixed, fixed), np.inf)
        return float(np.median(d.min(axis=1)))

    def best(candidates: np.ndarray, of: Callable[[float], float]) -> float:
        return float(candidates[int(np.argmin([of(float(c)) for c in candidates]))])

    factors = np.arange(FACTOR_RANGE[0], FACTOR_RANGE[1] + 1e-9, COARSE_STEP)
    steps = np.arange(LIGHT_RANGE[0], LIGHT_RANGE[1] + 1e-9, LIGHT_STEP)
    factor = best(factors, lambda f: cost(f, 0.0))
    step = best(steps, lambda t: cost(factor, t))
    fine = np.clip(np.arange(factor - COARSE_STEP, factor + COARSE_STEP + 1e-9, FACTOR_STEP), *FACTOR_RANGE)
    factor = best(fine, lambda f: cost(f, step))
    near = np.arange(step - LIGHT_STEP, step + LIGHT_STEP + 1e-9, LIGHT_STEP / 5)
    step = best(np.clip(near, *LIGHT_RANGE), lambda t: cost(factor, t))
    if cost(factor, 0.0) <= cost(factor, step):  # no evidence for a brightness step
        step = 0.0
    return factor, step
