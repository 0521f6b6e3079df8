"""Frames from the Raspberry Pi camera through picamera2 (imported only when this source starts).

picamera2 comes from Raspberry Pi OS (``sudo apt install python3-picamera2``);
on any other machine :meth:`PiCameraSource.start` raises :class:`SourceError`
saying so, and nothing else in boardcam needs it.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

import numpy as np

from device.sources.base import Frame, FrameSource, Pacer, SourceError

logger = logging.getLogger(__name__)

INSTALL_HINT = (
    "picamera2 is not installed: on Raspberry Pi OS run `sudo apt install python3-picamera2` "
    "and create the virtual environment with --system-site-packages"
)


def load_picamera2() -> Any:
    """The ``Picamera2`` class; raises :class:`SourceError` with the install hint when missing."""
    try:
        module = importlib.import_module("picamera2")
    except ImportError as exc:
        raise SourceError(INSTALL_HINT) from exc
    return module.Picamera2


class PiCameraSource(FrameSource):
    """The Pi camera module, BGR frames of ``size`` paced to ``fps``."""

    def __init__(self, *, fps: float = 4.0, size: tuple[int, int] = (1280, 960), camera_num: int = 0) -> None:
        self.fps = fps
        self.size = size
        self.camera_num = camera_num
        self.description = f"Raspberry Pi camera {camera_num} ({size[0]}x{size[1]})"
        self._camera: Any = None
        self._seq = 0
        self._pacer = Pacer(fps)

    def start(self) -> None:
        picamera2 = load_picamera2()
        self.stop()
        try:
            camera = picamera2(self.camera_num)
            # "RGB888" in libcamera's naming is B, G, R byte order: what OpenCV calls BGR.
            config = camera.create_video_configuration(main={"size": self.size, "format": "RGB888"})
            camera.configure(config)
            camera.start()
        except Exception as exc:  # libcamera reports missing/busy cameras with various errors
            raise SourceError(f"cannot start the Pi camera: {exc}") from exc
        self._camera = camera
        self._pacer.reset()

    def read(self, timeout: float = 1.0) -> Frame | None:
        if self._camera is None:
            raise SourceError(f"{self.description} is not started")
        if not self._pacer.wait(timeout):
            return None
        try:
            image = self._camera.capture_array("main")
        except Exception as exc:
            raise SourceError(f"the Pi camera stopped delivering frames: {exc}") from exc
        image = np.ascontiguousarray(image[:, :, :3])  # XRGB8888 would carry a 4th channel
        frame = Frame(image=image, seq=self._seq, name=f"{self._seq:06d}")
        self._seq += 1
        return frame

    def stop(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            try:
                camera.stop()
                camera.close()
            except Exception:  # closing a camera that already vanished must not raise
                logger.debug("error while closing the Pi camera", exc_info=True)
