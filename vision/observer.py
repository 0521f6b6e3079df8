"""Frame -> Observation: which points hold a token, of which colour, and which are hidden.

How a frame is read (all per-frame work is gathers and bincounts over index
arrays precomputed in :mod:`vision.footprint`):

1. Read only the working-image pixels that some token footprint or the hand
   grid needs (the working image is the frame at the reference's resolution).
2. Divide by the per-channel gain against the empty-board reference (light and
   white balance changes cancel), undo a smooth tilt of brightness across the
   image (light that now falls unevenly: :mod:`vision.illumination`) and measure how far each
   pixel's colour moved from the reference there, ignoring what the sensor noise explains. Small
   moves count as partial evidence, so a faint token adds up over its footprint.
3. A token at point ``p`` must fill ``p``'s silhouette (top disc and the side
   wall facing the camera) with change and leave the thin ring around it alone:
   choose the set of tokens that explains the change best (:mod:`vision.explain`:
   where two points' tokens would cover the same image area, as a token on Q and
   the empty point on P in line with it, the change counts once). Points with a
   little change no accepted token explains are checked against the learned token
   colours: a token the table's colour changes the picture little but matches its
   set, and its plain top hides the printed texture under it (judged clear of the
   printed lines and lit cut edges of the plates above, which lie in front of it);
   where most of such a point's core changed a little, pixel pairs straddling its
   token's rim that now contrast beyond the noise, and beyond what the rims of the points
   nobody asks about show in the same frame (an outline the empty board lacks), take it
   too. Unchanged pixels behind a printed line or the cut edge of a plate above count
   neither for nor against a token. An accepted point and the unaccepted nearer point in
   line with it (whose token would hide it) are judged again once the tokens around them
   are explained: in the first round a crowded point's ring is full of its neighbours'
   change, and the nearer one takes the place where it now explains the change better.
   Two such points that explain it equally well are a toss-up (``Observation.in_line``),
   unless the colour the plates above each leave tells them apart. A point taken
   on a sliver beside farther tokens whose sliver is not the colour of the rest of its
   core is dropped (a token is one colour all over). A point whose core lies in front of
   accepted farther tokens is never judged by the change (it is all theirs): it is taken
   where its pixels show one set's colour that the tokens behind them are not.
4. Change the accepted tokens do not explain, in a blob larger than a couple of
   tokens (against the empty board, or weaker change against the last calm
   frame), is a hand. So is motion since the last frame, found before anything
   else: such a frame is not read at all, and the last reading stands.
5. After a hand visit, the calm board before it and the one after it are
   compared: the changed pixels are given to the in-line point they fit best, unless
   the picture alone clearly says the other point (then the two are a toss-up). A
   point that change fills as a token is a new token even where the picture against the
   empty board hardly shows it, and a token the game holds whose footprint the visit left
   alone stays.
6. Each accepted token's colour is the median of its most changed top-disc pixels,
   matched to the learned colour prototypes (learned when no hand is in view).

The observer decides; the parts it asks live beside it: which pixels are read and
where each point's token shows among them (:mod:`vision.gathered`,
:mod:`vision.frame_sampling`), the change from the empty board and the sensor noise
(:mod:`vision.change`, :mod:`vision.sensor_noise`), the tokens' shadows and the light
a stream keeps (:mod:`vision.shadow_search`, :mod:`vision.token_shade`), the texture
and outline tests (:mod:`vision.texture`, :mod:`vision.rim`), the greedy selection
(:mod:`vision.explain`) and the token sets' colours with the plates' wash
(:mod:`vision.token_sets`, :mod:`vision.plate_wash`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import cv2
import numpy as np

from calibration.colours import (
    CLIPPED,
    DEFAULT_MAX_COLOURS,
    LIGHT_SCALE,
    RGB,
    ColourModel,
    feature_columns,
    features,
    grey_world,
    highest_channel,
    pair_distance,
    unclipped_pair,
)
from calibration.registration import misfit_disc
from vision.change import (
    FAINT_DISTANCE,
    FOREGROUND_DISTANCE,
    SHADOW_WEIGHT,
    STILL_CORE_SHARE,
    Difference,
    change_evidence,
    cores_moved,
    feature_distance,
)
from vision.explain import (
    EVIDENCE_THRESHOLD,
    MIN_SCORE,
    Selection,
    TokenSelector,
)
from vision.footprint import (
    N_POINTS,
    Footprints,
    build_footprints,
    spread,
    working_size,
)
from vision.frame_sampling import FrameSampler, shrink, take_rows
from vision.gathered import GatheredPixels
from vision.hands import HandGrid, MotionDetector
from vision.illumination import UNCHANGED, LightField, coordinates
from vision.in_line import InLineJudge
from vision.observation import FrameError, Observation, ReferenceMissingError, check_frame
from vision.post_light import hidden_pixels, post_shadow
from vision.rim import RimOutlines
from vision.sensor_noise import MAX_NOISE, SensorNoise
from vision.shadow_search import SHADOW_COVERS, ShadowSearch, new_in_visit
from vision.shadows import (
    SHADOW_COSINE,
    ShadowModel,
    Shadows,
)
from vision.texture import TextureCheck
from vision.token_sets import COLOUR_RAMP, TokenSets
from vision.token_shade import MAX_SHADOW_GAIN, TokenShade
from vision.tracker import MIN_VISIBILITY

logger = logging.getLogger(__name__)

HAND_DISTANCE = 1.4  # a weaker change suffices inside a large blob (skin on a wooden table)
TOKEN_SCORE = 0.55  # fit score (filled core minus half the filled ring) that means "token"
SCORE_SOFTNESS = 0.06  # width of the sigmoid turning the fit score into a probability
COLOUR_RAISE = 0.1  # mean evidence a colour check must add to a point to read the board again
CHANGE_MARGIN = 0.03  # a point must explain the before/after change this much better to take it
ADDED_TIE = 0.1  # ... and a token the picture missed must, over a point in line, to be no toss-up
RIM_ASKED = 0.5  # share of an undecided point's core that must have changed to look at its rim
# Share of a point's core that must lie in front of accepted farther tokens of another set
# (or the empty board) to tell a token there by its colour (a token half hidden by a nearer
# one, with the printed lines of the plates above across much of the rest, has about a sixth
# of its core left to show it), and ...
FRONT_VOTERS = 0.15
FRONT_AGREEMENT = 0.7  # ... the share of those pixels one set must explain better than without it
SLIVER_AGREEMENT = 0.5  # share of a sliver's pixels that must show the rest of the core's colour
HAND_AREA_DISCS = 2.0  # an unexplained blob bigger than this many top discs is a hand
PLAIN_HAND_DISCS = 6.0  # ... and one this big since the calm board is a hand before any reading
GRID_SAMPLES = 6000  # hand-detection grid over the board's outline


def _reference_of(calibration: Any) -> np.ndarray | None:
    """The empty-board image of a calibration: ``reference_image()`` of a calibration file
    (:class:`calibration.calibfile.Calibration`) or a plain ``reference`` array."""
    image = getattr(calibration, "reference_image", None)
    if callable(image):
        image = image()
    if image is None:
        image = getattr(calibration, "reference", None)
    return None if image is None else np.asarray(image)


def reference_envelope(
    reference: np.ndarray, positions: np.ndarray, misfit_px: float
) -> tuple[list[np.ndarray], list[np.ndarray]] | None:
    """Per feature axis, the least and greatest value the (working-size) ``reference``
    takes within ``misfit_px`` working pixels of each of the gathered ``positions``, or
    None when that is under half a pixel. A reference moved to follow a bumped camera has
    its printed lines up to that far off (see ``Calibration.reference_misfit_px``): a frame
    pixel within that range is the empty board, slightly moved. Judged against the nearest
    pixel alone, the plates' lines and cut edges around G8Q beside the post of the replay
    tests' bumped camera changed most of that point's core, and its outline was read as a
    token's (with OpenCV 5.1, whose re-fitted pose lay 0.10 px off the true one at the median,
    against 5.0's 0.08)."""
    kernel = misfit_disc(misfit_px)
    if kernel is None:
        return None
    planes = features(reference)
    low, high = cv2.erode(planes, kernel), cv2.dilate(planes, kernel)
    return tuple(
        [np.ascontiguousarray(bound.reshape(-1, 3)[positions, k]) for k in range(3)]
        for bound in (low, high)
    )  # type: ignore[return-value]


