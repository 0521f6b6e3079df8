"""Naming the dimensions of a vector, over every kind of vector the board has."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.errors import NotationError
from rules.timevectors.points import point_index, point_name
from web.present import describe_dimensions, join_words, present_state

ORDINALS = ("1st", "2nd", "3rd", "4th")


@st.composite
def vectors(draw):
    """A vector by construction: per dimension constant, or moving by one each step.

    x, y, z move linearly (0..3 or 3..0); t moves cyclically from any start,
    either way. Returns the 4 point names and the set of moving dimensions.
    """
    moving = draw(st.sets(st.integers(0, 3), min_size=1))
    axes = []
    for dim in range(4):
        if dim not in moving:
            axes.append([draw(st.integers(0, 3))] * 4)
        elif dim < 3:
            axes.append(draw(st.sampled_from([[0, 1, 2, 3], [3, 2, 1, 0]])))
        else:
            start, step = draw(st.integers(0, 3)), draw(st.sampled_from([1, -1]))
            axes.append([(start + step * i) % 4 for i in range(4)])
    names = [point_name(point_index(*coords)) for coords in zip(*axes)]
    return names, moving


@given(vectors())
def test_describes_exactly_the_moving_dimensions(case):
    names, moving = case
    text = describe_dimensions(names)
    for dim, word in enumerate(ORDINALS):
        assert (word in text) == (dim in moving)


def test_all_fifteen_types_have_distinct_descriptions():
    descriptions = set()
    for size in range(1, 5):
        for moving in itertools.combinations(range(4), size):
            coords = [[i if d in moving else 0 for d in range(4)] for i in range(4)]
            descriptions.add(describe_dimensions([point_index(*c) for c in coords]))
    assert len(descriptions) == 15
    assert "1st, 3rd and 4th" in descriptions
    assert "1st, 2nd, 3rd and 4th" in descriptions
    assert "2nd" in descriptions


def test_manual_examples():
    # the help file's diagonal on tier S (A8S..D5S) moves through the 1st and 2nd dimensions
    assert describe_dimensions(["A8S", "B7S", "C6S", "D5S"]) == "1st and 2nd"
    # its 4th-dimension example: the same local point in each quadrant of tier S
    assert describe_dimensions(["A8S", "E8S", "E4S", "A4S"]) == "4th"


def test_bad_point_name_raises_notation_error():
    with pytest.raises(NotationError):
        describe_dimensions(["A1P", "Z9Z", "C3R", "D4S"])


@pytest.mark.parametrize(
    ("words", "text"),
    [([], ""), (["1st"], "1st"), (["1st", "2nd"], "1st and 2nd"), (["1st", "3rd", "4th"], "1st, 3rd and 4th")],
)
def test_join_words(words, text):
    assert join_words(words) == text


def test_present_state_keeps_runtime_keys_and_adds_dimensions():
    state = {"board": "timevectors", "winner": {"color": 1, "vectors": [["A1P", "A1Q", "A1R", "A1S"]]}, "x": 1}
    shown = present_state(state, palette=[(1, 2, 3)])
    assert shown["x"] == 1
    assert shown["winner"] == {"color": 1, "vectors": [["A1P", "A1Q", "A1R", "A1S"]], "dimensions": ["3rd"]}
    assert shown["palette"] == [[1, 2, 3]]
    assert state["winner"] == {"color": 1, "vectors": [["A1P", "A1Q", "A1R", "A1S"]]}  # not modified


def test_present_state_without_winner_or_palette():
    shown = present_state({"winner": None})
    assert shown == {"winner": None, "palette": None}
