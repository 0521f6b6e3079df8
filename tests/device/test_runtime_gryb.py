"""The runtime watching the bandanna: GRYB state for the dashboard, rolls, alerts, the store
and resuming after a restart (real pipeline and referee, scripted ring readings)."""

from __future__ import annotations

import pytest

from device import game_view, gryb_view
from device.runtime import ControlError, Runtime
from device.store import Store
from rules.gryb.nodes import node_index
from tests.device.fakes_runtime import ScriptedSource
from tests.device.gryb_fakes import ScriptedBandanna, bandanna_runtime, play_to_a_gryb, show
from tests.device.referee_feed import kinds


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "data")
    yield s
    s.close()


def test_state_of_a_new_bandanna_game(store: Store) -> None:
    runtime = bandanna_runtime(store, ScriptedBandanna())
    state = runtime.state()
    assert state["board"] == "gryb" and state["tokens"] == {}
    assert state["phase"] == "roll" and state["turn"] == 0
    assert state["gryb"]["game"] == "ez-gryb" and state["gryb"]["die"] == "colour"
    assert state["gryb"]["scores"] == [0, 0]
    assert state["to_act"] == {"player": 0, "name": None, "team": None, "colour": 0}
    assert store.latest_game().board == "gryb"


def test_roll_move_illegal_and_restored(store: Store) -> None:
    script = ScriptedBandanna()
    runtime = bandanna_runtime(store, script)
    show(runtime, script, {})
    rolled = runtime.roll("B")
    assert [(r["type"], r["kind"], r["roll"]) for r in rolled] == [("move", "roll", "B")]
    assert runtime.state()["gryb"]["roll"] == "B" and runtime.state()["phase"] == "play"
    placed = show(runtime, script, {"B": 0})
    assert [(r["type"], r["point"]) for r in placed] == [("move", "B")]
    state = runtime.state()
    assert state["tokens"] == {"B": 0} and state["last_move"]["notation"] == "+B"
    wrong = show(runtime, script, {"B": 0, "RR": 1})
    assert kinds(wrong) == ["illegal"]
    state = runtime.state()
    assert state["mismatch"] == ["RR"] and state["seen"] == {"B": 0, "RR": 1}
    assert [a["type"] for a in state["alerts"]] == ["illegal"]
    assert kinds(show(runtime, script, {"B": 0})) == ["restored"]
    assert [m["notation"] for m in runtime.game(runtime.game_id)["moves"]] == ["roll B", "+B"]


def after_first_roll(store: Store, face: str) -> tuple[Runtime, ScriptedBandanna]:
    """A bandanna runtime whose first player rolled ``face`` and put a token on it."""
    script = ScriptedBandanna()
    runtime = bandanna_runtime(store, script)
    show(runtime, script, {})
    runtime.roll(face)
    show(runtime, script, {face: 0})
    return runtime, script


def test_a_gryb_is_announced_and_scored(store: Store) -> None:
    script = ScriptedBandanna()
    runtime = bandanna_runtime(store, script)
    out = play_to_a_gryb(runtime, script)
    assert kinds(out) == ["move", "gryb", "win"]
    state = runtime.state()
    assert state["gryb"]["scores"] == [1, 0] and state["result"] == "win"
    assert state["winner"]["grybs"] == [["G", "R", "Y", "B"]]
    assert [a["type"] for a in state["alerts"]] == ["gryb", "win"]
    assert runtime.games()[0]["winner"] == 0


def test_the_game_resumes_after_a_restart(store: Store) -> None:
    runtime, script = after_first_roll(store, "Y")
    game_id = runtime.game_id
    again = bandanna_runtime(store, ScriptedBandanna())
    assert again.game_id == game_id
    assert again.state()["tokens"] == {"Y": 0} and again.state()["gryb"]["to_move"] == 1
    assert again.game_object.seed == runtime.game_object.seed


def test_a_stacked_board_runtime_does_not_resume_a_bandanna_game(store: Store) -> None:
    runtime = bandanna_runtime(store, ScriptedBandanna(), calibrated=False)
    runtime.roll()
    stacked = Runtime(ScriptedSource(["empty"]), store=store, pin="1234")
    assert stacked.game_id != runtime.game_id and stacked.state()["board"] == "timevectors"
    assert store.latest_game().board == "timevectors"


def test_operator_actions_name_nodes(store: Store) -> None:
    script = ScriptedBandanna()
    runtime = bandanna_runtime(store, script)
    show(runtime, script, {"GG": 1})
    fixed = runtime.correct("gg", None)
    assert fixed[0]["type"] == "corrected" and fixed[0]["point"] == "GG"
    with pytest.raises(ControlError, match="not a node"):
        runtime.correct("A3Q", None)
    with pytest.raises(ControlError, match="no colour choice"):
        runtime.choose_colour(0)


