"""Simulator throughput: ``python bench/bench_sim.py [--races 300] [--profile]``

Complete 4-car USA races (2 laps) per second on one core, four heuristic bots, seeds 0..N-1:

- without the database: playing the race (bots + world + rules) and keeping its events in memory;
- with the database: the same, plus schema validation of every event at the door and one durable
  ``append_many`` transaction per race into a fresh SQLite file (WAL, the store's durability settings).

The heuristic keeps caches of pure values per track (corner outcomes, look-ahead), so the first races of a
process are slower: the warm-up races are timed separately. ``--profile`` runs cProfile over the races and
prints where the time goes, by area and by function. The goal is at least 100 races/s without the database.
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/bench_sim.py` from a checkout works without installing
    sys.path.insert(0, str(ROOT))

from heatlog.log.racelog import RaceLog  # noqa: E402
from heatlog.simulate import simulate_race  # noqa: E402

ARGS = {"track": "usa", "cars": 4, "bots": "heuristic"}
WARMUP = 20


def run(races: int, first_seed: int, log: RaceLog | None = None) -> tuple[float, float, int]:
    """CPU seconds of this process and wall seconds for ``races`` races, and the events they wrote.

    Races per second *per core* are races per CPU second: on a shared machine the wall clock also counts
    the time other processes had the core (the SQLite fsync is waiting, not CPU: it shows in the wall time).
    """
    events = 0
    c0, t0 = time.process_time(), time.perf_counter()
    for seed in range(first_seed, first_seed + races):
        events += len(simulate_race(log, seed=seed, **ARGS)[1])  # type: ignore[arg-type]
    return time.process_time() - c0, time.perf_counter() - t0, events


# Entry points whose cumulative time makes up a race: (label, file suffix, function name).
PARTS = (
    ("bots: the heuristic deciding, of which:", "heatlog/bots/__init__.py", "__call__"),
    ("    gear and cards (steps 1-2, planned together)", "heatlog/bots/__init__.py", "_plan"),
    ("    react and slipstream (steps 4-6)", "heatlog/bots/__init__.py", "_react"),
    ("    discard (step 8)", "heatlog/bots/__init__.py", "_discard"),
    ("rules: apply(state, event)", "heatlog/engine/rules.py", "apply"),
    ("rules: go_on (closing optional steps, corner checks)", "heatlog/engine/rules.py", "go_on"),
    ("set-up: race_started event (track copy)", "heatlog/races/__init__.py", "race_started_event"),
    ("door: schema validation of every event", "heatlog/formats/validation.py", "validate_event"),
    ("store: one append_many transaction", "heatlog/store/appends.py", "append_many"),
    ("store: create_race", "heatlog/store/appends.py", "create_race"),
)


def profile(races: int, with_db: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        log = RaceLog(Path(tmp) / "prof.db") if with_db else None
        prof = cProfile.Profile()
        prof.enable()
        run(races, 10_000, log)
        prof.disable()
        if log is not None:
            log.close()
    stats = pstats.Stats(prof)
    raw = stats.stats  # type: ignore[attr-defined]
    total = max(ct for (_f, _l, func), (_cc, _nc, _tt, ct, _c) in raw.items() if func == "simulate_race")
    drive = sum(ct for (f, _l, func), (_cc, _nc, _tt, ct, _c) in raw.items() if func == "_drive")
    print(f"\nwhere the time goes ({'with' if with_db else 'without'} the database; cProfile, {races} races):")
    inside = 0.0
    for label, suffix, name in PARTS:
        t = sum(ct for (f, _l, func), (_cc, _nc, _tt, ct, _c) in raw.items() if f.endswith(suffix) and func == name)
        if t:
            print(f"  {t / total:6.1%}  {label}")
            inside += t if label.startswith(("bots", "rules")) else 0.0
    print(f"  {(drive - inside) / total:6.1%}  simulator loop and world (shuffles, flips, draws, lazy options)")
    print("\ntop functions by own time:")
    stats.sort_stats("tottime").print_stats(12)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--races", type=int, default=300, help="timed races per figure (default 300)")
    parser.add_argument("--repeat", type=int, default=3, help="repeat the timing, report the best (default 3)")
    parser.add_argument("--profile", action="store_true", help="also profile and say where the time goes")
    args = parser.parse_args()
    n = args.races

    cpu, wall, _ = run(WARMUP, 0)
    print(f"4-car USA races, 4 heuristic bots, one core (Python {sys.version.split()[0]}, {platform.machine()})")
    print(f"  first {WARMUP} races of the process (cold caches): {WARMUP / cpu:7.1f} races/s")
    for label, with_db in (("without the database", False), ("with the database   ", True)):
        per_cpu, per_wall = [], []
        events = 0
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(args.repeat):
                log = RaceLog(Path(tmp) / f"bench{k}.db") if with_db else None
                cpu, wall, events = run(n, 1000 + k * n, log)
                if log is not None:
                    log.close()
                per_cpu.append(n / cpu)
                per_wall.append(n / wall)
        print(
            f"  {label}: {statistics.median(per_cpu):7.1f} races/s per core (median of {args.repeat} × {n} "
            f"races; wall clock {statistics.median(per_wall):.1f}/s); {events / n:.0f} events per race"
        )
    if args.profile:
        profile(min(n, 200), with_db=False)
        profile(min(n, 100), with_db=True)


if __name__ == "__main__":
    main()
