"""``boardcam calibrate`` (camera from clicks or ArUco stickers), ``boardcam render`` and the
``calibration`` bench target."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import math
import sys
from pathlib import Path

from device.commands import plate_twist, scene_seed

logger = logging.getLogger(__name__)

EXIT_BAD_INPUT = 2
MAX_TOKENS = 105  # 3 colours x 35 tokens
SKIN_TONES = ((241, 194, 167), (222, 170, 138), (198, 134, 96), (160, 102, 70), (110, 70, 48))


class CommandInputError(ValueError):
    """Input a command cannot use; printed as one line with exit status 2."""


def register(
    commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction
) -> None:
    """Add ``calibrate`` and ``render``."""
    calibrate = commands.add_parser(
        "calibrate",
        help="fit the camera to a picture of the empty board",
        description="Fit the camera model from the 4 outer marking corners of each tier (a clicks "
        "file) or from ArUco corner stickers (--aruco), print the reprojection error and write a "
        "calibration file with the picture embedded as the empty-board reference.",
    )
    calibrate.add_argument("--board", choices=["timevectors", "gryb"], default="timevectors")
    calibrate.add_argument(
        "--image",
        required=True,
        type=Path,
        metavar="EMPTY.png",
        help="a frame of the empty board from the camera to calibrate",
    )
    calibrate.add_argument(
        "--clicks",
        type=Path,
        metavar="CLICKS.json",
        help='{"P": {"NW": [u, v], "NE": ..., "SE": ..., "SW": ...}, "Q": ..., ...}',
    )
    calibrate.add_argument(
        "--aruco",
        action="store_true",
        help="find the corner stickers (DICT_4X4_50, id = 4*tier + corner) instead of clicks",
    )
    calibrate.add_argument(
        "--spec", metavar="FILE.toml", help="board spec file (default: the shipped board)"
    )
    calibrate.add_argument("--out", required=True, type=Path, metavar="CALIB.json")
    calibrate.add_argument(
        "--fit-distortion",
        action="store_true",
        help="also fit radial distortion k1 to the clicks, for a strong wide-angle lens (the "
        "refinement from the printed grid always fits it)",
    )
    calibrate.add_argument(
        "--no-refine",
        action="store_true",
        help="keep the camera fitted to the landmarks; do not refine it from the printed grid",
    )
    calibrate.add_argument(
        "--max-rms",
        type=float,
        default=8.0,
        metavar="PX",
        help="refuse a fit with a larger RMS reprojection error (default 8)",
    )
    calibrate.set_defaults(func=_run_calibrate)

    render = commands.add_parser(
        "render",
        help="write synthetic pictures of the board with exact ground truth",
        description="Render random scenes (camera, table, light, colour cast, noise, blur, JPEG, "
        "token colours) with tokens at random points. Beside each picture: NAME.json (tokens in "
        "A3Q notation, visibility of every point, the camera, the scene) and NAME_clicks.json "
        "(the true landmarks).",
    )
    render.add_argument("--board", choices=["timevectors", "gryb"], default="timevectors")
    render.add_argument("--out", required=True, type=Path, metavar="DIR")
    render.add_argument("--seed", type=scene_seed, default=0, help="first scene seed (default 0)")
    render.add_argument("--count", type=int, default=1, help="number of scenes (default 1)")
    render.add_argument(
        "--tokens", type=int, default=20, help=f"tokens per scene, 0..{MAX_TOKENS} (default 20)"
    )
    render.add_argument(
        "--size", default="1280x960", metavar="WxH", help="image size (default 1280x960)"
    )
    render.add_argument("--hand", action="store_true", help="a hand reaches over the board")
    render.add_argument("--aruco", action="store_true", help="draw the ArUco corner stickers")
    render.add_argument(
        "--empty",
        action="store_true",
        help="also write NAME_empty.png: the same scene with no tokens and no hand",
    )
    render.add_argument(
        "--calibration",
        action="store_true",
        help="also write NAME_calibration.json: the exact camera of the scene, with the empty "
        "board embedded as the reference (implies --empty)",
    )
    render.add_argument("--format", choices=["png", "jpg"], default="png")
    render.add_argument(
        "--twist",
        type=plate_twist,
        default=0.0,
        metavar="DEG",
        help="turn tiers Q, R and S about the post by up to DEG degrees each, at random, as the "
        "hand-aligned plates of a real board are (default 0)",
    )
    render.add_argument(
        "--click-noise",
        type=float,
        default=0.0,
        metavar="PX",
        help="Gaussian noise added to the landmark clicks (default 0)",
    )
    render.set_defaults(func=_run_render)

    bench = bench_targets.add_parser(
        "calibration",
        help="milliseconds to render a frame, fit and refine a calibration, find markers, "
        "check drift",
        description="Times the synthetic renderer and the calibration steps on random scenes.",
    )
    bench.add_argument("--scenes", type=int, default=4, help="scenes per size (default 4)")
    bench.add_argument("--seed", type=scene_seed, default=0, help="first scene seed (default 0)")
    bench.add_argument(
        "--twist",
        type=plate_twist,
        default=2.5,
        metavar="DEG",
        help="each scene is also calibrated with its plates turned up to DEG degrees (default 2.5)",
    )
    bench.set_defaults(func=_run_bench)


def _fail(message: str) -> int:
    print(f"boardcam: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


# -- calibrate ------------------------------------------------------------------------------
def _read_image(path: Path):
    import cv2

    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise CommandInputError(f"cannot read image {path} (missing or not a picture)")
    return image


def calibrate_image(
    image_path: Path,
    clicks_path: Path | None,
    *,
    use_aruco: bool,
    spec_source: str | None,
    fit_distortion: bool = False,
    max_rms_px: float = 8.0,
    refine: bool = True,
):
    """Fit and return ``(Calibration, landmark FitResult, refined FitResult or None)``.

    Raises :class:`CommandInputError` with the reason.
    """
    from calibration.calibfile import Calibration
    from calibration.fiducials import clicks_from_markers, detect_markers, fit_from_markers
    from calibration.fit import ClicksError, fit_camera, load_clicks, parse_clicks
    from calibration.refine import refine_with_markings
    from calibration.spec import SpecError, load_spec

    if use_aruco == (clicks_path is not None):
        raise CommandInputError("give either --clicks CLICKS.json or --aruco (one of them)")
    try:
        spec = load_spec(spec_source or "timevectors")
    except SpecError as exc:
        raise CommandInputError(str(exc)) from exc
    image = _read_image(image_path)
    size = (image.shape[1], image.shape[0])
    try:
        if use_aruco:
            markers = detect_markers(image)
            logger.info("found %d corner markers", len(markers))
            fit = fit_from_markers(markers, spec, size, max_rms_px=max_rms_px)
            found = clicks_from_markers(markers)
            landmarks = parse_clicks(found) if len(markers) == 16 else None
        else:
            landmarks = load_clicks(clicks_path)
            fit = fit_camera(
                landmarks, spec, size, fit_distortion=fit_distortion, max_rms_px=max_rms_px
            )
    except ClicksError as exc:
        raise CommandInputError(str(exc)) from exc
    refined = None
    if refine:
        candidate = refine_with_markings(fit, image)
        refined = candidate if candidate is not fit else None
    final = refined or fit
    spec_name = (
        None
        if spec_source and ("/" in spec_source or spec_source.endswith(".toml"))
        else "timevectors"
    )
    calibration = Calibration(
        board="timevectors",
        spec=final.spec,
        camera=final.camera,
        rms_px=final.rms_px,
        spec_name=spec_name,
        landmarks=landmarks,
    ).with_reference(image)
    return calibration, fit, refined


def _run_calibrate(args: argparse.Namespace) -> int:
    from calibration.calibfile import save_calibration

    if args.board == "gryb":
        return _run_calibrate_gryb(args)

    try:
        calibration, fit, refined = calibrate_image(
            args.image,
            args.clicks,
            use_aruco=args.aruco,
            spec_source=args.spec,
            fit_distortion=args.fit_distortion,
            max_rms_px=args.max_rms,
            refine=not args.no_refine,
        )
    except CommandInputError as exc:
        return _fail(str(exc))
    try:
        save_calibration(calibration, args.out)
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror}")
    camera = calibration.camera
    eye = camera.centre_mm()
    elevation = math.degrees(math.atan2(eye[2], math.hypot(eye[0], eye[1])))
    worst_name, worst = max(fit.per_landmark_px.items(), key=lambda kv: kv[1])
    print(
        f"reprojection error {fit.rms_px:.2f} px RMS over {len(fit.per_landmark_px)} landmarks "
        f"(worst {worst_name} {worst:.2f} px)"
    )
    if refined is not None:
        print(
            f"refined from {len(refined.per_landmark_px)} printed grid crossings: "
            f"{refined.rms_px:.2f} px RMS"
        )
    elif not args.no_refine:
        print("the printed grid could not refine the fit; kept the landmark fit")
    twist = calibration.spec.tier_twist_deg
    if any(twist):
        turned = ", ".join(f"{t} {d:+.2f}" for t, d in zip("PQRS", twist, strict=True) if t != "P")
        print(f"plates turned on the post against tier P (degrees): {turned}")
    print(
        f"focal length {camera.K[0, 0]:.0f} px, "
        f"camera {float(sum(eye**2) ** 0.5):.0f} mm from the board, "
        f"elevation {elevation:.0f} deg"
    )
    print(f"wrote {args.out}")
    return 0


def _run_calibrate_gryb(args: argparse.Namespace) -> int:
    """``calibrate --board gryb``: the 4 corner clicks, then every node from its printed spot."""
    from calibration.calibfile import save_calibration
    from calibration.gryb_calibfile import GrybCalibration
    from calibration.gryb_fit import GrybClicksError, SpotsError, fit_bandanna, load_gryb_clicks
    from calibration.gryb_spec import load_gryb_spec
    from calibration.spec import SpecError

    if args.aruco or args.clicks is None:
        return _fail(
            "the bandanna is calibrated from --clicks CLICKS.json "
            '({"GGGG": [u, v], "RRRR": ..., "YYYY": ..., "BBBB": ...}); it has no ArUco stickers'
        )
    if args.fit_distortion or args.no_refine:
        return _fail("--fit-distortion and --no-refine are for the stacked board; the bandanna is "
                     "always refined from its printed spots")
    try:
        spec = load_gryb_spec(args.spec or "gryb")
        clicks = load_gryb_clicks(args.clicks)
        image = _read_image(args.image)
        fit = fit_bandanna(image, clicks, spec)
    except (SpecError, GrybClicksError, SpotsError, CommandInputError) as exc:
        return _fail(str(exc))
    if fit.residual_px > args.max_rms:
        return _fail(f"the printed spots lie {fit.residual_px:.1f} px RMS off a smooth cloth "
                     f"(limit {args.max_rms:g} px): check the corner clicks")
    own_spec = args.spec and ("/" in args.spec or args.spec.endswith(".toml"))
    calibration = GrybCalibration.from_fit(fit, spec, image, clicks,
                                           spec_name=None if own_spec else "gryb")
    try:
        save_calibration(calibration, args.out)
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror}")
    print(f"{fit.located_count} of 341 nodes located on their printed spots "
          f"({fit.residual_px:.2f} px RMS about the smooth cloth field)")
    print(f"wrote {args.out}")
    return 0


# -- render ---------------------------------------------------------------------------------
def parse_size(text: str) -> tuple[int, int]:
    """``"1280x960"`` -> ``(1280, 960)``; raises :class:`CommandInputError`."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise CommandInputError(f"size {text!r} is not WIDTHxHEIGHT, e.g. 1280x960")
    width, height = int(parts[0]), int(parts[1])
    if not (160 <= width <= 8192 and 120 <= height <= 8192):
        raise CommandInputError(f"size {text} is out of range (160x120 .. 8192x8192)")
    return width, height


