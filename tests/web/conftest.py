"""Fixtures: the app around a fake runtime, its test client, a real waitress server and Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from device.runtime import Runtime
from device.store import Store
from tests.device.gryb_fakes import ScriptedBandanna, bandanna_runtime
from tests.web.fake_runtime import FakeRuntime
from web import create_app
from web.background import BackgroundServer

CHROMIUM = "/usr/bin/chromium"
PHONE = {"width": 375, "height": 812}
DESKTOP = {"width": 1440, "height": 900}


@pytest.fixture
def runtime() -> FakeRuntime:
    return FakeRuntime()


@pytest.fixture
def calibration_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "calibration.json"


def make_app(runtime: Any, calibration_path: Path) -> Flask:
    """The app in test mode around ``runtime``, with a short SSE heartbeat for quick streams."""
    return create_app(
        {"TESTING": True, "BOARDCAM_SSE_HEARTBEAT_S": 0.3, "BOARDCAM_CALIBRATION_PATH": str(calibration_path)},
        runtime=runtime,
    )


@pytest.fixture
def app(runtime: FakeRuntime, calibration_path: Path) -> Flask:
    return make_app(runtime, calibration_path)


@pytest.fixture
def bandanna_app(
    tmp_path: Path, calibration_path: Path
) -> Iterator[tuple[Flask, Runtime, ScriptedBandanna]]:
    """The app around a real runtime watching the bandanna (scripted ring readings)."""
    store = Store(tmp_path / "data")
    script = ScriptedBandanna()
    runtime = bandanna_runtime(store, script, pin="2468")
    yield make_app(runtime, calibration_path), runtime, script
    store.close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@dataclass
class LiveServer:
    url: str
    runtime: Any
    app: Flask


def serve(app: Flask, port: int = 0) -> Iterator[str]:
    """Run ``app`` under waitress on localhost (a free port unless given) while the generator lives."""
    with BackgroundServer(app, port=port, threads=16, channel_request_lookahead=1) as server:
        yield server.url


@pytest.fixture
def live_server(app: Flask, runtime: FakeRuntime) -> Iterator[LiveServer]:
    for url in serve(app):
        yield LiveServer(url, runtime, app)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright import (
        sync_api as playwright_api,  # in the test extra: missing is a failure, not a skip
    )

    if not Path(CHROMIUM).exists():
        pytest.fail(f"browser tests need {CHROMIUM} (apt-get install chromium)")
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], headless=True
        )
        yield chromium
        chromium.close()


def _page(browser: Any, viewport: dict[str, int]) -> Iterator[Any]:
    context = browser.new_context(viewport=viewport, device_scale_factor=1, has_touch=viewport is PHONE)
    page = context.new_page()
    # Generous: on a loaded 2-core machine the server, the runtime and Chromium share the CPU.
    page.set_default_timeout(20000)
    yield page
    context.close()


@pytest.fixture
def phone_page(browser: Any) -> Iterator[Any]:
    yield from _page(browser, PHONE)


@pytest.fixture
def desktop_page(browser: Any) -> Iterator[Any]:
    yield from _page(browser, DESKTOP)


def login(page: Any, server: LiveServer) -> None:
    """Open a control session in the browser page without the PIN dialog."""
    page.goto(server.url + "/api/session")
    assert page.request.post(server.url + "/api/login", data={"pin": "2468"}).ok
