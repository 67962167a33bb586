"""Start-up time: ``heatlog --help`` against ``python -c "import typer, rich"``, side by side in one run.

Each command runs as a fresh process (subprocess), the commands taking turns; the table shows the median wall
time, with a bytecode cache as after an install (and, for comparison, without one). ``heatlog`` is the
console script installed next to this Python (not a version-manager shim, whose own
start-up would be counted); without it, ``python -m heatlog.cli``. Also listed: which heavy modules
(sqlite-utils, jsonschema, the engine, rich) ``heatlog --help`` imports: it should import none of them.

Goal (issue 3): ``heatlog --help`` ≤ 1.3× ``python -c "import typer, rich"``.

``--before DIR`` adds ``python -m heatlog.cli --help`` from this checkout and from DIR (``PYTHONPATH``), taking
turns with the rest, for a before/after ratio.

With ``--db`` (issue 10): the everyday commands on a database of 100 finished races — ``heatlog show``,
``replay --round 3`` and ``races`` — against the same baseline (goal ≤ 2×), and, as the floor any typer
command pays, a one-option typer app run once (with typer 0.29, which coerces every parameter through pydantic,
that alone was 2.6-2.9×; heatlog pins typer 0.28, docs/design.md). ``--before
DIR`` runs the same commands from another checkout (``python -m heatlog.cli`` with ``PYTHONPATH=DIR``, and this
checkout the same way), taking turns, for a before/after ratio. The output is piped (not a terminal), so the
board is written without rich's console (heatlog/views/plain.py); ``--colour`` adds ``show`` with
``FORCE_COLOR=1``, which rich writes with colours as it would to a terminal.

    python bench/bench_cli.py [--runs N] [--db] [--before DIR] [--colour] [--cpu]
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

from _common import ROOT, machine, median, ratios, spread, table

HEAVY = ("sqlite_utils", "sqlite3", "jsonschema", "referencing", "heatlog.engine", "heatlog.store", "rich")
DB_HEAVY = ("sqlite_utils", "pandas", "numpy", "jsonschema", "pydantic", "rich.console")


def heatlog_command() -> list[str]:
    beside = Path(sys.executable).parent / "heatlog"
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("heatlog")
    if found and "shims" not in found:
        return [found]
    return [sys.executable, "-m", "heatlog.cli"]


def wall(cmd: list[str], env: dict[str, str], cwd: Path = ROOT) -> float:
    return timed_run(cmd, env, cwd)[0]


def timed_run(cmd: list[str], env: dict[str, str], cwd: Path = ROOT) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the child) of one run."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, env=env)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def environments(cache: str) -> dict[str, dict[str, str]]:
    """Two ways Python may find compiled modules. "": with a bytecode cache, as after any install (kept in a
    temporary directory, so nothing is written into the tree). " (no .pyc)": ``PYTHONDONTWRITEBYTECODE=1``,
    as in some development shells: installed packages (typer, rich) still load their .pyc, but heatlog's
    own modules (an editable install) are compiled anew at every start."""
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    return {"": dict(base, PYTHONPYCACHEPREFIX=cache), " (no .pyc)": dict(base, PYTHONDONTWRITEBYTECODE="1")}


def bytecode_note() -> str:
    """Whether this shell sets PYTHONDONTWRITEBYTECODE, said in the output rather than hidden: with it, every start
    of an editable install compiles heatlog's modules anew (the rows without "(no .pyc)" run without it)."""
    value = os.environ.get("PYTHONDONTWRITEBYTECODE")
    if value:
        return (
            f"note: PYTHONDONTWRITEBYTECODE={value} is set in this environment: heatlog run from it compiles its "
            "modules at every start (an editable install); the rows marked (no .pyc) measure that, the others "
            "run with a bytecode cache in a temporary directory"
        )
    return "note: PYTHONDONTWRITEBYTECODE is not set in this environment (bytecode caches are written and used)"


