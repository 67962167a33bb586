"""Undo at the recorder and on the command line: cost of one undo as the race grows (issues 10 and 32: flat,
not a re-read of the whole log).

``--cli`` (issue 32): ``heatlog undo``'s own work (the command function, in-process: open the database, undo,
close) on a short race (~230 events) and a long one (~6,000), taking turns, each undo followed (untimed) by
the event it took back, entered again through the door, so that both races keep their length. Also timed
alongside, as "before": the same undo done as the command did it before issue 32 (a projection of the whole
log, then ``retract_last`` through the door's whole-log check and a projection after). The ratios are
long/short per pair of the same run; they should be about 1 for a flat undo.

An open-mode race (6 cars, random bots, USA with more laps for longer logs) is stored, all but its last
answers; a recorder session on it answers, then undoes and answers again, alternating with the old way of
undoing (``RaceLog.retract_last`` and a fresh projection of the whole log, once per event taken back, as the
recorder did before). One sample is the time of ``Session.undo()`` (or the old loop) for the same answer.

    python bench/bench_undo.py [--laps 1 3 6] [--repeats 15]
    python bench/bench_undo.py --cli [--repeats 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, machine, ratios, simulated_race, spread, table

sys.path.insert(0, str(ROOT / "tests"))


def measure(laps: int, repeats: int) -> tuple[int, float, float]:
    from recorder_races import cars, explicit, strip

    from heatlog.bots import random_bot
    from heatlog.log.racelog import RaceLog
    from heatlog.races import race_started_event
    from heatlog.recorder import Session
    from heatlog.recorder import script as rs
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


def cli_undo(db: Path, rid: int) -> None:
    """What ``heatlog undo --race RID --yes`` runs once its options are parsed (its output dropped)."""
    import contextlib
    import io

    from heatlog.cli.entries import undo

    with contextlib.redirect_stdout(io.StringIO()):
        undo(reason=None, yes=True, race=rid, db=db)


def old_undo(db: Path, rid: int) -> None:
    """``heatlog undo`` before issue 32: a projection of the whole log for its question, then retract_last
    as it was (the effective log, the door's check on a projection of the whole log, a projection after)."""
    from heatlog.log.racelog import RaceLog

    with RaceLog(db, create=False) as log:
        proj = log.project(rid)
        target = proj.effective.entries[-1]
        eff = log.effective(rid)
        assert eff.entries[-1] == target
        log.append(rid, {"type": "retracted", "v": 1, "seq": target.seq})


def redo(db: Path, rid: int, event: dict[str, object]) -> None:
    from heatlog.log.racelog import RaceLog

    with RaceLog(db, create=False) as log:
        log.append(rid, event)


def measure_cli(repeats: int) -> list[list[str]]:
    from heatlog.log.racelog import RaceLog

    with tempfile.TemporaryDirectory() as tmp:
        races = {}
        for label, (track, cars, laps) in {"short": ("usa", 2, 1), "long": ("italy", 6, 5)}.items():
            events = simulated_race(track, cars, laps)
            db = Path(tmp) / f"{label}.db"
            with RaceLog(db) as log:
                rid = log.new_race(events[0])
                log.store.append_many(rid, events[1:])  # as an import: no snapshots yet
                log.project(rid, round=1)  # the round starts a recorded race has
            races[label] = (db, rid, len(events))
        times: dict[tuple[str, str], list[float]] = {(k, w): [] for k in races for w in ("now", "before")}
        for i in range(repeats + 1):
            for way, fn in (
                (("now", cli_undo), ("before", old_undo)) if i % 2 else (("before", old_undo), ("now", cli_undo))
            ):
                for label, (db, rid, _) in races.items():
                    with RaceLog(db, create=False) as log:
                        taken = log.end(rid).last.event
                    started = time.perf_counter()
                    fn(db, rid)
                    elapsed = time.perf_counter() - started
                    redo(db, rid, taken)
                    if i:  # the first round warms the caches
                        times[label, way].append(elapsed * 1000)
        rows = []
        for way in ("now", "before"):
            short, long_ = times["short", way], times["long", way]
            rows.append(
                [
                    way,
                    f"{races['short'][2]:,}",
                    spread(short, "{:.1f}"),
                    f"{races['long'][2]:,}",
                    spread(long_, "{:.1f}"),
                    spread(ratios(long_, short), "{:.2f}", "×"),
                ]
            )
        rows.append(
            [
                "before / now, long race",
                "",
                "",
                "",
                "",
                spread(ratios(times["long", "before"], times["long", "now"]), "{:.1f}", "×"),
            ]
        )
        return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--laps", type=int, nargs="+", default=[1, 3, 6])
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--cli", action="store_true", help="heatlog undo on a short and a long race (issue 32)")
    args = p.parse_args()
    if args.cli:
        print(machine())
        table(
            "heatlog undo, in-process (ms: median (min–max, n); ratio long/short per pair of the same run)",
            ["undo", "events (short)", "short race", "events (long)", "long race", "long / short"],
            measure_cli(args.repeats),
        )
        return
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
