"""What the store gives and keeps: its constants, the canonical bytes of an event and the hash chain over them, the
time of recording, and the records a read returns (StoredEvent, RaceInfo, Problem, DamagedLog, ...).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from heatlog.engine.errors import DAMAGED, ConflictError, StoreError
from heatlog.engine.written import record
from heatlog.formats.hashing import sha256
from heatlog.store import eventrows as rows_

#: ``PRAGMA application_id`` of a heatlog database: the ASCII bytes "HEAT".
APPLICATION_ID = 0x48454154


#: Version of the table layout of new files; a newer file is refused rather than misread. Files of format 1 (the
#: events table as written before issue 32) are read and appended to in their own format (heatlog.store.eventrows).
FORMAT_VERSION = rows_.COMPACT


#: prev_hash of the first event of a race (and of a branch forked at seq 0).
GENESIS = "0" * 64


APPEND_ONLY = "heatlog: events are append-only"


#: Version of the anchor line written by ``heatlog anchor`` and at the end of an export.
ANCHOR_VERSION = 1


#: The largest integer SQLite stores: a race id, seq or round beyond it names no row (and cannot be bound).
SQLITE_MAX = (1 << 63) - 1


def canonical(event: Any) -> bytes:
    """The canonical bytes of an event: sorted keys, no spaces, UTF-8, no ASCII escaping.

    ``allow_nan=False`` only refuses NaN/Infinity (which are not JSON); the bytes of every accepted value are
    exactly ``json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()``.
    """
    return canonical_text(event).encode()


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


canonical_text: Callable[[Any], str] = _canonical_encoder()


def conflict_error(exc: sqlite3.IntegrityError, race: int, seq: int) -> Exception:
    """What a refused insert means: another writer took ``seq`` first (ConflictError), else the error itself."""
    if "UNIQUE" in str(exc) or "PRIMARY KEY" in str(exc) or "cannot be replaced" in str(exc):
        return ConflictError(f"another writer appended event {seq} first; nothing was written", race=race)
    return exc


def chain_hash(prev_hash: str, payload: bytes) -> str:
    """``sha256(prev_hash_hex + canonical bytes)`` as hex."""
    return sha256(prev_hash.encode("ascii") + payload).hexdigest()


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def stored_v(event: dict[str, Any]) -> int | None:
    """The ``v`` column of an event's row: its version when it is an integer (not a bool), else NULL."""
    v = event.get("v")
    return v if isinstance(v, int) and not isinstance(v, bool) else None


@record(frozen=True)
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

    def __init__(
        self,
        race: int,
        seq: int,
        type: str,
        v: int | None,
        event: dict[str, Any],
        recorded: str,
        prev_hash: str,
        hash: str,
    ) -> None:
        object.__setattr__(self, "race", race)
        object.__setattr__(self, "seq", seq)
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "v", v)
        object.__setattr__(self, "event", event)
        object.__setattr__(self, "recorded", recorded)
        object.__setattr__(self, "prev_hash", prev_hash)
        object.__setattr__(self, "hash", hash)


@record(frozen=True)
class RaceInfo:
    id: int
    name: str | None
    created: str
    parent: int | None
    fork_seq: int | None
    meta: dict[str, Any]
    #: length of the effective log (for a branch: fork_seq + own events).
    event_count: int

    def __init__(
        self,
        id: int,
        name: str | None,
        created: str,
        parent: int | None,
        fork_seq: int | None,
        meta: dict[str, Any],
        event_count: int,
    ) -> None:
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "created", created)
        object.__setattr__(self, "parent", parent)
        object.__setattr__(self, "fork_seq", fork_seq)
        object.__setattr__(self, "meta", meta)
        object.__setattr__(self, "event_count", event_count)


@record(frozen=True)
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

    def __init__(
        self,
        race: int,
        seq: int,
        kind: str,
        message: str,
    ) -> None:
        object.__setattr__(self, "race", race)
        object.__setattr__(self, "seq", seq)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "message", message)

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
            words=DAMAGED,
        )


@record(frozen=True, slots=True)
class RecorderSession:
    """A race's row in ``recorder_sessions``: the live recorder (pid None when free) and its cursor."""

    pid: int | None
    host: str | None
    start: str
    since: str
    cursor: str | None

    def __init__(
        self,
        pid: int | None,
        host: str | None,
        start: str,
        since: str,
        cursor: str | None,
    ) -> None:
        object.__setattr__(self, "pid", pid)
        object.__setattr__(self, "host", host)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "since", since)
        object.__setattr__(self, "cursor", cursor)

    def load_cursor(self) -> dict[str, Any] | None:
        if not self.cursor:
            return None
        try:
            cur = json.loads(self.cursor)
        except ValueError:
            return None
        return cur if isinstance(cur, dict) else None


@record(frozen=True)
class Snapshot:
    race: int
    round: int
    rules_version: str
    seq: int
    state: dict[str, Any]

    def __init__(
        self,
        race: int,
        round: int,
        rules_version: str,
        seq: int,
        state: dict[str, Any],
    ) -> None:
        object.__setattr__(self, "race", race)
        object.__setattr__(self, "round", round)
        object.__setattr__(self, "rules_version", rules_version)
        object.__setattr__(self, "seq", seq)
        object.__setattr__(self, "state", state)


#: ``check(log, event)``: raise to refuse ``event`` given the effective ``log`` (nothing is written).
Check = Callable[[list[StoredEvent], dict[str, Any]], None]
