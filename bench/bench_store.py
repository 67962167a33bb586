"""Durable append: heatlog vs raw sqlite3 vs the eventsourcing library, side by side in one run.

Every contender writes the same events (a simulated 4-car race on the USA track) one at a time, each in its
own committed transaction, into its own database in one temporary directory, in WAL mode with
``synchronous=FULL`` (one fdatasync per commit for every contender). The contenders take turns, a chunk of
events each, so that a disk slow for a moment slows them alike; the rate is the median over the chunks.

Rows:
- raw sqlite3: a prepared INSERT of precomputed rows (same columns, same primary key), autocommit.
- EventStore.append: canonical JSON + SHA-256 chain + BEGIN IMMEDIATE/tail read/INSERT/COMMIT.
- validate + EventStore.append: the above plus JSON Schema validation of the event (validate_event).
- RaceLog.append: the full door: schema validation, rules check (engine), store append.
- eventsourcing: ``Application.save`` of an aggregate after each new event (SQLite persistence, WAL,
  synchronous=FULL), i.e. the library's per-event save. Skipped (with the install hint) if not installed.

Goals (issue 3): heatlog ≥ 0.5× raw sqlite3 and ≥ 1× eventsourcing.

    python bench/bench_store.py [--races N] [--chunk K]
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import Event, machine, median, simulated_race, table

_SCHEMA = (
    "CREATE TABLE events (race INTEGER NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, v INTEGER, "
    "payload TEXT NOT NULL, recorded TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL, "
    "PRIMARY KEY (race, seq))"
)


class Contender:
    """Writes one race's events, a chunk at a time, into its own database file; ``new_race`` starts over."""

    name = ""

    def __init__(self, path: Path, events: list[Event]) -> None:
        self.path = path
        self.events = events
        self.race = 0

    def new_race(self) -> None:
        raise NotImplementedError

    def write(self, start: int, stop: int) -> None:
        """Durably append events[start:stop], one commit each (start ≥ 1: event 0 is written by new_race)."""
        raise NotImplementedError

    def settings(self) -> str:
        raise NotImplementedError

    def close(self) -> None:
        pass


class RawSqlite(Contender):
    name = "raw sqlite3 INSERT"

    def __init__(self, path: Path, events: list[Event]) -> None:
        super().__init__(path, events)
        from heatlog.store import GENESIS, canonical, chain_hash

        self.rows: list[tuple[Any, ...]] = []  # precomputed: the raw side pays for nothing but the INSERT
        prev = GENESIS
        for seq, ev in enumerate(events, start=1):
            text = canonical(ev).decode()
            digest = chain_hash(prev, text.encode())
            self.rows.append((seq, ev["type"], ev.get("v"), text, "2025-01-01T00:00:00.000000Z", prev, digest))
            prev = digest
        self.conn = sqlite3.connect(path, isolation_level=None)  # autocommit: one transaction per INSERT
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = FULL")
        self.conn.execute(_SCHEMA)

    def new_race(self) -> None:
        self.race += 1
        self.conn.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (self.race, *self.rows[0]))

    def write(self, start: int, stop: int) -> None:
        execute, race = self.conn.execute, self.race
        insert = "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        for row in self.rows[start:stop]:
            execute(insert, (race, *row))

    def settings(self) -> str:
        return _settings(self.conn)

    def close(self) -> None:
        self.conn.close()


class StoreAppend(Contender):
    name = "EventStore.append"
    validate = False

    def __init__(self, path: Path, events: list[Event]) -> None:
        super().__init__(path, events)
        from heatlog.formats.validation import validate_event
        from heatlog.store import EventStore

        validate_event(events[0])  # build the validators outside the timing (a recorder keeps them)
        self.validate_event = validate_event
        self.store = EventStore(path)

    def new_race(self) -> None:
        self.race = self.store.create_race("bench", {})
        self.store.append(self.race, self.events[0])

    def write(self, start: int, stop: int) -> None:
        append, race = self.store.append, self.race
        if self.validate:
            validate = self.validate_event
            for ev in self.events[start:stop]:
                validate(ev)
                append(race, ev)
        else:
            for ev in self.events[start:stop]:
                append(race, ev)

    def settings(self) -> str:
        return _settings(self.store.conn)

    def close(self) -> None:
        self.store.close()


class ValidatedStoreAppend(StoreAppend):
    name = "validate_event + EventStore.append"
    validate = True


class RaceLogAppend(Contender):
    name = "RaceLog.append (schema + rules + store)"

    def __init__(self, path: Path, events: list[Event]) -> None:
        super().__init__(path, events)
        from heatlog.formats.validation import validate_event
        from heatlog.log.racelog import Projection, RaceLog

        validate_event(events[0])
        self.log = RaceLog(path)
        self.proj: Projection | None = None

    def new_race(self) -> None:
        self.race = self.log.new_race(self.events[0])
        self.proj = self.log.project(self.race)

    def write(self, start: int, stop: int) -> None:
        append, race, proj = self.log.append, self.race, self.proj
        for ev in self.events[start:stop]:
            _, proj = append(race, ev, proj)  # the projection after each event feeds the next check
        self.proj = proj

    def settings(self) -> str:
        return _settings(self.log.store.conn)

    def close(self) -> None:
        self.log.close()


