"""Colour model: light-invariant features, gain, clustering, learning with and without a palette."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.colours import (
    MERGE_DISTANCE,
    ColourModel,
    PaletteError,
    _split_merged_sets,
    channel_gain,
    cluster,
    colour_shares,
    display_colours,
    feature_to_bgr,
    features,
    grey_world,
    match_distance,
    nearest_prototype,
    parse_palette,
    prototype_array,
    split_by_unwashed,
    unclipped_pair,
)

RED, GREEN, BLUE, YELLOW = (200, 30, 40), (40, 160, 60), (30, 60, 190), (230, 200, 40)


def bgr(rgb) -> np.ndarray:
    return np.array(rgb[::-1], np.float32)


def samples_of(rgb, n: int, rng: np.random.Generator, shade=(0.6, 1.0)) -> np.ndarray:
    """One token set seen n times at different brightness, with sensor noise."""
    light = rng.uniform(*shade, size=(n, 1))
    return np.clip(bgr(rgb)[None, :] * light + rng.normal(0, 2, (n, 3)), 0, 255)


colour = st.tuples(st.integers(20, 255), st.integers(20, 255), st.integers(20, 255))


@settings(max_examples=80, deadline=None)
@given(colour)
def test_property_feature_inverse(rgb):
    f = features(bgr(rgb)[None, :])[0]
    np.testing.assert_allclose(feature_to_bgr(f), bgr(rgb), atol=1e-3)


@settings(max_examples=80, deadline=None)
@given(
    st.tuples(st.integers(60, 255), st.integers(60, 255), st.integers(60, 255)), st.floats(0.4, 1.0)
)
def test_property_chroma_barely_moves_with_brightness(rgb, factor):
    bright, dim = features(bgr(rgb)[None, :])[0], features(bgr(rgb)[None, :] * factor)[0]
    assert np.abs(bright[:2] - dim[:2]).max() < 0.2 * max(1.0, np.abs(bright[:2]).max())
    assert dim[2] <= bright[2]


@settings(max_examples=40, deadline=None)
@given(
    st.tuples(st.floats(0.6, 1.6), st.floats(0.6, 1.6), st.floats(0.6, 1.6)), st.integers(0, 10_000)
)
def test_property_channel_gain_recovers_a_cast_despite_changed_pixels(cast, seed):
    rng = np.random.default_rng(seed)
    reference = rng.uniform(40, 150, (2000, 3)).astype(np.float32)
    frame = reference * np.array(cast, np.float32)
    frame[:600] = rng.uniform(0, 255, (600, 3))  # tokens and a hand: 30 % of the pixels
    np.testing.assert_allclose(channel_gain(frame, reference), cast, rtol=0.03)


def test_channel_gain_without_usable_pixels_is_neutral():
    dark = np.zeros((100, 3), np.float32)
    np.testing.assert_array_equal(channel_gain(dark, dark), [1, 1, 1])


def test_grey_world_neutralises_a_cast():
    reference = np.tile(np.array([[80.0, 100.0, 140.0]], np.float32), (10, 1))
    balanced = reference * grey_world(reference)
    np.testing.assert_allclose(balanced[0], balanced[0].mean(), rtol=1e-5)


def test_cluster_finds_sets_in_order_of_first_appearance():
    rng = np.random.default_rng(1)
    rows = np.concatenate(
        [samples_of(BLUE, 6, rng), samples_of(RED, 8, rng), samples_of(BLUE, 4, rng)]
    )
    groups = cluster(features(rows))
    assert [len(members) for _, members in groups] == [10, 8]
    assert groups[0][1][0] == 0 and groups[1][1][0] == 6


def test_cluster_respects_max_clusters():
    rng = np.random.default_rng(2)
    rows = np.concatenate([samples_of(c, 5, rng) for c in (RED, GREEN, BLUE, YELLOW)])
    assert len(cluster(features(rows))) == 4
    assert len(cluster(features(rows), max_clusters=2)) == 2
    assert cluster(np.zeros((0, 3))) == []


def test_match_distance_prefers_hue_over_shade():
    red, dim_red, green = features(np.stack([bgr(RED), bgr(RED) * 0.5, bgr(GREEN)]))
    d = match_distance(red[None, :], np.stack([dim_red, green]))[0]
    assert d[0] < d[1] / 3


def test_a_pale_set_and_a_grey_one_of_the_same_tint_stay_two():
    """Pink and grey tokens under a pinkish light, as read across the tiers of one
    picture (seed 86 of the bench: the plates and clipped highlights halve the pink's
    saturation below, and its palest lie about as near the grey set as the vivid pink):
    clustering keeps two sets (compared by saturation difference, the two ran together
    and every pink token was read as grey)."""
    rng = np.random.default_rng(4)
    vivid, pale = np.array([5.4, 0.4, 17.4]), np.array([2.5, -1.5, 18.1])
    pink = vivid + np.linspace(0, 1, 12)[:, None] * (pale - vivid) + rng.normal(0, 0.1, (12, 3))
    grey = np.array([0.2, -0.2, 17.2]) + rng.normal(0, [0.3, 0.3, 0.2], (12, 3))
    order = rng.permutation(24)
    samples = np.concatenate([pink, grey])[order].astype(np.float32)
    groups = cluster(samples, max_clusters=3)
    assert sorted(sorted((order[members] < 12).tolist()) for _, members in groups) == [
        [False] * 12,
        [True] * 12,
    ]


def test_learning_without_palette_numbers_colours_as_they_come():
    rng = np.random.default_rng(3)
    model = ColourModel()
    assert model.n_colours == 0
    assert model.learn(features(samples_of(GREEN, 3, rng))) == [0]
    assert model.learn(
        features(np.concatenate([samples_of(GREEN, 2, rng), samples_of(RED, 2, rng)]))
    ) == [1]
    index, _ = model.nearest(features(samples_of(RED, 5, rng)))
    assert (index == 1).all()
    assert model.n_colours == 2


def test_learning_stops_at_max_colours():
    rng = np.random.default_rng(4)
    model = ColourModel(max_colours=2)
    model.learn(features(np.concatenate([samples_of(c, 3, rng) for c in (RED, GREEN, BLUE)])))
    assert sorted(model.prototypes) == [0, 1]
    assert model.is_full
    assert model.learn(features(samples_of(YELLOW, 3, rng))) == []


def test_palette_indices_follow_the_palette_under_a_colour_cast():
    """The camera sees the sets through a warm cast; hues still pick the right palette entries."""
    rng = np.random.default_rng(5)
    cast = np.array([0.8, 1.0, 1.3], np.float32)  # BGR: warm light
    reference = rng.uniform(60, 160, (500, 3)).astype(np.float32) * cast
    model = ColourModel(palette=[BLUE, RED, GREEN], reference_balance=grey_world(reference))
    seen = [samples_of(c, 4, rng) * cast for c in (RED, GREEN, BLUE)]
    created = model.learn(features(np.concatenate(seen)))
    assert sorted(created) == [0, 1, 2]
    for rows, expected in zip(seen, (1, 2, 0)):
        index, _ = model.nearest(features(rows))
        assert (index == expected).all()


def test_palette_entry_learned_one_at_a_time():
    rng = np.random.default_rng(6)
    model = ColourModel(palette=[RED, BLUE])
    assert model.learn(features(samples_of(BLUE, 3, rng))) == [1]
    assert model.learn(features(samples_of(RED, 3, rng))) == [0]
    assert model.is_full


def test_model_round_trips_through_a_dict():
    rng = np.random.default_rng(7)
    model = ColourModel(palette=[RED, GREEN])
    model.learn(features(samples_of(GREEN, 3, rng)))
    again = ColourModel.from_dict(model.to_dict())
    assert again.palette == model.palette
    assert again.prototypes.keys() == model.prototypes.keys()
    np.testing.assert_allclose(again.prototypes[1], model.prototypes[1])
    r, g, b = display_colours(again)[1]
    assert g > r and g > b
    with pytest.raises(ValueError):
        ColourModel.from_dict({"prototypes": 5})


@pytest.mark.parametrize(
    "bad, message",
    [
        ([], "non-empty"),
        ("red", "non-empty"),
        ([[255, 0]], "entry 0"),
        ([[255, 0, 0], [0, 256, 0]], "entry 1"),
        ([[1.5, 0, 0]], "entry 0"),
        ([[True, 0, 0]], "entry 0"),
        ([[9, 9, 9], [9, 9, 9]], "twice"),
    ],
)
def test_bad_palettes_are_refused(bad, message):
    with pytest.raises(PaletteError, match=message):
        parse_palette(bad)


def test_good_palette_is_parsed():
    assert parse_palette([[1, 2, 3], [4, 5, 6]]) == [(1, 2, 3), (4, 5, 6)]


def test_a_stray_reading_does_not_force_two_colours_together():
    rng = np.random.default_rng(5)
    navy, blue, stray = (20, 40, 110), (25, 45, 200), (230, 220, 30)
    rows = np.concatenate(
        [
            samples_of(RED, 20, rng),
            bgr(stray)[None, :],
            samples_of(navy, 20, rng),
            samples_of(blue, 20, rng),
        ]
    )
    # Counted as a set, the stray once took the third colour and forced navy and blue together;
    # the most likely grouping of three sets weighed alike puts it with one of them instead.
    with_stray_counted = cluster(features(rows), max_clusters=3)
    assert sorted(len(m) for _, m in with_stray_counted) == [20, 20, 21]
    navy_rows, blue_rows = set(range(21, 41)), set(range(41, 61))
    assert not any(navy_rows & set(m) and blue_rows & set(m) for _, m in with_stray_counted)
    groups = cluster(features(rows), max_clusters=3, min_size=3)
    assert sorted(len(m) for _, m in groups) == [1, 20, 20, 20]
    model = ColourModel()
    assert model.learn(features(rows)) == [0, 1, 2]
    index, _ = model.nearest(features(np.stack([bgr(RED), bgr(navy), bgr(blue)])))
    assert index.tolist() == [0, 1, 2]


# Shared by the token and the ring colour models.


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.floats(0, 20), min_size=3, max_size=3), min_size=1, max_size=8))
def test_colour_shares_are_probabilities_favouring_the_nearest(rows: list[list[float]]) -> None:
    distances = np.array(rows)
    shares = colour_shares(distances)
    assert shares.shape == distances.shape
    assert np.allclose(shares.sum(axis=1), 1.0) and np.all(shares > 0)
    nearest = np.argmin(distances, axis=1)
    assert np.all(shares[np.arange(len(rows)), nearest] >= shares.max(axis=1) - 1e-12)


@settings(max_examples=50, deadline=None)
@given(
    # (distances at which the likelihoods' floor is negligible)
    st.lists(st.lists(st.floats(0, 6), min_size=3, max_size=3), min_size=1, max_size=8),
    st.floats(0.5, 10),
)
def test_a_colour_read_less_surely_is_shared_more_evenly_but_still_favours_the_nearest(
    rows: list[list[float]], error: float
) -> None:
    distances = np.array(rows)
    sure = colour_shares(distances, error=np.zeros(len(rows)))
    unsure = colour_shares(distances, error=np.full(len(rows), error))
    assert np.allclose(sure, colour_shares(distances))
    assert np.allclose(unsure.sum(axis=1), 1.0)
    nearest = np.argmin(distances, axis=1)
    at = np.arange(len(rows))
    assert np.all(unsure[at, nearest] >= unsure.max(axis=1) - 1e-12)
    # (the likeliest colour's lead over each other one shrinks, never grows)
    assert np.all(
        unsure * sure[at, nearest][:, None] >= 0.99 * sure * unsure[at, nearest][:, None]
    )
    # ... and where another colour is clearly farther, the likeliest one is told less surely
    ordered = np.sort(distances, axis=1)
    clear = ordered[:, 1] - ordered[:, 0] > 0.5
    assert np.all(unsure[at, nearest][clear] < sure[at, nearest][clear])


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.lists(st.floats(0, 6), min_size=3, max_size=3), min_size=1, max_size=8),
    st.lists(st.floats(0, 10), min_size=3, max_size=3),
)
def test_a_colour_may_be_off_by_another_amount_against_each_known_colour(
    rows: list[list[float]], errors: list[float]
) -> None:
    """With an error per known colour, the odds between two colours are those of the two
    alone (each colour's likelihood depends on its own error only), and one error for all
    colours is the same as one error for the sample."""
    distances = np.array(rows)
    per_pair = np.tile(np.array(errors), (len(rows), 1))
    shares = colour_shares(distances, error=per_pair)
    assert shares.shape == distances.shape and np.allclose(shares.sum(axis=1), 1.0)
    for j, k in ((0, 1), (0, 2), (1, 2)):
        two = colour_shares(distances[:, [j, k]], error=per_pair[:, [j, k]])
        assert np.allclose(shares[:, j] / shares[:, k], two[:, 0] / two[:, 1])
    same = colour_shares(distances, error=np.full((len(rows), 3), errors[0]))
    assert np.allclose(same, colour_shares(distances, error=np.full(len(rows), errors[0])))


def test_a_colour_learned_behind_more_plates_is_told_less_surely_against_it() -> None:
    """Bench game 4303: a brown token on the top tier is 5.65 units from the brown set
    learned three plates down and 3.88 from the orange set learned two plates down. With
    the unknown wash counted per plate between the token and each set, brown is nearly as
    likely as orange, so the game's turn can decide it; counted for the token's own
    plates alone (none), orange was sure."""
    distances = np.array([[5.65, 25.66, 3.88]])
    sure = colour_shares(distances, error=np.zeros(1))
    apart = colour_shares(distances, error=1.5 * np.array([[3.0, 2.0, 2.0]]))
    assert sure[0, 0] < 0.1 * sure[0, 2]
    assert apart[0, 0] > 0.5 * apart[0, 2]


def test_nearest_prototype_uses_the_given_distance_and_reports_no_colour_when_none_known() -> None:
    feats = np.array([[0.0, 0.0, 0.0], [10.0, 0.0, 0.0]], np.float32)
    index, dist = nearest_prototype(feats, {}, lambda a, b: np.zeros((len(a), len(b))))
    assert index.tolist() == [-1, -1] and np.all(np.isinf(dist))
    prototypes = {3: np.array([9.0, 0, 0], np.float32), 1: np.array([1.0, 0, 0], np.float32)}
    keys, protos = prototype_array(prototypes)
    assert keys.tolist() == [1, 3] and protos[:, 0].tolist() == [1.0, 9.0]

    def along_x(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.abs(a[:, None, 0] - b[None, :, 0])

    index, dist = nearest_prototype(feats, prototypes, along_x)
    assert index.tolist() == [1, 3] and dist.tolist() == pytest.approx([1.0, 1.0])


def _grey_and_dark(count: int, rng: np.random.Generator) -> np.ndarray:
    """Feature rows of a grey set and a dark set: same (no) hue, about 1.5 brightness units
    apart after the light weighting, well inside the merge radius."""
    grey = features(np.array([[130.0, 130.0, 130.0]])) + rng.normal(0, 0.15, (count, 3))
    dark = features(np.array([[48.0, 48.0, 48.0]])) + rng.normal(0, 0.15, (count, 3))
    return np.concatenate([grey, dark]).astype(np.float32)


def test_two_sets_apart_by_brightness_alone_stay_two_when_each_is_well_filled():
    rng = np.random.default_rng(5)
    rows = _grey_and_dark(8, rng)
    assert match_distance(rows[:1], rows[8:9])[0, 0] < MERGE_DISTANCE
    groups = cluster(rows, max_clusters=3)
    assert sorted(len(members) for _, members in groups) == [8, 8]
    assert len(cluster(rows)) == 1  # without a colour limit the radius alone decides


def test_a_few_samples_are_not_enough_to_split_on_a_gap():
    rng = np.random.default_rng(6)
    assert len(cluster(_grey_and_dark(2, rng), max_clusters=3)) == 1


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(4, 40), spread=st.floats(0.1, 0.45))
def test_one_set_is_never_split_on_a_gap(seed, count, spread):
    """Samples of one set: the colour limit (which lets a gap keep groups apart) never gives
    more groups than the merge radius alone does, for sets scattered up to 0.45 per axis.
    (At 0.5 one set of 14 was split, seed 689; at 0.56 and more a split of one set was seen
    in 2 of 3000 random sets; token sets read
    from rendered scenes scatter from about 0.1 to 1 per axis, so a very scattered set can
    be split.)"""
    rng = np.random.default_rng(seed)
    rows = (features(np.array([[40.0, 80.0, 200.0]])) + rng.normal(0, spread, (count, 3))).astype(
        np.float32
    )
    assert len(cluster(rows, max_clusters=3)) <= len(cluster(rows))


def _sets(rng: np.random.Generator, *sets: tuple[tuple, tuple, int]) -> np.ndarray:
    """Feature rows of token sets, each given as its (chroma1, chroma2, brightness) centre,
    its scatter along each of them, and its count."""
    rows = [
        np.array(centre) + rng.normal(0, 1, (count, 3)) * np.array(scatter)
        for centre, scatter, count in sets
    ]
    return np.concatenate(rows).astype(np.float32)


@pytest.mark.parametrize("seed", [0, 5, 9, 3, 7, 11])
def test_two_sets_of_one_hue_merged_by_their_noisy_chroma_are_split_by_brightness(seed):
    """Navy and blue through the plates (a scene of the vision bench): the same hue, the
    dark set's saturation scattered as widely as the gap between them, 2 brightness units
    apart. They merge; the merged group spreads in brightness far more than the red set
    under the same light, and a set does not: it is split where its brightness divides.
    In seeds 3, 7 and 11 a stray group of three odd readings took the third colour first
    and left no room for the split: a group too small to show its own spread does not hold
    a set's place, and it joins its nearest set after the split."""
    rng = np.random.default_rng(seed)
    red = ((12.6, 14.7, 15.1), (0.6, 0.6, 0.25), 18)
    blue = ((-0.7, -15.5, 14.8), (0.3, 2.0, 0.4), 15)
    navy = ((-1.0, -14.0, 12.6), (0.5, 4.0, 0.6), 15)
    rows = _sets(rng, red, blue, navy)
    # (as the colour model asks: a group needs 5% of the samples to count as a colour)
    groups = cluster(rows, max_clusters=3, min_size=3)
    assert sum(len(members) >= 3 for _, members in groups) == 3
    by_member = {int(i): g for g, (_, members) in enumerate(groups) for i in members}
    blue_group = np.bincount([by_member[i] for i in range(18, 33)]).argmax()
    navy_group = np.bincount([by_member[i] for i in range(33, 48)]).argmax()
    assert blue_group != navy_group
    wrong = sum(by_member[i] != blue_group for i in range(18, 33))
    wrong += sum(by_member[i] != navy_group for i in range(33, 48))
    assert wrong <= 3


def test_a_lone_odd_reading_joins_its_nearest_set_rather_than_two_sets_merging():
    """Few tokens, so one reading counts as a group: a dark token in deep shadow read
    almost black, far from every set. With three sets already, the colour limit forces a
    merge: the odd reading joins the dark set, and pink and orange stay two (a scene of the
    vision bench, where they merged)."""
    rng = np.random.default_rng(430)
    dark = ((1.5, -6.0, 12.0), (0.5, 0.5, 0.3), 4)
    pink = ((5.7, 2.0, 17.2), (0.4, 0.3, 0.1), 5)
    orange = ((6.8, 16.8, 16.5), (0.4, 0.3, 0.1), 6)
    rows = np.concatenate([_sets(rng, dark, pink, orange), [[0.0, 0.0, 4.6]]]).astype(np.float32)
    assert match_distance(rows[4:5], rows[9:10])[0, 0] > MERGE_DISTANCE
    groups = [sorted(members.tolist()) for _, members in cluster(rows, max_clusters=3)]
    assert groups == [[0, 1, 2, 3, 15], [4, 5, 6, 7, 8], [9, 10, 11, 12, 13, 14]]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    light=st.floats(0.1, 1.0),
    counts=st.tuples(st.integers(8, 30), st.integers(8, 30), st.integers(0, 30)),
)
def test_sets_that_spread_alike_are_never_split(seed, light, counts):
    """Sets under the same light spread alike in brightness, however widely: none of two or
    three is split into another colour."""
    rng = np.random.default_rng(seed)
    centres = [(12.6, 14.7, 15.1), (-0.7, -15.5, 14.0), (8.0, -3.0, 12.0)]
    rows = _sets(rng, *[(c, (0.6, 0.6, light), n) for c, n in zip(centres, counts) if n])
    starts = np.cumsum([0, *counts])
    groups = [list(range(a, b)) for a, b in zip(starts[:-1], starts[1:]) if b > a]
    assert _split_merged_sets(rows[:, 2], groups, 3, 3) == groups


