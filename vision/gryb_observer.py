"""Frame -> Observation for the GRYB bandanna: which nodes hold a ring, of which colour.

A ring token (22 mm across, 12 mm hole) lies on the cloth around a node's spot,
so the spot still shows through it. Each node is read from two sets of pixels
fixed per calibration: its *core* (the middle of the printed spot) and its
*band* (a circle of samples at the middle of the ring's body). Per frame:

1. gather only those pixels and a grid over the cloth, divide by the channel
   gain against the empty-bandanna reference (light and white balance cancel)
   and mark each sample *changed* when its colour differs from the reference;
2. a node holds a ring when most of its band changed and its core did not (a
   hand or an arm over a node changes the core too: the node is then hidden);
3. changed grid samples no ring explains, in a blob bigger than a few rings,
   or motion since the last frame, are a hand;
4. a ring's colour is the mean of its changed band samples, matched to the two
   ring colours the :class:`~calibration.gryb_colours.RingColourModel` learns (a
   given palette of the two nominal colours fixes which is 0 and which is 1).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from calibration.colours import RGB, channel_gain, colour_shares, features, grey_world
from calibration.gryb_colours import RING_COLOURS, RingColourModel, ring_distance
from calibration.gryb_fit import apply_homography
from rules.gryb.nodes import NODES, node_name
from vision.change import FOREGROUND_DISTANCE, SHADOW_WEIGHT, feature_distance
from vision.observation import Observation, ReferenceMissingError, check_frame

logger = logging.getLogger(__name__)

N_NODES = len(NODES)
CORE_RADII_MM = (0.0, 1.6, 3.2)  # inside the spot, which the ring's hole leaves in view
BAND_RADII_MM = (7.6, 8.5, 9.4)  # the ring body spans 6..11 mm from the node
BAND_ANGLES = 24
BAND_CHANGE = 0.5 * FOREGROUND_DISTANCE  # colour change of one band sample that counts
RING_FILL = 0.55  # fraction of the band that must change for a ring
FILL_SOFTNESS = 0.07
# A spot whose mean colour moved this far is covered (a hand). A ring around a spot moves it
# too, a little: blur and JPEG's halved colour resolution mix the surroundings into it.
CORE_HIDDEN = 3.5 * FOREGROUND_DISTANCE
EXPLAINED_MM = 14.0  # grid samples this near an accepted ring are the ring or its shadow
HAND_AREA_RINGS = 4.0  # an unexplained blob larger than this many rings is a hand
MOTION_LEVEL = 30
GRID_SAMPLES = 6000
DRIFT_WIDTH = 320  # working width of the drift measurement
DRIFT_EVERY = 8  # frames of a stream between two drift measurements


def changed_from_reference(feats: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Samples whose colour differs from the reference (darkening counts less: shadows)."""
    return _distance(feats, reference) > FOREGROUND_DISTANCE


