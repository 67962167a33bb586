"""Every cached answer is one the log vouches for (issue 30, item 3): the race list's summaries, the snapshots a
jump to a round starts from, and the stats facts are sealed with a key kept outside the file (heatlog.store.cachekey)
and keyed by the head of the chain they were made from, whose whole chain is checked where they are read; audit
refolds what they hold and reports a mismatch."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import sqlite3
from pathlib import Path

import pytest
from test_cli import run

from heatlog import RULES_VERSION

SAMPLE = Path(__file__).parent.parent / "replays" / "usa-4cars.jsonl"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "c.db"
    assert run("import", str(SAMPLE), db=path).returncode == 0
    return path


def sql(db: Path, *statements: str, params: tuple[object, ...] = ()) -> None:
    conn = sqlite3.connect(db)
    for s in statements:
        conn.execute(s, params if "?" in s else ())
    conn.commit()
    conn.close()


def listed(db: Path) -> dict[str, str]:
    r = run("races", db=db)
    assert r.returncode == 0, r.stderr
    return next(csv.DictReader(io.StringIO(r.stdout), delimiter="\t"))


def audit_problems(db: Path) -> list[dict[str, object]]:
    r = run("audit", "--all", "--json", db=db)
    return [p for rep in json.loads(r.stdout) for p in rep["problems"]]


def test_a_forged_winner_in_the_race_list_cache_is_never_shown(db: Path) -> None:
    # before: a car not even in the race was shown as the winner
    assert listed(db)["winner"] == "Blue"
    conn = sqlite3.connect(db)
    (text,) = conn.execute("SELECT summary FROM race_summaries WHERE race = 1").fetchone()
    row = json.loads(text)
    row["summary"]["winner"] = "Mallory"  # the seal is keyed outside the file: it cannot be made to match
    conn.execute("UPDATE race_summaries SET summary = ? WHERE race = 1", (json.dumps(row),))
    conn.commit()
    conn.close()
    assert listed(db)["winner"] == "Blue"
    sql(db, "UPDATE race_summaries SET summary = ? WHERE race = 1", params=(json.dumps(row),))
    assert any(p["kind"] == "cache" and "race_summaries" in str(p["message"]) for p in audit_problems(db))


def test_a_snapshot_resealed_by_hand_changes_no_jump(db: Path) -> None:
    # before: the seal was an unkeyed SHA-256 of values in the file: recomputed, the forged state was shown
    honest = run("show", "--round", "4", "--json", db=db)
    assert honest.returncode == 0
    conn = sqlite3.connect(db)
    seq, text = conn.execute(
        "SELECT seq, state FROM snapshots WHERE race = 1 AND round = 4 AND rules_version = ?", (RULES_VERSION,)
    ).fetchone()
    at, body = text[7:71], json.loads(text[155:-1])
    first = next(iter(body["cars"])) if isinstance(body["cars"], dict) else 0
    car = body["cars"][first]
    car["speed"] = 99 if "speed" in car else car.get("speed", 99)
    car["position"] = car.get("position", 0) + 7
    forged = json.dumps(body, sort_keys=True, separators=(",", ":"))
    seal = hashlib.sha256(f"{at}:{RULES_VERSION}:".encode() + forged.encode()).hexdigest()  # the old formula
    conn.execute(
        "UPDATE snapshots SET state = ? WHERE race = 1 AND round = 4 AND rules_version = ?",
        ('{"at":"' + at + '","seal":"' + seal + '","state":' + forged + "}", RULES_VERSION),
    )
    conn.commit()
    conn.close()
    audit = audit_problems(db)  # before: even audit --anchor was clean
    assert any(p["kind"] == "cache" and p["seq"] == seq for p in audit), audit
    assert run("show", "--round", "4", "--json", db=db).stdout == honest.stdout


def test_an_event_edited_mid_log_is_noticed_by_the_list_and_the_stats(db: Path) -> None:
    # before: races and stats kept serving their cached figures while show refused the race
    assert listed(db)["status"] == "finished"
    assert run("stats", "--all", "--json", db=db).returncode == 0  # the stats cache is built
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER events_no_update")
    (payload,) = conn.execute("SELECT payload FROM events WHERE race = 1 AND seq = 100").fetchone()
    conn.execute("UPDATE events SET payload = ? WHERE race = 1 AND seq = 100", (" " + payload,))  # any format
    conn.commit()
    conn.close()
    assert run("show", db=db).returncode == 1
    row = listed(db)
    assert row["status"] != "finished" and row["winner"] == "", row
    r = run("stats", "--all", "--json", db=db)
    assert "event 100" in r.stderr, r.stderr  # the damaged race is named, its cached figures not served
    out = json.loads(r.stdout)
    assert out["races"] == [] and out["damaged"] == [1] and out["drivers"] == []


def test_a_forged_stats_row_is_rebuilt_and_reported(db: Path) -> None:
    assert run("stats", "--all", "--json", db=db).returncode == 0
    honest = run("stats", "--all", "--json", db=db).stdout
    conn = sqlite3.connect(db)
    summary, facts = conn.execute("SELECT summary, facts FROM derived WHERE race = 1").fetchone()
    forged = summary.replace('"Blue"', '"Mallory"')
    assert forged != summary
    digest = hashlib.sha256(f"{forged}\n{facts}".encode()).hexdigest()  # the old, unkeyed digest
    conn.execute("UPDATE derived SET summary = ?, digest = ? WHERE race = 1", (forged, digest))
    conn.commit()
    conn.close()
    assert any(p["kind"] == "cache" and "derived" in str(p["message"]) for p in audit_problems(db))
    assert run("stats", "--all", "--json", db=db).stdout == honest


@pytest.mark.parametrize("column", ["digest", "rows_digest"])
def test_a_stats_seal_with_any_character_is_rebuilt_not_a_crash(db: Path, column: str) -> None:
    # hmac.compare_digest raises TypeError on a non-ASCII str: a seal read from the file may hold any character
    assert run("turns", "--all", db=db).returncode == 0
    honest = run("stats", "--all", "--json", db=db).stdout
    sql(db, f"UPDATE derived SET {column} = ? WHERE race = 1", params=("é" * 64,))
    for command in (["turns", "--all"], ["stats", "--all", "--json"]):
        r = run(*command, db=db)
        assert r.returncode == 0, (command, r.stderr)
    assert r.stdout == honest
