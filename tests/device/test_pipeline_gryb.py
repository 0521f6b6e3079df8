"""The pipeline watching a rendered, calibrated bandanna: the same pipeline and referee as the
stacked board's, with the bandanna's observer, drift check and node names."""

from __future__ import annotations

import numpy as np
import pytest

from device.pipeline import BANDANNA_MOVED_PX, BandannaDrift, Pipeline, is_bandanna
from device.sources.base import Frame
from rules.gryb.games import new_game
from rules.gryb.nodes import node_index
from vision.gryb_bench import CalibratedScene, calibrated_scene


@pytest.fixture(scope="module")
def scene() -> CalibratedScene:
    return calibrated_scene(21, (960, 720))


class Watch:
    """A pipeline over rendered frames; each board is shown for three frames at 4 fps."""

    def __init__(self, scene: CalibratedScene, game: str = "ez-gryb") -> None:
        self.scene = scene
        self.pipeline = Pipeline(scene.calibration, new_game(game, seed=3), game_id="g")
        self.seq = 0

    def show(self, rings: dict[str, int], *, shift: int = 0, frames: int = 3) -> list[dict]:
        image = self.scene.render({node_index(n): c for n, c in rings.items()}).image_bgr
        if shift:
            image = np.roll(image, shift, axis=(0, 1))
        out = []
        for _ in range(frames):
            self.seq += 1
            events = self.pipeline.process(Frame(image, self.seq, self.seq * 0.25))
            out += [e.to_record() for e in events]
        return out


def kinds(records: list[dict]) -> list[str]:
    return [r["type"] for r in records]


def test_the_bandanna_calibration_is_recognised(scene: CalibratedScene) -> None:
    assert is_bandanna(scene.calibration)


def test_placement_illegal_ring_and_restored(scene: CalibratedScene) -> None:
    watch = Watch(scene)
    assert watch.show({}) == []
    rolled = [e.to_record() for e in watch.pipeline.roll("B")]
    assert [(r["type"], r["roll"], r["game_id"]) for r in rolled] == [("move", "B", "g")]
    placed = watch.show({"B": 0})
    assert [(r["type"], r.get("point")) for r in placed] == [("move", "B")]
    wrong = watch.show({"B": 0, "GG": 1})
    assert kinds(wrong) == ["illegal"] and wrong[0]["points"] == ["GG"]
    state = watch.pipeline.state()
    assert state["board"] == "gryb" and state["mismatch"] == ["GG"]
    assert state["tokens"] == {"B": 0, "GG": 1}
    assert kinds(watch.show({"B": 0})) == ["restored"]
    # Player 2 rolled a physical die (not typed in): the roll is read off the ring placed.
    second = watch.show({"B": 0, "R": 1})
    assert [(r.get("kind"), r.get("roll"), r.get("point")) for r in second] == [
        ("roll", "R", None),
        ("place", None, "R"),
    ]
    assert watch.pipeline.game.position() == {"B": 0, "R": 1}


def test_a_moved_camera_is_reported(scene: CalibratedScene) -> None:
    watch = Watch(scene)
    watch.show({})
    # The observer measures the shift every few frames of a stream: give it a couple of seconds.
    moved = watch.show({}, shift=40, frames=20)
    assert kinds(moved) == ["camera_moved"]
    assert moved[0]["recalibrate"] is True and moved[0]["shift_px"] > BANDANNA_MOVED_PX
    assert watch.pipeline.state()["camera"]["needs_recalibration"] is True
    assert watch.show({}, shift=40, frames=10) == []  # said once
    assert watch.show({}, frames=20) == []  # put back where it was calibrated: judging resumes
    assert watch.pipeline.state()["camera"]["needs_recalibration"] is False


def test_drift_check_of_the_unmoved_bandanna_is_ok(scene: CalibratedScene) -> None:
    drift = BandannaDrift(scene.calibration.reference_image())
    result = drift.check(scene.render({}).image_bgr)
    assert result.ok and result.refit is None and result.shift_px < 1.0
