"""Plates turned on the post: the camera and each tier's twist fitted together.

Each plate of the real board hangs on the centre post alone and is lined up by eye (the
manual's assembly steps 4-10), so the tiers above the bottom one sit turned about the post
by a degree or two. Two degrees move a corner point 5 mm, a fifth of a point: a rigid board
model then cannot fit the 16 landmark clicks (a reprojection error the fit refuses), and a
fit to the printed crossings locks onto one tier and reports a small error while another
tier's points lie half a token off.

So the fit has three more unknowns, the twists of tiers Q, R and S against P (whose marking
is the board's frame): a rigid fit first (the global search of :mod:`calibration.fit`),
then Levenberg-Marquardt over focal length, pose and twists together, each point projected
through the plates as the camera sees it. A tier's twist is fitted only when its points
span enough of the tier to tell it (and P's do too); otherwise it keeps the twist given.
"""

from __future__ import annotations

import dataclasses
import logging

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.refraction import through_plates
from calibration.spec import MAX_TWIST_DEG, TimeVectorsSpec, turned_about_post

logger = logging.getLogger(__name__)

MIN_SPAN_MM = 100.0  # a tier's points must lie this far apart to tell its twist
MIN_POINTS = 4  # ... and be at least this many (a tier's 4 landmarks are enough)
# The twists are kept only when they explain the points clearly better than the rigid board:
# an F statistic (the rigid fit's extra squared error per twist, against the twisted fit's
# error per degree of freedom) above this. Noise alone gives about 1; a plate turned 0.3
# degrees, seen in the printed crossings, gives hundreds. Below it the board is taken for
# rigid, as the design says: a tier the camera sees only a few crossings of would otherwise
# turn with their mistakes (the bottom tier seen small through three plates).
MIN_F = 10.0
ANCHOR_WEIGHT = 1e4  # px per degree: holds the told plates' mean turn where P's frame has it
# The scan of each plate's twist over the printed lines: coarse steps over this range, then fine.
SCAN_RANGE_DEG = 6.0  # well inside the turn (about 9 degrees) that would line a grid up one pitch off
SCAN_STEPS_DEG = (0.25, 0.025)
SCAN_BLUR_PX = (2.5, 1.0)  # the lines widened for each scan, so a near miss still scores
# A coarse scan tells a turn only with a clear peak: inside the range, standing this share of
# its height above the scan's lowest score, and this share above the score of the plate as it
# is. A tier whose lines the camera hardly sees (the bottom one, small, behind three plates and
# over wood grain) scores flat, and its highest score lies anywhere, at the range's end as
# often as not, or on a broad hump a degree from the truth (1.4% above the plate as it was:
# bench calibration scene 1, 1280x960; a plate truly turned 0.75 degrees scored 3.8% more).
SCAN_MIN_PROMINENCE = 0.1
SCAN_MIN_GAIN = 0.02
MAX_ROUNDS = 40
STEPS = {"focal": 1e-5, "rvec": 1e-6, "tvec": 1e-3, "twist": 1e-4, "k1": 1e-6}  # Jacobian steps


def point_tiers(points_mm: np.ndarray, spec: TimeVectorsSpec) -> np.ndarray:
    """``(n,)`` the tier whose plate each board point lies on (by its height)."""
    z = np.asarray(points_mm, np.float64).reshape(-1, 3)[:, 2]
    return np.clip(np.round(z / spec.tier_spacing), 0, 3).astype(int)


def carried(points_mm: np.ndarray, tiers: np.ndarray, turn_deg: np.ndarray) -> np.ndarray:
    """Board points turned about the post with their plates, by ``turn_deg[tier]`` each."""
    points = np.array(points_mm, np.float64).reshape(-1, 3)
    points[:, :2] = turned_about_post(points[:, :2], np.asarray(turn_deg, np.float64)[tiers])
    return points


def telling_tiers(
    points_mm: np.ndarray, spec: TimeVectorsSpec, min_points: int = MIN_POINTS
) -> tuple[list[int], bool]:
    """The tiers above P whose twist these points tell (at least ``min_points`` of them,
    spanning :data:`MIN_SPAN_MM`), and whether P's points tell P's own."""
    points = np.asarray(points_mm, np.float64).reshape(-1, 3)
    tiers = point_tiers(points, spec)

    def spans(tier: int) -> bool:
        xy = points[tiers == tier, :2]
        return len(xy) >= min_points and float(np.ptp(xy, axis=0).max()) >= MIN_SPAN_MM

    return [t for t in (1, 2, 3) if spans(t)], spans(0)


