"""Registering a reference moved after a camera bump to the board as the camera now sees it.

A bump is re-fitted from the printed grid, and the empty-board reference is moved to the
new view by one homography (``device.pipeline.warp_reference``). That cannot follow the
tiers' parallax: the plates' lines and cut edges stay a pixel or two off, and every read
after the bump sees change along them. Where the frame the camera was re-fitted from
shows the empty board, the reference pixel within that misfit whose colour is nearest the
frame's is the one that belongs there: taking it registers the reference to the view,
with the reference's own pixels (nothing of the frame goes in). Under the tokens on the
board the moved reference is kept as it is.
"""

from __future__ import annotations

import cv2
import numpy as np


def registered_to(
    reference: np.ndarray, frame: np.ndarray, misfit_px: float, keep: np.ndarray
) -> np.ndarray:
    """``reference`` (BGR, uint8) with each pixel outside ``keep`` (a bool mask of its
    size) replaced by the reference pixel within ``misfit_px`` (its pixels) of it whose
    colour is nearest the ``frame``'s there (the frame shrunk to the reference's size):
    empty board a little off is then where the frame shows it, while a change the misfit
    cannot explain (a token nobody knew of, a hand) is met by some board pixel near by,
    and stays a change. Under half a pixel of misfit the reference is returned as it is."""
    radius = int(np.floor(misfit_px + 0.5))
    if radius < 1:
        return reference
    h, w = reference.shape[:2]
    if keep.shape != (h, w):
        raise ValueError(f"the mask is {keep.shape[1]}x{keep.shape[0]}, the reference {w}x{h}")
    if frame.shape[:2] != (h, w):
        frame = cv2.resize(frame, (w, h), interpolation=cv2.INTER_AREA)
    seen = frame.astype(np.int32)
    padded = cv2.copyMakeBorder(reference, *[radius] * 4, cv2.BORDER_REPLICATE)
    best = reference.copy()
    best_distance = ((seen - reference) ** 2).sum(axis=2)
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            if dy * dy + dx * dx > radius * (radius + 1) or dy == dx == 0:
                continue  # (a disc of offsets; the pixel itself is the start)
            shifted = padded[radius + dy : radius + dy + h, radius + dx : radius + dx + w]
            distance = ((seen - shifted) ** 2).sum(axis=2)
            nearer = (distance < best_distance) & ~keep
            best[nearer] = shifted[nearer]
            best_distance = np.minimum(best_distance, np.where(keep, best_distance, distance))
    return best
