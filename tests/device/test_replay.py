"""``boardcam replay`` over rendered games: the whole pipeline (renderer -> observer ->
tracker -> referee) on frames written to a folder, run in-process through the CLI.

Each scenario is a script of shots (boards, hands) rendered with a fixed camera;
its expected events are asserted exactly, and every event must come from a frame
in which the board was still with no hand in view.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path

import pytest

from calibration.calibfile import Calibration, save_calibration
from calibration.camera import CameraModel
from device.cli import main
from device.commands.replay import Timed
from device.demo_script import Script, Shot
from device.sources.demo import DEMO_PALETTE, ShotRenderer
from rules.timevectors import parse_point
from vision.render import SceneStyle

SIZE = (640, 480)
CAMERA = CameraModel.looking_at((0.0, 0.0, 150.0), 760.0, 52.0, -30.0, SIZE)
# A bumped tripod: the camera turned by about half a degree and slid a few millimetres.
BUMPED = CameraModel.looking_at((4.0, -3.0, 150.0), 760.0, 52.6, -29.4, SIZE)
WARM_LIGHT = replace(SceneStyle(), white_balance=(1.18, 1.0, 0.78), exposure=0.9)


@pytest.fixture(scope="module")
def renderers() -> dict[str, ShotRenderer]:
    """One renderer per camera/scene, shared by the module: each view is rendered once."""
    return {
        "plain": ShotRenderer(CAMERA, DEMO_PALETTE),
        "warm": ShotRenderer(CAMERA, DEMO_PALETTE, scene=WARM_LIGHT),
        "bumped": ShotRenderer(BUMPED, DEMO_PALETTE),
    }


@pytest.fixture(scope="module")
def calibration_file(
    renderers: dict[str, ShotRenderer], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    plain = renderers["plain"]
    empty = plain.empty_board()
    calibration = Calibration(board="timevectors", spec=plain.spec, camera=CAMERA, rms_px=0.0)
    path = tmp_path_factory.mktemp("calibration") / "calib.json"
    save_calibration(calibration.with_reference(empty, max_width=SIZE[0]), path)
    return path


@pytest.fixture(scope="module")
def palette_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("palette") / "palette.json"
    path.write_text(json.dumps([list(c) for c in DEMO_PALETTE]))
    return path


def write_frames(directory: Path, parts: list[tuple[ShotRenderer, list[Shot]]]) -> list[bool]:
    """Write every frame of the shots as a JPEG, in name order; returns per frame whether
    the board was still (no hand) in it."""
    directory.mkdir(parents=True, exist_ok=True)
    still: list[bool] = []
    for renderer, shots in parts:
        for shot in shots:
            data = renderer.encoded(shot)
            for _ in range(shot.frames):
                (directory / f"frame_{len(still):04d}.jpg").write_bytes(data)
                still.append(shot.hand_at is None)
    return still


def replay(
    capsys: pytest.CaptureFixture, calibration: Path, frames: Path, *extra: str
) -> list[dict]:
    capsys.readouterr()
    status = main(["replay", "--calibration", str(calibration), *extra, str(frames), "--json"])
    out = capsys.readouterr().out
    assert status == 0
    return [json.loads(line) for line in out.splitlines()]


MAX_DELAY = 3  # frames from the first still frame to the event (motion frame + 3 stable frames)


def check(records: list[dict], still: list[bool], expected: list[dict]) -> None:
    """Records equal ``expected`` (frame and time aside); every event comes from a frame with
    no hand in view, at most ``MAX_DELAY`` frames after the hand left."""
    assert [{k: v for k, v in r.items() if k not in ("frame", "time")} for r in records] == expected
    frames = [r["frame"] for r in records]
    assert frames == sorted(frames)
    assert all(still[f] for f in frames), f"event from a frame with a hand in view: {frames}"
    for frame in frames:
        settled = frame
        while settled > 0 and still[settled - 1]:
            settled -= 1
        assert frame - settled <= MAX_DELAY, f"event at frame {frame}, the hand left at {settled}"
    assert all(r["time"] == pytest.approx(r["frame"] / 4) for r in records)


def move(point: str, colour: int) -> dict:
    return {"type": "move", "point": point, "color": colour}


def test_hovering_hand_makes_no_move(
    tmp_path, capsys, renderers, calibration_file, palette_file
) -> None:
    script = Script(still_frames=4).still(3).hover("D5R", 8).hover("A1S", 3).place(("C6Q", 0))
    still = write_frames(tmp_path / "f", [(renderers["plain"], script.shots)])
    records = replay(capsys, calibration_file, tmp_path / "f", "--palette", str(palette_file))
    check(records, still, [move("C6Q", 0)])


def test_two_token_fast_move(tmp_path, capsys, renderers, calibration_file, palette_file) -> None:
    script = Script(still_frames=4).still(3).place(("A1P", 0)).place(("H8S", 1), ("B2Q", 0))
    still = write_frames(tmp_path / "f", [(renderers["plain"], script.shots)])
    records = replay(capsys, calibration_file, tmp_path / "f", "--palette", str(palette_file))
    check(records, still, [move("A1P", 0), move("H8S", 1), move("B2Q", 0)])


def test_removed_token_then_put_back(
    tmp_path, capsys, renderers, calibration_file, palette_file
) -> None:
    script = Script(still_frames=4).still(3).place(("A1P", 0)).place(("H8S", 1))
    script.remove("A1P").place(("A1P", 0))
    still = write_frames(tmp_path / "f", [(renderers["plain"], script.shots)])
    records = replay(capsys, calibration_file, tmp_path / "f", "--palette", str(palette_file))
    check(
        records,
        still,
        [
            move("A1P", 0),
            move("H8S", 1),
            {
                "type": "illegal",
                "reasons": ["token removed from A1P"],
                "points": ["A1P"],
                "take_back": False,
            },
            {"type": "restored", "points": ["A1P"]},
        ],
    )


def test_moved_token_then_put_back(
    tmp_path, capsys, renderers, calibration_file, palette_file
) -> None:
    script = Script(still_frames=4).still(3).place(("C3R", 0)).place(("G3P", 1))
    script.move("C3R", "C4R").move("C4R", "C3R").place(("E2S", 0))
    still = write_frames(tmp_path / "f", [(renderers["plain"], script.shots)])
    records = replay(capsys, calibration_file, tmp_path / "f", "--palette", str(palette_file))
    check(
        records,
        still,
        [
            move("C3R", 0),
            move("G3P", 1),
            {
                "type": "illegal",
                "reasons": ["token moved from C3R to C4R"],
                "points": ["C3R", "C4R"],
                "take_back": False,
            },
            {"type": "restored", "points": ["C3R", "C4R"]},
            move("E2S", 0),
        ],
    )


def test_move_to_a_hidden_point_asks_for_confirmation(
    tmp_path, capsys, renderers, calibration_file, palette_file
) -> None:
    # F7P is behind the post from this camera: colour 1's move there cannot be seen, and
    # colour 0's next token is only explained by a colour 1 token on a hidden point.
    script = Script(still_frames=4).still(3).place(("A1P", 0)).place(("F7P", 1)).place(("B1P", 0))
    still = write_frames(tmp_path / "f", [(renderers["plain"], script.shots)])
    records = replay(capsys, calibration_file, tmp_path / "f", "--palette", str(palette_file))
    assert [r["type"] for r in records] == ["move", "confirm_hidden"]
    asked = records[1]
    assert asked["color"] == 1 and asked["points"] == ["B1P"] and "F7P" in asked["candidates"]
    assert "A1P" not in asked["candidates"] and "B1P" not in asked["candidates"]
    check(records[:1], still, [move("A1P", 0)])


def test_colour_cast_change_mid_game(tmp_path, capsys, renderers, calibration_file) -> None:
    # No palette: colours are learned from the game. The light turns warm between two moves.
    first = Script(still_frames=4).still(3).place(("B7Q", 0)).place(("G2R", 1))
    second = Script(still_frames=4)
    second.board = dict(first.board)
    second.still(6).place(("C6P", 0)).place(("F3S", 1))
    still = write_frames(
        tmp_path / "f", [(renderers["plain"], first.shots), (renderers["warm"], second.shots)]
    )
    records = replay(capsys, calibration_file, tmp_path / "f")
    check(records, still, [move("B7Q", 0), move("G2R", 1), move("C6P", 0), move("F3S", 1)])


def test_camera_bump_is_refitted_and_play_goes_on(
    tmp_path, capsys, renderers, calibration_file, palette_file
) -> None:
    first = Script(still_frames=4).still(3).place(("D2Q", 0))
    second = Script(still_frames=4)
    second.board = dict(first.board)
    second.still(16).place(("H6R", 1)).place(("A4S", 0))  # play pauses a few seconds after the bump
    still = write_frames(
        tmp_path / "f", [(renderers["plain"], first.shots), (renderers["bumped"], second.shots)]
    )
    records = replay(capsys, calibration_file, tmp_path / "f", "--palette", str(palette_file))
    moved = [r for r in records if r["type"] == "camera_moved"]
    assert len(moved) == 1 and moved[0]["refit"] is True and moved[0]["shift_px"] > 2
    check(
        [r for r in records if r["type"] != "camera_moved"],
        still,
        [move("D2Q", 0), move("H6R", 1), move("A4S", 0)],
    )


def test_3meq_opening_with_the_colour_choice_told(
    tmp_path, capsys, renderers, calibration_file, palette_file
) -> None:
    """Three opening tokens (a pair and a single); the second player's choice, which no
    camera sees, comes from ``--choose`` as an operator's would; then the game goes on."""
    script = Script(still_frames=4).still(3).place(("A1P", 0)).place(("B2Q", 0)).place(("C3R", 1))
    script = script.place(("D4S", 1))  # the single colour moves next whichever was chosen
    still = write_frames(tmp_path / "f", [(renderers["plain"], script.shots)])
    extra = ("--palette", str(palette_file), "--opening", "3meq", "--choose", "0")
    records = replay(capsys, calibration_file, tmp_path / "f", *extra)
    choice = {"type": "move", "kind": "choose", "color": 0, "frame": None}
    assert {k: v for k, v in records[3].items() if k != "time"} == choice
    check(
        records[:3] + records[4:],
        still,
        [move("A1P", 0), move("B2Q", 0), move("C3R", 1), move("D4S", 1)],
    )


