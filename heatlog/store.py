"""Append-only, durable, tamper-evident SQLite event store.

The store keeps a race as an ordered log of *events* (opaque JSON dicts; validating them and checking the
rules is the caller's job, see the ``check`` hook of :meth:`EventStore.append`).  Nothing derived is ever
stored as truth: the ``snapshots`` table is a cache that may be dropped at any time.

Tables (built with :mod:`sqlite_utils`; see ``docs/store.md`` for the full story):

``meta``       key/value: ``application`` = ``heatlog``, ``format_version``; together with
               ``PRAGMA application_id`` it lets us recognise (and refuse) a foreign SQLite file.
``races``      id, name, created, parent, fork_seq, meta (JSON, informational).
``events``     (race, seq) PRIMARY KEY, type, v, payload, recorded (UTC), hash; in files of format 1 also
               prev_hash. Format 2 (new files) stores the same facts compactly (hash as 32 bytes, no prev_hash,
               the payload without the type and v its columns hold): :mod:`heatlog.eventrows` is that encoding,
               and every read gives the same text, hashes and times in both formats. UPDATE and DELETE are
               refused by triggers: the log is append-only.
``snapshots``  (race, round, rules_version) -> seq, state: a cache; updatable and deletable.

Hash chain: ``hash = sha256(prev_hash_hex + canonical(event)).hexdigest()``; the first event of a race chains
from 64 zeros, the first own event of a branch chains from the hash of the parent's event at ``fork_seq``, so
the chain runs unbroken along a branch's effective log.  :meth:`EventStore.verify` recomputes it and locates
every problem (changed payload, missing or reordered rows, columns disagreeing with the payload, bad JSON).

Durability: the database runs in WAL mode with ``synchronous=FULL``.  In WAL mode ``synchronous=NORMAL``
only syncs the WAL at checkpoints, so a power loss (or an OS crash) can silently roll back the last
committed transactions -- still consistent, but an event the table was told "recorded" would be gone.  With
``FULL`` the WAL is fsynced at every commit, so once :meth:`EventStore.append` returns, the event survives
a crash of the process, of the OS and a power cut (as far as the disk honours fsync; ``fullfsync`` is also
switched on, which matters on macOS only).  Every append is its own committed transaction.

Concurrency: an append reads the race's last seq/hash and inserts the next row inside one
``BEGIN IMMEDIATE`` transaction; the ``(race, seq)`` PRIMARY KEY is the final guard, so two writers can never
both write event N -- the loser gets :class:`ConflictError` and nothing is written.

Errors: every :class:`sqlite3.Error` is translated at this module's boundary into :class:`StoreError` (or
:class:`ConflictError`) with a message a player understands; no raw sqlite3 exception escapes the public API.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import repeat
from pathlib import Path
from types import TracebackType
from typing import Any, NoReturn

from heatlog import eventrows as rows_
from heatlog.engine.errors import ConflictError, MalformedInput, StoreError
from heatlog.hashing import sha256

__all__ = [
    "ANCHOR_VERSION",
    "APPLICATION_ID",
    "FORMAT_VERSION",
    "GENESIS",
    "Check",
    "DamagedLog",
    "EventStore",
    "Problem",
    "RaceInfo",
    "Snapshot",
    "StoredEvent",
    "canonical",
    "chain_hash",
    "parse_jsonl",
    "read_jsonl",
]

#: ``PRAGMA application_id`` of a heatlog database: the ASCII bytes "HEAT".
APPLICATION_ID = 0x48454154
#: Version of the table layout of new files; a newer file is refused rather than misread. Files of format 1 (the
#: events table as written before issue 32) are read and appended to in their own format (heatlog.eventrows).
FORMAT_VERSION = rows_.COMPACT
#: prev_hash of the first event of a race (and of a branch forked at seq 0).
GENESIS = "0" * 64

APPEND_ONLY = "heatlog: events are append-only"
#: Version of the anchor line written by ``heatlog anchor`` and at the end of an export.
ANCHOR_VERSION = 1


# --------------------------------------------------------------------------------------------------------
# canonical bytes and the chain


def canonical(event: Any) -> bytes:
    """The canonical bytes of an event: sorted keys, no spaces, UTF-8, no ASCII escaping.

    ``allow_nan=False`` only refuses NaN/Infinity (which are not JSON); the bytes of every accepted value are
    exactly ``json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()``.
    """
    return _CANONICAL(event).encode()


def _canonical_encoder() -> Callable[[Any], str]:
    """The canonical text of a value, exactly ``json.dumps(value, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False, allow_nan=False)``.

    json.dumps with options builds a JSONEncoder per call, and JSONEncoder.encode builds the C encoder per call
    (with a closure and a dict for cycles): made once here, the C encoder the json module itself uses gives the
    same text in 60 % of the time (an import encodes every event; tests/test_store.py compares with json.dumps).
    Without the cycle dict a value that holds itself ends in RecursionError (json.dumps: ValueError); events
    are JSON texts read back, which cannot. Where the C encoder is missing, JSONEncoder.encode does it."""
    encoder = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return encoder.encode
    encode = make(None, encoder.default, json.encoder.encode_basestring, None, ":", ",", True, False, False)
    join = "".join

    def canonical_text(value: Any) -> str:
        return join(encode(value, 0))

    return canonical_text


_CANONICAL: Callable[[Any], str] = _canonical_encoder()


def _conflict(exc: sqlite3.IntegrityError, race: int, seq: int) -> Exception:
    """What a refused insert means: another writer took ``seq`` first (ConflictError), else the error itself."""
    if "UNIQUE" in str(exc) or "PRIMARY KEY" in str(exc) or "cannot be replaced" in str(exc):
        return ConflictError(f"another writer appended event {seq} first; nothing was written", race=race)
    return exc


def chain_hash(prev_hash: str, payload: bytes) -> str:
    """``sha256(prev_hash_hex + canonical bytes)`` as hex."""
    return sha256(prev_hash.encode("ascii") + payload).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


# --------------------------------------------------------------------------------------------------------
# records


@dataclass(frozen=True)
class StoredEvent:
    """One event of a race's effective log. ``race`` is the race that physically stores the row."""

    race: int
    seq: int
    type: str
    v: int | None
    event: dict[str, Any]
    recorded: str
    prev_hash: str
    hash: str


@dataclass(frozen=True)
class RaceInfo:
    id: int
    name: str | None
    created: str
    parent: int | None
    fork_seq: int | None
    meta: dict[str, Any]
    #: length of the effective log (for a branch: fork_seq + own events).
    event_count: int


@dataclass(frozen=True)
class Problem:
    """A defect found by :meth:`EventStore.verify`, located at ``seq`` of physical race ``race``.

    kinds: ``gap`` (events missing), ``chain`` (prev_hash does not continue the chain: rows reordered or
    removed), ``hash`` (payload changed), ``json`` (payload is not a JSON object), ``canonical`` (payload is
    not in canonical form), ``columns`` (type/v columns disagree with the payload), ``stray`` (a row outside
    the race's own seq range).
    """

    race: int
    seq: int
    kind: str
    message: str

    def __str__(self) -> str:
        return f"race {self.race}, event {self.seq}: {self.kind}: {self.message}"


class DamagedLog(StoreError):
    """A read found the hash chain of the events it returns broken (an event changed, missing or out of place):
    the log is damaged or was tampered with, and nothing derived from it is shown. ``problem`` is the first
    defect found; ``heatlog audit`` lists them all."""

    def __init__(self, problem: Problem, hint: str = "") -> None:
        self.problem = problem
        also = f"; {hint} reads it anyway" if hint else ""
        super().__init__(
            f"the log is damaged or was tampered with at event {problem.seq}: {problem.message}; nothing was read "
            f"(`heatlog audit --race {problem.race}` lists every problem{also})",
            race=problem.race,
        )


@dataclass(frozen=True, slots=True)
class RecorderSession:
    """A race's row in ``recorder_sessions``: the live recorder (pid None when free) and its cursor."""

    pid: int | None
    host: str | None
    start: str
    since: str
    cursor: str | None

    def load_cursor(self) -> dict[str, Any] | None:
        if not self.cursor:
            return None
        try:
            cur = json.loads(self.cursor)
        except ValueError:
            return None
        return cur if isinstance(cur, dict) else None


@dataclass(frozen=True)
class Snapshot:
    race: int
    round: int
    rules_version: str
    seq: int
    state: dict[str, Any]


#: ``check(log, event)``: raise to refuse ``event`` given the effective ``log`` (nothing is written).
Check = Callable[[list[StoredEvent], dict[str, Any]], None]


# --------------------------------------------------------------------------------------------------------
# schema


#: Finds the retractions recorded after a snapshot without scanning the events in between (a partial index:
#: only ``retracted`` rows are in it, so it costs appends of other events nothing).
_RETRACTED_INDEX = "CREATE INDEX IF NOT EXISTS events_retracted ON events (race, seq) WHERE type = 'retracted'"


#: Triggers that close every ordinary SQL statement around append-only, beyond UPDATE and DELETE of events:
#: ``REPLACE``/``INSERT OR REPLACE`` (whose implicit delete fires no delete trigger unless recursive triggers
#: are on), upserts (``ON CONFLICT DO UPDATE``), an explicit rowid of another row, a race id changed or a race
#: row replaced (orphaning its events), and the file's identity in ``meta``. Added to older files when opened.
_GUARDS: dict[str, str] = {
    "events_no_replace": (
        "CREATE TRIGGER events_no_replace BEFORE INSERT ON events "
        "WHEN EXISTS (SELECT 1 FROM events WHERE race = NEW.race AND seq = NEW.seq) "
        "OR EXISTS (SELECT 1 FROM events WHERE rowid = NEW.rowid) "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: a stored event cannot be replaced'); END"
    ),
    "races_no_replace": (
        "CREATE TRIGGER races_no_replace BEFORE INSERT ON races "
        "WHEN EXISTS (SELECT 1 FROM races WHERE id = NEW.id) "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: a race cannot be replaced'); END"
    ),
    "races_no_renumber": (
        "CREATE TRIGGER races_no_renumber BEFORE UPDATE OF id ON races "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: a race id cannot change'); END"
    ),
    "meta_no_update": (
        "CREATE TRIGGER meta_no_update BEFORE UPDATE ON meta "
        "WHEN OLD.key IN ('application', 'format_version', 'created') "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: the file identity cannot change'); END"
    ),
    "meta_no_delete": (
        "CREATE TRIGGER meta_no_delete BEFORE DELETE ON meta "
        "WHEN OLD.key IN ('application', 'format_version', 'created') "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: the file identity cannot change'); END"
    ),
    "meta_no_replace": (
        "CREATE TRIGGER meta_no_replace BEFORE INSERT ON meta "
        "WHEN NEW.key IN ('application', 'format_version', 'created') "
        "AND EXISTS (SELECT 1 FROM meta WHERE key = NEW.key) "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: the file identity cannot change'); END"
    ),
}


