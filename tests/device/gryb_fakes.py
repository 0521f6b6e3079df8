"""Stand-ins for the bandanna in the runtime and web tests: a pipeline whose observer reads
the rings scripted for each frame (the frame's first pixel picks the board), so that the
real pipeline, referee and runtime run without rendering or calibrating a bandanna."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from device import gryb_view
from device.pipeline import Pipeline
from device.runtime import Runtime
from device.sources.base import Frame
from device.store import Store
from rules.gryb.nodes import NODES, node_index
from tests.device.fakes_runtime import ScriptedSource
from vision.observation import Observation
from vision.tracker import Tracker


def bandanna_calibration() -> SimpleNamespace:
    """A calibration object that names the bandanna (no camera: nothing to draw)."""
    return SimpleNamespace(board="gryb", to_dict=lambda: {"version": 1, "board": "gryb"})


def observation(rings: dict[str, int], hand: bool = False) -> Observation:
    probs = np.zeros((len(NODES), 3))
    probs[:, 0] = 1.0
    for name, colour in rings.items():
        probs[node_index(name)] = 0.0
        probs[node_index(name), 1 + colour] = 1.0
    return Observation(probs=probs, visibility=np.ones(len(NODES)), hand_present=hand)


class ScriptedBandanna:
    """Boards by number; ``frame(board)`` is a frame showing that board."""

    def __init__(self) -> None:
        self.boards: list[dict[str, int]] = []
        self.seq = 0

    def frame(self, rings: dict[str, int]) -> Frame:
        if rings not in self.boards:
            self.boards.append(dict(rings))
        image = np.zeros((48, 64, 3), np.uint8)
        image[0, 0, 0] = self.boards.index(rings)
        self.seq += 1
        return Frame(image, self.seq, self.seq * 0.25)

    def observe(self, frame_bgr: np.ndarray) -> Observation:
        return observation(self.boards[int(frame_bgr[0, 0, 0])])

    def pipeline_factory(
        self,
        calibration: Any,
        game: Any,
        *,
        palette: Any = None,
        game_id: str | None = None,
        stable_frames: int = 2,
    ) -> Pipeline:
        """The real pipeline with this script as its observer and the real tracker."""
        return Pipeline(
            calibration,
            game,
            game_id=game_id,
            stable_frames=stable_frames,
            observer_factory=lambda _calibration, palette=None, sets=None: self,
            tracker_factory=lambda n: Tracker(stable_frames=n),
            drift_factory=None,
        )


def bandanna_runtime(
    store: Store, script: ScriptedBandanna, *, pin: str = "1234", calibrated: bool = True
) -> Runtime:
    """The real runtime on an EZ GRYB game, reading the rings ``script`` shows it."""
    return Runtime(
        ScriptedSource(["empty"]),
        store=store,
        pin=pin,
        calibration=bandanna_calibration() if calibrated else None,
        pipeline_factory=script.pipeline_factory,
        game_factory=gryb_view.game_factory("ez-gryb"),
        board="gryb",
    )


def show(runtime: Runtime, script: ScriptedBandanna, rings: dict[str, int]) -> list[dict]:
    """Two frames of ``rings`` (enough for the tracker to call them stable); their records."""
    out = []
    for _ in range(2):
        out += runtime.process_frame(script.frame(rings))
    return out


def play_to_a_gryb(runtime: Runtime, script: ScriptedBandanna) -> list[dict]:
    """Player 1 fills the top quadrangle while player 2's rolls are of no use; returns the
    records of the last ring, the one that completes the GRYB."""
    show(runtime, script, {})
    rings: dict[str, int] = {}
    for colour in "BYR":
        runtime.roll(colour)
        rings[colour] = 0
        show(runtime, script, rings)
        runtime.roll(colour)  # player 2 cannot use it: the turn passes
    runtime.roll("G")
    return show(runtime, script, {**rings, "G": 0})
