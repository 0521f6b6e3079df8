"""Judging observed boards: fast play, wins inside a burst, and every illegal change."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.timevectors import GameConfig, Move, TimeVectorsGame
from rules.timevectors import judge as judge_module
from rules.timevectors.moves import CHOOSE, SWAP
from rules.timevectors.points import POINTS, parse_point


def P(name: str) -> int:
    return parse_point(name)


def game_after(*names: str, config: GameConfig | None = None) -> TimeVectorsGame:
    game = TimeVectorsGame(config or GameConfig())
    for name in names:
        game.push(Move(P(name), game.turn_color()))
    return game


def observe(game: TimeVectorsGame, add: dict[str, int] | None = None, remove: tuple[str, ...] = ()):
    board = game.board
    add = add or {}
    for name in remove:
        del board[P(name)]
    board.update({P(n): c for n, c in add.items()})
    return board


def accept(game: TimeVectorsGame, judgement) -> None:
    for move in judgement.moves:
        game.push(move)


def test_unchanged_board():
    game = game_after("A1P", "B2Q")
    judgement = game.judge(game.board)
    assert judgement.is_unchanged and judgement.is_legal and judgement.moves == ()


def test_one_token_of_the_colour_to_move_is_a_move():
    game = game_after("A1P")
    judgement = game.judge(observe(game, {"C3R": 1}))
    assert judgement.is_legal
    assert judgement.moves == (Move(P("C3R"), 1),)
    assert judgement.changed == (P("C3R"),)


def test_names_are_accepted_as_keys_and_none_as_empty():
    game = game_after("A1P")
    judgement = game.judge({"a1p": 0, "C3R": 1, "D4S": None})
    assert judgement.moves == (Move(P("C3R"), 1),)


def test_fast_play_reads_several_moves_in_turn_order():
    game = game_after("A1P")
    observed = observe(game, {"H8S": 0, "C3R": 1, "E5Q": 1})
    judgement = game.judge(observed)
    assert judgement.is_legal
    assert [m.color for m in judgement.moves] == [1, 0, 1]
    accept(game, judgement)
    assert game.board == observed


def test_fast_play_with_three_players():
    game = game_after("A1P", config=GameConfig(players=3))
    judgement = game.judge(observe(game, {"B1P": 1, "C1P": 2, "D8S": 0, "H1P": 1}))
    assert [m.color for m in judgement.moves] == [1, 2, 0, 1]


def test_win_inside_a_burst_ends_the_game_there():
    # Colour 0 holds A1P B1P C1P; a burst of D1P (0) and H8S (1) can only mean 0 won first.
    game = game_after("A1P", "A8S", "B1P", "B8S", "C1P", "C8S")
    judgement = game.judge(observe(game, {"D1P": 0, "H8S": 1}))
    assert judgement.moves == (Move(P("D1P"), 0),)
    assert judgement.reasons == ("game already won by colour 0: token placed on H8S after the end",)
    accept(game, judgement)
    assert game.outcome().winner == 0


def test_a_burst_is_ordered_so_that_the_win_comes_as_late_as_possible():
    game = game_after("A1P", "A8S", "B1P", "B8S", "C1P", "H5R")
    # Colour 0 to move: D1P or E5Q, then H8S (1), then the other. D1P wins, so E5Q came first.
    judgement = game.judge(observe(game, {"H8S": 1, "D1P": 0, "E5Q": 0}))
    assert judgement.is_legal
    assert judgement.moves == (Move(P("E5Q"), 0), Move(P("H8S"), 1), Move(P("D1P"), 0))
    accept(game, judgement)
    assert game.outcome().winner == 0


def test_a_burst_order_found_by_search_not_greed():
    # Colour 0 holds A1P B1P (row 1) and C3P C4P (column C). C1P with D1P completes the row,
    # C1P with C2P the column: only the order D1P, C2P, C1P wins on the last token.
    game = game_after("A1P", "H8S", "B1P", "G6R", "C3P", "E3Q", "C4P", "F1S")
    judgement = game.judge(observe(game, {"C1P": 0, "D1P": 0, "C2P": 0, "A1S": 1, "B2S": 1}))
    assert judgement.is_legal
    assert [m.point for m in judgement.moves if m.color == 0] == [P("D1P"), P("C2P"), P("C1P")]
    accept(game, judgement)
    assert len(game.outcome().lines) == 2


@pytest.mark.parametrize(
    ("added", "reasons"),
    [
        ({"C3R": 0, "D4R": 0}, ("two colour 0 tokens placed",)),
        ({"C3R": 0, "D4R": 0, "E5R": 0}, ("three colour 0 tokens placed",)),
        ({"C3R": 1}, ("colour 1 played out of turn",)),
        ({"C3R": 2}, ("colour 2 played out of turn",)),
        ({"C3R": 1, "D4R": 1}, ("two colour 1 tokens placed",)),
    ],
)
def test_tokens_no_turn_order_explains(added, reasons):
    game = game_after("A1P", "B1P")
    judgement = game.judge(observe(game, added))
    assert judgement.reasons == reasons and judgement.moves == ()
    assert not judgement.take_back


def test_colour_names_appear_in_reasons():
    game = TimeVectorsGame(GameConfig(color_names=("yellow", "red")))
    judgement = game.judge({P("A1P"): 0, P("B1P"): 0})
    assert judgement.reasons == ("two yellow tokens placed",)


def test_removing_the_last_move_is_a_possible_take_back():
    game = game_after("A1P", "B2Q", "C3R")
    judgement = game.judge(observe(game, remove=("C3R",)))
    assert judgement.reasons == ("token removed from C3R",)
    assert judgement.take_back and judgement.moves == ()
    assert judgement.changed == (P("C3R"),)


def test_removing_an_earlier_token_is_not_a_take_back():
    game = game_after("A1P", "B2Q", "C3R")
    judgement = game.judge(observe(game, remove=("B2Q",)))
    assert judgement.reasons == ("token removed from B2Q",)
    assert not judgement.take_back


def test_moved_token():
    game = game_after("B1P", "H8S")
    judgement = game.judge(observe(game, {"B2P": 0}, remove=("B1P",)))
    assert judgement.reasons == ("token moved from B1P to B2P",)
    assert judgement.changed == tuple(sorted((P("B1P"), P("B2P"))))


def test_recoloured_token_is_illegal_outside_the_swap():
    game = game_after("A1P", "B1P")
    judgement = game.judge(observe(game, {"A1P": 1}))
    assert judgement.reasons == ("token on A1P changed from colour 0 to colour 1",)


def test_every_reason_that_applies_is_given():
    game = game_after("A1P", "B1P", "C1P")
    observed = observe(game, {"D4S": 0, "E4S": 0, "C1P": 0}, remove=("A1P",))
    judgement = game.judge(observed)
    # Colour 1 is to move: one new colour-0 token is read as A1P moved, the other is out of turn.
    assert judgement.reasons == ("token moved from A1P to E4S", "colour 0 played out of turn")
    assert judgement.moves == ()


def test_placement_after_the_game_was_won():
    game = game_after("A1P", "A8S", "B1P", "B8S", "C1P", "C8S", "D1P")
    judgement = game.judge(observe(game, {"D8S": 1}))
    assert judgement.reasons == ("game already won by colour 0: token placed on D8S after the end",)
    assert judgement.moves == ()


def test_placement_after_a_draw():
    game = game_after("A1P", "B1P", config=GameConfig(supply=1))
    assert game.outcome().winner is None
    judgement = game.judge(observe(game, {"C1P": 0}))
    assert judgement.reasons == ("game already over (draw): token placed on C1P after the end",)


def test_bad_entries_are_reasons_not_exceptions():
    game = game_after("A1P")
    judgement = game.judge({P("A1P"): 0, 999: 1, "Z9X": 1, P("B1P"): 7, True: 0})
    assert judgement.reasons == (
        "999 is not a point of the board",
        "'Z9X' is not a point of the board",
        "B1P holds an unknown colour 7",
        "True is not a point of the board",
    )
    assert judgement.moves == ()


def test_swap_is_read_from_a_recoloured_first_token():
    game = game_after("C3Q", config=GameConfig(opening="swap"))
    judgement = game.judge(observe(game, {"C3Q": 1}))
    assert judgement.is_legal
    assert judgement.moves == (Move(P("C3Q"), 1, SWAP),)
    both = game.judge(observe(game, {"C3Q": 1, "A1P": 0}))
    assert both.moves == (Move(P("C3Q"), 1, SWAP), Move(P("A1P"), 0))
    accept(game, judgement)
    back = game.judge(observe(game, {"C3Q": 0}))
    assert back.take_back and back.reasons == ("token on C3Q changed from colour 1 to colour 0",)


def test_three_move_opening_in_one_observation():
    game = TimeVectorsGame(GameConfig(opening="3meq"))
    judgement = game.judge({P("A1P"): 1, P("B2Q"): 0, P("C3R"): 1})
    assert judgement.is_legal and len(judgement.moves) == 3
    accept(game, judgement)
    assert game.phase == "choosing"
    waiting = game.judge(observe(game, {"D4S": 0}))
    assert waiting.reasons == (
        "the second player must choose a colour before play goes on (three-move opening)",
    )
    game.push(Move(None, 1, CHOOSE))
    assert game.judge(observe(game, {"D4S": 0})).moves == (Move(P("D4S"), 0),)


def test_three_move_opening_with_three_of_a_colour():
    game = TimeVectorsGame(GameConfig(opening="3meq"))
    judgement = game.judge({P("A1P"): 1, P("B2Q"): 1, P("C3R"): 1})
    assert judgement.reasons == (
        "the three-move opening is two tokens of one colour and one of the other",
    )


def test_forty_new_tokens_are_judged_quickly():
    # A seeded 40-move game in which nobody completes a vector, seen all at once.
    rng = random.Random(40)
    game = TimeVectorsGame()
    for _ in range(40):
        color = game.turn_color()
        free = [p for p in POINTS if p not in game.board and not game.completes_vector(p, color)]
        game.push(Move(rng.choice(free), color))
    start = time.perf_counter()
    judgement = TimeVectorsGame().judge(game.board)
    assert time.perf_counter() - start < 1.0
    assert judgement.is_legal and len(judgement.moves) == 40


def test_search_budget_falls_back_to_the_longest_order_found(monkeypatch):
    # The burst of test_a_burst_order_found_by_search_not_greed with a search too small to
    # backtrack: the greedy order wins early and the rest is reported, nothing raises.
    monkeypatch.setattr(judge_module, "SEARCH_BUDGET", 5)
    game = game_after("A1P", "H8S", "B1P", "G6R", "C3P", "E3Q", "C4P", "F1S")
    judgement = game.judge(observe(game, {"C1P": 0, "D1P": 0, "C2P": 0, "A1S": 1, "B2S": 1}))
    assert judgement.moves and judgement.reasons
    assert all("after the end" in reason for reason in judgement.reasons)


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(0, 20), st.integers(1, 6))
def test_any_legal_burst_is_read_back_as_legal_moves(rng, before, burst):
    config = rng.choice([GameConfig(), GameConfig(players=3), GameConfig(players=4, teams=True)])
    game = TimeVectorsGame(config)
    for _ in range(before + burst):
        if len(game.move_stack) == before:
            accepted = TimeVectorsGame.from_dict(game.to_dict())
        if game.is_over():
            break
        color = game.turn_color()
        game.push(Move(rng.choice([p for p in POINTS if p not in game.board]), color))
    if len(game.move_stack) <= before:
        return
    judgement = accepted.judge(game.board)
    assert judgement.is_legal, judgement.reasons
    assert len(judgement.moves) == len(game.move_stack) - before
    accept(accepted, judgement)
    assert accepted.board == game.board
