"""Invariants of Timeline over random legal play (hypothesis), and judging observed boards."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.timeline.game import TimelineGame
from rules.timeline.moves import parse_move
from rules.timeline.pieces import Piece
from rules.timeline.position import format_position, parse_position
from rules.timeline.timelines import chits_on
from rules.timevectors.points import point_index

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def board(game: TimelineGame) -> dict[int, int]:
    return {square: piece.value for piece, square in game.pieces_on_board().items()}


def random_game(data, plies: int) -> TimelineGame:
    game = TimelineGame()
    for _ in range(plies):
        if game.is_over():
            break
        game.push(data.draw(st.sampled_from(game.legal_moves())))
    return game


@SETTINGS
@given(st.data())
def test_no_two_pieces_share_a_square_and_no_team_enters_its_own_timelines(data):
    game = TimelineGame()
    for _ in range(40):
        if game.is_over():
            break
        before = game.position.timelines
        captured_before = {p for p in before if game.captor(p) is not None}
        game.push(data.draw(st.sampled_from(game.legal_moves())))
        free = game.pieces_on_board()
        assert len(set(free.values())) == len(free)
        for here in chits_on(game.position.timelines).values():
            teams = [piece.team for piece in here]
            assert len(teams) == len(set(teams))
        # A released piece stands at the end of its own, unchanged timeline.
        timelines = game.position.timelines
        for piece in captured_before & set(free):
            assert timelines[piece] == before[piece]
            assert free[piece] == timelines[piece][-1].point


@SETTINGS
@given(st.data())
def test_push_then_pop_restores_the_position(data):
    game = random_game(data, data.draw(st.integers(0, 40)))
    before = format_position(game.position)
    for move in game.legal_moves():
        game.push(move)
        game.pop()
        assert format_position(game.position) == before


@SETTINGS
@given(st.data())
def test_notation_round_trip_and_replay(data):
    game = random_game(data, data.draw(st.integers(0, 40)))
    replay = TimelineGame()
    for move in list(game.move_stack):
        text = replay.notation(move)
        assert parse_move(text).bare() == move
        replay.push(parse_move(text))  # the capture annotation is checked and agrees
    assert format_position(replay.position) == format_position(game.position)


@SETTINGS
@given(st.data())
def test_position_text_round_trip(data):
    game = random_game(data, data.draw(st.integers(0, 40)))
    again = TimelineGame(parse_position(format_position(game.position)))
    assert game.to_dict() == again.to_dict()
    assert sorted(map(str, game.legal_moves())) == sorted(map(str, again.legal_moves()))


@SETTINGS
@given(st.data())
def test_judge_finds_a_move_with_the_observed_result(data):
    game = random_game(data, data.draw(st.integers(0, 30)))
    if game.is_over():
        return
    move = data.draw(st.sampled_from(game.legal_moves()))
    referee = TimelineGame(game.position)
    game.push(move)
    judgement = referee.judge(board(game))
    assert judgement.is_legal and len(judgement.moves) == 1
    referee.push(judgement.moves[0])
    assert board(referee) == board(game)


def test_judge_unchanged_illegal_and_take_back():
    game = TimelineGame()
    start = board(game)
    assert game.judge(start).is_unchanged
    corner, diagonal = point_index(0, 0, 0, 0), point_index(1, 1, 0, 0)
    jumped = {square: code for square, code in start.items() if square != corner}
    jumped[diagonal] = Piece.ORANGE.value  # a rook does not move diagonally
    judgement = game.judge(jumped)
    assert not judgement.is_legal and judgement.changed == (corner, diagonal)
    assert judgement.reasons == (
        "the orange rook left A5P",
        "the orange rook appeared on B6P",
        "no legal warm move explains this change",
    )
    game.push(parse_move("A5P-A8P"))
    back = game.judge(start)
    assert back.take_back and not back.is_legal
    assert not game.judge({0: 99}).is_legal
    assert not game.judge({0: 1, 1: 1}).is_legal  # one piece seen twice


def test_judging_keeps_the_redo_list():
    game = TimelineGame()
    game.push(parse_move("A5P-A8P"))
    observed = board(game)
    game.pop()
    assert game.judge(observed).moves == (parse_move("A5P-A8P"),)
    assert game.can_redo() and game.redo() == parse_move("A5P-A8P")
