"""The pipeline's own logic with a fake observer and tracker fed ground truth: event
stamping, new games, drift checks (re-fit, recalibration pause), state and operator actions."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pytest

from calibration.camera import CameraModel
from device.pipeline import Pipeline
from device.referee import RefereeError
from device.sources.base import Frame
from rules.timevectors import GameConfig, TimeVectorsGame
from rules.timevectors.points import parse_point
from vision.observation import Observation, Snapshot

P = parse_point


@dataclass(frozen=True)
class FakeCalibration:
    camera: Any


@dataclass(frozen=True)
class FakeDrift:
    shift_px: float
    ok: bool
    refit: Any = None


def observation(
    tokens: dict[str, int], hidden: tuple[str, ...] = (), hand: bool = False, quality: float = 1.0
) -> Observation:
    probs = np.zeros((256, 4))
    probs[:, 0] = 1.0
    for name, colour in tokens.items():
        probs[P(name)] = 0.0
        probs[P(name), 1 + colour] = 1.0
    visibility = np.ones(256)
    for name in hidden:
        visibility[P(name)] = 0.0
    return Observation(probs=probs, visibility=visibility, hand_present=hand, quality=quality)


class FakeObserver:
    """Reads the observation a test scripted for a frame from the frame's first pixel."""

    made: ClassVar[list[Any]] = []

    def __init__(self, calibration: Any, *, palette: Any = None, script: list[Observation]) -> None:
        self.calibration = calibration
        self.script = script
        self.expected_colour: int | None = None
        self.expected_seen: list[int | None] = []
        self.known_colours: dict[int, int] = {}
        self.settled = 0  # times the pipeline said a "hand" stayed on with the camera in place
        FakeObserver.made.append(calibration)

    def settle(self) -> None:
        self.settled += 1

    def observe(self, frame_bgr: np.ndarray) -> Observation:
        self.expected_seen.append(self.expected_colour)
        return self.script[int(frame_bgr[0, 0, 0])]


class FakeTracker:
    """A snapshot once readings are the same for ``stable`` hand-free frames and new."""

    def __init__(self, stable: int = 3) -> None:
        self.stable = stable
        self.run: list[tuple[tuple, frozenset]] = []
        self.last: tuple | None = None
        self.held: dict[int, int] | None = None  # the game's board it was last told
        self.expected: int | None = None  # and the colour to play

    def update(
        self,
        obs: Observation,
        frame_bgr: np.ndarray,
        index: int,
        *,
        held: dict | None = None,
        expected: int | None = None,
    ) -> Snapshot | None:
        if held is not None:
            self.held, self.expected = dict(held), expected
        if obs.hand_present:
            self.run = []
            return None
        key = (tuple(sorted(obs.tokens().items())), frozenset(obs.hidden()))
        self.run = [r for r in self.run if r == key] + [key]
        if len(self.run) >= self.stable and key != self.last:
            self.last = key
            return Snapshot(frame=index, tokens=dict(key[0]), hidden=key[1])
        return None

    def current(self, index: int) -> Snapshot | None:
        if not self.run:
            return None
        tokens, hidden = self.run[-1]
        return Snapshot(frame=index, tokens=dict(tokens), hidden=hidden)


