"""Every game of the GRYB manual, by kebab-case name."""

from __future__ import annotations

from rules.gryb.games.base import GameOptionError, GameRecordError, GrybGame, GrybState
from rules.gryb.games.blobs import Blobs
from rules.gryb.games.borg import Borg
from rules.gryb.games.connection import Connection
from rules.gryb.games.drangles import Drangles, HyperDrangles
from rules.gryb.games.ez_gryb import EzGryb
from rules.gryb.games.fourth_level import FourthLevel
from rules.gryb.games.interrupt import Interrupt
from rules.gryb.games.mens_gryb import MensGryb
from rules.gryb.games.moves import GrybMove, MoveFormatError, player_name
from rules.gryb.games.square_deal import SquareDeal
from rules.gryb.games.squirrel_race import SquirrelRace

GAMES: dict[str, type[GrybGame]] = {
    game.name: game
    for game in (
        EzGryb,
        SquirrelRace,
        Drangles,
        HyperDrangles,
        FourthLevel,
        Interrupt,
        Connection,
        Blobs,
        Borg,
        SquareDeal,
        MensGryb,
    )
}


class UnknownGameError(GameOptionError):
    """A game name that is not in :data:`GAMES`."""


def new_game(name: str, options: object = None, *, seed: int | str | None = None) -> GrybGame:
    """Start the game called ``name`` (see :data:`GAMES`); raises :class:`UnknownGameError`."""
    game = GAMES.get(name)
    if game is None:
        raise UnknownGameError(f"{name!r} is not a GRYB game: use one of {', '.join(GAMES)}")
    return game(options, seed=seed)


__all__ = [
    "GAMES",
    "Blobs",
    "Borg",
    "Connection",
    "Drangles",
    "EzGryb",
    "FourthLevel",
    "GameOptionError",
    "GameRecordError",
    "GrybGame",
    "GrybMove",
    "GrybState",
    "HyperDrangles",
    "Interrupt",
    "MensGryb",
    "MoveFormatError",
    "SquareDeal",
    "SquirrelRace",
    "UnknownGameError",
    "new_game",
    "player_name",
]
