"""Start-up time: ``heatlog --help`` against ``python -c "import typer, rich"``, side by side in one run.

Each command runs as a fresh process (subprocess), the commands taking turns; the table shows the median wall
time, with a bytecode cache as after an install (and, for comparison, without one). ``heatlog`` is the
console script installed next to this Python (not a version-manager shim, whose own
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
import tempfile
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


def wall(cmd: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
    return time.perf_counter() - started


def environments(cache: str) -> dict[str, dict[str, str]]:
    """Two ways Python may find compiled modules. "": with a bytecode cache, as after any install (kept in a
    temporary directory, so nothing is written into the tree). " (no .pyc)": ``PYTHONDONTWRITEBYTECODE=1``,
    as in some development shells: installed packages (typer, rich) still load their .pyc, but heatlog's
    own modules (an editable install) are compiled anew at every start."""
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    return {"": dict(base, PYTHONPYCACHEPREFIX=cache), " (no .pyc)": dict(base, PYTHONDONTWRITEBYTECODE="1")}


def heavy_imports(cmd: list[str], env: dict[str, str]) -> list[str]:
    """The heavy modules a command imports (from ``python -X importtime``)."""
    argv = cmd if cmd[0] == sys.executable else [sys.executable, *cmd]
    done = subprocess.run(
        argv, capture_output=True, text=True, env=dict(env, PYTHONPROFILEIMPORTTIME="1"), cwd=ROOT, check=True
    )
    names = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return sorted(n for n in names if any(n == h or n.startswith(h + ".") for h in HEAVY))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="runs per command (median)")
    args = parser.parse_args()

    heatlog = heatlog_command()
    with tempfile.TemporaryDirectory(prefix="heatlog-pyc-") as cache:
        envs = environments(cache)
        commands = [
            ('python -c "pass"', [sys.executable, "-c", "pass"], envs[""]),
            ('python -c "import typer, rich"', [sys.executable, "-c", "import typer, rich"], envs[""]),
            ("heatlog --help", [*heatlog, "--help"], envs[""]),
            ("heatlog show --help", [*heatlog, "show", "--help"], envs[""]),
            (
                'python -c "import typer, rich" (no .pyc)',
                [sys.executable, "-c", "import typer, rich"],
                envs[" (no .pyc)"],
            ),
            ("heatlog --help (no .pyc)", [*heatlog, "--help"], envs[" (no .pyc)"]),
        ]
        for _, cmd, env in commands:  # warm the OS file cache; fill the bytecode cache
            wall(cmd, env)
            wall(cmd, env)
        times: dict[str, list[float]] = {name: [] for name, _, _ in commands}
        for _ in range(args.runs):
            for name, cmd, env in commands:
                times[name].append(wall(cmd, env))
        heavy = {name: ", ".join(heavy_imports(cmd, env)) or "none" for name, cmd, env in commands if "heatlog" in name}

    rows = []
    for name, _, _ in commands:
        base = median(times['python -c "import typer, rich"' + (" (no .pyc)" if "no .pyc" in name else "")])
        t = median(times[name])
        rows.append([name, f"{t * 1e3:.0f}", f"{min(times[name]) * 1e3:.0f}", f"{t / base:.2f}×", heavy.get(name, "")])
    where = " ".join(heatlog)
    table(
        f"start-up wall time, median of {args.runs} runs each, taking turns ({machine()}; heatlog = {where})",
        ["command", "median ms", "min ms", "vs import typer, rich (same cache)", "heavy modules imported"],
        rows,
    )
    print('\ngoal: heatlog --help ≤ 1.3× python -c "import typer, rich"')


if __name__ == "__main__":
    main()
