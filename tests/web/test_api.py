"""The JSON API through Flask's test client: every route, the PIN/CSRF rules and bad input."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from rules.timevectors.points import parse_point
from tests.web.fake_runtime import FakeRuntime

PIN = {"X-Boardcam-Pin": "2468"}


def login(client, pin: str = "2468") -> str:
    """Open a control session; returns the CSRF token."""
    response = client.post("/api/login", json={"pin": pin})
    assert response.status_code == 200, response.json
    assert response.json["control"] is True
    return response.json["csrf"]


class TestReading:
    def test_state_has_the_documented_keys(self, client, runtime: FakeRuntime):
        runtime.play("A3Q", 0)
        state = client.get("/api/state").json
        for key in ("board", "game_id", "tokens", "turn", "winner", "alerts", "camera", "mismatch"):
            assert key in state
        assert state["board"] == "timevectors"
        assert state["tokens"] == {"A3Q": 0}
        assert state["turn"] == 1
        assert state["camera"]["status"] == "ok"

    def test_state_names_the_dimensions_of_a_winning_vector(self, client, runtime: FakeRuntime):
        runtime.win(0, [["A1P", "B2Q", "C3R", "D4S"], ["A1P", "A1Q", "A1R", "A1S"]])
        winner = client.get("/api/state").json["winner"]
        assert winner["color"] == 0
        assert winner["dimensions"] == ["1st, 2nd and 3rd", "3rd"]

    def test_state_carries_the_runtime_palette(self, client, runtime: FakeRuntime):
        runtime.palette = [(200, 30, 30), (20, 40, 220)]
        assert client.get("/api/state").json["palette"] == [[200, 30, 30], [20, 40, 220]]

    def test_games_list(self, client):
        games = client.get("/api/games").json
        assert [g["id"] for g in games] == ["g2", "g1"]
        assert set(games[0]) == {"id", "started", "moves", "winner"}

    def test_one_game_and_unknown_game(self, client):
        assert [m["point"] for m in client.get("/api/games/g1").json["moves"]] == ["A1P", "B2Q", "C3R"]
        missing = client.get("/api/games/nope")
        assert missing.status_code == 404
        assert missing.json == {"error": "no game 'nope'", "status": 404}

    @pytest.mark.parametrize(("fmt", "mimetype"), [("pbm", "text/plain"), ("ascii", "text/plain"), ("json", "application/json")])
    def test_export_formats(self, client, fmt, mimetype):
        response = client.get(f"/api/games/g1/export?format={fmt}&download=1")
        assert response.status_code == 200
        assert response.mimetype == mimetype
        assert "A1P" in response.get_data(as_text=True)
        assert f'filename="boardcam-g1-{fmt}.' in response.headers["Content-Disposition"]

    def test_export_refuses_unknown_format_and_game(self, client):
        assert client.get("/api/games/g1/export?format=pdf").status_code == 400
        assert client.get("/api/games/zzz/export?format=pbm").status_code == 404

    def test_bundle_is_a_zip(self, client):
        response = client.get("/api/bundle")
        assert response.status_code == 200
        assert response.mimetype == "application/zip"
        assert "attachment" in response.headers["Content-Disposition"]
        names = zipfile.ZipFile(io.BytesIO(response.data)).namelist()
        assert "state.json" in names

    def test_unknown_api_route_is_json_404(self, client):
        response = client.get("/api/nothing-here")
        assert response.status_code == 404
        assert response.json["error"] == "no such API route"

    def test_wrong_method_is_json_405(self, client):
        response = client.get("/api/control/undo")
        assert response.status_code == 405
        assert "GET" in response.json["error"]


CONTROL_ROUTES = (
    ("/api/game/new", {"players": 2}),
    ("/api/control/accept", {}),
    ("/api/control/correct", {"point": "A1P", "color": 0}),
    ("/api/control/confirm", {"point": "A1P"}),
    ("/api/control/undo", {}),
    ("/api/control/choose", {"color": 0}),
    ("/api/calibration", {}),
)


class TestControlNeedsThePin:
    @pytest.mark.parametrize(("url", "body"), CONTROL_ROUTES)
    def test_without_pin_refused_and_nothing_changes(self, client, runtime: FakeRuntime, url, body):
        runtime.play("A1P", 0)
        before = client.get("/api/state").json
        response = client.post(url, json=body)
        assert response.status_code == 401
        assert "PIN" in response.json["error"]
        assert runtime.calls == []
        assert client.get("/api/state").json == before

    @pytest.mark.parametrize(("url", "body"), CONTROL_ROUTES)
    def test_wrong_pin_header_refused(self, client, runtime: FakeRuntime, url, body):
        response = client.post(url, json=body, headers={"X-Boardcam-Pin": "0000"})
        assert response.status_code == 403
        assert response.json["error"] == "wrong PIN"
        assert runtime.calls == []

    def test_session_without_csrf_token_refused(self, client, runtime: FakeRuntime):
        login(client)
        response = client.post("/api/game/new", json={})
        assert response.status_code == 403
        assert "CSRF" in response.json["error"]
        assert runtime.calls == []

    def test_session_with_wrong_csrf_token_refused(self, client, runtime: FakeRuntime):
        login(client)
        response = client.post("/api/game/new", json={}, headers={"X-CSRF-Token": "forged"})
        assert response.status_code == 403
        assert runtime.calls == []

    def test_session_with_csrf_token_allowed(self, client, runtime: FakeRuntime):
        token = login(client)
        response = client.post("/api/game/new", json={"players": 3}, headers={"X-CSRF-Token": token})
        assert response.status_code == 200
        assert runtime.calls == [("new_game", (3, "none", None))]
        assert response.json["state"]["game_id"] == runtime.game_id

    def test_cross_site_origin_refused_even_with_pin(self, client, runtime: FakeRuntime):
        headers = {**PIN, "Origin": "http://evil.example"}
        response = client.post("/api/control/undo", json={}, headers=headers)
        assert response.status_code == 403
        assert "cross-site" in response.json["error"]
        assert runtime.calls == []

    def test_cross_site_referer_and_null_origin_refused(self, client, runtime: FakeRuntime):
        assert client.post("/api/control/undo", headers={**PIN, "Referer": "http://evil.example/x"}).status_code == 403
        assert client.post("/api/control/undo", headers={**PIN, "Origin": "null"}).status_code == 403
        assert runtime.calls == []

    def test_same_origin_allowed(self, client, runtime: FakeRuntime):
        runtime.play("A1P", 0)
        response = client.post("/api/control/undo", headers={**PIN, "Origin": "http://localhost"})
        assert response.status_code == 200
        assert runtime.calls == [("undo", ())]

    def test_cross_site_login_refused(self, client):
        response = client.post("/api/login", json={"pin": "2468"}, headers={"Origin": "http://evil.example"})
        assert response.status_code == 403

    def test_wrong_login_then_throttled(self, client):
        for _ in range(5):
            assert client.post("/api/login", json={"pin": "1111"}).status_code == 403
        blocked = client.post("/api/login", json={"pin": "2468"})
        assert blocked.status_code == 429
        assert client.get("/api/session").json["control"] is False

    def test_login_refuses_non_string_pin(self, client):
        assert client.post("/api/login", json={"pin": 2468}).status_code == 403

    def test_logout_ends_control(self, client, runtime: FakeRuntime):
        token = login(client)
        assert client.post("/api/logout").json["control"] is False
        response = client.post("/api/control/undo", headers={"X-CSRF-Token": token})
        assert response.status_code == 401

    def test_session_info_sets_csrf_cookie(self, client):
        info = client.get("/api/session")
        assert info.json["control"] is False
        cookie = client.get_cookie("boardcam_csrf")
        assert cookie is not None and cookie.value == info.json["csrf"]


class TestControlActions:
    def test_new_game_with_options(self, client, runtime: FakeRuntime):
        body = {"players": 2, "opening": "3meq", "names": ["Ann", " Bob "]}
        response = client.post("/api/game/new", json=body, headers=PIN)
        assert response.status_code == 200
        assert runtime.calls == [("new_game", (2, "3meq", ["Ann", "Bob"]))]

    def test_accept(self, client, runtime: FakeRuntime):
        runtime.illegal(["token removed from C2R"], ["C2R"])
        response = client.post("/api/control/accept", headers=PIN)
        assert response.status_code == 200
        assert response.json["state"]["mismatch"] == []
        assert [e["type"] for e in response.json["events"]] == ["accepted"]

    def test_correct_passes_point_index_and_colour(self, client, runtime: FakeRuntime):
        response = client.post("/api/control/correct", json={"point": "a3q", "color": None}, headers=PIN)
        assert response.status_code == 200
        assert runtime.calls == [("correct", (parse_point("A3Q"), None))]

    def test_confirm_hidden(self, client, runtime: FakeRuntime):
        response = client.post("/api/control/confirm", json={"point": "H8S"}, headers=PIN)
        assert response.status_code == 200
        assert response.json["state"]["tokens"] == {"H8S": 0}

    def test_undo_refusal_is_a_clear_error(self, client, runtime: FakeRuntime):
        response = client.post("/api/control/undo", headers=PIN)
        assert response.status_code == 400
        assert response.json["error"] == "no move to take back"


BAD_BODIES = (
    ("/api/game/new", b"{not json", "not valid JSON"),
    ("/api/game/new", b"[1, 2]", "must be a JSON object"),
    ("/api/game/new", b'{"players": "2"}', "'players' must be an integer"),
    ("/api/game/new", b'{"players": true}', "'players' must be an integer"),
    ("/api/game/new", b'{"players": 5}', "'players' must be one of 2, 3, 4, 6"),
    ("/api/game/new", b'{"players": 99}', "between 2 and 6"),
    ("/api/game/new", b'{"opening": "gambit"}', "'opening' must be one of"),
    ("/api/game/new", b'{"players": 3, "opening": "swap"}', "two-player"),
    ("/api/game/new", b'{"names": "Ann"}', "list of strings"),
    ("/api/game/new", b'{"names": ["Ann", "B", "C"]}', "more than 2"),
    ("/api/game/new", b'{"names": [""]}', "1 to 40 characters"),
    ("/api/control/correct", b'{"color": 0}', "'point' is required"),
    ("/api/control/correct", b'{"point": "Z9Q", "color": 0}', "column 'Z'"),
    ("/api/control/correct", b'{"point": 12, "color": 0}', "written like A3Q"),
    ("/api/control/correct", b'{"point": "A1P"}', "'color' is required"),
    ("/api/control/correct", b'{"point": "A1P", "color": 7}', "between 0 and 2"),
    ("/api/control/confirm", b"{}", "'point' is required"),
)


class TestBadInput:
    @pytest.mark.parametrize(("url", "body", "message"), BAD_BODIES)
    def test_refused_with_message_and_nothing_changes(self, client, runtime: FakeRuntime, url, body, message):
        before = client.get("/api/state").json
        response = client.post(url, data=body, content_type="application/json", headers=PIN)
        assert response.status_code == 400
        assert message in response.json["error"]
        assert runtime.calls == []
        assert client.get("/api/state").json == before

    def test_non_json_content_type(self, client, runtime: FakeRuntime):
        response = client.post("/api/game/new", data="players=2", content_type="text/plain", headers=PIN)
        assert response.status_code == 415
        assert runtime.calls == []

    def test_oversized_body_is_413_and_nothing_changes(self, client, runtime: FakeRuntime):
        body = json.dumps({"players": 2, "names": ["x" * 100_000]})
        response = client.post("/api/game/new", data=body, content_type="application/json", headers=PIN)
        assert response.status_code == 413
        assert response.json["error"] == "request body too large"
        assert runtime.calls == []

    def test_oversized_login_is_413(self, client):
        response = client.post("/api/login", data=b"x" * 70_000, content_type="application/json")
        assert response.status_code == 413


class TestColourChoice:
    """``POST /api/control/choose``: the 3MEQ colour choice."""

    @staticmethod
    def opening_played(runtime: FakeRuntime) -> None:
        runtime.new_game(2, "3meq", ["Ann", "Bob"])
        for point, colour in (("A1P", 0), ("C3R", 1), ("B1P", 0)):
            runtime.play(point, colour)
        runtime.calls.clear()

    def test_state_says_the_choice_is_due_and_whose_it_is(self, client, runtime: FakeRuntime):
        self.opening_played(runtime)
        state = client.get("/api/state").json
        assert (state["phase"], state["turn"], state["legal_colors"]) == ("3meq-choice", None, [])
        assert state["to_act"]["name"] == "Bob"

    def test_choose_updates_the_turn(self, client, runtime: FakeRuntime):
        self.opening_played(runtime)
        response = client.post("/api/control/choose", json={"color": 1}, headers=PIN)
        assert response.status_code == 200
        assert runtime.calls == [("choose_colour", (1,))]
        assert response.json["events"] == [{**response.json["events"][0], "type": "move", "kind": "choose", "color": 1}]
        state = response.json["state"]
        assert (state["phase"], state["turn"]) == ("play", 1)
        assert state["moves"][-1] == "choose 1"

    def test_without_pin_refused_and_nothing_changes(self, client, runtime: FakeRuntime):
        self.opening_played(runtime)
        before = client.get("/api/state").json
        response = client.post("/api/control/choose", json={"color": 0})
        assert response.status_code == 401 and "PIN" in response.json["error"]
        assert runtime.calls == [] and client.get("/api/state").json == before

    @pytest.mark.parametrize(
        ("body", "message"),
        [
            (b"{}", "'color' is required"),
            (b'{"color": 2}', "between 0 and 1"),
            (b'{"color": "red"}', "must be an integer"),
            (b'{"color": true}', "must be an integer"),
            (b"[0]", "must be a JSON object"),
        ],
    )
    def test_malformed_is_400_and_nothing_changes(self, client, runtime: FakeRuntime, body, message):
        self.opening_played(runtime)
        before = client.get("/api/state").json
        response = client.post("/api/control/choose", data=body, content_type="application/json", headers=PIN)
        assert response.status_code == 400 and message in response.json["error"]
        assert runtime.calls == [] and client.get("/api/state").json == before

    def test_no_choice_due_is_a_clear_error_and_nothing_changes(self, client, runtime: FakeRuntime):
        runtime.play("A1P", 0)
        before = client.get("/api/state").json
        response = client.post("/api/control/choose", json={"color": 0}, headers=PIN)
        assert response.status_code == 400
        assert response.json["error"] == "no colour choice is due"
        assert client.get("/api/state").json == before
