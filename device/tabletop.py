"""Manually played games of every engine (TSR 4D, Timeline, each GRYB game), refereed and kept.

The camera watches one board; players of the other games enter their moves on
a phone. :class:`Tabletop` holds any number of such games by id: it creates a
game by kind (``tsr4d``, ``timeline``, ``gryb:<game-name>``), plays a move
written in the game's notation or given as a from/to pair, takes moves back,
lists the legal moves from a location (the dashboard highlights them), rolls a
GRYB game's dice and reports the result. Every change fires the same event
records as the camera's referee (``game_started``, ``move``, ``win``, ``draw``,
``illegal`` with its reasons, ``undo``) to live subscribers and, when given, an
:class:`~device.events.EventBus` feeding the push sinks.

Each game is kept as JSON in its own table (``tabletop_games``) of the
companion's SQLite file (the store's ``games`` table allows one running game,
the camera's), written in the same transaction as each change, so a restart
resumes every game where it was. Per kind a :class:`Rules` adapter knows how to
start, save, restore, describe and read moves of its engine.
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from device.events import DRAW, GAME_STARTED, ILLEGAL, MOVE, UNDO, WIN, Event, EventBus
from rules.errors import IllegalMoveError, NotationError, RulesError
from rules.game import Game, Outcome
from rules.gryb.games import GAMES, GrybGame, GrybMove
from rules.gryb.games import new_game as new_gryb_game
from rules.gryb.nodes import node_name, parse_node, parse_nodes
from rules.timeline import TEAM_NAMES, CrossingRule, TimelineGame, parse_move
from rules.timeline import format_position as format_timeline_position
from rules.timeline import parse_position as parse_timeline_position
from rules.timeline.moves import Move as TimelineMove
from rules.timevectors.points import parse_point, point_name
from rules.tsr4d import (
    PLAYER_NAMES,
    BeamDown,
    Linger,
    Step,
    SuicideCapture,
    SuicideRule,
    Tsr4dGame,
    Warp,
    action_to_dict,
    format_position,
    parse_action,
    parse_space,
    space_name,
)
from rules.tsr4d import parse_position as parse_tsr4d_position

logger = logging.getLogger(__name__)

GRYB_PREFIX = "gryb:"
KINDS: tuple[str, ...] = ("tsr4d", "timeline", *(GRYB_PREFIX + name for name in GAMES))
SUBSCRIBER_QUEUE = 256

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tabletop_games (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'finished')),
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tabletop_by_kind ON tabletop_games (kind, created);
"""


class TabletopError(ValueError):
    """A request the tabletop cannot carry out: unknown kind, bad options, unreadable move or location."""


class UnknownTableError(TabletopError, LookupError):
    """No game with the requested id (a web layer answers 404)."""


class TabletopMoveError(TabletopError):
    """A move the rules refuse; ``reasons`` say why in a player's words. Nothing changed."""

    def __init__(self, reasons: Sequence[str]) -> None:
        self.reasons = tuple(reasons)
        super().__init__("; ".join(self.reasons))


class NothingToUndoError(TabletopError, LookupError):
    """Undo on a game without moves."""


# -- per-engine adapters ---------------------------------------------------------------


