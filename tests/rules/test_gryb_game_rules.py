"""The rules of each of the eleven GRYB games: turns, legality, scoring and the end."""

from __future__ import annotations

import pytest

from rules.errors import IllegalMoveError
from rules.gryb.games import (
    Blobs,
    Borg,
    Connection,
    Drangles,
    EzGryb,
    FourthLevel,
    HyperDrangles,
    Interrupt,
    MensGryb,
    SquareDeal,
    SquirrelRace,
)
from rules.gryb.games import GrybMove as M
from rules.gryb.nodes import HEAD, LEAVES, children


def arrange(game, board, **state):
    """Put rings on the board and set state fields directly (a position from the middle of a game)."""
    game.state.board = dict(board)
    for key, value in state.items():
        setattr(game.state, key, value)
    return game


def quad(parent, colour, skip=()):
    return {n: colour for n in children(parent) if n not in skip}


def illegal(game, move) -> str:
    with pytest.raises(IllegalMoveError) as caught:
        game.push(move)
    return str(caught.value)


class TestEzGryb:
    def test_new_rings_go_on_the_top_level_of_the_colour_rolled(self):
        game = EzGryb(seed=1)
        game.push(M.roll(0, "Y"))
        assert game.legal_moves() == [M.place(0, "Y")]
        assert "die shows yellow, but R is red" in illegal(game, M.place(0, "R"))
        assert "top quadrangle" in illegal(game, M.place(0, "GY"))
        game.push(M.place(0, "Y"))
        assert game.to_move == 1 and game.die() == "colour"

    def test_moves_down_and_sideways_captures(self):
        game = arrange(EzGryb(seed=1), {"G": 0, "R": 1, "GB": 1})
        game.push(M.roll(0, "B"))
        assert game.legal_moves() == [M.place(0, "B")]  # GB is taken, B is not an opposing ring
        game.pop()
        game.push(M.roll(0, "R"))
        assert M.step(0, "G", "R") in game.legal_moves()  # capture
        assert M.step(0, "G", "GR") in game.legal_moves()  # down
        game.push(M.step(0, "G", "R"))
        assert game.position() == {"R": 0, "GB": 1}
        assert game.state.in_hand == [32, 33]  # the captured ring went home

    def test_sideways_only_to_capture(self):
        game = arrange(EzGryb(seed=1), {"G": 0})
        game.push(M.roll(0, "R"))
        assert "must capture" in illegal(game, M.step(0, "G", "R"))

    def test_captured_rings_can_leave_the_game(self):
        game = arrange(EzGryb({"captured-return": False}, seed=1), {"G": 0, "R": 1})
        game.push(M.roll(0, "R"))
        game.push(M.step(0, "G", "R"))
        assert game.state.in_hand == [32, 32]

    def test_a_gryb_wins_with_binary_points(self):
        game = arrange(EzGryb(seed=1), {**quad("RY", 0, skip=("RYB",)), "RY": 0})
        game.push(M.roll(0, "B"))
        game.push(M.step(0, "RY", "RYB"))
        outcome = game.outcome()
        assert outcome.winner == 0 and "RY" in outcome.reason
        assert outcome.lines == (children("RY"),)
        assert game.scores == (4, 0)
        assert "game is over" in illegal(game, M.roll(1, "G"))

    def test_a_roll_without_a_move_passes_the_turn(self):
        game = arrange(EzGryb(seed=1), {"G": 1, "R": 1, "Y": 1, "B": 1})
        game.push(M.roll(0, "G"))  # nothing to place, no ring to move
        assert game.to_move == 1 and game.die() == "colour"

    def test_nobody_can_move_is_a_draw(self):
        game = arrange(EzGryb(seed=1), {}, in_hand=[0, 0])  # every ring lost for good
        game.push(M.roll(0, "G"))
        assert game.outcome().winner is None and "neither" in game.outcome().reason


