"""Where the tokens' shadows fall on the board's base, and how dark they are.

Under a hard light (a lamp right over the table) every token on an upper tier casts a
token-sized, token-shaped dark disc onto the base far below it, seen through the clear
plates. Darker than the empty board and round, such a disc reads like a dark token on
whichever point lies over it. The empty board cannot have it (the token was not there),
but the light's direction can be found from the picture itself: the accepted tokens'
shadows all fall the same way, offset from each token by its height above the base
times one vector (the light's slope, ``slope``). So the darkening of the base is mapped
onto the base's plane once per read, and the slope is the one whose shadow discs of the
accepted tokens are darkest together. A change there that goes the shadows' own way, up to
their depth, is then the shadow's and no token's.

The light is taken to be far (one direction for the whole board) and the base flat. Where
it throws a token's shadow past the base, onto the table around it (seen through the plates
of the tiers that reach beyond the base in the picture), that shadow is the token's too,
with a look of its own measured there. The light is searched by the shadows on the base;
when the base shows too few of them under the light found there (fewer than
``MIN_BASE_SHADOWS`` discs seen and darker) or none, by those on the table as well: the first
tokens laid high under a low lamp threw every shadow past the base, a dark patch by a token
on the base passed for one of them, and the light found so threw every later shadow
elsewhere, where they read as tokens; a lamp 46 degrees up threw every shadow of a
game's first tokens past the base, and the light searched on the base alone was none (their
look is then the table's, and the table's samples being sparse, half of those its discs hold,
seen, tell the light). The table decides no more than that: a token on an
upper tier that the first, quick reading missed is a dark patch over the table too, and on
the still scenes, whose bases show many shadows, the table pulled the light wrong more often
than it put it right. (Shadows farther than ``TABLE_MARGIN_MM`` past the base are not
mapped.)

The same light throws the shadows of the tokens above, and of the post, onto the tops of
the tokens of lower tiers (:class:`ShadedTops`). They do not move a token, but they darken
it: a white token in the shadow of one two tiers up looks like a grey one. Where they fall
follows from the light's slope; how dark they are, from the shadows on the base.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.spec import TimeVectorsSpec
from vision.footprint import working_to_frame

CELL_MM = 2.0  # side of a cell of the base's plane map
MAX_SLOPE = 2.0  # the light at least 27 degrees above the horizon
FIRST_CASTERS = 12  # the lowest casters, which the first, coarse search of the light uses
FIRST_STEP_MM = 10.0  # its slope steps move their shadows this far
SEEDS = 3  # the best slopes of that search, searched around more finely with every caster
FINE_STEP = 0.01  # the last search's slope step
MIN_CASTERS = 2  # tokens above the bottom tier needed to find the light
MIN_PIXELS = 50  # pixels seen under the predicted shadows to believe the estimate
PRIOR_PIXELS = 200.0  # a slope's mean darkening is shrunk to the base's by this many pixels
SHADOW_COSINE = 0.9  # a change at least this much along the shadows' own look is theirs
UMBRA_QUANTILE = 0.9  # the shadows' depth: this quantile of the darkening seen in them
SHADOW_MARGIN_MM = 3.0  # grown around a predicted shadow disc (penumbra, refraction, fit)
TABLE_MARGIN_MM = 150.0  # how far past the base the table's shadows are mapped
MIN_DEPTH = 0.4  # shadows' darkening over the base's (brightness feature units) that counts
MIN_DISC_PIXELS = 10  # pixels of a shadow disc that tell its darkening (noise well under its depth)
MIN_BASE_SHADOWS = 3  # shadows seen on the base that tell the light without the table's
HELD_SHARE = 0.5  # of the samples the discs hold, seen, that tell a light where they hold few
TOP_CELL_MM = 1.0  # side of a cell of a tier's plane map of the shadows on token tops
SHADED_MEMO = 4  # answers of ShadedTops.shaded kept
LIGHT_DOUBT = 0.05  # a light's slope found is known to within this (searched again there)
_SHIFT_BITS = 4  # fractional bits of the points handed to OpenCV's drawing


@dataclass(frozen=True)
class Shadows:
    """Where the shadows fall (``mask`` per gathered pixel), how they change the base's
    look (``shift``: a feature difference from the empty board, chroma and brightness; seen
    through the plates' veil a shadow changes the colour too) and the light's slope that put
    them there (mm of offset on the base per mm of height, x and y). Where they fall past the
    base onto the table (``table``, part of ``mask``; None: nowhere seen) they change the
    table's look by ``table_shift``: through the same veil a darker table takes on more of
    the veil's colour, so the shift there can go the other way in chroma."""

    mask: np.ndarray
    shift: np.ndarray
    slope: tuple[float, float]
    table: np.ndarray | None = None
    table_shift: np.ndarray | None = None

    def shift_at(self, pixels: np.ndarray) -> np.ndarray:
        """``(k, 3)``: the shadows' shift at each of the gathered ``pixels`` (indices)."""
        out = np.repeat(self.shift[None, :], len(pixels), axis=0)
        if self.table is not None:
            out[self.table[pixels]] = self.table_shift
        return out

    def undone(
        self, delta: tuple[np.ndarray, np.ndarray, np.ndarray]
    ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
        """The feature differences ``delta`` (three arrays, per gathered pixel) with the
        shadows' part taken out, and which pixels had it: inside a shadow, a change that
        goes mostly its shift's way (the base's or the table's) loses its part along it, up
        to its full length (a penumbra goes part of the way; a dark token beyond it keeps the
        rest, and what change goes across it stays). A change mostly across it is no
        shadow's."""
        rest = tuple(d.copy() for d in delta)
        shadow_like = np.zeros(len(self.mask), bool)
        regions = [(self.mask, self.shift)]
        if self.table is not None:
            regions = [(self.mask & ~self.table, self.shift), (self.table, self.table_shift)]
        for region, shift in regions:
            length = float(np.linalg.norm(shift))
            unit = (shift / length).astype(np.float32)
            inside = np.flatnonzero(region)  # (the rest is left as it is)
            a, b, c = (d[inside] for d in delta)
            along = a * unit[0] + b * unit[1] + c * unit[2]
            like = along >= SHADOW_COSINE * np.sqrt(a * a + b * b + c * c)
            taken = np.where(like, np.minimum(along, length), 0.0).astype(np.float32)
            for part, u in zip(rest, unit):
                part[inside] -= taken * u
            shadow_like[inside[like]] = True
        return rest, shadow_like  # type: ignore[return-value]


@dataclass(frozen=True)
class _PlaneMap:
    """A plane the light is searched on: the cell of its map each gathered pixel sees (one
    past the last: none), the map's cells per side and half width (mm), and how far below
    the base's top the plane lies (mm); per point, the cell (fractional, column and row) a
    token's shadow centres on with the light overhead, and how many cells it moves per unit
    of slope (its height above the plane)."""

    cell: np.ndarray
    side: int
    half: float
    below: float
    origin: np.ndarray
    reach: np.ndarray


@dataclass(frozen=True)
class _DiscSums:
    """A value summed, and the pixels seen counted, over a token-sized disc around every
    cell of the first ``planes`` of the maps the light is searched on (the base's, then the
    table's around it): flat, one map after the other, with one more zero cell at the end
    that stands for every cell off them."""

    total: np.ndarray
    count: np.ndarray
    planes: int


class ShadowModel:
    """The base's plane under each gathered pixel (``positions``: flat working-image
    indices of an image of ``size`` working pixels, ``scale`` working pixels per frame
    pixel), and the tokens' heights above it."""

    def __init__(
        self,
        camera: CameraModel,
        spec: TimeVectorsSpec,
        positions: np.ndarray,
        size: tuple[int, int],
        scale: tuple[float, float],
    ) -> None:
        base_z = -spec.plate_thickness
        self._half = spec.base_size / 2
        frame_px = working_to_frame(positions, size, scale)
        # Per gathered pixel: the cell of the base it sees (one past the last when none).
        self._cell, self._cells_per_side = _plane_cells(
            camera, frame_px, base_z, self._half, CELL_MM
        )
        self._on_base = self._cell < self._cells_per_side**2
        # ... and of the table around the base it sees where it sees no base (a ray that
        # would meet the table under the base sees the base's side).
        self._table_half = self._half + TABLE_MARGIN_MM
        table_cell, n = _plane_cells(
            camera, frame_px, base_z - spec.base_height, self._table_half, CELL_MM
        )
        centre_mm = (np.stack([table_cell % n, table_cell // n], axis=1) + 0.5) * CELL_MM
        under_base = np.all(np.abs(centre_mm - self._table_half) < self._half, axis=1)
        self._table_cell = np.where(self._on_base | under_base, n * n, table_cell)
        self._table_cells_per_side = n
        self._off_base = self._table_cell < n * n  # (the table's pixels, where mapped)
        centres = spec.point_centres()
        self._xy = centres[:, :2]
        # A token's shadow is cast by its whole height: its middle stands for it.
        self._height = centres[:, 2] + spec.token_height / 2 - base_z
        self._base_height = spec.base_height
        self._upper = centres[:, 2] > 0  # (tokens above the bottom tier)
        self._radius = spec.token_diameter / 2
        # The cells of a shadow disc grown by the margin, around its centre cell.
        reach = (self._radius + SHADOW_MARGIN_MM) / CELL_MM
        span = np.arange(-int(reach), int(reach) + 1)
        dx, dy = np.meshgrid(span, span)
        inside_disc = dx * dx + dy * dy <= reach * reach
        self._stamp = np.column_stack([dx[inside_disc], dy[inside_disc]])
        disc = int(np.ceil(self._radius / CELL_MM))
        self._disc_kernel = cv2.getStructuringElement(
            cv2.MORPH_ELLIPSE, (2 * disc + 1, 2 * disc + 1)
        ).astype(np.float32)
        self._disc_offsets = np.argwhere(self._disc_kernel > 0) - disc  # (row, column)
        # The light is searched on the base and on the table around it.
        self._planes = (
            self._plane_map(self._cell, self._cells_per_side, self._half, 0.0),
            self._plane_map(self._table_cell, n, self._table_half, spec.base_height),
        )
        # where each map's cells start in sums of them all, one map after the other
        self._plane_starts = np.cumsum([0] + [plane.side * plane.side for plane in self._planes])
        # Per cell, as the sums of the first one or two maps number them: the samples a
        # token-sized disc around it holds, seen or not (they are sparse in places).
        every = np.ones(len(positions), bool)
        held = [self._plane_sums(every, every, k) for k in range(len(self._planes))]
        self._held = tuple(self._assembled(held[: k + 1]).count for k in range(len(held)))

    def _plane_map(self, cell: np.ndarray, side: int, half: float, below: float) -> _PlaneMap:
        return _PlaneMap(
            cell,
            side,
            half,
            below,
            origin=((self._xy + half) / CELL_MM).astype(np.float32),
            reach=((self._height + below) / CELL_MM).astype(np.float32),
        )

    @property
    def on_base(self) -> np.ndarray:
        """Per gathered pixel: does it see the base (not the table, the plates' rims...)?"""
        return self._on_base

    def casters(self, accepted: np.ndarray) -> np.ndarray:
        """Which of the ``accepted`` points (a mask) stand above the bottom tier: the tokens
        whose shadows reach the base."""
        return np.flatnonzero(accepted & self._upper)

    def find(
        self,
        delta: tuple[np.ndarray, np.ndarray, np.ndarray],
        usable: np.ndarray,
        accepted: np.ndarray,
        *,
        min_casters: int = MIN_CASTERS,
        slope: tuple[float, float] | None = None,
    ) -> Shadows | None:
        """The shadows of the ``accepted`` tokens (a point mask), from each gathered pixel's
        feature difference from the empty board (``delta``: chroma 1, chroma 2, brightness)
        where ``usable`` (seen clear of every accepted token). None when the picture shows
        no shadows to speak of (soft light, or fewer than ``min_casters`` tokens above the
        bottom tier). With ``slope`` the light is known (found earlier), to within
        ``LIGHT_DOUBT``: it is searched near there only, with every caster (a light found
        from a game's first few tokens was 0.03 off, which throws the shadow of one on the top
        tier a third of a token aside, and the tokens laid since showed it better). Either
        way, when the light found on the base shows its shadows there deep enough but fewer
        than ``MIN_BASE_SHADOWS`` of them, or shows none deep enough while the table past the
        base is darkened, it is searched again with the shadows on the table too."""
        casters = self.casters(accepted)
        if len(casters) < min_casters:
            return None
        beside = np.flatnonzero(accepted & ~self._upper)
        darkening = np.maximum(-delta[2], 0.0)
        prior = self._prior(darkening, usable)
        known = None if slope is None else np.asarray(slope, np.float64)[None, :]
        base = self._plane_sums(darkening, usable, 0)
        sums = on_base = self._assembled([base])
        while True:
            slope, pixels = self._best(sums, casters, beside, prior, known)
            enough = self._enough(sums, casters, slope)
            on_table = sums.planes > 1
            found = None
            if known is not None or pixels >= enough:
                found = self._seen_at(delta, usable, darkening, prior, accepted, slope, enough,
                                      on_table=on_table)
            if found is not None and (
                on_table or self._shown(on_base, casters, slope, prior) >= MIN_BASE_SHADOWS
            ):
                return found
            if on_table or (found is None and not self._table_darkened(darkening, usable)):
                return None
            # The base shows too few of its shadows to tell the light, or none: the table's
            # count too.
            sums = self._assembled([base, self._plane_sums(darkening, usable, 1)])

    def confirmed(
        self,
        delta: tuple[np.ndarray, np.ndarray, np.ndarray],
        usable: np.ndarray,
        accepted: np.ndarray,
        slope: tuple[float, float],
    ) -> int:
        """How many of the ``accepted`` tokens' shadows under the light of ``slope`` the
        picture bears out (arguments as :meth:`find`): their discs, on the base or past it,
        seen and darker than the base's usual (see :meth:`_shown`)."""
        darkening = np.maximum(-delta[2], 0.0)
        flat = self._disc_cells(self.casters(accepted), np.asarray(slope)[None, :], 2)[0]
        return _bearing_out(*self._sums_at(darkening, usable, flat), self._prior(darkening, usable))

    def _prior(self, darkening: np.ndarray, usable: np.ndarray) -> float:
        """The base's usual darkening where it is seen (``usable``): what a disc holding
        no shadow shows."""
        seen = usable & self._on_base
        return float(np.median(darkening[seen])) if seen.any() else 0.0

    def _seen_at(
        self,
        delta: tuple[np.ndarray, np.ndarray, np.ndarray],
        usable: np.ndarray,
        darkening: np.ndarray,
        prior: float,
        accepted: np.ndarray,
        slope: np.ndarray,
        enough: float,
        *,
        on_table: bool,
    ) -> Shadows | None:
        """The ``accepted`` tokens' shadows under the light of ``slope``, with their looks on
        the base and past it; None when the base shows them too faintly (``enough``: the
        pixels that tell their look) unless, searched ``on_table``, the table alone shows
        them deep enough (the base showing none of them)."""
        mask = self._shadow_mask(slope, np.flatnonzero(accepted))
        table = mask & self._off_base
        shift = _look(delta, usable & self._on_base & mask, darkening, enough)
        table_shift = _look(delta, usable & table, darkening, enough if on_table else MIN_PIXELS)
        if table_shift is None or -table_shift[2] < MIN_DEPTH:
            mask, table, table_shift = mask & ~table, None, None  # (no table shadows seen)
        if shift is None or -shift[2] - prior < MIN_DEPTH:
            if not on_table or table_shift is None:
                return None
            shift = table_shift
        return Shadows(
            mask=mask,
            shift=shift,
            slope=(float(slope[0]), float(slope[1])),
            table=table,
            table_shift=table_shift,
        )

    def _table_darkened(self, darkening: np.ndarray, usable: np.ndarray) -> bool:
        """Does the table past the base show pixels enough darker than the empty board by a
        shadow's least depth? Under a soft light it does not; under a lamp the first tokens
        laid high may throw every shadow past the base."""
        dark = darkening[usable & self._off_base] >= MIN_DEPTH
        return int(np.count_nonzero(dark)) >= MIN_PIXELS

    def disc_means(
        self,
        values: np.ndarray,
        usable: np.ndarray,
        casters: np.ndarray,
        slope: tuple[float, float],
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per caster (point indices): the mean of ``values`` (per gathered pixel) over the
        pixels of the base, or of the table past it, seen (``usable``) in its shadow disc
        under the light of ``slope``, and how many pixels that is."""
        flat = self._disc_cells(casters, np.asarray(slope, np.float32)[None, :], 2)[0]
        total, count = self._sums_at(values, usable, flat)
        return total / np.maximum(count, 1.0), count

    def _sums_at(
        self, values: np.ndarray, usable: np.ndarray, flat: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`_plane_sums` gives them, but only at the cells ``flat`` (numbered as
        :class:`_DiscSums` of both maps number them; one past the last: none): a handful of
        discs cost far less than filtering both maps whole."""
        total, count = np.zeros(len(flat)), np.zeros(len(flat))
        for plane, start in enumerate(self._plane_starts[:-1]):
            side = self._planes[plane].side
            mine = np.flatnonzero((flat >= start) & (flat < start + side * side))
            if not len(mine):
                continue
            raw_total, raw_count = self._raw_sums(values, usable, plane)
            row, column = np.divmod(flat[mine] - start, side)
            rows = row[:, None] + self._disc_offsets[None, :, 0]
            columns = column[:, None] + self._disc_offsets[None, :, 1]
            inside = (rows >= 0) & (rows < side) & (columns >= 0) & (columns < side)
            cells = np.where(inside, rows * side + columns, 0)
            total[mine] = np.where(inside, raw_total[cells], 0.0).sum(axis=1)
            count[mine] = np.where(inside, raw_count[cells], 0.0).sum(axis=1)
        return total, count

    def _best(
        self,
        sums: _DiscSums,
        casters: np.ndarray,
        beside: np.ndarray,
        prior: float,
        known: np.ndarray | None,
    ) -> tuple[np.ndarray, int]:
        """The light's slope the ``casters``' shadow discs show best (in ``sums`` of the
        darkening), with those of the tokens ``beside`` them (on the bottom tier: see
        :meth:`_best_near`), searched everywhere or, when it is ``known`` (``(1, 2)``), near
        there; and the pixels seen in the casters' discs."""
        if known is None:
            return self._search(sums, casters, beside, prior)
        return self._best_near(sums, casters, beside, prior, known, LIGHT_DOUBT, FINE_STEP)

    def _enough(self, sums: _DiscSums, casters: np.ndarray, slope: np.ndarray) -> float:
        """Pixels seen in the ``casters``' shadow discs under the light of ``slope`` that
        tell a light: ``MIN_PIXELS``, or where the discs hold fewer samples, ``HELD_SHARE``
        of them. Samples are sparse where the camera sees the base between the plates'
        markings, and on the table: there a first token's shadow, seen whole, was too small
        to count, and read as a hand until the next visit (bench game 2707, under a bare
        lamp); and a second token's, on the table past the base beside the first one's on
        it, held six samples (the two discs 41, under the fixed bar several casters once
        had), and read as a hand through the next move (bench game 4301). Discs that hold
        fewer than ``MIN_DISC_PIXELS`` are asked for all of them: a first token's shadow on
        the base's near edge held six (bench game 3906)."""
        flat = self._disc_cells(casters, slope[None, :].astype(np.float32), sums.planes)[0]
        held = float(self._held[sums.planes - 1][flat].sum())
        least = min(MIN_DISC_PIXELS, max(held, 1.0))  # (discs that hold fewer: all of them)
        return min(MIN_PIXELS, max(least, HELD_SHARE * held))

    def _shown(
        self, sums: _DiscSums, casters: np.ndarray, slope: np.ndarray, prior: float
    ) -> int:
        """How many of the ``casters``' shadow discs under the light of ``slope`` are seen
        (in ``sums`` of the darkening) and darker than the ``prior`` by half a shadow's
        least depth."""
        flat = self._disc_cells(casters, slope[None, :].astype(np.float32), sums.planes)[0]
        return _bearing_out(sums.total[flat], sums.count[flat], prior)

    def _plane_sums(
        self, values: np.ndarray, usable: np.ndarray, plane: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """``values`` (per gathered pixel) summed, and the ``usable`` pixels counted, over a
        token-sized disc around every cell of map ``plane`` of those the light is searched
        on: flat."""
        side = self._planes[plane].side
        total, count = self._raw_sums(values, usable, plane)
        sums = cv2.merge(
            [
                total.astype(np.float32).reshape(side, side),
                count.astype(np.float32).reshape(side, side),
            ]
        )
        sums = cv2.filter2D(sums, -1, self._disc_kernel, borderType=0)
        return sums[..., 0].reshape(-1), sums[..., 1].reshape(-1)

    def _raw_sums(
        self, values: np.ndarray, usable: np.ndarray, plane: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """``values`` (per gathered pixel) summed, and the ``usable`` pixels counted, in
        every cell of map ``plane``: flat."""
        plane_map = self._planes[plane]
        side = plane_map.side
        seen = usable & (plane_map.cell < side * side)
        cells = plane_map.cell[seen]
        return (
            np.bincount(cells, weights=values[seen], minlength=side * side),
            np.bincount(cells, minlength=side * side).astype(np.float64),
        )

    @staticmethod
    def _assembled(planes: list[tuple[np.ndarray, np.ndarray]]) -> _DiscSums:
        """The sums of the first few maps (as :meth:`_plane_sums` gives them) as one."""
        off = np.zeros(1, np.float32)
        return _DiscSums(
            total=np.concatenate([total for total, _ in planes] + [off]),
            count=np.concatenate([count for _, count in planes] + [off]),
            planes=len(planes),
        )

    def _search(
        self, sums: _DiscSums, casters: np.ndarray, beside: np.ndarray, prior: float
    ) -> tuple[np.ndarray, int]:
        """The slope whose shadow discs of the ``casters`` are darkest on average, and the
        pixels that was measured over. The mean is shrunk towards the base's ``prior``: a
        slope that throws all but a few shadows where the sums see nothing must not win on
        those few. Searched coarse to fine: first with the lowest casters
        alone, whose shadows move least as the slope changes (steps that move them a few
        millimetres), then around the best few with every caster in finer steps."""
        heights = self._height[casters]
        tiers = np.unique(heights)
        # the lowest tier with casters enough (a tier's shadows move alike with the slope)
        lowest = next((h for h in tiers if np.sum(heights == h) >= MIN_CASTERS), tiers[-1])
        low = np.flatnonzero(heights <= lowest)[:FIRST_CASTERS]  # (columns of ``casters``)
        step = FIRST_STEP_MM / float(lowest)
        axis = np.arange(-MAX_SLOPE, MAX_SLOPE + 1e-9, step)
        grid = np.stack(np.meshgrid(axis, axis), axis=-1).reshape(-1, 2)
        grid = grid[np.hypot(grid[:, 0], grid[:, 1]) <= MAX_SLOPE]
        # (the low casters' among them; the tokens beside them last)
        flat = self._disc_cells(np.concatenate([casters, beside]), grid, sums.planes)
        mean, _ = self._scores(sums, flat[:, low], prior)
        # ... and the best few by every caster: when the lowest are few, a dark patch of
        # the table can line up with their shadows alone (bench scenes: the light was
        # missed in 23 of 100 that way, and was first by every caster in 13 of those).
        every, _ = self._scores(sums, flat, prior)
        seeds = np.concatenate([grid[_best_few(m, SEEDS)] for m in (mean, every)])
        for span, fine in ((step, step / 4), (step / 4, FINE_STEP)):
            best, pixels = self._best_near(sums, casters, beside, prior, seeds, span, fine)
            seeds = best[None, :]
        return best, pixels

    def _best_near(
        self,
        sums: _DiscSums,
        casters: np.ndarray,
        beside: np.ndarray,
        prior: float,
        seeds: np.ndarray,
        span: float,
        step: float,
    ) -> tuple[np.ndarray, int]:
        """The slope within ``span`` of one of the ``seeds`` (``(k, 2)``, in ``step`` steps)
        whose shadow discs of the ``casters`` and of the tokens ``beside`` them are darkest
        (see :meth:`_scores`), and the pixels seen in the casters' discs there; a tie goes to
        the first seed itself. A token on the bottom tier casts its short shadow beside
        itself, seen where its silhouette ends: always the true light's way, so its disc
        counts; left out, that dark rim pulled a wrong light whose disc for a caster landed
        on it (bench game 4802 under a low lamp, the true light's discs mostly past the
        table's map)."""
        offsets = np.arange(-span, span + 1e-9, step)
        square = np.stack(np.meshgrid(offsets, offsets), axis=-1).reshape(-1, 2)
        grid = np.concatenate([seeds, (seeds[:, None, :] + square[None]).reshape(-1, 2)])
        flat = self._disc_cells(np.concatenate([casters, beside]), grid, sums.planes)
        mean, _ = self._scores(sums, flat, prior)
        best = int(np.argmax(mean))
        return grid[best], int(sums.count[flat[best, : len(casters)]].sum())

    @staticmethod
    def _scores(
        sums: _DiscSums, flat: np.ndarray, prior: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per slope: the shrunk mean darkening under the casters' shadow discs (``flat``,
        ``(slopes, casters)`` cells as :meth:`_disc_cells` gives them, in ``sums`` of the
        darkening), and the pixels seen there."""
        dark = sums.total[flat].sum(axis=1)
        data = sums.count[flat].sum(axis=1)
        return (dark + PRIOR_PIXELS * prior) / (data + PRIOR_PIXELS), data

    def _disc_cells(self, casters: np.ndarray, slopes: np.ndarray, planes: int) -> np.ndarray:
        """``(slopes, casters)``: the flat cell (as :class:`_DiscSums` of the first
        ``planes`` maps number them) each caster's shadow disc is centred on under each
        light: on the base, or past it on the table (one past the last: off them)."""
        slopes = slopes.astype(np.float32)
        sx, sy = slopes[:, :1], slopes[:, 1:]
        used, starts = self._planes[:planes], self._plane_starts[: planes + 1]
        flat = np.full((len(slopes), len(casters)), starts[-1], np.int32)
        # (the base last: a shadow it catches does not reach the table)
        for plane, start in reversed(list(zip(used, starts))):
            origin, reach = plane.origin[casters], plane.reach[casters]
            column = origin[None, :, 0] - sx * reach[None, :]
            row = origin[None, :, 1] - sy * reach[None, :]
            column_cell, row_cell = column.astype(np.int32), row.astype(np.int32)
            inside = (np.minimum(column, row) >= 0) & (
                np.maximum(column_cell, row_cell) < plane.side
            )
            np.copyto(flat, row_cell * np.int32(plane.side) + (column_cell + np.int32(start)),
                      where=inside)
        return flat

    def mask_at(self, slope: tuple[float, float], accepted: np.ndarray) -> np.ndarray:
        """Per gathered pixel: does it see the base, or the table around it, inside the
        shadow of an ``accepted`` token (a point mask) under a light of ``slope``?"""
        return self._shadow_mask(np.asarray(slope, np.float64), np.flatnonzero(accepted))

    def _shadow_mask(self, slope: np.ndarray, casters: np.ndarray) -> np.ndarray:
        """Per gathered pixel: does it see the base, or the table around it, inside a
        shadow disc of the casters?"""
        height = self._height[casters]
        on_base = self._discs(slope, casters, height, self._half, self._cells_per_side)
        height = height + self._base_height
        n = self._table_cells_per_side
        on_table = self._discs(slope, casters, height, self._table_half, n)
        return on_base[self._cell] | on_table[self._table_cell]

    def _discs(
        self, slope: np.ndarray, casters: np.ndarray, height: np.ndarray, half: float, n: int
    ) -> np.ndarray:
        """The cells of a plane map (``n`` per side, ``2 * half`` mm wide, flat, with one
        more for "off the map") inside the shadow discs of the ``casters`` standing
        ``height`` above that plane."""
        centres = self._xy[casters] - slope[None, :] * height[:, None]
        cells = np.rint((centres + half) / CELL_MM).astype(np.int64)
        x = cells[:, None, 0] + self._stamp[None, :, 0]
        y = cells[:, None, 1] + self._stamp[None, :, 1]
        on = (x >= 0) & (x < n) & (y >= 0) & (y < n)
        plane = np.zeros(n * n + 1, bool)  # (the last cell: off the map)
        plane[np.where(on, y * n + x, n * n)] = True
        plane[n * n] = False
        return plane


class ShadedTops:
    """Which samples of the tokens' top discs lie in the shadow of what stands above them:
    the tokens on higher tiers and the post. ``frame_px`` (``(n, 2)``) is where each sample
    is seen and ``points`` the point whose top it samples; a sample is taken to lie on the
    plane of that token's top."""

    def __init__(
        self,
        camera: CameraModel,
        spec: TimeVectorsSpec,
        frame_px: np.ndarray,
        points: np.ndarray,
    ) -> None:
        centres = spec.point_centres()
        self._points = np.asarray(points, np.int64)
        self._tier_z = np.unique(centres[:, 2])  # (the tiers' planes, lowest first)
        self._point_tier = np.searchsorted(self._tier_z, centres[:, 2])
        self._sample_tier = self._point_tier[self._points]
        self._top_above_tier = spec.token_height  # (a top lies this far above its tier)
        self._half = spec.plate_size / 2 + spec.token_diameter
        self._cell, self._cells_per_side = _plane_cells(
            camera,
            frame_px,
            self._tier_z[self._sample_tier] + spec.token_height,
            self._half,
            TOP_CELL_MM,
        )
        # What throws shadows: every point's token (rows 0..255, each shading the tiers below
        # its own) and the post with its cap above it (shading every tier): where each
        # stands, from and to what height, and how wide (in map cells).
        self._solid_xy = np.vstack([centres[:, :2], np.zeros((2, 2))])
        self._solid_low = np.concatenate([centres[:, 2], [0.0, spec.post_top]])
        self._solid_high = np.concatenate(
            [centres[:, 2] + spec.token_height, [spec.post_top, spec.cap_top]]
        )
        self._solid_width = np.rint(
            np.concatenate(
                [
                    np.full(len(centres), spec.token_diameter),
                    [spec.post_diameter, spec.cap_diameter],
                ]
            )
            / TOP_CELL_MM
        ).astype(int)
        self._post_rows = np.array([len(centres), len(centres) + 1])
        self._memo: dict[tuple, np.ndarray] = {}

    def shaded(
        self, slope: tuple[float, float], accepted: np.ndarray, on: np.ndarray | None = None
    ) -> np.ndarray:
        """Per sample: is it in the shadow of an ``accepted`` token (a point mask) on a
        higher tier, or of the post, under a light of ``slope`` (as :class:`Shadows`)?
        Only the tiers of the points ``on`` (a point mask; default ``accepted``) are worked
        out (the rest say False). (A read asks about the same tokens several times: the last
        few answers are kept.)"""
        key = (tuple(slope), accepted.tobytes(), None if on is None else on.tobytes())
        if key not in self._memo:
            if len(self._memo) >= SHADED_MEMO:
                del self._memo[next(iter(self._memo))]
            self._memo[key] = self._work_out(np.asarray(slope, np.float64), accepted, on)
        return self._memo[key].copy()

    def _work_out(
        self, slope: np.ndarray, accepted: np.ndarray, on: np.ndarray | None
    ) -> np.ndarray:
        out = np.zeros(len(self._points), bool)
        casters = np.flatnonzero(accepted)
        wanted = casters if on is None else np.flatnonzero(on)
        n = self._cells_per_side
        scale = (1 << _SHIFT_BITS) / TOP_CELL_MM
        for tier in np.unique(self._point_tier[wanted]):
            z = self._tier_z[tier] + self._top_above_tier
            solids = np.concatenate([casters[self._point_tier[casters] > tier], self._post_rows])
            solids = solids[self._solid_high[solids] > z]
            # A solid from ``low`` to ``high`` throws a disc swept between the shadows of its
            # two ends: a thick line with round caps.
            ends = [
                np.rint(
                    (self._solid_xy[solids] - slope[None, :] * (h - z)[:, None] + self._half)
                    * scale
                ).astype(int)
                for h in (np.maximum(self._solid_low[solids], z), self._solid_high[solids])
            ]
            plane = np.zeros((n, n), np.uint8)
            for (ax, ay), (bx, by), width in zip(
                ends[0].tolist(), ends[1].tolist(), self._solid_width[solids].tolist()
            ):
                cv2.line(plane, (ax, ay), (bx, by), 1, thickness=max(1, width), shift=_SHIFT_BITS)
            here = np.flatnonzero(self._sample_tier == tier)
            flat = np.append(plane.reshape(-1), np.uint8(0))  # (the last: off the map)
            out[here] = flat[self._cell[here]].astype(bool)
        return out


def _bearing_out(dark: np.ndarray, pixels: np.ndarray, prior: float) -> int:
    """How many shadow discs (their summed darkening and seen pixels) are seen and darker
    than the ``prior`` by half a shadow's least depth."""
    return int(np.sum((pixels >= MIN_DISC_PIXELS) & (dark >= (prior + MIN_DEPTH / 2) * pixels)))


def _best_few(values: np.ndarray, count: int) -> np.ndarray:
    """The indices of the ``count`` largest ``values``, largest first (ties: the first
    first), found without sorting them all (the coarse search scores over a thousand)."""
    if len(values) > count:
        least = np.partition(values, len(values) - count)[len(values) - count]
        candidates = np.flatnonzero(values >= least)
    else:
        candidates = np.arange(len(values))
    return candidates[np.argsort(-values[candidates], kind="stable")][:count]


def _look(
    delta: tuple[np.ndarray, np.ndarray, np.ndarray],
    inside: np.ndarray,
    darkening: np.ndarray,
    least: float = MIN_PIXELS,
) -> np.ndarray | None:
    """How shadows change the look of the pixels ``inside`` them (a mask; None when fewer
    than ``least``): the direction from the pixels seen darkened in them, the length
    from the darkest of those. Penumbras go part of the way along the same direction, and
    the darkest part may hide under a token read on a shadow (the first reading), so the
    median direction and a high quantile of the length are taken."""
    if inside.sum() < least:
        return None
    d = np.stack([np.asarray(c)[inside] for c in delta], axis=1)
    dark = d[darkening[inside] > np.median(darkening[inside])]
    if not len(dark):
        return None
    direction = np.median(dark / np.linalg.norm(dark, axis=1, keepdims=True), axis=0)
    direction /= max(float(np.linalg.norm(direction)), 1e-9)
    return (direction * float(np.quantile(d @ direction, UMBRA_QUANTILE))).astype(np.float32)


def plane_points(camera: CameraModel, frame_px: np.ndarray, z: float | np.ndarray) -> np.ndarray:
    """Where the camera's rays through ``frame_px`` (``(n, 2)``) meet the plane at height
    ``z`` (one for all, or one per ray): ``(n, 2)`` mm, NaN where a ray never meets it."""
    rays = camera.ray_directions(frame_px)
    eye = camera.centre_mm()
    with np.errstate(divide="ignore", invalid="ignore"):
        reach = (z - eye[2]) / rays[:, 2]
    on_plane = eye[None, :2] + rays[:, :2] * reach[:, None]
    return np.where((reach > 0)[:, None], on_plane, np.nan)


def _plane_cells(
    camera: CameraModel, frame_px: np.ndarray, z: float | np.ndarray, half: float, cell_mm: float
) -> tuple[np.ndarray, int]:
    """Where the camera's rays through ``frame_px`` (``(n, 2)``) meet the plane at height
    ``z`` (see :func:`plane_points`), as cells of a square map ``2 * half`` mm wide
    centred on the board: the flat cell index per ray (one past the last cell where the ray
    misses the map) and the map's cells per side."""
    on_plane = plane_points(camera, frame_px, z)
    n = int(np.ceil(2 * half / cell_mm))
    with np.errstate(invalid="ignore"):  # (NaN, a ray that misses, compares False)
        cell = np.floor((on_plane + half) / cell_mm)
        inside = np.all((cell >= 0) & (cell < n), axis=1)
    cell = np.where(inside[:, None], cell, 0).astype(np.int64)
    return np.where(inside, cell[:, 1] * n + cell[:, 0], n * n), n
