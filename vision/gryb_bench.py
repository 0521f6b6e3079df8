"""``boardcam bench vision --board gryb``: calibration and ring reading on rendered wrinkled bandannas.

For each scene (random camera, cloth, ring colours, light, cast, noise, blur,
JPEG and a wrinkled cloth that one homography misplaces by up to a centimetre
or more): calibrate from the true corner clicks and the empty picture, report
the node location error against the exact ground truth; then read pictures
with random rings (some under a changed light) and count wrong nodes; then play
a short sequence with hands reaching in through the tracker and count the moves
it recovers. Observer time per frame is printed beside JPEG decode time.
"""

from __future__ import annotations

import dataclasses
import time
from typing import TextIO

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.gryb_calibfile import GrybCalibration
from calibration.gryb_fit import apply_homography, fit_bandanna, parse_gryb_clicks, px_per_mm
from calibration.gryb_spec import GrybSpec, load_gryb_spec
from vision.gryb_observer import GrybObserver
from vision.gryb_render import (
    BandannaStyle,
    RenderedBandanna,
    Wrinkles,
    random_bandanna_scene,
    render_bandanna,
)
from vision.render_hand import HandSpec
from vision.tracker import Tracker

N_NODES = 341
BENCH_SIZES = ((1280, 960), (1640, 1232))
LOCATED_PX = 3.0  # a node located within this many pixels counts as located


@dataclasses.dataclass
class BenchTotals:
    """Running counts of the bench (what the summary lines are made of)."""

    location_errors: list[float] = dataclasses.field(default_factory=list)
    homography_errors: list[float] = dataclasses.field(default_factory=list)
    nodes_read: int = 0
    nodes_wrong: int = 0
    moves_played: int = 0
    moves_found: int = 0
    moves_right: int = 0
    observe_ms: list[float] = dataclasses.field(default_factory=list)
    decode_ms: list[float] = dataclasses.field(default_factory=list)

    @property
    def wrong_fraction(self) -> float:
        """Fraction of node readings that were wrong (ring where none, none where one, wrong colour)."""
        return self.nodes_wrong / max(self.nodes_read, 1)


def _random_rings(rng: np.random.Generator, count: int) -> dict[int, int]:
    return {int(n): int(rng.integers(2)) for n in rng.choice(N_NODES, size=count, replace=False)}


def _colour_mapping(read: np.ndarray, truth: np.ndarray) -> dict[int, int]:
    """The observer numbers ring colours itself: map its numbers to the renderer's by majority."""
    options = ({0: 0, 1: 1}, {0: 1, 1: 0})
    return max(
        options, key=lambda m: sum(int(np.sum((read == k) & (truth == v))) for k, v in m.items())
    )


def wrong_nodes(
    states: np.ndarray, rings: dict[int, int], mapping: dict[int, int] | None = None
) -> np.ndarray:
    """Indices of nodes read wrong (states -1 empty or colour), after mapping colour numbers."""
    truth = np.full(N_NODES, -1)
    for node, colour in rings.items():
        truth[node] = colour
    mapping = mapping or _colour_mapping(states, truth)
    read = np.array([mapping.get(int(s), -100) if s >= 0 else -1 for s in states])
    return np.flatnonzero(read != truth)


@dataclasses.dataclass(frozen=True)
class CalibratedScene:
    """A rendered scene calibrated as a user would: the empty picture and the true corner clicks."""

    camera: CameraModel
    style: BandannaStyle
    wrinkles: Wrinkles
    empty: RenderedBandanna
    calibration: GrybCalibration
    seed: int

    def location_errors(self) -> np.ndarray:
        """Per node: pixels between the calibrated and the true position."""
        return np.linalg.norm(self.calibration.nodes_px - self.empty.nodes_px, axis=1)

    def homography_errors(self) -> np.ndarray:
        """Per node: pixels between the corner homography's prediction and the true position."""
        positions = apply_homography(
            self.calibration.homography, self.calibration.spec.node_positions()
        )
        return np.linalg.norm(positions - self.empty.nodes_px, axis=1)

    def render(
        self,
        rings: dict[int, int],
        *,
        hand: HandSpec | None = None,
        noise_seed: int | None = None,
        style: BandannaStyle | None = None,
    ) -> RenderedBandanna:
        """Another picture of the same cloth under the same camera (``style`` may change the light)."""
        return render_bandanna(
            self.camera,
            self.calibration.spec,
            rings,
            style=style or self.style,
            wrinkles=self.wrinkles,
            hand=hand,
            seed=self.seed,
            noise_seed=noise_seed,
        )