class Harness:
    """Feeds scripted observations through a pipeline, one frame per 0.25 s."""

    def __init__(
        self,
        game: TimeVectorsGame | None = None,
        drift: list[FakeDrift] | None = None,
        drift_interval: float = 5.0,
        game_id: str | None = "g1",
        knock_check_after: float | None = None,
    ) -> None:
        self.script: list[Observation] = []
        self.drift_results = list(drift or [])
        self.drift_calls = 0
        FakeObserver.made = []
        self.pipeline = Pipeline(
            FakeCalibration(camera="cam0"),
            game or TimeVectorsGame(GameConfig()),
            game_id=game_id,
            drift_interval=drift_interval,
            knock_check_after=knock_check_after,
            observer_factory=lambda cal, *, palette=None, sets=None: FakeObserver(
                cal, palette=palette, script=self.script
            ),
            tracker_factory=FakeTracker,
            drift_factory=(lambda cal: self) if drift is not None else None,
        )
        self.seq = 0

    def check(self, frame_bgr: np.ndarray) -> FakeDrift:
        """The scripted results in order, then "steady"."""
        self.drift_calls += 1
        result = self.drift_results.pop(0) if self.drift_results else FakeDrift(0.0, True)
        if isinstance(result, Exception):
            raise result
        return result

    def show(self, tokens: dict[str, int], frames: int = 4, **kwargs: Any) -> list[dict]:
        """Show a board for ``frames`` frames; return the event records it caused."""
        self.script.append(observation(tokens, **kwargs))
        out = []
        for _ in range(frames):
            image = np.full((2, 2, 3), len(self.script) - 1, np.uint8)
            frame = Frame(image=image, seq=self.seq, timestamp=self.seq * 0.25)
            out += [e.to_record() for e in self.pipeline.process(frame, now=1000 + self.seq * 0.25)]
            self.seq += 1
        return out

    def place(self, board: dict[str, int], name: str, colour: int) -> list[dict]:
        out = self.show(board, frames=2, hand=True)
        board[name] = colour
        return out + self.show(board)


def types(records: list[dict]) -> list[str]:
    return [r["type"] for r in records]


def test_move_event_is_stamped_with_frame_time_and_game_id() -> None:
    h = Harness()
    assert h.show({}) == []
    records = h.place({}, "A3Q", 0)
    assert records == [
        {"type": "move", "frame": 6, "point": "A3Q", "color": 0, "time": 1001.5, "game_id": "g1"}
    ]  # the first calm frame after the hand (frames 4, 5) is enough for a legal move


def test_a_move_no_hand_came_before_must_hold_for_stable_frames() -> None:
    """A token appears by a hand: a legal change read with no hand (or motion) in the frames
    before it may be the first frame of a hand reaching in, and is judged only once it has
    held for ``stable_frames``, not at once."""
    h = Harness()
    h.show({}, frames=6)
    assert h.show({"A3Q": 0}, frames=2) == []  # the fingertip of a hand coming in, say
    assert h.show({}, frames=2, hand=True) == []  # and there it is: nothing was announced
    records = h.show({"B4R": 0}, frames=1)  # the board it left is judged at once
    assert types(records) == ["move"] and records[0]["point"] == "B4R"
    h.show({"B4R": 0}, frames=6)
    assert h.show({"B4R": 0, "C5S": 1}, frames=2) == []  # no hand for six frames: it waits
    records = h.show({"B4R": 0, "C5S": 1}, frames=1)
    assert types(records) == ["move"] and records[0]["frame"] == h.seq - 1


def test_an_illegal_reading_must_hold_for_stable_frames_before_an_alert() -> None:
    h = Harness()
    h.show({})
    # Two frames of a wrong reading (a flicker) and back: no alert.
    assert h.show({"A3Q": 0, "B3Q": 0}, frames=2) == []
    assert h.show({}, frames=3) == []
    # Held for three frames: the alert comes with the third.
    records = h.show({"A3Q": 0, "B3Q": 0}, frames=3)
    assert types(records) == ["illegal"] and records[0]["frame"] == 11
    assert types(h.show({}, frames=3)) == ["restored"]


@pytest.mark.parametrize(("quick", "stable"), [(0, 3), (4, 3)])
def test_frame_counts_are_checked(quick: int, stable: int) -> None:
    with pytest.raises(ValueError, match="quick_frames"):
        Pipeline(
            FakeCalibration(camera="c"),
            TimeVectorsGame(),
            quick_frames=quick,
            stable_frames=stable,
            observer_factory=lambda cal, *, palette=None, sets=None: None,
            tracker_factory=FakeTracker,
            drift_factory=None,
        )


def test_the_observer_is_told_the_colour_the_game_expects_next() -> None:
    """So that the first token of each set founds its colour (a dark set after a grey one)."""
    h = Harness()
    board: dict[str, int] = {}
    h.place(board, "A1P", 0)
    observer = h.pipeline._observer
    first_move = observer.expected_seen[:]
    assert set(first_move[:3]) == {0}, "colour 0 is expected until the first move is judged"
    assert first_move[-1] == 1, "then colour 1"
    h.place(board, "B1P", 1)
    assert observer.expected_seen[-1] == 0


