"""Appending: a new race with its first events, a branch, one event or a batch, hash-chained inside one write
transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from heatlog.engine.errors import ConflictError, StoreError
from heatlog.formats.hashing import sha256
from heatlog.store import eventrows as rows_

from .caches import Caches
from .records import GENESIS, Check, StoredEvent, chain_hash, conflict_error, now, stored_v
from .rows import INSERT, INSERT_2, INSERT_RACE, INSERT_RACE_2, LIFT_AT
from .schema import GUARDS


class Appends(Caches):
    """The Appends job of the event store (heatlog.store.appends)."""

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
                chained.append((seq, event["type"], stored_v(event), text, last_hash, digest))
                last_hash = digest
        recorded = now()
        insert = INSERT_RACE
        if self.format_version >= rows_.COMPACT:  # heatlog.store.eventrows: (seq, type, v, payload, hash) per row
            chained = [self._compact_row(*row) for row in chained]
            at = rows_.recorded_column(recorded)
            insert, recorded = INSERT_RACE_2, str(at) if isinstance(at, int) else f"'{at}'"
        with self._tx(write=True) as conn:
            cur = conn.execute(
                "INSERT INTO races (name, created, parent, fork_seq, meta) VALUES (?, ?, NULL, NULL, ?)",
                (name, now(), meta_text),
            )
            race = int(cur.lastrowid or 0)
            self._tree[race] = (None, None)
            try:
                # Both constants are ours (an integer; now's digits, "-", ":", ".", "T" and "Z", or in format 2
                # an integer, unquoted: recorded_column gives text only for a time now did not write): written
                # into the statement, they are not bound again for every row, and the rows made before the
                # lock are the parameters as they are (the same values, types and bytes in the file).
                insert = insert.format(race=race, recorded=recorded)
                if len(chained) >= LIFT_AT:
                    # The race was made in this transaction, so none of its rows can replace a stored one: the
                    # replace guard (two index probes and a trigger program per row, a third of an insert) is
                    # lifted for this one batch and put back, the same text, before the commit. DDL is part of
                    # the transaction: no other connection ever sees the file without the guard, and a crash
                    # or an error rolls the drop back with the rows.
                    conn.execute("DROP TRIGGER events_no_replace")
                    conn.executemany(insert, chained)
                    conn.execute(GUARDS["events_no_replace"])
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
                (name, now(), parent, fork_seq, meta),
            )
            race = int(cur.lastrowid or 0)
            self._tree[race] = (parent, fork_seq)
            self._base_of(conn, race)
        return race

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
        recorded = now()
        try:
            if self.format_version >= rows_.COMPACT:
                conn.execute(INSERT_2, (race, *self._compact_row(seq, type_, v, text, prev_hash, digest, recorded)))
            else:
                conn.execute(INSERT, (race, seq, type_, v, text, recorded, prev_hash, digest))
        except sqlite3.IntegrityError as exc:
            raise conflict_error(exc, race, seq) from None
        return StoredEvent(race, seq, type_, v, json.loads(text), recorded, prev_hash, digest)

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
        recorded = now()
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
                    INSERT_2, [(r[0], *self._compact_row(r[1], r[2], r[3], r[4], r[6], r[7], r[5])) for r in rows]
                )
            else:
                conn.executemany(INSERT, rows)
        except sqlite3.IntegrityError as exc:
            raise conflict_error(exc, race, last_seq + 1) from None
        return out

    def insert_events(self, conn: sqlite3.Connection, race: int, events: Sequence[dict[str, Any]]) -> None:
        """Write ``events`` as the first rows of ``race``, a race made in the caller's write transaction on this
        store's connection (the season import writes a season and its races in one), hash-chained from the
        genesis, in the file's format (heatlog.store.eventrows)."""
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
