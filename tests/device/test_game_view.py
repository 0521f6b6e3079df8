"""The game as the dashboard sees it: the phase of the openings and who acts next."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from device import game_view
from rules.timevectors import GameConfig, Move, TimeVectorsGame


def played(config: GameConfig, *notations: str) -> TimeVectorsGame:
    game = TimeVectorsGame(config)
    for notation in notations:
        game.push(Move.parse(notation))
    return game


@pytest.mark.parametrize(
    ("opening", "moves", "phase", "legal"),
    [
        ("none", (), "play", [0]),
        ("swap", (), "play", [0]),
        ("swap", ("A1P:0",), "swap-available", [1]),
        ("swap", ("A1P:0", "swap A1P:1"), "play", [0]),
        ("swap", ("A1P:0", "B1P:1"), "play", [0]),
        ("3meq", (), "3meq-placing", [0, 1]),
        ("3meq", ("A1P:1", "B1P:1"), "3meq-placing", [0]),
        ("3meq", ("A1P:1", "B1P:0", "C1P:1"), "3meq-choice", []),
        ("3meq", ("A1P:1", "B1P:0", "C1P:1", "choose 0"), "play", [0]),
        ("none", ("A1P:0", "A8S:1", "B1P:0", "B8S:1", "C1P:0", "C8S:1", "D1P:0"), "over", []),
    ],
)
def test_phase_and_legal_colours(opening, moves, phase, legal) -> None:
    state = game_view.describe(played(GameConfig(opening=opening), *moves))
    assert (state["phase"], state["legal_colors"]) == (phase, legal)


def test_who_acts_through_the_3meq_opening() -> None:
    names = ["Ann", "Bob"]
    game = played(GameConfig(opening="3meq"), "A1P:1", "B1P:0")
    assert game_view.player_to_act(game, names) == {"player": 0, "name": "Ann", "team": None, "colour": None}
    game.push(Move.parse("C1P:1"))
    assert game_view.player_to_act(game, names) == {"player": 1, "name": "Bob", "team": None, "colour": None}
    game.push(Move.parse("choose 1"))  # Bob takes the pair: Ann plays the single colour 0 and moves
    assert game_view.player_to_act(game, names) == {"player": 0, "name": "Ann", "team": None, "colour": 0}
    assert game_view.describe(game)["player_colors"] == [0, 1]


def test_nobody_acts_once_the_game_is_over() -> None:
    game = played(GameConfig(), "A1P:0", "A8S:1", "B1P:0", "B8S:1", "C1P:0", "C8S:1", "D1P:0")
    assert game_view.player_to_act(game, ["Ann", "Bob"]) is None


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([2, 3, 4, 6]), st.integers(0, 11))
def test_the_seat_to_act_plays_the_colour_to_move(players: int, plies: int) -> None:
    """In any game without an opening the seat to act rotates and its team plays the turn's colour."""
    game = TimeVectorsGame(GameConfig(players=players, teams=players in (4, 6)))
    for ply in range(plies):
        game.push(Move(ply * 17 % 256, game.turn_color()))  # points far apart: no vector
    act = game_view.player_to_act(game, [f"P{i}" for i in range(players)])
    assert act is not None
    assert act["player"] == plies % players and act["name"] == f"P{plies % players}"
    assert act["colour"] == game.turn_color() == game.player_colors[act["player"]]
    assert act["team"] == (act["player"] % 2 if players in (4, 6) else None)
