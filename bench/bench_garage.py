"""Garage races beside base races, in the same run: ``python bench/bench_garage.py [--races 20] [--rounds 5]``

Issue 14 asks for the Garage races' events/s and races/s beside the base races'. For each round, alternating
base and Garage (basic upgrades, draft), this times on one core:

- ``random`` / ``heuristic``: whole 4-car USA races played by four bots of that kind (``simulate_race``, no
  database), in races per CPU second;
- ``replay``: ``heatlog.engine.replay`` of the random-bot logs just played, in events per CPU second.

The report gives each side's median and the Garage/base ratio per workload (the spread of the rounds shows the
noise). The engine's base-race speed against the commit before the Garage is ``bench/bench_against.py``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from heatlog.engine import replay  # noqa: E402
from heatlog.simulate import simulate_race  # noqa: E402

GARAGE = {"upgrades": "basic", "draft": "draft"}


def play(n: int, bots: str, garage: dict[str, Any] | None, first: int) -> tuple[float, list[list[dict[str, Any]]]]:
    logs = []
    modules = {"garage": garage} if garage is not None else {}
    t = time.process_time()
    for seed in range(first, first + n):
        logs.append(simulate_race(None, track="usa", cars=4, seed=seed, bots=bots, modules=modules)[1])
    return time.process_time() - t, logs


def fold(logs: list[list[dict[str, Any]]]) -> float:
    t = time.process_time()
    for events in logs:
        replay(events)
    return time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--races", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    figures: dict[tuple[str, str], list[float]] = {}
    play(2, "heuristic", None, 10_000)  # warm the caches of both sides (tracks, bots' per-track values)
    play(2, "heuristic", GARAGE, 10_000)
    for r in range(args.rounds):
        sides = [("base", None), ("garage", GARAGE)]
        for side, garage in sides if r % 2 == 0 else sides[::-1]:
            cpu, logs = play(args.races, "random", garage, r * args.races)
            figures.setdefault(("random", side), []).append(args.races / cpu)
            events = sum(len(e) for e in logs)
            figures.setdefault(("replay", side), []).append(events / fold(logs))
            cpu, _ = play(args.races, "heuristic", garage, r * args.races)
            figures.setdefault(("heuristic", side), []).append(args.races / cpu)
    print(f"{args.races} 4-car USA races per side per round, {args.rounds} rounds, alternating; CPU time")
    print(f"{'workload':<10} {'base':>12} {'garage':>12} {'garage/base':>12}  per round")
    for work, unit in (("random", "races/s"), ("heuristic", "races/s"), ("replay", "events/s")):
        b, g = figures[(work, "base")], figures[(work, "garage")]
        ratios = " ".join(f"{x / y:.2f}" for x, y in zip(g, b, strict=True))
        print(
            f"{work:<10} {statistics.median(b):>12,.0f} {statistics.median(g):>12,.0f} "
            f"{statistics.median(g) / statistics.median(b):>11.2f}x  {ratios}  ({unit})"
        )


if __name__ == "__main__":
    main()
