"""The demo: its script tells the intended game, and the source plays it cheaply and in a loop."""

from __future__ import annotations

import threading
import time
from itertools import pairwise

import numpy as np
import pytest

from device.demo_script import Script, Shot, demo_script, distinct_views, freeze, scripted_events
from device.sources.base import SourceError
from device.sources.demo import DEMO_PALETTE, DemoSource, demo_camera, reaching_hand
from rules.timevectors import parse_point

SMALL = (320, 240)


def test_demo_game_shows_every_kind_of_event() -> None:
    assert scripted_events(demo_script()) == [
        {"type": "move", "point": "A1S", "color": 0},
        {"type": "move", "point": "F6Q", "color": 1},
        {"type": "move", "point": "B1R", "color": 0},
        {"type": "move", "point": "G7R", "color": 1},  # the fast two-token move
        {"type": "move", "point": "C1Q", "color": 0},
        {
            "type": "illegal",
            "reasons": ["token moved from B1R to B2R"],
            "points": ["B1R", "B2R"],
            "take_back": False,
        },
        {"type": "restored", "points": ["B1R", "B2R"]},
        {"type": "move", "point": "H8S", "color": 1},
        {"type": "move", "point": "D1P", "color": 0},
        {"type": "win", "color": 0, "vectors": [["A1S", "B1R", "C1Q", "D1P"]]},
        {"type": "game_started", "reason": "board cleared after the game ended"},
    ]


def test_demo_script_loops_on_an_empty_board_with_hands_between_still_boards() -> None:
    shots = demo_script()
    assert shots[0].board == () and shots[-1].board == ()
    assert shots[0].hand_at is None and shots[-1].hand_at is None
    # Every change of board happens under a hand, never between two hand-free frames.
    for before, after in pairwise(shots):
        if before.board != after.board:
            assert after.hand_at is not None
    # The tracker needs still frames after every hand visit.
    for before, after in pairwise(shots):
        if before.hand_at is not None and after.hand_at is None:
            assert after.frames >= 4
    assert len(distinct_views(shots)) <= 40  # few views: cheap to cache


def test_script_helpers() -> None:
    script = Script(hand_frames=2, still_frames=5)
    script.still(3).place(("A1P", 0)).move("A1P", "B1P").remove("B1P")
    assert [(s.board, s.hand_at, s.frames) for s in script.shots[:4]] == [
        ((), None, 3),
        ((), parse_point("A1P"), 2),
        (freeze({parse_point("A1P"): 0}), parse_point("A1P"), 1),
        (freeze({parse_point("A1P"): 0}), None, 5),
    ]
    assert script.board == {}
    assert script.frames() == 3 + 3 * (2 + 1 + 5)


def test_a_hand_reaches_for_the_shots_point_only_when_it_has_one() -> None:
    assert reaching_hand(Shot(board=())) is None
    hand = reaching_hand(Shot(board=(), hand_at=0))  # node 0 of the bandanna: 0 is not "no hand"
    assert hand is not None and hand.target_point == 0


def test_camera_sees_the_whole_board() -> None:
    from calibration.spec import load_spec

    camera = demo_camera(SMALL)
    pixels = camera.project(load_spec().point_centres())
    assert (pixels[:, 0] > 0).all() and (pixels[:, 0] < SMALL[0]).all()
    assert (pixels[:, 1] > 0).all() and (pixels[:, 1] < SMALL[1]).all()


class TestDemoSource:
    def test_plays_the_script_once_without_loop_and_renders_each_view_once(self) -> None:
        shots = Script(hand_frames=1, still_frames=2).still(2).place(("A1P", 0)).shots
        source = DemoSource(fps=0, size=SMALL, loop=False, shots=shots)
        with source:
            frames = []
            while (frame := source.read()) is not None:
                frames.append(frame)
        assert source.is_exhausted
        assert [f.seq for f in frames] == list(range(source.frame_count)) and len(frames) == 6
        assert frames[0].image.shape == (SMALL[1], SMALL[0], 3)
        assert np.array_equal(frames[0].image, frames[1].image)  # the same view: the same frame
        assert not np.array_equal(frames[1].image, frames[2].image)  # the hand comes in
        assert source.renderer.cached_views == len(distinct_views(shots)) == 4

    def test_loops(self) -> None:
        shots = (Shot(board=(), frames=2),)
        source = DemoSource(fps=0, size=SMALL, shots=shots)
        source.start()
        seqs = [source.read().seq for _ in range(5)]
        assert seqs == [0, 1, 2, 3, 4] and not source.is_exhausted
        source.stop()

    def test_paces_frames_at_its_rate(self) -> None:
        source = DemoSource(fps=20, size=SMALL, shots=(Shot(board=(), frames=1),))
        source.start()
        source.read()  # renders the one view
        started = time.monotonic()
        for _ in range(4):
            assert source.read() is not None
        assert (
            time.monotonic() - started >= 3 / 20 - 0.01
        )  # the first may come at once after the render
        source.stop()

    def test_renders_views_ahead_when_playing_in_real_time(self) -> None:
        shots = Script(hand_frames=1, still_frames=1).still(1).place(("A1P", 0), ("B1P", 1)).shots
        source = DemoSource(fps=2, size=SMALL, shots=shots)
        source.start()
        deadline = time.monotonic() + 30
        while (
            source.renderer.cached_views < len(distinct_views(shots))
            and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        assert source.renderer.cached_views == len(distinct_views(shots)) == 6
        source.stop()
        assert not any(t.name == "demo-prerender" for t in threading.enumerate())

    def test_one_view_is_rendered_once_across_threads(self, monkeypatch) -> None:
        renderer = DemoSource(fps=0, size=SMALL).renderer
        calls = []
        original = renderer._render
        monkeypatch.setattr(renderer, "_render", lambda shot: calls.append(shot) or original(shot))
        shot = Shot(board=freeze({parse_point("C3R"): 1}))
        threads = [threading.Thread(target=renderer.encoded, args=(shot,)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(calls) == 1 and renderer.cached_views == 1

    def test_read_before_start_is_an_error(self) -> None:
        source = DemoSource(fps=0, size=SMALL, shots=(Shot(board=(), frames=1),))
        with pytest.raises(SourceError, match="not started"):
            source.read()

    def test_bad_settings(self) -> None:
        with pytest.raises(ValueError, match="fps"):
            DemoSource(fps=-1)
        with pytest.raises(ValueError, match="no frames"):
            DemoSource(shots=())

    def test_palette_and_camera(self) -> None:
        source = DemoSource(fps=0, size=SMALL)
        assert source.palette == list(DEMO_PALETTE)
        assert source.camera.image_size == SMALL
