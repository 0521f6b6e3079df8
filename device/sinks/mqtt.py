"""MQTT sink (paho-mqtt) with Home Assistant friendly topics.

Topics under a prefix (default ``boardcam``):

- ``PREFIX/status``: retained ``online``/``offline`` (the broker publishes ``offline``
  as our last will when the connection drops);
- ``PREFIX/event/TYPE``: every delivered event record as JSON (not retained);
- ``PREFIX/alert``: the last alert record, retained, for a "last alert" sensor;
- ``PREFIX/state``: retained game summary (turn, winner, moves, camera status);
- ``homeassistant/sensor/.../config``: retained MQTT discovery entries (turn, moves, winner,
  last alert, camera), so Home Assistant lists the sensors without any YAML.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from typing import Any

from device.sinks import Sink, SinkError

logger = logging.getLogger(__name__)

Message = tuple[str, str, bool]  # topic, payload, retain

STATE_KEYS = ("game_id", "turn", "winner", "moves", "camera", "last_move", "players")
DISCOVERY_PREFIX = "homeassistant"

#: Home Assistant sensors: (key, name, state topic suffix, value template, icon).
SENSORS = (
    ("turn", "Turn", "state", "{{ 'colour %s' % value_json.turn if value_json.turn is not none else 'none' }}",
     "mdi:account-arrow-right"),
    ("moves", "Moves", "state", "{{ value_json.moves }}", "mdi:counter"),
    ("winner", "Winner", "state",
     "{{ 'colour %s' % value_json.winner.color if value_json.winner else 'none' }}", "mdi:trophy"),
    ("camera", "Camera", "state", "{{ value_json.camera.status if value_json.camera else 'unknown' }}", "mdi:camera"),
    ("alert", "Last alert", "alert", "{{ value_json.type }}", "mdi:alert"),
)


def event_messages(record: Mapping[str, Any], prefix: str) -> list[Message]:
    """The messages one event record becomes."""
    payload = json.dumps(dict(record), separators=(",", ":"))
    messages = [(f"{prefix}/event/{record.get('type', 'event')}", payload, False)]
    if record.get("type") != "move":
        messages.append((f"{prefix}/alert", payload, True))
    return messages


def discovery_messages(prefix: str) -> list[Message]:
    """Retained Home Assistant MQTT discovery entries for the sensors of :data:`SENSORS`."""
    node = "".join(c if c.isalnum() else "_" for c in prefix)
    device = {"identifiers": [f"boardcam_{node}"], "name": f"boardcam ({prefix})", "manufacturer": "boardcam"}
    messages = []
    for key, name, topic, template, icon in SENSORS:
        config = {
            "name": name,
            "unique_id": f"boardcam_{node}_{key}",
            "state_topic": f"{prefix}/{topic}",
            "value_template": template,
            "availability_topic": f"{prefix}/status",
            "icon": icon,
            "device": device,
        }
        if key == "alert":
            config["json_attributes_topic"] = f"{prefix}/alert"
        messages.append((f"{DISCOVERY_PREFIX}/sensor/boardcam_{node}/{key}/config",
                         json.dumps(config, separators=(",", ":")), True))
    return messages


def state_message(state: Mapping[str, Any], prefix: str) -> Message:
    """The retained summary: a few small keys of the runtime state (not the whole board)."""
    summary = {key: state.get(key) for key in STATE_KEYS}
    if isinstance(summary["moves"], list):
        summary["moves"] = len(summary["moves"])
    return (f"{prefix}/state", json.dumps(summary, separators=(",", ":")), True)


class MqttSink(Sink):
    """Publish alerts and state to a broker; paho reconnects by itself in its network thread."""

    def __init__(
        self,
        host: str,
        port: int = 1883,
        *,
        prefix: str = "boardcam",
        username: str = "",
        password: str = "",
        connect_timeout: float = 5.0,
        discovery: bool = True,
    ) -> None:
        self.host = host
        self.port = port
        self.prefix = prefix.rstrip("/")
        self.username = username
        self.password = password
        self.connect_timeout = connect_timeout
        self.discovery = discovery
        self.name = f"mqtt {host}:{port}"
        self._client: Any = None
        self._connected = threading.Event()

    def start(self) -> None:
        try:
            import paho.mqtt.client as mqtt
        except ImportError as exc:  # a dependency of boardcam: only a broken install lacks it
            raise SinkError("paho-mqtt is not installed (pip install paho-mqtt)") from exc
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"boardcam-{id(self):x}")
        if self.username:
            client.username_pw_set(self.username, self.password or None)
        client.will_set(f"{self.prefix}/status", "offline", qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        try:
            client.connect(self.host, self.port, keepalive=30)
        except OSError as exc:
            raise SinkError(f"cannot connect to MQTT broker {self.host}:{self.port}: {exc}") from exc
        client.loop_start()
        self._client = client
        if not self._connected.wait(self.connect_timeout):
            logger.warning("MQTT broker %s:%s has not accepted the connection yet", self.host, self.port)

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        if getattr(reason_code, "is_failure", False):
            logger.warning("MQTT broker refused the connection: %s", reason_code)
            return
        self._connected.set()
        if self.discovery:
            for topic, payload, retain in discovery_messages(self.prefix):
                client.publish(topic, payload, qos=1, retain=retain)
        client.publish(f"{self.prefix}/status", "online", qos=1, retain=True)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        self._connected.clear()

    def _publish(self, messages: list[Message]) -> None:
        if self._client is None:
            raise SinkError(f"{self.name} is not started")
        if not self._connected.is_set():
            raise SinkError(f"{self.name} is not connected")
        for topic, payload, retain in messages:
            info = self._client.publish(topic, payload, qos=1, retain=retain)
            if info.rc != 0:
                raise SinkError(f"{self.name} refused to publish to {topic} (rc {info.rc})")

    def deliver(self, record: Mapping[str, Any]) -> None:
        self._publish(event_messages(record, self.prefix))

    def publish_state(self, state: Mapping[str, Any]) -> None:
        self._publish([state_message(state, self.prefix)])

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            info = client.publish(f"{self.prefix}/status", "offline", qos=1, retain=True)
            try:
                info.wait_for_publish(1.0)
            except (RuntimeError, ValueError):
                pass
            client.disconnect()
            client.loop_stop()
