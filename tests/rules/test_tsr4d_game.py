"""TSR 4D turns, captures and results, with the rules' example turn and winning move."""

from __future__ import annotations

import pytest

from rules.errors import IllegalMoveError, NotationError
from rules.tsr4d.actions import BeamDown, EndTurn, Linger, Step, SuicideCapture, Warp
from rules.tsr4d.board import (
    NEIGHBOURS,
    RING_SIZES,
    WITHIN_TWO,
    space_index,
    space_name,
    space_ring_number,
)
from rules.tsr4d.board import parse_space as S
from rules.tsr4d.game import SuicideRule, Tsr4dGame
from rules.tsr4d.notation import action_notation, parse_action, parse_turn
from rules.tsr4d.pieces import ARMY, BLUE, WHITE, Kind, can_capture
from rules.tsr4d.position import (
    STARTING_POSITION_TEXT,
    format_position,
    parse_position,
    starting_position,
)

T, G, R, W = Kind.TIME_LORD, Kind.GUARDIAN, Kind.RANGER, Kind.WARRIOR

# The position of the rules' EXAMPLE OF PLAY (blue's pieces; white's stand far away).
EXAMPLE_OF_PLAY = "blue: Tc2 Wb4 Mb3 R@1; white: Ta20 Ga22 Wa24; to move: blue"
# The rules' EXAMPLE OF A WINNING MOVE, rebuilt from its text (the picture is not kept):
# white G next to the blue W that moved to b3, blue R on c2, blue T on d1, blue G on c3,
# a white W in Time-warp with its Marker on b2.
WINNING_EXAMPLE = (
    "blue: Td1 Gc3 Rc2 Wb3 Wa14; white: Ta20 Ga5 Ra22 Wa24 Mb2 W@1; to move: white"
)


def game(text: str, **options) -> Tsr4dGame:
    return Tsr4dGame(parse_position(text), **options)


def play(g: Tsr4dGame, text: str) -> None:
    for action in parse_turn(text):
        g.push(action)


def reason(g: Tsr4dGame, text: str) -> str:
    with pytest.raises(IllegalMoveError) as caught:
        g.push(parse_action(text))
    return str(caught.value)


def targets(actions) -> set[str]:
    return {space_name(a.target) for a in actions if a.capture is None}


class TestExampleOfPlay:
    def test_warrior_moves(self):
        g = game(EXAMPLE_OF_PLAY)
        steps = [a for a in g.legal_moves_from("b4") if isinstance(a, Step)]
        assert targets(steps) == {"a7", "a8", "b3", "b5"}  # c2 holds the Time-Lord
        assert "occupied" in reason(g, "W(b4)c2")

    def test_warrior_to_c2_only_after_warping_the_time_lord(self):
        g = game(EXAMPLE_OF_PLAY)
        play(g, "-Rb1")  # the Ranger must leave Time-warp before the Time-Lord can enter it
        play(g, "+T(c2)")
        assert "c2" in targets(g.legal_moves_from("b4"))
        play(g, "W(b4)c2")

    def test_warping_time_lord_needs_the_ranger_out_first(self):
        g = game(EXAMPLE_OF_PLAY)
        assert "must beam down before" in reason(g, "+T(c2)")

    def test_beam_down_spaces(self):
        g = game(EXAMPLE_OF_PLAY)
        beams = [a for a in g.legal_moves_from("warp") if isinstance(a, BeamDown)]
        rules_list = {"a3", "a4", "a5", "a6", "a7", "a8", "b1", "b2", "b3", "b4", "b5"}
        rules_list |= {"c1", "c2", "c3", "d1"}
        # b4 (the Warrior) and c2 (the Time-Lord) are occupied until they move.
        assert targets(beams) == rules_list - {"b4", "c2"}
        assert "more than two spaces" in reason(g, "-Ra9")

    def test_beam_down_to_b4_after_the_warrior_moves(self):
        g = game(EXAMPLE_OF_PLAY)
        assert "occupied" in reason(g, "-Rb4")
        play(g, "W(b4)a8")
        play(g, "-Rb4")

    def test_beam_down_to_c2_after_the_time_lord_moves(self):
        g = game(EXAMPLE_OF_PLAY)
        assert "occupied" in reason(g, "-Rc2")
        play(g, "T(c2)d1; -Rc2")

    def test_the_typical_turn(self):
        g = game(EXAMPLE_OF_PLAY)
        g.play_turn(parse_turn("-Rb1 T(c2)d1 +W(b4)"))
        position = g.position
        assert position.pieces == {
            S("b1"): (BLUE, R), S("d1"): (BLUE, T),
            S("a20"): (WHITE, T), S("a22"): (WHITE, G), S("a24"): (WHITE, W),
        }
        assert position.warp[BLUE].kind is W and position.warp[BLUE].circle == 1
        assert position.markers[BLUE] == S("b4")
        assert position.to_move == WHITE
        assert [action_notation(a) for a in g.move_stack] == [
            "-Rb1", "T(c2)d1", "+W(b4)", "end",
        ]


