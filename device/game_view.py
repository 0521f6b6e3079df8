"""The Time Vectors game as the dashboard, the exports and the store see it.

One place turns a rules engine object into JSON-ready facts (tokens by point
name, whose turn, the winner and its vectors, threats, the move list), so the
runtime state, the history pages and the exports all agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rules.timevectors import GameConfig, TimeVectorsGame, threats
from rules.timevectors.points import point_name

BOARD = "timevectors"


def names(points: Iterable[Any]) -> list[str]:
    """Points as ``A3Q`` names (ints are converted, names kept)."""
    return [p if isinstance(p, str) else point_name(int(p)) for p in points]


def new_game(players: int = 2, opening: str = "none") -> Any:
    """A fresh Time Vectors game; raises ``ValueError`` for a configuration the rules refuse."""
    return TimeVectorsGame(GameConfig(players=players, teams=players in (4, 6), opening=opening))


def load_game(state: Mapping[str, Any]) -> Any:
    """Rebuild a game from its ``to_dict()`` form; raises ``ValueError``/``KeyError`` on bad data."""
    return TimeVectorsGame.from_dict(dict(state))


def move_notation(move: Any) -> str:
    """A move's text: the engine's ``notation()`` when it has one."""
    notation = getattr(move, "notation", None)
    return notation() if callable(notation) else str(move)


def tokens_by_name(board: Mapping[int, int]) -> dict[str, int]:
    return {point_name(point): int(colour) for point, colour in sorted(board.items())}


def winner_of(game: Any) -> dict[str, Any] | None:
    """``{"color", "vectors"}`` once somebody has won, else ``None`` (also for a draw)."""
    outcome = game.outcome()
    if outcome is None or outcome.winner is None:
        return None
    return {"color": outcome.winner, "vectors": [names(line) for line in outcome.lines]}


def result_of(game: Any) -> str:
    """``"ongoing"``, ``"win"`` or ``"draw"``."""
    outcome = game.outcome()
    if outcome is None:
        return "ongoing"
    return "draw" if outcome.winner is None else "win"


def threats_of(game: Any) -> dict[str, list[str]]:
    """Per colour (as a string key, JSON-style): the empty points that would complete a vector."""
    board = game.board
    found: dict[str, list[str]] = {}
    for colour in sorted(set(board.values())):
        points = sorted({point for _vector, point in threats(board, colour)})
        if points:
            found[str(colour)] = names(points)
    return found


def last_move_of(game: Any) -> dict[str, Any] | None:
    stack = game.move_stack
    if not stack:
        return None
    move = stack[-1]
    point = getattr(move, "point", None)
    return {
        "ply": len(stack) - 1,
        "notation": move_notation(move),
        "point": None if point is None else point_name(point),
        "color": getattr(move, "color", None),
    }


def describe(game: Any) -> dict[str, Any]:
    """The game part of the dashboard state."""
    return {
        "board": BOARD,
        "tokens": tokens_by_name(game.board),
        "turn": game.turn_color(),
        "winner": winner_of(game),
        "result": result_of(game),
        "last_move": last_move_of(game),
        "threats": threats_of(game),
        "moves": [move_notation(m) for m in game.move_stack],
    }
