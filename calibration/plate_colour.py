"""How the clear plates above a token wash out its colour, learned from the tokens themselves.

A token on a lower tier is seen through every plate above it. Each plate lets
through a fraction ``t`` of the light from behind it and adds light of its own
(reflections of the room, haze, tint): seen through one plate, a colour ``c``
becomes ``t * c + a``, and through ``k`` plates ``t**k * c + a * (1 + t + ... +
t**(k-1))``. The added light is the same for every token, so it washes out a
dark token far more than a light one: a dark set two tiers down drifts towards
a grey set, and a navy token on the top tier and a blue one below can look
alike. The plates are identical, so one ``t`` and one ``a`` describe them all,
and undoing them is exact. ``a`` is a colour (B, G, R grey levels of the
gain-normalised frame): acrylic and the room it reflects are rarely neutral, and
a tinted wash turns a green set below towards cyan, which no grey one undoes.

How many plates lie in front of a token is geometry, not its tier: seen obliquely,
the higher plates' outlines shift across the lower tiers, so a token near a lower
tier's front edge is seen past some or all of the plates above it (the camera
model says which; see :mod:`vision.footprint`).

Both are estimated from the tokens of one frame: every set of tokens has members
behind different numbers of plates, and only the right values make each token's
corrected colour land on tokens of the same set behind *every other* number. The estimate needs no
known colours, so it also works on the first picture of a game.
"""

from __future__ import annotations

import warnings

import numpy as np

from calibration.colours import MERGE_DISTANCE, feature_to_bgr, features, pair_distance

TOP_TIER = 3
TRANSMISSION_RANGE = (0.5, 1.0)  # light kept per plate that is searched
TRANSMISSION_STEP = 0.05  # coarse grid steps; each refinement halves them around the best
ADDED_RANGE = (0.0, 60.0)  # light added per plate that is searched, grey levels
ADDED_STEP = 4.0
REFINEMENTS = 2
TINT_RANGE = 0.3  # how far the added light's blue and red may stray from its green, each way
TINT_STEPS = 7  # candidate values of each across that range
# The search also starts from the strongest tints (each of blue and red at the range's ends or
# unchanged) on a grid this many times coarser: see estimate_plate_loss.
TINTED_START_COARSER = 2
MISMATCH_CHUNK = 1_000_000  # candidate-token-token distances worked out at once
MIN_TOKENS = 6  # fewer tokens than this (over at least two tiers) say nothing about the plates
MAX_DARKER_SHARE = 0.1  # the plates cannot have added more light than most tokens show


GREY = np.ones(3)  # added light of no colour: the same in B, G and R


def _tints(steps: int = TINT_STEPS) -> list[np.ndarray]:
    """Candidate colours of the added light, B, G, R with mean 1 (its brightness is kept):
    ``steps`` values of each of blue and red across the range."""
    values = np.linspace(-TINT_RANGE, TINT_RANGE, steps)
    tints = [np.array([1.0 + blue, 1.0, 1.0 + red]) for blue in values for red in values]
    return [tint / tint.mean() for tint in tints]


def _span(bounds: tuple[float, float], step: float) -> np.ndarray:
    """Candidate values from the low end of ``bounds`` up to the high end, ``step`` apart."""
    return np.arange(bounds[0], bounds[1] + 1e-9, step)


def plates_above(tiers: np.ndarray) -> np.ndarray:
    """How many plates lie above a token on each tier (0 on the top tier): as many as lie
    between it and the camera when the camera sees it through every one of them."""
    return TOP_TIER - np.asarray(tiers, np.int64)


