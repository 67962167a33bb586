"""Reads of a race's effective log, each checked against the hash chain as it is read (DamagedLog, or on_damage with
--force).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from heatlog.engine.errors import DAMAGED, StoreError
from heatlog.formats.hashing import sha256
from heatlog.store import eventrows as rows_

from .connection import StoreConnection
from .records import GENESIS, DamagedLog, Problem, StoredEvent, chain_hash
from .rows import COUNT_ENTRIES, NO_LIMIT, SELECT_RETRACTIONS, EventRows, scan_json


class ChainCheck:
    """The running check of a hash chain over rows read in seq order (see :meth:`EventStore._checked`)."""

    __slots__ = ("store", "race", "seq", "prev", "computed")

    def __init__(self, store: StoreConnection, race: int, seq: int, prev: str | None) -> None:
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
                        self._damage(seg_race, seq, "gap", missing_text(seq, row_seq - 1))
                    seq, prev, computed = row_seq + 1, digest, None
                    continue
                prev_hash = prev
            if row_seq != seq:
                self._damage(seg_race, seq, "gap", missing_text(seq, row_seq - 1))
            elif prev_hash != prev and prev is not None:
                why = "it does not continue the hash chain from the event before (rows reordered, replaced or removed)"
                self._damage(seg_race, row_seq, "chain", why)
            try:
                mine = sha((prev_hash + payload).encode()).hexdigest()
            except (TypeError, UnicodeEncodeError):
                self._damage(seg_race, row_seq, "text", "its row does not hold UTF-8 text where text belongs")
                raise StoreError(
                    f"event {row_seq} is not UTF-8 text: it cannot be read", race=self.race, words=DAMAGED
                ) from None
            if mine != digest:
                if derived and computed not in (None, prev) and rehash(computed, payload) == digest:
                    # format 2: the row chains from what the row before holds, not from the hash stored with it
                    why = "it does not continue the hash chain from the event before (its stored hash was changed)"
                    self._damage(seg_race, row_seq, "chain", why)
                else:
                    self._damage(seg_race, row_seq, "hash", "its content changed (its hash does not match)")
            seq, prev, computed = row_seq + 1, digest, mine
        if high != NO_LIMIT and seq <= high:
            self._damage(seg_race, seq, "gap", missing_text(seq, high))
            seq, prev, computed = high + 1, None, None  # the next segment cannot chain from what is missing
        self.seq, self.prev, self.computed = seq, prev, computed

    def _damage(self, seg_race: int, seq: int, kind: str, message: str) -> None:
        if seg_race != self.race:
            message += f" (in the prefix shared with race {seg_race})"
        problem = Problem(self.race, seq, kind, message)
        if self.store.on_damage is None:
            raise DamagedLog(problem, self.store.force_hint)
        self.store.on_damage(problem)


def rehash(prev: Any, payload: Any) -> str | None:
    try:
        return chain_hash(prev, payload.encode())
    except (TypeError, UnicodeEncodeError, AttributeError):
        return None


def missing_text(first: int, last: int) -> str:
    return f"event {first} is missing" if first == last else f"events {first}..{last} are missing"


class Reads(EventRows):
    """The Reads job of the event store (heatlog.store.reads)."""

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
                words=DAMAGED,
            )
        return StoredEvent(race, seq, type_, v, event, recorded, prev_hash, hash_)

    def _read_log(self, conn: sqlite3.Connection, race: int) -> list[StoredEvent]:
        log: list[StoredEvent] = []
        chain = ChainCheck(self, race, 1, GENESIS)
        for seg_race, low, high in self._segments(conn, race):
            rows = self._event_rows(conn, (seg_race, low, high), chain.prev)
            compact = self.format_version >= rows_.COMPACT  # (the chain check takes prev_hash from the row before)
            chain.check(seg_race, [(r[1], r[4], None if compact else r[6], r[7]) for r in rows], high)
            log.extend(self._row_event(row) for row in rows)
        return log

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
        chain: ChainCheck | None = None
        for seg_race, low, high in self._segments(conn, race):
            low, high = max(low, after), high if upto is None else min(high, upto)
            if high <= low:
                continue
            if chain is None:
                prev = GENESIS if low == 0 else self._hash_at(conn, race, low)
                chain = ChainCheck(self, race, low + 1, prev)
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
        return self._select(race, SELECT_RETRACTIONS, seq - 1, None)

    def entries_between(self, race: int, first: int, before: int) -> tuple[int, bool]:
        """Of the effective log's rows with ``first`` <= seq < ``before``: how many are not ``retracted`` events,
        and whether the row at ``first`` is one of them (branch-aware; reads no payload)."""
        count, has_first = 0, False
        with self._tx(write=False, race=race) as conn:
            for seg_race, low, high in self._segments(conn, race):
                low, high = max(low, first - 1), min(high, before - 1)
                if high > low:
                    n, at_first = conn.execute(COUNT_ENTRIES, (first, seg_race, low, high)).fetchone()
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
        scan = scan_json
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

    def head(self, race: int) -> tuple[int, str]:
        """(last seq, hash of the last event) of the effective log: (0, GENESIS) for an empty race."""
        with self._tx(write=False, race=race) as conn:
            return self._tail(conn, race)

    def hash_at(self, race: int, seq: int) -> str | None:
        """The stored hash of event ``seq`` of the effective log (branch-aware), or None if there is none."""
        with self._tx(write=False, race=race) as conn:
            return self._hash_at(conn, race, seq)
