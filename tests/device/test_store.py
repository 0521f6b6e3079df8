"""The SQLite store: real database files, WAL, move sync, resume data, bad files."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from device.store import SCHEMA_VERSION, Store, StoredMove, StoreError, UnknownGameError, iso_time


def move(ply: int, notation: str, snapshot: bytes | None = None) -> StoredMove:
    return StoredMove(ply=ply, notation=notation, point=ply, color=ply % 2, time=1000.0 + ply, snapshot=snapshot)


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "data")
    yield s
    s.close()


def test_database_is_wal_and_versioned(store):
    assert store.journal_mode() == "wal"
    assert store.check() == "ok"
    with sqlite3.connect(store.path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_new_game_is_running_and_abandons_the_previous(store):
    first = store.create_game({"moves": []}, players=2, opening="none", names=["Ann", "Bob"])
    second = store.create_game({"moves": []}, players=3, opening="swap")
    assert store.running_game().id == second
    assert store.get_game(first).status == "abandoned"
    assert store.get_game(first).names == ("Ann", "Bob")
    listed = store.list_games()
    assert [g["id"] for g in listed] == [second, first]
    assert listed[0]["moves"] == 0 and listed[0]["winner"] is None
    assert listed[0]["started"].endswith("Z")


def test_sync_moves_appends_keeps_and_truncates(store):
    game = store.create_game({"moves": []})
    assert store.sync_moves(game, [move(0, "A1P:0", b"jpeg0")], {"moves": ["A1P:0"]}) == 1
    # the first move is kept as stored (snapshot and time), the second is new
    later = StoredMove(0, "A1P:0", 0, 0, 9999.0, snapshot=b"other")
    assert store.sync_moves(game, [later, move(1, "B1P:1")], {"moves": ["A1P:0", "B1P:1"]}) == 1
    stored = store.moves(game, with_snapshots=True)
    assert [m.notation for m in stored] == ["A1P:0", "B1P:1"]
    assert stored[0].snapshot == b"jpeg0" and stored[0].time == 1000.0
    # a take-back removes the last move; a correction replaces a differing move
    store.sync_moves(game, [move(0, "A1P:0")], {"moves": ["A1P:0"]})
    assert [m.notation for m in store.moves(game)] == ["A1P:0"]
    store.sync_moves(game, [move(0, "C1P:0")], {"moves": ["C1P:0"]})
    assert [m.notation for m in store.moves(game)] == ["C1P:0"]
    assert store.get_game(game).state == {"moves": ["C1P:0"]}


def test_finishing_a_game_records_the_winner(store):
    game = store.create_game({})
    store.sync_moves(game, [move(0, "A1P:0")], {"x": 1}, winner=0, finished=True)
    stored = store.get_game(game)
    assert (stored.status, stored.winner) == ("finished", 0)
    assert stored.ended is not None
    assert store.running_game() is None


def test_unknown_game_raises(store):
    with pytest.raises(UnknownGameError):
        store.get_game("nope")
    with pytest.raises(UnknownGameError):
        store.sync_moves("nope", [], {})


def test_alerts_and_calibrations(store):
    game = store.create_game({})
    for i in range(5):
        store.add_alert({"type": "illegal", "time": 10.0 + i, "reasons": [str(i)]}, game)
    store.add_alert({"type": "camera_status", "time": 1.0}, None)
    alerts = store.alerts(game, limit=3)
    assert [a["reasons"] for a in alerts] == [["2"], ["3"], ["4"]]
    assert store.alerts(None) == [{"type": "camera_status", "time": 1.0}]
    assert store.latest_calibration() is None
    store.add_calibration({"version": 1, "a": 1})
    store.add_calibration({"version": 1, "a": 2})
    assert store.latest_calibration() == {"version": 1, "a": 2}


def test_data_survives_reopening(tmp_path):
    first = Store(tmp_path)
    game = first.create_game({"moves": ["A1P:0"]})
    first.sync_moves(game, [move(0, "A1P:0", b"x")], {"moves": ["A1P:0"]})
    first.close()
    first.close()  # twice is fine
    again = Store(tmp_path)
    assert again.running_game().id == game
    assert again.snapshot(game, 0) == b"x"
    assert again.snapshot(game, 5) is None
    again.close()


def test_overrides_are_kept_per_game_and_replaced_whole(tmp_path):
    first = Store(tmp_path)
    game = first.create_game({})
    other = first.create_game({})
    first.set_overrides(game, {7: (1, None), 3: (None, 2)})
    first.set_overrides(other, {5: (0, 1)})
    first.close()
    again = Store(tmp_path)
    assert again.overrides(game) == {3: (None, 2), 7: (1, None)}
    again.set_overrides(game, {3: (None, 2)})
    assert again.overrides(game) == {3: (None, 2)}
    assert again.overrides(other) == {5: (0, 1)}
    with pytest.raises(UnknownGameError):
        again.set_overrides("nope", {})
    again.close()


def test_overrides_are_written_with_the_moves_or_not_at_all(store):
    game = store.create_game({})
    store.sync_moves(game, [move(0, "A1P:0")], {}, overrides={9: (2, None)})
    assert store.overrides(game) == {9: (2, None)}
    store.sync_moves(game, [move(0, "A1P:0"), move(1, "B1P:1")], {})
    assert store.overrides(game) == {9: (2, None)}, "no overrides given: the stored ones stay"
    with pytest.raises(sqlite3.IntegrityError):  # a location given twice fails the whole commit
        store.sync_moves(game, [move(0, "A1P:0")], {}, overrides=_TwiceNine())
    assert [m.notation for m in store.moves(game)] == ["A1P:0", "B1P:1"]
    assert store.overrides(game) == {9: (2, None)}


class _TwiceNine(dict):
    """Overrides whose items repeat a location, as no dict can: a write that must fail."""

    def items(self):
        return [(9, (1, None)), (9, (2, None))]


def test_a_database_from_before_overrides_gains_them(tmp_path):
    with sqlite3.connect(tmp_path / "boardcam.sqlite3") as raw:
        raw.execute(
            "CREATE TABLE games (id TEXT PRIMARY KEY, board TEXT NOT NULL, started REAL NOT NULL,"
            " ended REAL, status TEXT NOT NULL, players INTEGER NOT NULL, opening TEXT NOT NULL,"
            " winner INTEGER, state TEXT NOT NULL)"
        )
        raw.execute(
            "INSERT INTO games VALUES ('g1', 'timevectors', 1.0, NULL, 'running', 2, 'none', NULL, '{}')"
        )
        raw.execute("PRAGMA user_version=1")
    store = Store(tmp_path)
    assert store.running_game().id == "g1" and store.overrides("g1") == {}
    store.set_overrides("g1", {4: (0, None)})
    assert store.overrides("g1") == {4: (0, None)}
    store.close()


def test_not_a_database_is_a_clear_error(tmp_path):
    (tmp_path / "boardcam.sqlite3").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable database"):
        Store(tmp_path)


def test_newer_schema_is_refused(tmp_path):
    with sqlite3.connect(tmp_path / "boardcam.sqlite3") as raw:
        raw.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer boardcam"):
        Store(tmp_path)


def test_data_dir_that_cannot_be_created(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot create data directory"):
        Store(blocker / "data")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["A1P:0", "B1P:1", "C1P:0", "D1P:1"]), max_size=6), min_size=1, max_size=5))
def test_sync_always_leaves_exactly_the_given_moves(tmp_path_factory, histories):
    store = Store(tmp_path_factory.mktemp("sync"))
    game = store.create_game({})
    for history in histories:
        store.sync_moves(game, [move(i, n) for i, n in enumerate(history)], {"n": len(history)})
        assert [m.notation for m in store.moves(game)] == history
        assert [m.ply for m in store.moves(game)] == list(range(len(history)))
    store.close()


def test_iso_time():
    assert iso_time(None) is None
    assert iso_time(0.25) == "1970-01-01T00:00:00.250Z"


def test_latest_game_whatever_its_status(store):
    assert store.latest_game() is None
    first = store.create_game({})
    store.sync_moves(first, [], {}, winner=1, finished=True)
    assert store.latest_game().id == first and store.latest_game().status == "finished"
    second = store.create_game({})
    assert store.latest_game().id == second
    assert store.get_game(first).status == "finished"