def test_the_game_founds_a_colour_close_to_a_known_one():
    """A dark set after a grey one: within the merge radius, yet its own colour."""
    rng = np.random.default_rng(7)
    rows = _grey_and_dark(1, rng)
    model = ColourModel()
    model.learn(rows[:1])
    assert model.nearest(rows[1:])[0][0] == 0, "learning alone would call the dark token grey"
    assert model.found(1, rows[1])
    assert model.nearest(rows[1:])[0][0] == 1


def test_founding_is_refused_for_a_known_colour_an_out_of_range_one_or_a_tight_match():
    rng = np.random.default_rng(8)
    rows = _grey_and_dark(1, rng)
    model = ColourModel()
    model.learn(rows[:1])
    assert not model.found(0, rows[1]), "colour 0 is known"
    assert not model.found(3, rows[1]), "three colours by default"
    assert not model.found(1, rows[0] + 0.1), "a token of the known set is not a new colour"
    assert sorted(model.prototypes) == [0]


def test_a_known_colour_that_may_look_off_where_the_token_was_seen_does_not_refuse_it():
    """A known set whose look where the new token lies is uncertain (behind other plates than
    it was learned behind, the wash not known) cannot say the token is one of its own: the
    token founds its set. As uncertain by less than the tight match, it still refuses."""
    rng = np.random.default_rng(8)
    rows = _grey_and_dark(1, rng)
    twin = rows[0] + 0.1
    model = ColourModel()
    model.learn(rows[:1])
    assert not model.found(1, twin, {0: 0.5}), "0.5 units off: still a tight match"
    assert model.found(1, twin, {0: 1.5}), "1.5 units off: no tight match"
    assert sorted(model.prototypes) == [0, 1]


