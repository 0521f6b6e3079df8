"""Colour model: learn what the token sets look like through this camera, never assume it.

Colours are compared in a space that a change of light or white balance barely
moves: every frame is first divided by its per-channel gain against the
reference (empty-board) appearance, then mapped to opponent chroma (two
intensity-free axes) plus log brightness. Token colours are *prototypes* in
that space, learned from the tokens seen (clustering) and, when the user gives
a palette of nominal RGB colours, matched to it by hue after a grey-world
correction of the reference (the palette says "red, blue, yellow", not what
this camera makes of them).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from calibration.colour_mixture import refine_partition

logger = logging.getLogger(__name__)

RGB = tuple[int, int, int]

CHROMA_SCALE = 0.045  # opponent-chroma difference treated as one unit of distance
LIGHT_SCALE = 0.30  # log-brightness difference treated as one unit of distance
MERGE_DISTANCE = 3.0  # token colours nearer than this (in matching units) are one colour
# Through one to three tinted plates and in the shadow of upper tiers one token set
# changes in saturation and brightness far more than in hue: weigh them accordingly.
# Saturation is compared as a ratio: the plates' wash shrinks a set's saturation by a
# factor, and a grey set and a pink one differ by a far larger factor than one set does
# across the tiers (compared as a difference, the two were closer than pink on the top
# tier and pink three plates down). Below the floor, chroma is mostly noise: greys alike.
SATURATION_WEIGHT = 3.0  # per unit of log saturation ratio (a factor of e: another colour)
SATURATION_FLOOR = 1.0  # chroma units added to both saturations before their ratio
LIGHT_WEIGHT = 0.6
DEFAULT_MAX_COLOURS = 3  # the reference board ships three token sets
STRAY_SHARE = 0.05  # a cluster with a smaller share of the unmatched samples is not a new colour
GAP_FACTOR = 2.5  # groups this many times farther apart than their members are two colours
GAP_FLOOR = 0.5  # a spread below this is sensor noise: no gap is measured against less
GAP_MIN_SIZE = 4  # members each group needs before a gap can keep it apart
BRIGHTNESS_FLOOR = 0.25  # brightness spread (feature units, ~8%) no set is tighter than
BIMODAL_RATIO = 10.0  # unwashed tokens' brightness modes this many pooled spreads apart: two sets
BIMODAL_FLOOR = 0.05  # ... measured against no less spread than this (sensor noise)
SPREAD_SIGNIFICANCE = 5.0  # standard errors a set's wider spread must stand out of chance
FOLLOW_RATE = 0.1  # how fast a known colour follows the tokens matched to it
_EPS = 12.0  # dark pixels carry little chroma information: damp them


class PaletteError(ValueError):
    """A palette that is not a list of ``[r, g, b]`` colours in 0..255."""


def parse_palette(data: object) -> list[RGB]:
    """Validate a palette as given by a user (``[[r, g, b], ...]``); raises :class:`PaletteError`."""
    if not isinstance(data, (list, tuple)) or not data:
        raise PaletteError("a palette is a non-empty list of [r, g, b] colours")
    colours: list[RGB] = []
    for i, entry in enumerate(data):
        if (
            not isinstance(entry, (list, tuple))
            or len(entry) != 3
            or not all(
                isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255 for v in entry
            )
        ):
            raise PaletteError(
                f"palette entry {i} is {entry!r}; expected [r, g, b] with integers 0-255"
            )
        colours.append((entry[0], entry[1], entry[2]))
    if len(set(colours)) != len(colours):
        raise PaletteError("the palette names the same colour twice")
    return colours


def features(bgr: np.ndarray) -> np.ndarray:
    """``(..., 3)`` BGR values -> ``(..., 3)`` (chroma1, chroma2, log brightness), float32.

    The chroma axes do not change when the light gets brighter or dimmer; the
    third axis does and is weighted separately (shadows darken, tokens differ).
    """
    bgr = np.asarray(bgr, dtype=np.float32)
    out = np.empty(bgr.shape[:-1] + (3,), np.float32)
    for k, column in enumerate(feature_columns(bgr[..., 0], bgr[..., 1], bgr[..., 2])):
        out[..., k] = column
    return out


def feature_columns(
    b: np.ndarray, g: np.ndarray, r: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`features` of separate float32 B, G and R arrays, as three arrays: numpy runs
    several times faster on whole columns than on the interleaved channels of pixel rows."""
    total = b + g + r + _EPS
    return (
        (r - g) / total / CHROMA_SCALE,
        (r + g - 2 * b) / total / CHROMA_SCALE,
        np.log(total / 3) / LIGHT_SCALE,
    )


