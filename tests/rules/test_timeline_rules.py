"""Timeline moves, capture, release and results, with the document's example and its two cases.

The document's figures are not kept, so each scene is rebuilt from its text. The
example is two-dimensional; it is set on Monday's bottom level (x, y with
z = t = 0), written ``sq(x, y)``.
"""

from __future__ import annotations

import pytest

from rules.errors import IllegalMoveError
from rules.timeline.game import CrossingRule, TimelineGame
from rules.timeline.moves import Move, parse_move
from rules.timeline.pieces import COOL, WARM, Piece
from rules.timeline.position import (
    PositionError,
    format_position,
    parse_position,
    starting_position,
)
from rules.timevectors.points import point_index, point_name


def sq(x: int, y: int, z: int = 0, t: int = 0) -> str:
    return point_name(point_index(x, y, z, t))


def move(a: str, b: str) -> Move:
    return parse_move(f"{a}-{b}")


def timeline(game: TimelineGame, piece: Piece) -> list[str]:
    return [point_name(c.point) for c in game.position.timelines[piece]]


def where(game: TimelineGame, piece: Piece) -> str | None:
    square = game.pieces_on_board().get(piece)
    return None if square is None else point_name(square)


def reason(game: TimelineGame, text: str) -> str:
    with pytest.raises(IllegalMoveError) as caught:
        game.push(parse_move(text))
    return str(caught.value)


# The worked example: red rook and yellow bishop (player A, warm) against the black rook
# (player B, cool); a blue rook far away on Thursday keeps cool in the game.
EXAMPLE = (
    f"red: {sq(0, 0)}; yellow: {sq(3, 3)}; black: {sq(2, 1)}; blue: {sq(3, 3, 3, 3)}; to move: warm"
)
# The cases: the red rook is about to capture the black rook (whose timeline runs
# sq(3,1) -> sq(2,1)); the green bishop and blue rook are cool's, the white bishop warm's.
CASES = (
    f"red: {sq(0, 1)}; white: {sq(2, 0)}; black: {sq(3, 1)} {sq(2, 1)}; "
    f"green: {sq(3, 2)}; blue: {sq(1, 3)}; to move: warm"
)


class TestWorkedExample:
    def test_the_four_steps(self):
        game = TimelineGame(parse_position(EXAMPLE))
        # 2. Player A moves the red rook; its path is marked with red chits.
        game.push(move(sq(0, 0), sq(0, 3)))
        assert timeline(game, Piece.RED) == [sq(0, 0), sq(0, 1), sq(0, 2), sq(0, 3)]
        # 3. The black rook lands on the red rook's timeline: red is captured and its
        #    timeline after the capture square is removed.
        game.push(move(sq(2, 1), sq(0, 1)))
        assert where(game, Piece.RED) is None and game.captor(Piece.RED) is Piece.BLACK
        assert timeline(game, Piece.RED) == [sq(0, 0), sq(0, 1)]
        assert timeline(game, Piece.BLACK) == [sq(2, 1), sq(1, 1), sq(0, 1)]
        # 4. The yellow bishop ends on the black rook's timeline: black is captured, its
        #    later chits go, and the red rook returns at the end of its timeline.
        game.push(move(sq(3, 3), sq(1, 1)))
        assert where(game, Piece.BLACK) is None and game.captor(Piece.BLACK) is Piece.YELLOW
        assert timeline(game, Piece.BLACK) == [sq(2, 1), sq(1, 1)]
        assert where(game, Piece.RED) == sq(0, 1) == timeline(game, Piece.RED)[-1]
        assert game.outcome() is None

    def test_capture_is_written_with_the_victim(self):
        game = TimelineGame(parse_position(EXAMPLE))
        game.push(move(sq(0, 0), sq(0, 3)))
        black_move = move(sq(2, 1), sq(0, 1))
        assert game.notation(black_move) == f"{sq(2, 1)}-{sq(0, 1)}xred"
        assert "captures the red rook, not the blue rook" in reason(
            game, f"{sq(2, 1)}-{sq(0, 1)}xblue"
        )
        game.push(parse_move(game.notation(black_move)))

    def test_without_another_cool_piece_the_capture_wins(self):
        text = EXAMPLE.replace(f" blue: {sq(3, 3, 3, 3)};", "")
        game = TimelineGame(parse_position(text))
        for a, b in ((sq(0, 0), sq(0, 3)), (sq(2, 1), sq(0, 1)), (sq(3, 3), sq(1, 1))):
            game.push(move(a, b))
        outcome = game.outcome()
        assert outcome is not None and outcome.winner == WARM
        assert "over" in reason(game, f"{sq(0, 1)}-{sq(0, 2)}")


