"""The derived ``turns`` table: per-turn facts in the database, where sqlite-utils, Datasette, pandas or DuckDB
read them (docs/stats.md).

Derived, never truth: the rows are rebuilt from the log (:mod:`heatlog.stats.facts`) and may be dropped at any
time. The door (:meth:`heatlog.log.racelog.RaceLog.append`) and the audit never read them. Two tables:

``turns``    one row per completed turn: (race, round, turn) and the :class:`~heatlog.stats.facts.TurnFacts`
             columns. Booleans are 0/1. What analysts query.
``derived``  one row per race whose turns are in ``turns``: the log they were built from (``length`` and
             ``tail_hash``, the hash of its last event, which chains every event before it), the rules version,
             when, the race's summary (finishing order, track, mode) and its facts as one JSON array
             (``facts``: what ``heatlog stats`` reads, one row per race instead of one per turn), a digest of
             summary and facts, and a digest of the race's ``turns`` rows.

A race's facts are used only while its ``derived`` row matches the log (same last hash, same length), the
rules (same version) and its digest; otherwise they are rebuilt from the log. ``heatlog turns`` also checks
the ``turns`` rows against their digest. So an append, a retraction, a change of the rules or an edit of either
table by hand is noticed and repaired.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import sqlite3
from collections.abc import Callable, Generator, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from .. import RULES_VERSION
from ..formats.hashing import same_text
from ..store import DamagedLog, Problem
from ..store.cachekey import seal
from .facts import TURN_COLUMNS, TURN_FIELD_TYPES, RaceFacts, TurnFacts, race_facts

TURNS = "turns"
DERIVED = "derived"

_BOOL = frozenset(name for name, tp in TURN_FIELD_TYPES.items() if tp == "bool")
_INT = frozenset(name for name, tp in TURN_FIELD_TYPES.items() if tp in ("int", "int | None"))


def _sql_type(name: str) -> str:
    return "INTEGER" if name in _BOOL or name in _INT else "TEXT"


_DDL = [
    f"CREATE TABLE IF NOT EXISTS {TURNS} ("
    + ", ".join(f"{c} {_sql_type(c)}" for c in TURN_COLUMNS)
    + ", PRIMARY KEY (race, round, turn))",
    f"CREATE INDEX IF NOT EXISTS {TURNS}_car ON {TURNS} (race, car)",
    f"CREATE TABLE IF NOT EXISTS {DERIVED} (race INTEGER PRIMARY KEY, rules_version TEXT NOT NULL, "
    "length INTEGER NOT NULL, tail_hash TEXT NOT NULL, built TEXT NOT NULL, summary TEXT NOT NULL, "
    "facts TEXT NOT NULL, digest TEXT NOT NULL, rows_digest TEXT NOT NULL)",
]
DDL: tuple[str, ...] = tuple(_DDL)  # the derived tables' statements, made when first needed (schema_repair names them)
_INSERT = f"INSERT INTO {TURNS} ({', '.join(TURN_COLUMNS)}) VALUES ({', '.join('?' * len(TURN_COLUMNS))})"
_SELECT = f"SELECT {', '.join(TURN_COLUMNS)} FROM {TURNS}"

Row = tuple[Any, ...]
#: Races to fold from which a pool of processes folds them (below, starting the pool costs more than it saves).
PARALLEL_FROM = 200
_POOL_CHUNK = 25  # races per task of the pool
#: A race's facts (or, for a damaged log, the first defect its read found) and the tail of the log they were
#: folded from.
Folded = tuple["RaceFacts | Problem", tuple[int, str]]


def _fold_chunk(path: str, races: list[int]) -> list[Folded]:
    """A pool worker's task: the facts and tail of each race, read from the database file (nothing written). A
    damaged log gives its defect instead (a Problem pickles, a DamagedLog does not), and the chunk goes on."""
    from ..log.racelog import RaceLog

    log = RaceLog(path, create=False)
    try:
        out: list[Folded] = []
        for race in races:
            tail = log.store.tail(race)
            try:
                out.append((race_facts(log, race), tail))
            except DamagedLog as err:
                out.append((err.problem, tail))
        return out
    finally:
        log.store.close()


def _pooled(path: str, races: list[int], workers: int) -> Generator[Folded, None, None]:
    from collections import deque

    from ..analysis.executors import local_executor

    chunks = [races[i : i + _POOL_CHUNK] for i in range(0, len(races), _POOL_CHUNK)]
    with local_executor(workers) as pool:
        todo = iter(chunks)
        window = deque(pool.submit(_fold_chunk, path, c) for c in itertools.islice(todo, 4 * workers))
        while window:
            done = window.popleft().result()
            nxt = next(todo, None)
            if nxt is not None:
                window.append(pool.submit(_fold_chunk, path, nxt))
            yield from done


def _digest(race: int, length: int, tail_hash: str, summary: str, facts: str) -> str:
    """The seal of a ``derived`` row: keyed outside the file (heatlog.store.cachekey), over the log it was made from
    (length and head), the rules and its content, so that nobody who edits the file can make a forged row pass
    (an unkeyed digest of values in the file could be recomputed: issue 30)."""
    return seal("facts", str(race), str(length), tail_hash, RULES_VERSION, summary, facts)


def _rows_digest(race: int, rows: Sequence[Row]) -> str:
    """Seal of a race's ``turns`` rows as SQLite gives them back (booleans read back as 0/1)."""
    plain = [[int(v) if isinstance(v, bool) else v for v in r] for r in rows]
    text = json.dumps(plain, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return seal("turns", str(race), hashlib.sha256(text.encode()).hexdigest())


def _facts_text(facts: RaceFacts) -> str:
    """The race's facts as one JSON array of rows (columns in :data:`TURN_COLUMNS` order; booleans as JSON)."""
    rows = facts.turns  # (each a tuple in the columns' order: a JSON array)
    return json.dumps(rows, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _summary_text(facts: RaceFacts) -> str:
    return json.dumps(facts.summary(), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _has_tables(conn: sqlite3.Connection) -> bool:
    row = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)", (TURNS, DERIVED)
    ).fetchone()
    return bool(row and row[0] == 2)


def _current_layout(conn: sqlite3.Connection) -> bool:
    """Both tables exist, in this version's layout (an older layout is dropped and rebuilt: it is derived)."""
    if not _has_tables(conn):
        return False
    derived = {r[1] for r in conn.execute(f"PRAGMA table_info({DERIVED})")}
    turns = [r[1] for r in conn.execute(f"PRAGMA table_info({TURNS})")]
    return "rows_digest" in derived and tuple(turns) == TURN_COLUMNS


class TurnsTable:
    """The derived tables of one :class:`~heatlog.log.racelog.RaceLog` (they share its SQLite connection)."""

    def __init__(self, log: Any) -> None:
        self.log = log
        self.conn: sqlite3.Connection = log.store.conn
        self.writable = True
        self.why = ""  # why the tables could not be written (the store's words), when not writable

    # ---- reading

    def _cached(self, races: Sequence[int], *, check_rows: bool = False) -> dict[int, RaceFacts]:
        """Facts of the races whose ``derived`` row still matches their log, the rules and its digest (and, with
        ``check_rows``, whose ``turns`` rows are still as written)."""
        if not races or not _current_layout(self.conn):
            return {}
        wanted = set(races)
        out: dict[int, RaceFacts] = {}
        rows_digests: dict[int, str] = {}
        for race, length, tail_hash, summary, facts, digest, rows_digest in self.conn.execute(
            f"SELECT race, length, tail_hash, summary, facts, digest, rows_digest FROM {DERIVED} "
            "WHERE rules_version = ?",
            (RULES_VERSION,),
        ):
            if race not in wanted:
                continue
            try:  # the whole chain checked: an event edited under the cache, even mid-log, is noticed here
                if self.log.store.vouched_tail(race) != (length, tail_hash):
                    continue
            except DamagedLog:
                continue  # the fold says so, where the race is wanted
            if not isinstance(digest, str) or not same_text(_digest(race, length, tail_hash, summary, facts), digest):
                continue  # edited by hand, or sealed elsewhere: rebuilt from the log
            try:
                out[race] = RaceFacts.from_summary(json.loads(summary), [TurnFacts(*r) for r in json.loads(facts)])
            except (TypeError, ValueError, KeyError):
                continue
            rows_digests[race] = rows_digest
        if check_rows:
            for race in list(out):
                rows = self.conn.execute(_SELECT + " WHERE race = ? ORDER BY round, turn", (race,)).fetchall()
                if not same_text(_rows_digest(race, rows), str(rows_digests[race])):
                    del out[race]
        return out

    # ---- writing

    def _write(self, built: list[tuple[RaceFacts, tuple[int, str]]]) -> None:
        """Replace the rows of the ``built`` races in one transaction; a database that cannot be written to
        (read-only, busy) is left as it is: the facts were computed all the same."""
        if not built or not self.writable:
            return
        conn = self.conn
        now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                if _has_tables(conn) and not _current_layout(conn):
                    conn.execute(f"DROP TABLE {TURNS}")
                    conn.execute(f"DROP TABLE {DERIVED}")
                for stmt in _DDL:
                    conn.execute(stmt)
                for facts, (length, tail_hash) in built:
                    rows = facts.turns  # a TurnFacts is its row: a tuple in the columns' order (booleans: 0/1)
                    summary, text = _summary_text(facts), _facts_text(facts)
                    conn.execute(f"DELETE FROM {TURNS} WHERE race = ?", (facts.race,))
                    conn.executemany(_INSERT, rows)
                    conn.execute(
                        f"INSERT OR REPLACE INTO {DERIVED} (race, rules_version, length, tail_hash, built, summary, "
                        "facts, digest, rows_digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            facts.race,
                            RULES_VERSION,
                            length,
                            tail_hash,
                            now,
                            summary,
                            text,
                            _digest(facts.race, length, tail_hash, summary, text),
                            _rows_digest(facts.race, rows),
                        ),
                    )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            self.writable = False
            self.why = self.log.store.error(exc).message

    def rows(self) -> int:
        """Rows in ``turns`` (0 before it is built)."""
        if not _has_tables(self.conn):
            return 0
        return int(self.conn.execute(f"SELECT count(*) FROM {TURNS}").fetchone()[0])

    def drop(self) -> None:
        """Remove the derived tables (nothing is lost: they are rebuilt from the log)."""
        with contextlib.suppress(sqlite3.Error):
            self.conn.execute(f"DROP TABLE IF EXISTS {TURNS}")
            self.conn.execute(f"DROP TABLE IF EXISTS {DERIVED}")

    # ---- both

    def facts(
        self,
        races: Sequence[int],
        *,
        rebuild: bool = False,
        cache: bool = True,
        progress: Callable[[int], None] | None = None,
        chunk: int = 100,
        workers: int | None = None,
        damaged: Callable[[DamagedLog], None] | None = None,
    ) -> Iterator[RaceFacts]:
        """The facts of ``races``, in that order: from the table where it still matches, otherwise folded from
        the log (and written back unless ``cache`` is false). ``progress(n)`` after each race. Many races to
        fold (``PARALLEL_FROM`` or more) are folded by ``workers`` processes (default: every core); the facts
        are the same. A race whose log is damaged raises :class:`DamagedLog`, or, with ``damaged``, is told to
        it and left out (the other races go on)."""
        cached = {} if rebuild or not cache else self._cached(races)
        stale = [r for r in races if r not in cached]
        folded = self._fold_in_pool(stale, workers)
        pending: list[tuple[RaceFacts, tuple[int, str]]] = []
        try:
            for race in races:
                got = cached.get(race)
                if got is None:
                    try:
                        got, tail = self._fold(race, folded)
                    except DamagedLog as err:
                        if damaged is None:
                            raise
                        damaged(err)
                        if progress is not None:
                            progress(1)
                        continue
                    if cache:
                        pending.append((got, tail))
                        if len(pending) >= chunk:
                            self._write(pending)
                            pending = []
                yield got
                if progress is not None:
                    progress(1)
        finally:
            if folded is not None:
                folded.close()  # a stop before the end: the chunks not started are cancelled
            if pending:
                with contextlib.suppress(KeyboardInterrupt):
                    self._write(pending)

    def _fold(self, race: int, folded: Generator[Folded, None, None] | None) -> tuple[RaceFacts, tuple[int, str]]:
        """The facts and tail of ``race``: the pool's next, or folded here; a damaged log raises DamagedLog."""
        if folded is None:
            tail = self.log.store.tail(race)
            return race_facts(self.log, race), tail
        got, tail = next(folded)
        assert got.race == race
        if isinstance(got, Problem):
            raise DamagedLog(got, self.log.store.force_hint)
        return got, tail

    def _fold_in_pool(self, races: list[int], workers: int | None) -> Generator[Folded, None, None] | None:
        """The facts and tail of each of ``races``, in order, folded by a pool of processes that each read the
        database file (the fold is most of the time of a cold table); None where one process is better: few
        races (``PARALLEL_FROM``), one core, a database in memory, or reads told to go on past damage."""
        from ..analysis.executors import default_workers

        n = default_workers() if workers is None else workers
        store = self.log.store
        if n < 2 or len(races) < PARALLEL_FROM or str(store.path) == ":memory:" or store.on_damage is not None:
            return None
        return _pooled(str(store.path), races, n)

    def build(
        self, races: Sequence[int], *, rebuild: bool = False, damaged: Callable[[DamagedLog], None] | None = None
    ) -> tuple[int, int]:
        """Make the table match the log for ``races``: (races rebuilt, races already up to date); ``damaged``
        as for :meth:`facts` (a damaged race is not counted as rebuilt)."""
        fresh = {} if rebuild else self._cached(races, check_rows=True)
        stale = [r for r in races if r not in fresh]
        built = sum(1 for _ in self.facts(stale, rebuild=True, damaged=damaged))
        return built, len(fresh)


def cache_mismatches(log: Any, race: int) -> list[str]:
    """What the ``derived`` row of ``race`` holds that a fold of the log does not say (for ``audit``): a row made
    from the log as it stands (same length and head) whose summary or facts differ from the log's. A stale row
    (the log grew) is no problem: it is rebuilt when read."""
    conn: sqlite3.Connection = log.store.conn
    try:
        if not _current_layout(conn):
            return []
        row = conn.execute(
            f"SELECT length, tail_hash, summary, facts FROM {DERIVED} WHERE race = ? AND rules_version = ?",
            (race, RULES_VERSION),
        ).fetchone()
    except sqlite3.Error:
        return []
    if row is None or log.store.tail(race) != (row[0], row[1]):
        return []
    facts = race_facts(log, race)
    out = []
    if row[2] != _summary_text(facts):
        out.append("the stats cache (table derived) holds a summary the log does not say")
    if row[3] != _facts_text(facts):
        out.append("the stats cache (table derived) holds turn facts the log does not say")
    return out
