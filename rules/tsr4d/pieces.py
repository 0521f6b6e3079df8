"""The armies of TSR "4D": players, piece kinds and the capturing hierarchy."""

from __future__ import annotations

from enum import Enum

from rules.errors import NotationError

BLUE, WHITE = 0, 1
PLAYER_NAMES = ("blue", "white")


class Kind(Enum):
    """A piece kind; the value is its letter in the rules' shorthand."""

    TIME_LORD = "T"
    GUARDIAN = "G"
    RANGER = "R"
    WARRIOR = "W"

    @property
    def title(self) -> str:
        return _TITLES[self]


_TITLES = {
    Kind.TIME_LORD: "Time-Lord",
    Kind.GUARDIAN: "Guardian",
    Kind.RANGER: "Ranger",
    Kind.WARRIOR: "Warrior",
}

# Each army: 1 Time-Lord, 2 Guardians, 3 Rangers, 6 Warriors (plus its Time-warp Marker).
ARMY = {Kind.TIME_LORD: 1, Kind.GUARDIAN: 2, Kind.RANGER: 3, Kind.WARRIOR: 6}
ARMY_SIZE = sum(ARMY.values())

# Bigger pieces capture smaller ones, except that Warriors capture the Time-Lord.
CAPTURES: dict[Kind, frozenset[Kind]] = {
    Kind.TIME_LORD: frozenset({Kind.GUARDIAN, Kind.RANGER}),
    Kind.GUARDIAN: frozenset({Kind.RANGER, Kind.WARRIOR}),
    Kind.RANGER: frozenset({Kind.WARRIOR}),
    Kind.WARRIOR: frozenset({Kind.TIME_LORD}),
}

_KIND_ORDER = tuple(Kind)


def can_capture(captor: Kind, victim: Kind) -> bool:
    """True when a ``captor`` next to an enemy ``victim`` may capture it."""
    return victim in CAPTURES[captor]


def parse_kind(letter: str) -> Kind:
    """The kind written by its letter T, G, R or W; raises :class:`NotationError`."""
    try:
        return Kind(letter.strip().upper())
    except ValueError:
        raise NotationError(f"{letter!r} is not a piece: use T, G, R or W") from None


def parse_player(text: str) -> int:
    """``blue`` or ``white`` (any case) to the player index; raises :class:`NotationError`."""
    cleaned = text.strip().lower()
    if cleaned not in PLAYER_NAMES:
        raise NotationError(f"{text!r} is not a player: use blue or white")
    return PLAYER_NAMES.index(cleaned)


def token_code(player: int, kind: Kind) -> int:
    """The code a camera reports for a piece: ``4 * player + kind`` (T, G, R, W = 0..3).

    Every piece kind of each army needs its own code because the rules depend
    on the kind, and two actions can leave the same spaces occupied.
    """
    return 4 * player + _KIND_ORDER.index(kind)


def token_from_code(code: int) -> tuple[int, Kind]:
    """Inverse of :func:`token_code`; raises ``ValueError`` for a code no piece has."""
    if not 0 <= code < 4 * len(PLAYER_NAMES):
        raise ValueError(f"token code {code} is not a piece (0..7)")
    return code // 4, _KIND_ORDER[code % 4]