def render_scene(
    seed: int,
    size: tuple[int, int],
    token_count: int,
    *,
    hand: bool,
    aruco: bool,
    click_noise_px: float,
    twist_deg: float = 0.0,
) -> dict:
    """Render one random scene (its plates turned up to ``twist_deg`` about the post); returns
    the images and the ground-truth documents."""
    import numpy as np

    from calibration.spec import load_spec
    from rules.timevectors.points import point_name
    from vision.render import HandSpec, random_scene, render_timevectors
    from vision.render_scene import landmark_clicks, random_twist

    spec = random_twist(seed, twist_deg, load_spec("timevectors"))
    camera, style, colours = random_scene(seed, size)
    style = dataclasses.replace(style, aruco=aruco)
    rng = np.random.default_rng([seed, 1])
    points = rng.choice(256, token_count, replace=False)
    per_colour = np.repeat(np.arange(3), 35)
    colour_of = rng.permutation(per_colour)[:token_count]
    tokens = {int(p): int(c) for p, c in zip(points, colour_of, strict=True)}
    hand_spec = None
    if hand:
        target = int(points[0]) if token_count else int(rng.integers(256))
        skin = SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
        hand_spec = HandSpec(
            target_point=target,
            skin_rgb=tuple(int(np.clip(c + rng.normal(0, 8), 0, 255)) for c in skin),
            sleeve_rgb=None
            if rng.random() < 0.5
            else tuple(int(v) for v in rng.integers(20, 200, 3)),
        )
    rendered = render_timevectors(
        camera, spec, tokens, colours, hand=hand_spec, scene=style, seed=seed
    )
    clicks = {
        tier: {c: [round(u, 2), round(v, 2)] for c, (u, v) in corners.items()}
        for tier, corners in landmark_clicks(camera, spec, click_noise_px, rng).items()
    }
    truth = {
        "seed": seed,
        "size": list(size),
        "tokens": {point_name(p): c for p, c in sorted(tokens.items())},
        "colours_rgb": [list(c) for c in colours],
        "visibility": {
            point_name(p): round(float(v), 4) for p, v in enumerate(rendered.visibility)
        },
        "hidden": [point_name(p) for p in range(256) if rendered.visibility[p] < 0.5],
        "hand": bool(rendered.hand_mask.any()),
        "camera": camera.to_dict(),
        "tier_twist_deg": [round(t, 4) for t in spec.tier_twist_deg],
        "scene": dataclasses.asdict(style),
    }
    return {
        "image": rendered.image_bgr,
        "truth": truth,
        "clicks": clicks,
        "camera": camera,
        "style": style,
        "colours": colours,
        "spec": spec,
    }


