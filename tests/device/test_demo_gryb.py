"""The bandanna's demo: its script is a real EZ GRYB game with every kind of event, and the
real pipeline reading the demo's rendered frames reports exactly the script's events."""

from __future__ import annotations

import pytest

from device.demo_script import GRYB_DEMO_GAME, gryb_demo_script, scripted_events
from device.pipeline import Pipeline
from device.sources.demo import DemoSource
from rules.gryb.games import new_game


def without_text(records: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in ("text", "time", "frame")} for r in records]


def test_the_script_shows_every_kind_of_event() -> None:
    records = scripted_events(gryb_demo_script(), lambda: new_game(GRYB_DEMO_GAME, seed=0))
    kinds = [r["type"] for r in records]
    assert kinds.count("illegal") == 1 and kinds.count("restored") == 1
    assert kinds[-3:] == ["gryb", "win", "game_started"]
    moves = [(r["kind"], r.get("point")) for r in records if r["type"] == "move"]
    assert ("move", "GR") in moves and ("roll", None) in moves
    assert any(shot.hand_at is not None for shot in gryb_demo_script())


def test_the_pipeline_reads_the_demo_as_scripted() -> None:
    source = DemoSource(fps=0, loop=False, board="gryb")
    assert source.palette is None and "EZ GRYB" in source.description
    calibration = source.calibration()
    assert calibration.board == "gryb"
    pipeline = Pipeline(calibration, new_game(GRYB_DEMO_GAME, seed=0), stable_frames=3)
    source.start()
    seen = []
    while (frame := source.read()) is not None:
        seen += [event.to_record() for event in pipeline.process(frame)]
    source.stop()
    expected = scripted_events(gryb_demo_script(), lambda: new_game(GRYB_DEMO_GAME, seed=0))
    assert without_text(seen) == without_text(expected)


def test_an_unknown_demo_board_is_refused() -> None:
    with pytest.raises(ValueError, match="timevectors or gryb"):
        DemoSource(fps=0, board="chess")
