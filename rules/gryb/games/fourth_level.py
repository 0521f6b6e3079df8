"""The Fourth Level: rolled placements on the bottom level, then sideways and hyperspace moves.

Phase one: players take turns rolling the fourth-level die and placing a ring
on the node rolled (occupied: roll again) until each has placed
``pieces-per-player`` (8). Phase two: one ring a turn moves sideways or via
hyperspace to a free node; rings never leave the fourth level. The first
GRYB wins (a GRYB formed by the rolls of phase one counts too).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.gryb.games.base import GrybGame
from rules.gryb.games.moves import GrybMove
from rules.gryb.games.options import check_range
from rules.gryb.nodes import DEPTH


@dataclass(frozen=True)
class FourthLevelOptions:
    pieces_per_player: int = 8
    """Rings each player places in phase one."""

    def __post_init__(self) -> None:
        check_range("pieces_per_player", self.pieces_per_player, 4, 32)


class FourthLevel(GrybGame):
    """The Fourth Level of the manual (see the module docstring)."""

    name = "fourth-level"
    title = "The Fourth Level"
    Options = FourthLevelOptions

    def _setup(self) -> None:
        self.state.in_hand = [self.options.pieces_per_player] * 2

    def _dice(self) -> str | None:
        return "leaf" if self.state.phase == 1 else None

    def _roll_is_void(self, face: str) -> bool:
        return face in self.state.board

    def _legal(self) -> list[GrybMove]:
        s = self.state
        if s.phase == 1:
            return [GrybMove.place(s.to_move, s.roll)] if s.roll is not None else []
        return list(self._steps(s.to_move, ("sideways", "hyperspace")))

    def _play(self, move: GrybMove) -> None:
        s = self.state
        player = move.player
        if move.kind == "place":
            s.in_hand[player] -= 1
            if not any(s.in_hand):
                s.phase = 2
        else:
            del s.board[move.frm[0]]
        s.board[move.to[0]] = player
        s.steps_left = 0
        self._win_by_gryb(player, move.to, level=DEPTH)

    def _rule(self, move: GrybMove) -> str:
        if self.state.phase == 1:
            return "place your ring on the fourth-level node rolled"
        return "rings move sideways or via hyperspace to a free node"
