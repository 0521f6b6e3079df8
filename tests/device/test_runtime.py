"""The runtime loop with a scripted source and a pipeline that reads moves from frame names."""

from __future__ import annotations

import io
import json
import queue
import threading
import time
import zipfile
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from calibration.camera import CameraModel
from device.config import Config
from device.events import CAMERA_STATUS, GAME_STARTED, MOVE, WIN
from device.runtime import (
    CAMERA_ENDED,
    CAMERA_FAILED,
    CAMERA_OK,
    CAMERA_RECONNECTING,
    ControlError,
    Runtime,
)
from device.sinks import Sink
from device.store import Store
from rules.timevectors import Move
from tests.device.fakes_runtime import WINNING_NAMES, NameReadingPipeline, ScriptedSource

STATE_KEYS = {
    "board", "game_id", "tokens", "turn", "winner", "result", "alerts", "camera", "last_move", "threats",
    "mismatch", "hidden", "hand", "hand_seconds", "seen", "pending", "players", "names", "opening", "moves", "calibration",
    "phase", "legal_colors", "to_act", "player_colors",
}


def wait_for(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.01)


def calibration() -> SimpleNamespace:
    camera = CameraModel.looking_at((0, 0, 150), 900, 60, 0, (320, 240))
    return SimpleNamespace(camera=camera, board="timevectors", to_dict=lambda: {"version": 1, "camera": "x"})


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "data")
    yield s
    s.close()


def make_runtime(store, source, **kwargs) -> Runtime:
    kwargs.setdefault("calibration", calibration())
    kwargs.setdefault("pipeline_factory", NameReadingPipeline)
    kwargs.setdefault("backoff", (0.02, 0.2))
    return Runtime(source, store=store, pin="1234", **kwargs)


def collect(client: queue.Queue, types: set[str], count: int, timeout: float = 5.0) -> list[dict]:
    found = []
    deadline = time.monotonic() + timeout
    while len(found) < count:
        record = client.get(timeout=max(0.01, deadline - time.monotonic()))
        if record["type"] in types:
            found.append(record)
    return found


def test_state_shape_before_any_frame(store):
    runtime = make_runtime(store, ScriptedSource(["empty"]))
    state = runtime.state()
    assert set(state) == STATE_KEYS
    assert state["board"] == "timevectors"
    assert state["turn"] == 0 and state["winner"] is None and state["moves"] == []
    assert state["camera"]["status"] == "starting"
    assert state["calibration"]["loaded"] is True and state["calibration"]["image_size"] == [320, 240]
    assert runtime.latest_jpeg() is None and runtime.latest_frame() is None
    assert runtime.games()[0]["id"] == state["game_id"]


def test_a_game_is_played_persisted_and_announced(store):
    runtime = make_runtime(store, ScriptedSource(["empty", *WINNING_NAMES], fps=30, repeat=5))
    client, unsubscribe = runtime.subscribe()
    first = client.get_nowait()
    assert first["type"] == "state" and set(first["state"]) == STATE_KEYS
    runtime.start()
    try:
        records = collect(client, {MOVE, WIN}, 8)
    finally:
        runtime.stop()
    assert [r["point"] for r in records if r["type"] == MOVE] == [n.split(":")[0] for n in WINNING_NAMES]
    assert records[-1] == {**records[-1], "type": WIN, "color": 0, "vectors": [["A1P", "A2P", "A3P", "A4P"]]}
    state = runtime.state()
    assert state["winner"] == {"color": 0, "vectors": [["A1P", "A2P", "A3P", "A4P"]]}
    assert state["result"] == "win" and state["tokens"]["A4P"] == 0
    assert state["last_move"]["point"] == "A4P"
    assert [a["type"] for a in state["alerts"]] == [WIN]
    stored = store.get_game(runtime.game_id)
    assert (stored.status, stored.winner) == ("finished", 0)
    moves = store.moves(runtime.game_id, with_snapshots=True)
    assert len(moves) == 7 and all(m.snapshot.startswith(b"\xff\xd8") for m in moves)
    unsubscribe()
    assert runtime.subscriber_count == 0


