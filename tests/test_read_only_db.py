"""A database that cannot be written where it lies: a file in a read-only folder or medium (an archive, a copy
handed over, a read-only mount). Every read works as on the writable file; every write is refused as read-only,
and the file is left as it was.

Made unwritable with ``chattr +i`` (the immutable attribute, which binds root too: the suite runs as root in CI,
where ``chmod`` binds nobody), or by ``chmod`` without root; skipped where neither binds.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_cli import run

from heatlog.store import EventStore, StoreError

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@contextlib.contextmanager
def unwritable(folder: Path, *files: Path) -> Iterator[None]:
    """``folder`` and ``files`` cannot be written, created in or removed while inside (not even by root)."""
    paths = [*files, folder]
    done = subprocess.run(["chattr", "+i", *map(str, paths)], capture_output=True).returncode == 0
    if not done:
        if ROOT:
            pytest.skip("chattr +i is not supported here, and root ignores file permissions")
        for p in paths:
            p.chmod(0o555 if p.is_dir() else 0o444)
    try:
        probe = folder / "probe"
        with contextlib.suppress(OSError):
            probe.write_text("x")
            probe.unlink()
            pytest.skip("the folder stays writable here")
        yield
    finally:
        if done:
            subprocess.run(["chattr", "-i", *map(str, paths)], check=True)
        else:
            for p in paths:
                p.chmod(0o755 if p.is_dir() else 0o644)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with two simulated races, closed (no write-ahead log left beside it)."""
    db = tmp_path_factory.mktemp("sample") / "h.db"
    r = run("simulate", "--races", "2", "--workers", "1", "--seed", "5", db=db)
    assert r.returncode == 0, r.stderr
    assert not Path(str(db) + "-wal").exists()
    return db


@pytest.fixture()
def db(sample: Path, tmp_path: Path) -> Path:
    """A copy of the sample in a folder of its own (to be made unwritable)."""
    (tmp_path / "archive").mkdir()
    copy = tmp_path / "archive" / "h.db"
    copy.write_bytes(sample.read_bytes())
    return copy


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


READS = (
    ("races", "--all"),
    ("show", "--race", "1"),
    ("replay", "--race", "2"),
    ("export", "--race", "1"),
    ("position", "--race", "2"),
    ("stats", "--race", "1", "--json"),
    ("audit",),
    ("anchor",),
)


def test_every_read_of_a_database_in_a_read_only_folder_works(sample: Path, db: Path) -> None:
    """SQLite cannot make the WAL's shared-memory file beside a database in a read-only folder, so every command
    failed with "cannot open the database file (permissions?)": the store reads such a file as it is."""
    folder = db.parent
    expected = {args: run(*args, db=sample) for args in READS}
    before = _digest(db)
    with unwritable(folder, db):
        for args in READS:
            r = run(*args, db=db)
            assert r.returncode == 0, (args, r.stderr)
            assert r.stdout == expected[args].stdout.replace(str(sample), str(db)), args
    assert _digest(db) == before and sorted(p.name for p in folder.iterdir()) == ["h.db"]


def test_every_write_to_it_is_refused_as_read_only_and_nothing_changes(db: Path) -> None:
    folder = db.parent
    before = _digest(db)
    note = '{"type": "note", "v": 1, "text": "hello"}'
    writes = (
        ("new", "--car", "Ann:red", "--car", "Bob:blue"),
        ("add", "--race", "1", note),
        ("undo", "--race", "2", "--yes"),
        ("turns", "--race", "1", "--rebuild"),
        ("simulate", "--races", "1", "--workers", "1"),
        ("season", "new", "--published", "1961", "--car", "Ann:red", "--car", "Bob:blue"),
    )
    with unwritable(folder, db):
        for args in writes:
            r = run(*args, db=db)
            assert r.returncode != 0, args
            assert "read-only" in r.stderr, (args, r.stderr)
            assert "Traceback" not in r.stderr
        # the recorder's set-up is refused before its first question, not after the host answered them all
        r = run("record", "--new", db=db, input="Friday\n")
        assert r.returncode == 1 and "read-only" in r.stderr and "race name" not in r.stdout, r
    assert _digest(db) == before and sorted(p.name for p in folder.iterdir()) == ["h.db"]