def test_the_trackers_are_told_the_colours_the_game_holds_and_the_colour_to_play() -> None:
    """So that a token the game has keeps its colour, and a new one reads as the colour to
    play, through a misread between close sets."""
    h = Harness()
    board: dict[str, int] = {}
    h.place(board, "A1P", 0)
    h.place(board, "B1P", 1)
    h.show(board)
    assert h.pipeline._tracker.held == {P("A1P"): 0, P("B1P"): 1}
    assert h.pipeline._tracker.expected == 0  # two players: colour 0 plays third
    # ... and the observer too: it learns the plates' colour loss from tokens of one set.
    assert h.pipeline._observer.known_colours == {P("A1P"): 0, P("B1P"): 1}


def test_hand_frames_never_reach_the_referee() -> None:
    h = Harness()
    h.show({})
    assert h.show({"A3Q": 0, "B3Q": 1, "C3Q": 0}, frames=10, hand=True) == []
    assert h.pipeline.game.board == {}


def test_win_then_clearing_the_board_starts_a_new_game_with_a_new_id() -> None:
    h = Harness()
    board: dict[str, int] = {}
    h.show(board)
    records = []
    for name, colour in [
        ("A1P", 0),
        ("A8S", 1),
        ("B1P", 0),
        ("B8S", 1),
        ("C1P", 0),
        ("C8S", 1),
        ("D1P", 0),
    ]:
        records += h.place(board, name, colour)
    assert types(records)[-2:] == ["move", "win"]
    assert records[-1]["vectors"] == [["A1P", "B1P", "C1P", "D1P"]]
    old_game = h.pipeline.game
    records = h.show({}, frames=4)
    assert types(records) == ["game_started"]
    assert records[0]["game_id"] not in (None, "g1")
    assert h.pipeline.game is not old_game and h.pipeline.game.move_stack == []
    assert h.pipeline.game_id == records[0]["game_id"]
    records = h.place({}, "E5R", 0)
    assert records[0]["game_id"] == h.pipeline.game_id


def test_drift_is_checked_at_the_interval_and_a_refit_rebuilds_the_observer() -> None:
    h = Harness(
        drift=[FakeDrift(0.3, True), FakeDrift(3.2, True, refit="cam1")], drift_interval=2.0
    )
    records = h.show({}, frames=8)  # t = 0 .. 1.75: the first frame starts the clock
    assert h.drift_calls == 0 and records == []
    records = h.show({}, frames=4)  # t = 2.0 .. 2.75: the periodic check, steady
    assert h.drift_calls == 1 and records == []
    records = h.show({}, frames=8)  # t = 3.0 .. 4.75: at t = 4.0 a small shift, re-fitted
    assert h.drift_calls == 2
    assert records == [
        {
            "type": "camera_moved",
            "frame": 16,
            "shift_px": 3.2,
            "refit": True,
            "recalibrate": False,
            "time": 1004.0,
            "game_id": "g1",
        }
    ]
    assert h.pipeline.calibration.camera == "cam1"
    assert FakeObserver.made[-1].camera == "cam1"


def test_legal_changes_are_judged_without_a_drift_check() -> None:
    h = Harness(drift=[], drift_interval=60.0)
    h.show({})
    assert types(h.place({}, "A1P", 0)) == ["move"]
    assert h.drift_calls == 0


def test_a_change_that_is_the_camera_moving_is_not_judged() -> None:
    h = Harness(drift=[FakeDrift(4.0, False, refit="cam1")], drift_interval=60.0)
    h.show({})
    # The old calibration reads phantom tokens; the check before judging finds the camera moved.
    records = h.show({"A1P": 1, "B2P": 1}, frames=4)
    assert types(records) == ["camera_moved"] and h.drift_calls == 1
    # Read again with the re-fitted calibration: the board never changed.
    assert h.show({}) == []
    assert h.pipeline.game.board == {} and h.pipeline.state()["mismatch"] == []


def test_drift_is_not_checked_while_a_hand_is_in_view() -> None:
    h = Harness(drift=[FakeDrift(0.0, True)], drift_interval=1.0)
    h.show({}, frames=1)
    h.show({}, frames=12, hand=True)
    assert h.drift_calls == 0
    h.show({}, frames=1)
    assert h.drift_calls == 1


