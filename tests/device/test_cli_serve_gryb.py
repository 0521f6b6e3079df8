"""``boardcam serve --board gryb``: the runtime set up for the bandanna, and clear refusals."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.calibfile import save_calibration
from device.cli import main
from device.config import config_from_dict
from device.settings import SetupError, build_runtime
from vision.gryb_bench import calibrated_scene


@pytest.fixture(scope="module")
def bandanna_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A bandanna calibration file and a folder with the empty bandanna's picture."""
    root = tmp_path_factory.mktemp("bandanna")
    scene = calibrated_scene(21, (640, 480))
    save_calibration(scene.calibration, root / "gryb.json")
    frames = root / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "000.png"), scene.empty.image_bgr)
    return root / "gryb.json", frames


def config(tmp_path: Path, source: str, calibration: Path | str = "") -> object:
    return config_from_dict(
        {
            "camera": {"source": source, "calibration": str(calibration)},
            "storage": {"data_dir": str(tmp_path / "data")},
            "server": {"pin": "1234"},
        }
    )


def test_the_runtime_watches_the_bandanna(tmp_path: Path, bandanna_files) -> None:
    calibration, frames = bandanna_files
    runtime, origin = build_runtime(
        config(tmp_path, f"folder:{frames}", calibration), board="gryb", game="squirrel-race"
    )
    try:
        state = runtime.state()
        assert origin == str(calibration) and runtime.board == "gryb"
        assert state["board"] == "gryb" and state["gryb"]["game"] == "squirrel-race"
        assert runtime.calibration.board == "gryb"
    finally:
        runtime.store.close()


def test_the_bandanna_demo(tmp_path: Path) -> None:
    runtime, origin = build_runtime(config(tmp_path, "demo"), board="gryb")
    try:
        assert origin == "the demo camera" and "EZ GRYB" in runtime.source.description
        assert runtime.calibration.board == "gryb" and runtime.palette is None
        assert runtime.state()["gryb"]["game"] == "ez-gryb"
    finally:
        runtime.store.close()


def test_a_stacked_board_calibration_is_refused_for_the_bandanna(
    tmp_path: Path, bandanna_files
) -> None:
    calibration, frames = bandanna_files
    with pytest.raises(SetupError, match="is for the gryb board, not timevectors"):
        build_runtime(config(tmp_path, f"folder:{frames}", calibration))


def test_serve_refusals_exit_with_status_2(
    tmp_path: Path, bandanna_files, capsys: pytest.CaptureFixture[str]
) -> None:
    calibration, frames = bandanna_files
    data = ["--data-dir", str(tmp_path / "data"), "--pin", "1234"]
    assert (
        main(
            [
                "serve",
                *data,
                "--board",
                "gryb",
                "--game",
                "chess",
                "--source",
                f"folder:{frames}",
                "--calibration",
                str(calibration),
            ]
        )
        == 2
    )
    assert "'chess' is not a GRYB game" in capsys.readouterr().err
    assert main(["serve", *data, "--game", "ez-gryb", "--source", f"folder:{frames}"]) == 2
    assert "use it with --board gryb" in capsys.readouterr().err


def test_a_corrupt_calibration_file_is_named(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    (tmp_path / "frames").mkdir()
    cv2.imwrite(str(tmp_path / "frames" / "0.png"), np.zeros((48, 64, 3), np.uint8))
    with pytest.raises(SetupError, match="broken.json"):
        build_runtime(config(tmp_path, f"folder:{tmp_path / 'frames'}", broken), board="gryb")
