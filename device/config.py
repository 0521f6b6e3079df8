"""The companion's TOML configuration: typed sections, a documented field each, versioned.

Every field carries its documentation in ``metadata["doc"]`` so that the
example file (:func:`example_toml`) and error messages come from one place.
``version`` is bumped whenever the layout changes, with a migration from the
previous version in :data:`MIGRATIONS` (like OctoPrint's config schema), so an
old file keeps working after an upgrade.

Loading raises :class:`ConfigError` (a ``ValueError``) naming the file, the key
and what is wrong: an unknown key is an error, not silently ignored.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

CONFIG_VERSION = 2
OPENINGS = ("none", "swap", "3meq")
PLAYER_COUNTS = (2, 3, 4, 6)


class ConfigError(ValueError):
    """A configuration file or value that cannot be used; the message says which key and why."""


def _doc(default: Any, text: str, **kwargs: Any) -> Any:
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata={"doc": text}, **kwargs)
    return field(default=default, metadata={"doc": text}, **kwargs)


@dataclass
class CameraConfig:
    """Where frames come from and how the board is mapped."""

    source: str = _doc(
        "demo",
        'Frame source: "demo", "picamera", "opencv:0" (USB index), "opencv:rtsp://..." '
        '(stream URL or video file) or "folder:DIR".',
    )
    calibration: str = _doc("", "Calibration file written by `boardcam calibrate` or the wizard; empty: "
                            "the demo's own for the demo source, else the last one saved by the wizard.")
    palette: str = _doc("", "Token colours as a JSON list of [r, g, b]; empty: learnt from the board.")
    fps: float = _doc(4.0, "Frames per second to capture; 4 is plenty to referee a board game.")
    stable_frames: int = _doc(3, "Calm, identical frames in a row before the board counts as settled: "
                              "fewer alert sooner, more resist misreads.")
    width: int = _doc(1280, "Capture width in pixels (picamera and OpenCV cameras).")
    height: int = _doc(960, "Capture height in pixels (picamera and OpenCV cameras).")


@dataclass
class ServerConfig:
    """The dashboard's HTTP server."""

    host: str = _doc("0.0.0.0", "Address to listen on; 0.0.0.0 lets phones on the LAN connect.")
    port: int = _doc(8080, "TCP port of the dashboard.")
    pin: str = _doc("", "PIN for control actions (4-12 digits); empty: a random one printed at start.")
    threads: int = _doc(32, "Server threads; each open dashboard holds two for its live streams.")


@dataclass
class StorageConfig:
    """Where games are kept."""

    data_dir: str = _doc("", "Data directory (database, calibrations); empty: the user's data dir.")
    bundle_seconds: float = _doc(60.0, "Seconds of recent frames kept for the support bundle.")


@dataclass
class GameConfigSection:
    """The game started when there is none to resume."""

    players: int = _doc(2, "Players: 2 or 3, or 4/6 for two teams.")
    opening: str = _doc("none", 'Opening protocol: "none", "swap" or "3meq".')
    names: list[str] = _doc([], "Player names in seat order (optional).")


@dataclass
class MqttConfig:
    """MQTT broker for Home Assistant and friends (disabled while ``host`` is empty)."""

    host: str = _doc("", "Broker host name or address; empty disables MQTT.")
    port: int = _doc(1883, "Broker TCP port.")
    topic: str = _doc("boardcam", "Topic prefix: events go to PREFIX/event/TYPE, state to PREFIX/state.")
    username: str = _doc("", "User name, if the broker needs one.")
    password: str = _doc("", "Password, if the broker needs one.")
    discovery: bool = _doc(True, "Announce the sensors to Home Assistant (MQTT discovery, retained).")


@dataclass
class GpioConfig:
    """Buzzer and LED on a Raspberry Pi's GPIO header (disabled while both pins are 0)."""

    buzzer_pin: int = _doc(0, "BCM pin of an active buzzer; 0: none.")
    led_pin: int = _doc(0, "BCM pin of an LED; 0: none.")


@dataclass
class SinksConfig:
    """Where alerts go besides the dashboard."""

    ntfy: list[str] = _doc([], "ntfy-compatible topic URLs to push alerts to (https://ntfy.sh/TOPIC).")
    webhooks: list[str] = _doc([], "URLs that receive every alert as a JSON POST.")
    events: list[str] = _doc(
        ["win", "draw", "illegal", "camera_moved", "confirm_hidden", "camera_status"],
        "Event types that are pushed (add \"move\" to be told of every move).",
    )
    mqtt: MqttConfig = field(default_factory=MqttConfig, metadata={"doc": "MQTT sink."})
    gpio: GpioConfig = field(default_factory=GpioConfig, metadata={"doc": "GPIO sink."})


