"""What Blobs and The Borg share: rolled placement, then small groups move freely and big ones ooze.

Phase one: players take turns rolling GRYB Dice II (any node) and placing a
ring there (occupied: roll again) until each has placed
``pieces-per-player`` (15). Phase two, one move a turn:

* a ring, line or shape (a contiguous group of up to three of your rings that
  is not part of a big group) moves up, down, sideways, via hyperspace,
  interjection or excision to a free node; lines and shapes also move as a
  block (interjection, excision, hyperspace), change, or hop;
* a big group (four or more contiguous rings: a blob or collective) *oozes*:
  one ring whose leaving does not split the group moves to a node contiguous
  to the rest of the group. A big group never splits.

Choices: lines and shapes are any contiguous 2 or 3 of the rings outside big
groups (so a shape may also move one ring alone); what oozing does to the
other player is each game's.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.gryb.games.base import GrybGame, group_sizes
from rules.gryb.games.moves import GrybMove, move_order
from rules.gryb.games.options import check_range
from rules.gryb.shapes import components, ends
from rules.gryb.traversal import NEIGHBOURS

BIG_GROUP = 4
UNIT_KINDS = ("up", "down", "sideways", "hyperspace", "interjection", "excision")
UNIT_BLOCK_KINDS = ("interjection", "excision", "hyperspace")


@dataclass(frozen=True)
class ClusterOptions:
    pieces_per_player: int = 15
    """Rings each player places in phase one."""

    def __post_init__(self) -> None:
        check_range("pieces_per_player", self.pieces_per_player, 1, 170)


class ClusterGame(GrybGame):
    """Shared engine of Blobs and The Borg."""

    Options = ClusterOptions
    big_name = "blob"

    def _setup(self) -> None:
        self.state.in_hand = [self.options.pieces_per_player] * 2

    def _dice(self) -> str | None:
        return "node" if self.state.phase == 1 else None

    def _roll_is_void(self, face: str) -> bool:
        return face in self.state.board

    def _groups(self, player: int) -> tuple[list[frozenset[str]], list[frozenset[str]]]:
        """(big groups, small groups) of ``player``'s rings."""
        groups = components(self.state.own(player))
        return [g for g in groups if len(g) >= BIG_GROUP], [g for g in groups if len(g) < BIG_GROUP]

    def _legal(self) -> list[GrybMove]:
        s = self.state
        player = s.to_move
        if s.phase == 1:
            return [GrybMove.place(player, s.roll)] if s.roll is not None else []
        big, small = self._groups(player)
        pieces = [n for g in small for n in g]
        moves = self._unit_moves(player, UNIT_KINDS, UNIT_BLOCK_KINDS, self._small_groups(pieces))
        for group in big:
            moves.update(self._oozes(player, group))
        return sorted(moves, key=move_order)

    def _oozes(self, player: int, group: frozenset[str]) -> list[GrybMove]:
        moves = []
        for leaving in ends(group):
            rest = group - {leaving}
            for target in set().union(*(NEIGHBOURS[n] for n in rest)) - group:
                if self._may_ooze_onto(target, len(group)):
                    moves.append(GrybMove.step(player, leaving, target))
        return moves

    def _may_ooze_onto(self, target: str, size: int) -> bool:
        return target not in self.state.board

    def _play(self, move: GrybMove) -> None:
        s = self.state
        player = move.player
        s.steps_left = 0
        if move.kind == "place":
            s.in_hand[player] -= 1
            s.board[move.to[0]] = player
            if not any(s.in_hand):
                s.phase = 2
                self._after_phase_one()
            return
        big_before = {n for g in self._groups(player)[0] for n in g}
        oozing = move.frm[0] in big_before
        sizes = group_sizes(s.board, 1 - player)
        for source in move.frm:
            del s.board[source]
        for target in move.to:
            if s.board.get(target) == 1 - player:
                self._devour(player, target)
            s.board[target] = player
        if oozing:
            self._after_ooze(player, move.to[0], sizes)
        self._check_end(player)

    def _devour(self, player: int, node: str) -> None:
        s = self.state
        del s.board[node]
        s.piles[player][1 - player] += 1
        s.scores[player] += 1

    def _after_ooze(self, player: int, target: str, opposing_sizes: dict[str, int]) -> None:
        """What an oozing move does to the other player's rings (nothing by default)."""

    def _after_phase_one(self) -> None:
        self._check_end(self.state.to_move)

    def _check_end(self, player: int) -> None:
        """Set the result when the move decided the game."""

    def _rule(self, move: GrybMove) -> str:
        if self.state.phase == 1:
            return "place your ring on the node rolled"
        if move.kind == "move" and len(move.frm) == 1:
            big, _ = self._groups(move.player)
            if any(move.frm[0] in g for g in big):
                return (
                    f"a {self.big_name} oozes: move one edge ring to a node next to the rest of the "
                    f"{self.big_name}, without splitting it"
                )
        return (
            "rings, lines and shapes move up, down, sideways, via hyperspace, interjection or "
            "excision to free nodes"
        )
