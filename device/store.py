"""Persistence of games, moves, operator overrides, alerts and calibrations in SQLite (WAL).

Why SQLite: one file in the data directory, transactions that survive a
``kill -9`` (and, with ``synchronous=FULL``, a Pi being unplugged), readable by
any tool. Every accepted move is written with the game's full state in one
transaction, so a restart resumes exactly where the last committed move left it.

The store is shared by the runtime's processing thread and the web request
threads: one connection guarded by a lock keeps it simple and correct.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

DB_NAME = "boardcam.sqlite3"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    board TEXT NOT NULL,
    started REAL NOT NULL,
    ended REAL,
    status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'abandoned')),
    players INTEGER NOT NULL,
    opening TEXT NOT NULL,
    winner INTEGER,
    state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS players (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    notation TEXT NOT NULL,
    point INTEGER,
    color INTEGER,
    time REAL NOT NULL,
    frame INTEGER,
    snapshot BLOB,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS alerts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id TEXT,
    time REAL NOT NULL,
    type TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS alerts_by_game ON alerts (game_id, id);
CREATE TABLE IF NOT EXISTS overrides (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    location INTEGER NOT NULL,
    reading INTEGER,
    value INTEGER,
    PRIMARY KEY (game_id, location)
);
CREATE TABLE IF NOT EXISTS calibrations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time REAL NOT NULL,
    data TEXT NOT NULL
);
"""


class StoreError(ValueError):
    """The database cannot be opened or is not a boardcam database of a known version."""


class UnknownGameError(StoreError):
    """No game with the requested id."""


@dataclass(frozen=True)
class StoredMove:
    """One accepted move as stored: ``ply`` counts from 0 in play order."""

    ply: int
    notation: str
    point: int | None
    color: int | None
    time: float
    frame: int | None = None
    snapshot: bytes | None = None


@dataclass(frozen=True)
class StoredGame:
    """A game's row plus what is needed to rebuild it (``state`` is the engine's ``to_dict``)."""

    id: str
    board: str
    started: float
    ended: float | None
    status: str
    players: int
    opening: str
    winner: int | None
    state: dict[str, Any]
    names: tuple[str, ...]


#: An operator override: (what the camera reads at a location, the value used instead).
Override = tuple[int | None, int | None]


def _require_game(db: sqlite3.Connection, game_id: str) -> None:
    """Raise :class:`UnknownGameError` inside a transaction when the game is not stored."""
    if db.execute("SELECT 1 FROM games WHERE id=?", (game_id,)).fetchone() is None:
        raise UnknownGameError(f"no game with id {game_id!r}")


def _write_overrides(
    db: sqlite3.Connection, game_id: str, overrides: Mapping[int, Override]
) -> None:
    db.execute("DELETE FROM overrides WHERE game_id=?", (game_id,))
    db.executemany(
        "INSERT INTO overrides (game_id, location, reading, value) VALUES (?, ?, ?, ?)",
        [(game_id, int(loc), reading, value) for loc, (reading, value) in overrides.items()],
    )


def iso_time(seconds: float | None) -> str | None:
    """UTC ISO 8601 text of a wall-clock time (``None`` stays ``None``)."""
    if seconds is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{int(seconds % 1 * 1000):03d}Z"