def _render_check(args: argparse.Namespace) -> tuple[int, int]:
    """The frame size of ``render``; raises :class:`CommandInputError` for options that
    cannot be rendered for the chosen board."""
    size = parse_size(args.size)
    if args.board == "gryb":
        if args.aruco:
            raise CommandInputError("--aruco: the bandanna has no ArUco stickers")
        if not 0 <= args.tokens <= 341:
            raise CommandInputError(f"--tokens must be 0..341 rings on the bandanna, not {args.tokens}")
    elif not 0 <= args.tokens <= MAX_TOKENS:
        raise CommandInputError(f"--tokens must be 0..{MAX_TOKENS} (3 colours of 35), not {args.tokens}")
    if args.count < 1:
        raise CommandInputError(f"--count must be at least 1, not {args.count}")
    if args.click_noise < 0:
        raise CommandInputError("--click-noise cannot be negative")
    if args.board == "gryb" and args.twist:
        raise CommandInputError("--twist: the bandanna has no plates to turn")
    return size


def _rendered(args: argparse.Namespace, seed: int, size: tuple[int, int]) -> dict:
    """One scene of either board: ``image``, ``truth``, ``clicks``, and ``empty`` (the empty
    board) plus ``calibration`` (exact) when ``--empty``/``--calibration`` ask for them."""
    if args.board == "gryb":
        from vision.gryb_render import render_bandanna_scene

        return render_bandanna_scene(seed, size, args.tokens, hand=args.hand, click_noise_px=args.click_noise)
    from calibration.calibfile import Calibration
    from vision.render import render_timevectors

    scene = render_scene(seed, size, args.tokens, hand=args.hand, aruco=args.aruco,
                         click_noise_px=args.click_noise, twist_deg=args.twist)
    if args.empty or args.calibration:
        empty = render_timevectors(
            scene["camera"], scene["spec"], {}, scene["colours"], scene=scene["style"], seed=seed
        ).image_bgr
        scene["empty"] = empty
        scene["calibration"] = Calibration(
            board="timevectors", spec=scene["spec"], camera=scene["camera"], rms_px=0.0
        ).with_reference(empty)
    return scene


