"""Positions outside a game: the JSON position format and flags for impossible positions.

A position file (what ``boardcam check`` reads) is
``{"board": "timevectors", "tokens": {"A1P": 0, "B2Q": 1}}`` with colours 0..2.
Vision may report positions no game can reach; :func:`position_status` says
what is impossible about one as flags, like python-chess's ``Board.status()``,
instead of raising.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from rules.errors import RecordError
from rules.timevectors.points import POINTS, parse_point, point_name
from rules.timevectors.vectors import vectors_in

if TYPE_CHECKING:
    from rules.timevectors.config import GameConfig

BOARD_NAME = "timevectors"


class Status(enum.IntFlag):
    """What is impossible about a position; ``VALID`` (0) when nothing is."""

    VALID = 0
    BAD_POINT = enum.auto()
    """A key that is not a point 0..255."""
    UNKNOWN_COLOR = enum.auto()
    """A token of a colour that is not in play."""
    TOO_MANY_TOKENS = enum.auto()
    """More tokens of a colour than its supply."""
    TURN_IMBALANCE = enum.auto()
    """Token counts per colour that no turn order produces."""
    SEVERAL_WINNERS = enum.auto()
    """Completed vectors of more than one colour: the game ends at the first."""


def position_status(tokens: Mapping[Any, Any], config: GameConfig) -> Status:
    """Flags for everything impossible about ``tokens`` under ``config`` (see :class:`Status`)."""
    status = Status.VALID
    colors_in_play = config.colors_in_play
    counts = [0] * colors_in_play
    clean: dict[int, int] = {}
    for point, color in tokens.items():
        if isinstance(point, bool) or point not in POINTS:
            status |= Status.BAD_POINT
        elif isinstance(color, bool) or color not in range(colors_in_play):
            status |= Status.UNKNOWN_COLOR
        else:
            counts[color] += 1
            clean[point] = color
    if max(counts) > config.supply:
        status |= Status.TOO_MANY_TOKENS
    if not _counts_possible(counts, config):
        status |= Status.TURN_IMBALANCE
    if len({color for color, _ in vectors_in(clean)}) > 1:
        status |= Status.SEVERAL_WINNERS
    return status


def _counts_possible(counts: list[int], config: GameConfig) -> bool:
    """Whether some sequence of turns leaves these token counts per colour."""
    if config.opening != "none":
        # Swap lets colour 1 lead by one, 3MEQ lets either colour lead by one.
        return max(counts) - min(counts) <= 1
    # Colours take turns in index order, so earlier colours are never behind.
    return all(a >= b for a, b in pairwise(counts)) and counts[0] - counts[-1] <= 1


def position_from_dict(data: Any) -> dict[int, int]:
    """Read the position format into point -> colour.

    Raises :class:`RecordError` for a wrong structure, board name, colour
    (must be 0..2) or a point given twice, and
    :class:`~rules.errors.NotationError` for a malformed point name.
    """
    if not isinstance(data, Mapping):
        raise RecordError(f"a position is a JSON object, not {type(data).__name__}")
    if data.get("board") != BOARD_NAME:
        raise RecordError(f"board must be {BOARD_NAME!r}, not {data.get('board')!r}")
    raw = data.get("tokens")
    if not isinstance(raw, Mapping):
        raise RecordError("tokens must be an object mapping points like 'A1P' to colours 0..2")
    tokens: dict[int, int] = {}
    for name, color in raw.items():
        point = parse_point(name)
        if isinstance(color, bool) or not isinstance(color, int) or not 0 <= color <= 2:
            raise RecordError(f"{name}: colour must be 0, 1 or 2, not {color!r}")
        if point in tokens:
            raise RecordError(f"{name}: {point_name(point)} is given twice")
        tokens[point] = color
    return tokens


def position_to_dict(tokens: Mapping[int, int]) -> dict[str, Any]:
    """The position format for ``tokens`` (points in index order)."""
    return {"board": BOARD_NAME, "tokens": {point_name(p): tokens[p] for p in sorted(tokens)}}