class TestSquirrelRace:
    def test_phase_one_places_nuts_where_rolled(self):
        game = SquirrelRace({"nuts": 3}, seed=1)
        assert game.die() == "leaf"
        game.push(M.roll(0, "GGBY"))
        assert game.legal_moves() == [M.place(0, "GGBY")]
        assert "node rolled" in illegal(game, M.place(0, "GGBR"))
        game.push(M.place(0, "GGBY"))
        game.push(M.roll(1, "GGBY"))  # occupied: roll again
        assert game.to_move == 1 and game.die() == "leaf"

    def test_squirrels_gather_nuts_worth_two_or_one(self):
        game = SquirrelRace({"nuts": 4}, seed=1)
        for player, leaf in ((0, "GGBY"), (1, "GGBR"), (0, "GGRR"), (1, "BBBB")):
            game.push(M.roll(player, leaf))
            game.push(M.place(player, leaf))
        assert game.state.phase == 2 and game.die() == "colour"
        game.push(M.roll(0, "B"))
        assert M.place(0, "GGB") in game.legal_moves() and M.place(0, "GG") not in game.legal_moves()
        game.push(M.place(0, "GGB"))
        assert game.scores == (3, 0) and game.state.piles[0] == [1, 1]
        assert game.position() == {"GGB": 0, "GGRR": 0, "BBBB": 1}
        game.push(M.roll(1, "Y"))
        game.push(M.place(1, "BBY"))
        assert game.die() is None  # once on the board, squirrels move without a roll
        assert M.step(0, "GGB", "GGY") in game.legal_moves()  # sideways
        assert M.step(0, "GGB", "BGB") in game.legal_moves()  # hyperspace
        assert "sideways or via hyperspace" in illegal(game, M.step(0, "GGB", "YYY"))
        game.push(M.step(0, "GGB", "GGY"))
        game.push(M.step(1, "BBY", "BBB"))  # gathers its own BBBB: 2 points
        assert game.scores == (3, 2)
        game.push(M.step(0, "GGY", "GGR"))
        assert game.outcome().winner == 0 and "every nut" in game.outcome().reason
        assert game.scores == (5, 2)

    def test_squirrels_do_not_share_a_node(self):
        game = arrange(SquirrelRace({"nuts": 1}, seed=1), {"GGB": 0, "GGY": 1, "YYYY": 0},
                       phase=2, markers={0: "GGB", 1: "GGY"})
        assert M.step(0, "GGB", "GGY") not in game.legal_moves()
        assert M.step(0, "GGB", "GGG") in game.legal_moves()

    def test_roll_each_move_option(self):
        game = arrange(SquirrelRace({"nuts": 1, "roll-each-move": True}, seed=1),
                       {"GGB": 0, "YYYY": 0}, phase=2, markers={0: "GGB"})
        assert game.die() == "colour"
        game.push(M.roll(0, "Y"))
        assert game.legal_moves() == [M.step(0, "GGB", "GGY")]


