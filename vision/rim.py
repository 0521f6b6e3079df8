"""Does a point show a token's outline?

A token of the table's colour changes its pixels little, but it still draws its
outline: a brighter top, a shaded wall. Pixel pairs straddling each point's rim
(:class:`vision.footprint.RimPairs`) are compared with the empty board: where most
of a point's pairs now contrast more, beyond the sensor noise and beyond what the
rims of the points nobody asks about show in the same frame (under a changed
light every edge contrasts a little differently, a token's outline much more),
the point is outlined. The pairs are read from the frame only for the few points
that ask (not gathered with the rest of a read).
"""

from __future__ import annotations

import numpy as np

from calibration.colours import feature_columns, features, noise_scale
from vision.explain import Cover
from vision.footprint import N_POINTS, Footprints, spread
from vision.frame_sampling import FrameSampler, take_rows
from vision.sensor_noise import SensorNoise
from vision.stats import grouped_median

RIM_SIGMAS = 2.0  # a pair's contrast must grow at least this far out of its noise to be a new edge
# ... and beyond what this share of the rim pairs of points nobody asks about show in the same
# frame (a changed light or white balance moves every edge a little: the noise model misses it).
RIM_NULL_QUANTILE = 0.95
RIM_NULL_PAIRS = 500  # at most this many of those pairs are read
RIM_NULL_MIN = 50  # fewer than this say nothing: the noise model alone decides, at
RIM_SIGMAS_ALONE = 3.0  # this stricter bar
RIM_SHARE = 0.5  # share of a point's open rim pairs with a new edge that outlines a token
# A faint outline: its pairs' contrast must grow this far beyond what the rims of nearly every
# point nobody asks about grow at their median, and at least RIM_FAINT_SIGMAS; judged from at
# least RIM_NULL_POINTS such points with RIM_NULL_POINT_PAIRS clear pairs each.
RIM_FAINT_ABOVE = 1.0
RIM_FAINT_SIGMAS = 1.0
RIM_NULL_POINTS, RIM_NULL_POINT_PAIRS = 10, 4
RIM_INSIDE = 0.6  # share of a faint outline's pairs whose inside pixel changed more than outside
# ... and the fewest clear pairs it is judged on: half of a few pairs over a low bar is too
# often chance, or the edge of a token hidden beside a point seen through a gap.
RIM_FAINT_PAIRS = 10
RIM_OPEN = 0.25  # share of its rim pairs that must be clear of accepted tokens to judge it


