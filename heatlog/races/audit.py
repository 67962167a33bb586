"""Audit: re-verify a race's hash chain, every event's schema and the whole race against the rules.

Reports every problem found, not just the first (a rules check stops at the first illegal event, since the
state after it is undefined; it is reported with its sequence number).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import RULES_VERSION
from ..engine import apply, state_to_position
from ..engine.errors import HeatlogError
from ..formats.usertext import visible
from ..formats.validation import event_errors
from ..formats.words import counted
from ..log.racelog import RaceLog, effective_log
from ..store import STREAMS


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
    #: (heatlog.races.schema_repair.SchemaObject as dicts), and what the user can do.
    objects: list[dict[str, Any]] = field(default_factory=list)
    advice: str = ""
    #: The file's report only: integrity problems located in a race (also reported in that race's report).
    located: dict[int, list[Finding]] = field(default_factory=dict)

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


def audit_race(
    log: RaceLog,
    race: int,
    anchors: list[dict[str, Any]] | None = None,
    labels: dict[int, list[str]] | None = None,
    summaries: dict[int, tuple[int, dict[str, Any]]] | None = None,
) -> AuditReport:
    """Every problem of one race: hash chain, rows that do not decode, schemas, rules, anchors, caches. A damaged
    row is reported and the audit goes on; the rules check stops at the first event it cannot fold. ``labels``:
    ``EventStore.label_problems()`` and ``summaries`` ``EventStore.race_summaries(RULES_VERSION)`` when the
    caller audits many races (each read once)."""
    try:
        info = log.store.race(race)
    except HeatlogError as err:
        report = AuditReport(race, None)
        report.problems.append(Finding(None, "store", str(err)))
        return report
    report = AuditReport(race, info.name)
    try:
        for why in (log.store.label_problems() if labels is None else labels).get(race, []):
            report.problems.append(Finding(None, "label", f"race {race}: {why} (a label, outside the chain)"))
        _audit_into(log, race, report, anchors or [], summaries)
    except HeatlogError as err:  # the file itself failed under us: report it, go on to the next race
        report.problems.append(Finding(None, "store", str(err)))
    except Exception as err:  # noqa: BLE001 - damage nobody foresaw: reported as such, the audit goes on
        what = f"{type(err).__name__}: {err}".encode("ascii", "backslashreplace").decode()
        report.problems.append(Finding(None, "store", f"race {race} could not be audited past this: {what}"))
    return report


def _audit_into(
    log: RaceLog,
    race: int,
    report: AuditReport,
    anchors: list[dict[str, Any]],
    summaries: dict[int, tuple[int, dict[str, Any]]] | None = None,
) -> None:
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
    by_seq = dict(stored) if eff.retractions else {}
    for r in eff.retractions:
        refused = by_seq.get(r.seq, {}).get("refused")  # withdrawn by import: the rules refuse it (races.import_race)
        report.retractions.append(
            {
                "seq": r.seq,
                "retracts": r.target,
                "type": r.target_event.get("type"),
                "reason": r.reason,
                **({"refused": refused} if isinstance(refused, str) else {}),
            }
        )
    snapshots = _snapshot_rows(log, race)
    folded: dict[int, Any] = {}
    state = None
    broken = unreadable is not None
    for entry in eff.entries:
        try:
            state = apply(state, entry.event, atomic=False)
        except HeatlogError as err:
            report.problems.append(Finding(entry.seq, "rules", f"event {entry.seq}: {err}"))
            broken = True
            break
        if entry.seq in snapshots:
            folded[entry.seq] = state_to_position(state)
    if state is not None:
        report.rounds = state.round
        report.finished = state.phase == "over"
    if not broken and not report.problems:  # caches are compared with a log that reads whole
        if summaries is None:
            summaries = log.store.race_summaries(RULES_VERSION)
        _audit_caches(log, race, report, state, snapshots, folded, summaries)


def _snapshot_rows(log: RaceLog, race: int) -> dict[int, list[tuple[int, str, str]]]:
    """seq -> [(round, hash it names, state text)] of the race's snapshots under these rules."""
    out: dict[int, list[tuple[int, str, str]]] = {}
    try:
        rows = log.store.conn.execute(
            "SELECT round, seq, state FROM snapshots WHERE race = ? AND rules_version = ?", (race, RULES_VERSION)
        ).fetchall()
    except sqlite3.Error:
        return out
    for rnd, seq, text in rows:
        if isinstance(text, str) and text.startswith('{"at":"') and isinstance(seq, int):
            out.setdefault(seq, []).append((int(rnd), text[7:71], text[155:-1]))
    return out


