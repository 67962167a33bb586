"""The main job on the default database: load the bundled sample races, audit them, replay one.

``heatlog demo`` fills the database (``./heatlog.db`` unless ``--db``/``HEATLOG_DB``) with the sample races
shipped in ``replays/`` the first time, then audits every race and prints the last round of the USA race
and its HTML replay — what a new user wants to see first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..log.racelog import RaceLog
from ..races import import_race

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "replays"
#: The base game's samples first, in this order (race 1 is the USA race the demo replays); the module races after
#: them, by name (the demo names no module).
ORDER = (
    "usa-4cars.jsonl",
    "usa-4cars-table.jsonl",
    "italy-6cars.jsonl",
    "learning-2cars.jsonl",
)


def sample_files() -> list[Path]:
    files = sorted(SAMPLES.glob("*.jsonl"), key=lambda p: (ORDER.index(p.name) if p.name in ORDER else 99, p.name))
    return files


def load_samples(log: RaceLog) -> list[int]:
    """Import the sample races unless the database already holds races; returns the race ids imported."""
    if log.store.races():
        return []
    return [import_race(log, f.read_text(encoding="utf-8"), name=f.stem, source=f.name) for f in sample_files()]


def run_demo(log: RaceLog, console: Any, html: Path | None) -> bool:
    """Audit every race, print the USA race's last round; returns True when every race audits clean."""
    from ..races.audit import audit_races, render_audit
    from .replay import load_replay
    from .stepper import print_rounds

    imported = load_samples(log)
    if imported:
        console.print(f"loaded {len(imported)} sample races into {log.path}", markup=False)
    infos = log.store.races()
    reports = audit_races(log, [i.id for i in infos])
    render_audit(console, reports)
    first = next((i.id for i in infos if i.name == "usa-4cars"), infos[0].id)
    rp = load_replay(log, first)
    console.rule(f"race {first}: the last round", style="dim")
    print_rounds(console, rp, round=rp.last if rp.rounds else None)  # (a race not started says so)
    if html is not None:
        from .replay_html import write_html

        write_html(rp, html)
        console.print(f"\nthe whole race, round by round, as a page: {html}", markup=False)
    # one command a line, each under 80 columns: wrapped, "heatlog --help" was cut in two at 80 columns
    console.print("next:", markup=False, highlight=False)
    commands = [(command.format(race=first), what) for command, what in NEXT_STEPS]
    wide = max(len(command) for command, _ in commands)
    for command, what in commands:
        console.print(f"  {command.ljust(wide)}   {what}", markup=False, highlight=False)
    return all(r.clean for r in reports)


#: What the demo suggests next, (command, what it does), one a line under 80 columns ({race}: the race replayed).
NEXT_STEPS = (
    ("heatlog replay --race {race}", "step through this race (n next, m more, q quit)"),
    ("heatlog races", "the races in the database"),
    ("heatlog record --new", "record your own race at the table"),
    ("heatlog --help", "every command"),
)