@dataclass
class Config:
    """The whole configuration file."""

    version: int = _doc(CONFIG_VERSION, "Layout version of this file; older files are migrated on load.")
    camera: CameraConfig = field(default_factory=CameraConfig, metadata={"doc": "Camera."})
    server: ServerConfig = field(default_factory=ServerConfig, metadata={"doc": "Server."})
    storage: StorageConfig = field(default_factory=StorageConfig, metadata={"doc": "Storage."})
    game: GameConfigSection = field(default_factory=GameConfigSection, metadata={"doc": "Game."})
    sinks: SinksConfig = field(default_factory=SinksConfig, metadata={"doc": "Alert sinks."})

    def validate(self) -> Config:
        """Check values that types alone do not; raises :class:`ConfigError`. Returns ``self``."""
        checks: list[tuple[bool, str]] = [
            (self.camera.fps > 0, "camera.fps must be above 0"),
            (1 <= self.camera.stable_frames <= 20, "camera.stable_frames must be 1..20"),
            (self.camera.width > 0 and self.camera.height > 0, "camera.width/height must be above 0"),
            (0 < self.server.port < 65536, "server.port must be 1..65535"),
            (self.server.threads >= 4, "server.threads must be at least 4"),
            (self.server.pin == "" or (self.server.pin.isdigit() and 4 <= len(self.server.pin) <= 12),
             "server.pin must be 4 to 12 digits"),
            (self.storage.bundle_seconds > 0, "storage.bundle_seconds must be above 0"),
            (self.game.players in PLAYER_COUNTS, f"game.players must be one of {PLAYER_COUNTS}"),
            (self.game.opening in OPENINGS, f"game.opening must be one of {OPENINGS}"),
            (len(self.game.names) in (0, self.game.players),
             "game.names must be empty or name every player"),
            (0 < self.sinks.mqtt.port < 65536, "sinks.mqtt.port must be 1..65535"),
            (self.sinks.gpio.buzzer_pin >= 0 and self.sinks.gpio.led_pin >= 0,
             "sinks.gpio pins must be 0 (none) or a BCM pin number"),
        ]
        for url in [*self.sinks.ntfy, *self.sinks.webhooks]:
            checks.append((url.startswith(("http://", "https://")), f"sink URL {url!r} must start with http:// or https://"))
        for ok, message in checks:
            if not ok:
                raise ConfigError(message)
        return self


# -- migrations ------------------------------------------------------------
def _migrate_1_to_2(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 was flat (``source``, ``port``, ``pin``, ``push_url``, ``data_dir`` at top level)."""
    flat_keys = {
        "source": ("camera", "source"),
        "calibration": ("camera", "calibration"),
        "host": ("server", "host"),
        "port": ("server", "port"),
        "pin": ("server", "pin"),
        "data_dir": ("storage", "data_dir"),
    }
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in flat_keys:
            section, name = flat_keys[key]
            out.setdefault(section, {})[name] = value
        elif key == "push_url":
            out.setdefault("sinks", {})["ntfy"] = [value] if value else []
        elif key == "version":
            continue
        else:
            out[key] = value
    out["version"] = 2
    return out


#: ``MIGRATIONS[n]`` turns a version-``n`` table into a version ``n + 1`` table.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _migrate_1_to_2}


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """Bring a raw table up to :data:`CONFIG_VERSION`; raises :class:`ConfigError` for unknown versions."""
    version = data.get("version", CONFIG_VERSION)
    if not isinstance(version, int) or isinstance(version, bool):
        raise ConfigError(f"version must be an integer, not {version!r}")
    if version > CONFIG_VERSION:
        raise ConfigError(f"config version {version} is newer than this boardcam knows ({CONFIG_VERSION})")
    while version < CONFIG_VERSION:
        if version not in MIGRATIONS:
            raise ConfigError(f"config version {version} is not supported")
        data = MIGRATIONS[version](data)
        version = data["version"]
    return data


# -- building typed config from tables -----------------------------------------
def _convert(value: Any, kind: Any, key: str) -> Any:
    if dataclasses.is_dataclass(kind):
        if not isinstance(value, dict):
            raise ConfigError(f"{key} must be a table ([{key}])")
        return _build(kind, value, key + ".")
    if kind is bool:
        if isinstance(value, bool):
            return value
    elif kind is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif kind is str:
        if isinstance(value, str):
            return value
    elif kind == list[str]:
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
    name = getattr(kind, "__name__", str(kind))
    raise ConfigError(f"{key} must be of type {name}, not {value!r}")


def _build(cls: type, table: dict[str, Any], prefix: str = "") -> Any:
    hints = get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(
            f"unknown key {prefix}{unknown[0]} (known in this section: {', '.join(sorted(known))})"
        )
    values = {name: _convert(value, hints[name], prefix + name) for name, value in table.items()}
    return cls(**values)


def config_from_dict(data: dict[str, Any]) -> Config:
    """Typed, migrated and validated config from a raw table; raises :class:`ConfigError`."""
    return _build(Config, migrate(dict(data))).validate()


def load_config(path: str | Path | None) -> Config:
    """Read a TOML config file (``None``: the defaults); raises :class:`ConfigError`."""
    if path is None:
        return Config().validate()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config {path} is not valid TOML: {exc}") from exc
    try:
        return config_from_dict(data)
    except ConfigError as exc:
        raise ConfigError(f"config {path}: {exc}") from exc


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def example_toml(config: Config | None = None) -> str:
    """A complete, commented config file (every field with its documentation)."""
    lines: list[str] = []

    def emit(obj: Any, section: str) -> None:
        nested = []
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if dataclasses.is_dataclass(value):
                nested.append((f.name, value))
                continue
            lines.append(f"# {f.metadata.get('doc', '')}")
            lines.append(f"{f.name} = {_toml_value(value)}")
        for name, value in nested:
            full = f"{section}.{name}" if section else name
            lines.append("")
            lines.append(f"[{full}]")
            lines.append(f"# {type(value).__doc__}")
            emit(value, full)

    emit(config or Config(), "")
    return "\n".join(lines) + "\n"
