"""``boardcam gryb``: the GRYB bandanna's game space at a prompt, and ``bench gryb``.

``gryb moves --kind KIND NODE`` lists the nodes one move of that kind reaches;
``gryb score POSITION.json`` prints the GRYBs of each ring colour and both
scorings; ``gryb games`` lists the eleven games and their options; ``gryb
roll`` throws the dice. ``--json`` gives machine-readable output. Bad input
is one line on stderr and exit status 2. ``bench gryb`` times move
generation and judging for every game.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from calibration.jsonfile import JsonFileError, read_json_file
from rules.errors import RulesError
from rules.gryb.dice import DIE_FACES, Dice
from rules.gryb.games import GAMES
from rules.gryb.nodes import COLOUR_NAMES, node_name, parse_node
from rules.gryb.scoring import parse_position, score_position
from rules.gryb.traversal import MOVE_KINDS, reachable

EXIT_BAD_INPUT = 2


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add ``gryb`` with its subcommands, and the ``gryb`` bench target."""
    gryb = commands.add_parser(
        "gryb",
        help="the GRYB bandanna: move kinds, scoring, games, dice",
        description="The GRYB game space: nodes are named by their colour path (0, G, RY, GGBY).",
    )
    actions = gryb.add_subparsers(dest="gryb_command", metavar="ACTION", required=True)

    moves = actions.add_parser(
        "moves", help="nodes one move of a kind reaches from a node",
        description="Print the nodes one move of KIND reaches from NODE.",
    )
    moves.add_argument("--kind", required=True, choices=list(MOVE_KINDS), help="the move kind")
    moves.add_argument("node", metavar="NODE", help="a node name: 0, G, RY, GGBY ...")
    moves.add_argument("--json", action="store_true", help="a JSON list of node names")
    moves.set_defaults(func=run_moves)

    score = actions.add_parser(
        "score", help="GRYBs and both scores of a position file",
        description='Read {"board": "gryb", "tokens": {"GGBY": 0, ...}} (ring colours 0 and 1) '
        "and print the GRYBs of each colour with the binary (1/2/4/8) and 25 Men's "
        "GRYB (1/2/3/4 pieces) scores.",
    )
    score.add_argument("file", type=Path, metavar="POSITION.json")
    score.add_argument("--json", action="store_true", help="one JSON object")
    score.set_defaults(func=run_score)

    games = actions.add_parser("games", help="the eleven games and their options")
    games.add_argument("--json", action="store_true", help="a JSON list")
    games.set_defaults(func=run_games)

    roll = actions.add_parser("roll", help="throw a GRYB die")
    roll.add_argument("--die", choices=list(DIE_FACES), default="colour",
                      help="colour (four-colour die), node (GRYB Dice II) or leaf (fourth level)")
    roll.add_argument("--count", type=int, default=1, help="how many throws (default 1)")
    roll.add_argument("--seed", help="seed for a reproducible series")
    roll.add_argument("--json", action="store_true", help="a JSON list of throws")
    roll.set_defaults(func=run_roll)

    bench = bench_targets.add_parser(
        "gryb", help="milliseconds per legal-move list and per judged move, for every GRYB game"
    )
    bench.add_argument("--moves", type=int, default=300, help="moves per game (default 300)")
    bench.set_defaults(func=run_bench)


def _fail(action: str, message: str, err: TextIO) -> int:
    err.write(f"boardcam gryb {action}: {message}\n")
    return EXIT_BAD_INPUT


