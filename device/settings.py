"""From config file and command-line flags to the parts of a running companion.

``boardcam serve``, ``doctor``, ``bundle``, ``export``, ``games`` and the live
benchmark all resolve the same way: flags override the config file, which
overrides the defaults. Every function raises a ``ValueError`` subclass with a
message a user can act on.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import secrets
from pathlib import Path
from typing import Any

import platformdirs

from device.config import Config, ConfigError, load_config
from device.sources.base import FrameSource

logger = logging.getLogger(__name__)

APP_NAME = "boardcam"
CALIBRATION_FILE = "calibration.json"
BOARDS = ("timevectors", "gryb")


class SetupError(ValueError):
    """A calibration or palette file that cannot be used."""


def add_common_arguments(parser: argparse.ArgumentParser, *, server: bool = False) -> None:
    """Flags shared by the commands that run or inspect a companion."""
    parser.add_argument("--config", metavar="FILE", help="TOML config file (see `boardcam serve --print-config`)")
    parser.add_argument("--data-dir", metavar="DIR", help="where games are stored (default: the user data dir)")
    if server:
        parser.add_argument(
            "--source", metavar="SPEC",
            help="demo | picamera | opencv:INDEX_OR_URL_OR_FILE | folder:DIR (default: demo)",
        )
        parser.add_argument("--calibration", metavar="FILE", help="calibration file (default: demo's, or the saved one)")
        parser.add_argument("--palette", metavar="FILE", help="token colours as JSON [[r, g, b], ...]")
        parser.add_argument("--host", help="address to listen on (default 0.0.0.0: the whole LAN)")
        parser.add_argument("--port", type=int, help="TCP port (default 8080)")
        parser.add_argument("--pin", help="PIN for control actions (default: random, printed at start)")
        parser.add_argument("--ntfy", action="append", metavar="URL", help="ntfy topic URL to push alerts to")
        parser.add_argument("--webhook", action="append", metavar="URL", help="URL that gets alerts as JSON")
        parser.add_argument("--mqtt", metavar="HOST[:PORT]", help="MQTT broker for alerts and state")
        parser.add_argument(
            "--board", choices=BOARDS, default="timevectors",
            help="the board watched: the stacked Time Vectors board or the GRYB bandanna",
        )
        parser.add_argument(
            "--game", metavar="NAME",
            help="GRYB game played on the bandanna (default ez-gryb; see `boardcam gryb games`)",
        )


def resolve_config(args: argparse.Namespace) -> Config:
    """The config file (if any) with the command line's flags applied; raises :class:`ConfigError`."""
    config = load_config(getattr(args, "config", None))
    overrides = {
        ("camera", "source"): getattr(args, "source", None),
        ("camera", "calibration"): getattr(args, "calibration", None),
        ("camera", "palette"): getattr(args, "palette", None),
        ("server", "host"): getattr(args, "host", None),
        ("server", "port"): getattr(args, "port", None),
        ("server", "pin"): getattr(args, "pin", None),
        ("storage", "data_dir"): getattr(args, "data_dir", None),
    }
    for (section, key), value in overrides.items():
        if value is not None:
            setattr(getattr(config, section), key, value)
    config.sinks.ntfy += getattr(args, "ntfy", None) or []
    config.sinks.webhooks += getattr(args, "webhook", None) or []
    mqtt = getattr(args, "mqtt", None)
    if mqtt:
        host, _, port = mqtt.partition(":")
        config.sinks.mqtt.host = host
        if port:
            if not port.isdigit():
                raise ConfigError(f"--mqtt {mqtt}: the port must be a number")
            config.sinks.mqtt.port = int(port)
    return config.validate()


def data_dir(config: Config) -> Path:
    """The data directory: the configured one, else the platform's user data dir."""
    if config.storage.data_dir:
        return Path(config.storage.data_dir).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME))


def make_pin(config: Config) -> str:
    """The configured PIN, or a random 6-digit one for this run."""
    return config.server.pin or f"{secrets.randbelow(10**6):06d}"


def is_demo(source: FrameSource) -> bool:
    return type(source).__name__ == "DemoSource"


