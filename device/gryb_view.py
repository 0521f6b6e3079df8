"""A GRYB game as the dashboard, the store and the runtime see it (the bandanna's
counterpart of the stacked board's facts in :mod:`device.game_view`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rules.gryb.games import GAMES, GrybGame, new_game
from rules.gryb.nodes import node_name

BOARD = "gryb"
DEFAULT_GAME = "ez-gryb"


class GrybSetupError(ValueError):
    """A GRYB game name, options or seat count the bandanna cannot be set up with."""


def is_gryb(game: Any) -> bool:
    return isinstance(game, GrybGame)


def is_gryb_record(state: Mapping[str, Any]) -> bool:
    """Whether a stored game state (``to_dict()`` form) is of a GRYB game."""
    return isinstance(state, Mapping) and state.get("game") in GAMES


def game_factory(
    name: str = DEFAULT_GAME, options: Mapping[str, Any] | None = None
) -> Callable[[int, str], GrybGame]:
    """The runtime's ``game_factory(players, opening)`` for the GRYB game ``name``.

    Raises :class:`GrybSetupError` now for an unknown game or bad options; the factory
    raises it for more or fewer than two players or an opening (GRYB games have none).
    """
    if name not in GAMES:
        raise GrybSetupError(f"{name!r} is not a GRYB game: use one of {', '.join(sorted(GAMES))}")
    try:
        new_game(name, options)
    except ValueError as exc:
        raise GrybSetupError(str(exc)) from exc

    def make(players: int = 2, opening: str = "none") -> GrybGame:
        if players != 2:
            raise GrybSetupError(f"{GAMES[name].title} is a game for two players, not {players}")
        if opening != "none":
            raise GrybSetupError(f"{GAMES[name].title} has no opening {opening!r}")
        return new_game(name, options)

    return make


def load_game(state: Mapping[str, Any]) -> GrybGame:
    """Rebuild a GRYB game from its ``to_dict()`` form (raises ``ValueError`` subclasses)."""
    return GrybGame.from_dict(state)


def last_move_of(game: GrybGame) -> dict[str, Any] | None:
    stack = game.move_stack
    if not stack:
        return None
    move = stack[-1]
    return {
        "ply": len(stack) - 1,
        "notation": move.notation(),
        "point": node_name(move.to[0]) if len(move.to) == 1 else None,
        "color": move.player,
        "text": move.describe(),
    }


def winner_of(game: GrybGame) -> dict[str, Any] | None:
    outcome = game.outcome()
    if outcome is None or outcome.winner is None:
        return None
    return {
        "color": outcome.winner,
        "reason": outcome.reason,
        "grybs": [[node_name(n) for n in line] for line in outcome.lines],
    }


def player_to_act(game: GrybGame, player_names: Sequence[str] = ()) -> dict[str, Any] | None:
    """Who acts next (rolls or moves): ``{"player", "name", "team", "colour"}``."""
    if game.outcome() is not None:
        return None
    player = game.to_move
    return {
        "player": player,
        "name": player_names[player] if player < len(player_names) else None,
        "team": None,
        "colour": player,
    }


def describe(game: GrybGame) -> dict[str, Any]:
    """The game part of the dashboard state, with the same keys as the stacked board's
    (rings by node name in ``tokens``) plus ``gryb``: the game's own status (name,
    scores, die due, last roll, rings in hand, GRYBs made, outcome)."""
    outcome = game.outcome()
    over = outcome is not None
    return {
        "board": BOARD,
        "tokens": {node_name(n): int(c) for n, c in sorted(game.position().items())},
        "turn": None if over else game.to_move,
        "winner": winner_of(game),
        "result": "ongoing" if not over else ("draw" if outcome.winner is None else "win"),
        "last_move": last_move_of(game),
        "threats": {},
        "moves": [m.notation() for m in game.move_stack],
        "phase": "over" if over else ("roll" if game.die() else "play"),
        "player_colors": [0, 1],
        "legal_colors": [] if over else [game.to_move],
        "gryb": game.status(),
    }
