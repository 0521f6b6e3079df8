"""Interrupt: build chains of your rings down from the top; capture sideways to cut them.

Each turn: roll the four-colour die and place a ring on a free node of that
colour, either on the top quadrangle or beneath a ring of a chain of yours
that reaches unbroken up to the top level. A sideways move onto an opposing
ring of the colour rolled captures it (your ring moves, which may cut a chain
of your own). Choices: the capturing ring may be any of yours; the first
GRYB ends the game and scores binary points; captured rings go back to their
owner (option ``captured-return``).
"""

from __future__ import annotations

from rules.gryb.games.ez_gryb import EzGryb
from rules.gryb.games.moves import GrybMove
from rules.gryb.nodes import LEVELS, children, focus


class Interrupt(EzGryb):
    """Interrupt of the manual (see the module docstring for the choices made)."""

    name = "interrupt"
    title = "Interrupt"

    def _is_chained(self, node: str) -> bool:
        board, player = self.state.board, self.state.to_move
        return all(board.get(node[:k]) == player for k in range(1, len(node) + 1))

    def _placements(self) -> list[GrybMove]:
        s = self.state
        if s.in_hand[s.to_move] == 0:
            return []
        spots = list(LEVELS[1]) + [
            child for node in s.own(s.to_move) if self._is_chained(node) for child in children(node)
        ]
        return [
            GrybMove.place(s.to_move, n)
            for n in sorted(set(spots))
            if focus(n) == s.roll and n not in s.board
        ]

    def _advances(self) -> list[GrybMove]:
        return []

    def _rule(self, move: GrybMove) -> str:
        if move.kind == "place":
            return "build on the top quadrangle or beneath a chain of yours that reaches the top"
        if move.kind == "move":
            return "rings only move sideways, to capture an opposing ring"
        return super()._rule(move)
