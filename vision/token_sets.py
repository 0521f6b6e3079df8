"""The token sets: what colour each token is.

A set's colour is learned, never given as the camera sees it: from the user's
nominal palette, a sample picture, or the game itself (the first token of a
colour the game expects founds it). The clear plates in front of a point wash a
token's colour (:mod:`vision.plate_wash`), and the tokens above shade its top
under a hard light (:mod:`vision.token_shade`), so a token is compared with each
set as it would look where the token lies. In a game, the game's word on the
tokens it holds teaches the wash, founds the sets and keeps a token's colour
while its pixels stay as they were.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

import numpy as np

from calibration.colour_mixture import set_shares, set_spread
from calibration.colours import (
    RGB,
    ColourModel,
    colour_shares,
    highest_channel,
    pair_distance,
)
from vision.change import cores_moved
from vision.explain import EVIDENCE_THRESHOLD
from vision.footprint import N_POINTS, spread
from vision.frame_sampling import take_rows
from vision.gathered import GatheredPixels
from vision.plate_wash import PlateWash
from vision.stats import chroma_error, grouped_median
from vision.token_shade import TokenShade, witnesses
from vision.tracker import MIN_VISIBILITY

CLEAR_OF_PLATES = 0.5  # a token seen through less plate than this (summed over its top) is unwashed
COLOUR_MARGIN = 0.0  # a pixel must match a token colour this much better than the empty board
COLOUR_RAMP = 0.5  # ... and this much more again to count as a sure token pixel


class TokenSets:
    """The token sets of one camera's board (``pixels``: the gathered pixels; ``shade``: the
    shade on the tokens' tops; ``reference``: the empty board's colour features per gathered
    pixel). ``palette`` (nominal RGB colours) fixes the colour indices;
    ``reference_balance`` is the empty board's grey-world balance, which relates the palette
    to what the camera sees; at most ``max_colours`` sets are learned."""

    def __init__(
        self,
        pixels: GatheredPixels,
        shade: TokenShade,
        reference: np.ndarray,
        *,
        palette: Sequence[RGB] | None,
        reference_balance: np.ndarray,
        max_colours: int,
    ) -> None:
        self._pixels, self._shade, self._reference = pixels, shade, reference
        self._footprints = pixels.footprints
        self.model = ColourModel(
            palette=palette, reference_balance=reference_balance, max_colours=max_colours
        )
        #: What the plates in front of each point do to a token's colour, as learned.
        self.wash = PlateWash(self._footprints.plates_above)
        #: The colour the next placed token should have (set by whoever knows the game);
        #: the first token of a colour not learned yet founds it (see ColourModel.found).
        self.expected: int | None = None
        self.known = {}
        #: Colours founded in a game on tokens the game has not taken yet, and those tokens'
        #: points (see :meth:`_forget_unvouched`).
        self._unvouched: dict[int, np.ndarray] = {}
        #: Each set's spread around its washed colour as a still picture's tokens showed it,
        #: and for which plates' loss and set colours (see :meth:`_learn_spreads`).
        self._spreads: tuple[tuple, list[tuple[np.ndarray, np.ndarray]]] | None = None
        self._memo: tuple[np.ndarray, object, bytes, tuple] | None = None
        # In a game, per point the colour the game holds there that a calm read last read it
        # as (-1: none), and its core's pixels then, per core entry (see _anchored).
        self._anchor_colour = np.full(N_POINTS, -1, np.int64)
        self._colour_anchor = np.zeros((3, len(pixels.core.index)), np.float32)

    @property
    def known(self) -> Mapping[int, int]:
        """The colour of each token the game holds (point -> colour), from whoever knows the
        game: the plates' colour loss is then learned from tokens of one set matching."""
        return self._known

    @known.setter
    def known(self, held: Mapping[int, int]) -> None:
        # (looked up per point several times a read: once per frame as an array)
        self._known = dict(held)  # (a copy: the array below stays its picture)
        self.known_array = np.full(N_POINTS, -1, np.int64)
        if held:
            self.known_array[np.fromiter(held.keys(), np.int64)] = np.fromiter(
                held.values(), np.int64
            )

    def keep_from(self, earlier: TokenSets) -> None:
        """Take on what ``earlier`` (the same board seen before the camera moved) learned: the
        set colours, the plates' wash and the colours founded on tokens the game has not
        taken."""
        self.model = copy.deepcopy(earlier.model)
        self.wash.keep_from(earlier.wash)
        self._unvouched = dict(earlier._unvouched)

    def shares(
        self,
        feats: np.ndarray,
        foreground: np.ndarray,
        accepted: np.ndarray,
        px: np.ndarray,
        *,
        before_accepted: np.ndarray | None,
        still_noise: float | None,
        learn: bool,
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The known sets' colour indices and per point the share of each (``(N_POINTS, m)``)
        for the ``accepted`` tokens read in a frame (colour features ``feats``, ``foreground``
        where it changed surely; ``px``: its gathered pixels, ``still_noise``: the noise of a
        difference of two frames, see :meth:`_anchored`); None while no set is known. With
        ``learn`` the sets and the wash learn from the frame first (see :meth:`read`).

        Each token is compared with each set as the plates in front of the point wash it
        (see :meth:`vision.plate_wash.PlateWash.distances`): with the wash undone instead, any
        error in the wash as learned grew with the plates, and tokens of a dark set two and
        three plates down read as another set. Until the wash is learned, a token is told
        less surely from a set learned behind another number of plates (see
        :meth:`vision.plate_wash.PlateWash.doubt`), and in a game the turn decides a close
        call (see :func:`vision.tracker.steadied`): green plates turned a maroon token two
        plates down grey-green, nearer a pale green set (bench game 3707)."""
        seen, readable, error = self.read(
            feats, foreground, accepted, before_accepted=before_accepted, learn=learn
        )
        keys, protos = self.model.prototype_array()
        if self.model.n_colours == 0 or len(keys) == 0:
            return None
        spreads = self._spreads
        # (measured around these set colours as this wash washes them)
        if spreads is not None and self.wash.same(spreads[0], protos):
            # (a still picture: each set weighed by its own spread, see _learn_spreads)
            share = set_shares(seen[None, :, :] - self.wash.sets_as_seen(protos), spreads[1])
        else:
            if self.wash.loss is None:  # (the plates' wash not learned yet)
                error = np.hypot(error[:, None], self.wash.doubt(keys))
            share = colour_shares(
                self.wash.distances(seen, np.arange(N_POINTS), protos), error=error
            )
        # A token with no pixel to read its colour from (its top behind others, its wall
        # left) is any known colour alike: the game's word on it decides (vision.tracker).
        share[~readable] = 1.0 / len(keys)
        self._anchored(px, share, keys, accepted & readable, still_noise=still_noise, learn=learn)
        return keys, share

    def of_tokens(
        self,
        feats: np.ndarray,
        foreground: np.ndarray,
        accepted: np.ndarray,
        *,
        before_accepted: np.ndarray | None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Mean colour feature of each accepted token's changed top-disc pixels well inside its
        outline (the top is lit most evenly, the rim mixes in the table; unchanged pixels are
        left out because printed lines of the plates above cross them), falling back to the
        changed pixels of the whole core; how many were used; and how far off that colour's
        chroma may be (see :func:`vision.stats.chroma_error`).
        Pixels that an accepted token on a higher tier covers are left out: they show that
        nearer token, not this one. ``before_accepted``: the tokens of the calm board before
        the hand came (None: no visit), which alone may tell the light on the tops."""
        # (the plates' loss as learned is part of it: it relights the shaded tops)
        key = accepted.tobytes()
        memo = self._memo
        if (  # a still picture asks twice
            memo is not None and memo[0] is feats and memo[1] is self.wash.loss and memo[2] == key
        ):
            return memo[3][0].copy(), memo[3][1].copy(), memo[3][2].copy()
        mean, used, error = self.measure(
            feats, foreground, accepted, before_accepted=before_accepted, with_error=True
        )
        self._memo = (feats, self.wash.loss, key, (mean.copy(), used.copy(), error.copy()))
        return mean, used, error

    def measure(
        self,
        feats: np.ndarray,
        foreground: np.ndarray,
        accepted: np.ndarray,
        *,
        before_accepted: np.ndarray | None,
        with_error: bool = False,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """See :meth:`of_tokens`; the chroma error is measured ``with_error`` only (zero
        otherwise: the front votes read colours twice a frame and need none)."""
        mean = np.zeros((N_POINTS, 3))
        used = np.zeros(N_POINTS, np.int64)
        error = np.zeros(N_POINTS)
        nearest = self._pixels.nearest_tier(accepted)
        idx = self._pixels.core.index
        use = (
            foreground[idx]
            & spread(accepted, self._pixels.core.count)
            & (nearest[idx] <= self._pixels.core_tier)
        )
        core_pts, core_rows = self._pixels.core.point[use], take_rows(feats, idx[use])
        n = np.bincount(core_pts, minlength=N_POINTS)
        sums = np.stack(
            [np.bincount(core_pts, weights=core_rows[:, k], minlength=N_POINTS) for k in range(3)],
            axis=1,
        )
        by_core = n >= 3
        mean[by_core] = sums[by_core] / n[by_core, None]
        used[by_core] = n[by_core]
        # The top (inside the rim) overrides the core where it has pixels: the median of its
        # pixels that changed at least as much as the disc on average. Printed lines and
        # reflections of the plates above lie in front of the token and in the reference
        # alike, so they dilute the change: where it is largest the token shows most purely,
        # however much of the disc the lines cross.
        idx, pts = self._pixels.top.index, self._pixels.top.point
        use = (
            self._pixels.top_inside
            & spread(accepted, self._pixels.top.count)
            & (nearest[idx] <= self._pixels.top_tier)
        )
        use = np.flatnonzero(use)
        rows = idx[use]
        delta = take_rows(feats, rows) - take_rows(self._reference, rows)
        moved = np.sqrt(delta[:, 0] ** 2 + delta[:, 1] ** 2 + delta[:, 2] ** 2)
        total = np.bincount(pts[use], weights=moved, minlength=N_POINTS)
        average = total / np.maximum(np.bincount(pts[use], minlength=N_POINTS), 1)
        use = use[moved >= average[pts[use]] - 1e-6]
        top = self._out_of_shade(feats, use, accepted, before_accepted)
        median, n = grouped_median(pts[use], top)
        by_top = n >= 3
        mean[by_top] = median[by_top]
        used[by_top] = n[by_top]
        if not with_error:
            return mean, used, error
        error[by_top] = chroma_error(pts[use], top, median)[by_top]
        by_core &= ~by_top
        if by_core.any():  # (most tokens show their top)
            mine = by_core[core_pts]
            error[by_core] = chroma_error(core_pts[mine], core_rows[mine], mean)[by_core]
        return mean, used, error

    def _out_of_shade(
        self,
        feats: np.ndarray,
        samples: np.ndarray,
        accepted: np.ndarray,
        before_accepted: np.ndarray | None,
    ) -> np.ndarray:
        """Colour features of the top-disc samples ``samples`` (``GatheredPixels.top``
        entries) of the ``accepted`` tokens as they would look if nothing above shaded them
        (see :meth:`vision.token_shade.TokenShade.tops_relit`)."""
        shade = self._shade.on_tokens(feats, accepted, witnesses(accepted, before_accepted))
        return self._shade.tops_relit(feats, samples, accepted, shade, self.wash.loss)

    def vouched(self, points: np.ndarray) -> np.ndarray:
        """The colour the game holds at each of ``points`` (-1: none, or no game)."""
        return self.known_array[points]

    def read(
        self,
        feats: np.ndarray,
        foreground: np.ndarray,
        accepted: np.ndarray,
        *,
        before_accepted: np.ndarray | None,
        learn: bool,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each accepted token's colour as the camera sees it (behind the plates in front of
        it), which tokens had pixels to read it from, and how far off its chroma may be (see
        :func:`vision.stats.chroma_error`); with ``learn``, the colour model (with the plates
        undone: its colours are as on the top tier) and the plates' colour loss learn from those
        whose top the camera sees at least in part (a point wholly behind the post, taken on a few
        changed pixels, once taught the model the table's colour, and every set after it took the
        wrong number)."""
        seen, n, error = self.of_tokens(
            feats, foreground, accepted, before_accepted=before_accepted
        )
        has_pixels = accepted & (n > 0)
        if not learn:
            return seen, has_pixels, error
        visibility = self._footprints.token_visibility(accepted)
        readable = has_pixels & (visibility > 0.0)
        points = np.flatnonzero(readable)
        sets = self.vouched(points)
        if self.expected is not None:
            # In a game, a token nobody vouches for that the players could not see either
            # (a point the game takes as hidden) teaches nothing: after a bumped camera was
            # re-fitted, a point two-thirds hidden read as changed founded a colour.
            told = (sets >= 0) | (visibility[points] >= MIN_VISIBILITY)
            points, sets = points[told], sets[told]
        self.wash.learn(seen, points, sets, self.model)
        mean = self.wash.through(seen)
        if self.expected is not None:
            self._forget_unvouched(accepted, sets)
        # A colour not known yet is founded by the game's word: the first token the game
        # says is of it (the players told the moves the camera missed), else the one token
        # a hand visit added, which is the colour the game expects next. Only tokens the
        # players could see count as added: a phantom two-thirds behind the post, new with
        # a near-white set's first token, left it two new tokens, founding nothing, and the
        # token read as the grey set played out of turn (bench game 8104).
        founders: dict[int, int] = {}
        unknown = (sets >= 0) & ~np.isin(sets, list(self.model.prototypes))
        for point, colour in zip(points[unknown].tolist(), sets[unknown].tolist()):
            founders.setdefault(colour, point)
        if self.expected is not None and before_accepted is not None:
            new = points[(sets < 0) & ~before_accepted[points]]
            if len(new) == 1:
                founders.setdefault(self.expected, int(new[0]))
        for colour, point in founders.items():
            if self.model.found(colour, mean[point], self.wash.unsure(point, self.model)):
                self.wash.note_unplated({colour: float(self._footprints.plates_above[point])})
                if colour not in sets:
                    self._unvouched[colour] = np.array([point])
        if len(points):
            unwashed = self._footprints.plates_above[points] < CLEAR_OF_PLATES
            created = self.model.learn(mean[points], sets, unwashed)
            if self.expected is not None:
                for colour in created:
                    self._unvouched[colour] = points[self.model.founded_on[colour]]
            if created:
                # Each new colour was seen behind as many plates as most of its nearest
                # tokens are.
                nearest, _ = self.model.nearest(mean[points])
                plates = self._footprints.plates_above[points]
                self.wash.note_unplated(
                    {
                        c: float(np.median(plates[nearest == c]))
                        for c in created
                        if (nearest == c).any()
                    }
                )
                if self.expected is None and not (sets >= 0).any():
                    self.wash.relearn_by_sets(seen, points, self.model)
                    self._learn_spreads(seen, points)
        return seen, has_pixels, error

    def _forget_unvouched(self, accepted: np.ndarray, vouched: np.ndarray) -> None:
        """In a game, a colour founded on tokens the game had not taken (read before anyone
        said whose they were) is forgotten when those tokens are gone and the game never took
        one of them as that colour, or when the game says a token the camera reads now
        (``vouched``: the colours it holds at the points read) is of that colour and took
        none of them: what founded it was no token of the set. A fingertip over the board,
        read as a token for a frame before the hand was seen, founded a colour the set's real
        first token then lay far from (nearer another set), and the players were asked where
        that colour's token went (bench game 7802). So, too, when the game took every one of
        them as another set's: a purple token three plates down lay just past the merge
        radius of its own set, founded the number of a set whose only token was hidden, and
        that set's first token in view read as another set, played out of turn (bench game
        8704). The game's word, or the next token the colour to play adds, founds it again."""
        held = self.known
        for colour, points in list(self._unvouched.items()):
            if any(held.get(int(p)) == colour for p in points):
                del self._unvouched[colour]  # the game took one of them: the set is real
            elif (
                colour in vouched
                or not accepted[points].any()
                or all(int(p) in held for p in points)  # (each taken as another set's)
            ):
                del self._unvouched[colour]
                self.model.forget(colour)
                self.wash.unplated.pop(colour, None)

    def _learn_spreads(self, seen: np.ndarray, points: np.ndarray) -> None:
        """Learn how far each set's tokens spread around its colour as the plates in front
        wash it, from the tokens the sets were founded on (as the Gaussian mixture chose
        them, see :mod:`calibration.colour_mixture`; a token no set was founded on counts
        with the set it reads as). The sets of one picture spread unlike each other: behind
        tinted plates a white set drifts towards the tint and a grey set stays tight, and
        the fixed colour distance matched white tokens to the grey set nearer in hue where
        brightness told them apart. ``seen``: the tokens' colours as seen, at ``points``."""
        keys, protos = self.model.prototype_array()
        self._spreads = None
        if self.wash.loss is None or len(keys) < 2:
            return
        labels = self.wash.distances(seen[points], points, protos).argmin(axis=1)
        for colour, members in self.model.founded_on.items():
            labels[members] = int(np.searchsorted(keys, colour))
        behind = self.wash.sets_as_seen(protos)
        spreads = []
        for j in range(len(keys)):
            mine = points[labels == j]
            spreads.append(set_spread(seen[mine] - behind[j, mine]))
        self._spreads = (self.wash.key(protos), spreads)

    def evidence(
        self,
        feats: np.ndarray,
        open_core: np.ndarray,
        changed: np.ndarray,
        accepted: np.ndarray,
        *,
        before_accepted: np.ndarray | None,
        neutral: bool,
    ) -> np.ndarray | None:
        """0..1 per core pixel (``GatheredPixels.core`` order): how much better a token of a
        known colour explains the pixel than the empty board does. A token the table's colour
        changes its pixels little, but still matches its set's colour more closely than
        the empty board there; a shadow matches the empty board, only darker.

        The pixels asked are those of ``open_core`` (core entries of undecided points that no
        accepted token covers) that ``changed`` (per core entry: beyond the sensor noise); 0
        elsewhere, as most points are plainly empty. A camera stream counts a pixel no set
        explains better as board (the change across the hand's visit finds a faint token;
        counted neutral, an empty point beside a new token passed in bench game 1302). With
        ``neutral`` (a still picture) every pixel of ``open_core`` is asked: one a set
        explains as well as the board says nothing either way (0.5, the selection's
        threshold), less as the board explains it better, and more as the set does, but only
        where it changed (an unchanged pixel raised by a match within the noise read tables
        and a bare lamp's shadows as tokens). Counted as plain board, the pixels of a grey
        token on a grey table, explained alike, kept it under the bar in full view.

        A token there would lie in the shade of the ``accepted`` tokens above it where they
        shade the point's top: its pixels are matched to the sets relit (see
        :meth:`vision.token_shade.TokenShade.on_tokens`; a light the tokens cannot tell about is
        taken, one they refute is not), and compared with the empty board as seen."""
        keys, protos = self.model.prototype_array()
        if len(keys) == 0:
            return None
        entries = open_core if neutral else open_core & changed
        idx = self._pixels.core.index[entries]
        pixel = take_rows(feats, idx)
        points = self._pixels.core.point[entries]
        # (a token there would lie in the shade of the ``accepted`` tokens above it)
        shade = self._shade.on_tokens(
            feats, accepted, witnesses(accepted, before_accepted), confirmed=False
        )
        token = self._shade.cores_relit(pixel, entries, shade, self.wash.loss)
        to_token = self.wash.distances(token, points, protos).min(axis=1)
        to_board = self._to_empty_board(pixel, idx)
        out = np.zeros(len(self._pixels.core.index), np.float32)
        better = np.clip((to_board - to_token - COLOUR_MARGIN) / COLOUR_RAMP, -1.0, 1.0)
        if neutral:
            # (a changed pixel rises from 0.5 towards a sure token pixel; an unchanged one cannot)
            out[entries] = EVIDENCE_THRESHOLD * (
                1.0 + np.where(changed[entries], better, np.minimum(better, 0.0))
            )
        else:
            out[entries] = np.maximum(better, 0.0)
        return out

    def _to_empty_board(self, pixel: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Colour distance of each of ``pixel`` (features of the gathered pixels ``idx``) from
        the empty board there: as the reference shows it or, inside the shadows found (on
        the base or the table around it), darkened by them, whichever is nearer. A shadow too
        faint to be taken out of the change is still the board's (a point under a new token's
        shadow, its pixels relit, matched a pale set better than the unshaded board: bench
        game 1602 announced a phantom there)."""
        board = take_rows(self._reference, idx)
        distance = pair_distance(pixel, board)
        found = self._shade.found
        if found is not None:
            under = np.flatnonzero(found.mask[idx])
            shaded = pair_distance(pixel[under], board[under] + found.shift_at(idx[under]))
            distance[under] = np.minimum(distance[under], shaded)
        return distance

    def _anchored(
        self,
        px: np.ndarray,
        share: np.ndarray,
        keys: np.ndarray,
        accepted: np.ndarray,
        *,
        still_noise: float | None,
        learn: bool,
    ) -> None:
        """In a game, a token the game holds that a calm read read as the game's colour keeps
        it while its core is unchanged since (as a stream judges a point read again): the same
        pixels are the same token, and what moved is the colour model. A token swapped for
        another colour changes its pixels, and is read as it is. The plates' colour loss,
        learned from the sets, moved a near-black set's colour toward a brown token one plate
        down in the shade, and that token, unchanged for thirty frames, read as the black
        set's (bench game 9002 under a bare lamp). Changes ``share`` (per point and colour of
        ``keys``) in place; with ``learn`` (a calm frame) the ``accepted`` tokens that read
        as the game's colour are the new anchors."""
        vouched = self.known_array
        held = accepted & np.isin(vouched, keys)
        if not held.any() or still_noise is None:
            return
        column = np.searchsorted(keys, np.where(held, vouched, keys[0]))
        read_as = keys[np.argmax(share, axis=1)]
        kept = held & (self._anchor_colour == vouched) & (read_as != vouched)
        if kept.any():
            # (only the kept points' core entries are compared; the others count unchanged)
            entries = np.flatnonzero(spread(kept, self._pixels.core.count))
            largest = np.zeros(len(self._pixels.core.index), np.float32)
            largest[entries] = highest_channel(
                np.abs(px[:, self._pixels.core.index[entries]] - self._colour_anchor[:, entries]).T
            )
            kept &= ~cores_moved(self._pixels.core, largest, still_noise)
            share[kept] = 0.0
            share[kept, column[kept]] = 1.0
        if learn:
            agree = held & (read_as == vouched)
            entries = spread(agree, self._pixels.core.count)
            self._colour_anchor[:, entries] = px[:, self._pixels.core.index[entries]]
            self._anchor_colour[agree] = vouched[agree]