def fit_with_twists(
    camera: CameraModel,
    spec: TimeVectorsSpec,
    object_mm: np.ndarray,
    image_px: np.ndarray,
    *,
    fit_k1: bool = False,
    min_points: int = MIN_POINTS,
    min_f: float = MIN_F,
) -> tuple[CameraModel, TimeVectorsSpec, np.ndarray]:
    """Refine ``camera`` and the twists of ``spec``'s plates together from 3D-2D matches.

    ``object_mm`` are the points where ``spec`` puts them (turned with its plates). Returns
    the camera, the board as built (``spec`` with the fitted twists) and the points moved
    with their plates. A twist beyond :data:`~calibration.spec.MAX_TWIST_DEG` is no plate
    turned on its post (a wrong corner clicked, more likely): the twists given are kept.
    """
    obj = np.asarray(object_mm, np.float64).reshape(-1, 3)
    img = np.asarray(image_px, np.float64).reshape(-1, 2)
    tiers = point_tiers(obj, spec)
    free, anchored = telling_tiers(obj, spec, min_points)
    if len(free) < (1 if anchored else 2):
        return camera, spec, obj
    # Parameters: log focal length, rvec, tvec, the told plates' turns, and k1.
    names = ["focal"] + ["rvec"] * 3 + ["tvec"] * 3 + ["twist"] * len(free) + ["k1"] * fit_k1
    steps = np.array([STEPS[n] for n in names])
    start = np.concatenate(
        [[np.log(camera.K[0, 0])], camera.rvec, camera.tvec, np.zeros(len(free)),
         [camera.dist[0]] if fit_k1 else []]
    )

    def unpack(params: np.ndarray) -> tuple[CameraModel, np.ndarray]:
        K = camera.K.copy()
        K[0, 0] = K[1, 1] = np.exp(params[0])
        rvec, tvec = params[1:4], params[4:7]
        turn = np.zeros(4)
        turn[free] = params[7 : 7 + len(free)]
        dist = camera.dist.copy()
        if fit_k1:
            dist[0] = params[-1]
        moved = CameraModel(K=K, dist=dist, rvec=rvec, tvec=tvec, image_size=camera.image_size)
        return moved, turn

    def residuals(params: np.ndarray) -> np.ndarray:
        moved, turn = unpack(params)
        built = dataclasses.replace(
            spec, tier_twist_deg=tuple(float(v) for v in np.add(spec.tier_twist_deg, turn))
        )
        seen = through_plates(moved, built).project(carried(obj, tiers, turn))
        misfit = (seen - img).ravel()
        if anchored:
            return misfit
        # P's own points cannot hold the board's frame (a few, maybe stray lines): the told
        # plates turn against each other, their mean held where it was against P.
        return np.append(misfit, ANCHOR_WEIGHT * turn[free].mean())

    rigid = residuals(start)
    params = _levenberg_marquardt(residuals, start, steps)
    fitted, turn = unpack(params)
    twist = np.add(spec.tier_twist_deg, turn)
    if not np.all(np.abs(twist) <= MAX_TWIST_DEG) or not np.all(np.isfinite(params)):
        logger.info("plate twists %s are out of reach: the board is fitted rigid", np.round(twist, 2))
        return camera, spec, obj
    twisted = residuals(params)
    turns_told = len(free) if anchored else len(free) - 1  # (unanchored: their mean is held)
    spare = len(twisted) - len(params)
    f_statistic = (
        (float(rigid @ rigid) - float(twisted @ twisted)) / turns_told
        / max(float(twisted @ twisted) / max(spare, 1), 1e-12)
    )
    if f_statistic < min_f:
        logger.info("plate twists %s explain little (F %.1f): the board is fitted rigid",
                    np.round(twist, 2), f_statistic)
        return camera, spec, obj
    logger.info("plate twists (deg, P..S): %s (F %.0f)", np.round(twist, 3), f_statistic)
    return fitted, spec.twisted(tuple(twist)), carried(obj, tiers, turn)


