"""``boardcam bench live``: the real runtime, dashboard server and SSE client over a short
demo run. Figures are not asserted (a benchmark prints them); what is checked is that the
alerts arrive over HTTP, each is timed from a hand leaving the board, and the report says so."""

from __future__ import annotations

import json

from device.bench_live import format_report, hand_leave_indices, latencies
from device.cli import main


def test_alerts_arrive_over_sse_and_are_timed_from_a_hand_leaving(capsys):
    loop, leaves = hand_leave_indices()
    assert leaves and max(leaves) < loop
    status = main(
        ["bench", "live", "--seconds", "5", "--fps", "8", "--soak-frames", "30", "--json"]
    )
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    assert report["alerts_received"] >= 1 and report["alerts_timed"] >= 1
    latency = report["latency_ms"]
    assert latency["n"] == report["alerts_timed"] and 0 < latency["median"] <= latency["max"]
    assert report["process_ms"]["n"] > 0
    assert report["soak"]["frames"] == 30 and report["soak"]["rss_mib"][-1][0] == 30
    text = format_report(report)
    assert "hand leaves -> alert at the client: median" in text and "soak: 30 frames" in text


def test_an_alert_is_timed_from_the_last_hand_leaving_before_its_frame():
    leave_times = {10: 100.0, 20: 200.0}
    arrivals = [(100.5, {"frame": 12}), (200.25, {"frame": 23}), (5.0, {"frame": 3}), (1.0, {})]
    assert latencies(leave_times, arrivals) == [0.5, 0.25]