class Rules(ABC):
    """What the tabletop needs of one engine; one instance per kind, stateless."""

    kind: str = ""
    title: str = ""
    side_names: tuple[str, ...] = ("player 1", "player 2")

    @abstractmethod
    def new(self, options: Mapping[str, Any]) -> Game[Any]:
        """A fresh game; raises :class:`TabletopError` for options the game does not have."""

    def start(self, game: Game[Any]) -> str | None:
        """The starting position's text, kept with the game (``None``: the record holds all)."""
        return None

    @abstractmethod
    def save(self, game: Game[Any], start: str | None, notations: Sequence[str]) -> dict[str, Any]:
        """JSON-ready record that :meth:`load` rebuilds the game from."""

    @abstractmethod
    def load(self, record: Mapping[str, Any]) -> tuple[Game[Any], list[str]]:
        """The game of a saved record and its move notations; raises ``RulesError``/``KeyError``."""

    @abstractmethod
    def board(self, game: Game[Any]) -> dict[str, Any]:
        """The engine's position for the board drawing."""

    @abstractmethod
    def to_move(self, game: Game[Any]) -> int:
        """Index of the side to move."""

    @abstractmethod
    def parse(self, game: Game[Any], text: str) -> Any:
        """A move from its notation; raises :class:`~rules.errors.NotationError`."""

    @abstractmethod
    def from_to(self, game: Game[Any], origin: Any, target: Any) -> Any:
        """A move from a from/to pair; raises ``NotationError`` or :class:`TabletopError`."""

    @abstractmethod
    def describe(self, game: Game[Any], move: Any) -> dict[str, Any]:
        """JSON-ready move (``notation``, ``from``, ``to``, ...) in the position before it is played."""

    @abstractmethod
    def touches(self, game: Game[Any], move: Any, location: str) -> bool:
        """Whether tapping ``location`` (a normalised name) offers ``move``."""

    @abstractmethod
    def location(self, text: Any) -> str:
        """The canonical name of a location; raises :class:`~rules.errors.NotationError`."""

    def prepare(self, game: Game[Any], move: Any) -> Any:
        """The move as the engine will push it (short notation resolved); raises ``IllegalMoveError``."""
        return move

    def extra(self, game: Game[Any]) -> dict[str, Any]:
        """Kind-specific parts of the state (dice, scores, turn progress)."""
        return {}

    def scored(self, game: Game[Any]) -> list[dict[str, Any]]:
        """Everything scored so far that does not end the game (GRYBs), oldest first."""
        return []

    def winner_name(self, outcome: Outcome) -> str | None:
        return None if outcome.winner is None else self.side_names[outcome.winner]

    def lines(self, outcome: Outcome) -> list[list[str]]:
        return [[str(item) for item in line] for line in outcome.lines]