class TestDrangles:
    def test_two_steps_a_turn_entering_through_the_head(self):
        game = Drangles(seed=1)
        assert game.legal_moves() == [M.place(0, HEAD)]
        game.push(M.place(0, HEAD))
        assert game.to_move == 0
        game.push(M.step(0, HEAD, "G"))
        assert game.to_move == 1
        assert "head node" in illegal(game, M.place(1, "R"))

    def test_moves_are_down_or_sideways_to_free_nodes(self):
        game = arrange(Drangles(seed=1), {"G": 0, "GR": 1})
        legal = set(game.legal_moves())
        assert M.step(0, "G", "GY") in legal and M.step(0, "G", "R") in legal
        assert M.step(0, "G", "Y") not in legal  # two lengths away
        assert M.step(0, "G", HEAD) not in legal  # no moving up
        assert "down or sideways" in illegal(game, M.step(0, "G", "Y"))

    def test_passing_over_an_occupied_node(self):
        game = arrange(Drangles(seed=1), {"G": 0, "GR": 1})
        game.push(M.step(0, "G", "GR"))  # over the opposing ring...
        assert game.position() == {"GR": 0}  # ...which it covers for now
        assert set(game.legal_moves()) == {M.step(0, "GR", t) for t in ("GG", "GY", "GRG", "GRR", "GRY", "GRB")}
        game.push(M.step(0, "GR", "GRB"))
        assert game.position() == {"GR": 1, "GRB": 0}
        # only the first step of a turn may pass over a ring
        game2 = arrange(Drangles(seed=1), {"G": 0, "B": 0, "GR": 1})
        game2.push(M.step(0, "B", "BB"))
        assert "only the first step" in illegal(game2, M.step(0, "G", "GR"))

    def test_a_whole_turn_seen_at_once(self):
        game = arrange(Drangles(seed=1), {"G": 0, "GR": 1})
        judgement = game.judge({"GR": 1, "GRB": 0})
        assert judgement.moves == (M.step(0, "G", "GR"), M.step(0, "GR", "GRB"))

    def test_gryb_wins(self):
        game = arrange(Drangles(seed=1), {**quad("", 0, skip=("B",)), "GG": 1})
        game.push(M.step(0, "G", "B"))
        assert game.outcome() is None  # G left its corner
        game = arrange(Drangles(seed=1), {**quad("", 0, skip=("B",)), "BG": 1, "GG": 0})
        game.push(M.place(0, HEAD))
        game.push(M.step(0, HEAD, "B"))
        assert game.outcome().winner == 0 and game.scores == (1, 0)

    def test_hyper_drangles_adds_hyperspace(self):
        assert M.step(0, "GY", "BY") not in arrange(Drangles(seed=1), {"GY": 0}).legal_moves()
        assert M.step(0, "GY", "BY") in arrange(HyperDrangles(seed=1), {"GY": 0}).legal_moves()


class TestFourthLevel:
    def test_phases(self):
        game = FourthLevel({"pieces-per-player": 4}, seed=2)
        leaves = iter(LEAVES[::7])
        while game.state.phase == 1:
            game.push(M.roll(game.to_move, next(leaves)))
            game.push(game.legal_moves()[0])
        assert len(game.position()) == 8 and game.die() is None
        for move in game.legal_moves():
            assert len(move.to[0]) == 4 and move.to[0] not in game.position()

    def test_only_a_bottom_gryb_wins(self):
        game = arrange(FourthLevel(seed=2), {**quad("GGG", 0, skip=("GGGB",)), "GGRB": 0},
                       phase=2, in_hand=[0, 0])
        assert "sideways or via hyperspace" in illegal(game, M.step(0, "GGRB", "GGR"))
        game.push(M.step(0, "GGRB", "GGGB"))  # hyperspace R -> G
        assert game.outcome().winner == 0 and game.scores == (8, 0)


class TestInterrupt:
    def test_chains_from_the_top(self):
        game = arrange(Interrupt(seed=1), {"R": 0, "RY": 0, "B": 1, "BY": 1, "G": 0, "GG": 1})
        game.push(M.roll(0, "G"))
        legal = set(game.legal_moves())
        assert M.place(0, "RG") in legal and M.place(0, "RYG") in legal
        assert M.place(0, "GGG") not in legal  # GG is not ours
        assert M.place(0, "BYG") not in legal
        assert "chain of yours" in illegal(game, M.place(0, "BYG"))

    def test_a_capture_interrupts_the_chain(self):
        game = arrange(Interrupt(seed=1), {"R": 0, "RY": 0, "RB": 1}, to_move=1)
        game.push(M.roll(1, "Y"))
        game.push(M.step(1, "RB", "RY"))
        assert game.position() == {"R": 0, "RY": 1}
        game.push(M.roll(0, "G"))
        assert M.place(0, "RYG") not in game.legal_moves()
        assert M.place(0, "RG") in game.legal_moves()

    def test_no_moving_down(self):
        game = arrange(Interrupt(seed=1), {"R": 0})
        game.push(M.roll(0, "G"))
        assert M.step(0, "R", "RG") not in game.legal_moves()
        assert "only move sideways" in illegal(game, M.step(0, "R", "RG"))