class Store:
    """Games, moves, alerts and calibrations in ``DATA_DIR/boardcam.sqlite3``.

    Raises :class:`StoreError` when the directory cannot be created or the file
    is not a usable database. Safe to use from several threads.
    """

    def __init__(self, data_dir: str | Path) -> None:
        self.data_dir = Path(data_dir)
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create data directory {self.data_dir}: {exc.strerror}") from exc
        self.path = self.data_dir / DB_NAME
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: a committed move survives a power cut, not only a killed process.
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=5000")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} was written by a newer boardcam (schema {version}, "
                    f"this one knows {SCHEMA_VERSION}); upgrade boardcam or use another --data-dir"
                )
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a usable database: {exc}") from exc

    def close(self) -> None:
        """Close the connection (checkpointing the WAL); safe to call twice."""
        with self._lock:
            try:
                self._db.close()
            except sqlite3.ProgrammingError:
                pass

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    # -- games -----------------------------------------------------------
    def create_game(
        self,
        state: Mapping[str, Any],
        *,
        board: str = "timevectors",
        players: int = 2,
        opening: str = "none",
        names: Sequence[str] = (),
        started: float | None = None,
        game_id: str | None = None,
    ) -> str:
        """Start a new running game; any other running game becomes ``abandoned``. Returns its id
        (``game_id`` when given, else a new one: start time plus a random suffix)."""
        if game_id is None:
            game_id = time.strftime("%Y%m%d-%H%M%S", time.gmtime(started)) + "-" + uuid.uuid4().hex[:6]
        now = time.time() if started is None else started
        with self._transaction() as db:
            db.execute(
                "UPDATE games SET status='abandoned', ended=? WHERE status='running'", (now,)
            )
            db.execute(
                "INSERT INTO games (id, board, started, status, players, opening, state)"
                " VALUES (?, ?, ?, 'running', ?, ?, ?)",
                (game_id, board, now, players, opening, json.dumps(dict(state))),
            )
            db.executemany(
                "INSERT INTO players (game_id, seat, name) VALUES (?, ?, ?)",
                [(game_id, seat, name) for seat, name in enumerate(names)],
            )
        logger.info("started game %s", game_id)
        return game_id

    def running_game(self) -> StoredGame | None:
        """The game to resume after a restart, if one was running."""
        rows = self._query("SELECT id FROM games WHERE status='running' ORDER BY started DESC LIMIT 1")
        return self.get_game(rows[0]["id"]) if rows else None

    def latest_game(self) -> StoredGame | None:
        """The most recently started game, whatever its status."""
        rows = self._query("SELECT id FROM games ORDER BY started DESC, rowid DESC LIMIT 1")
        return self.get_game(rows[0]["id"]) if rows else None

    def get_game(self, game_id: str) -> StoredGame:
        """One game; raises :class:`UnknownGameError`."""
        rows = self._query("SELECT * FROM games WHERE id=?", (game_id,))
        if not rows:
            raise UnknownGameError(f"no game with id {game_id!r}")
        row = rows[0]
        names = tuple(
            r["name"]
            for r in self._query("SELECT name FROM players WHERE game_id=? ORDER BY seat", (game_id,))
        )
        return StoredGame(
            id=row["id"],
            board=row["board"],
            started=row["started"],
            ended=row["ended"],
            status=row["status"],
            players=row["players"],
            opening=row["opening"],
            winner=row["winner"],
            state=json.loads(row["state"]),
            names=names,
        )

    def list_games(self) -> list[dict[str, Any]]:
        """Every game, newest first: ``{"id", "started" (ISO), "moves", "winner", "status"}``."""
        rows = self._query(
            "SELECT g.id, g.started, g.winner, g.status, COUNT(m.ply) AS moves"
            " FROM games g LEFT JOIN moves m ON m.game_id = g.id"
            " GROUP BY g.id ORDER BY g.started DESC, g.rowid DESC"
        )
        return [
            {
                "id": r["id"],
                "started": iso_time(r["started"]),
                "moves": r["moves"],
                "winner": r["winner"],
                "status": r["status"],
            }
            for r in rows
        ]

    def moves(self, game_id: str, *, with_snapshots: bool = False) -> list[StoredMove]:
        """Moves of a game in play order (snapshots only when asked: they are large)."""
        columns = "ply, notation, point, color, time, frame" + (", snapshot" if with_snapshots else "")
        rows = self._query(f"SELECT {columns} FROM moves WHERE game_id=? ORDER BY ply", (game_id,))
        return [
            StoredMove(
                ply=r["ply"],
                notation=r["notation"],
                point=r["point"],
                color=r["color"],
                time=r["time"],
                frame=r["frame"],
                snapshot=r["snapshot"] if with_snapshots else None,
            )
            for r in rows
        ]

    def snapshot(self, game_id: str, ply: int) -> bytes | None:
        """The JPEG stored with one move, if any."""
        rows = self._query("SELECT snapshot FROM moves WHERE game_id=? AND ply=?", (game_id, ply))
        return rows[0]["snapshot"] if rows else None

    def sync_moves(
        self,
        game_id: str,
        moves: Sequence[StoredMove],
        state: Mapping[str, Any],
        *,
        winner: int | None = None,
        finished: bool = False,
        overrides: Mapping[int, Override] | None = None,
    ) -> int:
        """Make the stored move list equal ``moves`` and save ``state``, in one transaction.

        Stored moves that agree with ``moves`` (same ply and notation) are kept
        with their times and snapshots; the rest are replaced. This one call
        covers a new move, a take-back, an undo and a correction. ``overrides``, when
        given, replace the game's stored ones in the same transaction (see
        :meth:`set_overrides`). Returns how many moves were written. Raises
        :class:`UnknownGameError`.
        """
        with self._transaction() as db:
            _require_game(db, game_id)
            stored = db.execute(
                "SELECT ply, notation FROM moves WHERE game_id=? ORDER BY ply", (game_id,)
            ).fetchall()
            keep = 0
            for row, move in zip(stored, moves):
                if row["ply"] != move.ply or row["notation"] != move.notation:
                    break
                keep += 1
            db.execute("DELETE FROM moves WHERE game_id=? AND ply>=?", (game_id, keep))
            new = moves[keep:]
            db.executemany(
                "INSERT INTO moves (game_id, ply, notation, point, color, time, frame, snapshot)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (game_id, m.ply, m.notation, m.point, m.color, m.time, m.frame, m.snapshot)
                    for m in new
                ],
            )
            db.execute(
                "UPDATE games SET state=?, winner=?, status=?, ended=? WHERE id=?",
                (
                    json.dumps(dict(state)),
                    winner,
                    "finished" if finished else "running",
                    time.time() if finished else None,
                    game_id,
                ),
            )
            if overrides is not None:
                _write_overrides(db, game_id, overrides)
        return len(new)

    # -- operator overrides -------------------------------------------------
    def set_overrides(self, game_id: str, overrides: Mapping[int, Override]) -> None:
        """Replace a game's operator overrides: location -> (camera reading, value used
        instead), ``None`` for empty. They are what makes a corrected misreading stay
        corrected after a restart. Raises :class:`UnknownGameError`."""
        with self._transaction() as db:
            _require_game(db, game_id)
            _write_overrides(db, game_id, overrides)

    def overrides(self, game_id: str) -> dict[int, Override]:
        """A game's operator overrides as :meth:`set_overrides` stored them."""
        rows = self._query(
            "SELECT location, reading, value FROM overrides WHERE game_id=? ORDER BY location",
            (game_id,),
        )
        return {r["location"]: (r["reading"], r["value"]) for r in rows}

    # -- alerts ----------------------------------------------------------
    def add_alert(self, record: Mapping[str, Any], game_id: str | None = None) -> None:
        """Record an alert (an event record: ``type`` and ``time`` keys are used as columns)."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO alerts (game_id, time, type, record) VALUES (?, ?, ?, ?)",
                (game_id, float(record.get("time", time.time())), str(record.get("type", "")),
                 json.dumps(dict(record))),
            )

    def alerts(self, game_id: str | None, limit: int = 50) -> list[dict[str, Any]]:
        """The newest ``limit`` alerts of a game, oldest first."""
        rows = self._query(
            "SELECT record FROM alerts WHERE game_id IS ? ORDER BY id DESC LIMIT ?", (game_id, limit)
        )
        return [json.loads(r["record"]) for r in reversed(rows)]

    # -- calibrations ------------------------------------------------------
    def add_calibration(self, data: Mapping[str, Any]) -> int:
        """Keep a calibration (its JSON form); returns its id."""
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO calibrations (time, data) VALUES (?, ?)", (time.time(), json.dumps(dict(data)))
            )
            return int(cursor.lastrowid)

    def latest_calibration(self) -> dict[str, Any] | None:
        """The most recently saved calibration, if any."""
        rows = self._query("SELECT data FROM calibrations ORDER BY id DESC LIMIT 1")
        return json.loads(rows[0]["data"]) if rows else None

    # -- health ------------------------------------------------------------
    def check(self) -> str:
        """SQLite's own quick integrity check: ``"ok"`` or the first problem found."""
        return str(self._query("PRAGMA quick_check")[0][0])

    def journal_mode(self) -> str:
        return str(self._query("PRAGMA journal_mode")[0][0])
