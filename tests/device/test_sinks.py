"""Alert sinks: ntfy and webhook delivery to a real local HTTP server, retries, MQTT, GPIO."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import threading
import time
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from device.config import SinksConfig
from device.events import ILLEGAL, MOVE, RESTORED, WIN, Event, EventBus
from device.sinks import Sink, SinkDispatcher, SinkError
from device.sinks.build import build_sinks
from device.sinks.gpio import INSTALL_HINT, GpioSink, beep_pattern
from device.sinks.messages import alert_message
from device.sinks.mqtt import MqttSink, discovery_messages, event_messages, state_message
from device.sinks.push import NtfySink, WebhookSink, ntfy_request

WIN_RECORD = {"type": "win", "frame": 40, "color": 0, "vectors": [["A1P", "B1P", "C1P", "D1P"]], "time": 1.0,
              "game_id": "g1"}
ILLEGAL_RECORD = {"type": "illegal", "frame": 22, "reasons": ["token removed from C2R"], "points": ["C2R"],
                  "time": 2.0, "game_id": "g1"}


class Recorder(BaseHTTPRequestHandler):
    """Keeps every POST; answers with the server's ``status`` (a list: one status per request)."""

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        self.server.requests.append((self.path, dict(self.headers), self.rfile.read(length)))
        status = self.server.statuses.pop(0) if self.server.statuses else 200
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def http_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    server.requests = []
    server.statuses = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def url(server, path: str) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}{path}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_alert_messages_are_written_for_people():
    win = alert_message(WIN_RECORD, ["Ann", "Bob"])
    assert win.title == "Ann wins" and "A1P B1P C1P D1P" in win.text and win.priority == 5
    illegal = alert_message(ILLEGAL_RECORD)
    assert illegal.title == "Illegal move" and illegal.text == "token removed from C2R"
    assert alert_message({"type": "camera_status", "status": "reconnecting", "message": "gone"}).text == "gone"
    assert alert_message({"type": "confirm_hidden", "points": ["A1Q", "B1Q"]}).text.endswith("A1Q, B1Q")
    in_line = {"type": "confirm_hidden", "in_line": True, "candidates": ["A7P", "D8Q"], "points": ["A7P"]}
    assert alert_message(in_line).text.startswith("Is the token on A7P or D8Q?")
    assert alert_message({"type": "move", "color": 1, "point": "A1P"}).text == "colour 1 played A1P"
    assert alert_message({"type": "move", "color": 1, "point": "A1P", "kind": "swap"}).text == "colour 1 swapped A1P"
    chosen = alert_message({"type": "move", "color": 0, "kind": "choose"}, ["Ann", "Bob"])
    assert (chosen.title, chosen.text) == ("Colour chosen", "the second player chose colour 0")
    assert alert_message({"type": "restored"}).title == "Restored"


def test_alerts_of_games_played_on_the_phone_name_winner_and_reason():
    win = alert_message({"type": "win", "color": 0, "winner": "blue", "reason": "the Time-Lord was captured"})
    assert (win.title, win.text) == ("blue wins", "the Time-Lord was captured")
    draw = alert_message({"type": "draw", "reason": "all Warriors are gone"})
    assert draw.text == "all Warriors are gone"
    assert alert_message({"type": "draw"}).text == "The supplies ran out with no vector."


def test_ntfy_push_reaches_a_local_server(http_server):
    NtfySink(url(http_server, "/boardcam-topic"), token="secret").deliver(WIN_RECORD)
    path, headers, body = http_server.requests[0]
    assert path == "/boardcam-topic"
    assert headers["Title"] == "colour 0 wins"
    assert headers["Priority"] == "5" and headers["Tags"] == "trophy"
    assert headers["Authorization"] == "Bearer secret"
    assert body.decode() == "Vector: A1P B1P C1P D1P"


def test_ntfy_headers_stay_ascii():
    body, headers = ntfy_request(WIN_RECORD, ["Zoë"])
    assert headers["Title"] == "Zo? wins"
    headers["Title"].encode("latin-1")