class TestConnection:
    def test_set_up_and_corners_stay(self):
        game = Connection(seed=1)
        assert set(game.legal_moves()) == {M.place(0, "GGGG", "YYYY"), M.place(0, "RRRR", "BBBB")}
        game.push(M.place(0, "RRRR", "BBBB"))
        assert game.legal_moves() == [M.place(1, "GGGG", "YYYY")]
        game.push(M.place(1, "GGGG", "YYYY"))
        assert game.die() == "colour"
        game.push(M.roll(0, "R"))
        assert "stays put" in illegal(game, M.step(0, "RRRR", "RRRG"))
        assert M.place(0, "R") in game.legal_moves()

    def test_winning_path(self):
        path = ["GGGG", "GGG", "GG", "G", "Y", "YY", "YYY", "YYYY"]  # G and Y are joined via B
        board = {n: 0 for n in path}
        board.update({"BB": 0, "RRRR": 1, "BBBB": 1})
        game = arrange(Connection(seed=1), board, phase=2, markers={0: "GGGG", 1: "RRRR"})
        game.push(M.roll(0, "B"))
        assert "limited hyperspace" in illegal(game, M.step(0, "BB", "BRB"))
        game.push(M.step(0, "BB", "B"))  # up
        outcome = game.outcome()
        assert outcome.winner == 0 and "GGGG to YYYY" in outcome.reason
        assert outcome.lines == (("GGGG", "GGG", "GG", "G", "B", "Y", "YY", "YYY", "YYYY"),)

    def test_limited_hyperspace_links(self):
        game = arrange(Connection(seed=1), {"GY": 0}, phase=2, markers={0: "GGGG", 1: "RRRR"})
        game.push(M.roll(0, "Y"))
        assert M.step(0, "GY", "BY") in game.legal_moves()


BLOB = {"G": 0, "GG": 0, "GR": 0, "GY": 0}


class TestBlobs:
    def test_small_groups_move_freely_blobs_ooze(self):
        game = arrange(Blobs(seed=1), {**BLOB, "YYYY": 0, "RRRR": 1}, phase=2, in_hand=[0, 0])
        legal = set(game.legal_moves())
        assert M.step(0, "YYYY", "YYRY") in legal  # hyperspace
        assert M.step(0, "YYYY", "YYY") in legal  # up
        assert M.step(0, "G", "B") not in legal  # G holds the blob together
        assert M.step(0, "GY", "GB") in legal  # an edge ring oozes next to the rest
        assert M.step(0, "GY", "GGG") in legal  # leap-frogging to the far side
        assert M.step(0, "GY", "YYYR") not in legal
        assert "oozes" in illegal(game, M.step(0, "GY", "YYYR"))

    def test_lines_and_shapes_move_as_blocks(self):
        game = arrange(Blobs(seed=1), {"BRY": 0, "BRR": 0, "GGGG": 1}, phase=2, in_hand=[0, 0])
        legal = set(game.legal_moves())
        assert M.block(0, ("BRY", "BRR"), ("BGY", "BGR")) in legal
        assert M.block(0, ("BRY", "BRR"), ("RY", "RR")) in legal

    def test_blobs_devour_smaller_groups_only(self):
        board = {**BLOB, "GB": 1, "R": 1, "RG": 1, "RR": 1, "RY": 1}
        game = arrange(Blobs(seed=1), board, phase=2, in_hand=[0, 0])
        assert M.step(0, "GY", "GB") in game.legal_moves()  # a lone ring
        assert M.step(0, "GY", "R") not in game.legal_moves()  # a blob of 4 is not smaller
        game.push(M.step(0, "GY", "GB"))
        assert game.position()["GB"] == 0 and game.scores == (1, 0)

    def test_decisive_win_and_draw(self):
        game = arrange(Blobs(seed=1), {**BLOB, "BBBB": 1, "YB": 1, "YGB": 1, "YR": 1},
                       phase=2, in_hand=[0, 0])
        game.push(M.step(0, "GY", "GB"))  # nothing devoured yet: opponent still has 4
        assert game.outcome() is None
        board = {**BLOB, "YYYY": 1, "YYYR": 1, "YYYG": 1, "YYY": 1}
        game = arrange(Blobs(seed=1), board, phase=2, in_hand=[0, 0], to_move=1)
        game.push(M.step(1, "YYYY", "YYYB"))
        assert game.outcome().winner is None and "one blob of 4 each" in game.outcome().reason


