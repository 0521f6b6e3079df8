"""Where the application keeps its runtime and per-app helpers (no module globals)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flask import Flask, current_app

EXTENSION_KEY = "boardcam"


@dataclass
class BoardcamExtension:
    """Per-application objects shared by the blueprints.

    ``runtime`` is the object that watches the board (``device.runtime.Runtime``
    or a stand-in with the same methods); ``extras`` holds helpers other
    components register by name (the PIN throttle, for instance).
    """

    runtime: Any
    extras: dict[str, Any] = field(default_factory=dict)


def install(app: Flask, runtime: Any) -> BoardcamExtension:
    """Attach the runtime to ``app``; called once by the app factory."""
    extension = BoardcamExtension(runtime=runtime)
    app.extensions[EXTENSION_KEY] = extension
    return extension


def extension() -> BoardcamExtension:
    """The extension of the application handling the current request."""
    return current_app.extensions[EXTENSION_KEY]


def runtime() -> Any:
    """The runtime of the application handling the current request."""
    return extension().runtime
