"""Anchors that users find (issue 30, item 5): an export to a file writes the race's anchor beside it (the export
itself stays the events alone, byte for byte), the recorder offers to keep the anchor when a race ends, and an
empty anchor file is refused instead of giving a clean audit that checked nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import run

from heatlog.cli.anchor import anchors_home, offer_anchor
from heatlog.log.racelog import RaceLog
from heatlog.races import import_race

REPLAYS = Path(__file__).parent.parent / "replays"
SAMPLE = REPLAYS / "usa-4cars.jsonl"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "a.db"
    assert run("import", str(SAMPLE), db=path).returncode == 0
    return path


def test_an_empty_anchor_file_is_refused(db: Path, tmp_path: Path) -> None:
    # before: `audit --anchor empty` exited 0, clean: it vouched for nothing
    for text in ("", "\n\n"):
        empty = tmp_path / "empty.jsonl"
        empty.write_text(text)
        r = run("audit", "--anchor", str(empty), db=db)
        assert r.returncode == 2 and "holds no anchor" in r.stderr, r.stderr


def test_export_to_a_file_writes_the_anchor_beside_it_and_the_events_unchanged(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "race.jsonl"
    r = run("export", "-o", str(out), db=db)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == SAMPLE.read_bytes()  # sample exports stay byte-identical
    kept = tmp_path / "race.jsonl.anchor"
    anchor = json.loads(kept.read_text())
    assert anchor["seq"] == len(SAMPLE.read_text().splitlines()) and anchor["race"] == 1
    assert "audit --anchor" in r.stderr
    assert run("audit", "--anchor", str(kept), db=db).returncode == 0
    assert run("export", db=db).stdout == SAMPLE.read_text()  # standard output: the events alone
    r = run("export", "-o", str(tmp_path / "plain.jsonl"), "--no-anchor", db=db)
    assert r.returncode == 0 and not (tmp_path / "plain.jsonl.anchor").exists()


def test_the_anchor_beside_an_export_catches_a_cut_log(db: Path, tmp_path: Path) -> None:
    import sqlite3

    out = tmp_path / "race.jsonl"
    assert run("export", "-o", str(out), db=db).returncode == 0
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER events_no_delete")
    conn.execute("DELETE FROM events WHERE seq > 400")
    conn.commit()
    conn.close()
    r = run("audit", "--anchor", str(tmp_path / "race.jsonl.anchor"), db=db)
    assert r.returncode == 1 and "log cut short" in r.stdout, r.stdout


def test_the_recorder_offers_to_keep_the_anchor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    log = RaceLog(tmp_path / "r.db")
    race = import_race(log, SAMPLE.read_text())
    said: list[str] = []
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return ""

    where = offer_anchor(log, race, ask, said.append)
    assert where == anchors_home() == tmp_path / "data" / "heatlog" / "anchors.jsonl"
    assert "cut short or rewritten" in said[0] and str(where) in asked[0]
    line = json.loads(where.read_text())
    assert line == log.store.anchor(race)
    offer_anchor(log, race, ask, said.append)  # the same anchor again: kept once
    assert len(where.read_text().splitlines()) == 1
    assert offer_anchor(log, race, lambda _: "n", said.append) is None
    log.store.close()