def _option(options: Mapping[str, Any], name: str, allowed: Sequence[str], default: str) -> str:
    value = options.get(name, default)
    if value not in allowed:
        raise TabletopError(f"option {name!r} must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)


def _check_options(options: Mapping[str, Any], known: Sequence[str], title: str) -> None:
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise TabletopError(f"{title} has no option {unknown[0]!r} (options: {', '.join(known)})")


def _start_position(options: Mapping[str, Any], parse: Callable[[str], Any], example: str) -> Any:
    """The ``position`` option read by the engine's parser (``None``: the documented start)."""
    text = options.get("position")
    if text is None:
        return None
    if not isinstance(text, str):
        raise TabletopError(f"option 'position' is a position text like '{example}'")
    try:
        return parse(text)
    except RulesError as exc:
        raise TabletopError(f"position: {exc}") from exc


class Tsr4dRules(Rules):
    """TSR "4D": actions in the rules' shorthand, one action per entry (``end`` closes a turn)."""

    kind = "tsr4d"
    title = 'TSR "4D"'
    side_names = PLAYER_NAMES
    OPTIONS = ("suicide-rule", "position")

    def new(self, options: Mapping[str, Any]) -> Tsr4dGame:
        _check_options(options, self.OPTIONS, self.title)
        rule = _option(options, "suicide-rule", [r.value for r in SuicideRule], SuicideRule.ADJACENT.value)
        position = _start_position(options, parse_tsr4d_position, "blue: Tc2 ...; white: ...; to move: blue")
        return Tsr4dGame(position, suicide_rule=SuicideRule(rule))

    def start(self, game: Game[Any]) -> str:
        assert isinstance(game, Tsr4dGame)
        return format_position(game.position)

    def save(self, game: Game[Any], start: str | None, notations: Sequence[str]) -> dict[str, Any]:
        assert isinstance(game, Tsr4dGame)
        return {"suicide-rule": game.suicide_rule.value, "start": start, "moves": list(notations)}

    def load(self, record: Mapping[str, Any]) -> tuple[Tsr4dGame, list[str]]:
        game = Tsr4dGame(parse_tsr4d_position(record["start"]), suicide_rule=SuicideRule(record["suicide-rule"]))
        for text in record["moves"]:
            game.push(parse_action(text))
        return game, list(record["moves"])

    def board(self, game: Game[Any]) -> dict[str, Any]:
        assert isinstance(game, Tsr4dGame)
        data = game.to_dict()
        data.pop("result", None)
        return data

    def to_move(self, game: Game[Any]) -> int:
        assert isinstance(game, Tsr4dGame)
        return game.to_move

    def parse(self, game: Game[Any], text: str) -> Any:
        return parse_action(text)

    def from_to(self, game: Game[Any], origin: Any, target: Any) -> Any:
        assert isinstance(game, Tsr4dGame)
        position = game.position
        player = position.to_move
        if origin == "warp":
            slot = position.warp[player]
            if slot is None:
                raise TabletopError(f"no {PLAYER_NAMES[player]} piece is in Time-warp")
            return BeamDown(slot.kind, parse_space(target))
        start = parse_space(origin)
        held = position.pieces.get(start)
        if held is None or held[0] != player:
            raise TabletopError(f"there is no {PLAYER_NAMES[player]} piece on {origin}")
        if target == "warp":
            return Warp(held[1], start)
        return Step(held[1], parse_space(target), start)

    def prepare(self, game: Game[Any], move: Any) -> Any:
        assert isinstance(game, Tsr4dGame)
        return game.resolve(move)

    def describe(self, game: Game[Any], move: Any) -> dict[str, Any]:
        return action_to_dict(move)

    def touches(self, game: Game[Any], move: Any, location: str) -> bool:
        if isinstance(move, SuicideCapture):
            return action_to_dict(move)["capture"]["space"] == location
        if isinstance(move, (BeamDown, Linger)):
            return location == "warp"
        return isinstance(move, (Step, Warp)) and action_to_dict(move)["from"] == location

    def location(self, text: Any) -> str:
        if text == "warp":
            return "warp"
        return space_name(parse_space(text))

    def extra(self, game: Game[Any]) -> dict[str, Any]:
        assert isinstance(game, Tsr4dGame)
        progress = game.progress
        return {
            "turn_progress": {"moved": progress.moved, "warped": progress.warped,
                              "warp_resolved": progress.warp_resolved},
            "captured": [{"player": PLAYER_NAMES[p], "kind": k.value} for p, k in game.captured],
            "suicide_rule": game.suicide_rule.value,
        }


class TimelineRules(Rules):
    """Timeline: ``FROM-TO`` moves in ``A3Q`` points, captures noted ``xCOLOUR``."""

    kind = "timeline"
    title = "Timeline"
    side_names = TEAM_NAMES
    OPTIONS = ("crossing-rule", "position")

    def new(self, options: Mapping[str, Any]) -> TimelineGame:
        _check_options(options, self.OPTIONS, self.title)
        rule = _option(options, "crossing-rule", [r.value for r in CrossingRule], CrossingRule.SQUARES.value)
        position = _start_position(options, parse_timeline_position, "red: A5P; black: C6P; to move: warm")
        return TimelineGame(position, crossing_rule=CrossingRule(rule))

    def start(self, game: Game[Any]) -> str:
        assert isinstance(game, TimelineGame)
        return format_timeline_position(game.position)

    def save(self, game: Game[Any], start: str | None, notations: Sequence[str]) -> dict[str, Any]:
        assert isinstance(game, TimelineGame)
        return {"crossing-rule": game.crossing_rule.value, "start": start, "moves": list(notations)}

    def load(self, record: Mapping[str, Any]) -> tuple[TimelineGame, list[str]]:
        game = TimelineGame(
            parse_timeline_position(record["start"]), crossing_rule=CrossingRule(record["crossing-rule"])
        )
        for text in record["moves"]:
            game.push(parse_move(text))
        return game, list(record["moves"])

    def board(self, game: Game[Any]) -> dict[str, Any]:
        assert isinstance(game, TimelineGame)
        data = game.to_dict()
        data.pop("result", None)
        return data

    def to_move(self, game: Game[Any]) -> int:
        assert isinstance(game, TimelineGame)
        return game.to_move

    def parse(self, game: Game[Any], text: str) -> Any:
        return parse_move(text)

    def from_to(self, game: Game[Any], origin: Any, target: Any) -> Any:
        return TimelineMove(parse_point(origin), parse_point(target))

    def describe(self, game: Game[Any], move: Any) -> dict[str, Any]:
        assert isinstance(game, TimelineGame)
        return game.move_to_dict(move)

    def touches(self, game: Game[Any], move: Any, location: str) -> bool:
        return point_name(move.origin) == location

    def location(self, text: Any) -> str:
        return point_name(parse_point(text))


class GrybRules(Rules):
    """One game of the GRYB manual: rings of player 1 and 2 on the bandanna's nodes, dice."""

    side_names = ("player 1", "player 2")

    def __init__(self, name: str) -> None:
        self.name = name
        self.kind = GRYB_PREFIX + name
        self.title = GAMES[name].title

    def new(self, options: Mapping[str, Any]) -> GrybGame:
        options = dict(options)
        seed = options.pop("seed", None)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, str))):
            raise TabletopError("option 'seed' must be a number or a text")
        try:
            return new_gryb_game(self.name, options, seed=seed)
        except RulesError as exc:
            raise TabletopError(str(exc)) from exc

    def save(self, game: Game[Any], start: str | None, notations: Sequence[str]) -> dict[str, Any]:
        assert isinstance(game, GrybGame)
        return game.to_dict()  # options, seed and every move, rolls included

    def load(self, record: Mapping[str, Any]) -> tuple[GrybGame, list[str]]:
        game = GrybGame.from_dict(record)
        return game, [m.notation() for m in game.move_stack]

    def board(self, game: Game[Any]) -> dict[str, Any]:
        assert isinstance(game, GrybGame)
        state = game.state
        return {
            "game": "gryb",
            "variant": self.name,
            "tokens": {node_name(n): c for n, c in sorted(game.position().items())},
            "markers": {str(p): node_name(n) for p, n in sorted(state.markers.items())},
            "transit": None if state.transit is None else node_name(state.transit),
        }

    def to_move(self, game: Game[Any]) -> int:
        assert isinstance(game, GrybGame)
        return game.to_move

    def parse(self, game: Game[Any], text: str) -> Any:
        assert isinstance(game, GrybGame)
        return GrybMove.from_notation(text, game.to_move)

    def from_to(self, game: Game[Any], origin: Any, target: Any) -> Any:
        assert isinstance(game, GrybGame)
        player = game.to_move
        if origin in (None, "", "hand"):
            return GrybMove.place(player, *_nodes(target))
        sources, targets = _nodes(origin), _nodes(target)
        if len(sources) != len(targets):
            raise TabletopError("a move needs as many destinations as rings moved")
        return GrybMove("move", player, sources, targets)

    def describe(self, game: Game[Any], move: Any) -> dict[str, Any]:
        return {**move.to_dict(), "notation": move.notation()}

    def touches(self, game: Game[Any], move: Any, location: str) -> bool:
        node = parse_node(location)
        if move.kind == "move":
            return node in move.frm
        return move.kind in ("place", "remove") and node in move.to

    def location(self, text: Any) -> str:
        return node_name(parse_node(text))

    def extra(self, game: Game[Any]) -> dict[str, Any]:
        assert isinstance(game, GrybGame)
        status = game.status()
        last_roll = next((m for m in reversed(game.move_stack) if m.kind == "roll"), None)
        return {
            "variant": self.name,
            "die": status["die"],
            "roll": status["roll"],
            "last_roll": None if last_roll is None else last_roll.to_dict(),
            "scores": status["scores"],
            "in_hand": status["in_hand"],
            "piles": status["piles"],
            "grybs": status["grybs"],
            "phase": status["phase"],
            "can_finish": game.can_finish,
        }

    def lines(self, outcome: Outcome) -> list[list[str]]:
        return [[node_name(n) for n in line] for line in outcome.lines]

    def scored(self, game: Game[Any]) -> list[dict[str, Any]]:
        assert isinstance(game, GrybGame)
        return [gryb.to_dict() for gryb in game.state.grybs]


