"""The file's format: the tables, indexes and append-only guards a new file is made with (format 2 of the events
table, heatlog.store.eventrows, or format 1 for the tests of old files), and the guards an older file is given when
opened.
"""

from __future__ import annotations

from typing import Any

from heatlog.store import eventrows as rows_

from .records import APPEND_ONLY, APPLICATION_ID, FORMAT_VERSION, now

#: Finds the retractions recorded after a snapshot without scanning the events in between (a partial index:
#: only ``retracted`` rows are in it, so it costs appends of other events nothing).
RETRACTED_INDEX = "CREATE INDEX IF NOT EXISTS events_retracted ON events (race, seq) WHERE type = 'retracted'"


#: Triggers that close every ordinary SQL statement around append-only, beyond UPDATE and DELETE of events:
#: ``REPLACE``/``INSERT OR REPLACE`` (whose implicit delete fires no delete trigger unless recursive triggers
#: are on), upserts (``ON CONFLICT DO UPDATE``), an explicit rowid of another row, a race id changed or a race
#: row replaced (orphaning its events), and the file's identity in ``meta``. Added to older files when opened.
GUARDS: dict[str, str] = {
    "events_no_replace": (
        "CREATE TRIGGER events_no_replace BEFORE INSERT ON events "
        "WHEN EXISTS (SELECT 1 FROM events WHERE race = NEW.race AND seq = NEW.seq) "
        "OR EXISTS (SELECT 1 FROM events WHERE rowid = NEW.rowid) "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: a stored event cannot be replaced'); END"
    ),
    "races_no_replace": (
        "CREATE TRIGGER races_no_replace BEFORE INSERT ON races "
        "WHEN EXISTS (SELECT 1 FROM races WHERE id = NEW.id) "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: a race cannot be replaced'); END"
    ),
    "races_no_renumber": (
        "CREATE TRIGGER races_no_renumber BEFORE UPDATE OF id ON races "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: a race id cannot change'); END"
    ),
    "meta_no_update": (
        "CREATE TRIGGER meta_no_update BEFORE UPDATE ON meta "
        "WHEN OLD.key IN ('application', 'format_version', 'created') "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: the file identity cannot change'); END"
    ),
    "meta_no_delete": (
        "CREATE TRIGGER meta_no_delete BEFORE DELETE ON meta "
        "WHEN OLD.key IN ('application', 'format_version', 'created') "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: the file identity cannot change'); END"
    ),
    "meta_no_replace": (
        "CREATE TRIGGER meta_no_replace BEFORE INSERT ON meta "
        "WHEN NEW.key IN ('application', 'format_version', 'created') "
        "AND EXISTS (SELECT 1 FROM meta WHERE key = NEW.key) "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: the file identity cannot change'); END"
    ),
}


def create_schema(db: Any, version: int = FORMAT_VERSION) -> None:  # a sqlite_utils.Database
    db.table("meta").create({"key": str, "value": str}, pk="key", not_null={"value"})
    db.table("races").create(
        {"id": int, "name": str, "created": str, "parent": int, "fork_seq": int, "meta": str},
        pk="id",
        foreign_keys=[("parent", "races", "id")],
        not_null={"created", "meta"},
    )
    columns: dict[str, type] = {"race": int, "seq": int, "type": str, "v": int, "payload": str}
    if version >= rows_.COMPACT:  # heatlog.store.eventrows: the time as an integer, the hash as bytes, no prev_hash
        columns.update(recorded=int, hash=bytes)
    else:
        columns.update(recorded=str, prev_hash=str, hash=str)
    db.table("events").create(
        columns,
        pk=("race", "seq"),
        foreign_keys=[("race", "races", "id")],
        not_null={"race", "seq", "type", "payload", "recorded", "hash"} | ({"prev_hash"} & set(columns)),
    )
    db.table("snapshots").create(
        {"race": int, "round": int, "rules_version": str, "seq": int, "state": str},
        pk=("race", "round", "rules_version"),
        foreign_keys=[("race", "races", "id")],
        not_null={"race", "round", "rules_version", "seq", "state"},
    )
    db.table("races").create_index(["parent"], index_name="races_parent")
    db.execute(RETRACTED_INDEX)
    db.execute(
        f"CREATE TRIGGER events_no_update BEFORE UPDATE ON events "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: UPDATE refused'); END"
    )
    db.execute(
        f"CREATE TRIGGER events_no_delete BEFORE DELETE ON events "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: DELETE refused'); END"
    )
    # A race's place in the tree (and its creation time) is part of the chain of its branches.
    db.execute(
        f"CREATE TRIGGER races_no_reparent BEFORE UPDATE OF parent, fork_seq, created ON races "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: a race cannot be moved'); END"
    )
    db.execute(
        f"CREATE TRIGGER races_no_delete BEFORE DELETE ON races "
        f"WHEN EXISTS (SELECT 1 FROM events WHERE race = OLD.id) "
        f"OR EXISTS (SELECT 1 FROM races WHERE parent = OLD.id) "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: a race with events or branches cannot be deleted'); END"
    )
    db.table("meta").insert_all(
        [
            {"key": "application", "value": "heatlog"},
            {"key": "format_version", "value": str(version)},
            {"key": "created", "value": now()},
        ]
    )
    for sql in GUARDS.values():
        db.execute(sql)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {version}")
