"""The one interface every frame source implements."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self

import numpy as np


class SourceError(RuntimeError):
    """The source cannot deliver frames (camera gone, file unreadable, not installed)."""


@dataclass(frozen=True)
class Frame:
    """One image from a source. ``seq`` increases by one per new frame so a consumer can
    tell a new frame from a repeat; ``timestamp`` is ``time.monotonic()`` at capture."""

    image: np.ndarray  # BGR uint8, H x W x 3
    seq: int
    timestamp: float = field(default_factory=time.monotonic)
    name: str = ""  # file name or other label of where the frame came from, if any


class Pacer:
    """Spaces frames ``1/fps`` apart (``fps=0``: no pacing) without drifting or bursting.

    After a stall (a slow consumer, a demo view rendered for the first time) frames go
    on at the rate from now: a stall is never paid back with a burst of frames.
    """

    def __init__(self, fps: float) -> None:
        self.fps = fps
        self._next_time = time.monotonic()

    def reset(self) -> None:
        """Start the schedule now (call when the source starts)."""
        self._next_time = time.monotonic()

    def wait(self, timeout: float) -> bool:
        """Sleep until the next frame is due; ``False`` if it is not due within ``timeout``."""
        if self.fps <= 0:
            return True
        wait = self._next_time - time.monotonic()
        if wait > timeout:
            time.sleep(timeout)
            return False
        if wait > 0:
            time.sleep(wait)
        self._next_time = max(self._next_time, time.monotonic()) + 1.0 / self.fps
        return True


class FrameSource(ABC):
    """``start()``, ``read()``, ``stop()``; also a context manager.

    ``read`` blocks up to ``timeout`` seconds for the next frame and returns
    ``None`` when none came in time or the source is exhausted (check
    :attr:`is_exhausted`); it raises :class:`SourceError` when the source
    failed (a camera that disappeared), so the runtime can reconnect.
    """

    #: Human-readable description for logs and the dashboard.
    description: str = "source"

    @abstractmethod
    def start(self) -> None:
        """Open the device or file; raises :class:`SourceError` if it cannot."""

    @abstractmethod
    def read(self, timeout: float = 1.0) -> Frame | None:
        """The next frame, or ``None``; raises :class:`SourceError` on failure."""

    @abstractmethod
    def stop(self) -> None:
        """Release the device; safe to call twice."""

    @property
    def is_exhausted(self) -> bool:
        """True when a finite source (file, folder) has delivered its last frame."""
        return False

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