def test_mid_game_frames(tmp_path, capsys, renderers, calibration_file, palette_file) -> None:
    # A recording that starts with three tokens already on the board (a support bundle).
    script = Script(still_frames=4)
    script.board = {parse_point("A1P"): 0, parse_point("H8S"): 1, parse_point("B2Q"): 0}
    script.still(4).place(("G3P", 1))
    still = write_frames(tmp_path / "f", [(renderers["plain"], script.shots)])
    args = ("--palette", str(palette_file), "--mid-game")
    records = replay(capsys, calibration_file, tmp_path / "f", *args)
    check(
        records,
        still,
        [
            {
                "type": "game_started",
                "reason": "the board as it was taken as the game so far (3 moves)",
            },
            move("G3P", 1),
        ],
    )


class TestReplayInput:
    def test_readable_log_and_summary(
        self, tmp_path, capsys, renderers, calibration_file, palette_file
    ) -> None:
        script = Script(still_frames=4).still(3).place(("A1P", 0))
        write_frames(tmp_path / "f", [(renderers["plain"], script.shots)])
        assert (
            main(
                [
                    "replay",
                    "--calibration",
                    str(calibration_file),
                    "--palette",
                    str(palette_file),
                    str(tmp_path / "f"),
                ]
            )
            == 0
        )
        out = capsys.readouterr().out
        assert "colour 0 plays A1P" in out
        assert "frames read; 1 moves; game not finished" in out

    def test_unreadable_frames_are_skipped_with_a_warning(
        self, tmp_path, capsys, caplog, renderers, calibration_file, palette_file
    ) -> None:
        script = Script(still_frames=4).still(3).place(("A1P", 0))
        still = write_frames(tmp_path / "f", [(renderers["plain"], script.shots)])
        (tmp_path / "f" / "frame_0002.jpg").write_bytes(b"\xff\xd8\xff truncated")
        (tmp_path / "f" / "frame_0003.jpg").write_bytes(b"")
        with caplog.at_level(logging.WARNING):
            records = replay(
                capsys, calibration_file, tmp_path / "f", "--palette", str(palette_file)
            )
        check(records, still, [move("A1P", 0)])
        assert "frame_0002.jpg" in caplog.text and "frame_0003.jpg" in caplog.text

    def test_frames_of_another_size_are_skipped(
        self, tmp_path, capsys, caplog, renderers, calibration_file
    ) -> None:
        import cv2
        import numpy as np

        script = Script(still_frames=4).still(3).place(("A1P", 0))
        write_frames(tmp_path / "f", [(renderers["plain"], script.shots)])
        cv2.imwrite(str(tmp_path / "f" / "frame_0001.png"), np.full((100, 100, 3), 128, np.uint8))
        with caplog.at_level(logging.WARNING):
            records = replay(capsys, calibration_file, tmp_path / "f")
        assert [r["type"] for r in records] == ["move"]
        assert "frame_0001.png" in caplog.text and "calibration is for 640x480" in caplog.text

    def test_bad_calibration(self, tmp_path, capsys) -> None:
        (tmp_path / "f").mkdir()
        (tmp_path / "calib.json").write_text("{not json")
        assert (
            main(
                [
                    "replay",
                    "--calibration",
                    str(tmp_path / "calib.json"),
                    str(tmp_path / "f"),
                    "--json",
                ]
            )
            == 2
        )
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.startswith("boardcam replay: error: ")
        assert (
            main(["replay", "--calibration", str(tmp_path / "missing.json"), str(tmp_path / "f")])
            == 2
        )
        assert "missing.json" in capsys.readouterr().err

    def test_empty_or_missing_folder(self, tmp_path, capsys, calibration_file) -> None:
        (tmp_path / "empty").mkdir()
        (tmp_path / "empty" / "notes.txt").write_text("no frames here")
        assert (
            main(
                [
                    "replay",
                    "--calibration",
                    str(calibration_file),
                    str(tmp_path / "empty"),
                    "--json",
                ]
            )
            == 2
        )
        captured = capsys.readouterr()
        assert captured.out == "" and "holds no image files" in captured.err
        assert (
            main(["replay", "--calibration", str(calibration_file), str(tmp_path / "nowhere")]) == 2
        )
        assert "is not a folder" in capsys.readouterr().err

    def test_bad_palette(self, tmp_path, capsys, calibration_file) -> None:
        (tmp_path / "f").mkdir()
        (tmp_path / "palette.json").write_text("[[300, 0, 0]]")
        assert (
            main(
                [
                    "replay",
                    "--calibration",
                    str(calibration_file),
                    "--palette",
                    str(tmp_path / "palette.json"),
                    str(tmp_path / "f"),
                ]
            )
            == 2
        )
        assert "palette" in capsys.readouterr().err

    def test_bad_game_settings(self, tmp_path, capsys, calibration_file) -> None:
        (tmp_path / "f").mkdir()
        assert (
            main(
                [
                    "replay",
                    "--calibration",
                    str(calibration_file),
                    "--players",
                    "3",
                    "--opening",
                    "swap",
                    str(tmp_path / "f"),
                ]
            )
            == 2
        )
        assert "two single players" in capsys.readouterr().err
        status = main(
            ["replay", "--calibration", str(calibration_file), "--choose", "1", str(tmp_path / "f")]
        )
        assert status == 2 and "--opening 3meq" in capsys.readouterr().err
        with pytest.raises(SystemExit) as exc:
            main(
                [
                    "replay",
                    "--calibration",
                    str(calibration_file),
                    "--players",
                    "5",
                    str(tmp_path / "f"),
                ]
            )
        assert exc.value.code == 2


