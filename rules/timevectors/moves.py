"""Moves of a Time Vectors game: placing a token, and the two opening protocols' actions.

Notation (case-insensitive on input): ``A3Q:0`` places a colour-0 token on A3Q;
``swap A3Q:1`` is the first-move swap (the second player replaces the first
token with one of colour 1); ``choose 1`` is the three-move equalization's
colour choice by the second player.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.errors import NotationError
from rules.timevectors.points import parse_point, point_name

PLACE, SWAP, CHOOSE = "place", "swap", "choose"
KINDS = (PLACE, SWAP, CHOOSE)

_PLACE = re.compile(r"^(?:(swap)\s+)?(\w+):(\d+)$", re.IGNORECASE)
_CHOOSE = re.compile(r"^choose\s+(\d+)$", re.IGNORECASE)


@dataclass(frozen=True)
class Move:
    """One action in the move list.

    ``point`` is the point a token goes on (``None`` for a colour choice),
    ``color`` the token's colour (for ``choose``: the colour the second player
    takes), ``kind`` one of ``"place"``, ``"swap"``, ``"choose"``.
    """

    point: int | None
    color: int
    kind: str = PLACE

    def notation(self) -> str:
        """``"A3Q:0"``, ``"swap A3Q:1"`` or ``"choose 1"``."""
        if self.kind == CHOOSE:
            return f"choose {self.color}"
        placed = f"{point_name(self.point)}:{self.color}" if self.point is not None else "?"
        return f"swap {placed}" if self.kind == SWAP else placed

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse :meth:`notation`'s output; raises :class:`NotationError` for anything else."""
        if not isinstance(text, str):
            raise NotationError(f"a move is written like A3Q:0, not {text!r}")
        cleaned = " ".join(text.split())
        if match := _CHOOSE.match(cleaned):
            return cls(None, int(match.group(1)), CHOOSE)
        match = _PLACE.match(cleaned)
        if match is None:
            raise NotationError(f"{text!r} is not a move: write A3Q:0, 'swap A3Q:1' or 'choose 1'")
        kind = SWAP if match.group(1) else PLACE
        return cls(parse_point(match.group(2)), int(match.group(3)), kind)

    def __str__(self) -> str:
        return self.notation()
