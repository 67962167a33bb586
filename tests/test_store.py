"""Tests of heatlog.store.

``EventStoreContract`` holds the behaviour every event-store backend must have; another backend subclasses
it and overrides ``open_store``.  ``TestSQLiteEventStore`` runs it against the SQLite store and adds the
SQLite-specific tests (triggers, tampering through a raw connection, durability, foreign files).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heatlog.engine.errors import ConflictError, IllegalEvent, MalformedInput, StoreError
from heatlog.store import (
    APPLICATION_ID,
    GENESIS,
    DamagedLog,
    EventStore,
    Problem,
    StoredEvent,
    canonical,
    chain_hash,
    parse_jsonl,
)


def gear(car: str = "Red", g: int = 2) -> dict[str, Any]:
    return {"type": "gear_chosen", "v": 1, "car": car, "gear": g}


def note(text: str) -> dict[str, Any]:
    return {"type": "note", "v": 1, "text": text}


SAMPLE: list[dict[str, Any]] = [
    {
        "type": "race_started",
        "v": 1,
        "laps": 2,
        "cars": [{"name": "Red", "colour": "red"}, {"name": "Grün", "colour": "green"}],
        "mode": "table",
        "variant": "standard",
        "handicap": [],
        "track": {"id": "usa", "spaces": 60, "corners": [{"after": 12, "speed": 3}], "ratio": 0.5},
    },
    {"type": "grid_set", "v": 1, "order": ["Grün", "Red"]},
    gear("Red", 1),
    gear("Grün", 2),
    {"type": "note", "v": 1, "text": 'Ünïcödé ✓ "quoted" \\ back\nslash', "raw": "note ✓"},
    {"type": "cards_revealed", "v": 1, "car": "Red", "cards": ["1", "H"], "z": None, "a": -0.0, "b": 1e-7},
]


class EventStoreContract:
    """Behaviour every event-store backend must have."""

    def open_store(self, path: Path, **kwargs: Any) -> EventStore:
        return EventStore(path, **kwargs)

    @pytest.fixture
    def path(self, tmp_path: Path) -> Path:
        return tmp_path / "races.heatlog"

    @pytest.fixture
    def store(self, path: Path) -> Any:
        with self.open_store(path) as store:
            yield store

    def fill(self, store: EventStore, race: int, n: int) -> list[StoredEvent]:
        return [store.append(race, gear("Red", 1 + i % 4) | {"i": i}) for i in range(n)]

    # ---- append / read

    def test_append_and_read(self, store: EventStore) -> None:
        race = store.create_race("first", {"track": "usa", "cars": ["Red", "Grün"]})
        written = [store.append(race, e) for e in SAMPLE]
        read = store.events(race)
        assert read == written
        assert [e.seq for e in read] == list(range(1, len(SAMPLE) + 1))
        assert [e.event for e in read] == SAMPLE
        assert [e.type for e in read] == [e["type"] for e in SAMPLE]
        assert all(e.v == 1 and e.race == race for e in read)
        prev = GENESIS
        for e in read:
            assert e.prev_hash == prev
            assert e.hash == chain_hash(prev, canonical(e.event))
            assert e.recorded.endswith("Z")
            prev = e.hash
        assert store.verify(race) == []

    def test_canonical_bytes(self) -> None:
        event = {"v": 1, "type": "note", "text": "ä ✓", "n": [1, 2.5]}
        assert canonical(event) == '{"n":[1,2.5],"text":"ä ✓","type":"note","v":1}'.encode()
        with pytest.raises(ValueError):
            canonical({"type": "x", "bad": float("nan")})

    def test_races_are_separate(self, store: EventStore) -> None:
        a = store.create_race("a", {})
        b = store.create_race("b", {})
        store.append(a, note("a1"))
        store.append(b, note("b1"))
        store.append(a, note("a2"))
        assert [e.event["text"] for e in store.events(a)] == ["a1", "a2"]
        assert [e.seq for e in store.events(b)] == [1]
        assert store.events(b)[0].prev_hash == GENESIS

    def test_race_info(self, store: EventStore) -> None:
        assert store.races() == []
        assert store.latest_race() is None
        a = store.create_race("a", {"track": "usa", "mode": "table"})
        b = store.create_race(None, {})
        self.fill(store, a, 3)
        info = store.race(a)
        assert (info.id, info.name, info.parent, info.fork_seq, info.event_count) == (a, "a", None, None, 3)
        assert info.meta == {"track": "usa", "mode": "table"}
        assert [r.id for r in store.races()] == [a, b]
        assert store.race(b).event_count == 0 and store.race(b).name is None
        assert store.latest_race() == b

    def test_unknown_race(self, store: EventStore) -> None:
        for call in (
            lambda: store.race(99),
            lambda: store.events(99),
            lambda: store.append(99, note("x")),
            lambda: store.verify(99),
            lambda: store.create_branch(99, 0, "b"),
        ):
            with pytest.raises(StoreError, match="no race 99"):
                call()

    def test_malformed_event_refused(self, store: EventStore) -> None:
        race = store.create_race("r", {})
        for bad in ([1, 2], {"v": 1}, {"type": 3}, {"type": "x", "f": float("inf")}, {"type": "x", "s": {1}}):
            with pytest.raises(MalformedInput):
                store.append(race, bad)  # type: ignore[arg-type]
        assert store.events(race) == []

    # ---- conflicts

    def test_expected_seq(self, store: EventStore) -> None:
        race = store.create_race("r", {})
        assert store.append(race, note("1"), expected_seq=1).seq == 1
        with pytest.raises(ConflictError, match="another writer appended event 1 first; nothing was written"):
            store.append(race, note("again"), expected_seq=1)
        with pytest.raises(ConflictError, match="nothing was written"):
            store.append(race, note("ahead"), expected_seq=5)
        assert store.append(race, note("2"), expected_seq=2).seq == 2
        assert [e.event["text"] for e in store.events(race)] == ["1", "2"]

    def test_two_stores_same_expected_seq(self, path: Path) -> None:
        with self.open_store(path) as a, self.open_store(path) as b:
            race = a.create_race("r", {})
            a.append(race, note("first"))
            seen_a = len(a.events(race))
            seen_b = len(b.events(race))
            a.append(race, note("from a"), expected_seq=seen_a + 1)
            with pytest.raises(ConflictError) as caught:
                b.append(race, note("from b"), expected_seq=seen_b + 1)
            assert caught.value.race == race
            assert str(caught.value) == (
                f"conflict: race {race}: another writer appended event 2 first; nothing was written"
            )
            # b re-reads and tries again: nothing is lost
            b.append(race, note("from b"), expected_seq=len(b.events(race)) + 1)
            assert [e.event["text"] for e in a.events(race)] == ["first", "from a", "from b"]
            assert a.verify(race) == []

    def test_concurrent_writers_one_wins(self, path: Path) -> None:
        with self.open_store(path) as setup:
            race = setup.create_race("r", {})
        n = 4
        barrier = threading.Barrier(n)
        results: list[str] = []
        lock = threading.Lock()

        def writer(i: int) -> None:
            with self.open_store(path) as store:
                barrier.wait()
                try:
                    store.append(race, note(f"w{i}"), expected_seq=1)
                    outcome = "ok"
                except ConflictError:
                    outcome = "conflict"
                with lock:
                    results.append(outcome)

        threads = [threading.Thread(target=writer, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results) == ["conflict"] * (n - 1) + ["ok"]
        with self.open_store(path) as store:
            assert len(store.events(race)) == 1

    def test_concurrent_writers_lose_nothing(self, path: Path) -> None:
        with self.open_store(path) as setup:
            race = setup.create_race("r", {})
        n, k = 4, 25
        errors: list[BaseException] = []

        def writer(i: int) -> None:
            try:
                with self.open_store(path) as store:
                    for j in range(k):
                        store.append(race, note(f"{i}.{j}"))
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=writer, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        with self.open_store(path) as store:
            log = store.events(race)
            assert [e.seq for e in log] == list(range(1, n * k + 1))
            assert sorted(e.event["text"] for e in log) == sorted(f"{i}.{j}" for i in range(n) for j in range(k))
            assert store.verify(race) == []

    # ---- check hook

    def test_check_hook(self, store: EventStore) -> None:
        race = store.create_race("r", {})
        store.append(race, note("a"))
        seen: list[tuple[list[int], dict[str, Any]]] = []

        def check(log: list[StoredEvent], event: dict[str, Any]) -> None:
            seen.append(([e.seq for e in log], event))
            if event["text"] == "bad":
                raise IllegalEvent("not now", race=race)

        store.append(race, note("b"), check=check)
        with pytest.raises(IllegalEvent, match="not now"):
            store.append(race, note("bad"), check=check)
        assert seen == [([1], note("b")), ([1, 2], note("bad"))]
        assert [e.event["text"] for e in store.events(race)] == ["a", "b"]

    # ---- append_many

    def test_append_many(self, store: EventStore) -> None:
        race = store.create_race("r", {})
        store.append(race, note("0"))
        out = store.append_many(race, [note("1"), note("2"), note("3")])
        assert [e.seq for e in out] == [2, 3, 4]
        assert store.events(race)[1:] == out
        assert store.verify(race) == []

    def test_append_many_all_or_nothing(self, store: EventStore) -> None:
        race = store.create_race("r", {})
        store.append(race, note("0"))
        before = store.events(race)

        def check(log: list[StoredEvent], event: dict[str, Any]) -> None:
            assert [e.seq for e in log] == list(range(1, len(log) + 1))
            if event["text"] == "3":
                raise IllegalEvent(f"refused after {len(log)} events")

        with pytest.raises(IllegalEvent, match="refused after 3 events"):
            store.append_many(race, [note("1"), note("2"), note("3"), note("4")], check=check)
        assert store.events(race) == before
        with pytest.raises(MalformedInput):
            store.append_many(race, [note("1"), {"type": "x", "bad": float("nan")}])
        assert store.events(race) == before
        with pytest.raises(ConflictError):
            store.append_many(race, [note("1")], expected_seq=1)
        assert store.events(race) == before
        assert store.append_many(race, []) == []

    # ---- branches

    def test_branch_shares_parent_prefix(self, store: EventStore) -> None:
        parent = store.create_race("main", {"track": "usa"})
        p = self.fill(store, parent, 5)
        branch = store.create_branch(parent, 3, "what if")
        own = store.append(branch, note("branch 4"))
        assert own.seq == 4 and own.race == branch
        assert own.prev_hash == p[2].hash  # chain continues from the fork point
        log = store.events(branch)
        assert log[:3] == p[:3]
        assert [(e.race, e.seq) for e in log] == [(parent, 1), (parent, 2), (parent, 3), (branch, 4)]
        # the parent appending after the fork does not change the branch
        store.append(parent, note("parent 6"))
        assert store.events(branch) == log
        info = store.race(branch)
        assert (info.parent, info.fork_seq, info.event_count, info.meta) == (parent, 3, 4, {"track": "usa"})
        assert store.race(parent).event_count == 6
        assert store.verify(branch) == [] and store.verify(parent) == []

    def test_branch_of_branch(self, store: EventStore) -> None:
        root = store.create_race("root", {})
        r = self.fill(store, root, 6)
        b1 = store.create_branch(root, 4, "b1")
        b1_own = [store.append(b1, note(f"b1.{i}")) for i in range(3)]  # seqs 5, 6, 7
        b2 = store.create_branch(b1, 6, "b2")  # root 1..4, b1 5..6
        b2_own = store.append(b2, note("b2.7"))
        assert b2_own.prev_hash == b1_own[1].hash
        log = store.events(b2)
        assert [(e.race, e.seq) for e in log] == [(root, i) for i in range(1, 5)] + [(b1, 5), (b1, 6), (b2, 7)]
        # a fork inside the grandparent's part of the prefix
        b3 = store.create_branch(b1, 2, "b3")
        assert store.events(b3) == r[:2]
        assert store.append(b3, note("b3.3")).prev_hash == r[1].hash
        assert [e.seq for e in store.events(b3)] == [1, 2, 3]
        for race in (root, b1, b2, b3):
            assert store.verify(race) == []

    def test_branch_edges(self, store: EventStore) -> None:
        parent = store.create_race("p", {})
        self.fill(store, parent, 2)
        with pytest.raises(StoreError, match="cannot fork at event 3: the race has 2 events"):
            store.create_branch(parent, 3, "too far")
        with pytest.raises(StoreError):
            store.create_branch(parent, -1, "negative")
        empty = store.create_branch(parent, 0, "from scratch")
        assert store.events(empty) == []
        assert store.append(empty, note("1")).prev_hash == GENESIS
        whole = store.create_branch(parent, 2, "all of it")
        assert [e.seq for e in store.events(whole)] == [1, 2]
        assert store.append(whole, note("3"), expected_seq=3).seq == 3

    # ---- export / import

    def test_export_import_byte_identical(self, store: EventStore) -> None:
        race = store.create_race("r", {})
        for e in SAMPLE:
            store.append(race, e)
        text = store.export_jsonl(race)
        assert text.endswith("\n") and text.count("\n") == len(SAMPLE)
        assert text.splitlines()[1] == '{"order":["Grün","Red"],"type":"grid_set","v":1}'
        copy = store.create_race("copy", {})
        store.append_many(copy, [event for _, event in parse_jsonl(text)])
        assert store.export_jsonl(copy) == text
        assert [e.hash for e in store.events(copy)] == [e.hash for e in store.events(race)]
        assert store.export_jsonl(store.create_race("empty", {})) == ""

    def test_export_branch(self, store: EventStore) -> None:
        parent = store.create_race("p", {})
        self.fill(store, parent, 3)
        branch = store.create_branch(parent, 2, "b")
        store.append(branch, note("own"))
        lines = store.export_jsonl(branch).splitlines()
        assert [json.loads(line) for line in lines] == [e.event for e in store.events(branch)]

    # ---- snapshots

    def test_snapshots(self, store: EventStore) -> None:
        race = store.create_race("r", {})
        self.fill(store, race, 9)
        assert store.get_snapshot(race, "1") is None
        store.put_snapshot(race, 1, "1", 3, {"round": 1})
        store.put_snapshot(race, 2, "1", 6, {"round": 2})
        store.put_snapshot(race, 2, "0", 5, {"old": True})
        latest = store.get_snapshot(race, "1")
        assert latest is not None and (latest.round, latest.seq, latest.state) == (2, 6, {"round": 2})
        before = store.get_snapshot(race, "1", max_seq=5)
        assert before is not None and before.round == 1
        exact = store.get_snapshot(race, "1", round=1)
        assert exact is not None and exact.seq == 3
        store.put_snapshot(race, 2, "1", 7, {"round": 2, "again": True})  # replaced
        again = store.get_snapshot(race, "1", round=2)
        assert again is not None and again.seq == 7
        assert store.clear_snapshots(race, from_seq=7) == 1
        assert store.get_snapshot(race, "1", round=2) is None
        assert store.clear_snapshots(race) == 2
        assert store.get_snapshot(race, "1") is None and store.get_snapshot(race, "0") is None


class TestSQLiteEventStore(EventStoreContract):
    def raw(self, path: Path) -> sqlite3.Connection:
        return sqlite3.connect(path, isolation_level=None)

    def drop_triggers(self, path: Path) -> sqlite3.Connection:
        conn = self.raw(path)
        conn.execute("DROP TRIGGER events_no_update")
        conn.execute("DROP TRIGGER events_no_delete")
        return conn

    # ---- settings

    def test_settings(self, store: EventStore, path: Path) -> None:
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 2000
        with self.raw(path) as conn:
            assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
            assert dict(conn.execute("SELECT key, value FROM meta"))["application"] == "heatlog"
            assert {"races", "events", "snapshots", "meta"} <= {
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }

    def test_reopen(self, path: Path) -> None:
        with self.open_store(path) as store:
            race = store.create_race("r", {})
            written = self.fill(store, race, 3)
        with self.open_store(path, create=False) as store:
            assert store.events(race) == written

    # ---- append-only

    def test_update_and_delete_refused(self, store: EventStore, path: Path) -> None:
        race = store.create_race("r", {})
        self.fill(store, race, 3)
        conn = self.raw(path)
        with pytest.raises(sqlite3.IntegrityError, match="append-only: UPDATE refused"):
            conn.execute("UPDATE events SET payload = '{}' WHERE seq = 2")
        with pytest.raises(sqlite3.IntegrityError, match="append-only: DELETE refused"):
            conn.execute("DELETE FROM events WHERE seq = 3")
        with pytest.raises(sqlite3.IntegrityError, match="cannot be moved"):
            conn.execute("UPDATE races SET fork_seq = 1")
        with pytest.raises(sqlite3.IntegrityError, match="cannot be deleted"):
            conn.execute("DELETE FROM races")
        conn.execute("UPDATE races SET name = 'renamed'")  # informational columns may change
        conn.close()
        assert len(store.events(race)) == 3 and store.verify(race) == []
        assert store.race(race).name == "renamed"

    def test_trigger_error_through_store_connection_is_translated(self, store: EventStore) -> None:
        race = store.create_race("r", {})
        self.fill(store, race, 1)
        with (
            pytest.raises(StoreError, match="events are append-only: DELETE refused"),
            store._tx(write=True) as conn,
        ):
            conn.execute("DELETE FROM events")
        assert len(store.events(race)) == 1

    def test_primary_key_is_the_last_guard(self, store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
        race = store.create_race("r", {})
        store.append(race, note("real"))
        # a writer with a stale idea of the tail: the PRIMARY KEY refuses the duplicate seq
        monkeypatch.setattr(store, "_tail", lambda conn, race: (0, GENESIS))
        with pytest.raises(ConflictError) as caught:
            store.append(race, note("stale"))
        assert str(caught.value) == (
            f"conflict: race {race}: another writer appended event 1 first; nothing was written"
        )
        monkeypatch.undo()
        assert [e.event["text"] for e in store.events(race)] == ["real"]

    # ---- durability

    def test_acknowledged_event_survives_sigkill(self, store: EventStore, path: Path) -> None:
        race = store.create_race("r", {})
        store.append(race, note("before"))
        child = (
            "import sys, time\n"
            "from heatlog.store import EventStore\n"
            "s = EventStore(sys.argv[1])\n"
            "e = s.append(int(sys.argv[2]), {'type': 'note', 'v': 1, 'text': 'acked'})\n"
            "print('acked', e.seq, flush=True)\n"
            "time.sleep(60)\n"
        )
        proc = subprocess.Popen(
            [sys.executable, "-c", child, str(path), str(race)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.wait(timeout=10)
            if proc.stdout:
                proc.stdout.close()
            if proc.stderr:
                proc.stderr.close()
        assert line.strip() == "acked 2", line
        assert proc.returncode == -signal.SIGKILL
        with self.open_store(path, create=False) as reopened:
            log = reopened.events(race)
            assert [e.event["text"] for e in log] == ["before", "acked"]
            assert reopened.verify(race) == []

    # ---- tampering

    def test_tamper_payload_byte(self, store: EventStore, path: Path) -> None:
        race = store.create_race("r", {})
        for g in (1, 2, 3, 4, 1):
            store.append(race, gear("Red", g))
        conn = self.drop_triggers(path)
        conn.execute("UPDATE events SET payload = replace(payload, '\"gear\":3', '\"gear\":4') WHERE seq = 3")
        conn.close()
        problems = store.verify(race)
        assert [(p.race, p.seq, p.kind) for p in problems] == [(race, 3, "hash")]
        assert "race 1, event 3: hash" in str(problems[0])

    def test_tamper_deleted_row(self, store: EventStore, path: Path) -> None:
        race = store.create_race("r", {})
        self.fill(store, race, 6)
        conn = self.drop_triggers(path)
        conn.execute("DELETE FROM events WHERE seq = 3")
        conn.execute("DELETE FROM events WHERE seq IN (5)")
        conn.close()
        problems = store.verify(race)
        assert [(p.seq, p.kind) for p in problems] == [(3, "gap"), (5, "gap")]
        assert problems[0].message == "event 3 missing"

    def test_tamper_swapped_payloads(self, store: EventStore, path: Path) -> None:
        race = store.create_race("r", {})
        self.fill(store, race, 5)
        conn = self.drop_triggers(path)
        p2, p4 = (conn.execute("SELECT payload FROM events WHERE seq = ?", (s,)).fetchone()[0] for s in (2, 4))
        conn.execute("UPDATE events SET payload = ? WHERE seq = 2", (p4,))
        conn.execute("UPDATE events SET payload = ? WHERE seq = 4", (p2,))
        conn.close()
        assert [(p.seq, p.kind) for p in store.verify(race)] == [(2, "hash"), (4, "hash")]

    def test_tamper_reordered_rows(self, store: EventStore, path: Path) -> None:
        race = store.create_race("r", {})
        self.fill(store, race, 5)
        conn = self.drop_triggers(path)
        conn.execute("UPDATE events SET seq = 100 WHERE seq = 2")
        conn.execute("UPDATE events SET seq = 2 WHERE seq = 3")
        conn.execute("UPDATE events SET seq = 3 WHERE seq = 100")
        conn.close()
        problems = store.verify(race)
        # format 1 stores each row's prev_hash; format 2 chains each row from the row before it
        # (heatlog.store.eventrows)
        assert {p.kind for p in problems} == ({"chain"} if store.format_version == 1 else {"hash"})
        assert {2, 3} <= {p.seq for p in problems}

    def test_tamper_columns_and_json(self, store: EventStore, path: Path) -> None:
        race = store.create_race("r", {})
        self.fill(store, race, 4)
        conn = self.drop_triggers(path)
        conn.execute("UPDATE events SET type = 'boost' WHERE seq = 1")
        conn.execute("UPDATE events SET v = 2 WHERE seq = 2")
        conn.execute("UPDATE events SET payload = '{not json' WHERE seq = 4")
        conn.close()
        problems = [(p.seq, p.kind) for p in store.verify(race)]
        # format 2 gives the payload back from the type and v columns (heatlog.store.eventrows): changing them
        # changes it
        first = 1 if store.format_version == 1 else 4
        changed = "columns" if store.format_version == 1 else "hash"
        assert problems == [(1, changed), (2, changed), (4, "hash"), (4, "json")]
        with pytest.raises(StoreError, match=f"tampered with at event {1 if changed == 'hash' else 4}: its content"):
            store.events(race)  # the broken chain is found first
        seen: list[Problem] = []
        store.on_damage = seen.append  # --force: read anyway; a row that is no JSON still cannot be read
        with pytest.raises(StoreError, match="event 4 is not a valid JSON object"):
            store.events(race)
        assert [(p.seq, p.kind) for p in seen] == [(s, "hash") for s in ([4] if first == 1 else [1, 2, 4])]

    def test_tamper_in_parent_prefix_shows_in_branch(self, store: EventStore, path: Path) -> None:
        parent = store.create_race("p", {})
        self.fill(store, parent, 4)
        branch = store.create_branch(parent, 3, "b")
        store.append(branch, note("own"))
        conn = self.drop_triggers(path)
        conn.execute("UPDATE events SET payload = replace(payload, 'Red', 'Rod') WHERE race = ? AND seq = 2", (parent,))
        conn.execute("DELETE FROM events WHERE race = ? AND seq = 3", (parent,))
        conn.close()
        assert [(p.race, p.seq, p.kind) for p in store.verify(branch)] == [
            (parent, 2, "hash"),
            (parent, 3, "gap"),
        ]
        # a read of the branch folds the shared prefix: it checks its chain too, naming the branch and the prefix
        with pytest.raises(DamagedLog, match=f"race {branch}: .*at event 2: .*shared with race {parent}"):
            store.log_from(branch)
        seen: list[Problem] = []
        store.on_damage = seen.append
        assert [seq for seq, _ in store.log_from(branch)] == [1, 2, 4]
        assert [(p.seq, p.kind) for p in seen] == [(2, "hash"), (3, "gap")]
        assert store.export_jsonl(branch).count("\n") == 3

    def test_reads_check_the_chain_from_where_they_start(self, store: EventStore, path: Path) -> None:
        race = store.create_race("r", {})
        self.fill(store, race, 6)
        assert [seq for seq, _ in store.log_from(race, after=3)] == [4, 5, 6]
        conn = self.drop_triggers(path)
        if store.format_version == 1:
            conn.execute("UPDATE events SET prev_hash = ? WHERE race = ? AND seq = 4", (GENESIS, race))
            why = "it does not continue the hash chain"
        else:  # no prev_hash: row 4 chains from the hash of row 3, here changed
            conn.execute("UPDATE events SET hash = zeroblob(32) WHERE race = ? AND seq = 3", (race,))
            why = "its content changed"
        conn.close()
        with pytest.raises(DamagedLog, match=f"at event 4: {why}"):
            store.log_from(race, after=3)
        assert [seq for seq, _ in store.log_from(race, after=4)] == [5, 6]  # rows 5 and 6 chain from row 4

    # ---- foreign, damaged and unusable files

    def test_foreign_sqlite_file(self, tmp_path: Path) -> None:
        other = tmp_path / "other.db"
        with sqlite3.connect(other) as conn:
            conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        with pytest.raises(StoreError, match="file is not a heatlog database") as caught:
            self.open_store(other)
        assert not isinstance(caught.value, sqlite3.Error)
        assert "\n" not in str(caught.value)
        with sqlite3.connect(other) as conn:  # left untouched: not switched to WAL, no tables added
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
            assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["users"]

    def test_text_file(self, tmp_path: Path) -> None:
        text = tmp_path / "notes.txt"
        text.write_text("this is not a database\n" * 50)
        for create in (True, False):
            with pytest.raises(StoreError) as caught:
                self.open_store(text, create=create)
            assert str(caught.value) == f"store: file is not a heatlog database or is damaged: {text}"
        assert text.read_text() == "this is not a database\n" * 50

    def test_text_file_reported_without_traceback(self, tmp_path: Path) -> None:
        text = tmp_path / "notes.txt"
        text.write_text("hello\n")
        code = (
            "import sys\n"
            "from heatlog.engine.errors import HeatlogError\n"
            "from heatlog.store import EventStore\n"
            "try:\n"
            "    EventStore(sys.argv[1])\n"
            "except HeatlogError as e:\n"
            "    print(e)\n"
        )
        out = subprocess.run([sys.executable, "-c", code, str(text)], capture_output=True, text=True, timeout=30)
        assert out.returncode == 0 and out.stderr == ""
        assert out.stdout.startswith("store: file is not a heatlog database or is damaged")

    def test_wrong_application_id_and_newer_format(self, tmp_path: Path) -> None:
        odd = tmp_path / "odd.db"
        with sqlite3.connect(odd) as conn:
            conn.execute("PRAGMA application_id = 42")
            conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        with pytest.raises(StoreError, match="not a heatlog database"):
            self.open_store(odd)
        newer = tmp_path / "newer.db"
        self.open_store(newer).close()
        with sqlite3.connect(newer) as conn:
            conn.execute("DROP TRIGGER meta_no_update")  # the guard refuses the change an upgrade would make
            conn.execute("UPDATE meta SET value = '99' WHERE key = 'format_version'")
        conn.close()
        with pytest.raises(StoreError, match="format 99 is newer"):
            self.open_store(newer)

    def test_missing_file_and_directory(self, tmp_path: Path) -> None:
        with pytest.raises(StoreError, match="no heatlog database at"):
            self.open_store(tmp_path / "missing.db", create=False)
        assert not (tmp_path / "missing.db").exists()
        with pytest.raises(StoreError, match="directory does not exist"):
            self.open_store(tmp_path / "no" / "such" / "dir.db")
        with pytest.raises(StoreError, match="directory"):
            self.open_store(tmp_path)
        empty = tmp_path / "empty.db"
        empty.touch()
        with pytest.raises(StoreError, match="it is empty"):
            self.open_store(empty, create=False)
        self.open_store(empty).close()  # an empty file may become a store

    def test_locked(self, path: Path) -> None:
        with self.open_store(path) as store:
            race = store.create_race("r", {})
        holder = self.raw(path)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            with self.open_store(path, busy_timeout_ms=100) as store:
                started = time.monotonic()
                with pytest.raises(StoreError) as caught:
                    store.append(race, note("blocked"))
                assert str(caught.value) == f"store: race {race}: database is locked by another program: {path}"
                assert time.monotonic() - started < 5
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        with self.open_store(path) as store:
            assert store.append(race, note("free")).seq == 1

    @pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores file permissions")
    def test_read_only(self, path: Path) -> None:  # pragma: no cover - only without root
        with self.open_store(path) as store:
            race = store.create_race("r", {})
        path.chmod(0o444)
        try:
            with pytest.raises(StoreError, match="read-only|cannot open"), self.open_store(path) as store:
                store.append(race, note("x"))
        finally:
            path.chmod(0o644)

    @pytest.mark.parametrize(
        ("error", "expected"),
        [
            (sqlite3.OperationalError("attempt to write a readonly database"), "database is read-only"),
            (sqlite3.DatabaseError("database disk image is malformed"), "is not a heatlog database or is damaged"),
            (sqlite3.OperationalError("database or disk is full"), "disk is full; nothing was written"),
            (sqlite3.OperationalError("disk I/O error"), "disk I/O error"),
            (sqlite3.OperationalError("database is locked"), "locked by another program"),
            (sqlite3.OperationalError("something odd"), "database error (something odd)"),
        ],
    )
    def test_error_translation(self, store: EventStore, path: Path, error: sqlite3.Error, expected: str) -> None:
        with pytest.raises(StoreError) as caught:
            store._raise(error)
        assert expected in str(caught.value) and str(path) in str(caught.value)
        assert "\n" not in str(caught.value)

    def test_closed_store(self, path: Path) -> None:
        store = self.open_store(path)
        store.close()
        store.close()
        with pytest.raises(StoreError, match="closed"):
            store.races()
        with pytest.raises(StoreError, match="closed"):
            store.append(1, note("x"))

    def test_memory_store(self) -> None:
        with EventStore(":memory:") as store:
            race = store.create_race("r", {})
            self.fill(store, race, 2)
            assert len(store.events(race)) == 2

    # ---- speed


class TestFormatOneStore(TestSQLiteEventStore):
    """Every test of the store on a file of format 1, as heatlog wrote before format 2 (issue 32): such files keep
    opening, reading, checking their chain and taking appends in their own format."""

    def open_store(self, path: Path, **kwargs: Any) -> EventStore:
        if path.exists():
            return EventStore(path, **kwargs)
        return EventStore(path, new_format=1, **kwargs)


# ---- JSON Lines parsing


def test_parse_jsonl() -> None:
    text = '{"type":"note","v":1,"text":"a"}\n\n  \n{"type":"boost","v":1,"car":"Red"}\n'
    assert parse_jsonl(text) == [
        (1, {"type": "note", "v": 1, "text": "a"}),
        (4, {"type": "boost", "v": 1, "car": "Red"}),
    ]
    assert parse_jsonl("") == []


def test_parse_jsonl_reports_every_bad_line() -> None:
    text = "\n".join(
        [
            '{"type":"note","v":1,"text":"ok"}',  # 1 ok
            "{not json",  # 2
            "[1, 2]",  # 3
            '{"v": 1}',  # 4
            '{"type":"note","v":1}',  # 5 ok
            '{"type":"x","n":NaN}',  # 6
            '"just a string"',  # 7
        ]
    )
    with pytest.raises(MalformedInput) as caught:
        parse_jsonl(text)
    message = caught.value.message
    assert message.startswith("5 bad line(s) (2, 3, 4, 6, 7): ")
    for number in (2, 3, 4, 6, 7):
        assert f"line {number}:" in message
    for number in (1, 5):
        assert f"line {number}:" not in message
    assert "\n" not in str(caught.value)


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(exclude_categories=("Cs",))),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=6), inner, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(_json_values)
def test_canonical_bytes_are_json_dumps_with_the_canonical_options(value: Any) -> None:
    """The canonical encoder made once (store._canonical_encoder: the json module's C encoder, built once) gives
    exactly json.dumps's bytes with the documented options, for any JSON value: the hash chain depends on it."""
    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    assert canonical(value) == expected.encode()


def test_an_event_that_cannot_be_stored_as_json_is_refused_with_a_message(tmp_path: Path) -> None:
    looped: dict[str, Any] = {"type": "note", "v": 1, "text": "x"}
    looped["self"] = looped
    with EventStore(tmp_path / "h.db") as store:
        race = store.create_race("r", {})
        for bad in (looped, {"type": "note", "v": 1, "n": float("inf")}, {"type": "note", "v": 1, "x": {1, 2}}):
            with pytest.raises(MalformedInput, match="cannot be stored as JSON"):
                store.append(race, bad)
        assert store.events(race) == []