def _planar_rows(planar: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``(n, 3)`` rows ``index`` of ``(3, N)`` channel planes (a view of a ``(3, n)`` gather:
    gathering from the transposed planes would copy them whole first)."""
    return np.take(planar, index, axis=1).T


def _in_line_partners(pairs: np.ndarray, accepted: np.ndarray) -> np.ndarray:
    """Per point, its partner in the in-line ``pairs`` (``(k, 2)``) where it holds the accepted
    token and the partner not (-1 elsewhere): the reading the players may be asked about.
    (The before/after attribution may have moved a token within a pair since it was scored.)"""
    out = np.full(N_POINTS, -1, np.int16)
    if len(pairs):
        a, b = pairs[:, 0], pairs[:, 1]
        one = accepted[a] != accepted[b]
        out[np.where(accepted[a], a, b)[one]] = np.where(accepted[a], b, a)[one]
    return out


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -30, 30)))


class Observer:
    """Reads frames of one calibrated camera; keeps the reference and learned colours.

    ``calibration`` needs ``camera`` (:class:`~calibration.camera.CameraModel`), ``spec``
    and an image of the empty board (``reference_image()`` of a calibration file, or a
    ``reference`` array), at the frame size or a smaller copy. ``palette`` (nominal RGB
    colours) fixes the colour indices, otherwise the calibration's ``palette_rgb``,
    otherwise colours are numbered as they are first seen. ``sets``: how many token sets can
    be on the board (a two-player game holds two); without a palette it caps the colours
    learned, which otherwise defaults to the reference board's three (one set spread by the
    plates and the light splits into two far more often than two sets merge). Raises
    ``ValueError`` if the camera does not see the board or ``sets`` is not a positive whole
    number, :class:`FrameError` for a reference of another shape,
    :class:`ReferenceMissingError` without one: every token is read as what changed against
    the empty board (the board's median colour, which stood in for it until 2026-12, read a
    stream of the empty board as a hand that never left, and a still picture of 20 tokens
    with 13 of 238 visible points wrong).
    """

    def __init__(
        self, calibration: Any, *, palette: Sequence[RGB] | None = None, sets: int | None = None
    ) -> None:
        if sets is not None and (isinstance(sets, bool) or not isinstance(sets, int) or sets < 1):
            raise ValueError(f"sets must be a positive whole number, not {sets!r}")
        self.camera = calibration.camera
        self.spec = calibration.spec
        reference = _reference_of(calibration)
        if reference is None:
            raise ReferenceMissingError(
                "the calibration has no picture of the empty board (reference_image), which "
                "every token is read against; calibrate again from one (boardcam calibrate "
                "--image EMPTY.png)"
            )
        reference = self._check_reference(reference)
        size = working_size(self.camera, self.spec, reference.shape[1])
        self.footprints: Footprints = build_footprints(self.camera, self.spec, size)
        fp = self.footprints
        self._prepare_sampling(fp, *size)
        self._sampler = FrameSampler(self.camera.image_size, size, fp.scale, self._pixels.positions)
        self._shadow_model = ShadowModel(
            self.camera, self.spec, self._pixels.positions, size, fp.scale
        )
        ref_image = shrink(reference, size).astype(np.float32)  # (working size)
        ref_small = ref_image.reshape(-1, 3)
        ref_px = take_rows(ref_small, self._pixels.positions)
        self._ref_px = ref_px
        self._ref_features = features(ref_px)
        self._ref_columns = [np.ascontiguousarray(self._ref_features[:, k]) for k in range(3)]
        self._ref_envelope = reference_envelope(
            ref_image,
            self._pixels.positions,
            getattr(calibration, "reference_misfit_px", 0.0) * max(fp.scale),
        )
        self._ref_clipped = ref_px >= CLIPPED
        self._ref_any_clipped = highest_channel(ref_px) >= CLIPPED
        self._ref_grid_px = take_rows(ref_px, self._light_samples)
        self._ref_grid_clipped = self._ref_grid_px >= CLIPPED
        self._light_field = LightField(
            size, self._pixels.positions[self._light_samples], self._ref_grid_px
        )
        self._noise = SensorNoise(
            ref_px,
            ref_image,
            self._pixels.positions,
            self._light_samples,
        )
        self._rim = RimOutlines(fp, ref_small, self._sampler, self._noise)
        self._texture = TextureCheck(
            self._pixels.part_samples,
            self._pixels.part_key,
            self._ref_features[:, 2],
            self._noise.inv_light2,
        )
        self._textured_rows = (
            ref_px[self._pixels.grid].mean(axis=1).reshape(self._grid.shape).std(axis=1) >= 1.0
        )
        balance = grey_world(ref_px[self._pixels.grid])
        # The shade on the tokens' tops, under the light the base's shadows show.
        self._shade = TokenShade(
            self.camera, self.spec, self._pixels, self._shadow_model, self._ref_features
        )
        # The tokens' shadows, and the light a stream keeps: at first, the one the post's
        # shadow on the empty board shows (see vision.post_light, below).
        self._search = ShadowSearch(self._shadow_model, self._pixels, self._shade)
        if palette is None:  # a calibration file may carry the user's nominal palette
            palette = getattr(calibration, "palette_rgb", None)
        self._sets = TokenSets(
            self._pixels,
            self._shade,
            self._ref_features,
            palette=[tuple(int(v) for v in c) for c in palette] if palette is not None else None,
            reference_balance=balance,
            max_colours=sets or DEFAULT_MAX_COLOURS,
        )
        self._in_line = InLineJudge(self._pixels, self._selector, self._rim, self._sets)
        self._light = UNCHANGED  # the last frame's light against the reference
        self._calm: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._calm_run = 0
        self._before: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        #: Points read as a token on a calm board since a hand visit last changed them.
        self._seen_calm = np.zeros(N_POINTS, bool)
        # The noise of a difference of two frames, as the last one measured it (see
        # _nothing_new; None: not yet).
        self._still_noise: float | None = None
        self._in_visit = False
        # The last full read saw a "hand" only as a change since the calm board, and whether
        # the next such read is to be taken as calm instead (see settle).
        self._hand_only_since_calm = False
        self._settling = False
        #: The pixels and result of the last frame read in full (streams only).
        self._last_read: tuple[np.ndarray, Observation, tuple, np.ndarray] | None = None
        post = post_shadow(
            self.camera,
            self.spec,
            ref_image,
            fp.scale,
            hidden_pixels(fp.post_polygon, fp.line_tier, size, fp.scale),
        )
        if post is not None:
            self._search.light_slope = post.slope
            gain = min(float(np.exp(post.depth * LIGHT_SCALE)), MAX_SHADOW_GAIN)
            self._shade.post = (post.least, gain)
        self._last_observation: Observation | None = None  # what the last full read saw
        #: Frames read in full so far (the others showed motion, or nothing new).
        self.full_reads = 0

    @property
    def colours(self) -> ColourModel:
        """The token sets' colours as learned (see :class:`vision.token_sets.TokenSets`)."""
        return self._sets.model

    @property
    def expected_colour(self) -> int | None:
        """The colour the next placed token should have (set by whoever knows the game); the
        first token of a colour not learned yet founds it (see ColourModel.found)."""
        return self._sets.expected

    @expected_colour.setter
    def expected_colour(self, colour: int | None) -> None:
        self._sets.expected = colour

    @property
    def known_colours(self) -> Mapping[int, int]:
        """The colour of each token the game holds (point -> colour), from whoever knows the
        game: the plates' colour loss is then learned from tokens of one set matching."""
        return self._sets.known

    @known_colours.setter
    def known_colours(self, held: Mapping[int, int]) -> None:
        self._sets.known = held

    def token_mask(self, points: Iterable[int]) -> np.ndarray:
        """``(height, width)`` uint8 of the working image: 1 where a token at any of
        ``points`` would show (its silhouette), else 0."""
        size = self.footprints.size
        mask = np.zeros(size[0] * size[1], np.uint8)
        silhouette = self.footprints.silhouette
        wanted = np.zeros(N_POINTS, bool)
        wanted[np.fromiter(points, np.int64)] = True
        mask[silhouette.index[wanted[silhouette.point]]] = 1
        return mask.reshape(size[1], size[0])

    @property
    def light_slope(self) -> tuple[float, float] | None:
        """The light's slope a stream looks for the tokens' shadows at first (see
        :mod:`vision.shadows`; None: not known yet)."""
        return self._search.light_slope

    @property
    def last_shadows(self) -> Shadows | None:
        """The tokens' shadows the last full read found and took out (None: none)."""
        return self._search.last

    def keep_learned_from(self, earlier: object) -> None:
        """Take on what ``earlier``, an observer of this camera before it was bumped and
        re-fitted, learned: the token colours and the plates' loss do not change with the
        pose, nor does the lamp's light. Relearned from scratch, the first frame after the
        bump founded a colour on a point the moved view showed changed, and every set after
        it took the wrong number."""
        if not isinstance(earlier, Observer):
            return
        self._sets.keep_from(earlier._sets)
        if earlier._search.light_slope is not None:
            self._search.light_slope = earlier._search.light_slope
        self._shade.post = earlier._shade.post or self._shade.post

    # ------------------------------------------------------------------ setup

    def _prepare_sampling(self, fp: Footprints, width: int, height: int) -> None:
        """Pick the pixels read per frame: every footprint pixel plus a grid over the board."""
        self._grid = HandGrid.over(fp.board_mask, GRID_SAMPLES)
        self._motion = MotionDetector(self._grid, min_area_px=0.5 * fp.disc_area)
        self._pixels = pixels = GatheredPixels(fp, self._grid.flat)
        self._x, self._y = coordinates(pixels.positions, (width, height))  # where light is undone
        # Where the frame's light and noise are measured: a third of the hand grid.
        self._light_samples = pixels.grid[::3]
        self._grid_xy = (self._x[self._light_samples], self._y[self._light_samples])
        self._selector = TokenSelector(
            pixels.core, pixels.ring, pixels.silhouette, len(pixels.positions)
        )

    def _check_reference(self, image: np.ndarray) -> np.ndarray:
        """The reference may be stored smaller than the frames, never with another shape."""
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise FrameError("the calibration's reference image is not an 8-bit colour image")
        w, h = self.camera.image_size
        if abs(image.shape[1] / image.shape[0] - w / h) > 0.01 or image.shape[1] > w:
            raise FrameError(
                f"the reference image is {image.shape[1]}x{image.shape[0]}, not a {w}x{h} frame or a "
                "smaller copy of one"
            )
        return image

    def _check_frame(self, frame: Any) -> np.ndarray:
        return check_frame(frame, self.camera.image_size)

    # ------------------------------------------------------------------ per frame

    def observe(self, frame_bgr: np.ndarray, *, compare_previous: bool = True) -> Observation:
        """Read one BGR frame. Raises :class:`FrameError` for a frame of the wrong shape or type;
        a blank or unreadable picture gives an observation with ``quality`` 0 instead.

        ``compare_previous`` (camera streams) counts motion since the previous frame as a
        hand; unrelated still pictures pass ``False``.
        """
        frame = self._check_frame(frame_bgr)
        fp = self.footprints
        px = self._sampler.sample(frame)
        grid_px = np.take(px, self._pixels.grid, axis=1)
        grey = (grid_px[0] + grid_px[1] + grid_px[2]) * np.float32(1.0 / 3.0)
        if float(grey.std()) < 2.0:  # blank, covered lens, or a failed decode
            self._motion.reset()
            return self._blind()
        moving = self._motion.update(grey) if compare_previous else False
        if moving:
            return self._while_moving(grey)
        if compare_previous and self._nothing_new(px, grey):
            # The same board as the last read, to within the sensor noise: its reading
            # stands (most frames of a game; a Raspberry Pi keeps camera rate by it).
            _, last, read, _ = self._last_read
            self._remember_calm(*read, calm=not last.hand_present)
            return last
        feats, difference = self._change(px)
        if compare_previous:
            plain_hand = self._hand_in_plain_view(feats, difference)
            if plain_hand is not None:
                return self._while_hand_stays(grey, plain_hand)
        self._last_read = None
        self.full_reads += 1
        if compare_previous and not self._in_visit and self._calm_run >= 2:
            # The board was calm since the last visit and changed: a hand the camera did not
            # see (out of view, or too quick) changed it, and the calm board is the one before.
            self._before = self._calm
        change, unshaded = difference.distances()
        evidence = change_evidence(change)
        stream_lights = self._search.stream_state()
        unshadowed = self._without_shadows(feats, difference, evidence, stream=compare_previous)
        if unshadowed is not difference:
            change, unshaded = unshadowed.distances()
            evidence = change_evidence(change)
            difference = unshadowed
        foreground = change > FOREGROUND_DISTANCE
        reading, core_evidence = self._read(
            feats,
            evidence,
            foreground,
            unshaded,
            difference,
            still=not compare_previous,
        )
        score, accepted, visible_core = reading.score, reading.accepted, reading.open_core
        explained = self._pixels.covered(accepted)
        unexplained = foreground & ~explained
        # (a token's shadow is no hand, see _shadow_discs)
        discs = self._shadow_discs(accepted)
        hand_present = self._hand(unexplained & ~discs)
        changed_fraction = self._grid.changed_fraction(unexplained[self._pixels.grid])
        if compare_previous and self._calm is not None:
            # Weaker changes count against the last calm frame (its shadows and tokens are
            # already in it): a still hand of a colour close to the table's still shows.
            calm_feats, calm_explained, _ = self._calm
            since_calm = self._changed_since(feats, calm_feats)
            newly = since_calm & ~explained & ~calm_explained & ~discs
            newly = self._away_from_the_board(feats, calm_feats, newly)
            only_since_calm = not hand_present and self._hand(newly)
            if only_since_calm and self._settling:  # it stayed too long for a hand (settle)
                self._settling = only_since_calm = False
                self._calm_run = 1  # this board is the calm one now
            self._hand_only_since_calm = only_since_calm
            hand_present = hand_present or only_since_calm
            unexplained |= newly
        else:
            self._hand_only_since_calm = False
        self._settling &= hand_present
        if hand_present:
            # What the shadow search made of a frame with a hand over the board serves that
            # frame only: the hand and its shadow darken the base as the tokens' shadows do,
            # and tokens read on the hand cast none (a wrong light kept so was refuted by the
            # tokens in every frame after, and the shadows it left read as a hand that
            # stayed); and the hand's shadow on a token's top refutes the true light, which
            # the same tokens read once the hand had gone did not ask again (bench game 9002
            # under a bare lamp: a brown token left in its shade read as the black set's).
            self._search.restore(stream_lights)
        if compare_previous:
            if hand_present and not self._in_visit:
                self._before = self._calm  # the board as it was before the hand came
            self._in_visit = hand_present
            if not hand_present and self._before is not None:
                reading = self._attribute_changes(
                    feats, reading, evidence, core_evidence, difference
                )
        if not hand_present and len(reading.in_line):
            reading = self._in_line.by_colour(feats, foreground, reading, self._before_accepted())
        if reading.accepted is not accepted:
            score, accepted, visible_core = reading.score, reading.accepted, reading.open_core
            explained = self._pixels.covered(accepted)
        self._remember_calm(feats, explained, accepted, calm=not hand_present and compare_previous)
        visibility = fp.token_visibility(accepted)
        if hand_present:
            top_unexplained = self._pixels.top.tally(unexplained.astype(np.int64), 2)
            cover = top_unexplained[:, 1] / np.maximum(self._pixels.top.count, 1)
            visibility = visibility * (1.0 - cover)
        # A still picture has no "later" (and it taught the colours while it was read).
        learn = compare_previous and not hand_present
        probs = self._probabilities(
            feats, foreground, score, accepted, visible_core, learn=learn, px=px
        )
        quality = self._quality(changed_fraction, grey)
        observation = Observation(
            probs=probs,
            visibility=visibility,
            hand_present=bool(hand_present),
            quality=quality,
            in_line=_in_line_partners(reading.in_line, accepted),
        )
        if compare_previous:
            self._last_read = (px, observation, (feats, explained, accepted), grey)
        self._last_observation = observation
        return observation

    def _read(
        self,
        feats: np.ndarray,
        evidence: np.ndarray,
        foreground: np.ndarray,
        unshaded: np.ndarray,
        difference: Difference,
        *,
        still: bool,
    ) -> tuple[Selection, np.ndarray]:
        """The tokens the change from the empty board shows (``evidence`` of it per gathered
        pixel, ``foreground`` where it is sure, ``unshaded``: its distance with darkening in
        full, of the ``difference`` itself, whose ``shadowed`` pixels had a modelled shadow
        taken out), and the evidence over the points' cores it was read from."""
        # Where a point's printed texture is gone (not merely darker), darkening is a token
        # (samples a modelled shadow was taken out of do not testify).
        replaced, flattened = self._texture.replaced(
            feats[:, 2], self._noise.sigma, difference.shadowed
        )
        core_evidence = evidence[self._pixels.core.index]
        if replaced.any():
            mine = spread(replaced, self._pixels.core.count)
            core_evidence[mine] = change_evidence(unshaded[self._pixels.core.index[mine]])
            # A top disc whose texture gave way to a plain surface holds a token even when
            # that token is the table's colour and changed its pixels little.
            core_evidence[spread(flattened, self._pixels.core.count)] = 1.0
        self._neutral_behind_lines(core_evidence)
        reading = self._without_stray_slivers(
            feats,
            self._read_tokens(
                evidence, core_evidence, feats, foreground, unshaded > 0, difference, still=still
            ),
        )
        reading = self._in_front_of_farther(feats, foreground, evidence, core_evidence, reading)
        return reading, core_evidence

    def _neutral_behind_lines(self, core_evidence: np.ndarray) -> None:
        """An unchanged pixel behind a printed line of a plate above can show neither a token
        nor its absence: it counts for neither (lines cross much of a low tier's token).
        Changes ``core_evidence`` (``self._pixels.core`` order) in place."""
        behind = self._pixels.core_behind_line
        core_evidence[behind] = np.maximum(core_evidence[behind], EVIDENCE_THRESHOLD)

    def _without_shadows(
        self, feats: np.ndarray, difference: Difference, evidence: np.ndarray, *, stream: bool
    ) -> Difference:
        """``difference`` with the shadows of the tokens taken out (see
        :mod:`vision.shadow_search`), or ``difference`` itself when there are none to take
        out: the tokens a quick first reading of its ``evidence`` finds cast them, and that
        reading's phantoms on the shadows hide nothing the search needs. In a ``stream`` the
        light the shadows were found at is kept and looked for first; its casters are the
        quick reading's tokens, the game's and the last calm board's."""
        core_evidence = evidence[self._pixels.core.index]
        self._neutral_behind_lines(core_evidence)
        first = self._selector.select(evidence, core_evidence).accepted
        delta = difference.delta
        # (a token the game holds casts its shadow, read or not: one told on a hidden point,
        # its shadow in view, drew the light a third short of the lamp, bench game 6208)
        held = first | (self._sets.known_array >= 0)
        casters = held if self._calm is None else held | self._calm[2]  # (for a kept light)
        found, lone = self._search.find(
            feats, delta, first, held, casters, self._calm_before(), stream=stream
        )
        if not self._search.take(found, keep=stream and not lone):
            return difference
        (chroma_a, chroma_b, light), shadowed = found.undone(delta)
        at = np.flatnonzero(shadowed)  # (elsewhere the difference is as it was)
        significant = difference.significant.copy()
        significant[at] = self._noise.beyond(
            chroma_a[at] * chroma_a[at] + chroma_b[at] * chroma_b[at], light[at], at
        )
        return Difference(chroma_a, chroma_b, light, significant, shadowed)

    def _before_accepted(self) -> np.ndarray | None:
        """The tokens of the calm board before the hand came (None outside a visit's
        aftermath)."""
        return None if self._before is None else self._before[2]

    def _calm_before(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The calm board before the hand came, as the shadow search takes it: its features
        and tokens (None outside a visit's aftermath)."""
        return None if self._before is None else (self._before[0], self._before[2])

    def _while_moving(self, grey: np.ndarray) -> Observation:
        """Motion since the last frame is a hand (or the camera itself moving): nothing is
        read until it stops, since no reading taken in motion may ever count. The board
        keeps its last reading, and the calm board before the visit is kept for the
        before/after comparison once the hand has gone."""
        return self._waiting(self._picture_intact(grey))

    def _waiting(self, quality: float) -> Observation:
        """A hand is in view and nothing is read (see :meth:`_while_moving`)."""
        if not self._in_visit:
            self._before = self._calm
        self._in_visit = True
        self._calm_run = 0
        self._last_read = None
        last = self._last_observation
        if last is None:
            last = self._blind()
        return Observation(
            probs=last.probs, visibility=last.visibility, hand_present=True, quality=quality
        )

    def _hand_in_plain_view(self, feats: np.ndarray, difference: Difference) -> float | None:
        """Does the frame show a hand before it is read? Then the share of the board's zone
        it covers, else None. A hand that has come to rest over the board showed nothing
        moving, and a full read (over a third of it taking the tokens' shadows out, whose
        light serves such a frame only) found it at last as change no token explained: in
        the bench games a third of the full reads, at 3 to 7 times a JPEG decode each. Without the
        reading, the change must be plainly a hand's: on the hand grid, a blob of change since the
        calm board (darkening counted at ``SHADOW_WEIGHT``) that is also change from the empty
        board, away from the calm board's tokens, and ``PLAIN_HAND_DISCS`` top discs big. The tokens
        a hand lays, with their shadows, made blobs of at most 2.9 discs in those games (varied
        light and a bare lamp alike); the hands that came to rest, 7.3 discs and more. Anything
        smaller, and a "hand" the pipeline asked to be settled (:meth:`settle`: a change that stays
        is the board's own), is read in full."""
        if self._calm is None or self._settling:
            return None
        calm_feats, calm_explained, _ = self._calm
        at = self._pixels.grid
        since_calm = self._changed_since(feats, calm_feats, at, shadow_weight=SHADOW_WEIGHT)
        from_empty = difference.at(at).distances()[0] > FOREGROUND_DISTANCE
        changed = since_calm & from_empty & ~calm_explained[at]
        if not self._grid.has_blob(changed, PLAIN_HAND_DISCS * self.footprints.disc_area):
            return None
        return self._grid.changed_fraction(changed)

    def _changed_since(
        self,
        feats: np.ndarray,
        calm_feats: np.ndarray,
        pixels: np.ndarray | None = None,
        *,
        shadow_weight: float = 1.0,
    ) -> np.ndarray:
        """Which gathered pixels (or of ``pixels``) changed since the calm frame (features
        ``calm_feats``) by a hand's least change, darkening weighed by ``shadow_weight``,
        and beyond the sensor noise when the empty board is known (a dark, noisy table)."""
        if pixels is not None:
            feats, calm_feats = feats[pixels], calm_feats[pixels]
        delta = feats - calm_feats
        changed = feature_distance(delta, shadow_weight) > HAND_DISTANCE
        chroma2 = delta[:, 0] * delta[:, 0] + delta[:, 1] * delta[:, 1]
        return changed & self._noise.beyond(chroma2, delta[:, 2], pixels)

    def _while_hand_stays(self, grey: np.ndarray, covered: float) -> Observation:
        """A hand in plain view (see :meth:`_hand_in_plain_view`) covering the share
        ``covered`` of the board's zone: as a full read that found it would, the frame's
        quality falls as the hand covers more (a board mostly hidden says little), the
        shadow search's memo is dropped (a hand's frame teaches no light), and the frame is
        what :meth:`settle` asks about."""
        observation = self._waiting(self._quality(covered, grey))
        self._search.forget()
        self._hand_only_since_calm = False
        self._last_observation = observation
        return observation

    def _nothing_new(self, px: np.ndarray, grey: np.ndarray) -> bool:
        """Does the frame show what the last full read saw, to within the sensor noise?
        Nothing new means no point's core and no token-sized part of the board changed;
        compared with that read (not the previous frame), slow drifts add up and get read."""
        if self._last_read is None:
            return False
        last_px, _, _, last_grey = self._last_read
        diff = np.abs(px - last_px)
        # Noise of a difference of two frames, robustly (most of the board is unchanged).
        noise = float(
            np.clip(1.4826 * np.median(np.take(diff, self._light_samples, axis=1)), 1.0, MAX_NOISE)
        )
        self._still_noise = noise
        largest = highest_channel(diff.T)
        if cores_moved(self._pixels.core, largest[self._pixels.core.index], noise).any():
            return False
        # Elsewhere on the board (a hand come to rest): judged as motion is, on grey levels.
        return not self._motion.differs(grey, last_grey)

    def _attribute_changes(
        self,
        feats: np.ndarray,
        reading: Selection,
        evidence: np.ndarray,
        core_evidence: np.ndarray,
        difference: Difference,
    ) -> Selection:
        """Before/after differencing around a hand visit.

        What changed between the calm board before the hand came and now is exactly
        the tokens added or taken away, free of the clutter of every other token. If
        a point read as changed sits in line with another point (a token on Q where
        one on P would show in the same place), the point whose footprint fits the
        changed pixels better gets the change, and the two are no toss-up (``in_line``)
        when one of them fits it clearly better, unless the other's outline shows more
        plainly (see :meth:`vision.in_line.InLineJudge.outline_prefers`). A new token is not moved
        where the picture itself (``evidence``, ``core_evidence``: as the selection scores them)
        clearly says the first point: the two measures disagree, and the two points are a toss-up
        for the players to settle.
        """
        if self._before is None:
            return reading
        before_feats, _, before_accepted = self._before
        since = feats - before_feats
        changed_core, fit = self._pixels.fit_to(feature_distance(since) > FOREGROUND_DISTANCE)
        accepted, score, open_core = (
            reading.accepted.copy(),
            reading.score.copy(),
            reading.open_core,
        )
        flipped = accepted != before_accepted
        disputed: list[tuple[int, int]] = []
        in_line = reading.in_line
        if len(in_line):
            a, b = in_line[:, 0], in_line[:, 1]
            told = (
                (flipped[a] | flipped[b])
                & (np.abs(fit[a] - fit[b]) >= CHANGE_MARGIN)
                & (np.maximum(fit[a], fit[b]) >= TOKEN_SCORE)
            )
            if told.any():  # (unless the outlines argue against the fit)
                fits, worse = np.where(fit[a] >= fit[b], a, b), np.where(fit[a] >= fit[b], b, a)
                held = np.where(reading.accepted[a], a, b)
                told[told] = ~self._in_line.outline_prefers(
                    worse[told], fits[told], reading.accepted, held[told], self._light.gain
                )
            in_line = in_line[~told]
        for a, b in (
            (self._pixels.in_line_far, self._pixels.in_line_near),
            (self._pixels.in_line_near, self._pixels.in_line_far),
        ):
            # a: read as changed; b: its in-line partner, read as unchanged and fitting better.
            swap = (
                flipped[a]
                & ~flipped[b]
                & (fit[b] > fit[a] + CHANGE_MARGIN)
                & (fit[b] >= TOKEN_SCORE)
            )
            for x, y in zip(a[swap], b[swap]):
                if flipped[x] and accepted[x] != accepted[y]:  # not already moved this frame
                    if accepted[x] and self._in_line.clearly_here(
                        evidence, core_evidence, accepted, x, y
                    ):
                        disputed.append((x, y))
                        continue
                    accepted[x], accepted[y] = accepted[y], accepted[x]
                    score[x], score[y] = score[y], max(score[x], fit[y])
                    flipped[x] = False
                    logger.debug("change attributed to point %d instead of %d", y, x)
        # A token the game holds, read before the hand came (there, or on a point in line
        # with it: a toss-up the players answered), whose footprint did not change since is
        # still there, however weakly the picture against the empty board shows it now.
        vouched = self._sets.known_array >= 0
        kept = (
            (before_accepted | self._pixels.in_line_with(before_accepted))
            & ~accepted
            & (changed_core < STILL_CORE_SHARE * self._pixels.core.count)
            & vouched
        )
        if kept.any():
            logger.debug("tokens the hand visit left alone kept: %s", np.flatnonzero(kept).tolist())
            accepted |= kept
            score[kept] = np.maximum(score[kept], TOKEN_SCORE)
            # A token new since the hand came on a point in front of a kept one, in line with
            # it, is that token read there: a new token there would have changed its footprint.
            # (and the two are no toss-up)
            twins = self._pixels.in_line_near[kept[self._pixels.in_line_far]]
            twins = twins[~before_accepted[twins] & ~vouched[twins]]
            accepted[twins] = False
            in_line = in_line[~np.isin(in_line, twins).any(axis=1)]
        stale = self._untouched_by_the_hand(since, accepted & ~vouched, before_accepted)
        if stale.any():
            logger.debug("new tokens the hand visit left alone: %s", np.flatnonzero(stale).tolist())
            accepted &= ~stale
            in_line = in_line[~np.isin(in_line, np.flatnonzero(stale)).any(axis=1)]
        added, ties = self._added_by_the_hand(feats, before_feats, accepted, before_accepted)
        if added.any():
            logger.debug("tokens the hand visit added: %s", np.flatnonzero(added).tolist())
            accepted |= added
            score[added] = np.maximum(score[added], TOKEN_SCORE)
            in_line = np.concatenate([in_line, ties])
        if self._search.last is None and (
            added.any() or len(new_in_visit(accepted, before_accepted)) == 2
        ):
            # No light was found, and the first reading did not see a token the change since
            # the hand came shows (so it cast no shadow in the search), or the full reading
            # holds two new tokens and the quick one only the shadow (bench game 2908: G3Q,
            # faint, cast the shadow read on C3P): its light is searched for, and the shadow
            # found is then judged as a new shadow (see _on_new_shadows).
            self._search.take_added_tokens_light(
                feats, difference.delta, accepted, (before_feats, before_accepted)
            )
        shadows = self._on_new_shadows(since, accepted, before_accepted)
        if shadows.any():
            logger.debug("new shadows read as tokens: %s", np.flatnonzero(shadows).tolist())
            accepted &= ~shadows
            in_line = in_line[~np.isin(in_line, np.flatnonzero(shadows)).any(axis=1)]
        open_core = self._in_line.recount_open_core(
            accepted, open_core, accepted & ~before_accepted | kept
        )
        if disputed:
            in_line = np.concatenate([in_line, np.array(disputed, np.int64)])
        return dataclasses.replace(
            reading, accepted=accepted, score=score, open_core=open_core, in_line=in_line
        )

    def _untouched_by_the_hand(
        self, since: np.ndarray, accepted: np.ndarray, before_accepted: np.ndarray
    ) -> np.ndarray:
        """The ``accepted`` tokens (those the game does not hold) new since the hand came, that
        no calm board showed since a hand visit last changed their point, whose core this visit
        left alone (``since``: each gathered pixel's change since the hand came; left alone as
        a stream's reads judge a point unchanged, fewer than ``STILL_CORE_SHARE`` of its core
        pixels beyond the sensor noise): a token the hand laid changed its point. A hard
        shadow sinks the base's grain under the veil of the plates above to where it barely
        follows the empty board, and a point whose grain passed for followed in one read and
        not in the next was read as a plain token's top (bench game 7601 under a bare lamp:
        E1Q, in F7R's shadow, read as a token of the colour after next when the next token was
        laid far from it). A token the reading lost for a while and finds again, unchanged,
        was on a calm board before: it stays."""
        core = self._pixels.core.index
        change = since[core]
        moved = self._noise.beyond(
            change[:, 0] * change[:, 0] + change[:, 1] * change[:, 1], change[:, 2], core
        )
        moved_core = np.bincount(self._pixels.core.point, weights=moved, minlength=N_POINTS)
        untouched = moved_core < STILL_CORE_SHARE * self._pixels.core.count
        self._seen_calm &= untouched  # (a point the visit changed starts afresh)
        return accepted & ~before_accepted & ~self._seen_calm & untouched

    def _on_new_shadows(
        self, since: np.ndarray, accepted: np.ndarray, before_accepted: np.ndarray
    ) -> np.ndarray:
        """Which of the ``accepted`` tokens new since the hand came (not in
        ``before_accepted``; ``since``: each gathered pixel's change since the hand came) are
        a shadow on the base, seen where they lie (on the bottom tier, or through the plate of
        a tier above: a token laid out of sight on G7Q threw its shadow where the camera sees
        the base through G3Q, bench game 4802): the core mostly (by ``SHADOW_COVERS``) in
        the shadows found of the tokens above the bottom tier (not its own), and, over its
        pixels there, unchanged since the hand came (most of them within the sensor noise: an
        old token's shadow, read as a token this time; a brown token laid on the wooden base
        in a shadow changes it little, but beyond the noise). Or, in the shadow of a token
        the visit laid, or of a point above hidden from the camera (a
        token laid there shows its shadow only), changed the way the shadows look and no
        farther than the deepest of their looks: that shadow is as new as its token, and one
        visit lays one token. (A dark token laid in an old token's shadow changes the same
        way: there a change is a token's.) Judged by the median: a sharp shadow's edge and
        the JPEG's coarser colour leave single pixels off its look, which read token-like
        where the shadow was taken out pixel by pixel. (A token laid on a hidden point whose
        shadow was read as a token in view went down as that point's move, with the right
        colour: no alert, a wrong board.)"""
        out = np.zeros(N_POINTS, bool)
        found = self._search.last
        new = accepted & ~before_accepted
        if found is None or not new.any():
            return out
        upper = self.footprints.tier > 0
        hidden = self.footprints.token_visibility(accepted) < MIN_VISIBILITY
        new_cast = self._shadow_model.mask_at(found.slope, upper & (new | (hidden & ~accepted)))
        cast = self._shadow_model.mask_at(found.slope, upper & (accepted | hidden))
        suspects = np.flatnonzero(new & (self._pixels.share_on(cast, core=True) >= SHADOW_COVERS))
        for point in suspects:  # (a handful at most)
            core = self._pixels.core.index[self._pixels.core.entries(np.array([point]))[1]]
            pixels = core[cast[core]]
            moved = take_rows(since, pixels)
            chroma2 = moved[:, 0] * moved[:, 0] + moved[:, 1] * moved[:, 1]
            if self._noise.beyond(chroma2, moved[:, 2], pixels).mean() < 0.5:
                out[point] = True  # (unchanged)
                continue
            in_new = new_cast[pixels]
            if in_new.sum() < SHADOW_COVERS * self._pixels.core.count[point]:
                continue  # (not mostly in a new shadow)
            change = np.median(moved[in_new], axis=0)
            size = float(np.linalg.norm(change))
            look = np.median(found.shift_at(pixels[in_new]), axis=0)
            length = float(np.linalg.norm(look))
            along = float(change @ look) / max(length, 1e-9)
            deepest = max(length, float(np.linalg.norm(found.shift)))
            out[point] = along >= SHADOW_COSINE * size and size <= deepest
        return out

    def _added_by_the_hand(
        self,
        feats: np.ndarray,
        before_feats: np.ndarray,
        accepted: np.ndarray,
        before_accepted: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Points the change since the hand came shows a token on that the picture against
        the empty board missed (a dark token laid in a shadow changes that picture little).
        What changed between the calm board before the hand and now is the tokens it added,
        free of every other token and of the light: the points whose core that change fills
        and whose ring it leaves clear (judged as the selection judges, so that of a token
        on Q and the point of P in line with it one takes the change), besides the tokens
        read now and not before the hand came or the other way round (their pixels are
        theirs), and neither where a token is or was nor in line with one (a token taken
        away there changes the same pixels). Darkening counts half, as against
        the empty board: a token laid on an upper tier under a lamp darkens its shadow too.
        A change short of a sure one counts where it is more than a faint one with darkening
        counted for nothing, beyond the noise of its class of detail: a near-white token on
        a pale base changed it too little to be sure (bench game 3003 under a bare lamp),
        and no shadow that falls brightens (one that lifts does, back towards the empty
        board: only a change away from it counts). A change beyond the noise but fainter still that
        fills a point's core adds a token where that point shows a token's outline (see
        :meth:`_outlined`, its fainter bar): a white token laid on a pale green base changed it by
        0.6 feature units only (a glint beside a new white token in game 3002, no token, by 0.25)
        but drew its rim and wall plainly (game 3707). The noise those two are judged by is each
        pixel's own where either picture is darker than the empty board: in a shadow a quarter as
        bright, colour is four times as noisy, and an empty point in an old shadow outlined a token
        so (game 2905's E7P). Where the light is known, the new tokens' shadows are left out (seen
        through tinted plates a shadow shifts the colour as well, and filled a point's core). Also
        the ``(k, 2)`` toss-ups: an added point and one in line with it that fits the change within
        ``ADDED_TIE`` as well."""
        since = feats - before_feats
        changed = feature_distance(since, SHADOW_WEIGHT) > FOREGROUND_DISTANCE
        # A pale token on a pale base changes it less than surely, but beyond the noise,
        # and no shadow brightens it (darkening counts for none). A pixel darker than
        # the empty board in either picture (in a shadow) is that much noisier there.
        darker = np.minimum(feats[:, 2], before_feats[:, 2]) - self._ref_features[:, 2]
        clear = np.exp(np.minimum(darker, 0.0) * np.float32(LIGHT_SCALE))
        brighter = np.maximum(since[:, 2], 0.0) * clear
        chroma2 = (since[:, 0] * since[:, 0] + since[:, 1] * since[:, 1]) * (clear * clear)
        weak = self._noise.beyond(chroma2, brighter, sigma=self._noise.of_detail())
        # ... but a shadow that lifts brightens, back towards the empty board: only a
        # change away from it is something new (in bench game 1011, bumped, a hand out
        # of view shaded H5S in the calm frame, and its shadow lifting outlined a token).
        weak = self._away_from_the_board(feats, before_feats, weak)
        changed |= weak & (feature_distance(since, 0.0) > FAINT_DISTANCE)
        unexplained = ~self._pixels.covered(accepted ^ before_accepted)
        if self._search.last is not None:  # the shadows the new tokens throw are theirs
            unexplained &= ~self._shadow_model.mask_at(
                self._search.last.slope, accepted & ~before_accepted
            )
        changed &= unexplained
        held = accepted | before_accepted
        free = ~held & ~self._pixels.in_line_with(held)
        # Fainter still, the change must draw the token's outline too.
        _, weak_fit = self._pixels.fit_to((changed | weak) & unexplained)
        outlined = self._outlined(accepted, free & (weak_fit >= TOKEN_SCORE), faint=True)
        if not changed.any() and not outlined.any():
            return np.zeros(N_POINTS, bool), np.zeros((0, 2), np.int64)
        _, fit = self._pixels.fit_to(changed)
        chosen = self._selector.select(changed.astype(np.float32)).accepted
        added = free & ((chosen & (fit >= TOKEN_SCORE)) | outlined)
        fit = np.where(outlined, np.maximum(fit, weak_fit), fit)
        # A point in line with an added one that fits the change nearly as well may as well
        # hold it: the two are a toss-up (the colour, or the players, decide).
        a, b = self._pixels.in_line_a, self._pixels.in_line_b
        tie = added[a] & ~added[b] & (fit[b] >= np.maximum(TOKEN_SCORE, fit[a] - ADDED_TIE))
        return added, np.stack([a[tie], b[tie]], axis=1)

    def _shadow_discs(self, accepted: np.ndarray) -> np.ndarray:
        """Per gathered pixel: is it in an ``accepted`` token's shadow disc under this
        frame's light (none found: nowhere), on the base or on the table past it? A token's
        shadow is no hand, even where too few samples show the shadows' look to take it out
        of the change (bench game 2707 lost four moves to a new token's shadow on the table
        read as a hand since the calm frame, and game 5002 its last move to one read as a
        hand against the empty board). A hand is far bigger than a disc: it shows around."""
        if self._search.last is None:
            return np.zeros(len(self._pixels.positions), bool)
        return self._shadow_model.mask_at(self._search.last.slope, accepted)

    def _away_from_the_board(
        self, feats: np.ndarray, calm_feats: np.ndarray, changed: np.ndarray
    ) -> np.ndarray:
        """Of the pixels ``changed`` since the calm frame, those that went farther from the
        empty board. One that came nearer shows that the calm frame held something that has
        gone, not that something new came: a hand entering at the picture's edge cast its
        soft shadow over the board in the frame taken as calm, and once it had gone, the
        shadow lifted read as a hand that stayed until the next visit (bench game 4401, a bare
        lamp: its seventh move lost). A hand arriving takes a pixel away from the board."""
        at = np.flatnonzero(changed)
        reference = self._ref_features[at]
        back = feature_distance(feats[at] - reference) < feature_distance(
            calm_feats[at] - reference
        )
        out = changed.copy()
        out[at[back]] = False
        return out

    def settle(self) -> None:
        """The "hand" has stayed for longer than a hand does and the camera has not moved
        (whoever knows the time checked): the next read whose only "hand" is a change since
        the calm board takes that change for the board's own and its board for the calm one.
        Without it such a change (a new token's shadow the shadow search could not find, a
        shade that stays) would be "a hand" for the rest of the game, since the calm board is
        only taken with no hand in view. A hand visit that it closes is attributed as any.
        Asked with no hand in view, there is nothing to settle: the request is dropped."""
        last = self._last_observation
        self._settling = last is not None and last.hand_present
        if self._hand_only_since_calm:
            self._last_read = None  # read the next frame afresh, even if nothing is new

    def _remember_calm(
        self, feats: np.ndarray, explained: np.ndarray, accepted: np.ndarray, *, calm: bool
    ) -> None:
        """Keep the latest frame that followed another calm one as the "calm" picture."""
        if not calm:
            self._calm_run = 0
            return
        self._calm_run += 1
        if self._calm_run >= 2:
            self._calm = (feats, explained, accepted)
            self._seen_calm |= accepted

    def _quality(self, changed_fraction: float, grey: np.ndarray) -> float:
        """How much a frame can tell: less as change nothing explains covers more than a
        third of the board's zone (none at three quarters), and less for a damaged picture."""
        return min(
            float(np.clip((0.75 - changed_fraction) / 0.45, 0.0, 1.0)), self._picture_intact(grey)
        )

    def _picture_intact(self, grey: np.ndarray) -> float:
        """1.0 unless whole rows of the board zone came out flat (a JPEG cut short, a
        dropped USB packet): their share counts double against the quality."""
        rows = grey.reshape(self._grid.shape)
        flat = (rows.std(axis=1) < 0.5) & self._textured_rows
        return float(np.clip(1.0 - 2.0 * flat.mean(), 0.0, 1.0))

    def _blind(self) -> Observation:
        probs = np.zeros((N_POINTS, 1 + self.colours.n_colours))
        probs[:, 0] = 1.0
        return Observation(
            probs=probs, visibility=np.zeros(N_POINTS), hand_present=False, quality=0.0
        )

    def _change(self, px: np.ndarray) -> tuple[np.ndarray, Difference]:
        """Gain-normalised features (``(n, 3)`` rows) of the gathered pixels (``(3, n)``
        planes) and their :class:`Difference` from the empty board (dark pixels have noisy
        colour: whether a difference stands out of the noise is judged against their own)."""
        grid = self._light_samples
        grid_px = _planar_rows(px, grid)
        lighting = self._light_field.measure(grid_px)
        balanced = px / lighting.gain[:, None]
        # One contiguous array per feature axis: the arithmetic below runs at memory speed.
        columns = list(feature_columns(*balanced))
        grid_balanced = grid_px / lighting.gain
        tilt_light = None  # the brightness feature uneven light adds to each pixel
        if lighting.tilt.any():  # uneven light moves brightness only (see vision.illumination)
            tilt_light = lighting.brightness(self._x, self._y) * np.float32(1.0 / LIGHT_SCALE)
            columns[2] -= tilt_light
            grid_balanced = grid_balanced * np.exp(-lighting.brightness(*self._grid_xy))[:, None]
        # Noise of a pixel difference (robust: most of the board did not change), over the
        # channels clipped on neither side (a clipped channel differs by the light, not noise).
        residual = np.abs(grid_balanced - self._ref_grid_px)
        clipped_grid = (grid_px >= CLIPPED) | self._ref_grid_clipped
        self._noise.measure(residual, clipped_grid)
        self._light = lighting
        feats = np.stack(columns, axis=1)
        d0, d1, light = (columns[k] - self._ref_columns[k] for k in range(3))
        chroma2 = d0 * d0 + d1 * d1
        significant = self._noise.beyond(chroma2, light)
        # Where either side is clipped, compare only what the clipped channels allow (asked of
        # the pixels that changed: granting a clipped channel its doubt only shrinks a change).
        clipped = highest_channel(px.T) >= CLIPPED
        hot = np.flatnonzero(significant & (clipped | self._ref_any_clipped))
        if len(hot):
            frame, reference = unclipped_pair(
                _planar_rows(balanced, hot),
                _planar_rows(px, hot) >= CLIPPED,
                self._ref_px[hot],
                self._ref_clipped[hot],
            )
            delta = features(frame) - features(reference)
            if tilt_light is not None:  # (taken off the frame's features above too)
                delta[:, 2] -= tilt_light[hot]
            chroma2[hot] = delta[:, 0] * delta[:, 0] + delta[:, 1] * delta[:, 1]
            d0[hot], d1[hot], light[hot] = delta[:, 0], delta[:, 1], delta[:, 2]
            significant[hot] = self._noise.beyond(chroma2[hot], light[hot], hot)
        return feats, Difference(d0, d1, light, significant)

    def _outstanding(
        self, difference: Difference, pixels: np.ndarray, feats: np.ndarray
    ) -> np.ndarray:
        """Per one of the gathered ``pixels``: does its ``difference`` from the empty board
        stand out of the noise of its class of detail (see
        :meth:`vision.sensor_noise.SensorNoise.measure`)? Asked of the core of a point no token was
        read on, before its outline is looked for. (Not of the change itself: judged so, the faint
        change of a grey token on a grey stone table, whose grain is detail, fell under it.) With a
        reference moved after a bump (see :func:`reference_envelope`) the frame's features
        (``feats``) must stand out of every value the reference takes within its misfit, too: the
        printed lines a pixel or two off changed most of an empty point's core."""
        sigma = self._noise.of_detail(pixels)
        a, b = difference.chroma_a[pixels], difference.chroma_b[pixels]
        out = self._noise.beyond(a * a + b * b, difference.light[pixels], pixels, sigma=sigma)
        if self._ref_envelope is None:
            return out
        low, high = self._ref_envelope
        seen = feats[pixels]
        a, b, light = (
            seen[:, k] - np.clip(seen[:, k], low[k][pixels], high[k][pixels]) for k in range(3)
        )
        return out & self._noise.beyond(a * a + b * b, light, pixels, sigma=sigma)

    def _read_tokens(
        self,
        evidence: np.ndarray,
        core_evidence: np.ndarray,
        feats: np.ndarray,
        foreground: np.ndarray,
        changed: np.ndarray,
        difference: Difference,
        *,
        still: bool,
    ) -> Selection:
        """Which points hold a token (see :mod:`vision.explain`).

        ``evidence`` (0..1 per gathered pixel) is how surely each pixel changed; soft
        evidence lets a faint token (grey on a pale table) add up over its whole footprint.
        ``core_evidence`` is the same over each point's core pixels (``self._pixels.core`` order),
        where a point with its texture replaced counts darkening in full. Points with
        some change but no token are then checked against the known token colours, and
        the board is read again if that raises any of them (``changed``: the pixels that
        differ from the empty board by more than the sensor noise; pixels an accepted
        token covers are its own and are not asked about). Whether most of a point's core
        changed, which asks for its outline, counts only the pixels whose ``difference``
        also stands out of the noise of their class of detail (the reference's own error
        there, see :meth:`_outstanding`). A ``still`` picture first learns the colours from
        its own clearest tokens.
        """
        reading = self._selector.select(evidence, core_evidence)
        if still:
            self._sets.read(
                feats,
                foreground,
                reading.accepted,
                before_accepted=self._before_accepted(),
                learn=True,
            )
        undecided = reading.active & ~reading.accepted
        if not undecided.any():
            return self._in_line.nearer(evidence, core_evidence, reading, self._light.gain)
        # Pixels an accepted token covers are explained by that token (the change counts once).
        # In a camera stream those within the sensor noise of the empty board are explained by
        # it; a still picture asks them too (see :meth:`vision.token_sets.TokenSets.evidence`), but
        # only changed ones can show an outline.
        taken = self._pixels.covered(reading.accepted)
        open_core = spread(undecided, self._pixels.core.count) & ~taken[self._pixels.core.index]
        core_changed = changed[self._pixels.core.index]
        asked = open_core & core_changed
        colour_evidence = self._sets.evidence(
            feats,
            open_core,
            core_changed,
            reading.accepted,
            before_accepted=self._before_accepted(),
            neutral=still,
        )
        boosted = core_evidence
        if colour_evidence is not None:
            boosted = np.maximum(boosted, colour_evidence)
        # Points with most of their core changed a little may be a token the table's colour.
        outstanding = asked.copy()
        outstanding[asked] = self._outstanding(difference, self._pixels.core.index[asked], feats)
        changed_core = np.bincount(self._pixels.core.point, weights=outstanding, minlength=N_POINTS)
        outlined = self._outlined(
            reading.accepted, changed_core >= RIM_ASKED * self._pixels.core.count, faint=still
        )
        if outlined.any():
            boosted = np.where(
                asked & spread(outlined, self._pixels.core.count), np.float32(1.0), boosted
            )
        if boosted is core_evidence:
            return self._in_line.nearer(evidence, core_evidence, reading, self._light.gain)
        raised = np.bincount(
            self._pixels.core.point, weights=boosted - core_evidence, minlength=N_POINTS
        )
        if not (raised >= COLOUR_RAISE * self._pixels.core.count).any():
            return self._in_line.nearer(evidence, core_evidence, reading, self._light.gain)
        return self._in_line.nearer(
            evidence, boosted, self._selector.select(evidence, boosted), self._light.gain
        )

    def _outlined(self, accepted: np.ndarray, asked: np.ndarray, *, faint: bool) -> np.ndarray:
        """Which of the ``asked`` points show a token's outline (see
        :meth:`vision.rim.RimOutlines.outlined`; ``accepted``: the tokens read, whose
        silhouettes' pairs say nothing). A token the table's colour changes its pixels little
        but still draws its outline (a brighter top, a shaded wall). No point is judged that
        lies mostly on the shadows taken out of this frame: a token's shadow on the base is a
        token-sized dark disc, and its edge drew the outline of a token on the point of the
        bottom tier under it (bench game 4007 under a bare lamp).

        With ``faint`` (a still picture, and the change across a hand's visit), a fainter
        outline also counts where the pixels inside the rim changed more than those outside
        it. A camera stream's full read does without: the change across the hand's visit
        finds a faint token there (see :meth:`_attribute_changes`), and in the small demo
        stream (480x360) the fainter bar took an empty point in a frame just after a hand
        left."""
        if not asked.any():
            return np.zeros(N_POINTS, bool)
        if self._search.last is not None:  # (most frames ask no point: none is measured)
            asked = asked & (self._pixels.share_on(self._search.last.mask) < SHADOW_COVERS)
        return self._rim.outlined(accepted, asked, self._light.gain, faint=faint)

    def _without_stray_slivers(self, feats: np.ndarray, reading: Selection) -> Selection:
        """Drop accepted points taken on a sliver whose colour is not that of the rest of their
        core. A token is one colour all over: where most of a point's core lies in front of
        farther accepted tokens, a token there would show its own colour in that part too, so
        the few pixels outside them must show the same colour (each pixel labelled with the
        nearest known colour). A shadow or the edge of another token next to a farther token
        shows something else, and the farther token is then read from its whole core again
        (a token taken in front of it hides it)."""
        keys, protos = self.colours.prototype_array()
        accepted = reading.accepted
        if len(keys) < 2 or not accepted.any():
            return reading
        nearest = self._pixels.nearest_tier(accepted)
        farthest = self._pixels.nearest_tier(accepted, farthest=True)
        entries = np.flatnonzero(
            spread(accepted, self._pixels.core.count) & ~self._pixels.core_behind_line
        )
        idx, pts = self._pixels.core.index[entries], self._pixels.core.point[entries]
        own_tier = self._pixels.core_tier[entries]
        seen = nearest[idx] <= own_tier
        behind = seen & (farthest[idx] < own_tier)  # in front of a farther accepted token
        count = np.bincount(pts, weights=behind, minlength=N_POINTS)
        suspect = accepted & (count >= 0.5 * self._pixels.core.count)
        if not suspect.any():
            return reading
        asked = seen & suspect[pts]
        pixel = take_rows(feats, idx[asked])
        label = np.argmin(self._sets.wash.distances(pixel, pts[asked], protos), axis=1)
        owner, in_rest = pts[asked], behind[asked]
        n_keys = len(keys)
        rest = np.bincount(owner[in_rest] * n_keys + label[in_rest], minlength=N_POINTS * n_keys)
        colour = rest.reshape(N_POINTS, n_keys).argmax(axis=1)
        sliver = ~in_rest
        size = np.bincount(owner[sliver], minlength=N_POINTS)
        agree = np.bincount(
            owner[sliver], weights=label[sliver] == colour[owner[sliver]], minlength=N_POINTS
        )
        stray = suspect & (size > 0) & (agree < SLIVER_AGREEMENT * size)
        if not stray.any():
            return reading
        logger.debug("sliver points dropped: %s", np.flatnonzero(stray).tolist())
        return dataclasses.replace(reading, accepted=accepted & ~stray)

    def _in_front_of_farther(
        self,
        feats: np.ndarray,
        foreground: np.ndarray,
        evidence: np.ndarray,
        core_evidence: np.ndarray,
        reading: Selection,
    ) -> Selection:
        """Take points whose core lies in front of accepted farther tokens and shows there a
        known colour those tokens do not. The change such a token makes is all inside the
        farther tokens' silhouettes, so the selection counts it as theirs and never judges the
        point (a token on S over two on R); and the farther tokens' colours are read from its
        pixels. Judged by colour (see :meth:`_front_votes`). A farther token whose own open
        core then no longer shows a token is dropped: the nearer one explains its change."""
        accepted = reading.accepted
        keys, protos = self.colours.prototype_array()
        if len(keys) == 0 or not accepted.any():
            return reading
        candidates = ~accepted & reading.active & (reading.open_core < self._selector.min_open)
        if not candidates.any():
            return reading
        entries = np.flatnonzero(
            spread(candidates, self._pixels.core.count) & ~self._pixels.core_behind_line
        )
        idx, pts = self._pixels.core.index[entries], self._pixels.core.point[entries]
        owner = self._pixels.nearest_owner(accepted)[idx]
        in_front = (owner < 0) | (self.footprints.tier[owner] < self._pixels.core_tier[entries])
        n_front = np.bincount(pts, weights=in_front, minlength=N_POINTS)
        n_far = np.bincount(pts, weights=in_front & (owner >= 0), minlength=N_POINTS)
        asked = candidates & (n_front >= FRONT_VOTERS * self._pixels.core.count) & (n_far > 0)
        if not asked.any():
            return reading
        keep = in_front & asked[pts]
        found, score, n_open, behind = self._front_votes(
            feats, foreground, accepted, asked, idx[keep], pts[keep], owner[keep], protos
        )
        if not found.any():
            return reading
        logger.debug("tokens in front of farther ones taken: %s", np.flatnonzero(found).tolist())
        new_accepted = accepted | found
        new_score, open_core = reading.score.copy(), reading.open_core.copy()
        new_score[found], open_core[found] = score[found], n_open[found]
        if len(behind):  # judged again on what the nearer tokens leave open
            cover = self._pixels.cover(new_accepted)
            again, opened = self._selector.score_freed(
                evidence, core_evidence, behind, behind, cover
            )
            gone = behind[(opened >= self._selector.min_open[behind]) & (again < MIN_SCORE)]
            if len(gone):
                logger.debug("farther tokens they explain dropped: %s", gone.tolist())
                new_accepted[gone] = False
        return dataclasses.replace(
            reading, accepted=new_accepted, score=new_score, open_core=open_core
        )

    def _front_votes(
        self,
        feats: np.ndarray,
        foreground: np.ndarray,
        accepted: np.ndarray,
        asked: np.ndarray,
        idx: np.ndarray,
        pts: np.ndarray,
        owner: np.ndarray,
        protos: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Which ``asked`` points hold a token in front of the ``accepted`` farther ones, from
        their core pixels ``idx`` in front (of points ``pts``; ``owner``: the accepted token
        nearest there, -1: none). Without a token there, each pixel would show the farther
        token (its colour as read beside the asked points, or beside this one alone where
        they all hide it: a token there would hide the rest of it) or the empty board; with
        one, one set's colour as the plates in front of the point wash it. A pixel votes for
        a set that explains it better than that, where the token behind it is of another set
        (the same colour a little brighter or darker is a farther token's lit top or shaded
        wall as well). Returns the points found, their
        scores as the selection scores (mean net evidence over the pixels that could vote),
        how many those were, and the farther tokens behind the found ones."""
        # (measured apart: the colours of the tokens accepted stay remembered for the read)
        seen, used, _ = self._sets.measure(
            feats, foreground, accepted | asked, before_accepted=self._before_accepted()
        )
        under = np.maximum(owner, 0)
        colour_behind, readable = seen[under], (owner < 0) | (used[under] > 0)
        # A farther token that the asked points together hide shows nothing of itself beside
        # them all: read it beside the one asked point alone.
        for point in np.unique(pts[~readable]):
            alone = accepted.copy()
            alone[point] = True
            seen_alone, used_alone, _ = self._sets.measure(
                feats, foreground, alone, before_accepted=self._before_accepted()
            )
            rows = np.flatnonzero(~readable & (pts == point))
            colour_behind[rows] = seen_alone[under[rows]]
            readable[rows] = used_alone[under[rows]] > 0
        idx, pts, owner = idx[readable], pts[readable], owner[readable]
        colour_behind = colour_behind[readable]
        pixel = take_rows(feats, idx)
        without = np.where((owner >= 0)[:, None], colour_behind, take_rows(self._ref_features, idx))
        margin = pair_distance(pixel, without)[:, None] - self._sets.wash.distances(
            pixel, pts, protos
        )
        # (the set of the token behind each pixel; -1 where none)
        owner_set = np.full(len(owner), -1)
        has = owner >= 0
        owner_set[has] = self._sets.wash.distances(colour_behind[has], owner[has], protos).argmin(
            axis=1
        )
        may_vote = owner_set[:, None] != np.arange(len(protos))
        votes, voters = (
            np.stack(
                [np.bincount(pts, weights=w[:, k], minlength=N_POINTS) for k in range(len(protos))],
                axis=1,
            )
            for w in (may_vote & (margin > COLOUR_RAMP), may_vote)
        )
        share = votes / np.maximum(voters, 1)
        share[voters < FRONT_VOTERS * self._pixels.core.count[:, None]] = 0.0
        best = share.argmax(axis=1)
        found = asked & (share.max(axis=1) >= FRONT_AGREEMENT)
        rows, chosen = np.arange(len(pts)), best[pts]
        strength = np.clip(margin[rows, chosen] / COLOUR_RAMP, 0.0, 1.0) * may_vote[rows, chosen]
        n_open = voters[np.arange(N_POINTS), best]
        score = np.bincount(pts, weights=strength, minlength=N_POINTS) / np.maximum(n_open, 1)
        behind = np.unique(owner[found[pts] & (owner >= 0)])
        return found, score - EVIDENCE_THRESHOLD, n_open, behind

    def _hand(self, unexplained: np.ndarray) -> bool:
        """Is there an unexplained blob bigger than a couple of tokens on the board?"""
        return self._grid.has_blob(
            unexplained[self._pixels.grid], HAND_AREA_DISCS * self.footprints.disc_area
        )

    def _probabilities(
        self,
        feats: np.ndarray,
        foreground: np.ndarray,
        score: np.ndarray,
        accepted: np.ndarray,
        visible_core: np.ndarray,
        *,
        learn: bool,
        px: np.ndarray,
    ) -> np.ndarray:
        """Per point the probability of no token and of a token of each colour: a token from
        the overlap ``score`` (none where no core pixel is left open, ``visible_core``), its
        colour from its pixels (see :meth:`vision.token_sets.TokenSets.shares`; with
        ``learn`` the sets learn from the frame first). A token the game holds may keep its
        colour by the frame's pixels ``px``."""
        shares = self._sets.shares(
            feats,
            foreground,
            accepted,
            px,
            before_accepted=self._before_accepted(),
            still_noise=self._still_noise,
            learn=learn,
        )
        p_token = _sigmoid((score - MIN_SCORE) / SCORE_SOFTNESS)
        p_token[~(visible_core > 0)] = 0.0
        n_colours = self.colours.n_colours
        probs = np.zeros((N_POINTS, 1 + n_colours))
        if shares is None:
            probs[:, 0] = 1.0 - p_token
            if n_colours:
                probs[:, 1:] = p_token[:, None] / n_colours
            else:
                probs[:, 0] = 1.0
            return probs
        keys, share = shares
        probs[:, 0] = 1.0 - p_token
        probs[:, 1 + keys] = p_token[:, None] * share
        # Points the reader did not accept but scored high (suppressed as a see-through
        # ghost) must not out-vote emptiness: cap them below one half.
        ghost = ~accepted & (p_token > 0.5)
        probs[ghost, 1:] *= 0.45 / np.maximum(probs[ghost, 1:].sum(axis=1, keepdims=True), 1e-9)
        probs[ghost, 0] = 0.55
        return probs


def analyze_image(
    calibration: Any,
    image_bgr: np.ndarray,
    palette: Sequence[RGB] | None = None,
    *,
    observer: Observer | None = None,
    sets: int | None = None,
) -> dict:
    """Read one still picture: ``{"tokens": {"A1P": 0, ...}, "hidden": [...], "hand": bool}``.

    Pass the same ``observer`` for a series of pictures of one camera so that learned
    colour indices stay the same across them (``palette`` and ``sets``, see
    :class:`Observer`, are then the observer's).
    Raises :class:`FrameError` for an image of the wrong size or type.
    """
    from rules.timevectors.points import point_name

    reader = observer or Observer(calibration, palette=palette, sets=sets)
    observation = reader.observe(image_bgr, compare_previous=False)
    return {
        "tokens": {point_name(p): colour for p, colour in sorted(observation.tokens().items())},
        "hidden": [point_name(p) for p in observation.hidden()],
        "hand": observation.hand_present,
    }
