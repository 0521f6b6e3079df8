"""Squirrel Race: scatter nuts on the fourth level, then race squirrels over the third to gather them.

Phase one: players take turns rolling the fourth-level die and placing a nut
(a ring of their colour) on the node rolled; an occupied node means roll
again. Phase two: each squirrel is a ring of its player's colour on the third
level. A squirrel enters on a free third-level node of the colour the
four-colour die shows; afterwards it moves sideways or via hyperspace, one
move a turn. Wherever it lands it gathers every nut beneath it: nuts of its
own colour score 2, the others 1. The game ends when every nut is gathered.
Choices: two squirrels may not share a node; the die is only rolled for the
entry (option ``roll-each-move``: roll before every squirrel move too, and
land on that colour or lose the turn).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.game import Outcome
from rules.gryb.games.base import GrybGame
from rules.gryb.games.moves import GrybMove
from rules.gryb.games.options import check_range
from rules.gryb.nodes import DEPTH, LEAVES, LEVELS, children, focus

SQUIRREL_LEVEL = 3


@dataclass(frozen=True)
class SquirrelRaceOptions:
    nuts: int = 60
    """Nuts placed in phase one (taking turns, the first player places the odd one)."""
    roll_each_move: bool = False
    """Roll the four-colour die before every squirrel move, not only to enter."""

    def __post_init__(self) -> None:
        check_range("nuts", self.nuts, 1, len(LEAVES))


class SquirrelRace(GrybGame):
    """Squirrel Race of the manual (see the module docstring for the choices made)."""

    name = "squirrel-race"
    title = "Squirrel Race"
    Options = SquirrelRaceOptions
    can_finish = True

    def _setup(self) -> None:
        nuts = self.options.nuts
        self.state.in_hand = [nuts - nuts // 2, nuts // 2]

    def _dice(self) -> str | None:
        s = self.state
        if s.phase == 1:
            return "leaf"
        if s.to_move not in s.markers or self.options.roll_each_move:
            return "colour"
        return None

    def _roll_is_void(self, face: str) -> bool:
        return self.state.phase == 1 and face in self.state.board

    def _legal(self) -> list[GrybMove]:
        s = self.state
        player = s.to_move
        if s.phase == 1:
            return [GrybMove.place(player, s.roll)] if s.roll is not None else []
        if player not in s.markers:
            return [
                GrybMove.place(player, n)
                for n in LEVELS[SQUIRREL_LEVEL]
                if focus(n) == s.roll and n not in s.board
            ]
        colour = s.roll if self.options.roll_each_move else None
        squirrel = (s.markers[player],)
        return list(self._steps(player, ("sideways", "hyperspace"), colour=colour, sources=squirrel))

    def _play(self, move: GrybMove) -> None:
        s = self.state
        player = move.player
        (target,) = move.to
        s.steps_left = 0
        if s.phase == 1:
            s.board[target] = player
            s.in_hand[player] -= 1
            if not any(s.in_hand):
                s.phase = 2
                s.in_hand = [1, 1]  # the squirrels
            return
        if move.kind == "place":
            s.in_hand[player] -= 1
        else:
            del s.board[move.frm[0]]
        s.board[target] = player
        s.markers[player] = target
        for leaf in children(target):
            nut = s.board.pop(leaf, None)
            if nut is not None:
                s.piles[player][nut] += 1
                s.scores[player] += 2 if nut == player else 1
        if not any(len(n) == DEPTH for n in s.board):
            s.result = self._score_outcome()
            s.result = Outcome(s.result.winner, "every nut is gathered: " + s.result.reason)

    def _rule(self, move: GrybMove) -> str:
        s = self.state
        if s.phase == 1:
            return "place the nut on the fourth-level node rolled"
        if s.to_move not in s.markers:
            return "your squirrel enters on a free third-level node of the colour rolled"
        return "a squirrel moves sideways or via hyperspace to a free third-level node"
