"""The TOML config: defaults, every validation, unknown keys, migration, the commented example."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest

from device.config import (
    CONFIG_VERSION,
    Config,
    ConfigError,
    config_from_dict,
    example_toml,
    load_config,
    migrate,
)


def test_defaults_are_valid_and_documented():
    config = load_config(None)
    assert config.camera.source == "demo" and config.server.port == 8080 and config.version == CONFIG_VERSION

    def walk(obj):
        for f in dataclasses.fields(obj):
            assert f.metadata.get("doc"), f"{type(obj).__name__}.{f.name} has no documentation"
            if dataclasses.is_dataclass(getattr(obj, f.name)):
                walk(getattr(obj, f.name))

    walk(config)


def test_example_file_round_trips_and_carries_the_docs():
    text = example_toml()
    assert "# PIN for control actions" in text and "[sinks.mqtt]" in text
    assert config_from_dict(tomllib.loads(text)) == Config()


def test_a_full_file_loads(tmp_path):
    path = tmp_path / "boardcam.toml"
    path.write_text(
        'version = 2\n[camera]\nsource = "opencv:0"\nfps = 5\n[server]\nport = 9000\npin = "4321"\n'
        '[game]\nplayers = 3\nnames = ["a", "b", "c"]\n[sinks]\nntfy = ["https://ntfy.sh/x"]\n'
        '[sinks.mqtt]\nhost = "ha.local"\n'
    )
    config = load_config(path)
    assert config.camera.fps == 5.0 and isinstance(config.camera.fps, float)
    assert (config.server.port, config.server.pin, config.game.players) == (9000, "4321", 3)
    assert config.sinks.mqtt.host == "ha.local" and config.sinks.ntfy == ["https://ntfy.sh/x"]


@pytest.mark.parametrize(
    "table, message",
    [
        ({"camera": {"sourse": "demo"}}, "unknown key camera.sourse"),
        ({"colour": 1}, "unknown key colour"),
        ({"server": {"port": "80"}}, "server.port must be of type int"),
        ({"server": {"port": True}}, "server.port must be of type int"),
        ({"server": {"port": 70000}}, "server.port must be 1..65535"),
        ({"server": {"pin": "12"}}, "server.pin must be 4 to 12 digits"),
        ({"server": {"pin": "abcd"}}, "server.pin must be 4 to 12 digits"),
        ({"server": {"threads": 1}}, "at least 4"),
        ({"server": "x"}, "server must be a table"),
        ({"camera": {"fps": 0}}, "camera.fps must be above 0"),
        ({"game": {"players": 5}}, "game.players must be one of"),
        ({"game": {"opening": "gambit"}}, "game.opening must be one of"),
        ({"game": {"names": ["a"]}}, "game.names must be empty or name every player"),
        ({"game": {"names": [1, 2]}}, "game.names must be of type list"),
        ({"sinks": {"ntfy": ["ntfy.sh/x"]}}, "must start with http"),
        ({"sinks": {"gpio": {"led_pin": -1}}}, "sinks.gpio pins"),
        ({"sinks": {"mqtt": {"discovery": "yes"}}}, "sinks.mqtt.discovery must be of type bool"),
        ({"camera": {"stable_frames": 0}}, "camera.stable_frames must be 1..20"),
        ({"version": 99}, "newer than this boardcam"),
        ({"version": 0}, "version 0 is not supported"),
        ({"version": "2"}, "version must be an integer"),
    ],
)
def test_bad_values_are_named(table, message):
    with pytest.raises(ConfigError, match=message):
        config_from_dict(table)


def test_file_errors_name_the_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[server\nport=1")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)
    wrong = tmp_path / "wrong.toml"
    wrong.write_text("[server]\nport = 0\n")
    with pytest.raises(ConfigError, match=r"wrong\.toml: server\.port"):
        load_config(wrong)


def test_version_1_flat_files_are_migrated(tmp_path):
    old = {"version": 1, "source": "picamera", "port": 9090, "pin": "2468", "push_url": "https://ntfy.sh/t",
           "data_dir": "/srv/boardcam", "game": {"players": 3}}
    migrated = migrate(dict(old))
    assert migrated["version"] == CONFIG_VERSION
    config = config_from_dict(old)
    assert (config.camera.source, config.server.port, config.server.pin) == ("picamera", 9090, "2468")
    assert config.sinks.ntfy == ["https://ntfy.sh/t"] and config.storage.data_dir == "/srv/boardcam"
    assert config.game.players == 3
    assert config_from_dict({"version": 1, "push_url": ""}).sinks.ntfy == []


def test_command_line_flags_override_the_file(tmp_path):
    import argparse

    from device.settings import add_common_arguments, resolve_config

    path = tmp_path / "boardcam.toml"
    path.write_text('[server]\nport = 9000\npin = "1111"\n[sinks]\nntfy = ["https://ntfy.sh/a"]\n')
    parser = argparse.ArgumentParser()
    add_common_arguments(parser, server=True)
    args = parser.parse_args(["--config", str(path), "--port", "9100", "--ntfy", "https://ntfy.sh/b",
                              "--mqtt", "broker:1884", "--source", "opencv:0"])
    config = resolve_config(args)
    assert (config.server.port, config.server.pin, config.camera.source) == (9100, "1111", "opencv:0")
    assert config.sinks.ntfy == ["https://ntfy.sh/a", "https://ntfy.sh/b"]
    assert (config.sinks.mqtt.host, config.sinks.mqtt.port) == ("broker", 1884)
    with pytest.raises(ConfigError, match="server.port"):
        resolve_config(parser.parse_args(["--port", "70000"]))


def test_settings_resolve_the_parts_of_a_companion(tmp_path):
    import json

    import cv2
    import numpy as np

    from device.settings import SetupError, build_runtime, data_dir, load_palette, make_pin

    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "a.png").write_bytes(cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))[1].tobytes())
    config = Config()
    config.camera.source = f"folder:{frames}"
    config.storage.data_dir = str(tmp_path / "data")
    assert data_dir(config) == tmp_path / "data"
    assert len(make_pin(config)) == 6 and make_pin(config).isdigit()
    config.server.pin = "2468"
    runtime, origin = build_runtime(config)
    assert (runtime.pin, origin, runtime.calibration, runtime.palette) == ("2468", "", None, None)
    runtime.store.close()
    palette = tmp_path / "palette.json"
    palette.write_text(json.dumps([[255, 0, 0], [0, 0, 255]]))
    assert load_palette(palette) == [[255, 0, 0], [0, 0, 255]]
    palette.write_text(json.dumps([[300, 0, 0]]))
    with pytest.raises(SetupError, match="must be a list of 1 to 3"):
        load_palette(palette)
    config.camera.calibration = str(tmp_path / "nope.json")
    with pytest.raises(SetupError, match="nope.json"):
        build_runtime(config)
