"""The hand-played games' pages and JSON API through Flask's test client: PIN, bad input, moves."""

from __future__ import annotations

import json

import pytest
from flask import Flask

from web.tabletop import init_app

PIN = {"X-Boardcam-Pin": "2468"}
TSR_TIME_TRAP = "blue: Tc2 Wa1; white: Ta20 Wb5 Ga30; to move: white"


@pytest.fixture
def tabletop_app(app: Flask) -> Flask:
    """The app with the tabletop blueprint (registered by the factory once it is wired in)."""
    if "tabletop" not in app.blueprints:
        init_app(app)
    return app


@pytest.fixture
def tt(tabletop_app: Flask):
    return tabletop_app.test_client()


def new_game(client, kind: str, **options) -> dict:
    response = client.post("/api/tabletop/games", json={"kind": kind, "options": options}, headers=PIN)
    assert response.status_code == 201, response.json
    return response.json


class TestPages:
    @pytest.mark.parametrize("game", ["tsr4d", "timeline", "gryb"])
    def test_each_game_has_a_page(self, tt, game):
        response = tt.get(f"/play/{game}")
        assert response.status_code == 200
        assert f'data-game="{game}"' in response.text
        assert f"js/tabletop_{game}.js" in response.text

    def test_gryb_page_offers_every_game(self, tt):
        text = tt.get("/play/gryb").text
        for title in ("EZ GRYB", "Squirrel Race", "25 Men&#39;s GRYB", "The Borg"):
            assert title in text

    def test_index_lists_the_three_games_with_their_latest(self, tt):
        new_game(tt, "gryb:blobs")
        text = tt.get("/play").text
        for game in ("tsr4d", "timeline", "gryb"):
            assert f'data-game-link="{game}"' in text
        assert "Last game: 0 moves, running" in text
        assert text.count("No game yet") == 2
        assert text.count("data-recent=") == 1 and "Blobs" in text

    def test_unknown_game_page(self, tt):
        assert tt.get("/play/chess").status_code == 404


class TestReading:
    def test_kinds(self, tt):
        kinds = {k["kind"]: k["title"] for k in tt.get("/api/tabletop/kinds").json}
        assert kinds["tsr4d"] == 'TSR "4D"' and kinds["timeline"] == "Timeline"
        assert kinds["gryb:ez-gryb"] == "EZ GRYB"

    def test_games_list_and_state(self, tt):
        assert tt.get("/api/tabletop/games").json == []
        state = new_game(tt, "timeline")
        listed = tt.get("/api/tabletop/games?kind=timeline").json
        assert [g["id"] for g in listed] == [state["id"]]
        assert tt.get("/api/tabletop/games?kind=tsr4d").json == []
        assert tt.get("/api/tabletop/games?kind=chess").status_code == 400
        shown = tt.get(f"/api/tabletop/games/{state['id']}").json
        assert shown["board"]["game"] == "timeline" and shown["to_move_name"] == "warm"

    def test_legal_moves_from_a_location(self, tt):
        state = new_game(tt, "tsr4d")
        answer = tt.get(f"/api/tabletop/games/{state['id']}/legal?from=b3").json
        assert answer["from"] == "b3"
        assert {m["notation"] for m in answer["moves"]} == {"+W(b3)", "W(b3)a5"}
        bad = tt.get(f"/api/tabletop/games/{state['id']}/legal?from=q9")
        assert bad.status_code == 400 and "q9" in bad.json["error"]
        assert tt.get(f"/api/tabletop/games/{state['id']}/legal").status_code == 400
        assert tt.get("/api/tabletop/games/nope/legal?from=b3").status_code == 404

    def test_unknown_game(self, tt):
        response = tt.get("/api/tabletop/games/nope")
        assert response.status_code == 404 and response.json["status"] == 404


