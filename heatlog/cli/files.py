"""The log as a file: audit, export, import."""

import json
import sys
from pathlib import Path
from typing import Annotated

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
    db: DbOpt = None,
) -> None:
    """Re-verify hash chains, schemas and rules; report every problem. Exit 0 clean, 1 problems, 2 unreadable.

    Example: heatlog audit --all --json
    """
    from ..audit import audit_races, read_anchors, render_audit
    from ..engine.errors import HeatlogError

    try:
        anchors = read_anchors(anchor_file) if anchor_file is not None else None
        log = open_log(db)
        if anchors is not None and not all_races and race is None:
            anchored = {a["race"] for a in anchors if isinstance(a.get("race"), int)}
            ids = sorted(anchored & {i.id for i in log.store.races()})
        else:
            ids = [i.id for i in log.store.races()] if all_races else [log.resolve(race)]
    except HeatlogError as err:
        raise fail(str(err), 2) from None
    with log, progress_bar(len(ids), "auditing", quiet=as_json) as update:
        reports = audit_races(log, ids, anchors=anchors, progress=update)
    if as_json:
        typer.echo(json.dumps([r.to_dict() for r in reports], indent=2))
    else:
        render_audit(out_console(), reports)
    raise typer.Exit(0 if all(r.clean for r in reports) else 1)


@app.command()
@user_errors
def export(
    race: RaceOpt = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")] = None,
    anchor: Annotated[
        bool, typer.Option("--anchor/--no-anchor", help="End with the race's anchor line (import checks it).")
    ] = False,
    force: ForceOpt = False,
    db: DbOpt = None,
) -> None:
    """Export a race's log as JSON Lines (one event per line); with --anchor, ending with the race's anchor line.

    Example: heatlog export --race 1 -o race1.jsonl
    """
    with open_log(db, force=force) as log:
        text = log.store.export_jsonl(log.resolve(race), anchor=anchor)
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")


@app.command(name="import")
@user_errors
def import_(
    file: Annotated[Path, typer.Argument(help="A JSON Lines file written by `heatlog export`.")],
    name: Annotated[str | None, typer.Option(help="A name for the imported race.")] = None,
    db: DbOpt = None,
) -> None:
    """Import a race from JSON Lines: every line is validated and the rules checked; all or nothing.

    Example: heatlog import replays/usa-4cars.jsonl
    """
    from ..jsonio import read_text_file
    from ..races import import_race
    from ..usertext import name_problem

    text = read_text_file(file, "import file")
    if name is None and name_problem(file.stem) is None:
        name = file.stem
    with creating_log(db) as log, progress_bar(2 * text.count("\n"), f"importing {file.name}") as update:
        rid = import_race(log, text, name=name, source=str(file), progress=update)
        err_console().print(f"imported {file} as race {rid}")
        typer.echo(str(rid))