def test_a_colour_founded_out_of_order_gets_its_own_column():
    rng = np.random.default_rng(9)
    rows = _grey_and_dark(1, rng)
    model = ColourModel()
    model.learn(rows[:1])
    assert model.found(2, rows[1])
    assert model.n_colours == 3  # column 1 stays empty until colour 1 is seen
    keys, _ = model.prototype_array()
    assert keys.tolist() == [0, 2]


def test_a_colour_the_game_vouches_for_learns_from_its_tokens_however_far():
    """A set founded from its first token seen washed out (mauve for brown through two
    tinted plates) lies beyond the merge radius of its own later tokens: matched by
    distance they teach it nothing, and end up nearer another set. Told whose they are,
    they pull it towards what the set looks like."""
    orange, mauve, brown = (
        np.array([6.0, 14.0, 16.4]),
        np.array([1.1, -0.9, 16.1]),
        np.array([4.8, 4.3, 15.1]),
    )
    green = np.array([-8.0, 8.0, 13.8])
    untold, told = (
        ColourModel(prototypes={0: orange.copy(), 1: green.copy(), 2: mauve.copy()})
        for _ in range(2)
    )
    tokens = np.stack([brown, brown + 0.1, orange])
    assert match_distance(brown[None], mauve[None])[0, 0] > MERGE_DISTANCE
    for _ in range(30):
        untold.learn(tokens)
        told.learn(tokens, np.array([2, 2, 0]))
    assert np.allclose(untold.prototypes[2], mauve)
    assert match_distance(told.prototypes[2][None], brown[None])[0, 0] < 0.5
    assert told.nearest(brown[None])[0][0] == 2
    assert told.nearest(orange[None])[0][0] == 0


