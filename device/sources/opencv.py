"""Frames from any OpenCV capture: a USB camera index, an RTSP/HTTP stream URL or a video file."""

from __future__ import annotations

import logging
import threading

import cv2

from device.sources.base import Frame, FrameSource, Pacer, SourceError

logger = logging.getLogger(__name__)


def parse_target(target: str) -> int | str:
    """``"0"`` -> camera index 0; anything else is a URL or file path passed to OpenCV as is."""
    text = target.strip()
    if not text:
        raise SourceError("an OpenCV source needs a camera index, a stream URL or a file")
    return int(text) if text.isdigit() else text


class OpenCVSource(FrameSource):
    """An OpenCV ``VideoCapture``.

    A live camera or stream is read at its own pace and frames are paced to
    ``fps`` (0: as fast as they come). A video file (``is_file=True``, the
    factory decides by the target) ends: :attr:`is_exhausted` turns true after
    its last frame. A live source that stops delivering raises
    :class:`SourceError` so the runtime reconnects.
    """

    def __init__(
        self,
        target: int | str,
        *,
        fps: float = 0.0,
        size: tuple[int, int] | None = None,
        is_file: bool = False,
    ) -> None:
        self.target = target
        self.fps = fps
        self.size = size
        self.is_file = is_file
        kind = "camera" if isinstance(target, int) else ("video file" if is_file else "stream")
        self.description = f"OpenCV {kind} {target}"
        self._capture: cv2.VideoCapture | None = None
        self._seq = 0
        self._ended = False
        self._pacer = Pacer(fps)
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            self._release()
            capture = cv2.VideoCapture(self.target)
            if not capture.isOpened():
                capture.release()
                raise SourceError(f"cannot open {self.description}")
            if self.size is not None and isinstance(self.target, int):
                capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
                capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
            if not self.is_file:
                capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # keep latency low: the newest frame matters
            self._capture = capture
            self._ended = False
            self._pacer.reset()

    def read(self, timeout: float = 1.0) -> Frame | None:
        with self._lock:
            capture = self._capture
            if capture is None:
                raise SourceError(f"{self.description} is not started")
            if self._ended:
                return None
            if not self._pacer.wait(timeout):
                return None
            ok, image = capture.read()
            if not ok or image is None:
                if self.is_file:
                    self._ended = True
                    return None
                raise SourceError(f"{self.description} stopped delivering frames")
            frame = Frame(image=image, seq=self._seq, name=f"{self._seq:06d}")
            self._seq += 1
            return frame

    def _release(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None

    def stop(self) -> None:
        with self._lock:
            self._release()

    @property
    def is_exhausted(self) -> bool:
        return self._ended
