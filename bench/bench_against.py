"""This checkout against another revision, in the same run: ``python bench/bench_against.py REV [--rounds 5]``

Speed gates are ratios measured in one run on one machine (this machine is noisy): the revision ``REV`` (a
commit, e.g. the one before an issue) is unpacked with ``git archive`` into a temporary directory, and the two
trees are timed **alternately**, each timing a fresh subprocess (``PYTHONPATH`` = that tree), for:

- ``heuristic``: whole 4-car USA races played by four heuristic bots (``simulate_race``, no database);
- ``random``: the same with random bots;
- ``replay``: ``heatlog.engine.replay`` of the same event logs (random-bot races made once, by this checkout),
  so both versions fold exactly the same events;
- ``table``: the same logs as a physical table records them (hands hidden, ``open_to_table`` by this checkout),
  so every reveal, flip and discard is checked against what the table knows (bench_engine.py's table row).

Each figure is CPU seconds of the subprocess for the work (not its start-up); the report gives, per workload, the
median of each side, the ratio of this checkout's speed to REV's (above 1: this checkout is faster), and the
ratios of every round, so the spread shows. Example: ``python bench/bench_against.py 28e4055 --rounds 5``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs inside each tree. It uses only names both old and new trees have (simulate_race, engine.replay).
WORKER = r"""
import json, sys, time
mode, n, first, logs_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
import heatlog
assert heatlog.__file__.startswith(sys.argv[5]), (heatlog.__file__, sys.argv[5])
if mode in ("replay", "table"):
    from heatlog.engine import replay
    logs = json.loads(open(logs_path if mode == "replay" else logs_path + ".table").read())
    replay(logs[0])  # warm
    c0 = time.process_time()
    events = 0
    for log in logs:
        replay(log)
        events += len(log)
    cpu = time.process_time() - c0
else:
    from heatlog.simulate import simulate_race
    bots = "heuristic" if mode == "heuristic" else "random"
    for seed in range(20):  # warm the heuristic's per-track caches (as bench_sim.py does)
        simulate_race(None, seed=10_000 + seed, track="usa", cars=4, bots=bots)
    c0 = time.process_time()
    events = 0
    for seed in range(first, first + n):
        events += len(simulate_race(None, seed=seed, track="usa", cars=4, bots=bots)[1])
    cpu = time.process_time() - c0
print(json.dumps({"cpu": cpu, "events": events}))
"""

SIZES = {"heuristic": 150, "random": 150, "replay": 0, "table": 0}  # races per timing (replay: the logs file)


def unpack(rev: str, into: Path) -> Path:
    tree = into / "rev"
    tree.mkdir()
    archive = into / "rev.tar"
    with archive.open("wb") as fh:
        subprocess.run(["git", "-C", str(ROOT), "archive", rev, "heatlog", "schema"], stdout=fh, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


def make_logs(path: Path, races: int) -> None:
    sys.path.insert(0, str(ROOT))
    from heatlog.engine.redact import open_to_table
    from heatlog.simulate import simulate_race

    logs = [simulate_race(None, seed=s, track="usa", cars=4, bots="random")[1] for s in range(races)]
    path.write_text(json.dumps(logs), encoding="utf-8")
    Path(f"{path}.table").write_text(json.dumps([open_to_table(log) for log in logs]), encoding="utf-8")


def time_once(tree: Path, worker: Path, mode: str, n: int, logs: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run(
        [sys.executable, str(worker), mode, str(n), "1000", str(logs), str(tree / "heatlog")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the revision to compare against (e.g. the commit before an issue)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per workload (default 5)")
    parser.add_argument("--races", type=int, default=0, help="races per timing (default: 150; replay: 60 logs)")
    parser.add_argument("--only", choices=sorted(SIZES), action="append", help="only this workload (repeatable)")
    args = parser.parse_args()
    modes = args.only or ["heuristic", "random", "replay", "table"]
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        old = unpack(args.rev, tmpdir)
        worker = tmpdir / "worker.py"
        worker.write_text(WORKER, encoding="utf-8")
        logs = tmpdir / "logs.json"
        if "replay" in modes or "table" in modes:
            make_logs(logs, args.races or 60)
        print(f"this checkout ({ROOT}) against {args.rev}, alternating, {args.rounds} rounds; CPU time")
        for mode in modes:
            n = args.races or SIZES[mode]
            new_cpu, old_cpu, ratios = [], [], []
            events = {}
            for k in range(args.rounds):
                order = [("new", ROOT), ("old", old)] if k % 2 == 0 else [("old", old), ("new", ROOT)]
                got = {}
                for side, tree in order:
                    got[side] = time_once(tree, worker, mode, n, logs)
                    events[side] = got[side]["events"]
                new_cpu.append(got["new"]["cpu"])
                old_cpu.append(got["old"]["cpu"])
                ratios.append(got["old"]["cpu"] / got["new"]["cpu"])
            ratio = statistics.median(old_cpu) / statistics.median(new_cpu)
            unit = "logs" if mode in ("replay", "table") else "races"
            n = (args.races or 60) if mode in ("replay", "table") else n
            print(
                f"  {mode:9}: this {statistics.median(new_cpu):6.3f} s, {args.rev} {statistics.median(old_cpu):6.3f} s "
                f"(median CPU per timing; events {events['new']} vs {events['old']} per {n or 60} {unit}) -> "
                f"speed ratio {ratio:.3f}×  [rounds: {' '.join(f'{r:.3f}' for r in ratios)}]"
            )


if __name__ == "__main__":
    main()
