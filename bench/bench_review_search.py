"""What the review's search evaluator costs (issue 28, item 2): ``review --evaluator search`` against the default
(the heuristic bot plays every car on), alternating in one run, in one process (``--workers 1``: CPU seconds).

1. **Playouts per second**: the same playouts of one decision's options (``replays/usa-4cars.jsonl``, Red's
   gear in round 5, 4 cars; and Red's first gear of ``replays/learning-2cars.jsonl``, 2 cars), ``--n`` per
   option, each evaluator ``--repeat`` times, alternating; CPU seconds of this process (less sensitive to the
   load than the wall clock) and the same-run ratio.
2. **A whole decision**: the usa-4cars decision reviewed with the default settings (screening, play-out until
   the label settles), each evaluator once per repeat, alternating: wall and CPU seconds, playouts, the verdict.

    python bench/bench_review_search.py [--n 32] [--repeat 3] [--whole 1] [--search-rounds 1]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import replace
from typing import Any

from _common import ROOT, machine, median, table

from heatlog.review import Settings, review_race
from heatlog.review.evaluate import infoset_for, make_runner, sides_for
from heatlog.review.points import decision_points

DECISIONS = (("usa-4cars", "Red", 5), ("learning-2cars", None, 2))


def _events(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (ROOT / "replays" / f"{name}.jsonl").read_text().splitlines()]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=32, help="playouts per option in the playouts/s figure")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--whole", type=int, default=1, help="whole-decision reviews per evaluator (0: none)")
    ap.add_argument("--search-rounds", type=int, default=1)
    args = ap.parse_args()
    print(f"{machine()}; load average {os.getloadavg()[0]:.1f} at the start")
    rows: list[list[str]] = []
    for name, car, rnd in DECISIONS:
        events = _events(name)
        car = car or str(events[0]["cars"][0]["name"])
        point = next(p for p in decision_points(events, car, rounds={rnd}) if p.kind == "gear")
        info = infoset_for(point.known(events), car)
        sides = sides_for(point, info)
        cpu: dict[str, list[float]] = {"bots": [], "search": []}
        for _ in range(args.repeat):
            for evaluator in ("bots", "search"):
                run = make_runner(None, car, "heuristic", 1, evaluator=evaluator, search_rounds=args.search_rounds)
                t = time.process_time()
                run(args.n, 1, sides)
                cpu[evaluator].append(time.process_time() - t)
        n = args.n * len(sides)
        b, s = median(cpu["bots"]), median(cpu["search"])
        rows.append(
            [
                f"{name} {car} round {rnd} gear ({len(sides)} options × {args.n})",
                f"{n / b:.1f}",
                f"{n / s:.1f}",
                f"{s / b:.1f}× ({', '.join(f'{y / x:.1f}' for x, y in zip(cpu['bots'], cpu['search'], strict=True))})",
            ]
        )
    table(
        f"playouts per CPU second, one process, search_rounds {args.search_rounds} (median of {args.repeat}, "
        "alternating)",
        ["decision", "bots (heuristic)", "search", "search / bots CPU (each repeat)"],
        rows,
    )
    if args.whole < 1:
        return
    events = _events("usa-4cars")
    whole: list[list[str]] = []
    for k in range(args.whole):
        for evaluator in ("bots", "search"):
            settings = replace(Settings(seed=k), evaluator=evaluator, search_rounds=args.search_rounds)
            t, c = time.perf_counter(), time.process_time()
            review = review_race(events, ["Red"], settings=settings, rounds={5}, only=lambda p: p.kind == "gear")
            wall, cpu_s = time.perf_counter() - t, time.process_time() - c
            (p,) = review.car("Red").points
            whole.append(
                [
                    f"{evaluator} (seed {k})",
                    f"{wall:.1f}",
                    f"{cpu_s:.1f}",
                    f"{p.playouts}",
                    f"{p.taken.words} {p.taken.mean_place:.2f} ±{p.taken.place_half:.2f}; best {p.best.words} "
                    f"{p.best.mean_place:.2f}; {p.label or 'no label'}",
                ]
            )
    table(
        "a whole decision (usa-4cars, Red's gear in round 5), default settings, one process",
        ["evaluator", "wall s", "CPU s", "playouts", "verdict"],
        whole,
    )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
