"""heatlog record: the guided recording session at the table."""

from typing import Annotated

import typer

from .common import DbOpt, RaceOpt, app, open_log, user_errors


@app.command()
@user_errors
def record(
    race: RaceOpt = None,
    new: Annotated[bool, typer.Option("--new", help="Start a new race: asks the set-up questions first.")] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Take the race over from a recorder on another machine that is gone.")
    ] = False,
    db: DbOpt = None,
) -> None:
    """Record a race at the table: a guided session that asks every entry in turn (resumes where it stopped).

    Example: heatlog record --new
    """
    from ..recorder import record as run_recorder

    with open_log(db, create=new) as log:
        code = run_recorder(log, race=race, new=new, force=force)
    raise typer.Exit(code)