def test_record_new_is_refused_before_its_questions_when_the_file_is_read_only_where_it_lies(db: Path) -> None:
    """The file alone unwritable (its folder writable): SQLite opens it read-only without a word, and only a
    write tells (a read-only connection even takes the write lock); the store's write check takes one back."""
    done = subprocess.run(["chattr", "+i", str(db)], capture_output=True).returncode == 0
    if not done:
        if ROOT:
            pytest.skip("chattr +i is not supported here, and root ignores file permissions")
        db.chmod(0o444)
    try:
        r = run("record", "--new", db=db, input="Friday\n")
        assert r.returncode == 1 and "read-only" in r.stderr and "race name" not in r.stdout, r
        with EventStore(db, create=False) as store:
            assert not store.read_only  # opened the usual way: only the write check tells
            with pytest.raises(StoreError, match="read-only"):
                store.check_writable()
    finally:
        if done:
            subprocess.run(["chattr", "-i", str(db)], check=True)
        else:
            db.chmod(0o644)
    with EventStore(db, create=False) as store:  # writable: the check writes nothing
        store.check_writable()
        assert store.db.execute("SELECT count(*) FROM meta WHERE key LIKE '%check%'").fetchone()[0] == 0


def test_the_store_reads_it_unchanged_and_refuses_a_write(sample: Path, db: Path) -> None:
    folder = db.parent
    with EventStore(sample, create=False) as store:
        expected = [(e.seq, e.hash) for e in store.events(1)]
    with unwritable(folder, db), EventStore(db, create=False) as store:
        assert store.read_only
        assert [(e.seq, e.hash) for e in store.events(1)] == expected
        with pytest.raises(StoreError, match="read-only"):
            store.create_race("r", {})
    with EventStore(db, create=False) as store:  # writable again: an ordinary store
        assert not store.read_only


def test_a_write_ahead_log_beside_it_is_not_left_unread(db: Path) -> None:
    """A write-ahead log beside the file may hold committed events the file does not: reading the file alone
    would show an older race, so the store refuses it, saying what to do, rather than read it without its log."""
    folder = db.parent
    wal = folder / "h.db-wal"
    wal.write_bytes(b"\0" * 32)
    with unwritable(folder, db, wal):
        r = run("races", "--all", db=db)
        assert r.returncode == 1
        assert "cannot read the database here with its write-ahead log (h.db-wal) beside it" in r.stderr, r.stderr
        assert "copy both files to a writable folder" in r.stderr and str(db) in r.stderr.replace("\n", "")
        with pytest.raises(StoreError, match="write-ahead log"):
            EventStore(db, create=False)


ROUND_READS = (
    ("show", "--race", "1", "--round", "4"),
    ("replay", "--race", "1", "--round", "4"),
    ("position", "--race", "2", "--round", "3"),
    ("playout", "--race", "2", "--round", "3", "--playouts", "2", "--seed", "1", "--json"),
)


def test_a_jump_to_a_round_reads_without_writing_its_snapshot(sample: Path, db: Path) -> None:
    """The jump to a round wrote the snapshot of every round start (a cache) and was refused with "database is
    read-only" unless that round had been cached before: docs/store.md promises every read works (issue 30)."""
    import sqlite3

    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM snapshots")  # no round cached: the jump has to fold, and would cache
    conn.commit()
    conn.close()
    assert not Path(str(db) + "-wal").exists()
    folder = db.parent
    before = _digest(db)
    with unwritable(folder, db):
        for args in ROUND_READS:
            r = run(*args, db=db)
            assert r.returncode == 0, (args, r.stderr)
            assert "read-only" not in r.stderr, (args, r.stderr)
    assert _digest(db) == before and sorted(p.name for p in folder.iterdir()) == ["h.db"]
