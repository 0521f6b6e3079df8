"""Reading the JSON documents users hand us (clicks, calibrations, palettes, positions).

One reader so every command says the same clear thing about a missing, unreadable or
corrupt file, naming the file and what kind of document it should have been.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class JsonFileError(ValueError):
    """A file that cannot be read or is not JSON.

    ``str()`` names the file and the problem; ``reason`` is the problem alone, for
    callers that already print the file name.
    """

    def __init__(self, what: str, path: str | Path, reason: str) -> None:
        super().__init__(f"{what} {path}: {reason}")
        self.reason = reason


def read_json_file(path: str | Path, what: str = "file") -> Any:
    """Parse the JSON document in ``path``; ``what`` names it in errors ("clicks file").

    Raises :class:`JsonFileError` for a missing or unreadable file, a file that is not
    text, and text that is not JSON (with the line and column of the first problem).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise JsonFileError(what, path, f"cannot read it: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise JsonFileError(what, path, "not text (is it the right file?)") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        reason = f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        raise JsonFileError(what, path, reason) from exc