def _create_schema(db: Any, version: int = FORMAT_VERSION) -> None:  # a sqlite_utils.Database
    db.table("meta").create({"key": str, "value": str}, pk="key", not_null={"value"})
    db.table("races").create(
        {"id": int, "name": str, "created": str, "parent": int, "fork_seq": int, "meta": str},
        pk="id",
        foreign_keys=[("parent", "races", "id")],
        not_null={"created", "meta"},
    )
    columns: dict[str, type] = {"race": int, "seq": int, "type": str, "v": int, "payload": str}
    if version >= rows_.COMPACT:  # heatlog.eventrows: the time as an integer, the hash as bytes, no prev_hash
        columns.update(recorded=int, hash=bytes)
    else:
        columns.update(recorded=str, prev_hash=str, hash=str)
    db.table("events").create(
        columns,
        pk=("race", "seq"),
        foreign_keys=[("race", "races", "id")],
        not_null={"race", "seq", "type", "payload", "recorded", "hash"} | ({"prev_hash"} & set(columns)),
    )
    db.table("snapshots").create(
        {"race": int, "round": int, "rules_version": str, "seq": int, "state": str},
        pk=("race", "round", "rules_version"),
        foreign_keys=[("race", "races", "id")],
        not_null={"race", "round", "rules_version", "seq", "state"},
    )
    db.table("races").create_index(["parent"], index_name="races_parent")
    db.execute(_RETRACTED_INDEX)
    db.execute(
        f"CREATE TRIGGER events_no_update BEFORE UPDATE ON events "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: UPDATE refused'); END"
    )
    db.execute(
        f"CREATE TRIGGER events_no_delete BEFORE DELETE ON events "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: DELETE refused'); END"
    )
    # A race's place in the tree (and its creation time) is part of the chain of its branches.
    db.execute(
        f"CREATE TRIGGER races_no_reparent BEFORE UPDATE OF parent, fork_seq, created ON races "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: a race cannot be moved'); END"
    )
    db.execute(
        f"CREATE TRIGGER races_no_delete BEFORE DELETE ON races "
        f"WHEN EXISTS (SELECT 1 FROM events WHERE race = OLD.id) "
        f"OR EXISTS (SELECT 1 FROM races WHERE parent = OLD.id) "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: a race with events or branches cannot be deleted'); END"
    )
    db.table("meta").insert_all(
        [
            {"key": "application", "value": "heatlog"},
            {"key": "format_version", "value": str(version)},
            {"key": "created", "value": _now()},
        ]
    )
    for sql in _GUARDS.values():
        db.execute(sql)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {version}")


# --------------------------------------------------------------------------------------------------------
# the store

_SELECT_EVENTS = (
    "SELECT race, seq, type, v, payload, recorded, prev_hash, hash FROM events "
    "WHERE race = ? AND seq > ? AND seq <= ? ORDER BY seq"
)
_SELECT_PAYLOADS = "SELECT seq, payload FROM events WHERE race = ? AND seq > ? AND seq <= ? ORDER BY seq"
_SELECT_CHAIN = "SELECT seq, payload, prev_hash, hash FROM events WHERE race = ? AND seq > ? AND seq <= ? ORDER BY seq"
_SELECT_RETRACTIONS = (
    "SELECT seq, payload FROM events WHERE race = ? AND seq > ? AND seq <= ? AND type = 'retracted' ORDER BY seq"
)
_COUNT_ENTRIES = (
    "SELECT count(*), coalesce(max(seq = ?), 0) FROM events "
    "WHERE race = ? AND seq > ? AND seq <= ? AND type != 'retracted'"
)
#: The C scanner behind json.loads: (value, end) of the JSON value at an index, without json.loads' per-call cost.
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_TAIL = "SELECT seq, hash FROM events WHERE race = ? ORDER BY seq DESC LIMIT 1"
#: From this many events, a new race's batch is written with the replace guard lifted inside its transaction
#: (see create_race): below it, the schema change costs more than the guard's probes it saves (~1 µs a row).
_LIFT_AT = 500
_INSERT = "INSERT INTO events (race, seq, type, v, payload, recorded, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
#: The insert of a new race's rows (create_race): the race and the time of recording written in.
_INSERT_RACE = (
    "INSERT INTO events (race, seq, type, v, payload, recorded, prev_hash, hash) "
    "VALUES ({race}, ?, ?, ?, ?, '{recorded}', ?, ?)"
)
#: The same reads in format 2 (heatlog.eventrows): type and v to give the payload back, no prev_hash.
_RANGE = "FROM events WHERE race = ? AND seq > ? AND seq <= ?"
_SELECT_EVENTS_2 = f"SELECT race, seq, type, v, payload, recorded, hash {_RANGE} ORDER BY seq"
_SELECT_PAYLOADS_2 = f"SELECT seq, type, v, payload {_RANGE} ORDER BY seq"
_SELECT_CHAIN_2 = f"SELECT seq, type, v, payload, hash {_RANGE} ORDER BY seq"
_SELECT_RETRACTIONS_2 = f"SELECT seq, type, v, payload {_RANGE} AND type = 'retracted' ORDER BY seq"
_INSERT_2 = "INSERT INTO events (race, seq, type, v, payload, recorded, hash) VALUES (?, ?, ?, ?, ?, ?, ?)"
_INSERT_RACE_2 = (
    "INSERT INTO events (race, seq, type, v, payload, recorded, hash) VALUES ({race}, ?, ?, ?, ?, {recorded}, ?)"
)
_NO_LIMIT = 1 << 62
#: The largest integer SQLite stores: a race id, seq or round beyond it names no row (and cannot be bound).
SQLITE_MAX = (1 << 63) - 1