def noise_scale(reference_bgr: np.ndarray) -> np.ndarray:
    """``(N, 2)``: how much one grey level of difference noise moves the chroma and the
    brightness features of each reference pixel (dark pixels: much more)."""
    total = np.asarray(reference_bgr, np.float32).sum(axis=1) + _EPS
    chroma = np.sqrt(2.0) / total / CHROMA_SCALE
    light = np.sqrt(3.0) / total / LIGHT_SCALE
    return np.stack([chroma, light], axis=1)


def lowest_channel(bgr: np.ndarray) -> np.ndarray:
    """Each ``(n, 3)`` row's smallest value, channel by channel (numpy reduces along rows of
    three many times slower)."""
    return np.minimum(np.minimum(bgr[:, 0], bgr[:, 1]), bgr[:, 2])


def highest_channel(bgr: np.ndarray) -> np.ndarray:
    """Each ``(n, 3)`` row's largest value (as :func:`lowest_channel`)."""
    return np.maximum(np.maximum(bgr[:, 0], bgr[:, 1]), bgr[:, 2])


CLIPPED = 250  # a channel value at or above this may stand for any brighter one


def ratio_usable(frame_bgr: np.ndarray) -> np.ndarray:
    """Frame pixels whose ratio to the reference means something: not near black, not
    clipped (the reference side must not be dark either: ``lowest_channel(ref) > 20``)."""
    return (lowest_channel(frame_bgr) > 5) & (highest_channel(frame_bgr) < CLIPPED)


