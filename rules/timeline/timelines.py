"""Timelines of chits and what follows from them: who stands where, who is captured.

Every square a piece passes through or stops on gets a chit of its colour, so
a piece's timeline is the ordered list of its chits and the piece, while free,
stands on the last one. Each chit also remembers *when* it was laid (the
move's sequence number), because on a capture square two chits meet and only
the earlier one's piece is captured.

Capture and release need no bookkeeping of their own: a piece is captured
exactly while the square at the end of its timeline also holds an enemy chit
laid later than its own. Truncating a captor's timeline (capturing it earlier
on its timeline) removes that enemy chit and so releases the victim where its
timeline ends - the rules' "release of lost pieces".
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.timeline.pieces import Piece


@dataclass(frozen=True)
class Chit:
    """A timeline marker: the square and the sequence number of the move that laid it."""

    point: int
    laid: int


Timelines = dict[Piece, tuple[Chit, ...]]


def chits_on(timelines: Timelines) -> dict[int, dict[Piece, Chit]]:
    """Square -> the chits on it, by piece."""
    squares: dict[int, dict[Piece, Chit]] = {}
    for piece, chits in timelines.items():
        for chit in chits:
            squares.setdefault(chit.point, {})[piece] = chit
    return squares


def captor_of(piece: Piece, timelines: Timelines, squares: dict[int, dict[Piece, Chit]]) -> Piece | None:
    """The enemy whose later chit covers the end of ``piece``'s timeline, else ``None`` (free)."""
    end = timelines[piece][-1]
    for other, chit in squares.get(end.point, {}).items():
        if other.team != piece.team and chit.laid > end.laid:
            return other
    return None


def free_pieces(timelines: Timelines) -> dict[Piece, int]:
    """Every piece on the board (not captured) -> its square, the end of its timeline."""
    squares = chits_on(timelines)
    return {
        piece: chits[-1].point
        for piece, chits in timelines.items()
        if captor_of(piece, timelines, squares) is None
    }


def truncate(chits: tuple[Chit, ...], point: int) -> tuple[Chit, ...]:
    """The timeline up to and including its chit on ``point``; raises ``ValueError`` if absent."""
    for index, chit in enumerate(chits):
        if chit.point == point:
            return chits[: index + 1]
    raise ValueError(f"the timeline has no chit on point {point}")
