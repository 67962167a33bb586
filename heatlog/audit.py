"""Audit: re-verify a race's hash chain, every event's schema and the whole race against the rules.

Reports every problem found, not just the first (a rules check stops at the first illegal event, since the
state after it is undefined; it is reported with its sequence number).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .engine import apply
from .engine.errors import HeatlogError
from .racelog import RaceLog, effective_log
from .usertext import visible
from .validation import event_errors
from .views import counted


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
    #: The file's report only, when its schema was damaged: every object of the schema and its state
    #: (heatlog.schema_repair.SchemaObject as dicts), and what the user can do.
    objects: list[dict[str, Any]] = field(default_factory=list)
    advice: str = ""

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
            **({"objects": self.objects, "advice": self.advice} if self.objects or self.advice else {}),
        }


def audit_race(log: RaceLog, race: int, anchors: list[dict[str, Any]] | None = None) -> AuditReport:
    """Every problem of one race: hash chain, rows that do not decode, schemas, rules, anchors. A damaged row
    is reported and the audit goes on; the rules check stops at the first event it cannot fold."""
    try:
        info = log.store.race(race)
    except HeatlogError as err:
        report = AuditReport(race, None)
        report.problems.append(Finding(None, "store", str(err)))
        return report
    report = AuditReport(race, info.name)
    try:
        _audit_into(log, race, report, anchors or [])
    except HeatlogError as err:  # the file itself failed under us: report it, go on to the next race
        report.problems.append(Finding(None, "store", str(err)))
    return report


def _audit_into(log: RaceLog, race: int, report: AuditReport, anchors: list[dict[str, Any]]) -> None:
    found, rows = log.store.verify_read(race)  # one pass: each row read and decoded once
    for p in found:
        report.problems.append(Finding(p.seq, p.kind, str(p)))
    for a in anchors:
        if a.get("race") == race:
            for p in log.store.check_anchor(a):
                report.problems.append(Finding(p.seq, p.kind, str(p)))
    report.events = len(rows)
    stored: list[tuple[int, dict[str, Any]]] = []
    unreadable: int | None = None
    for seq, event in rows:
        if event is None:
            unreadable = seq if unreadable is None else unreadable
            continue
        if unreadable is None:
            stored.append((seq, event))
        for problem in event_errors(event):
            report.problems.append(Finding(seq, "schema", f"event {seq}: {problem}"))
        if event.get("type") == "note":
            report.notes.append({"seq": seq, **{k: v for k, v in event.items() if k not in ("type", "v")}})
    if unreadable is not None:
        report.problems.append(
            Finding(unreadable, "rules", f"event {unreadable} cannot be read: the rules were checked up to it")
        )
    try:
        eff = effective_log(stored)
    except HeatlogError as err:
        report.problems.append(Finding(None, "rules", str(err)))
        return
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


def audit_file(log: RaceLog) -> AuditReport | None:
    """Problems of the file as a whole (reported as race 0): SQLite's quick_check, append-only guards gone."""
    report = AuditReport(0, "(the database file)")
    for line in log.store.quick_check():
        report.problems.append(Finding(None, "integrity", f"sqlite integrity check: {line}"))
    for name in log.store.missing_guards():
        report.problems.append(
            Finding(None, "guard", f"append-only trigger {name} is missing or changed: the file was altered")
        )
    return report if report.problems else None


