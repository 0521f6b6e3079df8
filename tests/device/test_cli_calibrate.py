"""``boardcam render`` then ``boardcam calibrate`` end to end, and every kind of bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from calibration.calibfile import load_calibration
from calibration.camera import CameraModel
from calibration.spec import load_spec
from device.cli import main
from rules.timevectors.points import parse_point


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("render")
    assert (
        main(
            [
                "render",
                "--out",
                str(out),
                "--seed",
                "4",
                "--count",
                "2",
                "--tokens",
                "30",
                "--size",
                "800x600",
                "--empty",
                "--click-noise",
                "1.0",
                "--hand",
            ]
        )
        == 0
    )
    return out


def test_render_writes_frames_with_ground_truth(rendered, capsys) -> None:
    names = sorted(p.name for p in rendered.iterdir())
    assert names == [
        "frame_00004.json",
        "frame_00004.png",
        "frame_00004_clicks.json",
        "frame_00004_empty.png",
        "frame_00005.json",
        "frame_00005.png",
        "frame_00005_clicks.json",
        "frame_00005_empty.png",
    ]
    truth = json.loads((rendered / "frame_00004.json").read_text())
    assert truth["image"] == "frame_00004.png" and truth["size"] == [800, 600]
    assert len(truth["tokens"]) == 30 and all(parse_point(name) >= 0 for name in truth["tokens"])
    assert len(truth["visibility"]) == 256 and truth["hand"] is True
    assert set(truth["hidden"]) == {n for n, v in truth["visibility"].items() if v < 0.5}
    camera = CameraModel.from_dict(truth["camera"])
    clicks = json.loads((rendered / "frame_00004_clicks.json").read_text())
    true_p_nw = camera.project(np.array([load_spec().landmarks(0)["NW"]]))[0]
    assert np.linalg.norm(np.array(clicks["P"]["NW"]) - true_p_nw) < 6  # 1 px noise


def test_calibrate_from_rendered_clicks(rendered, tmp_path, capsys) -> None:
    out = tmp_path / "calib.json"
    status = main(
        [
            "calibrate",
            "--board",
            "timevectors",
            "--image",
            str(rendered / "frame_00004_empty.png"),
            "--clicks",
            str(rendered / "frame_00004_clicks.json"),
            "--out",
            str(out),
        ]
    )
    printed = capsys.readouterr().out
    assert status == 0
    assert "reprojection error" in printed and "px RMS over 16 landmarks" in printed
    rms = float(printed.split("reprojection error ")[1].split(" px")[0])
    assert 0.2 < rms < 3.0  # the clicks carry 1 px of noise
    calibration = load_calibration(out)
    truth = CameraModel.from_dict(json.loads((rendered / "frame_00004.json").read_text())["camera"])
    centres = load_spec().point_centres()
    assert (
        np.linalg.norm(calibration.camera.project(centres) - truth.project(centres), axis=1).max()
        < 3
    )
    assert calibration.reference_image().shape[1] == 640  # the empty board, downscaled


def test_calibrate_with_aruco_markers(tmp_path, capsys) -> None:
    frames = tmp_path / "frames"
    assert main(["render", "--out", str(frames), "--seed", "7", "--tokens", "0", "--aruco"]) == 0
    out = tmp_path / "calib.json"
    assert (
        main(
            ["calibrate", "--image", str(frames / "frame_00007.png"), "--aruco", "--out", str(out)]
        )
        == 0
    )
    assert "landmarks" in capsys.readouterr().out
    truth = CameraModel.from_dict(json.loads((frames / "frame_00007.json").read_text())["camera"])
    centres = load_spec().point_centres()
    assert (
        np.linalg.norm(
            load_calibration(out).camera.project(centres) - truth.project(centres), axis=1
        ).max()
        < 2
    )


def _calibrate(rendered, tmp_path, *extra: str) -> int:
    return main(
        [
            "calibrate",
            "--image",
            str(rendered / "frame_00005_empty.png"),
            "--out",
            str(tmp_path / "c.json"),
            *extra,
        ]
    )


def test_bad_clicks_exit_2_with_the_reason(rendered, tmp_path, capsys) -> None:
    clicks = json.loads((rendered / "frame_00005_clicks.json").read_text())
    del clicks["R"]
    path = tmp_path / "clicks.json"
    path.write_text(json.dumps(clicks))
    assert _calibrate(rendered, tmp_path, "--clicks", str(path)) == 2
    assert "tier R is missing" in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize(
    "setup, message",
    [
        (lambda d: ["--clicks", str(d / "nothing.json")], "cannot read it"),
        (lambda d: ["--clicks", str(_write(d / "x.json", "{broken"))], "not valid JSON"),
        (lambda d: [], "either --clicks"),
        (lambda d: ["--aruco"], "found 0 corner marker"),
        (lambda d: ["--aruco", "--clicks", str(d / "x.json")], "either --clicks"),
        (
            lambda d: [
                "--aruco",
                "--spec",
                str(_write(d / "s.toml", "version = 1\nboard = 'gryb'\n")),
            ],
            "spec is for board 'gryb'",
        ),
    ],
)
def test_calibrate_input_errors(rendered, tmp_path, capsys, setup, message: str) -> None:
    assert _calibrate(rendered, tmp_path, *setup(tmp_path)) == 2
    assert message in capsys.readouterr().err


def test_unreadable_image_is_refused(tmp_path, capsys) -> None:
    (tmp_path / "clicks.json").write_text("{}")
    assert (
        main(
            [
                "calibrate",
                "--image",
                str(tmp_path / "none.png"),
                "--clicks",
                str(tmp_path / "clicks.json"),
                "--out",
                str(tmp_path / "c.json"),
            ]
        )
        == 2
    )
    assert "cannot read image" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--size", "big"], "not WIDTHxHEIGHT"),
        (["--size", "20x10"], "out of range"),
        (["--tokens", "106"], "--tokens must be 0..105"),
        (["--count", "0"], "--count must be at least 1"),
        (["--click-noise", "-1"], "cannot be negative"),
        (["--board", "gryb", "--twist", "2"], "the bandanna has no plates to turn"),
    ],
)
def test_render_input_errors(tmp_path, capsys, args: list[str], message: str) -> None:
    assert main(["render", "--out", str(tmp_path / "o"), *args]) == 2
    assert message in capsys.readouterr().err


def _write(path, text: str):
    path.write_text(text)
    return path


def test_render_can_write_the_exact_calibration(tmp_path) -> None:
    out = tmp_path / "frames"
    assert (
        main(
            [
                "render",
                "--out",
                str(out),
                "--seed",
                "9",
                "--tokens",
                "5",
                "--size",
                "640x480",
                "--calibration",
            ]
        )
        == 0
    )
    assert (out / "frame_00009_empty.png").exists()
    calibration = load_calibration(out / "frame_00009_calibration.json")
    truth = CameraModel.from_dict(json.loads((out / "frame_00009.json").read_text())["camera"])
    assert calibration.camera.to_dict() == truth.to_dict() and calibration.rms_px == 0.0
    assert calibration.reference_image().shape == (480, 640, 3)


def test_a_board_with_turned_plates_is_rendered_calibrated_and_read(tmp_path, capsys) -> None:
    """``render --twist`` turns the upper plates as a real board's may be; ``calibrate`` finds
    the turns (and says them), and ``analyze`` reads the tokens with that calibration."""
    out = tmp_path / "frames"
    render = ["render", "--out", str(out), "--seed", "5", "--tokens", "30", "--twist", "3",
              "--click-noise", "1.5", "--empty"]
    assert main(render) == 0
    truth = json.loads((out / "frame_00005.json").read_text())
    twist = truth["tier_twist_deg"]
    assert twist[0] == 0.0 and max(abs(t) for t in twist) > 1.0
    capsys.readouterr()
    calibration_path = tmp_path / "calib.json"
    assert main(["calibrate", "--board", "timevectors", "--image", str(out / "frame_00005_empty.png"),
                 "--clicks", str(out / "frame_00005_clicks.json"), "--out", str(calibration_path)]) == 0
    printed = capsys.readouterr().out
    assert "plates turned on the post against tier P (degrees): Q " in printed
    calibration = load_calibration(calibration_path)
    assert np.abs(np.subtract(calibration.spec.tier_twist_deg, twist)).max() < 0.2
    assert main(["analyze", "--calibration", str(calibration_path), str(out / "frame_00005.png"), "--json"]) == 0
    read = json.loads(capsys.readouterr().out)
    visible = {name for name, v in truth["visibility"].items() if v >= 0.5}
    assert {p for p in read["tokens"] if p in visible} == {p for p in truth["tokens"] if p in visible}


def test_the_calibration_bench_prints_its_figures_for_straight_and_turned_plates(capsys) -> None:
    assert main(["bench", "calibration", "--scenes", "1", "--seed", "2", "--twist", "3"]) == 0
    out = capsys.readouterr().out
    assert "refine from printed grid (1640x1232, plates turned)" in out
    for plates in ("straight plates", "plates turned up to 3 deg"):
        line = next(text for text in out.splitlines() if f"2 px click noise, {plates}:" in text)
        refined = float(line.split(" px (")[-1].split(")")[0])  # the worst refined scene
        clicked = float(line.split(f"{plates}: ")[1].split(" px")[0])
        assert refined < 2.0 and refined < clicked


@pytest.mark.parametrize(
    "command", [["render", "--out", "unused"], ["bench", "calibration"], ["bench", "vision"]]
)
@pytest.mark.parametrize("value", ["12", "-1", "nan", "two"])
def test_a_plate_twist_out_of_reach_is_refused_clearly(command, value, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main([*command, "--twist", value])
    assert stop.value.code == 2
    said = (
        "'two' is not a number of degrees"
        if value == "two"
        else f"a plate turns 0 to 10 degrees, not {value}"
    )
    assert f"argument --twist: {said}" in capsys.readouterr().err
