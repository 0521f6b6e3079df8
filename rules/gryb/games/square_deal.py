"""Square Deal: complete quadrangles with anyone's rings and take them to your capture pile.

Phase one: players take turns rolling GRYB Dice II and placing a ring on the
node rolled (occupied: roll again) until each has placed
``pieces-per-player`` (20). Phase two: one ring, line or shape (contiguous 2
or 3 of your own rings) a turn moves up, down, sideways, via hyperspace,
interjection or excision to free nodes (option ``easy``: no interjection or
excision); lines and shapes also move as a block, change, or hop. Whenever a
move or placement fills all four nodes of a quadrangle, whatever the colours,
the mover takes those four rings out of the game into their capture pile.
The score is the number of the *opponent's* rings in your pile. The game ends
when fewer than four rings are left on the board, or when the players agree
that the rest is a cat's dilemma (``finish``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rules.game import Outcome
from rules.gryb.games.base import GrybGame
from rules.gryb.games.moves import GrybMove, move_order
from rules.gryb.games.options import check_range
from rules.gryb.nodes import children

UNIT_KINDS = ("up", "down", "sideways", "hyperspace", "interjection", "excision")
EASY_KINDS = ("up", "down", "sideways", "hyperspace")


@dataclass(frozen=True)
class SquareDealOptions:
    pieces_per_player: int = 20
    """Rings each player places in phase one."""
    easy: bool = False
    """The easier version: moves up, down, sideways and hyperspace only."""

    def __post_init__(self) -> None:
        check_range("pieces_per_player", self.pieces_per_player, 2, 170)


class SquareDeal(GrybGame):
    """Square Deal of the manual (see the module docstring)."""

    name = "square-deal"
    title = "Square Deal"
    Options = SquareDealOptions
    can_finish = True

    def _setup(self) -> None:
        self.state.in_hand = [self.options.pieces_per_player] * 2

    def _dice(self) -> str | None:
        return "node" if self.state.phase == 1 else None

    def _roll_is_void(self, face: str) -> bool:
        return face in self.state.board

    def _legal(self) -> list[GrybMove]:
        s = self.state
        player = s.to_move
        if s.phase == 1:
            return [GrybMove.place(player, s.roll)] if s.roll is not None else []
        kinds = EASY_KINDS if self.options.easy else UNIT_KINDS
        block_kinds = ("hyperspace",) if self.options.easy else ("interjection", "excision", "hyperspace")
        groups = self._small_groups(s.own(player))
        return sorted(self._unit_moves(player, kinds, block_kinds, groups), key=move_order)

    def _candidates(self, target: Mapping[str, int]) -> list[GrybMove]:
        """Rings land where ``target`` shows them, or on a quadrangle the camera now sees emptied."""
        board = self.state.board

        def lands(node: str, move: GrybMove) -> bool:
            if target.get(node) == move.player:
                return True
            others = [n for n in children(node[:-1]) if n != node] if node else []
            return node not in target and all(
                n not in target and (n in board or n in move.to) for n in others
            )

        return [m for m in self._legal() if all(lands(n, m) for n in m.to)]

    def _play(self, move: GrybMove) -> None:
        s = self.state
        player = move.player
        s.steps_left = 0
        if move.kind == "place":
            s.in_hand[player] -= 1
            if not any(s.in_hand):
                s.phase = 2
        for source in move.frm:
            del s.board[source]
        for target in move.to:
            s.board[target] = player
        for quadrangle in sorted({t[:-1] for t in move.to if t}):
            nodes = children(quadrangle)
            if all(n in s.board for n in nodes):
                for node in nodes:
                    s.piles[player][s.board.pop(node)] += 1
        s.scores = [s.piles[0][1], s.piles[1][0]]
        if s.phase == 2 and len(s.board) < 4:
            outcome = self._score_outcome()
            s.result = Outcome(outcome.winner, "too few rings left for a GRYB: " + outcome.reason)

    def _rule(self, move: GrybMove) -> str:
        if self.state.phase == 1:
            return "place your ring on the node rolled"
        if self.options.easy:
            return "rings, lines and shapes move up, down, sideways or via hyperspace to free nodes"
        return (
            "rings, lines and shapes move up, down, sideways, via hyperspace, interjection or "
            "excision to free nodes"
        )
