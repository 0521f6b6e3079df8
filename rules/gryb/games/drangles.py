"""Drangles and Hyper Drangles: two moves a turn, rings enter through the head node.

Each turn is two steps: one ring twice or two rings once. A step introduces a
ring on the head node or moves a ring down or sideways (Hyper Drangles: also
via hyperspace) to a free node. A ring may pass over an occupied node (or
enter over an occupied head) with the first step if the second step moves it
on to a free node. Choices: the first GRYB ends the game and scores binary
points; a player with no step left to make loses the rest of the turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rules.gryb.games.base import GrybGame
from rules.gryb.games.moves import GrybMove, move_order
from rules.gryb.games.options import check_range
from rules.gryb.nodes import HEAD, node_name
from rules.gryb.traversal import REACH, reachable_by

STEPS_PER_TURN = 2


@dataclass(frozen=True)
class DranglesOptions:
    pieces_per_player: int = 32
    """Rings each player may bring into play."""

    def __post_init__(self) -> None:
        check_range("pieces_per_player", self.pieces_per_player, 1, 170)


class Drangles(GrybGame):
    """Drangles of the manual (see the module docstring for the choices made)."""

    name = "drangles"
    title = "Drangles"
    Options = DranglesOptions
    step_kinds: tuple[str, ...] = ("down", "sideways")

    def _setup(self) -> None:
        self.state.in_hand = [self.options.pieces_per_player] * 2
        self.state.steps_left = STEPS_PER_TURN

    def _steps_per_turn(self) -> int:
        return STEPS_PER_TURN

    def _judge_depth(self) -> int:
        return self.state.steps_left

    def _has_exit(self, node: str) -> bool:
        return any(t not in self.state.board for t in reachable_by(self.step_kinds, node))

    def _legal(self) -> list[GrybMove]:
        s = self.state
        player = s.to_move
        may_pass_over = s.steps_left == STEPS_PER_TURN
        if s.transit is not None:
            return [
                GrybMove.step(player, s.transit, t)
                for t in sorted(reachable_by(self.step_kinds, s.transit))
                if t not in s.board
            ]
        moves = []
        if s.in_hand[player] > 0 and (HEAD not in s.board or (may_pass_over and self._has_exit(HEAD))):
            moves.append(GrybMove.place(player, HEAD))
        for source in s.own(player):
            for kind in self.step_kinds:
                for target in REACH[kind][source]:
                    if target not in s.board or (may_pass_over and self._has_exit(target)):
                        moves.append(GrybMove.step(player, source, target))
        return sorted(set(moves), key=move_order)

    def _candidates(self, target: Mapping[str, int]) -> list[GrybMove]:
        """Also steps onto an occupied node: the ring covers it only until its next step."""
        board = self.state.board
        return [m for m in self._legal() if all(target.get(n) == m.player or n in board for n in m.to)]

    def _play(self, move: GrybMove) -> None:
        s = self.state
        player = move.player
        (target,) = move.to
        if move.kind == "place":
            s.in_hand[player] -= 1
        elif move.frm[0] == s.transit:
            s.transit = None
        else:
            del s.board[move.frm[0]]
        s.steps_left -= 1
        if target in s.board:
            s.transit = target
            return
        s.board[target] = player
        self._win_by_gryb(player, move.to)

    def _rule(self, move: GrybMove) -> str:
        kinds = " or ".join(self.step_kinds)
        if move.kind == "place":
            return "new rings enter on the head node (0)"
        if self.state.steps_left < STEPS_PER_TURN and any(n in self.state.board for n in move.to):
            return f"{node_name(move.to[0])} is taken, and only the first step may pass over a ring"
        return f"rings move {kinds} to a free node, one step at a time"


class HyperDrangles(Drangles):
    """Hyper Drangles: Drangles with hyperspace moves as well."""

    name = "hyper-drangles"
    title = "Hyper Drangles"
    step_kinds = ("down", "sideways", "hyperspace")