class TestControl:
    @pytest.mark.parametrize("route", ["games", "games/ID/move", "games/ID/undo", "games/ID/roll"])
    def test_control_without_pin_is_refused_and_nothing_changes(self, tt, route):
        state = new_game(tt, "gryb:ez-gryb")
        url = "/api/tabletop/" + route.replace("ID", state["id"])
        body = {"kind": "timeline"} if route == "games" else {"notation": "roll G"}
        response = tt.post(url, json=body)
        assert response.status_code == 401 and "PIN" in response.json["error"]
        wrong = tt.post(url, json=body, headers={"X-Boardcam-Pin": "0000"})
        assert wrong.status_code == 403 and wrong.json["error"] == "wrong PIN"
        assert len(tt.get("/api/tabletop/games").json) == 1
        assert tt.get(f"/api/tabletop/games/{state['id']}").json["moves"] == []

    def test_cross_site_control_is_refused(self, tt):
        response = tt.post("/api/tabletop/games", json={"kind": "tsr4d"},
                           headers={**PIN, "Origin": "http://evil.example"})
        assert response.status_code == 403
        assert tt.get("/api/tabletop/games").json == []

    def test_session_login_with_csrf_token_may_play(self, tt):
        state = new_game(tt, "timeline")
        token = tt.post("/api/login", json={"pin": "2468"}).json["csrf"]
        url = f"/api/tabletop/games/{state['id']}/move"
        assert tt.post(url, json={"notation": "A5P-A6P"}).status_code == 403  # no CSRF header
        played = tt.post(url, json={"notation": "A5P-A6P"}, headers={"X-CSRF-Token": token})
        assert played.status_code == 200 and played.json["moves"] == ["A5P-A6P"]

    def test_move_by_notation_and_by_pair_then_undo(self, tt):
        state = new_game(tt, "tsr4d")
        url = f"/api/tabletop/games/{state['id']}"
        assert tt.post(url + "/move", json={"from": "b2", "to": "warp"}, headers=PIN).status_code == 200
        state = tt.post(url + "/move", json={"notation": "W(b3)a5"}, headers=PIN).json
        assert state["moves"] == ["+W(b2)", "W(b3)a5"]
        assert [a["notation"] for a in state["actions"]] == ["end"]
        state = tt.post(url + "/undo", headers=PIN).json
        assert state["moves"] == ["+W(b2)"]

    def test_illegal_move_is_409_with_the_reason(self, tt):
        state = new_game(tt, "tsr4d")
        response = tt.post(f"/api/tabletop/games/{state['id']}/move", json={"from": "b2", "to": "a1"}, headers=PIN)
        assert response.status_code == 409
        assert response.json["reasons"] == ["a1 is not next to b2: pieces move one space, never diagonally"]
        assert response.json["error"] == response.json["reasons"][0]
        assert tt.get(f"/api/tabletop/games/{state['id']}").json["moves"] == []

    def test_win_state(self, tt):
        state = new_game(tt, "tsr4d", position=TSR_TIME_TRAP)
        won = tt.post(f"/api/tabletop/games/{state['id']}/move", json={"notation": "W(b5)b4xT(c2)"}, headers=PIN).json
        assert won["result"] == "win" and won["winner"]["name"] == "white"

    def test_gryb_roll_and_face(self, tt):
        state = new_game(tt, "gryb:ez-gryb", seed=5)
        url = f"/api/tabletop/games/{state['id']}"
        rolled = tt.post(url + "/roll", headers=PIN).json
        assert rolled["last_roll"]["value"] in "GRYB" and rolled["movable"] == [rolled["last_roll"]["value"]]
        again = tt.post(url + "/roll", json={}, headers=PIN)
        assert again.status_code == 409 and again.json["reasons"] == ["no die is to be rolled now"]
        tt.post(url + "/undo", headers=PIN)
        assert tt.post(url + "/roll", json={"value": "B"}, headers=PIN).json["movable"] == ["B"]

    @pytest.mark.parametrize(
        "route, body, status, message",
        [
            ("games", {"kind": 3}, 400, "'kind' is required"),
            ("games", {"kind": "chess"}, 400, "not a game kind"),
            ("games", {"kind": "tsr4d", "options": []}, 400, "'options' must be a JSON object"),
            ("games", {"kind": "tsr4d", "options": {"position": "nonsense"}}, 400, "position"),
            ("move", {}, 400, "send 'notation'"),
            ("move", {"notation": 7}, 400, "'notation' must be"),
            ("move", {"notation": "x" * 300}, 400, "'notation' must be"),
            ("move", {"from": {"a": 1}, "to": "b4"}, 400, "'from' must be"),
            ("move", {"notation": "jump!"}, 400, "not a 4D action"),
            ("roll", {"value": 12}, 400, "'value' must be"),
            ("roll", {}, 400, "has no dice"),
        ],
    )
    def test_malformed_input_is_a_clear_400(self, tt, route, body, status, message):
        state = new_game(tt, "tsr4d")
        url = "/api/tabletop/games" if route == "games" else f"/api/tabletop/games/{state['id']}/{route}"
        response = tt.post(url, json=body, headers=PIN)
        assert response.status_code == status, response.json
        assert message in response.json["error"]
        assert tt.get(f"/api/tabletop/games/{state['id']}").json["moves"] == []
        assert len(tt.get("/api/tabletop/games").json) == 1

    def test_body_that_is_not_json(self, tt):
        response = tt.post("/api/tabletop/games", data="kind=tsr4d", headers={**PIN, "Content-Type": "text/plain"})
        assert response.status_code == 415
        response = tt.post("/api/tabletop/games", data="{nope", headers={**PIN, "Content-Type": "application/json"})
        assert response.status_code == 400 and response.json["error"] == "the body is not valid JSON"

    def test_nothing_to_undo_is_409(self, tt):
        state = new_game(tt, "timeline")
        response = tt.post(f"/api/tabletop/games/{state['id']}/undo", headers=PIN)
        assert response.status_code == 409 and response.json["error"] == "no move to take back"


