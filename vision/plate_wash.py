"""What the clear plates in front of each point do to a token's colour, as one camera learns it.

The model itself (light kept and added per plate) and its estimate from the
tokens of a frame are :mod:`calibration.plate_colour`; this is the state a
reader keeps about it: the estimate as learned and followed frame by frame, the
colours founded before it was known (and behind how many plates), and the sets'
colours as the plates in front of each point wash them, for comparing a token's
colour where it was seen.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration.colours import ColourModel, match_distance, pair_distance
from calibration.plate_colour import corrected, estimate_plate_loss, washed
from vision.footprint import N_POINTS

UNKNOWN_WASH = 1.5  # colour units per plate between a token and a set, while the wash is unknown
SET_PLATE_ROUNDS = 4  # a still picture learns the plates again at most this often, held to its sets
PLATE_ESTIMATES_KEPT = 8  # estimates remembered by token set (each costs milliseconds)
PLATE_FOLLOW = 0.3  # how fast the learned per-plate colour loss follows new frames


class PlateWash:
    """The plates' wash over one camera's points (``plates_above``: how many plates lie in
    front of each point's token, per point). The set colours it washes are a
    :class:`~calibration.colours.ColourModel`'s, passed where they are needed (a reader may
    replace its model)."""

    def __init__(self, plates_above: np.ndarray) -> None:
        self.plates_above = plates_above
        #: Per plate: the light kept, and the light added (B, G, R); None: not learned yet.
        self.loss: tuple[float, np.ndarray] | None = None
        #: Colours learned before the loss was known, by the plates they were seen behind.
        self.unplated: dict[int, float] = {}
        self._tokens = b""  # the points it was last learned from
        self._estimates: dict[bytes, Any] = {}  # the latest estimates, by token set
        #: The sets' colours as the plates in front of each point wash them, and what for.
        self._washed_memo: tuple[tuple, np.ndarray] | None = None

    def keep_from(self, earlier: PlateWash) -> None:
        """Take on what ``earlier`` learned (the plates do not change when the camera moves)."""
        self.loss = earlier.loss
        self.unplated = dict(earlier.unplated)

    def learn(
        self, mean: np.ndarray, points: np.ndarray, sets: np.ndarray, colours: ColourModel
    ) -> None:
        """Learn what the plates above each point take and add from the tokens read at
        ``points`` (colours as seen, ``mean`` per point), of the ``sets`` the game says they
        are (-1: not known); the first estimate unwashes the ``colours`` founded before it."""
        if (sets >= 0).any():
            # A token the game does not vouch for yet (a new one) must not bend the plates
            # towards the colour it would like to read as.
            points, sets = points[sets >= 0], sets[sets >= 0]
        tokens = points.tobytes() + sets.tobytes()
        if tokens == self._tokens:  # the same tokens as last time teach nothing new
            return
        self._tokens = tokens
        # A reading that flickers between two sets must not pay for an estimate each frame.
        if tokens not in self._estimates:
            if len(self._estimates) >= PLATE_ESTIMATES_KEPT:
                del self._estimates[next(iter(self._estimates))]
            plates = self.plates_above[points]
            self._estimates[tokens] = estimate_plate_loss(mean[points], plates, sets)
        estimate = self._estimates[tokens]
        if estimate is None:
            return
        known = self.loss
        self.loss = (
            estimate
            if known is None
            else tuple(k + PLATE_FOLLOW * (e - k) for k, e in zip(known, estimate))
        )
        if known is None:
            self._unplate_colours(colours)

    def _unplate_colours(self, colours: ColourModel) -> None:
        """The loss is known at last: the colours learned before it are washed as the plates
        they were seen behind wash them, while the tokens they are compared with from now on
        are not. Undo the plates on them too (a dark set founded three tiers down would
        otherwise lie nearer its lighter sibling's tokens than its own)."""
        assert self.loss is not None
        prototypes = colours.prototypes
        for colour, plates in self.unplated.items():
            if colour in prototypes:
                prototypes[colour] = corrected(
                    prototypes[colour][None, :], np.array([plates]), *self.loss
                )[0].astype(np.float32)
        self.unplated.clear()

    def relearn_by_sets(self, seen: np.ndarray, points: np.ndarray, colours: ColourModel) -> None:
        """With no game to say whose tokens are whose, the loss was estimated with every token
        free to match any token on another tier, and the sets were then founded from the
        colours it corrected. Estimate it once more with each token held to the set it now
        reads as (as a game holds them; see :func:`estimate_plate_loss`), found each set again
        on its tokens so corrected, and repeat while tokens change sets (at most
        ``SET_PLATE_ROUNDS`` times): a dark set three plates down could match its lighter
        sibling on the top tier, and the wash so learned left some of its tokens nearer
        another set. ``seen``: the tokens' colours as seen, at ``points``; the sets are
        ``colours``'."""
        if self.loss is None or len(colours.prototypes) < 2:
            return
        plates = self.plates_above[points]
        held: np.ndarray | None = None
        for _ in range(SET_PLATE_ROUNDS):
            keys, protos = colours.prototype_array()
            labels = keys[self.distances(seen[points], points, protos).argmin(axis=1)]
            if held is not None and np.array_equal(labels, held):
                return
            held = labels
            estimate = estimate_plate_loss(seen[points], plates, labels)
            if estimate is None:
                return
            self.loss = estimate
            fixed = corrected(seen[points], plates, *estimate)
            for colour in np.unique(labels):
                colours.prototypes[int(colour)] = np.median(fixed[labels == colour], axis=0).astype(
                    np.float32
                )

    def through(self, mean: np.ndarray) -> np.ndarray:
        """Token colours (per point) as on the top tier: what the plates above each point took
        and added undone (as learned so far)."""
        if self.loss is None:
            return mean
        return corrected(mean, self.plates_above, *self.loss)

    def doubt(self, keys: np.ndarray) -> np.ndarray:
        """``(N_POINTS, m)``: how far (feature units) each set ``keys`` may look off its
        colour at each point while the loss is unknown: ``UNKNOWN_WASH`` per plate more or
        fewer in front of the point than in front of where the set was learned (its colour as
        seen there; a colour the user gave is as on the top tier). A brown token on the top
        tier read as the orange set learned two plates down when only the brown one's three
        plates were counted (none, on the top tier; bench game 4303)."""
        learned_behind = np.array([self.unplated.get(int(k), 0.0) for k in keys])
        apart = np.abs(self.plates_above[:, None] - learned_behind[None, :])
        return UNKNOWN_WASH * apart

    def unsure(self, point: int, colours: ColourModel) -> dict[int, float]:
        """Per set of ``colours``, how far it may look off its colour at ``point`` for the wash (see
        :meth:`doubt`; nothing once the wash is learned and undone)."""
        if self.loss is not None:
            return {}
        keys, _ = colours.prototype_array()
        return dict(zip(keys.tolist(), self.doubt(keys)[point].tolist()))

    def note_unplated(self, plates: dict[int, float]) -> None:
        """Remember how many plates new colours were seen behind, while the loss is unknown."""
        if self.loss is None:
            self.unplated.update(plates)

    def distances(self, seen: np.ndarray, points: np.ndarray, protos: np.ndarray) -> np.ndarray:
        """``(n, m)`` colour distances from each ``seen`` colour (``(n, 3)``, as the camera
        sees it at ``points``) to each set's colour (``protos``, as on the top tier) as the
        plates in front of that point wash it (as learned). Compared where they were seen:
        undoing the wash on what was seen would magnify its difference from a set (and its
        noise) the more, the more plates, and neither the empty board there nor the same
        colour behind fewer plates would be weighed alike."""
        if self.loss is None:
            return match_distance(seen, protos)
        behind = self.sets_as_seen(protos)
        return pair_distance(seen[:, None, :], behind[:, points].transpose(1, 0, 2))

    def sets_as_seen(self, protos: np.ndarray) -> np.ndarray:
        """``(m, N_POINTS, 3)``: each set's colour (``protos``, as on the top tier) as the
        plates in front of each point wash it (as learned; needs the loss)."""
        assert self.loss is not None
        memo = self._washed_memo
        if memo is None or not self.same(memo[0], protos):
            # (once per plate estimate and set colours: a read asks up to three times)
            behind = washed(
                np.repeat(protos, N_POINTS, axis=0),
                np.tile(self.plates_above, len(protos)),
                *self.loss,
            ).reshape(len(protos), N_POINTS, 3)
            memo = self._washed_memo = (self.key(protos), behind)
        return memo[1]

    def key(self, protos: np.ndarray) -> tuple[object, bytes]:
        """What the set colours as seen depend on: the loss as learned (the very estimate: a
        new one is a new object) and the set colours ``protos``."""
        return (self.loss, protos.tobytes())

    def same(self, key: tuple[object, bytes], protos: np.ndarray) -> bool:
        """Was ``key`` (see :meth:`key`) taken for this loss and ``protos``?"""
        return key[0] is self.loss and key[1] == protos.tobytes()
