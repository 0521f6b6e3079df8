"""Every move kind of the manual, with every example it gives (allowed or not)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.gryb.nodes import HEAD, LEAVES, NODES, parent
from rules.gryb.traversal import (
    MOVE_KINDS,
    NEIGHBOURS,
    UnknownMoveKindError,
    down,
    excision,
    hyperspace,
    interjection,
    kinds_between,
    limited_excision,
    limited_hyperspace,
    reachable,
    sideways,
    up,
)

nodes = st.sampled_from(NODES)

# (kind, from, to) examples the manual gives as legal moves.
MANUAL_MOVES = [
    ("down", "R", "RG"), ("down", "RG", "RGB"), ("down", "YGR", "YGRR"),
    ("up", "YGRR", "YGR"), ("up", "RGB", "RG"), ("up", "RG", "R"),
    ("interjection", "G", "RG"), ("interjection", "RG", "RYG"),
    ("interjection", "RYG", "BRYG"), ("interjection", "RYG", "RBYG"),
    ("limited-interjection", "BGY", "BGRY"), ("limited-interjection", "RG", "RYG"),
    ("limited-interjection", "Y", "BY"),
    ("excision", "RBYY", "BYY"), ("excision", "GBYR", "GBR"), ("excision", "GBYR", "GYR"),
    ("limited-excision", "BGRY", "BGY"), ("limited-excision", "RYG", "RG"),
    ("limited-excision", "BY", "Y"),
    ("sideways", "G", "R"), ("sideways", "G", "B"), ("sideways", "BGRY", "BGRR"),
    ("hyperspace", "RGYY", "YGYY"), ("hyperspace", "RRGB", "RRBB"), ("hyperspace", "GY", "BY"),
    ("limited-hyperspace", "YGBR", "YGGR"), ("limited-hyperspace", "RGGG", "RGRG"),
    ("limited-hyperspace", "GBY", "GGY"), ("limited-hyperspace", "GBY", "GYY"),
]

# Moves the manual says are not allowed, or that a kind's definition rules out.
NOT_MOVES = [
    ("sideways", "G", "Y"),  # two lengths away
    ("sideways", "BGRB", "BGRR"),  # two lengths away
    ("limited-interjection", "RYG", "BRYG"),  # not the penultimate locus
    ("limited-excision", "RBYY", "BYY"),
    ("limited-hyperspace", "RGYY", "YGYY"),
    ("hyperspace", "RGYY", "RGYR"),  # the focus does not move in hyperspace
    ("interjection", "RG", "RGY"),  # that is a move down, after the focus
    ("excision", "GBYR", "GBY"),  # the focus cannot be excised
    ("down", "GGBY", "GGBYG"),
]


@pytest.mark.parametrize(("kind", "source", "target"), MANUAL_MOVES)
def test_every_manual_example(kind, source, target):
    assert target in reachable(kind, source)


@pytest.mark.parametrize(("kind", "source", "target"), NOT_MOVES)
def test_moves_the_manual_rules_out(kind, source, target):
    assert target not in reachable(kind, source)


def test_exact_move_sets():
    assert down("R") == ("RG", "RR", "RY", "RB")
    assert down("GGBY") == ()
    assert up(HEAD) == () and up("G") == (HEAD,)
    assert sideways("G") == ("B", "R")
    assert sideways(HEAD) == ()
    assert limited_hyperspace("GBY") == ("GGY", "GYY")
    assert excision("GBYR") == ("BYR", "GBR", "GYR")
    assert limited_excision("G") == () and excision("G") == ()
    assert interjection("GGBY") == ()
    assert len(interjection("G")) == 4 and interjection(HEAD) == ()
    # "At the top level this becomes a sideways move."
    assert hyperspace("Y") == sideways("Y") == limited_hyperspace("Y")


def test_move_counts_per_level():
    assert {len(hyperspace(n)) for n in LEAVES} == {6}
    assert {len(limited_hyperspace(n)) for n in LEAVES} == {2}
    assert {len(sideways(n)) for n in NODES if n} == {2}


def test_unknown_kind():
    with pytest.raises(UnknownMoveKindError, match="diagonal"):
        reachable("diagonal", "G")


def test_kinds_between():
    assert kinds_between("GY", "BY") == ("hyperspace", "limited-hyperspace")
    assert kinds_between("G", "GG") == ("down", "interjection", "limited-interjection")


@given(nodes)
def test_up_undoes_down(node):
    for child in down(node):
        assert up(child) == (node,)
    if node:
        assert node in down(parent(node))


@given(nodes, st.sampled_from(["", "limited-"]))
def test_interjection_and_excision_are_inverse(node, limited):
    for target in reachable(f"{limited}interjection", node):
        assert node in reachable(f"{limited}excision", target)
    for target in reachable(f"{limited}excision", node):
        assert node in reachable(f"{limited}interjection", target)


@given(nodes)
def test_sideways_stays_on_the_quadrangle_and_is_symmetric(node):
    for target in sideways(node):
        assert parent(target) == parent(node)
        assert node in sideways(target)


@given(nodes, st.sampled_from(list(MOVE_KINDS)))
def test_every_kind_stays_on_the_board(node, kind):
    targets = reachable(kind, node)
    assert set(targets) <= set(NODES)
    assert node not in targets
    assert len(set(targets)) == len(targets)


@given(nodes)
def test_hyperspace_is_symmetric_and_keeps_level_and_focus(node):
    for target in hyperspace(node):
        assert len(target) == len(node)
        assert node in hyperspace(target)
        if len(node) > 1:
            assert target[-1] == node[-1]


def test_contiguity_is_symmetric():
    for node, neighbours in NEIGHBOURS.items():
        for other in neighbours:
            assert node in NEIGHBOURS[other]
