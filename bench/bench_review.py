"""``heatlog review`` of one car's whole 4-car USA race with the default settings (issue 13 and 28: ≤ 60 s on
this 2-core machine; issue 28: the play-out stops once each decision's label is settled — the paired loss of the
taken decision within one label's band, a label's loss within ±0.05 expected score — or at the cap).

The race is the sample ``replays/usa-4cars.jsonl`` (heuristic bots, open mode, 18 rounds); the car is Red.
The review runs as the command does: a process pool of all cores (``--workers``), default settings
(``heatlog.review.Settings``). Reported: wall time, the CPU time of the process and its workers (what carries
from a loaded machine to a quiet one), decisions, playouts, playouts per second, the labels
settled before the cap, the 95 % half-widths of the losses the labels rest on (expected score), and of the
expected places it reports for the decisions played out, of those dropped in the play-out as clearly worse than
the best, and of the screening-only estimates (listed for completeness).

    python bench/bench_review.py [--car Red] [--workers N] [--rounds 1-18]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

from _common import ROOT, machine, table

from heatlog.analysis.executors import default_workers, local_executor
from heatlog.review import Settings, review_race


def children_cpu() -> float:
    """CPU seconds of this process's living children (the pool's workers), from /proc (Linux; 0 elsewhere)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == os.getpid():  # ppid; then utime and stime, fields 14 and 15 of stat
            total += int(fields[11]) + int(fields[12])
    return total / tick


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--car", default="Red")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--rounds", default=None, help="e.g. 1-6 (default: the whole race)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    events = [json.loads(line) for line in (ROOT / "replays" / "usa-4cars.jsonl").read_text().splitlines()]
    rounds = None
    if args.rounds:
        a, _, b = args.rounds.partition("-")
        rounds = set(range(int(a), int(b or a) + 1))
    workers = args.workers or default_workers()
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with local_executor(workers) as ex:
        review = review_race(
            events, [args.car], settings=Settings(seed=args.seed), executor=ex, parallel=workers, rounds=rounds
        )
        workers_cpu = children_cpu()  # before the pool closes (it does not wait for its workers)
    wall = time.perf_counter() - started
    me = resource.getrusage(resource.RUSAGE_SELF)
    cpu = me.ru_utime + me.ru_stime + workers_cpu
    # the CPU of this process and of its workers (reaped when the pool closed): what carries to a quiet machine
    car = review.car(args.car)
    kept = [e for p in car.points for e in p.estimates if e.kept]
    dropped = [e for p in car.points for e in p.estimates if e.dropped]
    screened = [e for p in car.points for e in p.estimates if not e.kept and not e.dropped]
    playouts = sum(p.playouts for p in car.points)
    span = review.n_cars - 1
    labelled = [p for p in car.points if p.label is not None]
    z = review.settings.settle_z / 1.96  # a settled label's loss is bounded by the target at the settling z
    within = sum(p.loss_half * z / span <= review.settings.target + 1e-9 for p in labelled)
    halves = sorted(p.loss_half / span for p in car.points if p.best is not p.taken)
    s = car.summary()
    print(f"{machine()}; load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    table(
        f"review of {args.car}, usa-4cars, {workers} workers, default settings",
        ["figure", "value"],
        [
            ["wall time", f"{wall:.1f} s"],
            ["CPU (this process and its workers)", f"{cpu:.1f} s ({playouts / cpu:.0f} playouts per CPU-second)"],
            ["decisions reviewed", f"{len(car.points)} of {car.expected}"],
            ["playouts", f"{playouts:,} ({playouts / wall:.0f}/s)"],
            ["labels settled before the cap", f"{sum(p.settled for p in car.points)} of {len(car.points)}"],
            ["labelled losses within ± target at settle_z (score)", f"{within} of {len(labelled)}"],
            [
                "± of a loss against another best (score): median / largest",
                f"{halves[len(halves) // 2]:.3f} / {halves[-1]:.3f} ({len(halves)})" if halves else "-",
            ],
            ["labelled decisions with a reason", f"{sum(p.reason is not None for p in car.points)}"],
            ["decisions not reviewed", f"{len(car.not_reviewed)}"],
            ["largest ± of a played-out estimate", f"{max(e.place_half for e in kept):.3f}"],
            ["median ± of a played-out estimate", f"{sorted(e.place_half for e in kept)[len(kept) // 2]:.3f}"],
            [
                "dropped in the play-out (clearly worse than the best)",
                f"{len(dropped)}, median {sorted(e.playouts for e in dropped)[len(dropped) // 2] if dropped else 0} "
                f"playouts, median ± {sorted(e.place_half for e in dropped)[len(dropped) // 2] if dropped else 0:.2f}",
            ],
            [
                "screening-only estimates (16 playouts)",
                f"{len(screened)}, median ± "
                f"{sorted(e.place_half for e in screened)[len(screened) // 2] if screened else 0:.2f}",
            ],
            [
                "accuracy / blunders / mistakes / inaccuracies",
                f"{s['accuracy']} / {s['blunder']} / {s['mistake']} / {s['inaccuracy']}",
            ],
        ],
    )


if __name__ == "__main__":
    main()