def heavy_imports(cmd: list[str], env: dict[str, str], heavy: tuple[str, ...] = HEAVY, cwd: Path = ROOT) -> list[str]:
    """The heavy modules a command imports (from ``python -X importtime``)."""
    argv = cmd if cmd[0] == sys.executable else [sys.executable, *cmd]
    done = subprocess.run(
        argv, capture_output=True, text=True, env=dict(env, PYTHONPROFILEIMPORTTIME="1"), cwd=cwd, check=True
    )
    names = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return [h for h in heavy if any(n == h or n.startswith(h + ".") for n in names)]


TYPER_FLOOR = """
from pathlib import Path
import typer
app = typer.Typer()
@app.command()
def main(db: Path = Path("x")) -> None:
    pass
app(["--db", "y"])
"""


def make_db(path: Path) -> None:
    """100 finished 2-car races (copies of one), their summaries listed once (cached, as after first use)."""
    from _common import simulated_race

    from heatlog.log.racelist import list_races
    from heatlog.log.racelog import RaceLog

    events = simulated_race("usa", 2, laps=1, seed=3)
    with RaceLog(path) as log:
        log.store.conn.execute("PRAGMA synchronous = OFF")
        meta = {"track": "usa", "mode": "open", "cars": ["Red", "Blue"], "laps": 1}
        for i in range(100):
            log.store.create_race(f"friday {i}", meta, events)
        list_races(log)
        log.latest(100)  # its round starts cached (as after a first show): show and replay read from them