def test_phones_hear_of_a_hand_coming_and_going_without_an_event(store):
    runtime = make_runtime(store, ScriptedSource(["empty", "hand", "hand", "empty"], fps=10))
    client, unsubscribe = runtime.subscribe()
    client.get_nowait()  # the state on subscribing
    runtime.start()
    try:
        wait_for(lambda: runtime._pipeline.seen_frames[-1:] == [3])
    finally:
        runtime.stop()
    records = []
    while not client.empty():
        record = client.get_nowait()
        if record is not None:
            records.append(record)
    assert {r["type"] for r in records} <= {"state", "camera_status"}  # no game event
    hands = [r["state"]["hand"] for r in records if r["type"] == "state"]
    changes = [h for i, h in enumerate(hands) if i == 0 or h != hands[i - 1]]
    assert changes[-2:] == [True, False]
    unsubscribe()


class CheckingSink(Sink):
    """Records, for every alert it gets, whether the move was already in the database."""

    name = "checking"

    def __init__(self, store):
        self.store = store
        self.seen: list[tuple[str, int]] = []

    def deliver(self, record):
        self.seen.append((record["type"], len(self.store.moves(record["game_id"]))))


def test_moves_are_committed_before_sinks_hear_of_them(store):
    sink = CheckingSink(store)
    config = Config()
    config.sinks.events = ["move", "win"]
    runtime = make_runtime(store, ScriptedSource(["empty", *WINNING_NAMES], fps=30, repeat=5), sinks=[sink], config=config)
    runtime.start()
    try:
        wait_for(lambda: len(sink.seen) == 8)
    finally:
        runtime.stop()
    assert sink.seen == [("move", n) for n in range(1, 8)] + [("win", 7)]


class SlowPipeline(NameReadingPipeline):
    def process(self, frame):
        time.sleep(0.03)
        return super().process(frame)


def test_only_the_newest_frame_is_processed(store):
    pipelines = []

    def factory(*args, **kwargs):
        pipelines.append(SlowPipeline(*args, **kwargs))
        return pipelines[-1]

    source = ScriptedSource(["empty"], fps=0)
    runtime = make_runtime(store, source, pipeline_factory=factory)
    runtime.start()
    try:
        wait_for(lambda: len(pipelines[-1].seen_frames) >= 10)
    finally:
        runtime.stop()
    seen = pipelines[-1].seen_frames
    assert seen == sorted(set(seen)), "frames are processed in order, each once"
    assert source.reads > 3 * len(seen), "the capture thread ran ahead and frames were skipped"
    assert max(b - a for a, b in zip(seen, seen[1:])) > 1
    camera = runtime.state()["camera"]
    assert camera["skipped"] > 0 and camera["fps"] > camera["processed_fps"] > 0


def test_camera_that_fails_mid_game_reconnects_with_backoff(store):
    names = ["empty", "A1P:0", "H8S:1", "empty", "empty", "A2P:0"]
    # (each name 5 reads long: read 16 is the first after H8S:1's)
    source = ScriptedSource(names, fps=30, fail_reads={16}, fail_starts=3, repeat=5)
    runtime = make_runtime(store, source)
    client, _ = runtime.subscribe()
    runtime.start()
    try:
        records = collect(client, {CAMERA_STATUS, MOVE}, 5)
    finally:
        runtime.stop()
    assert [r.get("status") or r["point"] for r in records] == ["A1P", "H8S", CAMERA_RECONNECTING, CAMERA_OK, "A2P"]
    assert runtime.state()["moves"] == ["A1P:0", "H8S:1", "A2P:0"]
    gaps = np.diff(source.start_times[1:])  # the restarts after the failure
    assert len(gaps) == 3 and all(b > a * 1.5 for a, b in zip(gaps, gaps[1:])), gaps
    alerts = [a["status"] for a in runtime.state()["alerts"] if a["type"] == CAMERA_STATUS]
    assert alerts[-2:] == [CAMERA_RECONNECTING, CAMERA_OK]


class CrashingSource(ScriptedSource):
    """A driver that raises its own error type, not SourceError."""

    def read(self, timeout=1.0):
        if self.reads == 2:
            self.reads += 1
            raise OSError("driver crashed")
        return super().read(timeout)


def test_a_driver_error_is_treated_like_a_lost_camera(store):
    source = CrashingSource(["empty", "A1P:0", "empty", "H8S:1"], fps=30)
    runtime = make_runtime(store, source)
    runtime.start()
    try:
        wait_for(lambda: runtime.state()["moves"] == ["A1P:0", "H8S:1"])
    finally:
        runtime.stop()
    statuses = [a["status"] for a in runtime.state()["alerts"] if a["type"] == CAMERA_STATUS]
    assert statuses == [CAMERA_RECONNECTING, CAMERA_OK]
    assert "driver crashed" in store.alerts(runtime.game_id)[0]["message"]


