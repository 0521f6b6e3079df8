"""The 976 vectors against an independent construction, the manual's counts and symmetries."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise, permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.timevectors.points import POINTS, parse_point, point_coords, point_index, point_name
from rules.timevectors.vectors import (
    VECTOR_TYPES,
    VECTORS,
    VECTORS_THROUGH,
    bitboard,
    completed_through,
    dims_name,
    threats,
    vector_of,
    vectors_in,
)

# -- an independent construction, straight from the definition ----------------------
# Two distinct points fix a step per dimension; a vector is where repeating the step
# gives four points on the board. x, y, z step by -1/0/+1 without wrapping; t steps by
# -1/0/+1 modulo 4. Every line is found from each of its ordered pairs of neighbours.


def _step_line(a, b):
    step = [b[i] - a[i] for i in range(3)] + [(b[3] - a[3]) % 4]
    if any(s not in (-1, 0, 1) for s in step[:3]) or step[3] == 2:
        return None
    line = [a]
    for _ in range(3):
        prev = line[-1]
        nxt = tuple(prev[i] + step[i] for i in range(3)) + ((prev[3] + step[3]) % 4,)
        if not all(0 <= c <= 3 for c in nxt[:3]):
            return None
        line.append(nxt)
    return line


def _all_lines_by_definition():
    lines = {}
    coords = [(x, y, z, t) for x in range(4) for y in range(4) for z in range(4) for t in range(4)]
    for a in coords:
        for b in coords:
            if a == b:
                continue
            line = _step_line(a, b)
            if line is None:
                continue
            moving = tuple(d + 1 for d in range(4) if len({c[d] for c in line}) > 1)
            lines[frozenset(point_index(*c) for c in line)] = moving
    return lines


BY_DEFINITION = _all_lines_by_definition()


def _is_line_in_order(points) -> bool:
    """Whether the points, in this order, step evenly in every dimension."""
    coords = [point_coords(p) for p in points]
    for d in range(4):
        values = [c[d] for c in coords]
        steps = {(b - a) % 4 if d == 3 else b - a for a, b in pairwise(values)}
        if len(steps) != 1 or steps.pop() not in ((0, 1, 3) if d == 3 else (-1, 0, 1)):
            return False
    return True


def is_vector_by_definition(points) -> bool:
    """Four distinct points form a vector if some order of them steps evenly."""
    return len(set(points)) == 4 and any(_is_line_in_order(o) for o in permutations(points))


def test_same_vectors_as_the_independent_construction():
    assert len(BY_DEFINITION) == 976
    assert {frozenset(v.points): v.dims for v in VECTORS} == BY_DEFINITION
    assert len(VECTORS) == len(set(VECTORS)) == 976


def test_points_are_in_line_order_and_dims_are_the_moving_ones():
    for vector in VECTORS:
        assert _is_line_in_order(vector.points), vector
        coords = [point_coords(p) for p in vector.points]
        moving = tuple(d + 1 for d in range(4) if len({c[d] for c in coords}) > 1)
        assert vector.dims == moving


def test_canonical_orientation():
    for vector in VECTORS:
        coords = [point_coords(p) for p in vector.points]
        linear = [d for d in vector.dims if d != 4]
        if linear:
            assert [c[linear[0] - 1] for c in coords] == [0, 1, 2, 3]
        else:
            assert [c[3] for c in coords] == [0, 1, 2, 3]  # NW, NE, SE, SW


def test_counts_per_type():
    counts = Counter(v.dims for v in VECTORS)
    assert counts == {
        (1,): 64, (2,): 64, (1, 2): 32, (3,): 64, (1, 3): 32, (2, 3): 32, (1, 2, 3): 16,
        (4,): 64, (1, 4): 128, (2, 4): 128, (1, 2, 4): 64, (3, 4): 128, (1, 3, 4): 64,
        (2, 3, 4): 64, (1, 2, 3, 4): 32,
    }  # fmt: skip


def test_counts_stated_by_the_manual():
    counts = Counter(v.dims for v in VECTORS)
    # "64 possible different constructs each" for the 1st and 2nd dimensions, 32 diagonals,
    # "The count of possible 1 & 2 dimension constructs is 160."
    assert counts[(1,)] == counts[(2,)] == 64 and counts[(1, 2)] == 32
    assert counts[(1,)] + counts[(2,)] + counts[(1, 2)] == 160
    # "A third dimension vector can exist on ... 64 different possible constructs"
    assert counts[(3,)] == 64
    # "Combined 1st & 3rd or 2nd & 3rd-dimension vectors each have 32"
    assert counts[(1, 3)] == counts[(2, 3)] == 32
    # "first three dimensions ... sixteen possible different constructs"
    assert counts[(1, 2, 3)] == 16


def test_fifteen_types_in_the_manuals_order():
    assert VECTOR_TYPES == (
        (1,), (2,), (1, 2), (3,), (1, 3), (2, 3), (1, 2, 3),
        (4,), (1, 4), (2, 4), (1, 2, 4), (3, 4), (1, 3, 4), (2, 3, 4), (1, 2, 3, 4),
    )  # fmt: skip
    assert [dims for dims in dict.fromkeys(v.dims for v in VECTORS)] == list(VECTOR_TYPES)


@pytest.mark.parametrize(
    ("dims", "name"),
    [((1,), "1st"), ((3, 1), "1st and 3rd"), ((1, 3, 4), "1st, 3rd and 4th"),
     ((1, 2, 3, 4), "1st, 2nd, 3rd and 4th")],
)  # fmt: skip
def test_type_names(dims, name):
    assert dims_name(dims) == name


def test_issue_example_dims_and_json():
    vector = vector_of(parse_point(n) for n in ("D1P", "C1Q", "B1R", "A1S"))
    assert vector is not None
    assert vector.dims == (1, 3)
    assert vector.to_json() == {"points": ["A1S", "B1R", "C1Q", "D1P"], "dims": [1, 3]}
    assert vector.type_name == "1st and 3rd"
    assert vector.notation() == "A1S B1R C1Q D1P"


def test_vectors_through_each_point():
    for point in POINTS:
        assert set(VECTORS_THROUGH[point]) == {v for v in VECTORS if point in v.points}
    sizes = [len(t) for t in VECTORS_THROUGH]
    assert min(sizes) == 13 and max(sizes) == 22
    assert sum(sizes) == 4 * 976


def test_mask_matches_points():
    for vector in VECTORS:
        assert vector.mask == sum(1 << p for p in vector.points)


# -- symmetries: each maps every vector onto a vector ------------------------------


def _mirror(axis):
    def apply(c):
        c = list(c)
        c[axis] = 3 - c[axis]
        return tuple(c)

    return apply


def _reverse_time(c):
    return c[:3] + ((-c[3]) % 4,)


def _rotate_time(c):
    return c[:3] + ((c[3] + 1) % 4,)


SYMMETRIES = {
    "mirror x": _mirror(0),
    "mirror y": _mirror(1),
    "flip tiers": _mirror(2),
    "reverse time": _reverse_time,
    "rotate time": _rotate_time,
}
VECTOR_SETS = {frozenset(v.points) for v in VECTORS}


def _image(points, functions):
    out = []
    for p in points:
        c = point_coords(p)
        for f in functions:
            c = f(c)
        out.append(point_index(*c))
    return out


@pytest.mark.parametrize("name", SYMMETRIES)
def test_each_symmetry_maps_vectors_to_vectors_of_the_same_type(name):
    images = set()
    for vector in VECTORS:
        image = vector_of(_image(vector.points, [SYMMETRIES[name]]))
        assert image is not None, (name, vector.notation())
        assert image.dims == vector.dims
        images.add(image)
    assert len(images) == 976  # a bijection


@given(
    st.sampled_from(VECTORS),
    st.lists(st.sampled_from(sorted(SYMMETRIES)), min_size=1, max_size=8),
)
def test_compositions_of_symmetries_map_vectors_to_vectors(vector, names):
    image = _image(vector.points, [SYMMETRIES[n] for n in names])
    assert frozenset(image) in VECTOR_SETS
    assert _is_line_in_order(image)  # the line order is carried over too


@given(st.lists(st.sampled_from(list(POINTS)), min_size=4, max_size=4, unique=True))
def test_vector_of_agrees_with_the_definition(points):
    assert (vector_of(points) is not None) == is_vector_by_definition(points)


# -- the manual's figures, built from its words ---------------------------------------
NW, NE, SE, SW = 0, 1, 2, 3


def pts(*coords):
    return [point_index(*c) for c in coords]


def test_fig9_diagonal_with_tiers_two_and_three_swapped_is_not_a_vector():
    # "It would be correct if the second and third tiers were exchanged with one another."
    for vector in VECTORS:
        if vector.dims != (1, 2, 3):
            continue
        coords = [point_coords(p) for p in vector.points]
        swapped = [coords[0], coords[1][:2] + (coords[2][2], coords[1][3]),
                   coords[2][:2] + (coords[1][2], coords[2][3]), coords[3]]  # fmt: skip
        assert vector_of(pts(*swapped)) is None
        assert not is_vector_by_definition(pts(*swapped))
    figure = pts((0, 0, 0, SE), (1, 1, 2, SE), (2, 2, 1, SE), (3, 3, 3, SE))
    assert vector_of(figure) is None


@pytest.mark.parametrize("z", range(4))
@pytest.mark.parametrize("xy", [(0, 0), (2, 3), (3, 1)])
def test_fig10_same_point_in_every_quadrant(xy, z):
    vector = vector_of(pts(*[(*xy, z, t) for t in (NW, NE, SE, SW)]))
    assert vector is not None and vector.dims == (4,)


@pytest.mark.parametrize("z", range(4))
def test_fig11_first_and_fourth(z):
    # NW clockwise to SW along the southern row, one point further west each quadrant.
    vector = vector_of(pts((3, 0, z, NW), (2, 0, z, NE), (1, 0, z, SE), (0, 0, z, SW)))
    assert vector is not None and vector.dims == (1, 4)


@pytest.mark.parametrize("z", range(4))
def test_fig12_second_and_fourth(z):
    # SE anticlockwise (NE, NW, SW), second column west-to-east, moving north.
    vector = vector_of(pts((1, 0, z, SE), (1, 1, z, NE), (1, 2, z, NW), (1, 3, z, SW)))
    assert vector is not None and vector.dims == (2, 4)


FIG13 = [(0, 0, 1, NW), (1, 1, 1, NE), (2, 2, 1, SE), (3, 3, 1, SW)]


def test_fig13_first_second_and_fourth():
    # NW clockwise, diagonal from the grid's SW corner to its NE corner, ending in SW.
    vector = vector_of(pts(*FIG13))
    assert vector is not None and vector.dims == (1, 2, 4)


def _post_referenced(c):
    """Where a player who measures each grid from the centre post (not N-S-E-W) puts a point."""
    x, y, z, t = c
    return (3 - x if t in (NW, SW) else x, 3 - y if t in (SE, SW) else y, z, t)


def test_fig14_centre_post_error_is_not_a_vector():
    dark = [_post_referenced(c) for c in FIG13]
    assert dark == [(3, 0, 1, NW), (1, 1, 1, NE), (2, 1, 1, SE), (0, 0, 1, SW)]
    assert vector_of(pts(*dark)) is None
    assert not is_vector_by_definition(pts(*dark))


def test_centre_post_referencing_breaks_every_vector_through_time():
    for vector in VECTORS:
        if 4 in vector.dims:
            mirrored = [_post_referenced(point_coords(p)) for p in vector.points]
            assert vector_of(pts(*mirrored)) is None, vector.notation()


@pytest.mark.parametrize("x", range(4))
@pytest.mark.parametrize("y", range(4))
def test_fig15_third_and_fourth(x, y):
    # The text starts in SE on the top tier, steps down a tier per quadrant "counter-clockwise",
    # yet ends in NE: anticlockwise from SE ends in SW, clockwise from SE ends in NE. Both
    # readings are vectors of the 3rd and 4th dimensions.
    anticlockwise = pts((x, y, 3, SE), (x, y, 2, NE), (x, y, 1, NW), (x, y, 0, SW))
    clockwise = pts((x, y, 3, SE), (x, y, 2, SW), (x, y, 1, NW), (x, y, 0, NE))
    for line in (anticlockwise, clockwise):
        vector = vector_of(line)
        assert vector is not None and vector.dims == (3, 4)


def test_fig16_all_four():
    # Bottom tier NE at the grid's NW corner, diagonally to the SE corner, up a tier and
    # clockwise a quadrant per point, ending on the top tier in NW.
    line = pts((0, 3, 0, NE), (1, 2, 1, SE), (2, 1, 2, SW), (3, 0, 3, NW))
    vector = vector_of(line)
    assert vector is not None and vector.dims == (1, 2, 3, 4)


# -- positions: vectors found, threats, the per-move check ---------------------------


def naive_vectors(tokens):
    return {(c, frozenset(v.points)) for v in VECTORS for c in range(3)
            if all(tokens.get(p) == c for p in v.points)}  # fmt: skip


def naive_threats(tokens, color):
    found = set()
    for v in VECTORS:
        own = [p for p in v.points if tokens.get(p) == color]
        empty = [p for p in v.points if p not in tokens]
        if len(own) == 3 and len(empty) == 1:
            found.add((frozenset(v.points), empty[0]))
    return found


positions = st.dictionaries(st.sampled_from(list(POINTS)), st.integers(0, 2), max_size=120)


@given(positions)
def test_vectors_in_and_threats_agree_with_a_naive_scan(tokens):
    assert {(c, frozenset(v.points)) for c, v in vectors_in(tokens)} == naive_vectors(tokens)
    for color in range(3):
        found = {(frozenset(v.points), p) for v, p in threats(tokens, color)}
        assert found == naive_threats(tokens, color)


@given(positions, st.sampled_from(list(POINTS)), st.integers(0, 2))
def test_completed_through_is_the_vectors_through_the_point(tokens, point, color):
    tokens = {**tokens, point: color}
    expected = {frozenset(v.points) for v in VECTORS
                if point in v.points and all(tokens.get(p) == color for p in v.points)}  # fmt: skip
    found = completed_through(bitboard(tokens, color), point)
    assert {frozenset(v.points) for v in found} == expected


def test_threat_names_the_missing_point():
    tokens = {parse_point(n): 1 for n in ("A1S", "B1R", "C1Q")}
    tokens[parse_point("A2S")] = 0
    found = threats(tokens, 1)
    assert [(v.notation(), point_name(p)) for v, p in found] == [("A1S B1R C1Q D1P", "D1P")]
    assert threats({**tokens, parse_point("D1P"): 0}, 1) == []  # blocked
