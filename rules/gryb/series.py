"""A series of GRYB games: "first to reach 21 points" or "highest points out of five games".

Many games of the manual end at the first GRYB and are played in series. A
:class:`Series` adds up the scores of finished games until one player
reaches ``target`` points, or until ``games`` games have been played.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.errors import RulesError
from rules.gryb.games import GrybGame


class SeriesError(RulesError):
    """A series asked to record a game that has not ended, or one more than it holds."""


@dataclass
class Series:
    """Totals over finished games; ``target`` points or ``games`` games end it (whichever first)."""

    target: int | None = 21
    games: int | None = None
    totals: list[int] = field(default_factory=lambda: [0, 0])
    played: int = 0

    def __post_init__(self) -> None:
        if self.target is None and self.games is None:
            raise SeriesError("a series needs a target score, a number of games, or both")
        for name, value in (("target", self.target), ("games", self.games)):
            if value is not None and value < 1:
                raise SeriesError(f"a series' {name} must be at least 1, not {value}")

    def record(self, game: GrybGame) -> None:
        """Add a finished game's scores; raises :class:`SeriesError` if it has not ended."""
        if not game.is_over():
            raise SeriesError("only a finished game counts towards the series")
        if self.is_over():
            raise SeriesError("the series is already decided")
        for player, points in enumerate(game.scores):
            self.totals[player] += points
        self.played += 1

    def is_over(self) -> bool:
        reached = self.target is not None and max(self.totals) >= self.target
        return reached or (self.games is not None and self.played >= self.games)

    def winner(self) -> int | None:
        """The player ahead once the series is over (``None`` while it runs or when level)."""
        if not self.is_over() or self.totals[0] == self.totals[1]:
            return None
        return 0 if self.totals[0] > self.totals[1] else 1

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target, "games": self.games, "totals": list(self.totals),
                "played": self.played}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Series:
        """Inverse of :meth:`to_dict`; raises :class:`SeriesError` for a malformed record."""
        try:
            return cls(data.get("target"), data.get("games"), list(data["totals"]), int(data["played"]))
        except (KeyError, TypeError, ValueError) as error:
            raise SeriesError(f"not a saved series: {error}") from None
