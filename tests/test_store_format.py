"""The events table's two formats (issue 32, heatlog.store.eventrows): format 2 stores the same facts in about half the
space, and every read gives back exactly what format 1 gives: the events, their canonical text, hashes, anchors,
exports. Files of format 1 keep opening, auditing clean and taking appends in their own format."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from heatlog.log.racelog import RaceLog
from heatlog.store import EventStore, canonical, read_jsonl
from heatlog.store.eventrows import payload_column, payload_text, recorded_column, recorded_text

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))
#: Made by heatlog at c9f72e8 (format 1): two races entered partly through the door and partly as an import, a
#: note with quotes and non-ASCII text undone, a branch at round 3 (tests/data/README.md).
FORMAT_1 = Path(__file__).resolve().parent / "data" / "format1.db"


def stored(path: Path, version: int, events: list[dict], texts: list[str] | None) -> tuple[str, str, list]:
    """(export with its anchor, anchor line, the stored rows as StoredEvent fields but the time) of a race."""
    with EventStore(path, new_format=version) as store:
        assert store.format_version == version
        race = store.create_race("r", {}, events, texts=texts)
        store.append(race, {"type": "note", "v": 1, "text": "after the import"})
        assert store.verify(race) == []
        rows = [(e.seq, e.type, e.v, e.event, e.prev_hash, e.hash) for e in store.events(race)]
        return store.export_jsonl(race, anchor=True), canonical(store.anchor(race)).decode(), rows


@pytest.mark.parametrize("replay", REPLAYS, ids=[p.stem for p in REPLAYS])
def test_every_sample_race_exports_and_anchors_byte_identical_in_both_formats(tmp_path: Path, replay: Path) -> None:
    text = replay.read_text()
    pairs, texts = read_jsonl(text)
    events = [e for _, e in pairs]
    old = stored(tmp_path / "one.db", 1, events, texts)
    new = stored(tmp_path / "two.db", 2, events, texts)
    assert new == old
    assert old[0].startswith(text)  # the sample's own lines, then the note and the anchor
    # appended one by one (the door's path) rather than as an import: the same rows again
    assert stored(tmp_path / "three.db", 2, events, None) == old


def test_format_2_is_at_most_twice_the_export(tmp_path: Path) -> None:
    """The issue's goal (it was 4.24×): the file, snapshots aside, at most twice the JSON Lines it exports."""
    sizes = {}
    for version in (1, 2):
        path = tmp_path / f"f{version}.db"
        exported = 0
        with EventStore(path, new_format=version) as store:
            for replay in REPLAYS:
                pairs, texts = read_jsonl(replay.read_text())
                race = store.create_race(replay.stem, {}, [e for _, e in pairs], texts=texts)
                exported += len(store.export_jsonl(race).encode())
            store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        sizes[version] = path.stat().st_size / exported
    assert sizes[2] <= 2.0 < sizes[1], sizes


def test_a_file_of_format_1_opens_audits_clean_and_keeps_its_format(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copyfile(FORMAT_1, path)
    with RaceLog(path, create=False) as log:
        assert log.store.format_version == 1
        races = [r.id for r in log.store.races()]
        assert races == [1, 2, 3]
        before = {r: (log.store.export_jsonl(r, anchor=True), log.project(r).state.round) for r in races}
        assert all(log.store.verify(r) == [] for r in races)
        assert log.store.missing_guards() == []
        log.append(3, {"type": "note", "v": 1, "text": "appended by format 2's heatlog"})
        log.retract_last(3)
        assert log.store.verify(3) == []
    with sqlite3.connect(path) as conn:  # the new rows are format 1's: text hashes, prev_hash kept
        row = conn.execute("SELECT payload, prev_hash, hash FROM events WHERE race = 3 ORDER BY seq DESC").fetchone()
        assert row[0].startswith('{"seq":') and len(row[1]) == len(row[2]) == 64
    with RaceLog(path, create=False) as log:
        for r in (1, 2):
            assert (log.store.export_jsonl(r, anchor=True), log.project(r).state.round) == before[r]
    from heatlog.races.audit import audit_file, audit_race  # the command's own audit, every check

    with RaceLog(path, create=False) as log:
        assert audit_file(log) is None
        for r in (1, 2, 3):
            report = audit_race(log, r)
            assert report.problems == [] and report.events > 0, report


def test_what_a_row_holds_comes_back_exactly() -> None:
    for event in (
        {"type": "note", "v": 1, "text": "a"},
        {"type": "grid_set", "v": 1},
        {"type": "x", "v": 3, "a": {"type": "y", "v": 1}},  # nested type and v stay in the payload
        {"type": 'wé"ird\n', "v": 1, "car": "A"},
        {"type": "x", "v": 1, "weather": 2},  # a key after "v": stored whole
        {"type": "x"},
        {"type": "x", "v": True},
    ):
        text = canonical(event).decode()
        v = event.get("v") if type(event.get("v")) is int else None
        v_column, body = payload_column(event["type"], v, text)
        assert payload_text(event["type"], v_column, body) == text
        assert (v_column is None) == (body == text)
        assert '"type"' not in body or v_column is None or "a" in event
    for at in ("2026-12-04T20:15:32.123456Z", "1970-01-01T00:00:00.000000Z"):
        assert recorded_text(recorded_column(at)) == at and isinstance(recorded_column(at), int)
    for at in ("now", "2026-12-04T20:15:32Z", "2026-12-04T20:15:32.123456+01:00", "2026-12-04T20:15:32.123456"):
        assert recorded_column(at) == at  # not what heatlog writes: kept as text