def test_large_camera_shift_is_reported_once_and_pauses_judging_until_back() -> None:
    drift = [FakeDrift(40.0, False), FakeDrift(41.0, False), FakeDrift(0.5, True)]
    h = Harness(drift=drift, drift_interval=1.0)
    records = h.show({}, frames=8)  # checked at t = 1.0
    assert types(records) == ["camera_moved"] and h.drift_calls == 1
    assert records[0]["recalibrate"] is True and records[0]["refit"] is False
    assert h.pipeline.state()["camera"]["needs_recalibration"] is True
    # The calibration no longer fits: what is read now is not judged, and not said twice.
    assert h.show({"A1P": 1, "B1P": 1}, frames=4) == []
    assert h.drift_calls == 2
    assert h.pipeline.game.board == {}
    # Camera back in place: judging resumes.
    assert h.show({}, frames=4) == []
    assert h.drift_calls == 3
    assert h.pipeline.state()["camera"]["needs_recalibration"] is False
    assert types(h.place({}, "A1P", 0)) == ["move"]


def test_a_failing_drift_check_is_logged_and_the_game_goes_on(caplog) -> None:
    h = Harness(drift=[RuntimeError("ECC did not converge")], drift_interval=0.5)
    with caplog.at_level(logging.ERROR, logger="device.pipeline"):
        h.show({}, frames=4)
    assert "drift check failed" in caplog.text
    assert types(h.place({}, "A1P", 0)) == ["move"]


def test_state_reports_what_is_seen_and_the_mismatch() -> None:
    h = Harness()
    assert h.pipeline.state()["tokens"] == {} and h.pipeline.state()["observation"] is None
    h.show({})
    h.place({}, "A1P", 0)
    h.show({"A1P": 0, "B1P": 0, "C1P": 0}, hidden=("H8S",))
    state = h.pipeline.state()
    assert state["tokens"] == {"A1P": 0, "B1P": 0, "C1P": 0}
    assert state["hidden"] == ["H8S"]
    assert state["hand"] is False
    assert state["mismatch"] == ["B1P", "C1P"]
    assert state["pending"]["type"] == "illegal" and state["pending"]["points"] == ["B1P", "C1P"]
    assert state["observation"]["tokens"] == 3
    assert state["game_id"] == "g1"
    h.show({"A1P": 0}, frames=2, hand=True)
    assert h.pipeline.state()["hand"] is True


def test_operator_actions_are_delegated_and_stamped() -> None:
    h = Harness()
    h.show({})
    h.place({}, "A1P", 0)
    records = [e.to_record() for e in h.pipeline.undo()]
    assert (
        types(records) == ["undo"] and records[0]["game_id"] == "g1" and records[0]["frame"] is None
    )
    with pytest.raises(RefereeError):
        h.pipeline.accept()
    with pytest.raises(RefereeError):
        h.pipeline.confirm_hidden(P("A1P"))
    records = [e.to_record() for e in h.pipeline.correct(P("A1P"), 0)]
    assert types(records) == ["corrected", "move"]


def test_new_game_replaces_the_game_and_id_and_judges_the_board_left() -> None:
    h = Harness()
    h.show({})
    board: dict[str, int] = {}
    h.place(board, "A1P", 0)
    h.place(board, "H8S", 1)
    h.place(board, "B1P", 0)
    game = TimeVectorsGame(GameConfig(players=3))
    records = [e.to_record() for e in h.pipeline.new_game(game, "g2")]
    assert types(records) == ["game_started", "illegal"]
    assert all(r["game_id"] == "g2" for r in records)
    assert records[1]["points"] == ["A1P", "B1P", "H8S"]
    assert h.pipeline.game is game and h.pipeline.game_id == "g2"
    assert types(h.show({})) == ["restored"]  # the old tokens cleared away
    assert types(h.place({}, "B2Q", 0)) == ["move"]