class TestBenchPipeline:
    def test_demo_loop_is_read_as_scripted_with_stage_timings(self, capsys) -> None:
        assert main(["bench", "pipeline", "--size", "480x360"]) == 0
        out = capsys.readouterr().out
        assert "480x360, 108 frames (one loop)" in out
        for stage in ("observer", "tracker", "drift check", "referee etc.", "total"):
            assert f"  {stage}" in out
        assert "events: 11, as scripted: yes" in out

    def test_a_timed_part_is_told_what_its_part_is_told(self) -> None:
        """The pipeline tells the observer the colour to play; through the timing wrapper the
        observer itself must hear it, and only the one method is timed."""

        class Part:
            expected_colour: int | None = None

            def observe(self, value: int) -> int:
                return value + 1

        totals: dict[str, list[float]] = {"observer": []}
        part = Part()
        timed = Timed(part, "observe", totals, "observer")
        timed.expected_colour = 2
        assert part.expected_colour == 2 and timed.expected_colour == 2
        assert timed.observe(1) == 2 and len(totals["observer"]) == 1

    @pytest.mark.parametrize("size", ["12", "80x60", "axb"])
    def test_bad_size(self, capsys, size: str) -> None:
        assert main(["bench", "pipeline", "--size", size]) == 2
        assert "--size" in capsys.readouterr().err