def _levenberg_marquardt(residuals, start: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Least squares by Levenberg-Marquardt with a forward-difference Jacobian (a dozen
    parameters, a few hundred residuals: each round is a dozen projections)."""
    params = start.astype(np.float64).copy()
    r = residuals(params)
    cost = float(r @ r)
    damping = 1e-3
    for _ in range(MAX_ROUNDS):
        jacobian = np.empty((len(r), len(params)))
        for i, step in enumerate(steps):
            nudged = params.copy()
            nudged[i] += step
            jacobian[:, i] = (residuals(nudged) - r) / step
        normal = jacobian.T @ jacobian
        gradient = jacobian.T @ r
        improved = False
        while damping < 1e8:
            lhs = normal + damping * np.diag(np.maximum(np.diag(normal), 1e-12))
            try:
                delta = -np.linalg.solve(lhs, gradient)
            except np.linalg.LinAlgError:
                damping *= 10
                continue
            trial = params + delta
            r_trial = residuals(trial)
            trial_cost = float(r_trial @ r_trial)
            if np.isfinite(trial_cost) and trial_cost < cost:
                params, r, improved = trial, r_trial, True
                done = cost - trial_cost < 1e-10 * max(cost, 1e-12)
                cost = trial_cost
                damping = max(damping / 3, 1e-9)
                break
            damping *= 4
        if not improved or done:
            break
    return params


def scan_twists(
    camera: CameraModel, spec: TimeVectorsSpec, lines: np.ndarray
) -> tuple[CameraModel, TimeVectorsSpec]:
    """Each plate's twist found by turning its printed grid until it lies on the lines seen.

    ``lines`` is the image of thin lines (:func:`calibration.markings.thin_lines`). A fit to
    the clicks can hold a plate a degree or two wrong: a twist its four clicks could not
    tell from their error, or a rigid fit that matched the three plates above and left the
    bottom one 4 px off. The snapping of the printed crossings then searches a few pixels
    around the wrong place and finds the plates the fit already matched. So every tier,
    the bottom one too, is turned alone about the post over +-:data:`SCAN_RANGE_DEG`, its
    lines (seen through the plates above) scored by the line image under them, coarse then
    fine. The turns are then told against the bottom tier's, whose frame is the board's:
    the camera turns with that one.
    """
    from calibration.markings import grid_lines

    turns = np.zeros(4)
    widened = [cv2.GaussianBlur(lines, (0, 0), blur) for blur in SCAN_BLUR_PX]
    for tier in range(4):
        printed = np.vstack(grid_lines(spec, tier))
        centre = 0.0
        for round_index, (step, seen) in enumerate(zip(SCAN_STEPS_DEG, widened)):
            span = SCAN_RANGE_DEG if round_index == 0 else SCAN_STEPS_DEG[0]
            angles = centre + np.arange(-span, span + step / 2, step)
            scores = np.array([_line_score(seen, camera, spec, tier, printed, a) for a in angles])
            best = int(np.argmax(scores))
            if round_index == 0 and not _clear_peak(scores, best, scores[len(scores) // 2]):
                break  # this tier's lines tell nothing: it keeps the twist it has
            centre = float(angles[best])
        turns[tier] = centre
    logger.info("scanned plate turns (deg, P..S): %s", np.round(turns, 3))
    frame = turns[0]
    relative = turns - frame
    built = dataclasses.replace(
        spec, tier_twist_deg=tuple(float(v) for v in np.add(spec.tier_twist_deg, relative))
    )
    # Points of the board frame turned by ``frame`` are where the old frame's points were.
    angle = np.radians(frame)
    c, s = np.cos(angle), np.sin(angle)
    turn = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    rotation = cv2.Rodrigues(camera.rvec)[0] @ turn
    turned = dataclasses.replace(camera, rvec=cv2.Rodrigues(rotation)[0].reshape(3))
    return turned, built


def _clear_peak(scores: np.ndarray, best: int, unturned: float) -> bool:
    """Whether a coarse scan's highest score ``best`` is a peak that beats the plate's score as
    it is, ``unturned`` (see SCAN_MIN_PROMINENCE and SCAN_MIN_GAIN)."""
    inside = 0 < best < len(scores) - 1
    top, low = float(scores[best]), float(scores.min())
    return (
        inside
        and top > 0
        and (top - low) / top >= SCAN_MIN_PROMINENCE
        and (top - unturned) / top >= SCAN_MIN_GAIN
    )


def _line_score(
    lines: np.ndarray,
    camera: CameraModel,
    spec: TimeVectorsSpec,
    tier: int,
    printed: np.ndarray,
    turn_deg: float,
) -> float:
    """Mean line image under tier ``tier``'s ``printed`` lines (points along them where
    ``spec`` has them), its plate turned ``turn_deg`` more; samples outside the image count as
    no line."""
    twist = list(spec.tier_twist_deg)
    twist[tier] += turn_deg
    turned = dataclasses.replace(spec, tier_twist_deg=tuple(twist))
    points = carried(printed, np.full(len(printed), tier), np.eye(1, 4, tier)[0] * turn_deg)
    px = through_plates(camera, turned).project(points)
    h, w = lines.shape
    u, v = np.round(px[:, 0]).astype(int), np.round(px[:, 1]).astype(int)
    inside = (u >= 0) & (u < w) & (v >= 0) & (v < h)
    if not inside.any():
        return 0.0
    return float(lines[v[inside], u[inside]].sum()) / len(px)
