"""`audit` reports damage instead of stopping on it (issue 30, item 2): bytes that are not text in a hash cell,
damaged identity rows in ``meta``, a race label that is not UTF-8, an index that misses rows (which SQLite's
``quick_check`` does not see). Each is located, and the other races are still audited."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from test_cli import run

from heatlog.store import EventStore

REPLAYS = Path(__file__).parent.parent / "replays"


@pytest.fixture(scope="module")
def two_races(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("audit") / "two.db"
    EventStore(db, new_format=1).close()  # the damage below is to format 1's text hash columns (prev_hash too)
    for name in ("learning-2cars", "usa-4cars"):
        r = run("import", str(REPLAYS / f"{name}.jsonl"), db=db)
        assert r.returncode == 0, r.stderr
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return db


def copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "copy.db"
    shutil.copy(src, dst)
    return dst


def sql(db: Path, *statements: str) -> None:
    conn = sqlite3.connect(db)
    for s in statements:
        conn.execute(s)
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def audit_json(db: Path, *extra: str) -> list[dict[str, object]]:
    r = run("audit", "--all", "--json", *extra, db=db)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    reports: list[dict[str, object]] = json.loads(r.stdout)
    return reports


def by_race(reports: list[dict[str, object]]) -> dict[object, dict[str, object]]:
    return {r["race"]: r for r in reports}


@pytest.mark.parametrize("column", ["hash", "prev_hash"])
def test_bytes_that_are_not_text_in_a_hash_cell_are_reported_at_their_event(
    two_races: Path, tmp_path: Path, column: str
) -> None:
    # before: "the output's encoding (ascii) cannot write \udccf", no report (chain_hash encoded the cell)
    db = copy(two_races, tmp_path)
    damage = f"UPDATE events SET {column} = CAST(x'41cf42' AS TEXT) WHERE race = 2 AND seq = 7"
    sql(db, "DROP TRIGGER events_no_update", damage)
    for locale in ("C.UTF-8", "C"):
        r = run("audit", "--all", db=db, env={"LC_ALL": locale, "HEATLOG_DB": str(db)})
        assert r.returncode == 1 and "cannot write" not in r.stderr, r.stderr
    reports = by_race(audit_json(db))
    found = reports[2]["problems"]
    assert isinstance(found, list)
    assert any(p["seq"] == 7 and p["kind"] == "columns" for p in found), found
    assert reports[1]["clean"] is True and reports[1]["events"] > 0  # the other race audited


def test_damaged_identity_rows_in_meta_are_reported_and_the_races_still_audited(
    two_races: Path, tmp_path: Path
) -> None:
    # before: "internal error … AttributeError: 'NoneType' object has no attribute 'store'"
    db = copy(two_races, tmp_path)
    data = bytearray(db.read_bytes())
    at = data.find(b"applicationheatlog")
    assert at > 0
    data[at + len("application")] ^= 0x20  # 'Heatlog'
    db.write_bytes(data)
    reports = by_race(audit_json(db))
    meta = reports[0]["problems"]
    assert isinstance(meta, list) and any(p["kind"] == "meta" and "application" in p["message"] for p in meta), meta
    assert reports[1]["clean"] is True and reports[2]["clean"] is True
    assert db.read_bytes() == bytes(data)  # only read


def test_a_race_label_that_is_not_utf8_stops_no_command(two_races: Path, tmp_path: Path) -> None:
    # before: audit --all, races, anchor and stats --all all failed with "Could not decode to UTF-8 column 'name'"
    db = copy(two_races, tmp_path)
    sql(db, "UPDATE races SET name = CAST(x'41ff42' AS TEXT) WHERE id = 1")
    reports = by_race(audit_json(db))
    labels = reports[1]["problems"]
    assert isinstance(labels, list) and [p["kind"] for p in labels] == ["label"], labels
    assert "name is not UTF-8 text (byte 0xff at offset 1)" in labels[0]["message"]
    assert reports[2]["clean"] is True
    for args in (["races"], ["anchor"], ["stats", "--all"], ["show", "--race", "1"]):
        r = run(*args, db=db)
        assert r.returncode == 0, (args, r.stderr)
    assert "A\ufffdB" in run("races", db=db).stdout
    assert len(run("anchor", db=db).stdout.splitlines()) == 2


def test_an_index_that_misses_a_row_is_found_and_located(two_races: Path, tmp_path: Path) -> None:
    # quick_check does not compare an index with its table: one flipped byte in an index entry gave a clean audit
    # of a file integrity_check calls corrupt, and the race read through the index lost its rows unseen
    db = copy(two_races, tmp_path)
    conn = sqlite3.connect(db)
    pages = [
        p
        for (p,) in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = 'sqlite_autoindex_events_1' AND pagetype = 'leaf' ORDER BY pageno"
        )
    ]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    data = bytearray(db.read_bytes())
    data[pages[1] * size - 1] ^= 0x01  # the last byte of an index leaf: the rowid of its last entry
    db.write_bytes(data)
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    conn.close()
    reports = audit_json(db)
    whole = by_race(reports)[0]["problems"]
    assert isinstance(whole, list) and whole and all(p["kind"] == "integrity" for p in whole), whole
    located = [p for r in reports if r["race"] for p in r["problems"] if p["kind"] == "integrity"]  # type: ignore[union-attr]
    assert located and all(isinstance(p["seq"], int) for p in located), reports