def db_main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="heatlog-cli-") as tmp:
        db = Path(tmp) / "h.db"
        make_db(db)
        env = {k: v for k, v in os.environ.items() if k not in ("HEATLOG_DB", "PYTHONDONTWRITEBYTECODE")}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pyc")
        checkouts = {"": dict(env, PYTHONPATH=str(ROOT))}
        if args.before:
            checkouts[" (before)"] = dict(env, PYTHONPATH=str(Path(args.before).resolve()))
        run = [sys.executable, "-m", "heatlog.cli"]
        commands: list[tuple[str, list[str], dict[str, str]]] = [
            ('python -c "import typer, rich"', [sys.executable, "-c", "import typer, rich"], env),
            ("typer floor: a 1-option typer app", [sys.executable, "-c", TYPER_FLOOR], env),
        ]
        for i, (tag, cenv) in enumerate(checkouts.items()):
            # Each checkout reads its own copy: the caches (summaries, snapshots) are keyed by the rules'
            # fingerprint, so two trees with different engine files would keep replacing each other's.
            mine = db if i == 0 else Path(tmp) / f"h{i}.db"
            if i:
                shutil.copyfile(db, mine)
            commands += [
                (f"heatlog show{tag}", [*run, "show", "--db", str(mine)], cenv),
                (f"heatlog replay --round 3{tag}", [*run, "replay", "--round", "3", "--db", str(mine)], cenv),
                (f"heatlog races{tag}", [*run, "races", "--db", str(mine)], cenv),
            ]
            if args.colour:
                # as in a terminal: rich writes colours (FORCE_COLOR), so the board goes through rich's console
                colour = dict(cenv, FORCE_COLOR="1")
                commands.append((f"heatlog show, colour{tag}", [*run, "show", "--db", str(mine)], colour))
        # cwd: a directory without a heatlog package (python -m puts the cwd first on sys.path)
        cwd = Path(tmp)
        for _, cmd, cenv in commands:
            wall(cmd, cenv, cwd)
            wall(cmd, cenv, cwd)
        times: dict[str, list[float]] = {name: [] for name, _, _ in commands}
        cpu: dict[str, list[float]] = {name: [] for name, _, _ in commands}
        for _ in range(args.runs):
            for name, cmd, cenv in commands:
                w, c = timed_run(cmd, cenv, cwd)
                times[name].append(w)
                cpu[name].append(c)
        heavy = {name: ", ".join(heavy_imports(cmd, cenv, DB_HEAVY, cwd)) or "none" for name, cmd, cenv in commands[2:]}
    print(bytecode_note())
    for label, series in (("wall", times), ("CPU (user + system)", cpu)) if args.cpu else (("wall", times),):
        base_runs = series['python -c "import typer, rich"']
        rows = []
        for name, _, _ in commands:
            t = median(series[name])
            before = series.get(name + " (before)")
            vs = spread(ratios(before, series[name]), "{:.2f}", "× faster") if before else ""
            vs_base = spread(ratios(series[name], base_runs), "{:.2f}", "×")
            rows.append([name, f"{t * 1e3:.0f}", vs_base, vs, heavy.get(name, "")])
        table(
            f"everyday commands on 100 races, {label}, median of {args.runs} runs, taking turns ({machine()})",
            [
                "command",
                "median ms",
                "vs import typer, rich: median (min–max, n) of the runs' ratios",
                "before / after",
                "heavy modules imported",
            ],
            rows,
        )
    print('\ngoal: show, replay --round N and races ≤ 2× python -c "import typer, rich" (issue 10)')
    print("goal: show and replay --round N ≈ 1.2–1.3× (issue 32 item 4); CPU (--cpu) is the steadier figure under load")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="runs per command (median)")
    parser.add_argument("--db", action="store_true", help="the everyday commands on a database of 100 races")
    parser.add_argument("--before", help="another checkout to compare with (--help; with --db, the everyday commands)")
    parser.add_argument(
        "--colour", action="store_true", help="with --db: also show with colours (FORCE_COLOR=1), as in a terminal"
    )
    parser.add_argument(
        "--cpu", action="store_true", help="also the CPU time of each run (steadier on a loaded machine)"
    )
    args = parser.parse_args()
    if args.db:
        db_main(args)
        return

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
        if args.before:
            # this tree and the other checkout the same way (python -m, PYTHONPATH), with the same bytecode cache
            # (each tree's files have their own entries in it), taking turns with the rows above
            here = dict(envs[""], PYTHONPATH=str(ROOT))
            other = dict(envs[""], PYTHONPATH=str(Path(args.before).resolve()))
            run = [sys.executable, "-m", "heatlog.cli", "--help"]
            commands += [
                ("python -m heatlog.cli --help", run, here),
                ("python -m heatlog.cli --help (before)", run, other),
            ]
        # cwd: a directory without a heatlog package (python -m puts the cwd first on sys.path)
        cwd = Path(cache)
        for _, cmd, env in commands:  # warm the OS file cache; fill the bytecode cache
            wall(cmd, env, cwd)
            wall(cmd, env, cwd)
        times: dict[str, list[float]] = {name: [] for name, _, _ in commands}
        cpu: dict[str, list[float]] = {name: [] for name, _, _ in commands}
        for _ in range(args.runs):
            for name, cmd, env in commands:
                w, c = timed_run(cmd, env, cwd)
                times[name].append(w)
                cpu[name].append(c)
        heavy = {
            name: ", ".join(heavy_imports(cmd, env, cwd=cwd)) or "none"
            for name, cmd, env in commands
            if "heatlog" in name
        }

    print(bytecode_note())
    where = " ".join(heatlog)
    for label, series in (("wall", times), ("CPU (user + system)", cpu)) if args.cpu else (("wall", times),):
        rows = []
        for name, _, _ in commands:
            base = series['python -c "import typer, rich"' + (" (no .pyc)" if "no .pyc" in name else "")]
            t = median(series[name])
            vs = spread(ratios(series[name], base), "{:.2f}", "×")
            before = series.get(name + " (before)")
            than = spread(ratios(before, series[name]), "{:.2f}", "× faster") if before else ""
            rows.append([name, f"{t * 1e3:.0f}", f"{min(series[name]) * 1e3:.0f}", vs, than, heavy.get(name, "")])
        table(
            f"start-up {label} time, {args.runs} runs each, taking turns ({machine()}; heatlog = {where})",
            [
                "command",
                "median ms",
                "min ms",
                "vs import typer, rich (same cache): median (min–max, n) of the runs' ratios",
                "before / after",
                "heavy modules imported",
            ],
            rows,
        )
    print('\ngoal: heatlog --help ≤ 1.3× python -c "import typer, rich"')


if __name__ == "__main__":
    main()
