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


def misfit_disc(misfit_px: float) -> np.ndarray | None:
    """The pixels within ``misfit_px`` of one (a uint8 disc, OpenCV's ellipse kernel, of
    radius the misfit rounded, half a pixel up), or None when that is under half a pixel:
    where a moved reference's details may lie from where the camera sees them."""
    radius = int(np.floor(misfit_px + 0.5))
    if radius < 1:
        return None
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))


def registered_to(
    reference: np.ndarray, frame: np.ndarray, misfit_px: float, keep: np.ndarray
) -> np.ndarray:
    """``reference`` (BGR, uint8) with each pixel outside ``keep`` (a bool mask of its
    size) replaced by the reference pixel within ``misfit_px`` (its pixels, see
    :func:`misfit_disc`) whose colour is nearest the ``frame``'s there (the frame shrunk to
    the reference's size): empty board a little off is then where the frame shows it, while
    a change the misfit cannot explain (a token nobody knew of, a hand) is met by some board
    pixel near by, and stays a change. Under half a pixel of misfit the reference is
    returned as it is."""
    disc = misfit_disc(misfit_px)
    if disc is None:
        return reference
    h, w = reference.shape[:2]
    if keep.shape != (h, w):
        raise ValueError(f"the mask is {keep.shape[1]}x{keep.shape[0]}, the reference {w}x{h}")
    if frame.shape[:2] != (h, w):
        frame = cv2.resize(frame, (w, h), interpolation=cv2.INTER_AREA)
    r = disc.shape[0] // 2
    seen = frame.astype(np.int32)
    padded = cv2.copyMakeBorder(reference, r, r, r, r, cv2.BORDER_REPLICATE)
    best = reference.copy()
    best_distance = ((seen - reference) ** 2).sum(axis=2)
    for dy, dx in np.argwhere(disc) - r:  # (the pixel itself is the start)
        shifted = padded[r + dy : r + dy + h, r + dx : r + dx + w]
        distance = ((seen - shifted) ** 2).sum(axis=2)
        nearer = distance < best_distance
        best[nearer] = shifted[nearer]
        best_distance = np.minimum(best_distance, distance)
    best[keep] = reference[keep]
    return best