class TestBorg:
    def test_collectives_assimilate_neighbours(self):
        board = {"G": 0, "GG": 0, "GR": 0, "GY": 0, "GBB": 1, "GBG": 1, "BB": 1}
        game = arrange(Borg(seed=1), board, phase=2, in_hand=[0, 0])
        game.push(M.step(0, "GY", "GB"))
        # GBB and GBG are beneath GB, so contiguous to it; BB is not
        assert game.position()["GBB"] == 0 and game.position()["GBG"] == 0
        assert game.position()["BB"] == 1
        assert len(game.position()) == len(board)
        assert game.scores == (6, 1)

    def test_win_when_all_assimilated(self):
        board = {"G": 0, "GG": 0, "GR": 0, "GY": 0, "GBB": 1}
        game = arrange(Borg(seed=1), board, phase=2, in_hand=[0, 0])
        game.push(M.step(0, "GY", "GB"))
        assert game.outcome().winner == 0


class TestSquareDeal:
    def test_any_colours_complete_a_gryb_in_phase_one(self):
        game = arrange(SquareDeal(seed=1), {"RG": 0, "RR": 1, "RY": 1}, in_hand=[19, 18])
        game.push(M.roll(0, "RB"))
        game.push(M.place(0, "RB"))
        assert game.position() == {}
        assert game.state.piles[0] == [2, 2] and game.scores == (2, 0)

    def test_phase_two_moves_and_the_end(self):
        board = {"RG": 0, "RR": 1, "RY": 1, "RBB": 0, "GGGG": 1}
        game = arrange(SquareDeal(seed=1), board, phase=2, in_hand=[0, 0])
        assert M.step(0, "RBB", "RB") in game.legal_moves()
        game.push(M.step(0, "RBB", "RB"))
        assert game.position() == {"GGGG": 1}
        assert game.outcome().winner == 0 and "too few rings" in game.outcome().reason

    def test_easy_version_has_no_interjection(self):
        board = {"RG": 0, "GGGG": 1, "BBBB": 1, "YYYY": 1, "RRRR": 1}
        hard = arrange(SquareDeal(seed=1), board, phase=2, in_hand=[0, 0])
        easy = arrange(SquareDeal({"easy": True}, seed=1), board, phase=2, in_hand=[0, 0])
        assert M.step(0, "RG", "RYG") in hard.legal_moves()
        assert M.step(0, "RG", "RYG") not in easy.legal_moves()
        assert M.step(0, "RG", "YG") in easy.legal_moves()