class EventStore:
    """The event store of one SQLite file. Not thread-safe: one object per thread (or process)."""

    def __init__(
        self, path: str | Path, *, create: bool = True, busy_timeout_ms: int = 2000, new_format: int = FORMAT_VERSION
    ) -> None:
        """``new_format``: the format a new file is made in (1 makes one as heatlog did before format 2, for the
        tests and benchmarks of old files); an existing file keeps its own."""
        if new_format not in (1, FORMAT_VERSION):
            raise ValueError(f"no database format {new_format!r}")
        self.path = Path(path)
        self._memory = str(path) == ":memory:"
        # race id -> (parent, fork_seq); parent/fork_seq never change (trigger), so this cache is safe.
        self._tree: dict[int, tuple[int | None, int | None]] = {}
        # race id -> (base seq, base hash) the race's own events chain from.
        self._base: dict[int, tuple[int, str]] = {}
        self._conn: sqlite3.Connection | None = None
        self._recorder_table = False
        #: The events table's layout (heatlog.eventrows): format 2 for new files, 1 for files made before it.
        self.format_version = new_format
        #: Opened read-only: a file that cannot be opened for writing where it lies (``_open_unchangeable``).
        self.read_only = False
        #: What a read does when the hash chain of the events it returns is broken: None raises DamagedLog (the
        #: default: nothing derived from a damaged log is shown); a callable is told each Problem and the read
        #: goes on with the rows as stored (``--force``).
        self.on_damage: Callable[[Problem], None] | None = None
        #: How the refusal tells the user to read anyway (the command's flag, e.g. ``--force``); "" for none.
        self.force_hint = ""
        self._conn = self._open(create, busy_timeout_ms)

    @property
    def db(self) -> Any:
        """The connection as a ``sqlite_utils.Database`` (imported on first use: reading a race never needs it,
        and sqlite-utils imports pandas and numpy whenever they are installed, ~0.4 s at every start)."""
        import sqlite_utils

        return sqlite_utils.Database(self.conn, execute_plugins=False, recursive_triggers=False)

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        """Rows as dicts by column name (what ``sqlite_utils.Database.query`` gives)."""
        cur = self.conn.execute(sql, tuple(params))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    # ---- opening

    def _open(self, create: bool, busy_timeout_ms: int) -> sqlite3.Connection:
        if self._memory:
            if not create:
                raise StoreError("no heatlog database at :memory:")
            conn = sqlite3.connect(":memory:", isolation_level=None)
        else:
            path = self.path
            if path.is_dir():
                raise StoreError(f"this is a directory, not a heatlog database: {path}")
            if not path.exists():
                if not create:
                    raise StoreError(f"no heatlog database at {path}")
                if not path.parent.is_dir():
                    raise StoreError(f"directory does not exist: {path.parent}")
            uri = path.resolve().as_uri() + ("?mode=rwc" if create else "?mode=rw")
            first: sqlite3.Connection | None = None
            try:
                conn = first = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=busy_timeout_ms / 1000)
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # (opening is lazy: read now)
            except (sqlite3.Error, UnicodeDecodeError) as exc:
                if first is not None:
                    with contextlib.suppress(sqlite3.Error):
                        first.close()
                if isinstance(exc, UnicodeDecodeError):  # SQLite's message quotes schema text that is not UTF-8
                    raise StoreError(_undecodable(self.path)) from None
                conn = self._open_unchangeable(exc, busy_timeout_ms)
        try:
            self._conn = conn
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            fresh = self._recognise(conn, create)
            if not self._memory and not self.read_only:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StoreError(f"cannot switch the database to WAL mode ({mode}): {self.path}")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA fullfsync = ON")
            conn.execute("PRAGMA foreign_keys = ON")
            if fresh:
                import sqlite_utils  # only to make a new file's tables (see the db property)

                db = sqlite_utils.Database(conn, execute_plugins=False, recursive_triggers=False)
                conn.execute("BEGIN IMMEDIATE")
                try:
                    # Another process may have initialised the file between our look and our lock.
                    if self._recognise(conn, create):
                        _create_schema(db, self.format_version)
                    conn.execute("COMMIT")
                except BaseException:
                    self._rollback(conn)
                    raise
            else:
                self._add_indexes(conn)
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.close()
            self._conn = None
            if isinstance(exc, sqlite3.Error):
                self._raise(exc)
            if isinstance(exc, UnicodeDecodeError):  # SQLite's message quotes schema text that is not UTF-8
                raise StoreError(_undecodable(self.path)) from None
            raise
        return conn

    def _open_unchangeable(self, exc: sqlite3.Error, busy_timeout_ms: int) -> sqlite3.Connection:
        """A database that cannot be opened where it lies (``exc``), read as it is: a file in a read-only
        directory or medium (an archive, a copy handed over), where SQLite cannot make the WAL's shared-memory
        file. Only when no write-ahead log lies beside it, so that the file alone holds every committed event;
        then it is opened ``immutable`` (SQLite reads it without locks) and every write is refused as read-only.
        Otherwise ``exc`` is raised as the store's error."""
        code = getattr(exc, "sqlite_errorcode", None)
        path = self.path
        wal = path.with_name(path.name + "-wal")
        if not isinstance(code, int) or code & 0xFF != sqlite3.SQLITE_CANTOPEN or not path.is_file():
            self._raise(exc)
        if path.stat().st_size == 0:
            self._raise(exc)
        if wal.exists() and wal.stat().st_size > 0:
            raise StoreError(
                f"cannot read the database here with its write-ahead log ({wal.name}) beside it: the folder cannot "
                f"be written (copy both files to a writable folder, or open it where it was written): {path}"
            ) from exc
        uri = path.resolve().as_uri() + "?mode=ro&immutable=1"
        conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=busy_timeout_ms / 1000)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error:
            if conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            self._raise(exc)
        self.read_only = True
        return conn

    def check_writable(self) -> None:
        """Raise the store's error now if nothing can be written to this file (read-only, locked by another
        program), before a user is asked for what would be written (the recorder's set-up questions). A write
        taken back: SQLite opens a file it may not write read-only without a word, and a read-only connection
        even takes the write lock; only a write tells."""
        if self.read_only:
            raise StoreError(f"database is read-only (check the file's permissions): {self.path}")
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute("INSERT INTO meta (key, value) VALUES ('heatlog write check', '')")
            finally:
                self._rollback(conn)
        except sqlite3.Error as exc:
            self._raise(exc)

    @staticmethod
    def _add_indexes(conn: sqlite3.Connection) -> None:
        """Add the indexes and append-only guards a file made by an earlier heatlog lacks (a file that cannot be
        written to, read-only or busy, is used without them; it cannot be changed through heatlog either)."""
        have = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger')")}
        missing = [sql for name, sql in _GUARDS.items() if name not in have]
        if "events_retracted" not in have:
            missing.append(_RETRACTED_INDEX)
        for sql in missing:
            with contextlib.suppress(sqlite3.Error):
                conn.execute(sql)

    def _recognise(self, conn: sqlite3.Connection, create: bool) -> bool:
        """True if the file is empty (to be initialised); raise unless it is a heatlog database."""
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        n_objects = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app_id == 0 and n_objects == 0:
            if not create:
                raise StoreError(f"file is not a heatlog database (it is empty): {self.path}")
            return True
        if app_id != APPLICATION_ID:
            raise StoreError(f"file is not a heatlog database: {self.path}")
        try:
            rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.OperationalError:
            rows = {}
        if rows.get("application") != "heatlog":
            raise StoreError(f"file is not a heatlog database or is damaged: {self.path}")
        try:
            version = int(rows.get("format_version", ""))
        except ValueError:
            raise StoreError(f"file is not a heatlog database or is damaged: {self.path}") from None
        if version > FORMAT_VERSION:
            raise StoreError(
                f"database format {version} is newer than this heatlog understands ({FORMAT_VERSION}): {self.path}"
            )
        self.format_version = version
        return False

    # ---- lifetime

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None

    def __enter__(self) -> EventStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    # ---- error boundary and transactions

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"the event store is closed: {self.path}")
        return self._conn

    def _raise(self, exc: sqlite3.Error, race: int | None = None) -> NoReturn:
        """Translate a sqlite3 error into a StoreError the player understands."""
        raise self.error(exc, race) from exc

    def error(self, exc: sqlite3.Error, race: int | None = None) -> StoreError:
        """The StoreError a player understands for a sqlite3 error on this store's file (for code beside the
        store that runs its own statements on its connection: the season stream)."""
        text = str(exc)
        low = text.lower()
        code = getattr(exc, "sqlite_errorcode", None)
        primary = code & 0xFF if isinstance(code, int) else None
        where = str(self.path)
        message: str
        if APPEND_ONLY in text:
            message = text.split("heatlog: ", 1)[1]
        elif primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in low:
            message = f"database is locked by another program: {where}"
        elif (
            primary in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT) or "not a database" in low or "malformed" in low
        ):
            message = f"file is not a heatlog database or is damaged: {where}"
        elif primary == sqlite3.SQLITE_READONLY or "readonly" in low or "read-only" in low:
            message = f"database is read-only (check the file's permissions): {where}"
        elif primary == sqlite3.SQLITE_CANTOPEN or "unable to open" in low:
            if not self._memory and not self.path.parent.is_dir():
                message = f"directory does not exist: {self.path.parent}"
            else:
                message = f"cannot open the database file (permissions?): {where}"
        elif primary == sqlite3.SQLITE_FULL or "full" in low:
            message = f"disk is full; nothing was written: {where}"
        elif primary == sqlite3.SQLITE_IOERR or "i/o" in low:
            message = f"disk I/O error ({text}): {where}"
        elif isinstance(exc, sqlite3.ProgrammingError) and "closed" in low:
            message = f"the event store is closed: {where}"
        else:
            message = f"database error ({text}): {where}"
        return StoreError(message, race=race)

    @staticmethod
    def _rollback(conn: sqlite3.Connection) -> None:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")

    @contextlib.contextmanager
    def _tx(self, *, write: bool, race: int | None = None) -> Iterator[sqlite3.Connection]:
        """One transaction; commit on success, roll back on any exception; translate sqlite3 errors."""
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                self._rollback(conn)
                raise
        except sqlite3.Error as exc:
            self._raise(exc, race)

    @contextlib.contextmanager
    def _guard(self, race: int | None = None) -> Iterator[sqlite3.Connection]:
        """Translate sqlite3 errors of a statement outside an explicit transaction."""
        conn = self.conn
        try:
            yield conn
        except sqlite3.Error as exc:
            self._raise(exc, race)
        except OverflowError:  # the driver refuses to bind a number beyond SQLite's integers: no row can hold it
            raise StoreError(f"a number given is beyond any the database holds (at most {SQLITE_MAX})") from None

    # ---- races

    def _race_row(self, conn: sqlite3.Connection, race: int) -> tuple[int | None, int | None]:
        known = self._tree.get(race)
        if known is not None:
            return known
        row = conn.execute("SELECT parent, fork_seq FROM races WHERE id = ?", (race,)).fetchone()
        if row is None:
            raise StoreError(f"no race {race}")
        self._tree[race] = (row[0], row[1])
        return self._tree[race]

    def _segments(self, conn: sqlite3.Connection, race: int) -> list[tuple[int, int, int]]:
        """The effective log of ``race`` as (physical race, seq_above, seq_upto) ranges, root first."""
        segments: list[tuple[int, int, int]] = []
        limit = _NO_LIMIT
        current: int | None = race
        seen: set[int] = set()
        while current is not None:
            if current in seen:
                raise StoreError(f"race tree is damaged (race {current} is its own ancestor): {self.path}")
            seen.add(current)
            parent, fork_seq = self._race_row(conn, current)
            low = (fork_seq or 0) if parent is not None else 0
            segments.append((current, low, limit))
            if parent is not None:
                limit = min(limit, fork_seq or 0)
            current = parent
        segments.reverse()
        return segments

    def _length(self, conn: sqlite3.Connection, race: int) -> int:
        parent, fork_seq = self._race_row(conn, race)
        row = conn.execute(_TAIL, (race,)).fetchone()
        if row is not None:
            return int(row[0])
        return (fork_seq or 0) if parent is not None else 0

    def _base_of(self, conn: sqlite3.Connection, race: int) -> tuple[int, str]:
        """(seq, hash) a race's own events chain from: (0, GENESIS) or the parent's event at fork_seq."""
        known = self._base.get(race)
        if known is not None:
            return known
        parent, fork_seq = self._race_row(conn, race)
        base = (0, GENESIS)
        if parent is not None and fork_seq:
            for seg_race, low, high in self._segments(conn, parent):
                if low < fork_seq <= high:
                    row = conn.execute(
                        "SELECT hash FROM events WHERE race = ? AND seq = ?", (seg_race, fork_seq)
                    ).fetchone()
                    if row is None:
                        raise StoreError(
                            f"event {fork_seq} of race {parent}, the fork point, is missing: "
                            f"the database is damaged: {self.path}",
                            race=race,
                        )
                    base = (fork_seq, str(rows_.hash_hex(row[0])))
                    break
        self._base[race] = base
        return base

    def create_race(
        self,
        name: str | None,
        meta: dict[str, Any] | None = None,
        events: Iterable[dict[str, Any]] = (),
        *,
        texts: Iterable[str] | None = None,
    ) -> int:
        """Create a new (root) race with its first ``events`` and return its id: the race and its events are
        one transaction, so a refused event leaves no empty race behind. ``texts``: the canonical text of each
        event when the caller has it (:func:`read_jsonl` gives it), so it is not encoded again."""
        meta_text = self._encode_meta(meta)
        sha = sha256
        # (seq, type, v, text, prev_hash, hash) of each row, made before the lock; the race and the time of
        # recording, the same for every row, are written into the statement (below) rather than into each row
        chained: list[tuple[int, str, Any, str, str, str]] = []
        last_hash = GENESIS
        if texts is None:
            for seq, (type_, v, text, raw) in enumerate(map(self._encode_text, events), start=1):
                digest = sha(last_hash.encode("ascii") + raw).hexdigest()  # chain_hash, inlined
                chained.append((seq, type_, v, text, last_hash, digest))
                last_hash = digest
        else:  # events read by read_jsonl: objects with a string "type", their canonical texts given
            for seq, (event, text) in enumerate(zip(events, texts, strict=True), start=1):
                digest = sha(last_hash.encode("ascii") + text.encode()).hexdigest()
                chained.append((seq, event["type"], _stored_v(event), text, last_hash, digest))
                last_hash = digest
        recorded = _now()
        insert = _INSERT_RACE
        if self.format_version >= rows_.COMPACT:  # heatlog.eventrows: (seq, type, v, payload, hash) per row
            chained = [self._compact_row(*row) for row in chained]
            at = rows_.recorded_column(recorded)
            insert, recorded = _INSERT_RACE_2, str(at) if isinstance(at, int) else f"'{at}'"
        with self._tx(write=True) as conn:
            cur = conn.execute(
                "INSERT INTO races (name, created, parent, fork_seq, meta) VALUES (?, ?, NULL, NULL, ?)",
                (name, _now(), meta_text),
            )
            race = int(cur.lastrowid or 0)
            self._tree[race] = (None, None)
            try:
                # Both constants are ours (an integer; _now's digits, "-", ":", ".", "T" and "Z", or in format 2
                # an integer, unquoted: recorded_column gives text only for a time _now did not write): written
                # into the statement, they are not bound again for every row, and the rows made before the
                # lock are the parameters as they are (the same values, types and bytes in the file).
                insert = insert.format(race=race, recorded=recorded)
                if len(chained) >= _LIFT_AT:
                    # The race was made in this transaction, so none of its rows can replace a stored one: the
                    # replace guard (two index probes and a trigger program per row, a third of an insert) is
                    # lifted for this one batch and put back, the same text, before the commit. DDL is part of
                    # the transaction: no other connection ever sees the file without the guard, and a crash
                    # or an error rolls the drop back with the rows.
                    conn.execute("DROP TRIGGER events_no_replace")
                    conn.executemany(insert, chained)
                    conn.execute(_GUARDS["events_no_replace"])
                else:
                    conn.executemany(insert, chained)  # one statement for the whole batch
            except BaseException:
                self._tree.pop(race, None)
                raise
        return race

    def create_branch(self, parent: int, fork_seq: int, name: str | None) -> int:
        """Create a branch sharing the first ``fork_seq`` events of ``parent``'s effective log."""
        if isinstance(fork_seq, bool) or not isinstance(fork_seq, int) or fork_seq < 0:
            raise StoreError(f"cannot fork at event {fork_seq!r}: give a number 0 or more", race=parent)
        with self._tx(write=True) as conn:
            length = self._length(conn, parent)
            if fork_seq > length:
                raise StoreError(f"cannot fork at event {fork_seq}: the race has {length} events", race=parent)
            meta = conn.execute("SELECT meta FROM races WHERE id = ?", (parent,)).fetchone()[0]
            cur = conn.execute(
                "INSERT INTO races (name, created, parent, fork_seq, meta) VALUES (?, ?, ?, ?, ?)",
                (name, _now(), parent, fork_seq, meta),
            )
            race = int(cur.lastrowid or 0)
            self._tree[race] = (parent, fork_seq)
            self._base_of(conn, race)
        return race

    _RACES_SQL = (
        "SELECT r.id, r.name, r.created, r.parent, r.fork_seq, r.meta, "
        "(SELECT max(e.seq) FROM events e WHERE e.race = r.id) AS last_seq FROM races r"
    )

    def _race_info(self, row: dict[str, Any]) -> RaceInfo:
        try:
            meta = json.loads(row["meta"])
        except (TypeError, ValueError):
            meta = {}
        last = row["last_seq"]
        count = int(last) if last is not None else int(row["fork_seq"] or 0)
        return RaceInfo(
            id=int(row["id"]),
            name=row["name"],
            created=row["created"],
            parent=row["parent"],
            fork_seq=row["fork_seq"],
            meta=meta if isinstance(meta, dict) else {},
            event_count=count,
        )

    def holding(self, events: Sequence[dict[str, Any]], texts: Sequence[str] | None = None) -> int | None:
        """The oldest race (or branch) whose log begins with exactly ``events``, the same canonical texts in the
        same order, else None. The chain says it (module docstring): the hash of the last of them, at its seq,
        is the same only after the same events. ``texts``: their canonical texts when the caller has them."""
        if not events:
            return None
        last = GENESIS
        if texts is None:
            for event in events:
                last = chain_hash(last, self._encode_text(event)[3])
        else:
            for text in texts:
                last = chain_hash(last, text.encode())
        return self.race_with_hash(len(events), last)

    def race_with_hash(self, seq: int, digest: str) -> int | None:
        """The oldest race (or branch) that stores an event ``seq`` whose hash is ``digest`` (hex), else None."""
        stored: Any = digest
        if self.format_version >= rows_.COMPACT:
            try:
                stored = rows_.hash_column(digest)
            except ValueError:
                return None  # not a hash: no event has it
        with self._guard():
            row = self.conn.execute(
                "SELECT race FROM events WHERE seq = ? AND hash = ? ORDER BY race LIMIT 1", (seq, stored)
            ).fetchone()
        return None if row is None else int(row[0])

    def _race_rows(self, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        """Rows of ``races``: a label (name, meta, time) whose bytes are not UTF-8 text is read with U+FFFD in
        place of each bad byte instead of failing every read of every race (:meth:`label_problems` names it)."""
        try:
            return self._query(sql, params)
        except sqlite3.OperationalError as exc:
            if "decode" not in str(exc):
                raise
        conn = self.conn
        old = conn.text_factory
        conn.text_factory = _replaced_text
        try:
            return self._query(sql, params)
        finally:
            conn.text_factory = old

    def label_problems(self) -> dict[int, list[str]]:
        """race -> what is wrong with its labels (name, created, meta): bytes that are not UTF-8 text, a meta
        that is not a JSON object. Labels are outside the chain (informational), but a damaged one is damage."""
        out: dict[int, list[str]] = {}
        with self._guard() as conn:
            rows = conn.execute(
                "SELECT id, CAST(name AS BLOB), CAST(created AS BLOB), CAST(meta AS BLOB) FROM races ORDER BY id"
            ).fetchall()
        for race, *cells in rows:
            for column, data in zip(("name", "created", "meta"), cells, strict=True):
                if data is None:
                    continue
                try:
                    text = bytes(data).decode("utf-8")
                except UnicodeDecodeError as exc:
                    out.setdefault(int(race), []).append(
                        f"the race's {column} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
                    )
                    continue
                if column == "meta":
                    try:
                        ok = isinstance(json.loads(text), dict)
                    except (ValueError, RecursionError):
                        ok = False
                    if not ok:
                        out.setdefault(int(race), []).append("the race's meta is not a JSON object")
        return out

    def races(self) -> list[RaceInfo]:
        """Every race (and branch), oldest first."""
        with self._guard():
            return [self._race_info(row) for row in self._race_rows(self._RACES_SQL + " ORDER BY r.id")]

    def race(self, race: int) -> RaceInfo:
        if not -SQLITE_MAX <= race <= SQLITE_MAX:
            raise StoreError(f"no race {race}")
        with self._guard():
            rows = self._race_rows(self._RACES_SQL + " WHERE r.id = ?", [race])
        if not rows:
            raise StoreError(f"no race {race}")
        return self._race_info(rows[0])

    def latest_race(self, *, simulated: bool = True) -> int | None:
        """The most recently created race (or branch), or None if there is none. ``simulated=False``: the most
        recent one that is not a simulation (``meta.simulated``, as :mod:`heatlog.racelist` reads it; a branch
        of a simulated race is simulated too), None if every race is."""
        with self._guard() as conn:
            if simulated:
                row = conn.execute("SELECT max(id) FROM races").fetchone()
                return None if row is None or row[0] is None else int(row[0])
            for race, meta_text in conn.execute("SELECT id, meta FROM races ORDER BY id DESC"):
                try:
                    meta = json.loads(meta_text)
                except (TypeError, ValueError):
                    meta = {}
                if not (isinstance(meta, dict) and "simulated" in meta):
                    return int(race)
        return None

    # ---- reading

    def _row_event(self, row: tuple[Any, ...]) -> StoredEvent:
        race, seq, type_, v, payload, recorded, prev_hash, hash_ = row
        try:
            event = json.loads(payload)
        except (TypeError, ValueError):
            event = None
        if not isinstance(event, dict):
            raise StoreError(
                f"event {seq} is not a valid JSON object: the database is damaged (`heatlog audit --race {race}` "
                f"lists every problem): {self.path}",
                race=race,
            )
        return StoredEvent(race, seq, type_, v, event, recorded, prev_hash, hash_)

    def _read_log(self, conn: sqlite3.Connection, race: int) -> list[StoredEvent]:
        log: list[StoredEvent] = []
        chain = _Chain(self, race, 1, GENESIS)
        for seg_race, low, high in self._segments(conn, race):
            rows = self._event_rows(conn, (seg_race, low, high), chain.prev)
            compact = self.format_version >= rows_.COMPACT  # (the chain check takes prev_hash from the row before)
            chain.check(seg_race, [(r[1], r[4], None if compact else r[6], r[7]) for r in rows], high)
            log.extend(self._row_event(row) for row in rows)
        return log

    # ---- the rows of the events table in either format (heatlog.eventrows): format 1's shapes

    def _event_rows(self, conn: sqlite3.Connection, args: tuple[int, int, int], prev: str | None) -> list[Any]:
        """(race, seq, type, v, payload, recorded, prev_hash, hash) of the rows of one segment, as format 1 stores
        them. In format 2 the prev_hash of each row is the hash of the row before it (``prev`` for the first: the
        hash the chain expects there, None where it is not known), v is the event's (the column is NULL for an
        event stored whole), and the payload, time and hashes are given back as text."""
        if self.format_version < rows_.COMPACT:
            return conn.execute(_SELECT_EVENTS, args).fetchall()
        text, hex_, when = rows_.payload_text, rows_.hash_hex, rows_.recorded_text
        out = []
        for race, seq, type_, v, body, recorded, digest in conn.execute(_SELECT_EVENTS_2, args).fetchall():
            payload = text(type_, v, body)
            if v is None and type(payload) is str:
                v = _payload_v(payload)
            digest = hex_(digest)
            out.append((race, seq, type_, v, payload, when(recorded), prev, digest))
            prev = digest if type(digest) is str else None
        return out

    def _chain_rows(self, conn: sqlite3.Connection, args: tuple[int, int, int]) -> list[Any]:
        """(seq, payload, prev_hash, hash) of the rows of one segment; in format 2 prev_hash is None (the chain
        check takes the hash of the row before: :class:`_Chain`)."""
        if self.format_version < rows_.COMPACT:
            return conn.execute(_SELECT_CHAIN, args).fetchall()
        text, hex_ = rows_.payload_text, rows_.hash_hex
        return [(seq, text(t, v, body), None, hex_(h)) for seq, t, v, body, h in conn.execute(_SELECT_CHAIN_2, args)]

    def _payload_rows(self, conn: sqlite3.Connection, sql: str, args: tuple[int, int, int]) -> list[Any]:
        """(seq, payload) of the rows ``sql`` (format 1's select of seq and payload) finds in one segment."""
        if self.format_version < rows_.COMPACT:
            return conn.execute(sql, args).fetchall()
        compact = _SELECT_RETRACTIONS_2 if sql is _SELECT_RETRACTIONS else _SELECT_PAYLOADS_2
        text = rows_.payload_text
        return [(seq, text(t, v, body)) for seq, t, v, body in conn.execute(compact, args)]

    def _hash_text(self, value: Any) -> Any:
        return rows_.hash_hex(value) if self.format_version >= rows_.COMPACT else value

    def events(self, race: int) -> list[StoredEvent]:
        """The effective log: the parent's prefix up to fork_seq (recursively), then the race's own events."""
        with self._tx(write=False, race=race) as conn:
            return self._read_log(conn, race)

    def log_from(self, race: int, after: int = 0, upto: int | None = None) -> list[tuple[int, dict[str, Any]]]:
        """``(seq, event)`` of the effective log's events with ``after`` < seq <= ``upto``, in order (branch-aware).

        The lean read of replays: only seq and payload are read, each payload is decoded once, and no
        :class:`StoredEvent` is built. A payload that is not a JSON object raises StoreError, as in ``events``.
        """
        with self._tx(write=False, race=race) as conn:
            out: list[tuple[int, dict[str, Any]]] = []
            for seg_race, rows in self._checked(conn, race, after, upto):
                out.extend(self._decode_rows(seg_race, rows))
            return out

    def _checked(
        self, conn: sqlite3.Connection, race: int, after: int, upto: int | None
    ) -> Iterator[tuple[int, list[tuple[Any, ...]]]]:
        """(physical race, [(seq, payload, prev_hash, hash)]) per segment of the effective log with ``after`` <
        seq <= ``upto``, once the hash chain of those rows is checked: each row's hash is that of its payload
        and the hash before it, rows follow without gaps, and the first continues from the event at ``after``
        (or from the start). A broken chain raises :class:`DamagedLog` (or goes to :attr:`on_damage`)."""
        chain: _Chain | None = None
        for seg_race, low, high in self._segments(conn, race):
            low, high = max(low, after), high if upto is None else min(high, upto)
            if high <= low:
                continue
            if chain is None:
                prev = GENESIS if low == 0 else self._hash_at(conn, race, low)
                chain = _Chain(self, race, low + 1, prev)
            try:
                rows = self._chain_rows(conn, (seg_race, low, high))
            except sqlite3.OperationalError as exc:
                if "decode" not in str(exc).lower():
                    raise
                with self._raw_text():  # a row that is not UTF-8: located, reported, never a bare sqlite error
                    rows = self._chain_rows(conn, (seg_race, low, high))
            chain.check(seg_race, rows, high)
            yield seg_race, rows

    def retractions_since(self, race: int, seq: int) -> list[tuple[int, dict[str, Any]]]:
        """``(seq, event)`` of the ``retracted`` events of the effective log at ``seq`` or later (branch-aware).

        Cheap: the ``type`` column is tested in SQLite and only matching payloads are decoded. It tells whether
        anything recorded since a snapshot was taken could reach back to it.
        """
        return self._select(race, _SELECT_RETRACTIONS, seq - 1, None)

    def entries_between(self, race: int, first: int, before: int) -> tuple[int, bool]:
        """Of the effective log's rows with ``first`` <= seq < ``before``: how many are not ``retracted`` events,
        and whether the row at ``first`` is one of them (branch-aware; reads no payload)."""
        count, has_first = 0, False
        with self._tx(write=False, race=race) as conn:
            for seg_race, low, high in self._segments(conn, race):
                low, high = max(low, first - 1), min(high, before - 1)
                if high > low:
                    n, at_first = conn.execute(_COUNT_ENTRIES, (first, seg_race, low, high)).fetchone()
                    count += int(n)
                    has_first = has_first or bool(at_first)
        return count, has_first

    def _select(self, race: int, sql: str, after: int, upto: int | None) -> list[tuple[int, dict[str, Any]]]:
        with self._tx(write=False, race=race) as conn:
            out: list[tuple[int, dict[str, Any]]] = []
            for seg_race, low, high in self._segments(conn, race):
                low, high = max(low, after), high if upto is None else min(high, upto)
                if high > low:
                    out.extend(self._decode_rows(seg_race, self._payload_rows(conn, sql, (seg_race, low, high))))
            return out

    def _decode_rows(self, race: int, rows: list[tuple[Any, ...]]) -> list[tuple[int, dict[str, Any]]]:
        """(seq, event) of rows that start with seq and payload."""
        scan = _SCAN
        out: list[tuple[int, dict[str, Any]]] = []
        append = out.append
        for row in rows:
            seq, payload = row[0], row[1]
            try:  # json.loads without its per-call overhead; anything unusual takes the slow path
                event, end = scan(payload, 0)
                if end == len(payload) and type(event) is dict:
                    append((seq, event))
                    continue
            except (StopIteration, ValueError, TypeError):
                pass
            append((seq, self._row_event((race, seq, None, None, payload, None, None, None)).event))
        return out

    def length(self, race: int) -> int:
        """Number of events in the effective log (= seq of the last event)."""
        with self._tx(write=False, race=race) as conn:
            return self._length(conn, race)

    def vouched_tail(self, race: int) -> tuple[int, str]:
        """:meth:`tail`, once the hash chain of the whole effective log is checked (DamagedLog if it is broken,
        or the problems told to :attr:`on_damage`): what a cache of an answer derived from the log is keyed by,
        so that a log changed under the cache (an event edited, even mid-log) is noticed where it is read."""
        with self._tx(write=False, race=race) as conn:
            self._race_row(conn, race)
            for _ in self._checked(conn, race, 0, None):
                pass
            return self._tail(conn, race)

    def tail(self, race: int) -> tuple[int, str]:
        """(seq, hash) of the last event of the effective log, ``(0, GENESIS)`` if it has none (branch-aware).

        The hash chains every event before it, so it names the whole log: what a derived table (a cache built
        from the log, such as ``turns``) records to know whether it still matches the log.
        """
        with self._tx(write=False, race=race) as conn:
            self._race_row(conn, race)  # raises StoreError for an unknown race
            return self._tail(conn, race)

    # ---- appending

    @staticmethod
    def _encode(event: Any) -> tuple[str, Any, str]:
        type_, v, text, _ = EventStore._encode_text(event)
        return type_, v, text

    @staticmethod
    def _encode_text(event: Any) -> tuple[str, Any, str, bytes]:
        """(type, v, canonical text, its bytes) of an event to store: the text is encoded once, for the hash."""
        if not isinstance(event, dict):
            raise MalformedInput(f"an event must be a JSON object, not {type(event).__name__}")
        type_ = event.get("type")
        if not isinstance(type_, str) or not type_:
            raise MalformedInput('an event needs a "type" (a string)')
        try:
            text = _CANONICAL(event)
            raw = text.encode()
        except (TypeError, ValueError, RecursionError) as exc:  # UnicodeEncodeError is a ValueError
            raise MalformedInput(f"the event cannot be stored as JSON: {exc}") from None
        return type_, _stored_v(event), text, raw

    def _tail(self, conn: sqlite3.Connection, race: int) -> tuple[int, str]:
        """(last seq, last hash) of the effective log, read inside the write transaction."""
        row = conn.execute(_TAIL, (race,)).fetchone()
        if row is not None:
            return int(row[0]), str(self._hash_text(row[1]))
        return self._base_of(conn, race)

    def _insert(
        self,
        conn: sqlite3.Connection,
        race: int,
        seq: int,
        prev_hash: str,
        encoded: tuple[str, Any, str],
    ) -> StoredEvent:
        type_, v, text = encoded
        digest = chain_hash(prev_hash, text.encode())
        recorded = _now()
        try:
            if self.format_version >= rows_.COMPACT:
                conn.execute(_INSERT_2, (race, *self._compact_row(seq, type_, v, text, prev_hash, digest, recorded)))
            else:
                conn.execute(_INSERT, (race, seq, type_, v, text, recorded, prev_hash, digest))
        except sqlite3.IntegrityError as exc:
            raise _conflict(exc, race, seq) from None
        return StoredEvent(race, seq, type_, v, json.loads(text), recorded, prev_hash, digest)

    @staticmethod
    def _compact_row(
        seq: int, type_: str, v: Any, text: str, prev_hash: str, digest: str, recorded: str | None = None
    ) -> tuple[Any, ...]:
        """A format-1 row's (seq, type, v, payload, prev_hash, hash[, recorded]) as format 2 stores them:
        (seq, type, v, payload, hash[, recorded]) in the column order of _INSERT_2 / _INSERT_RACE_2."""
        v_column, body = rows_.payload_column(type_, v, text)
        if recorded is None:
            return seq, type_, v_column, body, rows_.hash_column(digest)
        return seq, type_, v_column, body, rows_.recorded_column(recorded), rows_.hash_column(digest)

    def _insert_chained(
        self,
        conn: sqlite3.Connection,
        race: int,
        last_seq: int,
        last_hash: str,
        encoded: list[tuple[str, Any, str]],
    ) -> list[StoredEvent]:
        """The rows of ``encoded`` after (``last_seq``, ``last_hash``), hash-chained, in one ``executemany``;
        one time for the batch (they are written in the same transaction)."""
        recorded = _now()
        rows = []
        out: list[StoredEvent] = []
        for seq, (type_, v, text) in enumerate(encoded, start=last_seq + 1):
            digest = chain_hash(last_hash, text.encode())
            rows.append((race, seq, type_, v, text, recorded, last_hash, digest))
            out.append(StoredEvent(race, seq, type_, v, json.loads(text), recorded, last_hash, digest))
            last_hash = digest
        try:
            if self.format_version >= rows_.COMPACT:
                conn.executemany(
                    _INSERT_2, [(r[0], *self._compact_row(r[1], r[2], r[3], r[4], r[6], r[7], r[5])) for r in rows]
                )
            else:
                conn.executemany(_INSERT, rows)
        except sqlite3.IntegrityError as exc:
            raise _conflict(exc, race, last_seq + 1) from None
        return out

    def insert_events(self, conn: sqlite3.Connection, race: int, events: Sequence[dict[str, Any]]) -> None:
        """Write ``events`` as the first rows of ``race``, a race made in the caller's write transaction on this
        store's connection (the season import writes a season and its races in one), hash-chained from the
        genesis, in the file's format (heatlog.eventrows)."""
        self._insert_chained(conn, race, 0, GENESIS, [self._encode(event) for event in events])

    @staticmethod
    def _expect(race: int, expected_seq: int | None, seq: int) -> None:
        if expected_seq is not None and expected_seq != seq:
            if expected_seq < seq:
                why = f"another writer appended event {expected_seq} first"
            else:
                why = f"expected to write event {expected_seq}, but the next event is {seq}"
            raise ConflictError(f"{why}; nothing was written", race=race)

    def append(
        self,
        race: int,
        event: dict[str, Any],
        *,
        expected_seq: int | None = None,
        check: Check | None = None,
    ) -> StoredEvent:
        """Append ``event`` to the end of ``race``'s effective log, durably, and return the stored event.

        ``expected_seq`` is the seq the caller expects the new event to get (the log length it saw + 1);
        if the log changed meanwhile, ConflictError.  ``check(log, event)`` runs inside the write
        transaction with the current effective log; whatever it raises is re-raised unchanged and
        nothing is written.
        """
        encoded = self._encode(event)
        with self._tx(write=True, race=race) as conn:
            last_seq, last_hash = self._tail(conn, race)
            seq = last_seq + 1
            self._expect(race, expected_seq, seq)
            if check is not None:
                check(self._read_log(conn, race), event)
            stored = self._insert(conn, race, seq, last_hash, encoded)
        return stored

    def append_many(
        self,
        race: int,
        events: Iterable[dict[str, Any]],
        check: Check | None = None,
        *,
        expected_seq: int | None = None,
    ) -> list[StoredEvent]:
        """Append all ``events`` in one transaction: all are written or none (e.g. for an import)."""
        originals = list(events)
        encoded = [self._encode(event) for event in originals]
        out: list[StoredEvent] = []
        with self._tx(write=True, race=race) as conn:
            last_seq, last_hash = self._tail(conn, race)
            self._expect(race, expected_seq, last_seq + 1)
            if check is None:  # nothing to ask between the rows: chain them here, write them in one statement
                return self._insert_chained(conn, race, last_seq, last_hash, encoded)
            log = self._read_log(conn, race)
            for original, enc in zip(originals, encoded, strict=True):
                if check is not None:
                    check(log, original)
                stored = self._insert(conn, race, last_seq + 1, last_hash, enc)
                last_seq, last_hash = stored.seq, stored.hash
                out.append(stored)
                if check is not None:
                    log.append(stored)
        return out

    # ---- verification

    @contextlib.contextmanager
    def _raw_text(self) -> Iterator[None]:
        """Read text columns without trusting them: bytes that are not UTF-8 come back with surrogate escapes
        (``text.encode("utf-8", "surrogateescape")`` gives the stored bytes back) instead of failing the read."""
        conn = self.conn
        old = conn.text_factory
        conn.text_factory = _lenient_text
        try:
            yield
        finally:
            conn.text_factory = old

    def lenient_log(self, race: int) -> list[tuple[int, dict[str, Any] | None]]:
        """(seq, event or None) of the effective log: None where the row does not hold a JSON object (for
        audits, which report such rows and go on)."""
        out: list[tuple[int, dict[str, Any] | None]] = []
        with self._raw_text(), self._tx(write=False, race=race) as conn:
            for seg_race, low, high in self._segments(conn, race):
                for seq, payload in self._payload_rows(conn, _SELECT_PAYLOADS, (seg_race, low, high)):
                    event: Any = None
                    if isinstance(payload, str) and not _escaped(payload):
                        with contextlib.suppress(ValueError, RecursionError):
                            event = json.loads(payload)
                    out.append((int(seq), event if isinstance(event, dict) else None))
        return out

    def integrity_check(self) -> list[str]:
        """What SQLite's ``PRAGMA integrity_check`` finds wrong with the file (empty: ok). Unlike
        ``quick_check`` it also checks that every index holds exactly its table's rows (a flipped byte in an
        index entry makes a lookup miss a row that a scan finds) and UNIQUE constraints."""
        return self._pragma_check("integrity_check")

    def quick_check(self) -> list[str]:
        """What SQLite's own ``PRAGMA quick_check`` finds wrong with the file's pages and indexes (empty: ok)."""
        return self._pragma_check("quick_check")

    def _pragma_check(self, pragma: str) -> list[str]:
        with self._guard() as conn:
            try:
                rows = [str(r[0]) for r in conn.execute(f"PRAGMA {pragma}")]
            except sqlite3.DatabaseError as exc:
                return [f"{pragma} cannot run: {exc}"]
        return [] if rows == ["ok"] else rows

    def missing_guards(self) -> list[str]:
        """Names of the append-only triggers the file lacks or holds changed (dropped or edited by hand)."""
        with self._guard() as conn:
            have = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall())
        expected = dict(_GUARDS)
        expected.update(
            {
                "events_no_update": "",
                "events_no_delete": "",
                "races_no_reparent": "",
                "races_no_delete": "",
            }
        )
        return [n for n, sql in expected.items() if n not in have or (sql and have[n] != sql)]

    def verify(self, race: int) -> list[Problem]:
        """Recompute the hash chain over the stored rows of ``race``'s effective log; return every problem
        (rows that do not decode, blobs and unreadable rows are problems too, never a stop)."""
        return self.verify_read(race)[0]

    def verify_read(self, race: int) -> tuple[list[Problem], list[tuple[int, dict[str, Any] | None]]]:
        """:meth:`verify` and :meth:`lenient_log` in one pass (each row read and decoded once): every problem,
        and (seq, event or None) of the effective log."""
        return self._verify(race)

    def _segment_rows(self, conn: sqlite3.Connection, args: tuple[int, int, int], prev: str | None) -> list[Any]:
        """The rows of one segment for :meth:`_verify`: decoded by SQLite's own UTF-8 reader (no Python call per
        column: an audit reads every row of every race), or, when a column is not UTF-8, read again with
        surrogate escapes (:meth:`_raw_text`) so the damaged row is reported and the audit goes on."""
        try:
            return self._event_rows(conn, args, prev)
        except sqlite3.OperationalError as exc:
            if "decode" not in str(exc):
                raise
        with self._raw_text():
            return self._event_rows(conn, args, prev)

    def _verify(self, race: int) -> tuple[list[Problem], list[tuple[int, dict[str, Any] | None]]]:
        problems: list[Problem] = []
        read: list[tuple[int, dict[str, Any] | None]] = []
        compact = self.format_version >= rows_.COMPACT
        computed: str | None = None  # format 2: the hash of the row before by its content
        with self._tx(write=False, race=race) as conn:
            segments = self._segments(conn, race)
            expected_seq = 1
            expected_prev = GENESIS
            after_gap = False  # the row after a gap cannot chain; the gap is the problem
            for seg_race, low, high in segments:
                if seg_race == race:
                    for (seq,) in conn.execute(
                        "SELECT seq FROM events WHERE race = ? AND seq <= ? ORDER BY seq", (race, low)
                    ):
                        problems.append(
                            Problem(race, seq, "stray", f"row {seq} lies inside the shared prefix (1..{low})")
                        )
                rows = self._segment_rows(conn, (seg_race, low, high), expected_prev)
                for seg_row in rows:
                    _, seq, type_, v, payload, _, prev_hash, hash_ = seg_row
                    if isinstance(payload, bytes):
                        problems.append(Problem(seg_race, seq, "blob", "payload is a blob, not text"))
                        payload = payload.decode("utf-8", "surrogateescape")
                    elif not isinstance(payload, str):
                        problems.append(Problem(seg_race, seq, "json", f"payload is a {type(payload).__name__}"))
                        payload = str(payload)
                    try:  # the bytes of the row, once (the hash and the canonical form are over them)
                        raw = payload.encode()
                        escaped = False
                    except UnicodeEncodeError:
                        raw = payload.encode("utf-8", "surrogateescape")
                        escaped = True
                        problems.append(Problem(seg_race, seq, "text", "payload is not UTF-8 text"))
                    unchained = compact and prev_hash is None  # format 2: the hash before is not a hash
                    if not isinstance(prev_hash, str) and not unchained or not isinstance(hash_, str):
                        problems.append(Problem(seg_race, seq, "columns", "prev_hash or hash is not text"))
                    prev_hash, hash_ = str(prev_hash), str(hash_)
                    if not prev_hash.isascii() or not hash_.isascii():  # bytes that are not text: not a hash
                        why = "prev_hash or hash holds bytes that are not text"
                        problems.append(Problem(seg_race, seq, "columns", why))
                        prev_hash = prev_hash.encode("ascii", "backslashreplace").decode()
                        hash_ = hash_.encode("ascii", "backslashreplace").decode()
                    if seq != expected_seq:
                        missing = f"events {expected_seq}..{seq - 1}"
                        if seq == expected_seq + 1:
                            missing = f"event {expected_seq}"
                        problems.append(Problem(seg_race, expected_seq, "gap", f"{missing} missing"))
                        after_gap = True
                    text = payload
                    if prev_hash != expected_prev and not after_gap:
                        problems.append(
                            Problem(
                                seg_race,
                                seq,
                                "chain",
                                "prev_hash does not continue the chain from the event before "
                                "(rows reordered, replaced or removed)",
                            )
                        )
                    mine = chain_hash(str(prev_hash), raw)
                    if unchained or compact and after_gap:
                        pass  # format 2 keeps no prev_hash: the row after a gap has no hash to chain from
                    elif mine != hash_:
                        if compact and computed not in (None, prev_hash) and chain_hash(computed, raw) == hash_:
                            # format 2: it chains from what the row before holds, not from the hash stored with it
                            why = "it does not continue the chain from the event before (its stored hash was changed)"
                            problems.append(Problem(seg_race, seq, "chain", why))
                        else:
                            problems.append(Problem(seg_race, seq, "hash", "payload changed: its hash does not match"))
                    computed = mine
                    event: Any = None
                    if not escaped:
                        try:  # json.loads without its per-call overhead; anything unusual takes the slow path
                            event, end = _SCAN(text, 0)
                            if end != len(text):
                                event = json.loads(text)
                        except StopIteration:
                            with contextlib.suppress(ValueError, RecursionError):
                                event = json.loads(text)
                        except (ValueError, RecursionError):
                            event = None
                    if not isinstance(event, dict):
                        problems.append(Problem(seg_race, seq, "json", "payload is not a valid JSON object"))
                        read.append((int(seq), None))
                    else:
                        read.append((int(seq), event))
                        try:  # text, not bytes: the same verdict (raw is text.encode()) without an encode
                            is_canonical = _CANONICAL(event) == text
                        except ValueError:
                            is_canonical = False
                        if not is_canonical:
                            problems.append(Problem(seg_race, seq, "canonical", "payload is not canonical JSON"))
                        ev_v = event.get("v")
                        ev_v = ev_v if isinstance(ev_v, int) and not isinstance(ev_v, bool) else None
                        if event.get("type") != type_ or ev_v != v:
                            problems.append(
                                Problem(
                                    seg_race,
                                    seq,
                                    "columns",
                                    f"columns say type={type_!r} v={v!r} but the payload says "
                                    f"type={event.get('type')!r} v={event.get('v')!r}",
                                )
                            )
                    after_gap = False
                    expected_seq = seq + 1
                    expected_prev = str(hash_)
                if seg_race != race and high != _NO_LIMIT and expected_seq <= high:
                    problems.append(
                        Problem(
                            seg_race,
                            expected_seq,
                            "gap",
                            f"events {expected_seq}..{high} of the prefix missing",
                        )
                    )
                    expected_seq = high + 1
                    after_gap = True
        return problems, read

    # ---- anchors: a race's head, kept elsewhere, detects truncation and a consistent re-hash

    def head(self, race: int) -> tuple[int, str]:
        """(last seq, hash of the last event) of the effective log: (0, GENESIS) for an empty race."""
        with self._tx(write=False, race=race) as conn:
            return self._tail(conn, race)

    def hash_at(self, race: int, seq: int) -> str | None:
        """The stored hash of event ``seq`` of the effective log (branch-aware), or None if there is none."""
        with self._tx(write=False, race=race) as conn:
            return self._hash_at(conn, race, seq)

    def _hash_at(self, conn: sqlite3.Connection, race: int, seq: int) -> str | None:
        if seq == 0:
            return GENESIS
        for seg_race, low, high in self._segments(conn, race):
            if low < seq <= high:
                row = conn.execute("SELECT hash FROM events WHERE race = ? AND seq = ?", (seg_race, seq)).fetchone()
                return None if row is None else str(self._hash_text(row[0]))
        return None

    def anchor(self, race: int) -> dict[str, Any]:
        """The anchor of a race: ``{"heatlog_anchor": 1, "race": id, "seq": last seq, "head": hash}``."""
        seq, digest = self.head(race)
        return {"heatlog_anchor": ANCHOR_VERSION, "race": race, "seq": seq, "head": digest}

    def check_anchor(self, anchor: dict[str, Any]) -> list[Problem]:
        """What the file says against an anchor kept elsewhere: the race is there, its log reaches the
        anchor's seq (else it was cut short) and its event there has the anchor's hash (else the log was
        rewritten, even if consistently re-hashed). Appends after the anchor are fine."""
        race, seq, head = anchor.get("race"), anchor.get("seq"), anchor.get("head")
        if not isinstance(race, int) or not isinstance(seq, int) or not isinstance(head, str):
            return [Problem(0, 0, "anchor", f"not an anchor: {anchor!r}"[:200])]
        try:
            length = self.length(race)
        except StoreError:
            return [Problem(race, 0, "anchor", f"race {race} of the anchor is not in the file (removed?)")]
        if length < seq:
            why = f"log cut short: the anchor has {seq} events, the file {length}"
            return [Problem(race, length + 1, "anchor", why)]
        found = self.hash_at(race, seq)
        if found != head:
            return [
                Problem(
                    race,
                    seq,
                    "anchor",
                    f"log rewritten: event {seq} has hash {str(found)[:12]}…, the anchor {head[:12]}…",
                )
            ]
        return []

    # ---- export / import

    def export_jsonl(self, race: int, *, anchor: bool = False) -> str:
        """The effective log as JSON Lines: one canonical event per line, each line ending with a newline; with
        ``anchor``, a last line holding the race's anchor (:meth:`anchor`), which import checks."""
        with self._tx(write=False, race=race) as conn:
            parts: list[str] = []
            for _, rows in self._checked(conn, race, 0, None):
                parts.extend(row[1] + "\n" for row in rows)  # checked: UTF-8 text, as stored
            if anchor:
                seq, digest = self._tail(conn, race)
                line = {"heatlog_anchor": ANCHOR_VERSION, "race": race, "seq": seq, "head": digest}
                parts.append(canonical(line).decode() + "\n")
        return "".join(parts)

    # ---- snapshots (a cache: freely replaced and deleted)

    def put_snapshot(self, race: int, round: int, rules_version: str, seq: int, state: dict[str, Any]) -> None:
        """Cache one snapshot (replacing the race's snapshot of that round under that rules version)."""
        self.put_snapshots(race, rules_version, [(round, seq, state)])

    def put_snapshots(self, race: int, rules_version: str, snaps: list[tuple[int, int, dict[str, Any]]]) -> None:
        """Cache many (round, seq, state) snapshots in one transaction (one sync, not one per round)."""
        if not snaps:
            return
        with self._tx(write=True, race=race) as conn:
            self._race_row(conn, race)
            rows = []
            for rnd, seq, state in snaps:
                at = self._hash_at(conn, race, seq)
                if at is None:
                    continue
                body = canonical(state).decode()
                seal = _snapshot_seal(race, at, rules_version, body)
                text = '{"at":"' + at + '","seal":"' + seal + '","state":' + body + "}"
                rows.append((race, rnd, rules_version, seq, text))
            conn.executemany(
                "INSERT OR REPLACE INTO snapshots (race, round, rules_version, seq, state) VALUES (?, ?, ?, ?, ?)",
                rows,
            )

    def get_snapshot(
        self,
        race: int,
        rules_version: str,
        *,
        round: int | None = None,
        max_seq: int | None = None,
    ) -> Snapshot | None:
        """The snapshot of ``round`` (or the latest, with seq <= max_seq if given) for ``rules_version``."""
        if round is not None and not 0 <= round <= SQLITE_MAX:
            return None  # no round has that number
        sql = "SELECT race, round, rules_version, seq, state FROM snapshots WHERE race = ? AND rules_version = ?"
        params: list[Any] = [race, rules_version]
        if round is not None:
            sql += " AND round = ?"
            params.append(round)
        if max_seq is not None:
            sql += " AND seq <= ?"
            params.append(max_seq)
        sql += " ORDER BY seq DESC, round DESC LIMIT 1"
        with self._guard(race):
            rows = self._query(sql, params)
        if not rows:
            return None
        row = rows[0]
        state = self._unseal(race, row)
        if state is None:
            return None  # a damaged, edited or stale cache entry is a miss: the caller refolds (and rebuilds it)
        return Snapshot(row["race"], row["round"], row["rules_version"], row["seq"], state)

    def _unseal(self, race: int, row: dict[str, Any]) -> dict[str, Any] | None:
        """The state of a snapshot row if it holds: it names the hash of the event it was taken at, that event
        still has it, and its seal (sha256 over that hash, the rules version and the state) matches."""
        text = row["state"]
        if not isinstance(text, str) or not text.startswith('{"at":"'):
            return None
        at, seal = text[7:71], text[81:145]
        body = text[155:-1]
        if text[71:81] != '","seal":"' or text[145:155] != '","state":':
            return None
        expected = _snapshot_seal(race, at, row["rules_version"], body)
        if not hmac.compare_digest(seal, expected) or self.hash_at(race, int(row["seq"])) != at:
            return None
        try:
            state = json.loads(body)
        except (ValueError, RecursionError):
            return None
        return state if isinstance(state, dict) else None

    def clear_snapshots(self, race: int | None = None, *, from_seq: int | None = None) -> int:
        """Delete cached snapshots (of one race, or all; only those at seq >= from_seq if given)."""
        sql = "DELETE FROM snapshots WHERE 1 = 1"
        params: list[Any] = []
        if race is not None:
            sql += " AND race = ?"
            params.append(race)
        if from_seq is not None:
            sql += " AND seq >= ?"
            params.append(from_seq)
        with self._tx(write=True, race=race) as conn:
            return int(conn.execute(sql, params).rowcount)

    # ---- recorder sessions (UI state of heatlog record: who records a race, and its cursor; never race truth)

    RECORDER_TABLE = "recorder_sessions"
    _RECORDER_DDL = (
        "CREATE TABLE IF NOT EXISTS recorder_sessions (race INTEGER PRIMARY KEY REFERENCES races(id), "
        "pid INTEGER, host TEXT, start TEXT, since TEXT, cursor TEXT)"
    )

    def _recorder_ready(self, race: int) -> None:
        """The side table exists (made on first use: older files, and read-only ones that never record)."""
        if self._recorder_table:
            return
        with self._guard(race) as conn:
            conn.execute(self._RECORDER_DDL)
        self._recorder_table = True

    def recorder_session(self, race: int) -> RecorderSession | None:
        """The recorder row of ``race``: the lease holder (None when free) and the saved cursor."""
        self._recorder_ready(race)
        with self._guard(race) as conn:
            row = conn.execute(
                "SELECT pid, host, start, since, cursor FROM recorder_sessions WHERE race = ?", (race,)
            ).fetchone()
        if row is None:
            return None
        return RecorderSession(row[0], row[1], row[2] or "", row[3] or "", row[4])

    def take_recorder(
        self,
        race: int,
        holder: tuple[int, str, str, str],
        allow: Callable[[RecorderSession | None], None],
    ) -> None:
        """Make ``holder`` (pid, host, process start, since) the race's recorder in one transaction. ``allow``
        sees the current row first and raises to refuse (the recorder's policy: who may take over)."""
        self._recorder_ready(race)
        pid, host, start, since = holder
        with self._tx(write=True, race=race) as conn:
            row = conn.execute(
                "SELECT pid, host, start, since, cursor FROM recorder_sessions WHERE race = ?", (race,)
            ).fetchone()
            allow(RecorderSession(row[0], row[1], row[2] or "", row[3] or "", row[4]) if row else None)
            conn.execute(
                "INSERT INTO recorder_sessions (race, pid, host, start, since) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(race) DO UPDATE SET pid = excluded.pid, host = excluded.host, start = excluded.start, "
                "since = excluded.since",
                (race, pid, host, start, since),
            )

    def release_recorder(self, race: int, pid: int, host: str) -> None:
        """Free the race if ``pid`` on ``host`` still holds it (the cursor stays)."""
        self._recorder_ready(race)
        with self._guard(race) as conn:
            conn.execute(
                "UPDATE recorder_sessions SET pid = NULL, host = NULL, start = NULL WHERE race = ? AND pid = ? "
                "AND host = ?",
                (race, pid, host),
            )

    def save_recorder_cursor(self, race: int, cursor: dict[str, Any] | None) -> None:
        self._recorder_ready(race)
        with self._guard(race) as conn:
            conn.execute(
                "UPDATE recorder_sessions SET cursor = ? WHERE race = ?",
                (json.dumps(cursor, allow_nan=False) if cursor is not None else None, race),
            )

    # ---- race summaries (a cache of what `heatlog races` shows: status, winner, rounds; never race truth)

    SUMMARY_TABLE = "race_summaries"
    _SUMMARY_DDL = (
        "CREATE TABLE IF NOT EXISTS race_summaries (race INTEGER PRIMARY KEY REFERENCES races(id), "
        "length INTEGER NOT NULL, rules_version TEXT NOT NULL, summary TEXT NOT NULL)"
    )

    def race_summaries(self, rules_version: str) -> dict[int, tuple[int, dict[str, Any]]]:
        """Every cached summary made under ``rules_version``: race -> (effective log length it was made at,
        summary). A file without the table (older, or read-only) has none."""
        with self._guard() as conn:
            try:
                rows = conn.execute(
                    "SELECT race, length, summary FROM race_summaries WHERE rules_version = ?", (rules_version,)
                ).fetchall()
            except sqlite3.OperationalError:
                return {}
        out: dict[int, tuple[int, dict[str, Any]]] = {}
        for race, length, text in rows:
            try:
                summary = json.loads(text)
            except (TypeError, ValueError):
                continue  # a damaged cache row is recomputed
            if isinstance(summary, dict):
                out[int(race)] = (int(length), summary)
        return out

    def put_race_summaries(self, rules_version: str, rows: list[tuple[int, int, dict[str, Any]]]) -> None:
        """Cache (race, effective log length, summary) rows in one transaction, replacing older ones."""
        if not rows:
            return
        with self._tx(write=True) as conn:
            conn.execute(self._SUMMARY_DDL)
            conn.executemany(
                "INSERT INTO race_summaries (race, length, rules_version, summary) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(race) DO UPDATE SET length = excluded.length, rules_version = excluded.rules_version, "
                "summary = excluded.summary",
                [(race, length, rules_version, canonical(summary).decode()) for race, length, summary in rows],
            )

    # ---- helpers

    @staticmethod
    def _encode_meta(meta: dict[str, Any] | None) -> str:
        if meta is None:
            meta = {}
        if not isinstance(meta, dict):
            raise MalformedInput(f"race meta must be a JSON object, not {type(meta).__name__}")
        try:
            return canonical(meta).decode()
        except (TypeError, ValueError) as exc:
            raise MalformedInput(f"race meta cannot be stored as JSON: {exc}") from None


