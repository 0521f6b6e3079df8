"""Camera model from the 16 clicked landmarks (4 outer marking corners on each of 4 tiers).

The tiers are 105 mm apart, so the landmarks are not coplanar and one view fixes
the focal length as well as the pose. The principal point is taken at the image
centre with square pixels (true of every camera module the product targets);
the focal length is found by a 1-D search whose cost is the reprojection error
of the best pose for that focal length (``cv2.solvePnP``), which is smooth and
has one clear minimum. Radial distortion ``k1`` can be fitted on top.

Clicks are validated before fitting so that a person gets a message that says
what is wrong with the clicks (a missing or duplicated tier, swapped or rotated
corners, a point off the image) rather than a bad camera.
"""

from __future__ import annotations

import logging
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration import twist
from calibration.camera import CameraModel
from calibration.jsonfile import JsonFileError, read_json_file
from calibration.refraction import apparent_points, plates_crossed, through_plates
from calibration.spec import CORNERS, TimeVectorsSpec
from rules.timevectors.points import TIER_LETTERS

logger = logging.getLogger(__name__)

Clicks = dict[str, dict[str, tuple[float, float]]]

DEFAULT_MAX_RMS_PX = 8.0
REFRACTION_ROUNDS = 2  # fits again from where the last fit says points seen through plates show
EDGE_MM = 2.0  # a point seen this near a plate's edge may be seen through that plate or past it
EDGE_FLIPS_ALONE = 4  # up to this many such points are also tried one at a time


class ClicksError(ValueError):
    """Landmark clicks that cannot be a view of the board (the message says why)."""


@dataclass(frozen=True)
class FitResult:
    """The fitted camera, its RMS reprojection error, the error at each landmark ("Q.NE")
    and the board as built (the spec with its plates' fitted twists)."""

    camera: CameraModel
    rms_px: float
    per_landmark_px: dict[str, float]
    spec: TimeVectorsSpec


# -- parsing and validation ---------------------------------------------------------------
def parse_clicks(data: object) -> Clicks:
    """Check the structure of decoded clicks JSON and return it with float pairs.

    Raises :class:`ClicksError` for anything but ``{"P": {"NW": [u, v], ...}, ...}``
    with the four tiers and four corners each.
    """
    if not isinstance(data, Mapping):
        raise ClicksError('clicks must be an object like {"P": {"NW": [u, v], ...}, "Q": ...}')
    unknown = sorted(set(data) - set(TIER_LETTERS))
    if unknown:
        raise ClicksError(f"unknown tier(s) {', '.join(map(str, unknown))}: tiers are P, Q, R, S")
    clicks: Clicks = {}
    for tier in TIER_LETTERS:
        if tier not in data:
            raise ClicksError(
                f"tier {tier} is missing: click the 4 outer marking corners of every tier"
            )
        corners = data[tier]
        if not isinstance(corners, Mapping):
            raise ClicksError(f"tier {tier} must map NW, NE, SE, SW to [u, v]")
        extra = sorted(set(corners) - set(CORNERS))
        if extra:
            raise ClicksError(
                f"tier {tier}: unknown corner(s) {', '.join(map(str, extra))} (use NW, NE, SE, SW)"
            )
        clicks[tier] = {}
        for corner in CORNERS:
            if corner not in corners:
                raise ClicksError(f"tier {tier} is missing corner {corner}")
            value = corners[corner]
            pixel = as_pixel(value)
            if pixel is None:
                raise ClicksError(
                    f"{tier}.{corner} must be two finite numbers [u, v], not {value!r}"
                )
            clicks[tier][corner] = pixel
    return clicks


def as_pixel(value: object) -> tuple[float, float] | None:
    """A clicked pixel ``[u, v]`` as two floats, or ``None`` when it is not two finite numbers."""
    if (
        not isinstance(value, (list, tuple, np.ndarray))
        or len(value) != 2
        or not all(isinstance(c, numbers.Real) and not isinstance(c, bool) for c in value)
        or not all(math.isfinite(c) for c in value)
    ):
        return None
    return float(value[0]), float(value[1])


