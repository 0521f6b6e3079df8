"""``--board gryb`` of ``render``, ``calibrate``, ``analyze`` and ``bench vision``, in-process."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.gryb_calibfile import load_gryb_calibration
from device.cli import main
from rules.gryb.nodes import NODES, node_name


def gryb(command: str, *args: str) -> int:
    """The exit status of ``boardcam COMMAND --board gryb ARGS...``, run in-process."""
    return main([command, "--board", "gryb", *args])


def calibrate_args(image: str, clicks: str, out: str) -> list[str]:
    """``calibrate``'s arguments for a picture of the empty bandanna and its clicks file."""
    return ["--image", image, "--clicks", clicks, "--out", out]


def calibrate_rendered(rendered: Path, out: Path) -> int:
    """Calibrate from the rendered scene's empty picture and clicks, written to ``out``."""
    args = calibrate_args(
        str(rendered / "frame_00003_empty.png"), str(rendered / "frame_00003_clicks.json"), str(out)
    )
    return gryb("calibrate", *args)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    """One rendered scene with its empty picture, truth and clicks, written by the CLI."""
    out = tmp_path_factory.mktemp("gryb")
    assert gryb("render", "--out", str(out), "--seed", "3", "--tokens", "25", "--empty") == 0
    return out


@pytest.fixture(scope="module")
def calibrated(rendered: Path) -> Path:
    path = rendered / "calibration.json"
    assert calibrate_rendered(rendered, path) == 0
    return path


def _truth(rendered: Path) -> dict:
    return json.loads((rendered / "frame_00003.json").read_text())


def test_render_writes_picture_truth_clicks_and_empty(rendered: Path, capsys) -> None:
    names = sorted(p.name for p in rendered.iterdir())
    assert {
        "frame_00003.png",
        "frame_00003.json",
        "frame_00003_clicks.json",
        "frame_00003_empty.png",
    } <= set(names)
    truth = _truth(rendered)
    assert truth["board"] == "gryb" and len(truth["rings"]) == 25 and len(truth["nodes_px"]) == 341
    assert set(json.loads((rendered / "frame_00003_clicks.json").read_text())) == {
        "GGGG",
        "RRRR",
        "YYYY",
        "BBBB",
    }


def test_calibrate_locates_every_node(rendered: Path, calibrated: Path) -> None:
    calibration = load_gryb_calibration(calibrated)
    truth = _truth(rendered)["nodes_px"]
    expected = np.array([truth[node_name(n)] for n in NODES])
    assert np.linalg.norm(calibration.nodes_px - expected, axis=1).max() < 3.0
    assert calibration.reference_image().shape[:2] == (960, 1280)


def test_calibrate_reports_what_it_found(rendered: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "c.json"
    assert calibrate_rendered(rendered, out) == 0
    text = capsys.readouterr().out
    assert "of 341 nodes located on their printed spots" in text and f"wrote {out}" in text


def test_analyze_reads_the_rings_by_node_name(
    rendered: Path, calibrated: Path, tmp_path: Path, capsys
) -> None:
    truth = _truth(rendered)
    palette = tmp_path / "rings.json"
    palette.write_text(json.dumps(truth["ring_colours_rgb"]))
    image = str(rendered / "frame_00003.png")
    args = ["--calibration", str(calibrated), "--palette", str(palette), "--json", image]
    assert gryb("analyze", *args) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["rings"] == truth["rings"] and record["hand"] is False and record["hidden"] == []


def test_analyze_text_output(rendered: Path, calibrated: Path, capsys) -> None:
    image = str(rendered / "frame_00003_empty.png")
    assert gryb("analyze", "--calibration", str(calibrated), image) == 0
    assert capsys.readouterr().out.strip().endswith("rings none; hidden none; hand no")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            [
                "calibrate",
                "--image",
                "{dir}/frame_00003_empty.png",
                "--aruco",
                "--out",
                "{dir}/x.json",
            ],
            "--clicks",
        ),
        (
            [
                "calibrate",
                *calibrate_args(
                    "{dir}/missing.png", "{dir}/frame_00003_clicks.json", "{dir}/x.json"
                ),
            ],
            "cannot read image",
        ),
        (
            [
                "calibrate",
                *calibrate_args(
                    "{dir}/frame_00003_empty.png", "{dir}/bad_clicks.json", "{dir}/x.json"
                ),
            ],
            "BBBB is missing",
        ),
        (
            ["analyze", "--calibration", "{dir}/frame_00003.json", "{dir}/frame_00003.png"],
            "calibration",
        ),
        (["render", "--out", "{dir}/r", "--tokens", "342"], "--tokens"),
    ],
)
def test_bad_input_exits_2_with_a_message(
    rendered: Path, argv: list[str], message: str, capsys
) -> None:
    (rendered / "bad_clicks.json").write_text(
        json.dumps({"GGGG": [1, 1], "RRRR": [5, 1], "YYYY": [5, 5]})
    )
    assert gryb(*[a.replace("{dir}", str(rendered)) for a in argv]) == 2
    assert message in capsys.readouterr().err


