"""The observer's parts on their own: frame sampling, the gathered pixels and the questions
asked of point masks, the change from the empty board, the sensor noise, the texture test and
the plates' wash (synthetic inputs; the observer's tests read rendered boards through them)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.camera import CameraModel
from calibration.colours import ColourModel, features, match_distance
from calibration.plate_colour import washed
from calibration.spec import load_spec
from vision.change import (
    FAINT_DISTANCE,
    FOREGROUND_DISTANCE,
    change_evidence,
    cores_moved,
    feature_distance,
)
from vision.footprint import N_POINTS, PixelSets, build_footprints
from vision.frame_sampling import FrameSampler, shrink
from vision.gathered import BEHIND_LINE, SIDE, GatheredPixels
from vision.hands import HandGrid
from vision.plate_wash import PLATE_FOLLOW, PlateWash
from vision.sensor_noise import MAX_NOISE, SensorNoise, robust_sigma
from vision.stats import grouped_median
from vision.texture import TextureCheck

SPEC = load_spec()
SETTINGS = settings(max_examples=40, deadline=None)


@pytest.fixture(scope="module")
def pixels() -> GatheredPixels:
    camera = CameraModel.looking_at((0, 0, 150), 950, 50, 30, (640, 480))
    fp = build_footprints(camera, SPEC)
    return GatheredPixels(fp, HandGrid.over(fp.board_mask, 3000).flat)


# ------------------------------------------------------------------ frame sampling


def test_exact_halvings_gather_from_the_shrunk_frame():
    rng = np.random.default_rng(1)
    frame = rng.integers(0, 256, (240, 320, 3), np.uint8)
    positions = np.array([0, 17, 999, 160 * 120 - 1])
    sampler = FrameSampler((320, 240), (160, 120), (0.5, 0.5), positions)
    assert sampler.shrink_first
    planes = sampler.sample(frame)
    expected = shrink(frame, (160, 120)).reshape(-1, 3)[positions].T
    assert planes.shape == (3, 4) and planes.dtype == np.float32
    assert np.array_equal(planes, expected.astype(np.float32))


def test_other_sizes_average_a_two_by_two_spread_inside_each_working_pixel():
    rng = np.random.default_rng(2)
    frame = rng.integers(0, 256, (300, 400, 3), np.uint8)
    sampler = FrameSampler((400, 300), (240, 180), (0.6, 0.6), np.array([0, 241, 240 * 180 - 1]))
    assert not sampler.shrink_first
    planes = sampler.sample(frame)
    for column, working in enumerate((0, 241, 240 * 180 - 1)):
        x, y = working % 240, working // 240
        spread = [
            frame[min(int((y + fy) / 0.6), 299), min(int((x + fx) / 0.6), 399)]
            for fy in (0.25, 0.75)
            for fx in (0.25, 0.75)
        ]
        assert np.allclose(planes[:, column], np.mean(spread, axis=0), atol=1e-4)


def test_reading_before_any_frame_is_a_clear_error():
    sampler = FrameSampler((320, 240), (160, 120), (0.5, 0.5), np.array([0]))
    with pytest.raises(RuntimeError, match="no frame"):
        sampler.read_at(sampler.indices(np.array([5])))


# ------------------------------------------------------------------ gathered pixels


def brute_nearest_tier(pixels: GatheredPixels, points: np.ndarray) -> np.ndarray:
    out = np.full(len(pixels.positions), -1)
    tier = pixels.footprints.tier
    sil = pixels.silhouette
    for point in np.flatnonzero(points):
        mine = sil.index[sil.point == point]
        out[mine] = np.maximum(out[mine], tier[point])
    return out


@SETTINGS
@given(seed=st.integers(0, 10_000), count=st.integers(0, 40))
def test_the_nearest_tier_is_the_highest_silhouette_over_each_pixel(pixels, seed, count):
    points = np.zeros(N_POINTS, bool)
    points[np.random.default_rng(seed).choice(N_POINTS, count, replace=False)] = True
    nearest = pixels.nearest_tier(points)
    assert np.array_equal(nearest, brute_nearest_tier(pixels, points))
    assert np.array_equal(pixels.covered(points), nearest >= 0)
    farthest = pixels.nearest_tier(points, farthest=True)
    covered = nearest >= 0
    assert (farthest[covered] <= nearest[covered]).all() and (farthest[~covered] == 4).all()
    owner = pixels.nearest_owner(points)
    assert np.array_equal(owner >= 0, covered)
    assert np.array_equal(pixels.footprints.tier[owner[covered]], nearest[covered])


def test_answers_kept_for_the_same_points_cannot_be_written_to(pixels):
    points = np.zeros(N_POINTS, bool)
    points[[3, 77, 140]] = True
    first = pixels.nearest_tier(points)
    assert pixels.nearest_tier(points.copy()) is first
    with pytest.raises(ValueError):
        first[0] = 2


@SETTINGS
@given(seed=st.integers(0, 10_000))
def test_shares_lie_between_nothing_and_all(pixels, seed):
    mask = np.random.default_rng(seed).random(len(pixels.positions)) < 0.3
    for core in (False, True):
        share = pixels.share_on(mask, core=core)
        assert share.shape == (N_POINTS,) and (share >= 0).all() and (share <= 1).all()
    assert (
        pixels.share_on(np.ones(len(pixels.positions), bool))[pixels.silhouette.count > 0] == 1
    ).all()


def test_in_line_is_symmetric_and_a_token_fills_its_core_not_its_ring(pixels):
    far, near = pixels.in_line_far, pixels.in_line_near
    assert len(far) and (far != near).all()
    one = np.zeros(N_POINTS, bool)
    one[far[0]] = True
    assert pixels.in_line_with(one)[near[0]]
    other = np.zeros(N_POINTS, bool)
    other[near[0]] = True
    assert pixels.in_line_with(other)[far[0]]
    point = int(np.argmax(pixels.core.count))
    changed = np.zeros(len(pixels.positions), bool)
    changed[pixels.core.index[pixels.core.point == point]] = True
    count, fit = pixels.fit_to(changed)
    assert count[point] == pixels.core.count[point] and fit[point] == pytest.approx(1.0)
    changed[pixels.ring.index[pixels.ring.point == point]] = True
    assert pixels.fit_to(changed)[1][point] < 1.0


def test_each_point_s_texture_samples_are_its_top_and_its_side_below_it(pixels):
    """Each texture sample belongs to its key's point: a top part to that point's top-disc
    samples, a side to its core samples off the top disc; behind-a-line parts are those a
    printed line of a plate above crosses."""
    point_of, part = pixels.part_key // 4, pixels.part_key % 4
    top = part != SIDE
    top_pairs = set(zip(pixels.top.point.tolist(), pixels.top.index.tolist()))
    core_pairs = set(zip(pixels.core.point.tolist(), pixels.core.index.tolist()))
    tops = set(zip(point_of[top].tolist(), pixels.part_samples[top].tolist()))
    sides = set(zip(point_of[~top].tolist(), pixels.part_samples[~top].tolist()))
    assert tops == top_pairs
    assert sides and sides <= core_pairs and not sides & top_pairs
    lines = pixels.footprints.line_tier[pixels.positions[pixels.top.index]]
    assert np.array_equal(pixels.top_part == BEHIND_LINE, lines > pixels.top_tier)


# ------------------------------------------------------------------ change and noise


@SETTINGS
@given(
    chroma=st.tuples(st.floats(-5, 5), st.floats(-5, 5)),
    light=st.floats(-8, 8),
    weight=st.floats(0, 1),
)
def test_darkening_weighs_less_and_evidence_ramps_between_faint_and_sure(chroma, light, weight):
    delta = np.array([[chroma[0], chroma[1], light]])
    full = feature_distance(delta)[0]
    weighed = feature_distance(delta, weight)[0]
    assert full == pytest.approx(np.sqrt(chroma[0] ** 2 + chroma[1] ** 2 + light**2))
    if light >= 0:
        assert weighed == pytest.approx(full)
    else:
        assert weighed <= full + 1e-9
    ramp = change_evidence(np.array([FAINT_DISTANCE, (FAINT_DISTANCE + FOREGROUND_DISTANCE) / 2]))
    assert ramp.tolist() == [0.0, 0.5]
    assert change_evidence(np.array([full]))[0] == pytest.approx(
        np.clip((full - FAINT_DISTANCE) / (FOREGROUND_DISTANCE - FAINT_DISTANCE), 0, 1)
    )


def test_a_point_is_read_again_when_a_quarter_of_its_core_moved():
    core = PixelSets.from_lists([np.arange(8), np.arange(8, 12)])
    largest = np.zeros(12, np.float32)
    largest[:2] = 10.0  # a quarter of point 0's core, beyond 4 x noise 2
    largest[8] = 7.9  # under the bar for point 1
    moved = cores_moved(core, largest, 2.0)
    assert moved.tolist() == [True, False]
    largest[1] = 0.0  # one eighth of point 0's core: under a quarter
    assert cores_moved(core, largest, 2.0).tolist() == [False, False]


def test_the_noise_is_a_robust_spread_within_bounds():
    rng = np.random.default_rng(3)
    residual = np.abs(rng.normal(0, 2.5, 20_000))
    assert robust_sigma(residual) == pytest.approx(2.5, rel=0.05)
    residual[:2000] = 80.0  # a tenth of the samples changed (tokens): they move it little
    assert 2.5 < robust_sigma(residual) < 2.5 * 1.2
    assert robust_sigma(np.zeros(10)) == 1.0
    assert robust_sigma(np.full(10, 100.0)) == MAX_NOISE
    assert robust_sigma(np.zeros(0)) == MAX_NOISE


def _noise_model() -> tuple[SensorNoise, np.ndarray]:
    rng = np.random.default_rng(4)
    reference = np.full((60, 80, 3), 120, np.uint8)
    reference[:, 40:] = rng.integers(0, 256, (60, 40, 3))  # a detailed half
    positions = np.arange(60 * 80)
    px = reference.reshape(-1, 3).astype(np.float32)
    return SensorNoise(px, reference, positions, positions[::2]), reference


def test_detail_classes_split_the_samples_and_each_measures_its_own_noise():
    noise, _ = _noise_model()
    flat, detailed = noise.detail_class[:30], noise.detail_class[60 * 80 - 30 :]
    assert flat.max() < detailed.min()
    rng = np.random.default_rng(5)
    samples = np.arange(0, 60 * 80, 2)
    sigma = np.where(noise.detail_class[samples] >= 2, 4.0, 1.5)
    residual = np.abs(rng.normal(0, 1, (len(samples), 3))) * sigma[:, None]
    noise.measure(residual, np.zeros_like(residual, bool))
    assert noise.detail_sigmas[0] == pytest.approx(1.5, rel=0.1)
    assert noise.detail_sigmas[-1] == pytest.approx(4.0, rel=0.1)
    assert noise.of_detail(np.array([0]))[0] == noise.detail_sigmas[noise.detail_class[0]]


@SETTINGS
@given(chroma2=st.floats(0, 400), light=st.floats(-20, 20), grow=st.floats(1.0, 3.0))
def test_a_bigger_change_stands_out_at_least_as_far(chroma2, light, grow):
    noise, _ = _noise_model()
    pixel = np.array([100])
    small = noise.beyond(np.array([chroma2]), np.array([light]), pixel)[0]
    big = noise.beyond(np.array([chroma2 * grow * grow]), np.array([light * grow]), pixel)[0]
    assert big or not small
    louder = noise.beyond(
        np.array([chroma2]), np.array([light]), pixel, sigma=np.array([noise.sigma * grow])
    )[0]
    assert small or not louder


# ------------------------------------------------------------------ texture


def test_a_shadow_keeps_the_printed_texture_and_a_plain_top_replaces_it():
    rng = np.random.default_rng(6)
    n = 64
    samples = np.arange(n)
    key = np.zeros(n, np.int64)  # all point 0's surface
    reference = rng.normal(0, 3, n).astype(np.float32)  # texture, in brightness units
    check = TextureCheck(samples, key, reference, np.full(n, 100.0, np.float32))
    shadowed = reference * 0.7 - 2.0
    replaced, plain = check.replaced(shadowed, sigma=1.0)
    assert not replaced[0] and not plain[0]
    token_top = np.full(n, 1.5, np.float32) + rng.normal(0, 0.02, n).astype(np.float32)
    replaced, plain = check.replaced(token_top, sigma=1.0)
    assert replaced[0] and plain[0]
    # Samples a shadow was taken out of do not testify: with all of them out, nothing is seen.
    replaced, plain = check.replaced(token_top, sigma=1.0, shadowed=np.ones(n, bool))
    assert not replaced[0] and not plain[0]


# ------------------------------------------------------------------ plates' wash


def test_without_a_learned_wash_sets_are_compared_as_they_are():
    wash = PlateWash(np.array([0.0, 1.0, 2.0] + [0.0] * (N_POINTS - 3)))
    seen = np.array([[1.0, 2.0, 3.0], [0.5, 0.0, -1.0]])
    protos = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], np.float32)
    assert np.allclose(wash.distances(seen, np.array([0, 1]), protos), match_distance(seen, protos))
    assert np.array_equal(wash.through(seen), seen)


@SETTINGS
@given(transmission=st.floats(0.6, 0.95), added=st.floats(0.0, 20.0), seed=st.integers(0, 1000))
def test_a_learned_wash_compares_each_set_where_the_token_lies(transmission, added, seed):
    rng = np.random.default_rng(seed)
    plates = np.tile([0.0, 1.0, 2.0, 3.0], N_POINTS // 4)
    wash = PlateWash(plates)
    wash.loss = (transmission, np.full(3, added))
    protos = features(rng.uniform(40, 180, (2, 3))).astype(np.float32)
    points = np.arange(8)
    seen = washed(np.repeat(protos[:1], 8, axis=0), plates[points], transmission, added)
    distance = wash.distances(seen, points, protos)
    # (float32 logarithms differ by a hundredth of a unit or so between array lengths; a
    # token's colour is told from a set's at half a unit, COLOUR_RAMP)
    assert np.allclose(distance[:, 0], 0.0, atol=0.05)
    assert np.allclose(wash.through(np.tile(seen, (N_POINTS // 8, 1)))[:8], protos[0], atol=0.05)
    assert wash.sets_as_seen(protos) is wash.sets_as_seen(protos.copy())  # (one wash per loss)


def test_the_learned_wash_follows_new_estimates_and_unwashes_colours_founded_before_it(
    monkeypatch,
):
    plates = np.tile([0.0, 1.0, 2.0, 3.0], N_POINTS // 4)
    wash = PlateWash(plates)
    colours = ColourModel(palette=None, reference_balance=np.ones(3, np.float32), max_colours=3)
    colours.prototypes[0] = np.array([0.2, -0.1, 1.0], np.float32)
    wash.note_unplated({0: 2.0})
    assert wash.unsure(5, colours) == {0: pytest.approx(1.5 * abs(plates[5] - 2.0))}
    estimates = iter([(0.8, np.full(3, 10.0)), (0.6, np.full(3, 20.0))])
    monkeypatch.setattr("vision.plate_wash.estimate_plate_loss", lambda *args: next(estimates))
    seen = np.zeros((N_POINTS, 3))
    wash.learn(seen, np.array([1, 2]), np.array([0, 0]), colours)
    assert wash.loss[0] == 0.8 and not wash.unplated and wash.unsure(5, colours) == {}
    unwashed = colours.prototypes[0].copy()
    assert not np.allclose(unwashed, [0.2, -0.1, 1.0])  # (undone as behind two plates)
    wash.learn(seen, np.array([1, 3]), np.array([0, 0]), colours)
    assert wash.loss[0] == pytest.approx(0.8 + PLATE_FOLLOW * (0.6 - 0.8))
    assert np.array_equal(colours.prototypes[0], unwashed)  # (only the first estimate does)


def test_grouped_medians_are_each_points_upper_median():
    groups = np.array([0, 0, 0, 0, 2, 2, 2])
    values = np.array([[4.0], [1.0], [3.0], [2.0], [9.0], [7.0], [8.0]])
    median, count = grouped_median(groups, values)
    assert median[0, 0] == 3.0 and median[2, 0] == 8.0 and count[:3].tolist() == [4, 0, 3]
