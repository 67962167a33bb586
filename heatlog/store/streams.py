"""Every stream beside the races' logs behind one append/read API (issue 26: as eventsourcing keeps one recorder
for every aggregate): today the season stream (heatlog.season keeps the championship's logic only).

A stream kind has an owner table (one row per stream: id, name, created) and an events table of the same shape
and the same rules as a race's log in format 1: (owner, seq) PRIMARY KEY, type, v, payload (canonical JSON),
recorded, prev_hash and hash, the hash chained from 64 zeros exactly as a race's (``chain_hash``), UPDATE and
DELETE refused by triggers and the guards of :data:`SEASON_STREAM` beyond them. The tables are made at the first
write (a file that never held a season has none), so a database made before keeps opening as it is and its
chains and anchors stay what they were.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import field
from typing import Any

from heatlog.engine.written import FACTORY, record

from ..engine.errors import DAMAGED, NOT_FOUND, StoreError
from .leases import Leases
from .records import APPEND_ONLY, GENESIS, SQLITE_MAX, canonical, chain_hash, now


@record(frozen=True)
class StreamKind:
    """Where a kind of stream lives: its word (``season``: in messages, anchors and the events' key column), its
    owner table, its events table, the statements that make them and the guards beyond UPDATE and DELETE."""

    word: str
    owners: str
    events: str
    tables: tuple[str, ...]
    guards: dict[str, str] = field(default_factory=dict)

    def __init__(
        self,
        word: str,
        owners: str,
        events: str,
        tables: tuple[str, ...],
        guards: dict[str, str] = FACTORY,
    ) -> None:
        object.__setattr__(self, "word", word)
        object.__setattr__(self, "owners", owners)
        object.__setattr__(self, "events", events)
        object.__setattr__(self, "tables", tables)
        object.__setattr__(self, "guards", {} if guards is FACTORY else guards)


#: The season stream's guards beyond UPDATE and DELETE of its events (the store's GUARDS for races).
SEASON_GUARDS: dict[str, str] = {
    "season_events_no_replace": (
        "CREATE TRIGGER IF NOT EXISTS season_events_no_replace BEFORE INSERT ON season_events "
        "WHEN EXISTS (SELECT 1 FROM season_events WHERE season = NEW.season AND seq = NEW.seq) "
        "OR EXISTS (SELECT 1 FROM season_events WHERE rowid = NEW.rowid) "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: a stored season event cannot be replaced'); END"
    ),
    "seasons_no_delete": (
        "CREATE TRIGGER IF NOT EXISTS seasons_no_delete BEFORE DELETE ON seasons "
        "WHEN EXISTS (SELECT 1 FROM season_events WHERE season = OLD.id) "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: a season with events cannot be deleted'); END"
    ),
    "seasons_no_replace": (
        "CREATE TRIGGER IF NOT EXISTS seasons_no_replace BEFORE INSERT ON seasons "
        "WHEN EXISTS (SELECT 1 FROM seasons WHERE id = NEW.id) "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: a season cannot be replaced'); END"
    ),
    "seasons_no_renumber": (
        "CREATE TRIGGER IF NOT EXISTS seasons_no_renumber BEFORE UPDATE OF id, created ON seasons "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: a season cannot be renumbered'); END"
    ),
}

SEASON_STREAM = StreamKind(
    word="season",
    owners="seasons",
    events="season_events",
    tables=(
        "CREATE TABLE IF NOT EXISTS seasons (id INTEGER PRIMARY KEY, name TEXT, created TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS season_events (season INTEGER NOT NULL REFERENCES seasons(id), "
        "seq INTEGER NOT NULL, type TEXT NOT NULL, v INTEGER, payload TEXT NOT NULL, recorded TEXT NOT NULL, "
        "prev_hash TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (season, seq))",
        "CREATE TRIGGER IF NOT EXISTS season_events_no_update BEFORE UPDATE ON season_events "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: UPDATE refused'); END",
        "CREATE TRIGGER IF NOT EXISTS season_events_no_delete BEFORE DELETE ON season_events "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: DELETE refused'); END",
        # the races' guarantees (issue 30): REPLACE and upserts fire no UPDATE or DELETE trigger; a season with a
        # stream cannot be removed, renumbered or replaced (its stream would be hidden)
        SEASON_GUARDS["season_events_no_replace"],
        SEASON_GUARDS["seasons_no_delete"],
        SEASON_GUARDS["seasons_no_replace"],
        SEASON_GUARDS["seasons_no_renumber"],
        # finds a race by the hash of its first event (the season's link) without scanning every event
        "CREATE INDEX IF NOT EXISTS events_first_hash ON events (hash) WHERE seq = 1",
    ),
    guards=SEASON_GUARDS,
)

#: Every kind of stream, by its word.
STREAMS: dict[str, StreamKind] = {SEASON_STREAM.word: SEASON_STREAM}

Event = dict[str, Any]


def stream_chain_problems(word: str, rows: Sequence[tuple[Any, ...]]) -> list[str]:
    """Every problem of a stream's ``(seq, payload, prev_hash, hash)`` rows: a missing seq, a broken chain."""
    problems, prev = [], GENESIS
    for expected, (seq, payload, prev_hash, digest) in enumerate(rows, start=1):
        if seq != expected:
            problems.append(f"{word} event {expected}: missing (next stored is {seq})")
        raw = payload.encode("utf-8", "surrogateescape") if isinstance(payload, str) else bytes(payload or b"")
        ok_prev = isinstance(prev_hash, str) and prev_hash.isascii()
        if not ok_prev or prev_hash != prev or chain_hash(prev, raw) != digest:
            problems.append(f"{word} event {seq}: hash chain broken (the stream was changed)")
        prev = digest if isinstance(digest, str) and digest.isascii() else ""
    return problems


def insert_stream_events(conn: sqlite3.Connection, kind: StreamKind, owner: int, events: Sequence[Event]) -> None:
    """Append ``events`` to stream ``owner`` of ``kind`` after its last event, chaining their hashes (the store's
    rule for races), in a write transaction already open on ``conn``."""
    table, key = kind.events, kind.word
    last = f"SELECT seq, hash FROM {table} WHERE {key} = ? ORDER BY seq DESC LIMIT 1"
    row = conn.execute(last, (owner,)).fetchone()
    seq, prev = (int(row[0]), str(row[1])) if row else (0, GENESIS)
    for ev in events:
        payload = canonical(ev).decode()
        digest = chain_hash(prev, payload.encode())
        seq += 1
        v = ev.get("v") if isinstance(ev.get("v"), int) else None
        conn.execute(
            f"INSERT INTO {table} ({key}, seq, type, v, payload, recorded, prev_hash, hash) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (owner, seq, ev["type"], v, payload, now(), prev, digest),
        )
        prev = digest


class Streams(Leases):
    """The append/read API of every stream kind (:data:`STREAMS`) on the store's connection and transactions."""

    @contextlib.contextmanager
    def stream_tx(self, kind: StreamKind, *, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction (the store's) over ``kind``'s tables, made first by a write; a file without them is
        "no <word>", every other sqlite3 error the store's (append-only, read-only, locked, full, ...)."""
        try:
            with self._tx(write=write) as conn:
                if write:
                    for sql in kind.tables:
                        conn.execute(sql)
                yield conn
        except StoreError as err:
            if "no such table" in str(err.__cause__):
                raise StoreError(f"no {kind.word} in {self.path}", words=NOT_FOUND) from err.__cause__
            raise

    def insert_stream_events(
        self, conn: sqlite3.Connection, kind: StreamKind, owner: int, events: Sequence[Event]
    ) -> None:
        """Append ``events`` after the stream's last one, chaining their hashes (the store's rule for races), in
        the caller's write transaction (:meth:`stream_tx`)."""
        insert_stream_events(conn, kind, owner, events)

    def new_stream(self, kind: StreamKind, name: str, events: Sequence[Event]) -> int:
        """A new stream of ``kind`` named ``name`` holding ``events``, in one transaction; its id."""
        with self.stream_tx(kind, write=True) as conn:
            owner = self.insert_owner(conn, kind, name)
            self.insert_stream_events(conn, kind, owner, events)
        return owner

    def insert_owner(self, conn: sqlite3.Connection, kind: StreamKind, name: str) -> int:
        """The owner row of a new stream, in the caller's write transaction; its id."""
        cur = conn.execute(f"INSERT INTO {kind.owners} (name, created) VALUES (?, ?)", (name, now()))
        return int(cur.lastrowid or 0)

    def append_stream(self, kind: StreamKind, owner: int, events: Sequence[Event]) -> None:
        """Append ``events`` to stream ``owner`` of ``kind``, durably, in one transaction."""
        with self.stream_tx(kind, write=True) as conn:
            self.insert_stream_events(conn, kind, owner, events)

    def stream_with_head(self, conn: sqlite3.Connection, kind: StreamKind, first_hash: str) -> int | None:
        """The stream of ``kind`` whose first event has ``first_hash`` (its id in every database), else None."""
        sql = f"SELECT {kind.word} FROM {kind.events} WHERE seq = 1 AND hash = ?"
        held = conn.execute(sql, (first_hash,)).fetchone()
        return None if held is None else int(held[0])

    def streams(self, kind: StreamKind) -> list[tuple[int, str | None, str]]:
        """(id, name, created) of every stream of ``kind``, oldest first; a stream whose owner row was deleted
        behind heatlog's back (:meth:`hidden_streams`) is listed too, without name or date, rather than hidden."""
        try:
            rows = self.conn.execute(f"SELECT id, name, created FROM {kind.owners} ORDER BY id").fetchall()
        except sqlite3.OperationalError:
            return []
        found = [(int(r[0]), r[1], str(r[2])) for r in rows]
        hidden = self.hidden_streams(kind)
        if hidden:
            found = sorted(found + [(h, None, "") for h in hidden])
        return found

    def hidden_streams(self, kind: StreamKind) -> list[int]:
        """Streams whose events are in the file but whose owner row is not (deleted behind heatlog's back: the
        stream was hidden from every list)."""
        try:
            rows = self.conn.execute(
                f"SELECT DISTINCT {kind.word} FROM {kind.events} WHERE {kind.word} NOT IN "
                f"(SELECT id FROM {kind.owners}) ORDER BY {kind.word}"
            ).fetchall()
        except sqlite3.Error:
            return []
        return [int(r[0]) for r in rows if isinstance(r[0], int)]

    def stream_rows(self, kind: StreamKind, owner: int, *, known: bool = False) -> list[tuple[Any, ...]]:
        """(seq, payload, prev_hash, hash) of the stream's rows in order; with ``known``, StoreError "no <word>
        N" when the stream has no row and no owner."""
        word = kind.word
        with self.stream_tx(kind, write=False) as conn:
            rows = conn.execute(
                f"SELECT seq, payload, prev_hash, hash FROM {kind.events} WHERE {word} = ? ORDER BY seq", (owner,)
            ).fetchall()
            owned = f"SELECT 1 FROM {kind.owners} WHERE id = ?"
            if known and not rows and conn.execute(owned, (owner,)).fetchone() is None:
                raise StoreError(f"no {word} {owner}", words=NOT_FOUND)
        return rows

    def stream_events(self, kind: StreamKind, owner: int, *, checked: bool = True) -> list[Event]:
        """The stream's events in order (StoreError if there is no such stream). ``checked``: the stream's hash
        chain is checked first, as every read of a race's log is (a broken chain raises StoreError naming the
        first problem; ``heatlog <word> audit`` lists them all). A payload that is not a JSON object reads as
        ``{"type": "unreadable"}``."""
        word = kind.word
        if not 0 <= owner <= SQLITE_MAX:  # no stream has it (and SQLite could not be asked)
            raise StoreError(f"no {word} {owner}", words=NOT_FOUND)
        rows = self.stream_rows(kind, owner, known=True)
        if checked:
            problems = stream_chain_problems(word, rows)
            if problems:
                raise StoreError(
                    f"{word} {owner}: the stream is damaged or was tampered with: {problems[0]}; nothing was read "
                    f"(`heatlog {word} audit {owner}` lists every problem)",
                    words=DAMAGED,
                )
        out = []
        for _, payload, _, _ in rows:
            try:
                ev = json.loads(payload)
            except (TypeError, ValueError, RecursionError):
                ev = None
            out.append(ev if isinstance(ev, dict) else {"type": "unreadable"})
        return out

    def verify_stream(self, kind: StreamKind, owner: int) -> list[str]:
        """Every problem of the stream's hash chain (empty: it holds)."""
        return stream_chain_problems(kind.word, self.stream_rows(kind, owner))

    def stream_anchor(self, kind: StreamKind, owner: int) -> dict[str, Any]:
        """The anchor of a stream: ``{"heatlog_anchor": 1, "<word>": id, "seq": last seq, "head": hash}``."""
        with self.stream_tx(kind, write=False) as conn:
            row = conn.execute(
                f"SELECT seq, hash FROM {kind.events} WHERE {kind.word} = ? ORDER BY seq DESC LIMIT 1", (owner,)
            ).fetchone()
        seq, head = (int(row[0]), str(row[1])) if row else (0, GENESIS)
        return {"heatlog_anchor": 1, kind.word: owner, "seq": seq, "head": head}

    def check_stream_anchor(self, kind: StreamKind, anchor: dict[str, Any]) -> list[str]:
        """What the file says against a stream's anchor kept elsewhere: the stream is there, reaches the anchor's
        seq (else it was cut short) and its event there has the anchor's hash (else it was rewritten)."""
        word = kind.word
        owner, seq, head = anchor.get(word), anchor.get("seq"), anchor.get("head")
        if not isinstance(owner, int) or not isinstance(seq, int) or not isinstance(head, str):
            return [f"not a {word} anchor: {anchor!r}"[:200]]
        try:
            with self.stream_tx(kind, write=False) as conn:
                last = conn.execute(f"SELECT max(seq) FROM {kind.events} WHERE {word} = ?", (owner,)).fetchone()[0]
                found = conn.execute(
                    f"SELECT hash FROM {kind.events} WHERE {word} = ? AND seq = ?", (owner, seq)
                ).fetchone()
        except StoreError:
            return [f"{word} {owner} of the anchor is not in the file"]
        if last is None:
            return [f"{word} {owner} of the anchor is not in the file (removed?)"]
        if int(last) < seq:
            return [f"{word} {owner}: stream cut short: the anchor has {seq} events, the file {last}"]
        if found is None or found[0] != head:
            shown = str(found[0])[:12] if found else "none"
            return [f"{word} {owner}: stream rewritten: event {seq} has hash {shown}…, the anchor {head[:12]}…"]
        return []

    def missing_stream_guards(self, kind: StreamKind) -> list[str]:
        """The stream's guards the file lacks (only a file holding such streams needs them)."""
        conn = self.conn
        try:
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (kind.events,)).fetchone() is None:
                return []
            have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        except sqlite3.Error:
            return []
        wanted = [f"{kind.events}_no_update", f"{kind.events}_no_delete", *kind.guards]
        return [name for name in wanted if name not in have]

    def first_events_holding(self, text: str) -> list[tuple[int, str]]:
        """(race, payload) of every race whose first event is a ``race_started`` holding ``text`` (a stream's link
        in its races' set-up), without decoding the others; [] where the file cannot tell."""
        try:
            rows = self.conn.execute(
                "SELECT race, payload FROM events WHERE seq = 1 AND type = 'race_started' AND payload LIKE ?",
                (f'%"{text}"%',),
            ).fetchall()
        except sqlite3.Error:
            return []
        return [(int(race), payload) for race, payload in rows]

    def import_stream(
        self,
        kind: StreamKind,
        name: str,
        events: Sequence[Event],
        races: Sequence[tuple[str, str, Sequence[Event]]],
        held: Callable[[int], Exception],
    ) -> int:
        """A stream and its races written in one transaction, or nothing: ``races`` are (label, meta text,
        events) of new root races, stored in the file's format. A stream of ``kind`` whose first event is
        ``events[0]`` already in the file raises ``held(its id)`` (the same stream imported twice)."""
        with self.stream_tx(kind, write=True) as conn:
            found = self.stream_with_head(conn, kind, chain_hash(GENESIS, canonical(events[0])))
            if found is not None:
                raise held(found)
            owner = self.insert_owner(conn, kind, name)
            self.insert_stream_events(conn, kind, owner, events)
            for label, meta, evs in races:
                race = conn.execute(
                    "INSERT INTO races (name, created, parent, fork_seq, meta) VALUES (?, ?, NULL, NULL, ?)",
                    (label, now(), meta),
                ).lastrowid
                self.insert_events(conn, int(race or 0), evs)  # in the file's format (heatlog.store.eventrows)
        return owner


class EventStore(Streams):
    """The event store of one SQLite file. Not thread-safe: one object per thread (or process).

    One class made of the store's jobs, each in a module of its own (see the package docstring)."""


EventStore.__module__ = "heatlog.store"  # where it is known (heatlog.store.EventStore)