def _nodes(value: Any) -> tuple[str, ...]:
    """One node name or a list of them."""
    if isinstance(value, (list, tuple)) or (isinstance(value, str) and value.strip().startswith("[")):
        return parse_nodes(value)
    return (parse_node(value),)


def rules_for(kind: str) -> Rules:
    """The adapter of a game kind; raises :class:`TabletopError` for an unknown kind."""
    if kind == "tsr4d":
        return Tsr4dRules()
    if kind == "timeline":
        return TimelineRules()
    if isinstance(kind, str) and kind.startswith(GRYB_PREFIX) and kind[len(GRYB_PREFIX):] in GAMES:
        return GrybRules(kind[len(GRYB_PREFIX):])
    raise TabletopError(f"{kind!r} is not a game kind: use one of {', '.join(KINDS)}")


# -- the service -------------------------------------------------------------------------


@dataclass
class Table:
    """One game in play: its engine, the notations of its moves, and when it began."""

    id: str
    rules: Rules
    game: Game[Any]
    notations: list[str]
    created: float
    updated: float
    start: str | None = None
    last_move: dict[str, Any] | None = None
    version: int = 0  # bumped by every saved change; keys the cached state
    shown: tuple[int, dict[str, Any]] | None = None


def _result(game: Game[Any]) -> str:
    outcome = game.outcome()
    if outcome is None:
        return "ongoing"
    return "draw" if outcome.winner is None else "win"


