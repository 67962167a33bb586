"""Module races against base races, per event, by instructions (issue 32): ``python bench/count_modules.py
[--kinds base,garage,weather,legends] [--first 4] [--races 8]``

The load-independent twin of ``bench/bench_modules.py``: each kind runs in a child process of its own under
``valgrind --tool=callgrind --collect-atstart=no --toggle-collect=functools_reduce`` with ``PYTHONHASHSEED=0``
and ``setarch -R`` (no address randomisation), so only the measured races are counted. The child imports the
simulator, plays a warm-up base race and a warm-up race of its kind (seed 10,000), races ``0 … first-1`` of its
kind uncounted (the bench's first round), then races ``first … first+races-1`` inside one ``functools.reduce``
call — the only call of it while the races run, so the counted instructions are those races' alone (no start-up,
no exit). Races as ``bench_modules.py`` plays them: 4-car USA, heuristic bots, ``simulate_race(None, …)``.

It prints, per kind, the instructions, the events, the instructions an event and the ratio of a base event to it
(the kind's event rate against a base race's, the figure issue 32's goals are stated in: Garage ≥ 0.6, weather
≥ 0.8, Legends ≥ 0.9). Two runs of the same tree agree to ~0.02 %. The kinds run one after another (one to three
minutes each with the defaults, by the machine's load); base always runs. Needs ``valgrind`` and ``setarch``.

``python bench/count_modules.py --child KIND`` runs one kind without valgrind (what the parent starts under it).
"""

from __future__ import annotations

import argparse
import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import machine, table
from bench_modules import GOALS, KINDS


def _child(name: str, bots: str, first: int, races: int) -> None:
    from heatlog.simulate import simulate_race

    kind = KINDS[name]

    def play(seed: int, kwargs: dict[str, Any]) -> int:
        return len(simulate_race(None, track="usa", cars=4, seed=seed, bots=bots, **kwargs)[1])

    play(10_000, KINDS["base"])
    play(10_000, kind)
    for seed in range(first):
        play(seed, kind)
    events = functools.reduce(lambda n, seed: n + play(seed, kind), range(first, first + races), 0)
    print(events)


def _count(name: str, bots: str, first: int, races: int) -> tuple[int, int]:
    """(instructions, events) of the measured races of one kind, counted by callgrind in a child process."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        cmd = [
            "setarch",
            "-R",
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=no",
            "--toggle-collect=functools_reduce",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--child",
            name,
            "--bots",
            bots,
            "--first",
            str(first),
            "--races",
            str(races),
        ]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        events = int(done.stdout.split()[-1])
        totals = [line for line in out.read_text().splitlines() if line.startswith(("totals:", "summary:"))]
        return int(totals[0].split()[1]), events


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated prefixes of the kinds (base always runs)")
    ap.add_argument("--bots", default="heuristic", choices=("heuristic", "random"))
    ap.add_argument("--first", type=int, default=4, help="races played uncounted before the counted ones")
    ap.add_argument("--races", type=int, default=8, help="races counted")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child, args.bots, args.first, args.races)
        return
    wanted = [w.strip() for w in args.kinds.split(",") if w.strip()]
    names = [n for n in KINDS if n == "base" or any(n.startswith(w) for w in wanted)]
    counts = {name: _count(name, args.bots, args.first, args.races) for name in names}
    base = counts["base"][0] / counts["base"][1]
    rows = []
    for name, (instructions, events) in counts.items():
        per = instructions / events
        goal = GOALS.get(name)
        met = "" if goal is None else ("yes" if base / per >= goal else "no")
        rows.append(
            [
                name,
                f"{instructions:,}",
                f"{events:,}",
                f"{per / 1000:,.1f} k",
                f"{base / per:.3f}",
                f"≥ {goal}" if goal else "",
                met,
            ]
        )
    print(machine())
    table(
        f"{args.bots} bots, races {args.first}–{args.first + args.races - 1} of each kind counted by callgrind "
        "(PYTHONHASHSEED=0, setarch -R)",
        ["race", "instructions", "events", "an event", "base / kind", "goal", "met"],
        rows,
    )


if __name__ == "__main__":
    main()