def test_refitted_calibration_moves_the_reference_with_the_camera(
    renderers, calibration_file
) -> None:
    import cv2
    import numpy as np

    from calibration.calibfile import load_calibration
    from device.pipeline import reference_image, refitted_calibration

    calibration = load_calibration(calibration_file)
    moved = refitted_calibration(calibration, BUMPED)
    assert moved.camera is BUMPED
    before = reference_image(calibration).astype(np.int16)
    after = reference_image(moved).astype(np.int16)
    truth = renderers["bumped"].empty_board().astype(np.int16)
    assert after.shape == truth.shape
    # On the board (the printed markings), the warped reference is much closer to what the
    # bumped camera sees than the old one (a homography cannot follow the tiers' parallax).
    corners = [xyz for tier in range(4) for xyz in calibration.spec.landmarks(tier).values()]
    hull = cv2.convexHull(BUMPED.project(np.array(corners)).astype(np.int32))
    board = np.zeros(truth.shape[:2], np.uint8)
    cv2.fillConvexPoly(board, hull, 1)
    on_board = board.astype(bool)
    error_after = np.abs(after - truth)[on_board].mean()
    error_before = np.abs(before - truth)[on_board].mean()
    assert error_after < 0.6 * error_before  # (8.3 against 17.0 grey levels when written)
    # What the homography leaves of the tiers' parallax, at the 90th percentile of the points.
    assert calibration.reference_misfit_px == 0.0
    assert 1.0 < moved.reference_misfit_px < 3.0  # (1.8 px when written)
    # A camera re-fitted where it already was moves nothing more; a second bump adds its own.
    assert refitted_calibration(moved, BUMPED).reference_misfit_px == pytest.approx(
        moved.reference_misfit_px, abs=0.05
    )
    back = refitted_calibration(moved, calibration.camera)
    assert back.reference_misfit_px > moved.reference_misfit_px + 1.0