def test_events_stream_sends_each_record_then_the_state(tabletop_app: Flask, tt):
    """The SSE route reuses the dashboard's stream: records as messages, states as ``event: state``."""
    from web.tabletop import EXTRA_KEY

    service = tabletop_app.extensions["boardcam"].extras[EXTRA_KEY]
    state = new_game(tt, "timeline")
    response = tt.get("/api/tabletop/events")
    chunks = response.response  # the streaming generator
    assert next(chunks).startswith(b"retry:")
    service.play(state["id"], notation="A5P-A6P")
    move = next(chunks).decode()
    assert move.startswith("data: ")
    assert json.loads(move[6:])["notation"] == "A5P-A6P"
    state_message = next(chunks).decode()
    assert state_message.startswith("event: state\n")
    assert json.loads(state_message.split("data: ", 1)[1])["moves"] == ["A5P-A6P"]
    response.close()


def test_games_are_kept_in_the_runtimes_database_and_reach_its_event_bus(tmp_path):
    """With a real store on the runtime the games outlive the app; its event bus hears every event."""
    import threading
    from types import SimpleNamespace

    from device.events import EventBus
    from device.store import Store
    from device.tabletop import Tabletop
    from web import create_app
    from web.tabletop import EXTRA_KEY

    store = Store(tmp_path)
    bus = EventBus("test")
    heard: list[str] = []
    won = threading.Event()
    bus.subscribe(lambda event: (heard.append(event.type), event.type == "win" and won.set()))
    stand_in = SimpleNamespace(store=store, event_bus=bus, check_pin=lambda pin: pin == "2468")
    app = create_app({"TESTING": True}, runtime=stand_in)
    if "tabletop" not in app.blueprints:
        init_app(app)
    service = app.extensions["boardcam"].extras[EXTRA_KEY]
    assert service.path == str(store.path)
    client = app.test_client()
    state = new_game(client, "tsr4d", position=TSR_TIME_TRAP)
    client.post(f"/api/tabletop/games/{state['id']}/move", json={"notation": "W(b5)b4xT(c2)"}, headers=PIN)
    assert won.wait(5)
    assert heard == ["game_started", "move", "win"]
    service.close()
    bus.close()
    kept = Tabletop(store.path).state(state["id"])
    assert kept["result"] == "win" and kept["moves"] == ["W(b5)b4xT(c2)"]
    store.close()
