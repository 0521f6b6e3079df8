"""Timeline moves: their notation and the squares a move passes through.

A move is written ``FROM-TO`` in the Time Vectors board's ``A3Q`` notation,
like ``A5P-A8P``. The team's piece on ``FROM`` makes it, so no piece letter is
needed. A capture may be noted after it, ``A5P-A8PxBlack`` (the captured
piece's colour); when given, the game checks it. A leading colour
(``red A5P-A8P``) is accepted and checked too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.errors import NotationError
from rules.timeline.pieces import Kind, Piece, parse_piece
from rules.timeline.space import (
    BISHOP_DIRECTIONS,
    MAX_STEPS,
    ROOK_DIRECTIONS,
    direction_between,
    offset,
)
from rules.timevectors.points import parse_point, point_name


@dataclass(frozen=True)
class Move:
    """A piece's move from ``origin`` to ``target``; ``piece``/``captures`` are optional checks."""

    origin: int
    target: int
    piece: Piece | None = None
    captures: Piece | None = None

    def notation(self) -> str:
        """``A5P-A8P`` (with the colour and the capture when known); :func:`parse_move` reads it."""
        text = f"{point_name(self.origin)}-{point_name(self.target)}"
        if self.piece is not None:
            text = f"{self.piece.colour} {text}"
        if self.captures is not None:
            text += f"x{self.captures.colour}"
        return text

    def bare(self) -> Move:
        """The move without the optional piece and capture annotations."""
        return Move(self.origin, self.target)


_MOVE = re.compile(
    r"^\s*(?:([a-z]+)\s+)?([a-h][1-8][p-s])\s*-\s*([a-h][1-8][p-s])\s*(?:[x×]\s*([a-z]+))?\s*$",
    re.IGNORECASE,
)


def parse_move(text: str) -> Move:
    """Parse ``[colour ]FROM-TO[xCOLOUR]``; raises :class:`NotationError` saying what is wrong."""
    found = _MOVE.match(text)
    if not found:
        raise NotationError(
            f"{text!r} is not a Timeline move: write FROM-TO in A3Q points, like A5P-A8P "
            "(optionally a colour before it and xCOLOUR for a capture)"
        )
    colour, origin, target, captured = found.groups()
    return Move(
        parse_point(origin),
        parse_point(target),
        None if colour is None else parse_piece(colour),
        None if captured is None else parse_piece(captured),
    )


def directions_of(kind: Kind) -> tuple[tuple[int, int, int, int], ...]:
    return ROOK_DIRECTIONS if kind is Kind.ROOK else BISHOP_DIRECTIONS


def path_of(kind: Kind, origin: int, target: int) -> list[int] | None:
    """Squares entered moving ``origin`` -> ``target`` (target last), ``None`` if ``kind`` cannot.

    A rook or bishop moves one to three single steps in one direction.
    """
    found = direction_between(origin, target)
    if found is None:
        return None
    direction, steps = found
    if direction not in directions_of(kind) or not 1 <= steps <= MAX_STEPS:
        return None
    return [offset(origin, direction, k) for k in range(1, steps + 1)]  # type: ignore[misc]


def reachable_paths(kind: Kind, origin: int) -> list[list[int]]:
    """Every geometric path (ignoring chits) from ``origin``: 1..3 steps per direction, on the board."""
    paths = []
    for direction in directions_of(kind):
        path: list[int] = []
        for k in range(1, MAX_STEPS + 1):
            point = offset(origin, direction, k)
            if point is None:
                break
            path = [*path, point]
            paths.append(path)
    return paths
