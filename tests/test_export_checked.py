"""`export` checks what it exports (issue 30, item 9): a log edited and re-hashed consistently passes the chain
check that every read makes, and `show` refused it by the rules while `export` served it; now export refuses what
import would refuse. And a `note` that loses a conflict to a parallel writer reads the race again and retries."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from test_cli import run

from heatlog.store import GENESIS, EventStore, canonical, chain_hash

SAMPLE = Path(__file__).parent.parent / "replays" / "usa-4cars.jsonl"


def rehash_with(db: Path, race: int, seq: int, change: dict[str, object]) -> None:
    """Change event ``seq`` of ``race`` and re-hash the chain from it on, as an attacker with the file would."""
    conn = sqlite3.connect(db)
    for trigger in ("events_no_update", "events_no_replace"):
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    rows = conn.execute("SELECT seq, payload, prev_hash FROM events WHERE race = ? ORDER BY seq", (race,)).fetchall()
    prev = GENESIS
    for s, payload, _ in rows:
        event = json.loads(payload)
        if s == seq:
            event.update(change)
        text = canonical(event).decode()
        digest = chain_hash(prev, text.encode())
        conn.execute(
            "UPDATE events SET payload = ?, prev_hash = ?, hash = ? WHERE race = ? AND seq = ?",
            (text, prev, digest, race, s),
        )
        prev = digest
    conn.commit()
    conn.close()


def test_export_refuses_a_rehashed_log_the_rules_refuse(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    EventStore(db, new_format=1).close()  # the attack below edits format 1's columns (hash and prev_hash as text)
    assert run("import", str(SAMPLE), db=db).returncode == 0
    events = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    seq = next(i for i, e in enumerate(events, 1) if e["type"] == "gear_chosen" and e["gear"] == 2)
    rehash_with(db, 1, seq, {"gear": 4})  # from gear 1 to 4: a shift of three gears, refused (# 3.3)
    assert run("audit", "--race", "1", db=db).returncode == 1  # the rules see it
    assert run("show", db=db).returncode == 1
    r = run("export", db=db)  # before: exported, exit 0
    assert r.returncode == 1 and r.stdout == "", r.stdout[:200]
    assert "race 1: line " in r.stderr and "not exported" in r.stderr, r.stderr
    r = run("export", "--force", db=db)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == len(events) and "Warning" in r.stderr
    assert not (tmp_path / "out.jsonl").exists()


def test_a_clean_export_is_unchanged(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    assert run("import", str(SAMPLE), db=db).returncode == 0
    r = run("export", db=db)
    assert r.returncode == 0 and r.stdout == SAMPLE.read_text() and r.stderr == ""


def test_a_note_that_loses_a_conflict_reads_the_race_again_and_is_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # before: 67 of 120 parallel notes got "conflict: … another writer appended event N first"
    import typer
    from click.testing import CliRunner

    from heatlog.cli import load
    from heatlog.log.racelog import RaceLog

    db = tmp_path / "n.db"
    assert run("import", str(SAMPLE), db=db).returncode == 0
    original = RaceLog.append
    calls: list[int] = []

    def append_after_another_writer(self: RaceLog, race: int, event: dict[str, object], *a: object, **k: object):
        calls.append(race)
        if len(calls) == 1:  # another writer appends between this note's read and its write
            other = RaceLog(db, create=False)
            original(other, race, {"type": "note", "v": 1, "text": "the other writer", "round": 18})
            other.store.close()
        return original(self, race, event, *a, **k)

    monkeypatch.setattr(RaceLog, "append", append_after_another_writer)
    app = typer.main.get_command(load("note"))
    result = CliRunner().invoke(app, ["note", "mine", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "note 432 recorded" in result.output and len(calls) == 2
    texts = [json.loads(line).get("text") for line in run("export", db=db).stdout.splitlines()[-2:]]
    assert texts == ["the other writer", "mine"]
