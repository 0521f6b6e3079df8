"""``boardcam doctor``'s checks: each returns explicit results with a level and a fix."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from device.config import Config
from device.doctor import (
    CheckResult,
    Level,
    check_calibration,
    check_camera,
    check_data_dir,
    check_port,
    check_sinks,
    format_results,
    guarded,
    run_checks,
    worst,
)
from device.sources.folder import FolderSource
from device.sources.picamera import PiCameraSource
from tests.device.fakes_runtime import ScriptedSource


def frames_dir(tmp_path: Path, size=(640, 480)) -> Path:
    folder = tmp_path / "frames"
    folder.mkdir()
    image = np.zeros((size[1], size[0], 3), np.uint8)
    (folder / "000.png").write_bytes(cv2.imencode(".png", image)[1].tobytes())
    return folder


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_camera_ok_and_frame_size(tmp_path):
    results, image = check_camera(FolderSource(frames_dir(tmp_path)))
    assert [r.level for r in results] == [Level.OK] and "640x480" in results[0].message
    assert image.shape == (480, 640, 3)


def test_small_frames_are_a_warning(tmp_path):
    results, _ = check_camera(FolderSource(frames_dir(tmp_path, (320, 240))))
    assert [r.level for r in results] == [Level.OK, Level.WARNING]


def test_missing_picamera_is_an_issue_with_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)
    results, image = check_camera(PiCameraSource())
    assert image is None and results[0].level is Level.ISSUE
    assert "python3-picamera2" in results[0].fix


def test_camera_that_gives_nothing(tmp_path):
    results, _ = check_camera(ScriptedSource([], hold=False), timeout=0.5)
    assert results[0].level is Level.ISSUE and "no frame" in results[0].message
    failing = ScriptedSource(["a"], fail_reads={1})
    results, _ = check_camera(failing)
    assert results[0].level is Level.ISSUE and "failed" in results[0].message


def test_calibration_checks(tmp_path):
    config = Config()
    source = FolderSource(tmp_path)
    results = check_calibration(config, source, tmp_path, None)
    assert results[0].level is Level.WARNING and "wizard" in results[0].fix
    config.camera.calibration = str(tmp_path / "missing.json")
    results = check_calibration(config, source, tmp_path, None)
    assert results[0].level is Level.ISSUE and "missing.json" in results[0].message


def test_data_dir_checks(tmp_path):
    results = check_data_dir(tmp_path / "new")
    assert results[-1].level is Level.OK and "0 games" in results[-1].message
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert check_data_dir(blocker / "sub")[0].level is Level.ISSUE
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "boardcam.sqlite3").write_bytes(b"garbage" * 1000)
    assert check_data_dir(broken)[-1].level is Level.ISSUE


def test_port_checks():
    port = free_port()
    assert check_port("127.0.0.1", port)[0].level is Level.OK
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        result = check_port("127.0.0.1", taken)[0]
    assert result.level is Level.ISSUE and "--port" in result.fix
    assert check_port("203.0.113.9", port)[0].level is Level.ISSUE  # not an address of this machine


def test_sink_checks():
    config = Config()
    assert [r.level for r in check_sinks(config)] == [Level.INFO]
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        config.sinks.ntfy = [f"http://127.0.0.1:{listening.getsockname()[1]}/topic"]
        config.sinks.webhooks = [f"http://127.0.0.1:{free_port()}/hook"]
        results = check_sinks(config)
    assert [(r.name, r.level) for r in results] == [("ntfy sink", Level.OK), ("webhook sink", Level.WARNING)]


def test_gpio_sink_check(monkeypatch):
    config = Config()
    config.sinks.gpio.buzzer_pin = 18
    monkeypatch.setitem(sys.modules, "gpiozero", None)
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    result = check_sinks(config)[-1]
    assert result.level is Level.ISSUE and "python3-gpiozero" in result.fix


def test_run_checks_covers_every_area_and_never_raises(tmp_path):
    config = Config()
    config.server.port = free_port()
    config.server.host = "127.0.0.1"
    results = run_checks(config, FolderSource(frames_dir(tmp_path)), tmp_path / "data")
    assert [r.name for r in results] == ["camera", "calibration", "data directory", "port", "push sinks", "pin"]
    assert worst(results) is Level.WARNING  # not calibrated
    text = format_results(results)
    assert "[WARNING] calibration: the board is not calibrated yet" in text and "->" in text


def test_a_check_that_crashes_is_an_issue():
    def broken():
        raise RuntimeError("boom")

    assert guarded("x", broken) == [CheckResult("x", Level.ISSUE, "the check itself failed: RuntimeError('boom')")]


@pytest.mark.parametrize("level", list(Level))
def test_levels_are_ordered(level):
    assert worst([CheckResult("a", Level.OK, ""), CheckResult("b", level, "")]) is level
