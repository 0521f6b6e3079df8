"""The bandanna vision bench runs end to end and reports what it measured."""

from __future__ import annotations

import io

import numpy as np

from vision.gryb_bench import BenchTotals, run_gryb_vision_bench, wrong_nodes


def test_wrong_nodes_maps_colour_numbers_and_counts_every_kind_of_mistake() -> None:
    rings = {1: 0, 2: 1, 3: 1}
    states = np.full(341, -1)
    states[[1, 2, 3]] = [1, 0, 0]  # the observer numbered the colours the other way round
    assert list(wrong_nodes(states, rings)) == []
    states[3] = 1  # wrong colour
    states[7] = 0  # a ring where there is none
    states[2] = -1  # a ring missed
    assert list(wrong_nodes(states, rings, {1: 0, 0: 1})) == [2, 3, 7]


def test_bench_prints_location_error_ring_accuracy_moves_and_time() -> None:
    out = io.StringIO()
    totals = run_gryb_vision_bench(scenes=1, games=1, moves=1, seed=3, out=out)
    text = out.getvalue()
    assert isinstance(totals, BenchTotals)
    assert len(totals.location_errors) == 341 and max(totals.location_errors) < 3.0
    assert totals.nodes_read == 3 * 341 and totals.wrong_fraction <= 0.001
    assert totals.moves_played == 1 and totals.moves_right == totals.moves_found == 1
    for line in (
        "node location error after refinement",
        "ring reading:",
        "move detection:",
        "ms per frame",
    ):
        assert line in text
