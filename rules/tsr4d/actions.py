"""The actions of a TSR "4D" turn, one frozen dataclass per kind of action.

A turn is a move, a beam-down and a Time-warp in any order (some optional),
plus captures, closed by :class:`EndTurn`. Each action is one entry on the
game's move stack, so a take-back undoes one action. ``origin`` may be
``None`` when the notation left it out (``Td1``: only one piece could be
meant); the game resolves it before playing.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.tsr4d.pieces import Kind


@dataclass(frozen=True)
class Capture:
    """The enemy piece an action captures: its kind and space."""

    kind: Kind
    space: int


@dataclass(frozen=True)
class Step:
    """Move a piece one space (``W(b4)a8``), optionally capturing next to its new space."""

    kind: Kind
    target: int
    origin: int | None = None
    capture: Capture | None = None


@dataclass(frozen=True)
class BeamDown:
    """Return the piece in Time-warp near its Marker (``-Ra3``), optionally capturing."""

    kind: Kind
    target: int
    capture: Capture | None = None


@dataclass(frozen=True)
class Warp:
    """Take a piece off the board into Time-warp circle 1, leaving the Marker (``+W(b4)``)."""

    kind: Kind
    origin: int | None = None


@dataclass(frozen=True)
class Linger:
    """Keep the piece in Time-warp one more turn: circle ``circle`` to ``circle + 1`` (``R 1->2``)."""

    kind: Kind
    circle: int


@dataclass(frozen=True)
class SuicideCapture:
    """Capture an enemy piece standing in a 'suicide' position (``xW(b3)``), before other actions."""

    victim: Capture


@dataclass(frozen=True)
class EndTurn:
    """Close the turn; the rules' obligations are checked here (``end``)."""


Action = Step | BeamDown | Warp | Linger | SuicideCapture | EndTurn
