"""Invariants of TSR 4D over random legal play (hypothesis)."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.tsr4d.actions import EndTurn
from rules.tsr4d.game import SuicideRule, Tsr4dGame
from rules.tsr4d.judge import board_codes
from rules.tsr4d.notation import action_notation, parse_action
from rules.tsr4d.position import format_position, parse_position

SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def random_play(data, game: Tsr4dGame, actions: int) -> None:
    for _ in range(actions):
        if game.is_over():
            return
        game.push(data.draw(st.sampled_from(game.legal_moves())))


def pieces(game: Tsr4dGame, player: int) -> int:
    return sum(game.position.army(player).values())


@SETTINGS
@given(st.data(), st.sampled_from(list(SuicideRule)))
def test_no_piece_is_lost_or_doubled(data, rule):
    game = Tsr4dGame(suicide_rule=rule)
    for _ in range(40):
        if game.is_over():
            break
        game.push(data.draw(st.sampled_from(game.legal_moves())))
        lost = Counter(player for player, _ in game.captured)
        for player in (0, 1):
            # A move onto an occupied space would make a piece vanish without a capture.
            assert pieces(game, player) + lost[player] == 12


@SETTINGS
@given(st.data())
def test_push_then_pop_restores_the_position(data):
    game = Tsr4dGame()
    random_play(data, game, data.draw(st.integers(0, 30)))
    if game.is_over():
        return
    before, stack = game.to_dict(), game.move_stack
    for action in game.legal_moves():
        game.push(action)
        game.pop()
        assert game.to_dict() == before and game.move_stack == stack


@SETTINGS
@given(st.data())
def test_every_legal_action_reads_back_from_its_notation(data):
    game = Tsr4dGame()
    random_play(data, game, data.draw(st.integers(0, 30)))
    for action in game.legal_moves():
        assert parse_action(action_notation(action)) == action


@SETTINGS
@given(st.data())
def test_position_text_round_trip(data):
    game = Tsr4dGame()
    random_play(data, game, data.draw(st.integers(0, 30)))
    while game.move_stack and game.move_stack[-1] != EndTurn():
        game.pop()  # a position text describes the start of a turn
    position = game.position
    assert parse_position(format_position(position)) == position


@SETTINGS
@given(st.data())
def test_judge_explains_a_random_part_turn(data):
    game = Tsr4dGame()
    random_play(data, game, data.draw(st.integers(0, 20)))
    while game.move_stack and game.move_stack[-1] != EndTurn():
        game.pop()  # judge from the start of a turn
    referee = Tsr4dGame(game.position)  # a fresh game at the same position
    played = []
    for _ in range(data.draw(st.integers(1, 3))):
        choices = [a for a in game.legal_moves() if a != EndTurn()]
        if not choices or game.is_over():
            break
        action = data.draw(st.sampled_from(choices))
        game.push(action)
        played.append(action)
    observed = board_codes(game.position)
    judgement = referee.judge(observed)
    if observed == board_codes(referee.position):
        assert judgement.is_unchanged and judgement.is_legal
        return
    assert judgement.is_legal, judgement.reasons
    for action in judgement.moves:
        referee.push(action)
    assert board_codes(referee.position) == observed