class TestMensGryb:
    def test_placement_anywhere_then_a_gryb_removes_pieces(self):
        game = arrange(MensGryb(seed=1), {**quad("GYB", 0, skip=("GYBB",)), "R": 1, "RR": 1, "B": 1,
                                           "BB": 1, "BBB": 1})
        game.push(M.place(0, "GYBB"))  # a bottom-level GRYB: remove 4
        assert game.to_move == 0 and game.state.to_remove == 4
        assert "remove exactly 4" in illegal(game, M.remove(0, "R"))
        judgement = game.judge({n: c for n, c in game.position().items() if n not in ("R", "RR", "B", "BB")})
        assert judgement.moves == (M.remove(0, "B", "BB", "R", "RR"),)
        game.push(M.remove(0, "R", "RR", "B", "BB"))
        assert game.to_move == 1 and game.scores == (4, 0)

    def test_reduced_to_three_loses(self):
        game = arrange(MensGryb(seed=1), {**quad("", 0, skip=("B",)), "GG": 1, "GR": 1},
                       in_hand=[5, 2], phase=1)
        game.push(M.place(0, "B"))
        game.push(M.remove(0, "GG"))
        assert game.outcome().winner == 0 and "only 3 rings" in game.outcome().reason

    def test_phase_two_moves(self):
        game = arrange(MensGryb(seed=1), {"G": 0, "R": 1}, phase=2, in_hand=[0, 0])
        legal = set(game.legal_moves())
        assert M.step(0, "G", HEAD) in legal and M.step(0, "G", "B") in legal
        assert M.step(0, "G", "R") not in legal
        assert "free node" in illegal(game, M.step(0, "G", "GYB"))


class TestJudgeExplains:
    """An illegal change gets reasons a player understands; the accepted position stays."""

    def test_wrong_colour_for_the_roll(self):
        game = EzGryb(seed=1)
        game.push(M.roll(0, "Y"))
        judgement = game.judge({"R": 0})
        assert judgement.reasons == ("the die shows yellow, but R is red",)
        assert judgement.changed == ("R",) and not judgement.moves
        assert game.position() == {}

    def test_two_rings_at_once(self):
        game = MensGryb(seed=1)
        judgement = game.judge({"G": 0, "R": 0})
        assert judgement.reasons[0] == "2 rings placed at once (G, R)"

    def test_out_of_turn(self):
        game = EzGryb(seed=1)
        game.push(M.roll(0, "Y"))
        assert game.judge({"Y": 1}).reasons == ("a ring of player 2 appeared on Y", "it is player 1's turn")

    def test_the_roll_is_read_from_the_move(self):
        game = arrange(EzGryb(seed=1), {"Y": 0}, to_move=1)
        judgement = game.judge({"Y": 0, "G": 1})
        assert judgement.moves == (M.roll(1, "G"), M.place(1, "G"))

    def test_a_ring_moved_the_wrong_way(self):
        game = arrange(Drangles(seed=1), {"GG": 0})
        assert game.judge({"G": 0}).reasons == ("rings move down or sideways to a free node, one step at a time",)
        assert game.judge({"GY": 0}).reasons == ("rings move down or sideways to a free node, one step at a time",)

    def test_take_back(self):
        game = EzGryb(seed=1)
        game.push_all([M.roll(0, "Y"), M.place(0, "Y"), M.roll(1, "B")])
        judgement = game.judge({})
        assert judgement.take_back and judgement.reasons == ("the last move (+Y) was taken back",)

    def test_a_legal_move_with_the_rest_undone(self):
        game = SquirrelRace({"nuts": 2}, seed=1)
        game.push_all([M.roll(0, "GGBY"), M.place(0, "GGBY"), M.roll(1, "YYYY"), M.place(1, "YYYY")])
        judgement = game.judge({"GGB": 0, "GGBY": 0, "YYYY": 1})  # squirrel in, nut not taken yet
        expected = "+GGB is legal, but the rest of the board does not match it: GGBY should be empty"
        assert judgement.reasons == (expected,)
        assert game.judge({"GGB": 0, "YYYY": 1}).moves == (M.roll(0, "B"), M.place(0, "GGB"))

    def test_after_the_end(self):
        game = arrange(Drangles(seed=1), {**quad("", 0, skip=("B",)), "BG": 1, "GG": 0})
        game.push_all([M.place(0, HEAD), M.step(0, HEAD, "B")])
        judgement = game.judge({**game.position(), "YYYY": 1})
        assert judgement.reasons[0].startswith("the game is over: player 1 got a GRYB under 0")

    def test_a_devouring_ooze_seen_by_the_camera(self):
        board = {**BLOB, "GB": 1, "RRRR": 1}
        game = arrange(Blobs(seed=1), board, phase=2, in_hand=[0, 0])
        after = {**BLOB, "GB": 0, "RRRR": 1}
        del after["GY"]
        assert game.judge(after).moves == (M.step(0, "GY", "GB"),)

    def test_an_assimilation_seen_by_the_camera(self):
        board = {"G": 0, "GG": 0, "GR": 0, "GY": 0, "GBB": 1, "BB": 1}
        game = arrange(Borg(seed=1), board, phase=2, in_hand=[0, 0])
        assert game.judge({"G": 0, "GG": 0, "GR": 0, "GB": 0, "GBB": 0, "BB": 1}).moves == (
            M.step(0, "GY", "GB"),
        )
        forgot = game.judge({"G": 0, "GG": 0, "GR": 0, "GB": 0, "GBB": 1, "BB": 1})
        expected = "GY-GB is legal, but the rest of the board does not match it: GBB should hold"
        assert forgot.reasons == (expected + " a ring of player 1",)