class FailingStore(Store):
    fail = False

    def sync_moves(self, *args, **kwargs):
        if self.fail:
            raise OSError("disk full")
        return super().sync_moves(*args, **kwargs)


def test_a_store_failure_does_not_stop_the_game(tmp_path):
    store = FailingStore(tmp_path)
    runtime = make_runtime(store, ScriptedSource(["empty", "A1P:0", "empty", "H8S:1", "empty"], fps=20))
    store.fail = True
    runtime.start()
    try:
        wait_for(lambda: runtime.state()["moves"] == ["A1P:0", "H8S:1"])
        store.fail = False
        runtime.undo()  # the next successful commit brings the store up to date
    finally:
        runtime.stop()
    assert [m.notation for m in store.moves(runtime.game_id)] == ["A1P:0"]
    store.close()


def test_camera_that_never_comes_back_is_reported_failed(store):
    source = ScriptedSource(["empty"], fps=100, fail_reads={2}, fail_starts=100)
    runtime = make_runtime(store, source, backoff=(0.001, 0.005))
    runtime.start()
    try:
        wait_for(lambda: runtime.state()["camera"]["status"] == CAMERA_FAILED)
        assert "camera unplugged" in runtime.state()["camera"]["message"]
    finally:
        runtime.stop()


def test_a_finished_recording_is_reported_ended(store):
    runtime = make_runtime(store, ScriptedSource(["empty", "A1P:0"], fps=30, hold=False))
    runtime.start()
    try:
        wait_for(lambda: runtime.state()["camera"]["status"] == CAMERA_ENDED)
        wait_for(lambda: runtime.state()["moves"] == ["A1P:0"])
    finally:
        runtime.stop()


def test_restart_resumes_the_running_game(tmp_path):
    store = Store(tmp_path)
    runtime = make_runtime(store, ScriptedSource(["A1P:0", "H8S:1", "A2P:0"], fps=30, hold=False, repeat=5))
    runtime.start()
    wait_for(lambda: len(runtime.state()["moves"]) == 3)
    runtime.stop()
    game_id = runtime.game_id
    store.close()

    again = Store(tmp_path)
    resumed = make_runtime(again, ScriptedSource(["A3P:1"], hold=False))
    assert resumed.game_id == game_id
    assert resumed.state()["moves"] == ["A1P:0", "H8S:1", "A2P:0"]
    assert resumed.state()["turn"] == 1
    resumed.process_frame(ScriptedSource(["x"]).names and _frame("H7S:1"))
    assert [m.notation for m in again.moves(game_id)] == ["A1P:0", "H8S:1", "A2P:0", "H7S:1"]
    again.close()


def test_restart_after_a_win_keeps_the_finished_game_on_show(tmp_path):
    store = Store(tmp_path)
    runtime = make_runtime(store, ScriptedSource([]))
    for name in WINNING_NAMES:
        runtime.process_frame(_frame(name))
    assert runtime.state()["result"] == "win"
    again = make_runtime(store, ScriptedSource([]))
    assert again.game_id == runtime.game_id and again.state()["winner"]["color"] == 0
    again.new_game()
    assert store.get_game(runtime.game_id).status == "finished", "a finished game is never marked abandoned"
    third = make_runtime(store, ScriptedSource([]))
    assert third.game_id == again.game_id
    store.close()


