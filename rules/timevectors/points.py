"""Points of the Time Vectors board and their ``A3Q`` notation.

A point is an ``int`` 0..255 built from its 4D coordinate ``(x, y, z, t)``:
``x`` local column 0..3 west->east, ``y`` local row 0..3 south->north, ``z``
tier 0..3 bottom->top (P..S), ``t`` quadrant NW=0, NE=1, SE=2, SW=3 (clockwise
seen from above). The notation is the play-by-mail server's: column A..H
across the whole tier, row 1..8 across the whole tier, tier letter P..S.
"""

from __future__ import annotations

from rules.errors import NotationError

SIZE = 4
QUADRANTS = ("NW", "NE", "SE", "SW")
TIER_LETTERS = "PQRS"
COLUMN_LETTERS = "ABCDEFGH"
NW, NE, SE, SW = range(4)

# Which half of the tier each quadrant occupies: (east half?, north half?).
_QUADRANT_HALVES = {NW: (0, 1), NE: (1, 1), SE: (1, 0), SW: (0, 0)}
_HALVES_QUADRANT = {halves: t for t, halves in _QUADRANT_HALVES.items()}

POINTS = range(SIZE**4)


def point_index(x: int, y: int, z: int, t: int) -> int:
    """Return the point at 4D coordinate ``(x, y, z, t)``; raises ``ValueError`` out of range."""
    for value in (x, y, z, t):
        if not 0 <= value < SIZE:
            raise ValueError(f"coordinate {(x, y, z, t)} is off the board (each must be 0..3)")
    return x + SIZE * (y + SIZE * (z + SIZE * t))


def point_coords(point: int) -> tuple[int, int, int, int]:
    """Return ``(x, y, z, t)`` of a point."""
    return point % 4, point // 4 % 4, point // 16 % 4, point // 64


def global_column_row(point: int) -> tuple[int, int]:
    """Column 0..7 (A..H, west->east) and row 0..7 (1..8, south->north) across the whole tier."""
    x, y, _, t = point_coords(point)
    east, north = _QUADRANT_HALVES[t]
    return x + 4 * east, y + 4 * north


def point_from_global(column: int, row: int, tier: int) -> int:
    """Inverse of :func:`global_column_row` plus the tier."""
    if not (0 <= column < 8 and 0 <= row < 8 and 0 <= tier < 4):
        raise ValueError(f"column {column}, row {row}, tier {tier} is off the board")
    t = _HALVES_QUADRANT[(column // 4, row // 4)]
    return point_index(column % 4, row % 4, tier, t)


def _build_names() -> tuple[str, ...]:
    names = []
    for point in POINTS:
        column, row = global_column_row(point)
        names.append(f"{COLUMN_LETTERS[column]}{row + 1}{TIER_LETTERS[point_coords(point)[2]]}")
    return tuple(names)


POINT_NAMES: tuple[str, ...] = _build_names()
_NAME_TO_POINT = {name: point for point, name in enumerate(POINT_NAMES)}


def point_name(point: int) -> str:
    """Return the ``A3Q`` notation of a point."""
    return POINT_NAMES[point]


def parse_point(text: str) -> int:
    """Parse ``A3Q`` notation (any case, surrounding spaces allowed).

    Raises :class:`NotationError` naming what is wrong with the text.
    """
    if not isinstance(text, str):
        raise NotationError(f"a point is written like A3Q, not {text!r}")
    cleaned = text.strip().upper()
    point = _NAME_TO_POINT.get(cleaned)
    if point is not None:
        return point
    if len(cleaned) != 3:
        raise NotationError(
            f"{text!r} is not a point: write column A-H, row 1-8 and tier P-S, like A3Q"
        )
    column, row, tier = cleaned
    if column not in COLUMN_LETTERS:
        raise NotationError(f"{text!r}: column {column!r} is not one of A-H")
    if row not in "12345678":
        raise NotationError(f"{text!r}: row {row!r} is not one of 1-8")
    raise NotationError(f"{text!r}: tier {tier!r} is not one of P, Q, R, S")
