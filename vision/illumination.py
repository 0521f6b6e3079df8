"""How the light on the board changed since the empty-board reference.

One gain per colour channel cancels a change of exposure or white balance. Real light
also changes unevenly: the sun moves across a window, a lamp is switched on at one
side, so one end of the board brightens more than the other. Over the board that
change is smooth, so on top of the channel gains the log brightness is modelled as a
plane over the image (a tilt), fitted robustly to sampled pixels: pixels that changed
for other reasons (tokens, a hand) are outliers and are left out. The tilt is bounded,
so nothing local (a hand resting on one side) can be explained away as light. A tilt
scales all three channels of a pixel alike, so it moves only the brightness feature,
never the chroma ones: applying it costs one multiply-add per pixel. A light bright
enough to clip much of a pale table leaves a skewed few samples unclipped; it is then
measured again on the channels the reference keeps clear of clipping. A reference that
clipped (the empty board taken under a brighter light) hides how bright it was: its
clipped channels never measure a gain.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.colours import CLIPPED, lowest_channel, ratio_usable

MAX_TILT = 0.35  # largest log-brightness change from the image centre to its edge
MIN_SAMPLES = 50  # fewer usable samples than this: the light is unknown (no change)
INLIER_SIGMAS = 2.5  # residuals beyond this many robust deviations are not the light
MIN_BAND = 0.04  # ... but a band of at least this much log gain is always kept
CLIP_HEADROOM = 0.9  # a channel the light is expected to take above this share of clipping is
# left out of the light's measure (whether the frame clipped it is the noise's call)
CENSORED_SHARE = 0.05  # ... once the light clipped a channel of this share of the samples


@dataclass(frozen=True)
class Light:
    """A frame's light against the reference: ``gain`` (B, G, R) at the image centre and
    ``tilt``, the log-brightness slope along x and y (both running -1..1 across the image)."""

    gain: np.ndarray
    tilt: np.ndarray

    def brightness(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Log-brightness factor of the tilt at coordinates ``x``, ``y`` (float32)."""
        return np.float32(self.tilt[0]) * x + np.float32(self.tilt[1]) * y


UNCHANGED = Light(gain=np.ones(3, np.float32), tilt=np.zeros(2))


