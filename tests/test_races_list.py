"""``heatlog races`` piped (issue 10): one tab-separated line per race, nothing cut to a terminal's width."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HEATLOG = shutil.which("heatlog")
CMD = [HEATLOG] if HEATLOG else [sys.executable, "-m", "heatlog.cli"]


def run(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "40", "NO_COLOR": "1"}
    env.pop("HEATLOG_DB", None)
    return subprocess.run([*CMD, *args, "--db", str(db)], capture_output=True, text=True, env=env, timeout=60)


def test_races_piped_lists_whole_names_and_dates(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    name = "usa-4cars-friday-night-at-the-club-with-the-long-name"
    made = run("new", "--car", "Ann:red", "--car", "Bob:blue", "--name", name, db=db)
    assert made.returncode == 0, made.stderr
    out = run("races", db=db)
    assert out.returncode == 0, out.stderr
    header, row = out.stdout.splitlines()
    assert header.split("\t") == ["id", "name", "track", "mode", "cars", "events", "branch of", "created"]
    cells = row.split("\t")
    assert cells[1] == name and cells[2] == "usa" and cells[4] == "Ann, Bob"
    assert len(cells[7]) == 19 and cells[7][4] == "-"  # the whole date and time, never "2026-1…"
    assert "…" not in out.stdout