def test_a_drangles_turn_ends_early_when_no_second_step_is_possible():
    # player 1's only ring goes down into a corner whose neighbours are all taken
    board = {"GGG": 0, **quad("GGG", 1, skip=("GGGB",)), "GG": 1}
    game = arrange(Drangles({"pieces-per-player": 1}, seed=1), board, in_hand=[0, 5])
    assert M.step(0, "GGG", "GGGB") in game.legal_moves()
    game.push(M.step(0, "GGG", "GGGB"))
    assert game.to_move == 1 and game.state.steps_left == 2


def test_square_deal_captures_seen_by_the_camera():
    board = {"RG": 0, "RR": 1, "RY": 1, "RBB": 0, "GGGG": 1, "BBBB": 0, "YYYY": 1, "YYYR": 0}
    game = arrange(SquareDeal(seed=1), board, phase=2, in_hand=[0, 0])
    after = {"GGGG": 1, "BBBB": 0, "YYYY": 1, "YYYR": 0}
    assert game.judge(after).moves == (M.step(0, "RBB", "RB"),)
    placing = arrange(SquareDeal(seed=1), {"RG": 0, "RR": 1, "RY": 1}, in_hand=[19, 18])
    assert placing.judge({}).moves == (M.roll(0, "RB"), M.place(0, "RB"))  # the roll is inferred


def test_judge_reasons_for_removals():
    game = arrange(MensGryb(seed=1), {**quad("GYB", 0), "R": 1, "RR": 1, "B": 1, "BB": 1, "BBB": 1},
                   to_remove=4)
    too_few = {n: c for n, c in game.position().items() if n not in ("R", "RR")}
    assert game.judge(too_few).reasons == ("remove exactly 4 of player 2's rings first",)
    plain = arrange(EzGryb(seed=1), {"G": 0, "R": 1})
    assert plain.judge({"R": 1}).reasons == ("the ring of player 1 was taken off G",)
    assert plain.judge({"Y": 0}).reasons == (
        "rings move one level down, or sideways to capture", "the ring of player 2 was taken off R"
    )
    assert plain.judge({"R": 0, "B": 1}).reasons == (
        "G-R is legal, but the rest of the board does not match it: B should be empty",
    )
    several = ("several changes at once: the ring of player 1 was taken off G; "
               "a ring of player 1 appeared on GG; a ring of player 1 appeared on GR")
    assert plain.judge({"GG": 0, "GR": 0, "R": 1}).reasons == (several,)


def test_a_line_moved_as_a_block_seen_by_the_camera():
    game = arrange(Blobs(seed=1), {"BRY": 0, "BRR": 0, "GGGG": 1}, phase=2, in_hand=[0, 0])
    judgement = game.judge({"BGY": 0, "BGR": 0, "GGGG": 1})
    assert judgement.moves == (M.block(0, ("BRY", "BRR"), ("BGY", "BGR")),)
    assert judgement.moves[0].describe() == "player 1 moved [BRR, BRY] to [BGR, BGY]"
