"""The GRYB position as text: every node has its own cell, placed as printed on the cloth."""

from hypothesis import given
from hypothesis import strategies as st

from rules.gryb.ascii import lattice_cell, render_levels
from rules.gryb.nodes import NODES, level


def test_every_level_fills_its_grid_exactly_once():
    for k in range(5):
        cells = [lattice_cell(n) for n in NODES if level(n) == k]
        assert sorted(cells) == [(c, r) for c in range(2**k) for r in range(2**k)]


def test_colours_sit_where_the_bandanna_prints_them():
    assert [lattice_cell(n) for n in "GRYB"] == [(0, 0), (1, 0), (1, 1), (0, 1)]  # NW NE SE SW
    assert lattice_cell("GGGG") == (0, 0) and lattice_cell("YYYY") == (15, 15)
    assert lattice_cell("RB") == (2, 1)  # the south-west child of the north-east node


def test_render_marks_rings_with_their_colour_symbol():
    text = render_levels({"": 0, "R": 1, "YYYY": 0})
    blocks = text.split("\n\n")
    assert blocks[0] == "head node:\n  x"
    assert blocks[1] == "top level:\n  . o\n  . ."
    assert blocks[4].splitlines()[-1].endswith(". x")


@given(st.dictionaries(st.sampled_from(NODES), st.integers(0, 1), max_size=40))
def test_render_shows_exactly_the_rings_given(tokens):
    cells = "".join(line for line in render_levels(tokens).splitlines() if line.startswith("  "))
    assert cells.count("x") == list(tokens.values()).count(0)
    assert cells.count("o") == list(tokens.values()).count(1)
