"""The Borg: assimilate the other player's rings into your collectives.

Moves are those of :mod:`rules.gryb.games.clusters` (collectives are groups
of four or more). When a collective oozes onto a free node, every opposing
ring contiguous to that node whose group is smaller than the collective is
assimilated: it becomes a ring of the mover (the camera sees its colour
change). The number of rings never changes. A player wins when the other has
no rings left. Choices: "declare a win once your collective dominates" is
``finish`` by agreement, which the player with more rings wins (or
``resign``); the score is the number of rings each holds.
"""

from __future__ import annotations

from rules.game import Outcome
from rules.gryb.games.clusters import ClusterGame
from rules.gryb.games.moves import player_name
from rules.gryb.shapes import components
from rules.gryb.traversal import NEIGHBOURS


class Borg(ClusterGame):
    """The Borg of the manual (see the module docstring for the choices made)."""

    name = "borg"
    title = "The Borg"
    big_name = "collective"
    can_finish = True

    def _after_ooze(self, player: int, target: str, opposing_sizes: dict[str, int]) -> None:
        s = self.state
        collective = next(g for g in components(s.own(player)) if target in g)
        for node in sorted(NEIGHBOURS[target]):
            if s.board.get(node) == 1 - player and opposing_sizes[node] < len(collective):
                s.board[node] = player
                s.piles[player][1 - player] += 1

    def _check_end(self, player: int) -> None:
        s = self.state
        s.scores = [len(s.own(0)), len(s.own(1))]
        if s.phase == 2 and not s.scores[1 - player]:
            s.result = Outcome(player, f"{player_name(player)} assimilated every ring")