@pytest.mark.parametrize("calibrated", [True, False], ids=["through-the-pipeline", "without-calibration"])
def test_the_3meq_choice_is_announced_stored_and_survives_a_restart(tmp_path, calibrated):
    store = Store(tmp_path)
    kwargs = {} if calibrated else {"calibration": None}
    runtime = make_runtime(store, ScriptedSource([]), **kwargs)
    runtime.new_game(2, "3meq", ["Ann", "Bob"])
    state = runtime.state()
    assert (state["phase"], state["legal_colors"], state["turn"]) == ("3meq-placing", [0, 1], None)
    assert state["to_act"] == {"player": 0, "name": "Ann", "team": None, "colour": None}
    game_id = runtime.game_id
    if calibrated:
        for name in ("A1P:0", "C3R:1", "B1P:0"):
            runtime.process_frame(_frame(name))
    else:  # nothing can be read without a calibration: the opening tokens are in the stored game
        for notation in ("A1P:0", "C3R:1", "B1P:0"):
            runtime.game_object.push(Move.parse(notation))
    with pytest.raises(ControlError, match="0 or 1"):
        runtime.choose_colour(2)
    state = runtime.state()
    assert (state["phase"], state["legal_colors"]) == ("3meq-choice", [])
    assert state["to_act"] == {"player": 1, "name": "Bob", "team": None, "colour": None}
    client, _ = runtime.subscribe()
    client.get_nowait()
    records = runtime.choose_colour(1)
    assert [(r["type"], r["kind"], r["color"], r["game_id"]) for r in records] == [(MOVE, "choose", 1, game_id)]
    assert client.get_nowait()["type"] == MOVE
    assert client.get_nowait()["state"]["phase"] == "play"
    with pytest.raises(ControlError, match="no colour choice is due"):
        runtime.choose_colour(0)
    assert [m.notation for m in store.moves(game_id)][-1] == "choose 1"
    store.close()

    again = Store(tmp_path)
    resumed = make_runtime(again, ScriptedSource([]), **kwargs)
    state = resumed.state()
    assert resumed.game_id == game_id
    assert state["moves"] == ["A1P:0", "C3R:1", "B1P:0", "choose 1"]
    # Bob took the single colour 1 (Ann has the pair, colour 0), so Bob moves to even it up.
    assert (state["phase"], state["turn"], state["legal_colors"]) == ("play", 1, [1])
    assert state["to_act"] == {"player": 1, "name": "Bob", "team": None, "colour": 1}
    assert state["player_colors"] == [0, 1]
    again.close()


def test_team_game_names_the_seat_and_team_to_act(store):
    runtime = make_runtime(store, ScriptedSource([]))
    runtime.new_game(4, "none", ["Ann", "Bob", "Cy", "Di"])
    for name in ("A1P:0", "H8S:1", "A2P:0"):
        runtime.process_frame(_frame(name))
    state = runtime.state()
    assert state["to_act"] == {"player": 3, "name": "Di", "team": 1, "colour": 1}
    assert (state["phase"], state["turn"]) == ("play", 1)


def test_swap_available_is_the_phase_after_the_first_token_of_a_swap_game(store):
    runtime = make_runtime(store, ScriptedSource([]))
    runtime.new_game(2, "swap")
    runtime.process_frame(_frame("A1P:0"))
    state = runtime.state()
    assert state["phase"] == "swap-available" and state["to_act"]["player"] == 1
    runtime.process_frame(_frame("swap A1P:1"))
    state = runtime.state()
    assert state["moves"] == ["A1P:0", "swap A1P:1"] and state["phase"] == "play"
    assert state["tokens"] == {"A1P": 1} and state["to_act"]["player"] == 0
    assert [m.notation for m in store.moves(runtime.game_id)] == ["A1P:0", "swap A1P:1"]


def _frame(name: str):
    from device.sources.base import Frame

    return Frame(image=np.zeros((48, 64, 3), np.uint8), seq=99, name=name)


def test_control_actions_validate_their_input(store):
    runtime = make_runtime(store, ScriptedSource(["empty"]))
    for bad in [dict(players=5), dict(players=True), dict(opening="chess"), dict(names=["a"]),
                dict(players=2, names=["a", "x" * 41])]:
        with pytest.raises(ControlError):
            runtime.new_game(**bad)
    with pytest.raises(ControlError, match="colour"):
        runtime.correct("A1P", 7)
    with pytest.raises(ControlError):
        runtime.correct("Z9Z", 0)
    with pytest.raises(ControlError):
        runtime.confirm_hidden(300)
    with pytest.raises(ControlError, match="nothing to accept"):
        runtime.accept()
    with pytest.raises(ControlError):
        runtime.undo()  # no move yet
    assert runtime.state()["moves"] == []


