"""Timeline's pieces: two teams of two rooks and two bishops, each piece its own colour."""

from __future__ import annotations

from enum import Enum

from rules.errors import NotationError
from rules.timevectors.points import point_index

WARM, COOL = 0, 1
TEAM_NAMES = ("warm", "cool")  # the warm-coloured team moves first


class Kind(Enum):
    ROOK = "rook"
    BISHOP = "bishop"


class Piece(Enum):
    """A piece, named by its colour; its value is its colour code (what a camera reports)."""

    ORANGE = 0
    RED = 1
    WHITE = 2
    YELLOW = 3
    BLACK = 4
    BLUE = 5
    GREEN = 6
    PURPLE = 7

    @property
    def team(self) -> int:
        return WARM if self.value < 4 else COOL

    @property
    def kind(self) -> Kind:
        return Kind.ROOK if self in _ROOKS else Kind.BISHOP

    @property
    def colour(self) -> str:
        return self.name.lower()

    @property
    def title(self) -> str:
        """Like ``red rook``."""
        return f"{self.colour} {self.kind.value}"


_ROOKS = frozenset({Piece.ORANGE, Piece.RED, Piece.BLACK, Piece.BLUE})


def parse_piece(text: str) -> Piece:
    """A piece by its colour name (any case); raises :class:`NotationError`."""
    try:
        return Piece[text.strip().upper()]
    except KeyError:
        names = ", ".join(p.colour for p in Piece)
        raise NotationError(f"{text!r} is not a piece colour: use one of {names}") from None


def parse_team(text: str) -> int:
    """``warm`` or ``cool`` to the team index; raises :class:`NotationError`."""
    cleaned = text.strip().lower()
    if cleaned not in TEAM_NAMES:
        raise NotationError(f"{text!r} is not a team: use warm or cool")
    return TEAM_NAMES.index(cleaned)


# The rules show the set-up only as a picture. This one is a back rank, rook-bishop-
# bishop-rook, on the bottom level of Monday for warm and its point reflection on the top
# level of Thursday for cool: each team's bishops stand on opposite colours, and the
# reflection (x, y, z, t) -> (3-x, 3-y, 3-z, 3-t) maps one team's set-up onto the other's.
STARTING_SQUARES: dict[Piece, int] = {
    Piece.ORANGE: point_index(0, 0, 0, 0),
    Piece.WHITE: point_index(1, 0, 0, 0),
    Piece.YELLOW: point_index(2, 0, 0, 0),
    Piece.RED: point_index(3, 0, 0, 0),
    Piece.BLACK: point_index(3, 3, 3, 3),
    Piece.GREEN: point_index(2, 3, 3, 3),
    Piece.PURPLE: point_index(1, 3, 3, 3),
    Piece.BLUE: point_index(0, 3, 3, 3),
}
