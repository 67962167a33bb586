"""The log as a file: audit, export, import."""

import contextlib
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from .common import (
    DbOpt,
    ForceOpt,
    JsonOpt,
    RaceOpt,
    app,
    creating_log,
    err_console,
    fail,
    open_log,
    out_console,
    progress_bar,
    user_errors,
)


@app.command()
@user_errors
def audit(
    race: RaceOpt = None,
    all_races: Annotated[bool, typer.Option("--all", help="Audit every race.")] = False,
    anchor_file: Annotated[
        Path | None,
        typer.Option("--anchor", help="Also check the races against anchors kept elsewhere (`heatlog anchor`)."),
    ] = None,
    as_json: JsonOpt = False,
    salvage: Annotated[
        Path | None,
        typer.Option(
            "--salvage",
            help="Write a copy of the file with heatlog's schema put back where it is damaged (the file is only "
            "read), and audit the copy.",
        ),
    ] = None,
    db: DbOpt = None,
) -> None:
    """Re-verify hash chains, schemas and rules; report every problem. Exit 0 clean, 1 problems, 2 unreadable.

    A file whose schema (sqlite_master) is damaged is examined object by object and its races are audited
    through a copy with heatlog's definitions put back (with --salvage PATH, the copy is kept there).

    Example: heatlog audit --all --json
    """
    import tempfile

    from ..engine.errors import CANT_READ, HeatlogError, StoreError
    from ..races.audit import audit_races, read_anchors, render_audit
    from .common import db_path, plain_error

    if all_races and race is not None:  # exit 2 as for any audit that could not run: 1 means problems found
        raise fail("not understood: --race is one race and --all every race: choose one", 2)
    whole: Any = None
    log: Any = None
    with tempfile.TemporaryDirectory(prefix="heatlog-salvage-") as scratch:
        try:
            anchors = read_anchors(anchor_file) if anchor_file is not None else None
            whole, log = _open_or_salvage(db_path(db), salvage, Path(scratch))
            if log is None:  # nothing of the file could be opened: its report says why
                raise StoreError(f"no race of {db_path(db)} can be read", words=CANT_READ)
            if anchors is not None and not all_races and race is None:
                anchored = {a["race"] for a in anchors if isinstance(a.get("race"), int)}
                ids = sorted(anchored & {i.id for i in log.store.races()})
            else:
                ids = [i.id for i in log.store.races()] if all_races else [log.resolve(race)]
        except HeatlogError as err:
            if whole is None:
                raise fail(plain_error(err), 2) from None
            ids = []
        with (
            contextlib.nullcontext() if log is None else log,
            progress_bar(len(ids), "auditing", quiet=as_json) as update,
        ):
            reports = audit_races(log, ids, anchors=anchors, progress=update) if log is not None else []
    if whole is not None:
        reports.insert(0, whole)
    if as_json:
        import json

        typer.echo(json.dumps([r.to_dict() for r in reports], indent=2, allow_nan=False))
    elif not reports:  # it printed nothing at all, as if it had not run
        which = "anchored " if anchors is not None and not all_races else ""
        out_console().print(f"no {which}races to audit in {db_path(db)}", markup=False)
    else:
        render_audit(out_console(), reports)
    raise typer.Exit(0 if all(r.clean for r in reports) else 1)


