"""The question a game was left with when the device stopped.

An illegal change or a hidden-point question stays open until the board is put back,
an operator steps in or a move answers it. A restart (power cut, update, crash) builds a
fresh referee, which reads the same board and raises the same alert again: the players
would be rung twice about one thing, and the history would list it twice. The runtime
asks :func:`open_alert` on resuming a game, and :func:`repeats` of the first alert after
it: the same one is shown again, but neither stored nor sent a second time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from device.events import (
    ACCEPTED,
    CONFIRM_HIDDEN,
    CORRECTED,
    DRAW,
    GAME_STARTED,
    GRYB,
    ILLEGAL,
    MOVE,
    RESTORED,
    UNDO,
    WIN,
)

#: Alerts that ask the players to do something about the board.
QUESTIONS = frozenset({ILLEGAL, CONFIRM_HIDDEN})
#: Records after which no earlier question stands (the board or the game moved on).
SETTLED_BY = frozenset({RESTORED, ACCEPTED, CORRECTED, UNDO, WIN, DRAW, GRYB, GAME_STARTED})
_ABOUT_QUESTIONS = QUESTIONS | SETTLED_BY
#: Events that say something about the board: the first of them after a restart is either
#: the open question raised again or news that ends the wait for it.
ABOUT_THE_BOARD = _ABOUT_QUESTIONS | {MOVE}
#: Record keys that tell two raisings of one alert apart but not what they say.
_CIRCUMSTANCE = frozenset({"time", "frame", "game_id"})


def open_alert(
    alerts: Iterable[Mapping[str, Any]], move_times: Iterable[float]
) -> dict[str, Any] | None:
    """The last question among a game's stored ``alerts`` (oldest first) if nothing settled
    it: no later record that settles questions, and no move stored after it (``move_times``:
    when each stored move was made; an answered hidden-point question ends in a move)."""
    last: Mapping[str, Any] | None = None
    for record in alerts:
        if record.get("type") in _ABOUT_QUESTIONS:
            last = record
    if last is None or last.get("type") not in QUESTIONS:
        return None
    asked = float(last.get("time", 0.0))
    if any(when > asked for when in move_times):
        return None
    return dict(last)


def repeats(record: Mapping[str, Any], earlier: Mapping[str, Any] | None) -> bool:
    """Does ``record`` say what the ``earlier`` alert said (its type and every detail but
    when and at which frame it was raised)?"""
    if earlier is None:
        return False
    return _content(record) == _content(earlier)


def _content(record: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in _CIRCUMSTANCE}
