"""Calibration files: round trip, migrations and every kind of corruption."""

from __future__ import annotations

import base64
import json
from dataclasses import replace

import numpy as np
import pytest

from calibration.calibfile import (
    CALIBRATION_VERSION,
    Calibration,
    CalibrationError,
    calibration_from_dict,
    load_calibration,
    save_calibration,
    upgrade,
)
from calibration.fit import fit_camera
from calibration.spec import spec_values
from tests.calibration.landmarks import SPEC, true_clicks
from vision.render import random_scene


def _calibration() -> Calibration:
    camera, _, _ = random_scene(2, size=(640, 480))
    clicks = true_clicks(camera, noise_px=0.7)
    fit = fit_camera(clicks, SPEC, camera.image_size)
    image = np.full((480, 640, 3), 120, np.uint8)
    image[100:200, 300:400] = (20, 200, 30)
    return Calibration(
        board="timevectors",
        spec=SPEC,
        camera=fit.camera,
        rms_px=fit.rms_px,
        palette_rgb=((200, 30, 40), (30, 160, 60)),
        landmarks=fit_clicks(clicks),
    ).with_reference(image)


def fit_clicks(clicks: dict) -> dict:
    return {t: {c: tuple(uv) for c, uv in corners.items()} for t, corners in clicks.items()}


def test_round_trip_keeps_everything(tmp_path) -> None:
    original = _calibration()
    path = tmp_path / "calib.json"
    save_calibration(original, path)
    loaded = load_calibration(path)
    assert loaded.camera.to_dict() == original.camera.to_dict()
    assert np.allclose(
        loaded.camera.project(SPEC.point_centres()), original.camera.project(SPEC.point_centres())
    )
    assert loaded.spec == SPEC and loaded.spec_name == "timevectors"
    assert loaded.palette_rgb == original.palette_rgb
    assert loaded.landmarks == original.landmarks
    assert loaded.rms_px == original.rms_px and loaded.created == original.created
    reference = loaded.reference_image()
    assert reference.shape == (480, 640, 3)
    assert abs(int(reference[150, 350, 1]) - 200) < 10  # the green patch survives JPEG
    assert json.loads(path.read_text())["version"] == CALIBRATION_VERSION


def test_reference_by_path_is_resolved_next_to_the_file(tmp_path) -> None:
    import cv2

    cv2.imwrite(str(tmp_path / "empty.png"), np.zeros((48, 64, 3), np.uint8))
    calibration = Calibration(
        board="timevectors",
        spec=SPEC,
        camera=_calibration().camera,
        rms_px=1.0,
        reference_path="empty.png",
    )
    save_calibration(calibration, tmp_path / "c.json")
    loaded = load_calibration(tmp_path / "c.json")
    assert loaded.reference_image(tmp_path).shape == (48, 64, 3)
    with pytest.raises(CalibrationError, match="cannot be read"):
        loaded.reference_image(tmp_path / "elsewhere")


def _document() -> dict:
    return _calibration().to_dict()


def _set(path: tuple, value: object):
    def corrupt(doc: dict) -> dict:
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return doc

    return corrupt


def _drop(key: str):
    def corrupt(doc: dict) -> dict:
        del doc[key]
        return doc

    return corrupt


@pytest.mark.parametrize(
    "corrupt, message",
    [
        (_set(("version",), 99), "version 99 is newer"),
        (_set(("version",), "1"), "no valid 'version'"),
        (_set(("version",), 0), "not a boardcam version"),
        (_drop("version"), "no valid 'version'"),
        (_set(("board",), "chess"), "board 'chess'; only 'timevectors'"),
        (_set(("board",), "gryb"), "calibration spec: level_offsets"),  # read as a bandanna
        (_drop("camera"), "camera"),
        (_set(("camera", "K"), [[1, 0], [0, 1]]), "K must have shape"),
        (
            _set(("camera", "K"), [[-5, 0, 320], [0, -5, 240], [0, 0, 1]]),
            "focal lengths must be positive",
        ),
        (
            _set(("camera", "K"), [[500, 0, 9000], [0, 500, 240], [0, 0, 1]]),
            "principal point inside",
        ),
        (_set(("camera", "dist"), [0.1, 0.2, 0.3]), "dist must have"),
        (_set(("camera", "rvec"), [0, "a", 0]), "rvec must be numbers"),
        (_set(("camera", "tvec"), [0, 0, float("nan")]), "tvec holds a value that is not a finite"),
        (_set(("camera", "tvec"), [0, 0, -900]), "behind the camera"),
        (_set(("camera", "image_size"), [320, 240]), "differs from the file's image_size"),
        (_set(("image_size",), [640]), "image_size must be two positive"),
        (_set(("reprojection_px",), -1), "non-negative"),
        (_set(("reprojection_px",), "small"), "reprojection_px"),
        (_set(("created",), "yesterday"), "not an ISO 8601 time"),
        (_set(("palette_rgb",), [[300, 0, 0]]), "palette_rgb"),
        (_set(("palette_rgb",), [[1, 2]]), "palette_rgb"),
        (_set(("landmarks",), {"P": {}}), "calibration landmarks"),
        (_set(("spec", "values", "tier_spacing"), -105), "physically impossible"),
        (_set(("spec", "values", "pitch"), "25"), "must be a number"),
        (_set(("spec", "name"), 7), "spec name"),
        (_set(("reference_image",), {"jpeg_base64": "@@@"}), "not valid base64"),
        (
            _set(("reference_image",), {"jpeg_base64": base64.b64encode(b"PNG....").decode()}),
            "does not hold a JPEG",
        ),
        (_set(("reference_image",), {"url": "http://x"}), "reference_image must be"),
    ],
)
def test_each_corruption_is_refused_with_a_clear_message(tmp_path, corrupt, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(corrupt(_document())))
    with pytest.raises(CalibrationError, match=message):
        load_calibration(path)