def test_webhook_posts_the_record_as_json(http_server):
    WebhookSink(url(http_server, "/hook")).deliver(ILLEGAL_RECORD)
    path, headers, body = http_server.requests[0]
    assert headers["Content-Type"] == "application/json"
    assert json.loads(body) == ILLEGAL_RECORD


def test_http_errors_raise_sink_errors(http_server):
    http_server.statuses = [500]
    with pytest.raises(SinkError, match="500"):
        WebhookSink(url(http_server, "/hook")).deliver(ILLEGAL_RECORD)
    with pytest.raises(SinkError, match="cannot reach"):
        NtfySink(f"http://127.0.0.1:{free_port()}/t", timeout=1).deliver(WIN_RECORD)


def test_dispatcher_retries_then_gives_up_without_raising(http_server):
    waits = []
    sink = WebhookSink(url(http_server, "/hook"))
    dispatcher = SinkDispatcher([sink], [WIN], retries=2, backoff=0.5, sleep=waits.append)
    http_server.statuses = [503, 200]
    assert dispatcher.deliver_to(sink, WIN_RECORD)
    assert len(http_server.requests) == 2 and waits == [0.5]
    http_server.statuses = [500, 500, 500]
    assert not dispatcher.deliver_to(sink, WIN_RECORD)
    assert len(http_server.requests) == 5 and waits == [0.5, 0.5, 1.0]
    assert dispatcher.failures[sink.name] == 1


class Exploding(Sink):
    name = "exploding"

    def deliver(self, record):
        raise KeyError("bug")


def test_dispatcher_on_the_bus_filters_types_and_survives_a_broken_sink(http_server):
    bus = EventBus()
    hook = WebhookSink(url(http_server, "/hook"))
    dispatcher = SinkDispatcher([Exploding(), hook], [WIN, ILLEGAL], state=lambda: {"turn": 1})
    dispatcher.attach(bus)
    for kind, data in [(MOVE, {"point": "A1P", "color": 0}), (RESTORED, {}), (WIN, {"color": 0, "vectors": []})]:
        bus.fire(Event(kind, data, frame=1, game_id="g"))
    assert bus.wait_idle(5)
    bus.close()
    assert [json.loads(body)["type"] for _, _, body in http_server.requests] == ["win"]
    assert dispatcher.failures == {"exploding": 1, hook.name: 0}


def test_build_sinks_from_config():
    config = SinksConfig(ntfy=["https://ntfy.sh/t"], webhooks=["http://h/x"])
    config.mqtt.host = "broker"
    config.gpio.led_pin = 17
    names = [type(s).__name__ for s in build_sinks(config)]
    assert names == ["NtfySink", "WebhookSink", "MqttSink", "GpioSink"]
    assert build_sinks(SinksConfig()) == []


def test_mqtt_payloads_are_home_assistant_friendly():
    messages = event_messages(WIN_RECORD, "boardcam")
    assert [(t, r) for t, _, r in messages] == [("boardcam/event/win", False), ("boardcam/alert", True)]
    assert json.loads(messages[0][1]) == WIN_RECORD
    assert [t for t, _, _ in event_messages({"type": "move"}, "bc")] == ["bc/event/move"]
    topic, payload, retain = state_message({"turn": 1, "moves": ["A1P:0", "B1P:1"], "tokens": {"A1P": 0}}, "bc")
    assert (topic, retain) == ("bc/state", True)
    assert json.loads(payload)["moves"] == 2 and "tokens" not in json.loads(payload)


def test_home_assistant_discovery_entries_render_the_state():
    from jinja2 import Template  # Home Assistant's templates are Jinja2

    entries = {topic: json.loads(payload) for topic, payload, retain in discovery_messages("bc") if retain}
    assert set(entries) == {f"homeassistant/sensor/boardcam_bc/{key}/config"
                            for key in ("turn", "moves", "winner", "camera", "alert")}
    _, state_payload, _ = state_message({"turn": 1, "moves": ["A1P:0"], "winner": None,
                                         "camera": {"status": "ok"}}, "bc")
    state = json.loads(state_payload)
    rendered = {topic.split("/")[3]: Template(entry["value_template"]).render(value_json=state)
                for topic, entry in entries.items() if entry["state_topic"] == "bc/state"}
    assert rendered == {"turn": "colour 1", "moves": "1", "winner": "none", "camera": "ok"}
    won = {**state, "turn": None, "winner": {"color": 0, "vectors": []}}
    winner = entries["homeassistant/sensor/boardcam_bc/winner/config"]["value_template"]
    assert Template(winner).render(value_json=won) == "colour 0"
    assert all(e["availability_topic"] == "bc/status" for e in entries.values())
    assert len({e["unique_id"] for e in entries.values()}) == 5


