"""The ``heatlog`` command line: a thin typer layer over :mod:`heatlog.log.racelog` and the views.

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

__all__ = ["COMMANDS", "MODULES", "READS", "app", "help_only", "load", "main"]

#: The modules that define commands, in the order of ``heatlog --help``.
MODULES = (
    *("races", "entries", "files", "anchor", "record", "simulate", "analysis", "season", "stats", "study"),
    *("review", "serve", "demo"),
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
    "study": "study",
    "review": "review",
    "luck": "review",
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


def help_only(app: "typer.Typer") -> "typer.Typer":
    """A copy of ``app`` for ``heatlog --help`` alone: each command's function replaced by one without parameters,
    of the same name, module and docstring. The list of commands shows only their names and first lines; typer
    would otherwise build every parameter of every command (most of what ``heatlog --help`` added to importing
    typer, issue 32). tests/test_cli.py checks the text is the full app's."""
    import copy

    def stubbed(info: Any) -> Any:
        callback = info.callback
        if callback is None:
            return info

        def stub() -> None:  # never run: --help exits first
            raise RuntimeError("heatlog --help: a command was run from the help-only app")

        for name in ("__name__", "__qualname__", "__doc__", "__module__"):
            setattr(stub, name, getattr(callback, name, None))
        new = copy.copy(info)
        new.callback = stub
        return new

    def stub_app(typer_app: Any) -> Any:
        new = copy.copy(typer_app)
        new.registered_commands = [stubbed(c) for c in typer_app.registered_commands]
        groups = []
        for group in typer_app.registered_groups:
            g = copy.copy(group)
            if g.typer_instance is not None:
                g.typer_instance = stub_app(g.typer_instance)
            groups.append(g)
        new.registered_groups = groups
        return new

    return stub_app(app)


#: The commands that read a race, print and end (issue 32: start-up). Python's cycle collector is off for them:
#: their start imports some eighty modules, whose objects set off a collection every 700 allocations (walking the
#: young objects to find nothing: a module's objects live as long as the program), ~3 ms CPU of ``heatlog show``;
#: and what they make after is freed by reference counts (a race makes no cycles, heatlog/simulate/collector.py),
#: so a cycle left unfreed lives until the command ends (replay stepping in a terminal: a round at a key press).
#: The commands that run long and make many objects (simulate, serve, record, review, study) keep it.
READS = frozenset({"show", "replay", "position", "races"})


def main() -> None:
    sane_terminal_size()
    argv = sys.argv[1:]
    command = command_in(argv)
    if command in READS:
        import gc

        gc.disable()
    app = load(command, only=True)
    if command is None and ("--help" in argv or "-h" in argv):
        app = help_only(app)
    app()
