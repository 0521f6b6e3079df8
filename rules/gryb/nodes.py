"""The 341 nodes of the GRYB bandanna, their names, levels, colours and quadrangles.

A node *is* its name: the path of colours from the head node, one letter per
level (``G``, ``RY``, ``GGBY``). The head node is the empty path, written
``0``. Every quadrangle is the four children of one node (its *parent*), so
the 85 quadrangles are named by the 85 nodes of levels 0..3. Tables are built
once at import, like python-chess's square tables; an ``int`` index (level
order: head, G, R, Y, B, GG, GR, ...) is what the vision side counts with.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product

from rules.errors import NotationError

COLOURS = "GRYB"
"""Colour letters in the order they go round every quadrangle (G-R-Y-B-G)."""

COLOUR_NAMES = {"G": "green", "R": "red", "Y": "yellow", "B": "blue"}
DEPTH = 4
HEAD = ""
HEAD_NAME = "0"

# Sideways neighbours on a quadrangle: one length away round the square.
# G-Y and R-B are diagonal (two lengths away), so they are not neighbours.
SIDE_COLOURS: dict[str, tuple[str, str]] = {
    colour: (COLOURS[(i - 1) % 4], COLOURS[(i + 1) % 4]) for i, colour in enumerate(COLOURS)
}


def _build_nodes() -> tuple[str, ...]:
    return tuple("".join(path) for level in range(DEPTH + 1) for path in product(COLOURS, repeat=level))


NODES: tuple[str, ...] = _build_nodes()
"""All 341 nodes in level order; ``NODES[i]`` is the node with index ``i``."""
NODE_INDEX: dict[str, int] = {node: i for i, node in enumerate(NODES)}
LEVELS: tuple[tuple[str, ...], ...] = tuple(
    tuple(n for n in NODES if len(n) == level) for level in range(DEPTH + 1)
)
LEAVES: tuple[str, ...] = LEVELS[DEPTH]
QUADRANGLES: tuple[str, ...] = tuple(n for n in NODES if len(n) < DEPTH)
"""The 85 quadrangles, each named by its parent node (``0`` is the top quadrangle)."""


def is_node(value: object) -> bool:
    """True when ``value`` is a node (a path of at most four colour letters)."""
    return isinstance(value, str) and value in NODE_INDEX


def level(node: str) -> int:
    """Level 0 (head) to 4 (bottom)."""
    return len(node)


def focus(node: str) -> str | None:
    """The colour the ring sits on (last locus); ``None`` for the head node, whose colour is arbitrary."""
    return node[-1] if node else None


def parent(node: str) -> str | None:
    """The node above (the quadrangle's owner); ``None`` for the head node."""
    return node[:-1] if node else None


def children(node: str) -> tuple[str, ...]:
    """The quadrangle beneath ``node`` in G, R, Y, B order; empty on the bottom level."""
    return tuple(node + c for c in COLOURS) if len(node) < DEPTH else ()


def quadrangle_of(node: str) -> str | None:
    """The quadrangle (named by its parent) that ``node`` is a corner of; ``None`` for the head."""
    return parent(node)


def quadrangle_nodes(quadrangle: str) -> tuple[str, ...]:
    """The four nodes of a quadrangle; raises :class:`NotationError` if it has none."""
    if quadrangle not in NODE_INDEX or len(quadrangle) >= DEPTH:
        raise NotationError(f"{node_name(quadrangle)!r} has no quadrangle beneath it")
    return children(quadrangle)


def quadrangle_level(quadrangle: str) -> int:
    """1 for the top quadrangle .. 4 for a bottom-level quadrangle (the level of its corners)."""
    return len(quadrangle) + 1


def node_name(node: str) -> str:
    """The manual's notation: ``0`` for the head node, else the path itself."""
    return node or HEAD_NAME


def node_index(node: str) -> int:
    """Index 0..340 of a node in :data:`NODES`."""
    return NODE_INDEX[node]


def parse_node(text: object) -> str:
    """Parse a node name (``0``, ``G``, ``rybg``; any case, spaces around allowed) or an index.

    An ``int`` is taken as an index into :data:`NODES`. Raises
    :class:`NotationError` saying what is wrong.
    """
    if isinstance(text, bool):
        raise NotationError(f"{text!r} is not a node")
    if isinstance(text, int):
        if 0 <= text < len(NODES):
            return NODES[text]
        raise NotationError(f"node index {text} is off the board (0..{len(NODES) - 1})")
    if not isinstance(text, str):
        raise NotationError(f"a node is written like 0, G, RY or GGBY, not {text!r}")
    cleaned = text.strip().upper()
    if cleaned == HEAD_NAME:
        return HEAD
    if not cleaned:
        raise NotationError("an empty name is not a node: write the head node as 0")
    bad = sorted({c for c in cleaned if c not in COLOURS})
    if bad:
        raise NotationError(
            f"{text!r} is not a node: {', '.join(repr(c) for c in bad)} "
            "is not one of the colours G, R, Y, B"
        )
    if len(cleaned) > DEPTH:
        raise NotationError(f"{text!r} is not a node: names have at most {DEPTH} letters")
    return cleaned


def parse_nodes(texts: object) -> tuple[str, ...]:
    """Parse a list of node names (``[G, GR]`` text or a sequence); raises :class:`NotationError`."""
    if isinstance(texts, str):
        inner = texts.strip()
        if inner.startswith("[") and inner.endswith("]"):
            inner = inner[1:-1]
        items: list[object] = [part for part in inner.split(",")] if inner.strip() else []
    elif isinstance(texts, (list, tuple)):
        items = list(texts)
    else:
        raise NotationError(f"a list of nodes is written like [G, GR], not {texts!r}")
    return tuple(parse_node(item) for item in items)


def format_nodes(nodes: Iterable[str]) -> str:
    """Format nodes like the manual: ``[0, B, BR]``."""
    return "[" + ", ".join(node_name(n) for n in nodes) + "]"
