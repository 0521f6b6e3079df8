"""The game as the dashboard, the exports and the store see it.

One place turns a rules engine object into JSON-ready facts (tokens by point
name, whose turn, the winner and its vectors, threats, the move list), so the
runtime state, the history pages and the exports all agree. A GRYB game on the
bandanna is described by :mod:`device.gryb_view` with the same keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from device import gryb_view
from rules.timevectors import GameConfig, TimeVectorsGame, threats
from rules.timevectors.config import CHOOSING, OPENING
from rules.timevectors.points import point_name

BOARD = "timevectors"

# Values of the state's ``phase``: what the players have to do next.
PHASE_3MEQ_PLACING = "3meq-placing"  # the first player puts down the three opening tokens
PHASE_3MEQ_CHOICE = "3meq-choice"  # the second player must choose a colour (operator action)
PHASE_SWAP_AVAILABLE = "swap-available"  # the second player may swap the first token
PHASE_PLAY = "play"
PHASE_OVER = "over"


def names(points: Iterable[Any]) -> list[str]:
    """Points as ``A3Q`` names (ints are converted, names kept)."""
    return [p if isinstance(p, str) else point_name(int(p)) for p in points]


def new_game(players: int = 2, opening: str = "none") -> Any:
    """A fresh Time Vectors game; raises ``ValueError`` for a configuration the rules refuse."""
    return TimeVectorsGame(GameConfig(players=players, teams=players in (4, 6), opening=opening))


def board_of(game: Any) -> str:
    """The board ``game`` is played on (the store's ``board`` column)."""
    return gryb_view.BOARD if gryb_view.is_gryb(game) else BOARD


def load_game(state: Mapping[str, Any]) -> Any:
    """Rebuild a game (of either board) from its ``to_dict()`` form; raises
    ``ValueError``/``KeyError`` on bad data."""
    if gryb_view.is_gryb_record(state):
        return gryb_view.load_game(state)
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


def phase_of(game: Any) -> str:
    """What the players have to do next (one of the ``PHASE_*`` values)."""
    if game.outcome() is not None:
        return PHASE_OVER
    phase = getattr(game, "phase", None)
    if phase == OPENING:
        return PHASE_3MEQ_PLACING
    if phase == CHOOSING:
        return PHASE_3MEQ_CHOICE
    swap_point = getattr(game, "swap_point", None)
    if callable(swap_point) and swap_point() is not None:
        return PHASE_SWAP_AVAILABLE
    return PHASE_PLAY


def player_to_act(game: Any, player_names: Sequence[str] = ()) -> dict[str, Any] | None:
    """Who acts next: ``{"player", "name", "team", "colour"}`` (``None`` once the game is over).

    ``player`` is the seat (0-based, in turn order), ``name`` its name when the players were
    named, ``team`` 0 or 1 in a team game, ``colour`` the seat's colour once the opening has
    settled it (``None`` while 3MEQ tokens are placed or the colour choice is due).
    """
    if gryb_view.is_gryb(game):
        return gryb_view.player_to_act(game, player_names)
    if game.outcome() is not None:
        return None
    player = game.turn_player()
    config = getattr(game, "config", None)
    teams = bool(getattr(config, "teams", False))
    return {
        "player": player,
        "name": player_names[player] if player < len(player_names) else None,
        "team": player % 2 if teams else None,
        "colour": game.turn_color(),
    }


def describe(game: Any) -> dict[str, Any]:
    """The game part of the dashboard state."""
    if gryb_view.is_gryb(game):
        return gryb_view.describe(game)
    return {
        "board": BOARD,
        "tokens": tokens_by_name(game.board),
        "turn": game.turn_color(),
        "winner": winner_of(game),
        "result": result_of(game),
        "last_move": last_move_of(game),
        "threats": threats_of(game),
        "moves": [move_notation(m) for m in game.move_stack],
        "phase": phase_of(game),
        "player_colors": list(getattr(game, "player_colors", ())),
        "legal_colors": sorted(game.legal_colors()),
    }