def test_the_moved_reference_is_registered_to_the_frame_except_under_the_tokens(
    renderers, calibration_file
) -> None:
    """After the refit the moved reference is registered to the frame it was re-fitted
    from: on the board it is then nearer what the bumped camera sees of the empty board than
    the homography alone made it; under the game's token (and a token no one knew of) it is
    left as moved; and a frame with a hand is not used."""
    import cv2
    import numpy as np

    from calibration.calibfile import load_calibration
    from device.pipeline import (
        ObserverCalibration,
        reference_image,
        refitted_calibration,
        registered_calibration,
    )
    from vision.observer import Observer

    calibration = load_calibration(calibration_file)
    moved = refitted_calibration(calibration, BUMPED)
    bumped = renderers["bumped"]
    script = Script(still_frames=4).still(1).place(("D2Q", 0)).place(("F4S", 1))
    frame = cv2.imdecode(np.frombuffer(bumped.encoded(script.shots[-1]), np.uint8), 1)
    observer = Observer(ObserverCalibration.of(moved), palette=DEMO_PALETTE)
    held = [parse_point("D2Q")]  # (F4S is new: the observer finds it in the frame)
    registered = registered_calibration(moved, lambda _: observer, frame, held)
    assert registered.reference_misfit_px == moved.reference_misfit_px > 0
    truth = bumped.empty_board().astype(np.int16)
    before, after = (reference_image(c).astype(np.int16) for c in (moved, registered))
    tokens = observer.token_mask([parse_point("D2Q"), parse_point("F4S")]) > 0
    corners = [xyz for tier in range(4) for xyz in calibration.spec.landmarks(tier).values()]
    board = np.zeros(truth.shape[:2], np.uint8)
    cv2.fillConvexPoly(board, cv2.convexHull(BUMPED.project(np.array(corners)).astype(np.int32)), 1)
    empty = board.astype(bool) & ~cv2.dilate(tokens.astype(np.uint8), np.ones((9, 9))).astype(bool)
    error_before = np.abs(before - truth)[empty].mean()
    error_after = np.abs(after - truth)[empty].mean()
    assert error_after < 0.5 * error_before  # (when written: 2.2 against 7.9 grey levels)
    # Under the tokens, as moved (but for the JPEG's rounding near what changed around them).
    assert np.abs(after - before)[tokens].mean() < 0.25 * np.abs(after - before)[empty].mean()
    hand = replace(script.shots[-1], hand_at=parse_point("C3R"))
    with_hand = cv2.imdecode(np.frombuffer(bumped.encoded(hand), np.uint8), 1)
    assert registered_calibration(moved, lambda _: observer, with_hand, held) is moved