def _audit_caches(
    log: RaceLog,
    race: int,
    report: AuditReport,
    state: Any,
    snapshots: dict[int, list[tuple[int, str, str]]],
    folded: dict[int, Any],
    summaries: dict[int, tuple[int, dict[str, Any]]],
) -> None:
    """Refold what the caches hold for the log as it stands, and report what the log does not say: the race
    list's summary, every snapshot taken at an event that still has its hash, the stats facts. Stale rows (made
    from a shorter or other log) are no problem: they are never served."""
    import json

    from ..log.racelist import summary_of
    from ..stats.derived import cache_mismatches
    from ..store import canonical

    length, head = log.store.tail(race)
    row = summaries.get(race)
    made_here = row is not None and row[0] == length and isinstance(row[1], dict) and row[1].get("head") == head
    if made_here and state is not None and row is not None and row[1].get("summary") != summary_of(state):
        why = f"race {race}: the race list's cache (race_summaries) says what the log does not"
        report.problems.append(Finding(None, "cache", why))
    for seq, snaps in sorted(snapshots.items()):
        for rnd, at, body in snaps:
            if log.store.hash_at(race, seq) != at or seq not in folded:
                continue  # stale: never served
            try:
                held = json.loads(body)
            except ValueError:
                held = None
            if held != json.loads(canonical(folded[seq])):
                why = f"race {race}: the snapshot of round {rnd} (at event {seq}) is not the log's state"
                report.problems.append(Finding(seq, "cache", why))
    try:
        for why in cache_mismatches(log, race):
            report.problems.append(Finding(None, "cache", f"race {race}: {why}"))
    except HeatlogError as err:
        report.problems.append(Finding(None, "cache", f"race {race}: the stats cache could not be checked: {err}"))


def audit_file(log: RaceLog) -> AuditReport | None:
    """Problems of the file as a whole (reported as race 0): SQLite's integrity_check (each line located where
    it can be: the table or index that owns the page, the race and event of the row), append-only guards gone."""
    report = AuditReport(0, "(the database file)")
    for line in log.store.integrity_check():
        text, race, seq = _located(log, line)
        report.problems.append(Finding(None, "integrity", f"sqlite integrity check: {text}"))
        if race is not None:
            report.located.setdefault(race, []).append(
                Finding(seq, "integrity", f"race {race}, event {seq}: the file's index misses it: {text}")
            )
    for name in log.store.missing_guards():
        report.problems.append(
            Finding(None, "guard", f"append-only trigger {name} is missing or changed: the file was altered")
        )
    for kind in STREAMS.values():  # the other streams (the seasons): the races' guarantees, from the store
        for name in log.store.missing_stream_guards(kind):
            why = f"append-only trigger {name} of the {kind.owners} is missing: the file was altered"
            report.problems.append(Finding(None, "guard", why))
        for owner in log.store.hidden_streams(kind):
            why = f"{kind.word} {owner} has no row in {kind.owners} (deleted: the {kind.word} was hidden)"
            report.problems.append(Finding(None, kind.word, why))
    return report if report.problems else None


_PAGE = re.compile(r"[Pp]age (\d+)")
_ROW = re.compile(r"^row (\d+) missing from index (\S+)")


def _located(log: RaceLog, line: str) -> tuple[str, int | None, int | None]:
    """An integrity_check line with where it is: the object owning a page it names (SQLite's ``dbstat``), the
    race and event of an events row missing from an index (and that race and event)."""
    conn = log.store.conn
    where = ""
    race: int | None = None
    seq: int | None = None
    try:
        row = _ROW.match(line)
        if row is not None and row.group(2) == "sqlite_autoindex_events_1":
            found = conn.execute(
                "SELECT race, seq FROM events NOT INDEXED WHERE rowid = ?", (int(row.group(1)),)
            ).fetchone()
            if found is not None:
                race, seq = int(found[0]), int(found[1])
                where = f"race {race}, event {seq}"
        else:
            page = _PAGE.search(line)
            if page is not None:
                owner = conn.execute("SELECT name FROM dbstat WHERE pageno = ?", (int(page.group(1)),)).fetchone()
                if owner is not None:
                    where = f"page {page.group(1)} belongs to {owner[0]}"
    except (sqlite3.Error, ValueError, OverflowError):
        where = ""
    text = line.replace("\n", " ").replace("*** in database main *** ", "")
    return (f"{text} ({where})" if where else text), race, seq


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
    for a in anchors or []:
        kind = next((k for k in STREAMS.values() if k.word in a), None)
        if kind is not None and "race" not in a:
            problems = log.store.check_stream_anchor(kind, a)
            if problems:
                report = AuditReport(0, f"({kind.word} {a.get(kind.word)})")
                report.problems.extend(Finding(None, "anchor", p) for p in problems)
                reports.append(report)
    located = whole.located if whole is not None else {}
    try:
        labels = log.store.label_problems() if races else {}
        summaries = log.store.race_summaries(RULES_VERSION) if races else {}
    except HeatlogError:
        labels, summaries = {}, {}
    for i, r in enumerate(races, start=1):
        reports.append(audit_race(log, r, anchors, labels, summaries))
        reports[-1].problems[:0] = located.get(r, [])
        if progress is not None:
            progress(i)
    return reports


