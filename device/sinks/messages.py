"""Alert records in words: the title, text, priority and tags every push sink shows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_COLOUR_NAMES = ("colour 0", "colour 1", "colour 2")


@dataclass(frozen=True)
class AlertMessage:
    """``priority`` follows ntfy: 1 (min) .. 3 (default) .. 5 (max)."""

    title: str
    text: str
    priority: int
    tags: tuple[str, ...]


def colour_name(colour: Any, names: Sequence[str] = ()) -> str:
    """A player's name for colour index ``colour`` when known, else ``"colour N"``."""
    if isinstance(colour, int) and 0 <= colour < len(names) and names[colour]:
        return names[colour]
    return f"colour {colour}"


def alert_message(record: Mapping[str, Any], names: Sequence[str] = ()) -> AlertMessage:
    """Describe an event record for a person (unknown types get a generic text)."""
    kind = record.get("type", "event")
    if kind == "win":
        vectors = record.get("vectors") or []
        lines = "; ".join(" ".join(v) for v in vectors)
        # Games played on the phone name their winner ("blue") and say why they ended.
        who = record.get("winner") if isinstance(record.get("winner"), str) else None
        who = who or colour_name(record.get("color"), names)
        text = f"Vector: {lines}" if lines else (record.get("reason") or f"{who} wins")
        return AlertMessage(f"{who} wins", text, 5, ("trophy",))
    if kind == "draw":
        text = record.get("reason") or "The supplies ran out with no vector."
        return AlertMessage("Draw", text, 4, ("handshake",))
    if kind == "illegal":
        reasons = record.get("reasons") or ["the board changed in a way the rules do not allow"]
        return AlertMessage("Illegal move", "; ".join(reasons), 4, ("warning",))
    if kind == "confirm_hidden" and record.get("in_line"):
        either = " or ".join(record.get("candidates") or [])
        text = f"Is the token on {either}? In line with the camera, it cannot tell which"
        return AlertMessage("Please confirm a move", text, 3, ("eyes",))
    if kind == "confirm_hidden":
        points = record.get("points") or record.get("candidates") or []
        text = "A token went where the camera cannot see"
        if points:
            text += ": one of " + ", ".join(points)
        return AlertMessage("Please confirm a move", text, 3, ("eyes",))
    if kind == "camera_moved":
        return AlertMessage("Camera moved", "The camera moved against its calibration; recalibrate.", 4,
                            ("camera", "warning"))
    if kind == "camera_status":
        status = record.get("status", "?")
        detail = record.get("message") or record.get("description") or ""
        return AlertMessage(f"Camera {status}", detail or f"camera is {status}", 3 if status == "ok" else 4,
                            ("camera",))
    if kind == "move":
        who = colour_name(record.get("color"), names)
        if record.get("kind") == "choose":
            # Names follow the seats' first colours, which the choice may exchange: say the colour.
            chosen = colour_name(record.get("color"))
            return AlertMessage("Colour chosen", f"the second player chose {chosen}", 2, ("game_die",))
        verb = "swapped" if record.get("kind") == "swap" else "played"
        return AlertMessage("Move", f"{who} {verb} {record.get('point', '?')}", 2, ("game_die",))
    return AlertMessage(str(kind).replace("_", " ").capitalize(), str(kind), 3, ())
