"""The greedy explain-away token selection on hand-made pixel layouts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.explain import EVIDENCE_THRESHOLD, MIN_SCORE, RING_WEIGHT, Cover, TokenSelector
from vision.footprint import PixelSets

N_PIXELS = 200


def _sets(ranges: list[list[tuple[int, int]]]) -> PixelSets:
    return PixelSets.from_lists([np.concatenate([np.arange(a, b) for a, b in r]) for r in ranges])


def _layout(count: int, wide: bool = False) -> TokenSelector:
    """Points side by side on a line of pixels (10 each: core 2..8, outline 1..9, ring at 0
    and 9); with ``wide``, one more point (a nearer tier) whose token covers point 1 and the
    near half of point 2."""
    core = [[(10 * k + 2, 10 * k + 8)] for k in range(count)]
    sil = [[(10 * k + 1, 10 * k + 9)] for k in range(count)]
    ring = [[(10 * k, 10 * k + 1), (10 * k + 9, 10 * k + 10)] for k in range(count)]
    if wide:
        core.append([(13, 23)])
        sil.append([(12, 24)])
        ring.append([(10, 12), (24, 26)])
    return TokenSelector(_sets(core), _sets(ring), _sets(sil), N_PIXELS)


def _changed(*spans: tuple[int, int]) -> np.ndarray:
    evidence = np.zeros(N_PIXELS)
    for a, b in spans:
        evidence[a:b] = 1.0
    return evidence


def test_nothing_changed_accepts_nothing() -> None:
    selector = _layout(6)
    result = selector.select(np.zeros(N_PIXELS))
    assert not result.accepted.any()
    assert (result.score < 0).all()


def test_each_changed_outline_is_its_token() -> None:
    selector = _layout(6)
    result = selector.select(_changed((11, 19), (41, 49)))
    assert np.flatnonzero(result.accepted).tolist() == [1, 4]


def test_a_point_seen_through_is_not_a_token() -> None:
    """Point 1's token lies inside the wide point's outline: the wide point is empty."""
    selector = _layout(6, wide=True)
    result = selector.select(_changed((11, 19)))
    assert np.flatnonzero(result.accepted).tolist() == [1]


def test_a_near_token_does_not_hide_a_far_one_behind_it() -> None:
    """A near token (point 1) covers half of a far one (point 0): both are found, in
    whichever order they are taken."""
    far_core, far_sil, far_ring = [(12, 20)], [(11, 21)], [(10, 11), (21, 22)]
    near_core, near_sil, near_ring = [(3, 15)], [(2, 16)], [(0, 2), (16, 18)]
    selector = TokenSelector(
        _sets([far_core, near_core]),
        _sets([far_ring, near_ring]),
        _sets([far_sil, near_sil]),
        N_PIXELS,
    )
    result = selector.select(_changed((2, 16), (11, 21)))
    assert result.accepted.tolist() == [True, True]
    assert not selector.select(_changed((2, 16))).accepted[0]


def test_change_all_around_a_point_is_not_its_token() -> None:
    """A blob larger than the token (a hand) fills the ring too."""
    selector = _layout(3)
    result = selector.select(_changed((0, 30)))
    assert not result.accepted[1]
    assert selector.select(_changed((11, 19))).accepted[1]


@settings(max_examples=60, deadline=None)
@given(st.sets(st.integers(0, 14), max_size=15))
def test_separate_tokens_are_found_exactly(tokens: set[int]) -> None:
    selector = _layout(15)
    evidence = _changed(*[(10 * k + 1, 10 * k + 9) for k in tokens])
    result = selector.select(evidence)
    assert set(np.flatnonzero(result.accepted).tolist()) == tokens


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.3, 0.7, 1.0]), min_size=N_PIXELS, max_size=N_PIXELS))
def test_the_selection_is_complete_and_each_token_explains_change_of_its_own(
    values: list[float],
) -> None:
    """Whatever the evidence: against the final set no rejected point would still pass the
    bar (the rounds did not stop early), every accepted point passed it on pixels no earlier
    token explained, and a point without one changed core pixel is never a token."""
    selector = _layout(6, wide=True)
    evidence = np.array(values)
    result = selector.select(evidence)
    passes = (result.score >= MIN_SCORE) & (result.open_core >= selector.min_open)
    assert (passes[result.accepted]).all()
    assert not (passes & ~result.accepted & result.active).any()
    quiet = (
        np.bincount(selector.core.point, weights=evidence[selector.core.index] > 0, minlength=7)
        == 0
    )
    assert not (result.accepted & quiet).any()
    assert not (result.active & quiet).any()


def _cover(selector: TokenSelector, accepted: np.ndarray) -> Cover:
    chosen = np.repeat(accepted, selector.silhouette.count)
    return Cover.of(selector.silhouette.index[chosen], selector.silhouette.point[chosen], N_PIXELS)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.3, 0.7, 1.0]), min_size=N_PIXELS, max_size=N_PIXELS))
def test_scoring_a_few_points_again_agrees_with_the_selection(values: list[float]) -> None:
    """``score_freed`` with nothing freed gives each rejected point the score the selection
    ended with (both score the same way: one incrementally over rounds, the other for the
    points asked)."""
    selector = _layout(6, wide=True)
    evidence = np.array(values)
    result = selector.select(evidence)
    asked = np.flatnonzero(result.active & ~result.accepted)
    score, open_core = selector.score_freed(
        evidence,
        evidence[selector.core.index],
        asked,
        np.full(len(asked), -1),
        _cover(selector, result.accepted),
    )
    np.testing.assert_allclose(score, result.score[asked], atol=1e-8)
    np.testing.assert_array_equal(open_core, result.open_core[asked])


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 0.3, 0.7, 1.0]), min_size=N_PIXELS, max_size=N_PIXELS),
    st.lists(st.booleans(), min_size=7, max_size=7),
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=6),
)
def test_property_each_row_is_scored_with_only_its_own_token_set_aside(
    values: list[float], accepted: list[bool], rows: list[tuple[int, int]]
) -> None:
    """Per row, the score over the pixels the accepted tokens but the freed one leave open,
    as worked out for that row alone (rows never free each other's tokens)."""
    selector = _layout(6, wide=True)
    evidence = np.array(values)
    accepted_mask = np.array(accepted)
    points = np.array([p for p, _ in rows])
    freed = np.array([f if accepted[f] else -1 for _, f in rows])
    score, open_core = selector.score_freed(
        evidence, evidence[selector.core.index], points, freed, _cover(selector, accepted_mask)
    )
    for k, (point, free) in enumerate(zip(points, freed)):
        others = accepted_mask.copy()
        if free >= 0:
            others[free] = False
        uncovered = np.ones(N_PIXELS, bool)
        uncovered[selector.silhouette.select(others)] = False
        core = selector.core.index[selector.core.point == point]
        ring = selector.ring.index[selector.ring.point == point]
        core_open, ring_open = uncovered[core], uncovered[ring]
        core_mean = np.sum((evidence[core] - EVIDENCE_THRESHOLD) * core_open) / max(
            core_open.sum(), 1
        )
        ring_mean = np.sum(evidence[ring] * ring_open) / max(ring_open.sum(), 1)
        assert open_core[k] == core_open.sum()
        assert score[k] == pytest.approx(core_mean - RING_WEIGHT * ring_mean, abs=1e-9)
