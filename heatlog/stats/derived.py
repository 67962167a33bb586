"""The derived ``turns`` table: per-turn facts in the database, where sqlite-utils, Datasette, pandas or DuckDB
read them (docs/stats.md).

Derived, never truth: the rows are rebuilt from the log (:mod:`heatlog.stats.facts`) and may be dropped at any
time. The door (:meth:`heatlog.racelog.RaceLog.append`) and the audit never read them. Two tables:

``turns``    one row per completed turn: (race, round, turn) and the :class:`~heatlog.stats.facts.TurnFacts`
             columns. Booleans are 0/1.
``derived``  one row per race whose turns are in ``turns``: the log they were built from (``length`` and
             ``tail_hash``, the hash of its last event, which chains every event before it), the rules version,
             when, a digest of the race's rows and the race's summary (finishing order, track, mode) as JSON.

A race's rows are used only while its ``derived`` row matches the log (same last hash, same length), the rules
(same version) and its own rows (same digest); otherwise they are rebuilt from the log. So an append, a
retraction, a change of the rules or an edit of the table by hand is noticed and repaired on the next read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import fields
from datetime import UTC, datetime
from typing import Any

from .. import RULES_VERSION
from .facts import TURN_COLUMNS, RaceFacts, TurnFacts, race_facts

TURNS = "turns"
DERIVED = "derived"

_BOOL = frozenset(f.name for f in fields(TurnFacts) if f.type in ("bool", bool))
_INT = frozenset(f.name for f in fields(TurnFacts) if f.type in ("int", int, "int | None"))


def _sql_type(name: str) -> str:
    return "INTEGER" if name in _BOOL or name in _INT else "TEXT"


_DDL = [
    f"CREATE TABLE IF NOT EXISTS {TURNS} ("
    + ", ".join(f"{c} {_sql_type(c)}" for c in TURN_COLUMNS)
    + ", PRIMARY KEY (race, round, turn))",
    f"CREATE INDEX IF NOT EXISTS {TURNS}_car ON {TURNS} (race, car)",
    f"CREATE TABLE IF NOT EXISTS {DERIVED} (race INTEGER PRIMARY KEY, rules_version TEXT NOT NULL, "
    "length INTEGER NOT NULL, tail_hash TEXT NOT NULL, built TEXT NOT NULL, digest TEXT NOT NULL, "
    "summary TEXT NOT NULL)",
]
_INSERT = f"INSERT INTO {TURNS} ({', '.join(TURN_COLUMNS)}) VALUES ({', '.join('?' * len(TURN_COLUMNS))})"
_SELECT = f"SELECT {', '.join(TURN_COLUMNS)} FROM {TURNS}"

Row = tuple[Any, ...]


def _encode(t: TurnFacts) -> Row:
    return tuple(int(v) if isinstance(v, bool) else v for v in (getattr(t, c) for c in TURN_COLUMNS))


def _decode(row: Row) -> TurnFacts:
    values: dict[str, Any] = {c: (bool(v) if c in _BOOL else v) for c, v in zip(TURN_COLUMNS, row, strict=True)}
    return TurnFacts(**values)


def _digest(rows: Sequence[Row], summary: str) -> str:
    text = json.dumps([list(r) for r in rows], separators=(",", ":"), ensure_ascii=False) + summary
    return hashlib.sha256(text.encode()).hexdigest()


def _summary_text(facts: RaceFacts) -> str:
    return json.dumps(facts.summary(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _has_tables(conn: sqlite3.Connection) -> bool:
    row = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)", (TURNS, DERIVED)
    ).fetchone()
    return bool(row and row[0] == 2)


class TurnsTable:
    """The derived tables of one :class:`~heatlog.racelog.RaceLog` (they share its SQLite connection)."""

    def __init__(self, log: Any) -> None:
        self.log = log
        self.conn: sqlite3.Connection = log.store.conn
        self.writable = True

    # ---- reading

    def _cached(self, races: Sequence[int]) -> dict[int, RaceFacts]:
        """Facts of the races whose rows still match their log, the rules and their digest."""
        if not races or not _has_tables(self.conn):
            return {}
        wanted = set(races)
        meta: dict[int, tuple[str, int, str, str, str]] = {}
        for race, version, length, tail_hash, digest, summary in self.conn.execute(
            f"SELECT race, rules_version, length, tail_hash, digest, summary FROM {DERIVED}"
        ):
            if race in wanted and version == RULES_VERSION:
                meta[race] = (version, length, tail_hash, digest, summary)
        if not meta:
            return {}
        rows: dict[int, list[Row]] = {r: [] for r in meta}
        if len(meta) <= 500:
            marks = ", ".join("?" * len(meta))
            cursor = self.conn.execute(_SELECT + f" WHERE race IN ({marks}) ORDER BY race, round, turn", list(meta))
        else:  # one scan (rows of races not asked for are skipped below)
            cursor = self.conn.execute(_SELECT + " ORDER BY race, round, turn")
        for row in cursor:
            got = rows.get(row[0])
            if got is not None:
                got.append(row)
        out: dict[int, RaceFacts] = {}
        for race, (_, length, tail_hash, digest, summary) in meta.items():
            if self.log.store.tail(race) != (length, tail_hash):
                continue
            if _digest(rows[race], summary) != digest:
                continue
            try:
                out[race] = RaceFacts.from_summary(json.loads(summary), [_decode(r) for r in rows[race]])
            except (TypeError, ValueError, KeyError):
                continue  # rows edited into something that is not facts: rebuild them
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
                for stmt in _DDL:
                    conn.execute(stmt)
                for facts, (length, tail_hash) in built:
                    rows = [_encode(t) for t in facts.turns]
                    summary = _summary_text(facts)
                    conn.execute(f"DELETE FROM {TURNS} WHERE race = ?", (facts.race,))
                    conn.executemany(_INSERT, rows)
                    conn.execute(
                        f"INSERT OR REPLACE INTO {DERIVED} (race, rules_version, length, tail_hash, built, digest, "
                        "summary) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (facts.race, RULES_VERSION, length, tail_hash, now, _digest(rows, summary), summary),
                    )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                raise
        except sqlite3.Error:
            self.writable = False

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
    ) -> Iterator[RaceFacts]:
        """The facts of ``races``, in that order: from the table where it still matches, otherwise folded from
        the log (and written back unless ``cache`` is false). ``progress(n)`` after each race."""
        cached = {} if rebuild or not cache else self._cached(races)
        pending: list[tuple[RaceFacts, tuple[int, str]]] = []
        try:
            for race in races:
                got = cached.get(race)
                if got is None:
                    tail = self.log.store.tail(race)
                    got = race_facts(self.log, race)
                    if cache:
                        pending.append((got, tail))
                        if len(pending) >= chunk:
                            self._write(pending)
                            pending = []
                yield got
                if progress is not None:
                    progress(1)
        finally:
            if pending:
                with contextlib.suppress(KeyboardInterrupt):
                    self._write(pending)

    def build(self, races: Sequence[int], *, rebuild: bool = False) -> tuple[int, int]:
        """Make the table match the log for ``races``: (races rebuilt, races already up to date)."""
        fresh = {} if rebuild else self._cached(races)
        stale = [r for r in races if r not in fresh]
        for _ in self.facts(stale, rebuild=True):
            pass
        return len(stale), len(fresh)
