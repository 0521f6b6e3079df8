"""``boardcam gryb moves|score|games|roll`` and ``bench gryb``, in-process and as a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from device.cli import main
from rules.gryb.games import GAMES
from rules.gryb.nodes import NODES, node_name
from rules.gryb.traversal import MOVE_KINDS, reachable

# The manual's examples, one per kind, as the CLI names them.
EXAMPLES = [
    ("down", "YGR", "YGRR"), ("up", "RGB", "RG"), ("interjection", "RYG", "BRYG"),
    ("limited-interjection", "Y", "BY"), ("excision", "RBYY", "BYY"),
    ("limited-excision", "BGRY", "BGY"), ("sideways", "BGRY", "BGRR"),
    ("hyperspace", "RGYY", "YGYY"), ("limited-hyperspace", "GBY", "GYY"),
]


def write(tmp_path: Path, data) -> Path:
    path = tmp_path / "position.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


@pytest.mark.parametrize(("kind", "source", "target"), EXAMPLES)
def test_moves_json_for_every_kind(capsys, kind, source, target):
    assert main(["gryb", "moves", "--kind", kind, source, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert target in listed
    assert listed == [node_name(n) for n in reachable(kind, source)]


def test_moves_from_every_node_match_the_library(capsys):
    for node in NODES[::17]:
        assert main(["gryb", "moves", "--kind", "sideways", node_name(node), "--json"]) == 0
        assert json.loads(capsys.readouterr().out) == [node_name(n) for n in reachable("sideways", node)]
    assert set(MOVE_KINDS) == {kind for kind, _, _ in EXAMPLES}


def test_moves_readable_and_head_node(capsys):
    assert main(["gryb", "moves", "--kind", "down", "0"]) == 0
    assert capsys.readouterr().out == "down from 0: G, R, Y, B\n"
    assert main(["gryb", "moves", "--kind", "up", "g", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == ["0"]
    assert main(["gryb", "moves", "--kind", "down", "GGBY"]) == 0
    assert "no move" in capsys.readouterr().out


def test_moves_bad_input_exits_2(capsys):
    assert main(["gryb", "moves", "--kind", "sideways", "GX"]) == 2
    assert "'X' is not one of the colours" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["gryb", "moves", "--kind", "diagonal", "G"])
    assert exit_.value.code == 2


POSITION = {
    "board": "gryb",
    "tokens": {"G": 0, "R": 0, "Y": 0, "B": 0, "RYGG": 1, "RYGR": 1, "RYGY": 1, "RYGB": 1,
               "GG": 1, "GR": 1, "GY": 1, "GB": 0},
}


def test_score_json(capsys, tmp_path):
    assert main(["gryb", "score", str(write(tmp_path, POSITION)), "--json"]) == 0
    sheet = json.loads(capsys.readouterr().out)
    zero, one = sheet["colours"]
    assert [g["quadrangle"] for g in zero["grybs"]] == ["0"]
    assert (zero["binary_points"], zero["mens_pieces"]) == (1, 1)
    assert [g["nodes"] for g in one["grybs"]] == [["RYGG", "RYGR", "RYGY", "RYGB"]]
    assert (one["binary_points"], one["mens_pieces"]) == (8, 4)


def test_score_readable(capsys, tmp_path):
    assert main(["gryb", "score", str(write(tmp_path, POSITION))]) == 0
    out = capsys.readouterr().out
    assert "colour 0: 1 GRYB, 1 point (binary), 1 piece (25 Men's GRYB)" in out
    assert "under RYG (level 4): RYGG, RYGR, RYGY, RYGB" in out


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{not json", "not valid JSON"),
        ({"board": "timevectors", "tokens": {}}, '"board" must be "gryb"'),
        ({"board": "gryb", "tokens": {"GGBYY": 0}}, "at most 4 letters"),
        ({"board": "gryb", "tokens": {"G": 3}}, "must be 0 or 1"),
    ],
)
def test_score_bad_files_exit_2(capsys, tmp_path, content, words):
    path = write(tmp_path, content)
    assert main(["gryb", "score", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"boardcam gryb score: {path}: ") and words in err


def test_score_missing_file(capsys, tmp_path):
    assert main(["gryb", "score", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_games_lists_all_eleven(capsys):
    assert main(["gryb", "games", "--json"]) == 0
    games = json.loads(capsys.readouterr().out)
    assert [g["name"] for g in games] == list(GAMES)
    assert {"name": "square-deal", "title": "Square Deal",
            "options": {"pieces-per-player": 20, "easy": False}} in games
    for entry in games:
        assert GAMES[entry["name"]](entry["options"]).options == GAMES[entry["name"]]().options


def test_roll_is_seedable(capsys):
    assert main(["gryb", "roll", "--die", "leaf", "--count", "5", "--seed", "4", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["gryb", "roll", "--die", "leaf", "--count", "5", "--seed", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == first
    assert all(r["die"] == "leaf" and len(r["value"]) == 4 for r in first)
    assert main(["gryb", "roll", "--seed", "1"]) == 0
    assert capsys.readouterr().out.strip() in {"green", "red", "yellow", "blue"}
    assert main(["gryb", "roll", "--count", "0"]) == 2


def test_bench_gryb_prints_a_row_per_game(capsys):
    assert main(["bench", "gryb", "--moves", "8"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["game", "moves", "legal"]
    assert [line.split()[0] for line in lines[1:]] == list(GAMES)
    assert main(["bench", "gryb", "--moves", "0"]) == 2


def test_real_process():
    done = subprocess.run(
        [sys.executable, "-m", "device.cli", "gryb", "moves", "--kind", "limited-hyperspace", "GBY", "--json"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 0 and json.loads(done.stdout) == ["GGY", "GYY"]
