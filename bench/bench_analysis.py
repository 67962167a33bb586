"""Analysis throughput and common random numbers: ``python bench/bench_analysis.py [--quick]``

Everything is measured in the same run, alternating the things compared, and reported as ratios (issue 12):

1. playouts from mid-race (4-car USA, heuristic bots, public information; the sample included) per CPU
   second, against the simulator's whole races per CPU second — goal ≥ 2× (a playout is about half a race);
2. ``simulate --races`` and ``playout`` with 2 workers against 1 worker, wall clock — goal ≥ 1.7× on 2 cores
   (the races played only, and played and stored by the one writer, as the command does);
3. ``compare --playouts``: playouts needed for a ±0.1 place 95 % interval on the difference of a what-if
   (another gear at step 1), with common random numbers and with independent playouts — both measured.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._common import machine, table  # noqa: E402
from heatlog.analysis import information_set  # noqa: E402
from heatlog.analysis.executors import local_executor  # noqa: E402
from heatlog.analysis.playout import playouts  # noqa: E402
from heatlog.engine import legal_gears, replay  # noqa: E402
from heatlog.log.racelog import RaceLog  # noqa: E402
from heatlog.simulate import simulate_race, store_race  # noqa: E402
from heatlog.simulate.parallel import simulate_many  # noqa: E402


def races_cpu(n: int, first: int) -> float:
    c0 = time.process_time()
    for s in range(first, first + n):
        simulate_race(None, track="usa", cars=4, seed=s)
    return n / (time.process_time() - c0)


def playouts_cpu(info: object, n: int, seed: int) -> float:
    c0 = time.process_time()
    playouts(info, n, seed=seed)  # type: ignore[arg-type]
    return n / (time.process_time() - c0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args()
    reps = 2 if args.quick else 3
    print(f"# bench_analysis on {machine()}")
    _, events, final = simulate_race(None, track="usa", cars=4, seed=3)
    mid = next(i for i in range(len(events) // 2, len(events)) if events[i]["type"] == "gear_chosen")
    info = information_set(events[:mid])
    print(f"race: {final.round} rounds; playouts from round {info.public.round} ({mid} of {len(events)} events)")
    simulate_race(None, track="usa", cars=4, seed=999)  # warm the heuristic's caches for both
    playouts(info, 16, seed=999)

    # 1. per core: alternate races and playouts
    rs, ps = [], []
    for r in range(reps):
        rs.append(races_cpu(20, 100 + 20 * r))
        ps.append(playouts_cpu(info, 48, r))
    race_rate, po_rate = statistics.median(rs), statistics.median(ps)
    table(
        "1. per CPU second (medians of alternating runs)",
        ["what", "per CPU s"],
        [
            ["whole simulated races", f"{race_rate:.1f}"],
            ["playouts from mid-race", f"{po_rate:.1f}"],
            ["ratio playouts / races", f"{po_rate / race_rate:.2f}× (goal ≥ 2)"],
        ],
    )

    # 2. 2 workers against 1, wall clock, alternating
    def sim_wall(workers: int) -> float:
        with local_executor(workers) as ex:
            t0 = time.perf_counter()
            played, _ = simulate_many(200 if not args.quick else 80, 1, {"track": "usa", "cars": 4}, ex)
            for _ in played:
                pass
            return time.perf_counter() - t0

    def stored_wall(workers: int) -> float:  # what the command does: workers play, one writer stores
        with tempfile.TemporaryDirectory() as tmp, local_executor(workers) as ex:
            log = RaceLog(Path(tmp) / "sim.db")
            t0 = time.perf_counter()
            played, _ = simulate_many(200 if not args.quick else 80, 1, {"track": "usa", "cars": 4}, ex)
            for p in played:
                store_race(log, p.events, validated=p.validated)
            return time.perf_counter() - t0

    def po_wall(workers: int) -> float:
        with local_executor(workers) as ex:
            t0 = time.perf_counter()
            playouts(info, 320 if not args.quick else 160, seed=7, executor=ex)
            return time.perf_counter() - t0

    rows = []
    for label, fn in (
        ("simulate --races, played only", sim_wall),
        ("simulate --races, played and stored", stored_wall),
        ("playout", po_wall),
    ):
        one, two = [], []
        for _ in range(reps):
            one.append(fn(1))
            two.append(fn(2))
        a, b = statistics.median(one), statistics.median(two)
        rows.append([label, f"{a:.2f} s", f"{b:.2f} s", f"{a / b:.2f}× (goal ≥ 1.7)"])
    table(
        "2. wall clock, 1 worker against 2 (medians, alternating)", ["work", "1 worker", "2 workers", "speed-up"], rows
    )

    # 3. common random numbers: another gear at a step 1 in the last third of the race
    cut = next(i for i in range(2 * len(events) // 3, len(events)) if events[i]["type"] == "gear_chosen")
    ev = events[cut]
    state = replay(events[:cut])
    alt = {**ev, "gear": next(g for g in legal_gears(state, state.cars[ev["car"]]) if g != ev["gear"])}
    what = information_set(events[:cut], ev["car"])
    n = 200 if not args.quick else 96
    crn = playouts(what, n, seed=11, sides=[[ev], [alt]], crn=True)
    ind = playouts(what, n, seed=11, sides=[[ev], [alt]], crn=False)
    dc, di = crn.difference(), ind.difference()
    rows = []
    for car in crn.cars:
        need_crn = dc[car].needed(0.1, paired=True)
        need_ind = di[car].needed(0.1, paired=True)  # measured: paired differences of independent playouts
        rows.append(
            [
                car + (" (decides)" if car == ev["car"] else ""),
                f"{dc[car].mean:+.2f}",
                str(need_crn),
                str(need_ind),
                f"{need_ind / max(need_crn, 1):.1f}×",
            ]
        )
    table(
        f"3. playouts for ±0.1 place on the difference (gear {ev['gear']} vs {alt['gear']} for {ev['car']}, "
        f"round {state.round}; {n} playouts each way)",
        ["car", "difference", "with CRN", "independent", "saved"],
        rows,
    )


if __name__ == "__main__":
    main()
