"""What the referee needs to know about a board: location names, the board a game shows, moves.

The camera reports locations as indices (points 0..255 of the stacked board, nodes
0..340 of the bandanna, in :data:`rules.gryb.nodes.NODES` order); the rules engines
have their own move types and location keys. One :class:`BoardRules` per board
translates between the two so that one referee, one pipeline and one runtime serve
both boards. :func:`board_rules` picks the right one for a game.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any

from rules.game import Game, Judgement, Outcome
from rules.gryb.games.base import GrybGame
from rules.gryb.games.moves import GrybMove
from rules.gryb.nodes import NODES, node_index, node_name, parse_node
from rules.timevectors import Move
from rules.timevectors.moves import CHOOSE, PLACE
from rules.timevectors.points import POINT_NAMES, parse_point, point_name


class BoardRules(ABC):
    """The board-specific half of refereeing (the other half is the game's ``judge``)."""

    #: ``board`` of the state and of calibration files: "timevectors" or "gryb".
    board: str = ""
    #: How many locations the camera reads.
    size: int = 0
    #: What a location is called in messages ("point", "node").
    location_word: str = "location"

    def is_location(self, location: object) -> bool:
        """Whether ``location`` is a location index of this board."""
        return (
            isinstance(location, int)
            and not isinstance(location, bool)
            and 0 <= location < self.size
        )

    @abstractmethod
    def name(self, location: int) -> str:
        """The location in the board's notation (``A3Q``, ``GGBY``)."""

    def parse_location(self, text: object) -> int:
        """A location index from its name or index; raises ``ValueError`` saying what is wrong."""
        if self.is_location(text):
            return text  # type: ignore[return-value]
        if isinstance(text, str):
            return self._parse(text)
        raise ValueError(
            f"a {self.location_word} is written like {self.name(self.size - 1)}, not {text!r}"
        )

    @abstractmethod
    def _parse(self, text: str) -> int:
        """The index of a location name (raises a ``ValueError`` subclass)."""

    def names(self, locations: Iterable[int]) -> list[str]:
        """Locations in notation, in name order (how a player scans a list)."""
        return sorted(self.name(loc) for loc in locations)

    @abstractmethod
    def position(self, game: Game) -> dict[int, int]:
        """What the board should show now: location index -> colour."""

    @abstractmethod
    def judge(self, game: Game, observed: Mapping[int, int]) -> Judgement:
        """``game.judge`` of an observed board, with ``changed`` as location indices."""

    @abstractmethod
    def turn_color(self, game: Game) -> int | None:
        """The colour the player to move places, ``None`` when nobody places now."""

    @abstractmethod
    def place(self, location: int, color: int) -> Any:
        """The move that puts a token of ``color`` on ``location``."""

    @abstractmethod
    def changes_board(self, move: Any) -> bool:
        """Whether the move changes what the board shows (a roll or a colour choice does not)."""

    @abstractmethod
    def placed(self, move: Any) -> tuple[int, ...]:
        """Locations the move put a token on."""

    @abstractmethod
    def relocated(self, move: Any, moved: Mapping[int, int]) -> Any | None:
        """The move with its tokens on the locations ``moved`` maps them to; ``None`` when
        this board's moves cannot be rewritten that way."""

    @abstractmethod
    def move_record(self, move: Any) -> dict[str, Any]:
        """The fields of a ``move`` event for ``move``."""

    def undo_record(self, move: Any) -> dict[str, Any]:
        """The fields of an ``undo`` event for ``move`` (``point`` is ``None`` when it has none)."""
        return {"point": None, **self.move_record(move)}

    @abstractmethod
    def win_record(self, outcome: Outcome) -> dict[str, Any]:
        """The fields of a ``win`` event beside ``color``."""

    def choice(self, color: int) -> Any | None:
        """The move of an operator-reported colour choice, ``None`` if the board has none."""
        return None

    def score_mark(self, game: Game) -> Any:
        """What :meth:`scored` compares against after a move (``None``: nothing scores)."""
        return None

    def scored(self, game: Game, mark: Any) -> dict[str, Any] | None:
        """The fields of a ``gryb`` event when the last move scored since ``mark``, else ``None``."""
        return None

    def state(self, game: Game) -> dict[str, Any]:
        """Board-specific fields for the dashboard state."""
        return {}


class TimeVectorsRules(BoardRules):
    """The stacked board: points 0..255, :class:`rules.timevectors.Move` moves."""

    board = "timevectors"
    size = len(POINT_NAMES)
    location_word = "point"

    def name(self, location: int) -> str:
        return point_name(location)

    def _parse(self, text: str) -> int:
        return parse_point(text)

    def position(self, game: Game) -> dict[int, int]:
        return dict(game.board)  # type: ignore[attr-defined]

    def judge(self, game: Game, observed: Mapping[int, int]) -> Judgement:
        return game.judge(observed)  # type: ignore[attr-defined]

    def turn_color(self, game: Game) -> int | None:
        return game.turn_color()  # type: ignore[attr-defined]

    def place(self, location: int, color: int) -> Move:
        return Move(location, color)

    def changes_board(self, move: Any) -> bool:
        return getattr(move, "kind", PLACE) != CHOOSE

    def placed(self, move: Any) -> tuple[int, ...]:
        point = getattr(move, "point", None)
        return () if point is None else (point,)

    def relocated(self, move: Any, moved: Mapping[int, int]) -> Any | None:
        if not dataclasses.is_dataclass(move) or not hasattr(move, "point"):
            return None
        return dataclasses.replace(move, point=moved.get(move.point, move.point))

    def move_record(self, move: Any) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if getattr(move, "point", None) is not None:
            data["point"] = point_name(move.point)
        data["color"] = move.color
        kind = getattr(move, "kind", PLACE)
        if kind != PLACE:
            data["kind"] = kind
        return data

    def undo_record(self, move: Any) -> dict[str, Any]:
        point = getattr(move, "point", None)
        return {"point": None if point is None else point_name(point), "color": move.color}

    def win_record(self, outcome: Outcome) -> dict[str, Any]:
        return {"vectors": [[point_name(p) for p in line] for line in outcome.lines]}

    def choice(self, color: int) -> Move:
        return Move(None, color, CHOOSE)


class GrybRules(BoardRules):
    """The bandanna: nodes 0..340 in :data:`NODES` order, :class:`GrybMove` moves.

    A ring's colour is the player's index (0 or 1), as in the GRYB games.
    """

    board = "gryb"
    size = len(NODES)
    location_word = "node"

    def name(self, location: int) -> str:
        return node_name(NODES[location])

    def _parse(self, text: str) -> int:
        return node_index(parse_node(text))

    def position(self, game: Game) -> dict[int, int]:
        return {node_index(n): c for n, c in game.position().items()}  # type: ignore[attr-defined]

    def judge(self, game: Game, observed: Mapping[int, int]) -> Judgement:
        judgement = game.judge({NODES[i]: c for i, c in observed.items()})  # type: ignore[attr-defined]
        changed = tuple(sorted(node_index(n) for n in judgement.changed))
        return dataclasses.replace(judgement, changed=changed)

    def turn_color(self, game: Game) -> int | None:
        return None if game.is_over() else game.to_move  # type: ignore[attr-defined]

    def place(self, location: int, color: int) -> GrybMove:
        return GrybMove.place(color, NODES[location])

    def changes_board(self, move: Any) -> bool:
        return move.kind in ("place", "move", "remove")

    def placed(self, move: Any) -> tuple[int, ...]:
        if move.kind in ("place", "move"):
            return tuple(node_index(n) for n in move.to)
        return ()

    def relocated(self, move: Any, moved: Mapping[int, int]) -> Any | None:
        return None  # a ring put elsewhere is a different GRYB move, not the same one moved

    def move_record(self, move: Any) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": move.kind, "color": move.player}
        if move.kind == "roll":
            data["roll"] = node_name(move.value or "")
        if move.frm:
            data["from"] = [node_name(n) for n in move.frm]
        if move.to:
            data["nodes"] = [node_name(n) for n in move.to]
            if len(move.to) == 1:
                data["point"] = node_name(move.to[0])
        data["text"] = move.describe()
        return data

    def win_record(self, outcome: Outcome) -> dict[str, Any]:
        return {
            "reason": outcome.reason,
            "grybs": [[node_name(n) for n in line] for line in outcome.lines],
        }

    def score_mark(self, game: Game) -> Any:
        return len(game.state.grybs)  # type: ignore[attr-defined]

    def scored(self, game: Game, mark: Any) -> dict[str, Any] | None:
        made = game.state.grybs[mark:]  # type: ignore[attr-defined]
        if not made:
            return None
        return {
            "color": made[0].colour,
            "grybs": [g.to_dict() for g in made],
            "scores": list(game.scores),  # type: ignore[attr-defined]
        }

    def state(self, game: Game) -> dict[str, Any]:
        return {"gryb": game.status()}  # type: ignore[attr-defined]


TIMEVECTORS = TimeVectorsRules()
GRYB = GrybRules()


def board_rules(game: Game) -> BoardRules:
    """The :class:`BoardRules` of the board ``game`` is played on."""
    return GRYB if isinstance(game, GrybGame) else TIMEVECTORS
