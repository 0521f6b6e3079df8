"""The tabletop service: games of every engine played by hand, refereed, announced and kept in SQLite."""

from __future__ import annotations

import queue
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from device.events import EventBus
from device.store import Store
from device.tabletop import (
    KINDS,
    NothingToUndoError,
    Tabletop,
    TabletopError,
    TabletopMoveError,
    UnknownTableError,
)
from rules.gryb.games import GAMES, GrybMove
from rules.gryb.nodes import NODES

TSR_TIME_TRAP = "blue: Tc2 Wa1; white: Ta20 Wb5 Ga30; to move: white"
TIMELINE_LAST_PIECE = "red: A5P; black: A7P; to move: warm"


@pytest.fixture
def tabletop() -> Tabletop:
    table = Tabletop(":memory:")
    yield table
    table.close()


def drain(client: queue.Queue[Any]) -> list[dict[str, Any]]:
    records = []
    while True:
        try:
            records.append(client.get_nowait())
        except queue.Empty:
            return records


def first_playable(tabletop: Tabletop, state: dict[str, Any]) -> dict[str, Any]:
    """Roll if a die is due, then play the first legal move offered at the first movable location."""
    if state.get("die"):
        state = tabletop.roll(state["id"])
    location = state["movable"][0]
    move = tabletop.legal_from(state["id"], location)[0]
    return tabletop.play(state["id"], notation=move["notation"])


class TestKinds:
    def test_every_gryb_game_is_a_kind(self):
        assert set(KINDS) == {"tsr4d", "timeline", *(f"gryb:{name}" for name in GAMES)}

    @pytest.mark.parametrize("kind", KINDS)
    def test_a_new_game_offers_moves_and_a_move_can_be_played_and_undone(self, tabletop, kind):
        state = tabletop.new_game(kind)
        assert state["kind"] == kind
        assert state["result"] == "ongoing"
        assert state["moves"] == []
        assert state["movable"] or state.get("die"), "a new game must offer a move or a roll"
        before = state["board"]
        played = first_playable(tabletop, state)
        assert played["moves"], "the move was not recorded"
        assert played["last_move"]["notation"] == played["moves"][-1]
        undone = tabletop.undo(state["id"])
        assert len(undone["moves"]) == len(played["moves"]) - 1
        if not state.get("die"):
            assert undone["board"] == before

    def test_unknown_kind_and_options_are_refused(self, tabletop):
        with pytest.raises(TabletopError, match="not a game kind"):
            tabletop.new_game("chess")
        with pytest.raises(TabletopError, match="no option"):
            tabletop.new_game("tsr4d", {"colour": "red"})
        with pytest.raises(TabletopError, match="suicide-rule"):
            tabletop.new_game("tsr4d", {"suicide-rule": "sometimes"})
        with pytest.raises(TabletopError, match="crossing-rule"):
            tabletop.new_game("timeline", {"crossing-rule": 3})
        with pytest.raises(TabletopError):
            tabletop.new_game("gryb:ez-gryb", {"pieces-per-player": 0})
        with pytest.raises(TabletopError, match="position"):
            tabletop.new_game("tsr4d", {"position": "blue: Xz9"})
        assert tabletop.games() == []

    def test_unknown_game_id(self, tabletop):
        with pytest.raises(UnknownTableError):
            tabletop.state("nope")
        with pytest.raises(UnknownTableError):
            tabletop.play("nope", notation="end")


