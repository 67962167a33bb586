"""Weather races against base races, counted in instructions (issue 32): ``python bench/count_weather.py [--count
weather] [--rounds 5] [--races 4]``, run under callgrind so that only the counted races are measured::

    PYTHONHASHSEED=0 setarch -R valgrind --tool=callgrind --collect-atstart=no \\
        --toggle-collect=functools_reduce --callgrind-out-file=/tmp/cw.out python bench/count_weather.py --count weather

It plays ``bench_modules.py``'s pattern — the imports, a warm-up race of each kind (seed 10,000), then ``--rounds``
rounds of ``--races`` 4-car USA races of each kind with heuristic bots (``simulate_race(None, …)``), the kinds taking
turns, the order reversed every other round — and runs the races of the ``--count`` kind inside ``functools.reduce``
calls (the others outside), so callgrind's total is those races alone. It prints how many events they hold: a kind's
instructions over its events is its cost an event; run once per kind (the same races in the same order each time).
"""

from __future__ import annotations

import argparse
import functools
from typing import Any

import _common  # noqa: F401  (this checkout first on sys.path)

KINDS: dict[str, dict[str, Any]] = {"base": {}, "weather": {"modules": {"weather": {}}}}


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--count", default="weather", choices=tuple(KINDS))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--races", type=int, default=4)
    args = ap.parse_args()
    from heatlog.simulate import simulate_race

    def race(kind: str, seed: int) -> int:
        return len(simulate_race(None, track="usa", cars=4, seed=seed, bots="heuristic", **KINDS[kind])[1])

    for kind in KINDS:  # the warm-up, outside the count
        race(kind, 10_000)
    counted = 0
    names = list(KINDS)
    for r in range(args.rounds):
        for kind in names if r % 2 == 0 else names[::-1]:
            seeds = range(r * args.races, (r + 1) * args.races)
            if kind == args.count:
                counted += functools.reduce(lambda acc, s, k=kind: acc + race(k, s), seeds, 0)
            else:
                for s in seeds:
                    race(kind, s)
    print(f"{args.count}: {counted} events counted")


if __name__ == "__main__":
    main()