def unclipped_pair(
    frame_bgr: np.ndarray,
    frame_clipped: np.ndarray,
    reference_bgr: np.ndarray,
    reference_clipped: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """A frame's pixels (gain-normalised) and the reference's, ``(n, 3)`` each, with every
    clipped channel (``*_clipped``, ``(n, 3)`` masks) that the other side does not contradict
    set to the other's value: a clipped channel only says "at least this bright". Under a
    warmer white balance a white table clips in red and looked changed there (tokens read
    on empty points); a channel that is clipped yet darker than the other side is a change."""
    frame = np.where(frame_clipped & (reference_bgr > frame_bgr), reference_bgr, frame_bgr)
    reference = np.where(reference_clipped & (frame > reference_bgr), frame, reference_bgr)
    return frame, reference


def channel_gain(frame_bgr: np.ndarray, reference_bgr: np.ndarray) -> np.ndarray:
    """Per-channel gain of a frame against the reference over the same ``(N, 3)`` pixels.

    The median ratio ignores the minority of pixels that changed (tokens, a hand),
    so it measures only the light and white balance. Returns ``(3,)``, 1.0 when unknown.
    """
    frame = np.asarray(frame_bgr, np.float32)
    ref = np.asarray(reference_bgr, np.float32)
    usable = (lowest_channel(ref) > 20) & ratio_usable(frame)
    if usable.sum() < 50:
        return np.ones(3, np.float32)
    ratio = frame[usable] / ref[usable]
    return np.median(ratio, axis=0).astype(np.float32)


def grey_world(reference_bgr: np.ndarray) -> np.ndarray:
    """Per-channel factors that make the average of the reference neutral grey (``(3,)``)."""
    mean = np.asarray(reference_bgr, np.float32).reshape(-1, 3).mean(axis=0)
    return mean.mean() / np.maximum(mean, 1.0)


def _hue_angle_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Angle between two chroma vectors (0..pi); achromatic ones compare by brightness."""
    na, nb = np.linalg.norm(a[:2]), np.linalg.norm(b[:2])
    if na < 1.0 or nb < 1.0:  # a grey/white/black token: hue means nothing
        return abs(na - nb) + abs(a[2] - b[2])
    cos = float(np.dot(a[:2], b[:2]) / (na * nb))
    return float(np.arccos(np.clip(cos, -1, 1))) * 3.0 + 0.05 * abs(a[2] - b[2])


@dataclass
class ColourModel:
    """Token colours as prototypes in gain-normalised feature space.

    ``palette`` (nominal RGB) fixes how many colours there are and their order;
    without it, colours are numbered in the order they were first seen, up to
    ``max_colours``.
    ``reference_balance`` is the grey-world correction of the empty board, so
    learned prototypes can be compared with nominal palette colours.
    """

    palette: list[RGB] | None = None
    reference_balance: np.ndarray = field(default_factory=lambda: np.ones(3, np.float32))
    prototypes: dict[int, np.ndarray] = field(default_factory=dict)
    max_colours: int = DEFAULT_MAX_COLOURS
    # The samples (indices into those of the latest ``learn`` call) each colour that call
    # founded was founded on: the set's members as the mixture chose them.
    founded_on: dict[int, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_colours(self) -> int:
        """How many colour columns an observation has: up to the highest colour known (the
        game may found colour 2 before colour 1 is known)."""
        if self.palette is not None:
            return len(self.palette)
        return max(self.prototypes) + 1 if self.prototypes else 0

    @property
    def is_full(self) -> bool:
        """Every colour slot (palette entry, or ``max_colours``) has a learned prototype."""
        limit = len(self.palette) if self.palette is not None else self.max_colours
        return len(self.prototypes) >= limit

    def prototype_array(self) -> tuple[np.ndarray, np.ndarray]:
        """``(indices, features)`` of the known prototypes (``(m,)`` and ``(m, 3)``)."""
        return prototype_array(self.prototypes)

    def nearest(self, feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Nearest prototype index (colour index, -1 if none known) and distance per row."""
        return nearest_prototype(feats, self.prototypes, match_distance)

    def found(
        self, colour: int, sample: np.ndarray, unsure: Mapping[int, float] | None = None
    ) -> bool:
        """Make ``sample`` (one token's feature) colour ``colour`` when the game says whose
        token it is and that colour is not known yet: the first token of a set founds it
        even when it lies within the merge radius of another set (a dark set after a grey
        one). Refused (returns False) for a colour out of range, an already known one, or a
        sample another known colour explains as tightly as its own tokens lie. ``unsure``
        (known colour -> feature units) is how far a known colour may look off its
        prototype where the sample was seen (behind other plates than it was learned
        behind, say): it explains the sample tightly only if it does so that much off too.
        A grey token two plates down matched a white set learned one plate down, and grey
        was never founded: every grey move read as white's (bench game 9602)."""
        limit = len(self.palette) if self.palette is not None else self.max_colours
        if not 0 <= colour < limit or colour in self.prototypes:
            return False
        sample = np.asarray(sample, np.float32).reshape(3)
        keys, protos = self.prototype_array()
        if len(keys):
            off = np.array([(unsure or {}).get(int(k), 0.0) for k in keys])
            if (match_distance(sample[None, :], protos)[0] + off <= GAP_FACTOR * GAP_FLOOR).any():
                return False
        self.prototypes[colour] = sample.copy()
        logger.info(
            "colour %d founded by the game's first token of it: %s", colour, np.round(sample, 2)
        )
        return True

    def forget(self, colour: int) -> None:
        """Drop colour ``colour``'s prototype (the game says what founded it was no token of
        that set); the next token the game says is of it founds it again."""
        if self.prototypes.pop(colour, None) is not None:
            logger.info("colour %d forgotten: what founded it was no token of that set", colour)

    def learn(
        self,
        samples: np.ndarray,
        sets: np.ndarray | None = None,
        unwashed: np.ndarray | None = None,
    ) -> list[int]:
        """Take in the colours of tokens seen (``(n, 3)`` features, in order of appearance).

        Samples that match no known colour are clustered and each cluster becomes a
        new colour (without a palette, numbered in order of first appearance, at most
        ``max_colours``; with one, the free palette entry nearest in hue). Known colours
        follow their matched samples slowly, so a prototype first seen through three
        plates settles on what the set looks like across the board. ``sets`` (optional,
        ``(n,)``) is the colour each sample is known to be (the game's word; -1: not
        known): such a sample teaches its own colour, however far it lies from it, so a
        colour founded from a washed-out first token learns what its set looks like.
        ``unwashed`` (optional, ``(n,)`` bool) marks the samples seen through no plate: a
        new group whose unwashed members fall into two tight brightness modes is two
        colours (see :func:`split_by_unwashed`). Returns the new colour indices.
        """
        samples = np.asarray(samples, np.float32).reshape(-1, 3)
        self.founded_on = {}
        if len(samples) == 0:
            return []
        index, dist = self.nearest(samples)
        known = dist <= MERGE_DISTANCE
        if sets is not None:
            sets = np.asarray(sets, np.int64).reshape(-1)
            told = np.isin(sets, list(self.prototypes))
            index = np.where(told, sets, index)
            known |= told
        for colour in np.unique(index[known]):
            matched = samples[known & (index == colour)]
            self.prototypes[int(colour)] += FOLLOW_RATE * (
                matched.mean(axis=0) - self.prototypes[int(colour)]
            )
        created: list[int] = []
        if known.all() or self.is_full:
            return created
        # Cluster everything seen (the known colours anchor the grouping), keep the new groups.
        limit = len(self.palette) if self.palette is not None else self.max_colours
        # A new colour needs a share of the unmatched samples: one stray reading among
        # many tokens (a half-hidden or mis-read one) must not take a colour's place.
        min_size = max(1, int(np.ceil(STRAY_SHARE * np.sum(~known))))
        clusters = [
            (centre, members)
            for centre, members in cluster(samples, max_clusters=limit, min_size=min_size)
            if not known[members].any()
            and len(members) >= min_size
            and self.nearest(centre[None, :])[1][0] > MERGE_DISTANCE
        ]
        room = limit - len(self.prototypes) - len(clusters)
        if unwashed is not None and room > 0 and clusters:
            groups = split_by_unwashed(
                samples, [m.tolist() for _, m in clusters], np.asarray(unwashed, bool), room
            )
            clusters = sorted(
                ((np.median(samples[g], axis=0).astype(np.float32), np.array(g)) for g in groups),
                key=lambda item: int(item[1][0]),
            )
        if self.palette is None:
            for centre, members in clusters:
                if len(self.prototypes) >= self.max_colours:
                    break
                # (the lowest free number: the game may have founded a later one first)
                colour = min(set(range(self.max_colours)) - set(self.prototypes))
                self.prototypes[colour], self.founded_on[colour] = centre, members
                created.append(colour)
        else:
            free = [i for i in range(len(self.palette)) if i not in self.prototypes]
            for k, colour in self._assign_to_palette([c for c, _ in clusters], free):
                self.prototypes[colour], self.founded_on[colour] = clusters[k]
                created.append(colour)
        for colour in created:
            logger.info("learned token colour %d: %s", colour, np.round(self.prototypes[colour], 2))
        return created

    def _assign_to_palette(
        self, centres: list[np.ndarray], free: list[int]
    ) -> list[tuple[int, int]]:
        """Best one-to-one matching of new clusters to free palette entries by hue:
        ``(index into centres, palette entry)`` pairs."""
        if not free or not centres or self.palette is None:
            return []
        nominal = palette_features(self.palette)
        # Undo the camera's cast on the learned colours before comparing hues.
        observed = [features(feature_to_bgr(c) * self.reference_balance) for c in centres]
        best: tuple[float, list[tuple[int, int]]] = (np.inf, [])
        n = min(len(observed), len(free))
        for chosen in itertools.permutations(range(len(observed)), n):
            for targets in itertools.permutations(free, n):
                cost = sum(
                    _hue_angle_distance(observed[i], nominal[t]) for i, t in zip(chosen, targets)
                )
                if cost < best[0]:
                    best = (cost, list(zip(chosen, targets)))
        return best[1]

    def to_dict(self) -> dict:
        """JSON-ready state (learned prototypes survive a restart)."""
        return {
            "palette": [list(c) for c in self.palette] if self.palette is not None else None,
            "reference_balance": [float(v) for v in self.reference_balance],
            "prototypes": {str(k): [float(v) for v in p] for k, p in self.prototypes.items()},
        }

    @classmethod
    def from_dict(cls, data: dict) -> ColourModel:
        """Inverse of :meth:`to_dict`; raises :class:`PaletteError` or ``ValueError`` on bad data."""
        try:
            palette = parse_palette(data["palette"]) if data.get("palette") is not None else None
            balance = np.array(data.get("reference_balance", [1, 1, 1]), np.float32).reshape(3)
            protos = {
                int(k): np.array(v, np.float32).reshape(3)
                for k, v in data.get("prototypes", {}).items()
            }
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"colour model data is malformed: {exc!r}") from exc
        return cls(palette=palette, reference_balance=balance, prototypes=protos)


