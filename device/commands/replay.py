"""``boardcam replay``: run the live pipeline over a folder of frames and print its events.

A folder of frames (a support bundle, a test recording, rendered frames) is read
in name order as if a camera delivered it at 4 frames per second, through the
same observer, tracker and referee as ``boardcam serve``; every event is printed
as one JSON line (``--json``) or as a readable log. A misread seen at the table
can so be reproduced and debugged at a desk; ``--mid-game`` is for frames that
start during a game (a support bundle holds only the last minute).

``boardcam bench pipeline`` plays one loop of the built-in demo through the same
pipeline and prints the time of each stage per frame.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from device import events as ev
from device.events import Event
from rules.timevectors.config import CHOOSING

logger = logging.getLogger(__name__)

PLAYER_COUNTS = (2, 3, 4, 6)  # 4 and 6: two teams
DEFAULT_FPS = 4.0


class ReplayError(ValueError):
    """Input the replay cannot run on (calibration, palette, folder, game settings)."""


def register(
    commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction
) -> None:
    """Add ``boardcam replay``."""
    parser = commands.add_parser(
        "replay",
        help="run the live pipeline over a folder of frames and print its events",
        description="Read the frames of DIR in name order as if a camera delivered them at "
        "4 frames per second, through the live pipeline, and print every event (move, win, "
        "illegal, restored, camera_moved, confirm_hidden, ...).",
    )
    parser.add_argument(
        "--calibration",
        required=True,
        type=Path,
        metavar="CALIB.json",
        help="calibration file (boardcam calibrate or the dashboard's wizard)",
    )
    parser.add_argument(
        "--palette",
        type=Path,
        metavar="PALETTE.json",
        help="nominal token colours [[r, g, b], ...]; player i plays colour i",
    )
    parser.add_argument(
        "--players",
        type=int,
        default=2,
        choices=PLAYER_COUNTS,
        help="2 or 3 players, or 4/6 in two teams (default 2)",
    )
    parser.add_argument(
        "--opening",
        default="none",
        choices=("none", "swap", "3meq"),
        help="opening protocol (default none)",
    )
    parser.add_argument(
        "--choose",
        type=int,
        choices=(0, 1),
        metavar="COLOUR",
        help="3meq: the colour (0 or 1) the second player chooses once the three opening "
        "tokens are down (a camera cannot see a choice; without it the replay stops there)",
    )
    parser.add_argument(
        "--fps",
        type=float,
        default=DEFAULT_FPS,
        help="frame rate the frames are timed at (default 4)",
    )
    parser.add_argument(
        "--mid-game",
        action="store_true",
        help="the frames start during a game (a support bundle): take the first still board "
        "as the game so far",
    )
    parser.add_argument(
        "--moves",
        type=Path,
        metavar="MOVES.json",
        help='the moves played before the first frame: a JSON list ("A3Q:0", "swap B2P:1", '
        '"choose 1", ...) or a support bundle\'s manifest.json; the replay starts from that '
        "game exactly (--mid-game guesses it from the first board)",
    )
    parser.add_argument("--board", choices=["timevectors", "gryb"], default="timevectors")
    parser.add_argument(
        "--game", metavar="NAME", help="gryb: the game played (ez-gryb, drangles, ...)"
    )
    parser.add_argument(
        "--rolls",
        metavar="FILE|SEED",
        help='gryb: the dice rolls, a JSON list of faces (["Y", "GR", ...]) or a seed of the '
        "virtual die; without it the rolls are read off the moves",
    )
    parser.add_argument("--json", action="store_true", help="one JSON record per event")
    parser.add_argument("dir", type=Path, metavar="DIR", help="folder of frames (PNG, JPEG, ...)")
    parser.set_defaults(func=run)

    bench = bench_targets.add_parser(
        "pipeline",
        help="time the live pipeline per stage on one loop of the demo game",
        description="Play one loop of the built-in demo through the live pipeline and print "
        "milliseconds per frame for the observer, the tracker, the referee and the drift check, "
        "and whether the events are the scripted ones.",
    )
    bench.add_argument(
        "--size", default="800x600", metavar="WxH", help="frame size (default 800x600)"
    )
    bench.set_defaults(func=run_bench)


def run(args: argparse.Namespace) -> int:
    """Entry point of ``boardcam replay``; exit status 2 for bad input."""
    try:
        return replay(
            args.calibration,
            args.dir,
            palette_path=args.palette,
            players=args.players,
            opening=args.opening,
            choose=args.choose,
            fps=args.fps,
            as_json=args.json,
            out=sys.stdout,
            mid_game=args.mid_game,
            moves_path=args.moves,
            board=args.board,
            game_name=args.game,
            rolls=args.rolls,
        )
    except ReplayError as exc:
        print(f"boardcam replay: error: {exc}", file=sys.stderr)
        return 2


def _load_palette(path: Path) -> list[tuple[int, int, int]]:
    from calibration.colours import PaletteError, parse_palette
    from calibration.jsonfile import JsonFileError, read_json_file

    try:
        return parse_palette(read_json_file(path, "palette"))
    except JsonFileError as exc:
        raise ReplayError(str(exc)) from exc
    except PaletteError as exc:
        raise ReplayError(f"palette {path}: {exc}") from exc


def _new_game(players: int, opening: str) -> Any:
    from device.game_view import new_game

    try:
        return new_game(players, opening)
    except ValueError as exc:  # a configuration the rules refuse
        raise ReplayError(str(exc)) from exc


def _play_moves(game: Any, path: Path) -> None:
    """Play the moves of ``path`` (a JSON list of move texts, or an object whose
    ``moves_at_start`` is one: a support bundle's manifest) on ``game``; raises
    :class:`ReplayError` naming the first move that cannot be read or played."""
    from calibration.jsonfile import JsonFileError, read_json_file
    from rules.errors import RulesError
    from rules.timevectors.moves import Move

    try:
        document = read_json_file(path, "moves file")
    except JsonFileError as exc:
        raise ReplayError(str(exc)) from exc
    moves = document.get("moves_at_start") if isinstance(document, dict) else document
    if not isinstance(moves, list):
        raise ReplayError(
            f'moves file {path}: expected a list of moves like ["A3Q:0", "H8S:1"] '
            "or a support bundle's manifest.json"
        )
    for number, text in enumerate(moves, start=1):
        try:
            game.push(Move.parse(text))
        except RulesError as exc:
            raise ReplayError(f"moves file {path}: move {number} ({text!r}): {exc}") from exc


def _new_gryb_game(name: str | None, rolls: str | None) -> tuple[Any, list[str] | None]:
    """The GRYB game and the rolls file's faces (``None``: a seed, or rolls read off moves)."""
    from calibration.jsonfile import JsonFileError, read_json_file
    from rules.errors import RulesError
    from rules.gryb.games import GAMES, new_game

    if name is None:
        raise ReplayError(f"--board gryb needs --game NAME ({', '.join(GAMES)})")
    faces = None
    seed: int | None = None
    if rolls is not None:
        if rolls.lstrip("-").isdigit():
            seed = int(rolls)
        else:
            try:
                faces = read_json_file(rolls, "rolls file")
            except JsonFileError as exc:
                raise ReplayError(str(exc)) from exc
            if not isinstance(faces, list) or not all(isinstance(f, str) for f in faces):
                raise ReplayError(f'rolls file {rolls}: a list of die faces like ["Y", "GR"]')
    try:
        return new_game(name, seed=seed), faces
    except RulesError as exc:
        raise ReplayError(str(exc)) from exc


def replay(
    calibration_path: Path,
    directory: Path,
    *,
    palette_path: Path | None = None,
    players: int = 2,
    opening: str = "none",
    choose: int | None = None,
    fps: float = DEFAULT_FPS,
    as_json: bool = False,
    out: TextIO = sys.stdout,
    mid_game: bool = False,
    moves_path: Path | None = None,
    board: str = "timevectors",
    game_name: str | None = None,
    rolls: str | None = None,
) -> int:
    """Run the pipeline over ``directory`` and write its events to ``out``; returns 0.

    Raises :class:`ReplayError` for a bad calibration, palette, game setting or folder
    (nothing is printed on ``out`` then). Unreadable frames are skipped with a warning.
    """
    # The vision stack is imported here, not at module level: `boardcam --help` stays quick.
    from calibration.calibfile import CalibrationError, load_calibration
    from device.pipeline import Pipeline
    from device.sources.base import Frame, SourceError
    from device.sources.folder import decode_image, list_frames
    from vision.observer import FrameError

    if fps <= 0:
        raise ReplayError(f"--fps must be positive, not {fps:g}")
    if choose is not None and (board != "timevectors" or opening != "3meq"):
        raise ReplayError("--choose is the colour choice of a 3meq opening (--opening 3meq)")
    if moves_path is not None and (board != "timevectors" or mid_game):
        raise ReplayError(
            "--moves starts a Time Vectors game from its moves; --mid-game guesses them instead: "
            "give one"
            if mid_game
            else "--moves is for Time Vectors games"
        )
    faces: list[str] | None = None
    if board == "gryb":
        game, faces = _new_gryb_game(game_name, rolls)
    else:
        game = _new_game(players, opening)
        if moves_path is not None:
            _play_moves(game, moves_path)
    try:
        calibration = load_calibration(calibration_path, board=board)
    except CalibrationError as exc:
        raise ReplayError(str(exc)) from exc
    palette = _load_palette(palette_path) if palette_path is not None else None
    try:
        files = list_frames(directory)
    except SourceError as exc:
        raise ReplayError(str(exc)) from exc
    try:
        pipeline = Pipeline(calibration, game, palette=palette, mid_game=mid_game)
    except ValueError as exc:  # e.g. the calibrated camera does not see the board
        raise ReplayError(f"calibration {calibration_path} cannot be used: {exc}") from exc

    skipped = 0
    for index, path in enumerate(files):
        image = decode_image(path)
        if image is None:
            logger.warning("skipping unreadable frame %s", path)
            skipped += 1
            continue
        frame = Frame(image=image, seq=index, timestamp=index / fps, name=path.name)
        # A roll that is due (from the file, or the game's seeded die) comes before the move.
        roll_due = board == "gryb" and rolls is not None and pipeline.game.die() is not None
        if roll_due and (faces is None or faces):
            for event in pipeline.roll(faces.pop(0) if faces else None):
                print(json.dumps(event.to_record()) if as_json else describe(event), file=out)
        try:
            events = pipeline.process(frame, now=index / fps)
        except FrameError as exc:
            logger.warning("skipping frame %s: %s", path, exc)
            skipped += 1
            continue
        if choose is not None and getattr(pipeline.game, "phase", None) == CHOOSING:
            events += pipeline.choose_colour(choose)  # the second player's choice, as told
        for event in events:
            print(
                json.dumps(event.to_record()) if as_json else describe(event), file=out, flush=True
            )
    if not as_json:
        print(summary(pipeline.game, len(files), skipped), file=out)
    return 0


def _colour(color: Any) -> str:
    return f"colour {color}"


def describe(event: Event) -> str:
    """One readable log line for an event."""
    d = event.data
    at = f"frame {event.frame:>5}: " if event.frame is not None else "operator:    "
    if event.type == ev.MOVE and "text" in d:  # the bandanna: a GRYB move says what it is
        return f"{at}{_colour(d['color'])}: {d['text']}"
    if event.type == ev.MOVE:
        hidden = " (on a hidden point, confirmed)" if d.get("hidden") else ""
        if d.get("in_line"):
            hidden = " (of two points in line, the one the players named)"
        kind = f" ({d['kind']})" if d.get("kind") else ""
        return f"{at}{_colour(d['color'])} plays {d['point']}{kind}{hidden}"
    if event.type == ev.WIN and "vectors" not in d:  # the bandanna
        return f"{at}{_colour(d['color'])} WINS: {d.get('reason', '')}"
    if event.type == ev.WIN:
        vectors = "; ".join(" ".join(v) for v in d["vectors"])
        return f"{at}{_colour(d['color'])} WINS with {vectors}"
    if event.type == ev.DRAW:
        return f"{at}draw: {d.get('reason', '')}"
    if event.type == ev.ILLEGAL:
        return f"{at}ILLEGAL: {'; '.join(d['reasons'])} (points {', '.join(d['points'])})"
    if event.type == ev.RESTORED:
        return f"{at}board restored"
    if event.type == ev.CONFIRM_HIDDEN and d.get("in_line"):
        return (
            f"{at}a {_colour(d['color'])} token is on {' or '.join(d['candidates'])}, in line "
            "with the camera (confirm which)"
        )
    if event.type == ev.CONFIRM_HIDDEN:
        return (
            f"{at}a {_colour(d['color'])} token must be on a hidden point: one of "
            f"{', '.join(d['candidates'])} (confirm which)"
        )
    if event.type == ev.CAMERA_MOVED:
        what = "re-fitted" if d.get("refit") else "recalibrate"
        return f"{at}camera moved {d['shift_px']} px ({what})"
    if event.type == ev.GAME_STARTED:
        return f"{at}new game ({d.get('reason', '')})"
    details = ", ".join(f"{k} {v}" for k, v in d.items())
    return f"{at}{event.type}" + (f": {details}" if details else "")


def summary(game: Any, frames: int, skipped: int) -> str:
    """The closing lines of a readable replay: counts, the result and the final board."""
    outcome = game.outcome()
    if outcome is None:
        result = "game not finished"
    elif outcome.winner is None:
        result = outcome.reason
    else:
        result = f"{_colour(outcome.winner)} won"
    read = f"{frames - skipped} frames read" + (f", {skipped} skipped" if skipped else "")
    from rules.gryb.games.base import GrybGame

    if isinstance(game, GrybGame):  # the bandanna: rings by node
        from rules.gryb.nodes import node_name

        rings = " ".join(f"{node_name(n)}={c}" for n, c in sorted(game.position().items()))
        board = f"rings: {rings or 'none'}"
    else:
        from rules.timevectors import render_ascii

        board = render_ascii(game.board)
    return f"\n{read}; {len(game.move_stack)} moves; {result}\n\n{board}"


class Timed:
    """Wraps a pipeline part and adds the seconds spent in its one method to ``totals``."""

    def __init__(self, inner: Any, method: str, totals: dict[str, list[float]], name: str) -> None:
        self._inner, self._method, self._totals, self._name = inner, method, totals, name

    def __setattr__(self, attr: str, value: Any) -> None:
        if attr.startswith("_"):
            object.__setattr__(self, attr, value)
        else:  # e.g. the pipeline telling the observer the colour to play
            setattr(self._inner, attr, value)

    def __getattr__(self, attr: str) -> Any:
        target = getattr(self._inner, attr)
        if attr != self._method:
            return target

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return target(*args, **kwargs)
            finally:
                self._totals[self._name].append(time.perf_counter() - started)

        return timed


def _parse_size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError as exc:
        raise ReplayError(f"--size must look like 800x600, not {text!r}") from exc
    if not (160 <= width <= 4096 and 120 <= height <= 4096):
        raise ReplayError(f"--size {text} is out of range (160x120 to 4096x4096)")
    return width, height


def run_bench(args: argparse.Namespace) -> int:
    """``boardcam bench pipeline``: per-stage timings on the demo; exit status 2 for a bad size."""
    try:
        size = _parse_size(args.size)
    except ReplayError as exc:
        print(f"boardcam bench pipeline: error: {exc}", file=sys.stderr)
        return 2
    for line in bench_pipeline(size):
        print(line)
    return 0


def bench_pipeline(size: tuple[int, int]) -> list[str]:
    """Run one loop of the demo through the pipeline with its stages timed; the report lines."""
    from collections import defaultdict

    from device.demo_script import demo_script, scripted_events
    from device.pipeline import Pipeline, make_drift_detector, make_observer, make_tracker
    from device.sources.demo import DemoSource

    totals: dict[str, list[float]] = defaultdict(list)
    source = DemoSource(fps=0, size=size, loop=False)
    calibration = source.calibration()

    def drift_factory(cal: Any) -> Any:
        detector = make_drift_detector(cal)
        return None if detector is None else Timed(detector, "check", totals, "drift check")

    pipeline = Pipeline(
        calibration,
        _new_game(2, "none"),
        palette=source.palette,
        observer_factory=lambda cal, *, palette=None, sets=None: Timed(
            make_observer(cal, palette=palette, sets=sets), "observe", totals, "observer"
        ),
        tracker_factory=lambda frames: Timed(make_tracker(frames), "update", totals, "tracker"),
        drift_factory=drift_factory,
    )
    records: list[dict[str, Any]] = []
    frames = 0
    started = time.perf_counter()
    render = 0.0
    source.start()
    while True:
        render_started = time.perf_counter()
        frame = source.read()
        render += time.perf_counter() - render_started
        if frame is None:
            break
        frames += 1
        for event in pipeline.process(frame, now=frame.seq / DEFAULT_FPS):
            record = event.to_record()
            del record["time"], record["frame"]
            records.append(record)
    total = time.perf_counter() - started - render
    expected = scripted_events(demo_script())
    lines = [f"pipeline on the demo game, {size[0]}x{size[1]}, {frames} frames (one loop):"]
    for name in ("observer", "tracker", "drift check"):
        calls = totals.get(name, [])
        if calls:
            per_check = name == "drift check"
            per = 1000 * sum(calls) / (len(calls) if per_check else max(frames, 1))
            unit = "check" if per_check else "frame"
            lines.append(f"  {name:<12} {per:8.1f} ms/{unit}  ({len(calls)} calls)")
    rest = total - sum(sum(calls) for calls in totals.values())
    lines.append(f"  {'referee etc.':<12} {1000 * rest / max(frames, 1):8.1f} ms/frame")
    per_frame = 1000 * total / max(frames, 1)
    lines.append(
        f"  {'total':<12} {per_frame:8.1f} ms/frame  -> {1000 / per_frame:.0f} frames/s "
        f"(the demo runs at {DEFAULT_FPS:g})"
    )
    lines.append(f"  events: {len(records)}, as scripted: {'yes' if records == expected else 'NO'}")
    return lines
