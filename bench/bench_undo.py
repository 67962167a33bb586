"""Undo at the recorder: cost of one undo as the race grows (issue 10: flat, not a re-read of the whole log).

An open-mode race (6 cars, random bots, USA with more laps for longer logs) is stored, all but its last
answers; a recorder session on it answers, then undoes and answers again, alternating with the old way of
undoing (``RaceLog.retract_last`` and a fresh projection of the whole log, once per event taken back, as the
recorder did before). One sample is the time of ``Session.undo()`` (or the old loop) for the same answer.

    python bench/bench_undo.py [--laps 1 3 6] [--repeats 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, machine, table

sys.path.insert(0, str(ROOT / "tests"))


def measure(laps: int, repeats: int) -> tuple[int, float, float]:
    from recorder_races import cars, explicit, strip

    from heatlog import recorder_script as rs
    from heatlog.bots import random_bot
    from heatlog.racelog import RaceLog
    from heatlog.races import race_started_event
    from heatlog.recorder import Session
    from heatlog.simulate.world import race_events

    started = race_started_event(track="usa", cars=cars(6), laps=laps, mode="open")
    bot = explicit(random_bot)  # decisions a host can type (see tests/recorder_races.py)
    events = list(race_events(started, {c["name"]: bot for c in cars(6)}, laps))
    with tempfile.TemporaryDirectory() as tmp:
        log = RaceLog(Path(tmp) / "race.db")
        rid = log.new_race(events[0])
        cut = len(events) - 40
        log.store.append_many(rid, events[1:cut])
        s = Session(log, rid)
        new: list[float] = []
        old: list[float] = []

        def answer_once() -> str:
            for _ in range(50):
                q = s.question
                i = len(strip([e.event for e in s.proj.effective.entries]))
                text = rs.answer(q.kind, q.car or "", events, i, typed_chance=False)
                before = s.proj.effective.length
                s.answer(text)
                if s.proj.effective.length > before:
                    return text
            raise AssertionError("no answer recorded anything")

        answer_once()
        for _ in range(repeats):
            started = time.perf_counter()
            s.undo()
            new.append(time.perf_counter() - started)
            answer_once()
            # the old undo: one retract_last (effective log + projection) per event, then a fresh projection
            n = len(s.answers) and sum(1 for e in s.proj.effective.entries if e.seq >= s.answers[-1][0])
            started = time.perf_counter()
            for _ in range(max(1, n)):
                log.retract_last(rid, "bench")
            log.project(rid)
            old.append(time.perf_counter() - started)
            s = Session(log, rid)
            answer_once()
        length = log.store.length(rid)
        log.close()
    return length, statistics.median(new) * 1000, statistics.median(old) * 1000


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--laps", type=int, nargs="+", default=[1, 3, 6])
    p.add_argument("--repeats", type=int, default=15)
    args = p.parse_args()
    rows = []
    for laps in args.laps:
        length, new, old = measure(laps, args.repeats)
        rows.append([str(laps), f"{length:,}", f"{new:.1f}", f"{old:.1f}", f"{old / new:.1f}×"])
    print(machine())
    table(
        "One undo at the recorder (median ms)",
        ["laps", "events in the log", "undo now", "undo before", "before/now"],
        rows,
    )


if __name__ == "__main__":
    main()
