"""Recorder latency: time from an answer to the next question on screen (goal: < 50 ms, issue 5).

A long race -- USA, standard two laps, 6 cars, played by the heuristic bots -- is recorded answer by answer
through ``heatlog.recorder.Session``, exactly as the prompt loop does it, in table mode and in open mode, on a
database file on disk (WAL, synchronous=FULL: one fsync per event). One sample is:

    session.answer(text)   # parse, check on a copy, RaceLog.append (schema + rules + durable append) for
                           # every event, lease check, next question derived, determined events appended
    render the lines       # rich console into a buffer (narration, board at a round start)
    session.question       # the next prompt string

The table shows the median, 95th percentile and maximum over all answers, the same for the last fifth of
the race (latency must not grow with the log), and the time a resumed recorder needs to show its first
question (open the database, project the race, derive the question).

``--pty`` also measures the real program: ``heatlog record`` in a pseudo-terminal (pexpect), from sending
the answer to the next prompt arriving on the terminal (includes the terminal round trip and pexpect's
own polling; pexpect's default 50 ms sleep before each send is switched off).

    python bench/bench_recorder.py [--seed N] [--pty]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, machine, table

sys.path.insert(0, str(ROOT / "tests"))

Event = dict[str, Any]
GOAL_MS = 50.0


def long_race(mode: str, seed: int) -> list[Event]:
    from recorder_races import simulated

    return simulated(6, seed, mode, track="usa", bot="heuristic", variant=None)


def quantiles(xs: list[float]) -> tuple[float, float, float]:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(0.95 * len(xs)))]
    return statistics.median(xs), p95, xs[-1]


def record_in_process(expected: list[Event], mode: str, db: Path) -> tuple[list[float], float, int]:
    from recorder_races import cars, strip
    from rich.console import Console

    from heatlog.log.racelog import RaceLog
    from heatlog.races import start_race
    from heatlog.recorder import Lease, Session, show
    from heatlog.recorder import script as rs

    log = RaceLog(db)
    rid = start_race(log, track="usa", cars=cars(6), mode=mode, grid=expected[1]["order"])
    lease = Lease(log, rid)
    lease.acquire()
    session = Session(log, rid, lease=lease, fresh=True)
    console = Console(file=io.StringIO(), width=160, force_terminal=True)
    samples: list[float] = []
    while session.question.kind != "over":
        q = session.question
        i = len(strip([e.event for e in session.proj.effective.entries]))
        text = rs.answer(q.kind, q.car or "", expected, i, typed_chance=mode == "table")
        started = time.perf_counter()
        show(console, session, session.answer(text))
        _ = session.question.prompt
        samples.append(time.perf_counter() - started)
    assert strip([e.event for e in session.proj.effective.entries]) == strip(expected)
    lease.release()
    log.close()
    # a recorder restarted late in the race: open, project, first question on screen
    started = time.perf_counter()
    log = RaceLog(db, create=False)
    resumed = Session(log, rid)
    show(console, resumed, resumed.start_lines())
    _ = resumed.question.prompt
    resume = time.perf_counter() - started
    log.close()
    return samples, resume, len(expected)


def record_in_pty(expected: list[Event], mode: str, db: Path, limit: int) -> list[float]:
    import os
    import shutil

    import pexpect
    from recorder_races import cars, strip

    from heatlog.log.racelog import RaceLog
    from heatlog.races import start_race
    from heatlog.recorder import script as rs

    with RaceLog(db) as log:
        rid = start_race(log, track="usa", cars=cars(6), mode=mode, grid=expected[1]["order"])
    exe = shutil.which("heatlog")
    cmd, args = (exe, []) if exe else (sys.executable, ["-m", "heatlog.cli"])
    env = {**os.environ, "NO_COLOR": "1", "TERM": "xterm"}
    child = pexpect.spawn(cmd, [*args, "record", "--db", str(db)], env=env, encoding="utf-8", dimensions=(60, 250))
    child.delaybeforesend = None  # pexpect sleeps 50 ms before every send by default
    reader = RaceLog(db, create=False)
    samples: list[float] = []
    child.expect(rs.ANY_PROMPT)
    while len(samples) < limit:
        kind, car = rs.classify(child.after)
        i = len(strip([e.event for e in reader.effective(rid).entries]))
        text = rs.answer(kind, car, expected, i, typed_chance=mode == "table")
        started = time.perf_counter()
        child.sendline(text)
        if child.expect([rs.ANY_PROMPT, pexpect.EOF]) == 1:
            break
        samples.append(time.perf_counter() - started)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    reader.close()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--pty", action="store_true", help="also measure the real program in a pseudo-terminal")
    parser.add_argument("--pty-answers", type=int, default=300)
    opts = parser.parse_args()
    print(f"recorder latency, {machine()}; goal < {GOAL_MS:.0f} ms per answer")
    rows = []
    worst = 0.0
    with tempfile.TemporaryDirectory(dir=str(ROOT)) as tmp:
        for mode in ("table", "open"):
            expected = long_race(mode, opts.seed)
            samples, resume, n_events = record_in_process(expected, mode, Path(tmp) / f"{mode}.db")
            tail = samples[-max(1, len(samples) // 5) :]
            m, p95, mx = quantiles(samples)
            tm, tp95, tmx = quantiles(tail)
            worst = max(worst, p95)
            rows.append(
                [
                    f"Session, {mode} mode",
                    f"{len(samples)} answers / {n_events} events",
                    f"{m * 1e3:.1f}",
                    f"{p95 * 1e3:.1f}",
                    f"{mx * 1e3:.1f}",
                    f"{tm * 1e3:.1f} / {tp95 * 1e3:.1f}",
                    f"{resume * 1e3:.0f}",
                ]
            )
            if opts.pty:
                pty = record_in_pty(expected, mode, Path(tmp) / f"{mode}-pty.db", opts.pty_answers)
                m, p95, mx = quantiles(pty)
                rows.append(
                    [f"heatlog record in a pty, {mode}", f"{len(pty)} answers", f"{m * 1e3:.1f}", f"{p95 * 1e3:.1f}"]
                    + [f"{mx * 1e3:.1f}", "", ""]
                )
    table(
        f"USA, 2 laps, 6 cars (heuristic bots, seed {opts.seed}); milliseconds",
        ["what", "size", "median", "p95", "max", "last fifth: median / p95", "resume"],
        rows,
    )
    verdict = "PASS" if worst * 1e3 < GOAL_MS else "FAIL"
    print(f"\n{verdict}: worst p95 {worst * 1e3:.1f} ms against the {GOAL_MS:.0f} ms goal")


if __name__ == "__main__":
    main()
