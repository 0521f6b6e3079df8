"""Observer + tracker over rendered frame sequences: hands never make snapshots, moves do,
and a token placed in line with another tier's point is given to the right point."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.calibfile import Calibration
from calibration.spec import load_spec
from vision.observer import Observer
from vision.render import random_scene, render_timevectors
from vision.render_hand import HandSpec
from vision.tracker import Tracker

SPEC = load_spec()
SIZE = (800, 600)


class Sequence:
    """Renders each distinct (tokens, hand) once and adds fresh sensor noise per frame."""

    def __init__(self, seed: int) -> None:
        self.camera, self.style, self.colours = random_scene(seed, SIZE)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.cache: dict = {}
        empty = self.frame({})
        self.calibration = Calibration(board="timevectors", spec=SPEC, camera=self.camera,
                                       rms_px=0.0).with_reference(empty)

    def frame(self, tokens: dict[int, int], hand: HandSpec | None = None) -> np.ndarray:
        key = (tuple(sorted(tokens.items())), hand)
        if key not in self.cache:
            self.cache[key] = render_timevectors(self.camera, SPEC, tokens, self.colours, hand=hand,
                                                 scene=self.style, seed=self.seed).image_bgr
        noise = self.rng.normal(0, self.style.noise_sigma, self.cache[key].shape)
        return np.clip(self.cache[key] + noise, 0, 255).astype(np.uint8)

    def run(self, script: list[tuple[dict[int, int], HandSpec | None]]) -> list:
        observer, tracker = Observer(self.calibration), Tracker(stable_frames=3)
        out = []
        for index, (tokens, hand) in enumerate(script):
            observation = observer.observe(self.frame(tokens, hand))
            out.append((observation, tracker.update(observation, None, index)))
        return out


@pytest.fixture(scope="module")
def sequence() -> Sequence:
    return Sequence(41)


def test_hovering_hand_makes_no_snapshot(sequence):
    hand = HandSpec(target_point=100)
    script = [({}, None)] * 3 + [({}, hand)] * 4 + [({}, None)] * 4
    results = sequence.run(script)
    snapshots = [(i, s) for i, (_, s) in enumerate(results) if s is not None]
    assert [i for i, _ in snapshots] == [2], "only the first calm board is a snapshot"
    assert all(o.hand_present for o, _ in results[3:7])


def test_move_is_one_snapshot_after_the_hand_left(sequence):
    point = 150
    hand = HandSpec(target_point=point)
    script = [({}, None)] * 3 + [({}, hand), ({point: 1}, hand)] + [({point: 1}, None)] * 4
    snapshots = [(i, s) for i, (_, s) in enumerate(sequence.run(script)) if s is not None]
    assert len(snapshots) == 2
    index, snapshot = snapshots[1]
    assert index >= 7 and snapshot.tokens == {point: 0}  # colours are numbered as first seen


def _in_line_pair(observer: Observer) -> tuple[int, int]:
    fp = observer.footprints
    rows = sorted(fp.overlap.tolist(), key=lambda row: -row[2])
    for far, near, _fraction in rows:
        if fp.tier[int(far)] == 0 and fp.tier[int(near)] == 1 and fp.in_image[int(far)] == 1:
            return int(far), int(near)
    raise AssertionError("an oblique camera always sees P and Q points in line")


@pytest.mark.parametrize("which", ["far", "near"])
def test_token_in_line_with_another_tier_goes_to_its_point(sequence, which):
    far, near = _in_line_pair(Observer(sequence.calibration))
    point, other = (far, near) if which == "far" else (near, far)
    hand = HandSpec(target_point=point)
    script = [({}, None)] * 3 + [({}, hand), ({point: 0}, hand)] + [({point: 0}, None)] * 4
    snapshots = [s for _, s in sequence.run(script) if s is not None]
    assert snapshots[-1].tokens == {point: 0}
    assert other not in snapshots[-1].tokens