class TestCases:
    def test_case_one(self):
        game = TimelineGame(parse_position(CASES))
        game.push(move(sq(0, 1), sq(2, 1)))  # the red rook captures the black rook
        assert game.captor(Piece.BLACK) is Piece.RED
        # The green bishop may not capture the red rook: its square holds a black chit.
        assert "black rook's timeline" in reason(game, f"{sq(3, 2)}-{sq(2, 1)}")
        assert "own team" in reason(game, f"{sq(3, 2)}-{sq(2, 1)}")
        # The blue rook captures it earlier on its timeline, which frees the black rook.
        game.push(move(sq(1, 3), sq(1, 1)))
        assert game.captor(Piece.RED) is Piece.BLUE
        assert timeline(game, Piece.RED) == [sq(0, 1), sq(1, 1)]
        assert where(game, Piece.BLACK) == sq(2, 1)

    def test_case_two(self):
        game = TimelineGame(parse_position(CASES))
        game.push(move(sq(0, 1), sq(2, 1)))  # red captures black
        game.push(move(sq(3, 2), sq(3, 2, 1, 1)))  # cool plays elsewhere (green bishop)
        # The white bishop captures the already captured black rook earlier on its timeline.
        game.push(move(sq(2, 0), sq(3, 1)))
        assert timeline(game, Piece.BLACK) == [sq(3, 1)]
        assert game.captor(Piece.BLACK) is Piece.WHITE
        # Now the blue rook's capture of the red rook no longer frees the black rook.
        game.push(move(sq(1, 3), sq(1, 1)))
        assert game.captor(Piece.RED) is Piece.BLUE
        assert game.captor(Piece.BLACK) is Piece.WHITE and where(game, Piece.BLACK) is None


