"""Game flow: turns, teams, win, draw, openings, undo/redo, persistence and status flags."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import GameConfigError, IllegalMoveError, NotationError, RecordError
from rules.timevectors import GameConfig, Move, Status, TimeVectorsGame, position_status
from rules.timevectors.moves import CHOOSE, SWAP
from rules.timevectors.points import POINTS, parse_point, point_name


def P(name: str) -> int:
    return parse_point(name)


def play(game: TimeVectorsGame, *names: str) -> None:
    """Each name placed by whoever is to move, with their colour."""
    for name in names:
        game.push(Move(P(name), game.turn_color()))


# -- configuration and turn order -----------------------------------------------------


@pytest.mark.parametrize(
    ("config", "colors", "players"),
    [
        (GameConfig(), [0, 1, 0, 1, 0, 1], [0, 1, 0, 1, 0, 1]),
        (GameConfig(players=3), [0, 1, 2, 0, 1, 2], [0, 1, 2, 0, 1, 2]),
        # team 1 player A, team 2 player A, team 1 player B, team 2 player B, repeat
        (GameConfig(players=4, teams=True), [0, 1, 0, 1, 0, 1], [0, 1, 2, 3, 0, 1]),
        (GameConfig(players=6, teams=True), [0, 1, 0, 1, 0, 1, 0], [0, 1, 2, 3, 4, 5, 0]),
    ],
)
def test_turn_rotation(config, colors, players):
    game = TimeVectorsGame(config)
    seen_colors, seen_players = [], []
    empties = iter(["A1P", "H8S", "C3Q", "F6R", "B7P", "G2S", "D5Q"])
    for _ in colors:
        seen_colors.append(game.turn_color())
        seen_players.append(game.turn_player())
        play(game, next(empties))
    assert seen_colors == colors
    assert seen_players == players


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 1}, {"players": 4},
        {"players": 3, "teams": True}, {"players": 5, "teams": True},
        {"supply": 0}, {"supply": 86}, {"supply": True}, {"opening": "pie"},
        {"players": 3, "opening": "swap"}, {"players": 4, "teams": True, "opening": "3meq"},
        {"opening": "3meq", "supply": 1}, {"color_names": ("a", "b", "c", "d")},
    ],
)  # fmt: skip
def test_bad_configs_are_refused(kwargs):
    with pytest.raises(GameConfigError):
        GameConfig(**kwargs)


def test_config_dict_round_trip_and_errors():
    config = GameConfig(players=3, supply=20, color_names=("red", "green", "blue"))
    assert GameConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    with pytest.raises(GameConfigError, match="unknown"):
        GameConfig.from_dict({"player": 2})
    with pytest.raises(GameConfigError, match="players"):
        GameConfig.from_dict({"players": "2"})
    with pytest.raises(GameConfigError, match="color_names"):
        GameConfig.from_dict({"color_names": [1, 2]})


def test_colour_names_in_messages():
    game = TimeVectorsGame(GameConfig(color_names=("yellow", "red")))
    with pytest.raises(IllegalMoveError, match="red played out of turn"):
        game.push(Move(P("A1P"), 1))
    assert GameConfig().color_name(2) == "colour 2"


# -- legality ------------------------------------------------------------------------------


def test_illegal_moves_change_nothing():
    game = TimeVectorsGame()
    play(game, "A1P")
    before = (game.board, game.turn_color(), game.move_stack)
    for move, message in [
        (Move(P("A1P"), 1), "already taken"),
        (Move(P("B1P"), 0), "colour 0 played out of turn"),
        (Move(P("B1P"), 2), "colour 2 played out of turn"),
        (Move(256, 1), "not a point"),
        (Move(P("A1P"), 1, SWAP), "swap"),
        (Move(None, 1, CHOOSE), "no colour choice"),
        (Move(P("B1P"), 1, "jump"), "unknown kind"),
    ]:
        assert not game.is_legal(move)
        with pytest.raises(IllegalMoveError, match=message):
            game.push(move)
        assert (game.board, game.turn_color(), game.move_stack) == before


# -- winning -------------------------------------------------------------------------------


def test_first_vector_wins_and_ends_the_game():
    game = TimeVectorsGame()
    play(game, "A1S", "H8P", "B1R", "H7P", "C1Q", "H6P")
    assert game.outcome() is None and game.threats()[0]
    play(game, "D1P")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert outcome.lines == ((P("A1S"), P("B1R"), P("C1Q"), P("D1P")),)
    assert "D1P" in outcome.reason
    assert game.turn_color() is None and game.is_over()
    with pytest.raises(IllegalMoveError, match="game already won"):
        game.push(Move(P("G1P"), 1))


def test_one_move_completing_two_vectors_reports_both():
    game = TimeVectorsGame()
    play(game, "A1P", "H8S", "B1P", "H7S", "C1P", "H6S", "D2P", "G8S", "D3P", "G7S", "D4P", "G6S")
    play(game, "D1P")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert set(outcome.lines) == {
        tuple(P(n) for n in ("A1P", "B1P", "C1P", "D1P")),
        tuple(P(n) for n in ("D1P", "D2P", "D3P", "D4P")),
    }
    assert "2 vectors" in outcome.reason


def test_three_players_and_a_team_win():
    game = TimeVectorsGame(GameConfig(players=3))
    play(game, "A1P", "A2P", "A3P", "B1P", "B2P", "B3P", "C1P", "C2P", "C3P", "D1P")
    assert game.outcome().winner == 0
    teams = TimeVectorsGame(GameConfig(players=4, teams=True))
    play(teams, "H8S", "A1P", "H7S", "B1P", "E1Q", "C1P", "E2Q", "D1P")
    assert teams.outcome().winner == 1
    assert teams.player_colors == (0, 1, 0, 1)


def test_draw_when_the_supply_runs_out():
    game = TimeVectorsGame(GameConfig(supply=3))
    play(game, "A1P", "B1P", "A2Q", "B2Q", "A3R")
    assert game.outcome() is None and game.tokens_left(1) == 1
    play(game, "B3R")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is None and "draw" in outcome.reason
    assert game.turn_color() is None
    with pytest.raises(IllegalMoveError, match="draw"):
        game.push(Move(P("C1P"), 0))


def test_default_supply_draw_after_seventy_moves():
    game = TimeVectorsGame()
    # A seeded random game in which nobody ever completes a vector.
    rng = random.Random(7)
    while game.outcome() is None:
        color = game.turn_color()
        options = [p for p in POINTS if p not in game.board and not game.completes_vector(p, color)]
        game.push(Move(rng.choice(options), color))
    assert game.outcome().winner is None
    assert len(game.move_stack) == 70


# -- openings ------------------------------------------------------------------------------


def test_swap_opening():
    game = TimeVectorsGame(GameConfig(opening="swap"))
    play(game, "C3Q")
    assert game.swap_point() == P("C3Q")
    with pytest.raises(IllegalMoveError, match="first token"):
        game.push(Move(P("A1P"), 1, SWAP))
    with pytest.raises(IllegalMoveError, match="colour 1"):
        game.push(Move(P("C3Q"), 0, SWAP))
    game.push(Move(P("C3Q"), 1, SWAP))
    assert game.board == {P("C3Q"): 1}
    assert (game.turn_player(), game.turn_color()) == (0, 0)
    assert game.tokens_left(0) == 35 and game.tokens_left(1) == 34
    play(game, "A1P")
    assert (game.turn_player(), game.turn_color()) == (1, 1)
    assert game.swap_point() is None
    game.pop()
    game.pop()
    assert game.board == {P("C3Q"): 0} and game.turn_color() == 1


def test_swap_declined_by_a_normal_move_and_not_allowed_without_the_opening():
    game = TimeVectorsGame(GameConfig(opening="swap"))
    play(game, "C3Q", "D4R")
    assert game.swap_point() is None
    with pytest.raises(IllegalMoveError, match="swap"):
        game.push(Move(P("C3Q"), 1, SWAP))
    plain = TimeVectorsGame()
    play(plain, "C3Q")
    assert plain.swap_point() is None
    assert not plain.is_legal(Move(P("C3Q"), 1, SWAP))


def _meq_opening(colors):
    game = TimeVectorsGame(GameConfig(opening="3meq"))
    for name, color in zip(("A1P", "B2Q", "C3R"), colors, strict=True):
        assert game.turn_color() is None and game.phase == "opening"
        game.push(Move(P(name), color))
    return game


@pytest.mark.parametrize("colors", [(0, 0, 1), (0, 1, 0), (1, 0, 0), (1, 1, 0), (0, 1, 1)])
def test_three_move_opening_places_two_of_one_colour_and_one_of_the_other(colors):
    game = _meq_opening(colors)
    assert game.phase == "choosing" and game.turn_color() is None and game.turn_player() == 1
    assert game.legal_colors() == frozenset()
    with pytest.raises(IllegalMoveError, match="choose a colour first"):
        game.push(Move(P("D4S"), 0))


def test_three_move_opening_refuses_three_of_a_colour():
    game = TimeVectorsGame(GameConfig(opening="3meq"))
    game.push(Move(P("A1P"), 1))
    game.push(Move(P("B1P"), 1))
    assert game.legal_colors() == frozenset({0})
    with pytest.raises(IllegalMoveError, match="two tokens of one colour"):
        game.push(Move(P("C1P"), 1))
    with pytest.raises(IllegalMoveError):
        game.push(Move(P("C1P"), 2))


def test_choosing_the_pair_gives_the_first_player_the_turn():
    game = _meq_opening((0, 0, 1))
    game.push(Move(None, 0, CHOOSE))
    assert game.player_colors == (1, 0)
    assert (game.turn_player(), game.turn_color()) == (0, 1)
    play(game, "D4S")
    assert (game.turn_player(), game.turn_color()) == (1, 0)


def test_choosing_the_single_token_gives_the_chooser_the_turn():
    game = _meq_opening((0, 0, 1))
    game.push(Move(None, 1, CHOOSE))
    assert game.player_colors == (0, 1)
    assert (game.turn_player(), game.turn_color()) == (1, 1)
    play(game, "D4S")
    assert (game.turn_player(), game.turn_color()) == (0, 0)
    with pytest.raises(IllegalMoveError, match="no colour choice"):
        game.push(Move(None, 1, CHOOSE))


def test_choice_of_a_colour_outside_the_opening_is_refused():
    game = _meq_opening((0, 1, 1))
    with pytest.raises(IllegalMoveError, match="colour 2"):
        game.push(Move(None, 2, CHOOSE))


# -- undo / redo ---------------------------------------------------------------------------


def legal_moves(game: TimeVectorsGame) -> list[Move]:
    if game.phase == "choosing":
        return [Move(None, 0, CHOOSE), Move(None, 1, CHOOSE)]
    moves = [Move(p, c) for c in sorted(game.legal_colors()) for p in POINTS if p not in game.board]
    if game.swap_point() is not None:
        moves.append(Move(game.swap_point(), game.player_colors[1], SWAP))
    return moves


def snapshot(game: TimeVectorsGame):
    return (game.board, game.turn_color(), game.turn_player(), game.phase, game.outcome(),
            game.player_colors, game.legal_colors(),
            [game.tokens_left(c) for c in range(3)])  # fmt: skip


configs = st.sampled_from([
    GameConfig(), GameConfig(players=3), GameConfig(players=4, teams=True),
    GameConfig(opening="swap"), GameConfig(opening="3meq"), GameConfig(supply=4),
])  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(configs, st.lists(st.integers(0, 10_000), max_size=30))
def test_push_then_pop_restores_and_redo_replays(config, choices):
    game = TimeVectorsGame(config)
    history = [snapshot(game)]
    for choice in choices:
        if game.is_over():
            break
        moves = legal_moves(game)
        game.push(moves[choice % len(moves)])
        history.append(snapshot(game))
    played = game.move_stack
    for expected in reversed(history[:-1]):
        game.pop()
        assert snapshot(game) == expected
    for move, expected in zip(played, history[1:], strict=True):
        assert game.redo() == move
        assert snapshot(game) == expected
    assert not game.can_redo()
    restored = TimeVectorsGame.from_dict(json.loads(json.dumps(game.to_dict())))
    assert snapshot(restored) == history[-1]
    assert restored.move_stack == played


def test_pop_and_redo_with_nothing_to_do():
    game = TimeVectorsGame()
    with pytest.raises(IndexError):
        game.pop()
    with pytest.raises(IndexError):
        game.redo()


def test_a_new_move_clears_redo():
    game = TimeVectorsGame()
    play(game, "A1P", "B1P")
    game.pop()
    play(game, "C1P")
    assert not game.can_redo()


# -- moves notation and records -------------------------------------------------------------


@pytest.mark.parametrize("move", [Move(P("A3Q"), 0), Move(P("H8S"), 2), Move(P("C3Q"), 1, SWAP),
                                  Move(None, 1, CHOOSE)])  # fmt: skip
def test_move_notation_round_trip(move):
    assert Move.parse(move.notation()) == move
    assert Move.parse(move.notation().lower()) == move


@pytest.mark.parametrize(
    "text", ["", "A3Q", "A3Q:", "A3Q:x", "Z9X:0", "swap:A3Q:1", "choose", "pick 1", 7]
)
def test_bad_move_notation(text):
    with pytest.raises(NotationError):
        Move.parse(text)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "JSON object"),
        ({"board": "gryb"}, "not a Time Vectors game"),
        ({"board": "timevectors", "moves": "A1P:0"}, "list"),
        ({"board": "timevectors", "config": {"players": 9}}, "bad config"),
        ({"board": "timevectors", "config": {"colour": 1}}, "bad config"),
        ({"board": "timevectors", "moves": ["A1P:0", "A1P:1"]}, "move 2"),
        ({"board": "timevectors", "moves": ["A1P"]}, "move 1"),
    ],
)
def test_bad_records(data, message):
    with pytest.raises(RecordError, match=message):
        TimeVectorsGame.from_dict(data)


# -- status flags ----------------------------------------------------------------------------


def test_status_flags():
    config = GameConfig()
    assert TimeVectorsGame().status() == Status.VALID
    assert position_status({P("A1P"): 0, P("B1P"): 1}, config) == Status.VALID
    assert position_status({P("A1P"): 1}, config) == Status.TURN_IMBALANCE
    assert position_status({P("A1P"): 0, P("B1P"): 0}, config) == Status.TURN_IMBALANCE
    assert position_status({P("A1P"): 2}, config) & Status.UNKNOWN_COLOR
    assert position_status({300: 0}, config) & Status.BAD_POINT
    small = GameConfig(supply=1)
    assert position_status({P("A1P"): 0, P("B1P"): 0, P("C1P"): 1, P("D1P"): 1}, small) & (
        Status.TOO_MANY_TOKENS
    )
    both = {P(n): 0 for n in ("A1P", "B1P", "C1P", "D1P")}
    both.update({P(n): 1 for n in ("A1S", "B1S", "C1S", "D1S")})
    assert position_status(both, config) == Status.SEVERAL_WINNERS
    assert position_status({P("A1P"): 1}, GameConfig(opening="swap")) == Status.VALID
    three = {P("A1P"): 0, P("B1P"): 1, P("C1P"): 2, P("D1P"): 0}
    assert position_status(three, GameConfig(players=3)) == Status.VALID
    assert position_status({P("A1P"): 0, P("C1P"): 2}, GameConfig(players=3)) == (
        Status.TURN_IMBALANCE
    )


def test_threats_for_every_colour_in_play():
    game = TimeVectorsGame(GameConfig(players=3))
    play(game, "A1P", "A8S", "H1P", "B1P", "B8S", "H2P", "C1P", "C8S")
    found = game.threats()
    assert sorted(found) == [0, 1, 2]
    assert [(v.notation(), point_name(p)) for v, p in found[0]] == [("A1P B1P C1P D1P", "D1P")]
    assert [point_name(p) for _, p in found[1]] == ["D8S"]
    assert found[2] == []
