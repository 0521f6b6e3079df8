"""The bandanna renderer: exact node ground truth, the wrinkle field, rings and hands."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.camera import CameraModel
from calibration.gryb_spec import load_gryb_spec
from rules.gryb.nodes import NODES
from vision.gryb_render import (
    BandannaStyle,
    Wrinkles,
    plane_homography,
    random_bandanna_scene,
    random_wrinkles,
    render_bandanna,
)
from vision.render_hand import HandSpec

SPEC = load_gryb_spec()
WRINKLES = random_wrinkles(4, SPEC, amplitude_mm=10.0, folds=4)
TOP = CameraModel.looking_at((0.0, 0.0, 0.0), 900.0, 90.0, 0.0, (640, 480), 60.0)


@pytest.fixture(scope="module")
def scene() -> tuple:
    camera, style, wrinkles = random_bandanna_scene(5, (960, 720), SPEC)
    rings = {NODES.index(n): c for n, c in (("GGBY", 0), ("R", 1), ("", 0), ("YBRG", 1))}
    return (
        camera,
        style,
        wrinkles,
        render_bandanna(camera, SPEC, rings, style=style, wrinkles=wrinkles, seed=5),
    )


def _hue(bgr: np.ndarray) -> float:
    return float(cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2HSV)[0, 0, 0]) * 2


class TestWrinkles:
    def test_flat_cloth_does_not_move(self) -> None:
        points = SPEC.node_positions()
        assert Wrinkles.flat(SPEC).to_table(points) == pytest.approx(points)

    def test_amplitude_is_about_what_was_asked(self) -> None:
        assert 9.0 < WRINKLES.max_shift_mm() < 16.0  # the asked creep plus stretch and folds

    @settings(max_examples=50, deadline=None)
    @given(st.floats(-280, 280), st.floats(-280, 280))
    def test_to_cloth_inverts_to_table(self, x: float, y: float) -> None:
        cloth = np.array([[x, y]])
        back = WRINKLES.to_cloth(WRINKLES.to_table(cloth).astype(np.float32))
        assert back == pytest.approx(cloth, abs=0.02)

    def test_negative_amplitude_is_refused(self) -> None:
        with pytest.raises(ValueError):
            random_wrinkles(1, SPEC, amplitude_mm=-1.0)


class TestGroundTruth:
    def test_flat_nodes_project_through_the_plane(self) -> None:
        rendered = render_bandanna(TOP, SPEC, {}, seed=1)
        positions = np.column_stack([SPEC.node_positions(), np.zeros(341)])
        assert rendered.nodes_px == pytest.approx(TOP.project(positions))

    def test_plane_homography_agrees_with_the_camera(self) -> None:
        camera, _, _ = random_bandanna_scene(2, (640, 480), SPEC)
        points = SPEC.node_positions()
        mapped = np.column_stack([points, np.ones(341)]) @ plane_homography(camera).T
        assert mapped[:, :2] / mapped[:, 2:] == pytest.approx(
            camera.project(np.column_stack([points, np.zeros(341)]))
        )

    def test_each_true_node_pixel_shows_its_spot_colour(self, scene: tuple) -> None:
        *_, rendered = scene
        image = cv2.GaussianBlur(rendered.image_bgr, (0, 0), 1.0)
        nominal = {
            c: _hue(np.array(rgb[::-1], np.uint8))
            for c, rgb in zip("GRYB", BandannaStyle().spot_rgb)
        }
        misses = 0
        for i, node in enumerate(NODES[1:], start=1):
            u, v = np.round(rendered.nodes_px[i]).astype(int)
            gap = abs((_hue(image[v, u]) - nominal[node[-1]] + 180) % 360 - 180)
            misses += gap > 25
        assert misses == 0

    def test_landmarks_are_the_corner_leaves(self, scene: tuple) -> None:
        *_, rendered = scene
        clicks = rendered.landmarks_px()
        assert list(clicks) == ["GGGG", "RRRR", "YYYY", "BBBB"]
        assert clicks["RRRR"] == pytest.approx(list(rendered.nodes_px[NODES.index("RRRR")]))


class TestPicture:
    def test_frame_is_an_8_bit_colour_image_of_the_camera_size(self, scene: tuple) -> None:
        *_, rendered = scene
        assert rendered.image_bgr.shape == (720, 960, 3) and rendered.image_bgr.dtype == np.uint8
        assert rendered.rings == {
            NODES.index("GGBY"): 0,
            NODES.index("R"): 1,
            0: 0,
            NODES.index("YBRG"): 1,
        }

    def test_a_ring_changes_its_band_but_not_its_spot(self, scene: tuple) -> None:
        camera, style, wrinkles, rendered = scene
        empty = render_bandanna(camera, SPEC, {}, style=style, wrinkles=wrinkles, seed=5)
        node = NODES.index("GGBY")
        u, v = np.round(rendered.nodes_px[node]).astype(int)
        scale = (
            np.linalg.norm(rendered.nodes_px[node] - rendered.nodes_px[NODES.index("GGBR")]) / 30.0
        )
        band = round(8.5 * scale)
        diff = cv2.absdiff(rendered.image_bgr, empty.image_bgr).max(axis=2).astype(int)
        assert diff[v - 1 : v + 2, u - 1 : u + 2].mean() < 25
        assert (
            np.mean([diff[v, u + band], diff[v, u - band], diff[v + band, u], diff[v - band, u]])
            > 40
        )

    def test_same_seed_same_picture(self) -> None:
        a = render_bandanna(TOP, SPEC, {3: 1}, seed=2).image_bgr
        b = render_bandanna(TOP, SPEC, {3: 1}, seed=2).image_bgr
        assert np.array_equal(a, b)

    def test_noise_seed_changes_only_the_noise(self) -> None:
        a = render_bandanna(TOP, SPEC, {}, seed=2, noise_seed=1).image_bgr.astype(int)
        b = render_bandanna(TOP, SPEC, {}, seed=2, noise_seed=2).image_bgr.astype(int)
        assert 0 < np.abs(a - b).mean() < 4

    def test_hand_hides_the_rings_under_it(self) -> None:
        target = NODES.index("RRGY")
        rendered = render_bandanna(
            TOP, SPEC, {target: 0}, hand=HandSpec(target_point=target), seed=3
        )
        assert rendered.hand_mask.any()
        assert rendered.visibility[target] < 0.5
        assert rendered.visibility[NODES.index("BBBB")] == 1.0

    @pytest.mark.parametrize(
        ("rings", "message"), [({341: 0}, "nodes are 0..340"), ({5: 2}, "colour 0 or 1")]
    )
    def test_bad_rings_are_refused(self, rings: dict, message: str) -> None:
        with pytest.raises(ValueError, match=message):
            render_bandanna(TOP, SPEC, rings)

    def test_style_needs_four_spot_colours_and_two_rings(self) -> None:
        with pytest.raises(ValueError):
            BandannaStyle(spot_rgb=((1, 2, 3),))  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            BandannaStyle(ring_rgb=((1, 2, 3),))  # type: ignore[arg-type]


class TestSceneFiles:
    def test_scene_document_names_nodes_and_matches_the_pictures(self) -> None:
        from vision.gryb_render import render_bandanna_scene

        scene = render_bandanna_scene(6, (640, 480), 7, hand=True)
        truth = scene["truth"]
        assert scene["image"].shape == scene["empty"].shape == (480, 640, 3)
        assert len(truth["rings"]) == 7 and set(truth["rings"].values()) == {0, 1}
        assert (
            len(truth["nodes_px"]) == len(truth["visibility"]) == 341 and "0" in truth["nodes_px"]
        )
        assert truth["hand"] and set(truth["hidden"]) <= set(truth["nodes_px"])
        assert scene["clicks"]["GGGG"] == truth["nodes_px"]["GGGG"]
        assert not np.array_equal(scene["image"], scene["empty"])

    def test_scene_ring_count_is_checked(self) -> None:
        from vision.gryb_render import render_bandanna_scene

        with pytest.raises(ValueError, match="0..341"):
            render_bandanna_scene(1, (640, 480), 342)
