"""The real pipeline on the built-in demo through the runtime: moves, the illegal move, the win,
the new game after the board is cleared, all persisted; and the server shows it."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from device.config import Config
from device.events import GAME_STARTED, ILLEGAL, MOVE, RESTORED, WIN
from device.runtime import Runtime
from device.sources.demo import DemoSource
from device.store import Store

EXPECTED_MOVES = ["A1S:0", "F6Q:1", "B1R:0", "G7R:1", "C1Q:0", "H8S:1", "D1P:0"]


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """One loop of the demo, frame by frame, through a runtime (synchronously: no frame skipped)."""
    store = Store(tmp_path_factory.mktemp("demo"))
    source = DemoSource(fps=0, loop=False)
    config = Config()
    config.storage.bundle_seconds = 3600  # keep every frame of the loop for the bundle test
    runtime = Runtime(source, store=store, calibration=source.calibration(), pin="1234",
                      palette=source.palette, config=config)
    client, _ = runtime.subscribe()
    source.start()
    records = []
    first_game = runtime.game_id
    while (frame := source.read()) is not None:
        records += runtime.process_frame(frame)
    yield runtime, store, records, first_game, client
    store.close()


def test_demo_events_in_order(played):
    _, _, records, first_game, _ = played
    kinds = [r["type"] for r in records]
    assert [r["point"] + f":{r['color']}" for r in records if r["type"] == MOVE] == EXPECTED_MOVES
    assert kinds.index(ILLEGAL) < kinds.index(RESTORED) < kinds.index(WIN) < kinds.index(GAME_STARTED)
    win = next(r for r in records if r["type"] == WIN)
    assert win["color"] == 0 and sorted(win["vectors"][0]) == ["A1S", "B1R", "C1Q", "D1P"]
    assert all(r["game_id"] == first_game for r in records[: kinds.index(GAME_STARTED)])


def test_demo_game_is_stored_and_a_new_one_follows(played):
    runtime, store, records, first_game, _ = played
    finished = store.get_game(first_game)
    assert (finished.status, finished.winner) == ("finished", 0)
    assert [m.notation for m in store.moves(first_game)] == EXPECTED_MOVES
    assert runtime.game_id != first_game and store.running_game().id == runtime.game_id
    assert runtime.state()["moves"] == [] and runtime.state()["winner"] is None
    assert [g["id"] for g in runtime.games()][:2] == [runtime.game_id, first_game]
    alerts = [a["type"] for a in store.alerts(first_game)]
    assert ILLEGAL in alerts and WIN in alerts


def test_demo_state_and_camera_view(played):
    runtime, _, _, _, client = played
    assert client.get_nowait()["type"] == "state"
    state = runtime.state()
    assert state["calibration"]["loaded"] is True and state["calibration"]["image_size"] == [800, 600]
    jpeg = runtime.latest_jpeg()
    assert jpeg.startswith(b"\xff\xd8") and len(jpeg) > 10_000


def test_support_bundle_replays_to_the_same_events(played, tmp_path, capsys):
    from device.cli import main

    runtime, _, records, _, _ = played
    with zipfile.ZipFile(io.BytesIO(runtime.bundle())) as archive:
        archive.extractall(tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["frames"] == DemoSource(fps=0).frame_count and manifest["moves_at_start"] == []
    status = main(["replay", "--calibration", str(tmp_path / "calibration.json"),
                   "--palette", str(tmp_path / "palette.json"), str(tmp_path / "frames"), "--json"])
    assert status == 0
    replayed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]

    def essence(items):
        return [(r["type"], r["frame"], r.get("point")) for r in items]

    assert essence(replayed) == essence(records)


def test_a_demo_restarted_mid_game_starts_a_new_game(tmp_path):
    """The demo's script starts from an empty board: resuming its half-played game would
    turn every frame into an illegal change."""
    store = Store(tmp_path)
    source = DemoSource(fps=0, loop=False)
    runtime = Runtime(source, store=store, calibration=source.calibration(), pin="1234", palette=source.palette)
    source.start()
    while len(runtime.state()["moves"]) < 2:
        runtime.process_frame(source.read())
    half_played = runtime.game_id
    again = Runtime(DemoSource(fps=0, loop=False), store=store, calibration=source.calibration(), pin="1234",
                    palette=source.palette)
    assert again.game_id != half_played
    assert again.state()["moves"] == []
    store.close()
