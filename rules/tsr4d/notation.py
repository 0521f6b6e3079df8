"""The rules' 4D shorthand: every action parsed from and written to text.

Forms (the rules' own, plus two this product adds):

- move ``W(b4)a8``, or ``Td1`` when the piece is unambiguous;
- beam-down ``-Ra3``; Time-warp ``+W(b4)`` (or ``+T``);
- staying in Time-warp ``R 1->2`` (also ``R1->2``, ``R (1) -> (2)``, ``R ①→②``);
- a capture follows its action: ``-Rb5 x W(b6)``, ``T(c2)d1xG(d4)``
  (``x``, ``X`` or ``×``; the victim's space with or without parentheses);
- added: a 'suicide' capture on its own, ``xW(b3)`` (the rules describe it but give
  no shorthand), and ``end`` closing a turn.

A whole turn is written on one line, actions separated by spaces, commas or
semicolons: ``-Rb1; T(c2)d1; +W(b4)``. Every parser raises
:class:`~rules.errors.NotationError` saying what is wrong.
"""

from __future__ import annotations

import re
from typing import Any

from rules.errors import NotationError
from rules.tsr4d.actions import (
    Action,
    BeamDown,
    Capture,
    EndTurn,
    Linger,
    Step,
    SuicideCapture,
    Warp,
)
from rules.tsr4d.board import parse_space, space_name
from rules.tsr4d.pieces import parse_kind

_KIND = r"([TGRWtgrw])"
_SPACE = r"([a-dA-D]\d{1,2})"
_CAPTURE = rf"(?:\s*[xX×]\s*{_KIND}\s*\(?\s*{_SPACE}\s*\)?)"
_ARROW = r"(?:->|→|>)"

_FORMS = (
    ("end", re.compile(r"end\b", re.IGNORECASE)),
    ("linger", re.compile(rf"{_KIND}\s*\(?\s*([1-3①②③])\s*\)?\s*{_ARROW}\s*\(?\s*([1-3①②③])\s*\)?")),
    ("warp", re.compile(rf"\+\s*{_KIND}(?:\s*\(\s*{_SPACE}\s*\))?")),
    ("beam", re.compile(rf"-\s*{_KIND}\s*{_SPACE}{_CAPTURE}?")),
    ("suicide", re.compile(rf"[xX×]\s*{_KIND}\s*\(?\s*{_SPACE}\s*\)?")),
    ("step", re.compile(rf"{_KIND}\s*(?:\(\s*{_SPACE}\s*\)\s*)?{_SPACE}{_CAPTURE}?")),
)
_CIRCLED = {"①": "1", "②": "2", "③": "3"}
_SEPARATORS = re.compile(r"[\s,;]*")


def _capture(kind: str | None, space: str | None) -> Capture | None:
    if kind is None or space is None:
        return None
    return Capture(parse_kind(kind), parse_space(space))


def _build(form: str, groups: tuple[str | None, ...]) -> Action:
    if form == "end":
        return EndTurn()
    if form == "linger":
        kind, start, finish = (_CIRCLED.get(g or "", g or "") for g in groups)
        if int(finish) != int(start) + 1:
            raise NotationError(
                f"a piece stays in Time-warp one circle at a time: {start}->{int(start) + 1}, "
                f"not {start}->{finish}"
            )
        return Linger(parse_kind(kind), int(start))
    if form == "warp":
        kind, origin = groups
        return Warp(parse_kind(kind or ""), None if origin is None else parse_space(origin))
    if form == "beam":
        kind, target, capture_kind, capture_space = groups
        return BeamDown(
            parse_kind(kind or ""), parse_space(target or ""), _capture(capture_kind, capture_space)
        )
    if form == "suicide":
        kind, space = groups
        return SuicideCapture(Capture(parse_kind(kind or ""), parse_space(space or "")))
    kind, origin, target, capture_kind, capture_space = groups
    return Step(
        parse_kind(kind or ""),
        parse_space(target or ""),
        None if origin is None else parse_space(origin),
        _capture(capture_kind, capture_space),
    )


