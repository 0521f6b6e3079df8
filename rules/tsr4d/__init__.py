"""TSR "4D" (1979): Time-Lords, Time-warp and beam-down on a circular 60-space board."""

from rules.tsr4d.actions import (
    Action,
    BeamDown,
    Capture,
    EndTurn,
    Linger,
    Step,
    SuicideCapture,
    Warp,
)
from rules.tsr4d.board import NEIGHBOURS, SPACE_NAMES, SPACES, WITHIN_TWO, parse_space, space_name
from rules.tsr4d.game import SuicideRule, Tsr4dGame, TurnProgress
from rules.tsr4d.notation import (
    action_notation,
    action_to_dict,
    parse_action,
    parse_turn,
    turn_notation,
)
from rules.tsr4d.pieces import BLUE, PLAYER_NAMES, WHITE, Kind, can_capture, token_code
from rules.tsr4d.position import (
    STARTING_POSITION_TEXT,
    Position,
    PositionError,
    WarpSlot,
    format_position,
    parse_position,
    starting_position,
)

__all__ = [
    "BLUE",
    "NEIGHBOURS",
    "PLAYER_NAMES",
    "SPACES",
    "SPACE_NAMES",
    "STARTING_POSITION_TEXT",
    "WHITE",
    "WITHIN_TWO",
    "Action",
    "BeamDown",
    "Capture",
    "EndTurn",
    "Kind",
    "Linger",
    "Position",
    "PositionError",
    "Step",
    "SuicideCapture",
    "SuicideRule",
    "Tsr4dGame",
    "TurnProgress",
    "Warp",
    "WarpSlot",
    "action_notation",
    "action_to_dict",
    "can_capture",
    "format_position",
    "parse_action",
    "parse_position",
    "parse_space",
    "parse_turn",
    "space_name",
    "starting_position",
    "token_code",
    "turn_notation",
]