def mosquitto() -> str | None:
    return shutil.which("mosquitto") or next((p for p in ["/usr/sbin/mosquitto"] if Path(p).exists()), None)


def test_mqtt_sink_publishes_to_a_local_broker(tmp_path):
    import paho.mqtt.client as mqtt

    assert mosquitto(), "this test needs Debian's mosquitto broker: apt-get install mosquitto"

    port = free_port()
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    broker = subprocess.Popen([mosquitto(), "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 5
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        received: list[tuple[str, bytes, bool]] = []
        listener = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        listener.on_message = lambda c, u, m: received.append((m.topic, m.payload, m.retain))
        listener.connect("127.0.0.1", port)
        listener.subscribe([("bc/#", 1), ("homeassistant/#", 1)])
        listener.loop_start()
        sink = MqttSink("127.0.0.1", port, prefix="bc")
        sink.start()
        sink.deliver(WIN_RECORD)
        sink.publish_state({"turn": None, "winner": {"color": 0}, "moves": ["A1P:0"]})
        deadline = time.monotonic() + 5
        while len({t for t, _, _ in received}) < 9 and time.monotonic() < deadline:
            time.sleep(0.02)
        sink.close()
        time.sleep(0.2)
        listener.loop_stop()
        listener.disconnect()
    finally:
        broker.terminate()
        broker.wait(5)
    topics = {t: p for t, p, _ in received}
    assert json.loads(topics["bc/event/win"]) == WIN_RECORD
    assert json.loads(topics["bc/alert"])["type"] == "win"
    assert json.loads(topics["bc/state"])["winner"] == {"color": 0}
    assert json.loads(topics["homeassistant/sensor/boardcam_bc/turn/config"])["state_topic"] == "bc/state"
    statuses = [p for t, p, _ in received if t == "bc/status"]
    assert statuses[0] == b"online" and statuses[-1] == b"offline"


def test_mqtt_sink_reports_an_unreachable_broker():
    sink = MqttSink("127.0.0.1", free_port(), connect_timeout=0.5)
    with pytest.raises(SinkError, match="cannot connect"):
        sink.start()
    with pytest.raises(SinkError, match="not started"):
        sink.deliver(WIN_RECORD)


def test_gpio_sink_says_how_to_install_gpiozero(monkeypatch):
    monkeypatch.setitem(sys.modules, "gpiozero", None)  # import raises ImportError
    sink = GpioSink(buzzer_pin=18)
    with pytest.raises(SinkError, match="python3-gpiozero") as info:
        sink.start()
    assert str(info.value) == INSTALL_HINT
    with pytest.raises(SinkError, match="needs a buzzer pin or an LED pin"):
        GpioSink()


def test_gpio_sink_blinks_the_pattern_of_each_alert(monkeypatch):
    blinks = []

    class Device:
        def __init__(self, pin):
            self.pin = pin

        def blink(self, **kwargs):
            blinks.append((self.pin, kwargs))

        def close(self):
            blinks.append((self.pin, "closed"))

    monkeypatch.setitem(sys.modules, "gpiozero", types.SimpleNamespace(Buzzer=Device, LED=Device))
    sink = GpioSink(buzzer_pin=18, led_pin=23)
    sink.start()
    sink.deliver(ILLEGAL_RECORD)
    sink.close()
    on, off, n = beep_pattern(ILLEGAL_RECORD)
    assert blinks == [(18, dict(on_time=on, off_time=off, n=n, background=True)),
                      (23, dict(on_time=on, off_time=off, n=n, background=True)), (18, "closed"), (23, "closed")]
    assert beep_pattern(WIN_RECORD)[0] > beep_pattern(ILLEGAL_RECORD)[0]
