"""Support bundles: contents, replay command, and that the frames play back through a FolderSource."""

from __future__ import annotations

import io
import json
import zipfile

import cv2
import numpy as np
import pytest

from device.bundle import BundleError, build_bundle, read_manifest, replay_command
from device.sources.folder import FolderSource


def jpeg(value: int) -> bytes:
    return cv2.imencode(".jpg", np.full((24, 32, 3), value, np.uint8))[1].tobytes()


def test_bundle_contents_and_replayable_frames(tmp_path):
    frames = [(100.0 + i / 4, jpeg(20 * i)) for i in range(5)]
    data = build_bundle(
        frames,
        calibration={"version": 1},
        palette=[[255, 0, 0]],
        game={"moves": ["A1P:0"]},
        state={"turn": 1},
        players=3,
        opening="none",
    )
    manifest = read_manifest(data)
    assert (
        manifest["frames"] == 5
        and manifest["fps"] == pytest.approx(4.0)
        and manifest["players"] == 3
    )
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert json.loads(archive.read("calibration.json")) == {"version": 1}
        assert json.loads(archive.read("palette.json")) == [[255, 0, 0]]
        assert json.loads(archive.read("game.json")) == {"moves": ["A1P:0"]}
        readme = archive.read("README.txt").decode()
        archive.extractall(tmp_path)
    assert (
        "boardcam replay --calibration calibration.json --palette palette.json --players 3 "
        "--opening none frames --json"
    ) in readme
    with FolderSource(tmp_path / "frames") as source:
        values = []
        while (frame := source.read()) is not None:
            values.append(int(frame.image.mean()))
    assert values == pytest.approx([0, 20, 40, 60, 80], abs=2)


def test_bundle_without_frames_or_calibration():
    data = build_bundle([], calibration=None, palette=None, game=None, state=None)
    assert read_manifest(data)["frames"] == 0 and read_manifest(data)["fps"] is None
    assert "YOUR_CALIBRATION.json" in replay_command(
        has_calibration=False, has_palette=False, players=2, opening="none"
    )


def test_not_a_bundle():
    with pytest.raises(BundleError):
        read_manifest(b"PK nothing")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("manifest.json", json.dumps({"bundle_version": 99}))
    with pytest.raises(BundleError, match="99"):
        read_manifest(buffer.getvalue())


def one_frame_bundle(**game: object) -> bytes:
    """A bundle of one frame and no files but the game's settings and moves (``game``)."""
    return build_bundle(
        [(1.0, jpeg(0))], calibration=None, palette=None, game=None, state=None, **game
    )


def readme_of(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return archive.read("README.txt").decode()


def test_bundle_of_a_long_game_names_the_moves_before_its_first_frame():
    data = one_frame_bundle(moves_at_start=["A1P:0", "H8S:1"])
    assert read_manifest(data)["moves_at_start"] == ["A1P:0", "H8S:1"]
    readme = readme_of(data)
    assert "already had 2 moves" in readme
    assert "--opening none --moves manifest.json frames --json" in readme
    assert "--moves" not in readme_of(one_frame_bundle())


def test_bundle_replays_a_3meq_colour_choice_made_during_its_frames():
    """A camera cannot see the second player's colour choice: the replay command carries it
    when it came during the bundle's minute (before it, the manifest's moves hold it)."""
    during = readme_of(
        one_frame_bundle(
            opening="3meq",
            moves_at_start=["A1P:0"],
            moves_during=["B1P:1", "C1P:0", "choose 1", "D1P:1"],
        )
    )
    before = readme_of(
        one_frame_bundle(
            opening="3meq",
            moves_at_start=["A1P:0", "B1P:1", "C1P:0", "choose 1"],
            moves_during=["D1P:1"],
        )
    )
    assert "--opening 3meq --moves manifest.json --choose 1 frames --json" in during
    assert "--choose" not in before and "--moves manifest.json frames" in before
