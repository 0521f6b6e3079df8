"""``boardcam analyze`` (read still pictures) and ``boardcam bench vision``."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from device.commands import camera_bump, plate_twist, scene_seed, token_sets

if TYPE_CHECKING:  # numpy is imported lazily: `boardcam --help` stays quick
    import numpy as np

logger = logging.getLogger(__name__)

EXIT_BAD_INPUT = 2


class AnalyzeError(ValueError):
    """A calibration or palette that cannot be used (reported with exit status 2)."""


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add ``analyze`` and the ``vision`` bench target."""
    analyze = commands.add_parser(
        "analyze",
        help="read still pictures of the board: tokens, hidden points, hand",
        description="For each image print the tokens read (point -> colour index), the points "
        "the camera cannot see and whether a hand is in view.",
    )
    analyze.add_argument("--board", choices=["timevectors", "gryb"], default="timevectors")
    analyze.add_argument("--calibration", required=True, type=Path, metavar="CALIB.json")
    analyze.add_argument(
        "--palette",
        type=Path,
        metavar="PALETTE.json",
        help="nominal token colours [[r, g, b], ...]; colour i is palette entry i "
        "(without it colours are numbered in order of first appearance)",
    )
    analyze.add_argument(
        "--sets",
        type=token_sets,
        metavar="N",
        help="how many token sets are on the board: 2 for a two-player or team game "
        "(default 3, the reference board's; the palette's length when there is one)",
    )
    analyze.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    analyze.add_argument("--json", action="store_true", help="one JSON object per line")
    analyze.set_defaults(func=_run_analyze)

    bench = bench_targets.add_parser(
        "vision",
        help="accuracy of the observer on rendered scenes, move detection, time per frame",
        description="Renders varied synthetic scenes (random camera, table, light, cast, noise, "
        "blur, JPEG, unknown token colours) and game sequences with hands, and reports per-point "
        "accuracy, move precision/recall and observer milliseconds beside JPEG decode time.",
    )
    bench.add_argument("--scenes", type=int, default=12, help="still scenes to render (default 12)")
    bench.add_argument("--games", type=int, default=2, help="game sequences to play (default 2)")
    bench.add_argument("--moves", type=int, default=12, help="moves per game sequence (default 12)")
    bench.add_argument("--seed", type=scene_seed, default=1, help="first random seed (default 1)")
    bench.add_argument("--quick", action="store_true", help="a few scenes and one short game")
    bench.add_argument("--board", choices=["timevectors", "gryb"], default="timevectors",
                       help="gryb: wrinkled bandannas, node location error and ring accuracy")
    bench.add_argument("--light", choices=["varied", "hard"], default="varied",
                       help="hard: every scene under a bare lamp whose shadows keep only "
                       f"{100 - round(100 * HARD_SHADOW)}%% of its light (Time Vectors board)")
    bench.add_argument(
        "--twist",
        type=plate_twist,
        default=0.0,
        metavar="DEG",
        help="turn each board's tiers Q..S about the post by up to DEG degrees (default 0)",
    )
    bench.add_argument(
        "--bump",
        type=camera_bump,
        default=0.0,
        metavar="DEG",
        help="knock the camera after calibration by up to DEG degrees (and a few millimetres): "
        "each still scene's, re-fitted from the scene itself as the live drift check does, and "
        "each game's, by the hand that places its middle move (default 0)",
    )
    bench.add_argument(
        "--from-clicks",
        type=float,
        metavar="PX",
        help="calibrate each board as a user does, from landmark clicks PX pixels off refined "
        "from the printed grid (default: the renderer's exact camera)",
    )
    bench.set_defaults(func=_run_bench)