class TestTsr4d:
    def test_legal_moves_from_a_piece_and_from_time_warp(self, tabletop):
        state = tabletop.new_game("tsr4d")
        assert state["to_move_name"] == "blue"
        moves = tabletop.legal_from(state["id"], "b3")
        assert {m["notation"] for m in moves} == {"+W(b3)", "W(b3)a5"}
        assert tabletop.legal_from(state["id"], "warp") == []
        tabletop.play(state["id"], origin="b2", target="warp")
        tabletop.play(state["id"], notation="W(b3)a5")
        state = tabletop.play(state["id"], notation="end")
        assert state["to_move_name"] == "white"
        assert state["moves"] == ["+W(b2)", "W(b3)a5", "end"]
        assert state["board"]["markers"]["blue"] == "b2"
        assert state["board"]["warp"]["blue"] == {"kind": "W", "circle": 1}

    def test_the_rules_example_beam_down_and_staying_in_time_warp(self, tabletop):
        example = "blue: Tc2 Wb4 Mb3 R@1; white: Ta20 Wa24; to move: blue"
        state = tabletop.new_game("tsr4d", {"position": example})
        assert "warp" in state["movable"]
        moves = tabletop.legal_from(state["id"], "warp")
        beams = sorted(m["to"] for m in moves if m["type"] == "beam-down")
        # The rules' list minus b4 and c2, where the Warrior and the Time-Lord stand.
        assert beams == ["a3", "a4", "a5", "a6", "a7", "a8", "b1", "b2", "b3", "b5", "c1", "c3", "d1"]
        assert [m["notation"] for m in moves if m["type"] == "stay-in-warp"] == ["R 1->2"]
        state = tabletop.play(state["id"], origin="warp", target="a3")
        assert state["board"]["warp"]["blue"] is None and state["moves"] == ["-Ra3"]

    def test_suicide_capture_is_offered_on_the_victim(self, tabletop):
        state = tabletop.new_game("tsr4d", {"position": "blue: Ta1 Gb4; white: Ta20 Wb5; to move: blue"})
        assert "b5" in state["movable"]
        assert [m["notation"] for m in tabletop.legal_from(state["id"], "b5")] == ["xW(b5)"]
        client, _ = tabletop.subscribe()
        state = tabletop.play(state["id"], notation="xW(b5)")
        assert state["captured"] == [{"player": "white", "kind": "W"}]
        # That was the last Warrior on the board: a draw, announced as one.
        assert state["result"] == "draw" and state["winner"] is None
        assert state["reason"] == "every Warrior of both sides is captured"
        assert [r["type"] for r in drain(client)] == ["move", "draw", "state"]

    def test_illegal_move_gives_the_rule_and_changes_nothing(self, tabletop):
        state = tabletop.new_game("tsr4d")
        client, unsubscribe = tabletop.subscribe()
        with pytest.raises(TabletopMoveError, match="not next to b2") as caught:
            tabletop.play(state["id"], notation="W(b2)a1")
        assert caught.value.reasons == ("a1 is not next to b2: pieces move one space, never diagonally",)
        with pytest.raises(TabletopMoveError, match="move is obligatory"):
            tabletop.play(state["id"], notation="end")
        assert tabletop.state(state["id"])["moves"] == []
        records = drain(client)
        illegal = [r for r in records if r["type"] == "illegal"]
        assert [r["move"] for r in illegal] == ["W(b2)a1", "end"]
        assert illegal[0]["reasons"] == list(caught.value.reasons)
        assert illegal[0]["game_id"] == state["id"]
        unsubscribe()

    def test_unreadable_move_is_a_notation_error_not_an_illegal_move(self, tabletop):
        state = tabletop.new_game("tsr4d")
        with pytest.raises(TabletopError, match="not a 4D action") as caught:
            tabletop.play(state["id"], notation="fly to the moon")
        assert not isinstance(caught.value, TabletopMoveError)
        with pytest.raises(TabletopError):
            tabletop.play(state["id"], origin="z9", target="a1")
        with pytest.raises(TabletopError, match="no blue piece"):
            tabletop.play(state["id"], origin="a24", target="a25")
        with pytest.raises(TabletopError):
            tabletop.legal_from(state["id"], "q1")

    def test_warriors_time_trap_wins(self, tabletop):
        state = tabletop.new_game("tsr4d", {"position": TSR_TIME_TRAP})
        client, _ = tabletop.subscribe()
        offered = {m["notation"] for m in tabletop.legal_from(state["id"], "b5")}
        assert "W(b5)b4xT(c2)" in offered
        state = tabletop.play(state["id"], notation="W(b5)b4xT(c2)")
        assert state["result"] == "win"
        assert state["winner"]["name"] == "white"
        assert state["reason"] == "white captured the blue Time-Lord"
        assert state["movable"] == []
        types = [r["type"] for r in drain(client)]
        assert types == ["move", "win", "state"]
        with pytest.raises(TabletopMoveError, match="game is over"):
            tabletop.play(state["id"], notation="T(a20)a19")


class TestTimeline:
    def test_moves_by_pair_and_by_notation_with_capture(self, tabletop):
        state = tabletop.new_game("timeline", {"position": TIMELINE_LAST_PIECE})
        offered = {m["to"]: m for m in tabletop.legal_from(state["id"], "A5P")}
        assert offered["A7P"]["captures"] == "black"
        state = tabletop.play(state["id"], origin="a5p", target="a7p")
        assert state["moves"] == ["A5P-A7Pxblack"]
        assert state["result"] == "win" and state["winner"]["name"] == "warm"

    def test_illegal_rook_move(self, tabletop):
        state = tabletop.new_game("timeline")
        with pytest.raises(TabletopMoveError, match="rook moves one to three steps"):
            tabletop.play(state["id"], origin="A5P", target="B6P")
        with pytest.raises(TabletopMoveError, match="no warm piece"):
            tabletop.play(state["id"], notation="A4S-A3S")
        assert tabletop.legal_from(state["id"], "A4S") == []  # a cool piece: not warm's turn