def _through(plates: np.ndarray, transmission: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the share of a token's light that ``plates`` plates pass, and how many
    plates' worth of added light they gather (``1 + t + ... + t**(k-1)``). A column of
    transmissions (``(g, 1)``) gives one row per candidate."""
    plates = np.asarray(plates, np.float64)
    transmission = np.asarray(transmission, np.float64)
    kept = np.power(transmission, plates)
    clear = np.abs(1.0 - transmission) < 1e-9
    return kept, np.where(clear, plates, (1.0 - kept) / np.where(clear, 1.0, 1.0 - transmission))


def corrected(
    feats: np.ndarray,
    plates: np.ndarray,
    transmission: float,
    added: float | np.ndarray = 0.0,
) -> np.ndarray:
    """Token colour features as they would look with no plate in front: the light the
    ``plates`` (``(n,)``, how many lie between the camera and each token, a fraction where
    a disc is seen partly past a plate's edge) added taken off and what they let through
    scaled back up. ``feats`` is ``(n, 3)``; ``added`` is grey levels per plate, one for
    all channels or ``(3,)`` B, G, R."""
    kept, gathered = _through(plates, transmission)
    seen = feature_to_bgr(np.asarray(feats, np.float32).reshape(-1, 3))
    return _undone(seen, kept, gathered, np.asarray(added, np.float64))


def washed(
    feats: np.ndarray,
    plates: np.ndarray,
    transmission: float,
    added: float | np.ndarray = 0.0,
) -> np.ndarray:
    """The inverse of :func:`corrected`: colour features (``(n, 3)``, as with no plate in
    front) as they look behind ``plates`` (``(n,)``)."""
    kept, gathered = _through(plates, transmission)
    bgr = feature_to_bgr(np.asarray(feats, np.float32).reshape(-1, 3))
    added = np.asarray(added, np.float64)
    return features(bgr * kept[:, None] + added * gathered[:, None])


def relit(
    feats: np.ndarray,
    plates: np.ndarray,
    gain: float,
    transmission: float = 1.0,
    added: float | np.ndarray = 0.0,
) -> np.ndarray:
    """Colour features (``(n, 3)``) of tokens seen behind ``plates`` (``(n,)``) as they
    would look lit ``gain`` times as brightly: only the light that comes from the token is
    scaled, the light the plates add in front of it stays (a shaded dark token behind the
    veil of three plates brightens far less in the picture than its own light does)."""
    _, gathered = _through(plates, transmission)
    veil = np.asarray(added, np.float64) * gathered[:, None]
    seen = feature_to_bgr(np.asarray(feats, np.float32).reshape(-1, 3))
    return features(np.maximum((seen - veil) * gain + veil, 0.0))


def light_ratio(lit: np.ndarray, shaded: np.ndarray) -> float:
    """How many times more light a surface sends when it looks ``lit`` than when it looks
    ``shaded`` (colour features, ``(3,)`` each; infinite when the shaded look is no light)."""
    light, dark = (feature_to_bgr(np.asarray(f, np.float32)).sum() for f in (lit, shaded))
    return float(light / dark) if dark > 0 else float("inf")


def _undone(
    seen: np.ndarray, kept: np.ndarray, gathered: np.ndarray, added: np.ndarray
) -> np.ndarray:
    """Features of BGR colours ``seen`` (``(..., n, 3)``) with the plates' light taken off:
    ``added`` (B, G, R, broadcast against ``(..., 1, 3)``) times the plates' worth each
    token gathered, the rest scaled back up by the share ``kept`` (both ``(..., n)``)."""
    return features(np.maximum((seen - added * gathered[..., None]) / kept[..., None], 0.0))


def estimate_plate_loss(
    feats: np.ndarray, plates: np.ndarray, sets: np.ndarray | None = None
) -> tuple[float, np.ndarray] | None:
    """Light kept per plate and the light each plate adds (``(3,)`` B, G, R grey levels),
    from the colours of the tokens of one frame and how many plates lie in front of each
    (``plates``, ``(n,)``). A "tier" below is the tokens behind one whole number of plates
    (``plates`` rounded): on the board these are mostly the tokens of one tier.

    ``sets`` (optional, ``(n,)``) says which set each token is known to belong to (the
    game's word; -1 for a token nobody vouches for): a token of a known set is then only
    compared with the tokens of its own set (or of none) on the other tiers, and a tier
    without them says nothing. Without it, a dark set three tiers down can be corrected
    onto its lighter sibling on the top tier as well as onto itself, and a few tokens
    cannot tell the two apart.

    For candidate values, every token's corrected colour is compared with the nearest
    token on each other tier, and its mismatch is the mean over those tiers (each capped
    at the distance that makes two colours different sets: a tier may hold no token of
    that set, and how far the nearest other set lies says nothing); the values with the
    smallest median mismatch win (a coarse grid of grey added light, then finer ones
    around its best). Then the added light's colour is searched, its brightness kept,
    and the values refined once more with it. Asking only for the nearest token on *any*
    other tier let a washed-out set match itself one tier step at a time, so no
    correction looked as good as the right one, and two sets of one hue (crimson and
    pink) ran together. Added light that would leave more than a tenth of the tokens
    darker than black is not considered. Returns
    ``None`` when the tokens cannot tell (too few, or all on one tier). Raises
    ``ValueError`` if ``feats`` and ``plates`` differ in length.
    """
    feats = np.asarray(feats, np.float32).reshape(-1, 3)
    plates = np.asarray(plates, np.float64).reshape(-1)
    tiers = np.rint(plates).astype(np.int64)
    sets = (
        np.full(len(tiers), -1, np.int64)
        if sets is None
        else np.asarray(sets, np.int64).reshape(-1)
    )
    if not len(feats) == len(tiers) == len(sets):
        raise ValueError(f"{len(feats)} colours, {len(plates)} plate counts and {len(sets)} sets")
    if len(feats) < MIN_TOKENS or len(np.unique(tiers)) < 2:
        return None
    alike = _comparable(sets)
    if not (alike & (tiers[:, None] != tiers[None, :])).any():
        return None  # no token has a token it may match on another tier
    seen = feature_to_bgr(feats)

    def grid(transmissions: np.ndarray, added: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every pair of the candidate values, as two flat arrays."""
        t_grid, a_grid = np.meshgrid(transmissions, added, indexing="ij")
        return t_grid.ravel(), a_grid.ravel()

    def pick(
        costs: np.ndarray, t_grid: np.ndarray, a_grid: np.ndarray
    ) -> tuple[float, float, float]:
        """The best candidate of a grid: its mismatch, transmission and added light."""
        # Ties go to the clearest plates: what the tokens cannot tell is not corrected.
        cost, t, a = min(zip(costs.tolist(), (-t_grid).tolist(), a_grid.tolist()))
        return cost, -t, a

    def search(
        transmissions: np.ndarray, added: np.ndarray, tint: np.ndarray = GREY
    ) -> tuple[float, float, float]:
        t_grid, a_grid = grid(transmissions, added)
        return pick(_mismatch(seen, plates, alike, t_grid, a_grid[:, None] * tint), t_grid, a_grid)

    def refined(
        transmission: float, added: float, t_step: float, a_step: float, tint: np.ndarray
    ) -> tuple[float, float]:
        for _ in range(REFINEMENTS):  # each time a finer grid around the best so far
            t_step, a_step = t_step / 2, a_step / 2
            _, transmission, added = search(
                np.clip(transmission + np.arange(-2, 3) * t_step, *TRANSMISSION_RANGE),
                np.clip(added + np.arange(-2, 3) * a_step, *ADDED_RANGE),
                tint,
            )
        return transmission, added

    cost, transmission, added = search(
        _span(TRANSMISSION_RANGE, TRANSMISSION_STEP), _span(ADDED_RANGE, ADDED_STEP)
    )
    # Strongly tinted plates (green acrylic) hide from a grey search: no grey light added
    # brings a dark set two plates down back to its colour, and a pale set changes too little
    # to show any, so the grey search kept clear plates (bench game 3707: a maroon token two
    # plates down, grey-green there, read as the pale green set). The strongest tints
    # start a search of their own, on a coarser grid; the best start is refined.
    t_step, a_step = TINTED_START_COARSER * TRANSMISSION_STEP, TINTED_START_COARSER * ADDED_STEP
    # (no added light is the grey search's: every tint of none is none)
    t_grid, a_grid = grid(_span(TRANSMISSION_RANGE, t_step), _span(ADDED_RANGE, a_step)[1:])
    tints = [tint for tint in _tints(3) if not np.allclose(tint, GREY)]
    costs = _mismatch(  # (every tint's grid in one pass: each pass has a fixed cost)
        seen,
        plates,
        alike,
        np.tile(t_grid, len(tints)),
        np.concatenate([a_grid[:, None] * tint for tint in tints]),
    )
    start = GREY
    for tint, tint_costs in zip(tints, np.split(costs, len(tints))):
        tinted = pick(tint_costs, t_grid, a_grid)
        if tinted[0] < cost:
            (cost, transmission, added), start = tinted, tint
    transmission, added = refined(transmission, added, TRANSMISSION_STEP, ADDED_STEP, start)
    tint = start
    if added > 0:
        tints = _tints()
        costs = _mismatch(
            seen, plates, alike, np.full(len(tints), transmission), added * np.stack(tints)
        )
        # Ties go to the greyest light: a colour the tokens cannot tell is not corrected.
        greyness = [float(np.abs(candidate - 1.0).sum()) for candidate in tints]
        tint = tints[np.lexsort((greyness, costs))[0]]
        transmission, added = refined(transmission, added, TRANSMISSION_STEP, ADDED_STEP, tint)
    without, with_added = _mismatch(
        seen, plates, alike, np.full(2, transmission), np.stack([np.zeros(3), added * tint])
    )
    if without <= with_added:  # no evidence for added light
        return transmission, np.zeros(3)
    return transmission, added * tint


def _comparable(sets: np.ndarray) -> np.ndarray:
    """``(n, n)``: which tokens may be of one set (the same known set, or one not known)."""
    unknown = sets < 0
    return (sets[:, None] == sets[None, :]) | unknown[:, None] | unknown[None, :]


def _mismatch(
    seen: np.ndarray,
    plates: np.ndarray,
    alike: np.ndarray,
    transmissions: np.ndarray,
    added: np.ndarray,
) -> np.ndarray:
    """How badly each candidate (``transmissions`` ``(g,)``, ``added`` ``(g, 3)`` B, G, R)
    makes the tokens (``seen`` ``(n, 3)`` BGR behind ``plates``) match their sets on the
    other tiers, ``(g,)``: see :func:`estimate_plate_loss`; only pairs ``alike`` (``(n, n)``)
    may match. All candidates at once, in chunks that keep the ``(g, n, n)`` distances
    small."""
    tiers = np.rint(plates).astype(np.int64)
    order = np.argsort(tiers, kind="stable")  # each tier's tokens one run of columns
    seen, tiers, plates = seen[order], tiers[order], plates[order]
    alike = alike[np.ix_(order, order)]
    present, starts = np.unique(tiers, return_index=True)
    own_tier = tiers[:, None] == present[None, :]
    darkest = seen.min(axis=1)
    chunk = max(1, MISMATCH_CHUNK // len(tiers) ** 2)
    out = np.empty(len(transmissions))
    for start in range(0, len(transmissions), chunk):
        part = slice(start, start + chunk)
        kept, gathered = _through(plates, np.asarray(transmissions[part])[:, None])
        fixed = _undone(seen, kept, gathered, added[part, None, :])
        d = np.where(alike, pair_distance(fixed[:, :, None, :], fixed[:, None, :, :]), np.inf)
        nearest = np.minimum.reduceat(d, starts, axis=2)  # the nearest token on each tier
        unmatched = np.isinf(nearest)  # no token there it may match: the tier says nothing
        nearest = np.minimum(nearest, MERGE_DISTANCE)  # a tier without the set: any other set
        nearest[unmatched] = np.nan
        nearest[:, own_tier] = np.nan
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a token with nothing to match
            out[part] = np.nanmedian(np.nanmean(nearest, axis=2), axis=1)
        # Added light that would leave more than a share of the tokens darker than black.
        grey = added[part].mean(axis=1, keepdims=True)
        out[part][np.mean(darkest < grey * gathered, axis=1) > MAX_DARKER_SHARE] = np.inf
    return out
