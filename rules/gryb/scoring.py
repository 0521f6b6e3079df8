"""GRYB detection on a position and the manual's two scorings.

A *position* maps node -> ring colour (0 or 1). A GRYB is a quadrangle whose
four nodes all hold rings of one colour. The binary scoring doubles per level
(1, 2, 4, 8 points from the top quadrangle down); 25 Men's GRYB removes 1, 2,
3 or 4 opposing pieces per level.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.errors import NotationError
from rules.gryb.nodes import QUADRANGLES, children, node_name, parse_node, quadrangle_level

RING_COLOURS = 2
BOARD_NAME = "gryb"

Position = dict[str, int]
"""A board as the rules see it: node (``""`` for the head) -> ring colour 0 or 1."""


class PositionError(NotationError):
    """A position document that is not ``{"board": "gryb", "tokens": {NODE: 0 or 1, ...}}``."""


def binary_points(level: int) -> int:
    """Points of a GRYB on quadrangle level 1..4 in the binary scoring: 1, 2, 4, 8."""
    return 1 << (level - 1)


def mens_pieces(level: int) -> int:
    """Opposing pieces a GRYB on level 1..4 removes in 25 Men's GRYB: 1, 2, 3, 4."""
    return level


@dataclass(frozen=True, order=True)
class Gryb:
    """Four rings of ``colour`` covering the quadrangle beneath node ``quadrangle``."""

    quadrangle: str
    colour: int

    @property
    def level(self) -> int:
        return quadrangle_level(self.quadrangle)

    @property
    def nodes(self) -> tuple[str, ...]:
        return children(self.quadrangle)

    @property
    def points(self) -> int:
        return binary_points(self.level)

    @property
    def pieces(self) -> int:
        return mens_pieces(self.level)

    def to_dict(self) -> dict[str, Any]:
        return {
            "quadrangle": node_name(self.quadrangle),
            "nodes": [node_name(n) for n in self.nodes],
            "colour": self.colour,
            "level": self.level,
            "points": self.points,
            "pieces": self.pieces,
        }


def gryb_at(position: Mapping[str, int], quadrangle: str) -> Gryb | None:
    """The GRYB on one quadrangle, if its four nodes hold rings of one colour."""
    colours = {position.get(node) for node in children(quadrangle)}
    if len(colours) == 1:
        (colour,) = colours
        if colour is not None:
            return Gryb(quadrangle, colour)
    return None


def find_grybs(position: Mapping[str, int]) -> list[Gryb]:
    """Every GRYB on the board, top quadrangle first."""
    found = (gryb_at(position, q) for q in QUADRANGLES)
    return [g for g in found if g is not None]


def full_quadrangles(occupied: Mapping[str, int] | set[str]) -> list[str]:
    """Quadrangles whose four nodes are all occupied, whatever the colours (Square Deal)."""
    return [q for q in QUADRANGLES if all(n in occupied for n in children(q))]


@dataclass(frozen=True)
class ScoreSheet:
    """The GRYBs of each colour and both scores of a position."""

    grybs: tuple[Gryb, ...]

    def grybs_of(self, colour: int) -> list[Gryb]:
        return [g for g in self.grybs if g.colour == colour]

    def binary_score(self, colour: int) -> int:
        return sum(g.points for g in self.grybs_of(colour))

    def mens_score(self, colour: int) -> int:
        return sum(g.pieces for g in self.grybs_of(colour))

    def to_dict(self) -> dict[str, Any]:
        return {
            "colours": [
                {
                    "colour": colour,
                    "grybs": [g.to_dict() for g in self.grybs_of(colour)],
                    "binary_points": self.binary_score(colour),
                    "mens_pieces": self.mens_score(colour),
                }
                for colour in range(RING_COLOURS)
            ]
        }


def score_position(position: Mapping[str, int]) -> ScoreSheet:
    """GRYBs and both scores of ``position`` (node -> ring colour)."""
    return ScoreSheet(tuple(find_grybs(position)))


def parse_tokens(tokens: object) -> Position:
    """Read ``{NODE: colour}`` (names or indices as keys); raises :class:`PositionError`."""
    if not isinstance(tokens, Mapping):
        raise PositionError(f"tokens must map node names to ring colours, not {tokens!r}")
    position: Position = {}
    for key, colour in tokens.items():
        try:
            node = parse_node(key)
        except NotationError as error:
            raise PositionError(f"tokens: {error}") from None
        if isinstance(colour, bool) or colour not in range(RING_COLOURS):
            raise PositionError(
                f"tokens: ring colour on {node_name(node)} must be 0 or 1, not {colour!r}"
            )
        if node in position:
            raise PositionError(f"tokens: {node_name(node)} is given twice")
        position[node] = colour
    return position


def parse_position(document: object) -> Position:
    """Read a position document ``{"board": "gryb", "tokens": {...}}``; raises :class:`PositionError`."""
    if not isinstance(document, Mapping):
        raise PositionError('a position is a JSON object like {"board": "gryb", "tokens": {}}')
    board = document.get("board")
    if board != BOARD_NAME:
        raise PositionError(f'"board" must be "gryb", not {board!r}')
    return parse_tokens(document.get("tokens", {}))


def position_document(position: Mapping[str, int]) -> dict[str, Any]:
    """The JSON form of a position, inverse of :func:`parse_position`."""
    return {"board": BOARD_NAME, "tokens": {node_name(n): c for n, c in sorted(position.items())}}
