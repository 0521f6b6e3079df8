"""``boardcam play`` for TSR 4D and Timeline move lists, in-process and as a real process."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from device.cli import main
from device.commands.play import MoveFileError, read_move_list, result_record
from rules.timeline import TEAM_NAMES, TimelineGame
from rules.tsr4d import PLAYER_NAMES, EndTurn, Tsr4dGame, turn_notation

DATA = Path(__file__).parent.parent / "rules" / "data"
WINNING = DATA / "tsr4d_winning_example.txt"
OPENING = DATA / "tsr4d_opening.txt"
TIMELINE_EXAMPLE = DATA / "timeline_worked_example.txt"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "moves.txt"
    path.write_text(text)
    return path


def play_json(capsys, game: str, path: Path, *extra: str) -> tuple[int, dict]:
    status = main(["play", "--game", game, str(path), "--json", *extra])
    return status, json.loads(capsys.readouterr().out)


def test_tsr4d_winning_example_is_a_white_win(capsys):
    assert play_json(capsys, "tsr4d", WINNING) == (
        0,
        {"result": "win", "winner": "white", "illegal": None},
    )


def test_tsr4d_first_illegal_move_stops_with_status_2(capsys):
    status, record = play_json(capsys, "tsr4d", OPENING)
    assert status == 2
    assert record == {
        "result": "ongoing",
        "winner": None,
        "illegal": {"move": 4, "reason": "b12 is occupied"},
    }


def test_tsr4d_human_output(capsys):
    assert main(["play", "--game", "tsr4d", str(OPENING)]) == 2
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "   1. W(c2)d1; +W(b2)",
        "   2. W(c6)d3; +W(b10)",
        "   3. -Wb2; W(b3)c2; +R(a6)",
        "result: ongoing",
    ]
    assert "move 4 (line 5) 'W 1->2; T(a24)b12' is illegal: b12 is occupied" in captured.err


def test_tsr4d_turn_obligations_are_checked_at_the_end_of_the_line(tmp_path, capsys):
    path = write(tmp_path, "W(c2)d1\n")
    status, record = play_json(capsys, "tsr4d", path)
    assert status == 2 and "Time-warp is obligatory" in record["illegal"]["reason"]


def test_tsr4d_one_turn_per_line(tmp_path, capsys):
    path = write(tmp_path, "W(c2)d1; +W(b2); end\nW(c6)d3; +W(b10) end; W(d1)d2\n")
    status, record = play_json(capsys, "tsr4d", path)
    assert status == 2 and record["illegal"]["move"] == 2
    assert "one turn per line" in record["illegal"]["reason"]


def test_tsr4d_draw_and_move_after_the_end(tmp_path, capsys):
    text = (
        "position: blue: Ta10 Gb2 Rc1; white: Ta20 Wa3 Ga22; to move: blue\n"
        "xW(a3)\n"  # the last Warrior goes: a draw at once
    )
    assert play_json(capsys, "tsr4d", write(tmp_path, text)) == (
        0,
        {"result": "draw", "winner": None, "illegal": None},
    )
    status, record = play_json(capsys, "tsr4d", write(tmp_path, text + "T(a20)a21\n"))
    assert status == 2 and record["illegal"] == {"move": 2, "reason": "the game is over"}


def test_tsr4d_suicide_rule_option(tmp_path, capsys):
    text = (
        "position: blue: Ta10 Gb2 Wc1 Wa30; white: Ta20 Wa3 Wa28 Ga22; to move: white\n"
        "W(a28)a29; +G(a22)\n"
        "xW(a3); W(a30)a31; +W(c1)\n"
    )
    path = write(tmp_path, text)
    assert play_json(capsys, "tsr4d", path)[0] == 0
    status, record = play_json(capsys, "tsr4d", path, "--suicide-rule", "arrived")
    assert status == 2 and "did not move next to" in record["illegal"]["reason"]


def test_timeline_worked_example(capsys):
    assert play_json(capsys, "timeline", TIMELINE_EXAMPLE) == (
        0,
        {"result": "ongoing", "winner": None, "illegal": None},
    )


def test_timeline_win_and_bad_capture_note(tmp_path, capsys):
    header = "position: red: A5P; yellow: D8P; black: C6P; to move: warm\n"
    moves = "A5P-A8P\nC6P-A6P\nD8P-B6P xblack\n"
    assert play_json(capsys, "timeline", write(tmp_path, header + moves)) == (
        0,
        {"result": "win", "winner": "warm", "illegal": None},
    )
    status, record = play_json(capsys, "timeline", write(tmp_path, header + "A5P-A8P xblack\n"))
    assert status == 2
    assert record["illegal"] == {
        "move": 1,
        "reason": "the move captures nothing, not the black rook",
    }


def test_timeline_crossing_rule_option(tmp_path, capsys):
    text = "position: white: A6P; red: D8R; green: A5P B6P; to move: warm\nA6P-B5P\n"
    path = write(tmp_path, text)
    assert play_json(capsys, "timeline", path)[0] == 0
    status, record = play_json(capsys, "timeline", path, "--crossing-rule", "diagonals")
    assert status == 2 and "cut across the green bishop" in record["illegal"]["reason"]


def test_timeline_from_the_starting_position_and_bad_notation(tmp_path, capsys):
    status, record = play_json(capsys, "timeline", write(tmp_path, "A5P-A8P\nD4S-D1S\nA8P-A9P\n"))
    assert status == 2 and record["illegal"]["move"] == 3
    assert "not a Timeline move" in record["illegal"]["reason"]


@pytest.mark.parametrize(
    ("game", "text", "words"),
    [
        ("tsr4d", "position: blue: Ta1\n", "white"),
        ("timeline", "position: red: A5P\n", "both teams"),
        ("tsr4d", "W(c2)d1; +W(b2)\nposition: blue: Ta1; white: Ta20\n", "before the moves"),
    ],
)
def test_bad_files_report_on_stderr(tmp_path, capsys, game, text, words):
    assert main(["play", "--game", game, str(write(tmp_path, text)), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and words in captured.err


def test_missing_file(tmp_path, capsys):
    assert main(["play", "--game", "tsr4d", str(tmp_path / "none.txt")]) == 2
    assert "none.txt" in capsys.readouterr().err


def test_read_move_list_numbers_moves_and_lines():
    header, moves = read_move_list("# c\n\nposition: x  # note\nA\n  \nB # comment\n")
    assert header == "x"
    assert [(m.index, m.line_number, m.text) for m in moves] == [(1, 4, "A"), (2, 6, "B")]
    with pytest.raises(MoveFileError):
        read_move_list("position: a\nposition: b\n")


def test_real_process_exit_status_and_json():
    done = subprocess.run(
        [sys.executable, "-m", "device.cli", "play", "--game", "tsr4d", str(OPENING), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert json.loads(done.stdout)["illegal"]["move"] == 4


def test_bench_play_prints_figures(capsys):
    assert main(["bench", "play", "--plies", "5"]) == 0
    figures = json.loads(capsys.readouterr().out)
    for game in ("tsr4d", "timeline"):
        assert figures[game]["plies"] == 5
        assert figures[game]["legal_moves_ms"] > 0 and figures[game]["judge_ms"] > 0


def _tsr4d_random_game(seed: int) -> tuple[list[str], str]:
    rng = random.Random(seed)
    game = Tsr4dGame()
    turns: list[list] = [[]]
    while not game.is_over() and len(turns) < 60:
        action = rng.choice(game.legal_moves())
        game.push(action)
        if isinstance(action, EndTurn):
            turns.append([])
        else:
            turns[-1].append(action)
    lines = [turn_notation(turn) for turn in turns if turn]
    return lines, result_record(game.outcome(), PLAYER_NAMES, None)["result"]


def _timeline_random_game(seed: int) -> tuple[list[str], str]:
    rng = random.Random(seed)
    game = TimelineGame()
    lines = []
    while not game.is_over() and len(lines) < 80:
        move = rng.choice(game.legal_moves())
        lines.append(game.notation(move))
        game.push(move)
    return lines, result_record(game.outcome(), TEAM_NAMES, None)["result"]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("game", "generate"), [("tsr4d", _tsr4d_random_game),
                                                 ("timeline", _timeline_random_game)])
def test_random_games_written_by_the_engine_replay_through_the_cli(
    tmp_path, capsys, seed, game, generate
):
    lines, result = generate(seed)
    status, record = play_json(capsys, game, write(tmp_path, "\n".join(lines) + "\n"))
    assert status == 0 and record["illegal"] is None and record["result"] == result
