"""Projector: full replay of a race from the log, and jumps to a round with snapshots.

Races are simulated (open mode, random bots) and recorded through the door into a fresh database in a
temporary directory; then:

- full replay: ``RaceLog.project(race)`` with the snapshot cache emptied first, i.e. read the effective log
  from SQLite, apply retractions, fold every event through the engine. Also its parts: the read alone
  (``RaceLog.effective``) and the fold alone (``engine.replay`` of the events in memory).
  Goal (issue 3): ≥ 100,000 events/s including the read.
- jump: ``RaceLog.project(race, round=N)`` for the first, middle and last round of short and long races,
  once the per-round snapshots exist (the first jump of a race builds them: shown apart); then the same
  after an undo at the end of the race (a retraction after every snapshot, which each jump must check).
  Goal: < 10 ms, flat in race length.

Times are medians over repeated calls.

    python bench/bench_projector.py [--repeats N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _common import Event, machine, median, simulated_race, table, timed

from heatlog.engine import replay
from heatlog.log.racelog import RaceLog

RACES = [  # (label, track, cars, laps)
    ("short: USA, 2 cars, 1 lap", "usa", 2, 1),
    ("short: Italy, 6 cars, 1 lap", "italy", 6, 1),
    ("long: Italy, 6 cars, 3 laps", "italy", 6, 3),
]


def record(log: RaceLog, events: list[Event]) -> int:
    race = log.new_race(events[0])
    proj = log.project(race)
    for ev in events[1:]:
        _, proj = log.append(race, ev, proj)
    return race


def measure(log: RaceLog, label: str, events: list[Event], repeats: int) -> tuple[list[str], list[list[str]]]:
    race = record(log, events)
    n = len(events)
    rounds = log.project(race).state.round

    def full() -> None:
        log.store.clear_snapshots(race)
        log.project(race)

    full_s = median([timed(full) for _ in range(repeats)])
    read_s = median([timed(lambda: log.effective(race)) for _ in range(repeats)])
    fold_s = median([timed(lambda: replay(events)) for _ in range(repeats)])
    replay_row = [
        label,
        f"{n:,}",
        str(rounds),
        f"{n / full_s:,.0f}",
        f"{full_s * 1e3:.1f}",
        f"{read_s * 1e3:.1f}",
        f"{fold_s * 1e3:.1f}",
    ]

    jump_rows = []
    log.store.clear_snapshots(race)
    first = timed(lambda: log.project(race, round=1))  # folds the race once, caching every round
    for rnd in sorted({1, (rounds + 1) // 2, rounds}):
        jumped = log.project(race, round=rnd)  # not timed: the jump lands where it should
        assert jumped.state.round == rnd, (jumped.state.round, rnd)
        times = [timed(lambda r=rnd: log.project(race, round=r)) for _ in range(repeats)]
        jump_rows.append(
            [
                label,
                f"{n:,}",
                f"{rnd} of {rounds}",
                f"{median(times) * 1e3:.2f}",
                f"{max(times) * 1e3:.2f}",
                f"{first * 1e3:.1f}" if rnd == 1 else "",
            ]
        )
    # the same jumps once the race has a correction at its end (the undo of a note): the retraction is after
    # every snapshot, so each jump also reads the events after its snapshot, to check what the undo withdrew
    _, proj = log.append(race, {"type": "note", "v": 1, "text": "a slip"})
    log.retract_last(race, "the note was a slip")
    log.project(race, round=1)
    for rnd in sorted({1, (rounds + 1) // 2, rounds}):
        times = [timed(lambda r=rnd: log.project(race, round=r)) for _ in range(repeats)]
        jump_rows.append(
            [
                label + ", with an undo at the end",
                f"{n + 2:,}",
                f"{rnd} of {rounds}",
                f"{median(times) * 1e3:.2f}",
                f"{max(times) * 1e3:.2f}",
                "",
            ]
        )
    return replay_row, jump_rows


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30, help="calls per measurement (median)")
    args = parser.parse_args()

    replay_rows: list[list[str]] = []
    jump_rows: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="heatlog-bench-") as tmp, RaceLog(Path(tmp) / "bench.db") as log:
        for label, track, cars, laps in RACES:
            replay_row, rows = measure(log, label, simulated_race(track, cars, laps, seed=1), args.repeats)
            replay_rows.append(replay_row)
            jump_rows.extend(rows)

    table(
        f"full replay: RaceLog.project(race), snapshot cache emptied first; median of {args.repeats} ({machine()})",
        ["race", "events", "rounds", "events/s", "total ms", "read ms (effective)", "fold ms (engine)"],
        replay_rows,
    )
    table(
        f"jump to round N: RaceLog.project(race, round=N) with snapshots; median of {args.repeats}",
        ["race", "events", "round", "median ms", "max ms", "first jump ms (builds the cache)"],
        jump_rows,
    )
    print("\ngoals: full replay ≥ 100,000 events/s including the read; jump < 10 ms, flat in race length")


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"({time.perf_counter() - started:.1f} s)")