class _Chain:
    """The running check of a hash chain over rows read in seq order (see :meth:`EventStore._checked`)."""

    __slots__ = ("store", "race", "seq", "prev", "computed")

    def __init__(self, store: EventStore, race: int, seq: int, prev: str | None) -> None:
        self.store, self.race, self.seq, self.prev = store, race, seq, prev
        self.computed: str | None = None  # the hash the row before has by its content (format 2's chain check)

    def check(self, seg_race: int, rows: list[tuple[Any, ...]], high: int) -> None:
        """Check ``(seq, payload, prev_hash, hash)`` rows of ``seg_race`` (a segment ending at ``high``)."""
        sha = sha256
        seq, prev, computed = self.seq, self.prev, self.computed
        for row_seq, payload, prev_hash, digest in rows:
            derived = prev_hash is None
            if derived:  # format 2 keeps no prev_hash: the row chains from the hash of the row before
                if row_seq != seq or prev is None:  # after a gap there is none to chain from: the gap is the damage
                    if row_seq != seq:
                        self._damage(seg_race, seq, "gap", _missing(seq, row_seq - 1))
                    seq, prev, computed = row_seq + 1, digest, None
                    continue
                prev_hash = prev
            if row_seq != seq:
                self._damage(seg_race, seq, "gap", _missing(seq, row_seq - 1))
            elif prev_hash != prev and prev is not None:
                why = "it does not continue the hash chain from the event before (rows reordered, replaced or removed)"
                self._damage(seg_race, row_seq, "chain", why)
            try:
                mine = sha((prev_hash + payload).encode()).hexdigest()
            except (TypeError, UnicodeEncodeError):
                self._damage(seg_race, row_seq, "text", "its row does not hold UTF-8 text where text belongs")
                raise StoreError(f"event {row_seq} is not UTF-8 text: it cannot be read", race=self.race) from None
            if mine != digest:
                if derived and computed not in (None, prev) and _rehash(computed, payload) == digest:
                    # format 2: the row chains from what the row before holds, not from the hash stored with it
                    why = "it does not continue the hash chain from the event before (its stored hash was changed)"
                    self._damage(seg_race, row_seq, "chain", why)
                else:
                    self._damage(seg_race, row_seq, "hash", "its content changed (its hash does not match)")
            seq, prev, computed = row_seq + 1, digest, mine
        if high != _NO_LIMIT and seq <= high:
            self._damage(seg_race, seq, "gap", _missing(seq, high))
            seq, prev, computed = high + 1, None, None  # the next segment cannot chain from what is missing
        self.seq, self.prev, self.computed = seq, prev, computed

    def _damage(self, seg_race: int, seq: int, kind: str, message: str) -> None:
        if seg_race != self.race:
            message += f" (in the prefix shared with race {seg_race})"
        problem = Problem(self.race, seq, kind, message)
        if self.store.on_damage is None:
            raise DamagedLog(problem, self.store.force_hint)
        self.store.on_damage(problem)


