"""Judging an observed TSR 4D board: which actions explain it, or why it is illegal."""

from __future__ import annotations

from rules.tsr4d.actions import EndTurn
from rules.tsr4d.board import parse_space as S
from rules.tsr4d.game import Tsr4dGame
from rules.tsr4d.judge import board_codes
from rules.tsr4d.notation import action_notation, parse_action, parse_turn
from rules.tsr4d.pieces import BLUE, WHITE, Kind, token_code, token_from_code
from rules.tsr4d.position import parse_position

EXAMPLE_OF_PLAY = "blue: Tc2 Wb4 Mb3 R@1; white: Ta20 Ga22 Wa24; to move: blue"


def after(text: str, turn: str) -> dict[int, int]:
    game = Tsr4dGame(parse_position(text))
    for action in parse_turn(turn):
        game.push(action)
    return board_codes(game.position)


def explained(text: str, observed: dict[int, int]) -> list[str]:
    game = Tsr4dGame(parse_position(text))
    judgement = game.judge(observed)
    assert judgement.is_legal, judgement.reasons
    for action in judgement.moves:
        game.push(action)
    assert board_codes(game.position) == observed
    return [action_notation(a) for a in judgement.moves]


def test_token_codes_name_player_and_kind():
    codes = {token_code(p, k) for p in (BLUE, WHITE) for k in Kind}
    assert codes == set(range(8))
    assert all(token_from_code(token_code(p, k)) == (p, k) for p in (BLUE, WHITE) for k in Kind)


def test_unchanged_board():
    game = Tsr4dGame(parse_position(EXAMPLE_OF_PLAY))
    judgement = game.judge(board_codes(game.position))
    assert judgement.is_unchanged and judgement.is_legal and judgement.moves == ()


def test_single_move():
    assert explained(EXAMPLE_OF_PLAY, after(EXAMPLE_OF_PLAY, "W(b4)a8")) == ["W(b4)a8"]


def test_warrior_into_the_space_the_warped_time_lord_left():
    # c2 stays occupied, but by a Warrior instead of the Time-Lord: kinds tell them apart.
    observed = after(EXAMPLE_OF_PLAY, "-Rb1; +T(c2); W(b4)c2")
    moves = explained(EXAMPLE_OF_PLAY, observed)
    assert sorted(moves) == sorted(["-Rb1", "+T(c2)", "W(b4)c2"])


def test_a_whole_turn_and_the_start_of_the_next():
    observed = after(EXAMPLE_OF_PLAY, "-Rb1; T(c2)d1; +W(b4); end; T(a20)a21")
    moves = explained(EXAMPLE_OF_PLAY, observed)
    assert moves.index("end") == 3 and moves[-1] == "T(a20)a21"


def test_illegal_change_is_described():
    game = Tsr4dGame(parse_position(EXAMPLE_OF_PLAY))
    observed = board_codes(game.position)
    observed[S("a9")] = observed.pop(S("b4"))  # a9 is not next to b4
    judgement = game.judge(observed)
    assert not judgement.is_legal and judgement.moves == ()
    assert judgement.changed == (S("a9"), S("b4"))
    assert judgement.reasons == (
        "a blue Warrior appeared on a9",
        "the blue Warrior left b4",
        "no legal sequence of blue's actions explains this change",
    )


def test_take_back_and_impossible_readings():
    game = Tsr4dGame(parse_position(EXAMPLE_OF_PLAY))
    start = board_codes(game.position)
    game.push(parse_turn("T(c2)d1")[0])
    back = game.judge(start)
    assert back.take_back and not back.is_legal
    assert not game.judge({S("a1"): 42}).is_legal
    assert not game.judge({99: 0}).is_legal


def test_game_over_is_reported():
    text = "blue: Td1 Gc3 Rc2 Wb3 Wa14; white: Ta20 Ga5 Ra22 Wa24 Mb2 W@1; to move: white"
    game = Tsr4dGame(parse_position(text))
    game.play_turn(parse_turn("xW(b3); G(a5)b3xR(c2); -Wc2xT(d1)"))
    observed = board_codes(game.position)
    observed.pop(S("a14"))
    assert game.judge(observed).reasons == ("the game is already over",)
    assert EndTurn() not in game.move_stack


def test_legal_actions_as_dicts_for_the_dashboard():
    from rules.tsr4d.notation import action_to_dict

    game = Tsr4dGame(parse_position(EXAMPLE_OF_PLAY))
    records = [action_to_dict(a) for a in game.legal_moves()]
    assert {"type": "move", "notation": "W(b4)a8", "kind": "W", "from": "b4", "to": "a8",
            "capture": None} in records
    assert {"type": "beam-down", "notation": "-Rb1", "kind": "R", "from": "warp", "to": "b1",
            "capture": None} in records
    assert {"type": "stay-in-warp", "notation": "R 1->2", "kind": "R", "from": "warp",
            "to": "warp", "capture": None} in records
    assert {r["type"] for r in records} == {"move", "beam-down", "stay-in-warp"}


def test_judging_keeps_the_redo_list():
    game = Tsr4dGame(parse_position(EXAMPLE_OF_PLAY))
    game.push(parse_turn("T(c2)d1")[0])
    observed = board_codes(game.position)
    game.pop()
    assert game.judge(observed).moves == tuple(parse_turn("T(c2)d1"))
    assert game.can_redo()
    assert action_notation(game.redo()) == "T(c2)d1"



# The turns of the random part-turn property's example, and the part-turn it then played.
BEFORE_THE_REFILL = [
    "+R(a6)", "G(a7)a6", "end", "+R(a22)", "G(a23)a22", "end",
    "G(a6)a5", "-Ra4", "+W(b6)", "end", "G(a22)a21", "R 1->2", "-Ra20", "+T(a24)", "end",
]  # fmt: skip


def test_a_step_whose_origin_a_beamed_down_piece_of_the_same_kind_fills_again():
    """Blue's Warrior steps from c2 to c1 and a second Warrior beams down on c2: the space it
    left shows a blue Warrior again. The search once skipped every step whose origin still
    showed such a piece, so this legal part-turn read as "a blue Warrior appeared on c1" (found
    by the random part-turn property)."""
    game = Tsr4dGame()
    for text in BEFORE_THE_REFILL:
        game.push(parse_action(text))
    start = game.position
    for text in ("W(c2)c1", "-Wc2"):
        game.push(parse_action(text))
    observed = board_codes(game.position)
    assert observed[S("c1")] == observed[S("c2")] == token_code(BLUE, Kind.WARRIOR)
    judge = Tsr4dGame(start)
    judgement = judge.judge(observed)
    assert judgement.is_legal, judgement.reasons
    for action in judgement.moves:
        judge.push(action)
    assert board_codes(judge.position) == observed
