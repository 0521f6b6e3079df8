"""25 Men's GRYB: the GRYB Nine Men's Morris. Make GRYBs to remove the other player's rings.

Phase one: players take turns placing one of their ``pieces-per-player``
(25) rings on any free node. Phase two: one ring a turn moves up, down,
sideways or via hyperspace to a free node. Whenever a move or placement
completes a GRYB of the mover's rings, the mover then removes (a ``remove``
move) 1, 2, 3 or 4 of the other player's rings from the board for a GRYB on
the top, second, third or bottom level, of their choice (fewer if fewer are
on the board). A player reduced to ``win-at`` (3) rings or fewer, on the board
and in hand together, loses. Choices: any opposing ring may be removed, even
one in a GRYB; the score is the number of rings removed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

from rules.game import Outcome
from rules.gryb.games.base import GrybGame
from rules.gryb.games.moves import GrybMove, player_name
from rules.gryb.games.options import check_range
from rules.gryb.nodes import NODES

MOVE_KINDS = ("up", "down", "sideways", "hyperspace")


@dataclass(frozen=True)
class MensGrybOptions:
    pieces_per_player: int = 25
    """Rings each player places in phase one."""
    win_at: int = 3
    """A player left with this many rings or fewer loses."""

    def __post_init__(self) -> None:
        check_range("pieces_per_player", self.pieces_per_player, 4, 170)
        check_range("win_at", self.win_at, 0, self.pieces_per_player - 1)


class MensGryb(GrybGame):
    """25 Men's GRYB of the manual (see the module docstring for the choices made)."""

    name = "25-mens-gryb"
    title = "25 Men's GRYB"
    Options = MensGrybOptions

    def _setup(self) -> None:
        self.state.in_hand = [self.options.pieces_per_player] * 2

    def _judge_depth(self) -> int:
        return 2

    def _legal(self) -> list[GrybMove]:
        s = self.state
        player = s.to_move
        if s.to_remove:
            return [GrybMove.remove(player, *nodes) for nodes in combinations(sorted(s.own(1 - player)), s.to_remove)]
        if s.phase == 1:
            return [GrybMove.place(player, n) for n in NODES if n not in s.board]
        return list(self._steps(player, MOVE_KINDS))

    def _is_legal(self, move: GrybMove) -> bool:
        s = self.state
        if s.to_remove:
            opposing = set(s.own(1 - move.player))
            return move.kind == "remove" and len(move.to) == s.to_remove and set(move.to) <= opposing
        if s.phase == 1:  # any free node: checked directly, the list is long
            return (move.kind == "place" and len(move.to) == 1 and move.to[0] not in s.board
                    and s.in_hand[move.player] > 0)
        return move.kind != "remove" and super()._is_legal(move)

    def _has_moves(self) -> bool:
        s = self.state
        if s.to_remove or (s.phase == 1 and s.in_hand[s.to_move] > 0):
            return True
        return super()._has_moves()

    def _candidates(self, target: Mapping[str, int]) -> list[GrybMove]:
        s = self.state
        if s.to_remove:
            gone = tuple(n for n in s.own(1 - s.to_move) if n not in target)
            move = GrybMove.remove(s.to_move, *gone) if gone else None
            return [move] if move is not None and self._is_legal(move) else []
        return super()._candidates(target)

    def _play(self, move: GrybMove) -> None:
        s = self.state
        player = move.player
        if move.kind == "remove":
            for node in move.to:
                del s.board[node]
            s.scores[player] += len(move.to)
            s.to_remove = 0
        else:
            if move.kind == "place":
                s.in_hand[player] -= 1
            else:
                del s.board[move.frm[0]]
            s.board[move.to[0]] = player
            made = self._gryb_made(move.to, player)
            s.grybs.extend(made)
            s.to_remove = min(sum(g.pieces for g in made), len(s.own(1 - player)))
        left = len(s.own(1 - player)) + s.in_hand[1 - player]
        if left <= self.options.win_at:
            s.result = Outcome(player, f"{player_name(1 - player)} has only {left} rings left")
            return
        if not s.to_remove:
            s.steps_left = 0
            if s.phase == 1 and not any(s.in_hand):
                s.phase = 2

    def _rule(self, move: GrybMove) -> str:
        s = self.state
        if s.to_remove:
            return f"remove exactly {s.to_remove} of {player_name(1 - s.to_move)}'s rings first"
        if move.kind == "remove":
            return "rings are removed only after making a GRYB"
        if s.phase == 1:
            return "in phase one, place a ring on a free node"
        return "rings move up, down, sideways or via hyperspace to a free node"
