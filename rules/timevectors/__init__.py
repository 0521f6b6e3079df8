"""The Time Vectors game: 4x4x4x4 four-in-a-row with a cyclic time dimension.

Points are ints 0..255 (:mod:`.points`), the 976 vectors and the win check are
in :mod:`.vectors`, the game with its openings in :mod:`.game`, judging an
observed board in :mod:`.judge`, the play-by-mail ASCII board in :mod:`.ascii`.
"""

from rules.timevectors.ascii import parse_ascii, render_ascii
from rules.timevectors.config import GameConfig
from rules.timevectors.game import TimeVectorsGame
from rules.timevectors.moves import Move
from rules.timevectors.points import POINT_NAMES, parse_point, point_coords, point_index, point_name
from rules.timevectors.position import Status, position_from_dict, position_status, position_to_dict
from rules.timevectors.vectors import (
    VECTOR_TYPES,
    VECTORS,
    VECTORS_THROUGH,
    Vector,
    dims_name,
    threats,
    vector_of,
    vectors_in,
)

__all__ = [
    "POINT_NAMES",
    "VECTORS",
    "VECTORS_THROUGH",
    "VECTOR_TYPES",
    "GameConfig",
    "Move",
    "Status",
    "TimeVectorsGame",
    "Vector",
    "dims_name",
    "parse_ascii",
    "parse_point",
    "point_coords",
    "point_index",
    "point_name",
    "position_from_dict",
    "position_status",
    "position_to_dict",
    "render_ascii",
    "threats",
    "vector_of",
    "vectors_in",
]
