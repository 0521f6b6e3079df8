"""A Timeline position (every piece's timeline and the team to move) and its text form.

Text form (also the ``position:`` header of a move file)::

    red: A5P A6P A7P*; black: C6P B6P; to move: warm

Each piece present in the game lists its chits in timeline order, ``A3Q``
points. A chit marked ``*`` was laid on a square that already held an enemy
chit (a capture); that is all the order the rules need, since only chits that
share a square are ever compared. Pieces not named take no part in the game.
Bad text raises :class:`PositionError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.errors import NotationError
from rules.timeline.pieces import STARTING_SQUARES, TEAM_NAMES, WARM, parse_piece, parse_team
from rules.timeline.timelines import Chit, Timelines, captor_of, chits_on
from rules.timevectors.points import parse_point, point_name


class PositionError(NotationError):
    """Text or timelines that are not a valid Timeline position."""


@dataclass
class TimelinePosition:
    """All timelines, the team to move and the sequence number the next move's chits get."""

    timelines: Timelines = field(default_factory=dict)
    to_move: int = WARM
    next_laid: int = 2

    def copy(self) -> TimelinePosition:
        return TimelinePosition(dict(self.timelines), self.to_move, self.next_laid)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: per piece its colour, kind, team, square (``None`` if captured), timeline."""
        squares = chits_on(self.timelines)
        pieces = []
        for piece, chits in self.timelines.items():
            captor = captor_of(piece, self.timelines, squares)
            pieces.append(
                {
                    "colour": piece.colour,
                    "kind": piece.kind.value,
                    "team": TEAM_NAMES[piece.team],
                    "square": None if captor else point_name(chits[-1].point),
                    "captured_by": None if captor is None else captor.colour,
                    "timeline": [point_name(c.point) for c in chits],
                }
            )
        return {"game": "timeline", "to_move": TEAM_NAMES[self.to_move], "pieces": pieces}


def validate_timelines(timelines: Timelines) -> None:
    """Raise :class:`PositionError` unless every square holds at most one chit per team.

    That is what the rules guarantee: no piece may enter a square holding a chit
    of its own team (itself included), and a square's two chits never share a move.
    """
    for piece, chits in timelines.items():
        if not chits:
            raise PositionError(f"the {piece.title} has an empty timeline")
        if len({chit.point for chit in chits}) != len(chits):
            raise PositionError(f"the {piece.title}'s timeline enters a square twice")
    for point, here in chits_on(timelines).items():
        teams = [piece.team for piece in here]
        if len(teams) != len(set(teams)):
            raise PositionError(f"{point_name(point)} holds chits of two pieces of one team")
        if len({chit.laid for chit in here.values()}) != len(here):
            raise PositionError(f"{point_name(point)}: mark which chit was laid later with *")


def parse_position(text: str) -> TimelinePosition:
    """Parse the text form (see the module docstring); raises :class:`PositionError`."""
    timelines: Timelines = {}
    to_move = WARM
    for part in filter(None, (chunk.strip() for chunk in text.split(";"))):
        label, colon, rest = part.partition(":")
        if not colon:
            raise PositionError(f"{part!r}: expected 'COLOUR: chits ...' or 'to move: warm|cool'")
        if label.strip().lower() == "to move":
            to_move = parse_team(rest)
            continue
        piece = parse_piece(label)
        if piece in timelines:
            raise PositionError(f"the {piece.title} is given twice")
        chits = []
        for token in rest.split():
            later = token.endswith("*")
            chits.append(Chit(parse_point(token.rstrip("*")), 1 if later else 0))
        timelines[piece] = tuple(chits)
    if not any(p.team == 0 for p in timelines) or not any(p.team == 1 for p in timelines):
        raise PositionError("both teams need at least one piece")
    validate_timelines(timelines)
    return TimelinePosition(timelines, to_move, 2)


def format_position(position: TimelinePosition) -> str:
    """The text form; :func:`parse_position` reads back an equivalent position."""
    squares = chits_on(position.timelines)
    parts = []
    for piece, chits in position.timelines.items():
        tokens = []
        for chit in chits:
            here = squares[chit.point]
            later = len(here) > 1 and chit.laid == max(c.laid for c in here.values())
            tokens.append(point_name(chit.point) + ("*" if later else ""))
        parts.append(f"{piece.colour}: {' '.join(tokens)}")
    parts.append(f"to move: {TEAM_NAMES[position.to_move]}")
    return "; ".join(parts)


def starting_position() -> TimelinePosition:
    """Every piece on its documented starting square with one chit; warm moves first."""
    return TimelinePosition({piece: (Chit(point, 0),) for piece, point in STARTING_SQUARES.items()})