def test_rolls_without_a_calibration(store: Store) -> None:
    runtime = bandanna_runtime(store, ScriptedBandanna(), calibrated=False)
    first = runtime.roll()
    assert first[0]["type"] == "move" and first[0]["kind"] == "roll"
    with pytest.raises(ControlError, match="no roll is due"):
        runtime.roll("G")
    with pytest.raises(ControlError, match="die face"):
        runtime.roll(3)  # type: ignore[arg-type]


def test_gryb_games_are_set_up_for_two_players_only() -> None:
    with pytest.raises(gryb_view.GrybSetupError, match="not a GRYB game"):
        gryb_view.game_factory("chess")
    with pytest.raises(gryb_view.GrybSetupError, match="no option"):
        gryb_view.game_factory("ez-gryb", {"colour": 3})
    make = gryb_view.game_factory("squirrel-race")
    with pytest.raises(gryb_view.GrybSetupError, match="two players"):
        make(3, "none")
    with pytest.raises(gryb_view.GrybSetupError, match="no opening"):
        make(2, "swap")
    assert game_view.board_of(make(2, "none")) == "gryb"
    assert game_view.load_game(make(2, "none").to_dict()).name == "squirrel-race"


def test_a_correction_outlives_a_restart_while_the_camera_reads_the_same(store: Store) -> None:
    runtime, script = after_first_roll(store, "B")
    misread = {"B": 0, "RR": 1}  # a ring the camera sees where there is none
    assert kinds(show(runtime, script, misread)) == ["illegal"]
    assert kinds(runtime.correct("RR", None)) == ["corrected", "restored"]
    assert store.overrides(runtime.game_id) == {node_index("RR"): (1, None)}

    again = bandanna_runtime(store, script)
    assert again.game_id == runtime.game_id
    assert show(again, script, misread) == [], "the corrected misreading raised an alert again"
    assert again.state()["mismatch"] == [] and again.state()["tokens"] == {"B": 0}

    show(again, script, {"B": 0})  # the misreading is gone: the correction no longer holds
    assert store.overrides(again.game_id) == {}
    third = bandanna_runtime(store, script)
    assert kinds(show(third, script, misread)) == ["illegal"]


def test_stored_corrections_for_locations_the_board_lacks_are_ignored(store: Store) -> None:
    script = ScriptedBandanna()
    runtime = bandanna_runtime(store, script)
    store.set_overrides(runtime.game_id, {10_000: (1, None)})
    again = bandanna_runtime(store, script)
    assert again.game_id == runtime.game_id, "a bad record must not lose the game"
    show(again, script, {})
    again.roll("B")
    assert kinds(show(again, script, {"B": 0})) == ["move"]
    assert store.overrides(again.game_id) == {}, "the bad record is replaced by what holds"


def test_an_open_alert_is_not_raised_again_after_a_restart(store: Store) -> None:
    runtime, script = after_first_roll(store, "B")
    wrong = {"B": 0, "RR": 1}
    assert kinds(show(runtime, script, wrong)) == ["illegal"]

    again = bandanna_runtime(store, script)
    phones, _ = again.subscribe()
    assert again.game_id == runtime.game_id and kinds(again.state()["alerts"]) == ["illegal"]
    assert show(again, script, wrong) == [], "the players were told about this change already"
    pushed = [phones.get_nowait()["type"] for _ in range(phones.qsize())]
    assert "illegal" not in pushed
    state = again.state()
    assert state["pending"]["type"] == "illegal" and state["mismatch"] == ["RR"]
    assert [a["type"] for a in store.alerts(again.game_id)] == ["illegal"]
    assert kinds(show(again, script, {"B": 0})) == ["restored"]


def test_a_new_illegal_change_after_a_restart_is_raised(store: Store) -> None:
    runtime, script = after_first_roll(store, "B")
    assert kinds(show(runtime, script, {"B": 0, "RR": 1})) == ["illegal"]
    again = bandanna_runtime(store, script)
    assert kinds(show(again, script, {"B": 0, "RR": 1, "GG": 1})) == ["illegal"]
    assert [a["type"] for a in store.alerts(again.game_id)] == ["illegal", "illegal"]


def test_a_settled_alert_is_raised_again_when_it_comes_back_after_a_restart(store: Store) -> None:
    runtime, script = after_first_roll(store, "B")
    wrong = {"B": 0, "RR": 1}
    assert kinds(show(runtime, script, wrong)) == ["illegal"]
    assert kinds(show(runtime, script, {"B": 0})) == ["restored"]
    again = bandanna_runtime(store, script)
    assert kinds(show(again, script, wrong)) == ["illegal"]
