"""Bandanna calibration: corner clicks, the homography, the smooth field and refinement on
rendered wrinkled bandannas (node positions checked against the renderer's exact ground truth)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.gryb_fit import (
    GrybClicksError,
    SpotsError,
    apply_homography,
    corner_homography,
    field_offsets,
    find_spots,
    fit_bandanna,
    load_gryb_clicks,
    parse_gryb_clicks,
    px_per_mm,
    validate_gryb_clicks,
)
from calibration.gryb_spec import LANDMARKS, load_gryb_spec
from rules.gryb.nodes import COLOURS, NODES
from vision.gryb_render import random_bandanna_scene, render_bandanna

SPEC = load_gryb_spec()
SIZE = (1280, 960)
GOOD = {
    "GGGG": [300.0, 200.0],
    "RRRR": [980.0, 210.0],
    "YYYY": [1000.0, 800.0],
    "BBBB": [280.0, 790.0],
}


@pytest.fixture(scope="module")
def wrinkled() -> list:
    """Two rendered empty bandannas whose cloth one homography misplaces by about a centimetre."""
    out = []
    for seed in (3, 9):
        camera, style, wrinkles = random_bandanna_scene(seed, SIZE, SPEC, wrinkle_mm=11.0)
        out.append(render_bandanna(camera, SPEC, {}, style=style, wrinkles=wrinkles, seed=seed))
    return out


class TestClicks:
    def test_parse_gives_float_pairs(self) -> None:
        assert parse_gryb_clicks(GOOD) == {k: tuple(v) for k, v in GOOD.items()}

    @pytest.mark.parametrize(
        ("clicks", "message"),
        [
            ([1, 2], "must be an object"),
            ({k: v for k, v in GOOD.items() if k != "YYYY"}, "YYYY is missing"),
            ({**GOOD, "GGGB": [1, 2]}, "unknown corner"),
            ({**GOOD, "RRRR": [1]}, "two finite numbers"),
            ({**GOOD, "RRRR": [1, float("inf")]}, "two finite numbers"),
            ({**GOOD, "RRRR": ["1", 2]}, "two finite numbers"),
            ({**GOOD, "RRRR": [True, 2]}, "two finite numbers"),
        ],
    )
    def test_malformed_clicks_say_what_is_wrong(self, clicks: object, message: str) -> None:
        with pytest.raises(GrybClicksError, match=message):
            parse_gryb_clicks(clicks)

    def test_clicks_files(self, tmp_path) -> None:
        path = tmp_path / "clicks.json"
        path.write_text(json.dumps(GOOD))
        assert load_gryb_clicks(path) == parse_gryb_clicks(GOOD)
        path.write_text("{")
        with pytest.raises(GrybClicksError, match="not valid JSON"):
            load_gryb_clicks(path)
        with pytest.raises(GrybClicksError, match="cannot read"):
            load_gryb_clicks(tmp_path / "missing.json")

    def test_good_clicks_validate(self) -> None:
        validate_gryb_clicks(parse_gryb_clicks(GOOD), SIZE)

    @pytest.mark.parametrize(
        ("change", "message"),
        [
            ({"GGGG": [-5.0, 200.0]}, "off the 1280x960 image"),
            ({"RRRR": GOOD["BBBB"], "BBBB": GOOD["RRRR"]}, "wrong way round"),
            ({"GGGG": GOOD["RRRR"], "RRRR": GOOD["GGGG"]}, "cross over"),
            ({"RRRR": [301.0, 201.0]}, "same pixel"),
        ],
    )
    def test_impossible_clicks_are_refused(self, change: dict, message: str) -> None:
        with pytest.raises(GrybClicksError, match=message):
            validate_gryb_clicks(parse_gryb_clicks({**GOOD, **change}), SIZE)

    def test_fit_refuses_bad_clicks_before_looking_at_the_image(self) -> None:
        with pytest.raises(GrybClicksError):
            fit_bandanna(np.zeros((960, 1280, 3), np.uint8), {"GGGG": [1, 1]}, SPEC)


class TestHomography:
    def test_corners_map_to_the_clicks(self) -> None:
        clicks = parse_gryb_clicks(GOOD)
        homography = corner_homography(clicks, SPEC)
        mapped = apply_homography(homography, np.array([SPEC.landmarks()[n] for n in LANDMARKS]))
        assert mapped == pytest.approx(np.array([clicks[n] for n in LANDMARKS]), abs=1e-6)

    def test_scale_of_a_pure_scaling(self) -> None:
        homography = np.diag([2.0, 2.0, 1.0])
        assert px_per_mm(homography, np.zeros((3, 2))) == pytest.approx([2.0, 2.0, 2.0])


class TestField:
    @settings(max_examples=40, deadline=None)
    @given(st.lists(st.floats(-5, 5), min_size=2, max_size=2))
    def test_a_constant_offset_is_reproduced(self, offset: list[float]) -> None:
        known = SPEC.node_positions()[:85]
        got = field_offsets(known, np.tile(offset, (len(known), 1)), SPEC.node_positions(), 40.0)
        assert got == pytest.approx(np.tile(offset, (341, 1)), abs=1e-6)

    @settings(max_examples=30, deadline=None)
    @given(st.floats(-0.02, 0.02), st.floats(-0.02, 0.02), st.floats(-3, 3))
    def test_an_affine_offset_is_reproduced_closely(self, a: float, b: float, c: float) -> None:
        known = SPEC.node_positions()
        offsets = np.column_stack([a * known[:, 0] + c, b * known[:, 1] - c])
        got = field_offsets(known, offsets, known, 40.0, leave_one_out=True)
        assert np.abs(got - offsets).max() < 0.15  # the slope ridge costs a little exactness

    def test_no_known_points_means_no_offset(self) -> None:
        assert field_offsets(
            np.zeros((0, 2)), np.zeros((0, 2)), np.ones((4, 2)), 40.0
        ) == pytest.approx(0.0)


class TestRendered:
    def test_the_homography_alone_is_a_centimetre_off(self, wrinkled: list) -> None:
        """The premise of the refinement: without it nodes are many pixels off."""
        for rendered in wrinkled:
            homography = corner_homography(parse_gryb_clicks(rendered.landmarks_px()), SPEC)
            error = np.linalg.norm(
                apply_homography(homography, SPEC.node_positions()) - rendered.nodes_px, axis=1
            )
            scale = px_per_mm(homography, SPEC.node_positions()).mean()
            assert error.max() / scale > 8.0

    def test_every_node_is_located_within_a_few_pixels(self, wrinkled: list) -> None:
        for rendered in wrinkled:
            fit = fit_bandanna(rendered.image_bgr, rendered.landmarks_px(), SPEC)
            error = np.linalg.norm(fit.nodes_px - rendered.nodes_px, axis=1)
            assert error.max() < 3.0, (
                f"worst node {NODES[int(np.argmax(error))]} off by {error.max():.1f} px"
            )
            assert np.median(error) < 0.5
            assert fit.located_count >= 335
            assert 0 < fit.residual_px < 3.0

    def test_clicks_a_little_off_do_not_matter(self, wrinkled: list) -> None:
        rendered = wrinkled[0]
        rng = np.random.default_rng(1)
        clicks = {
            k: [u + rng.normal(0, 3), v + rng.normal(0, 3)]
            for k, (u, v) in rendered.landmarks_px().items()
        }
        fit = fit_bandanna(rendered.image_bgr, clicks, SPEC)
        assert np.linalg.norm(fit.nodes_px - rendered.nodes_px, axis=1).max() < 3.0

    def test_spots_are_classed_by_colour(self, wrinkled: list) -> None:
        rendered = wrinkled[1]
        homography = corner_homography(parse_gryb_clicks(rendered.landmarks_px()), SPEC)
        spots = find_spots(rendered.image_bgr, homography, SPEC)
        assert 330 <= len(spots.centroids) <= 345
        # The spot nearest each leaf's true position is of the leaf's colour.
        for i, node in enumerate(NODES):
            if len(node) == 4:
                nearest = int(
                    np.argmin(np.linalg.norm(spots.centroids - rendered.nodes_px[i], axis=1))
                )
                assert COLOURS[spots.classes[nearest]] == node[-1]

    def test_a_blank_picture_has_no_spots(self) -> None:
        grey = np.full((960, 1280, 3), 128, np.uint8)
        with pytest.raises(SpotsError, match="no printed spots"):
            fit_bandanna(grey, GOOD, SPEC)