def load_clicks(path: str | Path) -> Clicks:
    """Read and parse a clicks JSON file; raises :class:`ClicksError` with the reason."""
    try:
        data = read_json_file(path, "clicks file")
    except JsonFileError as exc:
        raise ClicksError(str(exc)) from exc
    return parse_clicks(data)


def _quad(clicks: Clicks, tier: str) -> np.ndarray:
    return np.array([clicks[tier][c] for c in CORNERS], dtype=np.float64)


def _cross(a: np.ndarray, b: np.ndarray) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def validate_clicks(clicks: Clicks, image_size: tuple[int, int]) -> None:
    """Refuse clicks that cannot be the board; raises :class:`ClicksError` naming the problem."""
    w, h = image_size
    for tier in TIER_LETTERS:
        for corner in CORNERS:
            u, v = clicks[tier][corner]
            if not (0 <= u < w and 0 <= v < h):
                raise ClicksError(f"{tier}.{corner} ({u:.1f}, {v:.1f}) is off the {w}x{h} image")
    diagonal = math.hypot(w, h)
    for tier in TIER_LETTERS:
        quad = _quad(clicks, tier)
        edges = np.roll(quad, -1, axis=0) - quad
        turns = [_cross(edges[i], edges[(i + 1) % 4]) for i in range(4)]
        if min(np.linalg.norm(edges, axis=1)) < 0.01 * diagonal:
            raise ClicksError(f"tier {tier}: two corners are (almost) the same pixel")
        if all(t < 0 for t in turns):
            raise ClicksError(
                f"tier {tier}: corners go anticlockwise on screen; seen from above the board "
                "NW, NE, SE, SW go clockwise (east and west, or north and south, are mixed up)"
            )
        if not all(t > 0 for t in turns):
            raise ClicksError(
                f"tier {tier}: the corners cross over or fold in (two neighbouring corners are "
                "swapped, e.g. NW and NE)"
            )
    letters = list(TIER_LETTERS)
    for i, a in enumerate(letters):
        for b in letters[i + 1 :]:
            gap = np.linalg.norm(_quad(clicks, a) - _quad(clicks, b), axis=1).mean()
            if gap < 0.01 * diagonal:
                raise ClicksError(
                    f"tiers {a} and {b} have the same corners: was one tier clicked twice?"
                )
    shapes = {t: _normalised(_quad(clicks, t)) for t in letters}
    for tier in letters:
        others = [o for o in letters if o != tier]
        # The cyclic relabelling of this tier's corners that best matches each other tier's shape.
        shifts = [
            min(
                range(4),
                key=lambda k: float(np.sum((np.roll(shapes[tier], -k, axis=0) - shapes[o]) ** 2)),
            )
            for o in others
        ]
        if all(k != 0 for k in shifts):
            raise ClicksError(
                f"tier {tier}: its corners are rotated against the other tiers "
                "(NW must be the same corner of the board on every tier)"
            )


def _normalised(quad: np.ndarray) -> np.ndarray:
    """A quadrilateral moved to its centroid and scaled to unit size, to compare shapes."""
    centred = quad - quad.mean(axis=0)
    return centred / max(float(np.sqrt(np.mean(np.sum(centred**2, axis=1)))), 1e-9)


# -- fitting -------------------------------------------------------------------------------
def _object_points(spec: TimeVectorsSpec) -> np.ndarray:
    return np.array([spec.landmarks(t)[c] for t in range(4) for c in CORNERS], dtype=np.float64)


def _image_points(clicks: Clicks) -> np.ndarray:
    return np.array([clicks[t][c] for t in TIER_LETTERS for c in CORNERS], dtype=np.float64)


def _intrinsics(focal: float, image_size: tuple[int, int]) -> np.ndarray:
    w, h = image_size
    return np.array([[focal, 0, w / 2], [0, focal, h / 2], [0, 0, 1]], dtype=np.float64)


