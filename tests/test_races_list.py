"""``heatlog races`` (issue 10): status, winner and rounds of each race, simulated races left out unless asked,
whole names when piped, aligned columns in a terminal (wide characters too), summaries cached and kept right."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from heatlog import RULES_VERSION
from heatlog.log.racelist import seal_summary
from heatlog.log.racelog import RaceLog

HEATLOG = shutil.which("heatlog")
CMD = [HEATLOG] if HEATLOG else [sys.executable, "-m", "heatlog.cli"]
HEADER = ["id", "name", "track", "mode", "cars", "status", "winner", "rounds", "events", "branch of", "created"]


def run(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "40", "NO_COLOR": "1"}
    env.pop("HEATLOG_DB", None)
    return subprocess.run([*CMD, *args, "--db", str(db)], capture_output=True, text=True, env=env, timeout=120)


def rows(out: subprocess.CompletedProcess[str]) -> list[dict[str, str]]:
    assert out.returncode == 0, out.stderr
    header, *lines = out.stdout.splitlines()
    assert header.split("\t") == HEADER
    return [dict(zip(HEADER, line.split("\t"), strict=True)) for line in lines]


def test_races_piped_lists_whole_names_and_dates(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    name = "usa-4cars-friday-night-at-the-club-with-the-long-name"
    made = run("new", "--car", "Ann:red", "--car", "Bob:blue", "--name", name, db=db)
    assert made.returncode == 0, made.stderr
    (row,) = rows(run("races", db=db))
    assert row["name"] == name and row["track"] == "usa" and row["cars"] == "Ann, Bob"
    assert row["status"] == "racing" and row["rounds"] == "1" and row["winner"] == ""
    assert len(row["created"]) == 19 and row["created"][4] == "-"  # the whole date and time, never "2026-1…"
    assert "…" not in run("races", db=db).stdout


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two simulated races (finished), then a host's race and a branch of the first simulated race."""
    db = tmp_path_factory.mktemp("mixed") / "h.db"
    sim = run("simulate", "--races", "2", "--cars", "2", "--seed", "4", "--workers", "1", "--json", db=db)
    assert sim.returncode == 0, sim.stderr
    assert run("new", "--car", "李:red", "--car", "Bob:blue", "--name", "Friday 🏎 night", db=db).returncode == 0
    assert run("branch", "--race", "1", "--at-round", "3", "--name", "what if", db=db).returncode == 0
    return db


def test_simulated_races_are_left_out_unless_asked(mixed: Path) -> None:
    piped = run("races", db=mixed)
    mine = rows(piped)
    assert [r["id"] for r in mine] == ["3"]  # the branch of a simulated race is a simulation too
    # piped, the hint is on standard error (it was told in a terminal only: a list of only simulations was a
    # header alone); a script reading the list reads the list
    assert piped.stderr == "3 simulated races not listed: heatlog races --all\n", piped.stderr
    assert run("races", "--all", db=mixed).stderr == ""
    everything = rows(run("races", "--all", db=mixed))
    assert [r["id"] for r in everything] == ["1", "2", "3", "4"]
    assert [r["id"] for r in rows(run("races", "--simulated", db=mixed))] == ["1", "2", "4"]
    data = json.loads(run("races", "--all", "--json", db=mixed).stdout)
    assert [d["simulated"] for d in data] == [True, True, False, True]


def test_status_winner_and_rounds_are_the_projection_s(mixed: Path) -> None:
    everything = {r["id"]: r for r in rows(run("races", "--all", db=mixed))}
    with RaceLog(mixed) as log:
        for rid in (1, 2):
            state = log.project(rid).state
            row = everything[str(rid)]
            assert state.phase == "over" and row["status"] == "finished"  # # 16.8
            assert row["winner"] == state.hall_of_fame[0] and row["rounds"] == str(state.round)
    branch = everything["4"]
    assert branch["status"] == "racing" and branch["rounds"] == "3" and branch["branch of"].startswith("1 @ ")


def test_a_cached_summary_is_used_until_the_log_grows(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    assert run("new", "--car", "Ann:red", "--car", "Bob:blue", "--grid", "Ann,Bob", db=db).returncode == 0
    assert rows(run("races", db=db))[0]["status"] == "racing"
    with RaceLog(db) as log:
        ((length, row),) = log.store.race_summaries(RULES_VERSION).values()
        assert length == log.store.race(1).event_count and row["summary"]["round"] == 1
        # a planted summary of the same length, sealed with this user's key (tests/test_caches_vouched.py: one
        # sealed by nobody is not shown), is what the list shows: the cache is read, nothing projected
        planted = {"status": "finished", "round": 9, "winner": "Bob"}
        head = log.store.tail(1)[1]
        log.store.put_race_summaries(RULES_VERSION, [(1, length, seal_summary(1, length, head, planted))])
    assert rows(run("races", db=db))[0]["winner"] == "Bob"
    assert run("add", '{"type": "gear_chosen", "v": 1, "car": "Ann", "gear": 2}', db=db).returncode == 0
    (row,) = rows(run("races", db=db))  # one more event: projected again
    assert (row["status"], row["winner"], row["rounds"]) == ("racing", "", "1")
    with RaceLog(db) as log:
        assert log.store.race_summaries(RULES_VERSION)[1][0] == length + 1
        assert log.store.race_summaries("another rules version") == {}


def test_in_a_terminal_columns_line_up_in_cells_with_wide_characters(mixed: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    env = {**os.environ, "NO_COLOR": "1", "TERM": "xterm"}
    env.pop("HEATLOG_DB", None)
    env.pop("COLUMNS", None)
    child = pexpect.spawn(
        CMD[0], [*CMD[1:], "races", "--all", "--db", str(mixed)], env=env, encoding="utf-8", dimensions=(40, 72)
    )
    child.expect(pexpect.EOF)
    text = re.sub(r"\x1b\[[0-?]*[ -/]*[@-~]", "", (child.before or "").replace("\r", ""))
    table = [line.rstrip() for line in text.splitlines() if line and not line.startswith(("races in", "summar"))]
    assert all(cell_len(line) <= 72 for line in table), table  # fits: mode and events gave way, names cut with …
    header = table[0]
    assert "mode" not in header.split() and "events" not in header and "winner" in header
    col = header.index("status")
    for line in table[1:]:
        # the status column starts at the same cell on every line, whatever the characters before it
        at = next(i for i in range(len(line)) if line[i:].startswith(("finished", "racing")))
        assert cell_len(line[:at]) == col, line
    assert any("李" in line for line in table)


def test_all_and_simulated_together_are_refused_as_other_pairs_of_options_are(tmp_path: Path) -> None:
    # a usage error ("Invalid value", exit 2) where every other pair of options is an Error: line, exit 1
    db = tmp_path / "h.db"
    assert run("new", "--car", "Ann:red", "--car", "Bob:blue", db=db).returncode == 0
    r = run("races", "--all", "--simulated", db=db)
    assert r.returncode == 1 and r.stderr.startswith("Error: not understood: --all lists every race"), r.stderr
