"""Bandanna calibration files: round trip through JSON, the reference picture, and refusals."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.calibfile import CalibrationError, load_calibration, save_calibration
from calibration.gryb_calibfile import (
    GrybCalibration,
    gryb_calibration_from_dict,
    load_gryb_calibration,
)
from calibration.gryb_fit import GrybFit
from calibration.gryb_spec import load_gryb_spec

SPEC = load_gryb_spec()
CLICKS = {
    "GGGG": (300.0, 200.0),
    "RRRR": (980.0, 210.0),
    "YYYY": (1000.0, 800.0),
    "BBBB": (280.0, 790.0),
}


def _calibration() -> GrybCalibration:
    rng = np.random.default_rng(0)
    image = cv2.GaussianBlur(rng.integers(0, 255, (240, 320, 3), dtype=np.uint8), (0, 0), 3)
    fit = GrybFit(
        homography=np.array([[1.2, 0.1, 160.0], [0.0, -1.1, 120.0], [0.0, 0.0, 1.0]]),
        nodes_px=rng.uniform(0, 300, (341, 2)),
        located=rng.random(341) > 0.1,
        residual_px=0.7,
    )
    return GrybCalibration.from_fit(
        fit, SPEC, image, CLICKS, palette_rgb=((20, 20, 20), (230, 110, 20))
    )


def test_round_trip_through_a_file(tmp_path) -> None:
    calibration = _calibration()
    path = tmp_path / "bandanna.json"
    save_calibration(calibration, path)
    loaded = load_gryb_calibration(path)
    assert loaded.board == "gryb" and loaded.spec == SPEC and loaded.image_size == (320, 240)
    assert loaded.nodes_px == pytest.approx(calibration.nodes_px, abs=1e-3)
    assert np.array_equal(loaded.located, calibration.located)
    assert loaded.homography == pytest.approx(calibration.homography)
    assert loaded.landmarks == CLICKS and loaded.palette_rgb == calibration.palette_rgb
    assert loaded.rms_px == calibration.rms_px and loaded.created == calibration.created


def test_the_general_loader_reads_a_bandanna_file_as_the_bandanna_loader_does(tmp_path) -> None:
    path = tmp_path / "bandanna.json"
    save_calibration(_calibration(), path)
    loaded = load_calibration(path)
    assert isinstance(loaded, GrybCalibration)
    assert loaded.to_dict() == load_gryb_calibration(path).to_dict()


def test_the_reference_is_kept_at_full_size() -> None:
    calibration = _calibration()
    reference = gryb_calibration_from_dict(
        json.loads(json.dumps(calibration.to_dict()))
    ).reference_image()
    assert reference.shape == (240, 320, 3)


def test_a_path_reference_is_read_beside_the_file(tmp_path) -> None:
    image = np.full((240, 320, 3), 90, np.uint8)
    cv2.imwrite(str(tmp_path / "empty.png"), image)
    document = {**_calibration().to_dict(), "reference_image": {"path": "empty.png"}}
    loaded = gryb_calibration_from_dict(document)
    assert np.array_equal(loaded.reference_image(tmp_path), image)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"board": "timevectors"}, "not the GRYB bandanna"),
        ({"version": 99}, "newer"),
        ({"spec": {"name": "gryb", "values": {"cloth_size": 560}}}, "calibration spec"),
        ({"image_size": [320]}, "image_size"),
        ({"homography": [[1, 0], [0, 1]]}, "homography"),
        ({"nodes_px": [[0, 0]] * 340}, "nodes_px"),
        ({"nodes_px": [[0, float("nan")]] * 341}, "finite"),
        ({"located": [1] * 341}, "located"),
        ({"reprojection_px": -1}, "reprojection_px"),
        ({"created": "yesterday"}, "ISO 8601"),
        ({"palette_rgb": [[1, 2, 3]]}, "two ring colours"),
        ({"landmarks": {"GGGG": [1, 2]}}, "landmarks"),
        ({"reference_image": {"jpeg_base64": "bm90IGEganBlZw=="}}, "does not hold a JPEG"),
        ({"reference_image": {"jpeg_base64": "%%%"}}, "not valid base64"),
        ({"reference_image": {"url": "x"}}, "reference_image"),
    ],
)
def test_bad_documents_name_the_field(change: dict, message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        gryb_calibration_from_dict({**_calibration().to_dict(), **change})


def test_unreadable_files_are_refused(tmp_path) -> None:
    with pytest.raises(CalibrationError, match="cannot read"):
        load_gryb_calibration(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(CalibrationError, match="not valid JSON"):
        load_gryb_calibration(tmp_path / "bad.json")
    with pytest.raises(CalibrationError, match="JSON object"):
        gryb_calibration_from_dict([1, 2])
