"""The referee on hand-written snapshots: every judge case and every operator action."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from device.referee import Referee, RefereeError
from rules.timevectors import GameConfig, Move, TimeVectorsGame, parse_point
from rules.timevectors.points import point_name
from tests.device.referee_feed import SnapshotFeed, kinds, records
from vision.observation import Snapshot

P = parse_point


class Table(SnapshotFeed):
    """A referee fed snapshots written as ``{"A3Q": 0}``; returns event records without time."""

    def __init__(self, config: GameConfig | None = None, restart: bool = True) -> None:
        config = config or GameConfig()
        self.game = TimeVectorsGame(config)
        restarts = (lambda: TimeVectorsGame(config)) if restart else None
        super().__init__(Referee(self.game, new_game=restarts), P)

    def play(self, *moves: tuple[str, int]) -> dict[str, int]:
        """Feed one snapshot per move (a normal game); returns the board."""
        board: dict[str, int] = {}
        for name, colour in moves:
            board[name] = colour
            assert kinds(self.see(board)) == ["move"]
        return board


class TestMoves:
    def test_unchanged_board_says_nothing(self) -> None:
        t = Table()
        assert t.see({}) == []
        assert t.see({}) == []

    def test_one_token_of_the_colour_to_move_is_a_move(self) -> None:
        t = Table()
        assert t.see({"A3Q": 0}) == [{"type": "move", "frame": 1, "point": "A3Q", "color": 0}]
        assert t.referee.game.board == {P("A3Q"): 0}
        assert t.see({"A3Q": 0, "H8S": 1}) == [
            {"type": "move", "frame": 2, "point": "H8S", "color": 1}
        ]

    def test_fast_two_token_move_is_two_moves_in_turn_order(self) -> None:
        t = Table()
        t.play(("A3Q", 0))
        assert t.see({"A3Q": 0, "H8S": 1, "B3Q": 0}) == [
            {"type": "move", "frame": 2, "point": "H8S", "color": 1},
            {"type": "move", "frame": 2, "point": "B3Q", "color": 0},
        ]
        assert t.game.move_stack == [Move(P("A3Q"), 0), Move(P("H8S"), 1), Move(P("B3Q"), 0)]

    def test_win_reports_the_vector(self) -> None:
        t = Table()
        board = t.play(("A1S", 0), ("F6Q", 1), ("B1R", 0), ("G7R", 1), ("C1Q", 0), ("H8S", 1))
        assert t.see({**board, "D1P": 0}) == [
            {"type": "move", "frame": 7, "point": "D1P", "color": 0},
            {"type": "win", "frame": 7, "color": 0, "vectors": [["A1S", "B1R", "C1Q", "D1P"]]},
        ]
        assert t.referee.mismatch_points() == []

    def test_tokens_placed_after_a_win_in_the_same_snapshot_are_illegal(self) -> None:
        t = Table()
        board = t.play(("A1P", 0), ("A8S", 1), ("B1P", 0), ("B8S", 1), ("C1P", 0))
        recs = t.see({**board, "C8S": 1, "D1P": 0, "D8S": 1})
        assert kinds(recs) == ["move", "move", "win", "illegal"]
        assert recs[2]["vectors"] == [["A1P", "B1P", "C1P", "D1P"]]
        assert recs[3]["points"] == ["D8S"]
        assert "after the end" in recs[3]["reasons"][0]

    def test_swap_opening_recolours_the_first_token(self) -> None:
        t = Table(GameConfig(opening="swap"))
        t.play(("A3Q", 0))
        assert t.see({"A3Q": 1}) == [
            {"type": "move", "frame": 2, "point": "A3Q", "color": 1, "kind": "swap"}
        ]
        assert t.game.turn_color() == 0
        assert kinds(t.see({"A3Q": 1, "B3Q": 0})) == ["move"]

    def test_draw_when_supplies_run_out(self) -> None:
        t = Table(GameConfig(supply=1))
        t.play(("A1P", 0))
        recs = t.see({"A1P": 0, "B1P": 1})
        assert kinds(recs) == ["move", "draw"]
        assert "no tokens left" in recs[1]["reason"]


class TestIllegal:
    def test_two_tokens_of_one_colour_then_restored(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0))
        recs = t.see({**board, "B3Q": 0, "C3Q": 0})
        assert recs == [
            {
                "type": "illegal",
                "frame": 2,
                "reasons": ["two colour 0 tokens placed"],
                "points": ["B3Q", "C3Q"],
                "take_back": False,
            }
        ]
        assert t.referee.mismatch_points() == [P("B3Q"), P("C3Q")]
        assert t.game.board == {P("A3Q"): 0}
        assert t.see({**board, "B3Q": 0, "C3Q": 0}) == []  # the same wrong board: no second alert
        assert t.see(board) == [{"type": "restored", "frame": 4, "points": ["B3Q", "C3Q"]}]
        assert t.referee.mismatch_points() == [] and t.referee.pending is None

    def test_a_different_wrong_board_is_a_new_alert(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0))
        assert kinds(t.see({**board, "B3Q": 0, "C3Q": 0})) == ["illegal"]
        recs = t.see({})
        assert kinds(recs) == ["illegal"] and recs[0]["take_back"] is True
        assert recs[0]["reasons"] == ["token removed from A3Q"]

    def test_moved_token(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0), ("H8S", 1))
        recs = t.see({"B3Q": 0, "H8S": 1})
        assert recs[0]["reasons"] == ["token moved from A3Q to B3Q"]
        assert recs[0]["points"] == ["A3Q", "B3Q"]
        assert t.see(board) == [{"type": "restored", "frame": 4, "points": ["A3Q", "B3Q"]}]

    def test_out_of_turn(self) -> None:
        t = Table()
        recs = t.see({"A3Q": 1})
        assert recs[0]["reasons"] == ["colour 1 played out of turn"]

    def test_illegal_then_fixed_into_a_legal_move(self) -> None:
        t = Table()
        assert kinds(t.see({"A3Q": 0, "B3Q": 0})) == ["illegal"]
        assert t.see({"A3Q": 0}) == [
            {"type": "restored", "frame": 2, "points": ["A3Q", "B3Q"]},
            {"type": "move", "frame": 2, "point": "A3Q", "color": 0},
        ]

    def test_hidden_points_keep_the_game_state(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0))
        # A3Q is hidden and the tracker did not list it: not a removal.
        assert t.see({}, hidden=("A3Q",)) == []
        # A token read on a hidden point is not taken as a move either.
        assert t.see({**board, "H8S": 1}, hidden=("H8S",)) == []
        assert t.game.board == {P("A3Q"): 0}


class TestOperator:
    def test_accept_take_back(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0), ("H8S", 1))
        del board["H8S"]
        recs = t.see(board)
        assert recs[0]["take_back"] is True
        assert records(t.referee.accept()) == [
            {"type": "undo", "frame": 3, "point": "H8S", "color": 1, "reason": "take-back accepted"}
        ]
        assert t.game.move_stack == [Move(P("A3Q"), 0)]
        assert t.referee.pending is None
        assert t.see(board) == []
        assert kinds(t.see({**board, "G2P": 1})) == ["move"]

    def test_accept_a_removal_keeps_the_game_and_reads_the_point_as_the_game_has_it(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0), ("H8S", 1))
        knocked = {"H8S": 1}  # A3Q knocked off the board (not the last move)
        assert t.see(knocked)[0]["reasons"] == ["token removed from A3Q"]
        assert records(t.referee.accept()) == [{"type": "accepted", "frame": 3, "points": ["A3Q"]}]
        assert t.game.board == {P("A3Q"): 0, P("H8S"): 1}
        assert t.referee.mismatch_points() == []
        assert t.see(knocked) == []  # the accepted board again: quiet
        assert kinds(t.see({**knocked, "C5R": 0})) == ["move"]  # play goes on around it
        assert t.see({**board, "C5R": 0}) == []  # the token put back: consistent again

    def test_accept_moved_tokens_rewrites_where_the_moves_went(self) -> None:
        t = Table()
        t.play(("A3P", 0), ("H8S", 1))  # the first token was misread a tier low
        recs = t.see({"A3Q": 0, "H8S": 1})
        assert recs[0]["reasons"] == ["token moved from A3P to A3Q"]
        assert records(t.referee.accept()) == [
            {"type": "accepted", "frame": 3, "points": ["A3P", "A3Q"], "moved": [["A3P", "A3Q"]]}
        ]
        assert t.game.move_stack == [Move(P("A3Q"), 0), Move(P("H8S"), 1)]
        assert t.referee.overrides == {} and t.referee.pending is None
        assert t.see({"A3Q": 0, "H8S": 1}) == []
        assert kinds(t.see({"A3Q": 0, "H8S": 1, "B2Q": 0})) == ["move"]

    def test_accept_moved_token_that_completes_a_vector_is_a_win(self) -> None:
        t = Table()
        board = t.play(
            ("A1P", 0), ("A8S", 1), ("B1P", 0), ("B8S", 1), ("C1P", 0), ("G5R", 1), ("D2P", 0)
        )
        del board["D2P"]
        assert kinds(t.see({**board, "D1P": 0})) == ["illegal"]
        recs = records(t.referee.accept())
        assert kinds(recs) == ["accepted", "win"]
        assert recs[1]["vectors"] == [["A1P", "B1P", "C1P", "D1P"]]

    def test_accept_moved_token_whose_history_would_have_ended_earlier_keeps_the_game(self) -> None:
        t = Table()
        board = t.play(
            ("D2P", 0),
            ("A8S", 1),
            ("A1P", 0),
            ("B8S", 1),
            ("B1P", 0),
            ("G5R", 1),
            ("C1P", 0),
            ("H2S", 1),
            ("E5R", 0),
        )
        moves = t.game.move_stack
        del board["D2P"]
        assert kinds(t.see({**board, "D1P": 0})) == ["illegal"]
        recs = records(t.referee.accept())
        assert recs == [{"type": "accepted", "frame": 10, "points": ["D1P", "D2P"]}]
        assert t.game.move_stack == moves and not t.game.is_over()

    def test_accept_with_nothing_pending_is_refused(self) -> None:
        t = Table()
        t.see({})
        with pytest.raises(RefereeError, match="nothing to accept"):
            t.referee.accept()

    def test_correct_a_misread_colour(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0), ("H8S", 1))
        misread = {**board, "A3Q": 1}
        recs = t.see(misread)
        assert recs[0]["reasons"] == ["token on A3Q changed from colour 0 to colour 1"]
        assert records(t.referee.correct(P("A3Q"), 0)) == [
            {"type": "corrected", "frame": 3, "point": "A3Q", "color": 0, "read": 1},
            {"type": "restored", "frame": 3, "points": ["A3Q"]},
        ]
        assert t.see(misread) == []
        assert kinds(t.see({**misread, "B2P": 0})) == ["move"]
        assert t.game.board[P("A3Q")] == 0

    def test_correct_a_missed_token_plays_the_move(self) -> None:
        t = Table()
        t.see({})
        assert records(t.referee.correct(P("D4R"), 0)) == [
            {"type": "corrected", "frame": 1, "point": "D4R", "color": 0, "read": None},
            {"type": "move", "frame": 1, "point": "D4R", "color": 0},
        ]
        assert t.see({}) == []  # the camera still misses it: the correction holds
        assert t.see({"D4R": 0}) == []  # now it sees it: consistent
        assert t.see({}) == []  # a faint token lost again is the same token, not removed
        assert t.referee.overrides == {P("D4R"): (None, 0)}
        assert kinds(t.see({"D4R": 1})) == ["illegal"]  # a third reading: the board changed
        assert t.referee.overrides == {}

    def test_a_point_told_empty_lapses_when_the_camera_agrees(self) -> None:
        t = Table()
        t.see({})
        t.see({"C3Q": 0})
        t.referee.undo()  # the move was a misread: the camera's token is ignored
        assert t.referee.overrides == {P("C3Q"): (0, None)}
        assert t.see({}) == [] and t.referee.overrides == {}
        assert kinds(t.see({"C3Q": 0})) == ["move"]  # a token placed later is a move

    def test_restored_overrides_hold_in_a_new_referee(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0), ("H8S", 1))
        misread = {**board, "A3Q": 1}
        t.see(misread)
        t.referee.correct(P("A3Q"), 0)
        resumed = Table()  # a restart: the same game, a new referee given the stored fixes
        resumed.play(("A3Q", 0), ("H8S", 1))
        resumed.referee.restore_overrides(t.referee.overrides)
        assert resumed.see(misread) == []
        assert resumed.referee.overrides == {P("A3Q"): (1, 0)}
        assert kinds(resumed.see(board)) == []  # read as told: the same token, the fix holds
        assert resumed.referee.overrides == {P("A3Q"): (1, 0)}
        assert kinds(resumed.see({k: v for k, v in board.items() if k != "A3Q"})) == ["illegal"]
        assert resumed.referee.overrides == {}
        with pytest.raises(RefereeError, match="index"):
            resumed.referee.restore_overrides({256: (0, None)})

    def test_correct_refuses_before_any_board(self) -> None:
        t = Table()
        with pytest.raises(RefereeError, match="no board"):
            t.referee.correct(P("A1P"), 0)

    @pytest.mark.parametrize("point", [-1, 256, "A1P", True, 3.0])
    def test_bad_points_are_refused(self, point) -> None:
        t = Table()
        t.see({})
        with pytest.raises(RefereeError, match="a point is an index"):
            t.referee.correct(point, 0)
        with pytest.raises(RefereeError, match="a point is an index"):
            t.referee.confirm_hidden(point)

    @pytest.mark.parametrize("color", [-1, "red", True, 1.5])
    def test_bad_colours_are_refused(self, color) -> None:
        t = Table()
        t.see({})
        with pytest.raises(RefereeError, match="a colour is"):
            t.referee.correct(P("A1P"), color)
        assert t.referee.overrides == {}

    def test_undo_of_a_misread_move_ignores_the_token_until_its_reading_changes(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0))
        assert records(t.referee.undo()) == [
            {"type": "undo", "frame": None, "point": "A3Q", "color": 0}
        ]
        assert t.game.move_stack == []
        assert t.see(board) == []  # still read there, but not a move again
        assert t.see({}) == []  # taken off
        assert kinds(t.see({"A3Q": 0})) == ["move"]  # placed again: a move

    def test_undo_with_no_move_is_refused(self) -> None:
        t = Table()
        with pytest.raises(RefereeError, match="no move"):
            t.referee.undo()

    def test_undo_of_a_win_reopens_the_game(self) -> None:
        t = Table()
        board = t.play(("A1P", 0), ("A8S", 1), ("B1P", 0), ("B8S", 1), ("C1P", 0), ("C8S", 1))
        assert kinds(t.see({**board, "D1P": 0})) == ["move", "win"]
        t.referee.undo()
        assert t.game.outcome() is None and t.game.turn_color() == 0


class TestHiddenMoves:
    def test_next_players_token_explained_by_a_hidden_move(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0))
        hidden = ("E5P", "F5P")
        # Colour 1 plays on E5P, which the camera cannot see: nothing changes in view.
        assert t.see(board, hidden=hidden) == []
        # Colour 0's next token makes sense only if colour 1 played on a hidden point.
        recs = t.see({**board, "B3Q": 0}, hidden=hidden)
        assert recs == [
            {
                "type": "confirm_hidden",
                "frame": 3,
                "color": 1,
                "candidates": ["E5P", "F5P"],
                "points": ["B3Q"],
            }
        ]
        assert t.referee.mismatch_points() == [P("B3Q")]
        with pytest.raises(RefereeError, match="not one of the candidate points"):
            t.referee.confirm_hidden(P("H8S"))
        assert records(t.referee.confirm_hidden(P("E5P"))) == [
            {"type": "move", "frame": 3, "point": "E5P", "color": 1, "hidden": True},
            {"type": "move", "frame": 3, "point": "B3Q", "color": 0},
        ]
        assert t.referee.pending is None
        assert t.see({**board, "B3Q": 0}, hidden=hidden) == []

    def test_token_going_out_of_view_asks_for_the_hidden_point(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0))
        # Colour 1 places a token the camera cannot read, and it stands in front of A3Q.
        recs = t.see({}, hidden=("A3Q", "A4Q"))
        assert recs == [
            {
                "type": "confirm_hidden",
                "frame": 2,
                "color": 1,
                "candidates": ["A4Q"],
                "points": [],
                "occluded": ["A3Q"],
            }
        ]
        assert t.see({}, hidden=("A3Q", "A4Q")) == []  # asked once
        recs = records(t.referee.confirm_hidden(P("A4Q")))
        assert recs == [{"type": "move", "frame": 2, "point": "A4Q", "color": 1, "hidden": True}]
        assert t.game.board == {**{P(n): c for n, c in board.items()}, P("A4Q"): 1}

    def test_question_lapses_when_the_lost_token_is_seen_again(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0))
        assert kinds(t.see({}, hidden=("A3Q", "A4Q"))) == ["confirm_hidden"]
        assert t.see(board) == [{"type": "restored", "frame": 3, "points": []}]
        with pytest.raises(RefereeError, match="no move to a hidden point"):
            t.referee.confirm_hidden(P("A4Q"))

    def test_a_player_tells_a_move_nobody_asked_about(self) -> None:
        # The first move goes behind the post: nothing in view changes, nobody is asked.
        t = Table()
        hidden = ("G5P", "G6P")
        assert t.see({}, hidden=hidden) == []
        assert records(t.referee.correct(P("G5P"), 0)) == [
            {
                "type": "corrected",
                "frame": 1,
                "point": "G5P",
                "color": 0,
                "read": None,
                "hidden": True,
            },
            {"type": "move", "frame": 1, "point": "G5P", "color": 0, "hidden": True},
        ]
        assert t.game.board == {P("G5P"): 0} and t.game.turn_color() == 1
        # The next token in view is the second player's, as it should be.
        assert t.see({"B2Q": 1}, hidden=hidden) == [
            {"type": "move", "frame": 2, "point": "B2Q", "color": 1}
        ]

    @pytest.mark.parametrize(
        ("point", "colour", "why"),
        [
            ("G6P", 1, "colour to play \\(0\\)"),
            ("G6P", None, "cannot be corrected"),
            ("G5P", 0, "cannot be corrected"),
        ],
    )
    def test_a_hidden_point_takes_only_the_move_to_play(self, point, colour, why) -> None:
        t = Table()
        t.see({}, hidden=("G5P", "G6P"))
        t.referee.correct(P("G5P"), 0)
        t.see({"B2Q": 1}, hidden=("G5P", "G6P"))
        before = list(t.game.move_stack)
        with pytest.raises(RefereeError, match=why):
            t.referee.correct(P(point), colour)
        assert t.game.move_stack == before and t.referee.overrides == {}

    def test_telling_a_candidate_answers_the_open_question(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0))
        hidden = ("E5P", "F5P")
        t.see(board, hidden=hidden)
        assert kinds(t.see({**board, "B3Q": 0}, hidden=hidden)) == ["confirm_hidden"]
        assert records(t.referee.correct(P("F5P"), 1)) == [
            {"type": "move", "frame": 3, "point": "F5P", "color": 1, "hidden": True},
            {"type": "move", "frame": 3, "point": "B3Q", "color": 0},
        ]
        assert t.referee.pending is None

    def test_a_token_read_again_in_front_of_its_point_moves_its_move(self) -> None:
        # H8S's token is read on B4Q instead (a point in line with it, in front), out of
        # colour 1's turn: the move went there, and the game does not count it twice.
        t = Table()
        t.play(("A3P", 0), ("H8S", 1))
        recs = t.see({"A3P": 0, "B4Q": 1}, hidden=("H8S",))
        assert recs == [
            {
                "type": "accepted",
                "frame": 3,
                "points": ["B4Q", "H8S"],
                "moved": [["H8S", "B4Q"]],
                "reason": "the camera now reads the token on a point in line with the first",
            }
        ]
        assert t.game.move_stack == [Move(P("A3P"), 0), Move(P("B4Q"), 1)]
        assert t.see({"A3P": 0, "B4Q": 1, "C1P": 0}, hidden=("H8S",)) == [
            {"type": "move", "frame": 4, "point": "C1P", "color": 0}
        ]

    def test_a_new_token_in_its_colours_turn_is_a_move_even_if_it_hides_one(self) -> None:
        t = Table()
        t.play(("A3P", 0), ("H8S", 1), ("C1P", 0))
        recs = t.see({"A3P": 0, "C1P": 0, "B4Q": 1}, hidden=("H8S",))
        assert recs == [{"type": "move", "frame": 4, "point": "B4Q", "color": 1}]
        assert t.game.board[P("H8S")] == 1

    def test_two_ways_to_read_a_token_again_are_not_guessed(self) -> None:
        t = Table()
        t.play(("A3P", 0), ("H8S", 1), ("C1P", 0), ("G8S", 1))
        recs = t.see({"A3P": 0, "C1P": 0, "B4Q": 1}, hidden=("H8S", "G8S"))
        assert kinds(recs) == ["illegal"]
        assert t.game.board[P("H8S")] == 1 and t.game.board[P("G8S")] == 1

    def test_no_question_without_a_hidden_empty_point(self) -> None:
        t = Table()
        t.play(("A3Q", 0))
        recs = t.see({"A3Q": 0, "B3Q": 0})
        assert kinds(recs) == ["illegal"]
        with pytest.raises(RefereeError, match="no move to a hidden point"):
            t.referee.confirm_hidden(P("B3Q"))


class TestInLineTossUps:
    """The camera read a new token on A7P but could as well have on D8Q, in line with it."""

    TIE = {"A7P": "D8Q"}

    def _asked(self) -> tuple[Table, dict[str, int]]:
        t = Table()
        board = t.play(("A3Q", 0))
        seen = {**board, "A7P": 1}
        assert not t.referee.is_plausible(t.snapshot(seen, in_line=self.TIE))
        assert t.see(seen, in_line=self.TIE) == [
            {
                "type": "confirm_hidden",
                "frame": 3,
                "color": 1,
                "candidates": ["A7P", "D8Q"],
                "points": ["A7P"],
                "in_line": True,
            }
        ]
        assert t.game.board == {P("A3Q"): 0}  # nothing is played on the camera's guess
        assert t.see(seen, in_line=self.TIE) == []  # asked once
        return t, board

    def test_the_players_point_is_played_and_the_camera_then_read_as_they_said(self) -> None:
        t, board = self._asked()
        assert records(t.referee.confirm_hidden(P("D8Q"))) == [
            {"type": "move", "frame": 3, "point": "D8Q", "color": 1, "in_line": True}
        ]
        assert t.referee.pending is None
        # The camera's reading wavers between the two points, toss-up or not: no alert.
        assert t.see({**board, "A7P": 1}) == []
        assert t.see({**board, "D8Q": 1}) == []
        assert t.see({**board, "A7P": 1}, in_line=self.TIE) == []
        assert t.see({**board, "A7P": 1, "B3Q": 0}, in_line=self.TIE) == [
            {"type": "move", "frame": 8, "point": "B3Q", "color": 0}
        ]
        assert t.game.board == {P("A3Q"): 0, P("D8Q"): 1, P("B3Q"): 0}

    def test_the_point_the_camera_read_can_be_the_answer(self) -> None:
        t, board = self._asked()
        assert records(t.referee.confirm_hidden(P("A7P"))) == [
            {"type": "move", "frame": 3, "point": "A7P", "color": 1, "in_line": True}
        ]
        assert t.referee.overrides == {}
        assert t.see({**board, "A7P": 1}) == []
        assert t.game.board == {P("A3Q"): 0, P("A7P"): 1}

    def test_correcting_a_candidate_to_the_colour_asked_answers_the_question(self) -> None:
        t, board = self._asked()
        assert records(t.referee.correct(P("D8Q"), 1)) == [
            {"type": "move", "frame": 3, "point": "D8Q", "color": 1, "in_line": True}
        ]
        assert t.referee.pending is None
        assert t.see({**board, "A7P": 1}) == []

    def test_taking_the_token_away_ends_the_question(self) -> None:
        t, board = self._asked()
        assert t.see(board) == [{"type": "restored", "frame": 5, "points": ["A7P"]}]
        assert t.referee.pending is None

    def test_moves_before_the_toss_up_are_played_first(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0))
        recs = t.see({**board, "H8S": 1, "A7P": 0}, in_line={"A7P": "D8Q"})
        assert kinds(recs) == ["move", "confirm_hidden"]
        assert recs[0]["point"] == "H8S" and recs[1]["candidates"] == ["A7P", "D8Q"]
        assert records(t.referee.confirm_hidden(P("D8Q")))[0]["point"] == "D8Q"
        assert t.game.board == {P("A3Q"): 0, P("H8S"): 1, P("D8Q"): 0}

    def test_no_question_when_the_other_point_holds_a_token(self) -> None:
        t = Table()
        board = t.play(("D8Q", 0))
        recs = t.see({**board, "A7P": 1}, in_line={"A7P": "D8Q"})
        assert recs == [{"type": "move", "frame": 2, "point": "A7P", "color": 1}]

    def test_a_toss_up_on_a_token_the_game_has_on_the_other_point_is_no_move(self) -> None:
        t = Table()
        board = t.play(("A3Q", 0), ("D8Q", 1))
        del board["D8Q"]
        assert t.see({**board, "A7P": 1}, in_line={"A7P": "D8Q"}) == []
        assert t.game.board == {P("A3Q"): 0, P("D8Q"): 1}


class TestEndOfGame:
    def _won(self, t: Table) -> dict[str, int]:
        board = t.play(("A1P", 0), ("A8S", 1), ("B1P", 0), ("B8S", 1), ("C1P", 0), ("C8S", 1))
        board["D1P"] = 0
        assert kinds(t.see(board)) == ["move", "win"]
        return board

    def test_clearing_the_board_is_quiet_and_an_empty_board_starts_a_new_game(self) -> None:
        t = Table()
        board = self._won(t)
        for name in ("A8S", "B8S", "C8S"):
            del board[name]
            assert t.see(board) == []
        assert t.see({}) == [
            {"type": "game_started", "frame": 11, "reason": "board cleared after the game ended"}
        ]
        assert t.referee.game is not t.game and t.referee.game.move_stack == []
        assert kinds(t.see({"E5R": 0})) == ["move"]

    def test_placing_after_the_win_is_illegal(self) -> None:
        t = Table()
        board = self._won(t)
        recs = t.see({**board, "H1P": 1})
        assert (
            kinds(recs) == ["illegal"] and "game already won by colour 0" in recs[0]["reasons"][0]
        )

    def test_without_a_game_factory_the_finished_game_stays(self) -> None:
        t = Table(restart=False)
        self._won(t)
        assert t.see({}) == []
        assert t.referee.game is t.game


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 255), min_size=1, max_size=12, unique=True), st.data())
def test_any_game_read_snapshot_by_snapshot_is_its_moves(
    points: list[int], data: st.DataObject
) -> None:
    t = Table(restart=False)
    board: dict[str, int] = {}
    expected: list[Move] = []
    for i, point in enumerate(points):
        if t.game.is_over():
            break
        board[point_name(point)] = i % 2
        expected.append(Move(point, i % 2))
        recs = t.see(board)
        assert recs[0] == {
            "type": "move",
            "frame": t.frame,
            "point": point_name(point),
            "color": i % 2,
        }
        assert kinds(recs[1:]) == (["win"] if t.game.is_over() else [])
    assert t.game.move_stack == expected
    if t.game.is_over():
        return
    # Any illegal disturbance raises exactly one alert, and putting the board back clears it.
    names = sorted(board)
    victim = data.draw(st.sampled_from(names))
    wrong = {n: c for n, c in board.items() if n != victim}
    wrong[
        data.draw(st.sampled_from([n for n in map(point_name, range(256)) if n not in board]))
    ] = 2
    recs = t.see(wrong)
    assert kinds(recs) == ["illegal"]
    assert t.see(wrong) == []
    assert kinds(t.see(board)) == ["restored"]
    assert t.game.move_stack == expected


def test_a_rules_engine_failure_is_logged_and_reported_as_unexplained(caplog) -> None:
    class BrokenJudge(TimeVectorsGame):
        def judge(self, observed):  # type: ignore[override]
            raise IndexError("bug")

    referee = Referee(BrokenJudge())
    with caplog.at_level("ERROR", logger="device.referee"):
        recs = records(referee.feed(Snapshot(frame=5, tokens={P("A1P"): 0})))
    assert recs == [
        {
            "type": "illegal",
            "frame": 5,
            "reasons": ["the rules engine could not judge this change"],
            "points": ["A1P"],
            "take_back": False,
        }
    ]
    assert "failed to judge" in caplog.text


def test_is_plausible_has_no_side_effects() -> None:
    t = Table()
    t.play(("A3Q", 0))
    legal = Snapshot(frame=9, tokens={P("A3Q"): 0, P("B3Q"): 1})
    illegal = Snapshot(frame=9, tokens={P("A3Q"): 0, P("B3Q"): 0})
    assert t.referee.is_plausible(legal) and t.referee.is_plausible(
        Snapshot(frame=9, tokens={P("A3Q"): 0})
    )
    assert not t.referee.is_plausible(illegal)
    # A token going out of view with nothing new in view raises a question: not plausible.
    assert not t.referee.is_plausible(
        Snapshot(frame=9, tokens={}, hidden=frozenset({P("A3Q"), P("A4Q")}))
    )
    assert t.game.move_stack == [Move(P("A3Q"), 0)] and t.referee.pending is None


class TestAdopt:
    def test_board_taken_as_the_game_so_far(self) -> None:
        t = Table()
        snapshot = Snapshot(
            frame=4,
            tokens={P(n): c for n, c in {"A1P": 0, "B5Q": 1, "C2R": 0, "H8S": 1, "E1P": 0}.items()},
        )
        assert records(t.referee.adopt(snapshot)) == [
            {
                "type": "game_started",
                "frame": 4,
                "reason": "the board as it was taken as the game so far (5 moves)",
            }
        ]
        assert t.game.board == snapshot.tokens and len(t.game.move_stack) == 5
        assert t.game.turn_color() == 1
        board = {point_name(p): c for p, c in snapshot.tokens.items()}
        assert kinds(t.see({**board, "G7Q": 1})) == ["move"]

    def test_a_winning_token_is_played_last(self) -> None:
        t = Table()
        tokens = {"A1P": 0, "B1P": 0, "C1P": 0, "D1P": 0, "A8S": 1, "B8S": 1, "C8S": 1}
        t.referee.adopt(Snapshot(frame=1, tokens={P(n): c for n, c in tokens.items()}))
        assert t.game.board == {P(n): c for n, c in tokens.items()}
        assert t.game.outcome() is not None and t.game.outcome().winner == 0

    def test_colours_out_of_turn_order_are_refused_and_nothing_changes(self) -> None:
        t = Table()
        snapshot = Snapshot(frame=1, tokens={P("A1P"): 1, P("B1P"): 1, P("C1P"): 0})
        with pytest.raises(RefereeError, match="cannot have been placed in turn order"):
            t.referee.adopt(snapshot)
        assert t.game.move_stack == [] and t.game.board == {}

    def test_only_at_the_start(self) -> None:
        t = Table()
        t.play(("A1P", 0))
        with pytest.raises(RefereeError, match="already has moves"):
            t.referee.adopt(Snapshot(frame=1, tokens={P("A1P"): 0, P("B1P"): 1}))


class TestOpenings:
    """The swap and three-move equalization openings as the camera and the operator see them."""

    MEQ = GameConfig(opening="3meq")

    def meq_table(self) -> tuple[Table, dict[str, int]]:
        """A 3MEQ game after the first player's three tokens (two of colour 0, one of 1)."""
        t = Table(self.MEQ)
        board = t.play(("A1P", 0), ("C3R", 1), ("B1P", 0))
        assert t.game.phase == "choosing" and t.game.turn_color() is None
        return t, board

    def test_swap_declined_the_second_player_places_a_token_instead(self) -> None:
        t = Table(GameConfig(opening="swap"))
        board = t.play(("A3Q", 0))
        assert t.game.swap_point() == P("A3Q")
        assert t.see({**board, "B3Q": 1}) == [
            {"type": "move", "frame": 2, "point": "B3Q", "color": 1}
        ]
        assert t.game.swap_point() is None and t.game.turn_color() == 0

    def test_a_recoloured_token_is_illegal_without_the_swap_opening(self) -> None:
        t = Table()
        t.play(("A3Q", 0))
        recs = t.see({"A3Q": 1})
        assert kinds(recs) == ["illegal"]
        assert recs[0]["reasons"] == ["token on A3Q changed from colour 0 to colour 1"]

    def test_swap_is_only_the_second_players_first_move(self) -> None:
        t = Table(GameConfig(opening="swap"))
        board = t.play(("A3Q", 0), ("B3Q", 1))
        recs = t.see({**board, "A3Q": 1})
        assert kinds(recs) == ["illegal"] and t.game.board == {P("A3Q"): 0, P("B3Q"): 1}

    def test_three_opening_tokens_in_any_order_then_the_choice(self) -> None:
        t, board = self.meq_table()
        assert t.game.legal_colors() == frozenset()
        assert kinds(records(t.referee.choose_colour(1))) == ["move"] and t.game.phase == "play"
        assert records(t.referee.undo()) == [
            {"type": "undo", "frame": None, "point": None, "color": 1}
        ]
        assert t.game.phase == "choosing"  # the operator took the choice back: it is due again
        recs = records(t.referee.choose_colour(0))
        assert recs == [{"type": "move", "frame": None, "color": 0, "kind": "choose"}]
        # Choosing the pair (colour 0) leaves the single colour 1 with the first player, who moves.
        assert t.game.player_colors == (1, 0) and t.game.turn_player() == 0
        assert t.game.turn_color() == 1
        assert kinds(t.see({**board, "D4S": 1})) == ["move"]

    def test_a_token_put_down_before_the_choice_is_played_once_the_choice_is_made(self) -> None:
        t, board = self.meq_table()
        early = t.see({**board, "H8S": 1})
        assert kinds(early) == ["illegal"]
        assert "must choose a colour" in early[0]["reasons"][0]
        recs = records(t.referee.choose_colour(1))
        assert recs == [
            {"type": "move", "frame": None, "color": 1, "kind": "choose"},
            {"type": "restored", "frame": 4, "points": ["H8S"]},
            {"type": "move", "frame": 4, "point": "H8S", "color": 1},
        ]
        assert t.game.player_colors == (0, 1) and t.game.turn_color() == 0
        assert t.referee.pending is None

    def test_three_tokens_of_one_colour_are_illegal(self) -> None:
        t = Table(self.MEQ)
        board = t.play(("A1P", 0), ("B1P", 0))
        recs = t.see({**board, "C1P": 0})
        assert kinds(recs) == ["illegal"]
        assert "two tokens of one colour and one of the other" in recs[0]["reasons"][0]

    @pytest.mark.parametrize(
        ("colour", "message"), [(2, "not one of the opening's colours"), (True, "not True")]
    )
    def test_a_bad_colour_is_refused_and_nothing_changes(self, colour, message) -> None:
        t, _ = self.meq_table()
        with pytest.raises(RefereeError, match=message):
            t.referee.choose_colour(colour)
        assert t.game.phase == "choosing" and len(t.game.move_stack) == 3

    @pytest.mark.parametrize("opening", ["none", "swap", "3meq"])
    def test_a_choice_when_none_is_due_is_refused(self, opening) -> None:
        t = Table(GameConfig(opening=opening))
        t.play(("A1P", 0))
        with pytest.raises(RefereeError, match="no colour choice is due"):
            t.referee.choose_colour(0)
        assert len(t.game.move_stack) == 1

    def test_taking_back_the_third_token_after_the_choice_takes_the_choice_back_too(self) -> None:
        t, board = self.meq_table()
        t.referee.choose_colour(1)
        del board["B1P"]
        recs = t.see(board)
        assert kinds(recs) == ["illegal"] and recs[0]["take_back"] is True
        assert records(t.referee.accept()) == [
            {"type": "undo", "frame": 4, "point": None, "color": 1, "reason": "take-back accepted"},
            {
                "type": "undo",
                "frame": 4,
                "point": "B1P",
                "color": 0,
                "reason": "take-back accepted",
            },
        ]
        assert t.game.phase == "opening" and t.game.board == {P("A1P"): 0, P("C3R"): 1}