def _rehash(prev: Any, payload: Any) -> str | None:
    try:
        return chain_hash(prev, payload.encode())
    except (TypeError, UnicodeEncodeError, AttributeError):
        return None


def _missing(first: int, last: int) -> str:
    return f"event {first} is missing" if first == last else f"events {first}..{last} are missing"


def _undecodable(path: Path) -> str:
    return f"file is not a heatlog database or is damaged (its schema holds bytes that are not UTF-8): {path}"


def _snapshot_seal(race: int, at: str, rules_version: str, body: str) -> str:
    """A snapshot's seal: keyed (heatlog.cachekey), so that nobody who edits the file can make a forged state
    look sealed (an unkeyed SHA-256 of values in the file could be recomputed: issue 30)."""
    from .cachekey import seal

    return seal("snapshot", str(race), at, rules_version, body)


def _lenient_text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _replaced_text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _escaped(text: str) -> bool:
    """True if ``text`` holds surrogate escapes, i.e. its stored bytes were not UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# --------------------------------------------------------------------------------------------------------
# JSON Lines


def parse_jsonl(
    text: str, anchors: list[tuple[int, dict[str, Any]]] | None = None
) -> list[tuple[int, dict[str, Any]]]:
    """Parse JSON Lines into (line number, event) pairs; blank lines are skipped.

    Lines split on ``\\n`` only and every line is read by the one safe reader (:func:`heatlog.jsonio.loads`).
    Raises MalformedInput naming EVERY bad line (not JSON, too deep, not an object, no "type"). Anchor lines
    (``{"heatlog_anchor": ...}``, written at the end of an export) are not events: they go to ``anchors``.
    """
    from .jsonio import json_line_values

    out: list[tuple[int, dict[str, Any]]] = []
    bad: list[str] = []
    for number, value in json_line_values(text):
        if isinstance(value, MalformedInput):
            bad.append(f"line {number}: {value.message}")
            continue
        if not isinstance(value, dict):
            bad.append(f"line {number}: not a JSON object (got {type(value).__name__})")
            continue
        if "heatlog_anchor" in value and "type" not in value:
            if anchors is not None:
                anchors.append((number, value))
            continue
        if not isinstance(value.get("type"), str) or not value["type"]:
            bad.append(f'line {number}: the event has no "type"')
            continue
        out.append((number, value))
    if bad:
        lines = ", ".join(b.split(":", 1)[0].removeprefix("line ") for b in bad[:20])
        more = f" and {len(bad) - 20} more" if len(bad) > 20 else ""
        raise MalformedInput(f"{len(bad)} bad line(s) ({lines}{more}): " + "; ".join(bad[:20]) + more)
    return out


def _payload_v(payload: str) -> int | None:
    """The ``v`` column format 1 has for a payload stored whole in format 2 (heatlog.eventrows): its integer v."""
    try:
        event = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    return _stored_v(event) if isinstance(event, dict) else None


def _stored_v(event: dict[str, Any]) -> int | None:
    """The ``v`` column of an event's row: its version when it is an integer (not a bool), else NULL."""
    v = event.get("v")
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def read_jsonl(
    text: str, anchors: list[tuple[int, dict[str, Any]]] | None = None
) -> tuple[list[tuple[int, dict[str, Any]]], list[str] | None]:
    """:func:`parse_jsonl`'s events (same values, same refusals) and, when the fast reader read the text, the
    canonical text of each event (else None), which the import stores and hashes instead of encoding again.

    The fast reader (:func:`heatlog.jsonio.joined_line_values`) reads the lines joined, a thousand at a time;
    its values are taken only when every line is proven to read alone as its value: the line is the value's
    canonical text (an export's lines are), holds no ``\\u`` escape (whose surrogates the line reader checks)
    and has at most MAX_DEPTH openings; or else the line reader reads it as that value. Anything else (a value
    that is not an object, no "type", a line that does not read alone) and the text is read line by line by
    :func:`parse_jsonl`, which words every refusal as before. The common work runs in C, over whole lists."""
    fast = _read_joined(text)
    if fast is None:
        return parse_jsonl(text, anchors), None
    events, found, texts = fast
    if anchors is not None:
        anchors.extend(found)
    return events, texts


