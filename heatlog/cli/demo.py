"""heatlog demo: the main job on the default database."""

from pathlib import Path
from typing import Annotated

import typer

from .common import DbOpt, app, check_output, open_log, out_console, user_errors


@app.command()
@user_errors
def demo(
    html: Annotated[Path | None, typer.Option("--html", help="Where to write the HTML replay.")] = Path(
        "heatlog-demo.html"
    ),
    db: DbOpt = None,
) -> None:
    """Load the bundled sample races into the database (first time), audit them and replay one.

    Example: heatlog demo --db demo.db
    """
    from ..views.demo import run_demo

    check_output(html, "--html")  # before the samples are loaded, audited and replayed
    with open_log(db, create=True) as log:
        clean = run_demo(log, out_console(), html)
    raise typer.Exit(0 if clean else 1)
