"""``boardcam play``: play and validate a TSR 4D or Timeline game written as a move list.

The move file is plain text, one move per line in the game's notation:

- ``#`` starts a comment (to the end of the line); blank lines are skipped;
- an optional header ``position: TEXT`` before the first move starts the game
  from that position (the game's position text: see
  :mod:`rules.tsr4d.position` and :mod:`rules.timeline.position`); without it
  the game starts from the documented starting position;
- TSR 4D: one line is one whole turn, its actions in the rules' shorthand
  separated by spaces, commas or semicolons (``-Rb1; T(c2)d1; +W(b4)``); the
  turn ends at the end of the line, where its obligations are checked;
- Timeline: one line is one move ``FROM-TO`` in ``A3Q`` points (``A5P-A8P``,
  optionally ``xCOLOUR`` for the capture, which is then checked).

Moves are numbered from 1 in file order. The game stops at the first illegal
move (a move after the end of the game is illegal too): exit status 2 and,
with ``--json``, ``{"result": ..., "winner": ..., "illegal": {"move": N,
"reason": TEXT}}`` describing the position reached before it. An unreadable
file or a bad ``position:`` header is reported on stderr with exit status 2.

Rule options where players disagree: ``--suicide-rule adjacent|arrived``
(TSR 4D, :class:`~rules.tsr4d.game.SuicideRule`) and ``--crossing-rule
squares|diagonals`` (Timeline, :class:`~rules.timeline.game.CrossingRule`).

``bench play`` times legal-move generation and judging for both games.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from rules.errors import RulesError
from rules.game import Game, Outcome
from rules.timeline import TEAM_NAMES, CrossingRule, TimelineGame, parse_move
from rules.timeline import parse_position as parse_timeline_position
from rules.tsr4d import PLAYER_NAMES, EndTurn, SuicideRule, Tsr4dGame, parse_turn, turn_notation
from rules.tsr4d import parse_position as parse_tsr4d_position
from rules.tsr4d.judge import board_codes

EXIT_ILLEGAL = 2
POSITION_HEADER = "position:"


class MoveFileError(ValueError):
    """A move file that cannot be read as a move list (bad header placement, unreadable)."""


@dataclass(frozen=True)
class MoveLine:
    """One move of a move file: its 1-based move number, its line number and its text."""

    index: int
    line_number: int
    text: str


def read_move_list(text: str) -> tuple[str | None, list[MoveLine]]:
    """Split a move file into its ``position:`` header (or ``None``) and its moves.

    Raises :class:`MoveFileError` when a ``position:`` line follows a move or repeats.
    """
    header: str | None = None
    moves: list[MoveLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.lower().startswith(POSITION_HEADER):
            if moves or header is not None:
                raise MoveFileError(f"line {number}: 'position:' must come once, before the moves")
            header = line[len(POSITION_HEADER):].strip()
            continue
        moves.append(MoveLine(len(moves) + 1, number, line))
    return header, moves


@dataclass(frozen=True)
class Variant:
    """What ``play`` needs to know of one game: how to start it, play a line, name a winner."""

    new_game: Callable[[str | None, argparse.Namespace], Game[Any]]
    play_line: Callable[[Any, str], str]
    side_names: tuple[str, ...]


def _new_tsr4d(header: str | None, args: argparse.Namespace) -> Tsr4dGame:
    position = None if header is None else parse_tsr4d_position(header)
    return Tsr4dGame(position, suicide_rule=SuicideRule(args.suicide_rule))


def _play_tsr4d_turn(game: Tsr4dGame, text: str) -> str:
    actions = parse_turn(text)
    if not actions:
        raise RulesError("the line holds no action")
    if EndTurn() in actions[:-1]:
        raise RulesError("one turn per line: 'end' may only close the line")
    before = len(game.move_stack)
    game.play_turn(actions)
    return turn_notation(game.move_stack[before:])


def _new_timeline(header: str | None, args: argparse.Namespace) -> TimelineGame:
    position = None if header is None else parse_timeline_position(header)
    return TimelineGame(position, crossing_rule=CrossingRule(args.crossing_rule))


def _play_timeline_move(game: TimelineGame, text: str) -> str:
    move = parse_move(text)
    written = game.notation(move.bare())
    game.push(move)
    return written


VARIANTS: dict[str, Variant] = {
    "tsr4d": Variant(_new_tsr4d, _play_tsr4d_turn, PLAYER_NAMES),
    "timeline": Variant(_new_timeline, _play_timeline_move, TEAM_NAMES),
}


def result_record(
    outcome: Outcome | None, side_names: tuple[str, ...], illegal: dict[str, Any] | None
) -> dict[str, Any]:
    """The ``--json`` record: result, winner's name (or ``None``) and the illegal move."""
    if outcome is None:
        result, winner = "ongoing", None
    else:
        result = "draw" if outcome.winner is None else "win"
        winner = None if outcome.winner is None else side_names[outcome.winner]
    return {"result": result, "winner": winner, "illegal": illegal}


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add ``play`` and the ``play`` bench target."""
    play = commands.add_parser(
        "play",
        help="play and validate a TSR 4D or Timeline game from a move list",
        description="Play a move list (one move per line, '#' comments, optional "
        "'position: ...' header) and stop at the first illegal move (exit status 2).",
    )
    play.add_argument("--game", required=True, choices=sorted(VARIANTS), help="which game")
    play.add_argument("file", type=Path, metavar="FILE", help="the move list")
    play.add_argument("--json", action="store_true", help="print one JSON result record")
    play.add_argument(
        "--suicide-rule",
        choices=[rule.value for rule in SuicideRule],
        default=SuicideRule.ADJACENT.value,
        help="tsr4d: which enemy pieces may be captured as 'suicides' (default adjacent)",
    )
    play.add_argument(
        "--crossing-rule",
        choices=[rule.value for rule in CrossingRule],
        default=CrossingRule.SQUARES.value,
        help="timeline: whether bishop paths cutting through each other cross (default squares)",
    )
    play.set_defaults(func=run_play)

    bench = bench_targets.add_parser(
        "play", help="milliseconds per legal-move list and per judged board, TSR 4D and Timeline"
    )
    bench.add_argument("--plies", type=int, default=200, help="random moves per game (default 200)")
    bench.set_defaults(func=run_bench)


def run_play(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Play the file; 0 when every move is legal, 2 on an illegal move or a bad file."""
    out = out or sys.stdout
    err = err or sys.stderr
    variant = VARIANTS[args.game]
    try:
        header, moves = read_move_list(args.file.read_text(encoding="utf-8"))
        game = variant.new_game(header, args)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        print(f"boardcam play: {args.file}: {error}", file=err)
        return EXIT_ILLEGAL
    illegal = None
    for move in moves:
        try:
            written = variant.play_line(game, move.text)
        except RulesError as error:
            illegal = {"move": move.index, "reason": str(error)}
            if not args.json:
                print(
                    f"boardcam play: move {move.index} (line {move.line_number}) "
                    f"{move.text!r} is illegal: {error}",
                    file=err,
                )
            break
        if not args.json:
            print(f"{move.index:4d}. {written}", file=out)
    record = result_record(game.outcome(), variant.side_names, illegal)
    if args.json:
        print(json.dumps(record), file=out)
    else:
        outcome = game.outcome()
        detail = "" if outcome is None else f": {outcome.reason}"
        winner = "" if record["winner"] is None else f" ({record['winner']})"
        print(f"result: {record['result']}{winner}{detail}", file=out)
    return EXIT_ILLEGAL if illegal else 0


