"""Settings of a Time Vectors game: players, teams, token supply, opening protocol."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from rules.errors import GameConfigError

COLORS = 3
"""The board ships with tokens of three colours, indexed 0..2."""
OPENINGS = ("none", "swap", "3meq")
PLAY, OPENING, CHOOSING = "play", "opening", "choosing"
"""Game phases: normal play; the 3MEQ first player's three tokens; the 3MEQ colour choice."""
MAX_SUPPLY = 85
"""With three colours of 85 tokens the 256 points can never all be filled by one game."""


@dataclass(frozen=True)
class GameConfig:
    """How a game is played.

    ``players`` counts people in turn order. Without teams there are 2 or 3
    players, player ``i`` playing colour ``i``. With ``teams`` there are 4 or
    6 players in two teams; turns go team 1 player A, team 2 player A, team 1
    player B, ... (the manual's rotation), so player ``i`` is on team ``i % 2``
    and plays colour ``i % 2``. ``supply`` is the number of tokens of each
    colour. ``opening`` is ``"none"``, ``"swap"`` (first-move swap) or
    ``"3meq"`` (three-move equalization); both protocols are for two single
    players. ``color_names`` optionally names colours 0.. for messages.

    Raises :class:`GameConfigError` for a combination the rules do not allow.
    """

    players: int = 2
    teams: bool = False
    supply: int = 35
    opening: str = "none"
    color_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.teams:
            if self.players not in (4, 6):
                raise GameConfigError(
                    f"team games have 4 or 6 players (two teams), not {self.players}"
                )
        elif self.players not in (2, 3):
            raise GameConfigError(f"a game has 2 or 3 players (or teams), not {self.players}")
        if isinstance(self.supply, bool) or not isinstance(self.supply, int):
            raise GameConfigError(f"supply must be a whole number, not {self.supply!r}")
        if not 1 <= self.supply <= MAX_SUPPLY:
            raise GameConfigError(
                f"supply must be 1..{MAX_SUPPLY} tokens per colour, not {self.supply}"
            )
        if self.opening not in OPENINGS:
            raise GameConfigError(
                f"opening must be one of {', '.join(OPENINGS)}, not {self.opening!r}"
            )
        if self.opening != "none" and (self.players != 2 or self.teams):
            raise GameConfigError(f"the {self.opening} opening is for two single players")
        if self.opening == "3meq" and self.supply < 2:
            raise GameConfigError("the 3meq opening needs at least 2 tokens per colour")
        if not isinstance(self.color_names, tuple) or len(self.color_names) > COLORS:
            raise GameConfigError(f"color_names must be a tuple of at most {COLORS} names")

    @property
    def colors_in_play(self) -> int:
        """How many colours the game uses: one per player or per team."""
        return 2 if self.teams else self.players

    def player_color(self, player: int) -> int:
        """The colour player ``player`` (0-based, in turn order) plays before any opening swap."""
        return player % self.colors_in_play

    def color_name(self, color: int) -> str:
        """The colour's name for messages: its configured name, else ``"colour 1"``."""
        if 0 <= color < len(self.color_names):
            return self.color_names[color]
        return f"colour {color}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (lists for tuples)."""
        data = asdict(self)
        data["color_names"] = list(self.color_names)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameConfig:
        """Inverse of :meth:`to_dict`; raises :class:`GameConfigError` for unknown or bad fields."""
        if not isinstance(data, Mapping):
            raise GameConfigError(f"a game config is a JSON object, not {type(data).__name__}")
        unknown = set(data) - {"players", "teams", "supply", "opening", "color_names"}
        if unknown:
            raise GameConfigError(f"unknown game config fields: {', '.join(sorted(unknown))}")
        fields = dict(data)
        if "color_names" in fields:
            names = fields["color_names"]
            if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
                raise GameConfigError("color_names must be a list of strings")
            fields["color_names"] = tuple(names)
        if "players" in fields and not _is_int(fields["players"]):
            raise GameConfigError(f"players must be a whole number, not {fields['players']!r}")
        if "teams" in fields and not isinstance(fields["teams"], bool):
            raise GameConfigError(f"teams must be true or false, not {fields['teams']!r}")
        return cls(**fields)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
