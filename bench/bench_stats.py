"""``heatlog stats --all`` over many races against reading their logs (issue 13: ≤ 2× the time of reading them).

Races are simulated (USA, 4 cars, heuristic bots, open mode) into a fresh database in a temporary directory.
Then, taking turns, each contender over every race:

- **read logs**: ``RaceLog.effective(race)``: read from SQLite, decode, apply retractions;
- **read + fold**: ``RaceLog.project(race)`` (no snapshots exist: the whole log folded through the engine);
- **stats, table fresh**: ``career(TurnsTable.facts(ids))``: the ``turns`` table matches every log, so the
  facts are read from it (checked against each log's last hash and each race's digest);
- **stats, cold**: the same after dropping the table: every race folded, the table written back;
- **stats, no table**: folded every time, nothing written (``cache=False``).

And the command itself, end to end (``heatlog stats --all --json`` in a subprocess, the table fresh).

    python bench/bench_stats.py [--races 1000] [--repeats 3] [--db FILE]   # --db: a copy of FILE's races instead
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import machine, median, table, timed

from heatlog.log.racelog import RaceLog
from heatlog.simulate import simulate_race
from heatlog.stats import TurnsTable, career


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--races", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--db", type=Path, help="use a copy of this database's races instead of simulating")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        t0 = time.perf_counter()
        if args.db is not None:
            shutil.copyfile(args.db, path)
            log = RaceLog(path)
            TurnsTable(log).drop()
        else:
            log = RaceLog(path)
            for seed in range(args.races):
                simulate_race(log, track="usa", cars=4, seed=seed, bots="heuristic")
        made = time.perf_counter() - t0
        ids = [r.id for r in log.store.races()]
        events = sum(log.store.length(r) for r in ids)
        print(f"{machine()}; {len(ids)} races, {events:,} events (made in {made:.0f} s)")
        tt = TurnsTable(log)

        def read() -> None:
            for r in ids:
                log.effective(r)

        def project() -> None:
            for r in ids:
                log.project(r)

        def warm() -> None:
            career(tt.facts(ids))

        def cold() -> None:
            tt.drop()
            career(tt.facts(ids))

        def nocache() -> None:
            career(tt.facts(ids, cache=False))

        contenders = [
            ("read logs", read),
            ("read + fold (project)", project),
            ("stats, table fresh", warm),
            ("stats, cold (fold + write table)", cold),
            ("stats, no table (fold)", nocache),
        ]
        warm()  # build the table once
        times: dict[str, list[float]] = {name: [] for name, _ in contenders}
        for _ in range(args.repeats):
            for name, fn in contenders:
                if name == "stats, table fresh":
                    warm()  # the cold run before left a fresh table; make sure
                times[name].append(timed(fn))
            warm()
        cli = []
        for _ in range(args.repeats):
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "heatlog.cli", "stats", "--all", "--json", "--db", str(path)],
                check=True,
                capture_output=True,
            )
            cli.append(time.perf_counter() - started)
        log.close()
    base = median(times["read logs"])
    fold = median(times["read + fold (project)"])
    rows = []
    for name, _ in contenders:
        s = median(times[name])
        rows.append([name, f"{s:.2f}", f"{s / base:.2f}×", f"{s / fold:.2f}×"])
    c = median(cli)
    rows.append(["`heatlog stats --all --json` (process)", f"{c:.2f}", f"{c / base:.2f}×", f"{c / fold:.2f}×"])
    table(
        f"stats over {len(ids)} races (median of {args.repeats})",
        ["contender", "s", "vs read logs", "vs read + fold"],
        rows,
    )


if __name__ == "__main__":
    main()
