"""Refine a clicked calibration from the printed grid itself.

Clicks are a few pixels off; the printed marking has 400 line crossings of
known position on the four tiers. Each crossing is projected with the clicked
camera and found nearby by matching a small drawing of its lines (a '+', or a
T or L at the grid's edges, in the directions the camera predicts) against an
image of thin lines. Crossings seen through other tiers can snap to the wrong
lines, so the camera is re-fitted robustly: residual outliers are dropped and
the fit repeated. If too few crossings agree the clicked camera is kept.

A calibration's refinement also fits the lens's radial distortion k1 and each
plate's twist on the post (:mod:`calibration.twist`), which the crossings tell
far better than the clicks; a bumped camera's refinement fits its pose alone.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.fit import (
    REFRACTION_ROUNDS,
    ClicksError,
    FitResult,
    fit_board,
    fit_correspondences,
    reprojection_errors,
    rms_px,
)
from calibration.markings import grid_crossings, thin_lines
from calibration.refraction import apparent_points, through_plates
from calibration.spec import TimeVectorsSpec
from calibration.twist import point_tiers, scan_twists

logger = logging.getLogger(__name__)

MIN_CROSSINGS = 60
# A plate's twist is fitted from its crossings only where at least this many of them (and of
# the bottom tier's) fit: fewer, seen small behind three plates, may all be stray lines.
MIN_TIER_CROSSINGS = 12
CONSENSUS_PX = 1.0  # a crossing this near where a fit puts it bears the fit out
FREER_MARGIN = 1.03  # how many more crossings must bear out a fit with more freedom
MIN_MATCH = 0.3  # normalised correlation of a crossing with its drawn template


def _arms(spec: TimeVectorsSpec, crossings: np.ndarray, step_mm: float) -> np.ndarray:
    """``(n, 4, 3)`` points ``step_mm`` along the plate's +x, -x, +y, -y from each crossing, NaN
    where the printed line ends there (corners of a grid are L shapes, its edges T shapes)."""
    half = spec.marking_half_size
    inner = half - 4 * spec.pitch

    def inside(v: np.ndarray) -> np.ndarray:
        a = np.abs(v)
        return (a >= inner - 1e-6) & (a <= half + 1e-6)

    tiers = point_tiers(crossings, spec)
    printed = np.empty((len(crossings), 2))  # each crossing in its plate's own frame
    for tier in range(4):
        on = tiers == tier
        printed[on] = spec.to_tier(tier, crossings[on, :2])
    out = np.full((len(crossings), 4, 3), np.nan)
    for k, (dx, dy) in enumerate(((1, 0), (-1, 0), (0, 1), (0, -1))):
        moved = printed + [dx * step_mm, dy * step_mm]
        ok = (
            inside(moved[:, 0])
            & inside(moved[:, 1])
            & (np.sign(moved) == np.sign(printed)).all(1)
        )
        for tier in range(4):
            on = ok & (tiers == tier)
            out[on, k, :2] = spec.on_tier(tier, moved[on])
            out[on, k, 2] = crossings[on, 2]
    return out


def _parabola_peak(left: float, centre: float, right: float) -> float:
    """Offset (-0.5..0.5) of the top of the parabola through three samples around a maximum."""
    curvature = left - 2 * centre + right
    if curvature >= 0:
        return 0.0
    return float(np.clip(0.5 * (left - right) / curvature, -0.5, 0.5))


def _snap(
    lines: np.ndarray,
    camera: CameraModel,
    spec: TimeVectorsSpec,
    crossings: np.ndarray,
    search: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Locate each crossing by matching a drawn '+' (or T, L) of the predicted line directions.

    Returns positions and a mask of crossings found with a clear match.
    """
    h, w = lines.shape
    camera = through_plates(camera, spec)  # a lower tier's crossings show shifted
    predicted = camera.project(crossings)
    arms = _arms(spec, crossings, 0.6 * spec.pitch)
    flat = arms.reshape(-1, 3)
    valid = ~np.isnan(flat[:, 0])
    arm_px = np.full((len(flat), 2), np.nan)
    arm_px[valid] = camera.project(flat[valid])
    arm_px = arm_px.reshape(-1, 4, 2)
    width_px = max(1, int(round(camera.K[0, 0] / max(float(np.linalg.norm(camera.tvec)), 1.0))))
    radius = 9
    size = 2 * radius + 1
    found = predicted.copy()
    kept = np.zeros(len(crossings), bool)
    for i, (centre, ends) in enumerate(zip(predicted, arm_px, strict=True)):
        x0, y0 = int(round(centre[0])) - radius - search, int(round(centre[1])) - radius - search
        if x0 < 0 or y0 < 0 or x0 + size + 2 * search > w or y0 + size + 2 * search > h:
            continue
        template = np.zeros((size, size), np.float32)
        offset = centre - np.round(centre) + radius  # the crossing inside the template, sub-pixel
        drawn = 0
        for end in ends:
            if np.isnan(end[0]):
                continue
            direction = (end - centre) / max(np.linalg.norm(end - centre), 1e-6)
            tip = offset + direction * (radius + 2)
            cv2.line(
                template,
                tuple(np.round(offset * 16).astype(int)),
                tuple(np.round(tip * 16).astype(int)),
                1.0,
                width_px,
                cv2.LINE_AA,
                4,
            )
            drawn += 1
        if drawn < 2:
            continue
        patch = lines[y0 : y0 + size + 2 * search, x0 : x0 + size + 2 * search]
        scores = cv2.matchTemplate(patch, template, cv2.TM_CCOEFF_NORMED)
        _, best, _, (bx, by) = cv2.minMaxLoc(scores)
        if best < MIN_MATCH or not (0 < bx < scores.shape[1] - 1 and 0 < by < scores.shape[0] - 1):
            continue
        # Parabolic sub-pixel peak.
        dx = _parabola_peak(scores[by, bx - 1], best, scores[by, bx + 1])
        dy = _parabola_peak(scores[by - 1, bx], best, scores[by + 1, bx])
        found[i] = predicted[i] + np.array([bx + dx - search, by + dy - search])
        kept[i] = True
    return found, kept


