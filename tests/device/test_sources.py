"""Frame sources: the factory, OpenCV on a real video file, the Pi camera's clear message, folders."""

from __future__ import annotations

import sys

import cv2
import numpy as np
import pytest

from device.sources.base import SourceError
from device.sources.factory import SourceSpecError, open_source
from device.sources.folder import FolderSource
from device.sources.opencv import OpenCVSource, parse_target
from device.sources.picamera import INSTALL_HINT, PiCameraSource


def write_video(path, frames: int = 6, size=(160, 120)) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, size)
    assert writer.isOpened()
    for i in range(frames):
        image = np.zeros((size[1], size[0], 3), np.uint8)
        image[:, : (i + 1) * size[0] // frames] = (0, 0, 255)  # a red bar that grows each frame
        writer.write(image)
    writer.release()


def test_opencv_source_plays_a_video_file_to_its_end(tmp_path):
    video = tmp_path / "game.avi"
    write_video(video)
    source = open_source(f"opencv:{video}", fps=0)
    assert isinstance(source, OpenCVSource) and source.is_file
    with source:
        frames = []
        while (frame := source.read()) is not None:
            frames.append(frame)
        assert source.is_exhausted
    assert [f.seq for f in frames] == list(range(6))
    red = [int((f.image[:, :, 2] > 128).sum()) for f in frames]
    assert red == sorted(red) and red[0] < red[-1]
    assert frames[0].image.shape == (120, 160, 3)


def test_opencv_source_paces_frames(tmp_path):
    import time

    video = tmp_path / "game.avi"
    write_video(video, frames=4)
    with OpenCVSource(str(video), fps=20, is_file=True) as source:
        started = time.monotonic()
        for _ in range(4):
            assert source.read() is not None
        assert time.monotonic() - started >= 0.14


def test_opencv_source_errors(tmp_path):
    with pytest.raises(SourceError, match="cannot open"):
        OpenCVSource(str(tmp_path / "none.avi"), is_file=True).start()
    with pytest.raises(SourceError, match="not started"):
        OpenCVSource(0).read()
    assert parse_target("2") == 2 and parse_target("rtsp://cam/1") == "rtsp://cam/1"
    with pytest.raises(SourceError):
        parse_target("  ")


def test_picamera_source_says_how_to_install_picamera2(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)
    source = open_source("picamera")
    assert isinstance(source, PiCameraSource)
    with pytest.raises(SourceError) as info:
        source.start()
    assert str(info.value) == INSTALL_HINT and "--system-site-packages" in INSTALL_HINT


def test_picamera_source_with_a_stand_in_camera(monkeypatch):
    import types

    class FakeCamera:
        def __init__(self, num):
            self.started = False

        def create_video_configuration(self, main):
            return main

        def configure(self, config):
            self.config = config

        def start(self):
            self.started = True

        def capture_array(self, stream):
            return np.full((*self.config["size"][::-1], 4), 7, np.uint8)

        def stop(self):
            self.started = False

        def close(self):
            pass

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakeCamera))
    with PiCameraSource(fps=0, size=(64, 48)) as source:
        frame = source.read()
    assert frame.image.shape == (48, 64, 3) and frame.image.flags.c_contiguous


def test_factory_forms(tmp_path):
    (tmp_path / "a.png").write_bytes(cv2.imencode(".png", np.zeros((4, 4, 3), np.uint8))[1].tobytes())
    assert isinstance(open_source(f"folder:{tmp_path}"), FolderSource)
    assert open_source("opencv:0").target == 0
    assert open_source("opencv:rtsp://cam/stream").target == "rtsp://cam/stream"
    assert open_source("picamera:1").camera_num == 1
    for bad in ["webcam", "opencv:", "folder:", f"opencv:{tmp_path}/missing.mp4", "", "picamera:front", "demo:x"]:
        with pytest.raises(SourceSpecError):
            open_source(bad)
    with pytest.raises(ValueError):  # a SourceSpecError is a ValueError for the CLI
        open_source("nonsense")


def test_factory_demo_source():
    source = open_source("demo", fps=2)
    assert type(source).__name__ == "DemoSource" and source.fps == 2


def test_folder_source_reads_in_name_order_and_skips_broken_files(tmp_path):
    for i, name in enumerate(["002.png", "001.png", "003.jpg"]):
        image = np.full((8, 8, 3), 40 * (i + 1), np.uint8)
        ext = name[-4:]
        (tmp_path / name).write_bytes(cv2.imencode(ext, image)[1].tobytes())
    (tmp_path / "001b.jpg").write_bytes(b"\xff\xd8 truncated")
    (tmp_path / "notes.txt").write_text("ignored")
    with FolderSource(tmp_path) as source:
        names = []
        while (frame := source.read()) is not None:
            names.append(frame.name)
    assert names == ["001.png", "002.png", "003.jpg"]
    assert [p.name for p in source.skipped] == ["001b.jpg"]
    with FolderSource(tmp_path, loop=True) as looping:
        assert [looping.read().name for _ in range(4)] == ["001.png", "002.png", "003.jpg", "001.png"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="no image files"):
        FolderSource(tmp_path / "empty").start()


def test_pacer_spaces_frames_and_gives_up_at_the_timeout():
    from device.sources.base import Pacer

    assert all(Pacer(0).wait(0.0) for _ in range(3))  # fps 0: never waits
    pacer = Pacer(2.0)
    assert pacer.wait(1.0)  # the first frame is due at once
    assert not pacer.wait(0.01)  # the next is due half a second later, not within 10 ms
    assert pacer.wait(1.0)