def test_set_calibration_rebuilds_the_observer() -> None:
    h = Harness()
    h.pipeline.set_calibration(
        FakeCalibration(camera=CameraModel.looking_at((0, 0, 0), 900, 50, 0, (64, 48)))
    )
    assert isinstance(FakeObserver.made[-1].camera, CameraModel)


def test_a_hand_that_never_leaves_triggers_a_check_that_only_acts_on_a_refit() -> None:
    drift = [FakeDrift(60.0, False), FakeDrift(2.5, False, refit="cam1")]
    h = Harness(drift=drift, drift_interval=60.0)
    h.show({})
    # A "hand" for 3 s: checked, but "lost" may be the hand blocking the view: ignored.
    assert h.show({}, frames=13, hand=True) == []
    assert h.drift_calls == 1
    assert h.pipeline.state()["camera"]["needs_recalibration"] is False
    # 3 s later, still there: this time the board is found, shifted: re-fitted.
    records = h.show({}, frames=12, hand=True)
    assert types(records) == ["camera_moved"] and records[0]["refit"] is True
    assert h.drift_calls == 2 and h.pipeline.calibration.camera == "cam1"


def test_a_hand_that_stays_with_the_camera_in_place_is_left_to_the_observer_to_settle() -> None:
    """A "hand" in view for 3 s with the camera where it was calibrated may be a change on
    the board that the observer took for a hand (see Observer.settle): it is told so, each
    time the check finds the camera in place, and never when the camera is lost or moved.
    A check that could not see the board (a real hand over it) is tried again a second
    later, not three."""
    drift = [FakeDrift(0.3, True), FakeDrift(60.0, False), FakeDrift(2.5, False, refit="cam1")]
    h = Harness(drift=drift, drift_interval=60.0)
    h.show({})
    observer = h.pipeline._observer
    assert h.show({}, frames=13, hand=True) == [] and h.drift_calls == 1
    assert observer.settled == 1
    assert h.show({}, frames=11, hand=True) == [] and h.drift_calls == 1  # (3 s: 12 frames)
    assert h.show({}, frames=1, hand=True) == [] and h.drift_calls == 2
    assert observer.settled == 1  # the view may be blocked: nothing to settle on
    assert h.show({}, frames=3, hand=True) == [] and h.drift_calls == 2
    records = h.show({}, frames=1, hand=True)  # a second later
    assert types(records) == ["camera_moved"] and h.drift_calls == 3
    assert observer.settled == 1 and h.pipeline._observer is not observer  # a new observer


def test_a_camera_knocked_by_a_hand_is_looked_for_after_a_second_once_per_visit() -> None:
    """A "hand" a second in view may be the board seen off its calibration (the hand that
    placed a token knocked the camera): the frame is checked once in that visit, and only a
    re-fit is acted on. A view that may be a real hand's settles nothing and does not move
    the stuck-hand check's clock."""
    drift = [FakeDrift(60.0, False), FakeDrift(0.3, True), FakeDrift(2.5, False, refit="cam1")]
    h = Harness(drift=drift, drift_interval=60.0, knock_check_after=1.0)
    h.show({})
    observer = h.pipeline._observer
    assert h.show({}, frames=4, hand=True) == [] and h.drift_calls == 0  # t = 0.25 .. 1.0
    assert h.show({}, frames=1, hand=True) == [] and h.drift_calls == 1  # (lost: a hand?)
    assert h.show({}, frames=7, hand=True) == [] and h.drift_calls == 1  # once per visit
    assert h.show({}, frames=1, hand=True) == [] and h.drift_calls == 2  # 3 s: stuck check
    assert observer.settled == 1  # (the stuck-hand check settles; the quick look did not)
    h.show({})  # the hand goes; the next one knocks the camera
    assert h.show({}, frames=4, hand=True) == [] and h.drift_calls == 2
    records = h.show({}, frames=1, hand=True)
    assert types(records) == ["camera_moved"] and records[0]["refit"] is True
    assert h.drift_calls == 3 and h.pipeline.calibration.camera == "cam1"


