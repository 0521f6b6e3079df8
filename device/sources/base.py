"""The one interface every frame source implements."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from types import TracebackType

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

    def __enter__(self) -> "FrameSource":
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
