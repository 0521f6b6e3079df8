"""Connection: be first to link your two extreme corners with a chain of your rings.

Set-up: the first player covers one pair of opposite corners (GGGG and YYYY,
or RRRR and BBBB) with two rings; the second player covers the other pair.
Then each turn: roll the four-colour die; bring a new ring onto a free
top-level node of that colour, or move one of your rings down, up, sideways
or via limited hyperspace onto a free node of that colour. The corner rings
stay where they are (choice). A player wins when the corners are joined by
rings of theirs, each contiguous to the next through up, down, sideways or
limited hyperspace. Rings in the box: ``pieces-per-player`` (32, corners
included).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from rules.game import Outcome
from rules.gryb.games.base import GrybGame
from rules.gryb.games.moves import GrybMove, player_name
from rules.gryb.games.options import check_range
from rules.gryb.nodes import LEVELS, focus, format_nodes, node_name
from rules.gryb.traversal import reachable_by

CORNER_PAIRS = (("GGGG", "YYYY"), ("RRRR", "BBBB"))
LINK_KINDS = ("down", "up", "sideways", "limited-hyperspace")
LINKS = {node: reachable_by(LINK_KINDS, node) for level in LEVELS for node in level}


@dataclass(frozen=True)
class ConnectionOptions:
    pieces_per_player: int = 32
    """Rings each player has, the two corner rings included."""

    def __post_init__(self) -> None:
        check_range("pieces_per_player", self.pieces_per_player, 3, 170)


def connecting_path(rings: set[str], start: str, goal: str) -> tuple[str, ...] | None:
    """A shortest chain of ``rings`` from ``start`` to ``goal`` through the link moves, if any."""
    came_from: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            path = [node]
            while came_from[path[-1]] is not None:
                path.append(came_from[path[-1]])  # type: ignore[arg-type]
            return tuple(reversed(path))
        for nxt in LINKS[node] & rings:
            if nxt not in came_from:
                came_from[nxt] = node
                queue.append(nxt)
    return None


class Connection(GrybGame):
    """Connection of the manual (see the module docstring for the choices made)."""

    name = "connection"
    title = "Connection"
    Options = ConnectionOptions

    def _setup(self) -> None:
        self.state.in_hand = [self.options.pieces_per_player] * 2

    def _dice(self) -> str | None:
        return "colour" if self.state.phase == 2 else None

    def _corners(self, player: int) -> tuple[str, str] | None:
        start = self.state.markers.get(player)
        return next((pair for pair in CORNER_PAIRS if pair[0] == start), None)

    def _legal(self) -> list[GrybMove]:
        s = self.state
        player = s.to_move
        if s.phase == 1:
            free = [pair for pair in CORNER_PAIRS if pair[0] not in s.board]
            return [GrybMove.place(player, *pair) for pair in free]
        moves = []
        if s.in_hand[player] > 0:
            moves = [GrybMove.place(player, n) for n in LEVELS[1] if focus(n) == s.roll and n not in s.board]
        corners = self._corners(player) or ()
        for source in s.own(player):
            if source in corners:
                continue
            for target in sorted(LINKS[source]):
                if focus(target) == s.roll and target not in s.board:
                    moves.append(GrybMove.step(player, source, target))
        return moves

    def _play(self, move: GrybMove) -> None:
        s = self.state
        player = move.player
        s.steps_left = 0
        if move.kind == "place":
            s.in_hand[player] -= len(move.to)
        else:
            del s.board[move.frm[0]]
        for node in move.to:
            s.board[node] = player
        if s.phase == 1:
            pair = next(p for p in CORNER_PAIRS if set(p) == set(move.to))
            s.markers[player] = pair[0]
            if len(s.markers) == 2:
                s.phase = 2
            return
        self._check_connected(player)

    def _check_connected(self, player: int) -> None:
        corners = self._corners(player)
        if corners is None:
            return
        path = connecting_path(set(self.state.own(player)), *corners)
        if path is not None:
            self.state.result = Outcome(
                player,
                f"{player_name(player)} connected {corners[0]} to {corners[1]}: {format_nodes(path)}",
                (path,),
            )

    def _explain(self, move: GrybMove) -> str:
        if move.kind == "move" and move.frm[0] in (self._corners(move.player) or ()):
            return f"the corner ring on {node_name(move.frm[0])} stays put"
        return super()._explain(move)

    def _rule(self, move: GrybMove) -> str:
        s = self.state
        if s.phase == 1:
            return "cover a free pair of opposite corners: GGGG and YYYY, or RRRR and BBBB"
        if move.kind == "place":
            return "new rings come onto the board on the top level"
        return "rings move down, up, sideways or by limited hyperspace to a free node"
