"""The GRYB dice: the four-colour die, GRYB Dice II (any node) and a die over the fourth level.

Seedable for replays and tests: pass a seed or a ``random.Random``. Every roll
is a :class:`Roll` whose ``to_dict()`` is JSON-ready for the dashboard.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from rules.errors import NotationError
from rules.gryb.nodes import COLOURS, LEAVES, NODES, node_name, parse_node

DIE_FACES: dict[str, tuple[str, ...]] = {
    "colour": tuple(COLOURS),
    "node": NODES,
    "leaf": LEAVES,
}
"""Faces of each die: ``colour`` (four-colour die), ``node`` (GRYB Dice II), ``leaf`` (fourth level)."""


class UnknownDieError(NotationError):
    """A die kind that is not one of :data:`DIE_FACES`, or a face the die does not have."""


@dataclass(frozen=True)
class Roll:
    """One throw of one die; ``value`` is a colour letter or a node."""

    die: str
    value: str

    def to_dict(self) -> dict[str, Any]:
        return {"die": self.die, "value": node_name(self.value) if self.die != "colour" else self.value}


def parse_face(die: str, text: object) -> str:
    """Read a face of ``die`` (colour letter or node name); raises :class:`UnknownDieError`."""
    if die not in DIE_FACES:
        raise UnknownDieError(f"{die!r} is not a die: use one of {', '.join(DIE_FACES)}")
    try:
        value = parse_node(text)
    except NotationError as error:
        raise UnknownDieError(f"{text!r} is not a face of the {die} die: {error}") from None
    if value not in DIE_FACES[die]:
        raise UnknownDieError(f"{node_name(value)!r} is not a face of the {die} die")
    return value


class Dice:
    """The three GRYB dice sharing one random source."""

    def __init__(self, seed: int | str | random.Random | None = None) -> None:
        self.rng = seed if isinstance(seed, random.Random) else random.Random(seed)

    def roll(self, die: str) -> Roll:
        """Throw ``die``; raises :class:`UnknownDieError` for an unknown die."""
        if die not in DIE_FACES:
            raise UnknownDieError(f"{die!r} is not a die: use one of {', '.join(DIE_FACES)}")
        return Roll(die, self.rng.choice(DIE_FACES[die]))

    def colour(self) -> str:
        """The four-colour die: G, R, Y or B."""
        return self.roll("colour").value

    def node(self) -> str:
        """GRYB Dice II: any of the 341 nodes, each equally likely."""
        return self.roll("node").value

    def leaf(self) -> str:
        """A node of the fourth (bottom) level, each of the 256 equally likely."""
        return self.roll("leaf").value
