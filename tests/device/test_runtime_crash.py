"""``kill -9`` in the middle of a game, then a restart: the game resumes with every move."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from device.store import Store
from tests.device.fakes_runtime import WINNING_NAMES

ROOT = Path(__file__).resolve().parents[2]

RUNNER = """
import sys, time
from types import SimpleNamespace
from device.runtime import Runtime
from device.store import Store
from tests.device.fakes_runtime import NameReadingPipeline, ScriptedSource

store = Store(sys.argv[1])
source = ScriptedSource(sys.argv[2].split(","), fps=float(sys.argv[3]), repeat=int(sys.argv[4]))
runtime = Runtime(source, store=store, calibration=SimpleNamespace(), pin="1234",
                  pipeline_factory=NameReadingPipeline)
print(runtime.game_id, flush=True)
runtime.start()
time.sleep(120)
"""


def start(data: Path, names: list[str], fps: float, repeat: int = 4) -> tuple[subprocess.Popen, str]:
    """Run the runtime in a process of its own on a scripted camera showing each of ``names``
    for ``repeat`` frames (the runtime reads only the newest frame: a board shown for one
    frame is lost when the process is slow to start); returns it and its game id."""
    process = subprocess.Popen(
        [sys.executable, "-c", RUNNER, str(data), ",".join(names), str(fps), str(repeat)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return process, process.stdout.readline().strip()


def stored_moves(data: Path, game_id: str) -> list:
    store = Store(data)
    try:
        return store.moves(game_id)
    finally:
        store.close()


def wait_until(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_kill_9_then_restart_keeps_the_game(tmp_path):
    # The camera's view: an empty frame between moves, as a hand comes and goes.
    frames = [name for move in WINNING_NAMES for name in ("empty", move)]
    first, game_id = start(tmp_path, frames, fps=8)
    try:
        wait_until(lambda: len(stored_moves(tmp_path, game_id)) >= 3)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        first.stdout.close()
    assert first.returncode == -signal.SIGKILL
    before = stored_moves(tmp_path, game_id)
    assert 3 <= len(before) < len(WINNING_NAMES)
    assert [m.notation for m in before] == WINNING_NAMES[: len(before)]

    # After the restart the camera sees the whole board again: the tracker re-syncs and the game goes on.
    second, resumed_id = start(tmp_path, frames, fps=30)
    try:
        assert resumed_id == game_id
        store = Store(tmp_path)
        try:
            wait_until(lambda: store.get_game(game_id).status == "finished")
            after = store.moves(game_id)
            assert store.check() == "ok"
        finally:
            store.close()
    finally:
        second.send_signal(signal.SIGKILL)
        second.wait(10)
        second.stdout.close()
    assert [m.notation for m in after] == WINNING_NAMES
    assert [m.time for m in after[: len(before)]] == [m.time for m in before], "moves kept as first stored"
