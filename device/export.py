"""Export a game: the play-by-mail move list, JSON, or the ASCII board of the help file."""

from __future__ import annotations

import json
from typing import Any

from device import game_view, gryb_view
from device.store import Store, StoredGame, iso_time
from rules.gryb.ascii import render_levels
from rules.timevectors import render_ascii

FORMATS = ("pbm", "json", "ascii")
SYMBOLS = "xo+"  # the play-by-mail server's X and O, then a third colour
BOARD_TITLES = {"timevectors": "Time Vectors", "gryb": "GRYB bandanna"}


class ExportFormatError(ValueError):
    """An export format that is not one of :data:`FORMATS`."""


def _result_line(game: StoredGame) -> str:
    if game.status == "running":
        return "result: game in progress"
    if game.status == "abandoned":
        return "result: abandoned"
    if game.winner is None:
        return "result: draw"
    return f"result: {SYMBOLS[game.winner] if game.winner < len(SYMBOLS) else game.winner} " \
           f"(colour {game.winner}) wins"


def game_record(store: Store, game_id: str) -> dict[str, Any]:
    """Everything known about a game as one JSON-ready dict (raises ``UnknownGameError``)."""
    game = store.get_game(game_id)
    return {
        "id": game.id,
        "board": game.board,
        "started": iso_time(game.started),
        "ended": iso_time(game.ended),
        "status": game.status,
        "players": game.players,
        "opening": game.opening,
        "names": list(game.names),
        "winner": game.winner,
        "moves": [
            {
                "ply": m.ply,
                "notation": m.notation,
                "point": None if m.point is None else game_view.names([m.point])[0],
                "color": m.color,
                "time": iso_time(m.time),
            }
            for m in store.moves(game_id)
        ],
        "state": game.state,
    }


def pbm_move_list(store: Store, game_id: str) -> str:
    """Numbered moves in ``A3Q`` notation with the colour's play-by-mail symbol, one per line."""
    game = store.get_game(game_id)
    title = BOARD_TITLES.get(game.board, game.board)
    lines = [
        f"# boardcam game {game.id}: {title}, {game.players} players, opening {game.opening}",
        f"# started {iso_time(game.started)}; {_result_line(game)}",
    ]
    for move in store.moves(game_id):
        symbol = SYMBOLS[move.color] if move.color is not None and 0 <= move.color < len(SYMBOLS) else "?"
        # The server's move is just the point ("A3Q"); swap and choose keep their word.
        lines.append(f"{move.ply + 1} {symbol} {move.notation.split(':')[0]}")
    return "\n".join(lines) + "\n"


def ascii_board(store: Store, game_id: str) -> str:
    """The final (or current) position: Time Vectors in the help file's layout (levels S..P
    from the top), the GRYB bandanna as the grid of each level of its tree."""
    game = store.get_game(game_id)
    engine = game_view.load_game(game.state)
    header = f"boardcam game {game.id}: {len(engine.move_stack)} moves; {_result_line(game)}\n\n"
    if gryb_view.is_gryb(engine):
        return header + render_levels(engine.position(), symbols=SYMBOLS)
    return header + render_ascii(engine.board, symbols=SYMBOLS)


def export_game(store: Store, game_id: str, fmt: str) -> str:
    """The game in ``fmt``; raises :class:`ExportFormatError` or ``UnknownGameError``."""
    if fmt == "pbm":
        return pbm_move_list(store, game_id)
    if fmt == "json":
        return json.dumps(game_record(store, game_id), indent=2) + "\n"
    if fmt == "ascii":
        return ascii_board(store, game_id)
    raise ExportFormatError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
