"""``boardcam vectors``, ``check`` and ``bench rules``, in-process and as a real process."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from device.cli import main
from rules.timevectors import VECTORS, parse_point, vector_of


def write(tmp_path: Path, name: str, data) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


WIN_AND_THREAT = {
    "board": "timevectors",
    "tokens": {"A1S": 0, "b1r": 0, "C1Q": 0, "D1P": 0, "H8S": 1, "G8S": 1, "F8S": 1, "A2P": 1},
}


def test_vectors_json_lists_all_976_in_line_order(capsys):
    assert main(["vectors", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed) == 976
    assert {"points": ["A1S", "B1R", "C1Q", "D1P"], "dims": [1, 3]} in listed
    for item in listed:
        vector = vector_of(parse_point(p) for p in item["points"])
        assert vector is not None and list(vector.dims) == item["dims"]
        assert [parse_point(p) for p in item["points"]] == list(vector.points)
    assert Counter(tuple(i["dims"]) for i in listed) == Counter(v.dims for v in VECTORS)


def test_vectors_text_groups_by_type(capsys):
    assert main(["vectors"]) == 0
    text = capsys.readouterr().out
    headings = re.findall(r"^(.+) dimensions?: (\d+) vectors$", text, re.MULTILINE)
    assert len(headings) == 15
    assert ("1st, 3rd and 4th", "64") in headings
    assert ("1st and 4th", "128") in headings
    assert sum(int(n) for _, n in headings) == 976
    assert "A1S B1R C1Q D1P" in text
    assert text.rstrip().endswith("976 vectors in 15 types")


def test_check_json(tmp_path, capsys):
    path = write(tmp_path, "win.json", WIN_AND_THREAT)
    assert main(["check", str(path), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert record["file"] == str(path)
    assert record["vectors"] == [
        {"color": 0, "points": ["A1S", "B1R", "C1Q", "D1P"], "dims": [1, 3]}
    ]
    assert record["threats"]["0"] == []
    assert record["threats"]["1"] == [
        {"points": ["E8S", "F8S", "G8S", "H8S"], "dims": [1], "point": "E8S"}
    ]


def test_check_text_shows_the_board_vectors_and_threats(tmp_path, capsys):
    path = write(tmp_path, "win.json", WIN_AND_THREAT)
    assert main(["check", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Level S" in text and "Level P" in text
    assert "colour 0: A1S B1R C1Q D1P (1st and 3rd)" in text
    assert "colour 1: E8S completes E8S F8S G8S H8S (1st)" in text


def test_check_empty_position(tmp_path, capsys):
    path = write(tmp_path, "empty.json", {"board": "timevectors", "tokens": {}})
    assert main(["check", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"file": str(path), "vectors": [], "threats": {}}


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not valid JSON"),
        ([], "JSON object"),
        ({"board": "gryb", "tokens": {}}, "board must be 'timevectors'"),
        ({"board": "timevectors"}, "tokens must be an object"),
        ({"board": "timevectors", "tokens": {"Z9X": 0}}, "column 'Z'"),
        ({"board": "timevectors", "tokens": {"A1P": 3}}, "colour must be 0, 1 or 2"),
        ({"board": "timevectors", "tokens": {"A1P": True}}, "colour must be 0, 1 or 2"),
        ({"board": "timevectors", "tokens": {"A1P": 0, "a1p": 1}}, "given twice"),
    ],
)
def test_malformed_file_is_one_line_on_stderr_and_others_still_checked(
    tmp_path, capsys, content, problem
):
    bad = write(tmp_path, "bad.json", content)
    good = write(tmp_path, "good.json", WIN_AND_THREAT)
    assert main(["check", str(bad), str(good), "--json"]) == 2
    captured = capsys.readouterr()
    errors = captured.err.splitlines()
    assert len(errors) == 1
    assert errors[0].startswith(f"boardcam check: {bad}: ") and problem in errors[0]
    assert [json.loads(line)["file"] for line in captured.out.splitlines()] == [str(good)]


def test_missing_file(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nope.json")]) == 2
    assert "nope.json: cannot read" in capsys.readouterr().err


def test_bench_rules_prints_figures(capsys):
    assert main(["bench", "rules", "--moves", "2000"]) == 0
    text = capsys.readouterr().out
    win = float(re.search(r"win check .*:\s+([\d.]+) us per move", text).group(1))
    check = float(re.search(r"check on a 40-token position .*:\s+([\d.]+) ms", text).group(1))
    assert 0 < win < 1000  # a table lookup, far below a millisecond
    assert 0 < check < 1000  # "well under a second"


def test_bench_rejects_zero_moves(capsys):
    assert main(["bench", "rules", "--moves", "0"]) == 2
    assert "--moves" in capsys.readouterr().err


def test_real_process(tmp_path):
    good = write(tmp_path, "good.json", WIN_AND_THREAT)
    bad = write(tmp_path, "bad.json", "[1, 2")
    result = subprocess.run(
        [sys.executable, "-m", "device.cli", "check", str(good), str(bad), "--json"],
        capture_output=True, text=True, timeout=60, check=False,
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert result.returncode == 2
    assert json.loads(result.stdout)["vectors"][0]["dims"] == [1, 3]
    assert result.stderr.count("\n") == 1 and str(bad) in result.stderr
