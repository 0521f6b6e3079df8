"""Observations -> stable snapshots: only a board that holds still with no hand counts.

A snapshot is produced when the read board (token states of the visible points
and which points are hidden) has been the same for ``stable_frames`` frames in a
row, with no hand or motion and a usable picture, and differs from the last
snapshot. Hidden points keep their last known state. Anything that is not
board or token (a hand, an arm, motion) resets the count: a move is only ever
read once the hand has gone.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import numpy as np

from vision.observation import Observation, Snapshot

logger = logging.getLogger(__name__)

MIN_QUALITY = 0.5  # observations of worse pictures neither count as stable nor break a run
MIN_VISIBILITY = 0.5
KEEP_SHARE = 0.25  # a token keeps its colour while that colour is this likely beside the likeliest


class Tracker:
    """Turns per-frame observations into :class:`Snapshot` s of a board that holds still.

    ``stable_frames`` (>= 1) is how many consecutive calm, identical readings make a
    snapshot. Raises ``ValueError`` for a count below 1.
    """

    def __init__(self, stable_frames: int = 3, *, min_visibility: float = MIN_VISIBILITY) -> None:
        if stable_frames < 1:
            raise ValueError(f"stable_frames must be at least 1, not {stable_frames}")
        self.stable_frames = int(stable_frames)
        self.min_visibility = float(min_visibility)
        self.reset()

    def reset(self) -> None:
        """Forget everything (after a re-calibration): the next stable board is a first snapshot."""
        self._run_key: bytes | None = None  # (the reading's int16 states as bytes)
        self._run_length = 0
        self._run_in_line: dict[int, int] = {}
        self._emitted_key: bytes | None = None
        self._known: dict[int, int] = {}
        self.last_snapshot: Snapshot | None = None

    def update(
        self,
        observation: Observation,
        frame_bgr: np.ndarray | None,
        frame_index: int,
        *,
        held: Mapping[int, int] | None = None,
        expected: int | None = None,
    ) -> Snapshot | None:
        """Take one frame's observation; return a new snapshot when the board has settled.

        ``frame_bgr`` is accepted for trackers that keep pictures; this one needs only
        the observation (before/after differencing happens in the observer). ``held``: the
        colours the game says its tokens have; ``expected``: the colour to play next (see
        :func:`steadied`).
        """
        if observation.quality < MIN_QUALITY:
            return None  # a glitched frame neither confirms nor breaks the current run
        if observation.hand_present:
            self._run_key, self._run_length = None, 0
            return None
        states = observation.states()
        if held is not None:
            states = steadied(observation.probs, states, held, expected)
        visible = observation.visibility >= self.min_visibility
        reading = np.where(visible, states, -2).astype(np.int16)  # -2 marks "hidden"
        key = reading.tobytes()
        if key == self._run_key:
            self._run_length += 1
        else:
            self._run_key, self._run_length = key, 1
            self._run_in_line = {}
        self._run_in_line.update(_in_line(observation, reading))
        if self._run_length < self.stable_frames or key == self._emitted_key:
            return None
        return self._snapshot(reading, frame_index, key)

    def current(self, frame_index: int) -> Snapshot | None:
        """The board of the run of readings going on, however short (None: none is; nothing
        changes): what a snapshot would be if it held. The pipeline looks at the first calm
        board after a hand before it has settled."""
        if self._run_key is None:
            return None
        return self._board(np.frombuffer(self._run_key, np.int16), frame_index)

    def _board(self, reading: np.ndarray, frame_index: int) -> Snapshot:
        """The snapshot of a ``reading`` (state per point, -2 hidden): a hidden point keeps
        the token it last showed."""
        hidden = frozenset(int(p) for p in np.flatnonzero(reading == -2))
        tokens = {int(p): int(reading[p]) for p in np.flatnonzero(reading >= 0)}
        for point in hidden:
            if point in self._known:
                tokens[point] = self._known[point]
        return Snapshot(
            frame=frame_index, tokens=tokens, hidden=hidden, in_line=dict(self._run_in_line)
        )

    def _snapshot(self, reading: np.ndarray, frame_index: int, key: bytes) -> Snapshot | None:
        snapshot = self._board(reading, frame_index)
        self._emitted_key = key
        if snapshot.same_board(self.last_snapshot):
            return None
        self._known = dict(snapshot.tokens)
        logger.debug(
            "snapshot at frame %d: %d tokens, %d hidden",
            frame_index, len(snapshot.tokens), len(snapshot.hidden),
        )
        self.last_snapshot = snapshot
        return snapshot


def _in_line(observation: Observation, reading: np.ndarray) -> dict[int, int]:
    """A read token's point -> the empty or hidden point in line with it that the observer
    could not tell from it in this frame (``reading``: state per point, -2 hidden). Every
    frame of a still board counts: one toss-up among them makes it one."""
    partner = observation.in_line
    if partner is None:
        return {}
    points = np.flatnonzero((partner >= 0) & (reading >= 0))
    points = points[reading[partner[points]] < 0]
    return {int(p): int(partner[p]) for p in points}


def steadied(
    probs: np.ndarray,
    states: np.ndarray,
    held: Mapping[int, int],
    expected: int | None = None,
) -> np.ndarray:
    """``states`` with each point of ``held`` (location -> the colour the game says it holds)
    read as that colour where the observer reads another one, or none, but still gives the
    held colour at least ``KEEP_SHARE`` of the other's (or emptiness') probability; with
    ``expected`` (the colour to play), a token at a point the game does not hold is, on the
    same terms, the colour to play. A token does not change colour or vanish by itself and a
    player mostly plays the right one: two close sets (orange and brown, a dark set three
    plates down) flicker between frames, a faint token's reading wavers about one half after
    a hand passed over it, and every flip was an alarm. A token swapped for, played in, or
    taken away for, a clearly different reading still shows, and no point gains a token here."""
    # The colour the game wants at each point (-1: no opinion), then a close call goes its way.
    target = np.full(len(states), -1 if expected is None else expected, np.int64)
    target[states < 0] = -1  # the colour to play is no reason to see a token
    points = np.fromiter(held.keys(), np.int64, len(held))
    colours = np.fromiter(held.values(), np.int64, len(held))
    on_board = (points >= 0) & (points < len(states))
    target[points[on_board]] = colours[on_board]
    target[target + 1 >= probs.shape[1]] = -1  # no such colour
    rows = np.flatnonzero((target >= 0) & (target != states))
    wanted, read = target[rows], states[rows]
    close = probs[rows, 1 + wanted] >= KEEP_SHARE * probs[rows, 1 + read]
    out = states.copy()
    out[rows[close]] = wanted[close]
    return out
