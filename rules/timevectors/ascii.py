"""The play-by-mail server's ASCII board: render a position and parse it back.

The layout is the help file's: a column header ``A B C D E F G H``, then one
block per level from the top (S, R, Q, P), each with rows 8..1 drawn in
perspective (rows 8-5 indented further than rows 4-1), a ``Level X`` label
after row 5, and the column header again at the end. A point is ``.`` when
empty, else the symbol of its colour (``x``, ``o``, ``+`` by default).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rules.errors import NotationError
from rules.timevectors.points import COLUMN_LETTERS, TIER_LETTERS, point_from_global

DEFAULT_SYMBOLS = "xo+"
EMPTY = "."
_HEADER = " ".join(COLUMN_LETTERS)
_LABEL_INDENT = 46
_ROW_LINE = re.compile(r"^\s*([1-8])\s{3}(\S(?:\s{2}\S){3})\s{5}(\S(?:\s{2}\S){3})\s{3}([1-8])\s*$")
_LABEL_LINE = re.compile(r"^\s*Level\s+([A-Za-z])\s*$")


def _row_indent(row: int) -> int:
    """Leading spaces of row ``row`` (1..8): the help file's perspective slant."""
    return row + 4 if row >= 5 else row + 3


def render_ascii(tokens: Mapping[int, int], symbols: str = DEFAULT_SYMBOLS) -> str:
    """Draw ``tokens`` (point -> colour) in the help file's layout.

    Raises ``ValueError`` for a colour that has no symbol.
    """
    for color in set(tokens.values()):
        if not 0 <= color < len(symbols):
            raise ValueError(f"colour {color} has no symbol in {symbols!r}")
    lines = [_HEADER, ""]
    for tier in reversed(range(len(TIER_LETTERS))):
        for row in reversed(range(8)):
            cells = []
            for column in range(8):
                color = tokens.get(point_from_global(column, row, tier))
                cells.append(EMPTY if color is None else symbols[color])
            west, east = "  ".join(cells[:4]), "  ".join(cells[4:])
            lines.append(f"{' ' * _row_indent(row + 1)}{row + 1}   {west}     {east}   {row + 1}")
            if row == 4:
                lines.append(f"{' ' * _LABEL_INDENT}Level {TIER_LETTERS[tier]}")
        lines.append("")
    lines.append(_HEADER)
    return "\n".join(lines) + "\n"


def parse_ascii(text: str, symbols: str = DEFAULT_SYMBOLS) -> dict[int, int]:
    """Read a board drawn by :func:`render_ascii` (or the help file) back into point -> colour.

    Indentation and blank lines are free; each level must have rows 8 down to 1
    and one ``Level`` label, and all four levels must be present once. Raises
    :class:`NotationError` saying which line is wrong.
    """
    tokens: dict[int, int] = {}
    levels_seen: set[str] = set()
    block: list[list[str]] = []
    label: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped == _HEADER:
            continue
        if match := _LABEL_LINE.match(line):
            label = match.group(1).upper()
            if label not in TIER_LETTERS or label in levels_seen or not block:
                raise NotationError(f"line {number}: unexpected label {stripped!r}")
            levels_seen.add(label)
            continue
        match = _ROW_LINE.match(line)
        if match is None:
            raise NotationError(f"line {number} is not a board row: {stripped!r}")
        row, expected = int(match.group(1)), 8 - len(block)
        if row != int(match.group(4)) or row != expected:
            raise NotationError(f"line {number}: expected row {expected}, found {stripped!r}")
        block.append((match.group(2) + "  " + match.group(3)).split())
        if row == 1:
            if label is None:
                raise NotationError(f"line {number}: the level ending here has no 'Level' label")
            _store_level(block, TIER_LETTERS.index(label), symbols, tokens, number)
            block, label = [], None
    if block:
        raise NotationError("the board ends in the middle of a level")
    if levels_seen != set(TIER_LETTERS):
        missing = ", ".join(sorted(set(TIER_LETTERS) - levels_seen))
        raise NotationError(f"levels missing from the board: {missing}")
    return tokens


def _store_level(
    block: list[list[str]], tier: int, symbols: str, tokens: dict[int, int], number: int
) -> None:
    """Put one level's rows (8 down to 1) into ``tokens``."""
    for offset, cells in enumerate(block):
        row = 7 - offset
        for column, cell in enumerate(cells):
            if cell == EMPTY:
                continue
            if cell not in symbols:
                raise NotationError(
                    f"level {TIER_LETTERS[tier]} row {row + 1}: "
                    f"{cell!r} is not '.' or one of {symbols!r}"
                )
            tokens[point_from_global(column, row, tier)] = symbols.index(cell)
