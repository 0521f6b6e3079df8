"""The demo's scripted game as data: what the camera sees, shot by shot.

A :class:`Shot` is a board (point -> colour), an optional hand reaching for a
point, and how many frames it lasts. Helpers turn a game told in moves (place,
place two at once, move a token away and back, clear the board) into shots,
so the demo and the replay tests describe sequences the same way.

The demo game (two players, colour 0 first) shows every kind of event: hands
coming in to place tokens, a fast two-token move, an illegal move (a token
moved, then put back), a win on the vector A1S B1R C1Q D1P ("1st and 3rd"
dimensions), a pause, and the board being cleared, which starts the next game.

The bandanna's demo (:func:`gryb_demo_script`) plays EZ GRYB the same way, with node
indices for points: rings placed and moved down (the physical die's rolls are read off
the rings), a ring put where the rules allow none and taken off again, and a GRYB.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from device.referee import Referee
from rules.game import Game
from rules.gryb.nodes import node_index, parse_node
from rules.timevectors import GameConfig, TimeVectorsGame
from rules.timevectors.points import parse_point
from vision.observation import Snapshot

Board = tuple[tuple[int, int], ...]  # sorted (point, colour) pairs: hashable, a cache key


def freeze(tokens: Mapping[int, int]) -> Board:
    """A board as a sorted tuple of (point, colour) pairs."""
    return tuple(sorted((int(p), int(c)) for p, c in tokens.items()))


@dataclass(frozen=True)
class Shot:
    """``frames`` identical camera frames of ``board``, with a hand over ``hand_at`` if set."""

    board: Board
    hand_at: int | None = None
    frames: int = 1

    @property
    def tokens(self) -> dict[int, int]:
        return dict(self.board)


class Script:
    """Builds a list of shots from game actions, tracking the board between them.

    ``hand_frames`` is how long a hand stays in view per reach, ``still_frames``
    how long the board then stays untouched (the tracker needs a few still frames).
    """

    def __init__(
        self,
        hand_frames: int = 2,
        still_frames: int = 6,
        parse: Callable[[str], int] = parse_point,
    ) -> None:
        self.parse = parse  # location name -> index: points, or the bandanna's nodes
        self.hand_frames = hand_frames
        self.still_frames = still_frames
        self.board: dict[int, int] = {}
        self.shots: list[Shot] = []

    def still(self, frames: int | None = None) -> Script:
        """The board untouched for ``frames`` frames."""
        self.shots.append(Shot(freeze(self.board), None, frames or self.still_frames))
        return self

    def _reach(self, point: int, change: Mapping[int, int | None]) -> None:
        """A hand comes in over ``point`` (board as before), makes ``change``, stays a frame."""
        self.shots.append(Shot(freeze(self.board), point, self.hand_frames))
        for p, c in change.items():
            if c is None:
                self.board.pop(p, None)
            else:
                self.board[p] = c
        self.shots.append(Shot(freeze(self.board), point, 1))

    def hover(self, name: str, frames: int) -> Script:
        """A hand over ``name`` for ``frames`` frames that changes nothing, then a still board."""
        self.shots.append(Shot(freeze(self.board), self.parse(name), frames))
        return self.still()

    def place(self, *placements: tuple[str, int]) -> Script:
        """Place tokens (``("A3Q", 0)``, ...), one reach each, then a still board.

        Several placements without a still moment between them are a fast move.
        """
        for name, colour in placements:
            self._reach(self.parse(name), {self.parse(name): colour})
        return self.still()

    def move(self, source: str, target: str) -> Script:
        """Slide the token on ``source`` to ``target`` in one reach, then a still board."""
        src, dst = self.parse(source), self.parse(target)
        self._reach(dst, {src: None, dst: self.board[src]})
        return self.still()

    def remove(self, name: str) -> Script:
        """Take the token off ``name``, then a still board."""
        point = self.parse(name)
        self._reach(point, {point: None})
        return self.still()

    def clear(self, over: str = "D4R") -> Script:
        """Sweep every token off the board in one reach, then a still board."""
        self._reach(self.parse(over), {p: None for p in list(self.board)})
        return self.still()

    def frames(self) -> int:
        return sum(shot.frames for shot in self.shots)


def demo_script() -> tuple[Shot, ...]:
    """The demo game, shot by shot; it ends on an empty board, so it loops."""
    script = Script()
    script.still(4)
    script.place(("A1S", 0))
    script.place(("F6Q", 1))
    script.place(("B1R", 0))
    script.place(("G7R", 1), ("C1Q", 0))  # a fast two-token move: no still moment between them
    script.move("B1R", "B2R")  # colour 1 moves colour 0's token: illegal
    script.move("B2R", "B1R")  # ... and puts it back
    script.place(("H8S", 1))
    script.place(("D1P", 0))  # completes A1S B1R C1Q D1P: colour 0 wins
    script.still(16)  # let the players look at the win
    script.clear()  # clearing the board after the end starts a new game
    script.still(4)
    return tuple(script.shots)


def node(name: str) -> int:
    """A bandanna node's index from its name (``GR``, ``0``)."""
    return node_index(parse_node(name))


#: The game the bandanna's demo plays (its die is a physical one: rolls are read off the rings).
GRYB_DEMO_GAME = "ez-gryb"


def gryb_demo_script() -> tuple[Shot, ...]:
    """The bandanna's demo game (EZ GRYB), shot by shot; it ends on an empty bandanna."""
    script = Script(parse=node)
    script.still(4)
    script.place(("B", 0))
    script.place(("G", 1))
    script.place(("Y", 0))
    script.move("G", "GR")  # player 2 moves down onto red
    script.place(("RR", 0))  # a new ring only goes on the top quadrangle: illegal
    script.remove("RR")  # ... and taken off again
    script.place(("R", 0))
    script.move("GR", "GRR")
    script.place(("G", 0))  # G R Y B under the head: player 1's GRYB, and the win
    script.still(16)
    script.clear(over="0")
    script.still(4)
    return tuple(script.shots)


def distinct_views(shots: Iterable[Shot]) -> set[tuple[Board, int | None]]:
    """The different images a script needs (board, hand): what a renderer must cache."""
    return {(shot.board, shot.hand_at) for shot in shots}


def scripted_events(
    shots: Iterable[Shot], new_game: Callable[[], Game] | None = None
) -> list[dict[str, Any]]:
    """The events a perfect camera and tracker would give for ``shots`` in a game made by
    ``new_game`` (default a two-player Time Vectors game): every hand-free board judged as a
    snapshot. Records without ``frame`` and ``time``."""
    make = new_game or (lambda: TimeVectorsGame(GameConfig()))
    referee = Referee(make(), new_game=make)
    out = []
    frame = 0
    for shot in shots:
        if shot.hand_at is None:
            for event in referee.feed(Snapshot(frame=frame, tokens=shot.tokens)):
                record = event.to_record()
                del record["time"], record["frame"]
                out.append(record)
        frame += shot.frames
    return out
