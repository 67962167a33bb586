"""What every command of the ``heatlog`` command line shares: the app, its options, opening the database and
turning errors into ``Error:`` lines.

Heavy modules (sqlite-utils, jsonschema, the engine, rich tables) are imported inside the commands so that
``heatlog --help`` stays as fast as importing typer itself.
"""

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from .. import __version__

if TYPE_CHECKING:
    from ..racelog import RaceLog

F = TypeVar("F", bound=Callable[..., Any])

app = typer.Typer(
    name="heatlog",
    help="Record, replay and analyse races of Heat: Pedal to the Metal, as an append-only event log.\n\n"
    "Example: heatlog new --track usa --car Ann:red --car Bob:blue --mode table",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

# Shared options, defined once.
DbOpt = Annotated[
    Path | None,
    typer.Option("--db", help="Database file (default: $HEATLOG_DB or ./heatlog.db).", show_default=False),
]
RaceOpt = Annotated[int | None, typer.Option("--race", "-r", help="Race or branch id (default: the most recent race).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
RoundOpt = Annotated[int | None, typer.Option("--round", help="Start of round N instead of the latest state.")]


def db_path(db: Path | None) -> Path:
    if db is not None:
        return db
    env = os.environ.get("HEATLOG_DB")
    return Path(env) if env else Path("heatlog.db")


def open_log(db: Path | None, *, create: bool = False) -> "RaceLog":
    from ..engine.errors import StoreError
    from ..racelog import RaceLog

    path = db_path(db)
    if not create and not path.exists():
        raise StoreError(f"no heatlog database at {path} (start a race with `heatlog new`, or pass --db)")
    return RaceLog(path, create=create)


def err_console() -> Any:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def out_console() -> Any:
    from rich.console import Console

    return Console(highlight=False)


def fail(message: str, code: int = 1) -> typer.Exit:
    err_console().print(f"Error: {message}", markup=False)
    return typer.Exit(code)


def user_errors(fn: F) -> F:
    """Turn every heatlog error into `Error: …` and a non-zero exit, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from ..engine.errors import HeatlogError

        try:
            return fn(*args, **kwargs)
        except HeatlogError as err:
            raise fail(str(err)) from None
        except OSError as err:
            raise fail(f"{err.strerror or err}: {err.filename or ''}".rstrip(": ")) from None

    return wrapper  # type: ignore[return-value]


def version_callback(value: bool) -> None:
    if value:
        typer.echo(f"heatlog {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[
        bool, typer.Option("--version", callback=version_callback, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Record, replay and analyse races of Heat: Pedal to the Metal."""


def parse_car(spec: str) -> dict[str, str]:
    from ..engine.errors import MalformedInput

    name, sep, colour = spec.partition(":")
    name, colour = name.strip(), colour.strip()
    if not name or not sep or not colour:
        raise MalformedInput(f"--car {spec!r}: write NAME:COLOUR, e.g. Ann:red")
    return {"name": name, "colour": colour}
