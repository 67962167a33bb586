"""Audit: re-verify a race's hash chain, every event's schema and the whole race against the rules.

Reports every problem found, not just the first (a rules check stops at the first illegal event, since the
state after it is undefined; it is reported with its sequence number).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .engine import apply
from .engine.errors import HeatlogError
from .racelog import RaceLog, effective_log
from .validation import event_errors


@dataclass
class Finding:
    seq: int | None
    kind: str  # hash, gap, chain, json, canonical, columns, stray, schema, rules, store
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "message": self.message}


@dataclass
class AuditReport:
    race: int
    name: str | None
    events: int = 0
    problems: list[Finding] = field(default_factory=list)
    retractions: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    finished: bool = False
    rounds: int = 0

    @property
    def clean(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "race": self.race,
            "name": self.name,
            "events": self.events,
            "clean": self.clean,
            "problems": [p.to_dict() for p in self.problems],
            "retractions": self.retractions,
            "notes": self.notes,
            "rounds": self.rounds,
            "finished": self.finished,
        }


def audit_race(log: RaceLog, race: int) -> AuditReport:
    info = log.store.race(race)
    report = AuditReport(race, info.name)
    for p in log.store.verify(race):
        report.problems.append(Finding(p.seq, p.kind, str(p)))
    try:
        stored = log.store.events(race)
    except HeatlogError as err:
        report.problems.append(Finding(None, "store", str(err)))
        return report
    report.events = len(stored)
    for s in stored:
        for problem in event_errors(s.event):
            report.problems.append(Finding(s.seq, "schema", f"event {s.seq}: {problem}"))
        if s.event.get("type") == "note":
            report.notes.append({"seq": s.seq, **{k: v for k, v in s.event.items() if k not in ("type", "v")}})
    try:
        eff = effective_log((s.seq, s.event) for s in stored)
    except HeatlogError as err:
        report.problems.append(Finding(None, "rules", str(err)))
        return report
    for r in eff.retractions:
        report.retractions.append(
            {"seq": r.seq, "retracts": r.target, "type": r.target_event.get("type"), "reason": r.reason}
        )
    state = None
    for entry in eff.entries:
        try:
            state = apply(state, entry.event, atomic=False)
        except HeatlogError as err:
            report.problems.append(Finding(entry.seq, "rules", f"event {entry.seq}: {err}"))
            break
    if state is not None:
        report.rounds = state.round
        report.finished = state.phase == "over"
    return report


def audit_races(log: RaceLog, races: list[int]) -> list[AuditReport]:
    return [audit_race(log, r) for r in races]


def render_audit(console: Any, reports: list[AuditReport]) -> None:
    for r in reports:
        title = f"race {r.race}" + (f" ({r.name})" if r.name else "")
        status = "clean" if r.clean else f"{len(r.problems)} problem(s)"
        console.print(
            f"{title}: {r.events} events, {r.rounds} rounds{', finished' if r.finished else ''}: {status}",
            markup=False,
        )
        for p in r.problems:
            console.print(f"  PROBLEM {p.kind}: {p.message}", markup=False)
        for x in r.retractions:
            why = f" ({x['reason']})" if x.get("reason") else ""
            console.print(
                f"  retraction: event {x['seq']} withdraws event {x['retracts']} ({x['type']}){why}", markup=False
            )
        for n in r.notes:
            console.print(f"  note at event {n['seq']} (round {n.get('round', '?')}): {n.get('text')}", markup=False)