class TestGryb:
    def test_roll_then_place_on_the_colour_rolled(self, tabletop):
        state = tabletop.new_game("gryb:ez-gryb", {"seed": 3})
        assert state["die"] == "colour" and state["movable"] == []
        with pytest.raises(TabletopMoveError, match="roll the colour die first"):
            tabletop.play(state["id"], notation="+G")
        state = tabletop.roll(state["id"])
        face = state["last_roll"]["value"]
        assert state["movable"] == [face]
        wrong = next(c for c in "GRYB" if c != face)
        with pytest.raises(TabletopMoveError, match="die shows"):
            tabletop.play(state["id"], notation=f"+{wrong}")
        state = tabletop.play(state["id"], origin="hand", target=face)
        assert state["board"]["tokens"] == {face: 0}
        assert state["to_move"] == 1

    def test_a_gryb_in_a_game_that_goes_on_is_announced_with_the_move(self, tabletop):
        state = tabletop.new_game("gryb:25-mens-gryb")
        client, _ = tabletop.subscribe()
        for move in ("+G", "+GG", "+R", "+GR", "+Y", "+GY", "+B"):
            state = tabletop.play(state["id"], notation=move)
        moves = [r for r in drain(client) if r["type"] == "move"]
        assert [r.get("scored") for r in moves[:-1]] == [None] * 6
        assert moves[-1]["scored"] == [
            {"quadrangle": "0", "nodes": ["G", "R", "Y", "B"], "colour": 0, "level": 1, "points": 1, "pieces": 1}
        ]
        # The GRYB lets player 1 take one of player 2's rings off: tapping it offers exactly that.
        assert state["result"] == "ongoing" and state["to_move"] == 0
        assert state["movable"] == ["GG", "GR", "GY"]
        assert [m["notation"] for m in tabletop.legal_from(state["id"], "GR")] == ["x[GR]"]

    def test_a_physical_die_face_can_be_entered(self, tabletop):
        state = tabletop.new_game("gryb:ez-gryb")
        state = tabletop.roll(state["id"], "Y")
        assert state["moves"] == ["roll Y"] and state["movable"] == ["Y"]
        with pytest.raises(TabletopMoveError, match="no die is to be rolled"):
            tabletop.roll(state["id"])

    def test_dice_are_reproducible_from_the_seed(self, tabletop):
        faces = []
        for _ in range(2):
            state = tabletop.new_game("gryb:blobs", {"seed": 42})
            faces.append([tabletop.roll(state["id"])["last_roll"]["value"]])
        assert faces[0] == faces[1]

    def test_games_without_dice_refuse_a_roll(self, tabletop):
        state = tabletop.new_game("tsr4d")
        with pytest.raises(TabletopError, match="has no dice"):
            tabletop.roll(state["id"])

    def test_ring_move_and_resignation(self, tabletop):
        state = tabletop.new_game("gryb:drangles")
        assert state["movable"] == ["0"]
        state = tabletop.play(state["id"], notation="+0")
        moves = tabletop.legal_from(state["id"], "0")
        assert moves and all(m["from"] == ["0"] for m in moves)
        state = tabletop.play(state["id"], origin="0", target=moves[0]["to"][0])
        assert state["board"]["tokens"] == {moves[0]["to"][0]: 0}
        assert state["to_move"] == 1  # Drangles: two moves a turn, both played
        state = tabletop.play(state["id"], notation="resign")
        assert state["result"] == "win" and state["winner"]["name"] == "player 1"

    @given(
        st.sampled_from(NODES),
        st.lists(st.sampled_from(NODES), min_size=1, max_size=3, unique=True),
        st.integers(0, 1),
    )
    @settings(max_examples=80, deadline=None)
    def test_gryb_notation_reads_back(self, node, nodes, player):
        targets = tuple(reversed(nodes))
        for move in (
            GrybMove.roll(player, node),
            GrybMove.place(player, *nodes),
            GrybMove.remove(player, *nodes),
            GrybMove.step(player, node, nodes[0]),
            GrybMove("move", player, tuple(nodes), targets),
            GrybMove("resign", player),
        ):
            assert GrybMove.from_notation(move.notation(), player) == move

    @pytest.mark.parametrize("text", ["", "G-", "[G, R]-[GG]", "+Q", "roll", "up G"])
    def test_bad_gryb_notation(self, text):
        with pytest.raises(ValueError):
            GrybMove.from_notation(text, 0)


