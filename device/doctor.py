"""``boardcam doctor``: check camera, calibration, data directory, port and push sinks.

Every check returns a :class:`CheckResult` with a level (OK, INFO, WARNING,
ISSUE), never ``None``, and says what to do when something is wrong. A check
never raises: an unexpected error is itself an ISSUE with its message.
"""

from __future__ import annotations

import enum
import errno
import importlib.util
import json
import logging
import shutil
import socket
import time
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from device.config import Config
from device.settings import (
    CALIBRATION_FILE,
    SetupError,
    is_demo,
    resolve_calibration,
)
from device.sources.base import FrameSource, SourceError
from device.store import Store, StoreError

logger = logging.getLogger(__name__)

MIN_FREE_BYTES = 200 * 1024 * 1024


class Level(enum.IntEnum):
    OK = 0
    INFO = 1
    WARNING = 2
    ISSUE = 3


@dataclass(frozen=True)
class CheckResult:
    """One finding: ``fix`` says what to do (empty when nothing needs doing)."""

    name: str
    level: Level
    message: str
    fix: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "level": self.level.name, "message": self.message, "fix": self.fix}


def guarded(name: str, check: Callable[[], list[CheckResult]]) -> list[CheckResult]:
    """Run a check; an unexpected exception becomes an ISSUE rather than a crash."""
    try:
        return check()
    except Exception as exc:  # the doctor must report, not crash
        logger.debug("check %s raised", name, exc_info=True)
        return [CheckResult(name, Level.ISSUE, f"the check itself failed: {exc!r}")]


def check_camera(source: FrameSource, timeout: float = 10.0) -> tuple[list[CheckResult], Any]:
    """Open the source and wait for one frame; returns the findings and the frame image (or None)."""
    name = "camera"
    try:
        source.start()
    except SourceError as exc:
        fix = "check the cable and `--source`; `boardcam serve --source demo` runs without a camera"
        if "picamera2" in str(exc):
            fix = "sudo apt install python3-picamera2, and a venv made with --system-site-packages"
        return [CheckResult(name, Level.ISSUE, f"{source.description}: {exc}", fix)], None
    try:
        deadline = time.monotonic() + timeout
        frame = None
        while frame is None and time.monotonic() < deadline and not source.is_exhausted:
            frame = source.read(timeout=min(1.0, timeout))
    except SourceError as exc:
        return [CheckResult(name, Level.ISSUE, f"{source.description} opened but failed: {exc}",
                            "check the camera's connection and that no other program uses it")], None
    finally:
        source.stop()
    if frame is None:
        return [CheckResult(name, Level.ISSUE, f"{source.description} gave no frame in {timeout:.0f} s",
                            "check that the camera works (`rpicam-hello` on a Pi) and is not in use")], None
    h, w = frame.image.shape[:2]
    level = Level.INFO if is_demo(source) else Level.OK
    note = " (no camera: the built-in demo)" if is_demo(source) else ""
    result = [CheckResult(name, level, f"{source.description}: {w}x{h} frames{note}")]
    if min(w, h) < 480 and not is_demo(source):
        result.append(CheckResult(name, Level.WARNING, f"frames are only {w}x{h}",
                                  "use at least 1280x960 (camera.width/height) to read the upper tiers"))
    return result, frame.image


def check_calibration(config: Config, source: FrameSource, directory: Path, image: Any) -> list[CheckResult]:
    """The calibration that ``serve`` would use loads, and fits the camera's frame size."""
    name = "calibration"
    try:
        calibration, origin = resolve_calibration(config, source, directory)
    except SetupError as exc:
        return [CheckResult(name, Level.ISSUE, str(exc),
                            "recalibrate with the dashboard's wizard or `boardcam calibrate`")]
    if calibration is None:
        return [CheckResult(name, Level.WARNING, "the board is not calibrated yet",
                            "open the dashboard's calibration wizard (or `boardcam calibrate`); "
                            f"it saves {directory / CALIBRATION_FILE}")]
    camera = getattr(calibration, "camera", None)
    size = tuple(getattr(camera, "image_size", ()) or ())
    if image is not None and size and tuple(size) != (image.shape[1], image.shape[0]):
        return [CheckResult(name, Level.ISSUE,
                            f"calibration from {origin} is for {size[0]}x{size[1]} frames, the camera gives "
                            f"{image.shape[1]}x{image.shape[0]}",
                            "set camera.width/height to the calibrated size, or recalibrate")]
    return [CheckResult(name, Level.OK, f"calibration from {origin} loads")]


def check_data_dir(directory: Path) -> list[CheckResult]:
    """Creatable, writable, enough free space, and the database passes SQLite's quick check."""
    name = "data directory"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / ".boardcam-write-test"
        probe.write_bytes(b"ok")
        probe.unlink()
    except OSError as exc:
        return [CheckResult(name, Level.ISSUE, f"{directory} is not writable: {exc.strerror}",
                            "choose another with --data-dir or fix its permissions")]
    results = []
    free = shutil.disk_usage(directory).free
    if free < MIN_FREE_BYTES:
        results.append(CheckResult(name, Level.WARNING, f"only {free // 2**20} MiB free on {directory}",
                                   "free some space: each move keeps a JPEG snapshot"))
    try:
        store = Store(directory)
    except StoreError as exc:
        return [*results, CheckResult(name, Level.ISSUE, str(exc), "move the file away or use another --data-dir")]
    try:
        integrity = store.check()
        running = store.running_game()
        games = len(store.list_games())
    finally:
        store.close()
    if integrity != "ok":
        return [*results, CheckResult(name, Level.ISSUE, f"database damaged: {integrity}",
                                      "restore a backup or move the file away to start afresh")]
    resume = f"; game {running.id} will resume" if running else ""
    return [*results, CheckResult(name, Level.OK, f"{directory}: {games} games stored{resume}")]