def repair_identity(copy: Path) -> list[str]:
    """Put back the file identity rows of ``meta`` (``application``, ``format_version``) in a salvaged **copy**
    whose rows are damaged (the store refuses to open such a file: it may not be heatlog's), and say what was
    wrong with each. The copy only: the audited file is never written."""
    from ..store import FORMAT_VERSION

    problems: list[str] = []
    conn = sqlite3.connect(copy)
    try:
        conn.text_factory = bytes
        rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        wanted = {b"application": b"heatlog", b"format_version": str(FORMAT_VERSION).encode()}
        fixes: list[tuple[str, str]] = []
        for key, value in wanted.items():
            have = rows.get(key)
            ok = have == value if key == b"application" else _version_ok(have, FORMAT_VERSION)
            if not ok:
                shown = "missing" if have is None else repr(bytes(have))[2:-1][:40]
                problems.append(
                    f"meta {key.decode()}: {shown} instead of {value.decode()!r}: the file's identity row is "
                    "damaged; put back in the copy to read the races"
                )
                fixes.append((key.decode(), value.decode()))
        if b"created" not in rows:
            problems.append("meta created: missing: the file's identity row is damaged")
        if fixes:
            conn.execute("DROP TRIGGER IF EXISTS meta_no_update")
            conn.execute("DROP TRIGGER IF EXISTS meta_no_delete")
            conn.execute("DROP TRIGGER IF EXISTS meta_no_replace")
            for name, text in fixes:
                conn.execute("DELETE FROM meta WHERE CAST(key AS BLOB) = CAST(? AS BLOB)", (name,))
                conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (name, text))
            conn.commit()  # the store puts the guards back when it opens the copy
    except sqlite3.Error as exc:
        problems.append(f"meta cannot be read: {exc}")
    finally:
        conn.close()
    return problems


def _version_ok(have: Any, newest: int) -> bool:
    try:
        return isinstance(have, bytes) and 1 <= int(have.decode("ascii")) <= newest
    except (UnicodeDecodeError, ValueError):
        return False


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
    from ..engine.errors import MalformedInput
    from ..formats.jsonio import MAX_SMALL_BYTES, json_lines, loads, read_text_file

    out: list[dict[str, Any]] = []
    for number, line in json_lines(read_text_file(path, "anchor file", limit=MAX_SMALL_BYTES)):
        if not line.strip():
            continue
        value = loads(line, f"anchor file {path}: line {number}")
        if not isinstance(value, dict) or "heatlog_anchor" not in value:
            raise MalformedInput(f"anchor file {path}: line {number}: not an anchor line (heatlog anchor writes them)")
        out.append(value)
    if not out:  # an empty file vouches for nothing: a clean audit against it would mislead
        raise MalformedInput(f"anchor file {path}: holds no anchor (heatlog anchor writes one line per race)")
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
            if "refused" in x:  # an entry of an old log the rules refuse: imported as recorded, never folded
                console.print(
                    f"  refused entry: event {x['retracts']} ({x['type']}), withdrawn on import by event {x['seq']}: "
                    f"{visible(x['refused'])}",
                    markup=False,
                )
                continue
            why = f" ({visible(x['reason'])})" if x.get("reason") else ""  # a line break shown, not taken
            console.print(
                f"  retraction: event {x['seq']} withdraws event {x['retracts']} ({x['type']}){why}", markup=False
            )
        for n in r.notes:
            text = visible(n.get("text"))  # a line break in a note shown as \\n: it could print a fake audit line
            console.print(f"  note at event {n['seq']} (round {n.get('round', '?')}): {text}", markup=False)
