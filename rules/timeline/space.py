"""Timeline's space-time: the 4x4x4x4 points of the Time Vectors board, time not cyclic.

Timeline is played on four 4x4x4 boards, Monday to Thursday. They are the
four time positions ``t`` of :mod:`rules.timevectors.points` (Monday = t 0 =
the NW quadrant of the Time Vectors board, Tuesday = NE, Wednesday = SE,
Thursday = SW), so a game can be set up on that board and written in its
``A3Q`` notation. Unlike Time Vectors, time does not wrap: Thursday is not next
to Monday, and no move leaves the board.

Directions are 4D steps: a rook step changes one coordinate by one, a bishop
step changes exactly two (the time direction counts as at a right angle to the
three spatial ones).
"""

from __future__ import annotations

from itertools import combinations, product

from rules.timevectors.points import POINTS, SIZE, point_coords, point_index, point_name

DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday")
MAX_STEPS = 3

Direction = tuple[int, int, int, int]


def _steps(axes_moved: int) -> tuple[Direction, ...]:
    found = []
    for axes in combinations(range(4), axes_moved):
        for signs in product((-1, 1), repeat=axes_moved):
            delta = [0, 0, 0, 0]
            for axis, sign in zip(axes, signs):
                delta[axis] = sign
            found.append(tuple(delta))
    return tuple(found)  # type: ignore[return-value]


ROOK_DIRECTIONS: tuple[Direction, ...] = _steps(1)  # 8
BISHOP_DIRECTIONS: tuple[Direction, ...] = _steps(2)  # 24


def offset(point: int, direction: Direction, steps: int) -> int | None:
    """The point ``steps`` single steps from ``point`` along ``direction``, ``None`` off the board."""
    coords = [c + steps * d for c, d in zip(point_coords(point), direction)]
    if not all(0 <= c < SIZE for c in coords):
        return None
    return point_index(*coords)


def direction_between(origin: int, target: int) -> tuple[Direction, int] | None:
    """Unit direction and number of steps from ``origin`` to ``target`` along a rook or bishop line.

    ``None`` when the two points are not on one straight rook or bishop line.
    """
    delta = [b - a for a, b in zip(point_coords(origin), point_coords(target))]
    lengths = {abs(d) for d in delta if d}
    if len(lengths) != 1:
        return None
    steps = lengths.pop()
    return tuple(d // steps for d in delta), steps  # type: ignore[return-value]


def square_colour(point: int) -> int:
    """0 or 1: the checkerboard colour; a rook step changes it, a bishop step never does."""
    return sum(point_coords(point)) % 2


def day_of(point: int) -> str:
    """Monday..Thursday, the 3D board a point is on."""
    return DAYS[point_coords(point)[3]]


__all__ = [
    "BISHOP_DIRECTIONS",
    "DAYS",
    "MAX_STEPS",
    "POINTS",
    "ROOK_DIRECTIONS",
    "day_of",
    "direction_between",
    "offset",
    "point_name",
    "square_colour",
]
