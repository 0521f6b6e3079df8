"""Pages and JSON API of the games played by hand on a phone: TSR "4D", Timeline and the GRYB games.

Pages: ``/play`` (the three games), ``/play/tsr4d``, ``/play/timeline``, ``/play/gryb``. API under
``/api/tabletop/`` (control routes need the PIN, as every control of
:mod:`web.auth`):

- ``GET  kinds`` -- the game kinds with their titles;
- ``GET  games[?kind=K]`` -- kept games, newest first;
- ``POST games`` ``{"kind": "tsr4d" | "timeline" | "gryb:<name>", "options": {...}}`` -- a new game;
- ``GET  games/<id>`` -- its state; ``GET games/<id>/legal?from=LOC`` -- legal moves from a location;
- ``POST games/<id>/move`` ``{"notation": "W(b4)a8"}`` or ``{"from": "b4", "to": "a8"}``;
- ``POST games/<id>/undo``; ``POST games/<id>/roll`` ``{}`` or ``{"value": "Y"}`` (a physical die);
- ``GET  events`` -- Server-Sent Events: every record of every game, each batch followed by a ``state``.

An illegal move is a 409 ``{"error", "status", "reasons"}`` (and an ``illegal``
event); unreadable input a 400; an unknown game a 404. Nothing changes then.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, jsonify, render_template, request

from device.store import iso_time
from device.tabletop import (
    KINDS,
    NothingToUndoError,
    Tabletop,
    TabletopError,
    TabletopMoveError,
    UnknownTableError,
    rules_for,
)
from rules.gryb.games import GAMES
from web.auth import control_required
from web.errors import ApiError
from web.extension import EXTENSION_KEY, extension
from web.stream import disconnect_probe, event_stream
from web.validate import json_object

logger = logging.getLogger(__name__)

EXTRA_KEY = "tabletop"
RECENT_GAMES = 20
PAGES = {"tsr4d": "TSR 4D", "timeline": "Timeline", "gryb": "GRYB"}

bp = Blueprint("tabletop", __name__)


def tabletop() -> Tabletop:
    """The tabletop service of the application handling the request."""
    return extension().extras[EXTRA_KEY]


def _run(action: Callable[[], Any]) -> Any:
    """Call the service, turning its refusals into API errors (illegal moves keep their reasons)."""
    try:
        return action()
    except TabletopMoveError as exc:
        raise IllegalMove(exc.reasons) from exc
    except UnknownTableError as exc:
        raise ApiError(404, str(exc)) from exc
    except NothingToUndoError as exc:
        raise ApiError(409, str(exc)) from exc
    except TabletopError as exc:
        raise ApiError(400, str(exc)) from exc


class IllegalMove(Exception):
    """A move the rules refuse: answered 409 with the reasons."""

    def __init__(self, reasons: tuple[str, ...]) -> None:
        super().__init__("; ".join(reasons))
        self.reasons = reasons


def _illegal_response(error: IllegalMove) -> Response:
    response = jsonify({"error": str(error), "status": 409, "reasons": list(error.reasons)})
    response.status_code = 409
    return response


def _text_field(body: dict[str, Any], name: str) -> Any:
    """A location field: a name, or for GRYB lines and shapes a list of names."""
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, str) and 0 < len(value) <= 64:
        return value
    if isinstance(value, list) and 0 < len(value) <= 16 and all(isinstance(v, str) for v in value):
        return value
    raise ApiError(400, f"{name!r} must be a location name (or a list of GRYB nodes)")


# -- pages -------------------------------------------------------------------------------


BLURBS = {
    "tsr4d": "TSR's 1979 game of Time-Lords on a circular board: move, beam down, Time-warp.",
    "timeline": "4D chess on four 4x4x4 boards, Monday to Thursday: rooks, bishops and their timelines.",
    "gryb": "Every game of the GRYB manual on the bandanna: EZ GRYB, Drangles, Blobs, The Borg and more.",
}


@bp.get("/play")
def index() -> str:
    """The games played on the phone, each with its latest game."""
    kept = tabletop().games()
    games = [
        {
            "key": key,
            "title": title,
            "kind": "11 games" if key == "gryb" else key,
            "blurb": BLURBS[key],
            "latest": next((g for g in kept if g["kind"].split(":")[0] == key), None),
        }
        for key, title in PAGES.items()
    ]
    recent = [{**g, "started": iso_time(g["created"])} for g in kept[:RECENT_GAMES]]
    return render_template("tabletop_index.html", page="play", games=games, recent=recent)


@bp.get("/play/<game>")
def play_page(game: str) -> str:
    if game not in PAGES:
        abort(404)
    return render_template(
        f"tabletop_{game}.html",
        page="play",
        game=game,
        pages=PAGES,
        gryb_games=[{"name": name, "title": cls.title} for name, cls in GAMES.items()],
    )


# -- API ---------------------------------------------------------------------------------


@bp.get("/api/tabletop/kinds")
def kinds() -> Response:
    return jsonify([{"kind": kind, "title": rules_for(kind).title} for kind in KINDS])


@bp.get("/api/tabletop/games")
def games() -> Response:
    kind = request.args.get("kind")
    return jsonify(_run(lambda: tabletop().games(kind)))


@bp.post("/api/tabletop/games")
@control_required
def new_game() -> Response:
    body = json_object()
    kind = body.get("kind")
    if not isinstance(kind, str):
        raise ApiError(400, f"'kind' is required: one of {', '.join(KINDS)}")
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise ApiError(400, "'options' must be a JSON object")
    response = jsonify(_run(lambda: tabletop().new_game(kind, options)))
    response.status_code = 201
    return response


@bp.get("/api/tabletop/games/<game_id>")
def game_state(game_id: str) -> Response:
    return jsonify(_run(lambda: tabletop().state(game_id)))


@bp.get("/api/tabletop/games/<game_id>/legal")
def legal(game_id: str) -> Response:
    location = request.args.get("from")
    if not location:
        raise ApiError(400, "'from' is required: the location of a piece, like b4, A5P or GR")
    return jsonify({"from": location, "moves": _run(lambda: tabletop().legal_from(game_id, location))})


@bp.post("/api/tabletop/games/<game_id>/move")
@control_required
def move(game_id: str) -> Response:
    body = json_object()
    notation = body.get("notation")
    if notation is not None and (not isinstance(notation, str) or not 0 < len(notation) <= 200):
        raise ApiError(400, "'notation' must be a move in the game's notation")
    origin, target = _text_field(body, "from"), _text_field(body, "to")
    if notation is None and target is None:
        raise ApiError(400, "send 'notation', or 'from' and 'to'")
    return jsonify(_run(lambda: tabletop().play(game_id, notation=notation, origin=origin, target=target)))


@bp.post("/api/tabletop/games/<game_id>/undo")
@control_required
def undo(game_id: str) -> Response:
    json_object()
    return jsonify(_run(lambda: tabletop().undo(game_id)))


@bp.post("/api/tabletop/games/<game_id>/roll")
@control_required
def roll(game_id: str) -> Response:
    body = json_object()
    value = body.get("value")
    if value is not None and (not isinstance(value, str) or not 0 < len(value) <= 8):
        raise ApiError(400, "'value' must be the face the die showed (a colour letter or a node)")
    return jsonify(_run(lambda: tabletop().roll(game_id, value)))


@bp.get("/api/tabletop/events")
def events() -> Response:
    heartbeat = float(current_app.config["BOARDCAM_SSE_HEARTBEAT_S"])
    response = Response(event_stream(tabletop(), heartbeat, disconnect_probe()), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def init_app(app: Flask, service: Tabletop | None = None) -> Tabletop:
    """Register the pages and API; ``service`` defaults to one in the runtime's database file.

    Without a store on the runtime (a stand-in) the games live in memory only.
    """
    if service is None:
        rt = app.extensions[EXTENSION_KEY].runtime
        store = getattr(rt, "store", None)
        path = getattr(store, "path", None) or ":memory:"
        if path == ":memory:":
            logger.warning("the runtime has no store: hand-played games are kept in memory only")
        service = Tabletop(path, bus=getattr(rt, "event_bus", None))
    app.extensions[EXTENSION_KEY].extras[EXTRA_KEY] = service
    app.register_error_handler(IllegalMove, _illegal_response)
    app.register_blueprint(bp)
    return service


__all__ = ["EXTRA_KEY", "IllegalMove", "init_app", "tabletop"]