@pytest.mark.parametrize(
    "text, message",
    [
        ("{oops", "not valid JSON"),
        ("[1, 2]", "must hold a JSON object"),
        ("", "not valid JSON"),
    ],
)
def test_corrupt_json_is_refused(tmp_path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=message):
        load_calibration(path)


def test_unreadable_files_are_refused(tmp_path) -> None:
    with pytest.raises(CalibrationError, match="cannot read"):
        load_calibration(tmp_path / "nope.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(CalibrationError):
        load_calibration(tmp_path / "bin.json")


def test_migrations_run_once_per_version_bump() -> None:
    doc = _document()
    old = dict(doc, version=1)
    old["spec"] = {"name": "timevectors", "sizes": spec_values(SPEC)}  # pretend v1 used another key

    def one_to_two(document: dict) -> dict:
        document["spec"] = {
            "name": document["spec"]["name"],
            "values": document["spec"].pop("sizes"),
        }
        return document

    def two_to_three(document: dict) -> dict:
        document["note"] = "three"
        return document

    upgraded = upgrade(old, migrations={1: one_to_two, 2: two_to_three}, current=3)
    assert upgraded["version"] == 3 and upgraded["note"] == "three"
    assert upgraded["spec"]["values"] == spec_values(SPEC)
    with pytest.raises(CalibrationError, match="no migration from calibration version 2"):
        upgrade(dict(doc, version=2), migrations={1: one_to_two}, current=3)


def test_a_version_1_file_is_read_as_a_board_with_straight_plates(tmp_path) -> None:
    old = _document()
    old["version"] = 1
    del old["spec"]["values"]["tier_twist_deg"]  # version 1 knew no twists
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(old))
    loaded = load_calibration(path)
    assert loaded.spec.tier_twist_deg == (0.0, 0.0, 0.0, 0.0) and loaded.version == CALIBRATION_VERSION
    assert loaded.camera.to_dict() == calibration_from_dict(_document()).camera.to_dict()


def test_the_plates_twists_survive_a_round_trip(tmp_path) -> None:
    turned = replace(_calibration(), spec=SPEC.twisted((0.0, 1.25, -0.5, 2.0)))
    save_calibration(turned, tmp_path / "c.json")
    stored = json.loads((tmp_path / "c.json").read_text())
    assert stored["version"] == 2 and stored["spec"]["values"]["tier_twist_deg"] == [0.0, 1.25, -0.5, 2.0]
    assert load_calibration(tmp_path / "c.json").spec == turned.spec


@pytest.mark.parametrize(
    "twist, message",
    [([0, 1, 2], "must be 4 numbers"), ([0, 0, 30, 0], "within 10 degrees"), ("none", "must be 4 numbers")],
)
def test_impossible_twists_are_refused(tmp_path, twist, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_set(("spec", "values", "tier_twist_deg"), twist)(_document())))
    with pytest.raises(CalibrationError, match=f"calibration spec: tier_twist_deg.*{message}"):
        load_calibration(path)


def test_current_documents_pass_validation_from_a_dict() -> None:
    assert calibration_from_dict(_document()).board == "timevectors"


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

colour = st.tuples(*[st.integers(0, 255)] * 3)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    palette=st.none() | st.lists(colour, min_size=1, max_size=5),
    rms=st.floats(0, 50, allow_nan=False),
)
def test_any_calibration_survives_a_round_trip(seed: int, palette, rms: float) -> None:
    camera, _, _ = random_scene(seed, size=(640, 480))
    original = Calibration(
        board="timevectors",
        spec=SPEC,
        camera=camera,
        rms_px=rms,
        palette_rgb=None if palette is None else tuple(palette),
    )
    loaded = calibration_from_dict(json.loads(json.dumps(original.to_dict())))
    assert loaded.camera.to_dict() == original.camera.to_dict()
    assert loaded.palette_rgb == original.palette_rgb and loaded.rms_px == rms


def test_a_file_of_the_other_board_is_refused_when_the_board_is_given(tmp_path):
    from calibration.calibfile import CalibrationError, load_calibration

    path = tmp_path / "bandanna.json"
    path.write_text('{"version": 1, "board": "gryb"}', encoding="utf-8")
    with pytest.raises(CalibrationError, match=r"is for the gryb board, not timevectors \(add --board gryb\)"):
        load_calibration(path, board="timevectors")