def load_calibration_file(path: str | Path, board: str = "timevectors") -> Any:
    """Load a calibration file of ``board``; raises :class:`SetupError` naming the file and
    the problem (a file of the other board included)."""
    from calibration.calibfile import load_calibration

    try:
        return load_calibration(Path(path), board=board)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SetupError(f"cannot use calibration {path}: {exc}") from exc


def resolve_calibration(
    config: Config, source: FrameSource, directory: Path, board: str = "timevectors"
) -> tuple[Any, str]:
    """The calibration to start with and where it came from.

    The configured file wins; the demo brings its own; otherwise the one the
    wizard saved in the data directory; otherwise none (the dashboard asks for
    a calibration). Raises :class:`SetupError` for a configured file that fails.
    """
    if config.camera.calibration:
        return load_calibration_file(config.camera.calibration, board), config.camera.calibration
    if is_demo(source):
        return source.calibration(), "the demo camera"  # type: ignore[attr-defined]
    saved = directory / CALIBRATION_FILE
    if saved.is_file():
        try:
            return load_calibration_file(saved, board), str(saved)
        except SetupError as exc:
            if board == "timevectors":
                raise
            logger.warning("%s; the bandanna needs its own calibration (--calibration)", exc)
    return None, ""


def load_palette(path: str | Path) -> list[list[int]]:
    """A palette file ``[[r, g, b], ...]``; raises :class:`SetupError`."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SetupError(f"cannot read palette {path}: {exc}") from exc
    if not (isinstance(data, list) and 1 <= len(data) <= 3 and all(
            isinstance(c, list) and len(c) == 3 and all(isinstance(v, int) and 0 <= v <= 255 for v in c)
            for c in data)):
        raise SetupError(f"palette {path} must be a list of 1 to 3 [r, g, b] colours (0-255)")
    return data


def resolve_palette(config: Config, source: FrameSource, calibration: Any) -> list[list[int]] | None:
    """Configured palette file, else the demo's, else none (the pipeline then uses the colours
    sampled into the calibration, or learns them from the first moves)."""
    if config.camera.palette:
        return load_palette(config.camera.palette)
    if is_demo(source):
        demo_palette = source.palette  # type: ignore[attr-defined]
        return None if demo_palette is None else [list(c) for c in demo_palette]
    return None


def build_runtime(
    config: Config, *, board: str = "timevectors", game: str | None = None, **runtime_options: Any
) -> tuple[Any, str]:
    """Store, source, calibration, palette, sinks and PIN assembled into a (not started) runtime;
    returns it and where its calibration came from. ``board`` "gryb" watches the bandanna
    and plays the GRYB game ``game`` (default EZ GRYB) on it.

    Raises :class:`ConfigError`, :class:`SetupError`, ``StoreError`` or
    ``SourceSpecError`` (all ``ValueError``) with a message for the user.
    """
    from device.runtime import Runtime, default_pipeline_factory
    from device.sinks.build import build_sinks
    from device.sources.factory import open_source
    from device.store import Store

    if board not in BOARDS:
        raise SetupError(f"the board is one of {', '.join(BOARDS)}, not {board!r}")
    if game is not None and board != "gryb":
        raise SetupError("--game names a GRYB game: use it with --board gryb")
    if board == "gryb":
        from device.gryb_view import DEFAULT_GAME, game_factory

        runtime_options.setdefault("game_factory", game_factory(game or DEFAULT_GAME))
    directory = data_dir(config)
    source = open_source(config.camera.source, fps=config.camera.fps,
                         size=(config.camera.width, config.camera.height))
    if board == "gryb" and is_demo(source):
        from device.sources.demo import DemoSource

        source = DemoSource(fps=source.fps, board="gryb")
    calibration, origin = resolve_calibration(config, source, directory, board)
    palette = resolve_palette(config, source, calibration)
    runtime_options.setdefault(
        "pipeline_factory", functools.partial(default_pipeline_factory, stable_frames=config.camera.stable_frames)
    )
    store = Store(directory)
    try:
        runtime = Runtime(
            source,
            store=store,
            calibration=calibration,
            sinks=build_sinks(config.sinks, config.game.names),
            pin=make_pin(config),
            config=config,
            palette=palette,
            board=board,
            **runtime_options,
        )
    except BaseException:
        store.close()
        raise
    return runtime, origin
