"""GRYB detection, both scorings, position documents, and the dice."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.gryb.dice import DIE_FACES, Dice, Roll, UnknownDieError, parse_face
from rules.gryb.nodes import HEAD, LEAVES, NODES, QUADRANGLES, children
from rules.gryb.scoring import (
    Gryb,
    PositionError,
    binary_points,
    find_grybs,
    full_quadrangles,
    mens_pieces,
    parse_position,
    position_document,
    score_position,
)


def covered(quadrangle: str, colour: int) -> dict[str, int]:
    return {n: colour for n in children(quadrangle)}


def test_scoring_tables_of_the_manual():
    assert [binary_points(level) for level in (1, 2, 3, 4)] == [1, 2, 4, 8]
    assert [mens_pieces(level) for level in (1, 2, 3, 4)] == [1, 2, 3, 4]


def test_one_gryb_per_level():
    position = {**covered(HEAD, 0), **covered("R", 1), **covered("RYG", 1), **covered("YYB", 0)}
    position.update(covered("GB", 0))
    sheet = score_position(position)
    assert [g.quadrangle for g in sheet.grybs_of(0)] == ["", "GB", "YYB"]
    assert [g.quadrangle for g in sheet.grybs_of(1)] == ["R", "RYG"]
    assert sheet.binary_score(0) == 1 + 4 + 8
    assert sheet.binary_score(1) == 2 + 8
    assert sheet.mens_score(0) == 1 + 3 + 4
    assert sheet.mens_score(1) == 2 + 4


def test_mixed_or_incomplete_quadrangles_are_not_grybs():
    position = covered("GG", 0)
    position["GGY"] = 1
    assert find_grybs(position) == []
    del position["GGY"]
    assert find_grybs(position) == []
    assert full_quadrangles({**covered("GG", 0), "GGY": 1}) == ["GG"]


def test_gryb_record():
    gryb = Gryb("RYG", 1)
    assert gryb.nodes == ("RYGG", "RYGR", "RYGY", "RYGB")
    assert gryb.to_dict() == {
        "quadrangle": "RYG", "nodes": ["RYGG", "RYGR", "RYGY", "RYGB"],
        "colour": 1, "level": 4, "points": 8, "pieces": 4,
    }
    assert Gryb(HEAD, 0).to_dict()["quadrangle"] == "0"


@given(st.dictionaries(st.sampled_from(NODES), st.integers(0, 1)))
def test_grybs_are_exactly_the_single_coloured_full_quadrangles(position):
    found = {(g.quadrangle, g.colour) for g in find_grybs(position)}
    expected = {
        (q, position[children(q)[0]])
        for q in QUADRANGLES
        if all(n in position for n in children(q)) and len({position[n] for n in children(q)}) == 1
    }
    assert found == expected


def test_position_documents_round_trip():
    position = {HEAD: 0, "GGBY": 1, "R": 0}
    document = position_document(position)
    assert document == {"board": "gryb", "tokens": {"0": 0, "GGBY": 1, "R": 0}}
    assert parse_position(json.loads(json.dumps(document))) == position


@pytest.mark.parametrize(
    ("document", "words"),
    [
        ([], "JSON object"),
        ({"board": "timevectors", "tokens": {}}, '"board" must be "gryb"'),
        ({"board": "gryb", "tokens": []}, "must map node names"),
        ({"board": "gryb", "tokens": {"GX": 0}}, "'X'"),
        ({"board": "gryb", "tokens": {"G": 2}}, "must be 0 or 1"),
        ({"board": "gryb", "tokens": {"G": True}}, "must be 0 or 1"),
        ({"board": "gryb", "tokens": {"g": 0, "G": 1}}, "given twice"),
    ],
)
def test_bad_position_documents(document, words):
    with pytest.raises(PositionError, match=words):
        parse_position(document)


def test_dice_are_seedable_and_fair_enough():
    first = Dice(7)
    second = Dice(random.Random(7))
    rolls = [first.colour() for _ in range(400)]
    assert rolls == [second.colour() for _ in range(400)]
    assert set(rolls) == {"G", "R", "Y", "B"}
    assert all(400 / 4 * 0.6 < rolls.count(c) < 400 / 4 * 1.4 for c in "GRYB")
    nodes = [Dice(3).node() for _ in range(3)]
    assert len(set(nodes)) == 1
    dice = Dice(11)
    assert {dice.node() for _ in range(3000)} > {HEAD}  # the head node is a face too
    assert all(dice.leaf() in LEAVES for _ in range(200))


def test_dice_faces_and_json():
    assert [len(DIE_FACES[d]) for d in ("colour", "node", "leaf")] == [4, 341, 256]
    assert Roll("node", HEAD).to_dict() == {"die": "node", "value": "0"}
    assert Roll("colour", "Y").to_dict() == {"die": "colour", "value": "Y"}
    assert parse_face("leaf", "ggby") == "GGBY"
    with pytest.raises(UnknownDieError):
        parse_face("leaf", "GGB")
    with pytest.raises(UnknownDieError):
        parse_face("colour", "0")
    with pytest.raises(UnknownDieError):
        Dice(1).roll("d6")