def calibrated_scene(
    seed: int,
    size: tuple[int, int] = BENCH_SIZES[0],
    spec: GrybSpec | None = None,
    wrinkle_mm: float | None = None,
) -> CalibratedScene:
    """Render a random scene's empty bandanna and calibrate from it (raises what the fit raises)."""
    spec = spec or load_gryb_spec()
    camera, style, wrinkles = random_bandanna_scene(seed, size, spec, wrinkle_mm)
    empty = render_bandanna(camera, spec, {}, style=style, wrinkles=wrinkles, seed=seed)
    clicks = empty.landmarks_px()
    fit = fit_bandanna(empty.image_bgr, clicks, spec)
    calibration = GrybCalibration.from_fit(fit, spec, empty.image_bgr, parse_gryb_clicks(clicks))
    return CalibratedScene(camera, style, wrinkles, empty, calibration, seed)


def bench_scene(
    seed: int,
    size: tuple[int, int],
    totals: BenchTotals,
    out: TextIO,
    *,
    pictures: int = 3,
    spec: GrybSpec | None = None,
) -> None:
    """Calibrate one rendered scene and read ``pictures`` random ring positions on it."""
    scene = calibrated_scene(seed, size, spec)
    errors, homography_errors = scene.location_errors(), scene.homography_errors()
    totals.location_errors += errors.tolist()
    totals.homography_errors += homography_errors.tolist()
    calibration, style = scene.calibration, scene.style
    scale = float(px_per_mm(calibration.homography, calibration.spec.node_positions()).mean())
    observer = GrybObserver(calibration)
    rng = np.random.default_rng(seed)
    wrong = 0
    for k in range(pictures):
        rings = _random_rings(rng, int(rng.integers(10, 140)))
        shown = style
        if k % 2:  # the light's colour changed since calibration
            cast = np.exp(rng.normal(0, 0.08, 3))
            light = dataclasses.replace(
                style.scene,
                white_balance=tuple(float(v) for v in cast / cast[1]),
                exposure=float(style.scene.exposure * rng.uniform(0.85, 1.1)),
            )
            shown = dataclasses.replace(style, scene=light)
        picture = scene.render(rings, style=shown, noise_seed=k)
        observation = observer.observe(picture.image_bgr, compare_previous=False)
        # Time it as a camera stream runs it (a still also measures drift every time).
        observer.observe(picture.image_bgr)
        start = time.perf_counter()
        observer.observe(picture.image_bgr)
        totals.observe_ms.append(1000 * (time.perf_counter() - start))
        _, buffer = cv2.imencode(".jpg", picture.image_bgr, [cv2.IMWRITE_JPEG_QUALITY, 90])
        start = time.perf_counter()
        cv2.imdecode(buffer, cv2.IMREAD_COLOR)
        totals.decode_ms.append(1000 * (time.perf_counter() - start))
        bad = wrong_nodes(observation.states(), rings)
        wrong += len(bad)
        totals.nodes_read += N_NODES
        totals.nodes_wrong += len(bad)
    print(
        f"  scene {seed}: {size[0]}x{size[1]}, {scale:.2f} px/mm, cloth off one homography by up to "
        f"{homography_errors.max():.1f} px; nodes located: max error {errors.max():.2f} px, "
        f"mean {errors.mean():.2f} px; rings: {wrong} wrong of {pictures * N_NODES} node readings",
        file=out,
    )


