"""The bandanna spec: node positions from the design's formula, landmarks, loading and validation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from calibration.gryb_spec import (
    LANDMARKS,
    GrybSpec,
    load_gryb_spec,
    spec_from_values,
    spec_values,
)
from calibration.spec import SpecError
from rules.gryb.nodes import LEAVES, NODES, children

SPEC = load_gryb_spec()
VALID_TOML = """
version = 1
board = "gryb"
[layout]
level_offsets = [120.0, 60.0, 30.0, 15.0]
cloth_size = 560.0
[print]
spot_diameter = 12.0
line_width = 1.5
[ring]
outer_diameter = 22.0
inner_diameter = 12.0
"""


def test_shipped_spec_is_the_design_reference() -> None:
    assert SPEC.level_offsets == (120.0, 60.0, 30.0, 15.0)
    assert SPEC.spot_diameter == 12.0
    assert (SPEC.ring_outer_diameter, SPEC.ring_inner_diameter) == (22.0, 12.0)


def test_node_positions_follow_the_formula() -> None:
    direction = {"G": (-1, 1), "R": (1, 1), "Y": (1, -1), "B": (-1, -1)}
    positions = SPEC.node_positions()
    assert positions.shape == (341, 2)
    for i, node in enumerate(NODES):
        expected = (
            np.sum([np.multiply(direction[c], s) for c, s in zip(node, (120, 60, 30, 15))], axis=0)
            if node
            else np.zeros(2)
        )
        assert positions[i] == pytest.approx(expected)


def test_leaves_form_a_16_by_16_lattice_of_30_mm() -> None:
    leaves = np.array([SPEC.node_position(n) for n in LEAVES])
    axis = -225.0 + 30.0 * np.arange(16)
    assert sorted(map(tuple, leaves)) == sorted(itertools.product(axis, axis))


def test_every_quadrangle_is_a_square_around_its_parent() -> None:
    for node in NODES:
        if len(node) == 4:
            continue
        corners = np.array([SPEC.node_position(c) for c in children(node)])
        assert corners.mean(axis=0) == pytest.approx(SPEC.node_position(node))
        sides = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
        assert sides == pytest.approx([2 * SPEC.level_offsets[len(node)]] * 4)  # G-R-Y-B goes round


def test_no_two_spots_touch() -> None:
    positions = SPEC.node_positions()
    d = np.linalg.norm(positions[:, None] - positions[None], axis=2)
    np.fill_diagonal(d, np.inf)
    assert d.min() == pytest.approx(SPEC.min_spacing()) and d.min() > SPEC.spot_diameter


def test_landmarks_are_the_corner_leaves() -> None:
    assert list(SPEC.landmarks()) == list(LANDMARKS)
    assert SPEC.landmarks() == {
        "GGGG": (-225.0, 225.0),
        "RRRR": (225.0, 225.0),
        "YYYY": (225.0, -225.0),
        "BBBB": (-225.0, -225.0),
    }


def test_values_round_trip() -> None:
    assert spec_from_values(spec_values(SPEC)) == SPEC


@given(st.floats(80, 200), st.floats(0.3, 0.6), st.floats(4, 10))
def test_scaled_prints_round_trip_and_stay_consistent(
    top: float, ratio: float, spot: float
) -> None:
    offsets = [top * ratio**k for k in range(4)]
    values = {
        **spec_values(SPEC),
        "level_offsets": offsets,
        "cloth_size": 2.5 * sum(offsets) + 20,
        "spot_diameter": spot,
    }
    if offsets[-1] * math.sqrt(2) <= spot:
        with pytest.raises(SpecError, match="overlap"):
            spec_from_values(values)
        return
    spec = spec_from_values(values)
    assert spec_from_values(spec_values(spec)) == spec
    assert spec.node_position("") == (0.0, 0.0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"level_offsets": [120, 60, 30]}, "4 numbers"),
        ({"level_offsets": [120, 60, 60, 15]}, "shrink"),
        ({"spot_diameter": 25.0}, "overlap"),
        ({"ring_inner_diameter": 30.0}, "inner diameter"),
        ({"cloth_size": 300.0}, "do not fit"),
        ({"line_width": -1.0}, "positive"),
        ({"cloth_size": "big"}, "cloth_size"),
        ({"spot_diameter": True}, "spot_diameter"),
        ({"ring_outer_diameter": float("nan")}, "ring_outer_diameter"),
    ],
)
def test_impossible_values_are_refused(change: dict, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        spec_from_values({**spec_values(SPEC), **change})


def test_values_must_be_an_object() -> None:
    with pytest.raises(SpecError):
        spec_from_values([1, 2, 3])  # type: ignore[arg-type]


def test_load_from_a_file(tmp_path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(VALID_TOML.replace("spot_diameter = 12.0", "spot_diameter = 10.0"))
    assert load_gryb_spec(path).spot_diameter == 10.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (VALID_TOML.replace('board = "gryb"', 'board = "timevectors"'), "expected 'gryb'"),
        (VALID_TOML.replace("version = 1", "version = 7"), "version"),
        (VALID_TOML.replace("[ring]", "[rings]"), "incomplete"),
        ("this is = = not toml", "not valid TOML"),
    ],
)
def test_bad_files_are_refused(tmp_path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(SpecError, match=message):
        load_gryb_spec(path)


def test_missing_sources_are_refused(tmp_path) -> None:
    with pytest.raises(SpecError, match="no shipped board spec"):
        load_gryb_spec("nonesuch")
    with pytest.raises(SpecError, match="cannot read"):
        load_gryb_spec(tmp_path / "missing.toml")


def test_spec_is_hashable_for_caches() -> None:
    assert hash(SPEC) == hash(
        GrybSpec(**{**spec_values(SPEC), "level_offsets": SPEC.level_offsets})
    )


def test_the_shared_spec_reader_names_the_file_of_another_board(tmp_path) -> None:
    from calibration.spec import SpecError, read_spec_table

    assert read_spec_table("gryb", "gryb")["board"] == "gryb"
    with pytest.raises(SpecError, match="spec is for board 'gryb', expected 'timevectors'"):
        read_spec_table("gryb", "timevectors")
    path = tmp_path / "other.toml"
    path.write_text('board = "gryb"\nversion = 2\n')
    with pytest.raises(SpecError, match="version 2 is not supported"):
        read_spec_table(path, "gryb")
    with pytest.raises(SpecError, match=r"expected 'timevectors' \(in .*other.toml\)"):
        read_spec_table(path, "timevectors")
