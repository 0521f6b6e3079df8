"""Choose the set of tokens that best explains where the picture changed.

Seen through clear acrylic, the image of a token on one tier overlaps the
places where tokens on other tiers would show, so points cannot be judged one
at a time: a change explained by a token on Q must not also count for the
empty point on P in line with it, and a token on S must not hide a real one on
Q behind it. The selection is a greedy cover: points are accepted in rounds,
each round taking every candidate that explains the still-unexplained change
better than all of its overlapping rivals; the pixels its token covers are then
explained, and everyone else is scored again on what is left. A farther token
partly hidden by a nearer one is still found from its uncovered part, while an
empty point that only saw someone else's token has nothing left to explain.

The rounds are few (each accepts all non-overlapping winners at once), and a
round after the first subtracts from each point's running sums only the
entries of the pixels it explained.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.footprint import PixelSets

EVIDENCE_THRESHOLD = 0.5  # per-pixel evidence above this argues for a token, below against
RING_WEIGHT = 0.5  # change around a token's outline that it does not explain counts against it
MIN_SCORE = 0.08  # mean net evidence over a point's open core that accepts a token
MIN_OPEN_SHARE = 0.08  # a point needs this share of its core still unexplained to be judged
MIN_OPEN_PIXELS = 4
MAX_ROUNDS = 12


@dataclass(frozen=True)
class Selection:
    """What :meth:`TokenSelector.select` decided.

    ``score`` per point: mean net evidence (evidence minus the threshold, less the
    ring penalty) over the part of its core no other accepted token explains:
    at acceptance for accepted points, against the final set for the others.
    ``open_core``: how many of its core pixels that was. ``active``: points with at least
    one changed core pixel (the others cannot hold a token and were judged once).
    ``in_line``: ``(k, 2)`` pairs of points in line with the camera, one accepted, that
    explain the change equally well (the camera cannot tell which holds the token).
    """

    accepted: np.ndarray
    score: np.ndarray
    open_core: np.ndarray
    active: np.ndarray
    in_line: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))


@dataclass(frozen=True)
class Cover:
    """How many accepted tokens' silhouettes cover each pixel (``count``), and which token
    does where exactly one does (``owner``; elsewhere any of them, or -1)."""

    count: np.ndarray
    owner: np.ndarray

    @classmethod
    def of(cls, pixels: np.ndarray, points: np.ndarray, n_pixels: int) -> Cover:
        """From the silhouette entries (``pixels``, ``points``) of the accepted tokens."""
        owner = np.full(n_pixels, -1, np.int64)
        owner[pixels] = points
        return cls(np.bincount(pixels, minlength=n_pixels), owner)

    def open_for(self, pixels: np.ndarray, freed: np.ndarray) -> np.ndarray:
        """Per entry: is ``pixels[i]`` covered by no accepted token but the one on ``freed[i]``?"""
        count = self.count[pixels]
        return (count == 0) | ((count == 1) & (self.owner[pixels] == freed))


class TokenSelector:
    """Greedy explain-away token selection over one calibration's footprints.

    ``core``, ``ring`` and ``silhouette`` index the same pixel list of length
    ``n_pixels`` (the observer's gathered pixels).
    """

    def __init__(
        self, core: PixelSets, ring: PixelSets, silhouette: PixelSets, n_pixels: int
    ) -> None:
        self.core, self.ring, self.silhouette = core, ring, silhouette
        self.n_points = len(core.count)
        self.n_pixels = n_pixels
        #: Core pixels a point needs still unexplained to be judged.
        self.min_open = np.maximum(MIN_OPEN_PIXELS, MIN_OPEN_SHARE * core.count)
        self._rival_a, self._rival_b = _rivals(silhouette)
        # Core and ring entries in one list (ring points numbered n..2n-1), grouped by point:
        # each point's open entries and their sum are counted once, then only changed.
        self._entry_point = np.concatenate([core.point, ring.point + self.n_points])
        self._entry_pixel = np.concatenate([core.index, ring.index])
        self._entry_count = np.bincount(self._entry_point, minlength=2 * self.n_points)
        self._has_entries = self._entry_count > 0
        self._entry_start = (np.cumsum(self._entry_count) - self._entry_count)[self._has_entries]
        self._core_start = core.start[core.count > 0]

    def select(self, evidence: np.ndarray, core_evidence: np.ndarray | None = None) -> Selection:
        """``evidence``: 0..1 per pixel, how surely it changed; ``core_evidence`` the same per
        entry of ``core`` (default: ``evidence`` there) where a point may count more."""
        n = self.n_points
        core_net = (
            evidence[self.core.index] if core_evidence is None else core_evidence
        ) - EVIDENCE_THRESHOLD
        # Ring evidence is negated and weighted: change around an outline counts against it.
        value = np.concatenate([core_net, -RING_WEIGHT * evidence[self.ring.index]]).astype(
            np.float64
        )
        # Per entry point (core, then ring): open entries and the sum of their values (each
        # point's entries are one run). Each round subtracts the entries of the pixels it
        # explained (far fewer than all).
        counts = self._entry_count.astype(np.float64)
        sums = np.zeros(2 * n)
        sums[self._has_entries] = np.add.reduceat(value, self._entry_start)
        uncovered = np.ones(self.n_pixels, bool)
        accepted = np.zeros(n, bool)
        score, open_core = _score(sums, counts, n)
        # A point without a single changed core pixel can never be a token.
        active = np.zeros(n, bool)
        active[self.core.count > 0] = np.maximum.reduceat(core_net, self._core_start) > (
            -EVIDENCE_THRESHOLD
        )
        for _ in range(MAX_ROUNDS):
            eligible = ~accepted & active & (score >= MIN_SCORE) & (open_core >= self.min_open)
            if not eligible.any():
                break
            chosen = eligible & ~self._beaten(score, eligible)
            accepted |= chosen
            entries = self._explain(uncovered, self.silhouette.select(chosen))
            points = self._entry_point[entries]
            counts -= np.bincount(points, minlength=2 * n)
            sums -= np.bincount(points, weights=value[entries], minlength=2 * n)
            current, current_open = _score(sums, counts, n)
            undecided = ~accepted & active  # accepted points keep the score they were taken with
            score[undecided] = current[undecided]
            open_core[undecided] = current_open[undecided]
        return Selection(accepted=accepted, score=score, open_core=open_core, active=active)

    def score_freed(
        self,
        evidence: np.ndarray,
        core_evidence: np.ndarray,
        points: np.ndarray,
        freed: np.ndarray,
        cover: Cover,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per row ``k``: the selection's score of ``points[k]`` (mean net core evidence less
        the weighted mean ring evidence) and how many core pixels that was, over the pixels no
        accepted token (``cover``) covers but the one on ``freed[k]`` (-1: none). For judging a
        few points again against another set of explained pixels than :meth:`select` ended
        with. Each row frees only its own token: a point's ring beside a token freed for
        another row still counts that token's pixels as explained."""
        core_score, n_core = self._freed_means(
            self.core, core_evidence - EVIDENCE_THRESHOLD, points, freed, cover
        )
        ring_mean, _ = self._freed_means(self.ring, evidence[self.ring.index], points, freed, cover)
        return core_score - RING_WEIGHT * ring_mean, n_core

    @staticmethod
    def _freed_means(
        sets: PixelSets,
        values: np.ndarray,
        points: np.ndarray,
        freed: np.ndarray,
        cover: Cover,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per row: the mean of ``values`` (one per entry of ``sets``) over the row point's
        entries whose pixel no accepted token but the row's ``freed`` one covers, and how many
        such entries there were."""
        row, entry = sets.entries(points)
        open_ = cover.open_for(sets.index[entry], freed[row])
        n_open = np.bincount(row, weights=open_, minlength=len(points))
        total = np.bincount(row, weights=values[entry] * open_, minlength=len(points))
        return total / np.maximum(n_open, 1), n_open

    def _explain(self, uncovered: np.ndarray, pixels: np.ndarray) -> np.ndarray:
        """Mark ``pixels`` explained; returns the entries of those that were still open."""
        fresh = np.zeros(self.n_pixels, bool)
        fresh[pixels] = True
        fresh &= uncovered
        uncovered &= ~fresh
        return np.flatnonzero(fresh[self._entry_pixel])

    def _beaten(self, score: np.ndarray, eligible: np.ndarray) -> np.ndarray:
        """Eligible points with an eligible overlapping rival that scores higher (ties: the
        lower point number wins, so exactly one of two equals goes first)."""
        a, b = self._rival_a, self._rival_b
        both = eligible[a] & eligible[b]
        b_wins = both & (score[b] > score[a])
        a_wins = both & ~b_wins
        beaten = np.zeros(self.n_points, bool)
        beaten[a[b_wins]] = True
        beaten[b[a_wins]] = True
        return beaten


def _score(sums: np.ndarray, counts: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean net core evidence less the ring penalty over the open pixels, and how many core
    pixels were open. Rounded to 1e-9: a score built by subtracting explained entries carries
    float dust, and rivals with equal evidence must still tie (the lower point number wins)."""
    per_entry = sums / np.maximum(counts, 1.0)
    return np.round(per_entry[:n] + per_entry[n:], 9), counts[:n].copy()


def _rivals(silhouette: PixelSets) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(a, b)``, ``a < b``, of points whose silhouettes share a pixel."""
    order = np.lexsort((silhouette.point, silhouette.index))
    pixels, points = silhouette.index[order], silhouette.point[order]
    base = len(silhouette.count)
    keys = []
    for step in range(1, len(pixels)):  # entries ``step`` apart in one pixel's run
        same = pixels[step:] == pixels[:-step]
        if not same.any():
            break
        a, b = points[:-step][same], points[step:][same]
        keys.append(np.minimum(a, b) * base + np.maximum(a, b))
    if not keys:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    unique = np.unique(np.concatenate(keys))
    a, b = unique // base, unique % base
    distinct = a != b
    return a[distinct], b[distinct]