class Tabletop:
    """Every manually played game, kept in ``tabletop_games`` of the SQLite file at ``path``.

    ``path`` is the companion's database file (``Store.path``) or ``":memory:"``;
    ``bus`` gets every event (the push sinks listen there). Safe to use from
    several threads. Raises :class:`TabletopError` when the file cannot be opened.
    """

    def __init__(self, path: str | Path, *, bus: EventBus | None = None) -> None:
        self.path = str(path)
        self.bus = bus
        self._lock = threading.RLock()
        self._tables: dict[str, Table] = {}
        self._subscribers: list[queue.Queue[dict[str, Any] | None]] = []
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.row_factory = sqlite3.Row
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise TabletopError(f"{self.path} is not a usable database: {exc}") from exc

    def close(self) -> None:
        """Close the database and end every live subscription; safe to call twice."""
        with self._lock:
            for client in self._subscribers:
                _offer(client, None)
            self._subscribers.clear()
            try:
                self._db.close()
            except sqlite3.ProgrammingError:
                pass

    # -- games ---------------------------------------------------------------------------
    def new_game(self, kind: str, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Start a game of ``kind`` (see :data:`KINDS`) with its options; returns its state.

        Raises :class:`TabletopError` for an unknown kind or options the game does not take.
        """
        if options is not None and not isinstance(options, Mapping):
            raise TabletopError("options must be a JSON object")
        rules = rules_for(kind)
        game = rules.new(dict(options or {}))
        now = time.time()
        table_id = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now)) + "-" + uuid.uuid4().hex[:6]
        table = Table(table_id, rules, game, [], now, now, rules.start(game))
        with self._lock:
            self._tables[table_id] = table
            self._save(table, insert=True)
            event = Event(GAME_STARTED, {"game": kind, "title": rules.title}, game_id=table_id)
            self._announce(table, [event])
        logger.info("tabletop game %s (%s) started", table_id, kind)
        return self.state(table_id)

    def games(self, kind: str | None = None) -> list[dict[str, Any]]:
        """Every kept game (of ``kind``), newest first: id, kind, title, created, moves, status."""
        sql = "SELECT id, kind, created, updated, status, record FROM tabletop_games"
        params: tuple[Any, ...] = ()
        if kind is not None:
            rules_for(kind)
            sql += " WHERE kind=?"
            params = (kind,)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY created DESC, rowid DESC", params).fetchall()
        return [
            {
                "id": row["id"],
                "kind": row["kind"],
                "title": rules_for(row["kind"]).title,
                "created": row["created"],
                "updated": row["updated"],
                "status": row["status"],
                "moves": len(json.loads(row["record"]).get("moves", [])),
            }
            for row in rows
        ]

    def _table(self, table_id: str) -> Table:
        with self._lock:
            table = self._tables.get(table_id)
            if table is not None:
                return table
            row = self._db.execute(
                "SELECT kind, created, updated, record FROM tabletop_games WHERE id=?", (table_id,)
            ).fetchone()
            if row is None:
                raise UnknownTableError(f"no tabletop game {table_id!r}")
            rules = rules_for(row["kind"])
            try:
                game, notations = rules.load(json.loads(row["record"]))
            except (RulesError, KeyError, TypeError, ValueError) as exc:
                raise TabletopError(f"tabletop game {table_id} cannot be restored: {exc}") from exc
            table = Table(table_id, rules, game, notations, row["created"], row["updated"],
                          json.loads(row["record"]).get("start"))
            self._tables[table_id] = table
            return table

    def _save(self, table: Table, *, insert: bool = False) -> None:
        record = json.dumps(table.rules.save(table.game, table.start, table.notations))
        status = "running" if table.game.outcome() is None else "finished"
        table.updated = time.time()
        table.version += 1
        if insert:
            self._db.execute(
                "INSERT INTO tabletop_games (id, kind, created, updated, status, record) VALUES (?, ?, ?, ?, ?, ?)",
                (table.id, table.rules.kind, table.created, table.updated, status, record),
            )
        else:
            self._db.execute(
                "UPDATE tabletop_games SET updated=?, status=?, record=? WHERE id=?",
                (table.updated, status, record, table.id),
            )

    # -- reading --------------------------------------------------------------------------
    def state(self, table_id: str) -> dict[str, Any]:
        """The game as the dashboard draws it: board, side to move, moves, result, movable pieces.

        Raises :class:`UnknownTableError`.
        """
        with self._lock:
            table = self._table(table_id)
            if table.shown is None or table.shown[0] != table.version:
                table.shown = (table.version, self._describe(table))
            return dict(table.shown[1])

    def _describe(self, table: Table) -> dict[str, Any]:
        """The state of :meth:`state`; listing every legal move is the costly part, so it is cached."""
        rules, game = table.rules, table.game
        outcome = game.outcome()
        legal = [] if outcome is not None else game.legal_moves()
        described = [rules.describe(game, move) for move in legal]
        located = sorted({loc for d in described for loc in _locations(d)})
        others = [d for d in described if not _locations(d) and d.get("kind") != "roll"]
        to_move = rules.to_move(game)
        return {
            "id": table.id,
            "kind": rules.kind,
            "game": rules.kind.split(":")[0],
            "title": rules.title,
            "created": table.created,
            "updated": table.updated,
            "board": rules.board(game),
            "sides": list(rules.side_names),
            "to_move": to_move,
            "to_move_name": rules.side_names[to_move],
            "moves": list(table.notations),
            "last_move": table.last_move,
            "result": _result(game),
            "winner": None if outcome is None or outcome.winner is None else {
                "side": outcome.winner, "name": rules.winner_name(outcome), "lines": rules.lines(outcome),
            },
            "reason": None if outcome is None else outcome.reason,
            "movable": located,
            "actions": others,
            "can_undo": bool(game.move_stack),
            **rules.extra(game),
        }

    def legal_from(self, table_id: str, location: Any) -> list[dict[str, Any]]:
        """The legal moves that tapping ``location`` offers (a piece's moves, a node to place on).

        Raises :class:`UnknownTableError`, or :class:`TabletopError` for a location
        that is not on the game's board.
        """
        with self._lock:
            table = self._table(table_id)
            try:
                where = table.rules.location(location)
            except (NotationError, ValueError) as exc:
                raise TabletopError(str(exc)) from exc
            game = table.game
            if game.outcome() is not None:
                return []
            return [
                table.rules.describe(game, move)
                for move in game.legal_moves()
                if table.rules.touches(game, move, where)
            ]

    # -- playing --------------------------------------------------------------------------
    def play(
        self,
        table_id: str,
        *,
        notation: str | None = None,
        origin: Any = None,
        target: Any = None,
    ) -> dict[str, Any]:
        """Play one move, written in the game's notation or as ``origin``/``target``; returns the state.

        An illegal move fires an ``illegal`` event and raises
        :class:`TabletopMoveError` with the rule broken; unreadable input raises
        :class:`TabletopError`; nothing changes in either case.
        """
        with self._lock:
            table = self._table(table_id)
            rules, game = table.rules, table.game
            written = notation if notation is not None else f"{origin}-{target}"
            try:
                if notation is not None:
                    move = rules.parse(game, notation)
                elif target is not None:
                    move = rules.from_to(game, origin, target)
                else:
                    raise TabletopError("send 'notation', or 'from' and 'to'")
            except NotationError as exc:
                raise TabletopError(str(exc)) from exc
            self._push(table, move, written)
        return self.state(table_id)

    def roll(self, table_id: str, value: str | None = None) -> dict[str, Any]:
        """Roll the due die of a GRYB game; returns the state.

        Without ``value`` the game's own seeded dice roll (reproducible); with
        it, ``value`` is the face a physical die showed. Raises
        :class:`TabletopError` for a game without dice, or
        :class:`TabletopMoveError` when no roll is due.
        """
        with self._lock:
            table = self._table(table_id)
            game = table.game
            if not isinstance(game, GrybGame):
                raise TabletopError(f"{table.rules.title} has no dice")
            if value is not None:
                try:
                    move = GrybMove.roll(game.to_move, parse_node(value))
                except NotationError as exc:
                    raise TabletopError(str(exc)) from exc
                self._push(table, move, f"roll {value}")
            else:
                player = game.to_move
                try:
                    move = game.roll()
                except IllegalMoveError as exc:
                    self._refuse(table, "roll", [str(exc)])
                self._record(table, table.rules.describe(game, move), player, len(table.rules.scored(game)))
        return self.state(table_id)

    def undo(self, table_id: str) -> dict[str, Any]:
        """Take back the last move (a GRYB roll counts as one); returns the state.

        Raises :class:`NothingToUndoError` when the game has no move.
        """
        with self._lock:
            table = self._table(table_id)
            try:
                move = table.game.pop()
            except IndexError as exc:
                raise NothingToUndoError("no move to take back") from exc
            notation = table.notations.pop() if table.notations else str(move)
            table.last_move = None
            self._save(table)
            self._announce(table, [Event(UNDO, {"game": table.rules.kind, "notation": notation},
                                         game_id=table.id)])
        return self.state(table_id)

    def outcome(self, table_id: str) -> Outcome | None:
        """The engine's result, ``None`` while the game goes on; raises :class:`UnknownTableError`."""
        with self._lock:
            return self._table(table_id).game.outcome()

    def _push(self, table: Table, move: Any, written: str) -> None:
        """Play ``move`` or refuse it with the engine's reason (the engine's push changes nothing then)."""
        rules, game = table.rules, table.game
        player = rules.to_move(game)
        scored_before = len(rules.scored(game))
        try:
            prepared = rules.prepare(game, move)
            facts = rules.describe(game, prepared)
            game.push(prepared)
        except IllegalMoveError as exc:
            self._refuse(table, written, [str(exc)])
        self._record(table, facts, player, scored_before)

    def _record(self, table: Table, facts: dict[str, Any], player: int, scored_before: int) -> None:
        """Keep a move just pushed, save the game, then announce the move and any result.

        What the move scored (a GRYB in a game that goes on) rides on the move record as ``scored``.
        """
        rules, game = table.rules, table.game
        table.notations.append(facts["notation"])
        table.last_move = {**facts, "player": player, "player_name": rules.side_names[player]}
        self._save(table)
        data = {"game": rules.kind, **_move_data(facts), "color": player, "player": rules.side_names[player]}
        scored = rules.scored(game)[scored_before:]
        if scored:
            data["scored"] = scored
        events = [Event(MOVE, data, game_id=table.id)]
        outcome = game.outcome()
        if outcome is not None:
            data = {"game": rules.kind, "reason": outcome.reason}
            if outcome.winner is None:
                events.append(Event(DRAW, data, game_id=table.id))
            else:
                events.append(Event(WIN, {**data, "color": outcome.winner, "winner": rules.winner_name(outcome),
                                          "vectors": rules.lines(outcome)}, game_id=table.id))
        self._announce(table, events)

    def _refuse(self, table: Table, written: str, reasons: list[str]) -> NoReturn:
        """Announce an illegal attempt and raise :class:`TabletopMoveError`."""
        player = table.rules.to_move(table.game)
        event = Event(ILLEGAL, {"game": table.rules.kind, "move": written, "reasons": reasons,
                                "color": player, "player": table.rules.side_names[player]}, game_id=table.id)
        self._announce(table, [event])
        raise TabletopMoveError(reasons)

    # -- events ----------------------------------------------------------------------------
    def subscribe(self) -> tuple[queue.Queue[dict[str, Any] | None], Callable[[], None]]:
        """A queue of records for one live client and the function that unsubscribes it.

        Each batch of event records (each with its ``game_id``) is followed by
        ``{"type": "state", "state": ...}`` of that game; ``None`` ends the stream.
        A client that falls behind loses its backlog.
        """
        client: queue.Queue[dict[str, Any] | None] = queue.Queue(SUBSCRIBER_QUEUE)
        with self._lock:
            self._subscribers.append(client)

        def unsubscribe() -> None:
            with self._lock:
                if client in self._subscribers:
                    self._subscribers.remove(client)

        return client, unsubscribe

    def _announce(self, table: Table, events: list[Event]) -> None:
        """Called with the lock held, after the change was committed."""
        records: list[dict[str, Any]] = [event.to_record() for event in events]
        records.append({"type": "state", "state": self.state(table.id)})
        for client in list(self._subscribers):
            for record in records:
                if not _offer(client, record):
                    break
        if self.bus is not None:
            for event in events:
                self.bus.fire(event)


def _locations(described: Mapping[str, Any]) -> list[str]:
    """Where a move starts, for the list of pieces that can move (GRYB places: where they land)."""
    kind = described.get("kind")
    origin = described.get("from")
    if isinstance(origin, list):
        return list(origin)
    if kind in ("place", "remove"):
        return list(described.get("to") or [])
    if described.get("type") == "suicide-capture":
        return [described["capture"]["space"]]
    return [origin] if isinstance(origin, str) else []


def _move_data(facts: Mapping[str, Any]) -> dict[str, Any]:
    """The move's fields for its event record (``point`` is where it went, as the camera's moves)."""
    target = facts.get("to")
    point = target[-1] if isinstance(target, list) and target else target
    return {"notation": facts["notation"], "from": facts.get("from"), "to": target, "point": point}


def _offer(client: queue.Queue[Any], record: Any) -> bool:
    """Queue ``record``; a full queue is emptied (the client resyncs from the next state)."""
    try:
        client.put_nowait(record)
        return True
    except queue.Full:
        while True:
            try:
                client.get_nowait()
            except queue.Empty:
                break
        client.put_nowait(record)
        return False


__all__ = [
    "KINDS",
    "NothingToUndoError",
    "Rules",
    "Table",
    "Tabletop",
    "TabletopError",
    "TabletopMoveError",
    "UnknownTableError",
    "rules_for",
]
