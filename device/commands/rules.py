"""``boardcam vectors``, ``check`` and ``bench rules``: the Time Vectors rules at a prompt.

``vectors`` lists all 976 vectors (JSON array or grouped by type); ``check``
reads position files ``{"board": "timevectors", "tokens": {"A1P": 0}}`` and
prints their completed vectors and threats (one JSON line per file, or the
ASCII board and a summary). A file that cannot be read is reported on stderr
in one line naming it; the other files are still checked and the exit status
is 2. ``bench rules`` measures the per-move win check and ``check`` itself.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TextIO

from calibration.jsonfile import JsonFileError, read_json_file
from rules.errors import RulesError
from rules.timevectors import (
    VECTOR_TYPES,
    VECTORS,
    GameConfig,
    Move,
    TimeVectorsGame,
    dims_name,
    point_name,
    position_from_dict,
    render_ascii,
    threats,
    vectors_in,
)
from rules.timevectors.points import POINTS
from rules.timevectors.vectors import bitboard, completed_through

EXIT_BAD_INPUT = 2
_PER_LINE = 4


def register(
    commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction
) -> None:
    """Add ``vectors``, ``check`` and the ``rules`` bench target."""
    vectors = commands.add_parser(
        "vectors",
        help="list the 976 Time Vectors vectors",
        description="List every vector of the Time Vectors board, by type, "
        "with its points in line order.",
    )
    vectors.add_argument(
        "--json", action="store_true", help='one JSON array of {"points": [...], "dims": [...]}'
    )
    vectors.set_defaults(func=run_vectors)

    check = commands.add_parser(
        "check",
        help="completed vectors and threats of Time Vectors positions",
        description='Check position files {"board": "timevectors", "tokens": {"A1P": 0, ...}} '
        "(colours 0..2): completed vectors and threats per colour.",
    )
    check.add_argument("files", nargs="+", type=Path, metavar="FILE")
    check.add_argument("--json", action="store_true", help="one JSON line per file")
    check.set_defaults(func=run_check)

    bench = bench_targets.add_parser(
        "rules", help="microseconds per move of the win check; time of check on 40 tokens"
    )
    bench.add_argument(
        "--moves", type=int, default=20_000, help="win checks to time (default 20000)"
    )
    bench.set_defaults(func=run_bench)


# -- vectors ---------------------------------------------------------------------------


def run_vectors(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    if args.json:
        json.dump([v.to_json() for v in VECTORS], out)
        out.write("\n")
        return 0
    for dims in VECTOR_TYPES:
        group = [v for v in VECTORS if v.dims == dims]
        dimension = "dimension" if len(dims) == 1 else "dimensions"
        out.write(f"{dims_name(dims)} {dimension}: {len(group)} vectors\n")
        for start in range(0, len(group), _PER_LINE):
            out.write(
                "  " + "   ".join(v.notation() for v in group[start : start + _PER_LINE]) + "\n"
            )
        out.write("\n")
    out.write(f"{len(VECTORS)} vectors in {len(VECTOR_TYPES)} types\n")
    return 0


# -- check ------------------------------------------------------------------------------


def check_position(tokens: Mapping[int, int]) -> dict[str, Any]:
    """Completed vectors and threats of a position, JSON-ready (a ``check`` record minus file)."""
    completed = [{"color": color, **vector.to_json()} for color, vector in vectors_in(tokens)]
    found = {
        str(color): [
            {**vector.to_json(), "point": point_name(point)}
            for vector, point in threats(tokens, color)
        ]
        for color in sorted(set(tokens.values()))
    }
    return {"vectors": completed, "threats": found}


def load_position(path: Path) -> dict[int, int]:
    """Read a position file; raises ``ValueError`` with a one-line message saying what is wrong."""
    try:
        data = read_json_file(path, "position file")
    except JsonFileError as error:
        raise ValueError(error.reason) from error
    try:
        return position_from_dict(data)
    except RulesError as error:
        raise ValueError(str(error)) from error


def run_check(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    status = 0
    for path in args.files:
        try:
            tokens = load_position(path)
        except ValueError as error:
            err.write(f"boardcam check: {path}: {error}\n")
            status = EXIT_BAD_INPUT
            continue
        report = check_position(tokens)
        if args.json:
            out.write(json.dumps({"file": str(path), **report}) + "\n")
        else:
            _write_check_text(path, tokens, report, out)
        out.flush()
    return status


def _write_check_text(
    path: Path, tokens: Mapping[int, int], report: dict[str, Any], out: TextIO
) -> None:
    out.write(f"== {path}: {len(tokens)} tokens\n\n")
    out.write(render_ascii(tokens))
    out.write("\n")
    if report["vectors"]:
        out.write("Vectors:\n")
        out.writelines(
            f"  colour {found['color']}: {_line(found)}\n" for found in report["vectors"]
        )
    else:
        out.write("Vectors: none\n")
    threatening = {color: items for color, items in report["threats"].items() if items}
    if threatening:
        out.write("Threats (the point completes the vector):\n")
        out.writelines(
            f"  colour {color}: {item['point']} completes {_line(item)}\n"
            for color, items in threatening.items()
            for item in items
        )
    else:
        out.write("Threats: none\n")
    out.write("\n")


def _line(vector_json: Mapping[str, Any]) -> str:
    return f"{' '.join(vector_json['points'])} ({dims_name(vector_json['dims'])})"


# -- bench ------------------------------------------------------------------------------


def _per_call(function: Callable[[], object], repeat: int) -> float:
    """Seconds per call of ``function``, best of three runs of ``repeat`` calls."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeat):
            function()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best


