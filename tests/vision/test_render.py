"""Ground-truth sanity of the synthetic renderer: occlusion, visibility, token pixels, hands."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.camera import CameraModel
from calibration.refraction import through_plates
from calibration.spec import load_spec
from rules.timevectors.points import parse_point
from vision.footprint import build_footprints
from vision.render import HandSpec, SceneStyle, random_scene, render_timevectors

SPEC = load_spec("timevectors")
COLOURS = [(200, 30, 40), (40, 150, 60), (30, 70, 190)]
# No camera defects, glare or shadows: colours at token tops are only shaded by the light.
PLAIN = SceneStyle(
    noise_sigma=0.0, blur_sigma=0.0, vignette=0.0, gradient=0.0, reflection=0.0, shadow_strength=0.0
)


def _camera(
    elevation: float = 45.0, azimuth: float = 20.0, size: tuple[int, int] = (960, 720)
) -> CameraModel:
    return CameraModel.looking_at((0.0, 0.0, 150.0), 1100.0, elevation, azimuth, size)


def _disc_mask(camera: CameraModel, point: int) -> np.ndarray:
    """Pixels of the top disc of a token at ``point`` (seen through the plates above it),
    rasterised independently of the renderer."""
    angles = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    cx, cy, cz = SPEC.point_centre(point)
    r = SPEC.token_diameter / 2
    ring = np.column_stack(
        [cx + r * np.cos(angles), cy + r * np.sin(angles), np.full(48, cz + SPEC.token_height)]
    )
    mask = np.zeros(camera.image_size[::-1], np.uint8)
    seen = through_plates(camera, SPEC).project(ring)
    cv2.fillConvexPoly(mask, np.round(seen).astype(np.int32), 1)
    return mask.astype(bool)


def _best_stacked_pair(camera: CameraModel) -> tuple[int, int, float]:
    """Points on tiers P and Q whose discs overlap most in the image, and the covered fraction."""
    centres = camera.project(SPEC.point_centres() + [0, 0, SPEC.token_height])
    lower_points = [p for p in range(256) if p // 16 % 4 == 0]
    upper_points = [p for p in range(256) if p // 16 % 4 == 1]
    lower, upper = min(
        ((a, b) for a in lower_points for b in upper_points),
        key=lambda ab: np.linalg.norm(centres[ab[0]] - centres[ab[1]]),
    )
    below = _disc_mask(camera, lower)
    return lower, upper, float((_disc_mask(camera, upper) & below).sum() / below.sum())


def test_empty_board_every_point_visible_from_above() -> None:
    camera = CameraModel.looking_at((0.0, 0.0, 150.0), 1200.0, 89.0, 0.0, (960, 720))
    rendered = render_timevectors(camera, SPEC, {}, COLOURS, scene=PLAIN)
    assert rendered.image_bgr.shape == (720, 960, 3)
    assert rendered.image_bgr.dtype == np.uint8
    # Looking almost straight down only the post hides anything.
    assert (rendered.visibility > 0.5).sum() >= 240
    assert not rendered.hand_mask.any()
    assert (rendered.token_labels == -1).all()


def test_token_on_upper_tier_hides_the_point_below_it() -> None:
    camera = _camera()
    lower, upper, overlap = _best_stacked_pair(camera)
    assert overlap > 0.6  # the scene really has a token right in front of another
    alone = render_timevectors(camera, SPEC, {lower: 0}, COLOURS, scene=PLAIN)
    covered = render_timevectors(camera, SPEC, {lower: 0, upper: 1}, COLOURS, scene=PLAIN)
    assert alone.visibility[lower] > 0.9
    assert covered.visibility[lower] < 0.5
    assert covered.visibility[upper] > 0.9
    # The visibility is computed for empty points too: the same point, now empty, stays hidden.
    empty_below = render_timevectors(camera, SPEC, {upper: 1}, COLOURS, scene=PLAIN)
    assert empty_below.visibility[lower] == pytest.approx(covered.visibility[lower], abs=0.02)


def test_post_hides_points_behind_it() -> None:
    # Camera to the south-west: E5P (north-east of the post) is behind the post.
    camera = _camera(elevation=40.0, azimuth=315.0)
    rendered = render_timevectors(camera, SPEC, {parse_point("E5P"): 2}, COLOURS, scene=PLAIN)
    assert rendered.visibility[parse_point("E5P")] < 0.5
    assert rendered.visibility[parse_point("A1S")] > 0.95


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_visible_token_centre_lands_on_its_own_pixels_in_its_colour(seed: int) -> None:
    camera, style, colours = random_scene(seed, size=(960, 720))
    rng = np.random.default_rng(seed)
    tokens = {int(p): int(rng.integers(3)) for p in rng.choice(256, 50, replace=False)}
    rendered = render_timevectors(camera, SPEC, tokens, colours, scene=PLAIN, seed=seed)
    shadowed = render_timevectors(camera, SPEC, tokens, colours, scene=style, seed=seed)
    assert np.array_equal(rendered.visibility, shadowed.visibility)
    centres = camera.project(SPEC.point_centres())
    checked = 0
    for point, colour in tokens.items():
        if rendered.visibility[point] < 0.95:
            continue
        u, v = np.round(centres[point]).astype(int)
        assert rendered.token_labels[v, u] == point
        # Median over the token's pixels: a plate edge or printed line above may cross it.
        pixel = np.median(rendered.image_bgr[rendered.token_labels == point][:, ::-1], axis=0)
        chroma = [np.asarray(c, float) / (np.sum(c) + 1) for c in colours]
        seen = pixel / (pixel.sum() + 1)
        if np.ptp([np.linalg.norm(c - chroma[colour]) for c in chroma]) > 0.1:
            assert int(np.argmin([np.linalg.norm(seen - c) for c in chroma])) == colour
        checked += 1
    assert checked >= 20


def test_hand_hides_what_it_covers() -> None:
    camera = _camera()
    target = parse_point("C3R")
    rendered = render_timevectors(
        camera,
        SPEC,
        {target: 0},
        COLOURS,
        scene=PLAIN,
        hand=HandSpec(target_point=target, edge="bottom"),
    )
    assert rendered.hand_mask.sum() > 5000
    for point in range(256):
        disc = _disc_mask(camera, point)
        covered = (disc & rendered.hand_mask).sum() / max(1, disc.sum())
        assert rendered.visibility[point] <= 1.0 - covered + 0.08


def test_same_seed_same_image_and_styles_change_the_image() -> None:
    camera = _camera()
    tokens = {parse_point("A1P"): 0, parse_point("H8S"): 2}
    first = render_timevectors(camera, SPEC, tokens, COLOURS, seed=4)
    again = render_timevectors(camera, SPEC, tokens, COLOURS, seed=4)
    assert np.array_equal(first.image_bgr, again.image_bgr)
    jpeg = render_timevectors(
        camera, SPEC, tokens, COLOURS, seed=4, scene=SceneStyle(jpeg_quality=40)
    )
    assert not np.array_equal(first.image_bgr, jpeg.image_bgr)


def test_random_scenes_keep_every_landmark_in_frame_and_camera_in_range() -> None:
    for seed in range(12):
        camera, style, colours = random_scene(seed)
        assert len(colours) == 3 and len(set(colours)) == 3
        eye = camera.centre_mm()
        elevation = np.degrees(np.arctan2(eye[2] - 150, np.hypot(eye[0], eye[1])))
        assert 30 < elevation < 75
        landmarks = np.array([xyz for tier in range(4) for xyz in SPEC.landmarks(tier).values()])
        px = camera.project(landmarks)
        assert (px >= 0).all() and (px[:, 0] < 1280).all() and (px[:, 1] < 960).all()


@pytest.mark.parametrize(
    "tokens, message", [({256: 0}, "points are 0..255"), ({3: 3}, "only 3 colours")]
)
def test_bad_tokens_are_refused(tokens: dict[int, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        render_timevectors(_camera(), SPEC, tokens, COLOURS)


def test_hand_from_a_chosen_edge_reaches_the_chosen_pixel() -> None:
    camera = _camera()
    rendered = render_timevectors(
        camera,
        SPEC,
        {},
        COLOURS,
        scene=PLAIN,
        hand=HandSpec(target_uv=(400.0, 300.0), edge="left", sleeve_rgb=(40, 40, 120)),
    )
    mask = rendered.hand_mask
    assert mask[290:310, 380:420].any()  # the fingertips end at the target
    assert mask[:, 0].any() and not mask[:, -1].any()  # the arm comes in from the left edge
    assert not mask[:, 470:].any()  # and nothing reaches past the fingertips


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: HandSpec(edge="middle"), "hand edge 'middle'"),
        (lambda: HandSpec(scale=0), "hand scale must be positive"),
        (lambda: SceneStyle(table_kind="glass"), "table kind 'glass'"),
        (lambda: SceneStyle(jpeg_quality=0), "JPEG quality must be 1..100"),
    ],
)
def test_bad_styles_are_refused(make, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


def test_camera_below_the_top_tier_is_refused() -> None:
    low = CameraModel.looking_at((0.0, 0.0, 150.0), 600.0, 10.0, 0.0, (640, 480))
    with pytest.raises(ValueError, match="from above its top tier"):
        render_timevectors(low, SPEC, {}, COLOURS)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 1000), extra=st.integers(0, 255))
def test_adding_a_token_never_uncovers_another_point(seed: int, extra: int) -> None:
    camera, _, colours = random_scene(seed, size=(640, 480))
    rng = np.random.default_rng(seed)
    tokens = {int(p): int(rng.integers(3)) for p in rng.choice(256, 30, replace=False)}
    tokens.pop(extra, None)
    before = render_timevectors(camera, SPEC, tokens, colours, scene=PLAIN).visibility
    after = render_timevectors(camera, SPEC, {**tokens, extra: 0}, colours, scene=PLAIN).visibility
    others = np.arange(256) != extra
    assert np.all(after[others] <= before[others] + 1e-9)
    assert after[extra] == pytest.approx(before[extra])  # a token does not hide itself


def test_a_token_seen_past_the_plates_above_it_is_not_washed_by_them() -> None:
    """The renderer tints what lies behind each plate's outline in the image, and the
    footprints count the plates each token's rays cross in 3D: two independent accounts of
    one geometry, which must agree on which tokens the plates wash."""
    camera = _camera(elevation=60.0, azimuth=0.0)
    fp = build_footprints(camera, SPEC)
    bottom = np.flatnonzero((fp.tier == 0) & (fp.in_image > 0.99) & (fp.post_visibility > 0.99))
    past = bottom[fp.plates_above[bottom] == 0]
    behind = bottom[fp.plates_above[bottom] == 3]
    top = np.flatnonzero((fp.tier == 3) & (fp.in_image > 0.99) & (fp.post_visibility > 0.99))
    assert len(past) and len(behind) and len(top)
    chosen = {int(past[0]): 0, int(behind[len(behind) // 2]): 0, int(top[len(top) // 2]): 0}
    style = replace(PLAIN, plate_alpha=0.2, plate_tint_rgb=(255, 255, 255), ambient=1.0)
    rendered = render_timevectors(camera, SPEC, chosen, [(20, 40, 120)], scene=style)
    seen = {p: np.median(rendered.image_bgr[rendered.token_labels == p], axis=0) for p in chosen}
    plain, washed = seen[int(top[len(top) // 2])], seen[int(behind[len(behind) // 2])]
    assert np.abs(seen[int(past[0])] - plain).max() <= 6
    assert (washed - plain).min() >= 30
