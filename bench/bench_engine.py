"""Engine replay benchmark: events applied per second by ``heatlog.engine.replay``.

Generates whole seeded races with ``heatlog.simulate.world`` random bots (4-car USA races and a few 6-car Italy
races), then times ``replay`` of every log, several repetitions, without schema validation (replay of a
stored log does not validate). Goal: >= 130,000 events/s.

    python bench/bench_engine.py                 # 30 USA + 5 Italy races, 7 repetitions
    python bench/bench_engine.py --profile       # cProfile of one pass over all logs, top 25 by tottime
    python bench/bench_engine.py --cpu           # CPU seconds instead of wall seconds (a loaded machine)

Issue 26's speed gate (this script and bench_sim.py run on two checkouts, alternating, in the same run):
docs/performance.md, "Issue 26's speed gate".
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/bench_engine.py` from a checkout works without installing
    sys.path.insert(0, str(ROOT))

from heatlog.engine import replay  # noqa: E402
from heatlog.engine.redact import open_to_table  # noqa: E402
from heatlog.formats.tracks import load_track_data  # noqa: E402
from heatlog.simulate.world import Bot, race_events, random_bot  # noqa: E402

Event = dict[str, Any]
GOAL = 130_000
NAMES = ("Red", "Blue", "Green", "Yellow", "Black", "White")


def make_races(track: str, cars: int, count: int, first_seed: int) -> list[list[Event]]:
    data = load_track_data(track)
    names = NAMES[:cars]
    start: Event = {
        "type": "race_started",
        "v": 1,
        "track": data,
        "laps": data["laps"],
        "cars": [{"name": n, "colour": n.lower()} for n in names],
        "variant": "standard",
        "handicap": [],
        "mode": "open",
    }
    bots: dict[str, Bot] = {n: random_bot for n in names}
    return [list(race_events(start, bots, seed)) for seed in range(first_seed, first_seed + count)]


def time_replay(logs: list[list[Event]], reps: int, clock: Any = time.perf_counter) -> list[float]:
    times = []
    for _ in range(reps):
        t0 = clock()
        for log in logs:
            replay(log)
        times.append(clock() - t0)
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--usa", type=int, default=30, help="4-car USA races (default 30)")
    ap.add_argument("--italy", type=int, default=5, help="6-car Italy races (default 5)")
    ap.add_argument("--reps", type=int, default=7, help="timed repetitions (default 7)")
    ap.add_argument("--profile", action="store_true", help="cProfile one pass instead of timing")
    ap.add_argument(
        "--cpu", action="store_true", help="time CPU seconds of this process (steadier on a loaded machine) not wall"
    )
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    sets = {
        f"USA 4 cars x{args.usa}": make_races("usa", 4, args.usa, 1),
        f"Italy 6 cars x{args.italy}": make_races("italy", 6, args.italy, 1001),
    }
    sets = {k: v for k, v in sets.items() if v}
    sets["all"] = [log for logs in sets.values() for log in logs]
    sets["all, table mode"] = [open_to_table(log) for log in sets["all"]]  # the same races, hands hidden
    took = time.perf_counter() - t0
    print(f"generated {len(sets['all'])} races in {took:.1f} s (Python {platform.python_version()})")

    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        for log in sets["all"]:
            replay(log)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return 0

    replay(sets["all"][0])  # warm-up
    clock = "CPU" if args.cpu else "wall"
    head = f"{'races':<20} {'events':>8} {'best s':>8} {'median s':>9} {'events/s (best)':>16}"
    print(f"{head}  best of {args.reps}, {clock}")
    best_rate = 0.0
    for label, logs in sets.items():
        events = sum(len(log) for log in logs)
        times = sorted(time_replay(logs, args.reps, time.process_time if args.cpu else time.perf_counter))
        best, median = times[0], times[len(times) // 2]
        rate = events / best
        print(f"{label:<20} {events:>8} {best:>8.3f} {median:>9.3f} {rate:>16,.0f}")
        if label == "all":
            best_rate = rate
    verdict = "meets" if best_rate >= GOAL else "BELOW"
    print(f"overall {best_rate:,.0f} events/s: {verdict} the goal of {GOAL:,}")
    return 0 if best_rate >= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
