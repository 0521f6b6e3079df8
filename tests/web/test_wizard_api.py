"""The calibration wizard's API: capture, grid preview per click set, colour samples, save."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.calibfile import load_calibration
from calibration.spec import load_spec
from rules.timevectors.points import POINTS, point_coords
from tests.web.fake_runtime import FakeRuntime, landmark_pixels, photograph

PIN = {"X-Boardcam-Pin": "2468"}


def capture(client) -> str:
    response = client.post("/api/wizard/capture")
    assert response.status_code == 200
    assert (response.json["width"], response.json["height"]) == (800, 600)
    return response.json["capture"]


def true_centres(runtime: FakeRuntime, tier: int) -> np.ndarray:
    spec = load_spec()
    points = [p for p in POINTS if point_coords(p)[2] == tier]
    return runtime.camera_model.project(np.array([spec.point_centre(p) for p in points]))


def test_capture_image_is_the_frame(client):
    capture_id = capture(client)
    response = client.get(f"/api/wizard/capture/{capture_id}.jpg")
    assert response.status_code == 200
    assert response.mimetype == "image/jpeg"
    assert response.data[:2] == b"\xff\xd8"


def test_only_the_newest_capture_is_kept(client):
    old = capture(client)
    capture(client)
    response = client.get(f"/api/wizard/capture/{old}.jpg")
    assert response.status_code == 410
    assert "capture a new frame" in response.json["error"]


def test_one_tier_previews_its_grid_where_the_camera_sees_it(client, runtime: FakeRuntime):
    capture_id = capture(client)
    clicks = {"Q": landmark_pixels(runtime.camera_model)["Q"]}
    answer = client.post("/api/wizard/fit", json={"capture": capture_id, "clicks": clicks}).json
    assert answer["complete"] is False
    assert list(answer["tiers"]) == ["Q"]
    tier = answer["tiers"]["Q"]
    assert len(tier["centres"]) == 64 and len(tier["names"]) == 64
    assert all(name.endswith("Q") for name in tier["names"])
    # a tier is a plane and the camera has no distortion: the homography is exact
    assert np.abs(np.array(tier["centres"]) - true_centres(runtime, 1)).max() < 0.2
    assert len(tier["lines"]) == 40  # 2 x 2 grids x 5 lines x 2 directions


def test_incomplete_tier_draws_nothing_yet(client, runtime: FakeRuntime):
    capture_id = capture(client)
    corners = landmark_pixels(runtime.camera_model)["P"]
    clicks = {"P": {"NW": corners["NW"], "NE": corners["NE"]}}
    answer = client.post("/api/wizard/fit", json={"capture": capture_id, "clicks": clicks}).json
    assert answer == {"complete": False, "tiers": {}}


def test_all_sixteen_landmarks_fit_the_camera(client, runtime: FakeRuntime):
    capture_id = capture(client)
    clicks = landmark_pixels(runtime.camera_model)
    answer = client.post("/api/wizard/fit", json={"capture": capture_id, "clicks": clicks}).json
    assert answer["complete"] is True
    assert answer["rms_px"] < 0.5
    assert sorted(answer["tiers"]) == ["P", "Q", "R", "S"]
    for tier, letter in enumerate("PQRS"):
        assert np.abs(np.array(answer["tiers"][letter]["centres"]) - true_centres(runtime, tier)).max() < 1.0


def test_refused_fit_is_reported_as_problem(client, runtime: FakeRuntime):
    capture_id = capture(client)
    clicks = landmark_pixels(runtime.camera_model)
    clicks["R"]["NW"], clicks["R"]["SE"] = clicks["R"]["SE"], clicks["R"]["NW"]
    answer = client.post("/api/wizard/fit", json={"capture": capture_id, "clicks": clicks}).json
    assert answer["complete"] is False
    assert answer["problem"]
    assert "R" in answer["tiers"]


@pytest.mark.parametrize(
    ("clicks", "message"),
    [
        ([1, 2], "'clicks' must be an object"),
        ({"X": {}}, "'X' is not a tier"),
        ({"P": {"N": [1, 2]}}, "'N' is not a corner"),
        ({"P": {"NW": [1]}}, "must be [u, v]"),
        ({"P": {"NW": ["1", 2]}}, "must be [u, v]"),
        ({"P": {"NW": [True, 2]}}, "must be [u, v]"),
        ({"P": {"NW": [900, 10]}}, "outside the 800x600 frame"),
    ],
)
def test_bad_clicks(client, clicks, message):
    capture_id = capture(client)
    response = client.post("/api/wizard/fit", json={"capture": capture_id, "clicks": clicks})
    assert response.status_code == 400
    assert message in response.json["error"]


def test_sample_colours_of_tokens(client, runtime: FakeRuntime):
    capture_id = capture(client)
    spec = load_spec()
    u, v = runtime.camera_model.project(np.array([spec.point_centre(0)]))[0]
    answer = client.post("/api/wizard/sample", json={"capture": capture_id, "taps": [[u, v]]}).json
    r, g, b = answer["colours"][0]
    assert r > 180 and g < 80 and b < 80  # the fake draws a red token at A1P


@pytest.mark.parametrize("taps", [[], [[1]], "x", [[float("nan"), 1]], [[5000, 5]]])
def test_bad_taps(client, taps):
    capture_id = capture(client)
    assert client.post("/api/wizard/sample", json={"capture": capture_id, "taps": taps}).status_code == 400


@pytest.mark.parametrize("twist", [(0.0, 0.0, 0.0, 0.0), (0.0, 1.8, -1.2, 2.4)])
def test_save_writes_a_calibration_file_the_pipeline_loads(client, runtime: FakeRuntime, calibration_path, twist):
    from calibration.refraction import through_plates

    built, clicks = photograph(runtime, twist)
    capture_id = capture(client)
    body = {"capture": capture_id, "clicks": clicks, "palette": [[220, 40, 40], [40, 120, 220]]}
    response = client.post("/api/calibration", json=body, headers=PIN)
    assert response.status_code == 200, response.json
    assert response.json["path"] == str(calibration_path)
    loaded = load_calibration(calibration_path)
    assert loaded.board == "timevectors"
    assert loaded.palette_rgb == ((220, 40, 40), (40, 120, 220))
    assert loaded.reference_image() is not None
    # Refined from the printed grid: every point where the camera sees it, plates turned or not
    # (the bottom tier, small at 800x600, tells its own turn to a few tenths of a degree; the
    # camera's pose makes up the rest).
    assert np.abs(np.subtract(loaded.spec.tier_twist_deg, twist)).max() < 0.4
    seen = through_plates(loaded.camera, loaded.spec).project(loaded.spec.point_centres())
    truth = through_plates(runtime.camera_model, built).project(built.point_centres())
    assert np.abs(seen - truth).max() < 1.0
    (name, (given,)), = runtime.calls
    assert name == "set_calibration" and given.camera.image_size == (800, 600)


def test_save_without_pin_writes_nothing(client, runtime: FakeRuntime, calibration_path):
    capture_id = capture(client)
    response = client.post("/api/calibration", json={"capture": capture_id, "clicks": landmark_pixels(runtime.camera_model)})
    assert response.status_code == 401
    assert not calibration_path.exists()
    assert runtime.calls == []


@pytest.mark.parametrize(
    ("change", "status", "message"),
    [
        (lambda b: b["clicks"].pop("S"), 400, "missing: S"),
        (lambda b: b.update(palette=[[1, 2]]), 400, "[r, g, b]"),
        (lambda b: b.update(palette=[[1, 2, 300]]), 400, "0..255"),
        (lambda b: b.update(palette=[[1, 2, 3]] * 4), 400, "at most 3"),
        (lambda b: b.update(capture="old"), 410, "capture"),
    ],
)
def test_save_refuses_bad_bodies(client, runtime: FakeRuntime, calibration_path, change, status, message):
    body = {"capture": capture(client), "clicks": landmark_pixels(runtime.camera_model), "palette": []}
    change(body)
    response = client.post("/api/calibration", json=body, headers=PIN)
    assert response.status_code == status
    assert message in response.json["error"]
    assert not calibration_path.exists()
    assert runtime.calls == []


def test_save_refuses_an_impossible_fit(client, runtime: FakeRuntime, calibration_path):
    clicks = landmark_pixels(runtime.camera_model)
    clicks["P"], clicks["S"] = clicks["S"], clicks["P"]
    response = client.post("/api/calibration", json={"capture": capture(client), "clicks": clicks}, headers=PIN)
    assert response.status_code == 422
    assert not calibration_path.exists()


def test_calibration_summary(client):
    assert client.get("/api/calibration").json == {"loaded": False}


def test_grid_lines_run_along_the_printed_marking():
    from web.calibration_preview import grid_lines_xy

    lines = grid_lines_xy(load_spec())
    assert lines.shape == (40, 6, 2)
    assert lines.min() == -115 and lines.max() == 115  # the outer corners of the 8x8 marking
    # every line lies on a cell edge: west/south grid edges -115..-15, east/north 15..115
    edges = {-115.0, -90.0, -65.0, -40.0, -15.0, 15.0, 40.0, 65.0, 90.0, 115.0}
    for line in lines:
        fixed = 0 if np.ptp(line[:, 0]) == 0 else 1
        assert line[0, fixed] in edges
        assert np.ptp(line[:, 1 - fixed]) == 100  # each line spans one 4x4 grid