class TestMoves:
    def test_starting_position_has_54_moves(self):
        # Rooks on the corners: three directions open (their neighbour bishop blocks one),
        # 3 steps each = 9 each; bishops: six axis pairs, each with one forward step sign
        # for y, z, t and both signs for x: 3 moves per pair = 18 each.
        game = TimelineGame()
        assert len(game.legal_moves()) == 9 + 18 + 18 + 9
        assert game.to_move == WARM

    def test_no_crossing_a_timeline_and_stopping_on_an_enemy_one(self):
        text = f"red: {sq(0, 0)}; black: {sq(2, 1)} {sq(1, 1)} {sq(0, 1)} {sq(0, 2, 0, 1)}; to move: warm"
        game = TimelineGame(parse_position(text))
        assert "cross the black rook's timeline" in reason(game, f"{sq(0, 0)}-{sq(0, 2)}")
        targets = {point_name(m.target) for m in game.legal_moves_from(point_index(0, 0, 0, 0))}
        assert sq(0, 1) in targets and sq(0, 2) not in targets and sq(0, 3) not in targets
        game.push(move(sq(0, 0), sq(0, 1)))
        assert timeline(game, Piece.BLACK) == [sq(2, 1), sq(1, 1), sq(0, 1)]
        assert game.captor(Piece.BLACK) is Piece.RED

    def test_no_entering_own_or_teammates_timelines(self):
        text = f"red: {sq(0, 0)} {sq(0, 1)}; orange: {sq(1, 2)} {sq(1, 1)}; black: {sq(3, 3, 3, 3)}"
        game = TimelineGame(parse_position(text))
        assert "red rook's timeline" in reason(game, f"{sq(0, 1)}-{sq(0, 0)}")
        assert "orange rook's timeline" in reason(game, f"{sq(0, 1)}-{sq(2, 1)}")
        assert "orange rook's timeline" in reason(game, f"{sq(1, 1)}-{sq(1, 2)}")

    def test_wrong_piece_geometry_and_turn(self):
        game = TimelineGame()
        assert "no warm piece" in reason(game, f"{sq(3, 3, 3, 3)}-{sq(3, 2, 3, 3)}")
        assert "rook moves" in reason(game, f"{sq(0, 0)}-{sq(0, 1, 1, 0)}")
        assert "bishop moves" in reason(game, f"{sq(1, 0)}-{sq(1, 1, 1, 1)}")
        assert "not the blue rook" in reason(game, f"blue {sq(0, 0)}-{sq(0, 1)}")
        game.push(parse_move(f"orange {sq(0, 0)}-{sq(0, 3)}"))
        assert game.to_move == COOL

    def test_safe_square_is_closed_to_the_enemy(self):
        game = TimelineGame(parse_position(CASES))
        game.push(move(sq(0, 1), sq(2, 1)))  # red sits safe on its capture square
        targets = {point_name(m.target) for m in game.legal_moves()}
        assert sq(2, 1) not in targets
        assert sq(1, 1) in targets  # red's past is still open to the blue rook

    def test_push_pop_restores(self):
        game = TimelineGame(parse_position(EXAMPLE))
        before = format_position(game.position)
        game.push(move(sq(0, 0), sq(0, 3)))
        game.pop()
        assert format_position(game.position) == before


class TestResults:
    def test_bishops_on_opposite_colours_draw(self):
        text = f"white: {sq(1, 0)}; green: {sq(2, 2, 3, 3)}; to move: warm"
        outcome = TimelineGame(parse_position(text)).outcome()
        assert outcome is not None and outcome.winner is None

    def test_bishops_on_the_same_colour_play_on(self):
        text = f"white: {sq(1, 0)}; green: {sq(3, 2, 3, 3)}; to move: warm"
        assert TimelineGame(parse_position(text)).outcome() is None

    def test_no_draw_while_a_bishop_could_release_a_piece(self):
        # Black captured red on sq(1, 1); the white bishop captured black on sq(1, 2).
        # White could still free red by landing on black's earlier chit sq(2, 1).
        text = (
            f"red: {sq(0, 1)} {sq(1, 1)}; white: {sq(0, 3)} {sq(1, 2)}*; "
            f"black: {sq(3, 1)} {sq(2, 1)} {sq(1, 1)}* {sq(1, 2)}; green: {sq(2, 2, 3, 3)}; "
            "to move: warm"
        )
        game = TimelineGame(parse_position(text))
        assert game.captor(Piece.RED) is Piece.BLACK and game.captor(Piece.BLACK) is Piece.WHITE
        assert set(game.pieces_on_board()) == {Piece.WHITE, Piece.GREEN}
        assert game.outcome() is None
        game.push(move(sq(1, 2), sq(2, 1)))
        assert where(game, Piece.RED) == sq(1, 1)
        assert timeline(game, Piece.BLACK) == [sq(3, 1), sq(2, 1)]

    def test_draw_when_the_only_release_chits_are_on_the_other_colour(self):
        # Black captured red on sq(1, 1), then went on to sq(3, 1) where the white bishop
        # captured it. Black's only chit before sq(1, 1) is sq(1, 2), a square of the other
        # colour than white's: no bishop can ever free a piece.
        text = (
            f"red: {sq(0, 1)} {sq(1, 1)}; white: {sq(2, 0)} {sq(3, 1)}*; "
            f"black: {sq(1, 2)} {sq(1, 1)}* {sq(2, 1)} {sq(3, 1)}; green: {sq(3, 2, 3, 3)}; "
            "to move: warm"
        )
        game = TimelineGame(parse_position(text))
        assert set(game.pieces_on_board()) == {Piece.WHITE, Piece.GREEN}
        outcome = game.outcome()
        assert outcome is not None and outcome.winner is None

    def test_a_team_without_a_legal_move_draws(self):
        # The red rook sits in Monday's corner; each of its four neighbours holds its own
        # chit or one of the (captured) white bishop's, so it cannot move at all.
        text = (
            f"red: {sq(1, 0)} {sq(0, 0)}; white: {sq(0, 1)} {sq(0, 0, 1)} {sq(0, 0, 0, 1)}; "
            f"black: {sq(1, 0, 0, 1)} {sq(0, 0, 0, 1)}*; green: {sq(3, 3, 3, 3)}; to move: warm"
        )
        game = TimelineGame(parse_position(text))
        assert game.legal_moves() == []
        outcome = game.outcome()
        assert outcome is not None and outcome.winner is None and "no legal move" in outcome.reason


