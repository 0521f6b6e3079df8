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

from device.runtime import Runtime
from tests.device.gryb_fakes import ScriptedBandanna, play_to_a_gryb, show
from tests.web.conftest import serve

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("BOARDCAM_SCREENSHOTS")


@pytest.fixture
def bandanna(bandanna_app: tuple) -> Iterator[tuple[str, Runtime, ScriptedBandanna]]:
    app, runtime, script = bandanna_app
    for url in serve(app):
        yield url, runtime, script


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
    play_to_a_gryb(runtime, script)
    win = page.locator("#win-banner")
    win.wait_for(state="visible")
    assert "Colour 1 wins!" in win.inner_text() and "GRYB under 0" in win.inner_text()
    assert page.locator(".gryb-score b").all_inner_texts() == ["1", "0"]
    assert "Colour 1 scored a GRYB" in page.locator("#alert-list").inner_text()
    assert page.locator("polyline[data-gryb='G R Y B']").count() == 1
    assert page.locator("#roll-button").is_disabled()
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "desktop-gryb-win.png"), full_page=True)
