"""Long fuzz run of every door (issue 9): structure-aware, near-valid hostile inputs through the Python API.

Doors: ``add`` (RaceLog.append of one event), ``import`` (import_race of a JSON Lines text), ``new``
(start_race with hostile names, colours, options), ``position`` (a race from a mutated position), ``track``
(load_track_data of a mutated track file), ``note``/``branch`` (text and names). Each input ends in one of
the three allowed outcomes, and anything else is counted:

- accepted and consistent: the race still projects, replays and exports (an accepted input that makes a
  later read crash is counted as ``accepted_then_crashing``);
- refused with a HeatlogError and the database unchanged (rows, ids and payload bytes before and after; else
  ``partial_write``);
- a traceback (any other exception) or a hang (an input taking longer than 10 s) is counted as such.

Run: ``python bench/fuzz_doors.py [--n 5000] [--seed 1]``; prints one line of figures per door.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

NASTY = [
    "",
    " ",
    "[/x]",
    "[red]x[/red]",
    "\x1b[2J",
    "\x1b]0;t\x07",
    "\u2028",
    "\u2029",
    "\x85",
    "\ud800",
    "\x00",
    "</script>",
    "<!--",
    "a" * 5000,
    "Ann",
    "ann",
    "ANN",
    "undo",
    "Red",
    "red",
    "\u202e",
    "x:y",
    "a b",
    "a,b",
]
VALUES: list[Any] = [None, True, False, 0, -1, 1, 2**63, 10**40, 1.5, float("nan"), "", "x", [], {}, [[[]]], "\ud800"]


def mutate(value: Any, rnd: random.Random, depth: int = 0) -> Any:
    """A near-valid variant of a JSON value: one field changed, dropped, added, a list cut or grown."""
    if isinstance(value, dict) and value and rnd.random() < 0.8:
        out = dict(value)
        key = rnd.choice(list(out))
        r = rnd.random()
        if r < 0.15:
            del out[key]
        elif r < 0.25:
            out[rnd.choice(NASTY)] = rnd.choice(VALUES)
        else:
            out[key] = mutate(out[key], rnd, depth + 1)
        return out
    if isinstance(value, list) and value and rnd.random() < 0.8:
        out2 = list(value)
        r = rnd.random()
        i = rnd.randrange(len(out2))
        if r < 0.2:
            del out2[i]
        elif r < 0.35:
            out2.insert(i, copy.deepcopy(out2[rnd.randrange(len(out2))]))
        elif r < 0.45:
            rnd.shuffle(out2)
        else:
            out2[i] = mutate(out2[i], rnd, depth + 1)
        return out2
    if isinstance(value, str) and rnd.random() < 0.7:
        return rnd.choice(NASTY) if rnd.random() < 0.6 else value + rnd.choice(NASTY)
    if isinstance(value, int) and not isinstance(value, bool) and rnd.random() < 0.7:
        return rnd.choice([value + 1, value - 1, -value, value * 1000, 10**6, 0])
    return rnd.choice(VALUES)


def dump(path: Path) -> tuple[Any, ...]:
    """What a write would change: row counts, highest ids and total payload bytes of events, races and meta
    (a full SQL dump per input makes the run quadratic; tests/test_doors.py compares full dumps)."""
    conn = sqlite3.connect(path)
    try:
        return (
            conn.execute("SELECT count(*), max(rowid), total(length(payload)), max(seq) FROM events").fetchone(),
            conn.execute("SELECT count(*), max(id), total(length(meta)) FROM races").fetchone(),
            conn.execute("SELECT count(*), group_concat(value) FROM meta").fetchone(),
        )
    finally:
        conn.close()


class Door:
    def __init__(self, name: str) -> None:
        self.name = name
        self.counts: Counter[str] = Counter()
        self.examples: dict[str, str] = {}

    def record(self, outcome: str, example: Any) -> None:
        self.counts[outcome] += 1
        if outcome not in ("accepted", "refused") and outcome not in self.examples:
            self.examples[outcome] = repr(example)[:300]


def consistent(log: Any, race: int) -> None:
    """What a later command does with an accepted input: show, replay, export, audit."""
    from heatlog.races.audit import audit_race
    from heatlog.views.replay import load_replay

    log.project(race)
    load_replay(log, race)
    log.store.export_jsonl(race, anchor=True)
    audit_race(log, race)


def attempt(door: Door, log: Any, path: Path, fn: Callable[[], int | None], example: Any) -> None:
    from heatlog.engine.errors import HeatlogError

    before = dump(path)
    started = time.perf_counter()
    try:
        race = fn()
    except HeatlogError:
        outcome = "refused" if dump(path) == before else "partial_write"
    except Exception as exc:  # noqa: BLE001 - counting them is the point
        outcome = "traceback"
        example = (example, f"{type(exc).__name__}: {exc}")
    else:
        outcome = "accepted"
        if race is not None:
            try:
                consistent(log, race)
            except HeatlogError:
                outcome = "accepted_then_refusing"
            except Exception as exc:  # noqa: BLE001
                outcome = "accepted_then_crashing"
                example = (example, f"{type(exc).__name__}: {exc}")
    if time.perf_counter() - started > 10:
        outcome = "hang"
    door.record(outcome, example)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sys.setrecursionlimit(1000)

    from heatlog.engine import apply, state_to_position
    from heatlog.formats.jsonio import loads
    from heatlog.formats.tracks import TRACKS_DIR
    from heatlog.log.racelog import RaceLog
    from heatlog.races import import_race, race_started_event, start_race
    from heatlog.simulate.world import race_events, random_bot
    from heatlog.store import canonical

    rnd = random.Random(args.seed)
    cars = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}, {"name": "Cy", "colour": "green"}]
    events = list(
        race_events(
            race_started_event(track="usa", cars=cars, mode="open"), {c["name"]: random_bot for c in cars}, args.seed
        )
    )
    positions, state = [], None
    for ev in events:
        state = apply(state, ev, atomic=False)
        if rnd.random() < 0.05:
            positions.append(state_to_position(state))
    track = json.loads((TRACKS_DIR / "usa.json").read_text())
    tmp = Path(tempfile.mkdtemp())
    path = tmp / "fuzz.db"
    log = RaceLog(path)
    base = import_race(log, "".join(canonical(e).decode() + "\n" for e in events[:60]))
    doors = {name: Door(name) for name in ("add", "import", "new", "position", "track", "note_branch", "json")}
    started = time.perf_counter()
    for i in range(args.n):
        # add: a near-valid event at the current point of a race (or its JSON text, mutated)
        ev = mutate(rnd.choice(events[60:120]), rnd)
        attempt(doors["add"], log, path, lambda ev=ev: (log.append(base, ev), None)[1], ev)
        # import: a race's lines with some lines mutated, dropped, reordered or replaced by raw text
        lines = [canonical(e).decode() for e in events[: rnd.randrange(2, 80)]]
        for _ in range(rnd.randrange(1, 3)):
            k = rnd.randrange(len(lines))
            r = rnd.random()
            if r < 0.6:
                try:
                    lines[k] = json.dumps(mutate(json.loads(lines[k]), rnd), ensure_ascii=False)
                except (ValueError, RecursionError):  # a line an earlier mutation made deep
                    lines[k] = "[" * 5000
            elif r < 0.8:
                lines[k] = rnd.choice(["[" * 100000, "\ufeff{}", '{"type": "note"}\u2028', "\x00", lines[k][:7]])
            else:
                del lines[k]
        text = "\n".join(lines) + "\n"
        attempt(doors["import"], log, path, lambda text=text: import_race(log, text), text[:200])
        # new: hostile names, colours, options
        n_cars = rnd.randrange(1, 8)
        new_cars = [
            {"name": rnd.choice(NASTY + ["Ann", "Bob", "Cy", "Dee"]), "colour": rnd.choice(NASTY + ["red", "blue"])}
            for _ in range(n_cars)
        ]
        opts = {
            "mode": rnd.choice(["table", "open", "x"]),
            "laps": rnd.choice([None, 1, 0, 99]),
            "name": rnd.choice([None, *NASTY]),
        }
        attempt(
            doors["new"],
            log,
            path,
            lambda c=new_cars, o=opts: start_race(log, track="usa", cars=c, **o),
            (new_cars, opts),
        )
        # position: a mutated position file
        if positions:
            pos = mutate(rnd.choice(positions), rnd)
            ppath = tmp / "pos.json"
            try:
                ppath.write_text(
                    json.dumps(pos, ensure_ascii=False, allow_nan=True), encoding="utf-8", errors="surrogatepass"
                )
            except (ValueError, TypeError):
                continue
            attempt(
                doors["position"],
                log,
                path,
                lambda ppath=ppath: start_race(log, track="usa", cars=[], from_position=ppath),
                str(pos)[:200],
            )
        # track: a mutated track file used for a new race
        tpath = tmp / "track.json"
        tdata = mutate(track, rnd)
        tpath.write_text(
            json.dumps(tdata, ensure_ascii=False, allow_nan=True), encoding="utf-8", errors="surrogatepass"
        )
        attempt(
            doors["track"],
            log,
            path,
            lambda tpath=tpath: start_race(log, track=str(tpath), cars=cars[:2]),
            str(tdata)[:200],
        )
        # note and branch: hostile text and names
        note = {"type": "note", "v": 1, "text": rnd.choice(NASTY), "round": rnd.choice([0, 1, -1])}
        attempt(doors["note_branch"], log, path, lambda note=note: (log.append(base, note), None)[1], note)
        bname = rnd.choice(NASTY)
        attempt(doors["note_branch"], log, path, lambda b=bname: log.branch(base, rnd.choice([1, 2, 99]), b), bname)
        # the JSON reader itself: random and near-valid bytes
        raw = (
            rnd.choice(lines or ["[]"])
            if rnd.random() < 0.5
            else "".join(rnd.choice('[]{}",:\\u0123456789dntrue \ud800') for _ in range(rnd.randrange(1, 60)))
        )
        attempt(doors["json"], log, path, lambda raw=raw: (loads(raw), None)[1], raw)
        if i and i % 1000 == 0:
            print(f"... {i} inputs per door, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    log.close()
    print(f"fuzz: {args.n} rounds, seed {args.seed}, {time.perf_counter() - started:.0f} s")
    bad_total = 0
    for door in doors.values():
        c = door.counts
        bad = {k: v for k, v in c.items() if k not in ("accepted", "refused")}
        bad_total += sum(bad.values())
        print(
            f"{door.name:12} inputs {sum(c.values()):6}  accepted {c['accepted']:6}  refused {c['refused']:6}  "
            + "  ".join(f"{k} {v}" for k, v in sorted(bad.items()))
        )
        for k, ex in door.examples.items():
            print(f"    {k}: {ex}")
    sys.exit(1 if bad_total else 0)


if __name__ == "__main__":
    main()