def boardcam_answers(port: int, timeout: float = 1.0) -> bool:
    """True when a boardcam dashboard already answers on this machine's ``port``."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=timeout) as response:
            return json.loads(response.read()).get("board") is not None
    except (OSError, ValueError):
        return False


def check_port(host: str, port: int) -> list[CheckResult]:
    """The dashboard's port can be bound (or a boardcam already serves on it)."""
    name = "port"
    bind_host = "" if host in ("0.0.0.0", "") else host
    try:
        with socket.socket(socket.AF_INET6 if ":" in bind_host else socket.AF_INET) as sock:
            sock.bind((bind_host, port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            if boardcam_answers(port):
                return [CheckResult(name, Level.INFO, f"a boardcam already serves on port {port}",
                                    "stop it (`sudo systemctl stop boardcam`) before starting another")]
            return [CheckResult(name, Level.ISSUE, f"port {port} is used by another program",
                                "choose another with --port or server.port")]
        if exc.errno == errno.EACCES:
            return [CheckResult(name, Level.ISSUE, f"port {port} needs root", "use a port above 1023")]
        return [CheckResult(name, Level.ISSUE, f"cannot listen on {host}:{port}: {exc.strerror}",
                            "check server.host: it must be an address of this machine")]
    return [CheckResult(name, Level.OK, f"{host}:{port} is free")]


def tcp_reachable(host: str, port: int, timeout: float = 3.0) -> str:
    """Empty when a TCP connection to host:port opens, else the reason."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return ""
    except OSError as exc:
        return str(exc.strerror or exc)


def _url_endpoint(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)


def check_sinks(config: Config) -> list[CheckResult]:
    """Each configured push destination can be reached (a TCP connection, nothing is sent)."""
    results = []
    targets = [("ntfy", url, *_url_endpoint(url)) for url in config.sinks.ntfy]
    targets += [("webhook", url, *_url_endpoint(url)) for url in config.sinks.webhooks]
    mqtt = config.sinks.mqtt
    if mqtt.host:
        targets.append(("mqtt", f"{mqtt.host}:{mqtt.port}", mqtt.host, mqtt.port))
    for kind, label, host, port in targets:
        problem = tcp_reachable(host, port)
        if problem:
            results.append(CheckResult(f"{kind} sink", Level.WARNING, f"{label} cannot be reached: {problem}",
                                       "check the address and the network; alerts to it will be lost"))
        else:
            results.append(CheckResult(f"{kind} sink", Level.OK, f"{label} is reachable"))
    gpio = config.sinks.gpio
    if gpio.buzzer_pin or gpio.led_pin:
        if importlib.util.find_spec("gpiozero") is None:
            results.append(CheckResult("gpio sink", Level.ISSUE, "gpiozero is not installed",
                                       "sudo apt install python3-gpiozero (venv with --system-site-packages)"))
        else:
            results.append(CheckResult("gpio sink", Level.OK, "gpiozero is installed"))
    if not results:
        results.append(CheckResult("push sinks", Level.INFO, "no push sink configured: alerts reach open dashboards only",
                                   "add an ntfy topic (sinks.ntfy or --ntfy) to be alerted with the screen off"))
    return results


def check_pin(config: Config) -> list[CheckResult]:
    if config.server.pin:
        return [CheckResult("pin", Level.OK, "a fixed PIN is configured")]
    return [CheckResult("pin", Level.INFO, "no PIN configured: a random one is printed at each start",
                        "set server.pin in the config when running as a service (the log is the only place to read it)")]


def run_checks(config: Config, source: FrameSource, directory: Path) -> list[CheckResult]:
    """Every check, in the order a user fixes things."""
    results: list[CheckResult] = []
    image_box: list[Any] = [None]

    def camera() -> list[CheckResult]:
        found, image_box[0] = check_camera(source)
        return found

    results += guarded("camera", camera)
    results += guarded("calibration", lambda: check_calibration(config, source, directory, image_box[0]))
    results += guarded("data directory", lambda: check_data_dir(directory))
    results += guarded("port", lambda: check_port(config.server.host, config.server.port))
    results += guarded("sinks", lambda: check_sinks(config))
    results += check_pin(config)
    return results


def worst(results: Iterable[CheckResult]) -> Level:
    return max((r.level for r in results), default=Level.OK)


def format_results(results: Iterable[CheckResult]) -> str:
    lines = []
    for result in results:
        lines.append(f"[{result.level.name:<7}] {result.name}: {result.message}")
        if result.fix and result.level > Level.OK:
            lines.append(f"          -> {result.fix}")
    return "\n".join(lines)
