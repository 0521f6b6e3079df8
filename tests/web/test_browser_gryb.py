"""Headless Chromium on the dashboard of a runtime watching the bandanna (the real runtime,
pipeline and referee; scripted ring readings): the bandanna drawn, the die, the score and
the alerts.

Set ``BOARDCAM_SCREENSHOTS=DIR`` to keep PNG screenshots of the pages.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from device import gryb_view
from device.runtime import Runtime
from device.store import Store
from tests.device.fakes_runtime import ScriptedSource
from tests.device.gryb_fakes import ScriptedBandanna, bandanna_calibration
from tests.web.conftest import serve
from web import create_app

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("BOARDCAM_SCREENSHOTS")


@pytest.fixture
def bandanna(tmp_path: Path) -> Iterator[tuple[str, Runtime, ScriptedBandanna]]:
    store = Store(tmp_path / "data")
    script = ScriptedBandanna()
    runtime = Runtime(
        ScriptedSource(["empty"]),
        store=store,
        pin="2468",
        calibration=bandanna_calibration(),
        pipeline_factory=script.pipeline_factory,
        game_factory=gryb_view.game_factory("ez-gryb"),
        board="gryb",
    )
    app = create_app(
        {
            "TESTING": True,
            "BOARDCAM_SSE_HEARTBEAT_S": 0.3,
            "BOARDCAM_CALIBRATION_PATH": str(tmp_path / "c.json"),
        },
        runtime=runtime,
    )
    for url in serve(app):
        yield url, runtime, script
    store.close()


def show(runtime: Runtime, script: ScriptedBandanna, rings: dict[str, int]) -> None:
    for _ in range(2):
        runtime.process_frame(script.frame(rings))


def test_bandanna_dashboard_rolls_reads_rings_and_alerts(phone_page, bandanna) -> None:
    page = phone_page
    url, runtime, script = bandanna
    page.goto(url + "/", wait_until="domcontentloaded")
    page.wait_for_selector("body[data-live='yes']")
    page.wait_for_selector("#board svg.gryb-board")
    assert page.locator("#board circle.spot").count() == 341
    assert page.locator("#board rect.cell").count() == 0
    card = page.locator("#gryb-card")
    assert card.is_visible() and page.locator("#gryb-title").inner_text() == "EZ GRYB"
    assert page.locator(".gryb-score b").all_inner_texts() == ["0", "0"]
    assert page.locator("#gryb-die").inner_text() == "colour"

    # A physical die showed blue: typed in (PIN-protected), then the ring is read.
    show(runtime, script, {})
    page.locator("#roll-face").fill("b")
    page.locator("#roll-typed").click()
    page.locator("#pin-input").fill("2468")
    page.locator("#pin-submit").click()
    page.wait_for_selector("#gryb-roll:text-is('B')")
    show(runtime, script, {"B": 0})
    page.wait_for_selector("circle[data-ring='B']")
    assert page.locator("#last-move").inner_text() == "B"

    # Player 2 uses the virtual die; then a ring where the rules do not allow one.
    page.locator("#roll-button").click()
    page.wait_for_selector("body[data-moves='3']")
    show(runtime, script, {"B": 0, "RR": 1})
    banner = page.locator("#alert-banner")
    banner.wait_for(state="visible")
    assert "Illegal change" in banner.inner_text()
    assert page.locator("rect[data-mismatch='RR']").count() == 1
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / "phone-gryb-illegal.png"), full_page=True)
    show(runtime, script, {"B": 0})
    banner.wait_for(state="hidden")


def test_a_gryb_scored_is_announced_with_the_score(desktop_page, bandanna) -> None:
    page = desktop_page
    url, runtime, script = bandanna
    page.goto(url + "/", wait_until="domcontentloaded")
    page.wait_for_selector("body[data-live='yes']")
    show(runtime, script, {})
    rings: dict[str, int] = {}
    for colour in "BYR":
        runtime.roll(colour)
        rings[colour] = 0
        show(runtime, script, rings)
        runtime.roll(colour)  # of no use to player 2: the turn passes
    runtime.roll("G")
    show(runtime, script, {**rings, "G": 0})
    win = page.locator("#win-banner")
    win.wait_for(state="visible")
    assert "Colour 1 wins!" in win.inner_text() and "GRYB under 0" in win.inner_text()
    assert page.locator(".gryb-score b").all_inner_texts() == ["1", "0"]
    assert "Colour 1 scored a GRYB" in page.locator("#alert-list").inner_text()
    assert page.locator("polyline[data-gryb='G R Y B']").count() == 1
    assert page.locator("#roll-button").is_disabled()
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "desktop-gryb-win.png"), full_page=True)
