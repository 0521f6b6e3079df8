"""The serve/doctor/bundle/export/games commands, in-process and as a real server process."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
import zipfile
from pathlib import Path

import cv2
import numpy as np
import pytest

from device.cli import main
from device.config import config_from_dict
from device.store import Store, StoredMove

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def frames_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(3):
        image = np.full((480, 640, 3), 60 * i, np.uint8)
        (folder / f"{i:03d}.png").write_bytes(cv2.imencode(".png", image)[1].tobytes())
    return folder


def test_print_config_is_a_valid_commented_config(capsys):
    assert main(["serve", "--print-config"]) == 0
    text = capsys.readouterr().out
    assert config_from_dict(tomllib.loads(text)).server.port == 8080
    assert text.count("# ") > 20


@pytest.mark.parametrize(
    "argv, message",
    [
        (["serve", "--source", "webcam"], "unknown source 'webcam'"),
        (["serve", "--port", "0"], "server.port must be 1..65535"),
        (["serve", "--pin", "12"], "server.pin must be 4 to 12 digits"),
        (["serve", "--config", "/nonexistent/boardcam.toml"], "cannot read config"),
        (["serve", "--mqtt", "broker:x"], "the port must be a number"),
        (["doctor", "--source", "folder:/nonexistent"], None),
    ],
)
def test_bad_arguments_exit_2_with_a_message(argv, message, capsys, tmp_path):
    status = main([*argv, "--data-dir", str(tmp_path)])
    err = capsys.readouterr().err
    if message is None:  # a folder that does not exist is the doctor's finding, not a usage error
        assert status == 1
        return
    assert status == 2 and err.startswith("boardcam: ") and message in err


def test_serve_with_a_busy_port_says_so(tmp_path, capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        status = main(["serve", "--source", f"folder:{frames_dir(tmp_path)}", "--host", "127.0.0.1",
                       "--port", str(port), "--data-dir", str(tmp_path / "data")])
    assert status == 2 and "choose --port" in capsys.readouterr().err


def test_doctor_reports_every_check(tmp_path, capsys):
    status = main(["doctor", "--source", f"folder:{frames_dir(tmp_path)}", "--host", "127.0.0.1",
                   "--port", str(free_port()), "--data-dir", str(tmp_path / "data"), "--json"])
    results = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 0
    assert {r["name"]: r["level"] for r in results} == {
        "camera": "OK", "calibration": "WARNING", "data directory": "OK", "port": "OK",
        "push sinks": "INFO", "pin": "INFO",
    }


def test_doctor_exit_1_on_an_issue(tmp_path, capsys):
    status = main(["doctor", "--source", "opencv:99", "--port", str(free_port()), "--data-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 1 and "[ISSUE  ] camera" in out and "worst finding: ISSUE" in out


def populated(tmp_path: Path) -> str:
    store = Store(tmp_path)
    game_id = store.create_game({"board": "timevectors", "config": {"players": 2}, "moves": []})
    store.sync_moves(game_id, [StoredMove(0, "A1P:0", 192, 0, 1_700_000_000.0)],
                     {"board": "timevectors", "config": {"players": 2}, "moves": ["A1P:0"]})
    store.close()
    return game_id


def test_games_and_export(tmp_path, capsys):
    assert main(["games", "--data-dir", str(tmp_path)]) == 0
    assert "no games stored yet" in capsys.readouterr().out
    assert main(["export", "--data-dir", str(tmp_path)]) == 2
    assert "no games stored yet" in capsys.readouterr().err
    game_id = populated(tmp_path)
    assert main(["games", "--data-dir", str(tmp_path), "--json"]) == 0
    games = json.loads(capsys.readouterr().out)
    assert [(g["id"], g["moves"], g["status"]) for g in games] == [(game_id, 1, "running")]
    assert main(["export", "--data-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 x A1P"
    assert main(["export", game_id, "--format", "json", "--data-dir", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["moves"][0]["point"] == "A1P"
    assert main(["export", "nope", "--data-dir", str(tmp_path)]) == 2
    assert "no game with id 'nope'" in capsys.readouterr().err


def test_bundle_without_a_running_dashboard(tmp_path, capsys):
    populated(tmp_path)
    out = tmp_path / "b.zip"
    assert main(["bundle", "--data-dir", str(tmp_path), "--port", str(free_port()), "--out", str(out)]) == 0
    assert "without frames" in capsys.readouterr().out
    with zipfile.ZipFile(out) as archive:
        assert json.loads(archive.read("game.json"))["moves"] == ["A1P:0"]


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def serve(tmp_path: Path, *options: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "device.cli", "serve", *options, "--host", "127.0.0.1", "--port", str(port),
         "--data-dir", str(tmp_path / "data"), "--pin", "2468"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return process, port


def wait_for_state(process: subprocess.Popen, port: int, ready=lambda state: True, timeout: float = 30.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        try:
            state = get_json(f"http://127.0.0.1:{port}/api/state")
            if ready(state):
                return state
        except OSError:
            assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the server did not get ready in time"
        time.sleep(0.2)


def stop(process: subprocess.Popen) -> tuple[str, str]:
    process.send_signal(signal.SIGTERM)
    try:
        return process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def test_serve_without_a_camera_shows_the_demo_within_seconds(tmp_path):
    started = time.monotonic()
    process, port = serve(tmp_path)
    try:
        state = wait_for_state(process, port, lambda s: s["camera"]["status"] == "demo")
        ready = time.monotonic() - started
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/snapshot.jpg", timeout=5) as response:
            assert response.read(2) == b"\xff\xd8"
    finally:
        stdout, stderr = stop(process)
    assert process.returncode == 0, stderr
    assert state["calibration"]["loaded"] is True and state["board"] == "timevectors"
    assert ready < 20, f"the demo took {ready:.1f} s to show"
    assert "calibration: the demo camera" in stdout


def test_serve_runs_a_real_server_until_sigterm(tmp_path):
    process, port = serve(tmp_path, "--source", f"folder:{frames_dir(tmp_path)}")
    try:
        state = wait_for_state(process, port)
        assert state["board"] == "timevectors" and state["calibration"] == {"loaded": False}
        games = get_json(f"http://127.0.0.1:{port}/api/games")
        assert games[0]["id"] == state["game_id"]
        out = tmp_path / "bundle.zip"
        assert main(["bundle", "--port", str(port), "--out", str(out)]) == 0
        with zipfile.ZipFile(out) as archive:
            assert "state.json" in archive.namelist()
            assert any(name.startswith("frames/") for name in archive.namelist())
        live = http.client.HTTPConnection("127.0.0.1", port, timeout=10)  # a dashboard left open
        live.request("GET", "/events")
        stream = live.getresponse()
        received = b""
        while b"state" not in received and len(received) < 65536:  # retry: first, then the state
            chunk = stream.fp.read1(65536)  # the 10 s socket timeout bounds each read
            assert chunk, "the stream ended before the state came"
            received += chunk
        assert b"event: state" in received
    finally:
        stdout, stderr = stop(process)
    live.close()
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr, stderr
    assert f"http://127.0.0.1:{port}/" in stdout and "PIN for control actions: 2468" in stdout
    assert "\u2588" in stdout  # the QR code's blocks


def test_systemd_unit_starts_serve_at_boot_and_restarts_on_failure():
    import configparser

    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read_string((ROOT / "device" / "systemd" / "boardcam.service").read_text())
    service = unit["Service"]
    assert service["ExecStart"].split()[1:3] == ["serve", "--config"]
    assert service["ExecStart"].split()[0].endswith("/bin/boardcam")
    assert service["Restart"] == "on-failure" and service["User"] == "@USER@"
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    assert "network-online.target" in unit["Unit"]["After"]


def test_dashboard_address_and_qr_codes():
    from device.netinfo import dashboard_url, lan_address, qr_svg, qr_terminal

    assert dashboard_url("127.0.0.1", 8080) == "http://127.0.0.1:8080/"
    assert dashboard_url("::1", 8080) == "http://[::1]:8080/"
    assert dashboard_url("0.0.0.0", 9000) == f"http://{lan_address()}:9000/"
    socket.inet_aton(lan_address())
    svg = qr_svg("http://192.0.2.5:8080/")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    rows = qr_terminal("http://192.0.2.5:8080/").splitlines()
    assert len(rows) > 10 and len(set(map(len, rows))) == 1  # a square block of text


def test_banner_prints_address_qr_and_pin():
    from device.commands.serve import banner

    text = banner("http://192.0.2.5:8080/", "123456", "demo", "")
    assert "http://192.0.2.5:8080/" in text and "PIN for control actions: 123456" in text
    assert "none yet: open the dashboard and calibrate" in text