def test_a_vouched_colour_not_known_yet_teaches_nothing():
    """A colour the game names but the model has not learned (a hidden first token) is not
    made up from a label: the sample is read as any unvouched one."""
    grey = np.array([0.3, 0.2, 16.0])
    model = ColourModel(prototypes={0: grey.copy()})
    model.learn(grey[None] + 0.2, np.array([1]))
    assert sorted(model.prototypes) == [0]
    assert np.allclose(model.prototypes[0], grey + 0.02, atol=1e-5)


def test_a_new_colour_takes_the_lowest_free_number():
    """The game founded colour 2 first (colour 1's first token was hidden); a set clustered
    next is colour 1, not a second colour 2 over the first."""
    grey, red = np.array([0.3, 0.2, 16.0]), np.array([12.0, 4.0, 15.0])
    model = ColourModel(prototypes={0: grey.copy(), 2: np.array([-8.0, 8.0, 13.8])})
    assert model.learn(np.stack([red, red + 0.1])) == [1]
    assert np.allclose(model.prototypes[2], [-8.0, 8.0, 13.8])


def test_a_clipped_channel_differs_only_where_the_other_side_contradicts_it():
    frame = np.array([[199.0, 100.0, 50.0], [199.0, 100.0, 50.0], [240.0, 90.0, 60.0]])
    reference = np.array([[230.0, 100.0, 50.0], [150.0, 100.0, 50.0], [252.0, 90.0, 60.0]])
    frame_clipped = np.array([[True, False, False], [True, False, False], [False] * 3])
    reference_clipped = reference >= 250
    seen, expected = unclipped_pair(frame, frame_clipped, reference, reference_clipped)
    # Clipped at 199 (divided by its gain), the frame may well be 230: no change.
    assert np.array_equal(seen[0], reference[0]) and np.array_equal(expected[0], reference[0])
    # ... but not 150: a change of at least 49.
    assert seen[1, 0] == 199.0 and expected[1, 0] == 150.0
    # A reference clipped at 252 may have been the frame's 240 only if it were brighter: a change.
    assert seen[2, 0] == 240.0 and expected[2, 0] == 252.0
    frame[2, 0] = 255.0
    seen, expected = unclipped_pair(frame, frame_clipped, reference, reference_clipped)
    assert seen[2, 0] == expected[2, 0] == 255.0


