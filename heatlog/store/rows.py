"""The events table in either format (heatlog.store.eventrows) and the race tree: where a race's effective log lies (its
segments, root first), how its rows are selected, encoded and given back as format 1's shapes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from heatlog.engine.errors import DAMAGED, NOT_FOUND, MalformedInput, StoreError
from heatlog.store import eventrows as rows_

from .connection import StoreConnection
from .records import GENESIS, canonical_text, stored_v

SELECT_EVENTS = (
    "SELECT race, seq, type, v, payload, recorded, prev_hash, hash FROM events "
    "WHERE race = ? AND seq > ? AND seq <= ? ORDER BY seq"
)


SELECT_PAYLOADS = "SELECT seq, payload FROM events WHERE race = ? AND seq > ? AND seq <= ? ORDER BY seq"


SELECT_CHAIN = "SELECT seq, payload, prev_hash, hash FROM events WHERE race = ? AND seq > ? AND seq <= ? ORDER BY seq"


SELECT_RETRACTIONS = (
    "SELECT seq, payload FROM events WHERE race = ? AND seq > ? AND seq <= ? AND type = 'retracted' ORDER BY seq"
)


COUNT_ENTRIES = (
    "SELECT count(*), coalesce(max(seq = ?), 0) FROM events "
    "WHERE race = ? AND seq > ? AND seq <= ? AND type != 'retracted'"
)


#: The C scanner behind json.loads: (value, end) of the JSON value at an index, without json.loads' per-call cost.
scan_json: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


TAIL = "SELECT seq, hash FROM events WHERE race = ? ORDER BY seq DESC LIMIT 1"


#: From this many events, a new race's batch is written with the replace guard lifted inside its transaction
#: (see create_race): below it, the schema change costs more than the guard's probes it saves (~1 µs a row).
LIFT_AT = 500


INSERT = "INSERT INTO events (race, seq, type, v, payload, recorded, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"


#: The insert of a new race's rows (create_race): the race and the time of recording written in.
INSERT_RACE = (
    "INSERT INTO events (race, seq, type, v, payload, recorded, prev_hash, hash) "
    "VALUES ({race}, ?, ?, ?, ?, '{recorded}', ?, ?)"
)


#: The same reads in format 2 (heatlog.store.eventrows): type and v to give the payload back, no prev_hash.
RANGE = "FROM events WHERE race = ? AND seq > ? AND seq <= ?"


SELECT_EVENTS_2 = f"SELECT race, seq, type, v, payload, recorded, hash {RANGE} ORDER BY seq"


SELECT_PAYLOADS_2 = f"SELECT seq, type, v, payload {RANGE} ORDER BY seq"


SELECT_CHAIN_2 = f"SELECT seq, type, v, payload, hash {RANGE} ORDER BY seq"


SELECT_RETRACTIONS_2 = f"SELECT seq, type, v, payload {RANGE} AND type = 'retracted' ORDER BY seq"


INSERT_2 = "INSERT INTO events (race, seq, type, v, payload, recorded, hash) VALUES (?, ?, ?, ?, ?, ?, ?)"


INSERT_RACE_2 = (
    "INSERT INTO events (race, seq, type, v, payload, recorded, hash) VALUES ({race}, ?, ?, ?, ?, {recorded}, ?)"
)


NO_LIMIT = 1 << 62


def payload_v(payload: str) -> int | None:
    """The ``v`` column format 1 has for a payload stored whole in format 2 (heatlog.store.eventrows): its integer v."""
    try:
        event = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    return stored_v(event) if isinstance(event, dict) else None


class EventRows(StoreConnection):
    """The EventRows job of the event store (heatlog.store.rows)."""

    def _race_row(self, conn: sqlite3.Connection, race: int) -> tuple[int | None, int | None]:
        known = self._tree.get(race)
        if known is not None:
            return known
        row = conn.execute("SELECT parent, fork_seq FROM races WHERE id = ?", (race,)).fetchone()
        if row is None:
            raise StoreError(f"no race {race}", words=NOT_FOUND)
        self._tree[race] = (row[0], row[1])
        return self._tree[race]

    def _segments(self, conn: sqlite3.Connection, race: int) -> list[tuple[int, int, int]]:
        """The effective log of ``race`` as (physical race, seq_above, seq_upto) ranges, root first."""
        segments: list[tuple[int, int, int]] = []
        limit = NO_LIMIT
        current: int | None = race
        seen: set[int] = set()
        while current is not None:
            if current in seen:
                raise StoreError(
                    f"race tree is damaged (race {current} is its own ancestor): {self.path}", words=DAMAGED
                )
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
        row = conn.execute(TAIL, (race,)).fetchone()
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
                            words=DAMAGED,
                        )
                    base = (fork_seq, str(rows_.hash_hex(row[0])))
                    break
        self._base[race] = base
        return base

    def _event_rows(self, conn: sqlite3.Connection, args: tuple[int, int, int], prev: str | None) -> list[Any]:
        """(race, seq, type, v, payload, recorded, prev_hash, hash) of the rows of one segment, as format 1 stores
        them. In format 2 the prev_hash of each row is the hash of the row before it (``prev`` for the first: the
        hash the chain expects there, None where it is not known), v is the event's (the column is NULL for an
        event stored whole), and the payload, time and hashes are given back as text."""
        if self.format_version < rows_.COMPACT:
            return conn.execute(SELECT_EVENTS, args).fetchall()
        text, hex_, when = rows_.payload_text, rows_.hash_hex, rows_.recorded_text
        out = []
        for race, seq, type_, v, body, recorded, digest in conn.execute(SELECT_EVENTS_2, args).fetchall():
            payload = text(type_, v, body)
            if v is None and type(payload) is str:
                v = payload_v(payload)
            digest = hex_(digest)
            out.append((race, seq, type_, v, payload, when(recorded), prev, digest))
            prev = digest if type(digest) is str else None
        return out

    def _chain_rows(self, conn: sqlite3.Connection, args: tuple[int, int, int]) -> list[Any]:
        """(seq, payload, prev_hash, hash) of the rows of one segment; in format 2 prev_hash is None (the chain
        check takes the hash of the row before: :class:`ChainCheck`)."""
        if self.format_version < rows_.COMPACT:
            return conn.execute(SELECT_CHAIN, args).fetchall()
        text, hex_ = rows_.payload_text, rows_.hash_hex
        return [(seq, text(t, v, body), None, hex_(h)) for seq, t, v, body, h in conn.execute(SELECT_CHAIN_2, args)]

    def _payload_rows(self, conn: sqlite3.Connection, sql: str, args: tuple[int, int, int]) -> list[Any]:
        """(seq, payload) of the rows ``sql`` (format 1's select of seq and payload) finds in one segment."""
        if self.format_version < rows_.COMPACT:
            return conn.execute(sql, args).fetchall()
        compact = SELECT_RETRACTIONS_2 if sql is SELECT_RETRACTIONS else SELECT_PAYLOADS_2
        text = rows_.payload_text
        return [(seq, text(t, v, body)) for seq, t, v, body in conn.execute(compact, args)]

    def _hash_text(self, value: Any) -> Any:
        return rows_.hash_hex(value) if self.format_version >= rows_.COMPACT else value

    @staticmethod
    def _encode(event: Any) -> tuple[str, Any, str]:
        type_, v, text, _ = EventRows._encode_text(event)
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
            text = canonical_text(event)
            raw = text.encode()
        except (TypeError, ValueError, RecursionError) as exc:  # UnicodeEncodeError is a ValueError
            raise MalformedInput(f"the event cannot be stored as JSON: {exc}") from None
        return type_, stored_v(event), text, raw

    @staticmethod
    def _compact_row(
        seq: int, type_: str, v: Any, text: str, prev_hash: str, digest: str, recorded: str | None = None
    ) -> tuple[Any, ...]:
        """A format-1 row's (seq, type, v, payload, prev_hash, hash[, recorded]) as format 2 stores them:
        (seq, type, v, payload, hash[, recorded]) in the column order of INSERT_2 / INSERT_RACE_2."""
        v_column, body = rows_.payload_column(type_, v, text)
        if recorded is None:
            return seq, type_, v_column, body, rows_.hash_column(digest)
        return seq, type_, v_column, body, rows_.recorded_column(recorded), rows_.hash_column(digest)

    def _tail(self, conn: sqlite3.Connection, race: int) -> tuple[int, str]:
        """(last seq, last hash) of the effective log, read inside the write transaction."""
        row = conn.execute(TAIL, (race,)).fetchone()
        if row is not None:
            return int(row[0]), str(self._hash_text(row[1]))
        return self._base_of(conn, race)

    def _hash_at(self, conn: sqlite3.Connection, race: int, seq: int) -> str | None:
        if seq == 0:
            return GENESIS
        for seg_race, low, high in self._segments(conn, race):
            if low < seq <= high:
                row = conn.execute("SELECT hash FROM events WHERE race = ? AND seq = ?", (seg_race, seq)).fetchone()
                return None if row is None else str(self._hash_text(row[0]))
        return None
