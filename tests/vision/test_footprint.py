"""Footprints: per-point pixel sets, depth order, occlusion and the post (geometry only)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.camera import CameraModel
from calibration.spec import load_spec
from rules.timevectors.points import parse_point
from vision.footprint import PixelSets, RimPairs, build_footprints, working_size

SPEC = load_spec()


@pytest.fixture(scope="module")
def oblique():
    camera = CameraModel.looking_at((0, 0, 150), 950, 50, 30, (640, 480))
    return camera, build_footprints(camera, SPEC)


def test_every_point_in_view_has_core_top_and_ring(oblique):
    _, fp = oblique
    seen = (fp.in_image > 0.99) & (fp.post_visibility > 0.5)
    assert seen.sum() > 200
    assert (fp.core.count[seen] > 0).all() and (fp.top.count[seen] > 0).all()
    assert (fp.ring.count[seen] > 0).all()


def test_ring_and_core_never_touch_the_same_pixels(oblique):
    _, fp = oblique
    for p in range(256):
        ring = set(fp.ring.index[fp.ring.point == p].tolist())
        sil = set(fp.silhouette.index[fp.silhouette.point == p].tolist())
        core = set(fp.core.index[fp.core.point == p].tolist())
        assert not ring & sil
        assert core <= sil


def test_pixels_the_post_stands_in_front_of_belong_to_no_point_behind_it(oblique):
    camera, fp = oblique
    post = np.zeros((fp.size[1], fp.size[0]), np.uint8)
    outline = (fp.post_polygon + 0.5) * np.asarray(fp.scale) - 0.5
    cv2.fillConvexPoly(post, np.round(outline * 16).astype(np.int32), 1, shift=4)
    on_post = post.reshape(-1).astype(bool)
    eye = camera.centre_mm()[:2]
    behind = np.hypot(*(SPEC.point_centres()[:, :2] - eye).T) > np.hypot(*eye)
    on_post_per_point = np.bincount(fp.core.point, weights=on_post[fp.core.index], minlength=256)
    assert on_post_per_point[behind].sum() == 0
    assert on_post_per_point[~behind].sum() > 0, (
        "points in front of the post keep the pixels over it"
    )
    assert (fp.post_visibility[behind] < 0.9).any(), "the camera sees some points behind the post"


def test_upper_tiers_are_nearer_the_camera(oblique):
    _, fp = oblique
    for column in "ADEH":
        depths = [fp.depth[parse_point(f"{column}2{tier}")] for tier in "PQRS"]
        assert depths == sorted(depths, reverse=True)


def test_empty_board_visibility_is_post_and_frame_only(oblique):
    _, fp = oblique
    vis = fp.token_visibility(np.zeros(256, bool))
    np.testing.assert_allclose(vis, fp.post_visibility * fp.in_image)
    assert (fp.post_visibility < 1).any(), "the post hides something from an oblique camera"
    assert (fp.post_visibility > 0.99).mean() > 0.85, "only points near the post are affected"


def test_overlap_rows_name_a_nearer_point(oblique):
    _, fp = oblique
    far, near, fraction = (
        fp.overlap[:, 0].astype(int),
        fp.overlap[:, 1].astype(int),
        fp.overlap[:, 2],
    )
    assert len(far) > 0
    assert (fp.depth[near] < fp.depth[far]).all()
    assert ((fraction > 0) & (fraction <= 1)).all()


def test_token_straight_above_hides_the_points_below():
    camera = CameraModel.looking_at((0, 0, 150), 4000, 89.5, 0, (640, 480), horizontal_fov_deg=12)
    fp = build_footprints(camera, SPEC)
    occupied = np.zeros(256, bool)
    occupied[parse_point("C3S")] = True
    vis = fp.token_visibility(occupied)
    assert vis[parse_point("C3S")] == pytest.approx(1.0)
    for tier in "PQR":
        assert vis[parse_point(f"C3{tier}")] < 0.5
    assert vis[parse_point("B3R")] == pytest.approx(1.0)


def test_camera_looking_away_is_refused():
    camera = CameraModel(
        K=np.eye(3) * [500, 500, 1],
        dist=np.zeros(5),
        rvec=np.zeros(3),
        tvec=[0, 0, -5000],
        image_size=(640, 480),
    )
    with pytest.raises(ValueError, match="does not look at the board"):
        build_footprints(camera, SPEC)


def test_working_size_keeps_discs_readable_and_respects_the_reference():
    camera = CameraModel.looking_at((0, 0, 150), 700, 55, 0, (1640, 1232))
    w, h = working_size(camera, SPEC)
    assert w <= 1640 and abs(w / h - 1640 / 1232) < 0.01
    assert working_size(camera, SPEC, max_width=400)[0] == 400
    fp = build_footprints(camera, SPEC, (w, h))
    assert np.sqrt(fp.disc_area) >= 8  # about ten pixels across


@st.composite
def pixel_sets(draw):
    counts = draw(st.lists(st.integers(0, 30), min_size=1, max_size=6))
    per_point = [
        np.array(draw(st.lists(st.integers(0, 99), min_size=c, max_size=c)), np.int64)
        for c in counts
    ]
    return PixelSets.from_lists(per_point), per_point


@settings(max_examples=60, deadline=None)
@given(pixel_sets(), st.integers(1, 12))
def test_property_thinned_is_an_even_subset(data, cap):
    sets, per_point = data
    thin = sets.thinned(cap)
    for p, original in enumerate(per_point):
        kept = thin.index[thin.point == p]
        assert len(kept) <= max(cap, 1) + 1 and (len(original) == 0) == (len(kept) == 0)
        assert np.isin(kept, original).all()
        if len(original) <= cap:
            np.testing.assert_array_equal(kept, original)


@settings(max_examples=60, deadline=None)
@given(pixel_sets(), st.lists(st.integers(0, 99), max_size=60))
def test_property_within_and_tally(data, universe):
    sets, per_point = data
    universe = np.unique(np.array(universe, np.int64))
    inside = sets.within(universe)
    for p, original in enumerate(per_point):
        np.testing.assert_array_equal(
            inside.index[inside.point == p], original[np.isin(original, universe)]
        )
    labels = (np.arange(100) % 3).astype(np.int64)
    counts = sets.tally(labels, 3)
    assert counts.shape == (len(per_point), 3)
    np.testing.assert_array_equal(counts.sum(axis=1), sets.count)
    for p, original in enumerate(per_point):
        np.testing.assert_array_equal(counts[p], np.bincount(labels[original], minlength=3))


@settings(max_examples=60, deadline=None)
@given(pixel_sets(), st.data())
def test_property_select_gives_the_chosen_points_pixels_in_point_order(data, draw):
    sets, per_point = data
    chosen = np.array(
        draw.draw(st.lists(st.booleans(), min_size=len(per_point), max_size=len(per_point)))
    )
    expected = [original for p, original in enumerate(per_point) if chosen[p]]
    np.testing.assert_array_equal(
        sets.select(chosen), np.concatenate(expected) if expected else np.zeros(0, np.int64)
    )


def test_pixel_sets_out_of_point_order_are_refused():
    with pytest.raises(ValueError, match="point order"):
        PixelSets(index=np.array([5, 6]), point=np.array([1, 0]), count=np.array([1, 1]))


def test_rim_pairs_out_of_point_order_are_refused():
    with pytest.raises(ValueError, match="rim pair entries"):
        RimPairs(
            inside=np.array([5, 6]),
            outside=np.array([7, 8]),
            point=np.array([1, 0]),
            count=np.array([1, 1]),
        )


@pytest.mark.parametrize("seed", [4, 7])
def test_visibility_model_agrees_with_the_renderer_near_the_post_and_its_top_piece(seed):
    """The footprints' occlusion model (post, wider top piece, tokens) and the renderer's
    pixel-exact visibility describe the same board."""
    from vision.render import random_scene, render_timevectors

    camera, style, colours = random_scene(seed, (640, 480))
    tokens = {
        parse_point(name): i % 3 for i, name in enumerate(["D4S", "E5R", "D5Q", "E4P", "C3S"])
    }
    rendered = render_timevectors(camera, SPEC, tokens, colours, scene=style, seed=seed)
    occupied = np.zeros(256, bool)
    occupied[list(tokens)] = True
    model = build_footprints(camera, SPEC).token_visibility(occupied)
    assert np.abs(model - rendered.visibility).max() < 0.2


def test_a_spec_without_a_top_piece_size_has_one_as_wide_as_the_post():
    from calibration.spec import spec_from_values, spec_values

    values = spec_values(SPEC)
    del values["cap_diameter"]
    assert spec_from_values(values).cap_diameter == SPEC.post_diameter
    assert SPEC.cap_diameter > SPEC.post_diameter


def test_rim_pairs_straddle_each_tokens_outline(oblique):
    """The inside pixel of a rim pair lies on the token's silhouette, the outside one mostly off
    its core (the near half of the top's rim borders the wall), and no pair touches a printed
    line of a plate above the point."""
    _, fp = oblique
    rim = fp.rim
    assert np.median(rim.count) >= 16  # (lines of the plates above leave low points fewer)
    n_px = fp.size[0] * fp.size[1]
    silhouette = set((fp.silhouette.point * n_px + fp.silhouette.index).tolist())
    core = set((fp.core.point * n_px + fp.core.index).tolist())
    inside = (rim.point * n_px + rim.inside).tolist()
    outside = (rim.point * n_px + rim.outside).tolist()
    assert np.mean([k in silhouette for k in inside]) >= 0.95
    assert np.mean([k in core for k in outside]) <= 0.5
    tier = fp.tier[rim.point]
    assert (fp.line_tier[rim.inside] <= tier).all() and (fp.line_tier[rim.outside] <= tier).all()


def test_the_cut_edge_of_each_plate_lies_in_front_of_the_tiers_below(oblique):
    """The middle of each side of a plate's top face, and a point a third of the way down its
    side, are marked with that plate's tier (or a higher one's) in ``line_tier``."""
    camera, fp = oblique
    half = SPEC.plate_size / 2
    for tier in range(4):
        z = SPEC.tier_spacing * tier
        for x, y in ((0.0, half), (half, 0.0), (0.0, -half), (-half, 0.0)):
            for height in (z, z - SPEC.plate_thickness / 3):
                frame_px = camera.project(np.array([[x, y, height]]))[0]
                u, v = np.round((frame_px + 0.5) * fp.scale - 0.5).astype(int)
                if not (0 <= u < fp.size[0] and 0 <= v < fp.size[1]):
                    continue
                assert fp.line_tier[v * fp.size[0] + u] >= tier


def test_every_plate_above_a_point_is_in_front_of_it_seen_from_straight_above():
    camera = CameraModel.looking_at((0, 0, 150), 1400, 90, 0, (640, 480))
    fp = build_footprints(camera, SPEC)
    assert np.array_equal(fp.plates_above, 3 - fp.tier)


def test_seen_obliquely_the_front_points_of_a_lower_tier_are_seen_past_the_plates(oblique):
    """The higher plates' outlines shift back across the lower tiers: a token near a lower
    tier's front edge is seen past the plates above it (a navy token there showed no wash
    at all, while the colour model undid three plates' wash on it)."""
    _, fp = oblique
    assert (fp.plates_above >= 0).all() and (fp.plates_above <= 3 - fp.tier).all()
    assert (fp.plates_above[fp.tier == 3] == 0).all()
    bottom = fp.plates_above[fp.tier == 0]
    assert (bottom == 0).sum() >= 4  # the front row is seen past every plate
    assert (bottom == 3).sum() >= 4  # the back corner behind all three
    assert np.mean(bottom) < 2  # from 50 degrees up, most of it past at least one
    # Partly past an edge: a fraction of the disc's rays cross the plate.
    assert ((fp.plates_above % 1) > 0).any()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=5, max_size=5),
    st.lists(st.integers(0, 4), max_size=8),
)
def test_property_entries_of_points_asked_in_any_order_and_again(sizes, asked):
    """Each asked point's own entries, in turn, however often it is asked."""
    sets = PixelSets.from_lists([np.arange(n) + 10 * p for p, n in enumerate(sizes)])
    row, entry = sets.entries(np.array(asked, np.int64))
    expected = [(k, e) for k, p in enumerate(asked) for e in np.flatnonzero(sets.point == p)]
    assert list(zip(row.tolist(), entry.tolist())) == expected


@given(
    width=st.integers(1, 400),
    height=st.integers(1, 300),
    factor=st.sampled_from([1, 2, 4, 8]),
    seed=st.integers(0, 1000),
)
def test_working_pixels_go_back_to_the_frame_pixels_they_average(width, height, factor, seed):
    from vision.footprint import frame_to_working, working_to_frame

    flat = np.random.default_rng(seed).integers(0, width * height, 20)
    scale = (1.0 / factor, 1.0 / factor)
    frame = working_to_frame(flat, (width, height), scale)
    rows, columns = np.divmod(flat, width)
    np.testing.assert_allclose(frame_to_working(frame, scale), np.column_stack([columns, rows]))
    # The centre of a working pixel is the centre of the block of frame pixels it averages.
    np.testing.assert_allclose(frame, np.column_stack([columns, rows]) * factor + (factor - 1) / 2)
