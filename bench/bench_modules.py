"""Module races against base races, per event, in the same run (issue 32): ``python bench/bench_modules.py
[--races 6] [--rounds 5] [--bots heuristic] [--kinds base,weather]``

Each round plays the same seeds of 4-car USA races (``simulate_race``, no database) as a base race and as each
module race, the kinds taking turns (the order reversed every other round), and takes each kind's events per CPU
second. A kind's ratio in a round is its rate over the base race's rate in that round; the report gives the
median (min–max, n) of those ratios. Goals of issue 32: Garage ≥ 0.6×, weather ≥ 0.8×, Legends ≥ 0.9×.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from _common import machine, spread, table

KINDS: dict[str, dict[str, Any]] = {  # simulate_race's keywords: the modules as one mapping (issue 26, build 5)
    "base": {},
    "garage, basic upgrades": {"modules": {"garage": {"upgrades": "basic", "draft": "draft"}}},
    "garage, all upgrades": {"modules": {"garage": {"upgrades": "all", "draft": "draft"}}},
    "weather": {"modules": {"weather": {}}},
    "legends (2 of 4 cars)": {"modules": {"legends": {"cars": 2}}},
}
GOALS = {"garage, basic upgrades": 0.6, "garage, all upgrades": 0.6, "weather": 0.8, "legends (2 of 4 cars)": 0.9}


def rate(kind: dict[str, Any], races: int, first: int, bots: str) -> float:
    from heatlog.simulate import simulate_race

    events = 0
    started = time.process_time()
    for seed in range(first, first + races):
        events += len(simulate_race(None, track="usa", cars=4, seed=seed, bots=bots, **kind)[1])
    return events / (time.process_time() - started)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--races", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bots", default="heuristic", choices=("heuristic", "random"))
    ap.add_argument(
        "--kinds", default=",".join(KINDS), help="the kinds to run, comma-separated prefixes (base always runs)"
    )
    args = ap.parse_args()
    wanted = [w.strip() for w in args.kinds.split(",") if w.strip()]
    names = [n for n in KINDS if n == "base" or any(n.startswith(w) for w in wanted)]
    for name in names:
        rate(KINDS[name], 1, 10_000, args.bots)  # warm the caches (tracks, the bots' per-track values)
    rates: dict[str, list[float]] = {name: [] for name in names}
    for r in range(args.rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            rates[name].append(rate(KINDS[name], args.races, r * args.races, args.bots))
    base = rates["base"]
    rows = []
    for name in names:
        ratio = [x / b for x, b in zip(rates[name], base, strict=True)]
        goal = GOALS.get(name)
        met = "" if goal is None else ("yes" if sorted(ratio)[len(ratio) // 2] >= goal else "no")
        rows.append(
            [name, spread(rates[name], "{:,.0f}"), spread(ratio, "{:.2f}", "×"), f"≥ {goal}×" if goal else "", met]
        )
    print(machine())
    table(
        f"{args.bots} bots, {args.races} races a kind a round, events per CPU second and per-round ratio to base",
        ["race", "events/CPU s: median (min–max, n)", "vs base, same round", "goal", "met"],
        rows,
    )


if __name__ == "__main__":
    main()
