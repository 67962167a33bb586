"""What every command of the ``heatlog`` command line shares: the app, its options, opening the database and
turning errors into ``Error:`` lines.

Heavy modules (sqlite-utils, jsonschema, the engine, rich tables) are imported inside the commands so that
``heatlog --help`` stays as fast as importing typer itself.
"""

import contextlib
import functools
import inspect
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from .. import __version__

if TYPE_CHECKING:
    from ..engine.module import Flag, Module
    from ..log.racelog import RaceLog

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
RaceOpt = Annotated[
    int | None,
    typer.Option("--race", "-r", help="Race or branch id (default: the most recent race not simulated)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
# The built-in tracks in words (tracks.BUILTIN_TRACKS, not imported: it loads the schema checker at start-up;
# tests/test_cli.py holds the two together).
TRACK_HELP = "usa, great-britain, france, italy, japan, mexico, spain, netherlands, or a track file path."
TrackOpt = Annotated[str, typer.Option(help=TRACK_HELP)]
RoundOpt = Annotated[int | None, typer.Option("--round", help="Start of round N instead of the latest state.")]
ModuleOpt = Annotated[  # a module registered as one unit (engine/module.py: module_data.module_blocks)
    list[str] | None,
    typer.Option(
        "--module",
        help="Another module by name, with the options of its data file (e.g. rain, heatlog's example "
        "module: not a rule of Heat); once each.",
    ),
]
ForceOpt = Annotated[
    bool,
    typer.Option(
        "--force", help="Read a log whose hash chain is broken (damaged or tampered with) anyway, with a warning."
    ),
]


def db_path(db: Path | None) -> Path:
    if db is not None:
        return db
    env = os.environ.get("HEATLOG_DB")
    return Path(env) if env else Path("heatlog.db")


def open_log(
    db: Path | None,
    *,
    create: bool = False,
    force: bool | None = None,
    force_flag: str = "--force",
    reader: bool = False,
) -> "RaceLog":
    """The database of a command. A command that reads a race's log either refuses a broken hash chain (the
    default) or, with ``force`` True, warns on standard error and reads it anyway; ``force`` False names
    ``force_flag`` in the refusal (None: the command has no such flag). ``reader``: a command that only reads and
    prints (its store loads the writer's code only if asked for it: RaceLog)."""
    from ..engine.errors import NOT_FOUND, StoreError
    from ..log.racelog import RaceLog

    path = db_path(db)
    if not create and not path.exists():
        raise StoreError(
            f"no heatlog database at {path} (start a race with `heatlog new`, or pass --db)", words=NOT_FOUND
        )
    log = RaceLog(path, create=create, reader=reader)
    if force is not None:
        log.store.force_hint = force_flag
    if force:
        log.store.on_damage = _damage_warner(force_flag)
    return log


def _damage_warner(flag: str) -> Callable[[Any], None]:
    """Warn once per problem of a damaged log read with --force (a log read twice warns once)."""
    seen: set[tuple[int, int, str]] = set()

    def warn(problem: Any) -> None:
        from ..formats.usertext import visible

        key = (problem.race, problem.seq, problem.kind)
        if key in seen:
            return
        seen.add(key)
        text = f"Warning: race {problem.race}: event {problem.seq}: {problem.message}; read anyway ({flag})"
        err_console().print(visible(text), soft_wrap=True, markup=False)

    return warn


@contextlib.contextmanager
def creating_log(db: Path | None) -> Iterator["RaceLog"]:
    """The log for a command that may create the database (new, import): if the file did not exist and the
    command fails, the file is removed again, so a refused command leaves no trace."""
    path = db_path(db)
    fresh = not path.exists()
    try:
        with open_log(db, create=True) as log:
            yield log
    except Exception:
        if fresh:
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(OSError):
                    Path(f"{path}{suffix}").unlink()
        raise


@contextlib.contextmanager
def progress_bar(total: int, description: str, *, quiet: bool = False) -> Iterator[Callable[[int], None] | None]:
    """A rich progress bar on standard error for long work, only when it is a terminal (not piped, not with
    --json: ``quiet``); yields ``update(done)`` or None. The bar disappears when the work is done."""
    import sys

    if quiet or total < 2 or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from ..formats.usertext import visible

    with Progress(
        TextColumn("{task.description}", markup=False),  # it names user text (a file): shown as typed
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err_console(),
        transient=True,
    ) as bar:
        task = bar.add_task(visible(description), total=total)
        yield lambda done: bar.update(task, completed=done)


@contextlib.contextmanager
def progress_steps(total: int, description: str, *, quiet: bool = False) -> Iterator[Callable[[int], None]]:
    """:func:`progress_bar` for work told in steps: yields ``advance(n)``, n more of the ``total`` done (nothing
    is shown where the bar is not)."""
    with progress_bar(total, description, quiet=quiet) as update:
        done = 0

        def advance(n: int) -> None:
            nonlocal done
            done += n
            if update is not None:
                update(done)

        yield advance


def err_console() -> Any:
    from ..formats.usertext import console

    return console(stderr=True)


def out_console() -> Any:
    from ..formats.usertext import console

    return console()


def print_table(console: Any, table: Any) -> None:
    """Print a rich table (or a group holding one) whole. Piped, rich cuts it to 80 columns ("Dri…", "Yel…")
    unless COLUMNS says otherwise: with no terminal and no COLUMNS it is printed at its natural width; in a
    terminal, or with COLUMNS, at that width (rich's own wrapping)."""
    if console.is_terminal or "COLUMNS" in os.environ:
        console.print(table)
        return
    width = console.width
    console.width = max(width, console.measure(table, options=console.options.update(max_width=100_000)).maximum)
    try:
        console.print(table)
    finally:
        console.width = width  # what follows (a caption, a note) wraps as before


def fill_table(
    console: Any,
    table: Any,
    heads: Sequence[tuple[str, str]],
    rows: Sequence[Sequence[str]],
    *,
    optional: Sequence[int] = (),
) -> list[str]:
    """Add the columns ``heads`` (header, justify) and their ``rows`` to a rich ``table``; the headers left out.

    In a terminal (or with COLUMNS) no word is cut when the words fit: each column is at least as wide as its
    longest word, the ``optional`` ones (indexes, least wanted first) left out while they cannot fit
    (:func:`heatlog.views.listing.fitted_widths`; rich alone cut "Slipstreams" to "Slipstr…", "adrenaline" to
    "adre…" at 80 columns); when even so they cannot, rich shrinks the table. Piped: every column at its natural
    width (:func:`print_table`)."""
    widths: dict[int, int | None] = dict.fromkeys(range(len(heads)))
    if console.is_terminal or "COLUMNS" in os.environ:
        from ..views.listing import fitted_widths

        columns = [[h, *(row[i] for row in rows)] for i, (h, _) in enumerate(heads)]
        fitted = fitted_widths(columns, console.width, optional=optional)
        if fitted:
            widths = dict(fitted)
    for i, w in widths.items():
        table.add_column(heads[i][0], justify=heads[i][1], width=w)
    for row in rows:
        table.add_row(*(row[i] for i in widths))
    return [h for i, (h, _) in enumerate(heads) if i not in widths]


def fail(message: str, code: int = 1) -> typer.Exit:
    from ..formats.usertext import visible

    # One line: what, where, why (a message listing several problems is joined with "; "). User text inside
    # the message is shown with its control characters visible.
    parts = [part.strip() for part in message.split("\n") if part.strip()]
    # a part ending in ":" introduces the next ("nothing imported:" then the problems), not one of a list
    text = "".join(p + (" " if p.endswith(":") else "; ") for p in parts[:-1]) + (parts[-1] if parts else "")
    err_console().print(f"Error: {visible(text)}", soft_wrap=True)
    return typer.Exit(code)


#: Exit code of an unexpected exception (a heatlog bug): 70 is EX_SOFTWARE of sysexits.h.
INTERNAL_ERROR = 70


def user_errors(fn: F) -> F:
    """Turn every heatlog error into `Error: …` and a non-zero exit, never a traceback.

    An exception that is not a heatlog error is a bug: it still gets one `Error:` line (exit 70) instead of a
    traceback; the hostile-input tests count these as failures.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort, typer.BadParameter, KeyboardInterrupt):
            raise
        except Exception as err:
            # Imported only when something went wrong: a command that succeeds never pays for them.
            from click.exceptions import Abort, Exit

            from ..engine.errors import HeatlogError

            if isinstance(err, HeatlogError):
                raise fail(plain_error(err)) from None
            if isinstance(err, UnicodeEncodeError):  # not a bug of heatlog: the output cannot hold the text
                shown = err.object[err.start : err.end].encode("ascii", "backslashreplace").decode()
                raise fail(
                    f"the output's encoding ({err.encoding}) cannot write {shown}: run heatlog with a UTF-8 "
                    "locale or PYTHONIOENCODING=utf-8"
                ) from None
            if isinstance(err, BrokenPipeError):  # the reader left (heatlog anchor | head -1): stop quietly
                _reader_gone()
                raise typer.Exit(1) from None
            if isinstance(err, OSError):
                raise fail(f"{err.strerror or err}: {err.filename or ''}".rstrip(": ")) from None
            if isinstance(err, Exit | Abort):
                raise
            if isinstance(err, RecursionError):
                raise fail("input nested too deeply (internal error)", INTERNAL_ERROR) from None
            if os.environ.get("HEATLOG_TRACEBACK"):
                raise
            raise fail(f"internal error (a bug in heatlog): {type(err).__name__}: {err}", INTERNAL_ERROR) from None

    return wrapper  # type: ignore[return-value]


def _reader_gone() -> None:
    """Standard output's reader is gone: what is still buffered goes nowhere (not a second error at exit), as
    rich does when its console meets a closed pipe (it exits 1 without a word; so does every command)."""
    import sys

    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


#: ``heatlog --rules``: errors name the digest items (``# 3.4``) and show the event as given (JSON).
SHOW_RULES = {"on": False}


def plain_error(err: Any) -> str:
    """An error in plain words (issue 10): where it happened and what is wrong, without the event's JSON (the
    user typed a command, not an event: a typed token or file name stays) and without digest tags such as
    ``(# 3.4)``; all of it with ``heatlog --rules`` (or ``HEATLOG_RULES=1``)."""
    if SHOW_RULES["on"] or os.environ.get("HEATLOG_RULES"):
        return str(err)
    from ..engine.errors import UnknownRace, held_words
    from ..recorder.notation import strip_rule_tags

    if isinstance(err, UnknownRace):  # said as a user reads it: which file, what it holds, where to look
        where = "`heatlog new` starts one" if err.held == 0 else "`heatlog races --all` lists them"
        held = held_words(err.held, err.first, err.last)
        return f"{err.words}: no race {err.asked} in {err.path}: {held} ({where})"
    shown = err.input if isinstance(err.input, str) else None
    if isinstance(err.input, dict) and isinstance(err.input.get("type"), str):  # an event: named, not dumped
        car = err.input.get("car")
        shown = err.input["type"] + (f" of {car}" if isinstance(car, str) and err.car is None else "")
    message = strip_rule_tags(err.message)
    if isinstance(err.input, dict) and message.startswith(f"{err.input.get('type')}: "):
        # a schema error names the event type itself: said once ("note: text: is empty"), not twice
        message = message[len(f"{err.input['type']}: ") :]
    saved = (err.input, err.message, err.rule, err.kind)
    try:
        err.input, err.message, err.rule = shown, message, None
        err.kind = err.words  # the kind of problem in plain words (describe() starts with it)
        return str(err.describe())
    finally:
        err.input, err.message, err.rule, err.kind = saved


def given_option(ctx: typer.Context, param: str) -> bool:
    """Whether the command line (or the environment) gave this option: its default is no choice of the user."""
    source = ctx.get_parameter_source(param)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def check_output(path: Path | None, option: str) -> None:
    """Refuse, before any work, an output file that cannot be written where it is asked for (a directory, or in
    a directory that does not exist): a long command found it only at its end, its work lost."""
    from ..engine.errors import MalformedInput

    if path is None:
        return
    if path.is_dir():
        raise MalformedInput(f"{option} {path}: is a directory, not a file")
    if not path.parent.is_dir():
        raise MalformedInput(f"{option} {path}: there is no directory {path.parent}")


def given_options(ctx: typer.Context, *params: str) -> list[str]:
    """The options among ``params`` (parameter names) the command line gave, as typed: ``--from-position``."""
    return [f"--{p.replace('_', '-')}" for p in params if given_option(ctx, p)]


def version_callback(value: bool) -> None:
    if value:
        typer.echo(f"heatlog {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[
        bool, typer.Option("--version", callback=version_callback, is_eager=True, help="Show the version.")
    ] = False,
    rules: Annotated[
        bool, typer.Option("--rules", help="Errors name the rules digest items (# 3.4) and show events as JSON.")
    ] = False,
) -> None:
    """Record, replay and analyse races of Heat: Pedal to the Metal."""
    SHOW_RULES["on"] = rules


def parse_car(spec: str) -> dict[str, str]:
    from ..engine.errors import MalformedInput

    name, sep, colour = spec.partition(":")
    name, colour = name.strip(), colour.strip()
    if not name or not sep or not colour:
        raise MalformedInput(f"--car {spec!r}: write NAME:COLOUR, e.g. Ann:red")
    return {"name": name, "colour": colour}


# ---- module options, from the registry (issue 26, build 5)
#
# Each module declares its command-line options in its descriptor (``engine.module.Flag``: the parameter, its
# spellings, its help, its kind, the commands that take it) and how their values make its options
# (``Module.from_flags``). A command decorated with :func:`module_flags` gets them in its signature — typer reads
# ``inspect.signature``, and the signature is built from the registry the first time typer asks for it, so a
# command that is not run (``heatlog show`` beside ``new``) never loads a descriptor — and receives, in the
# parameter ``modules`` the function declares, a :class:`ModuleFlags`: the values typed and, from them, the one
# mapping of module options every service takes. A module that lands in its folder with flags gets them on every
# command it names, with no edit here.


MODULES_PARAM = "modules"  # the parameter of the decorated function that receives the ModuleFlags


class ModuleFlags:
    """A command's module options as typed: ``values`` by parameter, for the registry's ``units``."""

    def __init__(self, command: str, units: "list[Module]", values: Mapping[str, Any]) -> None:
        self.command = command
        self.units = units
        self.values = dict(values)

    def given(self, ctx: typer.Context) -> list[str]:
        """The module options the command line gave, as typed (``--garage``)."""
        return [_spelling(self.units, self.command, p) for p in self.values if given_option(ctx, p)]

    def options(self) -> dict[str, Any]:
        """The modules' options as one mapping by module name (``race_started_event(modules=)``): each module's
        ``from_flags`` of its values (``module_data.options_from_flags``); a refusal names the option typed."""
        from ..formats.module_data import options_from_flags

        return options_from_flags(self.command, self.values)

    def refuse_in_season(self, ctx: typer.Context) -> None:
        """Refuse the options given that a season decides itself (``Flag.not_in_season``: ``--draft``)."""
        from ..engine.errors import MalformedInput

        for unit in self.units:
            for f in unit.flags:
                if f.not_in_season is not None and self.command in f.commands and given_option(ctx, f.param):
                    raise MalformedInput(f"{f.decls[0]}: {f.not_in_season}")

    def season_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` (this command's) as the ``season`` command's flags make them from the same values, module
        by module; a module without flags for a season keeps its own (the season refuses it in its words)."""
        from ..formats.module_data import options_from_flags

        season = options_from_flags("season", self.values)
        return {name: season.get(name, block) for name, block in options.items()}

    def typed_values(self) -> dict[str, str]:
        """Every option's value by its param, as typed (``{"legends": "--legends 2"}``), for refusals that name
        the option; an option not given and without a value (None, off) is left out."""
        out: dict[str, str] = {}
        for unit in self.units:
            for f in unit.flags:
                value = self.values.get(f.param)
                if self.command in f.commands and value is not None and value is not False:
                    out.setdefault(f.param, f"{f.decls[0]} {value}")
        return out

    def drawn(self) -> list[dict[str, Any]]:
        """The set-up draws the options give (``Module.given_draws``: the weather's ``--tile``/``--road``)."""
        from ..formats.module_data import draws_from_flags

        return draws_from_flags(self.command, self.values)

    def typed_cars(self) -> list[str]:
        """The cars the options add (``Flag.cars``: each ``--legend COLOUR``), as typed, in the order the race lists
        them after the players' cars: a refusal of one of them names it."""
        out: list[str] = []
        for unit in self.units:
            for f in unit.flags:
                if f.cars and self.command in f.commands:
                    out += [f"{f.decls[0]} {v}" for v in self.values.get(f.param) or []]
        return out

    def typed(self) -> dict[str, str]:
        """The options given that are recorded as a set-up event (``Flag.gives``), by that event's kind, as typed
        (``{"weather_drawn": "--tile RAIN"}``): a refusal of the event names the option."""
        out: dict[str, str] = {}
        for unit in self.units:
            for f in unit.flags:
                value = self.values.get(f.param)
                if f.gives is not None and self.command in f.commands and value is not None:
                    out[f.gives] = f"{f.decls[0]} {value}"
        return out


#: The default of a command's ``modules`` parameter, which the decorator replaces by the registry's flags (never
#: read: the decorated command always receives the options typed).
FROM_REGISTRY = ModuleFlags("", [], {})


def _spelling(units: "list[Module]", command: str, param: str) -> str:
    for unit in units:
        for f in unit.flags:
            if f.param == param and command in f.commands:
                return f.decls[0]
    return f"--{param.replace('_', '-')}"


def parameter(flag: "Flag") -> inspect.Parameter:
    """The typer parameter of one module option."""
    option = typer.Option(*flag.decls, help=flag.help)
    kinds: dict[str, tuple[Any, Any]] = {
        "bool": (bool, bool(flag.default)),
        "int": (int, flag.default if flag.default is not None else 0),
        "str": (str | None, flag.default),
        "strs": (list[str] | None, None),
    }
    if flag.kind not in kinds:
        raise RuntimeError(f"option {flag.decls[0]}: unknown kind {flag.kind!r} (bool, int, str, strs)")
    kind, default = kinds[flag.kind]
    return inspect.Parameter(
        flag.param, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=Annotated[kind, option]
    )


class _Command:
    """A command whose module options come from the registry: its signature is the function's with the parameter
    ``modules`` replaced by every module's flags for the command, built at typer's first look."""

    def __init__(self, fn: Callable[..., Any], command: str) -> None:
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._command = command
        self._made: tuple[inspect.Signature, list[Module], list[str]] | None = None

    def _build(self) -> "tuple[inspect.Signature, list[Module], list[str]]":
        if self._made is None:
            from ..engine.module import flags_for

            units, flags = flags_for(self._command)
            sig = inspect.signature(self._fn)
            params: list[inspect.Parameter] = []
            for p in sig.parameters.values():
                if p.name == MODULES_PARAM:
                    params.extend(parameter(f) for f in flags)
                else:
                    params.append(p)
            self._made = sig.replace(parameters=params), units, [f.param for f in flags]
        return self._made

    @property
    def __signature__(self) -> inspect.Signature:
        return self._build()[0]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        _, units, names = self._build()
        values = {n: kwargs.pop(n) for n in names if n in kwargs}
        return self._fn(*args, **kwargs, **{MODULES_PARAM: ModuleFlags(self._command, units, values)})


def with_named(options: dict[str, Any], named: list[str]) -> dict[str, Any]:
    """``options`` and the modules given by name (``--module NAME``: its example block, ``module_data.module_blocks``),
    each once."""
    if not named:
        return options
    from ..engine.errors import MalformedInput
    from ..formats.module_data import module_blocks

    more = module_blocks(named)
    for name in more:
        if name in options:
            raise MalformedInput(f"--module {name}: the module is given by its own option too")
    return {**options, **more}


def module_flags(command: str) -> Callable[[F], F]:
    """Decorate a command (under ``@user_errors``) whose parameter ``modules`` takes every registered module's
    options for ``command`` (``new``, ``simulate``, ``record``, ``season``: ``Flag.commands``) as a
    :class:`ModuleFlags`."""

    def wrap(fn: F) -> F:
        made: Any = _Command(fn, command)
        return made

    return wrap
