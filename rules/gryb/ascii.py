"""A GRYB position as text: each level of the tree drawn as its square lattice of nodes.

Nodes sit where the bandanna prints them (G north-west, R north-east, Y south-east,
B south-west of their parent), so level k is a 2^k x 2^k grid read like the cloth.
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.gryb.nodes import NODES, level

_DIRECTIONS = {"G": (-1, 1), "R": (1, 1), "Y": (1, -1), "B": (-1, -1)}
LEVEL_NAMES = ("head node", "top level", "second level", "third level", "fourth level")


def lattice_cell(node: str) -> tuple[int, int]:
    """``(column, row)`` of a node in its level's grid, column west->east, row north->south."""
    k = len(node)
    x = y = 0
    for i, letter in enumerate(node):
        dx, dy = _DIRECTIONS[letter]
        step = 2 ** (k - 1 - i)  # halves at every level, as the printed steps 120, 60, 30, 15 mm
        x, y = x + dx * step, y + dy * step
    return (x + 2**k - 1) // 2, (2**k - 1 - y) // 2


def render_levels(tokens: Mapping[str, int], symbols: str = "xo") -> str:
    """Every level's grid with ``.`` for a free node and the ring's symbol otherwise."""
    blocks = []
    for k in range(5):
        size = 2**k
        grid = [["."] * size for _ in range(size)]
        for node in (n for n in NODES if level(n) == k):
            colour = tokens.get(node)
            if colour is not None:
                column, row = lattice_cell(node)
                grid[row][column] = symbols[colour] if 0 <= colour < len(symbols) else "?"
        rows = "\n".join("  " + " ".join(row) for row in grid)
        blocks.append(f"{LEVEL_NAMES[k]}:\n{rows}")
    return "\n\n".join(blocks) + "\n"