class TestPersistence:
    def test_games_survive_reopening_the_database(self, tmp_path: Path):
        store = Store(tmp_path)
        first = Tabletop(store.path)
        tsr = first.new_game("tsr4d", {"suicide-rule": "arrived"})
        first.play(tsr["id"], notation="+W(b2)")
        first.play(tsr["id"], notation="W(b3)a5")
        first.play(tsr["id"], notation="end")
        timeline = first.new_game("timeline", {"position": TIMELINE_LAST_PIECE})
        gryb = first.new_game("gryb:ez-gryb", {"seed": 9})
        gryb_state = first_playable(first, first.roll(gryb["id"]) and first.state(gryb["id"]))
        expected = {gid: first.state(gid) for gid in (tsr["id"], timeline["id"], gryb["id"])}
        first.close()
        store.close()

        again = Tabletop(Store(tmp_path).path)
        assert [g["id"] for g in again.games()] == [gryb["id"], timeline["id"], tsr["id"]]
        assert [g["id"] for g in again.games("tsr4d")] == [tsr["id"]]
        for gid, state in expected.items():
            restored = again.state(gid)
            for key in ("kind", "board", "moves", "to_move", "result", "movable", "created"):
                assert restored[key] == state[key], (gid, key)
        assert again.state(tsr["id"])["suicide_rule"] == "arrived"
        assert gryb_state["moves"] == again.state(gryb["id"])["moves"]
        again.undo(tsr["id"])
        again.close()
        assert Tabletop(tmp_path / "boardcam.sqlite3").state(tsr["id"])["moves"] == ["+W(b2)", "W(b3)a5"]

    def test_the_store_and_the_tabletop_share_one_file(self, tmp_path: Path):
        store = Store(tmp_path)
        table = Tabletop(store.path)
        table.new_game("timeline")
        assert store.list_games() == []  # the camera's games are not touched
        assert store.check() == "ok"
        table.close()
        store.close()

    def test_a_file_that_is_not_a_database(self, tmp_path: Path):
        path = tmp_path / "junk.sqlite3"
        path.write_bytes(b"not a database at all" * 100)
        with pytest.raises(TabletopError, match="not a usable database"):
            Tabletop(path)

    def test_nothing_to_undo(self, tabletop):
        state = tabletop.new_game("timeline")
        with pytest.raises(NothingToUndoError):
            tabletop.undo(state["id"])


class TestEvents:
    def test_events_reach_the_bus_in_order(self, tabletop):
        bus = EventBus("test")
        got: list[Any] = []
        done = threading.Event()
        bus.subscribe(lambda e: (got.append(e.to_record()), e.type == "win" and done.set()))
        table = Tabletop(":memory:", bus=bus)
        state = table.new_game("tsr4d", {"position": TSR_TIME_TRAP})
        with pytest.raises(TabletopMoveError):
            table.play(state["id"], notation="W(b5)a1")
        table.play(state["id"], notation="W(b5)b4xT(c2)")
        assert done.wait(5)
        bus.close()
        assert [r["type"] for r in got] == ["game_started", "illegal", "move", "win"]
        move, win = got[2], got[3]
        assert move["notation"] == "W(b5)b4xT(c2)" and move["point"] == "b4" and move["color"] == 1
        assert win["winner"] == "white" and win["color"] == 1
        assert all(r["game_id"] == state["id"] for r in got)
        table.close()

    def test_undo_is_announced_and_close_ends_subscriptions(self):
        table = Tabletop(":memory:")
        state = table.new_game("timeline")
        client, _ = table.subscribe()
        table.play(state["id"], notation="A5P-A6P")
        table.undo(state["id"])
        records = drain(client)
        assert [r["type"] for r in records] == ["move", "state", "undo", "state"]
        assert records[2]["notation"] == "A5P-A6P"
        assert records[3]["state"]["moves"] == []
        table.close()
        assert client.get_nowait() is None


class TestProperties:
    """Random games played through the service: undo restores, and a re-opened file shows the same game."""

    @given(kind=st.sampled_from(["tsr4d", "timeline", "gryb:ez-gryb", "gryb:drangles", "gryb:blobs"]),
           picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=12))
    @settings(max_examples=20, deadline=None)
    def test_random_play_then_undo_and_reopen(self, tmp_path_factory, kind, picks):
        path = tmp_path_factory.mktemp("db") / "boardcam.sqlite3"
        table = Tabletop(path)
        start = table.new_game(kind, {"seed": 7} if kind.startswith("gryb:") else {})
        gid = start["id"]
        states = [start]
        for pick in picks:
            state = states[-1]
            if state["result"] != "ongoing":
                break
            if state.get("die"):
                states.append(table.roll(gid))
                continue
            offered = [m for loc in state["movable"] for m in table.legal_from(gid, loc)] + state["actions"]
            if not offered:
                break
            states.append(table.play(gid, notation=offered[pick % len(offered)]["notation"]))
        table.close()

        reopened = Tabletop(path)
        again = reopened.state(gid)
        for key in ("board", "moves", "to_move", "result", "movable"):
            assert again[key] == states[-1][key], key
        for earlier in reversed(states[:-1]):
            undone = reopened.undo(gid)
            for key in ("board", "moves", "to_move", "movable"):
                assert undone[key] == earlier[key], key
        reopened.close()
