"""What the vision pipeline reports: per-frame observations and stable snapshots."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


class ReferenceMissingError(ValueError):
    """A calibration without a picture of the empty board: tokens and rings are read as
    what changed against it, and the board's colours alone cannot stand in for it."""


class FrameError(ValueError):
    """A frame that is not a colour image of the calibrated camera's size."""


def check_frame(frame: Any, image_size: tuple[int, int]) -> np.ndarray:
    """``frame`` if it is an 8-bit BGR image of ``image_size`` (width, height): every observer
    reads only such frames. Raises :class:`FrameError` otherwise."""
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
        raise FrameError("a frame must be a colour image (height x width x 3)")
    if frame.dtype != np.uint8:
        raise FrameError(f"a frame must be 8-bit (got {frame.dtype})")
    w, h = image_size
    if frame.shape[:2] != (h, w):
        raise FrameError(
            f"frame is {frame.shape[1]}x{frame.shape[0]} but the calibration is for {w}x{h}"
        )
    return frame


@dataclass(frozen=True)
class Observation:
    """One frame read by the observer.

    ``probs`` is ``(n_points, 1 + n_colours)``: column 0 is P(empty), column
    ``1 + i`` is P(colour i). ``visibility`` is ``(n_points,)`` in 0..1: the
    fraction of a token's top disc at that point the camera would see past
    nearer tokens, the post and hands. ``drift_px`` estimates how far the board
    has moved in the image against the calibration reference. ``in_line`` is
    ``(n_points,)``: for a point read as a token, the point in line with the camera
    whose token would have looked the same (the reading between them is a toss-up),
    else -1; ``None`` when the observer does not tell.
    """

    probs: np.ndarray
    visibility: np.ndarray
    hand_present: bool
    quality: float = 1.0
    drift_px: float = 0.0
    in_line: np.ndarray | None = None

    def states(self) -> np.ndarray:
        """Most likely state per point: -1 empty, else colour index."""
        return np.argmax(self.probs, axis=1) - 1

    def tokens(self, min_visibility: float = 0.5) -> dict[int, int]:
        """Points read as holding a token (colour index), among sufficiently visible points."""
        states = self.states()
        seen = self.visibility >= min_visibility
        return {int(p): int(states[p]) for p in np.flatnonzero((states >= 0) & seen)}

    def hidden(self, min_visibility: float = 0.5) -> list[int]:
        """Points the camera cannot read in this frame."""
        return [int(p) for p in np.flatnonzero(self.visibility < min_visibility)]


@dataclass(frozen=True)
class Snapshot:
    """A board state stable for several frames with no hand in view.

    ``tokens`` maps point -> colour index for every point believed to hold a
    token (hidden points keep their last known state); ``hidden`` are points
    the camera could not confirm in this snapshot; ``in_line`` maps a token's point
    to the empty or hidden point in line with it that the camera could not tell
    from it while the board held still.
    """

    frame: int
    tokens: dict[int, int]
    hidden: frozenset[int] = field(default_factory=frozenset)
    in_line: dict[int, int] = field(default_factory=dict)

    def same_board(self, other: Snapshot | None) -> bool:
        """Does ``other`` show the same tokens and the same hidden points (whatever frame
        it came from)?"""
        return other is not None and (self.tokens, self.hidden) == (other.tokens, other.hidden)