def audit_races(
    log: RaceLog,
    races: list[int],
    *,
    anchors: list[dict[str, Any]] | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[AuditReport]:
    """The file's report (if it has problems), then one report per race; ``progress(n)`` after each race."""
    reports: list[AuditReport] = []
    try:
        whole = audit_file(log)
    except HeatlogError as err:
        whole = AuditReport(0, "(the database file)", problems=[Finding(None, "store", str(err))])
    if whole is not None:
        reports.append(whole)
    known = set(races)
    for a in anchors or []:
        if isinstance(a.get("race"), int) and a["race"] not in known:
            try:
                log.store.race(a["race"])
            except HeatlogError:
                gone = AuditReport(a["race"], None)
                gone.problems.append(Finding(None, "anchor", f"race {a['race']} of the anchor is not in the file"))
                reports.append(gone)
    for i, r in enumerate(races, start=1):
        reports.append(audit_race(log, r, anchors))
        if progress is not None:
            progress(i)
    return reports


def schema_report(objects: list[Any], rows: dict[str, int], copy: Path | None, kept: bool) -> AuditReport:
    """The file's report when SQLite cannot open it as it is because its schema (sqlite_master) is damaged:
    one problem per damaged, missing or unknown object, saying what survives of it; ``rows`` counts the rows
    of each table in the salvaged ``copy`` (None: no copy could be made)."""
    report = AuditReport(0, "(the database file)")
    report.objects = [{"type": o.type, "name": o.name, "status": o.status, "detail": o.detail} for o in objects]
    for o in objects:
        if o.status == "ok":
            continue
        what = f"{o.type} {o.name}: {o.status}: {o.detail}"
        if copy is None:
            fate = "nothing could be read past it"
        elif o.status == "damaged" and o.type == "table":
            survived = rows.get(o.name, 0)
            survive = "survives" if survived == 1 else "survive"
            fate = f"its {counted(survived, 'row')} {survive}: read below through a copy with heatlog's definition"
        elif o.status == "damaged" and o.type == "index":
            fate = "an index holds no facts: rebuilt in the copy"
        elif o.status == "damaged":
            fate = "put back as heatlog writes it in the copy"
        elif o.status == "missing" and o.type == "trigger":
            fate = "an append-only guard: heatlog adds it again when it opens the copy"
        else:
            fate = "left as it is"
        report.problems.append(Finding(None, "sqlite_master", f"{what}; {fate}"))
    intact = sum(1 for o in objects if o.status == "ok")
    if copy is None:
        report.advice = "restore the file from a backup: SQLite cannot read its schema even object by object"
    elif kept:
        report.advice = (
            f"the salvaged copy is {copy} (this file was only read): check it with "
            f"`heatlog audit --all --db {copy}` and go on with --db {copy}; keep this file until the copy is "
            "checked"
        )
    else:
        report.advice = (
            f"{intact} of the schema's {len(objects)} objects are intact. SQLite cannot open this file as it "
            "is; `heatlog audit --all --salvage NEW.db` writes a copy with heatlog's definitions put back "
            "(this file is only read) to go on with (--db NEW.db), or restore the file from a backup"
        )
    return report


def read_anchors(path: Any) -> list[dict[str, Any]]:
    """The anchors in a file written by ``heatlog anchor`` (JSON lines; other lines are refused)."""
    from .engine.errors import MalformedInput
    from .jsonio import MAX_SMALL_BYTES, json_lines, loads, read_text_file

    out: list[dict[str, Any]] = []
    for number, line in json_lines(read_text_file(path, "anchor file", limit=MAX_SMALL_BYTES)):
        if not line.strip():
            continue
        value = loads(line, f"anchor file {path}: line {number}")
        if not isinstance(value, dict) or "heatlog_anchor" not in value:
            raise MalformedInput(f"anchor file {path}: line {number}: not an anchor line (heatlog anchor writes them)")
        out.append(value)
    return out


def render_audit(console: Any, reports: list[AuditReport]) -> None:
    for r in reports:
        title = f"race {r.race}" + (f" ({r.name})" if r.name else "")
        status = "clean" if r.clean else counted(len(r.problems), "problem")
        console.print(
            f"{title}: {counted(r.events, 'event')}, {counted(r.rounds, 'round')}"
            f"{', finished' if r.finished else ''}: {status}",
            markup=False,
        )
        for p in r.problems:
            console.print(f"  PROBLEM {p.kind}: {p.message}", markup=False)
        if r.objects:
            intact = [o["name"] for o in r.objects if o["status"] == "ok"]
            shown = f"{counted(len(intact), 'object')} of the schema: {', '.join(intact)}"
            console.print(f"  intact: {shown}", markup=False)
        if r.advice:
            console.print(f"  what you can do: {r.advice}", markup=False)
        for x in r.retractions:
            why = f" ({visible(x['reason'])})" if x.get("reason") else ""  # a line break shown, not taken
            console.print(
                f"  retraction: event {x['seq']} withdraws event {x['retracts']} ({x['type']}){why}", markup=False
            )
        for n in r.notes:
            text = visible(n.get("text"))  # a line break in a note shown as \\n: it could print a fake audit line
            console.print(f"  note at event {n['seq']} (round {n.get('round', '?')}): {text}", markup=False)
