"""``heatlog races`` with hundreds and thousands of races: wall time of the real command, and the table itself.

Three databases are made (100, 1,000 and 5,000 races): 100 are copies of a finished 2-car race (a few hundred
events each: their status, winner and rounds need the projection), the rest short races at round 1 marked
simulated, as ``heatlog simulate --races`` makes them (listed with ``--all``). Measured in one run, the
commands taking turns:

* ``heatlog races --all`` piped (tab-separated), a fresh process each time, after a first run that fills the
  summary cache; and ``heatlog races`` (the host's 100 races only); against ``python -c "import typer, rich"``.
* the first ``races --all`` of a database whose summaries are not cached yet (every race projected once).
* the terminal table in-process: rich's ``Table`` (the old view) against ``views.listing.aligned``, same rows.

Goal (issue 10): the list stays fast with thousands of races (rich: 2 ms a row, 10 s for 5,000).

    python bench/bench_races_list.py [--runs N]
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, machine, median, simulated_race, table


def heatlog_command() -> list[str]:
    beside = Path(sys.executable).parent / "heatlog"
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("heatlog")
    return [found] if found else [sys.executable, "-m", "heatlog.cli"]


def build(path: Path, total: int, finished: list[dict], short: list[dict]) -> None:
    from heatlog.store import EventStore

    store = EventStore(path, create=True)
    store.conn.execute("PRAGMA synchronous = OFF")  # the bench's own file: no fsync per race
    meta = {"track": "usa", "mode": "open", "cars": ["Red", "Blue"], "laps": 1}
    for i in range(total):
        if i < 100:
            store.create_race(f"friday {i} 李", meta, finished)
        else:
            store.create_race(f"sim usa seed {i}", {**meta, "simulated": {"seed": i}}, short)
    store.close()


def wall(cmd: list[str]) -> float:
    env = {k: v for k, v in os.environ.items() if k != "HEATLOG_DB"}
    started = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
    return time.perf_counter() - started


def render_times(db: Path) -> tuple[float, float, int]:
    """Seconds to lay out the terminal table of every race: rich Table, then views.listing.aligned."""
    from rich.console import Console
    from rich.table import Table

    from heatlog.cli.races import LIST_COLUMNS, _race_cells
    from heatlog.log.racelist import list_races
    from heatlog.log.racelog import RaceLog
    from heatlog.views.listing import aligned

    with RaceLog(db) as log:
        listed, _ = list_races(log, simulated=None)
    rows = [_race_cells(x) for x in listed]
    console = Console(file=io.StringIO(), width=120, force_terminal=True)
    started = time.perf_counter()
    t = Table()
    for col in LIST_COLUMNS:
        t.add_column(col)
    for r in rows:
        t.add_row(*r)
    console.print(t)
    rich_s = time.perf_counter() - started
    started = time.perf_counter()
    out = io.StringIO()
    out.write("\n".join(aligned(LIST_COLUMNS, rows, width=120, flexible=(1, 4), optional=(9, 3, 8))))
    return rich_s, time.perf_counter() - started, len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command (median)")
    args = parser.parse_args()
    heatlog = heatlog_command()
    finished = simulated_race("usa", 2, laps=1, seed=3)
    short = finished[:6]  # race_started, grid, shuffles, the first hands: round 1
    sizes = (100, 1000, 5000)
    with tempfile.TemporaryDirectory(prefix="heatlog-races-") as tmp:
        dbs = {n: Path(tmp) / f"r{n}.db" for n in sizes}
        for n, db in dbs.items():
            build(db, n, finished, short)
        cold = {n: wall([*heatlog, "races", "--all", "--db", str(db)]) for n, db in dbs.items()}  # fills the cache
        commands = [('python -c "import typer, rich"', [sys.executable, "-c", "import typer, rich"])]
        for n, db in dbs.items():
            commands.append((f"heatlog races --all ({n:,} races)", [*heatlog, "races", "--all", "--db", str(db)]))
        commands.append(("heatlog races (5,000: the host's 100)", [*heatlog, "races", "--db", str(dbs[5000])]))
        times: dict[str, list[float]] = {name: [] for name, _ in commands}
        for _ in range(args.runs):
            for name, cmd in commands:
                times[name].append(wall(cmd))
        renders = {n: render_times(db) for n, db in dbs.items()}

    base = median(times['python -c "import typer, rich"'])
    rows = [[name, f"{median(t) * 1e3:.0f}", f"{median(t) / base:.2f}×"] for name, t in times.items()]
    table(
        f"heatlog races, piped, summaries cached: median of {args.runs} runs, taking turns ({machine()})",
        ["command", "median ms", "vs import typer, rich"],
        rows,
    )
    table(
        "first list of a database (every summary projected once, then kept)",
        ["races", "first races --all, s", "per race, ms"],
        [[f"{n:,}", f"{cold[n]:.1f}", f"{cold[n] / n * 1e3:.1f}"] for n in sizes],
    )
    table(
        "the terminal table laid out in-process, same rows",
        ["races", "rich Table, ms", "aligned (cell_len), ms", "rich / aligned"],
        [[f"{r[2]:,}", f"{r[0] * 1e3:.0f}", f"{r[1] * 1e3:.1f}", f"{r[0] / r[1]:.0f}×"] for r in renders.values()],
    )


if __name__ == "__main__":
    main()
