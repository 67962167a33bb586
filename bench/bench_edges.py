"""Import and audit on the compiled fast path (issue 9), measured in the same run as ratios.

- ``import``: heatlog's ``import_race`` of large JSON Lines files (parse, validate, check the rules, hash and
  write durably in one transaction) against the ``eventsourcing`` library's batched save of the same events:
  ``Application.save`` of one aggregate per race holding all its events as pending events (the library's save:
  its mapper and transcoder make the stored events, its recorder writes them in one transaction). Target:
  ≥ 1.0×. This anchor gives the issue's "today 0.12×" back: heatlog's import before issue 9 (``513268e^``)
  runs at 0.09–0.12× of it, but at 0.04× of the recorder alone. The recorder alone
  (``SQLiteAggregateRecorder.insert_events`` of stored events made by ``json.dumps`` — no mapper, no
  aggregate) is printed beside it as a floor: what a save costs with nothing but an insert.
- ``audit``: ``audit_race`` (hash chain, decode, schema, rules) against compiled validation alone
  (``validate_event``, whose compiled check answers first) over the same events. Target: ≥ 0.8×. Beside it,
  jsonschema's own validators alone (one ``Draft202012Validator`` per schema, made once and reused).

Runs alternate (A B A B ...) and the best of each side is compared. ``--cpu`` times the process's CPU
(``time.process_time``) instead of the wall clock: on a machine shared with other work the wall clock of
either side swings 2-3x from run to run, its CPU much less (both sides write one durable transaction per race,
so the time they wait for the disk is left out alike). Needs the bench extra (``pip install -e '.[bench]'``).
Run: ``python bench/bench_edges.py [--races N] [--repeat K] [--cpu]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

#: The clock of every timing: the wall clock, or with --cpu the process's CPU time.
CLOCK = time.perf_counter


def simulated_races(n: int) -> list[list[dict[str, Any]]]:
    from heatlog.races import race_started_event
    from heatlog.simulate.world import race_events, random_bot

    out = []
    colours = ["red", "blue", "green", "yellow", "black", "white"]
    for seed in range(n):
        cars = [{"name": f"C{i}", "colour": colours[i]} for i in range(6)]
        start = race_started_event(track="usa", cars=cars, mode="open")
        out.append(list(race_events(start, {c["name"]: random_bot for c in cars}, 1000 + seed)))
    return out


def jsonl(events: list[dict[str, Any]]) -> str:
    from heatlog.store import canonical

    return "".join(canonical(ev).decode() + "\n" for ev in events)


def heatlog_import(texts: list[str], folder: Path) -> float:
    from heatlog.log.racelog import RaceLog
    from heatlog.races import import_race

    path = folder / f"h{time.monotonic_ns()}.db"
    with RaceLog(path) as log:
        started = CLOCK()
        for text in texts:
            import_race(log, text)
        return CLOCK() - started


def eventsourcing_save(races: list[list[dict[str, Any]]], folder: Path) -> float:
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteDatastore

    path = folder / f"es{time.monotonic_ns()}.db"
    datastore = SQLiteDatastore(str(path))
    recorder = SQLiteAggregateRecorder(datastore)
    recorder.create_table()
    started = CLOCK()
    for events in races:
        race = uuid.uuid4()
        batch = [
            StoredEvent(race, i, "heatlog:" + ev["type"], json.dumps(ev, separators=(",", ":")).encode())
            for i, ev in enumerate(events, start=1)
        ]
        recorder.insert_events(batch)
    elapsed = CLOCK() - started
    datastore.close()
    return elapsed


@functools.cache
def _race_aggregate() -> Any:
    """An eventsourcing aggregate for a race, made once (the library registers each class by its topic)."""
    from eventsourcing.domain import Aggregate

    class Race(Aggregate):  # type: ignore[misc]
        class Happened(Aggregate.Event):  # type: ignore[misc]
            payload: dict[str, Any]

        def happen(self, event: dict[str, Any]) -> None:
            self.trigger_event(self.Happened, payload=event)

    return Race


def eventsourcing_app_save(races: list[list[dict[str, Any]]], folder: Path) -> float:
    """``Application.save`` of one aggregate per race whose pending events are the race's events (made before
    the clock starts: what is timed is the save)."""
    from eventsourcing.application import Application

    Race = _race_aggregate()
    path = folder / f"app{time.monotonic_ns()}.db"
    app = Application(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)})
    aggregates = []
    for events in races:
        race = Race()
        for ev in events:
            race.happen(ev)
        aggregates.append(race)
    started = CLOCK()
    for race in aggregates:
        app.save(race)
    elapsed = CLOCK() - started
    app.close()
    return elapsed


def audit_all(path: Path, ids: list[int]) -> float:
    from heatlog.log.racelog import RaceLog
    from heatlog.races.audit import audit_race

    with RaceLog(path) as log:
        started = CLOCK()
        for rid in ids:
            assert audit_race(log, rid).clean
        return CLOCK() - started


def validate_all(races: list[list[dict[str, Any]]]) -> float:
    from heatlog.formats.validation import validate_event

    started = CLOCK()
    for events in races:
        for ev in events:
            validate_event(ev)
    return CLOCK() - started


def jsonschema_all(races: list[list[dict[str, Any]]]) -> float:
    """jsonschema alone: one ``Draft202012Validator`` per schema, made once (before the clock) and reused."""
    from heatlog.formats.schemas import catalogue, schema_path

    schemas = catalogue()
    validators = {ev["type"]: schemas.validator(schema_path(ev["type"])) for events in races for ev in events}
    started = CLOCK()
    for events in races:
        for ev in events:
            next(validators[ev["type"]].iter_errors(ev), None)
    return CLOCK() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--races", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cpu", action="store_true", help="time CPU (process_time), not the wall clock")
    args = parser.parse_args()
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time
    races = simulated_races(args.races)
    n = sum(len(r) for r in races)
    texts = [jsonl(r) for r in races]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ours, theirs, floor = [], [], []
        for _ in range(args.repeat):
            ours.append(heatlog_import(texts, folder))
            theirs.append(eventsourcing_app_save(races, folder))
            floor.append(eventsourcing_save(races, folder))
        imp_ratio = min(theirs) / min(ours)
        print(f"events: {n} in {args.races} races ({'CPU time' if args.cpu else 'wall clock'})")
        print(
            f"import: heatlog {n / min(ours):,.0f} events/s, eventsourcing Application.save {n / min(theirs):,.0f} "
            f"events/s: ratio {imp_ratio:.2f}x (target >= 1.0); its recorder alone {n / min(floor):,.0f} events/s: "
            f"ratio {min(floor) / min(ours):.2f}x"
        )
        from heatlog.log.racelog import RaceLog
        from heatlog.races import import_race

        path = folder / "audit.db"
        with RaceLog(path) as log:
            ids = [import_race(log, t) for t in texts]
        audits, checks, full = [], [], []
        for _ in range(args.repeat):
            audits.append(audit_all(path, ids))
            checks.append(validate_all(races))
            full.append(jsonschema_all(races))
        aud_ratio = min(checks) / min(audits)
        print(
            f"audit: {n / min(audits):,.0f} events/s, compiled validation alone {n / min(checks):,.0f} events/s: "
            f"ratio {aud_ratio:.2f}x (target >= 0.8); jsonschema's validators alone (made once) "
            f"{n / min(full):,.0f} events/s: ratio {min(full) / min(audits):.2f}x"
        )


if __name__ == "__main__":
    main()