class TestWinningExample:
    def test_white_wins_as_the_rules_describe(self):
        g = game(WINNING_EXAMPLE)
        play(g, "xW(b3)")  # (1) the Warrior on b3 is in a 'suicide' position next to G
        play(g, "G(a5)b3 x R(c2)")  # (2) G moves into the vacated b3 and captures R
        assert g.outcome() is None
        play(g, "-Wc2 x T(d1)")  # (3) the Warrior beams down and Time-Traps the Time-Lord
        outcome = g.outcome()
        assert outcome is not None and outcome.winner == WHITE
        assert g.captured == ((BLUE, W), (BLUE, R), (BLUE, T))
        assert "over" in reason(g, "+T(a20)")

    def test_without_the_win_a_time_warp_would_be_needed(self):
        g = game(WINNING_EXAMPLE)
        play(g, "xW(b3); G(a5)b3xR(c2); -Wc2")
        assert "Time-warp is obligatory" in reason(g, "end")
        play(g, "+R(a22); end")
        assert g.to_move == BLUE

    def test_g_could_not_move_to_b3_before_the_suicide_capture(self):
        g = game(WINNING_EXAMPLE)
        assert "occupied" in reason(g, "G(a5)b3")

    def test_blue_guardian_may_capture_the_warrior_next_turn(self):
        g = game(WINNING_EXAMPLE)
        g.play_turn(parse_turn("xW(b3); G(a5)b3xR(c2); -Wc2; +R(a22)"))
        play(g, "xW(c2)")  # blue G on c3 takes the Warrior that beamed down next to it
        assert S("c2") not in g.position.pieces


class TestTurnObligations:
    def test_a_move_is_obligatory(self):
        g = game(EXAMPLE_OF_PLAY)
        play(g, "-Rb1; +W(b4)")
        assert "move is obligatory" in reason(g, "end")

    def test_only_one_move_per_turn(self):
        g = game(EXAMPLE_OF_PLAY)
        play(g, "T(c2)d1")
        assert "only one piece moves" in reason(g, "W(b4)a8")

    def test_time_warp_obligatory_with_more_than_two_pieces(self):
        g = game(EXAMPLE_OF_PLAY)
        play(g, "-Rb1; T(c2)d1")
        assert "Time-warp is obligatory" in reason(g, "end")

    def test_no_time_warp_needed_when_down_to_time_lord_and_one_piece(self):
        g = game("blue: Tc2 Wb4; white: Ta20 Wa24; to move: blue")
        play(g, "W(b4)a8; end")
        assert g.to_move == WHITE

    def test_keeping_a_piece_in_time_warp_excuses_the_warp(self):
        g = game(EXAMPLE_OF_PLAY)
        play(g, "R 1->2; T(c2)d1; end")
        assert g.position.warp[BLUE].circle == 2

    def test_piece_in_warp_must_beam_down_or_go_on(self):
        g = game(EXAMPLE_OF_PLAY)
        play(g, "T(c2)d1")
        assert "must beam down or go on to circle 2" in reason(g, "end")

    def test_moved_piece_may_not_warp_and_beamed_piece_may_not_move(self):
        g = game("blue: Tc2 Wb4 Ra1; white: Ta20 Ga22 Wa24; to move: blue")
        play(g, "W(b4)a8")
        assert "may not enter Time-warp" in reason(g, "+W(a8)")
        g = game(EXAMPLE_OF_PLAY)
        play(g, "-Rb1")
        assert "may not move" in reason(g, "R(b1)b2")
        assert "may not enter Time-warp" in reason(g, "+R(b1)")
    def test_warped_piece_beams_down_in_a_later_turn(self):
        g = game("blue: Tc2 Wb4 Ra1; white: Ta20 Ga22 Wa24; to move: blue")
        play(g, "+W(b4)")
        assert "later turn" in reason(g, "-Wb4")
        assert "only one piece enters" in reason(g, "+R(a1)")

    def test_circles_one_to_three_then_forced_return(self):
        g = game(EXAMPLE_OF_PLAY)
        play(g, "R 1->2; T(c2)d1; end")
        g.play_turn(parse_turn("T(a20)a21; +G(a22)"))
        assert "circle 2, not 1" in reason(g, "R 1->2")
        play(g, "R 2->3; T(d1)d2; end")
        g.play_turn(parse_turn("G 1->2; T(a21)a20"))  # keeping G in Time-warp: no warp due
        assert not any(isinstance(a, Linger) for a in g.legal_moves())
        play(g, "T(d2)d1")
        assert "circle 3 must beam down now" in reason(g, "end")
        play(g, "-Rb3; +W(b4); end")
        assert g.position.warp[BLUE].kind is W
    def test_circle_three_must_beam_down(self):
        g = game("blue: Tc2 Wb4 Mb3 R@3; white: Ta20 Ga22 Wa24; to move: blue")
        assert not any(isinstance(a, Linger) for a in g.legal_moves())
        play(g, "T(c2)d1")
        assert "circle 3 must beam down now" in reason(g, "end")
        play(g, "-Rc2; +W(b4); end")

    def test_circle_three_piece_with_nowhere_to_land_is_captured(self):
        blue = "Wb1 Wb2 Wb3 Wb4 Wc1 Wc7"
        white = "Gc2 Gc3 Rc4 Rc8 Rd2 Wd3 Wd4 Wd1"
        g = game(f"blue: Ta10 {blue} Md1 G@3; white: Ta20 {white}; to move: blue")
        filled = set(g.position.pieces)
        assert WITHIN_TWO[S("d1")] <= filled  # every beam-down space of the Marker is taken
        assert not any(isinstance(a, BeamDown) for a in g.legal_moves())
        play(g, "T(a10)a11; end")
        assert g.captured == ((BLUE, G),) and g.position.warp[BLUE] is None