def palette_features(palette: Sequence[RGB]) -> np.ndarray:
    """``(n, 3)`` features of nominal RGB palette colours, to compare learned colours with."""
    return features(np.array([[b, g, r] for r, g, b in palette], np.float32))


def prototype_array(prototypes: Mapping[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, features)`` of learned colour prototypes in index order (``(m,)`` and
    ``(m, 3)``), for vectorised matching."""
    if not prototypes:
        return np.zeros(0, np.int64), np.zeros((0, 3), np.float32)
    keys = sorted(prototypes)
    return np.array(keys), np.stack([prototypes[k] for k in keys])


def nearest_prototype(
    feats: np.ndarray,
    prototypes: Mapping[int, np.ndarray],
    distance: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Nearest prototype's colour index (-1 when none is known) and its ``distance`` (an
    ``(n, m)`` distance function: each colour model has its own) per row of ``feats``."""
    keys, protos = prototype_array(prototypes)
    if len(keys) == 0:
        return np.full(len(feats), -1), np.full(len(feats), np.inf, np.float32)
    d = distance(feats, protos)
    best = np.argmin(d, axis=1)
    return keys[best], d[np.arange(len(feats)), best]


def colour_shares(
    distances: np.ndarray, width: float = 1.5, error: np.ndarray | None = None
) -> np.ndarray:
    """``(n, m)`` probabilities that each of n samples is each of m known colours, from
    their feature distances (Gaussian of ``width`` feature units, rows summing to 1). A
    sample whose own colour may be ``error`` units off (``(n,)``, or ``(n, m)``: off by
    another amount against each colour) is told less surely: its Gaussian widens by that
    much (added in quadrature)."""
    if error is None:
        spread: float | np.ndarray = width
    else:
        error = np.asarray(error)
        spread = np.hypot(width, error if error.ndim == 2 else error[:, None])
    likelihood = np.exp(-0.5 * (distances / spread) ** 2) + 1e-6
    return likelihood / likelihood.sum(axis=1, keepdims=True)


def match_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(n, m)`` colour distances between feature rows of ``a`` and of ``b``.

    Hue difference counts as the arc at the lower of the two saturations (so hue
    means nothing for greys), saturation as the ratio of the two (above a noise floor),
    brightness difference counts less.
    """
    # Worked out as (m, n) and returned transposed: numpy's inner loops then run over the many
    # rows of ``a`` rather than the few of ``b`` (over a handful, each step costs far more).
    return _distance(
        np.asarray(a, np.float32).reshape(1, -1, 3), np.asarray(b, np.float32).reshape(-1, 1, 3)
    ).T


def pair_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(n,)`` colour distances (as :func:`match_distance`) between row ``i`` of ``a`` and of ``b``."""
    return _distance(np.asarray(a, np.float32), np.asarray(b, np.float32))


def _distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    sat_a, sat_b = np.hypot(a[..., 0], a[..., 1]), np.hypot(b[..., 0], b[..., 1])
    dot = a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]
    angle = np.arccos(np.clip(dot / np.maximum(sat_a * sat_b, 1e-6), -1.0, 1.0))
    return (
        np.minimum(sat_a, sat_b) * angle
        + SATURATION_WEIGHT
        * np.abs(np.log((sat_a + SATURATION_FLOOR) / (sat_b + SATURATION_FLOOR)))
        + LIGHT_WEIGHT * np.abs(a[..., 2] - b[..., 2])
    )


