"""Ordinary SQL cannot get around append-only (issue 9): every statement that would change or remove a stored
fact is refused by the file itself, whoever runs it (a plain sqlite3 connection here: recursive triggers and
foreign keys off, as in the sqlite3 shell). One test per statement."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from heatlog.store import EventStore

REFUSED = [
    # events: replace, upsert, explicit rowid of another row, update of any column or the rowid, delete
    # ({hashes}: the hash columns of the file's format: prev_hash, hash in format 1, hash alone in format 2)
    "REPLACE INTO events (race, seq, type, v, payload, recorded, {hashes}) "
    'SELECT race, seq, type, v, \'{{"type":"note"}}\', recorded, {hashes} FROM events WHERE seq = 1',
    "INSERT OR REPLACE INTO events (race, seq, type, v, payload, recorded, {hashes}) "
    "SELECT race, seq, type, v, payload || ' ', recorded, {hashes} FROM events WHERE seq = 2",
    "INSERT INTO events (race, seq, type, v, payload, recorded, {hashes}) "
    "SELECT race, seq, type, v, payload, recorded, {hashes} FROM events WHERE seq = 1 "
    "ON CONFLICT (race, seq) DO UPDATE SET payload = 'x'",
    "REPLACE INTO events (rowid, race, seq, type, v, payload, recorded, {hashes}) "
    "VALUES (1, 1, 99, 'note', 1, '{{}}', 'now', {zeros})",
    "UPDATE events SET payload = '{}' WHERE seq = 1",
    "UPDATE events SET seq = seq + 100",
    "UPDATE events SET rowid = rowid + 100",
    "UPDATE events SET race = 2",
    "DELETE FROM events WHERE seq = 3",
    "DELETE FROM events",
    # races: renumber, replace, upsert, move in the tree, delete with events
    "UPDATE races SET id = 99",
    "REPLACE INTO races (id, name, created, parent, fork_seq, meta) VALUES (1, 'x', 'now', NULL, NULL, '{}')",
    "INSERT OR REPLACE INTO races (id, name, created, parent, fork_seq, meta) VALUES (1, 'x', 'now', NULL, NULL, '{}')",
    "INSERT INTO races (id, name, created, meta) VALUES (1, 'x', 'now', '{}') ON CONFLICT (id) DO UPDATE SET id = 7",
    "UPDATE races SET parent = 1 WHERE id = 2",
    "UPDATE races SET fork_seq = 1 WHERE id = 2",
    "UPDATE races SET created = 'yesterday'",
    "DELETE FROM races WHERE id = 1",
    # the file's identity
    "UPDATE meta SET value = '99' WHERE key = 'format_version'",
    "DELETE FROM meta WHERE key = 'application'",
    "REPLACE INTO meta (key, value) VALUES ('application', 'other')",
]


def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [line for line in conn.iterdump() if "snapshots" not in line]
    finally:
        conn.close()


def for_format(sql: str, version: int) -> str:
    """A statement of REFUSED written for a file of format ``version`` (heatlog.store.eventrows)."""
    if "{hashes}" not in sql:
        return sql
    hashes, zeros = ("prev_hash, hash", "'0', '0'") if version == 1 else ("hash", "'0'")
    return sql.format(hashes=hashes, zeros=zeros)


@pytest.fixture(scope="module", params=[1, 2], ids=["format-1", "format-2"])
def db(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    path = tmp_path_factory.mktemp("sql") / "h.db"
    with EventStore(path, new_format=request.param) as store:
        race = store.create_race("one", {}, [{"type": "race_started", "v": 1}, {"type": "note", "v": 1, "text": "a"}])
        store.append(race, {"type": "note", "v": 1, "text": "b"})
        store.create_branch(race, 2, "two")
    return path


@pytest.mark.parametrize("sql", REFUSED, ids=[s.split(" WHERE")[0][:60] for s in REFUSED])
def test_statement_is_refused_and_nothing_changes(db: Path, sql: str) -> None:
    before = dump(db)
    with EventStore(db) as store:
        sql = for_format(sql, store.format_version)
    conn = sqlite3.connect(db)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="append-only|constraint|UNIQUE"):
            conn.execute(sql)
        conn.commit()
    finally:
        conn.close()
    assert dump(db) == before
    with EventStore(db) as store:
        assert store.verify(1) == [] and store.verify(2) == []


def test_an_older_file_gets_the_guards_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with EventStore(path) as store:
        store.create_race("one", {}, [{"type": "race_started", "v": 1}])
    conn = sqlite3.connect(path)
    for name in ("events_no_replace", "races_no_renumber"):
        conn.execute(f"DROP TRIGGER {name}")
    conn.commit()
    conn.close()
    EventStore(path).close()
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE races SET id = 99")
    conn.close()


def test_ordinary_appends_and_the_snapshot_cache_still_work(db: Path) -> None:
    with EventStore(db) as store:
        store.append(1, {"type": "note", "v": 1, "text": "c"})
        store.put_snapshot(1, 1, "r", 1, {"x": 1})
        store.put_snapshot(1, 1, "r", 1, {"x": 2})  # a cache entry may be replaced
        assert store.clear_snapshots(1) == 1


def _big_race(n: int) -> list[dict[str, object]]:
    return [{"type": "race_started", "v": 1}] + [{"type": "note", "v": 1, "text": f"n{i}"} for i in range(n - 1)]


def test_a_big_batch_puts_the_replace_guard_back(tmp_path: Path) -> None:
    """An import's batch (from store.rows.LIFT_AT events) lifts the replace guard inside its own transaction and puts
    it back, the same text, before the commit: afterwards the file refuses a REPLACE as before."""
    from heatlog.store import rows as store_rows

    path = tmp_path / "big.db"
    with EventStore(path) as store:
        race = store.create_race("big", {}, _big_race(store_rows.LIFT_AT + 5))
        assert store.missing_guards() == [] and store.verify(race) == []
    conn = sqlite3.connect(path)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute(for_format(REFUSED[0], 2))
    finally:
        conn.close()


class _FailsAfterBatch:
    """A connection whose executemany writes, then fails (as a full disk would, after the drop of the guard)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def executemany(self, sql: str, rows: object) -> None:
        self._conn.executemany(sql, rows)  # type: ignore[arg-type]
        raise sqlite3.OperationalError("disk I/O error")

    def __getattr__(self, name: str) -> object:
        return getattr(self._conn, name)


def test_a_failed_big_batch_leaves_the_file_as_it_was_guard_included(tmp_path: Path) -> None:
    from heatlog.store import rows as store_rows

    path = tmp_path / "big.db"
    with EventStore(path) as store:
        store.create_race("one", {}, _big_race(3))
    before = dump(path)
    with EventStore(path) as store:
        real = store.conn
        store._conn = _FailsAfterBatch(real)  # type: ignore[assignment]
        with pytest.raises(Exception, match="disk I/O"):
            store.create_race("big", {}, _big_race(store_rows.LIFT_AT + 5))
        store._conn = real
        assert store.missing_guards() == [] and len(store.races()) == 1
    assert dump(path) == before