def bench_game(
    seed: int, moves: int, totals: BenchTotals, out: TextIO, spec: GrybSpec | None = None
) -> None:
    """Rings placed one by one by a reaching hand, read through the tracker; counts recovered moves."""
    scene = calibrated_scene(seed, BENCH_SIZES[0], spec)
    observer = GrybObserver(scene.calibration)
    tracker = Tracker(stable_frames=3)
    rng = np.random.default_rng(seed)
    free = [int(n) for n in rng.permutation(N_NODES)]
    board: dict[int, int] = {}
    played: list[tuple[int, int]] = []
    script: list[tuple[dict[int, int], HandSpec | None]] = [({}, None)] * 3
    for m in range(moves):
        node = free.pop()
        hand = HandSpec(target_point=node, scale=float(rng.uniform(0.85, 1.15)))
        script += [(dict(board), hand)]
        board[node] = m % 2
        played.append((node, m % 2))
        script += [(dict(board), hand)] + [(dict(board), None)] * 5  # motion, then four calm frames
    cache: dict = {}
    snapshots = []
    for index, (rings, hand) in enumerate(script):
        key = (tuple(sorted(rings.items())), hand)
        if key not in cache:
            cache[key] = scene.render(rings, hand=hand).image_bgr
        frame = np.clip(cache[key] + rng.normal(0, 1.5, cache[key].shape), 0, 255).astype(np.uint8)
        snapshot = tracker.update(observer.observe(frame), None, index)
        if snapshot is not None:
            snapshots.append(snapshot)
    found: list[tuple[int, int]] = []
    previous: dict[int, int] = {}
    colour_map: dict[int, int] = {}
    truth = dict(played)
    for snapshot in snapshots:
        for node, colour in snapshot.tokens.items():
            if previous.get(node) != colour:
                if colour not in colour_map and node in truth:
                    colour_map[colour] = truth[node]
                found.append((node, colour_map.get(colour, -1)))
        previous = snapshot.tokens
    right = len(set(found) & set(played))
    totals.moves_played += len(played)
    totals.moves_found += len(found)
    totals.moves_right += right
    print(
        f"  game {seed}: {len(played)} rings placed by hand, {len(found)} found, {right} right, "
        f"{len(snapshots)} snapshots over {len(script)} frames",
        file=out,
    )


def run_gryb_vision_bench(
    *, scenes: int, games: int, moves: int, seed: int, out: TextIO
) -> BenchTotals:
    """Render, calibrate, read and time; prints the figures to ``out`` and returns the totals."""
    spec = load_gryb_spec()
    totals = BenchTotals()
    print(
        f"bandanna scenes ({scenes}, seeds {seed}..{seed + scenes - 1}, ring colours unknown to the observer):",
        file=out,
    )
    for k in range(scenes):
        bench_scene(seed + k, BENCH_SIZES[k % 2], totals, out, spec=spec)
    errors = np.array(totals.location_errors)
    hom = np.array(totals.homography_errors)
    print(
        f"node location error after refinement: mean {errors.mean():.2f} px, 99th percentile "
        f"{np.percentile(errors, 99):.2f} px, max {errors.max():.2f} px; "
        f"{int(np.sum(errors > LOCATED_PX))} of {len(errors)} nodes off by more than {LOCATED_PX:g} px "
        f"(one homography through the corners: mean {hom.mean():.2f} px, max {hom.max():.2f} px)",
        file=out,
    )
    print(
        f"ring reading: {100 * totals.wrong_fraction:.3f}% wrong nodes ({totals.nodes_wrong} of "
        f"{totals.nodes_read}; target <= 0.1%)",
        file=out,
    )
    if games:
        print(f"games ({games} x {moves} rings, each placed by a hand reaching in):", file=out)
        for g in range(games):
            bench_game(seed + 1000 + g, moves, totals, out, spec=spec)
        precision = totals.moves_right / max(totals.moves_found, 1)
        recall = totals.moves_right / max(totals.moves_played, 1)
        print(
            f"move detection: precision {100 * precision:.1f}%, recall {100 * recall:.1f}%",
            file=out,
        )
    print(
        f"observer {np.median(totals.observe_ms):.1f} ms per frame (median), JPEG decode of the same frames "
        f"{np.median(totals.decode_ms):.1f} ms",
        file=out,
    )
    return totals


__all__ = [
    "BenchTotals",
    "CalibratedScene",
    "bench_game",
    "bench_scene",
    "calibrated_scene",
    "run_gryb_vision_bench",
    "wrong_nodes",
]
