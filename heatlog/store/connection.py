"""Opening a heatlog file (recognising it, its format, read-only media, WAL and durability), its lifetime, the error
boundary (every sqlite3 error in a player's words) and transactions.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, NoReturn, Self

from heatlog.engine.errors import CANT_READ, CANT_WRITE, NOT_FOUND, MalformedInput, StoreError

from .records import APPEND_ONLY, APPLICATION_ID, FORMAT_VERSION, SQLITE_MAX, Problem, canonical
from .schema import GUARDS, RETRACTED_INDEX, create_schema


def undecodable(path: Path) -> str:
    return f"file is not a heatlog database or is damaged (its schema holds bytes that are not UTF-8): {path}"


def lenient_text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def replaced_text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


class StoreConnection:
    """The StoreConnection job of the event store (heatlog.store.connection)."""

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
        #: The events table's layout (heatlog.store.eventrows): format 2 for new files, 1 for files made before it.
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

    def _open(self, create: bool, busy_timeout_ms: int) -> sqlite3.Connection:
        if self._memory:
            if not create:
                raise StoreError("no heatlog database at :memory:", words=NOT_FOUND)
            conn = sqlite3.connect(":memory:", isolation_level=None)
        else:
            path = self.path
            if path.is_dir():
                raise StoreError(f"this is a directory, not a heatlog database: {path}", words=CANT_READ)
            if not path.exists():
                if not create:
                    raise StoreError(f"no heatlog database at {path}", words=NOT_FOUND)
                if not path.parent.is_dir():
                    raise StoreError(f"directory does not exist: {path.parent}", words=NOT_FOUND)
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
                    raise StoreError(undecodable(self.path), words=CANT_READ) from None
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
                        create_schema(db, self.format_version)
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
                raise StoreError(undecodable(self.path), words=CANT_READ) from None
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
            raise StoreError(f"database is read-only (check the file's permissions): {self.path}", words=CANT_WRITE)
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
        missing = [sql for name, sql in GUARDS.items() if name not in have]
        if "events_retracted" not in have:
            missing.append(RETRACTED_INDEX)
        for sql in missing:
            with contextlib.suppress(sqlite3.Error):
                conn.execute(sql)

    def _recognise(self, conn: sqlite3.Connection, create: bool) -> bool:
        """True if the file is empty (to be initialised); raise unless it is a heatlog database."""
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        n_objects = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app_id == 0 and n_objects == 0:
            if not create:
                raise StoreError(f"file is not a heatlog database (it is empty): {self.path}", words=CANT_READ)
            return True
        if app_id != APPLICATION_ID:
            raise StoreError(f"file is not a heatlog database: {self.path}", words=CANT_READ)
        try:
            rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.OperationalError:
            rows = {}
        if rows.get("application") != "heatlog":
            raise StoreError(f"file is not a heatlog database or is damaged: {self.path}", words=CANT_READ)
        try:
            version = int(rows.get("format_version", ""))
        except ValueError:
            raise StoreError(f"file is not a heatlog database or is damaged: {self.path}", words=CANT_READ) from None
        if version > FORMAT_VERSION:
            raise StoreError(
                f"database format {version} is newer than this heatlog understands ({FORMAT_VERSION}): {self.path}",
                words=CANT_READ,
            )
        self.format_version = version
        return False

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None

    def __enter__(self) -> Self:
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
        words: str | None = None  # the store's own ("can't use the database") unless said
        if APPEND_ONLY in text:
            message = text.split("heatlog: ", 1)[1]
        elif primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in low:
            message = f"database is locked by another program: {where}"
        elif (
            primary in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT) or "not a database" in low or "malformed" in low
        ):
            message, words = f"file is not a heatlog database or is damaged: {where}", CANT_READ
        elif primary == sqlite3.SQLITE_READONLY or "readonly" in low or "read-only" in low:
            message, words = f"database is read-only (check the file's permissions): {where}", CANT_WRITE
        elif primary == sqlite3.SQLITE_CANTOPEN or "unable to open" in low:
            if not self._memory and not self.path.parent.is_dir():
                message, words = f"directory does not exist: {self.path.parent}", NOT_FOUND
            else:
                message, words = f"cannot open the database file (permissions?): {where}", CANT_READ
        elif primary == sqlite3.SQLITE_FULL or "full" in low:
            message, words = f"disk is full; nothing was written: {where}", CANT_WRITE
        elif primary == sqlite3.SQLITE_IOERR or "i/o" in low:
            message = f"disk I/O error ({text}): {where}"
        elif isinstance(exc, sqlite3.ProgrammingError) and "closed" in low:
            message = f"the event store is closed: {where}"
        else:
            message = f"database error ({text}): {where}"
        return StoreError(message, race=race, words=words)

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

    @contextlib.contextmanager
    def _raw_text(self) -> Iterator[None]:
        """Read text columns without trusting them: bytes that are not UTF-8 come back with surrogate escapes
        (``text.encode("utf-8", "surrogateescape")`` gives the stored bytes back) instead of failing the read."""
        conn = self.conn
        old = conn.text_factory
        conn.text_factory = lenient_text
        try:
            yield
        finally:
            conn.text_factory = old

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
