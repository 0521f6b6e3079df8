"""Reading working-image pixels straight from full camera frames.

The observer works on a smaller copy of the frame (the working image, see
:func:`vision.footprint.working_size`) but needs only the pixels its footprints
and hand grid cover. Shrinking a whole 1640x1232 frame costs more than the rest
of a quick read, so each wanted working pixel is the mean of a 2x2 spread of
frame pixels inside its area, gathered directly; where the working size is an
exact number of halvings of the frame, OpenCV's fast halving is cheaper and the
pixels are gathered from the shrunk frame instead.
"""

from __future__ import annotations

import cv2
import numpy as np


def shrink(image_bgr: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Shrink to ``size`` with area averaging (halvings take OpenCV's fast path)."""
    out = image_bgr
    while out.shape[1] // 2 >= size[0] and out.shape[0] // 2 >= size[1]:
        out = cv2.resize(out, (out.shape[1] // 2, out.shape[0] // 2), interpolation=cv2.INTER_AREA)
    if (out.shape[1], out.shape[0]) != tuple(size):
        out = cv2.resize(out, tuple(size), interpolation=cv2.INTER_AREA)
    return out


def take_rows(array: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``array[index]`` for rows of pixels: ``np.take`` gathers rows several times faster."""
    return np.take(array, index, axis=0)


class FrameSampler:
    """Gathers working pixels of one camera's frames: the ``positions`` (flat working-image
    indices) on every frame (:meth:`sample`), and any others (:meth:`read_at`, with
    indices from :meth:`indices`) from the frame last sampled.

    ``frame_size`` and ``working_size`` are ``(width, height)``; ``scale`` is the working
    image's size over the frame's, per axis.
    """

    def __init__(
        self,
        frame_size: tuple[int, int],
        working_size: tuple[int, int],
        scale: tuple[float, float],
        positions: np.ndarray,
    ) -> None:
        self.frame_size = frame_size
        self.working_size = working_size
        self.scale = scale
        width, height = working_size
        halvings = round(float(np.log2(frame_size[0] / width)))
        # Exact halvings are OpenCV's fast path: shrink, then gather from the small image.
        self.shrink_first = (frame_size[0] >> halvings, frame_size[1] >> halvings) == (
            width,
            height,
        )
        self._positions_index = self.indices(positions)
        #: The frame last sampled (None: none yet), and its shrunk copy where that is read.
        self.frame: np.ndarray | None = None
        self._small: np.ndarray | None = None

    def indices(self, working: np.ndarray) -> np.ndarray:
        """``(k, n)`` flat indices of the frame pixels averaged into each working pixel (with
        exact halvings: the working pixel itself, read from the shrunk frame). One contiguous
        row per sample: a gather copies a strided index array first."""
        width, _ = self.working_size
        frame_w, frame_h = self.frame_size
        if self.shrink_first:
            return working[None, :]
        sx, sy = self.scale
        x, y = working % width, working // width
        offsets = (0.25, 0.75)
        columns = [np.clip(np.floor((x + f) / sx), 0, frame_w - 1) for f in offsets]
        rows = [np.clip(np.floor((y + f) / sy), 0, frame_h - 1) for f in offsets]
        return np.stack([(r * frame_w + c).astype(np.int64) for r in rows for c in columns])

    def sample(self, frame: np.ndarray) -> np.ndarray:
        """``(3, n)`` float32 B, G and R planes of the ``positions`` in a full ``frame``, which
        :meth:`read_at` then reads from."""
        self.frame = frame
        if self.shrink_first:
            self._small = shrink(frame, self.working_size).reshape(-1, 3)
        return self.read_at(self._positions_index)

    def read_at(self, index: np.ndarray) -> np.ndarray:
        """``(3, n)`` float32 B, G and R planes of working pixels (:meth:`indices` columns) of
        the frame last sampled: per-channel arithmetic on whole planes runs several times faster
        than on rows of three. The frame pixels are summed as integers (exact, and cheaper)."""
        if self.frame is None:
            raise RuntimeError("no frame has been sampled yet")
        source = self._small if self.shrink_first else self.frame.reshape(-1, 3)
        total = take_rows(source, index[0])
        if len(index) > 1:
            total = total.astype(np.uint16)
            for samples in index[1:]:
                total += take_rows(source, samples)
        planes = total.T.astype(np.float32, order="C")
        if len(index) > 1:
            planes *= np.float32(1.0 / len(index))
        return planes