class TestCaptures:
    @pytest.mark.parametrize("captor", list(Kind))
    @pytest.mark.parametrize("victim", list(Kind))
    def test_hierarchy_and_reversal(self, captor, victim):
        expected = {
            (T, G), (T, R), (G, R), (G, W), (R, W), (W, T),
        }
        assert can_capture(captor, victim) == ((captor, victim) in expected)

    def test_move_capture_follows_the_hierarchy(self):
        g = game("blue: Tc2 Ra1 Wb4; white: Ta20 Ga3 Wa5; to move: blue")
        assert "cannot capture" in reason(g, "R(a1)a2xG(a3)")
        play(g, "T(c2)c1")
        g = game("blue: Tc2 Ra1 Wb4; white: Ta20 Ga3 Wa5; to move: blue")
        assert "not next to" in reason(g, "R(a1)a2xW(a5)")

    def test_captures_by_every_method_in_one_turn(self):
        text = (
            "blue: Ta10 Gb2 Gb7 Wc1 Md1 R@1; white: Ta20 Wa3 Wa14 Wa15 Wc3 Ga22; to move: blue"
        )
        g = game(text)
        # Warriors a3 (next to G b2) and a14 (next to G b7) stand in 'suicide' positions.
        play(g, "xW(a3); xW(a14)")
        play(g, "G(b7)b8xW(a15)")  # a capture by the move
        play(g, "-Rc2xW(c3)")  # a capture by the beam-down
        play(g, "+W(c1); end")
        assert g.captured == ((WHITE, W),) * 4

    def test_an_action_captures_at_most_one_piece(self):
        with pytest.raises(NotationError):
            parse_action("G(b7)b8xW(a15)xW(a16)")
    def test_suicide_captures_come_before_any_other_action(self):
        g = game("blue: Ta10 Gb2 Wc1 Wa30; white: Ta20 Wa3 Ga22; to move: blue")
        play(g, "W(a30)a29")
        assert "start of the turn" in reason(g, "xW(a3)")

    def test_suicide_needs_an_outranking_neighbour(self):
        g = game("blue: Ta10 Wb2 Wc1; white: Ta20 Wa3 Ga22; to move: blue")
        assert "can capture" in reason(g, "xW(a3)")

    def test_arrived_rule_only_takes_pieces_that_just_arrived(self):
        text = "blue: Ta10 Gb2 Wc1 Wa30; white: Ta20 Wa3 Wa28 Ga22; to move: white"
        adjacent, arrived = game(text), game(text, suicide_rule=SuicideRule.ARRIVED)
        for g in (adjacent, arrived):
            g.play_turn(parse_turn("W(a28)a29; +G(a22)"))  # a29 is next to blue's a30 Warrior only
        play(adjacent, "xW(a3)")
        assert "did not move next to" in reason(arrived, "xW(a3)")

    def test_arrived_rule_takes_a_piece_that_moved_next_to_a_captor(self):
        text = "blue: Ta10 Gb2 Wc1; white: Ta20 Wa5 Ga22 Ra23; to move: white"
        g = game(text, suicide_rule=SuicideRule.ARRIVED)
        g.play_turn(parse_turn("W(a5)a4; +R(a23)"))
        play(g, "xW(a4)")

    def test_no_move_into_an_occupied_space_but_onto_a_marker(self):
        g = game("blue: Tc2 Wb4 Ra1 Mb3; white: Ta20 Ga22 Wa24 Mb5; to move: blue")
        play(g, "W(b4)b5")  # the white Marker is not a piece

    def test_diagonal_and_long_moves_are_refused(self):
        g = game(EXAMPLE_OF_PLAY)
        assert "not next to" in reason(g, "W(b4)a9")
        assert "not next to" in reason(g, "W(b4)c3")


