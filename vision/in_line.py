"""Which of two points in line holds the token.

A token on a higher tier can cover the same image area as the empty point below
it, and the other way round (see ``Footprints.overlap``): both cores see the same
change. What tells them apart is the ring around each (once the tokens around
them are explained), the outline a token draws across its own rim, and the colour
the plates in front of each point would leave. Where none of them tells, the pair
is a toss-up (``Selection.in_line``) for the players to settle.
"""

from __future__ import annotations

import dataclasses
import logging

import numpy as np

from vision.explain import MIN_SCORE, Cover, Selection, TokenSelector
from vision.footprint import N_POINTS, spread
from vision.gathered import GatheredPixels
from vision.rim import RimOutlines
from vision.token_sets import TokenSets

logger = logging.getLogger(__name__)

TIE_MARGIN = 0.03  # two points in line whose scores are this close are the camera's toss-up
TIE_COLOUR_MARGIN = 0.5  # colour units by which one tier's plates must explain a toss-up better


class InLineJudge:
    """Judges points in line for one camera's reader: by the selection's scores
    (``selector``, over the gathered ``pixels``), by the outlines (``rim``) and by the token
    sets' colours as the plates wash them (``sets``)."""

    def __init__(
        self,
        pixels: GatheredPixels,
        selector: TokenSelector,
        rim: RimOutlines,
        sets: TokenSets,
    ) -> None:
        self._pixels, self._selector, self._rim, self._sets = pixels, selector, rim, sets

    def nearer(
        self,
        evidence: np.ndarray,
        core_evidence: np.ndarray,
        reading: Selection,
        gain: np.ndarray,
    ) -> Selection:
        """Judge each accepted point against the unaccepted nearer point in line with it (whose
        token would hide most of its top) once more, now that the tokens around them are
        explained. Both cores see the same change; what tells them apart is the ring around
        each, and in the first round the ring of a point in a crowd is still full of its
        neighbours' change. Scored as the selection scores (mean net core evidence less the
        ring penalty) over the pixels no other accepted token covers, the nearer point takes
        the farther one's place where it now explains the change better (the farther token,
        if any, is then hidden behind it). Pairs of either order that score within
        ``TIE_MARGIN`` of each other are kept as ``in_line``: which of the two holds the token
        is then the sensor noise's call, and the players are asked. (``gain``: the frame's
        light per channel, for the outlines, see :meth:`_ties`.)"""
        accepted = reading.accepted
        cover = self._pixels.cover(accepted)
        far, near, far_score, near_score, far_open, near_open = self._scores(
            evidence,
            core_evidence,
            reading,
            cover,
            self._pixels.in_line_far,
            self._pixels.in_line_near,
        )
        # (and the other order: a token taken on the nearer point, the farther one not)
        nearer_first = self._scores(
            evidence,
            core_evidence,
            reading,
            cover,
            self._pixels.in_line_near,
            self._pixels.in_line_far,
        )
        in_line = np.concatenate(
            [
                self._ties(accepted, far, near, far_score, near_score, far_open, near_open, gain),
                self._ties(accepted, *nearer_first, gain),
            ]
        )
        better = (
            (near_score > far_score)
            & (near_score >= MIN_SCORE)
            & (near_open >= self._selector.min_open[near])
        )
        if not better.any():
            return dataclasses.replace(reading, in_line=in_line)
        # One nearer point per farther one: the best.
        far, near = far[better], near[better]
        near_score, near_open = near_score[better], near_open[better]
        order = np.lexsort((-near_score, far))
        first = np.concatenate([[True], far[order][1:] != far[order][:-1]])
        keep = order[first]
        far, near, near_score, near_open = far[keep], near[keep], near_score[keep], near_open[keep]
        logger.debug("nearer points in line taken: %s for %s", near.tolist(), far.tolist())
        accepted = accepted.copy()
        accepted[far] = False
        accepted[near] = True
        new_score, new_open = reading.score.copy(), reading.open_core.copy()
        new_score[near], new_open[near] = near_score, near_open
        return Selection(
            accepted=accepted,
            score=new_score,
            open_core=new_open,
            active=reading.active,
            in_line=in_line,
        )

    def _scores(
        self,
        evidence: np.ndarray,
        core_evidence: np.ndarray,
        reading: Selection,
        cover: Cover,
        taken: np.ndarray,
        other: np.ndarray,
    ) -> tuple[np.ndarray, ...]:
        """The in-line pairs (of ``taken``/``other``, the pair tables in one order) whose
        ``taken`` point is accepted and ``other`` point not but changed, and per pair both
        points' selection scores and open core pixels (see :meth:`_pair_scores`; ``cover``:
        the accepted tokens'):
        ``(held, rival, held_score, rival_score, held_open, rival_open)``."""
        accepted = reading.accepted
        pair = accepted[taken] & ~accepted[other] & reading.active[other]
        held, rival = taken[pair], other[pair]
        return (held, rival, *self._pair_scores(evidence, core_evidence, cover, held, rival))

    def _pair_scores(
        self,
        evidence: np.ndarray,
        core_evidence: np.ndarray,
        cover: Cover,
        held: np.ndarray,
        rival: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per pair of a ``held`` point (accepted) and its in-line ``rival``: the selection
        scores of both and their open core pixels, ``(held_score, rival_score, held_open,
        rival_open)``, over the pixels the accepted tokens (``cover``) other than that pair's
        held one leave open: each pair judged as if the token could be on either point. (Freeing
        every held point at once let the neighbours' change spill into a rival's ring: a red token
        plainly on C3Q lost to the farther D4P behind it.)"""
        points = np.concatenate([held, rival])
        score, open_core = self._selector.score_freed(
            evidence, core_evidence, points, np.concatenate([held, held]), cover
        )
        n = len(held)
        return score[:n], score[n:], open_core[:n], open_core[n:]

    def _ties(
        self,
        accepted: np.ndarray,
        held: np.ndarray,
        rival: np.ndarray,
        held_score: np.ndarray,
        rival_score: np.ndarray,
        held_open: np.ndarray,
        rival_open: np.ndarray,
        gain: np.ndarray,
    ) -> np.ndarray:
        """The ``(k, 2)`` pairs of :meth:`_scores` that both would hold a token and
        score within ``TIE_MARGIN`` of each other, or whose outlines argue against the
        scores: the rival's rim grew more contrast than the held point's (see
        :meth:`vision.rim.RimOutlines.growth`). The cores of two points in line see nearly
        the same pixels, and the few that differ can weigh more than the token: a dark token on F5Q
        left the dark printed lines under it unchanged, F4P's smaller core, under it, held fewer of
        them and scored clearly higher, and only the outline said where the token was (bench game
        6508, the camera overhead)."""
        min_open = self._selector.min_open
        both = (
            (held_score >= MIN_SCORE)
            & (rival_score >= MIN_SCORE)
            & (held_open >= min_open[held])
            & (rival_open >= min_open[rival])
        )
        tied = both & (np.abs(held_score - rival_score) < TIE_MARGIN)
        untied = both & ~tied
        if untied.any():
            tied[untied] = self.outline_prefers(
                rival[untied], held[untied], accepted, held[untied], gain
            )
        return np.stack([held[tied], rival[tied]], axis=1)

    def outline_prefers(
        self,
        first: np.ndarray,
        second: np.ndarray,
        accepted: np.ndarray,
        freed: np.ndarray,
        gain: np.ndarray,
    ) -> np.ndarray:
        """Per row: whether the rim of ``first[k]`` grew more contrast than that of
        ``second[k]`` in the frame last sampled (``gain``: its light), both judged (see
        :meth:`vision.rim.RimOutlines.growth`; ``freed[k]``: the pair's accepted point). A token's
        outline draws an edge across its own rim; a point in line with it, whose outline falls
        inside or outside that token, sees no new edge there."""
        growth = self._rim.growth(
            np.concatenate([first, second]), accepted, np.tile(freed, 2), gain
        )
        mine, theirs = growth[: len(first)], growth[len(first) :]
        return np.isfinite(mine) & np.isfinite(theirs) & (mine > theirs)

    def clearly_here(
        self,
        evidence: np.ndarray,
        core_evidence: np.ndarray,
        accepted: np.ndarray,
        here: int,
        there: int,
    ) -> bool:
        """Does the selection's score of a token on ``here`` beat one on ``there`` (in line
        with it) by more than ``TIE_MARGIN``, over the pixels the other accepted tokens
        leave open?"""
        here_score, there_score, _, _ = self._pair_scores(
            evidence,
            core_evidence,
            self._pixels.cover(accepted),
            np.array([here]),
            np.array([there]),
        )
        return bool(here_score[0] > there_score[0] + TIE_MARGIN)

    def by_colour(
        self,
        feats: np.ndarray,
        foreground: np.ndarray,
        reading: Selection,
        before_accepted: np.ndarray | None,
    ) -> Selection:
        """Tell a toss-up between two points in line (``reading.in_line``) apart by colour
        where the geometry cannot: the plates above each point take and add their share
        (as learned), so a known colour as the plates above one point wash it can match the
        token's colour clearly better (by ``TIE_COLOUR_MARGIN``) than as those above the
        other wash it. The token is then read there and the two are no toss-up. A smaller
        difference still leans toward the point behind fewer plates when its lighter wash fits
        better: the token is read there, but the pair stays a toss-up (the players are still
        asked; a still picture reports the likelier point). Not the other way: a nearer token
        in shade looks as if it were behind more plates, while nothing makes a token behind
        more plates look less washed. Points the game holds a token on are left to the game's
        word (see :mod:`device.referee`). ``before_accepted``: the tokens of the calm board before
        the hand came (None: no visit), see :meth:`vision.token_sets.TokenSets.of_tokens`."""
        pairs = reading.in_line
        keys, protos = self._sets.model.prototype_array()
        if self._sets.wash.loss is None or not len(pairs) or not len(keys):
            return reading
        accepted = reading.accepted
        a, b = pairs[:, 0], pairs[:, 1]
        held, other = np.where(accepted[a], a, b), np.where(accepted[a], b, a)
        mean, used, _ = self._sets.of_tokens(
            feats, foreground, accepted, before_accepted=before_accepted
        )
        judged = (
            (accepted[a] != accepted[b])
            & (used[held] > 0)
            & (self._sets.vouched(held) < 0)
            & (self._sets.vouched(other) < 0)
        )
        if not judged.any():
            return reading
        colour = mean[held]
        here = self._sets.wash.distances(colour, held, protos).min(axis=1)
        there = self._sets.wash.distances(colour, other, protos).min(axis=1)
        decided = judged & (np.abs(here - there) >= TIE_COLOUR_MARGIN)
        plates = self._pixels.footprints.plates_above
        lean = judged & (there < here) & (plates[other] < plates[held])
        move = (decided | lean) & (there < here)
        if not move.any() and not decided.any():
            return reading
        accepted, score = accepted.copy(), reading.score.copy()
        for x, y in zip(held[move], other[move]):
            if accepted[x] and not accepted[y]:  # (a point in two toss-ups moves once)
                accepted[x], accepted[y] = False, True
                score[y] = score[x]
                logger.debug("toss-up in line read by colour: point %d instead of %d", y, x)
        open_core = self.recount_open_core(
            accepted, reading.open_core, accepted & ~reading.accepted
        )
        return dataclasses.replace(
            reading,
            accepted=accepted,
            score=score,
            open_core=open_core,
            in_line=pairs[~decided],
        )

    def recount_open_core(
        self, accepted: np.ndarray, open_core: np.ndarray, moved_in: np.ndarray
    ) -> np.ndarray:
        """``open_core`` with the core pixels of the ``moved_in`` points that have none
        counted again. A token moved to the point in line with the one first taken (or kept
        there, the one first taken dropped) had its core counted as covered by that first
        token: with no open core, the token it now holds would read as none."""
        moved_in = moved_in & (open_core <= 0)
        if not moved_in.any():
            return open_core
        uncovered = ~self._pixels.covered(accepted & ~moved_in)
        mine = spread(moved_in, self._pixels.core.count)
        open_core = open_core.copy()
        open_core[moved_in] = np.bincount(
            self._pixels.core.point[mine],
            weights=uncovered[self._pixels.core.index[mine]],
            minlength=N_POINTS,
        )[moved_in]
        return open_core
