"""The ``heatlog`` command line: a thin typer layer over :mod:`heatlog.racelog` and the views.

Heavy modules (sqlite-utils, jsonschema, the engine, rich tables) are imported inside the commands so that
``heatlog --help`` stays as fast as importing typer itself. One module per area; each registers its commands on
the one :data:`~heatlog.cli.common.app` when imported (the order of :data:`MODULES` is the order of ``--help``).

The commands are registered lazily (issue 10: everyday commands start in at most twice the time of importing
typer and rich): ``heatlog show`` imports only the module that defines ``show`` and typer builds only its
commands; ``heatlog --help``, a name that is not a command, or ``heatlog.cli.app`` (the tests, the docs) load
them all.
"""

import importlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

__all__ = ["COMMANDS", "MODULES", "app", "load", "main"]

#: The modules that define commands, in the order of ``heatlog --help``.
MODULES = (
    *("races", "entries", "files", "anchor", "record", "simulate", "analysis", "season", "stats", "review"),
    *("serve", "demo"),
)

#: Which module defines each top-level command (tests/test_cli.py checks it against the full app). A command
#: missing here still works: its name is unknown, so every module is loaded.
COMMANDS = {
    "new": "races",
    "races": "races",
    "show": "races",
    "replay": "races",
    "position": "races",
    "add": "entries",
    "note": "entries",
    "undo": "entries",
    "branch": "entries",
    "audit": "files",
    "export": "files",
    "import": "files",
    "anchor": "anchor",
    "record": "record",
    "simulate": "simulate",
    "playout": "analysis",
    "compare": "analysis",
    "play-on": "analysis",
    "season": "season",
    "stats": "stats",
    "turns": "stats",
    "review": "review",
    "serve": "serve",
    "demo": "demo",
}


def load(command: str | None = None, *, only: bool = False) -> "typer.Typer":
    """The app with ``command``'s module registered (all modules when ``command`` is None or unknown); with
    ``only``, the app holds that one command (what ``heatlog COMMAND`` runs: typer builds no other)."""
    names = (COMMANDS[command],) if command in COMMANDS else MODULES
    for name in names:
        importlib.import_module(f"{__name__}.{name}")
    from .common import app

    if only and command in COMMANDS:
        # typer names a command after its function unless given a name (typer.main.get_command_name)
        app.registered_commands = [
            c
            for c in app.registered_commands
            if (c.name or getattr(c.callback, "__name__", "").lower().replace("_", "-")) == command
        ]
        app.registered_groups = [g for g in app.registered_groups if g.name == command]

    if len(names) > 1:
        # --help lists the commands in MODULES order, whichever module a caller imported first.
        rank = {f"{__name__}.{name}": i for i, name in enumerate(MODULES)}
        app.registered_commands.sort(key=lambda c: rank.get(getattr(c.callback, "__module__", ""), len(rank)))
    return app


def command_in(argv: list[str]) -> str | None:
    """The subcommand an argument list invokes: the first word that is not an option (the app's own options,
    --version and --rules, take no value). None for ``--help`` or no command: then every command is needed."""
    for arg in argv:
        if arg in ("--help", "-h"):
            return None
        if not arg.startswith("-"):
            return arg
    return None


def __getattr__(name: str) -> Any:
    if name == "app":
        return load()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def sane_terminal_size() -> None:
    """Drop a COLUMNS or LINES that is not a plain number: rich reads them with ``str.isdigit`` (true for "²")
    and then ``int`` fails, so every command that printed crashed with a traceback; the plain writer, which
    follows rich's reading of them, then reads them as rich does (unset)."""
    import os

    for name in ("COLUMNS", "LINES"):
        value = os.environ.get(name)
        if value is not None and not (value.isascii() and value.isdigit()):
            del os.environ[name]


def main() -> None:
    sane_terminal_size()
    load(command_in(sys.argv[1:]), only=True)()
