"""Frames from a folder of image files, in name order (replays, support bundles, tests)."""

from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np

from device.sources.base import Frame, FrameSource, Pacer, SourceError

logger = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff")


def list_frames(directory: Path) -> list[Path]:
    """Image files of ``directory`` in name order; raises :class:`SourceError` if none."""
    if not directory.is_dir():
        raise SourceError(f"{directory} is not a folder")
    files = sorted(p for p in directory.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise SourceError(f"{directory} holds no image files ({', '.join(IMAGE_SUFFIXES)})")
    return files


def decode_image(path: Path) -> np.ndarray | None:
    """Decode an image file to BGR; ``None`` for a truncated or unreadable file."""
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError:
        return None
    if data.size == 0:
        return None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return image if image is not None and image.size else None


class FolderSource(FrameSource):
    """Plays the images of a folder once (or in a loop) at ``fps`` frames per second.

    ``fps=0`` delivers frames as fast as they are read (replay and tests).
    Unreadable files (a truncated JPEG) are logged and skipped, never fatal.
    """

    def __init__(self, directory: str | Path, fps: float = 0.0, loop: bool = False) -> None:
        self.directory = Path(directory)
        self.fps = fps
        self.loop = loop
        self.description = f"folder {self.directory}"
        self._files: list[Path] = []
        self._index = 0
        self._seq = 0
        self._pacer = Pacer(fps)
        self.skipped: list[Path] = []

    def start(self) -> None:
        self._files = list_frames(self.directory)
        self._index = 0
        self._pacer.reset()

    def read(self, timeout: float = 1.0) -> Frame | None:
        if not self._files:
            raise SourceError(f"{self.description} is not started")
        while not self.is_exhausted:
            if self._index >= len(self._files):
                self._index = 0  # looping
            if not self._pacer.wait(timeout):
                return None
            path = self._files[self._index]
            self._index += 1
            image = decode_image(path)
            if image is None:
                logger.warning("skipping unreadable image %s", path)
                self.skipped.append(path)
                continue
            frame = Frame(image=image, seq=self._seq, name=path.name)
            self._seq += 1
            return frame
        return None

    def stop(self) -> None:
        self._files = []

    @property
    def is_exhausted(self) -> bool:
        return not self.loop and self._index >= len(self._files)