class TestPositionText:
    def test_round_trip(self):
        for text in (EXAMPLE, CASES):
            position = parse_position(text)
            assert format_position(parse_position(format_position(position))) == format_position(
                position
            )
        assert parse_position(format_position(starting_position())).timelines == (
            starting_position().timelines
        )

    @pytest.mark.parametrize(
        ("text", "words"),
        [
            (f"red: {sq(0, 0)}", "both teams"),
            (f"red: {sq(0, 0)} {sq(0, 0)}; black: {sq(3, 3)}", "twice"),
            (f"red: {sq(0, 0)}; orange: {sq(0, 0)}; black: {sq(3, 3)}", "one team"),
            (f"red: {sq(0, 0)}; black: {sq(0, 0)}", "later"),
            (f"red: ; black: {sq(3, 3)}", "empty"),
            (f"red: {sq(0, 0)}; red: {sq(1, 0)}; black: {sq(3, 3)}", "given twice"),
            (f"red {sq(0, 0)}; black: {sq(3, 3)}", "expected"),
        ],
    )
    def test_bad_positions(self, text, words):
        with pytest.raises(PositionError, match=words):
            parse_position(text)


def test_moves_and_position_as_dicts_for_the_dashboard():
    game = TimelineGame(parse_position(EXAMPLE))
    game.push(move(sq(0, 0), sq(0, 3)))
    record = game.move_to_dict(move(sq(2, 1), sq(0, 1)))
    assert record == {"notation": "C6P-A6Pxred", "from": "C6P", "to": "A6P", "captures": "red"}
    game.push(move(sq(2, 1), sq(0, 1)))
    data = game.to_dict()
    red = next(p for p in data["pieces"] if p["colour"] == "red")
    assert red == {
        "colour": "red", "kind": "rook", "team": "warm", "square": None, "captured_by": "black",
        "timeline": [sq(0, 0), sq(0, 1)],
    }
    assert data["to_move"] == "warm" and data["result"] is None


@pytest.mark.parametrize(("rule", "legal"), [(CrossingRule.SQUARES, True), (CrossingRule.DIAGONALS, False)])
def test_crossing_rule_for_bishop_paths_that_cut_through_each_other(rule, legal):
    # The green bishop went sq(0, 0) -> sq(1, 1); the white bishop steps sq(0, 1) -> sq(1, 0).
    text = f"white: {sq(0, 1)}; red: {sq(3, 3, 3)}; green: {sq(0, 0)} {sq(1, 1)}; to move: warm"
    game = TimelineGame(parse_position(text), crossing_rule=rule)
    step = move(sq(0, 1), sq(1, 0))
    assert game.is_legal(step) is legal
    if not legal:
        assert "cut across the green bishop's timeline between A5P and B6P" in reason(
            game, step.notation()
        )
    # A move that shares no plane with the green path is legal either way.
    assert game.is_legal(move(sq(0, 1), sq(1, 2)))
