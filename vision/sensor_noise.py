"""Does a change stand out of the sensor noise?

A pixel's colour features move with the noise by an amount that depends on the
pixel: a dark pixel's chroma is far noisier than a bright one's (the scale per
grey level of noise comes from the empty board, :func:`calibration.colours.noise_scale`).
The noise itself, in grey levels, is measured on every frame over the light
samples (most of the board is unchanged, so a robust spread of their difference
from the reference is the noise), overall and per class of detail: the reference
is a JPEG, shrunk, and its own error grows with the printed lines and grain
around a pixel.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.colours import noise_scale

NOISE_SIGMAS = 5.0  # a change must stand this far out of the sensor noise
NOISE_CLASSES = 4  # the reference's pixels by how much detail surrounds them, equal shares
MAX_NOISE = 6.0  # grey levels; more "noise" than this is a changed scene, not a sensor
MIN_NOISE_SAMPLES = 100  # light samples of a class of detail that measure its noise


def robust_sigma(residual: np.ndarray) -> float:
    """The noise (grey levels) of absolute pixel differences ``residual``, most of them
    unchanged: their median, as a normal distribution's sigma, within 1..``MAX_NOISE``."""
    if not len(residual):
        return MAX_NOISE
    return float(np.clip(1.4826 * np.median(residual), 1.0, MAX_NOISE))


class SensorNoise:
    """The noise model of one camera's gathered pixels.

    ``reference_px`` are the gathered pixels of the empty board (``(n, 3)`` BGR),
    ``reference`` the working-size empty board image, ``positions`` the gathered pixels'
    flat working-image indices and ``light_samples`` the gathered pixels the frame's light
    and noise are measured on (indices into ``positions``).
    """

    def __init__(
        self,
        reference_px: np.ndarray,
        reference: np.ndarray,
        positions: np.ndarray,
        light_samples: np.ndarray,
    ) -> None:
        scale = noise_scale(reference_px)  # feature units per grey level of noise, per pixel
        self.inv_chroma2 = (1.0 / scale[:, 0] ** 2).astype(np.float32)
        self.inv_light2 = (1.0 / scale[:, 1] ** 2).astype(np.float32)
        # Each pixel's detail: its grey level's range over the 3x3 pixels around it.
        grey = reference.astype(np.float32).mean(axis=2)
        kernel = np.ones((3, 3), np.uint8)
        self._detail = (cv2.dilate(grey, kernel) - cv2.erode(grey, kernel)).reshape(-1)
        detail = self._detail[positions]
        shares = np.arange(1, NOISE_CLASSES) / NOISE_CLASSES
        self._cuts = np.quantile(detail[light_samples], shares)
        #: Per gathered pixel, its class of detail (0: the flattest quarter of the samples).
        self.detail_class = self.class_of(detail)
        self._sample_class = self.detail_class[light_samples]
        #: The last frame's noise of a pixel difference, grey levels ...
        self.sigma = 1.0
        #: ... and per class of detail.
        self.detail_sigmas = np.ones(NOISE_CLASSES, np.float32)

    def class_of(self, detail: np.ndarray) -> np.ndarray:
        """The class of detail of each value of ``detail`` (as :meth:`detail_at` gives)."""
        return np.searchsorted(self._cuts, detail).astype(np.intp)

    def detail_at(self, working: np.ndarray) -> np.ndarray:
        """The detail of the empty board at flat working-image indices ``working``."""
        return self._detail[working]

    def measure(self, residual: np.ndarray, clipped: np.ndarray) -> None:
        """Take a frame's noise from the light samples' ``residual`` (``(n, 3)`` absolute
        differences from the reference, balanced for the light; not where ``clipped``), over
        all of them and per class of detail. A JPEG-shrunk reference's own error behind three
        plates' dense lines is four times the flat table's, as measured: judged by one noise
        for all, a third of such pixels of an empty board stood out of it and outlined a
        token. Differences no accepted noise could give are left out of the classes: on a
        crowded board the tokens' changes were up to a third of the most detailed class's
        samples, and raised its median by half."""
        self.sigma = robust_sigma(residual[~clipped])
        sigmas = np.full(NOISE_CLASSES, self.sigma, np.float32)
        noise_like = ~clipped & (residual < NOISE_SIGMAS * MAX_NOISE)
        for k in range(NOISE_CLASSES):
            mine = self._sample_class == k
            values = residual[mine][noise_like[mine]]
            if len(values) >= MIN_NOISE_SAMPLES:
                sigmas[k] = robust_sigma(values)
        self.detail_sigmas = sigmas

    def of_detail(self, pixels: np.ndarray | None = None) -> np.ndarray:
        """The last frame's noise (grey levels) of each gathered pixel's class of detail (or
        of ``pixels``')."""
        classes = self.detail_class if pixels is None else self.detail_class[pixels]
        return self.detail_sigmas[classes]

    def beyond(
        self,
        chroma2: np.ndarray,
        light: np.ndarray,
        pixels: np.ndarray | None = None,
        *,
        sigma: np.ndarray | None = None,
    ) -> np.ndarray:
        """Which feature differences (squared chroma and brightness, per gathered pixel, or
        per one of ``pixels``) stand out of the sensor noise of the last frame: measured in
        units of each pixel's own noise, chroma and brightness apart (a dark pixel's colour
        is far noisier); against ``sigma`` per pixel when given (the noise of its class of
        detail), else the frame's one noise."""
        inv_chroma2, inv_light2 = self.inv_chroma2, self.inv_light2
        if pixels is not None:
            inv_chroma2, inv_light2 = inv_chroma2[pixels], inv_light2[pixels]
        noise_units = chroma2 * inv_chroma2 + light * light * inv_light2
        bar = np.float32(NOISE_SIGMAS) * (self.sigma if sigma is None else sigma)
        return noise_units > bar * bar