def test_a_hand_that_leaves_a_board_no_move_explains_has_the_camera_looked_at_at_once() -> None:
    """The hand that placed a token may have knocked the camera in a visit too short for
    the knock check: the moved view reads a phantom beside the token, a board no move
    explains. The first calm frame after the hand is checked, before that board settles,
    and only a re-fit is acted on; a board a move explains asks for no check."""
    h = Harness(drift=[FakeDrift(0.4, True), FakeDrift(0.4, True),
                       FakeDrift(2.5, False, refit="cam1")],
                drift_interval=60.0, knock_check_after=1.0)
    h.show({})
    assert h.show({}, frames=2, hand=True) == []
    assert h.show({"A1P": 0}, frames=3) and h.drift_calls == 0  # a move: no check
    assert h.show({"A1P": 0}, frames=2, hand=True) == []
    records = h.show({"A1P": 0, "B2Q": 1, "C3R": 1}, frames=1)  # two new tokens
    assert records == [] and h.drift_calls == 1  # the camera is where it was: nothing said
    # ... and the board that settles is the one checked: it is judged with no second check
    records = h.show({"A1P": 0, "B2Q": 1, "C3R": 1}, frames=4)
    assert types(records) == ["illegal"] and h.drift_calls == 1
    h.show({"A1P": 0, "C3R": 1, "D4S": 1}, frames=6)  # another, with no hand: checked
    assert h.drift_calls == 2
    assert h.show({"A1P": 0}, frames=2, hand=True) == []
    records = h.show({"A1P": 0, "B2Q": 1, "C3R": 1}, frames=1)
    assert types(records) == ["camera_moved"] and records[0]["refit"] is True
    assert h.drift_calls == 3 and h.pipeline.calibration.camera == "cam1"


def test_a_hand_from_the_very_first_frame_counts_as_stuck_too() -> None:
    h = Harness(drift=[FakeDrift(2.5, False, refit="cam1")], drift_interval=60.0)
    records = h.show({}, frames=13, hand=True)  # t = 0 .. 3.0
    assert types(records) == ["camera_moved"] and records[0]["frame"] == 12


def test_mid_game_frames_take_the_first_board_as_the_game_so_far() -> None:
    h = Harness()
    h.pipeline = Pipeline(
        FakeCalibration(camera="cam0"),
        TimeVectorsGame(GameConfig()),
        game_id="g1",
        mid_game=True,
        observer_factory=lambda cal, *, palette=None, sets=None: FakeObserver(cal, script=h.script),
        tracker_factory=FakeTracker,
        drift_factory=None,
    )
    board = {"A1P": 0, "H8S": 1, "C3R": 0}
    records = h.show(board)
    assert types(records) == ["game_started"] and "3 moves" in records[0]["reason"]
    assert types(h.place(board, "E5Q", 1)) == ["move"]


def test_mid_game_board_that_no_turn_order_explains_is_an_illegal_change(caplog) -> None:
    h = Harness()
    h.pipeline = Pipeline(
        FakeCalibration(camera="cam0"),
        TimeVectorsGame(GameConfig()),
        mid_game=True,
        observer_factory=lambda cal, *, palette=None, sets=None: FakeObserver(cal, script=h.script),
        tracker_factory=FakeTracker,
        drift_factory=None,
    )
    with caplog.at_level(logging.WARNING, logger="device.pipeline"):
        records = h.show({"A1P": 1, "H8S": 1})
    assert types(records) == ["illegal"] and "turn order" in caplog.text


def test_mid_game_with_an_empty_first_board_is_a_game_from_the_start() -> None:
    h = Harness()
    h.pipeline = Pipeline(
        FakeCalibration(camera="cam0"),
        TimeVectorsGame(GameConfig()),
        mid_game=True,
        observer_factory=lambda cal, *, palette=None, sets=None: FakeObserver(cal, script=h.script),
        tracker_factory=FakeTracker,
        drift_factory=None,
    )
    assert h.show({}) == []
    assert types(h.place({}, "A1P", 0)) == ["move"]


def test_blank_frames_are_not_used_to_check_the_camera() -> None:
    h = Harness(drift=[FakeDrift(0.0, True)], drift_interval=1.0)
    h.show({}, frames=1)
    assert h.show({}, frames=8, quality=0.0) == []
    assert h.drift_calls == 0
    h.show({}, frames=1)
    assert h.drift_calls == 1


