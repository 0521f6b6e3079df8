"""Lines and shapes: contiguity, block moves, changes and hops, with the manual's examples."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rules.gryb.nodes import NODES
from rules.gryb.shapes import (
    block_excisions,
    block_hyperspace,
    block_interjections,
    block_moves,
    components,
    ends,
    hops,
    is_contiguous,
    is_line,
    is_shape,
    line_changes,
    shape_changes,
)
from rules.gryb.traversal import NEIGHBOURS


def fs(*nodes):
    return frozenset(nodes)


def test_manual_lines():
    for line in (["G", "R"], ["Y", "YB"], ["G", "GY"], ["RGRG", "RGRR"]):
        assert is_line(line)
    assert not is_line(["G", "Y"])  # two lengths apart
    assert not is_line(["G", "GYR"])
    assert not is_line(["G", "G"])


def test_manual_shapes():
    for shape in (
        ["G", "B", "Y"], ["GY", "GYR", "GYRR"], ["YBR", "YBY", "YBYG"],
        ["", "B", "BR"], ["", "B", "BY"], ["B", "BG", "BR"],
    ):
        assert is_shape(shape)
    assert not is_shape(["G", "R"])  # two nodes make a line
    assert not is_shape(["G", "Y", "GG"])  # Y touches neither G nor GG


def test_components():
    groups = components(["G", "GG", "Y", "YB", "YBR", "BBBB"])
    assert groups == [fs("Y", "YB", "YBR"), fs("G", "GG"), fs("BBBB")]
    assert not is_contiguous(["G", "GG", "Y"])


def test_manual_line_moves():
    # via hyperspace, excision and interjection
    assert ("BGR", "BGY") in block_hyperspace(("BRR", "BRY"))
    assert ("RR", "RY") in block_excisions(("BRR", "BRY"))
    assert ("BRGR", "BRGY") in block_interjections(("BRR", "BRY"))
    assert ("BR", "BRG") in block_interjections(("R", "RG"))


def test_manual_shape_moves():
    assert ("R", "RY", "RYY") in block_excisions(("GR", "GRY", "GRYY"))
    assert ("YGR", "YGRR", "YGRG") in block_hyperspace(("YBR", "YBRR", "YBRG"))
    # "[0, G, R] could move down to [G, G, R] or [R, G, R] or interject Y or B as the first locus"
    moved = block_interjections(("", "G", "R"))
    assert {m[0] for m in moved} == {"G", "R", "Y", "B"}
    assert ("G", "GG", "GR") in moved and ("R", "RG", "RR") in moved
    # and back up again: a top node takes the head node's place
    assert ("", "G", "R") in block_excisions(("G", "GG", "GR"))


def test_blocks_that_cannot_move():
    assert block_excisions(("G", "R")) == []  # both would land on the head
    assert block_hyperspace(("", "G", "GR")) == []  # the head has no upper locus
    assert block_interjections(("GGBY", "GGBR")) == []  # already on the bottom


def test_manual_line_changes():
    assert fs("YB", "YBG") in line_changes(["YB", "YBY"])
    assert fs("GR", "GRB") in line_changes(["G", "GR"])
    assert all(is_line(list(line)) for line in line_changes(["G", "GR"]))


def test_manual_shape_changes():
    assert fs("YG", "YGR", "YGY") in shape_changes(["YG", "YGR", "YGRB"])
    assert fs("YGG", "YGR", "YGRB") in shape_changes(["YG", "YGR", "YGRB"])
    assert fs("B", "BG", "BGY") in shape_changes(["B", "BG", "BR"])
    assert fs("B", "BR", "BRY") in shape_changes(["B", "BG", "BR"])
    # the middle of a chain never moves
    assert all("YGR" in changed for changed in shape_changes(["YG", "YGR", "YGRB"]))


def test_manual_hops():
    assert fs("Y", "YG", "YB") in hops(["R", "Y", "YG"])
    assert fs("R", "G", "GB") in hops(["", "R", "G"])
    assert fs("R", "G", "B") in hops(["", "R", "G"])
    # up one choice, sideways two, down four: hopping R past YG
    from_r = {new for new in hops(["R", "Y", "YG"]) if "R" not in new}
    assert len(from_r) == 1 + 2 + 4 - 1  # Y itself is taken by the shape


def test_ends_of_a_chain_and_a_triangle():
    assert ends(["YG", "YGR", "YGRB"]) == fs("YG", "YGRB")
    assert ends(["B", "BG", "BR"]) == fs("B", "BG", "BR")


contiguous_blocks = st.sampled_from(NODES).flatmap(
    lambda start: st.lists(st.integers(0, 6), min_size=1, max_size=3).map(
        lambda picks: _grow(start, picks)
    )
)


def _grow(start: str, picks: list[int]) -> tuple[str, ...]:
    block = [start]
    for pick in picks:
        options = sorted(set().union(*(NEIGHBOURS[n] for n in block)) - set(block))
        block.append(options[pick % len(options)])
    return tuple(block)


@given(contiguous_blocks)
def test_block_moves_keep_the_arrangement_and_the_foci(block):
    assert is_contiguous(block)
    for moved in block_moves(block):
        assert is_contiguous(moved)
        assert len(set(moved)) == len(block)
        for before, after in zip(block, moved):
            if before and after:
                assert before[-1] == after[-1]


@given(contiguous_blocks)
def test_block_interjection_and_excision_are_inverse(block):
    for moved in block_interjections(block):
        assert block in block_excisions(moved)
    for moved in block_excisions(block):
        assert block in block_interjections(moved)


@given(contiguous_blocks)
def test_changes_and_hops_keep_shapes_contiguous(block):
    if len(block) == 2:
        results = line_changes(block)
    else:
        results = shape_changes(block) | hops(block)
    for result in results:
        assert is_contiguous(result) and len(result) == len(block)
        assert len(result - set(block)) == 1
