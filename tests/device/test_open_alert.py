"""Which stored alert a resumed game is left with, and what counts as the same alert."""

from __future__ import annotations

from device.open_alert import open_alert, repeats

ILLEGAL = {"type": "illegal", "time": 10.0, "frame": 7, "reasons": ["two tokens"], "points": ["A1P"]}


def test_the_last_question_stands_until_something_settles_it() -> None:
    assert open_alert([ILLEGAL], []) == ILLEGAL
    status = {"type": "camera_status", "time": 11.0, "status": "ok"}
    assert open_alert([ILLEGAL, status], [5.0]) == ILLEGAL, "camera news settles nothing"
    for settling in ("restored", "accepted", "corrected", "undo", "win", "game_started"):
        assert open_alert([ILLEGAL, {"type": settling, "time": 12.0}], []) is None, settling


def test_a_move_after_a_question_answers_it() -> None:
    hidden = {"type": "confirm_hidden", "time": 20.0, "color": 1, "candidates": ["C3Q"]}
    assert open_alert([hidden], [3.0, 19.0]) == hidden
    assert open_alert([hidden], [3.0, 21.0]) is None


def test_no_question_no_open_alert() -> None:
    assert open_alert([], []) is None
    assert open_alert([{"type": "win", "time": 1.0, "color": 0}], []) is None
    assert open_alert([ILLEGAL, {"type": "illegal", "time": 11.0}, {"type": "restored", "time": 12.0}], []) is None


def test_the_same_alert_differs_only_in_when_and_where_it_was_raised() -> None:
    later = {**ILLEGAL, "time": 99.0, "frame": 2, "game_id": "g2"}
    assert repeats(later, ILLEGAL)
    assert not repeats({**later, "points": ["A2P"]}, ILLEGAL)
    assert not repeats({**later, "type": "confirm_hidden"}, ILLEGAL)
    assert not repeats(later, None)