def test_swap_opening_through_frames() -> None:
    h = Harness(TimeVectorsGame(GameConfig(opening="swap")))
    h.show({})
    h.place({}, "A3Q", 0)
    records = h.show({"A3Q": 1}, frames=2, hand=True) + h.show({"A3Q": 1})
    assert [(r["type"], r.get("kind"), r["point"], r["color"]) for r in records] == [
        ("move", "swap", "A3Q", 1)
    ]
    assert h.pipeline.game.turn_color() == 0


def test_three_move_equalization_through_frames_and_the_operators_choice() -> None:
    h = Harness(TimeVectorsGame(GameConfig(opening="3meq")))
    h.show({})
    board: dict[str, int] = {}
    for name, colour in (("A1P", 1), ("B1P", 0), ("C1P", 0)):
        assert types(h.place(board, name, colour)) == ["move"]
    assert h.pipeline.game.phase == "choosing"
    with pytest.raises(RefereeError, match="not one of the opening's colours"):
        h.pipeline.choose_colour(2)
    records = [e.to_record() for e in h.pipeline.choose_colour(0)]
    assert [(r["type"], r["kind"], r["color"], r["game_id"]) for r in records] == [
        ("move", "choose", 0, "g1")
    ]
    assert h.pipeline.game.turn_color() == 1  # the pair was chosen: the first player moves
    assert types(h.place(board, "D4S", 1)) == ["move"]


def test_the_live_observer_reads_the_reference_as_stored() -> None:
    """The live pipeline reads frames exactly as ``boardcam analyze`` reads a picture: the
    calibration's reference goes to the observer as stored. (Scaled up to the camera's size
    and shrunk back by the observer, it came out blurred, and live games read about three
    times as many points wrong as the still-picture bench.)"""
    from device.commands.analyze import still_scene
    from device.pipeline import make_observer
    from vision.observer import Observer

    _, _, image, calibration = still_scene(3, (1280, 960), cast=False)
    live = make_observer(calibration).observe(image, compare_previous=False)
    still = Observer(calibration).observe(image, compare_previous=False)
    np.testing.assert_array_equal(live.probs, still.probs)


def test_state_says_how_long_a_hand_has_been_in_view() -> None:
    h = Harness()
    h.show({}, frames=2)
    assert h.pipeline.state()["hand_seconds"] == 0.0
    h.show({}, frames=9, hand=True)  # frames 2..10: in view from t = 0.5 to t = 2.5
    state = h.pipeline.state()
    assert state["hand"] is True and state["hand_seconds"] == 2.0
    assert h.pipeline.hand_in_view() == (True, 2.0)  # what the runtime asks every frame
    h.show({}, frames=1)
    assert h.pipeline.state()["hand_seconds"] == 0.0


def _observer_sets(game: TimeVectorsGame) -> tuple[Pipeline, list[Any]]:
    """A pipeline for ``game`` and the ``sets`` each observer it made was told."""
    told: list[Any] = []

    def factory(cal: Any, *, palette: Any = None, sets: Any = None) -> FakeObserver:
        told.append(sets)
        return FakeObserver(cal, script=[])

    pipeline = Pipeline(
        FakeCalibration(camera="cam0"), game, observer_factory=factory,
        tracker_factory=FakeTracker, drift_factory=None,
    )
    return pipeline, told


@pytest.mark.parametrize(
    "config, sets",
    [(GameConfig(), 2), (GameConfig(players=3), 3), (GameConfig(players=4, teams=True), 2),
     (GameConfig(opening="3meq"), 2)],
)
def test_the_observer_is_told_how_many_sets_the_game_plays(config: GameConfig, sets: int) -> None:
    _, told = _observer_sets(TimeVectorsGame(config))
    assert told == [sets]


def test_a_new_game_of_another_number_of_sets_gets_an_observer_told_so() -> None:
    pipeline, told = _observer_sets(TimeVectorsGame(GameConfig()))
    pipeline.new_game(TimeVectorsGame(GameConfig(players=4, teams=True)), "g2")
    assert told == [2]  # the same two sets: what the observer learned stays
    pipeline.new_game(TimeVectorsGame(GameConfig(players=3)), "g3")
    assert told == [2, 3]