def cluster(
    samples: np.ndarray,
    radius: float = MERGE_DISTANCE,
    max_clusters: int | None = None,
    min_size: int = 1,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Group feature rows into colours by average-linkage agglomeration: the two closest
    groups merge until every pair is farther apart than ``radius`` and there are at most
    ``max_clusters`` groups of at least ``min_size`` members (smaller groups are stray
    readings: they do not count against the limit, so they cannot force two true
    colours together). Past the radius, where the limit forces a merge, a group of
    fewer than ``GAP_MIN_SIZE`` members joins its nearest group first. Within the
    limit, two well-filled groups (``GAP_MIN_SIZE`` members each) much farther apart
    than their own members are (``GAP_FACTOR``) stay apart even inside ``radius``: a
    grey set and a dark one differ mostly in brightness, which the distance weighs
    lightly. Then a group that spreads like two sets of one hue is split
    (:func:`_split_merged_sets`), and a few odd readings give way to it
    (:func:`_fold_strays`). Last, with the number of sets so settled, which token
    belongs to which set is chosen again as the most likely Gaussian mixture
    (:func:`_most_likely_sets`).

    Returns ``[(median feature, member indices), ...]`` ordered by each group's
    first member (so colours are numbered in order of first appearance).
    """
    samples = np.asarray(samples, np.float32).reshape(-1, 3)
    groups = [[i] for i in range(len(samples))]
    if not groups:
        return []
    dist = match_distance(samples, samples)
    np.fill_diagonal(dist, np.inf)
    sizes = np.ones(len(samples))
    alive = np.ones(len(samples), bool)
    spread_sum = np.zeros(len(samples))  # per group: the sum of its members' pair distances
    while alive.sum() > 1:
        flat = int(np.argmin(dist))
        i, j = divmod(flat, len(samples))
        within_limit = max_clusters is None or np.sum(sizes[alive] >= min_size) <= max_clusters
        if within_limit and dist[i, j] > radius:
            break
        if dist[i, j] > radius:
            # Beyond the radius only the colour limit forces a merge: a few odd readings (a
            # token in deep shadow) join their nearest group before two sets merge.
            small = alive & (sizes < GAP_MIN_SIZE)
            if small.any():
                i, j = divmod(int(np.argmin(np.where(small[:, None], dist, np.inf))), len(samples))
        if (
            within_limit
            and max_clusters is not None
            and min(sizes[i], sizes[j]) >= GAP_MIN_SIZE
            and dist[i, j] > GAP_FACTOR * _pooled_spread(spread_sum, sizes, i, j)
        ):
            break
        i, j = min(i, j), max(i, j)
        # Average linkage: the distance of two groups is the mean of their cross pairs.
        spread_sum[i] += spread_sum[j] + dist[i, j] * sizes[i] * sizes[j]
        # Average linkage update (Lance-Williams), then retire j.
        merged = (dist[i] * sizes[i] + dist[j] * sizes[j]) / (sizes[i] + sizes[j])
        dist[i, :], dist[:, i] = merged, merged
        dist[i, i] = np.inf
        dist[j, :], dist[:, j] = np.inf, np.inf
        sizes[i] += sizes[j]
        alive[j] = False
        groups[i] += groups[j]
        groups[j] = []
    kept = [sorted(members) for members in groups if members]
    if max_clusters is not None:
        kept = _split_merged_sets(samples[:, 2], kept, max_clusters, min_size)
        kept = _fold_strays(samples, kept, max_clusters, min_size)
        kept = _most_likely_sets(samples, kept, min_size)
    out = [
        (np.median(samples[members], axis=0).astype(np.float32), np.array(members))
        for members in kept
    ]
    out.sort(key=lambda item: item[1][0])
    return out


def _split_merged_sets(
    brightness: np.ndarray, groups: list[list[int]], limit: int, min_size: int
) -> list[list[int]]:
    """``groups`` with a group split in two by brightness while there is room for another
    colour and one group's brightness is spread ``GAP_FACTOR`` times wider than the
    tightest other set's: the sets lie under the same light and plates, so they spread
    alike, and a group that spreads far wider holds two sets of one hue (navy and blue, a
    near-black and a grey) whose noisy, washed chroma let them merge. The spreads of a few
    tokens vary by chance, so the widening must also stand ``SPREAD_SIGNIFICANCE``
    standard errors out of that chance (of the log of the ratio of their variances: about
    ``2/(n-1)`` each): two sets of 8 alike must not be split on a fluke."""
    while sum(len(g) >= max(min_size, GAP_MIN_SIZE) for g in groups) < limit:
        sets = [g for g in groups if len(g) >= max(min_size, GAP_MIN_SIZE)]
        if len(sets) < 2:
            break
        spread = [float(np.std(brightness[g])) for g in sets]
        # Only a group with room for GAP_MIN_SIZE members on each side can be split.
        splittable = [k for k, g in enumerate(sets) if len(g) >= 2 * GAP_MIN_SIZE]
        if not splittable:
            break
        w = max(splittable, key=lambda k: spread[k])
        t = min((k for k in range(len(sets)) if k != w), key=lambda k: spread[k])
        ratio = spread[w] / max(spread[t], BRIGHTNESS_FLOOR)
        chance = np.sqrt(2.0 / (len(sets[w]) - 1) + 2.0 / (len(sets[t]) - 1))
        if ratio < GAP_FACTOR or 2.0 * np.log(ratio) < SPREAD_SIGNIFICANCE * chance:
            break
        widest = sets[w]
        order = np.argsort(brightness[widest])
        best, _ = _best_split(brightness[widest])
        members = np.array(widest)[order]
        groups = [g for g in groups if g is not widest]
        groups += [sorted(members[:best].tolist()), sorted(members[best:].tolist())]
    return groups


def _best_split(values: np.ndarray) -> tuple[int, float]:
    """Where to cut ``values`` once sorted (at least ``GAP_MIN_SIZE`` on each side) for the
    most variance between the two sides, and how far apart the two sides' means then lie
    in units of their pooled spread (never below ``BIMODAL_FLOOR``)."""
    ordered = np.sort(np.asarray(values, np.float64))
    n = len(ordered)
    left = np.arange(GAP_MIN_SIZE, n - GAP_MIN_SIZE + 1)
    sums, squares = np.cumsum(ordered), np.cumsum(ordered * ordered)
    mean_low = sums[left - 1] / left
    mean_high = (sums[-1] - sums[left - 1]) / (n - left)
    best = int(np.argmax(left * (n - left) * (mean_high - mean_low) ** 2))
    cut = int(left[best])
    within = (squares[-1] - cut * mean_low[best] ** 2 - (n - cut) * mean_high[best] ** 2) / n
    spread = max(float(np.sqrt(max(within, 0.0))), BIMODAL_FLOOR)
    return cut, float(mean_high[best] - mean_low[best]) / spread


def split_by_unwashed(
    samples: np.ndarray,
    groups: list[list[int]],
    unwashed: np.ndarray,
    room: int,
) -> list[list[int]]:
    """``groups`` of ``samples`` with up to ``room`` of them split in two where their
    ``unwashed`` members (tokens seen through no plate) fall into two tight brightness
    modes, ``BIMODAL_RATIO`` pooled spreads apart. White and grey sets differ by little
    more than brightness, and the tokens washed by the plates or shaded by tokens above
    fill the gap between them, so the whole group looks like one widely spread set; seen
    unwashed, each set is tight. The other members join the side whose unwashed median
    they lie nearest. (One set spread by chance or by uneven light splits that far apart
    about once in 5,000 sets of 8 to 30 tokens: normal, uniform and log-normal spreads.)"""
    groups = [list(g) for g in groups]
    for _ in range(room):
        candidates = []
        for k, members in enumerate(groups):
            clear = np.asarray(members, np.int64)
            clear = clear[unwashed[clear]]
            if len(clear) >= 2 * GAP_MIN_SIZE:
                cut, ratio = _best_split(samples[clear, 2])
                if ratio >= BIMODAL_RATIO:
                    candidates.append((ratio, k, clear, cut))
        if not candidates:
            break
        _, k, clear, cut = max(candidates, key=lambda candidate: candidate[0])
        ordered = clear[np.argsort(samples[clear, 2], kind="stable")]
        sides = [ordered[:cut], ordered[cut:]]
        centres = np.stack([np.median(samples[side], axis=0) for side in sides])
        members = np.array(groups.pop(k))
        side_of = np.argmin(match_distance(samples[members], centres), axis=1)
        side_of[np.isin(members, sides[0])] = 0  # (the unwashed keep the side they were cut to)
        side_of[np.isin(members, sides[1])] = 1
        groups += [sorted(members[side_of == s].tolist()) for s in (0, 1)]
    return groups


def _fold_strays(
    samples: np.ndarray, groups: list[list[int]], limit: int, min_size: int
) -> list[list[int]]:
    """``groups`` with the smallest groups of fewer than ``GAP_MIN_SIZE`` members joined to
    the group their members lie nearest on average, while more than ``limit`` groups hold
    ``min_size`` members: a few odd readings give way to a split set."""
    groups = [list(g) for g in groups]
    while sum(len(g) >= min_size for g in groups) > limit:
        small = [k for k, g in enumerate(groups) if min_size <= len(g) < GAP_MIN_SIZE]
        if not small:
            break
        stray = groups.pop(min(small, key=lambda k: len(groups[k])))
        nearest = min(
            range(len(groups)),
            key=lambda k: float(match_distance(samples[stray], samples[groups[k]]).mean()),
        )
        groups[nearest] = sorted(groups[nearest] + stray)
    return groups


def _most_likely_sets(
    samples: np.ndarray, groups: list[list[int]], min_size: int
) -> list[list[int]]:
    """``groups`` with the members of those of at least ``min_size`` chosen again as the most
    likely Gaussian mixture of as many sets (:mod:`calibration.colour_mixture`): the greedy
    merges count the sets well but can split a widely spread set and join two close ones.
    Smaller groups (stray readings) are left as they are."""
    sets = [g for g in groups if len(g) >= min_size]
    if len(sets) < 2:
        return groups
    members = np.array(sorted(i for g in sets for i in g))
    position = {int(i): k for k, i in enumerate(members)}
    refined = refine_partition(samples[members], [[position[i] for i in g] for g in sets])
    strays = [g for g in groups if len(g) < min_size]
    return [members[g].tolist() for g in refined] + strays


def _pooled_spread(spread_sum: np.ndarray, sizes: np.ndarray, i: int, j: int) -> float:
    """Mean distance between two members of the same group, over groups ``i`` and ``j``
    (never below the noise floor)."""
    pairs = (sizes[i] * (sizes[i] - 1) + sizes[j] * (sizes[j] - 1)) / 2
    return max(GAP_FLOOR, float((spread_sum[i] + spread_sum[j]) / pairs) if pairs else 0.0)


def feature_to_bgr(feature: np.ndarray) -> np.ndarray:
    """Inverse of :func:`features`: the BGR colour (0..255 floats) each ``(..., 3)`` row
    stands for."""
    scaled = np.asarray(feature, np.float64) * np.array([CHROMA_SCALE, CHROMA_SCALE, LIGHT_SCALE])
    c1, c2, light = scaled[..., 0], scaled[..., 1], scaled[..., 2]
    total = 3 * np.exp(light)
    plain = total - _EPS  # r + g + b
    # r - g = c1 * total and r + g - 2b = c2 * total.
    b = (plain - c2 * total) / 3
    r = (plain - b + c1 * total) / 2
    g = plain - b - r
    return np.stack([b, g, r], axis=-1)


def display_colours(model: ColourModel) -> dict[int, RGB]:
    """Approximate RGB of every learned colour, for drawings and the dashboard."""
    out: dict[int, RGB] = {}
    for index, proto in model.prototypes.items():
        b, g, r = np.clip(feature_to_bgr(proto), 0, 255)
        out[index] = (int(r), int(g), int(b))
    return out