def _distance(feats: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Colour distance per row (feature units); darkening counts less (shadows)."""
    return feature_distance(feats - reference, SHADOW_WEIGHT)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -30, 30)))


def _circle_offsets(radii: Sequence[float], angles: int) -> np.ndarray:
    out = []
    for r in radii:
        count = 1 if r == 0 else angles
        for k in range(count):
            a = 2 * np.pi * (k + 0.5 * (r > 8)) / count
            out.append((r * np.cos(a), r * np.sin(a)))
    return np.array(out)


class ShiftMeter:
    """How far a frame has moved against the reference picture: the camera was bumped or
    the cloth pulled (phase correlation of small grey images; rings and a hand barely move
    its peak). Reported as the observation's ``drift_px`` in full-frame pixels."""

    def __init__(self, reference_bgr: np.ndarray, width: int = DRIFT_WIDTH) -> None:
        h, w = reference_bgr.shape[:2]
        self.scale = w / width
        self.size = (width, max(8, round(h / self.scale)))
        self.window = cv2.createHanningWindow(self.size, cv2.CV_32F)
        self.reference = self._small(reference_bgr)

    def _small(self, image_bgr: np.ndarray) -> np.ndarray:
        # Every step-th pixel first (a view), grey, then area-averaged down: a few ms per frame.
        step = max(1, int(self.scale // 2))
        grey = cv2.cvtColor(np.ascontiguousarray(image_bgr[::step, ::step]), cv2.COLOR_BGR2GRAY)
        return cv2.resize(grey, self.size, interpolation=cv2.INTER_AREA).astype(np.float32)

    def shift_px(self, frame_bgr: np.ndarray) -> float:
        """Length of the frame's shift against the reference, in full-frame pixels."""
        (dx, dy), _ = cv2.phaseCorrelate(self.reference, self._small(frame_bgr), self.window)
        return float(np.hypot(dx, dy) * self.scale)


class GrybObserver:
    """Reads frames of one calibrated camera over the bandanna.

    ``calibration`` is a :class:`~calibration.gryb_calibfile.GrybCalibration` (anything
    with ``spec``, ``homography``, ``nodes_px``, ``image_size`` and ``reference_image()``).
    ``palette`` (two nominal ring colours) fixes which ring colour is 0 and which is 1;
    otherwise the calibration's, otherwise colours are numbered as first seen.
    Raises :class:`ReferenceMissingError` when the calibration has no reference picture.
    """

    def __init__(self, calibration: Any, *, palette: Sequence[RGB] | None = None) -> None:
        self.image_size = tuple(calibration.image_size)
        reference = calibration.reference_image()
        if reference is None:
            raise ReferenceMissingError(
                "the bandanna calibration has no picture of the empty bandanna; "
                "calibrate again from a picture without rings"
            )
        w, h = self.image_size
        if reference.shape[:2] != (h, w):
            reference = cv2.resize(reference, (w, h), interpolation=cv2.INTER_AREA)
        self._prepare(calibration)
        ref_px = reference.reshape(-1, 3)[self._positions].astype(np.float32)
        self._ref_px = ref_px
        self._ref_features = features(ref_px)
        self._ref_core_features = features(ref_px[self._core].mean(axis=1))
        if palette is None:
            palette = getattr(calibration, "palette_rgb", None)
        self.colours = RingColourModel(
            palette=[tuple(int(v) for v in c) for c in palette] if palette is not None else None,
            reference_balance=grey_world(ref_px[self._grid]),
        )
        self._previous_grey: np.ndarray | None = None
        self._shift = ShiftMeter(reference)
        self._last_drift: float | None = None
        self._frames_since_drift = 0

    # ------------------------------------------------------------------ setup

    def _prepare(self, calibration: Any) -> None:
        """Sample positions per node (core, band) and a grid over the cloth, as flat pixel indices."""
        w, h = self.image_size
        spec = calibration.spec
        homography = np.asarray(calibration.homography, np.float64)
        nodes_mm = spec.node_positions()
        nodes_px = np.asarray(calibration.nodes_px, np.float64)
        # Local linear map mm -> px at each node from the homography (wrinkles move nodes, the
        # refined positions carry that; the scale and slant change slowly).
        base = apply_homography(homography, nodes_mm)
        jx = apply_homography(homography, nodes_mm + [1.0, 0.0]) - base
        jy = apply_homography(homography, nodes_mm + [0.0, 1.0]) - base

        def place(offsets_mm: np.ndarray) -> np.ndarray:
            px = (
                nodes_px[:, None, :]
                + offsets_mm[None, :, 0:1] * jx[:, None, :]
                + offsets_mm[None, :, 1:2] * jy[:, None, :]
            )
            col = np.clip(np.round(px[..., 0]).astype(np.int64), 0, w - 1)
            row = np.clip(np.round(px[..., 1]).astype(np.int64), 0, h - 1)
            return row * w + col

        core = place(_circle_offsets(CORE_RADII_MM, 8))
        band = place(_circle_offsets(BAND_RADII_MM, BAND_ANGLES))
        # A grid over the cloth (corner leaves plus a ring's width) for hands and motion.
        half = sum(spec.level_offsets) + spec.ring_outer_diameter
        outline = apply_homography(
            homography, np.array([[-half, half], [half, half], [half, -half], [-half, -half]])
        )
        x0, y0 = np.clip(np.floor(outline.min(axis=0)).astype(int), 0, [w - 1, h - 1])
        x1, y1 = np.clip(np.ceil(outline.max(axis=0)).astype(int), 1, [w, h])
        step = max(1, int(np.ceil(np.sqrt((x1 - x0) * (y1 - y0) / GRID_SAMPLES))))
        gy, gx = np.mgrid[y0:y1:step, x0:x1:step]
        self._grid_shape = gy.shape
        self._grid_step = step
        inside = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(inside, np.round(outline).astype(np.int32), 1)
        self._grid_on_cloth = inside[gy, gx].ravel().astype(bool)
        grid_flat = (gy * w + gx).ravel()
        # Nearest node of every grid sample, in cloth millimetres (rings explain what is near them).
        inverse = np.linalg.inv(homography)
        grid_mm = apply_homography(
            inverse, np.column_stack([gx.ravel(), gy.ravel()]).astype(np.float64)
        )
        d = np.linalg.norm(grid_mm[:, None, :] - nodes_mm[None, :, :], axis=2)
        self._grid_node = np.argmin(d, axis=1)
        self._grid_near = d[np.arange(len(d)), self._grid_node] < EXPLAINED_MM
        positions, inverse_index = np.unique(
            np.concatenate([core.ravel(), band.ravel(), grid_flat]), return_inverse=True
        )
        self._positions = positions
        n_core, n_band = core.size, band.size
        self._core = inverse_index[:n_core].reshape(core.shape)
        self._band = inverse_index[n_core : n_core + n_band].reshape(band.shape)
        self._grid = inverse_index[n_core + n_band :]
        self.ring_area_px = (
            float(np.mean(np.abs(jx[:, 0] * jy[:, 1] - jx[:, 1] * jy[:, 0])))
            * np.pi
            * (spec.ring_outer_diameter / 2) ** 2
        )

    def _check_frame(self, frame: Any) -> np.ndarray:
        return check_frame(frame, self.image_size)

    # ------------------------------------------------------------------ per frame

    def observe(self, frame_bgr: np.ndarray, *, compare_previous: bool = True) -> Observation:
        """Read one BGR frame. Raises :class:`~vision.observation.FrameError` for a frame of the
        wrong shape or type; a blank picture gives an observation with ``quality`` 0.

        ``compare_previous`` (camera streams) counts motion since the previous frame as a
        hand; unrelated still pictures pass ``False``.
        """
        frame = self._check_frame(frame_bgr)
        px = frame.reshape(-1, 3)[self._positions].astype(np.float32)
        grey = px[self._grid].mean(axis=1)
        if float(grey.std()) < 2.0:
            self._previous_grey = None
            return self._blind()
        moving = self._motion(grey) if compare_previous else False
        gain = channel_gain(px[self._grid[::3]], self._ref_px[self._grid[::3]])
        balanced = px / gain
        feats = features(balanced)
        distance = _distance(feats, self._ref_features)
        changed = distance > FOREGROUND_DISTANCE
        # A ring replaces the whole band, so a smaller change per sample is enough there
        # (a white ring on a light cloth differs mostly in a little brightness and tint).
        band_changed = distance[self._band] > BAND_CHANGE
        band_fill = band_changed.mean(axis=1)
        core_change = _distance(
            features(balanced[self._core].mean(axis=1)), self._ref_core_features
        )
        covered = core_change >= CORE_HIDDEN
        accepted = (band_fill >= RING_FILL) & ~covered
        hand_blob, changed_fraction = self._hand(changed, accepted)
        hand_present = hand_blob or moving
        visibility = np.clip(
            0.5 + (CORE_HIDDEN - core_change) / CORE_HIDDEN, 0.0, 1.0
        )  # 0.5 at the limit
        probs = self._probabilities(
            balanced, band_changed, band_fill, accepted, learn=not hand_present
        )
        quality = float(np.clip((0.75 - changed_fraction) / 0.45, 0.0, 1.0))
        return Observation(
            probs=probs,
            visibility=visibility,
            hand_present=bool(hand_present),
            quality=quality,
            drift_px=self._drift(frame, every_frame=not compare_previous),
        )

    def _drift(self, frame: np.ndarray, *, every_frame: bool) -> float:
        """The picture's shift against the reference; in a stream measured every
        :data:`DRIFT_EVERY` frames (a camera or cloth moves rarely), the last value between."""
        self._frames_since_drift += 1
        if every_frame or self._last_drift is None or self._frames_since_drift >= DRIFT_EVERY:
            self._last_drift = self._shift.shift_px(frame)
            self._frames_since_drift = 0
        return self._last_drift

    def _blind(self) -> Observation:
        probs = np.zeros((N_NODES, 1 + RING_COLOURS))
        probs[:, 0] = 1.0
        return Observation(
            probs=probs, visibility=np.zeros(N_NODES), hand_present=False, quality=0.0
        )

    def _motion(self, grey: np.ndarray) -> bool:
        previous, self._previous_grey = self._previous_grey, grey
        if previous is None:
            return False
        moved = (np.abs(grey - previous) > MOTION_LEVEL) & self._grid_on_cloth
        # Isolated samples flicker at printed edges (noise, JPEG); a moving thing covers neighbours.
        moved = cv2.morphologyEx(
            moved.reshape(self._grid_shape).astype(np.uint8),
            cv2.MORPH_OPEN,
            np.ones((2, 2), np.uint8),
        )
        return bool(moved.sum() * self._grid_step**2 > 0.5 * self.ring_area_px)

    def _hand(self, changed: np.ndarray, accepted: np.ndarray) -> tuple[bool, float]:
        """Is there a changed blob no ring explains, bigger than a few rings, on the cloth?"""
        explained = self._grid_near & accepted[self._grid_node]
        unexplained = changed[self._grid] & ~explained & self._grid_on_cloth
        on_cloth = max(int(self._grid_on_cloth.sum()), 1)
        changed_fraction = float(unexplained.sum()) / on_cloth
        min_cells = HAND_AREA_RINGS * self.ring_area_px / self._grid_step**2
        if unexplained.sum() < min_cells:
            return False, changed_fraction
        grid = cv2.morphologyEx(
            unexplained.reshape(self._grid_shape).astype(np.uint8),
            cv2.MORPH_OPEN,
            np.ones((2, 2), np.uint8),
        )
        n, _, stats, _ = cv2.connectedComponentsWithStats(grid, connectivity=8)
        largest = stats[1:, cv2.CC_STAT_AREA].max() if n > 1 else 0
        return bool(largest >= min_cells), changed_fraction

    def _probabilities(
        self,
        balanced: np.ndarray,
        band_changed: np.ndarray,
        band_fill: np.ndarray,
        accepted: np.ndarray,
        *,
        learn: bool,
    ) -> np.ndarray:
        """Ring probability from the band's fill; colour from the mean of its changed samples."""
        n = band_changed.sum(axis=1)
        # Average the colours first: one dark pixel's tint is mostly noise.
        mean = features(
            (balanced[self._band] * band_changed[..., None]).sum(axis=1) / np.maximum(n, 1)[:, None]
        )
        readable = accepted & (n >= 3)
        if learn and readable.any():
            self.colours.learn(mean[readable])
        p_ring = _sigmoid((band_fill - RING_FILL) / FILL_SOFTNESS)
        p_ring[~accepted] = np.minimum(
            p_ring[~accepted], 0.45
        )  # a covered node is not read as a ring
        probs = np.zeros((N_NODES, 1 + RING_COLOURS))
        probs[:, 0] = 1.0 - p_ring
        keys, protos = self.colours.prototype_array()
        if len(keys) == 0:
            probs[:, 1:] = p_ring[:, None] / RING_COLOURS
            return probs
        probs[:, 1 + keys] = p_ring[:, None] * colour_shares(ring_distance(mean, protos))
        return probs


def analyze_bandanna(
    calibration: Any,
    image_bgr: np.ndarray,
    palette: Sequence[RGB] | None = None,
    *,
    observer: GrybObserver | None = None,
) -> dict:
    """Read one still picture: ``{"rings": {"GGBY": 0, ...}, "hidden": [...], "hand": bool}``.

    Pass the same ``observer`` for a series of pictures so that learned ring colour
    numbers stay the same across them. Raises :class:`~vision.observation.FrameError`
    for an image of the wrong size or type.
    """
    reader = observer or GrybObserver(calibration, palette=palette)
    observation = reader.observe(image_bgr, compare_previous=False)
    return {
        "rings": {
            node_name(NODES[i]): colour for i, colour in sorted(observation.tokens().items())
        },
        "hidden": [node_name(NODES[i]) for i in observation.hidden()],
        "hand": observation.hand_present,
    }