def test_undo_and_new_game(store):
    runtime = make_runtime(store, ScriptedSource(["empty"]))
    runtime.process_frame(_frame("A1P:0"))
    runtime.process_frame(_frame("H8S:1"))
    old = runtime.game_id
    records = runtime.undo()
    assert records[0]["type"] == "undo"
    assert runtime.state()["moves"] == ["A1P:0"]
    assert [m.notation for m in store.moves(old)] == ["A1P:0"]
    client, _ = runtime.subscribe()
    client.get_nowait()
    new = runtime.new_game(3, "none", ["Ann", "Bob", "Cy"])
    assert new != old and runtime.game_id == new
    assert client.get_nowait()["type"] == GAME_STARTED
    state = runtime.state()
    assert (state["players"], state["opening"], state["names"], state["moves"]) == (3, "none", ["Ann", "Bob", "Cy"], [])
    assert store.get_game(old).status == "abandoned"


def test_without_calibration_frames_are_shown_but_not_judged(store):
    runtime = make_runtime(store, ScriptedSource(["empty"]), calibration=None)
    runtime.process_frame(_frame("A1P:0"))
    assert runtime.state()["moves"] == []
    assert runtime.state()["calibration"] == {"loaded": False}
    assert runtime.latest_jpeg().startswith(b"\xff\xd8")
    with pytest.raises(ControlError, match="not calibrated"):
        runtime.accept()
    runtime.set_calibration(calibration())
    assert store.latest_calibration() == {"version": 1, "camera": "x"}
    runtime.process_frame(_frame("A1P:0"))
    assert runtime.state()["moves"] == ["A1P:0"]


def test_pin_check():
    with pytest.raises(ControlError):
        Runtime(ScriptedSource([]), store=None, pin="")  # type: ignore[arg-type]


def test_check_pin(store):
    runtime = make_runtime(store, ScriptedSource(["empty"]))
    assert runtime.check_pin("1234")
    assert not runtime.check_pin("1235") and not runtime.check_pin("") and not runtime.check_pin(None)


def test_annotated_view_draws_tokens_and_the_winning_vector(store):
    cal = calibration()
    runtime = make_runtime(store, ScriptedSource(["empty"]), calibration=cal)
    blank = np.zeros((240, 320, 3), np.uint8)
    from device.sources.base import Frame

    for seq, name in enumerate(WINNING_NAMES):
        runtime.process_frame(Frame(image=blank, seq=seq, name=name))
    annotated = cv2.imdecode(np.frombuffer(runtime.latest_jpeg(), np.uint8), cv2.IMREAD_COLOR)
    assert annotated.shape == (240, 320, 3)
    reds = (annotated[:, :, 2] > 150) & (annotated[:, :, 1] < 80) & (annotated[:, :, 0] < 80)
    assert reds.sum() > 50, "the winning vector is drawn in red"
    assert runtime.latest_jpeg() is runtime.latest_jpeg(), "cached until something changes"
    assert not blank.any(), "the frame itself is never drawn on"


def test_bundle_holds_recent_frames_and_state(store):
    config = Config()
    config.storage.bundle_seconds = 60
    runtime = make_runtime(store, ScriptedSource(["empty"]), config=config)
    runtime.process_frame(_frame("A1P:0"))
    runtime._recent.popleft()  # as if the first move's frame had aged out of the buffer
    for name in ["empty", "H8S:1", "empty"]:
        runtime.process_frame(_frame(name))
    with zipfile.ZipFile(io.BytesIO(runtime.bundle())) as archive:
        assert json.loads(archive.read("manifest.json"))["moves_at_start"] == ["A1P:0"]
        assert json.loads(archive.read("game.json"))["moves"] == ["A1P:0", "H8S:1"]
        names = set(archive.namelist())
        assert {"README.txt", "manifest.json", "calibration.json", "game.json", "state.json"} <= names
        assert sorted(n for n in names if n.startswith("frames/")) == [f"frames/00000{i}.jpg" for i in range(3)]
        assert "boardcam replay --calibration calibration.json" in archive.read("README.txt").decode()


def test_buffers_stay_bounded(store, monkeypatch):
    import itertools

    import device.runtime as runtime_module

    config = Config()
    config.storage.bundle_seconds = 0.002
    runtime = make_runtime(store, ScriptedSource(["empty"]), config=config)
    clock = itertools.count(1_000_000.0, 0.0005)  # frames half a millisecond apart, on any machine
    monkeypatch.setattr(runtime_module.time, "time", lambda: next(clock))
    for _ in range(100):
        runtime.process_frame(_frame("empty"))
    times = [t for t, _ in runtime.recent_frames()]
    assert times[-1] - times[0] <= 0.002 and len(times) == 5
    assert runtime.recent_bytes == sum(len(jpeg) for _, jpeg in runtime.recent_frames())
    client, _ = runtime.subscribe()
    for _ in range(150):  # a client that never reads: 600 records are offered to it
        runtime.process_frame(_frame("A1P:0"))
        runtime.undo()
    assert 0 < client.qsize() <= 256


