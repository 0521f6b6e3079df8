"""The 976 winning vectors of Time Vectors, the lines through each point and bitboard tests.

A vector is four points on a line: every dimension is either constant or
moves one step per point. ``x``, ``y`` and ``z`` (1st, 2nd, 3rd dimension)
move linearly, 0,1,2,3 or 3,2,1,0; ``t`` (4th dimension, the quadrant) moves
cyclically, from any start, clockwise or anticlockwise. The set of moving
dimensions is the vector's type: 15 types, the non-empty subsets of 1..4.

Line order: when a linear dimension moves, the lowest-numbered one increases
along the line (``A1S B1R C1Q D1P``). A time-only vector passes through the
same point of all four quadrants, so any start and direction give the same
four points; its canonical order is t = 0, 1, 2, 3 (NW, NE, SE, SW).

Like python-chess's ``BB_RAYS``, everything is built once at import. A colour's
tokens are a 256-bit int (bit ``p`` set when point ``p`` holds that colour), so
"did this move complete a vector" is a few ``&`` tests over the 13 to 22 lines
through the placed point.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import product

from rules.timevectors.points import POINTS, SIZE, point_coords, point_index, point_name

DIMENSIONS = (1, 2, 3, 4)
_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}
TIME = 4


def dims_name(dims: Iterable[int]) -> str:
    """Name a vector type the way the manual does: ``(1, 3, 4)`` -> ``"1st, 3rd and 4th"``."""
    words = [_ORDINALS[d] for d in sorted(dims)]
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


def dims_key(dims: Iterable[int]) -> int:
    """Bit mask of a type (dimension d is bit d-1): sorting by it gives the manual's order."""
    return sum(1 << (d - 1) for d in set(dims))


VECTOR_TYPES: tuple[tuple[int, ...], ...] = tuple(
    tuple(d for d in DIMENSIONS if key >> (d - 1) & 1) for key in range(1, 16)
)
"""The 15 types in the manual's order: 1st, 2nd, 1st+2nd, 3rd, 1st+3rd, ... all four."""


@dataclass(frozen=True)
class Vector:
    """Four points in line order and the dimensions (1..4, sorted) the line moves in."""

    points: tuple[int, ...]
    dims: tuple[int, ...]
    mask: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "mask", sum(1 << p for p in self.points))

    @property
    def type_name(self) -> str:
        """``"1st, 3rd and 4th"``."""
        return dims_name(self.dims)

    def notation(self) -> str:
        """``"A1S B1R C1Q D1P"``."""
        return " ".join(point_name(p) for p in self.points)

    def to_json(self) -> dict[str, list[str] | list[int]]:
        """``{"points": ["A1S", ...], "dims": [1, 3]}`` as the CLI and the web API print it."""
        return {"points": [point_name(p) for p in self.points], "dims": list(self.dims)}


def _axis_values(dim_index: int, moving: bool) -> list[tuple[int, ...]]:
    """Every way one coordinate can evolve over the 4 points of a line."""
    if not moving:
        return [(v,) * SIZE for v in range(SIZE)]
    if dim_index < 3:
        return [tuple(range(SIZE)), tuple(reversed(range(SIZE)))]
    return [
        tuple((start + step * i) % SIZE for i in range(SIZE))
        for start in range(SIZE)
        for step in (1, -1)
    ]


def _canonical(coords: list[tuple[int, int, int, int]], dims: tuple[int, ...]) -> tuple[int, ...]:
    linear = [d - 1 for d in dims if d != TIME]
    if linear:
        if coords[0][linear[0]] != 0:
            coords = coords[::-1]
    else:
        coords = sorted(coords, key=lambda c: c[3])
    return tuple(point_index(*c) for c in coords)


def _build_vectors() -> tuple[Vector, ...]:
    found: dict[frozenset[int], Vector] = {}
    for dims in VECTOR_TYPES:
        axes = [_axis_values(i, i + 1 in dims) for i in range(4)]
        for xs, ys, zs, ts in product(*axes):
            coords = list(zip(xs, ys, zs, ts, strict=True))
            points = _canonical(coords, dims)
            found.setdefault(frozenset(points), Vector(points, dims))
    return tuple(sorted(found.values(), key=lambda v: (dims_key(v.dims), v.points)))


VECTORS: tuple[Vector, ...] = _build_vectors()
_BY_POINT_SET: dict[frozenset[int], Vector] = {frozenset(v.points): v for v in VECTORS}
VECTORS_THROUGH: tuple[tuple[Vector, ...], ...] = tuple(
    tuple(v for v in VECTORS if v.mask >> p & 1) for p in POINTS
)
_MASKS_THROUGH: tuple[tuple[tuple[int, Vector], ...], ...] = tuple(
    tuple((v.mask, v) for v in through) for through in VECTORS_THROUGH
)


def vector_of(points: Iterable[int]) -> Vector | None:
    """The vector made of exactly these points (any order), or ``None`` if they are not one."""
    return _BY_POINT_SET.get(frozenset(points))


def bitboard(tokens: Mapping[int, int], color: int) -> int:
    """The 256-bit int with bit ``p`` set for every point holding ``color``."""
    bits = 0
    for point, owner in tokens.items():
        if owner == color:
            bits |= 1 << point
    return bits


def completed_through(bits: int, point: int) -> list[Vector]:
    """Vectors through ``point`` with all four points set in ``bits`` (the per-move win check)."""
    return [vector for mask, vector in _MASKS_THROUGH[point] if bits & mask == mask]


def vectors_in(tokens: Mapping[int, int]) -> list[tuple[int, Vector]]:
    """``(colour, vector)`` for every vector whose four points hold one colour, by colour."""
    found = []
    for color in sorted(set(tokens.values())):
        bits = bitboard(tokens, color)
        found.extend((color, v) for v in VECTORS if bits & v.mask == v.mask)
    return found


def threats(tokens: Mapping[int, int], color: int) -> list[tuple[Vector, int]]:
    """Vectors with three tokens of ``color`` and the fourth point empty, with that point.

    The point is where ``color`` completes the vector on its next turn (or
    where an opponent must block).
    """
    own = bitboard(tokens, color)
    occupied = 0
    for point in tokens:
        occupied |= 1 << point
    found = []
    for vector in VECTORS:
        held = own & vector.mask
        if held.bit_count() == 3:
            missing = vector.mask ^ held
            if not missing & occupied:
                found.append((vector, missing.bit_length() - 1))
    return found


def coords_of(vector: Vector) -> list[tuple[int, int, int, int]]:
    """The 4D coordinates of a vector's points in line order."""
    return [point_coords(p) for p in vector.points]