def random_position(count: int, rng: random.Random) -> dict[int, int]:
    """``count`` tokens on random points, colours alternating 0, 1 as in a two-player game."""
    return {point: index % 2 for index, point in enumerate(rng.sample(list(POINTS), count))}


def run_bench(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    if args.moves < 1:
        sys.stderr.write("boardcam bench rules: --moves must be at least 1\n")
        return EXIT_BAD_INPUT
    rng = random.Random(2005)
    cases = []
    for _ in range(200):
        tokens = random_position(rng.randrange(4, 70), rng)
        point = rng.choice(list(tokens))
        cases.append((bitboard(tokens, tokens[point]), point))
    index = iter(range(10**12))

    def win_check() -> None:
        bits, point = cases[next(index) % len(cases)]
        completed_through(bits, point)

    win_us = _per_call(win_check, args.moves) * 1e6

    game_moves = [rng.sample(list(POINTS), 70) for _ in range(20)]

    def play_games() -> None:
        for points in game_moves:
            game = TimeVectorsGame(GameConfig())
            for point in points:
                if game.is_over():
                    break
                game.push(Move(point, game.turn_color()))

    pushes = sum(min(70, len(points)) for points in game_moves)
    push_us = _per_call(play_games, 1) * 1e6 / pushes

    position = random_position(40, rng)
    text = json.dumps(
        {"board": "timevectors", "tokens": {point_name(p): c for p, c in position.items()}}
    )

    def check_once() -> None:
        tokens = position_from_dict(json.loads(text))
        json.dumps(check_position(tokens))
        render_ascii(tokens)

    check_ms = _per_call(check_once, 20) * 1e3

    game = TimeVectorsGame(GameConfig())
    for point in rng.sample(list(POINTS), 30):
        if game.is_over():
            break
        game.push(Move(point, game.turn_color()))
    observed = game.board
    observed[next(p for p in POINTS if p not in observed)] = game.turn_color() or 0
    judge_us = _per_call(lambda: game.judge(observed), 200) * 1e6

    out.write(
        f"win check (lines through the placed point, bitmask tests): {win_us:.2f} us per move\n"
    )
    out.write(
        f"push (legality, state save, win and draw check):         {push_us:.2f} us per move\n"
    )
    out.write(f"judge one new token on a 30-token board:                  {judge_us:.1f} us\n")
    out.write(f"check on a 40-token position (parse, vectors, threats):   {check_ms:.2f} ms\n")
    return 0
