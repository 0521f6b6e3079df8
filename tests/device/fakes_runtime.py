"""Small stand-ins for the runtime tests: a scriptable source and a pipeline that reads moves
from frame names (the real pipeline is tested in its own suites)."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from device.events import MOVE, UNDO, WIN, Event
from device.sources.base import Frame, FrameSource, SourceError
from rules.timevectors import Move
from rules.timevectors.points import point_name


def image(value: int = 0, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    return np.full((size[1], size[0], 3), value % 256, dtype=np.uint8)


class ScriptedSource(FrameSource):
    """Delivers frames named by ``names`` (forever repeating the last one when ``hold``),
    raising :class:`SourceError` on reads listed in ``fail_reads`` and refusing
    ``fail_starts`` restarts after a failure. ``fps`` 0 delivers without pause. Each name is
    delivered ``repeat`` times in a row: a camera sees a board for many frames, and the
    runtime reads only the newest frame, so at camera rate on a busy machine a move shown
    for one frame only could be skipped (and the next one read as played out of turn)."""

    description = "scripted test source"

    def __init__(self, names: list[str], *, fps: float = 0.0, fail_reads: set[int] = frozenset(),
                 fail_starts: int = 0, hold: bool = True, repeat: int = 1) -> None:
        self.names = [name for name in names for _ in range(repeat)]
        self.fps = fps
        self.fail_reads = set(fail_reads)
        self.fail_starts = fail_starts
        self.hold = hold
        self.reads = 0
        self.starts = 0
        self.start_times: list[float] = []
        self._seq = 0
        self._index = 0
        self._running = False
        self._failed = False
        self.lock = threading.Lock()

    def start(self) -> None:
        self.starts += 1
        self.start_times.append(time.monotonic())
        if self._failed and self.fail_starts > 0:
            self.fail_starts -= 1
            raise SourceError("camera unplugged")
        self._running = True

    def read(self, timeout: float = 1.0) -> Frame | None:
        if not self._running:
            raise SourceError("not started")
        if self.fps:
            time.sleep(1.0 / self.fps)
        self.reads += 1
        if self.reads in self.fail_reads:
            self._failed = True
            self._running = False
            raise SourceError("camera vanished")
        if self._index >= len(self.names):
            if not self.hold:
                return None
            name = self.names[-1]
        else:
            name = self.names[self._index]
            self._index += 1
        frame = Frame(image=image(self._seq), seq=self._seq, name=name)
        self._seq += 1
        return frame

    def stop(self) -> None:
        self._running = False

    @property
    def is_exhausted(self) -> bool:
        return not self.hold and self._index >= len(self.names)


class NameReadingPipeline:
    """Plays the move written in a frame's name (``"A1P:0"``); other names are empty boards."""

    def __init__(self, calibration: Any, game: Any, *, palette: Any = None, game_id: str | None = None) -> None:
        self.calibration = calibration
        self.game = game
        self.game_id = game_id
        self.seen_frames: list[int] = []
        self.hand = False  # frames named "hand" show one

    def process(self, frame: Frame) -> list[Event]:
        self.seen_frames.append(frame.seq)
        self.hand = frame.name == "hand"
        if ":" not in frame.name:
            return []
        move = Move.parse(frame.name)
        if move.point in self.game.board and move.kind == "place":
            return []
        self.game.push(move)
        events = [Event(MOVE, {"point": point_name(move.point), "color": move.color}, frame=frame.seq,
                        game_id=self.game_id)]
        outcome = self.game.outcome()
        if outcome is not None and outcome.winner is not None:
            vectors = [[point_name(p) for p in line] for line in outcome.lines]
            events.append(Event(WIN, {"color": outcome.winner, "vectors": vectors}, frame=frame.seq,
                                game_id=self.game_id))
        return events

    def state(self) -> dict[str, Any]:
        return {"tokens": {}, "hidden": [], "hand": self.hand, "mismatch": [], "pending": None}

    def hand_in_view(self) -> tuple[bool, float]:
        return self.hand, 0.0

    def undo(self) -> list[Event]:
        move = self.game.pop()
        return [Event(UNDO, {"point": point_name(move.point)}, game_id=self.game_id)]

    def accept(self) -> list[Event]:
        raise ValueError("nothing to accept")

    def choose_colour(self, color: int) -> list[Event]:
        """The 3MEQ colour choice, as the real pipeline reports it (refusals raise ValueError)."""
        self.game.push(Move(None, color, "choose"))
        return [Event(MOVE, {"color": color, "kind": "choose"}, game_id=self.game_id)]


#: A quick win for colour 0 along the first column of quadrant SW on tier P (A1P..A4P).
WINNING_NAMES = ["A1P:0", "H8S:1", "A2P:0", "H7S:1", "A3P:0", "H6S:1", "A4P:0"]