def _load_inputs(calibration_path: Path, palette_path: Path | None, board: str) -> tuple[object, list | None]:
    """The calibration of ``board`` and the user's nominal palette, each checked; raises
    :class:`AnalyzeError` naming the file and the problem."""
    from calibration.calibfile import CalibrationError, load_calibration
    from calibration.colours import PaletteError, parse_palette
    from calibration.jsonfile import JsonFileError, read_json_file

    try:
        calibration = load_calibration(calibration_path, board=board)
    except (CalibrationError, OSError) as exc:
        raise AnalyzeError(f"cannot use calibration {calibration_path}: {exc}") from exc
    if palette_path is None:
        return calibration, None
    try:
        return calibration, parse_palette(read_json_file(palette_path, "palette"))
    except JsonFileError as exc:
        raise AnalyzeError(str(exc)) from exc
    except PaletteError as exc:
        raise AnalyzeError(f"palette {palette_path}: {exc}") from exc


def analyze_files(
    calibration_path: Path,
    palette_path: Path | None,
    images: list[Path],
    *,
    board: str = "timevectors",
    as_json: bool,
    sets: int | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Analyse each image and print one line per image (tokens of the stacked board, or
    rings of the bandanna by node name); returns the exit status. ``sets``: how many token
    sets the stacked board holds (see :class:`vision.observer.Observer`).

    A bad calibration or palette stops before any output (:class:`AnalyzeError`); an
    unreadable image is reported on ``err`` and the others are still analysed (status 2
    at the end). ``out``/``err`` default to the standard streams at call time.
    """
    if board == "gryb" and sets is not None:
        raise AnalyzeError("--sets is for the stacked board (the bandanna's rings are its four colours)")
    calibration, palette = _load_inputs(calibration_path, palette_path, board)
    if board == "gryb":
        from vision.gryb_observer import GrybObserver as Reader
        from vision.gryb_observer import analyze_bandanna as analyze

        options: dict = {}
    else:
        from vision.observer import Observer as Reader
        from vision.observer import analyze_image as analyze

        options = {"sets": sets}
    try:
        observer = Reader(calibration, palette=palette, **options)
    except ValueError as exc:  # a camera that does not see the board, a reference of another size
        raise AnalyzeError(f"cannot use calibration {calibration_path}: {exc}") from exc
    return _print_readings(
        images, lambda image: analyze(calibration, image, observer=observer),
        "rings" if board == "gryb" else "tokens", as_json=as_json, out=out or sys.stdout, err=err or sys.stderr,
    )


def _print_readings(
    images: list[Path],
    read: Callable[[np.ndarray], dict],
    found: str,
    *,
    as_json: bool,
    out: TextIO,
    err: TextIO,
) -> int:
    """Read each image with ``read`` and print one line per image (``found`` names what was
    read: tokens or rings); an unreadable image is reported on ``err`` and the others are
    still read. Returns the exit status (2 when any image could not be read)."""
    import cv2

    from vision.observation import FrameError

    status = 0
    for path in images:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            print(f"boardcam analyze: cannot read image {path}", file=err)
            status = EXIT_BAD_INPUT
            continue
        try:
            result = read(image)
        except FrameError as exc:
            print(f"boardcam analyze: {path}: {exc}", file=err)
            status = EXIT_BAD_INPUT
            continue
        if as_json:
            print(json.dumps({"image": str(path), **result}), file=out)
        else:
            seen = " ".join(f"{name}={colour}" for name, colour in result[found].items()) or "none"
            hidden = " ".join(result["hidden"]) or "none"
            hand = "yes" if result["hand"] else "no"
            print(f"{path}: {found} {seen}; hidden {hidden}; hand {hand}", file=out)
    return status


def _run_analyze(args: argparse.Namespace) -> int:
    try:
        return analyze_files(
            args.calibration, args.palette, args.images, board=args.board, as_json=args.json, sets=args.sets
        )
    except AnalyzeError as exc:
        print(f"boardcam analyze: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _run_bench(args: argparse.Namespace) -> int:
    if args.quick:
        scenes, games, moves = 4, 1, 6
    else:
        scenes, games, moves = args.scenes, args.games, args.moves
    if min(scenes, games, moves) < 1:
        print("boardcam bench vision: --scenes, --games and --moves must be at least 1", file=sys.stderr)
        return EXIT_BAD_INPUT
    problem = None
    if args.board == "gryb" and (args.twist or args.bump or args.from_clicks is not None):
        problem = (
            "--twist, --bump and --from-clicks are for the stacked board (the bandanna has "
            "no plates and no camera model to re-fit)"
        )
    elif args.from_clicks is not None and args.from_clicks < 0:
        problem = "--from-clicks cannot be negative"
    if problem:
        print(f"boardcam bench vision: {problem}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.board == "gryb":
        from vision.gryb_bench import run_gryb_vision_bench

        run_gryb_vision_bench(
            scenes=scenes, games=games, moves=moves, seed=args.seed, out=sys.stdout
        )
        return 0
    run_vision_bench(
        scenes=scenes,
        games=games,
        moves=moves,
        seed=args.seed,
        out=sys.stdout,
        hard_light=args.light == "hard",
        bench_board=BenchBoard(
            twist_deg=args.twist, click_noise_px=args.from_clicks, bump_deg=args.bump
        ),
    )
    return 0


# -- boardcam bench vision ----------------------------------------------------------------------

BENCH_SIZES = ((1280, 960), (1640, 1232))
HARD_SHADOW = 0.8  # share of the light a bare lamp's shadows take away (--light hard)


def bench_scene(seed: int, size: tuple[int, int], *, hard_light: bool = False) -> tuple:
    """The bench's random camera, scene style and token colours for ``seed``; with
    ``hard_light`` the light is a bare lamp casting deep, sharp-edged shadows."""
    import dataclasses

    from vision.render import random_scene

    camera, style, colours = random_scene(seed, size)
    if hard_light:
        style = dataclasses.replace(style, shadow_strength=HARD_SHADOW)
    return camera, style, colours


def _best_mapping(learned: np.ndarray, truth: np.ndarray) -> dict[int, int]:
    """Learned colour index -> true colour index, the permutation that agrees most often.

    The bench gives the observer no palette: its colour numbers are its own, so they
    are matched to the renderer's once per scene (a wrong colour still counts as wrong).
    """
    import itertools

    import numpy as np

    found = sorted(int(c) for c in np.unique(learned[learned >= 0]))
    colours = sorted(int(c) for c in np.unique(truth[truth >= 0]))
    best: tuple[int, dict[int, int]] = (-1, {})
    targets = colours + [-10 - i for i in range(len(found))]  # spare targets: unmatched clusters
    for perm in itertools.permutations(targets, len(found)):
        mapping = dict(zip(found, perm))
        agree = sum(int(np.sum((learned == k) & (truth == v))) for k, v in mapping.items())
        if agree > best[0]:
            best = (agree, mapping)
    return best[1]


def _with_noise(image: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Fresh sensor noise: the renderer's noise repeats for one seed, a camera's never does."""
    import numpy as np

    return np.clip(image + rng.normal(0.0, sigma, image.shape), 0, 255).astype(np.uint8)


def _calibration(camera: object, spec: object, empty_bgr: np.ndarray) -> object:
    """A calibration as ``boardcam calibrate`` saves it: exact camera, small JPEG reference."""
    from calibration.calibfile import Calibration

    return Calibration(board="timevectors", spec=spec, camera=camera, rms_px=0.0).with_reference(empty_bgr)


@dataclass(frozen=True)
class BenchBoard:
    """How the bench's boards are built and calibrated: plates turned about the post by up
    to ``twist_deg`` (at random per scene), and calibrated exactly (``click_noise_px`` None)
    or as a user does: from clicks that far off, refined from the printed grid of the empty
    board's picture. With ``bump_deg`` the camera is knocked after calibration (turned by up
    to that much, its centre moved up to 5 mm per degree): a still scene's calibration is
    re-fitted from the scene's picture, tokens and all, as the live drift check re-fits it,
    and in a game the hand that places the middle move knocks it (the live pipeline notices
    and re-fits it)."""

    twist_deg: float = 0.0
    click_noise_px: float | None = None
    bump_deg: float = 0.0

    def built(self, seed: int) -> object:
        """The board of scene ``seed`` as built."""
        from calibration.spec import load_spec
        from vision.render_scene import random_twist

        return random_twist(seed, self.twist_deg, load_spec())

    def calibrated(self, seed: int, camera: object, built: object, reference: np.ndarray) -> object:
        """The calibration the reader gets for scene ``seed`` (``reference``: the empty board)."""
        import numpy as np

        from calibration.fit import fit_camera
        from calibration.refine import refine_with_markings
        from calibration.spec import load_spec
        from vision.render_scene import landmark_clicks

        if self.click_noise_px is None:
            return _calibration(camera, built, reference)
        clicks = landmark_clicks(camera, built, self.click_noise_px, np.random.default_rng([seed, 3]))
        fit = refine_with_markings(fit_camera(clicks, load_spec(), camera.image_size), reference)
        return replace(_calibration(fit.camera, fit.spec, reference), rms_px=fit.rms_px)

    def seen_by(self, seed: int, camera: object) -> object:
        """The camera of still scene (or game) ``seed`` once knocked: ``camera``, or with
        ``bump_deg`` that camera knocked (at random per scene)."""
        import numpy as np

        if not self.bump_deg:
            return camera
        rng = np.random.default_rng([seed, 5])
        degrees = self.bump_deg * rng.uniform(0.3, 1.0)
        shift = rng.normal(size=3)
        shift *= 5.0 * degrees * rng.uniform(0.0, 1.0) / np.linalg.norm(shift)
        return camera.bumped(degrees, tuple(rng.normal(size=3)), tuple(shift))

    @staticmethod
    def refitted(calibration: object, image: np.ndarray) -> object:
        """``calibration`` as the live pipeline has it for ``image`` once a bump is re-fitted
        and the moved reference registered to ``image`` (as it was, if the drift check does
        not re-fit). Every token of the scene is new to it: none is held."""
        from calibration.drift import DriftDetector, DriftStatus
        from device.pipeline import make_observer, refitted_calibration

        result = DriftDetector.for_calibration(calibration).check(image)
        if result.status is not DriftStatus.REFIT:
            return calibration
        return refitted_calibration(calibration, result.refit, image, make_observer)

    def describe(self) -> str:
        """The board and calibration in words, for the bench's headings."""
        plates = f"plates turned up to {self.twist_deg:g} deg" if self.twist_deg else "straight plates"
        fitted = (
            "exact calibration" if self.click_noise_px is None
            else f"calibrated from clicks {self.click_noise_px:g} px off, refined from the printed grid"
        )
        bumped = f", camera bumped up to {self.bump_deg:g} deg" if self.bump_deg else ""
        return f"{plates}, {fitted}{bumped}"


def _scene_tokens(rng: np.random.Generator, count: int) -> dict[int, int]:
    points = rng.choice(256, size=count, replace=False)
    return {int(p): int(i % 3) for i, p in enumerate(points)}


def still_scene(
    seed: int,
    size: tuple[int, int],
    *,
    cast: bool,
    hard_light: bool = False,
    bench_board: BenchBoard = BenchBoard(),
) -> tuple[dict, object, object, object]:
    """One still scene of the bench: ``(tokens, rendered, noisy image, calibration)``, a random
    camera, table and light (see :func:`bench_scene`), with ``cast`` a light whose colour
    changed after calibration, the board built and calibrated as ``bench_board`` says."""
    import dataclasses

    import numpy as np

    from vision.render import render_timevectors

    spec = bench_board.built(seed)
    camera, style, colours = bench_scene(seed, size, hard_light=hard_light)
    rng = np.random.default_rng(seed)
    tokens = _scene_tokens(rng, int(rng.integers(8, 100)))
    empty = render_timevectors(camera, spec, {}, colours, scene=style, seed=seed)
    shown = style
    if cast:
        tint = np.exp(rng.normal(0, 0.1, 3))
        shown = dataclasses.replace(style, white_balance=tuple(float(v) for v in tint / tint[1]))
    seen = bench_board.seen_by(seed, camera)
    rendered = render_timevectors(seen, spec, tokens, colours, scene=shown, seed=seed)
    reference = _with_noise(empty.image_bgr, style.noise_sigma, rng)
    image = _with_noise(rendered.image_bgr, style.noise_sigma, rng)
    calibration = bench_board.calibrated(seed, camera, spec, reference)
    if seen is not camera:
        calibration = bench_board.refitted(calibration, image)
    return tokens, rendered, image, calibration


def _bench_stills(
    scenes: int, seed: int, out: TextIO, *, hard_light: bool = False, bench_board: BenchBoard = BenchBoard()
) -> list:
    """Per-point accuracy over rendered still scenes; returns the frames for timing."""
    import numpy as np

    from vision.observer import Observer

    totals = {"all": [0, 0], "visible": [0, 0], "hidden_agree": [0, 0]}
    frames = []
    for k in range(scenes):
        this_seed = seed + k
        size = BENCH_SIZES[k % 2]
        tokens, rendered, image, calibration = still_scene(
            this_seed, size, cast=bool(k % 2), hard_light=hard_light, bench_board=bench_board
        )
        observer = Observer(calibration)
        observation = observer.observe(image, compare_previous=False)
        truth = np.full(256, -1)
        for point, colour in tokens.items():
            truth[point] = colour
        learned = observation.states()
        mapping = _best_mapping(learned, truth)
        read = np.array([mapping.get(int(s), -100) if s >= 0 else -1 for s in learned])
        visible = rendered.visibility >= 0.5
        wrong = read != truth
        for name, mask in (("all", np.ones(256, bool)), ("visible", visible)):
            totals[name][0] += int(np.sum(wrong & mask))
            totals[name][1] += int(mask.sum())
        totals["hidden_agree"][0] += int(np.sum((observation.visibility >= 0.5) == visible))
        totals["hidden_agree"][1] += 256
        refit = ""
        if bench_board.bump_deg:
            misfit = calibration.reference_misfit_px
            refit = f", re-fitted (reference {misfit:.1f} px off)" if misfit else ", not re-fitted"
        print(
            f"  scene {this_seed}: {size[0]}x{size[1]}, {len(tokens)} tokens{refit}, "
            f"{int(np.sum(wrong & visible))} wrong of {int(visible.sum())} visible points, "
            f"{int(np.sum(wrong))} of 256 all",
            file=out,
        )
        frames.append((observer, image))
    vis_err = totals["visible"][0] / max(totals["visible"][1], 1)
    all_err = totals["all"][0] / max(totals["all"][1], 1)
    print(f"per-point error, visible points (visibility >= 0.5): {100 * vis_err:.3f}% "
          f"({totals['visible'][0]} of {totals['visible'][1]}; target <= 0.1%)", file=out)
    print(f"per-point error, all points (hidden ones too): {100 * all_err:.3f}% "
          f"({totals['all'][0]} of {totals['all'][1]})", file=out)
    agree = totals["hidden_agree"][0] / max(totals["hidden_agree"][1], 1)
    print(f"visible/hidden verdict agrees with ground truth on {100 * agree:.2f}% of points", file=out)
    return frames


@dataclass
class _StreamTiming:
    """Observer and JPEG decode seconds summed over every frame of the game streams."""

    frames: int = 0
    reread: int = 0  # frames the observer read in full (the others: motion, or nothing new)
    observe: float = 0.0
    decode: float = 0.0


def _timed_pipeline(calibration: object) -> tuple[object, list, dict[str, list[float]]]:
    """The live pipeline of a three-player game (colours learned from the game, the first
    token of each set founding its colour), its observers timed: (pipeline, the observers it
    made, totals). A camera re-fitted after a bump gets an observer of its own."""
    from collections import defaultdict

    from device.commands.replay import Timed
    from device.game_view import new_game
    from device.pipeline import Pipeline, make_observer

    totals: dict[str, list[float]] = defaultdict(list)
    observers = [Timed(make_observer(calibration), "observe", totals, "observer")]

    def observer_for(cal: object, *, palette: object = None, sets: int | None = None) -> object:
        if cal is calibration:
            return observers[0]
        observers.append(
            Timed(make_observer(cal, palette=palette, sets=sets), "observe", totals, "observer")
        )
        return observers[-1]

    pipeline = Pipeline(calibration, new_game(3, "none"), observer_factory=observer_for)
    return pipeline, observers, totals


def _players_answer(
    pipeline: object, event: object, board: dict[int, int], played: list[tuple[int, int]],
    announced: list[tuple[int, int]],
) -> list:
    """What players who know the ``board`` tell the pipeline on their phones about ``event``
    (its events in turn): the point a token the camera did not show went to (or, when the
    camera sees that point and missed the token, what the point holds), and what each point
    an alert names really holds. Raises ``RefereeError`` when no answer fits the question."""
    from device import events as ev
    from rules.timevectors.points import parse_point

    if event.type == ev.CONFIRM_HIDDEN:
        colour = event.data.get("color")
        unseen = [p for p, c in played if p in board and c == colour and (p, c) not in announced]
        point = unseen[0] if unseen else -1
        if point in {parse_point(n) for n in event.data.get("candidates", ())}:
            return pipeline.confirm_hidden(point)
        return pipeline.correct(point, colour)
    if event.type == ev.ILLEGAL:
        answers = []
        for point in map(parse_point, event.data.get("points", ())):
            answers += pipeline.correct(point, board.get(point))
        return answers
    return []


def _player_tells(pipeline: object, point: int, colour: int) -> list:
    """What the player who just put ``colour`` on ``point`` tells the pipeline after a look
    at the phone: nothing while an alert or question is open (the players answer those) or
    once the turn has moved on, else where the token went, as a user would in the
    dashboard's correction mode (the camera missed it, or the point is one it cannot see)."""
    from device.referee import RefereeError

    referee = pipeline.referee
    if referee.pending is not None or referee.rules.turn_color(referee.game) != colour:
        return []
    try:
        return pipeline.correct(point, colour)
    except RefereeError:
        return []


def _bench_games(
    games: int,
    moves: int,
    seed: int,
    out: TextIO,
    *,
    hard_light: bool = False,
    bench_board: BenchBoard = BenchBoard(),
) -> _StreamTiming:
    """Moves announced, false alarms and misses of the live pipeline (observer, trackers,
    referee of a three-player game) over rendered games with hands, and the observer's time
    per frame beside the decode time over those streams."""
    from collections import Counter

    import numpy as np

    from device import events as ev
    from device.game_view import new_game
    from device.referee import RefereeError
    from device.sources.base import Frame
    from rules.timevectors import Move
    from rules.timevectors.points import parse_point
    from vision.render import render_timevectors
    from vision.render_hand import HandSpec

    timing = _StreamTiming()
    tally: Counter[str] = Counter()
    for g in range(games):
        game_seed = seed + 1000 + g
        camera, style, colours = bench_scene(game_seed, BENCH_SIZES[g % 2], hard_light=hard_light)
        rng = np.random.default_rng(game_seed)
        spec = bench_board.built(game_seed)
        empty = render_timevectors(camera, spec, {}, colours, scene=style, seed=game_seed)
        reference = _with_noise(empty.image_bgr, style.noise_sigma, rng)
        pipeline, observers, totals = _timed_pipeline(bench_board.calibrated(game_seed, camera, spec, reference))
        # (with --bump the hand that places the middle move knocks the camera)
        knocked = bench_board.seen_by(game_seed, camera)
        views = [_Renderings(view, style, colours, game_seed, spec)
                 for view in ([camera] if knocked is camera else [camera, knocked])]
        bump_at = moves // 2 if len(views) == 2 else None

        board: dict[int, int] = {}
        truth_moves: list[tuple[int, int]] = []
        truth_game = new_game(3, "none")
        truth_win = False
        # Each frame: the tokens, the hand, the move whose player then looks at the phone, and
        # the view (1: the camera as knocked).
        script: list[tuple[dict[int, int], HandSpec | None, tuple[int, int] | None, int]] = []
        view = 0
        script += [(dict(board), None, None, view)] * 3
        free = [int(p) for p in rng.permutation(256)]
        for m in range(moves):
            point = free.pop()
            hand = HandSpec(target_point=point, scale=float(rng.uniform(0.8, 1.2)))
            if m % 4 == 3:  # a hand that hovers and leaves without playing
                hover = HandSpec(target_point=free[-1])
                script += [(dict(board), hover, None, view)] * 2 + [(dict(board), None, None, view)] * 4
            script += [(dict(board), hand, None, view)]
            view = 1 if m == bump_at else view
            board[point] = m % 3
            truth_moves.append((point, m % 3))
            truth_win = truth_win or truth_game.completes_vector(point, m % 3)
            if not truth_win:
                truth_game.push(Move(point, m % 3))
            # The hand lets go and leaves; the camera then sees a calm board for a second,
            # and the player looks at the phone.
            script += [(dict(board), hand, None, view)] + [(dict(board), None, None, view)] * 3
            script += [(dict(board), None, (point, m % 3), view)]
        found: list[tuple[int, int]] = []
        told: list[tuple[int, int]] = []  # moves the players had to tell: not the camera's
        counts: Counter[str] = Counter()
        for index, (tokens, hand, looking, view) in enumerate(script):
            image = _with_noise(views[view].get(tokens, hand).image_bgr, style.noise_sigma, rng)
            timing.decode += _decode_time(image)
            stamp = index / 4.0  # a camera at 4 frames per second
            pending = list(pipeline.process(Frame(image, index, stamp), now=stamp))
            telling = None
            while True:
                if not pending and looking is not None:
                    pending = _player_tells(pipeline, *looking)
                    counts["told"] += bool(pending)
                    telling, looking = looking, None
                if not pending:
                    break
                event = pending.pop(0)
                if event.type == ev.MOVE:
                    move = (parse_point(event.data["point"]), event.data["color"])
                    (told if move == telling else found).append(move)
                counts["wins"] += event.type == ev.WIN
                counts["illegal"] += event.type == ev.ILLEGAL
                counts["refits"] += event.type == ev.CAMERA_MOVED and bool(event.data.get("refit"))
                if event.type == ev.CONFIRM_HIDDEN:
                    counts["in_line" if event.data.get("in_line") else "asked"] += 1
                try:
                    pending += _players_answer(pipeline, event, tokens, truth_moves, found + told)
                except RefereeError:  # e.g. asked about a move to a hidden point when none was
                    counts["unanswered"] += 1
        timing.frames += len(script)
        timing.observe += sum(totals["observer"])
        timing.reread += sum(observer.full_reads for observer in observers)
        right = len(set(found) & set(truth_moves))
        final = views[-1].get(board, None).visibility
        missed = sorted(set(truth_moves) - set(found))
        hidden_missed = [(p, c) for p, c in missed if final[p] < 0.5]
        wrong = sorted(set(found) - set(truth_moves))
        counts.update(right=right, announced=len(found), played=len(truth_moves),
                      hidden_missed=len(hidden_missed),
                      false_wins=0 if truth_win else counts["wins"])
        tally.update(counts)
        print(f"  game {game_seed}: {len(truth_moves)} moves, {len(found)} announced, {right} right, "
              f"{counts['illegal']} illegal alerts, {counts['asked']} hidden-point questions, "
              f"{counts['in_line']} in-line questions ({counts['unanswered']} the players could "
              f"not answer), {counts['told']} told by "
              f"the players over {len(script)} frames"
              + (f", camera knocked at move {bump_at + 1} and re-fitted {counts['refits']} times"
                 if bump_at is not None else ""), file=out)
        if missed or wrong:
            print(f"    missed: {_move_names(missed)} (of which hidden from the camera: "
                  f"{_move_names(hidden_missed)}); wrong: {_move_names(wrong)}", file=out)
    precision = tally["right"] / max(tally["announced"], 1)
    recall = tally["right"] / max(tally["played"], 1)
    print(f"move detection: precision {100 * precision:.1f}%, recall {100 * recall:.1f}% "
          f"({tally['right']} right of {tally['announced']} announced, {tally['played']} played, "
          f"{tally['hidden_missed']} of the missed ones hidden from the camera)", file=out)
    print(f"false alarms: {tally['illegal']} illegal-change alerts (none was played; the players "
          f"correct each on the phone), {tally['false_wins']} false wins; {tally['asked']} "
          f"questions for a hidden point and {tally['in_line']} for which of two points in line "
          f"(the players answer them); {tally['told']} moves the "
          f"camera did not announce that their players told it on the phone (not counted as "
          f"found)", file=out)
    return timing


class _Renderings:
    """Each distinct (tokens, hand) of a game rendered once (the renderer takes seconds)."""

    def __init__(
        self, camera: object, style: object, colours: list, seed: int, spec: object | None = None
    ) -> None:
        from calibration.spec import load_spec

        self.camera, self.style, self.colours, self.seed = camera, style, colours, seed
        self.spec = spec or load_spec()  # the board as built (default: the reference board)
        self._cache: dict = {}

    def get(self, tokens: dict[int, int], hand: object | None) -> object:
        from vision.render import render_timevectors

        key = (tuple(sorted(tokens.items())), hand)
        if key not in self._cache:
            self._cache[key] = render_timevectors(
                self.camera, self.spec, tokens, self.colours, hand=hand, scene=self.style, seed=self.seed
            )
        return self._cache[key]


def _move_names(moves: list[tuple[int, int]]) -> str:
    from rules.timevectors.points import point_name

    return ", ".join(f"{point_name(p)}={c}" for p, c in moves) or "none"


def _decode_time(image: np.ndarray) -> float:
    """Seconds OpenCV takes to decode ``image`` from a quality-90 JPEG (a camera's stream)."""
    import time

    import cv2

    _, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    start = time.perf_counter()
    cv2.imdecode(buffer, cv2.IMREAD_COLOR)
    return time.perf_counter() - start


def _bench_timing(frames: list, out: TextIO) -> list[float]:
    """A full read of each still scene beside the decode of the same frame; returns the ratios."""
    import time

    import numpy as np

    ratios = []
    for observer, image in frames:
        observer.observe(image, compare_previous=False)
        decode_times, observe_times = [], []
        # Interleaved and the median of each: other processes on a shared machine hit both alike.
        for _ in range(15):
            decode_times.append(_decode_time(image))
            start = time.perf_counter()
            observer.observe(image, compare_previous=False)  # a still picture: always read in full
            observe_times.append(time.perf_counter() - start)
        decode, observe = float(np.median(decode_times)), float(np.median(observe_times))
        ratios.append(observe / decode)
        h, w = image.shape[:2]
        print(f"  {w}x{h}: observer {1000 * observe:.1f} ms, JPEG decode {1000 * decode:.1f} ms, "
              f"ratio {observe / decode:.2f}", file=out)
    return ratios


def run_vision_bench(
    *,
    scenes: int,
    games: int,
    moves: int,
    seed: int,
    out: TextIO,
    hard_light: bool = False,
    bench_board: BenchBoard = BenchBoard(),
) -> None:
    """Render, read and time; prints the figures to ``out``."""
    import numpy as np

    light = f", under a bare lamp (shadows take {round(100 * HARD_SHADOW)}% of the light)"
    print(f"boards: {bench_board.describe()}", file=out)
    print(f"still scenes ({scenes}, seeds {seed}..{seed + scenes - 1}, colours unknown to the observer"
          f"{light if hard_light else ''}):", file=out)
    frames = _bench_stills(scenes, seed, out, hard_light=hard_light, bench_board=bench_board)
    print(f"game sequences ({games} x {moves} moves, hands reaching in, one hovering hand per 4 moves):",
          file=out)
    stream = _bench_games(games, moves, seed, out, hard_light=hard_light, bench_board=bench_board)
    print("time per frame, a full read of each still scene (same frames, same run):", file=out)
    ratios = _bench_timing(frames, out)
    print(f"full read / JPEG decode: median {np.median(ratios):.2f}, worst {max(ratios):.2f}", file=out)
    ratio = stream.observe / max(stream.decode, 1e-9)
    print(f"observer time / JPEG decode time over the game streams: {ratio:.2f} (target <= 1; "
          f"{stream.reread} of {stream.frames} frames read in full; the others showed motion, "
          f"or nothing new since the last read)", file=out)
