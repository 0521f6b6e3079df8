"""The rules' 4D shorthand: every example of the rules parses, and writing reads back."""

from __future__ import annotations

import pytest

from rules.errors import NotationError
from rules.tsr4d.actions import BeamDown, Capture, EndTurn, Linger, Step, SuicideCapture, Warp
from rules.tsr4d.board import parse_space as S
from rules.tsr4d.notation import action_notation, parse_action, parse_turn, turn_notation
from rules.tsr4d.pieces import Kind

T, G, R, W = Kind.TIME_LORD, Kind.GUARDIAN, Kind.RANGER, Kind.WARRIOR

RULE_EXAMPLES = [
    ("W(b4)a8", Step(W, S("a8"), S("b4"))),
    ("W(b4)b5", Step(W, S("b5"), S("b4"))),
    ("-Ra3", BeamDown(R, S("a3"))),
    ("R 1->2", Linger(R, 1)),
    ("R ①→②", Linger(R, 1)),
    ("+W(b4)", Warp(W, S("b4"))),
    ("-Rb1", BeamDown(R, S("b1"))),
    ("T(c2)d1", Step(T, S("d1"), S("c2"))),
    ("-Rb5 × W(b6)", BeamDown(R, S("b5"), Capture(W, S("b6")))),
    ("T(c2)d1 × G(d4)", Step(T, S("d1"), S("c2"), Capture(G, S("d4")))),
    ("Td1", Step(T, S("d1"))),
    ("-Wc2", BeamDown(W, S("c2"))),
]


@pytest.mark.parametrize(("text", "action"), RULE_EXAMPLES)
def test_rule_examples_parse(text, action):
    assert parse_action(text) == action


@pytest.mark.parametrize("text", ["xW(b3)", "XWb3", "× W (b3)"])
def test_suicide_capture_forms(text):
    assert parse_action(text) == SuicideCapture(Capture(W, S("b3")))


def test_typical_turn_of_the_rules():
    assert parse_turn("-Rb1  T(c2)d1  +W(b4)") == [
        BeamDown(R, S("b1")),
        Step(T, S("d1"), S("c2")),
        Warp(W, S("b4")),
    ]
    assert parse_turn("-Rb1; T(c2)d1, +W(b4); end")[-1] == EndTurn()
    assert parse_turn("   ") == []


ALL_FORMS = [action for _, action in RULE_EXAMPLES] + [
    SuicideCapture(Capture(T, S("d4"))),
    Warp(T),
    Linger(G, 2),
    EndTurn(),
    Step(G, S("a32"), S("a1"), Capture(W, S("b16"))),
]


@pytest.mark.parametrize("action", ALL_FORMS)
def test_writing_reads_back(action):
    text = action_notation(action)
    assert parse_action(text) == action
    assert action_notation(parse_action(text)) == text


def test_turn_written_on_one_line():
    actions = ALL_FORMS[:-2]
    assert parse_turn(turn_notation(actions)) == [a for a in actions if a != EndTurn()]


@pytest.mark.parametrize(
    "text",
    ["W(b4)", "Q(b4)a8", "W(b4)e8", "R 1->3", "R 3->4", "+", "-R", "W(b4)a8 junk", "xW", "Wb4a8 x"],
)
def test_bad_notation_raises(text):
    with pytest.raises(NotationError):
        parse_turn(text)


def test_parse_action_wants_exactly_one():
    with pytest.raises(NotationError, match="2 actions"):
        parse_action("-Rb1 +W(b4)")
