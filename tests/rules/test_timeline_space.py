"""Timeline's 4D space, directions and move geometry."""

from __future__ import annotations

import pytest

from rules.errors import NotationError
from rules.timeline.moves import Move, parse_move, path_of, reachable_paths
from rules.timeline.pieces import STARTING_SQUARES, Kind, Piece, parse_piece
from rules.timeline.space import (
    BISHOP_DIRECTIONS,
    ROOK_DIRECTIONS,
    day_of,
    direction_between,
    offset,
    square_colour,
)
from rules.timevectors.points import POINTS, point_coords, point_index, point_name


def test_direction_counts():
    assert len(ROOK_DIRECTIONS) == 8 == len(set(ROOK_DIRECTIONS))
    assert len(BISHOP_DIRECTIONS) == 24 == len(set(BISHOP_DIRECTIONS))
    assert all(sum(map(abs, d)) == 1 for d in ROOK_DIRECTIONS)
    assert all(sum(map(abs, d)) == 2 and max(map(abs, d)) == 1 for d in BISHOP_DIRECTIONS)


def test_days_are_the_time_vectors_quadrants_and_time_does_not_wrap():
    assert [day_of(point_index(0, 0, 0, t)) for t in range(4)] == [
        "Monday", "Tuesday", "Wednesday", "Thursday",
    ]
    thursday = point_index(0, 0, 0, 3)
    assert offset(thursday, (0, 0, 0, 1), 1) is None
    assert offset(point_index(0, 0, 0, 0), (0, 0, 0, 1), 3) == thursday


@pytest.mark.parametrize("point", POINTS)
def test_rook_steps_change_colour_and_bishop_steps_keep_it(point):
    for path in reachable_paths(Kind.ROOK, point):
        assert square_colour(path[0]) != square_colour(point)
    for path in reachable_paths(Kind.BISHOP, point):
        assert all(square_colour(p) == square_colour(point) for p in path)


@pytest.mark.parametrize("point", POINTS)
def test_paths_agree_with_path_of(point):
    for kind in Kind:
        paths = reachable_paths(kind, point)
        assert len({p[-1] for p in paths}) == len(paths)
        for path in paths:
            assert 1 <= len(path) <= 3
            assert path_of(kind, point, path[-1]) == path


def test_rook_from_a_corner_has_twelve_targets_and_from_inside_fewer_long_ones():
    corner = point_index(0, 0, 0, 0)
    assert len(reachable_paths(Kind.ROOK, corner)) == 4 * 3
    inner = point_index(1, 1, 1, 1)
    assert len(reachable_paths(Kind.ROOK, inner)) == 4 * (2 + 1)


def test_bishop_cannot_move_along_three_axes_nor_rook_diagonally():
    origin = point_index(0, 0, 0, 0)
    assert path_of(Kind.BISHOP, origin, point_index(1, 1, 1, 0)) is None
    assert path_of(Kind.BISHOP, origin, point_index(1, 2, 0, 0)) is None
    assert path_of(Kind.ROOK, origin, point_index(1, 1, 0, 0)) is None
    assert path_of(Kind.ROOK, origin, origin) is None
    assert path_of(Kind.BISHOP, origin, point_index(0, 3, 0, 3)) == [
        point_index(0, 1, 0, 1), point_index(0, 2, 0, 2), point_index(0, 3, 0, 3),
    ]
    assert direction_between(origin, point_index(2, 1, 0, 0)) is None


def test_starting_set_up_is_point_symmetric_with_bishops_on_both_colours():
    reflect = {p: point_index(*(3 - c for c in point_coords(p))) for p in POINTS}
    pairs = {Piece.ORANGE: Piece.BLACK, Piece.WHITE: Piece.GREEN, Piece.YELLOW: Piece.PURPLE,
             Piece.RED: Piece.BLUE}
    for warm, cool in pairs.items():
        assert reflect[STARTING_SQUARES[warm]] == STARTING_SQUARES[cool]
        assert warm.kind is cool.kind and warm.team == 0 and cool.team == 1
    for team in (0, 1):
        bishops = [p for p in Piece if p.team == team and p.kind is Kind.BISHOP]
        assert {square_colour(STARTING_SQUARES[b]) for b in bishops} == {0, 1}


def test_move_notation_round_trip_over_every_pair_of_points():
    for origin in POINTS:
        for target in POINTS:
            move = Move(origin, target)
            assert parse_move(move.notation()) == move


def test_move_notation_with_colour_and_capture():
    move = Move(point_index(0, 0, 0, 0), point_index(0, 3, 0, 0), Piece.RED, Piece.BLACK)
    assert move.notation() == "red A5P-A8Pxblack"
    assert parse_move(move.notation()) == move
    assert parse_move("  Red a5p - A8P X Black ") == move
    assert move.bare() == Move(move.origin, move.target)


@pytest.mark.parametrize("text", ["A5P", "A5P-", "A5P-A9P", "I5P-A8P", "A5P-A8T", "pink A5P-A8P",
                                  "A5P-A8Pxpink", "A5P A8P"])
def test_bad_move_notation(text):
    with pytest.raises(NotationError):
        parse_move(text)


def test_piece_names():
    assert parse_piece(" Purple ") is Piece.PURPLE
    assert Piece.PURPLE.title == "purple bishop" and Piece.BLUE.title == "blue rook"
    assert point_name(STARTING_SQUARES[Piece.ORANGE]) == "A5P"