def _read_joined(
    text: str,
) -> tuple[list[tuple[int, dict[str, Any]]], list[tuple[int, dict[str, Any]]], list[str]] | None:
    """(events, anchors, canonical texts) by the fast reader of :func:`read_jsonl`, or None."""
    from .jsonio import joined_line_values, loads

    joined = joined_line_values(text)
    if joined is None:
        return None
    lines, values, deep = joined
    # A line that reads alone reads as the same value wherever it stands, so one proof serves every copy of it:
    # the proofs (and the canonical texts) are made once per distinct line, and an event log repeats most of
    # its lines (the same flips, gears, boosts: ~70 % of a simulated race's lines are copies).
    distinct = dict(zip(lines, values, strict=True))
    try:
        canonical_of = dict(zip(distinct, map(_CANONICAL, distinct.values()), strict=True))
        kinds = list(map(dict.get, values, repeat("type")))  # TypeError: a value is not an object
    except (TypeError, ValueError, RecursionError):
        return None
    # The lines to read alone: not their value's canonical text, holding a \u escape, or deep.
    check = {lines[i] for i in deep}
    if list(canonical_of) != list(canonical_of.values()):
        check.update(line for line, canon in canonical_of.items() if line != canon)
    if "\\u" in text:
        check.update(line for line in distinct if "\\u" in line)
    for line in check:
        try:
            alone = loads(line, encodable=True)  # the text encodes: no raw lone surrogate
        except MalformedInput:
            return None
        if alone != distinct[line]:
            return None
    texts = list(map(canonical_of.__getitem__, lines))  # copies of a line share one text
    events = list(zip(range(1, len(values) + 1), values, strict=True))
    if set(map(type, kinds)) == {str} and "" not in kinds:  # every value an event with a "type"
        return events, [], texts
    found: list[tuple[int, dict[str, Any]]] = []
    others: set[int] = set()
    for i, (kind, value) in enumerate(zip(kinds, values, strict=True)):
        if isinstance(kind, str) and kind:
            continue
        if "heatlog_anchor" not in value or "type" in value:
            return None  # parse_jsonl words it
        found.append(events[i])
        others.add(i)
    keep = [i for i in range(len(values)) if i not in others]
    return [events[i] for i in keep], found, [texts[i] for i in keep]
