"""Bandanna calibration: 4 corner clicks give a homography, the printed spots refine every node.

A cotton bandanna is never flat: it creeps, stretches and folds, so the one
homography through the four corner leaves (``GGGG``, ``RRRR``, ``YYYY``,
``BBBB``) can be a centimetre off inside the cloth. The 341 printed spots are
their own calibration targets:

1. *Spots*: every pixel's chroma distance from the cloth colour (the median
   inside the clicked corners), opened with a disc smaller than a spot (the
   quadrangle outlines vanish), thresholded and split into blobs; each blob has
   a strength-weighted centroid and a colour class (G, R, Y, B by hue relative
   to the cloth, refined by a few k-means rounds).
2. *Coarse to fine*: the head node, then level by level, each node takes the
   nearest unclaimed blob of its colour within a search radius around where the
   displacement field learned so far puts it. Upper levels claim their blobs
   first, which removes the close same-coloured parents from the leaves' choices.
3. *Smooth field*: the offsets of the located spots from the homography are
   interpolated by locally weighted affine fits (a local homography per node
   in effect). A located spot that disagrees with the field of its neighbours
   (leave-one-out) by more than a tolerance is dropped as a wrong match. Nodes
   still missing get further searches around the field of everything located
   (a subtree on a fold is missed at its own level, found once its neighbours
   are); every node not located keeps the field's prediction.

Everything is vectorised over nodes and blobs (a few hundred of each).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.fit import as_pixel
from calibration.gryb_spec import LANDMARKS, GrybSpec
from calibration.jsonfile import JsonFileError, read_json_file
from rules.gryb.nodes import COLOURS, NODES

logger = logging.getLogger(__name__)

GrybClicks = dict[str, tuple[float, float]]

SEARCH_RADIUS_MM = 9.5  # below half the closest node spacing (21.2 mm)
OUTLIER_MM = 4.0  # a spot this far from its neighbours' field is a wrong match
FIELD_SIGMA_MM = 40.0  # reach of the displacement field's local fits
RETRY_PASSES = 3  # searches for nodes still missing once every level has had its turn
SEARCH_MARGIN_MM = 30.0  # beyond the outer node centres, inside the hem
MIN_SPOT_CHROMA = 14.0  # Lab chroma distance from the cloth below which nothing is printed
# Hue (degrees, Lab a*/b* relative to the cloth) of green, red, yellow and blue print.
_NOMINAL_HUE_DEG = {"G": 140.0, "R": 40.0, "Y": 95.0, "B": 280.0}
_LEVEL = np.array([len(n) for n in NODES])
_LETTER = np.array([COLOURS.index(n[-1]) if n else -1 for n in NODES])


class GrybClicksError(ValueError):
    """Corner clicks that cannot be a view of the bandanna (the message says why)."""


class SpotsError(ValueError):
    """An image in which the printed node spots cannot be found (not the bandanna, too dark,
    clicks far off)."""


@dataclass(frozen=True)
class Spots:
    """Printed blobs found in an image: centroids ``(n, 2)``, areas ``(n,)`` in pixels and
    colour classes ``(n,)`` (index into ``GRYB``)."""

    centroids: np.ndarray
    areas: np.ndarray
    classes: np.ndarray


@dataclass(frozen=True)
class GrybFit:
    """A refined bandanna map.

    ``homography`` maps cloth millimetres ``(x, y, 1)`` to pixels through the corner
    clicks; ``nodes_px`` ``(341, 2)`` is where every node is in the image; ``located``
    marks the nodes whose own spot was found (the rest come from the field);
    ``residual_px`` is the RMS distance of located spots from the smooth field
    (how much the cloth wrinkles on a scale finer than the field).
    """

    homography: np.ndarray
    nodes_px: np.ndarray
    located: np.ndarray
    residual_px: float

    @property
    def located_count(self) -> int:
        """How many nodes were located on their own printed spot."""
        return int(self.located.sum())


# -- clicks -------------------------------------------------------------------------------
def parse_gryb_clicks(data: object) -> GrybClicks:
    """Check decoded clicks JSON (``{"GGGG": [u, v], "RRRR": ..., "YYYY": ..., "BBBB": ...}``).

    Raises :class:`GrybClicksError` naming a missing, unknown or malformed corner.
    """
    if not isinstance(data, Mapping):
        raise GrybClicksError('clicks must be an object like {"GGGG": [u, v], "RRRR": [u, v], ...}')
    unknown = sorted(str(k) for k in set(data) - set(LANDMARKS))
    if unknown:
        raise GrybClicksError(
            f"unknown corner(s) {', '.join(unknown)}: click {', '.join(LANDMARKS)}"
        )
    clicks: GrybClicks = {}
    for name in LANDMARKS:
        if name not in data:
            raise GrybClicksError(
                f"corner {name} is missing: click the four corner spots {', '.join(LANDMARKS)}"
            )
        value = data[name]
        pixel = as_pixel(value)
        if pixel is None:
            raise GrybClicksError(f"{name} must be two finite numbers [u, v], not {value!r}")
        clicks[name] = pixel
    return clicks


def load_gryb_clicks(path: str | Path) -> GrybClicks:
    """Read and parse a clicks JSON file; raises :class:`GrybClicksError` with the reason."""
    try:
        data = read_json_file(path, "clicks file")
    except JsonFileError as exc:
        raise GrybClicksError(str(exc)) from exc
    return parse_gryb_clicks(data)


def validate_gryb_clicks(clicks: GrybClicks, image_size: tuple[int, int]) -> None:
    """Refuse clicks that cannot be the bandanna; raises :class:`GrybClicksError` saying why."""
    w, h = image_size
    for name, (u, v) in clicks.items():
        if not (0 <= u < w and 0 <= v < h):
            raise GrybClicksError(f"{name} ({u:.1f}, {v:.1f}) is off the {w}x{h} image")
    quad = np.array([clicks[n] for n in LANDMARKS])
    edges = np.roll(quad, -1, axis=0) - quad
    if np.linalg.norm(edges, axis=1).min() < 0.02 * math.hypot(w, h):
        raise GrybClicksError("two corners are (almost) the same pixel")
    turns = [
        float(edges[i, 0] * edges[(i + 1) % 4, 1] - edges[i, 1] * edges[(i + 1) % 4, 0])
        for i in range(4)
    ]
    if all(t < 0 for t in turns):
        raise GrybClicksError(
            f"the corners go the wrong way round: {', '.join(LANDMARKS)} must go clockwise "
            "on screen (green, red, yellow, blue corner)"
        )
    if not all(t > 0 for t in turns):
        raise GrybClicksError(
            "the corners cross over or fold in (two neighbouring corners are swapped)"
        )


def corner_homography(clicks: GrybClicks, spec: GrybSpec) -> np.ndarray:
    """Homography from cloth millimetres to pixels through the four clicked corner leaves."""
    landmarks = spec.landmarks()
    src = np.array([landmarks[n] for n in LANDMARKS], np.float32)
    dst = np.array([clicks[n] for n in LANDMARKS], np.float32)
    return cv2.getPerspectiveTransform(src, dst).astype(np.float64)


def apply_homography(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``(n, 2)`` points mapped by a 3x3 homography."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    mapped = np.column_stack([pts, np.ones(len(pts))]) @ homography.T
    return mapped[:, :2] / mapped[:, 2:3]


def px_per_mm(homography: np.ndarray, points_mm: np.ndarray) -> np.ndarray:
    """Local scale (pixels per millimetre, geometric mean of the two axes) at cloth points."""
    pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
    base = apply_homography(homography, pts)
    ex = apply_homography(homography, pts + [1.0, 0.0]) - base
    ey = apply_homography(homography, pts + [0.0, 1.0]) - base
    return np.sqrt(np.abs(ex[:, 0] * ey[:, 1] - ex[:, 1] * ey[:, 0]))


# -- spots --------------------------------------------------------------------------------
def _hue_classes(chroma: np.ndarray) -> np.ndarray:
    """Colour class per row of cloth-relative (a*, b*): nearest nominal hue, then k-means."""
    nominal = np.radians([_NOMINAL_HUE_DEG[c] for c in COLOURS])
    centres = np.column_stack([np.cos(nominal), np.sin(nominal)]) * 40.0
    hue = np.arctan2(chroma[:, 1], chroma[:, 0])
    gap = np.abs((hue[:, None] - nominal[None, :] + np.pi) % (2 * np.pi) - np.pi)
    classes = np.argmin(gap, axis=1)
    for _ in range(4):
        for k in range(len(COLOURS)):
            if np.any(classes == k):
                centres[k] = np.median(chroma[classes == k], axis=0)
        classes = np.argmin(np.linalg.norm(chroma[:, None, :] - centres[None], axis=2), axis=1)
    return classes


def find_spots(image_bgr: np.ndarray, homography: np.ndarray, spec: GrybSpec) -> Spots:
    """Printed spots in an image of the (empty) bandanna; see the module docstring.

    Raises :class:`SpotsError` when fewer than half the nodes' worth of spots are found.
    """
    h, w = image_bgr.shape[:2]
    # Search well past the outer spots: a wrinkled cloth bulges beyond the straight edges
    # between the clicked corners, and a spot cut by the search area has a biased centre.
    # The table (which may be colourful) stays outside: the cloth's hem is farther out.
    reach = sum(spec.level_offsets) + SEARCH_MARGIN_MM
    outline = apply_homography(
        homography, np.array([[-reach, reach], [reach, reach], [reach, -reach], [-reach, -reach]])
    )
    inside = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(inside, np.round(outline).astype(np.int32), 1)
    lab = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    cloth_ab = np.median(lab[inside.astype(bool)][::7, 1:], axis=0)
    relative = lab[..., 1:] - cloth_ab
    strength = np.hypot(relative[..., 0], relative[..., 1]) * inside
    scale = float(px_per_mm(homography, spec.node_positions()).min())
    spot_px = spec.spot_diameter * scale
    k = max(3, round(0.55 * spot_px) | 1)
    opened = cv2.morphologyEx(
        strength, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    top = float(np.percentile(opened[inside.astype(bool)], 97))
    threshold = max(MIN_SPOT_CHROMA, 0.4 * top)
    mask = (opened > threshold).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        raise SpotsError(
            "no printed spots found: is this the bandanna, and are the corner clicks on it?"
        )
    flat = labels.ravel()
    weight = (opened.ravel() - threshold).clip(min=0) * (flat > 0)
    ys, xs = np.divmod(np.arange(flat.size), w)
    total = np.bincount(flat, weights=weight, minlength=n)[1:]
    cx = np.bincount(flat, weights=weight * xs, minlength=n)[1:] / np.maximum(total, 1e-9)
    cy = np.bincount(flat, weights=weight * ys, minlength=n)[1:] / np.maximum(total, 1e-9)
    a = np.bincount(flat, weights=relative[..., 0].ravel() * (flat > 0), minlength=n)[1:]
    b = np.bincount(flat, weights=relative[..., 1].ravel() * (flat > 0), minlength=n)[1:]
    areas = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
    expected = math.pi * (spot_px / 2) ** 2
    plausible = (areas > 0.2 * expected) & (areas < 4.0 * expected)
    if plausible.sum() < len(NODES) // 2:
        raise SpotsError(
            f"only {int(plausible.sum())} printed spots found (the bandanna has {len(NODES)}): "
            "check the light, the focus and the corner clicks"
        )
    chroma = np.column_stack([a, b])[plausible] / areas[plausible, None]
    return Spots(
        centroids=np.column_stack([cx, cy])[plausible],
        areas=areas[plausible],
        classes=_hue_classes(chroma),
    )


# -- the smooth displacement field -------------------------------------------------------
def field_offsets(
    known_mm: np.ndarray,
    known_offsets: np.ndarray,
    query_mm: np.ndarray,
    sigma_mm: float,
    *,
    leave_one_out: bool = False,
) -> np.ndarray:
    """Offsets at ``query_mm`` from locally weighted affine fits to ``known_offsets``.

    Each query gets its own least-squares affine map of the known offsets, weighted by a
    Gaussian of the distance in cloth millimetres (a local homography correction); a small
    ridge on the slope falls back to the weighted mean where the neighbours are few or in a
    line. ``leave_one_out`` (queries = knowns) ignores each point's own offset.
    """
    known_mm = np.asarray(known_mm, np.float64)
    query_mm = np.asarray(query_mm, np.float64)
    if len(known_mm) == 0:
        return np.zeros((len(query_mm), 2))
    d2 = np.sum((query_mm[:, None, :] - known_mm[None, :, :]) ** 2, axis=2)
    weights = np.exp(-0.5 * d2 / sigma_mm**2) + 1e-12
    if leave_one_out:
        np.fill_diagonal(weights, 0.0)
    rel = (known_mm[None, :, :] - query_mm[:, None, :]) / sigma_mm  # (q, k, 2)
    design = np.concatenate([np.ones(rel.shape[:2] + (1,)), rel], axis=2)  # (q, k, 3)
    normal = np.einsum("qk,qki,qkj->qij", weights, design, design)
    normal[:, 1, 1] += 0.05 * weights.sum(axis=1)
    normal[:, 2, 2] += 0.05 * weights.sum(axis=1)
    rhs = np.einsum("qk,qki,kj->qij", weights, design, np.asarray(known_offsets, np.float64))
    coefficients = np.linalg.solve(normal, rhs)  # (q, 3, 2)
    return coefficients[:, 0, :]


def _match(
    predicted: np.ndarray,
    candidates: np.ndarray,
    spots: Spots,
    claimed: np.ndarray,
    nodes: np.ndarray,
    radius_px: np.ndarray,
) -> np.ndarray:
    """Blob index per node (-1 none): nearest unclaimed blob of the node's colour within its
    radius; when two nodes want one blob the nearer one gets it."""
    dist = np.linalg.norm(predicted[nodes][:, None, :] - spots.centroids[None, :, :], axis=2)
    letter = _LETTER[nodes]
    wrong_colour = (letter[:, None] >= 0) & (spots.classes[None, :] != letter[:, None])
    dist[wrong_colour | claimed[None, :] | ~candidates[None, :]] = np.inf
    best = np.argmin(dist, axis=1)
    best_d = dist[np.arange(len(nodes)), best]
    best[~(best_d <= radius_px[nodes])] = -1
    order = np.argsort(best_d)
    taken: set[int] = set()
    for i in order:
        if best[i] >= 0:
            if best[i] in taken:
                best[i] = -1
            else:
                taken.add(int(best[i]))
    return best


def refine_nodes(
    image_bgr: np.ndarray, homography: np.ndarray, spec: GrybSpec, spots: Spots | None = None
) -> GrybFit:
    """Locate every node from its printed spot, coarse to fine; see the module docstring.

    Raises :class:`SpotsError` when the spots cannot be found at all.
    """
    spots = spots or find_spots(image_bgr, homography, spec)
    mm = spec.node_positions()
    base = apply_homography(homography, mm)
    scale = px_per_mm(homography, mm)
    radius = SEARCH_RADIUS_MM * scale
    found = np.full(len(NODES), -1)
    claimed = np.zeros(len(spots.centroids), bool)
    candidates = np.ones(len(spots.centroids), bool)
    predicted = base.copy()
    for level in range(int(_LEVEL.max()) + 1):
        nodes = np.flatnonzero(_LEVEL == level)
        match = _match(predicted, candidates, spots, claimed, nodes, radius)
        found = _take(found, nodes, match, claimed, spots, mm, base, scale)
        sigma = max(
            FIELD_SIGMA_MM, 1.2 * spec.level_offsets[min(level, len(spec.level_offsets) - 1)]
        )
        predicted = _field_prediction(found, spots, base, mm, sigma)
    # Second chances, top level first: a node missed because its own level was predicted
    # badly (a whole subtree on a fold) is now surrounded by located neighbours of every
    # level, so the field puts it near its spot; matches are checked against it as before.
    for _ in range(RETRY_PASSES):
        missing = np.flatnonzero(found < 0)
        if len(missing) == 0:
            break
        predicted = _field_prediction(found, spots, base, mm, FIELD_SIGMA_MM)
        match = _match(predicted, candidates, spots, claimed, missing, radius)
        found = _take(found, missing, match, claimed, spots, mm, base, scale)
    located = found >= 0
    field = _field_prediction(found, spots, base, mm, FIELD_SIGMA_MM)
    nodes_px = np.where(located[:, None], spots.centroids[np.maximum(found, 0)], field)
    residual = (
        float(np.sqrt(np.mean(np.sum((nodes_px[located] - field[located]) ** 2, axis=1))))
        if located.any()
        else 0.0
    )
    logger.info(
        "bandanna: %d of %d nodes located on their spots, %.2f px off the smooth field",
        int(located.sum()),
        len(NODES),
        residual,
    )
    return GrybFit(homography=homography, nodes_px=nodes_px, located=located, residual_px=residual)


def _field_prediction(
    found: np.ndarray, spots: Spots, base: np.ndarray, mm: np.ndarray, sigma_mm: float
) -> np.ndarray:
    """Where every node's spot should be: ``base`` moved by the smooth field through the
    offsets of the nodes located so far (``found`` >= 0)."""
    located = found >= 0
    offsets = spots.centroids[found[located]] - base[located]
    return base + field_offsets(mm[located], offsets, mm, sigma_mm)


def _take(
    found: np.ndarray,
    nodes: np.ndarray,
    match: np.ndarray,
    claimed: np.ndarray,
    spots: Spots,
    mm: np.ndarray,
    base: np.ndarray,
    scale: np.ndarray,
) -> np.ndarray:
    """Record ``nodes``' matched spots (claiming them in place) and drop the outliers;
    returns the new ``found``."""
    found[nodes] = match
    claimed[match[match >= 0]] = True
    return _drop_outliers(found, spots, mm, base, scale, claimed)


def _drop_outliers(
    found: np.ndarray,
    spots: Spots,
    mm: np.ndarray,
    base: np.ndarray,
    scale: np.ndarray,
    claimed: np.ndarray,
) -> np.ndarray:
    """Unmatch located spots that disagree with the field of the other located spots."""
    located = np.flatnonzero(found >= 0)
    if len(located) < 5:
        return found
    offsets = spots.centroids[found[located]] - base[located]
    loo = field_offsets(mm[located], offsets, mm[located], FIELD_SIGMA_MM, leave_one_out=True)
    error_mm = np.linalg.norm(offsets - loo, axis=1) / scale[located]
    bad = located[error_mm > max(OUTLIER_MM, 3.0 * float(np.median(error_mm)))]
    if len(bad):
        logger.debug("dropping %d spot matches that disagree with their neighbours", len(bad))
        claimed[found[bad]] = False
        found = found.copy()
        found[bad] = -1
    return found


def fit_bandanna(image_bgr: np.ndarray, clicks: Mapping[str, object], spec: GrybSpec) -> GrybFit:
    """Calibrate from a picture of the empty bandanna and the 4 corner clicks.

    Raises :class:`GrybClicksError` for bad clicks and :class:`SpotsError` when the
    printed spots cannot be found.
    """
    parsed = parse_gryb_clicks(clicks)
    h, w = image_bgr.shape[:2]
    validate_gryb_clicks(parsed, (w, h))
    return refine_nodes(image_bgr, corner_homography(parsed, spec), spec)
