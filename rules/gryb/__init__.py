"""The GRYB bandanna: its 341-node game space, move kinds, lines and shapes, scoring, dice and games.

The games live in :mod:`rules.gryb.games` (``GAMES`` by kebab-case name) and a
series of games in :mod:`rules.gryb.series`; this package exports the game
space itself.
"""

from rules.gryb.dice import DIE_FACES, Dice, Roll
from rules.gryb.nodes import (
    COLOURS,
    HEAD,
    LEAVES,
    LEVELS,
    NODES,
    QUADRANGLES,
    children,
    focus,
    format_nodes,
    level,
    node_index,
    node_name,
    parse_node,
    parse_nodes,
    quadrangle_nodes,
)
from rules.gryb.scoring import (
    Gryb,
    Position,
    PositionError,
    find_grybs,
    parse_position,
    position_document,
    score_position,
)
from rules.gryb.shapes import (
    block_moves,
    components,
    hops,
    is_contiguous,
    is_line,
    is_shape,
    line_changes,
    shape_changes,
)
from rules.gryb.traversal import MOVE_KINDS, NEIGHBOURS, are_contiguous, reachable

__all__ = [
    "COLOURS", "DIE_FACES", "HEAD", "LEAVES", "LEVELS", "MOVE_KINDS", "NEIGHBOURS", "NODES",
    "QUADRANGLES", "Dice", "Gryb", "Position", "PositionError", "Roll", "are_contiguous", "block_moves",
    "children", "components", "find_grybs", "focus", "format_nodes", "hops", "is_contiguous",
    "is_line", "is_shape", "level", "line_changes", "node_index", "node_name", "parse_node",
    "parse_nodes", "parse_position", "position_document", "quadrangle_nodes", "reachable", "score_position",
    "shape_changes",
]