def _open_or_salvage(path: Path, salvage: Path | None, scratch: Path) -> tuple[Any, Any]:
    """(report of the file's schema or None, the log to audit or None). A heatlog file SQLite cannot open
    because its schema is damaged is examined object by object and its races are read through a salvaged
    copy (kept at ``salvage`` if given, else in ``scratch``)."""
    from ..engine.errors import NOT_FOUND, StoreError
    from ..races.audit import Finding, repair_identity, schema_report
    from ..races.schema_repair import examine, looks_like_heatlog
    from ..races.schema_repair import salvage as salvaged_copy

    if salvage is None:
        try:
            return None, open_log(path)
        except StoreError as err:
            if not (looks_like_heatlog(path) and "damaged" in str(err)):
                raise
    elif not path.exists():
        raise StoreError(f"no heatlog database at {path}", words=NOT_FOUND)
    copy = salvage if salvage is not None else scratch / path.name
    try:
        objects = salvaged_copy(path, copy)
    except StoreError:
        if salvage is not None:
            raise
        return schema_report(examine(path), {}, None, False), None
    try:
        log = open_log(copy)
    except StoreError:
        identity = repair_identity(copy)  # damaged rows in meta: the copy gets heatlog's identity back
        try:
            log = open_log(copy)
        except StoreError:
            return schema_report(objects, {}, None, False), None
        report = schema_report(objects, {}, copy, salvage is not None)
        report.problems.extend(Finding(None, "meta", why) for why in identity)
        if identity and all(o.status == "ok" for o in objects):
            report.advice = (
                "heatlog refuses to open this file while its identity rows are damaged; `heatlog audit --all "
                "--salvage NEW.db` writes a copy with them put back (this file is only read) to go on with"
            )
        return report, log
    rows = {}
    for o in objects:
        if o.type == "table" and o.status != "missing":
            with contextlib.suppress(Exception):
                rows[o.name] = int(log.store.conn.execute(f'SELECT count(*) FROM "{o.name}"').fetchone()[0])
    report = schema_report(objects, rows, copy, salvage is not None)
    return (report if report.problems or salvage is not None else None), log


@app.command()
@user_errors
def export(
    race: RaceOpt = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")] = None,
    anchor: Annotated[
        bool | None,
        typer.Option(
            "--anchor/--no-anchor",
            help="--anchor: end the export with the race's anchor line (import checks it). Default: with -o FILE, "
            "the anchor is written beside it, to FILE.anchor. --no-anchor: none.",
        ),
    ] = None,
    force: ForceOpt = False,
    parquet: Annotated[
        Path | None,
        typer.Option(
            "--parquet",
            help="Write every race (or --race) as Parquet tables under this directory instead: races, car_races, "
            "turns, decisions, as `heatlog study` writes them (docs/study.md).",
        ),
    ] = None,
    db: DbOpt = None,
) -> None:
    """Export a race's log as JSON Lines (one event per line); with -o FILE, its anchor beside it (FILE.anchor).

    The export itself is the events alone (what other tools read); --anchor ends it with the anchor line instead.
    Keep the anchor somewhere else: `heatlog audit --anchor FILE.anchor` tells whether the race was cut short or
    rewritten since.

    Example: heatlog export --race 1 -o race1.jsonl;  heatlog export --parquet races-parquet
    """
    beside = anchor is None and output is not None
    if parquet is not None:
        _export_parquet(parquet, race, output, bool(anchor), force, db)
        return
    with open_log(db, force=force) as log:
        rid = log.resolve(race)
        if (anchor or beside) and force:  # an anchor vouches for the log as it stands: none for a broken chain
            from ..store import DamagedLog

            problems = log.store.verify(rid)
            if problems:
                if anchor:
                    why = DamagedLog(problems[0]).message
                    raise fail(f"race {rid}: no anchor: {why} (export it without --anchor)")
                beside = False
        text = log.store.export_jsonl(rid, anchor=bool(anchor) or beside)  # the anchor of exactly these events
        _check_export(rid, text, force)
        line = ""
        if beside:
            cut = text.rfind("\n", 0, len(text) - 1) + 1
            text, line = text[:cut], text[cut:]
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        if beside:
            kept = output.with_name(output.name + ".anchor")
            kept.write_text(line, encoding="utf-8")
            err_console().print(
                f"anchor of race {rid} written to {kept}: keep it somewhere else; heatlog audit --anchor {kept} "
                "tells later whether the race was cut short or rewritten",
                markup=False,
                soft_wrap=True,
            )


