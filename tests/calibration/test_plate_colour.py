"""The plates' colour loss: correction and its estimate from the tokens of one frame."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from calibration.colours import feature_to_bgr, features, match_distance
from calibration.plate_colour import (
    corrected,
    estimate_plate_loss,
    light_ratio,
    plates_above,
    relit,
    washed,
)


def _seen_through_plates(
    true_feats: np.ndarray, tiers: np.ndarray, transmission: float, added: float
) -> np.ndarray:
    """Each plate passes ``transmission`` of the light behind it and adds ``added``; the
    camera sees every token through all the plates above its tier."""
    return _seen_behind(true_feats, plates_above(tiers), transmission, added)


def _seen_behind(
    true_feats: np.ndarray, plates: np.ndarray, transmission: float, added: float
) -> np.ndarray:
    """As :func:`_seen_through_plates`, each token behind its own whole number of plates."""
    bgr = feature_to_bgr(np.asarray(true_feats, np.float64))
    for k, count in enumerate(plates):
        for _ in range(int(count)):
            bgr[k] = transmission * bgr[k] + added
    return features(bgr)


def test_top_tier_is_unchanged_and_lower_tiers_are_restored():
    true = np.array([[4.0, -8.0, 14.0], [4.0, -8.0, 14.0]], np.float32)
    tiers = np.array([3, 1])
    seen = _seen_through_plates(true, tiers, 0.8, 20.0)
    assert not np.allclose(seen[1], true[1], atol=0.5)
    out = corrected(seen, plates_above(tiers), 0.8, 20.0)
    assert np.allclose(out, true, atol=1e-3)


@settings(max_examples=50, deadline=None)
@given(
    rgb=st.tuples(*[st.integers(0, 255)] * 3),
    plates=st.floats(0.0, 3.0),
    transmission=st.floats(0.6, 1.0),
    added=st.tuples(*[st.floats(0.0, 30.0)] * 3),
)
def test_washing_is_what_the_plates_do_and_correcting_undoes_it(rgb, plates, transmission, added):
    """``washed`` predicts a colour behind the plates (as they act, plate by plate, on whole
    counts), and ``corrected`` takes it back."""
    true = features(np.array([rgb[::-1]], np.float64))
    behind = washed(true, np.array([plates]), transmission, np.array(added))
    assert np.allclose(
        corrected(behind, np.array([plates]), transmission, np.array(added)), true, atol=1e-3
    )
    whole = np.array([float(round(plates))])
    assert np.allclose(
        washed(true, whole, transmission, float(added[0]) * np.ones(3)),
        _seen_behind(true, whole, transmission, float(added[0])),
        atol=1e-3,
    )


@settings(max_examples=50, deadline=None)
@given(
    rgb=st.tuples(*[st.integers(20, 255)] * 3),
    plates=st.integers(0, 3),
    transmission=st.floats(0.6, 1.0),
    added=st.tuples(*[st.floats(0.0, 30.0)] * 3),
    shade=st.floats(0.2, 1.0),
)
# (no veil behind a plate: the gain is the whole 1 / shade, up to float32 rounding)
@example(rgb=(20, 20, 20), plates=1, transmission=1.0, added=(0.0, 0.0, 0.0), shade=0.25)
def test_a_shaded_token_is_relit_behind_the_plates_veil(rgb, plates, transmission, added, shade):
    """A token in a shadow that keeps ``shade`` of the light, seen behind the plates, is
    relit to its look out of the shadow by the gain ``1 / shade`` (the veil in front of it
    is not the token's light and stays); with no plate in front, ``light_ratio`` measures
    that gain back from the two looks, and behind plates less (the veil is in both)."""
    true = features(np.array([rgb[::-1]], np.float64))
    shaded_true = features(feature_to_bgr(true) * shade)
    behind = np.array([float(plates)])
    lit_seen = washed(true, behind, transmission, np.array(added))
    shaded_seen = washed(shaded_true, behind, transmission, np.array(added))
    out = relit(shaded_seen, behind, 1.0 / shade, transmission, np.array(added))
    assert np.allclose(out, lit_seen, atol=1e-3)
    gain = light_ratio(lit_seen[0], shaded_seen[0])
    if plates == 0:
        assert gain == pytest.approx(1.0 / shade, rel=1e-3)
    else:
        # (colour features are float32: a relative rounding of about 1e-6 on the gain)
        assert 1.0 - 1e-5 <= gain <= (1.0 / shade) * (1.0 + 1e-5)


def test_relighting_ignores_the_veil_only_where_told_to():
    """With no plates (or none learned), relighting scales the colour as seen; behind a veil
    it brightens a dark token's picture far less than its own light."""
    dark = features(np.array([[30.0, 40.0, 50.0]]))
    assert np.allclose(
        feature_to_bgr(relit(dark, np.zeros(1), 2.0)), [[60.0, 80.0, 100.0]], atol=1e-3
    )
    seen = washed(dark, np.array([3.0]), 0.9, 20.0)
    brighter = feature_to_bgr(relit(seen, np.array([3.0]), 2.0, 0.9, 20.0)).sum()
    assert brighter < 2.0 * feature_to_bgr(seen).sum() - 50.0


def test_the_light_ratio_of_two_looks():
    lit = features(np.array([[90.0, 120.0, 60.0]]))[0]
    assert light_ratio(lit, lit) == pytest.approx(1.0)
    assert light_ratio(lit, features(np.array([[30.0, 40.0, 20.0]]))[0]) == pytest.approx(3.0)
    assert light_ratio(lit, features(np.array([[0.0, 0.0, 0.0]]))[0]) > 1e6  # (black)


@settings(max_examples=30, deadline=None)
@given(
    transmission=st.floats(0.6, 1.0),
    added=st.floats(0.0, 25.0),
    seed=st.integers(0, 10_000),
)
def test_estimate_undoes_the_plates_from_three_sets_on_all_tiers(transmission, added, seed):
    rng = np.random.default_rng(seed)
    hues = rng.uniform(0, 2 * np.pi) + np.array([0.0, 2.1, 4.2])
    sets = np.stack([12 * np.cos(hues), 12 * np.sin(hues), rng.uniform(13, 16, 3)], axis=1)
    colour = np.repeat(np.arange(3), 8)
    tiers = np.tile(np.arange(4), 6)
    true = sets[colour] + rng.normal(0, 0.05, (24, 3))
    loss = estimate_plate_loss(
        _seen_through_plates(true, tiers, transmission, added), plates_above(tiers)
    )
    assert loss is not None
    fixed = corrected(
        _seen_through_plates(true, tiers, transmission, added), plates_above(tiers), *loss
    )
    assert np.median(match_distance(fixed, true).diagonal()) < 0.5


def test_tokens_of_one_tier_seen_behind_different_numbers_of_plates_teach_the_loss():
    """Seen obliquely, a lower tier's front points are seen past the plates above it and its
    back points through them: what washes a token is the plates in front of it, not its
    tier. Tokens all on the bottom tier, behind 0 to 3 plates, say as much as tokens on
    four tiers."""
    rng = np.random.default_rng(5)
    hues = 0.4 + np.array([0.0, 2.1, 4.2])
    sets = np.stack([12 * np.cos(hues), 12 * np.sin(hues), [13.0, 14.5, 16.0]], axis=1)
    colour = np.repeat(np.arange(3), 8)
    plates = np.tile(np.arange(4), 6)
    true = sets[colour] + rng.normal(0, 0.05, (24, 3))
    seen = _seen_behind(true, plates, 0.8, 20.0)
    loss = estimate_plate_loss(seen, plates)
    assert loss is not None
    assert loss[0] == pytest.approx(0.8, abs=0.05)
    assert np.median(match_distance(corrected(seen, plates, *loss), true).diagonal()) < 0.5
    # Undone as if each token were behind all three plates above its tier, they are not.
    bottom = plates_above(np.zeros(24, int))
    off = match_distance(corrected(seen, bottom, *loss), true).diagonal()[plates < 3]
    assert np.median(off) > 2


def test_navy_on_top_and_blue_below_are_told_apart_after_correction():
    navy, blue = np.array([-3.0, -14.5, 13.1]), np.array([-2.0, -23.0, 14.0])
    grey = np.array([0.3, 0.2, 15.5])
    tiers = np.array([3, 3, 3, 0, 0, 0, 3, 3, 0, 0, 3, 2, 1, 0])
    true = np.array([navy] * 6 + [blue] * 4 + [grey] * 4, np.float32)
    seen = _seen_through_plates(true, tiers, 0.7, 30.0)
    raw = match_distance(seen, seen)
    assert raw[8, 0] < raw[8, 6]  # raw: blue below looks more like navy than like blue
    fixed = corrected(seen, plates_above(tiers), *estimate_plate_loss(seen, plates_above(tiers)))
    d = match_distance(fixed, fixed)
    assert d[8, 6] < d[8, 0] and d[3, 0] < d[3, 6]


def test_added_light_greys_a_dark_set_below_more_than_a_light_one():
    """The light the plates add is the same for every token, so a dark set on the bottom
    tier drifts towards a grey one; the estimate undoes it and the two stay apart."""
    grey, dark = np.array([0.3, 0.2, 16.0]), np.array([0.2, 0.4, 12.2])
    tiers = np.tile(np.arange(4), 4)
    true = np.array([grey] * 8 + [dark] * 8, np.float32)
    seen = _seen_through_plates(true, tiers, 0.9, 20.0)
    assert abs(seen[8, 2] - seen[0, 2]) < 0.5 * abs(true[8, 2] - true[0, 2])  # dark on P ~ grey
    fixed = corrected(seen, plates_above(tiers), *estimate_plate_loss(seen, plates_above(tiers)))
    assert np.allclose(fixed[:, 2], true[:, 2], atol=0.3)


def test_strongly_tinted_plates_are_found_from_a_dark_set_below_and_a_pale_one():
    """Green plates add green light. Through them a pale set changes little, and a dark set
    two plates down turns grey-green: no grey added light brings it back to its colour, and
    a search that looked at grey light first kept clear plates (bench game 3707: a maroon
    token on E8Q read as the pale green set). The tinted wash is found."""
    pale, dark = np.array([-2.1, 3.7, 17.1]), np.array([3.1, 2.0, 10.9])
    plates = np.array([0, 1, 1, 0, 2, 2, 0])
    true = np.array([pale, pale, pale, dark, dark, dark, dark], np.float32)
    seen = _seen_behind(true, plates, 0.88, np.array([16.0, 26.0, 16.0]))
    raw = match_distance(seen, seen)
    assert raw[4, 0] < raw[4, 3]  # raw: the dark token below looks more like the pale set
    loss = estimate_plate_loss(seen, plates, np.array([0, 0, 0, 1, 1, 1, 1]))
    assert loss is not None and loss[1][1] > 1.2 * max(loss[1][0], loss[1][2])  # green
    fixed = match_distance(corrected(seen, plates, *loss), true)
    assert fixed[4, 3] < fixed[4, 0] and fixed[5, 3] < fixed[5, 0]


def test_the_plates_of_bench_game_3707_are_tinted():
    """The six tokens bench game 3707 had read when it first learned the plates (B, G, R as
    the camera saw them; sets as the game held them): two pale green tokens one plate apart
    look alike, a maroon one on the top tier and one two plates down do not. The estimate
    found clear plates, and the maroon token below read as the pale set until the game
    ended; the green wash brings it back to its set."""
    seen = features(np.array(
        [[103, 49, 81], [47, 61, 55], [106, 53, 87], [138, 205, 156], [136, 202, 154], [20, 18, 29]],
        np.float32,
    ))
    plates = np.array([1.0, 2.0, 1.0, 1.0, 0.0, 0.0])
    loss = estimate_plate_loss(seen, plates, np.array([2, 1, 2, 0, 0, 1]))
    assert loss is not None and loss[0] < 1.0
    fixed = corrected(seen, plates, *loss)
    distance = match_distance(fixed, fixed)
    assert distance[1, 5] < distance[1, 4]  # the maroon token below nearer its set than the pale


def test_too_few_tokens_or_one_tier_say_nothing():
    feats = np.ones((10, 3), np.float32)
    assert estimate_plate_loss(feats[:3], np.array([0, 1, 2])) is None
    assert estimate_plate_loss(feats, np.full(10, 2)) is None


def test_mismatched_lengths_are_refused():
    with pytest.raises(ValueError, match="plate counts"):
        estimate_plate_loss(np.ones((8, 3)), np.zeros(7, int))
    with pytest.raises(ValueError, match="sets"):
        estimate_plate_loss(np.ones((8, 3)), np.zeros(8, int), np.zeros(7, int))


# Token colours as a game read them (a rendered game: a near-black teal set, a teal one and
# a white one on stone): name, tier, the set the game says it is, the features seen.
_GAME_TOKENS = [
    ("B7S", 3, 2, (-0.40, -0.21, 16.96)),
    ("G6P", 0, 1, (-5.22, -5.01, 15.50)),
    ("H6P", 0, 0, (-3.13, -3.27, 13.86)),
    ("E7P", 0, 0, (-2.84, -3.17, 13.93)),
    ("G8S", 3, 1, (-7.78, -9.30, 14.30)),
    ("C2Q", 1, 0, (-2.84, -3.87, 13.25)),
    ("D7P", 0, 2, (-0.82, -0.10, 17.14)),
]


def test_the_games_word_keeps_a_dark_set_below_off_its_lighter_sibling():
    """Seven tokens may not tell a correction that lands the dark set three tiers down on its
    own token one tier up from one that lands it on the lighter set's token on top (with the
    grey added light searched alone, they did not); the game knows whose tokens they are."""
    feats = np.array([f for *_, f in _GAME_TOKENS], np.float32)
    tiers = np.array([t for _, t, _, _ in _GAME_TOKENS])
    sets = np.array([s for _, _, s, _ in _GAME_TOKENS])
    h6p, g8s, c2q = 2, 4, 5

    def distances(known: np.ndarray | None) -> np.ndarray:
        fixed = corrected(
            feats, plates_above(tiers), *estimate_plate_loss(feats, plates_above(tiers), known)
        )
        return match_distance(fixed, fixed)

    told = distances(sets)
    assert told[h6p, c2q] < told[h6p, g8s]
    # A token nobody vouches for (a new one) may match any set: the sets stay apart.
    unvouched = distances(np.where(np.arange(len(sets)) == 6, -1, sets))
    assert unvouched[h6p, c2q] < unvouched[h6p, g8s]


def test_sets_that_never_meet_across_tiers_say_nothing():
    feats = np.array([f for *_, f in _GAME_TOKENS], np.float32)
    tiers = np.array([3, 0, 0, 0, 0, 1, 1])
    assert estimate_plate_loss(feats, plates_above(tiers), np.array([0, 1, 1, 1, 1, 2, 2])) is None
    assert (
        estimate_plate_loss(feats, plates_above(tiers), np.array([0, 1, 1, 1, 1, 2, -1]))
        is not None
    )


def test_tokens_that_cannot_tell_leave_their_colours_alone():
    """Black tokens look the same through any plates that add no light: with nothing to
    tell the candidates apart, no correction is made up."""
    feats = features(np.zeros((8, 3)))
    tiers = np.array([0, 0, 0, 0, 3, 3, 3, 3])
    loss = estimate_plate_loss(feats, plates_above(tiers))
    assert loss[0] == 1.0 and np.array_equal(loss[1], np.zeros(3))
    assert np.allclose(corrected(feats, plates_above(tiers), *loss), feats, atol=1e-3)


def test_tinted_added_light_is_undone():
    """Acrylic and the room it reflects are rarely neutral: a cyan wash turns a green set
    below towards cyan, which no grey added light undoes (a held-out scene of the vision
    bench where a brown set below ran into an orange one)."""
    green, brown, white = [4.0, -12.0, 14.8], [5.5, 11.4, 14.3], [0.3, -0.5, 17.8]
    tiers = np.tile(np.arange(4), 6)
    true = np.array([green] * 8 + [brown] * 8 + [white] * 8, np.float32)
    cyan = np.array([21.0, 20.0, 15.0])  # B, G, R grey levels per plate
    seen = _seen_through_plates(true, tiers, 0.88, cyan)
    transmission, added = estimate_plate_loss(seen, plates_above(tiers))
    assert added[2] < added[1] - 3 and added[2] < added[0] - 3
    fixed = corrected(seen, plates_above(tiers), transmission, added)
    assert np.median(match_distance(fixed, true).diagonal()) < 0.25
    grey = corrected(seen, plates_above(tiers), transmission, np.full(3, added.mean()))
    assert np.median(match_distance(grey, true).diagonal()) > 0.5