def _white_grey_and_orange(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Token colours of a vision bench scene (2057) where a white set and a grey one, 1.2
    brightness units apart, read as one: unwashed each is tight, but the tokens below (washed
    by the plates, some shaded by tokens above) fill the gap. Returns (rows, unwashed)."""
    white = ((0.42, -0.33, 18.3), (0.06, 0.06, 0.08), 6)
    grey = ((0.68, -0.30, 17.13), (0.06, 0.1, 0.1), 13)
    orange = ((6.7, 17.0, 16.48), (0.3, 0.1, 0.05), 7)
    washed_white = ((0.25, -0.6, 17.8), (0.06, 0.12, 0.55), 12)
    washed_grey = ((0.35, -0.7, 17.0), (0.1, 0.15, 0.35), 8)
    washed_orange = ((6.2, 15.8, 16.3), (0.4, 0.8, 0.3), 14)
    rows = _sets(rng, white, grey, orange, washed_white, washed_grey, washed_orange)
    unwashed = np.arange(len(rows)) < 26
    order = rng.permutation(len(rows))  # (tokens come in no particular order)
    return rows[order], unwashed[order]


@pytest.mark.parametrize("seed", range(5))
def test_white_and_grey_sets_stand_apart_where_they_are_seen_unwashed(seed):
    rng = np.random.default_rng(seed)
    rows, unwashed = _white_grey_and_orange(rng)
    assert len(ColourModel().learn(rows)) == 2, "told nothing of the plates, they are one"
    model = ColourModel()
    assert len(model.learn(rows, unwashed=unwashed)) == 3
    colour, _ = model.nearest(rows[unwashed])
    bright = rows[unwashed, 2] > 17.7
    grey = ~bright & (rows[unwashed, 0] < 3)
    assert len(set(colour[bright])) == len(set(colour[grey])) == 1
    assert colour[bright][0] != colour[grey][0]


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    clear=st.integers(8, 40),
    spread=st.floats(0.02, 1.0),
    washed=st.integers(0, 30),
)
def test_one_set_seen_unwashed_is_never_split(seed, clear, spread, washed):
    """One set's unwashed tokens scattered by noise and light, however widely, with washed
    ones anywhere below: never two colours. (A fixed sample: the rule's false splits are
    rare, not impossible: about one in 5,000 random sets of 8 to 30 tokens.)"""
    rng = np.random.default_rng(seed)
    rows = _sets(
        rng,
        ((0.5, -0.4, 17.0), (0.1, 0.1, spread), clear),
        ((0.3, -0.6, 16.0), (0.2, 0.3, 1.0), washed),
    )
    unwashed = np.arange(len(rows)) < clear
    everyone = list(range(len(rows)))
    assert split_by_unwashed(rows, [everyone], unwashed, room=2) == [everyone]
