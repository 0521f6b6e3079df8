"""The circular board of TSR "4D": 60 spaces on four rings and their adjacency.

Rings ``a`` (outermost, 32 spaces), ``b`` (16), ``c`` (8) and ``d`` (4) are
numbered counter-clockwise from 1, all starting at the same ray. Each ring has
half the spaces of the ring outside it, so space ``k`` of one ring touches
spaces ``2k-1`` and ``2k`` of the ring outside. That is what the rules'
examples fix: the Warrior at b4 moves to a7, a8, b3, b5 and c2, and a
beam-down from a Marker at b3 reaches exactly a3-a8, b1-b5, c1-c3 and d1.
Adjacency is never diagonal.

A space is an ``int`` 0..59 (ring a first); tables are built once at import.
"""

from __future__ import annotations

from rules.errors import NotationError

RINGS = "abcd"
RING_SIZES = (32, 16, 8, 4)
_RING_OFFSETS = (0, 32, 48, 56)
SPACE_COUNT = sum(RING_SIZES)
SPACES = range(SPACE_COUNT)


def space_index(ring: int, number: int) -> int:
    """The space numbered ``number`` (1-based) on ring ``ring`` (0=a .. 3=d); raises ``ValueError``."""
    if not 0 <= ring < len(RINGS):
        raise ValueError(f"ring {ring} does not exist (0..3 for a..d)")
    if not 1 <= number <= RING_SIZES[ring]:
        raise ValueError(f"ring {RINGS[ring]} has spaces 1..{RING_SIZES[ring]}, not {number}")
    return _RING_OFFSETS[ring] + number - 1


def space_ring_number(space: int) -> tuple[int, int]:
    """Ring (0..3) and 1-based number of a space."""
    for ring in reversed(range(len(RINGS))):
        if space >= _RING_OFFSETS[ring]:
            return ring, space - _RING_OFFSETS[ring] + 1
    raise ValueError(f"space {space} is off the board")


SPACE_NAMES: tuple[str, ...] = tuple(
    f"{RINGS[ring]}{number}" for ring, number in map(space_ring_number, SPACES)
)
_NAME_TO_SPACE = {name: space for space, name in enumerate(SPACE_NAMES)}


def space_name(space: int) -> str:
    """The rules' name of a space, like ``b4``."""
    return SPACE_NAMES[space]


def parse_space(text: str) -> int:
    """Parse a space name like ``b4`` (any case, spaces around allowed); raises :class:`NotationError`."""
    if not isinstance(text, str):
        raise NotationError(f"a space is written like b4, not {text!r}")
    cleaned = text.strip().lower()
    space = _NAME_TO_SPACE.get(cleaned)
    if space is not None:
        return space
    if cleaned[:1] in RINGS and cleaned[1:].isdigit():
        ring = RINGS.index(cleaned[0])
        raise NotationError(
            f"{text!r}: ring {cleaned[0]} has spaces 1..{RING_SIZES[ring]}"
        )
    raise NotationError(f"{text!r} is not a space: write a ring a-d and a number, like b4")


def _neighbours(space: int) -> frozenset[int]:
    ring, number = space_ring_number(space)
    size = RING_SIZES[ring]
    found = {
        space_index(ring, (number - 2) % size + 1),
        space_index(ring, number % size + 1),
    }
    if ring > 0:  # the ring outside
        found.add(space_index(ring - 1, 2 * number - 1))
        found.add(space_index(ring - 1, 2 * number))
    if ring < len(RINGS) - 1:  # the ring inside
        found.add(space_index(ring + 1, (number + 1) // 2))
    return frozenset(found)


NEIGHBOURS: tuple[frozenset[int], ...] = tuple(_neighbours(space) for space in SPACES)


def _within_two(space: int) -> frozenset[int]:
    reach = {space} | NEIGHBOURS[space]
    for near in NEIGHBOURS[space]:
        reach |= NEIGHBOURS[near]
    return frozenset(reach)


# Beam-down destinations: the Marker's space and everything up to two ordinary moves away.
WITHIN_TWO: tuple[frozenset[int], ...] = tuple(_within_two(space) for space in SPACES)