def _run_render(args: argparse.Namespace) -> int:
    """``render``: synthetic frames of either board with their ground truth and clicks."""
    import cv2

    from calibration.calibfile import save_calibration

    try:
        size = _render_check(args)
        args.out.mkdir(parents=True, exist_ok=True)
    except CommandInputError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"cannot create {args.out}: {exc.strerror}")
    tokens, places = ("rings", "nodes") if args.board == "gryb" else ("tokens", "points")
    for seed in range(args.seed, args.seed + args.count):
        scene = _rendered(args, seed, size)
        name = f"frame_{seed:05d}"
        image_path = args.out / f"{name}.{args.format}"
        scene["truth"]["image"] = image_path.name
        if not cv2.imwrite(str(image_path), scene["image"]):
            return _fail(f"cannot write {image_path}")
        (args.out / f"{name}.json").write_text(json.dumps(scene["truth"], indent=1) + "\n")
        (args.out / f"{name}_clicks.json").write_text(json.dumps(scene["clicks"], indent=1) + "\n")
        if args.empty or args.calibration:
            cv2.imwrite(str(args.out / f"{name}_empty.{args.format}"), scene["empty"])
        if args.calibration:
            save_calibration(scene["calibration"], args.out / f"{name}_calibration.json")
        print(f"wrote {image_path} ({args.tokens} {tokens}, {len(scene['truth']['hidden'])} {places} hidden)")
    return 0