def run_moves(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    try:
        node = parse_node(args.node)
    except RulesError as error:
        return _fail("moves", str(error), err)
    targets = [node_name(n) for n in reachable(args.kind, node)]
    if args.json:
        out.write(json.dumps(targets) + "\n")
    else:
        out.write(f"{args.kind} from {node_name(node)}: {', '.join(targets) or 'no move'}\n")
    return 0


def load_position(path: Path) -> dict[str, int]:
    """Read a GRYB position file; raises ``ValueError`` with a one-line reason."""
    try:
        document = read_json_file(path, "position file")
    except JsonFileError as error:
        raise ValueError(error.reason) from error
    try:
        return parse_position(document)
    except RulesError as error:
        raise ValueError(str(error)) from error


def run_score(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    try:
        position = load_position(args.file)
    except ValueError as error:
        return _fail("score", f"{args.file}: {error}", err)
    sheet = score_position(position).to_dict()
    if args.json:
        out.write(json.dumps(sheet) + "\n")
        return 0
    for entry in sheet["colours"]:
        grybs = entry["grybs"]
        out.write(
            f"colour {entry['colour']}: {len(grybs)} GRYB{'s' * (len(grybs) != 1)}, "
            f"{entry['binary_points']} point{'s' * (entry['binary_points'] != 1)} (binary), "
            f"{entry['mens_pieces']} piece{'s' * (entry['mens_pieces'] != 1)} (25 Men's GRYB)\n"
        )
        for gryb in grybs:
            out.write(f"  under {gryb['quadrangle']} (level {gryb['level']}): "
                      f"{', '.join(gryb['nodes'])}\n")
    return 0


def game_catalogue() -> list[dict[str, Any]]:
    """Every game with its options and their defaults, JSON-ready."""
    return [
        {
            "name": name,
            "title": game.title,
            "options": {
                f.name.replace("_", "-"): f.default for f in dataclasses.fields(game.Options)
            },
        }
        for name, game in GAMES.items()
    ]


def run_games(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    catalogue = game_catalogue()
    if args.json:
        out.write(json.dumps(catalogue) + "\n")
        return 0
    for entry in catalogue:
        options = ", ".join(f"{k}={json.dumps(v)}" for k, v in entry["options"].items())
        out.write(f"{entry['name']:<16} {entry['title']:<18} {options}\n")
    return 0


def run_roll(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    if not 1 <= args.count <= 10_000:
        return _fail("roll", f"--count must be 1..10000, not {args.count}", err)
    dice = Dice(args.seed)
    rolls = [dice.roll(args.die).to_dict() for _ in range(args.count)]
    if args.json:
        out.write(json.dumps(rolls) + "\n")
    else:
        words = [COLOUR_NAMES.get(r["value"], r["value"]) if args.die == "colour" else r["value"]
                 for r in rolls]
        out.write(" ".join(words) + "\n")
    return 0


def run_bench(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    if args.moves < 1:
        err.write(f"boardcam bench gryb: --moves must be at least 1, not {args.moves}\n")
        return EXIT_BAD_INPUT
    out.write(
        f"{'game':<16} {'moves':>5} {'legal ms':>9} {'judge ms':>9} {'worst judge ms':>15} "
        f"{'unexplained':>11}\n"
    )
    for name, game_class in GAMES.items():
        game, referee = game_class(seed=1), game_class(seed=1)
        rng = random.Random(1)
        legal_time = judge_time = worst = 0.0
        judged = listed = unexplained = 0
        for _ in range(args.moves):
            if game.is_over():
                break
            if game.die():
                referee.push(game.roll())
                continue
            start = time.perf_counter()
            moves = game.legal_moves()
            legal_time += time.perf_counter() - start
            listed += 1
            game.push(rng.choice(moves))
            start = time.perf_counter()
            judgement = referee.judge(game.position())
            spent = time.perf_counter() - start
            judge_time, worst, judged = judge_time + spent, max(worst, spent), judged + 1
            referee.push_all(judgement.moves)
            if referee.position() != game.position():
                unexplained += 1  # counted, then the referee catches up as an operator would
                referee = game_class.from_dict(game.to_dict())
        out.write(
            f"{name:<16} {listed:>5} {1000 * legal_time / max(listed, 1):>9.2f} "
            f"{1000 * judge_time / max(judged, 1):>9.2f} {1000 * worst:>15.2f} {unexplained:>11}\n"
        )
    return 0
