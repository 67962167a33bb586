"""The season stream gets the races' guarantees (issue 30, item 4): the REPLACE guard, checked reads in season
show/list and stats --season, a season hidden by deleting its row is found, a stream cut short is caught by
season audit, and heatlog anchor covers the seasons (audit --anchor checks them)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from test_cli import run


@pytest.fixture(scope="module")
def season_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("season") / "s.db"
    r = run("season", "new", "--published", "1961", "--car", "Ann:red", "--car", "Bob:blue", db=db)
    assert r.returncode == 0, r.stderr
    assert run("season", "next", "1", db=db).returncode == 0  # race 1 entered: the stream has 2 events
    return db


@pytest.fixture
def db(season_db: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "s.db"
    shutil.copy(season_db, copy)
    return copy


def sql(db: Path, *statements: str) -> str | None:
    conn = sqlite3.connect(db)
    try:
        for s in statements:
            conn.execute(s)
        conn.commit()
    except sqlite3.Error as exc:
        return str(exc)
    finally:
        conn.close()
    return None


@pytest.mark.parametrize(
    "statement",
    [
        "REPLACE INTO season_events SELECT * FROM season_events WHERE seq = 1",
        "INSERT OR REPLACE INTO season_events SELECT * FROM season_events WHERE seq = 2",
        "DELETE FROM seasons",
        "REPLACE INTO seasons SELECT * FROM seasons",
        "UPDATE seasons SET id = 7",
    ],
)
def test_plain_sql_cannot_replace_or_hide_what_a_season_recorded(db: Path, statement: str) -> None:
    # before: REPLACE got past the triggers (only UPDATE and DELETE had one); DELETE FROM seasons hid the season
    err = sql(db, statement)
    assert err is not None and "append-only" in err, err


def test_reads_of_a_changed_stream_are_refused_and_season_audit_names_it(db: Path) -> None:
    # before: season show, season list and stats --season read the stream without checking its chain
    assert (
        sql(
            db,
            "DROP TRIGGER season_events_no_update",
            "UPDATE season_events SET payload = replace(payload, 'Ann', 'Anx') WHERE seq = 1",
        )
        is None
    )
    for args in (["season", "show", "1"], ["stats", "--season", "1"]):
        r = run(*args, db=db)
        assert r.returncode == 1 and "season 1: the stream is damaged" in r.stderr, (args, r.stderr)
    r = run("season", "list", db=db)
    assert "season 1: the stream is damaged" in r.stderr
    r = run("season", "audit", "1", db=db)
    assert r.returncode == 1 and "season event 1: hash chain broken" in r.stdout + r.stderr


def test_a_hidden_season_is_found(db: Path) -> None:
    assert sql(db, "DROP TRIGGER seasons_no_delete", "DELETE FROM seasons") is None
    r = run("season", "list", db=db)
    assert r.returncode == 0 and r.stdout.splitlines()[1].startswith("1\t"), r.stdout  # still listed
    r = run("season", "audit", "1", db=db)
    assert r.returncode == 1 and "no row in seasons" in r.stdout + r.stderr
    r = run("audit", "--all", db=db)
    assert r.returncode == 1 and "season 1 has no row in seasons" in r.stdout


def test_a_stream_cut_short_is_caught_by_season_audit(db: Path) -> None:
    # before: deleting the last race_entered left a stream that passed season audit
    assert sql(db, "DROP TRIGGER season_events_no_delete", "DELETE FROM season_events WHERE seq = 2") is None
    r = run("season", "audit", "1", db=db)
    out = r.stdout + r.stderr
    assert r.returncode == 1 and "race 1 is race 1 of this season, but the stream does not enter it" in out, out


def test_anchors_cover_the_seasons(db: Path, tmp_path: Path) -> None:
    r = run("anchor", db=db)
    assert r.returncode == 0 and '"season": 1' in r.stdout, r.stdout
    kept = tmp_path / "anchors.jsonl"
    kept.write_text(r.stdout)
    assert run("audit", "--all", "--anchor", str(kept), db=db).returncode == 0
    assert sql(db, "DROP TRIGGER season_events_no_delete", "DELETE FROM season_events WHERE seq = 2") is None
    r = run("audit", "--all", "--anchor", str(kept), db=db)
    assert r.returncode == 1 and "season 1: stream cut short" in r.stdout, r.stdout
