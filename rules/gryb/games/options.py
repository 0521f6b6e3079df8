"""Checks shared by the option records of the games."""

from __future__ import annotations


def check_range(name: str, value: int, low: int, high: int) -> None:
    """Raise ``ValueError`` naming the option when ``value`` is outside ``low..high``."""
    if not low <= value <= high:
        raise ValueError(f"option {name.replace('_', '-')} must be {low}..{high}, not {value}")
