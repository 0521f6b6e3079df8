"""The JSON API under ``/api/``: state, games, exports, control and the support bundle.

Control routes need the PIN (see :mod:`web.auth`). A request the runtime
refuses (nothing to undo, a point that is not part of the mismatch, ...) is a
409 with the runtime's message; the game is left as it was.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request

from device.config import OPENINGS, PLAYER_COUNTS
from device.store import UnknownGameError
from web.auth import control_required
from web.errors import ApiError
from web.extension import runtime
from web.present import palette_of, present_state
from web.validate import (
    choice_field,
    int_field,
    json_object,
    names_field,
    optional_colour_field,
    point_field,
)

logger = logging.getLogger(__name__)

bp = Blueprint("api", __name__, url_prefix="/api")

EXPORT_FORMATS = {
    "pbm": ("text/plain; charset=utf-8", "txt"),
    "json": ("application/json", "json"),
    "ascii": ("text/plain; charset=utf-8", "txt"),
}


def run_control(action: Callable[[], Any]) -> Any:
    """Call a runtime control method, turning its refusals into API errors.

    ``ValueError`` (bad input the runtime caught) is a 400; ``IndexError``,
    ``LookupError`` and ``RuntimeError`` (nothing to undo, no mismatch to
    accept, ...) are a 409.
    """
    try:
        return action()
    except ValueError as exc:
        raise ApiError(400, str(exc)) from exc
    except (LookupError, RuntimeError) as exc:
        raise ApiError(409, str(exc) or "the runtime refused this action") from exc


def _ok(result: Any = None) -> Response:
    """Control answers: ``{"ok": true, "events": [...], "state": ...}`` so the page redraws at once."""
    rt = runtime()
    events = result if isinstance(result, list) else []
    return jsonify({"ok": True, "events": events, "state": present_state(rt.state(), palette_of(rt))})


def _location(body: dict[str, Any]) -> int | str:
    """The ``point`` of a correction or confirmation: a point index of the stacked board
    (``A3Q``), or a bandanna node's name (``GGBY``), which the runtime reads for its board."""
    if getattr(runtime(), "board", "timevectors") != "gryb":
        return point_field(body)
    value = body.get("point")
    if not isinstance(value, str) or not value.strip():
        raise ApiError(400, "'point' is required (a node like GGBY, or 0 for the head)")
    return value


def _game_or_404(game_id: str) -> dict[str, Any]:
    try:
        return runtime().game(game_id)
    except (UnknownGameError, LookupError) as exc:
        raise ApiError(404, f"no game {game_id!r}") from exc


@bp.get("/state")
def state() -> Response:
    """The whole live state (board, turn, winner, alerts, camera, mismatch, ...)."""
    rt = runtime()
    return jsonify(present_state(rt.state(), palette_of(rt)))


@bp.get("/games")
def games() -> Response:
    """Past and running games, newest first."""
    return jsonify(runtime().games())


@bp.get("/games/<game_id>")
def game(game_id: str) -> Response:
    """One game with its moves (for the history page's replay)."""
    return jsonify(_game_or_404(game_id))


@bp.get("/games/<game_id>/export")
def export(game_id: str) -> Response:
    """A game as the play-by-mail move list (``pbm``), JSON, or the ASCII board."""
    fmt = request.args.get("format", "pbm")
    if fmt not in EXPORT_FORMATS:
        raise ApiError(400, f"format must be one of {', '.join(EXPORT_FORMATS)}")
    _game_or_404(game_id)
    text = run_control(lambda: runtime().export(game_id, fmt))
    mimetype, extension = EXPORT_FORMATS[fmt]
    body = text if isinstance(text, (str, bytes)) else str(text)
    response = Response(body, mimetype=mimetype)
    if request.args.get("download"):
        filename = f"boardcam-{game_id}-{fmt}.{extension}"
        response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@bp.post("/game/new")
@control_required
def new_game() -> Response:
    """Start a new game: ``{"players": 2, "opening": "none"|"swap"|"3meq", "names": [...]}``."""
    body = json_object()
    players = int_field(body, "players", default=2, low=min(PLAYER_COUNTS), high=max(PLAYER_COUNTS))
    if players not in PLAYER_COUNTS:
        raise ApiError(400, f"'players' must be one of {', '.join(map(str, PLAYER_COUNTS))}")
    opening = choice_field(body, "opening", OPENINGS, default="none")
    names = names_field(body, "names", max_items=players)
    if opening != "none" and players != 2:
        raise ApiError(400, "the swap and 3MEQ openings are for two-player games")
    run_control(lambda: runtime().new_game(players=players, opening=opening, names=names))
    return _ok()


@bp.post("/control/accept")
@control_required
def accept() -> Response:
    """Accept the board as it is now (a take-back of the last move, or a correction)."""
    json_object()
    return _ok(run_control(lambda: runtime().accept()))


@bp.post("/control/correct")
@control_required
def correct() -> Response:
    """Fix a misread point: ``{"point": "A3Q", "color": 0}`` (``null`` = empty; a node like
    ``GGBY`` on the bandanna)."""
    body = json_object()
    point = _location(body)
    colour = optional_colour_field(body)
    return _ok(run_control(lambda: runtime().correct(point, colour)))


@bp.post("/control/confirm")
@control_required
def confirm() -> Response:
    """Confirm that the last move went to a point the camera cannot see: ``{"point": "A3Q"}``
    (a node on the bandanna)."""
    body = json_object()
    point = _location(body)
    return _ok(run_control(lambda: runtime().confirm_hidden(point)))


@bp.post("/control/choose")
@control_required
def choose() -> Response:
    """The second player's colour choice of the 3MEQ opening: ``{"color": 0|1}``.

    A 400 with the runtime's reason when no choice is due (nothing changes).
    """
    body = json_object()
    colour = int_field(body, "color", low=0, high=1)
    return _ok(run_control(lambda: runtime().choose_colour(colour)))


@bp.post("/control/roll")
@control_required
def roll() -> Response:
    """Roll the GRYB game's die: ``{}`` rolls the game's seeded virtual die, ``{"face": "Y"}``
    records what a physical die showed. A 400 with the reason when no roll is due."""
    body = json_object()
    face = body.get("face")
    if face is not None and not isinstance(face, str):
        raise ApiError(400, "'face' is a die face like G or GRYB, or absent for the virtual die")
    return _ok(run_control(lambda: runtime().roll(face)))


@bp.post("/control/undo")
@control_required
def undo() -> Response:
    """Take back the last accepted move."""
    json_object()
    return _ok(run_control(lambda: runtime().undo()))


@bp.get("/bundle")
def bundle() -> Response:
    """Support bundle (zip: the last minute of frames, calibration, game state)."""
    data = run_control(lambda: runtime().bundle())
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    response = Response(data, mimetype="application/zip")
    response.headers["Content-Disposition"] = f'attachment; filename="boardcam-bundle-{stamp}.zip"'
    return response


def init_app(app: Flask) -> None:
    """Register the API blueprint."""
    app.register_blueprint(bp)
