"""``boardcam analyze`` (read still pictures) and ``boardcam bench vision``."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import TextIO

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
    analyze.add_argument("--calibration", required=True, type=Path, metavar="CALIB.json")
    analyze.add_argument(
        "--palette",
        type=Path,
        metavar="PALETTE.json",
        help="nominal token colours [[r, g, b], ...]; colour i is palette entry i "
        "(without it colours are numbered in order of first appearance)",
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
    bench.add_argument("--seed", type=int, default=1, help="first random seed (default 1)")
    bench.add_argument("--quick", action="store_true", help="a few scenes and one short game")
    bench.set_defaults(func=_run_bench)


def _load_inputs(calibration_path: Path, palette_path: Path | None) -> tuple[object, list | None]:
    from calibration.calibfile import CalibrationError, load_calibration
    from calibration.colours import PaletteError, parse_palette

    try:
        calibration = load_calibration(calibration_path)
    except (CalibrationError, OSError) as exc:
        raise AnalyzeError(f"cannot use calibration {calibration_path}: {exc}") from exc
    palette = None
    if palette_path is not None:
        try:
            palette = parse_palette(json.loads(palette_path.read_text(encoding="utf-8")))
        except OSError as exc:
            raise AnalyzeError(f"cannot read palette {palette_path}: {exc.strerror}") from exc
        except (ValueError, PaletteError) as exc:
            raise AnalyzeError(f"palette {palette_path}: {exc}") from exc
    return calibration, palette


def analyze_files(
    calibration_path: Path,
    palette_path: Path | None,
    images: list[Path],
    *,
    as_json: bool,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
) -> int:
    """Analyse each image and print one line per image; returns the exit status.

    A bad calibration or palette stops before any output (status 2); an unreadable
    image is reported on ``err`` and the others are still analysed (status 2 at the end).
    """
    import cv2

    from vision.observer import FrameError, Observer, analyze_image

    calibration, palette = _load_inputs(calibration_path, palette_path)
    observer = Observer(calibration, palette=palette)
    status = 0
    for path in images:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            print(f"boardcam analyze: cannot read image {path}", file=err)
            status = EXIT_BAD_INPUT
            continue
        try:
            result = analyze_image(calibration, image, palette, observer=observer)
        except FrameError as exc:
            print(f"boardcam analyze: {path}: {exc}", file=err)
            status = EXIT_BAD_INPUT
            continue
        if as_json:
            print(json.dumps({"image": str(path), **result}), file=out)
        else:
            tokens = " ".join(f"{name}={colour}" for name, colour in result["tokens"].items()) or "none"
            hidden = " ".join(result["hidden"]) or "none"
            hand = "yes" if result["hand"] else "no"
            print(f"{path}: tokens {tokens}; hidden {hidden}; hand {hand}", file=out)
    return status


def _run_analyze(args: argparse.Namespace) -> int:
    try:
        return analyze_files(args.calibration, args.palette, args.images, as_json=args.json)
    except AnalyzeError as exc:
        print(f"boardcam analyze: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _run_bench(args: argparse.Namespace) -> int:
    from vision.bench import run_vision_bench

    if args.quick:
        scenes, games, moves = 4, 1, 6
    else:
        scenes, games, moves = args.scenes, args.games, args.moves
    if min(scenes, games, moves) < 1:
        print("boardcam bench vision: --scenes, --games and --moves must be at least 1", file=sys.stderr)
        return EXIT_BAD_INPUT
    run_vision_bench(scenes=scenes, games=games, moves=moves, seed=args.seed, out=sys.stdout)
    return 0
