"""Reading rings on rendered wrinkled bandannas: every node right, hands ignored, colours learned."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from rules.gryb.nodes import NODES
from vision.gryb_bench import calibrated_scene, wrong_nodes
from vision.gryb_observer import GrybObserver, ReferenceMissingError, analyze_bandanna
from vision.observer import FrameError
from vision.render_hand import HandSpec
from vision.tracker import Tracker


@pytest.fixture(scope="module")
def scenes() -> list:
    return [calibrated_scene(seed, (1280, 960)) for seed in (21, 22)]


def _rings(seed: int, count: int) -> dict[int, int]:
    rng = np.random.default_rng(seed)
    return {int(n): int(rng.integers(2)) for n in rng.choice(341, size=count, replace=False)}


def test_every_node_is_read_right(scenes: list) -> None:
    for k, scene in enumerate(scenes):
        observer = GrybObserver(scene.calibration)
        for count in (12, 90):
            rings = _rings(100 * k + count, count)
            observation = observer.observe(
                scene.render(rings, noise_seed=count).image_bgr, compare_previous=False
            )
            assert not observation.hand_present
            assert list(wrong_nodes(observation.states(), rings)) == []
            assert observation.probs.shape == (341, 3)
            assert observation.probs.sum(axis=1) == pytest.approx(1.0)


def test_rings_read_under_a_changed_light(scenes: list) -> None:
    scene = scenes[0]
    observer = GrybObserver(scene.calibration)
    rings = _rings(5, 60)
    warmer = dataclasses.replace(
        scene.style.scene, white_balance=(1.1, 1.0, 0.9), exposure=scene.style.scene.exposure * 0.9
    )
    picture = scene.render(rings, style=dataclasses.replace(scene.style, scene=warmer))
    assert (
        list(
            wrong_nodes(observer.observe(picture.image_bgr, compare_previous=False).states(), rings)
        )
        == []
    )


def test_empty_bandanna_reads_empty(scenes: list) -> None:
    observation = GrybObserver(scenes[1].calibration).observe(
        scenes[1].render({}, noise_seed=3).image_bgr
    )
    assert (
        observation.tokens() == {} and observation.hidden() == [] and not observation.hand_present
    )


def test_palette_fixes_the_colour_numbers(scenes: list) -> None:
    scene = scenes[0]
    swapped = (scene.style.ring_rgb[1], scene.style.ring_rgb[0])
    observer = GrybObserver(scene.calibration, palette=swapped)
    rings = _rings(8, 40)
    tokens = observer.observe(scene.render(rings).image_bgr, compare_previous=False).tokens()
    assert tokens == {node: 1 - colour for node, colour in rings.items()}


def test_a_hand_is_seen_and_hides_the_nodes_under_it(scenes: list) -> None:
    scene = scenes[1]
    observer = GrybObserver(scene.calibration)
    rings = _rings(9, 30)
    target = NODES.index("GRBY")
    observer.observe(
        scene.render(rings).image_bgr
    )  # ring colours are learned only with no hand in view
    picture = scene.render(rings, hand=HandSpec(target_point=target, edge="bottom"))
    observation = observer.observe(picture.image_bgr, compare_previous=False)
    assert observation.hand_present
    centres = np.round(picture.nodes_px).astype(int)
    under_hand = set(np.flatnonzero(picture.hand_mask[centres[:, 1], centres[:, 0]]).tolist())
    assert under_hand and under_hand <= set(observation.hidden())
    # Nothing far from the hand and its shadow is called hidden.
    near = cv2.dilate(picture.hand_mask.astype(np.uint8), np.ones((61, 61), np.uint8)).astype(bool)
    assert all(near[centres[n, 1], centres[n, 0]] for n in observation.hidden())
    # Rings well clear of the hand are still read.
    clear = {
        n: c
        for n, c in rings.items()
        if picture.visibility[n] == 1.0 and n not in observation.hidden()
    }
    tokens = observation.tokens()
    assert {n for n in clear if n in tokens} == set(clear)


def test_motion_between_frames_counts_as_a_hand(scenes: list) -> None:
    scene = scenes[0]
    observer = GrybObserver(scene.calibration)
    hand = HandSpec(target_point=NODES.index("YYYY"))
    assert not observer.observe(scene.render({}).image_bgr).hand_present
    assert observer.observe(scene.render({}, hand=hand).image_bgr).hand_present
    assert observer.observe(scene.render({}).image_bgr).hand_present  # it just left: still moving
    assert not observer.observe(scene.render({}, noise_seed=4).image_bgr).hand_present


def test_tracker_turns_a_played_ring_into_one_snapshot(scenes: list) -> None:
    scene = scenes[1]
    observer = GrybObserver(scene.calibration)
    tracker = Tracker(stable_frames=3)
    node = NODES.index("BRYG")
    hand = HandSpec(target_point=node)
    frames = [({}, None)] * 3 + [({}, hand), ({node: 1}, hand)] + [({node: 1}, None)] * 5
    snapshots = []
    for index, (rings, hand_spec) in enumerate(frames):
        snapshot = tracker.update(
            observer.observe(scene.render(rings, hand=hand_spec, noise_seed=index).image_bgr),
            None,
            index,
        )
        if snapshot is not None:
            snapshots.append(snapshot)
    assert [s.tokens for s in snapshots] == [{}, {node: 0}]  # the first colour seen is colour 0


def test_analyze_names_the_nodes(scenes: list) -> None:
    scene = scenes[0]
    rings = {NODES.index("GGBY"): 0, 0: 1, NODES.index("R"): 0}
    result = analyze_bandanna(
        scene.calibration, scene.render(rings).image_bgr, palette=scene.style.ring_rgb
    )
    assert result == {"rings": {"0": 1, "GGBY": 0, "R": 0}, "hidden": [], "hand": False}


def test_a_blank_frame_has_no_quality(scenes: list) -> None:
    observation = GrybObserver(scenes[0].calibration).observe(np.zeros((960, 1280, 3), np.uint8))
    assert observation.quality == 0.0 and observation.tokens() == {}


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (np.zeros((960, 1280), np.uint8), "colour image"),
        (np.zeros((960, 1280, 3), np.float32), "8-bit"),
        (np.zeros((480, 640, 3), np.uint8), "calibration is for 1280x960"),
    ],
)
def test_bad_frames_are_refused(scenes: list, frame: np.ndarray, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        GrybObserver(scenes[0].calibration).observe(frame)


def test_a_calibration_without_reference_is_refused(scenes: list) -> None:
    bare = dataclasses.replace(scenes[0].calibration, reference_jpeg=None, reference_path=None)
    with pytest.raises(ReferenceMissingError, match="empty bandanna"):
        GrybObserver(bare)


def test_drift_measures_how_far_the_picture_moved(scenes: list) -> None:
    scene = scenes[0]
    observer = GrybObserver(scene.calibration)
    picture = scene.render(_rings(3, 30), noise_seed=5).image_bgr
    assert observer.observe(picture, compare_previous=False).drift_px < 1.0
    moved = cv2.warpAffine(
        picture, np.float32([[1, 0, 12], [0, 1, -5]]), (1280, 960), borderMode=cv2.BORDER_REPLICATE
    )
    assert observer.observe(moved, compare_previous=False).drift_px == pytest.approx(13.0, abs=1.0)


def test_a_hovering_hand_and_a_capture_through_the_tracker(scenes: list) -> None:
    """A hand that comes and goes without playing changes nothing; a ring taken off is seen."""
    scene = scenes[0]
    observer = GrybObserver(scene.calibration, palette=scene.style.ring_rgb)
    tracker = Tracker(stable_frames=3)
    a, b = NODES.index("GYRB"), NODES.index("YY")
    board = {a: 0, b: 1}
    hover = HandSpec(target_point=NODES.index("BBGR"))
    frames = [(board, None)] * 4 + [(board, hover)] * 2 + [(board, None)] * 5
    frames += [(board, HandSpec(target_point=a)), ({b: 1}, HandSpec(target_point=a))]
    frames += [({b: 1}, None)] * 5
    snapshots = []
    pictures: dict = {}
    rng = np.random.default_rng(0)
    for index, (rings, hand) in enumerate(frames):
        key = (tuple(sorted(rings.items())), hand)
        if key not in pictures:  # one render per state; fresh camera noise on every frame
            pictures[key] = scene.render(rings, hand=hand).image_bgr
        frame = np.clip(pictures[key] + rng.normal(0, 1.5, pictures[key].shape), 0, 255)
        snapshot = tracker.update(observer.observe(frame.astype(np.uint8)), None, index)
        if snapshot is not None:
            snapshots.append(snapshot.tokens)
    assert snapshots == [{a: 0, b: 1}, {b: 1}]
