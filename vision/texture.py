"""Has a point's printed texture given way to a token's plain top?

A shadow darkens the printed lines and the grain of the board and keeps them; a
token's plain top hides them. So a point whose top disc had texture in the empty
board that the frame no longer follows, and that is now plainer, holds a token,
even one of the table's colour that hardly changes its pixels. The test is the
correlation of frame and reference brightness over the disc, with texture
counted against the sensor noise; all of it is a few bincounts over samples
chosen once.
"""

from __future__ import annotations

import numpy as np

from vision.footprint import N_POINTS
from vision.gathered import BEHIND_LINE, RIM, SIDE, SURFACE

# Brightness spread over a top disc that counts as texture (printed lines, grain): this many
# times the sensor noise (a fainter spread is mostly noise, and no correlation is measured on it).
TEXTURE_SIGMAS = 4.0
# A token's top is one plain surface: where the texture gave way, the frame's spread must have
# fallen at least to this share (variance) of the reference's.
TEXTURE_PLAINER = 0.5
TEXTURE_KEPT = 0.5  # frame/reference brightness correlation above which the texture is still there
TEXTURE_FLAT = 0.5  # a replaced texture whose spread fell below this share of its own is gone


class TextureCheck:
    """The texture test over chosen samples of the gathered pixels.

    ``samples`` are the gathered pixels tested (indices), ``key`` each one's
    ``4 * point + part`` (``SURFACE``, ``RIM``, ``BEHIND_LINE`` or ``SIDE``; see
    :attr:`vision.gathered.GatheredPixels.part_key`). ``reference_light`` is the empty board's
    brightness feature and ``inv_light2`` the inverse variance of its noise per grey level, per
    gathered pixel.
    """

    def __init__(
        self,
        samples: np.ndarray,
        key: np.ndarray,
        reference_light: np.ndarray,
        inv_light2: np.ndarray,
    ) -> None:
        self._samples, self._key = samples, key
        reference = reference_light[samples].astype(np.float64)
        noise2 = 1.0 / inv_light2[samples].astype(np.float64)
        self._reference_light, self._noise2 = reference, noise2
        # The empty board's sums, once: count, brightness, its square, noise variance.
        self._reference = [self._sums(w) for w in (None, reference, reference * reference, noise2)]

    def _sums(self, weights: np.ndarray | None, samples: np.ndarray | None = None) -> np.ndarray:
        """``(N_POINTS, 4)`` sums of ``weights`` (per sample, or per one of ``samples`` when
        given; None: counts) by point and part."""
        key = self._key if samples is None else self._key[samples]
        return np.bincount(key, weights=weights, minlength=4 * N_POINTS).reshape(N_POINTS, 4)

    def _reference_without(self, dropped: np.ndarray) -> list[np.ndarray]:
        """The empty board's sums less those of the samples ``dropped`` (indices): the sums
        made once, less the few samples a frame leaves out."""
        reference, noise2 = self._reference_light[dropped], self._noise2[dropped]
        less = [self._sums(w, dropped) for w in (None, reference, reference * reference, noise2)]
        return [total - part for total, part in zip(self._reference, less)]

    def replaced(
        self, light: np.ndarray, sigma: float, shadowed: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per point, from a frame's brightness feature per gathered pixel (``light``) and its
        noise (``sigma``, grey levels): whether its top's texture was replaced (not followed,
        now plainer, judged over the surface samples), and whether the point is now plain
        (judged beside the lines, rim included, its brightness spread over the whole disc
        mostly gone, and its side not keeping the texture the empty board shows there: a
        token hides what lies behind its wall too). An opaque surface covers the whole disc,
        not a hand's edge or a nearer token's rim. Samples a modelled shadow was taken out of
        (``shadowed``, per gathered pixel) do not testify: a new shadow flattens what the
        reference shows as texture where it meets an old one (the post's, on the empty board
        under a bare lamp) or sinks the grain under the plates' veil, and a shadow read as a
        token there founded a wrong colour."""
        f, r = light[self._samples].astype(np.float64), self._reference_light
        count, sr, srr, noise = self._reference
        if shadowed is not None and shadowed[self._samples].any():
            dropped = np.flatnonzero(shadowed[self._samples])
            count, sr, srr, noise = self._reference_without(dropped)
            f = f.copy()
            f[dropped] = 0.0
        sf, sff, sfr = (self._sums(w) for w in (f, f * f, f * r))
        sums = (count, sf, sr, sff, srr, sfr, noise)

        def moments(parts: list[int]) -> tuple[np.ndarray, ...]:
            """Count, reference and frame variance, their covariance and the mean noise
            variance per point from the sums of the ``parts`` columns."""
            count, sf, sr, sff, srr, sfr, noise = (total[:, parts].sum(axis=1) for total in sums)
            n = np.maximum(count, 1)
            mf, mr = sf / n, sr / n
            var_r = np.maximum(srr / n - mr * mr, 0.0)
            var_f = np.maximum(sff / n - mf * mf, 0.0)
            return count, var_r, var_f, sfr / n - mf * mr, noise / n * sigma**2

        def texture(parts: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            """Over the ``parts`` columns: texture beyond the noise, followed by the frame,
            and the frame's spread more than ``TEXTURE_PLAINER`` of it."""
            count, var_r, var_f, cov, noise = moments(parts)
            textured = (var_r >= TEXTURE_SIGMAS**2 * noise) & (count >= 8)
            follows = cov >= TEXTURE_KEPT * np.sqrt(var_r * var_f) + 1e-12
            return textured, follows, var_f > TEXTURE_PLAINER * var_r

        def given_way(parts: list[int]) -> np.ndarray:
            """Texture beyond the noise over the ``parts`` columns, not followed, now plainer."""
            textured, follows, as_spread = texture(parts)
            return textured & ~follows & ~as_spread

        replaced = given_way([SURFACE])
        # Plain (the sure verdict) is judged over the whole disc, the lines in front included:
        # beside those lines alone, a reference registered a pixel off (a camera re-fitted
        # after a bump) can look textured where the frame of an empty point is not. And a
        # token hides the board behind its side as well: a side that keeps its texture as it
        # was holds none, and the plain surface over the disc is something else's (seen from
        # low, a farther neighbour's wall covered a top-tier disc, bench game 8601).
        _, all_r, all_f, _, _ = moments([SURFACE, RIM, BEHIND_LINE])
        textured, follows, as_spread = texture([SIDE])
        side_kept = textured & follows & as_spread
        plain = (replaced | given_way([SURFACE, RIM])) & (all_f <= TEXTURE_FLAT**2 * all_r)
        return replaced, plain & ~side_kept