def _pose_for_focal(
    obj: np.ndarray, img: np.ndarray, K: np.ndarray, dist: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """Best pose for fixed intrinsics and its RMS reprojection error (inf if it fails)."""
    ok, rvec, tvec = cv2.solvePnP(obj, img, K, dist, flags=cv2.SOLVEPNP_SQPNP)
    if not ok:
        return math.inf, np.zeros(3), np.zeros(3)
    rvec, tvec = cv2.solvePnPRefineLM(obj, img, K, dist, rvec, tvec)
    projected, _ = cv2.projectPoints(obj, rvec, tvec, K, dist)
    rms = float(np.sqrt(np.mean(np.sum((projected.reshape(-1, 2) - img) ** 2, axis=1))))
    return rms, rvec.reshape(3), tvec.reshape(3)


def _search_focal(
    obj: np.ndarray, img: np.ndarray, image_size: tuple[int, int], near: float | None = None
) -> float:
    """Focal length minimising the reprojection error: coarse log grid (or a bracket around
    ``near``), then golden section."""
    w = image_size[0]
    zero = np.zeros(5)
    if near is None:
        grid = np.geomspace(0.25 * w, 6.0 * w, 48)
        costs = [_pose_for_focal(obj, img, _intrinsics(f, image_size), zero)[0] for f in grid]
        best = int(np.argmin(costs))
        lo, hi = math.log(grid[max(best - 1, 0)]), math.log(grid[min(best + 1, len(grid) - 1)])
    else:
        lo, hi = math.log(0.9 * near), math.log(1.1 * near)

    def cost(log_f: float) -> float:
        return _pose_for_focal(obj, img, _intrinsics(math.exp(log_f), image_size), zero)[0]

    ratio = (math.sqrt(5) - 1) / 2
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = cost(a), cost(b)
    for _ in range(40 if near is None else 25):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = cost(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = cost(b)
    return math.exp(0.5 * (lo + hi))


def _refine_distortion(
    obj: np.ndarray,
    img: np.ndarray,
    K: np.ndarray,
    image_size: tuple[int, int],
    rvec: np.ndarray,
    tvec: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Let ``calibrateCamera`` free the focal length and ``k1`` around the current solution."""
    flags = (
        cv2.CALIB_USE_INTRINSIC_GUESS
        | cv2.CALIB_FIX_PRINCIPAL_POINT
        | cv2.CALIB_FIX_ASPECT_RATIO
        | cv2.CALIB_ZERO_TANGENT_DIST
        | cv2.CALIB_FIX_K2
        | cv2.CALIB_FIX_K3
    )
    _, K2, dist, rvecs, tvecs = cv2.calibrateCamera(
        [obj.astype(np.float32)],
        [img.astype(np.float32)],
        image_size,
        K.copy(),
        np.zeros(5),
        rvecs=[rvec.reshape(3, 1).copy()],
        tvecs=[tvec.reshape(3, 1).copy()],
        flags=flags,
    )
    return K2, dist.reshape(-1), rvecs[0].reshape(3), tvecs[0].reshape(3)


def fit_correspondences(
    object_mm: np.ndarray,
    image_px: np.ndarray,
    image_size: tuple[int, int],
    *,
    fit_distortion: bool = False,
    focal_near: float | None = None,
    spec: TimeVectorsSpec | None = None,
) -> tuple[CameraModel, np.ndarray]:
    """Fit a camera to any set of non-coplanar 3D-2D correspondences (at least 6).

    ``focal_near`` (pixels) searches the focal length within 10% of it instead of
    everywhere. With ``spec``, the points are seen through its plates: each is fitted
    where the camera sees it (see :mod:`calibration.refraction`), which depends on the
    camera, so the fit is made again from where the last one says they show.
    Returns the camera and the reprojection error of each correspondence in pixels.
    Raises :class:`ClicksError` when there are too few points or no pose fits them.
    """
    obj = np.asarray(object_mm, dtype=np.float64).reshape(-1, 3)
    camera = _fit(obj, image_px, image_size, fit_distortion, focal_near)
    if spec is None:
        return camera, np.linalg.norm(camera.project(obj) - np.reshape(image_px, (-1, 2)), axis=1)
    for _ in range(REFRACTION_ROUNDS):
        seen = apparent_points(obj, camera.centre_mm(), spec)
        camera = _fit(seen, image_px, image_size, fit_distortion, camera.K[0, 0])
    camera = _settle_plate_edges(camera, obj, image_px, image_size, fit_distortion, spec)
    return camera, reprojection_errors(camera, obj, image_px, spec)


def fit_board(
    object_mm: np.ndarray,
    image_px: np.ndarray,
    image_size: tuple[int, int],
    spec: TimeVectorsSpec,
    *,
    fit_distortion: bool = False,
    focal_near: float | None = None,
    min_points: int = twist.MIN_POINTS,
    min_f: float = twist.MIN_F,
) -> tuple[CameraModel, TimeVectorsSpec, np.ndarray]:
    """The camera and the board as built from points fixed on its plates (landmarks, printed
    crossings, marker corners) where ``spec`` puts them: the rigid fit of
    :func:`fit_correspondences`, then the plates' twists fitted with it
    (:func:`calibration.twist.fit_with_twists`, which ``min_points`` and ``min_f`` go to).
    Returns ``(camera, built spec, error per point in pixels)``; raises :class:`ClicksError`
    like :func:`fit_correspondences`."""
    camera, _ = fit_correspondences(
        object_mm, image_px, image_size, fit_distortion=fit_distortion, focal_near=focal_near,
        spec=spec,
    )
    camera, built, moved = twist.fit_with_twists(
        camera, spec, object_mm, image_px, fit_k1=fit_distortion, min_points=min_points,
        min_f=min_f,
    )
    if built is not spec:  # the turned plates' edges lie elsewhere: settle on them again
        camera = _settle_plate_edges(camera, moved, image_px, image_size, fit_distortion, built)
    return camera, built, reprojection_errors(camera, moved, image_px, built)


def _settle_plate_edges(
    camera: CameraModel,
    object_mm: np.ndarray,
    image_px: np.ndarray,
    image_size: tuple[int, int],
    fit_distortion: bool,
    spec: TimeVectorsSpec,
) -> CameraModel:
    """``camera``, or a better one where it may have settled on the wrong side of a plate's edge.

    Each round fits the points where the last camera sees them, which counts the plates
    each is seen through. A point seen along a plate's edge is counted one way by a camera
    a hair off and the other way by the true one, and the rounds settle where the count
    agrees with the fit, a few tenths of a pixel off (exact clicks, 0.2 px RMS). So such
    points are fitted as seen the other way too, all together and (a few of them) alone, and
    the camera that reprojects the points best is kept. (Many points along edges, the
    printed crossings of a refinement, are not tried alone: one of many moves the fit
    little, and each try is a fit.)
    """
    eye = camera.centre_mm()
    crossed = plates_crossed(object_mm, eye, spec)
    wide = plates_crossed(object_mm, eye, spec, EDGE_MM)
    narrow = plates_crossed(object_mm, eye, spec, -EDGE_MM)
    along_edge = [int(i) for i in np.flatnonzero(wide != narrow)]
    if not along_edge:
        return camera
    other = np.where(crossed == wide, narrow, wide)
    flips = [along_edge]
    if 1 < len(along_edge) <= EDGE_FLIPS_ALONE:
        flips += [[i] for i in along_edge]

    best, best_rms = camera, rms_px(reprojection_errors(camera, object_mm, image_px, spec))
    for flip in flips:
        counted = crossed.copy()
        counted[flip] = other[flip]
        seen = apparent_points(object_mm, eye, spec, counted)
        candidate = _fit(seen, image_px, image_size, fit_distortion, camera.K[0, 0])
        candidate_rms = rms_px(reprojection_errors(candidate, object_mm, image_px, spec))
        if candidate_rms < best_rms:
            best, best_rms = candidate, candidate_rms
    return best


def rms_px(errors: np.ndarray) -> float:
    """The root mean square of per-point reprojection errors (pixels)."""
    return float(np.sqrt(np.mean(np.square(errors))))


def reprojection_errors(
    camera: CameraModel, object_mm: np.ndarray, image_px: np.ndarray, spec: TimeVectorsSpec
) -> np.ndarray:
    """Pixels between where ``camera`` sees each board point through the plates of ``spec``
    and where it was found."""
    projected = through_plates(camera, spec).project(object_mm)
    return np.linalg.norm(projected - np.reshape(image_px, (-1, 2)), axis=1)


def _fit(
    object_mm: np.ndarray,
    image_px: np.ndarray,
    image_size: tuple[int, int],
    fit_distortion: bool,
    focal_near: float | None,
) -> CameraModel:
    """The camera of :func:`fit_correspondences`, each point taken where it lies."""
    obj = np.asarray(object_mm, dtype=np.float64).reshape(-1, 3)
    img = np.asarray(image_px, dtype=np.float64).reshape(-1, 2)
    if len(obj) < 6 or len(obj) != len(img):
        raise ClicksError(f"need at least 6 matching landmarks to fit a camera, got {len(img)}")
    if np.ptp(obj[:, 2]) <= 0:
        raise ClicksError(
            "the landmarks all lie on one tier: the camera cannot be fitted from them"
        )
    if fit_distortion and focal_near is not None:
        focal = focal_near  # a refit near a known focal length: calibrateCamera frees it below
    else:
        focal = _search_focal(obj, img, image_size, focal_near)
    K, dist = _intrinsics(focal, image_size), np.zeros(5)
    rms, rvec, tvec = _pose_for_focal(obj, img, K, dist)
    if not math.isfinite(rms):
        raise ClicksError("no camera pose fits these landmarks")
    if fit_distortion:
        K, dist, rvec, tvec = _refine_distortion(obj, img, K, image_size, rvec, tvec)
    return CameraModel(K=K, dist=dist, rvec=rvec, tvec=tvec, image_size=image_size)


def check_fit(
    camera: CameraModel,
    errors: np.ndarray,
    names: list[str],
    spec: TimeVectorsSpec,
    max_rms_px: float,
) -> FitResult:
    """Accept a fitted camera, or raise :class:`ClicksError` (error too large, camera too low)."""
    rms = rms_px(errors)
    per_landmark = {name: float(e) for name, e in zip(names, errors, strict=True)}
    logger.info("fitted focal %.1f px, rms %.2f px", camera.K[0, 0], rms)
    if not math.isfinite(rms) or rms > max_rms_px:
        worst = sorted(per_landmark.items(), key=lambda kv: -kv[1])[:3]
        listing = ", ".join(f"{name} {err:.1f} px" for name, err in worst)
        raise ClicksError(
            f"reprojection error {rms:.1f} px is too large (limit {max_rms_px:g} px); "
            f"worst: {listing}. "
            "Check that each tier's corners are the outer corners of its own marking"
        )
    if camera.centre_mm()[2] <= spec.tier_spacing * 3:
        raise ClicksError(
            "these clicks put the camera below the top tier: are the tiers P..S "
            "in the right order (P is the bottom tier)?"
        )
    return FitResult(camera=camera, rms_px=rms, per_landmark_px=per_landmark, spec=spec)


def fit_camera(
    clicks: Mapping[str, Mapping[str, tuple[float, float]]],
    spec: TimeVectorsSpec,
    image_size: tuple[int, int],
    *,
    fit_distortion: bool = False,
    max_rms_px: float = DEFAULT_MAX_RMS_PX,
) -> FitResult:
    """Fit a camera to the 16 landmark clicks (``{"P": {"NW": (u, v), ...}, ...}``).

    Raises :class:`ClicksError` when the clicks cannot be the board: malformed,
    missing or duplicated tiers, swapped or rotated corners, points off the image,
    a camera that would have to be below the top tier, or an RMS reprojection
    error above ``max_rms_px``.
    """
    parsed = parse_clicks(clicks)
    validate_clicks(parsed, image_size)
    camera, built, errors = fit_board(
        _object_points(spec), _image_points(parsed), image_size, spec, fit_distortion=fit_distortion
    )
    names = [f"{t}.{c}" for t in TIER_LETTERS for c in CORNERS]
    return check_fit(camera, errors, names, built, max_rms_px)