def test_a_bundle_replays_from_the_moves_before_its_first_frame(
    tmp_path, capsys, renderers, calibration_file, palette_file
) -> None:
    """A support bundle's frames start during a game: ``--moves manifest.json`` replays from
    the game as the companion had it, so the tokens already down are not new moves."""
    script = Script(still_frames=4).still(3).place(("A1P", 0)).place(("H8S", 1))
    before = len(script.shots) - 1  # the still board with both tokens down
    script.place(("B2Q", 0))
    still = write_frames(tmp_path / "f", [(renderers["plain"], script.shots[before:])])
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"bundle_version": 1, "moves_at_start": ["A1P:0", "H8S:1"]}))
    records = replay(
        capsys,
        calibration_file,
        tmp_path / "f",
        "--palette",
        str(palette_file),
        "--moves",
        str(manifest),
    )
    check(records, still, [move("B2Q", 0)])


@pytest.mark.parametrize(
    "moves, message",
    [
        (["A1P:0", "A1P:1"], "move 2 ('A1P:1')"),
        (["A1P:0", "X9Z:1"], "move 2 ('X9Z:1')"),
        ({"moves": []}, "expected a list of moves"),
    ],
)
def test_a_moves_file_that_cannot_be_played_is_refused(
    tmp_path, capsys, calibration_file, moves, message
) -> None:
    path = tmp_path / "moves.json"
    path.write_text(json.dumps(moves))
    (tmp_path / "f").mkdir()
    capsys.readouterr()
    status = main(
        [
            "replay",
            "--calibration",
            str(calibration_file),
            "--moves",
            str(path),
            str(tmp_path / "f"),
            "--json",
        ]
    )
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert message in captured.err


def test_a_toss_up_between_points_in_line_reads_as_a_question() -> None:
    from device.commands.replay import describe
    from device.events import CONFIRM_HIDDEN, Event

    data = {"color": 1, "candidates": ["A7P", "D8Q"], "points": ["A7P"], "in_line": True}
    text = describe(Event(CONFIRM_HIDDEN, data, frame=3))
    assert "A7P or D8Q, in line with the camera (confirm which)" in text
