"""Exports of stored games: pbm move list, JSON, ASCII board."""

from __future__ import annotations

import json

import pytest

from device import game_view
from device.export import ExportFormatError, export_game
from device.store import Store, StoredMove, UnknownGameError
from rules.timevectors import Move, parse_ascii

MOVES = ["A1P:0", "H8S:1", "A2P:0", "H7S:1", "A3P:0", "H6S:1", "A4P:0"]


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path)
    yield s
    s.close()


def play(store: Store, moves: list[str]) -> str:
    game = game_view.new_game()
    game_id = store.create_game(game.to_dict(), names=["Ann", "Bob"])
    stored = []
    for ply, text in enumerate(moves):
        move = Move.parse(text)
        game.push(move)
        stored.append(StoredMove(ply, move.notation(), move.point, move.color, 1_700_000_000.0 + ply))
    outcome = game.outcome()
    store.sync_moves(game_id, stored, game.to_dict(), winner=outcome and outcome.winner, finished=bool(outcome))
    return game_id


def test_pbm_move_list(store):
    game_id = play(store, MOVES)
    lines = export_game(store, game_id, "pbm").splitlines()
    assert lines[0].startswith(f"# boardcam game {game_id}: Time Vectors, 2 players")
    assert lines[1].endswith("result: x (colour 0) wins")
    assert lines[2:] == ["1 x A1P", "2 o H8S", "3 x A2P", "4 o H7S", "5 x A3P", "6 o H6S", "7 x A4P"]


def test_pbm_of_a_running_game(store):
    game_id = play(store, MOVES[:2])
    assert "result: game in progress" in export_game(store, game_id, "pbm")


def test_json_export(store):
    game_id = play(store, MOVES)
    data = json.loads(export_game(store, game_id, "json"))
    assert data["id"] == game_id and data["winner"] == 0 and data["status"] == "finished"
    assert data["names"] == ["Ann", "Bob"]
    assert [m["notation"] for m in data["moves"]] == MOVES
    assert data["moves"][0]["time"] == "2023-11-14T22:13:20.000Z"
    assert game_view.load_game(data["state"]).move_stack[-1] == Move.parse("A4P:0")


def test_ascii_board_parses_back_to_the_position(store):
    game_id = play(store, MOVES)
    text = export_game(store, game_id, "ascii")
    header, board = text.split("\n\n", 1)
    assert "7 moves" in header
    assert parse_ascii(board) == {Move.parse(m).point: Move.parse(m).color for m in MOVES}


def test_bad_requests(store):
    game_id = play(store, [])
    with pytest.raises(ExportFormatError, match="pbm, json, ascii"):
        export_game(store, game_id, "pdf")
    with pytest.raises(UnknownGameError):
        export_game(store, "missing", "pbm")


def test_gryb_game_exports_as_levels_and_names_its_board(store):
    from device import gryb_view
    from rules.gryb.games import GrybMove

    game = gryb_view.game_factory("ez-gryb")()
    game_id = store.create_game(game.to_dict(), board="gryb")
    game.push(GrybMove.roll(0, "R"))
    game.push(GrybMove.place(0, "R"))
    stored = [
        StoredMove(ply, move.notation(), None, move.player, 1_700_000_000.0 + ply)
        for ply, move in enumerate(game.move_stack)
    ]
    store.sync_moves(game_id, stored, game.to_dict(), winner=None, finished=False)
    assert export_game(store, game_id, "pbm").splitlines()[0].startswith(
        f"# boardcam game {game_id}: GRYB bandanna, 2 players"
    )
    board = export_game(store, game_id, "ascii")
    assert "top level:\n  . x\n  . ." in board  # the ring on R, north-east of the head node
    assert json.loads(export_game(store, game_id, "json"))["board"] == "gryb"