def _time_game(game: Game[Any], plies: int, rng: random.Random, observe: Callable[[], dict]) -> dict:
    generate = judge = 0.0
    counted = 0
    for _ in range(plies):
        if game.is_over():
            break
        start = time.perf_counter()
        moves = game.legal_moves()  # type: ignore[attr-defined]
        generate += time.perf_counter() - start
        move = rng.choice(moves)
        game.push(move)
        observed = observe()
        game.pop()
        start = time.perf_counter()
        game.judge(observed)
        judge += time.perf_counter() - start
        game.push(move)
        counted += 1
    return {
        "plies": counted,
        "legal_moves_ms": round(1000 * generate / max(counted, 1), 3),
        "judge_ms": round(1000 * judge / max(counted, 1), 3),
    }


def run_bench(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Random games of both: mean time of ``legal_moves()`` and of judging the next board."""
    out = out or sys.stdout
    rng = random.Random(6)
    tsr = Tsr4dGame()
    timeline = TimelineGame()
    figures = {
        "tsr4d": _time_game(tsr, args.plies, rng, lambda: board_codes(tsr.position)),
        "timeline": _time_game(
            timeline,
            args.plies,
            rng,
            lambda: {square: piece.value for piece, square in timeline.pieces_on_board().items()},
        ),
    }
    print(json.dumps(figures), file=out)
    return 0


__all__ = ["MoveFileError", "MoveLine", "Variant", "read_move_list", "run_play"]
