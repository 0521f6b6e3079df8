"""The product as ``boardcam serve`` runs it with no camera: the real runtime playing the demo.

One real headless Chromium follows the scripted demo game on the phone
dashboard: moves advance, the illegal move raises an alert, the win shows its
banner and vector. The demo runs at its default 4 fps, as ``boardcam serve`` runs it: the
pipeline looks at the newest frame only, so a busier pace could skip the short still
moments of the script on a loaded machine. (This takes ~25 s.)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from device.config import Config
from device.settings import build_runtime
from tests.web.conftest import serve
from tests.web.test_browser import shot
from web import create_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]



@pytest.fixture
def demo_url(tmp_path: Path) -> Iterator[str]:
    config = Config()
    config.camera.source = "demo"
    config.storage.data_dir = str(tmp_path)
    config.server.pin = "2468"
    runtime, _ = build_runtime(config)
    app = create_app({"BOARDCAM_SSE_HEARTBEAT_S": 1.0, "BOARDCAM_CALIBRATION_PATH": str(tmp_path / "c.json")},
                     runtime=runtime)
    runtime.start()
    try:
        yield from serve(app)
    finally:
        runtime.stop()
        runtime.store.close()


def test_demo_game_plays_out_on_the_phone_dashboard(phone_page, demo_url):
    page = phone_page
    page.goto(demo_url + "/", wait_until="domcontentloaded")
    page.wait_for_selector("body[data-live='yes']")
    assert page.locator("#camera-text").inner_text().startswith(("demo", "starting"))

    page.wait_for_selector("circle[data-token='A1S']", timeout=60_000)
    page.wait_for_selector("circle[data-token='F6Q']", timeout=60_000)

    # The script moves B1R to B2R. (When the machine is too busy to look at every frame, the
    # pipeline may read the fast move before it and this one as one change: still illegal.)
    page.wait_for_selector("body[data-last-alert='illegal']", timeout=90_000)
    banner = page.locator("#alert-banner")
    assert banner.is_visible()
    assert "Illegal change" in banner.inner_text()
    assert "token moved from B1R to" in banner.inner_text()
    page.wait_for_selector("rect[data-mismatch]", timeout=10_000)

    win = page.locator("#win-banner")
    win.wait_for(state="visible", timeout=90_000)
    assert "Colour 1 wins!" in win.inner_text()
    assert "1st and 3rd dimensions: A1S B1R C1Q D1P" in win.inner_text()
    assert page.locator("polyline[data-vector='A1S B1R C1Q D1P']").count() == 1
    assert page.locator("#alert-list li[data-type='illegal']").count() >= 1
    assert page.evaluate("document.getElementById('camera-view').naturalWidth") > 0
    shot(page, "phone-demo-win")