def test_bench_vision_gryb(capsys) -> None:
    argv = ["bench", "vision", "--board", "gryb", "--scenes", "1", "--games", "1", "--moves", "1"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "node location error after refinement" in text and "ring reading:" in text
    assert "move detection: precision 100.0%, recall 100.0%" in text


def test_render_can_write_the_exact_calibration(tmp_path: Path, capsys) -> None:
    out = tmp_path / "exact"
    args = ["--out", str(out), "--seed", "4", "--tokens", "6", "--size", "960x720", "--calibration"]
    assert gryb("render", *args) == 0
    calibration = load_gryb_calibration(out / "frame_00004_calibration.json")
    truth = json.loads((out / "frame_00004.json").read_text())
    expected = np.array([truth["nodes_px"][node_name(n)] for n in NODES])
    assert calibration.nodes_px == pytest.approx(expected, abs=0.01)
    assert (out / "frame_00004_empty.png").exists()
    assert "6 rings" in capsys.readouterr().out


@pytest.fixture(scope="module")
def ez_gryb_frames(tmp_path_factory) -> Path:
    """Frames of an EZ GRYB opening: rolls G, R, B (seed 0), a hand places each ring."""
    import cv2

    from calibration.calibfile import save_calibration
    from vision.gryb_bench import calibrated_scene
    from vision.render_hand import HandSpec

    out = tmp_path_factory.mktemp("ez")
    scene = calibrated_scene(31, (1280, 960))
    save_calibration(scene.calibration, out / "calibration.json")
    (out / "rings.json").write_text(json.dumps([list(c) for c in scene.style.ring_rgb]))
    frames = out / "frames"
    frames.mkdir()
    script: list = [({}, None)] * 4
    board: dict[int, int] = {}
    for player, node in enumerate(("G", "R", "B")):
        hand = HandSpec(target_point=NODES.index(node))
        script.append((dict(board), hand))
        board[NODES.index(node)] = player % 2
        script += [(dict(board), hand)] + [(dict(board), None)] * 5
    pictures: dict = {}
    for index, (rings, hand) in enumerate(script):
        key = (tuple(sorted(rings.items())), hand)
        if key not in pictures:
            pictures[key] = scene.render(rings, hand=hand).image_bgr
        cv2.imwrite(str(frames / f"frame_{index:03d}.png"), pictures[key])
    return out


@pytest.mark.parametrize("rolls", ["0", "file"])
def test_replay_an_ez_gryb_opening(ez_gryb_frames: Path, rolls: str, capsys) -> None:
    if rolls == "file":
        rolls = str(ez_gryb_frames / "rolls.json")
        Path(rolls).write_text(json.dumps(["G", "R", "B"]))
    args = [
        "--game",
        "ez-gryb",
        "--rolls",
        rolls,
        "--json",
        "--calibration",
        str(ez_gryb_frames / "calibration.json"),
        "--palette",
        str(ez_gryb_frames / "rings.json"),
        str(ez_gryb_frames / "frames"),
    ]
    assert gryb("replay", *args) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    moves = [
        (r["kind"], r.get("point") or r.get("roll"), r["color"])
        for r in records
        if r["type"] == "move"
    ]
    assert moves[:6] == [
        ("roll", "G", 0),
        ("place", "G", 0),
        ("roll", "R", 1),
        ("place", "R", 1),
        ("roll", "B", 0),
        ("place", "B", 0),
    ]
    assert not [r for r in records if r["type"] == "illegal"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "needs --game"),
        (["--game", "chess"], "not a GRYB game"),
        (["--game", "ez-gryb", "--rolls", "{dir}/missing.json"], "rolls file"),
    ],
)
def test_replay_gryb_bad_input(
    ez_gryb_frames: Path, extra: list[str], message: str, capsys
) -> None:
    args = [
        *[a.replace("{dir}", str(ez_gryb_frames)) for a in extra],
        "--calibration",
        str(ez_gryb_frames / "calibration.json"),
        str(ez_gryb_frames / "frames"),
    ]
    assert gryb("replay", *args) == 2
    assert message in capsys.readouterr().err