# -- bench ----------------------------------------------------------------------------------
def _calibrated_error(camera, built, empty, rng, timed, label: str) -> tuple[float, float]:
    """Worst point-centre error (px, through the plates) of a fit to 2 px noisy clicks of the
    board as ``built`` seen by ``camera``, and of that fit refined from the ``empty`` picture;
    both steps timed by ``timed`` under ``label``."""
    import numpy as np

    from calibration.fit import fit_camera
    from calibration.refine import refine_with_markings
    from calibration.refraction import through_plates
    from calibration.spec import load_spec
    from vision.render_scene import landmark_clicks

    clicks = landmark_clicks(camera, built, 2.0, rng)
    fit = timed(f"fit 16 clicks ({label})", fit_camera, clicks, load_spec(), camera.image_size)
    refined = timed(f"refine from printed grid ({label})", refine_with_markings, fit, empty)
    truth = through_plates(camera, built).project(built.point_centres())
    return tuple(
        float(np.linalg.norm(through_plates(f.camera, f.spec).project(f.spec.point_centres()) - truth, axis=1).max())
        for f in (fit, refined)
    )


def _run_bench(args: argparse.Namespace) -> int:
    import dataclasses as dc
    import statistics
    import time

    import cv2
    import numpy as np

    from calibration.drift import DriftDetector
    from calibration.fiducials import detect_markers, fit_from_markers
    from calibration.spec import load_spec
    from vision.render import HandSpec, random_scene, render_timevectors
    from vision.render_scene import random_twist

    if args.scenes < 1:
        return _fail("--scenes must be at least 1")
    spec = load_spec()
    timings: dict[str, list[float]] = {}

    def timed(name: str, action, *args, **kwargs):
        start = time.perf_counter()
        result = action(*args, **kwargs)
        timings.setdefault(name, []).append(1000 * (time.perf_counter() - start))
        return result

    errors, turned_errors = [], []
    for size in ((1280, 960), (1640, 1232)):
        label = f"{size[0]}x{size[1]}"
        for seed in range(args.seed, args.seed + args.scenes):
            camera, style, colours = random_scene(seed, size)
            rng = np.random.default_rng(seed)
            tokens = {int(p): int(rng.integers(3)) for p in rng.choice(256, 60, replace=False)}
            hand = HandSpec(target_point=next(iter(tokens)))
            empty = timed(
                f"render empty board {label}",
                render_timevectors,
                camera,
                spec,
                {},
                colours,
                scene=style,
                seed=seed,
            ).image_bgr
            timed(
                f"render 60 tokens + hand {label}",
                render_timevectors,
                camera,
                spec,
                tokens,
                colours,
                scene=style,
                seed=seed,
                hand=hand,
            )
            encoded = cv2.imencode(".jpg", empty)[1]
            timed(f"JPEG decode {label}", cv2.imdecode, encoded, cv2.IMREAD_COLOR)
            errors.append(_calibrated_error(camera, spec, empty, rng, timed, label))
            turned = random_twist(seed, args.twist, spec)
            turned_empty = render_timevectors(
                camera, turned, {}, colours, scene=style, seed=seed
            ).image_bgr
            turned_errors.append(
                _calibrated_error(camera, turned, turned_empty, rng, timed, f"{label}, plates turned")
            )
            detector = DriftDetector(camera, spec, empty)
            timed(f"drift check, steady {label}", detector.check, empty)
            marked = render_timevectors(
                camera, spec, {}, colours, scene=dc.replace(style, aruco=True), seed=seed
            ).image_bgr
            markers = timed(f"ArUco detection {label}", detect_markers, marked)
            if len(markers) >= 3:
                timed("fit from markers", fit_from_markers, markers, spec, size)
    print(f"{'step':44s} {'median ms':>10s} {'max ms':>8s}")
    for name, values in timings.items():
        print(f"{name:44s} {statistics.median(values):10.1f} {max(values):8.1f}")
    for plates, found in (("straight plates", errors), (f"plates turned up to {args.twist:g} deg", turned_errors)):
        before, after = np.array(found).T
        print(
            f"worst point-centre error with 2 px click noise, {plates}: {np.median(before):.2f} px "
            f"median scene ({before.max():.2f} worst), {np.median(after):.2f} px "
            f"({after.max():.2f}) after refining from the printed grid"
        )
    return 0
