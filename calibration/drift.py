"""Has the camera moved since calibration? Compare a frame with the empty-board reference.

A bumped tripod mostly tilts the camera, which moves the whole image by a
homography. The detector aligns a small grey copy of the frame with the
reference over the board's region (where the printed markings give texture)
with ECC, coarse to fine, and measures how far that alignment moves the
landmarks. A small move is re-fitted: the landmarks are carried through the
homography, then each crossing of the printed grids (400 points of known
position on the four tiers) is tracked from the reference into the frame with
pyramidal Lucas-Kanade starting from there, and the pose is solved again
(RANSAC, same intrinsics): this handles the parallax between tiers that a
single homography cannot. The pose is finally snapped to the crossings found
in the frame itself (:func:`calibration.refine.refine_pose`). A move too large
to trust, or an alignment that fails, asks for recalibration.

It costs a few milliseconds on a 320-pixel-wide image, and the runtime only
calls it every few seconds.
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.calibfile import Calibration, CalibrationError
from calibration.camera import CameraModel
from calibration.markings import grid_crossings, thin_lines
from calibration.refine import refine_pose
from calibration.refraction import apparent_points, through_plates
from calibration.spec import TimeVectorsSpec

logger = logging.getLogger(__name__)


class DriftStatus(enum.Enum):
    """What a drift check concluded."""

    STEADY = "steady"  # the camera is where the calibration says
    REFIT = "refit"  # it moved a little; ``refit`` holds the corrected camera
    LOST = "lost"  # it moved too much or the board is not recognisable: recalibrate


@dataclass(frozen=True)
class DriftResult:
    """``shift_px``: median displacement of the board points (full-size pixels), not
    meaningful when the board was not recognised; ``ok``: no meaningful move."""

    shift_px: float
    ok: bool
    refit: CameraModel | None
    status: DriftStatus
    correlation: float

    @property
    def needs_recalibration(self) -> bool:
        """The board moved beyond what can be re-fitted from the reference."""
        return self.status is DriftStatus.LOST


def _grey(image_bgr: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY) if image_bgr.ndim == 3 else image_bgr
    small = cv2.resize(grey, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    return cv2.GaussianBlur(small, (0, 0), 1.0)


def _scaled(h: np.ndarray, factor: float) -> np.ndarray:
    s = np.diag([factor, factor, 1.0])
    return s @ h @ np.linalg.inv(s)


class DriftDetector:
    """Precomputes the reference pyramid and board mask once per calibration.

    ``tolerance_px`` is the landmark shift (full-size pixels) still counted as
    steady; shifts up to ``max_refit_fraction`` of the image width are re-fitted.
    """

    def __init__(
        self,
        camera: CameraModel,
        spec: TimeVectorsSpec,
        reference_bgr: np.ndarray,
        *,
        work_width: int = 320,
        tolerance_px: float = 2.0,
        max_refit_fraction: float = 0.08,
        min_correlation: float = 0.6,
    ) -> None:
        w, h = camera.image_size
        self.camera = camera
        self.spec = spec
        self.scale = work_width / w
        self.work_size = (work_width, max(1, round(h * self.scale)))
        self.tolerance_px = tolerance_px
        self.max_refit_px = max_refit_fraction * w
        self.min_correlation = min_correlation
        self.points_mm = grid_crossings(spec)
        self.points_px = through_plates(camera, spec).project(self.points_mm)
        inside = ((self.points_px >= 0) & (self.points_px < [w, h])).all(axis=1)
        self.points_mm, self.points_px = self.points_mm[inside], self.points_px[inside]
        self.track_scale = min(1.0, 640 / w, reference_bgr.shape[1] / w)
        track_size = (round(w * self.track_scale), round(h * self.track_scale))
        self.track_reference = thin_lines(
            cv2.resize(reference_bgr, track_size, interpolation=cv2.INTER_AREA)
        )
        corners = np.vstack([spec.plate_corners(t) for t in range(4)])
        hull = cv2.convexHull((camera.project(corners) * self.scale).astype(np.float32)).astype(
            np.int32
        )
        mask = np.zeros(self.work_size[::-1], np.uint8)
        cv2.fillConvexPoly(mask, hull, 255)
        self.levels = (4, 2, 1)  # pyramid factors, coarse to fine
        self.reference = [self._level(_grey(reference_bgr, self.work_size), f) for f in self.levels]
        self.masks = [self._level(mask, f) for f in self.levels]

    @classmethod
    def for_calibration(
        cls, calibration: Calibration, base_dir: str | Path | None = None, **options: float
    ) -> DriftDetector:
        """A detector for a calibration's camera and empty-board reference.

        Raises :class:`CalibrationError` when the calibration has no reference image.
        """
        reference = calibration.reference_image(base_dir)
        if reference is None:
            raise CalibrationError(
                "this calibration has no reference image of the empty board, so camera "
                "movement cannot be checked; recalibrate with an image"
            )
        return cls(calibration.camera, calibration.spec, reference, **options)

    @staticmethod
    def _level(image: np.ndarray, factor: int) -> np.ndarray:
        if factor == 1:
            return image
        h, w = image.shape[:2]
        return cv2.resize(
            image, (max(1, w // factor), max(1, h // factor)), interpolation=cv2.INTER_AREA
        )

    def _align(self, frame_bgr: np.ndarray) -> tuple[np.ndarray, float]:
        """Homography from reference to frame pixels (work resolution) and its ECC correlation."""
        frame = _grey(frame_bgr, self.work_size)
        warp = np.eye(3, dtype=np.float32)
        correlation = 0.0
        criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 60, 1e-5)
        for index, factor in enumerate(self.levels):
            moving = self._level(frame, factor)
            motion = cv2.MOTION_EUCLIDEAN if index == 0 else cv2.MOTION_HOMOGRAPHY
            guess = warp if motion == cv2.MOTION_HOMOGRAPHY else warp[:2].copy()
            try:
                correlation, found = cv2.findTransformECC(
                    self.reference[index], moving, guess, motion, criteria, self.masks[index], 3
                )
            except cv2.error:
                return warp, 0.0
            warp = (
                found if found.shape == (3, 3) else np.vstack([found, [0, 0, 1]]).astype(np.float32)
            )
            if index + 1 < len(self.levels):
                warp = _scaled(warp.astype(np.float64), factor / self.levels[index + 1]).astype(
                    np.float32
                )
        return warp.astype(np.float64), float(correlation)

    def check(self, frame_bgr: np.ndarray) -> DriftResult:
        """Compare one frame with the reference; see :class:`DriftResult`."""
        warp, correlation = self._align(frame_bgr)
        full = _scaled(warp, 1.0 / self.scale)  # work pixels -> full-size pixels
        moved = cv2.perspectiveTransform(self.points_px.reshape(-1, 1, 2), full).reshape(-1, 2)
        shift = float(np.median(np.linalg.norm(moved - self.points_px, axis=1)))
        if correlation < self.min_correlation:
            logger.info("drift: board not recognised (correlation %.2f)", correlation)
            return DriftResult(shift, False, None, DriftStatus.LOST, correlation)
        if shift <= self.tolerance_px:
            return DriftResult(shift, True, None, DriftStatus.STEADY, correlation)
        if shift > self.max_refit_px:
            logger.info("drift: moved %.1f px, too far to re-fit", shift)
            return DriftResult(shift, False, None, DriftStatus.LOST, correlation)
        camera = self._refit(frame_bgr, moved)
        if camera is None:
            return DriftResult(shift, False, None, DriftStatus.LOST, correlation)
        # The re-fitted pose measures the move better than the image alignment did (tokens
        # that arrived since the reference can pull the alignment a few pixels).
        shift = float(
            np.median(
                np.linalg.norm(
                    through_plates(camera, self.spec).project(self.points_mm) - self.points_px,
                    axis=1,
                )
            )
        )
        if shift <= self.tolerance_px:
            return DriftResult(shift, True, None, DriftStatus.STEADY, correlation)
        logger.info("drift: moved %.1f px, re-fitted", shift)
        return DriftResult(shift, False, camera, DriftStatus.REFIT, correlation)

    def _refit(self, frame_bgr: np.ndarray, guess_px: np.ndarray) -> CameraModel | None:
        """New pose (same intrinsics) from the grid crossings tracked into the frame.

        Three rounds: each later one starts every crossing where the first pose puts it,
        so crossings of different tiers (which move apart when the camera shifts)
        start close to their own lines.
        """
        frame = thin_lines(
            cv2.resize(frame_bgr, self.track_reference.shape[::-1], interpolation=cv2.INTER_AREA)
        )
        camera = None
        for _ in range(3):
            camera = self._track_and_solve(frame, guess_px)
            if camera is None:
                return None
            guess_px = through_plates(camera, self.spec).project(self.points_mm)
        # Last, the pose that fits the printed grid in the frame itself (no tracking drift).
        return refine_pose(camera, frame_bgr, self.spec) or camera

    def _track_and_solve(self, frame: np.ndarray, guess_px: np.ndarray) -> CameraModel | None:
        cam = self.camera
        k = self.track_scale
        start = (self.points_px * k).astype(np.float32).reshape(-1, 1, 2)
        guess = (guess_px * k).astype(np.float32).reshape(-1, 1, 2)
        params = dict(
            winSize=(11, 11),
            maxLevel=2,
            criteria=(cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 0.01),
        )
        tracked, status, _ = cv2.calcOpticalFlowPyrLK(
            self.track_reference,
            frame,
            start,
            guess.copy(),
            flags=cv2.OPTFLOW_USE_INITIAL_FLOW,
            **params,
        )
        back, back_status, _ = cv2.calcOpticalFlowPyrLK(
            frame,
            self.track_reference,
            tracked,
            start.copy(),
            flags=cv2.OPTFLOW_USE_INITIAL_FLOW,
            **params,
        )
        good = (
            (status.reshape(-1) == 1)
            & (back_status.reshape(-1) == 1)
            & (np.linalg.norm((back - start).reshape(-1, 2), axis=1) < 0.5)
        )
        if good.sum() < 12:
            logger.info("drift: only %d grid crossings tracked", int(good.sum()))
            return None
        # Where the camera sees each crossing through the plates (a bump barely moves that).
        obj = apparent_points(self.points_mm[good], cam.centre_mm(), self.spec)
        img = tracked.reshape(-1, 2)[good].astype(np.float64) / k
        ok, rvec, tvec, inliers = cv2.solvePnPRansac(
            obj,
            img,
            cam.K,
            cam.dist,
            iterationsCount=300,
            reprojectionError=1.0 / k,
            flags=cv2.SOLVEPNP_SQPNP,
        )
        if not ok or inliers is None or len(inliers) < max(12, 0.3 * good.sum()):
            logger.info("drift: tracked crossings do not agree on a camera pose")
            return None
        inliers = inliers.reshape(-1)
        rvec, tvec = cv2.solvePnPRefineLM(obj[inliers], img[inliers], cam.K, cam.dist, rvec, tvec)
        return CameraModel(K=cam.K, dist=cam.dist, rvec=rvec, tvec=tvec, image_size=cam.image_size)