def _check_export(rid: int, text: str, force: bool) -> None:
    """What is exported is what import would take: every event's schema and the rules over the whole log (a
    log re-hashed after an edit passes the chain check, not the rules). Checked as import checks it, into a
    database in memory; refused, or with --force warned about and exported all the same."""
    from ..engine.errors import HeatlogError
    from ..log.racelog import RaceLog
    from ..races import import_race

    scratch = RaceLog(":memory:")
    try:
        import_race(scratch, text, source=f"race {rid}", strict=True)
    except HeatlogError as err:
        why = str(err).replace("; nothing imported", "").replace(", nothing imported", "")
        if not force:
            raise fail(
                f"{why}: not exported, import would refuse it (heatlog audit --race {rid} lists every problem; "
                "--force exports it anyway)"
            ) from None
        err_console().print(f"Warning: {why}: exported anyway (--force); import will refuse it", markup=False)
    finally:
        scratch.store.close()


def _export_parquet(
    directory: Path, race: int | None, output: Path | None, anchor: bool, force: bool, db: Path | None
) -> None:
    from ..engine.errors import MalformedInput
    from ..study.export import export_parquet
    from ..study.tables import require_pyarrow
    from ..views import counted

    if output is not None or anchor or force:
        raise MalformedInput("--parquet writes a directory of tables: without --output, --anchor or --force")
    require_pyarrow()
    with open_log(db) as log:
        ids = [log.resolve(race)] if race is not None else None
        total = len(ids) if ids is not None else len(log.store.races())
        with progress_bar(total, "exporting races") as update:
            done = [0]

            def advance(n: int) -> None:
                done[0] += n
                if update is not None:
                    update(done[0])

            result = export_parquet(log, directory, ids, progress=advance)
    for err in result.damaged:  # as stats --all: the others are written, each one left out is named
        err_console().print(f"Error: race {err.problem.race}: left out: {err.message}", markup=False)
    out_console().print(f"{counted(len(result.races), 'race')} written to {directory}", markup=False)
    if result.damaged:
        raise typer.Exit(1)


MAX_SHOWN_REFUSALS = 20  # an import names this many refused entries; audit names every one


@app.command(name="import")
@user_errors
def import_(
    file: Annotated[
        Path, typer.Argument(help="A JSON Lines file written by `heatlog export`, or - to read standard input.")
    ],
    name: Annotated[str | None, typer.Option(help="A name for the imported race.")] = None,
    again: Annotated[
        bool, typer.Option("--again", help="Import a log the database already holds as another race.")
    ] = False,
    db: DbOpt = None,
) -> None:
    """Import a race from JSON Lines: every line is validated and the rules checked.

    A line that is not a well-formed event refuses the whole file (nothing imported). An entry the rules of
    this version refuse (a log recorded by an earlier, more lenient version) is imported as recorded and
    withdrawn at once by a retraction that says why, so the race folds as if it was never made; each is named
    here and by `heatlog audit`. A log the database already holds (imported before, or exported from it) is
    refused, naming its race, unless --again.

    Example: heatlog import replays/usa-4cars.jsonl;  heatlog export --db a.db | heatlog import - --db b.db
    """
    from ..formats.jsonio import read_stdin, read_text_file
    from ..formats.usertext import name_problem, visible
    from ..races import Refusal, import_race

    piped = str(file) == "-"  # as heatlog add - reads its event
    source = "standard input" if piped else str(file)
    text = read_stdin(source) if piped else read_text_file(file, "import file")
    if name is None and not piped and name_problem(file.stem) is None:
        name = file.stem
    what = source if piped else file.name
    with creating_log(db) as log, progress_bar(2 * text.count("\n"), f"importing {what}") as update:
        refused: list[Refusal] = []
        rid = import_race(log, text, name=name, source=source, progress=update, again=again, refused=refused)
        err_console().print(f"imported {source} as race {rid}", markup=False)
    if refused:
        shown = refused[:MAX_SHOWN_REFUSALS]
        more = len(refused) - len(shown)
        entries = "1 entry" if len(refused) == 1 else f"{len(refused)} entries"
        err_console().print(
            f"Warning: {entries} of {source} the rules of this heatlog refuse (a log recorded by an earlier "
            "version): imported as recorded and withdrawn, each by a retraction that says why; the race is "
            f"folded without them (heatlog audit --race {rid} names them):\n  "
            + "\n  ".join(visible(str(r)) for r in shown)
            + (f"\n  … and {more} more" if more else ""),
            markup=False,
        )
    typer.echo(str(rid))
