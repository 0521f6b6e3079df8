"""The play-by-mail ASCII board: the help file's diagrams, round trips and malformed boards."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.errors import NotationError
from rules.timevectors.ascii import parse_ascii, render_ascii
from rules.timevectors.points import POINTS, parse_point, point_name
from rules.timevectors.vectors import vectors_in

DATA = Path(__file__).parent / "data" / "helpfile_diagrams.txt"


def _diagrams() -> list[str]:
    text = "".join(line for line in DATA.read_text().splitlines(keepends=True)
                   if not line.startswith("#"))  # fmt: skip
    return [part.strip("\n") + "\n" for part in text.split("=====\n")]


EXAMPLE_1, EXAMPLE_2 = _diagrams()
X, O = 0, 1  # the help file names the players X and O


def found(tokens):
    return {(color, frozenset(point_name(p) for p in v.points)) for color, v in vectors_in(tokens)}


def expected(*pairs):
    return {(color, frozenset(line.split())) for color, line in pairs}


def test_example_1_has_exactly_the_vectors_the_help_text_describes():
    assert found(parse_ascii(EXAMPLE_1)) == expected(
        (X, "A8S B7S C6S D5S"),
        (X, "A1S B1R C1Q D1P"),
        (O, "E8Q F8Q G8Q H8Q"),
        (O, "H2S G2R F2Q E2P"),
    )


def test_example_2_has_exactly_the_fourth_dimension_vectors():
    tokens = parse_ascii(EXAMPLE_2)
    assert found(tokens) == expected((X, "A8S E8S E4S A4S"), (O, "H2S G6R B6Q A2P"))
    assert sorted(v.dims for _, v in vectors_in(tokens)) == [(1, 3, 4), (4,)]


@pytest.mark.parametrize("diagram", [EXAMPLE_1, EXAMPLE_2])
def test_help_file_diagrams_render_back_verbatim(diagram):
    assert render_ascii(parse_ascii(diagram)) == diagram


@pytest.mark.parametrize("point", POINTS)
def test_every_point_round_trips_alone(point):
    for color in range(3):
        assert parse_ascii(render_ascii({point: color})) == {point: color}


@given(st.dictionaries(st.sampled_from(list(POINTS)), st.integers(0, 2)))
def test_round_trip_any_position(tokens):
    assert parse_ascii(render_ascii(tokens)) == tokens


def test_custom_symbols():
    tokens = {parse_point("C3Q"): 2, parse_point("H8S"): 0}
    text = render_ascii(tokens, symbols="RGB")
    assert "R" in text and "B" in text
    assert parse_ascii(text, symbols="RGB") == tokens


def test_empty_board_has_four_levels_top_down():
    text = render_ascii({})
    labels = [line.strip() for line in text.splitlines() if "Level" in line]
    assert labels == ["Level S", "Level R", "Level Q", "Level P"]
    assert parse_ascii(text) == {}


def test_colour_without_symbol_is_refused():
    with pytest.raises(ValueError, match="colour 3"):
        render_ascii({0: 3})


ROW_8 = " x  .  .  .     .  .  .  .   8"


def _replace_line(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda t: _replace_line(t, ROW_8, ROW_8[:-1] + "7"),
         "expected row 8"),
        (lambda t: _replace_line(t, "Level S", "Level T"), "unexpected label"),
        (lambda t: _replace_line(t, "Level R", "Level S"), "unexpected label"),
        (lambda t: _replace_line(t, "Level Q", ""), "no 'Level' label"),
        (lambda t: _replace_line(t, ROW_8, ROW_8.replace("x", "#")),
         "'#' is not"),
        (lambda t: t + "hello\n", "not a board row"),
        (lambda t: t[: t.index("Level P")], "middle of a level"),
        (lambda t: "", "levels missing"),
    ],
)  # fmt: skip
def test_malformed_boards_are_rejected(mutate, message):
    with pytest.raises(NotationError, match=message):
        parse_ascii(mutate(EXAMPLE_1))


def test_levels_missing_entirely():
    text = render_ascii({})
    cut = text.index("Level Q")
    top_two = text[: text.rfind("\n", 0, text.rfind("8", 0, cut))]
    with pytest.raises(NotationError, match="levels missing"):
        parse_ascii(top_two)