_ES_RACE: Any = None


class EventsourcingSave(Contender):
    """The eventsourcing library's per-event save: trigger an aggregate event, ``Application.save``."""

    name = "eventsourcing Application.save"

    def __init__(self, path: Path, events: list[Event]) -> None:
        super().__init__(path, events)
        import eventsourcing.sqlite as es_sqlite
        from eventsourcing.application import Application
        from eventsourcing.domain import Aggregate, event

        global _ES_RACE
        if _ES_RACE is None:  # the library registers aggregate classes by topic: define it once

            class Race(Aggregate):
                @event("Recorded")
                def record(self, payload: dict[str, Any]) -> None:
                    pass

            _ES_RACE = Race
        original = es_sqlite.SQLiteConnectionPool._create_connection
        self.seen: list[str] = []

        def durable(pool: Any) -> Any:  # same durability as the others: WAL (the library's default) + FULL
            conn = original(pool)
            raw = conn._sqlite_conn
            raw.execute("PRAGMA synchronous = FULL")
            self.seen.append(_settings(raw))
            return conn

        es_sqlite.SQLiteConnectionPool._create_connection = durable  # type: ignore[method-assign]
        try:
            env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}
            self.app = Application(env=env)
            self.app.save(_ES_RACE())  # opens the pool's writer connection (patched) now
        finally:
            es_sqlite.SQLiteConnectionPool._create_connection = original  # type: ignore[method-assign]
        self.aggregate: Any = None

    def new_race(self) -> None:
        self.aggregate = _ES_RACE()
        self.aggregate.record(payload=self.events[0])
        self.app.save(self.aggregate)

    def write(self, start: int, stop: int) -> None:
        aggregate, save = self.aggregate, self.app.save
        for ev in self.events[start:stop]:
            aggregate.record(payload=ev)
            save(aggregate)

    def settings(self) -> str:
        return self.seen[-1] if self.seen else "?"

    def close(self) -> None:
        self.app.close()


def _settings(conn: sqlite3.Connection) -> str:
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    sync = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[conn.execute("PRAGMA synchronous").fetchone()[0]]
    return f"{mode}/{sync}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--races", type=int, default=3, help="races written by each contender")
    parser.add_argument("--chunk", type=int, default=50, help="events per timed chunk")
    args = parser.parse_args()

    events = simulated_race("usa", 4, seed=7)
    classes: list[type[Contender]] = [RawSqlite, StoreAppend, ValidatedStoreAppend, RaceLogAppend]
    missing = None
    try:
        import eventsourcing  # noqa: F401

        classes.append(EventsourcingSave)
    except ImportError:
        missing = "eventsourcing is not installed: run `pip install eventsourcing` to add its row (row skipped)"

    # Every contender writes in turn, a chunk at a time, into its own file in the same temporary directory:
    # a disk that is slow for a moment slows all of them alike.
    chunk_rates: dict[str, list[float]] = {c.name: [] for c in classes}
    cpu: dict[str, float] = {c.name: 0.0 for c in classes}
    wall: dict[str, float] = {c.name: 0.0 for c in classes}
    written = 0
    with tempfile.TemporaryDirectory(prefix="heatlog-bench-") as tmp:
        where = tmp
        contenders = [cls(Path(tmp) / f"{i}.db", events) for i, cls in enumerate(classes)]
        settings = {c.name: c.settings() for c in contenders}
        for _ in range(args.races):
            for c in contenders:
                c.new_race()
            for start in range(1, len(events), args.chunk):
                stop = min(start + args.chunk, len(events))
                for c in contenders:
                    cpu0, t0 = time.process_time(), time.perf_counter()
                    c.write(start, stop)
                    seconds = time.perf_counter() - t0
                    cpu[c.name] += time.process_time() - cpu0
                    wall[c.name] += seconds
                    chunk_rates[c.name].append((stop - start) / seconds)
            written += len(events) - 1
        for c in contenders:
            c.close()

    raw = median(chunk_rates[RawSqlite.name])
    es = median(chunk_rates[EventsourcingSave.name]) if missing is None else None
    rows = []
    for cls in classes:
        rate = median(chunk_rates[cls.name])
        rows.append(
            [
                cls.name,
                settings[cls.name],
                f"{rate:,.0f}",
                f"{written / wall[cls.name]:,.0f}",
                f"{1e6 * cpu[cls.name] / written:,.0f}",
                f"{rate / raw:.2f}×",
                f"{rate / es:.2f}×" if es else "–",
            ]
        )
    table(
        f"durable append: {args.races} races × {len(events) - 1} events, one commit each, in chunks of "
        f"{args.chunk} taking turns ({machine()}; temp dir {where})",
        [
            "contender",
            "journal/sync",
            "events/s (median chunk)",
            "events/s (overall)",
            "CPU µs/event",
            "vs raw",
            "vs eventsourcing",
        ],
        rows,
    )
    if missing:
        print(f"\n{missing}")
    print("\ngoals: heatlog ≥ 0.5× raw sqlite3, ≥ 1× eventsourcing (ratios of the median chunk rates)")


if __name__ == "__main__":
    main()
