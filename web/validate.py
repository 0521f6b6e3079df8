"""Reading and checking JSON request bodies: every failure is an :class:`ApiError` 400."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from flask import request

from rules.errors import NotationError
from rules.timevectors.points import parse_point
from web.errors import ApiError


def json_object() -> dict[str, Any]:
    """The request body as a JSON object; an empty body counts as ``{}``.

    Raises :class:`ApiError` 400 for a body that is not JSON or not an object
    (an oversized body was already refused with 413 by ``MAX_CONTENT_LENGTH``).
    """
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    if not request.is_json:
        raise ApiError(415, "send the body as JSON (Content-Type: application/json)")
    data = request.get_json(silent=True)
    if data is None:
        raise ApiError(400, "the body is not valid JSON")
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    return data


def int_field(body: dict[str, Any], name: str, *, default: int | None = None,
              low: int, high: int) -> int:
    """An integer field in ``low..high``; ``default`` when absent (required if ``None``)."""
    value = body.get(name, default)
    if value is None:
        raise ApiError(400, f"{name!r} is required")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"{name!r} must be an integer")
    if not low <= value <= high:
        raise ApiError(400, f"{name!r} must be between {low} and {high}")
    return value


def choice_field(body: dict[str, Any], name: str, choices: Collection[str], *, default: str) -> str:
    """A string field that must be one of ``choices``."""
    value = body.get(name, default)
    if not isinstance(value, str) or value not in choices:
        raise ApiError(400, f"{name!r} must be one of {', '.join(sorted(choices))}")
    return value


def point_field(body: dict[str, Any], name: str = "point") -> int:
    """A Time Vectors point written like ``A3Q``; returns the point index."""
    value = body.get(name)
    if value is None:
        raise ApiError(400, f"{name!r} is required (a point like A3Q)")
    try:
        return parse_point(value)
    except NotationError as exc:
        raise ApiError(400, str(exc)) from exc


def optional_colour_field(body: dict[str, Any], name: str = "color", *, colours: int = 3) -> int | None:
    """A colour index ``0..colours-1`` or ``null`` (no token); the key is required."""
    if name not in body:
        raise ApiError(400, f"{name!r} is required (a colour index, or null for an empty point)")
    value = body[name]
    if value is None:
        return None
    return int_field(body, name, low=0, high=colours - 1)


def names_field(body: dict[str, Any], name: str, *, max_items: int, max_length: int = 40) -> list[str] | None:
    """An optional list of short non-empty strings (player names)."""
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ApiError(400, f"{name!r} must be a list of strings")
    cleaned = [item.strip() for item in value]
    if len(cleaned) > max_items:
        raise ApiError(400, f"{name!r} has more than {max_items} entries")
    if any(not item or len(item) > max_length for item in cleaned):
        raise ApiError(400, f"each of {name!r} must be 1 to {max_length} characters")
    return cleaned
