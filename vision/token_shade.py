"""The shade on the tokens' tops, and the tokens' word on the light the base's shadows show.

Under a hard light the tokens on higher tiers and the post shade the tops below
them as deeply as they shade the base. A token's colour read in that shade is a
darker colour than its set's, so the shaded samples are relit before the colour
is read, by as much as the base's shadows darken it. Whether that light is the
true one, the tokens themselves tell: a top the predicted shadows cross in part
must be darker in that part.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration.plate_colour import light_ratio, relit
from vision.footprint import N_POINTS, working_to_frame
from vision.frame_sampling import take_rows
from vision.gathered import BEHIND_LINE, GatheredPixels
from vision.shadows import ShadedTops, ShadowModel, Shadows
from vision.stats import grouped_median

MAX_SHADOW_GAIN = 10.0  # no shadow on the tokens is taken to keep less than a tenth of the light

#: The light on the tokens as :meth:`TokenShade.on_tokens` gives it: its slope, how many
#: times brighter than in the shade the light out of it is, and the casting tokens' mask.
Shade = tuple[tuple[float, float], float, np.ndarray]

_NO_POINTS = np.zeros(N_POINTS, bool)  # (a point mask with none set; never written to)
_NO_POINTS.flags.writeable = False


def witnesses(accepted: np.ndarray, before_accepted: np.ndarray | None) -> np.ndarray:
    """Which of the ``accepted`` tokens may tell the light (see :meth:`TokenShade.verdict`):
    not one new since the calm board before the hand came (``before_accepted``; None: no
    visit), which may be a new token's shadow read as a token (in still pictures, where
    nothing is new, every token counts)."""
    return accepted if before_accepted is None else accepted & before_accepted


class TokenShade:
    """The shade on one camera's token tops and cores (``pixels``: the gathered pixels),
    under the shadows the base shows (``shadow_model``) in the empty board's light
    (``reference_features``: its colour features per gathered pixel)."""

    def __init__(
        self,
        camera: Any,
        spec: Any,
        pixels: GatheredPixels,
        shadow_model: ShadowModel,
        reference_features: np.ndarray,
    ) -> None:
        fp = pixels.footprints
        self._pixels, self._shadow_model = pixels, shadow_model
        self._reference = reference_features
        self._plates_above = fp.plates_above
        # Which top and core samples the tokens above shade.
        self._tops, self._cores = (
            ShadedTops(
                camera,
                spec,
                working_to_frame(pixels.positions[part.index], fp.size, fp.scale),
                part.point,
            )
            for part in (pixels.top, pixels.core)
        )
        #: The shadows the last full read found, deep or faint (None: none) ...
        self.found: Shadows | None = None
        #: ... and how many times brighter than in them the light out of them is (None: not
        #: known).
        self.gain: float | None = None
        #: The post's shadow on the tokens' tops as the empty board shows it: a light's slope
        #: that throws it at least that far (the light's own where the band's end is seen),
        #: and how much brighter out of it the light is (None: not shown; see
        #: :mod:`vision.post_light`).
        self.post: tuple[tuple[float, float], float] | None = None
        self._verdict_memo: tuple[Shadows, np.ndarray, bytes, bool | None] | None = None

    def take(self, found: Shadows | None) -> None:
        """Make the shadows ``found`` (None: none) the frame's."""
        self.found, self.gain = found, self._gain_out_of(found)

    def _gain_out_of(self, found: Shadows | None) -> float | None:
        """How many times brighter than in the ``found`` shadows the light out of them is:
        the base's empty look where they fall against that look shifted by them (None: no
        shadows, or none darker). The plates' veil makes
        that an underestimate, but taking off a veil learned from few tokens made a dark
        base's shadows look near black: a shaded token is brightened by no more than the
        base shows."""
        if found is None:
            return None
        where = found.mask & self._shadow_model.on_base
        if not where.any():  # (the table past the base shows them all: its look is the shift)
            where = found.mask
        if not where.any():
            return None
        lit = np.median(self._reference[where], axis=0)
        gain = light_ratio(lit, lit + found.shift)
        return min(gain, MAX_SHADOW_GAIN) if gain > 1.0 else None

    def on_tokens(
        self,
        feats: np.ndarray,
        accepted: np.ndarray,
        witnesses: np.ndarray,
        *,
        confirmed: bool = True,
    ) -> Shade | None:
        """The light on the tokens (see :data:`Shade`) when the ``accepted`` tokens (of them
        the ``witnesses``, see :meth:`verdict`) confirm the light found on the base. Unless
        ``confirmed`` is asked for, a light the tokens cannot tell about (no top crossed in
        part) is taken too. Where the tokens' shadows show no light, the post's shadow on the
        empty board still tells where the post shades the tops, and how deeply: the first
        token of a set laid in it was learned a third too dark, and the set's next token, in
        full light, founded a set of its own (bench game 10705 under a bare lamp, the post's
        band running out of the picture). None when nothing tells."""
        found, gain = self.found, self.gain
        if found is None or gain is None:
            if found is None and self.post is not None:
                slope, post_gain = self.post
                return slope, post_gain, _NO_POINTS
            return None
        verdict = self.verdict(feats, found, accepted, witnesses)
        if verdict or (verdict is None and not confirmed):
            return found.slope, gain, accepted
        return None

    def verdict(
        self, feats: np.ndarray, found: Shadows, accepted: np.ndarray, witnesses: np.ndarray
    ) -> bool | None:
        """Do the ``accepted`` tokens show the light the base's shadows were ``found`` to
        come from (``feats``: the frame's colour features)? A token whose top the predicted
        shadows cross in part must be darker in that part, by at least a quarter of the
        shadows' depth on the base: at least half of those that tell must be. A wrong light
        (found from dark patches of a table) puts its shadows anywhere, and they then cross
        tops no darker there: a top whose step is under half the quarter tells against the
        light; between the two it tells nothing (three samples of a top at the edge of the
        post's shadow, partly lit, made a step of 0.39 where 0.40 confirms, and refuted the
        right light, found 0.03 off: the shadows of a bench game's tokens were then read as
        tokens). Only the ``witnesses`` among them tell: a token the last hand visit added
        still casts its shadow, but it may be a new token's shadow, evenly dark, read as a
        token (the second of two new tokens under a bare lamp refuted the right light so).
        None when no top tells. (A read asks up to three times about the same tokens of one
        frame: the last answer is kept.)"""
        key = accepted.tobytes()
        memo = self._verdict_memo
        if memo is not None and memo[0] is found and memo[1] is feats and memo[2] == key:
            return memo[3]
        verdict = self._judge(feats, found, accepted, witnesses)
        self._verdict_memo = (found, feats, key, verdict)
        return verdict

    def _judge(
        self, feats: np.ndarray, found: Shadows, accepted: np.ndarray, witnesses: np.ndarray
    ) -> bool | None:
        pixels = self._pixels
        shaded = self._tops.shaded(found.slope, accepted)
        depth = float(found.shift[2])
        nearest = pixels.nearest_tier(accepted)
        top = pixels.top
        seen = (
            pixels.top_inside
            & (pixels.top_part < BEHIND_LINE)
            & witnesses[top.point]
            & (nearest[top.index] <= pixels.top_tier)
        )
        count = [
            np.bincount(top.point[seen & part], minlength=N_POINTS) for part in (shaded, ~shaded)
        ]
        crossed = (count[0] >= 3) & (count[1] >= 3)
        if not crossed.any():
            return None
        light = feats[:, 2]
        medians = []  # (per crossed top: the median brightness inside the shade, outside it)
        for part in (shaded, ~shaded):
            use = seen & part & crossed[top.point]
            median, _ = grouped_median(top.point[use], light[top.index[use]][:, None])
            medians.append(median[crossed, 0])
        step = medians[0] - medians[1]
        dark, flat = step <= depth / 4, step > depth / 8
        if not (dark | flat).any():
            return None
        return bool(np.mean(dark[dark | flat]) >= 0.5)

    def tops_relit(
        self,
        feats: np.ndarray,
        samples: np.ndarray,
        asked: np.ndarray,
        shade: Shade | None,
        loss: tuple[float, np.ndarray] | None,
    ) -> np.ndarray:
        """Colour features of the top-disc ``samples`` (entries of the gathered tops) of the
        ``asked`` points (a mask) as they would look if nothing above shaded them under the
        ``shade`` (None: none), with the plates' ``loss`` in front of them kept: a white
        token two tiers under another reads as the grey set otherwise."""
        rows = take_rows(feats, self._pixels.top.index[samples])
        if shade is None or not len(samples):
            return rows
        slope, gain, casters = shade
        dark = self._tops.shaded(slope, casters, asked)[samples]
        return self._relit(rows, dark, self._pixels.top.point[samples], gain, loss)

    def cores_relit(
        self,
        rows: np.ndarray,
        entries: np.ndarray,
        shade: Shade | None,
        loss: tuple[float, np.ndarray] | None,
    ) -> np.ndarray:
        """Colour features ``rows`` of the core ``entries`` (a mask over the gathered cores)
        as they would look under no shade (see :meth:`tops_relit`)."""
        if shade is None:
            return rows
        points = self._pixels.core.point[entries]
        asked = np.zeros(N_POINTS, bool)
        asked[points] = True
        slope, gain, casters = shade
        dark = self._cores.shaded(slope, casters, asked)[entries]
        return self._relit(rows, dark, points, gain, loss)

    def _relit(
        self,
        rows: np.ndarray,
        dark: np.ndarray,
        points: np.ndarray,
        gain: float,
        loss: tuple[float, np.ndarray] | None,
    ) -> np.ndarray:
        """Colour features ``rows`` (of pixels of the tops of ``points``) with those in the
        shade (``dark``) relit by ``gain``: the plates' veil in front of them (``loss``, as
        learned) is not the token's light and stays."""
        if not dark.any():
            return rows
        transmission, added = loss or (1.0, 0.0)
        plates = self._plates_above[points[dark]]
        rows = rows.copy()
        rows[dark] = relit(rows[dark], plates, gain, transmission, added)
        return rows
