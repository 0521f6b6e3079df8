"""Timeline (George Marino, 1985): 4D chess with rooks, bishops and timelines of chits."""

from rules.timeline.game import CrossingRule, TimelineGame
from rules.timeline.moves import Move, parse_move, path_of
from rules.timeline.pieces import COOL, STARTING_SQUARES, TEAM_NAMES, WARM, Kind, Piece, parse_piece
from rules.timeline.position import (
    PositionError,
    TimelinePosition,
    format_position,
    parse_position,
    starting_position,
)
from rules.timeline.space import DAYS, day_of, square_colour
from rules.timeline.timelines import Chit, captor_of, chits_on, free_pieces, truncate

__all__ = [
    "COOL",
    "DAYS",
    "STARTING_SQUARES",
    "TEAM_NAMES",
    "WARM",
    "Chit",
    "CrossingRule",
    "Kind",
    "Move",
    "Piece",
    "PositionError",
    "TimelineGame",
    "TimelinePosition",
    "captor_of",
    "chits_on",
    "day_of",
    "format_position",
    "free_pieces",
    "parse_move",
    "parse_piece",
    "parse_position",
    "path_of",
    "square_colour",
    "starting_position",
    "truncate",
]