Solver = Callable[
    [np.ndarray, np.ndarray, CameraModel, TimeVectorsSpec],
    tuple[CameraModel, TimeVectorsSpec, np.ndarray],
]


def _solve_all(
    obj: np.ndarray, img: np.ndarray, camera: CameraModel, spec: TimeVectorsSpec
) -> tuple[CameraModel, TimeVectorsSpec, np.ndarray]:
    """Focal length, lens distortion k1, pose and the plates' twists (the calibration case).
    Hundreds of crossings across the picture tell k1, which four clicks a tier cannot: a
    barrel lens (k1 -0.35) left out put points 7.5 to 14 px off, refined with it 0.3 px."""
    return fit_board(
        obj, img, camera.image_size, spec, focal_near=camera.K[0, 0],
        min_points=MIN_TIER_CROSSINGS, min_f=0.0, fit_distortion=True,
    )


def _solve_rigid(
    obj: np.ndarray,
    img: np.ndarray,
    camera: CameraModel,
    spec: TimeVectorsSpec,
    *,
    fit_k1: bool = True,
) -> tuple[CameraModel, TimeVectorsSpec, np.ndarray]:
    """Focal length, pose (and with ``fit_k1`` the lens's k1), the plates held as ``spec`` has
    them: the crossings that snapped to stray lines are told by how far they lie off this
    fit, and a plate left free to turn would turn towards them."""
    camera, errors = fit_correspondences(
        obj, img, camera.image_size, focal_near=camera.K[0, 0], spec=spec, fit_distortion=fit_k1
    )
    return camera, spec, errors


def _solve_pose(
    obj: np.ndarray, img: np.ndarray, camera: CameraModel, spec: TimeVectorsSpec
) -> tuple[CameraModel, TimeVectorsSpec, np.ndarray]:
    """Pose only, the intrinsics kept (the camera was bumped, not changed); each crossing
    where the camera sees it through the plates, again from where the last pose says."""
    for _ in range(1 + REFRACTION_ROUNDS):
        seen = apparent_points(obj, camera.centre_mm(), spec)
        ok, rvec, tvec = cv2.solvePnP(
            seen,
            img,
            camera.K,
            camera.dist,
            camera.rvec.copy(),
            camera.tvec.copy(),
            useExtrinsicGuess=True,
            flags=cv2.SOLVEPNP_ITERATIVE,
        )
        if not ok:
            raise ClicksError("no pose fits the printed grid")
        camera = CameraModel(
            K=camera.K, dist=camera.dist, rvec=rvec, tvec=tvec, image_size=camera.image_size
        )
    return camera, spec, reprojection_errors(camera, obj, img, spec)


