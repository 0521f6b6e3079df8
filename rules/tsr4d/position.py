"""A TSR "4D" position (pieces, Time-warp, Markers, player to move) and its text form.

The rules show the starting position only as a picture, so this module
defines :data:`STARTING_POSITION`: each army in its own half of the board, the
Time-Lord on the outer ring flanked by its Guardians and Rangers, six Warriors
in front of them, the inner ring d empty. White's army is Blue's turned half a
circle (a+16, b+8, c+4, d+2), so neither side is favoured by the set-up and no
piece starts next to an enemy.

Text form (also the ``position:`` header of a move file)::

    blue: Tc2 Wb4 Mb3 R@1; white: Ta20 Wa24; to move: blue

A piece is its letter and space, ``M`` and a space is the player's Time-warp
Marker, ``R@1`` is a Ranger in Time-warp circle 1. A game may start from any
position that is valid for the rules: at most the pieces of one army per side,
one piece per space, at most one piece in Time-warp per side (with its Marker
on the board), each Time-Lord present. Bad text raises :class:`PositionError`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rules.errors import NotationError
from rules.tsr4d.board import parse_space, space_name
from rules.tsr4d.pieces import ARMY, BLUE, PLAYER_NAMES, WHITE, Kind, parse_kind, parse_player


class PositionError(NotationError):
    """Text that is not a valid TSR 4D position."""


@dataclass(frozen=True)
class WarpSlot:
    """The piece a player has in Time-warp and the circle (1..3) it is in."""

    kind: Kind
    circle: int


@dataclass
class Position:
    """Everything on and around the board at the start of a turn (or during one)."""

    pieces: dict[int, tuple[int, Kind]] = field(default_factory=dict)
    warp: list[WarpSlot | None] = field(default_factory=lambda: [None, None])
    markers: list[int | None] = field(default_factory=lambda: [None, None])
    to_move: int = BLUE

    def copy(self) -> Position:
        return Position(dict(self.pieces), list(self.warp), list(self.markers), self.to_move)

    def army(self, player: int) -> Counter[Kind]:
        """How many pieces of each kind ``player`` still has, on the board or in Time-warp."""
        counts = Counter(kind for owner, kind in self.pieces.values() if owner == player)
        slot = self.warp[player]
        if slot is not None:
            counts[slot.kind] += 1
        return counts

    def spaces_of(self, player: int, kind: Kind | None = None) -> list[int]:
        """Spaces holding ``player``'s pieces (of ``kind`` if given), in board order."""
        return sorted(
            space
            for space, (owner, piece) in self.pieces.items()
            if owner == player and (kind is None or piece == kind)
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the dashboard: pieces, Time-warp, Markers, player to move."""
        return {
            "game": "tsr4d",
            "to_move": PLAYER_NAMES[self.to_move],
            "pieces": [
                {"space": space_name(space), "player": PLAYER_NAMES[owner], "kind": kind.value}
                for space, (owner, kind) in sorted(self.pieces.items())
            ],
            "warp": {
                PLAYER_NAMES[player]: None
                if slot is None
                else {"kind": slot.kind.value, "circle": slot.circle}
                for player, slot in enumerate(self.warp)
            },
            "markers": {
                PLAYER_NAMES[player]: None if marker is None else space_name(marker)
                for player, marker in enumerate(self.markers)
            },
        }


def format_position(position: Position) -> str:
    """The text form of a position; :func:`parse_position` reads it back."""
    parts = []
    for player, name in enumerate(PLAYER_NAMES):
        tokens = [
            f"{kind.value}{space_name(space)}"
            for space, (owner, kind) in sorted(
                position.pieces.items(), key=lambda item: (list(Kind).index(item[1][1]), item[0])
            )
            if owner == player
        ]
        if position.markers[player] is not None:
            tokens.append(f"M{space_name(position.markers[player])}")  # type: ignore[arg-type]
        slot = position.warp[player]
        if slot is not None:
            tokens.append(f"{slot.kind.value}@{slot.circle}")
        parts.append(f"{name}: {' '.join(tokens)}")
    parts.append(f"to move: {PLAYER_NAMES[position.to_move]}")
    return "; ".join(parts)


_PIECE = re.compile(r"([TGRWM])([a-d]\d{1,2})$", re.IGNORECASE)
_WARPED = re.compile(r"([TGRW])@([1-3])$", re.IGNORECASE)


def _parse_army(player: int, tokens: list[str], position: Position) -> None:
    for token in tokens:
        placed, warped = _PIECE.match(token), _WARPED.match(token)
        if warped:
            if position.warp[player] is not None:
                raise PositionError(f"{PLAYER_NAMES[player]} has two pieces in Time-warp")
            position.warp[player] = WarpSlot(parse_kind(warped[1]), int(warped[2]))
        elif placed and placed[1].upper() == "M":
            position.markers[player] = parse_space(placed[2])
        elif placed:
            space = parse_space(placed[2])
            if space in position.pieces:
                raise PositionError(f"two pieces on {space_name(space)}")
            position.pieces[space] = (player, parse_kind(placed[1]))
        else:
            raise PositionError(
                f"{token!r} is not a piece: write Wb4 (piece and space), Mb3 (Marker) or R@1 "
                "(piece in Time-warp circle 1)"
            )


def validate_position(position: Position) -> None:
    """Raise :class:`PositionError` if the rules could never reach ``position``."""
    for player, name in enumerate(PLAYER_NAMES):
        army = position.army(player)
        for kind, count in army.items():
            if count > ARMY[kind]:
                raise PositionError(f"{name} has {count} {kind.title}s; an army has {ARMY[kind]}")
        if army[Kind.TIME_LORD] == 0:
            raise PositionError(f"{name} has no Time-Lord: that game is already over")
        if position.warp[player] is not None and position.markers[player] is None:
            raise PositionError(f"{name} has a piece in Time-warp but no Marker on the board")


def parse_position(text: str) -> Position:
    """Parse the text form (see the module docstring); raises :class:`PositionError`."""
    position = Position()
    seen: set[str] = set()
    for part in filter(None, (chunk.strip() for chunk in text.split(";"))):
        label, colon, rest = part.partition(":")
        label = label.strip().lower()
        if not colon:
            raise PositionError(f"{part!r}: expected 'blue: ...', 'white: ...' or 'to move: ...'")
        if label in seen:
            raise PositionError(f"{label!r} is given twice")
        seen.add(label)
        if label == "to move":
            position.to_move = parse_player(rest)
        elif label in PLAYER_NAMES:
            _parse_army(parse_player(label), rest.split(), position)
        else:
            raise PositionError(f"{label!r} is not blue, white or 'to move'")
    missing = {"blue", "white"} - seen
    if missing:
        raise PositionError(f"the position does not say where {' and '.join(sorted(missing))} stand")
    validate_position(position)
    return position


STARTING_POSITION_TEXT = (
    "blue: Ta8 Ga7 Ga9 Ra6 Ra10 Rb4 Wb2 Wb3 Wb5 Wb6 Wc2 Wc3; "
    "white: Ta24 Ga23 Ga25 Ra22 Ra26 Rb12 Wb10 Wb11 Wb13 Wb14 Wc6 Wc7; "
    "to move: blue"
)


def starting_position() -> Position:
    """A fresh copy of the documented starting position (Blue moves first)."""
    return parse_position(STARTING_POSITION_TEXT)


__all__ = [
    "BLUE",
    "STARTING_POSITION_TEXT",
    "WHITE",
    "Position",
    "PositionError",
    "WarpSlot",
    "format_position",
    "parse_position",
    "starting_position",
    "validate_position",
]
