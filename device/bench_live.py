"""``boardcam bench live``: alert latency as a phone sees it, and memory over a long demo run.

The demo plays at ``fps`` through the real runtime and pipeline; the real
dashboard app is served by waitress on a free loopback port and a client reads
its SSE stream over HTTP. For every move, win or illegal alert the latency is
the time from the capture of the frame in which the hand left the board (known
from the demo script) to the moment the record arrives at the client. Then a
fast run of ``soak_frames`` frames shows whether the process's memory stays flat.
"""

from __future__ import annotations

import http.client
import json
import logging
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from device.config import Config
from device.events import ILLEGAL, MOVE, WIN

logger = logging.getLogger(__name__)

ALERT_TYPES = (MOVE, WIN, ILLEGAL)


def rss_mib() -> float:
    """Resident memory of this process in MiB (Linux ``/proc``; 0 where unavailable)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def hand_leave_indices() -> tuple[int, set[int]]:
    """Length of one demo loop and the frame indices in it where a hand has just left."""
    from device.demo_script import demo_script

    timeline = [shot for shot in demo_script() for _ in range(shot.frames)]
    leaves = {i for i in range(1, len(timeline))
              if timeline[i - 1].hand_at is not None and timeline[i].hand_at is None}
    return len(timeline), leaves


class TimedPipeline:
    """Wraps the real pipeline: notes capture times of hand-leave frames and processing times."""

    def __init__(self, inner: Any, loop_length: int, leaves: set[int], record: dict[str, Any]) -> None:
        self._inner = inner
        self._loop, self._leaves, self._record = loop_length, leaves, record

    def process(self, frame: Any) -> list[Any]:
        if frame.seq % self._loop in self._leaves:
            self._record["leave_times"][frame.seq] = frame.timestamp
        started = time.perf_counter()
        events = self._inner.process(frame)
        elapsed = time.perf_counter() - started
        self._record["process_ms"].append(1000 * elapsed)
        if events:  # the deciding frame: when it was captured and how long it took
            self._record["deciding"][frame.seq] = (frame.timestamp, elapsed)
        return events

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def sse_records(port: int, stop: threading.Event) -> Iterator[tuple[float, dict[str, Any]]]:
    """(arrival monotonic time, record) for every plain SSE message of ``/events``."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/events", headers={"Accept": "text/event-stream"})
    response = connection.getresponse()
    data: list[str] = []
    event_name = ""
    try:
        while not stop.is_set():
            raw = response.fp.readline()
            if not raw:
                return
            line = raw.decode("utf-8").rstrip("\r\n")
            if line.startswith("data:"):
                data.append(line[5:].strip())
            elif line.startswith("event:"):
                event_name = line[6:].strip()
            elif not line and data:
                if not event_name:
                    yield time.monotonic(), json.loads("\n".join(data))
                data, event_name = [], ""
    finally:
        response.close()  # holds the socket itself when the server said it would close it
        connection.close()


def latencies(leave_times: dict[int, float], arrivals: list[tuple[float, dict[str, Any]]]) -> list[float]:
    """Seconds from the last hand-leave frame at or before each alert's frame to its arrival."""
    out = []
    ordered = sorted(leave_times)
    for arrived, record in arrivals:
        frame = record.get("frame")
        if frame is None:
            continue
        earlier = [seq for seq in ordered if seq <= frame]
        if earlier:
            out.append(arrived - leave_times[earlier[-1]])
    return out


def _summary(values: list[float], scale: float = 1.0) -> dict[str, float] | None:
    if not values:
        return None
    ordered = sorted(values)
    return {
        "n": len(values),
        "median": round(statistics.median(ordered) * scale, 1),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * scale, 1),
        "max": round(ordered[-1] * scale, 1),
    }


def run_live_bench(seconds: float = 60.0, fps: float = 4.0, soak_frames: int = 2000,
                   stable_frames: int = 3) -> dict[str, Any]:
    """Run the benchmark; returns the figures (see :func:`format_report`)."""
    from device.runtime import default_pipeline_factory
    from device.settings import build_runtime
    from web import create_app
    from web.background import BackgroundServer

    loop_length, leaves = hand_leave_indices()
    record: dict[str, Any] = {"leave_times": {}, "process_ms": [], "deciding": {}}

    def factory(*args: Any, **kwargs: Any) -> TimedPipeline:
        inner = default_pipeline_factory(*args, stable_frames=stable_frames, **kwargs)
        return TimedPipeline(inner, loop_length, leaves, record)

    with tempfile.TemporaryDirectory(prefix="boardcam-bench-") as directory:
        config = Config()
        config.camera.fps = fps
        config.storage.data_dir = directory
        config.server.pin = "000000"
        runtime, _ = build_runtime(config, pipeline_factory=factory)
        # Render every view of the demo once, so the timed run measures the companion, not the renderer.
        warm_started = time.perf_counter()
        source = runtime.source
        source.start()
        for _ in range(getattr(source, "frame_count", 0)):
            source.read()
        source.stop()
        warm_up = time.perf_counter() - warm_started
        app = create_app({"BOARDCAM_SSE_HEARTBEAT_S": 1.0}, runtime=runtime)
        server = BackgroundServer(app, threads=8)
        stop = threading.Event()
        arrivals: list[tuple[float, dict[str, Any]]] = []

        def read() -> None:
            try:
                for arrived, item in sse_records(server.port, stop):
                    if item.get("type") in ALERT_TYPES:
                        arrivals.append((arrived, item))
            except (OSError, ValueError) as exc:
                logger.warning("SSE client stopped: %s", exc)

        reader = threading.Thread(target=read, name="bench-sse", daemon=True)
        reader.start()
        rss_start = rss_mib()
        runtime.start()
        time.sleep(seconds)
        stop.set()
        runtime.stop()  # ends the SSE stream, so its server thread finishes
        reader.join(5)
        server.stop()
        timed = latencies(record["leave_times"], arrivals)
        process_ms = list(record["process_ms"])

        soak: dict[str, Any] = {}
        if soak_frames:
            soak = _soak(runtime, soak_frames)
        runtime.store.close()
    return {
        "fps": fps,
        "stable_frames": stable_frames,
        "seconds": seconds,
        "render_warm_up_s": round(warm_up, 1),
        "alerts_received": len(arrivals),
        "alerts_timed": len(timed),
        "latency_ms": _summary(timed, 1000.0),
        "latency_breakdown": breakdown(record, arrivals, fps),
        "process_ms": _summary([v / 1000 for v in process_ms], 1000.0),
        "rss_mib_start": round(rss_start, 1),
        "rss_mib_end": round(rss_mib(), 1),
        "soak": soak,
    }


