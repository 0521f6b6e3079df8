"""EZ GRYB: roll the four-colour die, place, move down, or capture sideways onto that colour.

Choices where the manual is silent: the first GRYB ends the game (it is "to
win") and scores binary points; a series (best of five, first to 21) is kept
by whoever runs the games. A captured ring goes back to its owner's supply
(option ``captured-return``; off: it leaves the game). Each player has
``pieces-per-player`` rings (32 in the box).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.gryb.games.base import GrybGame
from rules.gryb.games.moves import GrybMove
from rules.gryb.games.options import check_range
from rules.gryb.nodes import LEVELS, focus, node_name
from rules.gryb.traversal import REACH


@dataclass(frozen=True)
class EzGrybOptions:
    pieces_per_player: int = 32
    """Rings each player may bring into play."""
    captured_return: bool = True
    """A captured ring goes back to its owner's supply (else it is out of the game)."""

    def __post_init__(self) -> None:
        check_range("pieces_per_player", self.pieces_per_player, 1, 170)


class EzGryb(GrybGame):
    """EZ GRYB of the manual (see the module docstring for the choices made)."""

    name = "ez-gryb"
    title = "EZ GRYB"
    Options = EzGrybOptions

    def _setup(self) -> None:
        self.state.in_hand = [self.options.pieces_per_player] * 2

    def _dice(self) -> str | None:
        return "colour"

    def _legal(self) -> list[GrybMove]:
        return self._placements() + self._advances() + self._captures()

    def _placements(self) -> list[GrybMove]:
        """New rings go on a free top-level node of the colour rolled."""
        s = self.state
        if s.in_hand[s.to_move] == 0:
            return []
        return [GrybMove.place(s.to_move, n) for n in LEVELS[1] if focus(n) == s.roll and n not in s.board]

    def _advances(self) -> list[GrybMove]:
        """Moves down onto a free node of the colour rolled."""
        return list(self._steps(self.state.to_move, ("down",), colour=self.state.roll))

    def _captures(self) -> list[GrybMove]:
        """Sideways onto an opposing ring on the colour rolled."""
        s = self.state
        return [
            GrybMove.step(s.to_move, source, target)
            for source in s.own(s.to_move)
            for target in REACH["sideways"][source]
            if focus(target) == s.roll and s.board.get(target) == 1 - s.to_move
        ]

    def _play(self, move: GrybMove) -> None:
        s = self.state
        player = move.player
        (target,) = move.to
        if move.kind == "place":
            s.in_hand[player] -= 1
        else:
            del s.board[move.frm[0]]
            if s.board.get(target) == 1 - player and self.options.captured_return:
                s.in_hand[1 - player] += 1
        s.board[target] = player
        s.steps_left = 0
        self._win_by_gryb(player, move.to)

    def _rule(self, move: GrybMove) -> str:
        if move.kind == "place":
            return "new rings go on a free node of the top quadrangle"
        if move.kind == "move" and len(move.frm) == 1:
            source, target = move.frm[0], move.to[0]
            if target in REACH["sideways"][source]:
                return "a sideways move must capture an opposing ring"
            if target in REACH["down"][source]:
                return f"{node_name(target)} is taken"
        return "rings move one level down, or sideways to capture"