class TestResults:
    def test_time_lord_in_warp_is_captured_with_the_last_piece(self):
        g = game("blue: Ta10 Gb2; white: Wa3 Mb10 T@1; to move: blue")
        play(g, "xW(a3)")
        outcome = g.outcome()
        assert outcome is not None and outcome.winner == BLUE
        assert g.captured == ((WHITE, W), (WHITE, T))
    def test_draw_when_every_warrior_is_gone(self):
        g = game("blue: Ta10 Gb2 Rc1; white: Ta20 Wa3 Ga22; to move: blue")
        assert g.outcome() is None
        play(g, "xW(a3)")
        outcome = g.outcome()
        assert outcome is not None and outcome.winner is None

    def test_win_takes_precedence_and_ends_the_game(self):
        g = game(WINNING_EXAMPLE)
        g.play_turn(parse_turn("xW(b3); G(a5)b3xR(c2); -Wc2xT(d1)"))
        assert g.is_over() and g.move_stack[-1] != EndTurn()
class TestStartingPosition:
    def test_full_armies_and_half_turn_symmetry(self):
        position = starting_position()
        for player in (BLUE, WHITE):
            assert dict(position.army(player)) == ARMY
        for space, (player, kind) in position.pieces.items():
            ring, number = space_ring_number(space)
            size = RING_SIZES[ring]
            turned = space_index(ring, (number - 1 + size // 2) % size + 1)
            assert position.pieces[turned] == (1 - player, kind)

    def test_no_piece_starts_next_to_an_enemy(self):
        position = starting_position()
        for space, (player, _) in position.pieces.items():
            assert all(position.pieces.get(n, (player,))[0] == player for n in NEIGHBOURS[space])

    def test_first_turns_move_then_warp(self):
        g = Tsr4dGame()
        assert g.to_move == BLUE
        g.play_turn(parse_turn("W(c2)d1; +W(b2)"))
        g.play_turn(parse_turn("W(c6)d3; +W(b10)"))
        assert g.to_move == BLUE
        assert format_position(g.position).startswith("blue: Ta8")

    def test_position_text_round_trip(self):
        for text in (STARTING_POSITION_TEXT, EXAMPLE_OF_PLAY, WINNING_EXAMPLE):
            position = parse_position(text)
            assert parse_position(format_position(position)) == position

    @pytest.mark.parametrize(
        ("text", "words"),
        [
            ("blue: Ta1 Ta2; white: Ta20", "2 Time-Lords"),
            ("blue: Wa1; white: Ta20", "no Time-Lord"),
            ("blue: Ta1 Wa1; white: Ta20", "two pieces on a1"),
            ("blue: Ta1 W@1; white: Ta20", "no Marker"),
            ("blue: Ta1 W@1 R@2 Ma3; white: Ta20", "two pieces in Time-warp"),
            ("blue: Ta1", "white"),
            ("blue: Ta1; white: Ta20; to move: red", "not a player"),
            ("blue: Ta1 Xa2; white: Ta20", "not a piece"),
            ("green: Ta1", "not blue"),
        ],
    )
    def test_bad_positions(self, text, words):
        with pytest.raises(NotationError, match=words):
            parse_position(text)


def test_play_turn_is_atomic():
    g = game(EXAMPLE_OF_PLAY)
    with pytest.raises(IllegalMoveError):
        g.play_turn(parse_turn("-Rb1; T(c2)d1; W(b4)a8"))
    assert g.move_stack == [] and not g.can_redo()
    assert g.position == parse_position(EXAMPLE_OF_PLAY)


def test_ambiguous_short_notation_names_the_choices():
    g = game("blue: Tc2 Wb4 Wb6 Ra1; white: Ta20 Ga22 Wa24; to move: blue")
    assert "b4, b6" in reason(g, "Wb5")
    play(g, "Td1")
    assert g.move_stack[-1] == Step(T, S("d1"), S("c2"))
    assert isinstance(parse_action("end"), EndTurn) and isinstance(parse_action("+T"), Warp)
    assert isinstance(parse_action("xWa1"), SuicideCapture)