def breakdown(record: dict[str, Any], arrivals: list[tuple[float, dict[str, Any]]], fps: float) -> dict[str, Any]:
    """Where the latency goes: frames waited for the board to settle, the deciding frame's
    processing, and delivery from the runtime to the SSE client."""
    leaves = sorted(record["leave_times"])
    waited, processing, delivery = [], [], []
    for arrived, item in arrivals:
        frame = item.get("frame")
        if frame not in record["deciding"]:
            continue
        captured, elapsed = record["deciding"][frame]
        earlier = [seq for seq in leaves if seq <= frame]
        if earlier:
            waited.append(frame - earlier[-1])
        processing.append(elapsed)
        # capture -> arrival, minus the processing: queueing in the runtime plus SSE delivery
        delivery.append(max(0.0, arrived - captured - elapsed))
    return {
        "frames_after_hand_left": statistics.median(waited) if waited else None,
        "settle_wait_ms": round(1000 * statistics.median(waited) / fps, 1) if waited else None,
        "deciding_frame_ms": _summary(processing, 1000.0),
        "delivery_ms": _summary(delivery, 1000.0),
    }


def _soak(warm: Any, frames: int) -> dict[str, Any]:
    """A second runtime on the same (already rendered) demo source, fed as fast as it goes."""
    from device.runtime import Runtime
    from device.store import Store

    with tempfile.TemporaryDirectory(prefix="boardcam-soak-") as directory:
        store = Store(directory)
        source = warm.source
        source.fps = 0  # as fast as the pipeline goes; its views are already rendered
        runtime = Runtime(source, store=store, calibration=warm.calibration, pin="000000",
                          config=warm.config, palette=warm.palette)
        source.start()
        samples = []
        started = time.perf_counter()
        for index in range(frames):
            runtime.process_frame(source.read())
            if index % max(1, frames // 4) == 0:
                samples.append((index, round(rss_mib(), 1)))
        samples.append((frames, round(rss_mib(), 1)))
        elapsed = time.perf_counter() - started
        buffer_mib = round(runtime.recent_bytes / 2**20, 1)
        games = len(runtime.games())
        runtime.stop()
        store.close()
    return {
        "frames": frames,
        "seconds": round(elapsed, 1),
        "demo_hours_at_4fps": round(frames / 4 / 3600, 2),
        "rss_mib": samples,
        "bundle_buffer_mib": buffer_mib,
        "games_played": games,
    }


def format_report(report: dict[str, Any]) -> str:
    """The figures for a person."""
    lines = [(f"live demo at {report['fps']:g} fps (stable_frames {report['stable_frames']}) for "
              f"{report['seconds']:g} s, SSE client over HTTP (waitress); "
              f"demo views rendered beforehand in {report['render_warm_up_s']} s")]
    lat = report["latency_ms"]
    if lat:
        verdict = "meets" if lat["median"] < 500 else "misses"
        lines.append(
            f"hand leaves -> alert at the client: median {lat['median']} ms, p95 {lat['p95']} ms, "
            f"max {lat['max']} ms over {lat['n']} alerts ({verdict} the 500 ms target)"
        )
    else:
        lines.append(f"no alert could be timed ({report['alerts_received']} received)")
    parts = report["latency_breakdown"]
    if parts["deciding_frame_ms"]:
        lines.append(
            f"  = waiting for {parts['frames_after_hand_left']} calm frames ({parts['settle_wait_ms']} ms) "
            f"+ the deciding frame's processing (median {parts['deciding_frame_ms']['median']} ms) "
            f"+ runtime to client (median {parts['delivery_ms']['median']} ms)"
        )
    proc = report["process_ms"]
    if proc:
        lines.append(f"pipeline per frame: median {proc['median']} ms, p95 {proc['p95']} ms")
    lines.append(f"memory: {report['rss_mib_start']} MiB at start, {report['rss_mib_end']} MiB at the end")
    soak = report["soak"]
    if soak:
        samples = ", ".join(f"{frames}: {rss} MiB" for frames, rss in soak["rss_mib"])
        lines.append(
            f"soak: {soak['frames']} frames ({soak['demo_hours_at_4fps']} h of demo at 4 fps, "
            f"{soak['games_played']} games) in {soak['seconds']} s; RSS by frame {samples}; "
            f"the bundle's frame buffer holds {soak['bundle_buffer_mib']} MiB of it"
        )
    return "\n".join(lines)
