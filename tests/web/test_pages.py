"""The HTML pages, static files, the QR code and the app factory."""

from __future__ import annotations

import json
import re

import pytest

from device.events import ALERT_TYPES
from tests.web.fake_runtime import FakeRuntime
from web import create_app
from web.auth import PinThrottle


@pytest.mark.parametrize(("url", "script"), [("/", "dashboard.js"), ("/history", "history.js"), ("/calibrate", "wizard.js")])
def test_pages_render_with_their_module(client, url, script):
    response = client.get(url)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert f'type="module" src="/static/js/{script}"' in html
    assert 'name="viewport"' in html
    assert "https://" not in html  # no CDN: the LAN may have no internet


def test_static_files_need_no_network(client):
    for path in ("js/api.js", "js/ui.js", "js/alerts.js", "js/colours.js", "js/boards/index.js",
                 "js/boards/timevectors.js", "js/dashboard.js", "js/wizard.js", "js/history.js", "style.css"):
        response = client.get(f"/static/{path}")
        assert response.status_code == 200, path
        text = response.get_data(as_text=True)
        assert not re.search(r"""(import|from)\s+["']https?://""", text), path
        response.close()


def test_dashboard_lists_alert_types_for_the_page(client):
    html = client.get("/").get_data(as_text=True)
    listed = json.loads(re.search(r"data-alert-types='([^']*)'", html).group(1))
    assert listed == sorted(ALERT_TYPES)


def test_qr_code_is_svg_of_the_public_url(runtime: FakeRuntime):
    app = create_app({"BOARDCAM_PUBLIC_URL": "http://192.168.1.20:8080/"}, runtime=runtime)
    client = app.test_client()
    svg = client.get("/qr.svg")
    assert svg.mimetype == "image/svg+xml"
    assert svg.data.startswith(b"<svg")
    assert "http://192.168.1.20:8080/" in client.get("/").get_data(as_text=True)
    other = create_app({"BOARDCAM_PUBLIC_URL": "http://10.0.0.5:8080/"}, runtime=runtime).test_client()
    assert other.get("/qr.svg").data != svg.data


def test_qr_code_falls_back_to_the_requested_address(client):
    assert "http://localhost/" in client.get("/").get_data(as_text=True)


def test_create_app_needs_a_runtime():
    with pytest.raises(ValueError, match="needs a runtime"):
        create_app()


def test_apps_do_not_share_state():
    first, second = FakeRuntime(), FakeRuntime()
    app_a, app_b = create_app(runtime=first), create_app(runtime=second)
    first.play("A1P", 0)
    assert app_a.test_client().get("/api/state").json["tokens"] == {"A1P": 0}
    assert app_b.test_client().get("/api/state").json["tokens"] == {}
    assert app_a.config["SECRET_KEY"] != app_b.config["SECRET_KEY"]


class TestPinThrottle:
    def test_blocks_after_max_failures_within_window_then_forgives(self):
        throttle = PinThrottle(max_failures=3, window_s=60)
        for t in (0, 1, 2):
            assert not throttle.is_blocked("a", now=t)
            throttle.record_failure("a", now=t)
        assert throttle.is_blocked("a", now=3)
        assert not throttle.is_blocked("b", now=3)
        assert not throttle.is_blocked("a", now=62.5)

    def test_remembers_a_bounded_number_of_clients(self):
        throttle = PinThrottle(max_failures=1, window_s=60, max_clients=4)
        for index in range(10):
            throttle.record_failure(f"client{index}", now=index)
        assert len(throttle._failures) == 4
        assert throttle.is_blocked("client9", now=10)
        assert not throttle.is_blocked("client0", now=10)


@pytest.mark.parametrize("url", ["/", "/api/state", "/qr.svg", "/api/nothing"])
def test_security_headers(client, url):
    response = client.get(url)
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
