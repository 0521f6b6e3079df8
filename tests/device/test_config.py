"""The TOML config: defaults, every validation, unknown keys, migration, the commented example."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest

from device.config import CONFIG_VERSION, Config, ConfigError, config_from_dict, example_toml, load_config, migrate


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
