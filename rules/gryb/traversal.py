"""Every way the manual moves one ring, as functions from a node to the nodes one move reaches.

Each function takes a node (its name, ``""`` for the head) and returns a
sorted tuple of distinct nodes, never the node itself. Interpretations where
the manual leaves room:

* interjection inserts any colour anywhere *before* the focus (so ``G`` ->
  ``RG``), excision deletes any locus before the focus; the limited forms only
  touch the penultimate position;
* hyperspace changes one upper locus (not the focus) to a colour one length
  away round the quadrangle; the manual says that "at the top level this
  becomes a sideways move", so on the top level both hyperspace and limited
  hyperspace are the sideways move;
* the head node has no focus, so only ``down`` leaves it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from rules.errors import NotationError
from rules.gryb.nodes import COLOURS, DEPTH, NODES, SIDE_COLOURS, children

Traversal = Callable[[str], tuple[str, ...]]


def _unique(nodes: list[str], origin: str) -> tuple[str, ...]:
    return tuple(sorted(set(nodes) - {origin}, key=lambda n: (len(n), n)))


def down(node: str) -> tuple[str, ...]:
    """The four nodes of the quadrangle beneath ``node`` (none on the bottom level)."""
    return children(node)


def up(node: str) -> tuple[str, ...]:
    """The node whose quadrangle ``node`` is on (none from the head node)."""
    return (node[:-1],) if node else ()


def _interject_at(node: str, positions: range) -> tuple[str, ...]:
    if not node or len(node) >= DEPTH:
        return ()
    return _unique([node[:i] + c + node[i:] for i in positions for c in COLOURS], node)


def interjection(node: str) -> tuple[str, ...]:
    """Insert a locus anywhere before the focus: ``G`` -> ``RG``, ``RG`` -> ``RYG``."""
    return _interject_at(node, range(len(node)))


def limited_interjection(node: str) -> tuple[str, ...]:
    """Insert a locus just before the focus only: ``BGY`` -> ``BGRY``, ``Y`` -> ``BY``."""
    return _interject_at(node, range(len(node) - 1, len(node)))


def _excise_at(node: str, positions: range) -> tuple[str, ...]:
    return _unique([node[:i] + node[i + 1 :] for i in positions], node)


def excision(node: str) -> tuple[str, ...]:
    """Delete any locus before the focus: ``RBYY`` -> ``BYY``, ``GBYR`` -> ``GBR`` or ``GYR``."""
    return _excise_at(node, range(max(len(node) - 1, 0)))


def limited_excision(node: str) -> tuple[str, ...]:
    """Delete the penultimate locus only: ``BGRY`` -> ``BGY``, ``BY`` -> ``Y``."""
    return _excise_at(node, range(len(node) - 2, len(node) - 1) if len(node) >= 2 else range(0))


def _vary_at(node: str, positions: range) -> tuple[str, ...]:
    return _unique(
        [node[:i] + side + node[i + 1 :] for i in positions for side in SIDE_COLOURS[node[i]]], node
    )


def sideways(node: str) -> tuple[str, ...]:
    """The two neighbours one length away on the same quadrangle: ``G`` -> ``R`` or ``B``, not ``Y``."""
    return _vary_at(node, range(len(node) - 1, len(node))) if node else ()


def hyperspace(node: str) -> tuple[str, ...]:
    """Shift one upper locus one length round: ``RGYY`` -> ``YGYY``; on the top level, sideways."""
    if len(node) == 1:
        return sideways(node)
    return _vary_at(node, range(len(node) - 1))


def limited_hyperspace(node: str) -> tuple[str, ...]:
    """Shift the penultimate locus only: ``GBY`` -> ``GGY`` or ``GYY``; on the top level, sideways."""
    if len(node) == 1:
        return sideways(node)
    return _vary_at(node, range(len(node) - 2, len(node) - 1) if len(node) >= 2 else range(0))


MOVE_KINDS: dict[str, Traversal] = {
    "down": down,
    "up": up,
    "interjection": interjection,
    "limited-interjection": limited_interjection,
    "excision": excision,
    "limited-excision": limited_excision,
    "sideways": sideways,
    "hyperspace": hyperspace,
    "limited-hyperspace": limited_hyperspace,
}
"""Every move kind of the manual by its command-line name."""

# One lookup table per kind, built once: REACH[kind][node] -> nodes one move reaches.
REACH: dict[str, dict[str, tuple[str, ...]]] = {
    kind: {node: move(node) for node in NODES} for kind, move in MOVE_KINDS.items()
}


class UnknownMoveKindError(NotationError):
    """A move kind that is not one of :data:`MOVE_KINDS`."""


def check_kind(kind: str) -> str:
    """Return ``kind`` if it is a move kind, else raise :class:`UnknownMoveKindError`."""
    if kind not in MOVE_KINDS:
        raise UnknownMoveKindError(
            f"{kind!r} is not a move kind: use one of {', '.join(MOVE_KINDS)}"
        )
    return kind


def reachable(kind: str, node: str) -> tuple[str, ...]:
    """Nodes one move of ``kind`` reaches from ``node``; raises :class:`UnknownMoveKindError`."""
    return REACH[check_kind(kind)][node]


@cache
def reachable_by(kinds: tuple[str, ...], node: str) -> frozenset[str]:
    """Nodes one move of any of ``kinds`` reaches from ``node`` (cached: games ask often)."""
    return frozenset(target for kind in kinds for target in REACH[check_kind(kind)][node])


def kinds_between(source: str, target: str, kinds: tuple[str, ...] = tuple(MOVE_KINDS)) -> tuple[str, ...]:
    """Which of ``kinds`` take a ring from ``source`` to ``target`` in one move."""
    return tuple(kind for kind in kinds if target in REACH[check_kind(kind)][source])


CONTIGUOUS_KINDS = ("up", "down", "sideways")
"""What makes two nodes contiguous for lines, shapes, blobs and collectives."""

NEIGHBOURS: dict[str, frozenset[str]] = {node: reachable_by(CONTIGUOUS_KINDS, node) for node in NODES}
"""Contiguous nodes of each node (up, down, or to either side)."""


def are_contiguous(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` are one up, down or sideways step apart."""
    return b in NEIGHBOURS[a]