def _match_at(text: str, position: int) -> tuple[Action, int] | None:
    for form, pattern in _FORMS:
        found = pattern.match(text, position)
        if found:
            return _build(form, found.groups()), found.end()
    return None


def parse_turn(text: str) -> list[Action]:
    """Parse the actions of one line, in order; raises :class:`NotationError` naming the bad part."""
    actions: list[Action] = []
    position = _SEPARATORS.match(text, 0).end()  # type: ignore[union-attr]
    while position < len(text):
        matched = _match_at(text, position)
        if matched is None:
            rest = text[position:].split()[0]
            raise NotationError(
                f"{rest!r} is not a 4D action: write a move W(b4)a8, a beam-down -Ra3, "
                "a Time-warp +W(b4), R 1->2, a capture xW(b3) or end"
            )
        action, position = matched
        actions.append(action)
        position = _SEPARATORS.match(text, position).end()  # type: ignore[union-attr]
    return actions


def parse_action(text: str) -> Action:
    """Parse exactly one action; raises :class:`NotationError`."""
    actions = parse_turn(text)
    if len(actions) != 1:
        raise NotationError(f"{text!r} holds {len(actions)} actions, expected exactly one")
    return actions[0]


def _capture_text(capture: Capture | None) -> str:
    if capture is None:
        return ""
    return f"x{capture.kind.value}({space_name(capture.space)})"


def action_notation(action: Action) -> str:
    """Write an action in the shorthand; :func:`parse_action` reads it back unchanged."""
    if isinstance(action, EndTurn):
        return "end"
    if isinstance(action, Linger):
        return f"{action.kind.value} {action.circle}->{action.circle + 1}"
    if isinstance(action, Warp):
        origin = "" if action.origin is None else f"({space_name(action.origin)})"
        return f"+{action.kind.value}{origin}"
    if isinstance(action, BeamDown):
        return f"-{action.kind.value}{space_name(action.target)}{_capture_text(action.capture)}"
    if isinstance(action, SuicideCapture):
        return _capture_text(action.victim)
    origin = "" if action.origin is None else f"({space_name(action.origin)})"
    return f"{action.kind.value}{origin}{space_name(action.target)}{_capture_text(action.capture)}"


_ACTION_TYPES = {
    Step: "move",
    BeamDown: "beam-down",
    Warp: "time-warp",
    Linger: "stay-in-warp",
    SuicideCapture: "suicide-capture",
    EndTurn: "end-turn",
}


def action_to_dict(action: Action) -> dict[str, Any]:
    """JSON-ready form for the dashboard's highlighting: type, piece, spaces and notation.

    ``from`` is the space the piece leaves (``"warp"`` for a beam-down or a stay in
    Time-warp), ``to`` the space it reaches (``"warp"`` for a Time-warp); ``capture``
    is ``{"kind": "W", "space": "b6"}`` or ``None``.
    """
    kind = getattr(action, "kind", None)
    origin = getattr(action, "origin", None)
    target = getattr(action, "target", None)
    capture = action.victim if isinstance(action, SuicideCapture) else getattr(action, "capture", None)
    if isinstance(action, (BeamDown, Linger)):
        origin_text: str | None = "warp"
    else:
        origin_text = None if origin is None else space_name(origin)
    return {
        "type": _ACTION_TYPES[type(action)],
        "notation": action_notation(action),
        "kind": None if kind is None else kind.value,
        "from": origin_text,
        "to": "warp" if isinstance(action, (Warp, Linger)) else (
            None if target is None else space_name(target)
        ),
        "capture": None if capture is None else {
            "kind": capture.kind.value, "space": space_name(capture.space)
        },
    }


def turn_notation(actions: list[Action] | tuple[Action, ...]) -> str:
    """Write several actions on one line, separated by ``; `` (the ``end`` of a turn is implied)."""
    return "; ".join(action_notation(a) for a in actions if not isinstance(a, EndTurn))
