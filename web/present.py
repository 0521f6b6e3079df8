"""What the dashboard shows on top of the runtime's state (pure functions, no Flask).

The runtime reports a win as its vectors (lists of ``A3Q`` names); players
read a vector by the dimensions it moves through ("1st, 3rd and 4th"), which is
what the manual calls each of the 15 vector types.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.timevectors.points import parse_point, point_coords

ORDINALS = ("1st", "2nd", "3rd", "4th")


def changing_dimensions(vector: Sequence[str | int]) -> tuple[int, ...]:
    """Indices (0..3 for x, y, z, t) of the dimensions along which ``vector`` moves.

    Points may be ``A3Q`` names or point indices; raises
    :class:`rules.errors.NotationError` for a bad name.
    """
    coords = [point_coords(parse_point(p) if isinstance(p, str) else int(p)) for p in vector]
    return tuple(d for d in range(4) if len({c[d] for c in coords}) > 1)


def join_words(words: Sequence[str]) -> str:
    """``["1st"]`` -> ``"1st"``; ``["1st", "3rd", "4th"]`` -> ``"1st, 3rd and 4th"``."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def describe_dimensions(vector: Sequence[str | int]) -> str:
    """The dimensions a vector moves through, as the manual names them ("1st, 3rd and 4th")."""
    return join_words([ORDINALS[d] for d in changing_dimensions(vector)])


def present_state(state: Mapping[str, Any], palette: Sequence[Sequence[int]] | None = None) -> dict[str, Any]:
    """The runtime's state plus what the dashboard needs to read it at a glance.

    Adds ``winner.dimensions`` (one description per winning vector) and
    ``palette`` (the learned token colours as ``[r, g, b]``, or ``null``) when
    the state has none. The runtime's own keys are passed through unchanged.
    """
    shown = dict(state)
    if "palette" not in shown:
        shown["palette"] = [[int(c) for c in colour] for colour in palette] if palette else None
    winner = state.get("winner")
    if isinstance(winner, Mapping) and winner.get("vectors"):
        shown["winner"] = {
            **winner,
            "dimensions": [describe_dimensions(vector) for vector in winner["vectors"]],
        }
    return shown


def palette_of(runtime: Any) -> Sequence[Sequence[int]] | None:
    """The runtime's learned token colours (``Runtime.palette``), if it has any."""
    return getattr(runtime, "palette", None)
