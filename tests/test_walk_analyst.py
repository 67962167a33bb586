"""An analyst's and a season organiser's walk (h42, second round): simulate, stats, compare, playout and the
season commands read as a user reads them, through the real entry point (``python -m heatlog.cli``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


def heatlog(*args: str, columns: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns)} if columns else None
    cmd = [sys.executable, "-m", "heatlog.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)


def test_compare_at_80_columns_keeps_the_round_table_whole_and_a_note_in_words(tmp_path: Path) -> None:
    """`heatlog compare` of two what-ifs at 80 columns: the per-round table cut "A lap:space" to "lap:sp…" and a
    finished car to "finish…"; and where the two diverge at their play-on notes, each was shown as its fields,
    the bots as a Python dict ("bots {'Blue': 'heuristic', …}")."""
    from rich.cells import cell_len

    db = str(tmp_path / "r.db")
    assert heatlog("import", str(REPLAYS / "usa-4cars.jsonl"), "--db", db).returncode == 0
    for name, bots in (("heuristic", "heuristic"), ("random", "random")):
        branch = ["branch", "-r", "1", "--at-round", "14", "--name", name, "--play-on", "--bots", bots]
        r = heatlog(*branch, "--seed", "1", "--db", db)
        assert r.returncode == 0, r.stderr
    r = heatlog("compare", "2", "3", "--db", db, columns=80)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "…" not in out, out
    assert "lap:space" in out and "finished" in out, out
    assert all(cell_len(line) <= 80 for line in out.splitlines()), out
    said = " ".join(out.split())
    assert "2: note: played on by bots from here (seed 1): Red heuristic, Blue heuristic" in said, said
    assert "{" not in out and "'" not in out.split("each car")[0], out
