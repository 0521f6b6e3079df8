"""The TSR 4D board: space names, adjacency and beam-down reach, fixed by the rules' examples."""

from __future__ import annotations

import pytest

from rules.errors import NotationError
from rules.tsr4d.board import (
    NEIGHBOURS,
    RING_SIZES,
    SPACE_COUNT,
    SPACE_NAMES,
    SPACES,
    WITHIN_TWO,
    parse_space,
    space_index,
    space_name,
    space_ring_number,
)


def names(spaces) -> set[str]:
    return {space_name(s) for s in spaces}


def test_sixty_spaces_on_four_rings():
    assert RING_SIZES == (32, 16, 8, 4)
    assert SPACE_COUNT == 60 == len(set(SPACE_NAMES))
    assert SPACE_NAMES[0] == "a1" and SPACE_NAMES[31] == "a32" and SPACE_NAMES[-1] == "d4"


@pytest.mark.parametrize("space", SPACES)
def test_name_round_trip(space):
    assert parse_space(space_name(space)) == space
    assert parse_space(f" {space_name(space).upper()} ") == space
    assert space_index(*space_ring_number(space)) == space


@pytest.mark.parametrize("text", ["", "e1", "a0", "a33", "b17", "c9", "d5", "4b", "b", "b4x"])
def test_bad_space_names(text):
    with pytest.raises(NotationError):
        parse_space(text)


def test_warrior_at_b4_moves_to_the_rules_spaces():
    assert names(NEIGHBOURS[parse_space("b4")]) == {"a7", "a8", "b3", "b5", "c2"}


def test_beam_down_from_marker_at_b3_reaches_exactly_the_rules_spaces():
    expected = {f"a{n}" for n in range(3, 9)} | {f"b{n}" for n in range(1, 6)}
    expected |= {"c1", "c2", "c3", "d1"}
    assert names(WITHIN_TWO[parse_space("b3")]) == expected


def test_winning_example_beam_down_from_b2_to_c2_is_two_moves():
    # "it can arrive at c2 via c1 or b3"
    b2, c2 = parse_space("b2"), parse_space("c2")
    via = {s for s in NEIGHBOURS[b2] if c2 in NEIGHBOURS[s]}
    assert names(via) == {"c1", "b3"}
    assert c2 in WITHIN_TWO[b2] and c2 not in NEIGHBOURS[b2]


def test_adjacency_is_symmetric_and_never_reflexive():
    for space in SPACES:
        assert space not in NEIGHBOURS[space]
        for near in NEIGHBOURS[space]:
            assert space in NEIGHBOURS[near]


def test_neighbour_counts_per_ring():
    # a: two along the ring and one inside; b, c: two along, two outside, one inside; d: two and two.
    expected = {"a": 3, "b": 5, "c": 5, "d": 4}
    for space in SPACES:
        assert len(NEIGHBOURS[space]) == expected[space_name(space)[0]]


def test_rings_wrap_around():
    assert names(NEIGHBOURS[parse_space("a1")]) == {"a32", "a2", "b1"}
    assert names(NEIGHBOURS[parse_space("d1")]) == {"d4", "d2", "c1", "c2"}


def test_within_two_is_the_two_step_closure():
    for space in SPACES:
        two = {space} | set(NEIGHBOURS[space])
        for near in NEIGHBOURS[space]:
            two |= NEIGHBOURS[near]
        assert WITHIN_TWO[space] == two
