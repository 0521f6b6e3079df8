"""SSE and MJPEG: the test client for the message format, a real server for real clients."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

from tests.web.fake_runtime import FakeRuntime
from web.stream import PART_HEAD, event_stream, mjpeg_stream, record_message, sse_message


def read_messages(lines, count: int) -> list[tuple[str | None, dict]]:
    """Parse ``count`` SSE messages (event name, JSON data) from an iterator of text lines."""
    messages, event, data = [], None, None
    for line in lines:
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data = json.loads(line[6:])
        elif line == "" and data is not None:
            messages.append((event, data))
            event, data = None, None
            if len(messages) == count:
                return messages
    raise AssertionError(f"stream ended after {len(messages)} messages")


def test_sse_message_format():
    assert sse_message({"a": 1}) == b'data: {"a":1}\n\n'
    assert sse_message({"a": 1}, "state") == b'event: state\ndata: {"a":1}\n\n'


def test_state_records_become_state_events_with_dimensions():
    record = {"type": "state", "state": {"winner": {"color": 0, "vectors": [["A1P", "A1Q", "A1R", "A1S"]]}}}
    message = record_message(record).decode()
    assert message.startswith("event: state\n")
    assert json.loads(message.split("data: ", 1)[1])["winner"]["dimensions"] == ["3rd"]


def test_event_records_are_plain_messages_unchanged():
    record = {"type": "move", "frame": 17, "point": "A3Q", "color": 0, "time": 5.0, "game_id": "g"}
    message = record_message(record).decode()
    assert message.startswith("data: ")
    assert json.loads(message[6:]) == record


def test_event_stream_state_first_then_records_then_heartbeat_and_unsubscribes(runtime: FakeRuntime):
    stream = event_stream(runtime, heartbeat_s=0.05, is_disconnected=lambda: False)
    assert next(stream).startswith(b"retry: ")
    first = next(stream).decode()
    assert first.startswith("event: state\n")
    runtime.play("B2Q", 1)
    move = json.loads(next(stream).decode()[6:])
    assert (move["type"], move["point"], move["color"]) == ("move", "B2Q", 1)
    assert next(stream).startswith(b"event: state\n")
    assert next(stream) == b": heartbeat\n\n"
    assert runtime.subscriber_count == 1
    stream.close()  # what the server does when the client goes away
    assert runtime.subscriber_count == 0


def test_event_stream_ends_when_client_disconnected(runtime: FakeRuntime):
    gone = iter([False, True])
    chunks = list(event_stream(runtime, heartbeat_s=0.01, is_disconnected=lambda: next(gone)))
    assert chunks[0].startswith(b"retry: ")
    assert runtime.subscriber_count == 0


def test_event_stream_ends_when_the_runtime_closes_the_subscription(runtime: FakeRuntime):
    stream = event_stream(runtime, heartbeat_s=5, is_disconnected=lambda: False)
    next(stream), next(stream)  # retry hint, state
    runtime._subscribers[0].put(None)  # what a runtime that shuts down sends
    assert list(stream) == []
    assert runtime.subscriber_count == 0


def test_events_route_through_test_client(client, runtime: FakeRuntime):
    response = client.get("/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    lines = (line for chunk in response.response for line in chunk.decode().split("\n"))
    (event, state), = read_messages(lines, 1)
    assert event == "state" and state["board"] == "timevectors"
    response.close()
    assert runtime.subscriber_count == 0


def test_mjpeg_sends_new_frames_once_and_resends_as_keepalive():
    frames = iter([b"A", b"A", None, b"B"])
    current = {"jpeg": None}

    def latest():
        value = next(frames, current["jpeg"])
        current["jpeg"] = value if value is not None else current["jpeg"]
        return value

    stream = mjpeg_stream(latest, interval_s=0.0, resend_s=3600)
    assert next(stream) == PART_HEAD
    assert next(stream) == b"A\r\n" + PART_HEAD
    assert next(stream) == b"B\r\n" + PART_HEAD  # the repeated b"A" object and the None were skipped


class TestLiveServer:
    @contextlib.contextmanager
    def _get(self, url: str, path: str) -> Iterator[http.client.HTTPResponse]:
        parts = urlsplit(url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            with contextlib.closing(response):
                yield response
        finally:
            connection.close()

    def test_late_client_gets_state_then_live_records(self, live_server):
        live_server.runtime.play("A1P", 0)
        with self._get(live_server.url, "/events") as response:
            self._read_live_events(live_server, response)

    def _read_live_events(self, live_server, response):
        assert response.status == 200
        assert response.getheader("Content-Type").startswith("text/event-stream")
        lines = (raw.decode().rstrip("\r\n") for raw in iter(response.readline, b""))
        (event, state), = read_messages(lines, 1)
        assert event == "state" and state["tokens"] == {"A1P": 0}
        live_server.runtime.play("B2Q", 1)
        (_, move), (event, state) = read_messages(lines, 2)
        assert move["type"] == "move" and move["point"] == "B2Q"
        assert event == "state" and state["moves"] == ["A1P", "B2Q"]

    def test_dropped_clients_leave_no_subscription(self, live_server):
        parts = urlsplit(live_server.url)
        clients = []
        for _ in range(3):
            client = socket.create_connection((parts.hostname, parts.port), timeout=5)
            client.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            assert b"200 OK" in client.recv(4096)  # the stream is open
            clients.append(client)
        deadline = time.monotonic() + 5
        while live_server.runtime.subscriber_count < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert live_server.runtime.subscriber_count == 3
        for client in clients:
            client.close()
        deadline = time.monotonic() + 5
        while live_server.runtime.subscriber_count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert live_server.runtime.subscriber_count == 0

    def test_more_dropped_clients_than_server_threads_leave_it_serving(self, live_server):
        parts = urlsplit(live_server.url)
        for _ in range(24):  # the test server has 16 threads; each stream holds one while open
            for path in (b"/events", b"/stream.mjpg"):
                client = socket.create_connection((parts.hostname, parts.port), timeout=5)
                client.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n\r\n")
                assert b"200 OK" in client.recv(4096)
                client.close()
        with self._get(live_server.url, "/api/state") as response:
            assert response.status == 200
        deadline = time.monotonic() + 5
        while live_server.runtime.subscriber_count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert live_server.runtime.subscriber_count == 0

    def test_mjpeg_over_http(self, live_server):
        with self._get(live_server.url, "/stream.mjpg") as response:
            assert response.getheader("Content-Type") == "multipart/x-mixed-replace; boundary=frame"
            data = b""
            while data.count(b"--frame") < 2:
                data += response.read1(65536)
        jpeg = data.split(PART_HEAD)[1].rsplit(b"\r\n", 1)[0]
        assert jpeg == live_server.runtime.latest_jpeg()

    def test_snapshot(self, live_server):
        with self._get(live_server.url, "/snapshot.jpg") as response:
            assert response.status == 200
            assert response.read() == live_server.runtime.latest_jpeg()


def test_mjpeg_stops_when_client_gone():
    gone = iter([False, True])
    assert list(mjpeg_stream(lambda: b"A", 0.0, lambda: next(gone))) == [PART_HEAD, b"A\r\n" + PART_HEAD]