def test_frame_buffer_is_capped_in_bytes(store, monkeypatch):
    import device.runtime as runtime_module

    runtime = make_runtime(store, ScriptedSource(["empty"]))
    monkeypatch.setattr(runtime_module, "RECENT_MAX_BYTES", 3 * len(runtime_module.encode_jpeg(_frame("x").image, 90)))
    for _ in range(10):
        runtime.process_frame(_frame("empty"))
    assert len(runtime.recent_frames()) == 3


def test_subscribe_is_safe_while_frames_are_processed(store):
    runtime = make_runtime(store, ScriptedSource(["empty", *WINNING_NAMES], fps=30, repeat=5))
    runtime.start()
    stop = threading.Event()
    errors = []

    def churn():
        while not stop.is_set():
            try:
                client, unsubscribe = runtime.subscribe()
                assert client.get_nowait()["type"] == "state"
                unsubscribe()
            except Exception as exc:  # pragma: no cover - reported below
                errors.append(exc)
            # A breath between rounds: Python's locks are not fair, and a loop that takes the
            # runtime's lock back at once can starve the frame thread (the test then times out
            # though nothing is unsafe).
            time.sleep(0.001)

    thread = threading.Thread(target=churn)
    thread.start()
    try:
        # (the churn competes for the runtime's lock: on a busy machine the game takes longer)
        wait_for(lambda: runtime.state()["result"] == "win", timeout=20.0)
    finally:
        stop.set()
        thread.join()
        runtime.stop()
    assert errors == [] and runtime.subscriber_count == 0


def test_overlay_marks_mismatches_tokens_and_hidden_points():
    from device.overlay import Overlay, palette_bgr

    cal = calibration()
    overlay = Overlay(cal, palette=[[255, 0, 0]])
    assert palette_bgr([[255, 0, 0]])[0] == (0, 0, 255) and len(palette_bgr(None)) == 3
    blank = np.zeros((240, 320, 3), np.uint8)
    x, y = overlay.centres[5]
    mismatch = overlay.draw(blank, {}, mismatch=[5])
    ring = mismatch[y - 16:y + 17, x - 16:x + 17]
    assert ((ring[:, :, 2] > 200) & (ring[:, :, 1] < 60)).any(), "red ring"
    assert (ring.min(axis=2) > 200).any(), "white halo"
    token = overlay.draw(blank, {5: 0})
    assert ((token[y - 9:y + 10, x - 9:x + 10, 2] > 200) & (token[y - 9:y + 10, x - 9:x + 10, 1] < 60)).any()
    assert not (token[y - 16:y + 17, x - 16:x + 17].min(axis=2) > 200).any(), "no halo without a mismatch"
    assert Overlay(SimpleNamespace(camera=None)).draw(blank, {5: 0}).tobytes() == blank.tobytes()


def test_overlay_on_the_bandanna_draws_rings_at_their_located_nodes_and_a_closed_gryb():
    from device.overlay import Overlay

    nodes_px = np.stack([np.arange(341) % 20 * 30 + 20, np.arange(341) // 20 * 30 + 20], axis=1)
    cal = SimpleNamespace(nodes_px=nodes_px, image_size=(640, 560), camera=None)
    overlay = Overlay(cal, palette=[[255, 0, 0], [0, 0, 255]])
    blank = np.zeros((560, 640, 3), np.uint8)
    x, y = nodes_px[45]
    ring = overlay.draw(blank, {45: 1})[y - 9:y + 10, x - 9:x + 10]
    assert ((ring[:, :, 0] > 200) & (ring[:, :, 2] < 60)).any(), "a blue ring where node 45 was located"
    square = overlay.draw(blank, {}, lines=[[0, 1, 21, 20]])  # four nodes, drawn as a closed outline
    (x0, y0), (_, y3) = nodes_px[0], nodes_px[20]
    assert square[(y0 + y3) // 2, x0, 2] > 200, "the closing side from the last node back to the first"
