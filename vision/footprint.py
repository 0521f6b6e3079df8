"""Per-calibration geometry of every token position, precomputed once.

A token is an opaque cylinder (19 mm x 5 mm on the reference board). Seen by
the camera, a token on point ``p`` covers a *silhouette* (its top disc plus the
part of its side wall that faces the camera); the top disc is what the
visibility of a point is defined on. Because the tiers are clear acrylic,
silhouettes of points on different tiers overlap in the image: a token nearer
the camera hides what is behind it. Everything here depends only on the camera
model and the board spec, so it is computed once per calibration and the
observer does only vectorised gathers per frame.

Pixel sets are stored as flat index arrays into a *working image*: the camera
frame shrunk (area averaging) to ``size`` so a token's top disc is still about
ten pixels across (enough to read a colour, cheap enough for a Raspberry Pi).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.markings import grid_lines
from calibration.refraction import plates_crossed, through_plates
from calibration.spec import TimeVectorsSpec

logger = logging.getLogger(__name__)

N_POINTS = 256
_CIRCLE_VERTICES = 48
_SUPERSAMPLE = 4  # rasterise at 4x the working resolution, then average to a coverage
_RING_MM = 3.0  # how far around a token's outline the "must not be token" ring reaches
_TARGET_DISC_PX = 12.0  # smallest top-disc minor axis (working pixels) the factor must keep
_HAND_MARGIN_MM = 60.0
_RING_MIN_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
_CORE_COVERAGE = 0.9
_TOP_COVERAGE = 0.5
_RIM_PAIRS = 32  # pixel pairs straddling each token's top-disc rim (and as many on its base)
_RIM_OFFSET_PX = 1.5  # working pixels from the outline to each pixel of a pair


def _disc_samples() -> np.ndarray:
    """Unit-disc sample offsets of equal area (centre plus two rings), shape ``(19, 2)``."""
    offsets = [(0.0, 0.0)]
    for radius, count in ((0.5, 6), (0.85, 12)):
        angles = 2 * np.pi * (np.arange(count) + 0.5 * (count == 12)) / count
        offsets += list(zip(radius * np.cos(angles), radius * np.sin(angles)))
    return np.array(offsets)


DISC_SAMPLES = _disc_samples()


def working_size(
    camera: CameraModel, spec: TimeVectorsSpec, max_width: int | None = None
) -> tuple[int, int]:
    """Working-image size: the frame halved while nearly every top disc stays >= ~12 pixels
    across, and no wider than ``max_width`` (the empty-board reference's width)."""
    w, h = camera.image_size
    factor = float(_power_of_two_factor(camera, spec))
    if max_width is not None and w / factor > max_width:
        factor = w / max_width
    return max(1, round(w / factor)), max(1, round(h / factor))


def _power_of_two_factor(camera: CameraModel, spec: TimeVectorsSpec) -> int:
    centres = spec.point_centres()
    centres[:, 2] += spec.token_height
    depth = camera.to_camera(centres)[:, 2]
    focal = float(camera.K[0, 0])
    in_front = depth > 0
    if not in_front.any():
        return 1
    # The disc's minor axis is foreshortened by the viewing angle; use its smallest extent.
    view = camera.centre_mm()[None, :] - centres
    sin_elev = np.abs(view[:, 2]) / np.linalg.norm(view, axis=1)
    minor_px = focal * spec.token_diameter * sin_elev[in_front] / depth[in_front]
    smallest = float(np.percentile(minor_px, 5))
    factor = 1
    while factor < 8 and smallest / (factor * 2) >= _TARGET_DISC_PX:
        factor *= 2
    return factor


def frame_to_working(pixels: np.ndarray, scale: tuple[float, float]) -> np.ndarray:
    """Full-frame pixel coordinates -> working-image coordinates (pixel centres are integers)."""
    return (pixels + 0.5) * np.asarray(scale) - 0.5


def working_to_frame(flat: np.ndarray, size: tuple[int, int], scale: tuple[float, float]) -> np.ndarray:
    """Flat indices of a working image of ``size`` -> ``(N, 2)`` full-frame pixel coordinates
    of their centres (the inverse of the working image's scaling)."""
    rows, columns = np.divmod(np.asarray(flat), size[0])
    return (np.column_stack([columns, rows]) + 0.5) / np.asarray(scale) - 0.5


def _circle(centre: np.ndarray, radius: float, z: float) -> np.ndarray:
    angles = np.linspace(0, 2 * np.pi, _CIRCLE_VERTICES, endpoint=False)
    return np.stack(
        [
            centre[0] + radius * np.cos(angles),
            centre[1] + radius * np.sin(angles),
            np.full_like(angles, z),
        ],
        axis=1,
    )


def _coverage(polygon_px: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """Fractional coverage of the pixels of ``box`` (x0, y0, x1, y1) by a convex polygon."""
    x0, y0, x1, y1 = box
    s = _SUPERSAMPLE
    canvas = np.zeros(((y1 - y0) * s, (x1 - x0) * s), np.uint8)
    # Pixel centres sit at integer coordinates; the supersampled grid is offset by half a pixel.
    local = (polygon_px - [x0 - 0.5, y0 - 0.5]) * s - 0.5
    pts = np.round(local * 16).astype(np.int32).reshape(-1, 1, 2)
    cv2.fillConvexPoly(canvas, pts, 255, lineType=cv2.LINE_8, shift=4)
    blocks = canvas.reshape(y1 - y0, s, x1 - x0, s).mean(axis=(1, 3))
    return blocks / 255.0


def _ray_cylinder_blocked(
    origin: np.ndarray,
    targets: np.ndarray,
    centres: np.ndarray,
    radius: float,
    z_low: np.ndarray,
    z_high: np.ndarray,
) -> np.ndarray:
    """``(n_targets, n_cylinders)``: does the segment origin->target pass through each cylinder?

    The segment end is excluded (a point does not hide itself: its own cylinder is
    filtered by the caller), so only strictly-between crossings count.
    """
    d = targets - origin  # (T, 3)
    ox = origin[0] - centres[None, :, 0]  # (1, C)
    oy = origin[1] - centres[None, :, 1]
    dx, dy, dz = d[:, 0:1], d[:, 1:2], d[:, 2:3]
    a = dx * dx + dy * dy  # (T, 1)
    b = 2 * (ox * dx + oy * dy)  # (T, C)
    c = ox * ox + oy * oy - radius * radius
    disc = b * b - 4 * a * c
    hit = disc > 0
    root = np.sqrt(np.where(hit, disc, 0.0))
    safe_a = np.where(a > 1e-12, a, 1e-12)
    t1, t2 = (-b - root) / (2 * safe_a), (-b + root) / (2 * safe_a)
    safe_dz = np.where(np.abs(dz) > 1e-12, dz, 1e-12)
    tz_a = (z_low[None, :] - origin[2]) / safe_dz
    tz_b = (z_high[None, :] - origin[2]) / safe_dz
    tz1, tz2 = np.minimum(tz_a, tz_b), np.maximum(tz_a, tz_b)
    start = np.maximum(np.maximum(t1, tz1), 1e-6)
    end = np.minimum(np.minimum(t2, tz2), 1.0 - 1e-4)
    return hit & (start < end)


def _require_point_order(point: np.ndarray, kind: str) -> None:
    """Raise ``ValueError`` unless entries are grouped by point in point order (what
    :func:`spread` relies on)."""
    if len(point) and (np.diff(point) < 0).any():
        raise ValueError(f"{kind} entries must be grouped by point in point order")


def spread(values: np.ndarray, count: np.ndarray) -> np.ndarray:
    """``values[point]`` for entries grouped by point in point order, ``count[p]`` of them for
    point ``p`` (as :class:`PixelSets` and :class:`RimPairs` keep them): a repeat, several
    times faster than gathering by each entry's point."""
    return np.repeat(values, count)


@dataclass(frozen=True)
class PixelSets:
    """Concatenated flat pixel indices of one kind of region for all points.

    ``index[k]`` is a flat index into the working image and ``point[k]`` the point
    it belongs to; ``count[p]`` is how many pixels point ``p`` has. Entries are grouped
    by point in point order (every constructor keeps that), so a point's pixels are one
    slice. Raises ``ValueError`` otherwise.
    """

    index: np.ndarray
    point: np.ndarray
    count: np.ndarray

    def __post_init__(self) -> None:
        _require_point_order(self.point, "pixel set")

    @classmethod
    def from_lists(cls, per_point: list[np.ndarray]) -> PixelSets:
        count = np.array([len(ix) for ix in per_point], dtype=np.int64)
        index = np.concatenate(per_point).astype(np.int64) if count.sum() else np.zeros(0, np.int64)
        point = np.repeat(np.arange(len(per_point)), count)
        return cls(index=index, point=point, count=count)

    @cached_property
    def start(self) -> np.ndarray:
        """Where each point's slice of entries begins."""
        return np.cumsum(self.count) - self.count

    def thinned(self, cap: int) -> PixelSets:
        """At most about ``cap`` pixels per point, spread evenly over each point's region
        (the fractions the observer measures need a sample, not every pixel)."""
        stride = np.maximum(1, np.ceil(self.count / cap)).astype(np.int64)
        rank = np.arange(len(self.index)) - np.repeat(self.start, self.count)
        keep = rank % np.repeat(stride, self.count) == 0
        return self._subset(keep)

    def entries(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The entries of each of ``points`` in turn (a point may come more than once):
        ``(row, entry)``, the position in ``points`` and the entry index of each."""
        counts = self.count[points]
        ends = np.cumsum(counts)
        row = np.repeat(np.arange(len(points)), counts)
        offset = np.repeat(self.start[points] - (ends - counts), counts)
        return row, np.arange(int(ends[-1]) if len(ends) else 0) + offset

    def within(self, universe: np.ndarray) -> PixelSets:
        """Only the pixels that are in the sorted index array ``universe``."""
        pos = np.clip(np.searchsorted(universe, self.index), 0, max(len(universe) - 1, 0))
        keep = universe[pos] == self.index if len(universe) else np.zeros(len(self.index), bool)
        return self._subset(keep)

    def local_to(self, positions: np.ndarray) -> PixelSets:
        """The same pixels indexed by their place in the sorted index array ``positions``
        (which holds them all): a reader gathers only those pixels and indexes its copy."""
        return PixelSets(
            index=np.searchsorted(positions, self.index), point=self.point, count=self.count
        )

    def _subset(self, keep: np.ndarray) -> PixelSets:
        point = self.point[keep]
        return PixelSets(
            index=self.index[keep], point=point, count=np.bincount(point, minlength=len(self.count))
        )

    def select(self, points_mask: np.ndarray) -> np.ndarray:
        """Flat indices of the pixels of every point where ``points_mask`` is true (the mask
        spread over the entries: cheaper than gathering each chosen point's slice, even for
        one point)."""
        return self.index[spread(points_mask, self.count)]

    def tally(self, labels: np.ndarray, n_labels: int) -> np.ndarray:
        """``(n_points, n_labels)`` counts of each label value over each point's pixels."""
        keys = self.point * n_labels + labels[self.index]
        return np.bincount(keys, minlength=len(self.count) * n_labels).reshape(-1, n_labels)


@dataclass(frozen=True)
class RimPairs:
    """Pixel pairs straddling each point's token outline along its normal: ``inside[k]`` just
    inside the outline, ``outside[k]`` just outside, both flat working-image indices, for point
    ``point[k]``, grouped by point in point order. A token draws an edge across each pair that
    the empty board need not have."""

    inside: np.ndarray
    outside: np.ndarray
    point: np.ndarray
    count: np.ndarray

    def __post_init__(self) -> None:
        _require_point_order(self.point, "rim pair")


@dataclass(frozen=True)
class Footprints:
    """Everything the observer needs to know about where each point's token shows.

    Attributes (``n`` = 256 points):

    - ``size``: working image ``(width, height)``; ``scale``: working pixels per frame pixel.
    - ``core``: silhouette pixels fully inside the token's outline (colour is read here).
    - ``top``: pixels at least half covered by the top disc (visibility to hands).
    - ``silhouette``: every pixel the token touches, grown by one pixel (what a token
      at that point explains in the image).
    - ``ring``: pixels just outside the outline (a real token leaves them alone).
    - ``depth``: distance from the camera centre to the token's top, mm.
    - ``in_image``: fraction of the top disc inside the frame.
    - ``post_visibility``: fraction of the top disc the centre post does not hide.
    - ``ray_point``/``blocking``: sparse pairs (sample ray of a point's top disc,
      nearer point whose token would block that ray); ``rays_per_point`` samples each.
    - ``overlap``: ``(m, 3)`` rows ``(far point, near point, fraction)`` where a token
      at ``near`` would hide ``fraction`` of the top disc at ``far``.
    - ``board_mask``: working-image mask of the board's outline (all tiers and the
      post) plus a margin, where anything unexplained counts as a hand.
    - ``post_polygon``: the post's silhouette in full-frame pixels.
    - ``disc_area``: median top-disc area in working pixels.
    - ``line_tier``: per working-image pixel, the highest tier whose printed grid lines or
      cut edge cross it (-1: none). A line or edge of a plate above a token lies in front
      of it.
    - ``plates_above``: per point, how many plates lie between the camera and its top disc
      (the share of the disc seen through each, summed; see :func:`_plates_above`).
    - ``rim``: pixel pairs straddling each token's outline (:class:`RimPairs`).
    """

    size: tuple[int, int]
    scale: tuple[float, float]
    core: PixelSets
    top: PixelSets
    silhouette: PixelSets
    ring: PixelSets
    depth: np.ndarray
    in_image: np.ndarray
    post_visibility: np.ndarray
    rays_per_point: int
    ray_point: np.ndarray
    blocking: np.ndarray
    overlap: np.ndarray
    board_mask: np.ndarray
    post_polygon: np.ndarray
    disc_area: float
    tier: np.ndarray
    line_tier: np.ndarray
    plates_above: np.ndarray
    rim: RimPairs | None = None

    def token_visibility(self, occupied: np.ndarray) -> np.ndarray:
        """Fraction of each point's top disc not hidden by the post, the frame edge or
        a token on an ``occupied`` point nearer the camera."""
        blocked_rays = np.bincount(
            self.ray_point[occupied[self.blocking]], minlength=N_POINTS * self.rays_per_point
        )
        free = (blocked_rays == 0).reshape(N_POINTS, self.rays_per_point).mean(axis=1)
        return free * self.post_visibility * self.in_image


def _project_regions(
    camera: CameraModel, spec: TimeVectorsSpec, size: tuple[int, int], scale: tuple[float, float]
) -> tuple[list[np.ndarray], ...]:
    """Rasterise every point's core, top, silhouette and ring in the working image."""
    width, height = size
    centres = spec.point_centres()
    radius, tall = spec.token_diameter / 2, spec.token_height
    cores, tops, sils, rings, in_image = [], [], [], [], []
    for centre in centres:
        z = centre[2]
        top_px = frame_to_working(camera.project(_circle(centre, radius, z + tall)), scale)
        base_px = frame_to_working(camera.project(_circle(centre, radius, z)), scale)
        outline = cv2.convexHull(np.concatenate([top_px, base_px]).astype(np.float32)).reshape(
            -1, 2
        )
        grown = frame_to_working(
            np.concatenate(
                [
                    camera.project(_circle(centre, radius + _RING_MM, z + tall)),
                    camera.project(_circle(centre, radius + _RING_MM, z)),
                ]
            ),
            scale,
        )
        grown = cv2.convexHull(grown.astype(np.float32)).reshape(-1, 2)
        full_top = cv2.contourArea(top_px.astype(np.float32))
        lo = np.floor(grown.min(axis=0)).astype(int) - 4
        hi = np.ceil(grown.max(axis=0)).astype(int) + 5
        x0, y0 = max(lo[0], 0), max(lo[1], 0)
        x1, y1 = min(hi[0], width), min(hi[1], height)
        if x1 <= x0 or y1 <= y0:
            empty = np.zeros(0, np.int64)
            cores.append(empty), tops.append(empty), sils.append(empty), rings.append(empty)
            in_image.append(0.0)
            continue
        box = (x0, y0, x1, y1)
        sil_cov = _coverage(outline, box)
        top_cov = _coverage(top_px, box)
        grown_cov = _coverage(grown, box)
        in_image.append(min(1.0, float(top_cov.sum()) / max(full_top, 1e-9)))
        touched = cv2.dilate((sil_cov > 0).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        ys, xs = np.mgrid[y0:y1, x0:x1]
        flat = ys * width + xs
        cores.append(flat[sil_cov >= _CORE_COVERAGE])
        tops.append(flat[top_cov >= _TOP_COVERAGE])
        sils.append(flat[touched])
        # At least two pixels of ring even where 3 mm is less than that (small working images).
        widened = cv2.dilate(touched.astype(np.uint8), _RING_MIN_KERNEL) > 0
        rings.append(flat[((grown_cov > 0.5) | widened) & ~touched])
    return cores, tops, sils, rings, np.array(in_image)


def _rim_pairs(
    camera: CameraModel,
    spec: TimeVectorsSpec,
    size: tuple[int, int],
    scale: tuple[float, float],
    line_tier: np.ndarray,
    tiers: np.ndarray,
) -> RimPairs:
    """Per point, pixel pairs across the rim of the token's top disc and across the part of its
    base outline that bounds the silhouette (the bottom of the wall facing the camera), each
    pixel ``_RIM_OFFSET_PX`` from the outline along its normal. Pairs touching a printed line
    of a plate above are left out (the line draws an edge there whatever the point holds), as
    are pairs leaving the image and, for points behind the post, pairs touching the post."""
    width, height = size
    centres = spec.point_centres()
    radius, tall = spec.token_diameter / 2, spec.token_height
    angles = 2 * np.pi * (np.arange(_RIM_PAIRS) + 0.5) / _RIM_PAIRS
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    post = np.zeros((height, width), np.uint8)
    cv2.fillConvexPoly(
        post,
        np.round(frame_to_working(_post_polygon(camera, spec), scale) * 16).astype(np.int32),
        1,
        shift=4,
    )
    post = post.reshape(-1).astype(bool)
    eye = camera.centre_mm()[:2]
    behind_post = np.hypot(*(centres[:, :2] - eye).T) > np.hypot(*eye)
    inside, outside, owner = [], [], []
    for p, centre in enumerate(centres):
        rims = []
        for z in (centre[2] + tall, centre[2]):
            at = [
                np.column_stack([centre[:2] + r * ring, np.full(_RIM_PAIRS, z)])
                for r in (radius, radius - 1.0, radius + 1.0)
            ]
            rims.append([frame_to_working(camera.project(pts), scale) for pts in at])
        outline = cv2.convexHull(
            np.concatenate([rims[0][0], rims[1][0]]).astype(np.float32)
        ).reshape(-1, 2)
        for k, (rim, inner, outer) in enumerate(rims):
            normal = outer - inner
            normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-9)
            a = rim - _RIM_OFFSET_PX * normal
            b = rim + _RIM_OFFSET_PX * normal
            keep = np.ones(_RIM_PAIRS, bool)
            if k == 1:  # the base: only where its outline is the silhouette's
                keep = np.array(
                    [cv2.pointPolygonTest(outline, (float(x), float(y)), True) < -0.5 for x, y in b]
                )
            ia, ib = np.round(a).astype(int), np.round(b).astype(int)
            keep &= (ia >= 0).all(1) & (ib >= 0).all(1)
            keep &= (ia[:, 0] < width) & (ib[:, 0] < width) & (ia[:, 1] < height)
            keep &= ib[:, 1] < height
            fa = np.where(keep, ia[:, 1] * width + ia[:, 0], 0)
            fb = np.where(keep, ib[:, 1] * width + ib[:, 0], 0)
            keep &= fa != fb
            keep &= (line_tier[fa] <= tiers[p]) & (line_tier[fb] <= tiers[p])
            if behind_post[p]:
                keep &= ~post[fa] & ~post[fb]
            inside.append(fa[keep])
            outside.append(fb[keep])
            owner.append(np.full(int(keep.sum()), p))
    point = np.concatenate(owner).astype(np.int64)
    return RimPairs(
        inside=np.concatenate(inside).astype(np.int64),
        outside=np.concatenate(outside).astype(np.int64),
        point=point,
        count=np.bincount(point, minlength=N_POINTS),
    )


def _post_cylinders(spec: TimeVectorsSpec) -> list[tuple[float, float, float]]:
    """The centre post as ``(radius, z_low, z_high)`` cylinders: the post and its wider top piece."""
    return [
        (spec.post_diameter / 2, 0.0, spec.post_top),
        (spec.cap_diameter / 2, spec.post_top, spec.cap_top),
    ]


def _post_polygon(camera: CameraModel, spec: TimeVectorsSpec) -> np.ndarray:
    pts = np.concatenate(
        [_circle(np.zeros(2), r, z) for r, z0, z1 in _post_cylinders(spec) for z in (z0, z1)]
    )
    return cv2.convexHull(camera.project(pts).astype(np.float32)).reshape(-1, 2)


def _without_post(
    kinds: tuple[list[np.ndarray], ...],
    camera: CameraModel,
    spec: TimeVectorsSpec,
    scale: tuple[float, float],
    size: tuple[int, int],
) -> list[list[np.ndarray]]:
    """Each kind of per-point pixel list less the pixels where the post (and its top piece)
    stands in front: a point horizontally farther from the camera than the post's axis is
    behind it there, so those pixels show the post whatever the point holds. (Rings keep
    them: the post there stays unchanged, as a ring around a real token should.)"""
    mask = np.zeros((size[1], size[0]), np.uint8)
    outline = frame_to_working(_post_polygon(camera, spec), scale)
    cv2.fillConvexPoly(mask, np.round(outline * 16).astype(np.int32), 1, shift=4)
    post = mask.reshape(-1).astype(bool)
    eye = camera.centre_mm()[:2]
    behind = np.hypot(*(spec.point_centres()[:, :2] - eye).T) > np.hypot(*eye)
    return [
        [pixels[~post[pixels]] if behind[p] else pixels for p, pixels in enumerate(regions)]
        for regions in kinds
    ]


def _board_mask(
    camera: CameraModel, spec: TimeVectorsSpec, size: tuple[int, int], scale: tuple[float, float]
) -> np.ndarray:
    """Outline of the board (every plate, the post and the base) grown by a hand's reach
    (``_HAND_MARGIN_MM``): a hand reaching for an edge point is partly outside the plates."""
    pts = [spec.plate_corners(k, _HAND_MARGIN_MM) for k in range(4)]
    pts.append(spec.plate_corners(0, _HAND_MARGIN_MM, z_mm=-spec.base_height))
    hull = cv2.convexHull(
        frame_to_working(camera.project(np.concatenate(pts)), scale).astype(np.float32)
    )
    mask = np.zeros((size[1], size[0]), np.uint8)
    cv2.fillConvexPoly(mask, np.round(hull.reshape(-1, 2) * 16).astype(np.int32), 1, shift=4)
    return mask.astype(bool)


def _top_disc_samples(spec: TimeVectorsSpec) -> np.ndarray:
    """``(256 * len(DISC_SAMPLES), 3)`` points on each token's top disc, point by point."""
    samples = np.repeat(spec.point_centres(), len(DISC_SAMPLES), axis=0)
    samples[:, :2] += np.tile(DISC_SAMPLES * (spec.token_diameter / 2), (N_POINTS, 1))
    samples[:, 2] += spec.token_height
    return samples


def _plates_above(camera: CameraModel, spec: TimeVectorsSpec) -> np.ndarray:
    """Per point, how many plates the rays from the camera to its top disc pass through on
    average (:func:`calibration.refraction.plates_crossed`): a token near a lower tier's
    front edge is seen past the plates above it and shows no wash at all, while its
    neighbour a few points in is seen through all of them."""
    crossed = plates_crossed(_top_disc_samples(spec), camera.centre_mm(), spec)
    return crossed.reshape(N_POINTS, -1).mean(axis=1)


def _occlusion(camera: CameraModel, spec: TimeVectorsSpec) -> tuple[np.ndarray, ...]:
    """Sample rays from the camera to each top disc; which tokens (and the post) block them."""
    centres = spec.point_centres()
    radius, tall = spec.token_diameter / 2, spec.token_height
    samples = _top_disc_samples(spec)
    origin = camera.centre_mm()
    owner = np.repeat(np.arange(N_POINTS), len(DISC_SAMPLES))
    blocked = _ray_cylinder_blocked(
        origin, samples, centres[:, :2], radius, centres[:, 2], centres[:, 2] + tall
    )
    blocked[np.arange(len(samples)), owner] = False
    post = np.zeros(len(samples), bool)
    for r, z0, z1 in _post_cylinders(spec):
        post |= _ray_cylinder_blocked(
            origin, samples, np.zeros((1, 2)), r, np.array([z0]), np.array([z1])
        )[:, 0]
    ray_point, blocking = np.nonzero(blocked)
    post_visibility = 1.0 - post.reshape(N_POINTS, -1).mean(axis=1)
    counts = np.zeros((N_POINTS, N_POINTS))
    np.add.at(counts, (owner[ray_point], blocking), 1)
    far, near = np.nonzero(counts)
    overlap = np.column_stack([far, near, counts[far, near] / len(DISC_SAMPLES)])
    return ray_point, blocking, post_visibility, overlap


def _line_tier(
    camera: CameraModel, spec: TimeVectorsSpec, size: tuple[int, int], scale: tuple[float, float]
) -> np.ndarray:
    """Per working pixel, the highest tier whose printed grid lines or cut edge pass through it
    (-1: none): each line drawn one working pixel wide, anti-aliased, a pixel counting where the
    line covers at least a quarter of it; the plate's edge is its four side faces (the cut
    acrylic catches the light) and the outlines of its top and bottom faces."""
    width, height = size
    out = np.full(width * height, -1, np.int8)
    for tier in range(4):
        canvas = np.zeros((height, width), np.uint8)
        z = spec.tier_spacing * tier
        lines = [frame_to_working(camera.project(line), scale) for line in grid_lines(spec, tier)]
        fixed = [np.round(px * 16).astype(np.int32) for px in lines]
        cv2.polylines(canvas, fixed, False, 255, 1, cv2.LINE_AA, 4)
        faces = [
            frame_to_working(camera.project(spec.plate_corners(tier, z_mm=height_mm)), scale)
            for height_mm in (z, z - spec.plate_thickness)
        ]
        outlines = [np.round(face * 16).astype(np.int32) for face in faces]
        cv2.polylines(canvas, outlines, True, 255, 1, cv2.LINE_AA, 4)
        for i in range(4):
            j = (i + 1) % 4
            side = np.array([faces[0][i], faces[0][j], faces[1][j], faces[1][i]])
            cv2.fillConvexPoly(canvas, np.round(side * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
        out[canvas.reshape(-1) >= 64] = tier
    return out


def build_footprints(
    camera: CameraModel, spec: TimeVectorsSpec, size: tuple[int, int] | None = None
) -> Footprints:
    """Precompute the footprints of all 256 points for one calibration (a fraction of a second).

    ``size`` forces the working-image size (default: :func:`working_size`).
    Raises ``ValueError`` if the camera is not in front of the board.
    """
    centres = spec.point_centres()
    if (camera.to_camera(centres)[:, 2] <= 0).all():
        raise ValueError("the camera does not look at the board (every point is behind it)")
    camera = through_plates(camera, spec)  # a token below a plate shows shifted by it
    size = size or working_size(camera, spec)
    scale = (size[0] / camera.image_size[0], size[1] / camera.image_size[1])
    cores, tops, sils, rings, in_image = _project_regions(camera, spec, size, scale)
    cores, tops, sils = _without_post((cores, tops, sils), camera, spec, scale, size)
    ray_point, blocking, post_visibility, overlap = _occlusion(camera, spec)
    tops_ps = PixelSets.from_lists(tops)
    visible_tops = tops_ps.count[tops_ps.count > 0]
    line_tier = _line_tier(camera, spec, size, scale)
    tiers = np.arange(N_POINTS) // 16 % 4
    tops_top = centres.copy()
    tops_top[:, 2] += spec.token_height
    depth = np.linalg.norm(tops_top - camera.centre_mm()[None, :], axis=1)
    footprints = Footprints(
        size=size,
        scale=scale,
        core=PixelSets.from_lists(cores),
        top=tops_ps,
        silhouette=PixelSets.from_lists(sils),
        ring=PixelSets.from_lists(rings),
        depth=depth,
        in_image=in_image,
        post_visibility=post_visibility,
        rays_per_point=len(DISC_SAMPLES),
        ray_point=ray_point,
        blocking=blocking,
        overlap=overlap,
        board_mask=_board_mask(camera, spec, size, scale),
        post_polygon=_post_polygon(camera, spec),
        disc_area=float(np.median(visible_tops)) if len(visible_tops) else 0.0,
        tier=tiers,
        line_tier=line_tier,
        plates_above=_plates_above(camera, spec),
        rim=_rim_pairs(camera, spec, size, scale, line_tier, tiers),
    )
    logger.debug("footprints: working size %s, disc %.0f px", size, footprints.disc_area)
    return footprints
