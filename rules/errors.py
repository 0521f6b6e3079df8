"""Exceptions shared by every rules engine."""

from __future__ import annotations


class RulesError(ValueError):
    """Base of every error the rules engines raise."""


class NotationError(RulesError):
    """Text that is not valid notation for the board (a point, node, move or diagram)."""


class IllegalMoveError(RulesError):
    """A move that the rules of the game do not allow in the current position."""


class GameConfigError(RulesError):
    """Game settings that the rules do not allow (player count, supply, opening protocol)."""


class RecordError(RulesError):
    """A saved game or position (JSON-ready data) that is malformed."""
