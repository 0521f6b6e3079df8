"""The API over a real runtime watching the bandanna (scripted ring readings): the state, the
roll route, node names in corrections, refusals."""

from __future__ import annotations

import pytest

from tests.device.gryb_fakes import show

PIN = {"X-Boardcam-Pin": "2468"}


@pytest.fixture
def bandanna(bandanna_app: tuple) -> tuple:
    app, runtime, script = bandanna_app
    return app.test_client(), runtime, script


def test_state_names_the_bandanna(bandanna) -> None:
    client, _, _ = bandanna
    state = client.get("/api/state").json
    assert state["board"] == "gryb" and state["tokens"] == {}
    assert state["gryb"]["die"] == "colour" and state["gryb"]["scores"] == [0, 0]


def test_roll_then_a_ring_is_a_move(bandanna) -> None:
    client, runtime, script = bandanna
    show(runtime, script, {})
    response = client.post("/api/control/roll", json={"face": "y"}, headers=PIN)
    assert response.status_code == 200
    assert [e["roll"] for e in response.json["events"]] == ["Y"]
    assert response.json["state"]["gryb"]["roll"] == "Y"
    show(runtime, script, {"Y": 0})
    assert client.get("/api/state").json["tokens"] == {"Y": 0}
    again = client.post("/api/control/roll", json={}, headers=PIN)
    assert again.status_code == 200 and again.json["events"][0]["color"] == 1


def test_roll_refusals(bandanna) -> None:
    client, _, _ = bandanna
    assert client.post("/api/control/roll", json={"face": "Q"}, headers=PIN).status_code == 400
    assert client.post("/api/control/roll", json={"face": 3}, headers=PIN).status_code == 400
    assert client.post("/api/control/roll", json={}).status_code in (401, 403)
    client.post("/api/control/roll", json={"face": "G"}, headers=PIN)
    refused = client.post("/api/control/roll", json={}, headers=PIN)
    assert refused.status_code == 400 and "no roll is due" in refused.json["error"]


def test_corrections_name_nodes(bandanna) -> None:
    client, runtime, script = bandanna
    show(runtime, script, {"RB": 1})
    assert client.get("/api/state").json["mismatch"] == ["RB"]
    fixed = client.post("/api/control/correct", json={"point": "rb", "color": None}, headers=PIN)
    assert fixed.status_code == 200 and fixed.json["state"]["mismatch"] == []
    wrong = client.post("/api/control/correct", json={"point": "A3Q", "color": None}, headers=PIN)
    assert wrong.status_code == 400
    missing = client.post("/api/control/correct", json={"color": None}, headers=PIN)
    assert missing.status_code == 400 and "GGBY" in missing.json["error"]
