"""The API on the real ``device.runtime.Runtime`` (demo source, not started): the shapes agree."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from device.config import Config
from device.settings import build_runtime
from web import create_app

PIN = {"X-Boardcam-Pin": "2468"}


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    directory: Path = tmp_path_factory.mktemp("data")
    config = Config()
    config.camera.source = "demo"
    config.storage.data_dir = str(directory)
    config.server.pin = "2468"
    runtime, _ = build_runtime(config)
    app = create_app({"TESTING": True, "BOARDCAM_CALIBRATION_PATH": str(directory / "c.json")}, runtime=runtime)
    yield app.test_client(), runtime
    runtime.stop()
    runtime.store.close()


def test_state(real):
    client, runtime = real
    state = client.get("/api/state").json
    assert state["board"] == "timevectors"
    assert state["game_id"] == runtime.game_id
    assert state["tokens"] == {} and state["turn"] == 0 and state["winner"] is None
    assert state["camera"]["status"] in ("starting", "demo")
    assert state["calibration"]["loaded"] is True
    assert len(state["palette"]) == 3 and all(len(c) == 3 for c in state["palette"])


def test_games_game_and_exports(real):
    client, runtime = real
    games = client.get("/api/games").json
    assert games[0]["id"] == runtime.game_id
    game = client.get(f"/api/games/{runtime.game_id}").json
    assert game["moves"] == []
    assert client.get("/api/games/no-such-game").status_code == 404
    for fmt in ("pbm", "json", "ascii"):
        assert client.get(f"/api/games/{runtime.game_id}/export?format={fmt}").status_code == 200
    assert client.get(f"/api/games/{runtime.game_id}/export?format=xml").status_code == 400


def test_control_refusals_and_new_game(real):
    client, runtime = real
    response = client.post("/api/control/undo", headers=PIN)
    assert response.status_code == 400
    assert response.json["error"]
    before = runtime.game_id
    response = client.post("/api/game/new", json={"players": 3, "names": ["A", "B"]}, headers=PIN)
    assert response.status_code == 400  # the runtime wants a name per player
    assert runtime.game_id == before
    response = client.post("/api/game/new", json={"players": 2, "opening": "swap", "names": ["Ann", "Bob"]}, headers=PIN)
    assert response.status_code == 200
    assert response.json["state"]["game_id"] == runtime.game_id != before
    assert response.json["state"]["names"] == ["Ann", "Bob"]


def test_wizard_capture_before_any_frame(real):
    client, _ = real
    response = client.post("/api/wizard/capture")
    assert response.status_code == 503
    assert "no camera frame yet" in response.json["error"]


def test_bundle(real):
    client, _ = real
    response = client.get("/api/bundle")
    assert response.status_code == 200
    assert zipfile.ZipFile(io.BytesIO(response.data)).namelist()


def test_colour_choice_refused_until_due(real):
    client, _ = real
    response = client.post("/api/game/new", json={"players": 2, "opening": "3meq"}, headers=PIN)
    assert response.json["state"]["phase"] == "3meq-placing"
    before = client.get("/api/state").json["moves"]
    response = client.post("/api/control/choose", json={"color": 0}, headers=PIN)
    assert response.status_code == 400
    assert response.json["error"] == "no colour choice is due"
    assert client.get("/api/state").json["moves"] == before
