"""Blobs: devour the other player's smaller groups with your bigger blobs.

Moves are those of :mod:`rules.gryb.games.clusters` (blobs are groups of four
or more). An oozing ring may land on an opposing ring whose group is smaller
than the blob: that ring is devoured (out of the game, scored as one). Groups
of fewer than four are never devoured by small groups and cannot devour.
Choices for "dominated the board such that his opponent cannot win": a player
whose opponent has fewer than four rings left (so can never form a blob)
while they have a blob wins; the game is drawn when each player has all
rings in one blob of the same size, or when neither has a blob and neither
can ever form one.
"""

from __future__ import annotations

from rules.game import Outcome
from rules.gryb.games.clusters import BIG_GROUP, ClusterGame
from rules.gryb.games.moves import player_name
from rules.gryb.shapes import components


class Blobs(ClusterGame):
    """Blobs of the manual (see the module docstring for the choices made)."""

    name = "blobs"
    title = "Blobs"

    def _may_ooze_onto(self, target: str, size: int) -> bool:
        owner = self.state.board.get(target)
        if owner is None:
            return True
        if owner == self.state.to_move:
            return False
        victim = next(g for g in components(self.state.own(owner)) if target in g)
        return len(victim) < size

    def _check_end(self, player: int) -> None:
        s = self.state
        if s.phase != 2:
            return
        groups = [components(s.own(p)) for p in (0, 1)]
        has_blob = [bool(g) and len(g[0]) >= BIG_GROUP for g in groups]
        counts = [len(s.own(p)) for p in (0, 1)]
        for p in (player, 1 - player):
            if has_blob[p] and counts[1 - p] < BIG_GROUP:
                s.result = Outcome(
                    p, f"{player_name(1 - p)} has {counts[1 - p]} rings left and can never form a blob"
                )
                return
        if all(len(g) == 1 for g in groups) and all(has_blob) and counts[0] == counts[1]:
            s.result = Outcome(None, f"drawn: one blob of {counts[0]} each, neither can devour the other")
        elif not any(has_blob) and all(c < BIG_GROUP for c in counts):
            s.result = Outcome(None, "drawn: neither player can ever form a blob")
