"""Start-up time: ``heatlog --help`` against ``python -c "import typer, rich"``, side by side in one run.

Each command runs as a fresh process (subprocess), the commands taking turns; the table shows the median wall
time. ``heatlog`` is the console script installed next to this Python (not a version-manager shim, whose own
start-up would be counted); without it, ``python -m heatlog.cli``. Also listed: which heavy modules
(sqlite-utils, jsonschema, the engine, rich) ``heatlog --help`` imports: it should import none of them.

Goal (issue 3): ``heatlog --help`` ≤ 1.3× ``python -c "import typer, rich"``.

    python bench/bench_cli.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from _common import ROOT, machine, median, table

HEAVY = ("sqlite_utils", "sqlite3", "jsonschema", "referencing", "heatlog.engine", "heatlog.store", "rich")


def heatlog_command() -> list[str]:
    beside = Path(sys.executable).parent / "heatlog"
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("heatlog")
    if found and "shims" not in found:
        return [found]
    return [sys.executable, "-m", "heatlog.cli"]


def wall(cmd: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - started


def heavy_imports(cmd: list[str]) -> list[str]:
    """The heavy modules a command imports (from ``python -X importtime``)."""
    argv = cmd if cmd[0] == sys.executable else [sys.executable, *cmd]
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1")
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    names = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return sorted(n for n in names if any(n == h or n.startswith(h + ".") for h in HEAVY))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="runs per command (median)")
    args = parser.parse_args()

    heatlog = heatlog_command()
    commands = [
        ('python -c "pass"', [sys.executable, "-c", "pass"]),
        ('python -c "import typer, rich"', [sys.executable, "-c", "import typer, rich"]),
        ("heatlog --help", [*heatlog, "--help"]),
        ("heatlog show --help", [*heatlog, "show", "--help"]),
    ]
    for _, cmd in commands:  # warm the OS file cache and .pyc files first
        wall(cmd)
    times: dict[str, list[float]] = {name: [] for name, _ in commands}
    for _ in range(args.runs):
        for name, cmd in commands:
            times[name].append(wall(cmd))

    base = median(times['python -c "import typer, rich"'])
    rows = []
    for name, cmd in commands:
        t = median(times[name])
        heavy = ", ".join(heavy_imports(cmd)) or "none" if name.startswith("heatlog") else ""
        rows.append([name, f"{t * 1e3:.0f}", f"{min(times[name]) * 1e3:.0f}", f"{t / base:.2f}×", heavy])
    where = " ".join(heatlog)
    table(
        f"start-up wall time, median of {args.runs} runs each, taking turns ({machine()}; heatlog = {where})",
        ["command", "median ms", "min ms", "vs import typer, rich", "heavy modules imported"],
        rows,
    )
    print('\ngoal: heatlog --help ≤ 1.3× python -c "import typer, rich"')


if __name__ == "__main__":
    main()
