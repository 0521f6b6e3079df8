"""Points and their A3Q notation: round trip over the whole board and malformed input."""

from __future__ import annotations

import pytest

from rules.errors import NotationError
from rules.timevectors.points import (
    POINT_NAMES,
    POINTS,
    parse_point,
    point_coords,
    point_from_global,
    point_index,
    point_name,
)

# Quadrant t -> (east half, north half), written out from the design: NW, NE, SE, SW.
HALVES = {0: (0, 1), 1: (1, 1), 2: (1, 0), 3: (0, 0)}


def expected_name(x: int, y: int, z: int, t: int) -> str:
    east, north = HALVES[t]
    return "ABCDEFGH"[x + 4 * east] + str(y + 4 * north + 1) + "PQRS"[z]


def test_every_point_has_a_unique_name_matching_its_coordinates():
    assert len(set(POINT_NAMES)) == 256
    for x in range(4):
        for y in range(4):
            for z in range(4):
                for t in range(4):
                    point = point_index(x, y, z, t)
                    assert point_coords(point) == (x, y, z, t)
                    assert point_name(point) == expected_name(x, y, z, t)


@pytest.mark.parametrize("point", POINTS)
def test_round_trip_all_points(point):
    name = point_name(point)
    assert parse_point(name) == point
    assert parse_point(name.lower()) == point
    assert parse_point(f"  {name}\n") == point


def test_quadrant_corners_named_as_the_help_file():
    assert point_name(point_index(0, 3, 3, 0)) == "A8S"  # NW quadrant, north-west corner, top
    assert point_name(point_index(3, 3, 3, 1)) == "H8S"  # NE
    assert point_name(point_index(3, 0, 0, 2)) == "H1P"  # SE
    assert point_name(point_index(0, 0, 0, 3)) == "A1P"  # SW


def test_global_column_row_inverse():
    for point in POINTS:
        name = point_name(point)
        column, row = "ABCDEFGH".index(name[0]), int(name[1]) - 1
        assert point_from_global(column, row, point_coords(point)[2]) == point


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("Z9X", "column 'Z'"),
        ("A0P", "row '0'"),
        ("A9P", "row '9'"),
        ("I3Q", "column 'I'"),
        ("A3T", "tier 'T'"),
        ("", "is not a point"),
        ("A3", "is not a point"),
        ("A3QQ", "is not a point"),
        ("3AQ", "column '3'"),
    ],
)
def test_malformed_points_are_rejected_with_the_reason(text, fragment):
    with pytest.raises(NotationError, match=fragment):
        parse_point(text)


def test_non_string_is_rejected():
    with pytest.raises(NotationError):
        parse_point(12)  # type: ignore[arg-type]


def test_notation_error_is_a_value_error():
    assert issubclass(NotationError, ValueError)


@pytest.mark.parametrize("coords", [(4, 0, 0, 0), (0, -1, 0, 0), (0, 0, 4, 0), (0, 0, 0, 4)])
def test_point_index_off_the_board(coords):
    with pytest.raises(ValueError, match="off the board"):
        point_index(*coords)