class RimOutlines:
    """The rim pairs of one camera's points: where each pixel is read in a frame, their
    contrast in the empty board (``reference``, working size, ``(h * w, 3)`` float rows) and
    its noise per grey level of noise (the contrast of two pixels, in the frame and in the
    reference, chroma and brightness added up). Frames are read through ``sampler`` and
    judged against ``noise``."""

    def __init__(
        self,
        footprints: Footprints,
        reference: np.ndarray,
        sampler: FrameSampler,
        noise: SensorNoise,
    ) -> None:
        rim = footprints.rim
        self._sampler, self._noise = sampler, noise
        self._point, self._count = rim.point, rim.count
        self._start = np.cumsum(rim.count) - rim.count
        # Accepted silhouettes are painted over the rim pixels only (not the whole image).
        universe = np.unique(np.concatenate([rim.inside, rim.outside]))
        self._silhouette = footprints.silhouette.within(universe).local_to(universe)
        self._pixels = len(universe)
        self._local = (
            np.searchsorted(universe, rim.inside),
            np.searchsorted(universe, rim.outside),
        )
        self._frame_index = [sampler.indices(rim.inside), sampler.indices(rim.outside)]
        ref_in, ref_out = take_rows(reference, rim.inside), take_rows(reference, rim.outside)
        self._ref_features = (features(ref_in), features(ref_out))
        self._ref_contrast = np.linalg.norm(self._ref_features[0] - self._ref_features[1], axis=1)
        n_in, n_out = noise_scale(ref_in), noise_scale(ref_out)
        pair = np.sqrt(n_in**2 + n_out**2)
        self._noise_per_grey = (np.sqrt(2.0) * pair.sum(axis=1)).astype(np.float32)
        self._inv_light_noise = (1.0 / (np.sqrt(2.0) * pair[:, 1])).astype(np.float32)
        # A rim pair's class of detail: that of its more detailed pixel.
        self._detail_class = noise.class_of(
            np.maximum(noise.detail_at(rim.inside), noise.detail_at(rim.outside))
        )

    def growth(
        self, points: np.ndarray, accepted: np.ndarray, freed: np.ndarray, gain: np.ndarray
    ) -> np.ndarray:
        """Per row: the mean contrast growth (noise units, see :meth:`contrast`) over the
        rim pairs of ``points[k]`` clear of every ``accepted`` token's silhouette but
        ``freed[k]``'s, in the frame last sampled (``gain``: its light per channel against the
        reference); NaN where too few are clear to say (``RIM_OPEN``). A token's outline
        draws an edge across its own rim; a point in line with it, whose outline falls inside
        or outside that token, sees no new edge there."""
        out = np.full(len(points), np.nan)
        if self._sampler.frame is None or not len(points):
            return out
        chosen = spread(accepted, self._silhouette.count)
        cover = Cover.of(
            self._silhouette.index[chosen], self._silhouette.point[chosen], self._pixels
        )
        counts = self._count[points]
        row = np.repeat(np.arange(len(points)), counts)
        pairs = np.repeat(self._start[points] - (np.cumsum(counts) - counts), counts)
        pairs += np.arange(len(row))
        inside, outside = self._local
        clear = cover.open_for(inside[pairs], freed[row]) & cover.open_for(
            outside[pairs], freed[row]
        )
        n_clear = np.bincount(row, weights=clear, minlength=len(points))
        judged = (n_clear > 0) & (n_clear >= RIM_OPEN * counts)
        keep = clear & judged[row]
        if not keep.any():
            return out
        z, _ = self.contrast(pairs[keep], gain)
        total = np.bincount(row[keep], weights=z, minlength=len(points))
        out[judged] = total[judged] / n_clear[judged]
        return out

    def outlined(
        self, accepted: np.ndarray, asked: np.ndarray, gain: np.ndarray, *, faint: bool
    ) -> np.ndarray:
        """Which of the ``asked`` points show a token's outline in the frame last sampled
        (``gain``: its light per channel): most pixel pairs straddling the rim of the point's
        top disc (and the bottom of its wall) contrast more than in the empty board, beyond
        the noise and beyond what the rims of the points nobody asks about show. Pairs
        touching an ``accepted`` token's silhouette say nothing (that token draws edges
        there, and a nearer one hides the rim), and a point needs a fair share of its rim
        clear of them.

        With ``faint``, a fainter outline also counts (see :meth:`_faint_edge_level`) where
        the pixels inside the rim changed more than those outside it in most pairs: a token's
        outline is drawn by what it puts inside, a shadow's edge crossing an empty point's
        rim by either side."""
        out = np.zeros(N_POINTS, bool)
        if self._sampler.frame is None or not asked.any():
            return out
        taken = np.zeros(self._pixels, bool)
        taken[self._silhouette.select(accepted)] = True
        inside, outside = self._local
        clear = ~taken[inside] & ~taken[outside]
        asked_pairs = spread(asked, self._count)
        pairs = np.flatnonzero(asked_pairs & clear)
        others = np.flatnonzero(~asked_pairs & ~spread(accepted, self._count) & clear)
        sample = others[:: max(1, -(-len(others) // RIM_NULL_PAIRS))]
        z, colours = self.contrast(np.concatenate([pairs, sample]), gain)
        n = len(pairs)
        level = RIM_SIGMAS_ALONE
        if len(sample) >= RIM_NULL_MIN:
            null = z[n:]
            rank = int(np.ceil(RIM_NULL_QUANTILE * (len(null) - 1)))  # (a partition is cheaper)
            level = max(RIM_SIGMAS, float(np.partition(null, rank)[rank]))
        z = z[:n]
        point = self._point[pairs]
        n_clear = np.bincount(point, minlength=N_POINTS)
        judged = asked & (n_clear >= RIM_OPEN * self._count) & (n_clear > 0)
        share = RIM_SHARE * n_clear

        def beyond(bar: float) -> np.ndarray:
            return np.bincount(point, weights=z > bar, minlength=N_POINTS) >= share

        outlined = judged & beyond(level)
        if not faint:
            return outlined
        ref_in, ref_out = self._ref_features
        moved_in, moved_out = (
            sum((colours[side][k][:n] - ref[pairs, k]) ** 2 for k in range(3))
            for side, ref in ((0, ref_in), (1, ref_out))
        )
        n_inside = np.bincount(point, weights=moved_in > moved_out, minlength=N_POINTS)
        faint_ones = judged & ~outlined & (n_clear >= RIM_FAINT_PAIRS) & beyond(RIM_FAINT_SIGMAS)
        faint_ones &= n_inside >= RIM_INSIDE * n_clear
        if faint_ones.any() and len(others) >= RIM_NULL_MIN:
            # (the other points' whole rims are read only now: most frames ask no such point)
            null, _ = self.contrast(others, gain)
            faint_level = self._faint_edge_level(null, self._point[others])
            if faint_level is not None:
                outlined |= faint_ones & beyond(faint_level)
        return outlined

    def contrast(
        self, pairs: np.ndarray, gain: np.ndarray
    ) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
        """How far the contrast of each of the rim ``pairs`` grew since the empty board, in
        units of its noise, and the pairs' colour features in the frame (inside and outside:
        two triples of feature columns; ``gain``: the frame's light per channel).

        Or, where more, how far the pair's inside pixel brightened beyond its outside one,
        in units of the brightness noise of the pair's class of detail: a grey level moves
        a pixel's chroma features several times farther than its brightness, so a pale
        token on a base of its own hue, whose outline is a brightness edge, stayed within
        the noise of the contrast (still scene 832: 9 of 22 cream tokens seen through the
        plates unread). Brightening only, as no shadow brightens: counted both ways, the
        edges of the tokens' shadows across a dark stone table outlined six empty points
        (scene 886)."""
        colours = [
            # (the tilt of uneven light is the same on both sides of an edge: gains suffice)
            feature_columns(*(self._sampler.read_at(np.take(index, pairs, axis=1)) / gain[:, None]))
            for index in self._frame_index
        ]
        # (the norm of the differences, as numpy's, summed in its order)
        d0, d1, d2 = (colours[0][k] - colours[1][k] for k in range(3))
        contrast = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2) - self._ref_contrast[pairs]
        z = contrast / (self._noise.sigma * self._noise_per_grey[pairs])
        ref_in, ref_out = self._ref_features
        brighter_in = colours[0][2] - ref_in[pairs, 2]
        brighter_out = colours[1][2] - ref_out[pairs, 2]
        brightening = brighter_in - np.maximum(brighter_out, 0.0)
        sigma = self._noise.detail_sigmas[self._detail_class[pairs]]
        z_light = brightening * self._inv_light_noise[pairs] / sigma
        return np.maximum(z, z_light), colours

    def _faint_edge_level(self, null: np.ndarray, null_point: np.ndarray) -> float | None:
        """The contrast growth (noise units) half of a faint outline's pairs must pass in this
        frame, from the rim pairs of the points nobody asks about (``null``, of points
        ``null_point``): the 95th percentile of those points' median growth plus
        ``RIM_FAINT_ABOVE``, and at least ``RIM_FAINT_SIGMAS``. Each point's own median, not
        the pairs pooled: a shadow or a glare moves a whole rim together. None when fewer
        than ``RIM_NULL_POINTS`` points have enough clear pairs to tell."""
        median, n = grouped_median(null_point, null[:, None])
        whole = (n >= RIM_OPEN * self._count) & (n >= RIM_NULL_POINT_PAIRS)
        if whole.sum() < RIM_NULL_POINTS:
            return None
        usual = float(np.quantile(median[whole, 0], RIM_NULL_QUANTILE))
        return max(RIM_FAINT_SIGMAS, usual + RIM_FAINT_ABOVE)
