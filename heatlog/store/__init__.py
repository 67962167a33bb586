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
               the payload without the type and v its columns hold): :mod:`heatlog.store.eventrows` is that encoding,
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

The store is a package, one module per job (issue 26; docs/design.md, "The store's parts"): ``records`` (the
constants, the canonical bytes and the hash chain, what a read returns), ``schema`` (the file's format and the
guards), ``connection`` (opening, the error boundary, transactions), ``rows`` (the events table in either format
and the race tree), ``reads``, ``appends``, ``listing`` (the races), ``audit`` (verification and anchors),
``caches`` (snapshots, race summaries), ``leases`` (recorder sessions), ``streams`` (every other stream: the
seasons) and ``jsonl``. :class:`EventStore` is all of them; ``from heatlog.store import ...`` gives what it gave.
The chain runs from the jobs a reader needs (connection, rows, reads, listing, caches: ``reader.ReadStore``) to
those it does not (appends, audit, leases, streams), which the package loads at the first use of ``EventStore``.

"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine.errors import ConflictError, StoreError
from .records import (
    ANCHOR_VERSION,
    APPEND_ONLY,
    APPLICATION_ID,
    FORMAT_VERSION,
    GENESIS,
    SQLITE_MAX,
    Check,
    DamagedLog,
    Problem,
    RaceInfo,
    RecorderSession,
    Snapshot,
    StoredEvent,
    canonical,
    chain_hash,
)

if TYPE_CHECKING:
    from .jsonl import parse_jsonl, read_jsonl
    from .streams import SEASON_STREAM, STREAMS, EventStore, StreamKind

__all__ = [
    "ANCHOR_VERSION",
    "APPEND_ONLY",
    "APPLICATION_ID",
    "FORMAT_VERSION",
    "GENESIS",
    "SEASON_STREAM",
    "SQLITE_MAX",
    "STREAMS",
    "Check",
    "ConflictError",
    "DamagedLog",
    "EventStore",
    "Problem",
    "RaceInfo",
    "RecorderSession",
    "Snapshot",
    "StoreError",
    "StoredEvent",
    "StreamKind",
    "canonical",
    "chain_hash",
    "optional_ddl",
    "parse_jsonl",
    "read_jsonl",
]

#: The names loaded at their first use (PEP 562), so that a command that only reads a race (heatlog.store.reader,
#: ``ReadStore``) does not import the writer's, the audit's and the streams' code (issue 32: start-up).
_STREAMS = ("EventStore", "SEASON_STREAM", "STREAMS", "StreamKind")
_JSONL = ("parse_jsonl", "read_jsonl")


def __getattr__(name: str) -> Any:
    if name in _STREAMS:
        from . import streams

        value = getattr(streams, name)
    elif name in _JSONL:
        from . import jsonl

        value = getattr(jsonl, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # once loaded, a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_STREAMS, *_JSONL})


def optional_ddl() -> list[str]:
    """The statements of the tables the store makes only when first needed (the recorder's leases, the races'
    summaries, the season stream's tables): a file without them is not damaged (heatlog.races.schema_repair)."""
    from .streams import SEASON_STREAM, EventStore

    return [EventStore._RECORDER_DDL, EventStore._SUMMARY_DDL, *SEASON_STREAM.tables]