def coordinates(flat: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """float32 ``x``, ``y`` of flat working-image indices, from -1 to 1 across the image."""
    width, height = size
    rows, columns = np.divmod(flat, width)
    x = columns / max(width - 1, 1) * 2.0 - 1.0
    y = rows / max(height - 1, 1) * 2.0 - 1.0
    return x.astype(np.float32), y.astype(np.float32)


class LightField:
    """Measures a frame's :class:`Light` on fixed sample pixels of the working image
    (``sample_flat``, of an image of ``size``), whose empty-board BGR colours are
    ``reference_samples``."""

    def __init__(
        self, size: tuple[int, int], sample_flat: np.ndarray, reference_samples: np.ndarray
    ) -> None:
        self._x, self._y = coordinates(sample_flat, size)
        # Kept as B, G and R planes (``(3, n)``), as the frame's samples are measured.
        reference = _planes(reference_samples)
        self._reference_ok = lowest_channel(reference.T) > 20  # dark: meaningless ratios
        # Channels a brighter light can newly clip (those the reference clips say nothing).
        self._clippable = (reference < CLIPPED) & self._reference_ok
        self._reference = np.maximum(reference, 1.0)
        # Channels the reference keeps clear of clipping: only they measure a channel's gain.
        self._headroom = reference < CLIP_HEADROOM * CLIPPED
        self._log_reference = np.log(self._reference)

    def measure(self, frame_samples: np.ndarray) -> Light:
        """The channel gains and the tilt that best map the reference samples onto this
        frame's: the tilt from the mean log ratio of the channels (start from its median,
        keep the samples near it, fit the plane, keep the samples near the plane, fit
        again), then each channel's gain as its median ratio once the tilt is undone."""
        frame = _planes(frame_samples)
        usable = np.flatnonzero(self._reference_ok & ratio_usable(frame.T))
        if len(usable) < MIN_SAMPLES:
            return UNCHANGED
        log_ratio = np.log(np.take(frame, usable, axis=1)) - np.take(
            self._log_reference, usable, axis=1
        )
        level = (log_ratio[0] + log_ratio[1] + log_ratio[2]) / np.float32(3.0)
        tilt = _tilt(level, self._x[usable], self._y[usable])
        # The gains over every usable sample (the median already ignores the changed ones),
        # so that under even light they are exactly the plain median ratios.
        ratio = self._untilted_ratio(frame, usable, tilt)
        gain = np.array(
            [
                _median(_measurable(channel, room))
                for channel, room in zip(ratio, self._headroom[:, usable])
            ],
            np.float32,
        )
        light = Light(gain=gain, tilt=tilt)
        # A few samples the light clipped barely move the medians (leaving out a share q of
        # the highest ratios moves a median only to their (1 - q) / 2 quantile); many do.
        newly_clipped = (frame >= CLIPPED) & self._clippable
        if (newly_clipped.sum(axis=1) > CENSORED_SHARE * frame.shape[1]).any():
            return self._uncensored(frame, light)
        return light

    def _untilted_ratio(self, frame: np.ndarray, rows: np.ndarray, tilt: np.ndarray) -> np.ndarray:
        """``(3, m)``: the frame-to-reference ratios of the samples ``rows`` (of the frame's
        planes) with the brightness ``tilt`` taken off (what is left is the channel gains)."""
        lit = Light(gain=UNCHANGED.gain, tilt=tilt).brightness(self._x[rows], self._y[rows])
        return np.take(frame, rows, axis=1) / np.take(self._reference, rows, axis=1) * np.exp(-lit)

    def _uncensored(self, frame: np.ndarray, light: Light) -> Light:
        """The light measured again where the frame clips: without the clipping's bias. Where
        a brighter light clips a channel over much of the board, the samples left unclipped
        are those the noise happened to pull down (and the few darker surfaces): their ratios
        are too low, and the whole frame then looks changed. Each channel of each sample is
        used instead where the light measured so far keeps its reference clear of clipping
        (chosen by the reference, not by the frame's own noise); twice, since the first
        measure is biased low and lets a few clipped ones in."""
        ok = self._reference_ok & (frame > 5)
        log_ratio = np.log(np.maximum(frame, 1.0)) - self._log_reference
        for _ in range(2):
            lit = np.exp(light.brightness(self._x, self._y))
            expected = self._reference * (light.gain[:, None] * lit)
            clear = ok & self._headroom & (expected < CLIP_HEADROOM * CLIPPED)
            n_clear = clear.sum(axis=1)
            if (n_clear < MIN_SAMPLES).any():
                return light
            # Each sample's log brightness change, over the channels it has clear (each less
            # its channel's gain: the channels clear differ from sample to sample).
            deviation = np.where(clear, log_ratio - np.log(light.gain)[:, None], 0.0)
            count = clear.sum(axis=0)
            have = count > 0
            total = deviation[0] + deviation[1] + deviation[2]
            level = (total[have] / count[have]).astype(np.float32)
            tilt = _tilt(level, self._x[have], self._y[have])
            ratio = self._untilted_ratio(frame, np.arange(frame.shape[1]), tilt)
            gain = np.array([_median(ratio[k][clear[k]]) for k in range(3)], np.float32)
            light = Light(gain=gain, tilt=tilt)
        return light


def _measurable(ratios: np.ndarray, clear: np.ndarray) -> np.ndarray:
    """The ``ratios`` of one channel whose reference is ``clear`` of clipping (a clipped
    reference hides how bright it was, and its ratio comes out too high), unless too few are."""
    kept = ratios[clear]
    return kept if len(kept) >= MIN_SAMPLES else ratios


def _planes(samples: np.ndarray) -> np.ndarray:
    """``(3, n)`` contiguous float32 B, G and R planes of ``(n, 3)`` samples (no copy when they
    are a view of such planes)."""
    return np.ascontiguousarray(np.asarray(samples, np.float32).T)


def _tilt(level: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The bounded log-brightness slope of samples' log gains ``level`` at ``x``, ``y``: from
    their median, keep the samples near it, fit the plane, keep the samples near the plane,
    fit again."""
    plane = np.array([_median(level), 0.0, 0.0])
    for _ in range(2):
        residual = np.abs(level - (plane[0] + plane[1] * x + plane[2] * y))
        band = max(INLIER_SIGMAS * 1.4826 * _median(residual), MIN_BAND)
        inliers = residual <= band
        if np.count_nonzero(inliers) < MIN_SAMPLES:
            break
        plane = _plane(x[inliers], y[inliers], level[inliers])
    return plane[1:] * min(1.0, MAX_TILT / max(float(np.hypot(*plane[1:])), 1e-12))


def _median(values: np.ndarray) -> float:
    """The (upper) median of a 1-D array, by partition (np.median does more than needed)."""
    middle = len(values) // 2
    return float(np.partition(values, middle)[middle])


def _plane(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Least-squares ``a + b x + c y`` through the samples, from its normal equations."""
    x64, y64, z64 = x.astype(np.float64), y.astype(np.float64), z.astype(np.float64)
    sx, sy = x64.sum(), y64.sum()
    sxy = x64 @ y64
    normal = np.array([[len(x64), sx, sy], [sx, x64 @ x64, sxy], [sy, sxy, y64 @ y64]])
    return np.linalg.solve(normal, np.array([z64.sum(), x64 @ z64, y64 @ z64]))
