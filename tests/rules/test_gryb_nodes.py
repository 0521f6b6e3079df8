"""Nodes, names, levels and quadrangles of the GRYB bandanna."""

from __future__ import annotations

import pytest

from rules.errors import NotationError
from rules.gryb.nodes import (
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
    parent,
    parse_node,
    parse_nodes,
    quadrangle_level,
    quadrangle_nodes,
)


def test_the_manual_level_chart():
    assert [len(nodes) for nodes in LEVELS] == [1, 4, 16, 64, 256]
    assert len(NODES) == len(set(NODES)) == 341
    assert len(LEAVES) == 256


def test_85_quadrangles_cover_every_node_but_the_head_once():
    assert len(QUADRANGLES) == 85
    corners = [n for q in QUADRANGLES for n in quadrangle_nodes(q)]
    assert sorted(corners) == sorted(n for n in NODES if n != HEAD)


def test_quadrangles_repeat_green_red_yellow_blue():
    for q in QUADRANGLES:
        assert [focus(n) for n in quadrangle_nodes(q)] == ["G", "R", "Y", "B"]


def test_the_manual_names():
    assert children("R") == ("RG", "RR", "RY", "RB")
    assert level("GGBY") == 4 and focus("GGBY") == "Y"
    assert focus("RYY") == "Y" and level("RYY") == 3
    assert node_name(HEAD) == "0" and focus(HEAD) is None and parent(HEAD) is None


def test_round_trip_over_every_node():
    for index, node in enumerate(NODES):
        assert parse_node(node_name(node)) == node
        assert parse_node(node_name(node).lower()) == node
        assert parse_node(index) == node
        assert node_index(node) == index


def test_quadrangle_levels():
    assert quadrangle_level(HEAD) == 1
    assert quadrangle_level("GGB") == 4
    with pytest.raises(NotationError):
        quadrangle_nodes("GGBY")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("GGBYR", "at most 4"),
        ("GX", "'X'"),
        ("", "head node as 0"),
        (" ", "head node as 0"),
        (None, "not None"),
        (341, "off the board"),
        (-1, "off the board"),
        (True, "not a node"),
    ],
)
def test_bad_names_say_what_is_wrong(text, words):
    with pytest.raises(NotationError, match=words):
        parse_node(text)


def test_lists_of_nodes():
    assert parse_nodes("[0, B, BR]") == ("", "B", "BR")
    assert parse_nodes(["gy", "GYR"]) == ("GY", "GYR")
    assert parse_nodes("[]") == ()
    assert format_nodes(("", "B", "BY")) == "[0, B, BY]"
    with pytest.raises(NotationError):
        parse_nodes(12)
