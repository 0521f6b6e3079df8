"""Lines and shapes: contiguity, moving them as a block, changing them, and hops.

Nodes are contiguous when one is up, down or to either side of the other. A
*line* is two contiguous nodes, a *shape* three or more that form one
contiguous group. A block move applies the same edit to every node's path, so
the foci and the arrangement never change (the manual's "moving lines" and
"moving shapes"); its result is a tuple in the same order as the input.

Interpretations: the head node takes whatever colour the block move needs
("the head node can be any colour"), so interjecting colour ``c`` as the first
locus moves the head to ``c`` (``[0, G, R]`` -> ``[G, GG, GR]``, written
``[G, G, R]`` by foci in the manual), and excising the first locus moves a
top-level node back to the head. A block hyperspace shift needs the shifted
locus to be an upper locus of every node (so blocks on the head cannot use
it). Hops go from an end to a free node contiguous to another end; hopping
over the head into periodic space is not offered.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from rules.gryb.nodes import COLOURS, DEPTH
from rules.gryb.traversal import NEIGHBOURS

Block = tuple[str, ...]


def components(nodes: Iterable[str]) -> list[frozenset[str]]:
    """Contiguous groups of ``nodes``, largest first (ties by their first node)."""
    remaining = set(nodes)
    groups: list[frozenset[str]] = []
    while remaining:
        start = remaining.pop()
        group = {start}
        frontier = [start]
        while frontier:
            for neighbour in NEIGHBOURS[frontier.pop()] & remaining:
                remaining.discard(neighbour)
                group.add(neighbour)
                frontier.append(neighbour)
        groups.append(frozenset(group))
    return sorted(groups, key=lambda g: (-len(g), min(g, key=lambda n: (len(n), n))))


def is_contiguous(nodes: Collection[str]) -> bool:
    """True when ``nodes`` are distinct, not empty, and form one contiguous group."""
    distinct = set(nodes)
    return len(distinct) == len(nodes) > 0 and len(components(distinct)) == 1


def is_line(nodes: Collection[str]) -> bool:
    """Two contiguous nodes, like ``[G, R]`` or ``[Y, YB]``."""
    return len(nodes) == 2 and is_contiguous(nodes)


def is_shape(nodes: Collection[str]) -> bool:
    """Three or more nodes forming one contiguous group, like ``[0, B, BR]``."""
    return len(nodes) >= 3 and is_contiguous(nodes)


def _distinct(block: list[str | None]) -> Block | None:
    if any(n is None for n in block) or len(set(block)) != len(block):
        return None
    return tuple(block)  # type: ignore[arg-type]


def _interject(node: str, position: int, colour: str) -> str | None:
    if not node:
        return colour if position == 0 else None
    if position >= len(node) or len(node) >= DEPTH:
        return None
    return node[:position] + colour + node[position:]


def _excise(node: str, position: int) -> str | None:
    if len(node) >= position + 2:
        return node[:position] + node[position + 1 :]
    if len(node) == 1 and position == 0:
        return ""  # a top-level node's focus becomes the head node's arbitrary colour
    return None


def _shift(node: str, position: int, step: int) -> str | None:
    if len(node) < position + 2:
        return None
    shifted = COLOURS[(COLOURS.index(node[position]) + step) % 4]
    return node[:position] + shifted + node[position + 1 :]


def block_interjections(block: Block) -> list[Block]:
    """Every interjection of one locus at the same position of every node."""
    results = []
    for position in range(DEPTH):
        for colour in COLOURS:
            moved = _distinct([_interject(n, position, colour) for n in block])
            if moved is not None:
                results.append(moved)
    return results


def block_excisions(block: Block) -> list[Block]:
    """Every excision of the locus at the same position of every node."""
    results = []
    for position in range(DEPTH):
        moved = _distinct([_excise(n, position) for n in block])
        if moved is not None:
            results.append(moved)
    return results


def block_hyperspace(block: Block) -> list[Block]:
    """Every shift of one shared upper locus one length round its quadrangle."""
    results = []
    for position in range(DEPTH - 1):
        for step in (-1, 1):
            moved = _distinct([_shift(n, position, step) for n in block])
            if moved is not None:
                results.append(moved)
    return results


BLOCK_KINDS = {
    "interjection": block_interjections,
    "excision": block_excisions,
    "hyperspace": block_hyperspace,
}
"""How a line or shape moves as a block, by move kind."""


def block_moves(block: Block, kinds: Iterable[str] = tuple(BLOCK_KINDS)) -> list[Block]:
    """Every block move of ``block`` by the given kinds (each result in the input's order)."""
    seen: dict[Block, None] = {}
    for kind in kinds:
        for moved in BLOCK_KINDS[kind](block):
            seen.setdefault(moved, None)
    return list(seen)


def ends(nodes: Collection[str]) -> frozenset[str]:
    """Nodes that can leave the group without splitting the rest (both ends of a chain)."""
    group = set(nodes)
    if len(group) <= 2:
        return frozenset(group)
    return frozenset(n for n in group if is_contiguous(group - {n}))


def line_changes(line: Collection[str]) -> set[frozenset[str]]:
    """Move one endpoint to any other node contiguous to the other endpoint."""
    a, b = tuple(line)
    return {
        frozenset((stay, new))
        for moved, stay in ((a, b), (b, a))
        for new in NEIGHBOURS[stay] - {moved}
    }


def shape_changes(shape: Collection[str]) -> set[frozenset[str]]:
    """Keep the centre still and move an end to another node linked to the centre.

    For a shape of three, the centre is the node contiguous to both others
    (either of two for ``[B, BG, BR]``); for bigger shapes any end may swing
    round any node it touches.
    """
    group = frozenset(shape)
    changes = set()
    for moved in ends(group):
        rest = group - {moved}
        for centre in NEIGHBOURS[moved] & rest:
            for new in NEIGHBOURS[centre] - group:
                changes.add(rest | {new})
    return changes


def hops(shape: Collection[str]) -> set[frozenset[str]]:
    """Hop a ring from one end to a free node past another end (up 1, sideways 2, down 4 choices)."""
    group = frozenset(shape)
    tips = ends(group)
    return {
        (group - {moved}) | {new}
        for moved in tips
        for other in tips - {moved}
        for new in NEIGHBOURS[other] - group
    }

