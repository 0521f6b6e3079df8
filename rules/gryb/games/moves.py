"""The moves of every GRYB game: one small record the referee, history and dashboard share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.errors import NotationError
from rules.gryb.nodes import format_nodes, node_name, parse_node, parse_nodes
from rules.gryb.traversal import kinds_between

MOVE_KINDS = ("roll", "place", "move", "remove", "resign", "finish")
"""``roll`` a die; ``place`` new rings; ``move`` rings (one ring or a line/shape, pairwise
``frm[i] -> to[i]``); ``remove`` opposing rings (25 Men's GRYB); ``resign``; ``finish``
(both players agree to end a game that is decided by its score)."""

PLAYER_NAMES = ("player 1", "player 2")


def player_name(player: int) -> str:
    """How messages name a player (ring colour 0 is player 1)."""
    return PLAYER_NAMES[player]


def move_order(move: GrybMove) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """Sort key giving a stable, readable order of moves."""
    return (move.kind, move.frm, move.to)


class MoveFormatError(NotationError):
    """A move record that cannot be read (unknown kind, bad nodes, mismatched lists)."""


@dataclass(frozen=True)
class GrybMove:
    """One move by ``player``. Pairs of a ``move`` are kept sorted so equal moves compare equal."""

    kind: str
    player: int
    frm: tuple[str, ...] = ()
    to: tuple[str, ...] = ()
    value: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in MOVE_KINDS:
            raise MoveFormatError(f"{self.kind!r} is not a move kind: use one of {', '.join(MOVE_KINDS)}")
        if self.player not in (0, 1) or isinstance(self.player, bool):
            raise MoveFormatError(f"player must be 0 or 1, not {self.player!r}")
        if (self.kind == "roll") != (self.value is not None):
            raise MoveFormatError("a roll, and only a roll, has a value")
        if self.kind == "move":
            if len(self.frm) != len(self.to) or not self.frm:
                raise MoveFormatError("a move needs as many destinations as rings moved")
            if len(self.frm) == 1:
                return
            pairs = sorted(zip(self.frm, self.to))
            object.__setattr__(self, "frm", tuple(p[0] for p in pairs))
            object.__setattr__(self, "to", tuple(p[1] for p in pairs))
        elif self.kind in ("place", "remove"):
            if not self.to or self.frm:
                raise MoveFormatError(f"a {self.kind} lists its nodes in 'to' only")
            object.__setattr__(self, "to", tuple(sorted(self.to)))
        elif self.frm or self.to:
            raise MoveFormatError(f"a {self.kind} names no nodes")
        if len(set(self.frm)) != len(self.frm) or len(set(self.to)) != len(self.to):
            raise MoveFormatError("a move names a node twice")

    # -- constructors ------------------------------------------------------
    @classmethod
    def roll(cls, player: int, value: str) -> GrybMove:
        return cls("roll", player, value=value)

    @classmethod
    def place(cls, player: int, *nodes: str) -> GrybMove:
        return cls("place", player, to=nodes)

    @classmethod
    def step(cls, player: int, source: str, target: str) -> GrybMove:
        return cls("move", player, (source,), (target,))

    @classmethod
    def block(cls, player: int, sources: tuple[str, ...], targets: tuple[str, ...]) -> GrybMove:
        return cls("move", player, tuple(sources), tuple(targets))

    @classmethod
    def remove(cls, player: int, *nodes: str) -> GrybMove:
        return cls("remove", player, to=nodes)

    # -- text and JSON -----------------------------------------------------
    def notation(self) -> str:
        """Short text: ``roll Y``, ``+GR``, ``G-GR``, ``[BRY, BRR]-[BGY, BGR]``, ``x[GG]``."""
        if self.kind == "roll":
            return f"roll {node_name(self.value or '')}"
        if self.kind == "place":
            return "+" + (node_name(self.to[0]) if len(self.to) == 1 else format_nodes(self.to))
        if self.kind == "move":
            if len(self.frm) == 1:
                return f"{node_name(self.frm[0])}-{node_name(self.to[0])}"
            return f"{format_nodes(self.frm)}-{format_nodes(self.to)}"
        if self.kind == "remove":
            return "x" + format_nodes(self.to)
        return self.kind

    def describe(self) -> str:
        """A sentence for alerts and the move list: ``player 1 moved G to GR (down)``."""
        who = player_name(self.player)
        if self.kind == "roll":
            return f"{who} rolled {node_name(self.value or '')}"
        if self.kind == "place":
            rings = "a ring" if len(self.to) == 1 else "rings"
            return f"{who} placed {rings} on {', '.join(node_name(n) for n in self.to)}"
        if self.kind == "move":
            if len(self.frm) == 1:
                kinds = kinds_between(self.frm[0], self.to[0])
                how = f" ({', '.join(kinds)})" if kinds else ""
                return f"{who} moved {node_name(self.frm[0])} to {node_name(self.to[0])}{how}"
            return f"{who} moved {format_nodes(self.frm)} to {format_nodes(self.to)}"
        if self.kind == "remove":
            return f"{who} removed {', '.join(node_name(n) for n in self.to)}"
        return f"{who} resigned" if self.kind == "resign" else f"{who} agreed to finish"

    def __str__(self) -> str:
        return self.notation()

    @classmethod
    def from_notation(cls, text: str, player: int) -> GrybMove:
        """Read :meth:`notation` text back as a move by ``player``.

        Raises :class:`MoveFormatError` (or :class:`rules.errors.NotationError` for a
        bad node) saying what is wrong.
        """
        if not isinstance(text, str) or not text.strip():
            raise MoveFormatError(f"a move is written like +GR, G-GR or roll Y, not {text!r}")
        cleaned = text.strip()
        lowered = cleaned.lower()
        if lowered in ("resign", "finish"):
            return cls(lowered, player)
        if lowered.startswith("roll "):
            return cls.roll(player, parse_node(cleaned[5:]))
        if cleaned.startswith("+"):
            return cls.place(player, *_node_list(cleaned[1:]))
        if lowered.startswith("x"):
            return cls.remove(player, *_node_list(cleaned[1:]))
        if cleaned.startswith("["):
            parts = cleaned.split("]-[")
            if len(parts) != 2:
                raise MoveFormatError(f"{text!r}: a block move is written like [BRY, BRR]-[BGY, BGR]")
            sources, targets = parse_nodes(parts[0] + "]"), parse_nodes("[" + parts[1])
            if len(sources) != len(targets):
                raise MoveFormatError(f"{text!r}: as many destinations as rings moved, please")
            return cls.block(player, sources, targets)
        parts = cleaned.split("-")
        if len(parts) != 2:
            raise MoveFormatError(f"{text!r} is not a move: write +GR, G-GR, xGR, roll Y or resign")
        return cls.step(player, parse_node(parts[0]), parse_node(parts[1]))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "player": self.player}
        if self.frm:
            data["from"] = [node_name(n) for n in self.frm]
        if self.to:
            data["to"] = [node_name(n) for n in self.to]
        if self.value is not None:
            data["value"] = node_name(self.value)
        return data

    @classmethod
    def from_dict(cls, data: object) -> GrybMove:
        """Inverse of :meth:`to_dict`; raises :class:`MoveFormatError` (or ``NotationError``)."""
        if not isinstance(data, dict):
            raise MoveFormatError(f"a move is a JSON object, not {data!r}")
        value = data.get("value")
        return cls(
            kind=data.get("kind", ""),
            player=data.get("player", -1),
            frm=parse_nodes(data.get("from", [])),
            to=parse_nodes(data.get("to", [])),
            value=parse_node(value) if value is not None else None,
        )


def _node_list(text: str) -> tuple[str, ...]:
    cleaned = text.strip()
    return parse_nodes(cleaned) if cleaned.startswith("[") else (parse_node(cleaned),)