def _refine(
    camera: CameraModel,
    lines: np.ndarray,
    spec: TimeVectorsSpec,
    solvers: tuple[Solver, Solver],
    rounds: int,
) -> tuple[CameraModel, TimeVectorsSpec, float, dict[str, float]] | None:
    """Snap the crossings and re-solve, ``rounds`` times; ``None`` if too few crossings agree.
    ``solvers``: the first solves with every crossing found and tells the stray ones, the
    second solves again without them. ``lines``: the picture's thin lines, float32."""
    search = max(4, int(round(0.005 * max(camera.image_size))))
    result = None
    for _ in range(rounds):
        crossings = grid_crossings(spec)  # where the plates as last fitted put them
        found, kept = _snap(lines, camera, spec, crossings, search)
        if kept.sum() < MIN_CROSSINGS:
            logger.info("refine: only %d crossings found", int(kept.sum()))
            return result
        img = found[kept]
        try:
            candidate, built, errors = solvers[0](crossings[kept], img, camera, spec)
            # Crossings that snapped to another tier's lines do not fit: drop them and solve again.
            good = errors < max(1.0, 2.5 * float(np.median(errors)))
            if good.sum() < MIN_CROSSINGS:
                return result
            obj = grid_crossings(built)[kept][good]
            candidate, built, errors = solvers[1](obj, img[good], candidate, built)
        except ClicksError:
            return result
        camera, spec = candidate, built
        index = np.flatnonzero(kept)[good]
        rms = rms_px(errors)
        per_crossing = {f"crossing {i}": float(e) for i, e in zip(index, errors, strict=True)}
        result = (camera, spec, rms, per_crossing)
        logger.info("refine: %d crossings, rms %.2f px", len(index), rms)
        # Later rounds start closer, so they search less far and lock onto fewer stray lines
        # (wood grain, seams and other tiers' printing seen through the plates).
        search = max(2, search // 2)
    return result


def _better(last: tuple | None, freer: tuple | None) -> tuple | None:
    """The refinement ``freer`` (more free parameters) where it clearly beats ``last``."""

    if freer is None or (last is not None and _consensus(freer) <= FREER_MARGIN * _consensus(last)):
        return last
    return freer


def _consensus(refined: tuple) -> int:
    """How many crossings bear a refinement out (within CONSENSUS_PX of where it puts them)."""
    return sum(error < CONSENSUS_PX for error in refined[3].values())


def refine_with_markings(fit: FitResult, image_bgr: np.ndarray, *, rounds: int = 3) -> FitResult:
    """A better fit (focal length, lens distortion k1, pose and the plates' twists) from the
    printed grid crossings of the board ``fit`` found, or ``fit`` itself if they do not agree.

    The returned ``per_landmark_px`` is keyed by crossing (``"crossing 17"``);
    ``rms_px`` is over the crossings kept.
    """
    lines = thin_lines(image_bgr).astype(np.float32)
    # Hypotheses in turn, each with more freedom than the last: plates and lens as the clicks
    # have them; the lens's k1 free; then each plate turned as its lines say (scanned from the
    # best so far: a barrel lens left out bends a big tier's lines into a false turn) and free
    # to turn on. More freedom fits stray lines too, so a hypothesis replaces the last only
    # where clearly more crossings lie within CONSENSUS_PX of where it puts them.
    clicked_k1 = bool(fit.camera.dist[0])
    as_clicked = functools.partial(_solve_rigid, fit_k1=clicked_k1)
    best = _refine(fit.camera, lines, fit.spec, (as_clicked, as_clicked), rounds)
    if not clicked_k1:
        lens = _refine(fit.camera, lines, fit.spec, (_solve_rigid, _solve_rigid), rounds)
        best = _better(best, lens)
    camera, spec = scan_twists(*(best[:2] if best else (fit.camera, fit.spec)), lines)
    best = _better(best, _refine(camera, lines, spec, (_solve_rigid, _solve_all), rounds))
    if best is None:
        return fit
    camera, built, rms, per_crossing = best
    return FitResult(camera=camera, rms_px=rms, per_landmark_px=per_crossing, spec=built)


def refine_pose(
    camera: CameraModel, image_bgr: np.ndarray, spec: TimeVectorsSpec, *, rounds: int = 2
) -> CameraModel | None:
    """The pose that best fits the printed grid near where ``camera`` puts it (same
    intrinsics), or ``None`` if too few crossings agree."""
    lines = thin_lines(image_bgr).astype(np.float32)
    refined = _refine(camera, lines, spec, (_solve_pose, _solve_pose), rounds)
    return None if refined is None else refined[0]
