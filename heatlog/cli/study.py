"""heatlog study: corpus-scale studies — many simulated races straight into Parquet (docs/study.md)."""

import math
from pathlib import Path
from typing import Annotated, Any

import typer

from .common import JsonOpt, app, err_console, out_console, print_table, progress_steps, user_errors

study_app = typer.Typer(
    name="study",
    help="Corpus-scale studies: simulate many races straight into Parquet files (races, car_races, turns, "
    "decisions) and query them with DuckDB (docs/study.md).\n\n"
    "Example: heatlog study run --track usa --track italy --seeds 1000 --out corpus;  "
    'heatlog study query corpus "select track, avg(rounds) from races group by track"',
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
app.add_typer(study_app, name="study")

DirArg = Annotated[Path, typer.Argument(help="The corpus directory.", show_default=False)]
WorkersOpt = Annotated[int | None, typer.Option("--workers", help="Local processes (default: all cores; 1: this one).")]
DaskOpt = Annotated[str | None, typer.Option("--dask-scheduler", help="Play the batches on a Dask cluster at ADDRESS.")]


@study_app.command("run")
@user_errors
def run(
    spec_file: Annotated[
        Path | None,
        typer.Argument(
            help="A spec file (JSON, docs/study.md); or give the grid with the options below.", show_default=False
        ),
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="The corpus directory (made, or resumed).")] = Path("corpus"),
    track: Annotated[list[str] | None, typer.Option("--track", help="A track of the grid (repeat: several).")] = None,
    cars: Annotated[list[int] | None, typer.Option("--cars", help="A number of cars (repeat: several).")] = None,
    bots: Annotated[
        list[str] | None,
        typer.Option("--bots", help="heuristic, random, or one per car (heuristic,random,…); repeat: several."),
    ] = None,
    module: Annotated[
        list[str] | None,
        typer.Option(
            "--module",
            help='A configuration: its modules as JSON, each by its name ({"name": "wet", "rain": true}); repeat.',
        ),
    ] = None,
    laps: Annotated[int | None, typer.Option(help="Laps (default: each track's).")] = None,
    seeds: Annotated[int | None, typer.Option(help="Seeds per configuration (a grid).")] = None,
    first_seed: Annotated[int, typer.Option("--first-seed", help="The grid's first seed.")] = 1,
    sample: Annotated[
        int | None, typer.Option(help="Instead of a grid: this many races, each a random configuration.")
    ] = None,
    sample_seed: Annotated[int, typer.Option("--sample-seed", help="The sample's seed.")] = 1,
    batch: Annotated[int | None, typer.Option(help="Races per batch (a task, a file per table).")] = None,
    workers: WorkersOpt = None,
    dask_scheduler: DaskOpt = None,
) -> None:
    """Simulate a corpus into Parquet under --out, or resume one that was interrupted.

    The spec (from the file, or from the options) is saved as DIR/study.json with the rules fingerprint. A run
    plays only the batches the corpus lacks; the same spec gives the same bytes whatever --workers or the
    cluster. Ctrl-C keeps every finished batch: the same command resumes.

    Example: heatlog study run --track usa --cars 4 --seeds 2000 --out usa;  heatlog study run study.json -o big
    """
    from .. import rules_version
    from ..engine.errors import MalformedInput
    from ..formats import jsonio  # (inside: heatlog --help imports this module, issue 32)
    from ..study.corpus import create
    from ..study.spec import SPEC_FILE, StudySpec
    from ..study.tables import require_pyarrow

    require_pyarrow()
    grid: dict[str, Any] = {}
    for key, value in (("tracks", track), ("cars", cars), ("bots", bots)):
        if value:
            grid[key] = list(value)
    if module:
        grid["modules"] = []
        for text in module:
            try:  # the door's strict parser: no NaN, no duplicate keys
                grid["modules"].append(jsonio.loads(text, "--module"))
            except MalformedInput as exc:
                # (exc.message: str(exc) is "malformed: …", said twice once the CLI names the kind)
                raise MalformedInput(f"{exc.message} (e.g. '{{\"{_example_module()}\": true}}')") from None
    if laps is not None:
        grid["laps"] = laps
    if seeds is not None:
        grid["seeds"] = {"first": first_seed, "count": seeds}
    if sample is not None:
        grid["sample"] = {"races": sample, "seed": sample_seed}
    if batch is not None:
        grid["batch"] = batch
    if spec_file is not None:
        if grid:
            raise MalformedInput("give a spec file or the grid's options (--track, --seeds, …), not both")
        doc = jsonio.loads(jsonio.read_text_file(spec_file, "study spec"), f"{spec_file}")
        spec = StudySpec.from_dict(doc, rules=rules_version())
    elif grid:
        spec = StudySpec.from_dict(grid, rules=rules_version())
    elif (out / SPEC_FILE).is_file():
        spec = StudySpec.read(out)  # resume
    else:
        raise MalformedInput(f"{out} holds no corpus: give a spec file or the grid (--track, --seeds N, …)")
    create(out, spec)
    _play(out, spec, workers, dask_scheduler)


@study_app.command("extend")
@user_errors
def extend(
    directory: DirArg,
    seeds: Annotated[int | None, typer.Option(help="More seeds for every configuration (a grid).")] = None,
    races: Annotated[int | None, typer.Option(help="More races (a sample).")] = None,
    workers: WorkersOpt = None,
    dask_scheduler: DaskOpt = None,
) -> None:
    """Add seeds (a grid) or races (a sample) to a corpus and play them: the races already there stay as they
    are (none is played twice; a short last batch is rewritten with the same rows and the new races).

    Example: heatlog study extend corpus --seeds 1000
    """
    from ..engine.errors import MalformedInput
    from ..study.corpus import extend as extend_corpus
    from ..study.spec import StudySpec
    from ..study.tables import require_pyarrow

    require_pyarrow()
    spec = StudySpec.read(directory)
    grid = spec.first_seed is not None
    if (seeds is None) == (races is None):
        raise MalformedInput(f"give --{'seeds' if grid else 'races'} N: how many more")
    if grid and races is not None:
        raise MalformedInput("--races: this corpus is a grid; give --seeds N (more seeds for every configuration)")
    if not grid and seeds is not None:
        raise MalformedInput("--seeds: this corpus is a sample; give --races N (more races)")
    more = seeds if seeds is not None else races
    assert more is not None
    new = extend_corpus(directory, more)
    _play(directory, new, workers, dask_scheduler)


def _play(directory: Path, spec: Any, workers: int | None, dask_scheduler: str | None) -> None:
    from ..analysis.executors import default_workers, executor_for
    from ..study.corpus import done_batches, run
    from ..views import counted

    window = 64 if dask_scheduler else 2 * (workers or default_workers()) + 1
    remaining = spec.total - sum(
        min((k + 1) * spec.batch, spec.total) - k * spec.batch for k in done_batches(directory, spec)
    )
    with (
        executor_for(workers, dask_scheduler) as ex,
        progress_steps(remaining, f"simulating {counted(remaining, 'race')}") as advance,
    ):
        result = run(directory, spec, ex, window=window, progress=advance)
    done = result.before + result.written
    line = f"{directory}: {done} of {counted(result.total, 'race')} ({counted(result.written, 'race')} played now)"
    if result.partial:
        err_console().print(f"{line}; interrupted: the same command resumes", markup=False)
        raise typer.Exit(130)
    out_console().print(line, markup=False)


@study_app.command("info")
@user_errors
def info(directory: DirArg, as_json: JsonOpt = False) -> None:
    """What a corpus holds: its spec, races done of the total, batches, size on disk per table and per race.

    Example: heatlog study info corpus --json
    """
    from rich.table import Table

    from ..study.corpus import info as corpus_info
    from ..study.tables import require_pyarrow

    require_pyarrow()
    data = corpus_info(directory)
    if as_json:
        import json

        typer.echo(json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False))
        return
    spec = data["spec"]
    console = out_console()
    console.print(
        f"{data['directory']}: {data['done']} of {data['races']} races ({data['batches_done']} of "
        f"{data['batches']} batches of {spec['batch']}), {data['configurations']} configurations",
        markup=False,
    )
    if not data["rules_match"]:
        console.print(f"simulated under other rules ({spec['rules']}): it cannot be extended here", markup=False)
    table = Table(title="size on disk", title_justify="left")
    table.add_column("table")
    table.add_column("bytes", justify="right")
    for name, size in data["bytes"].items():
        table.add_row(name, f"{size:,}")
    print_table(console, table)
    if data["bytes_per_race"] is not None:
        console.print(f"{data['bytes_per_race']:,} bytes per race", markup=False)


@study_app.command("query")
@user_errors
def query(
    directory: DirArg,
    sql: Annotated[str, typer.Argument(help="SQL over the views races, car_races, turns, decisions.")],
    as_json: JsonOpt = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV.")] = False,
    timeout: Annotated[
        float | None,
        typer.Option("--timeout", help="Stop the query after SECONDS (default: no limit; Ctrl-C stops it)."),
    ] = None,
) -> None:
    """Run a DuckDB query over a corpus (or an `export --parquet` directory): the tables are views.

    The query only reads: one SELECT (or WITH, FROM, VALUES, DESCRIBE, SUMMARIZE, SHOW) that may read the
    corpus's files and no other; COPY, ATTACH, INSTALL, LOAD, SET, PRAGMA, CREATE, EXPLAIN or several statements
    are refused, and nothing is written.

    Example: heatlog study query corpus "select grid, avg(place) from car_races group by grid order by grid"
    """
    import csv
    import sys

    from rich.table import Table
    from rich.text import Text

    from ..engine.errors import MalformedInput
    from ..formats.usertext import sheet_cell
    from ..study.query import QueryInterrupted
    from ..study.query import query as run_query

    if as_json and as_csv:
        raise MalformedInput("choose one of --json and --csv")
    try:
        columns, rows = run_query(directory, sql, timeout=timeout)
    except (QueryInterrupted, KeyboardInterrupt):  # (before the query started, too)
        err_console().print("query interrupted", markup=False)
        raise typer.Exit(130) from None
    if as_json:
        records = [{c: _finite(v) for c, v in zip(columns, r, strict=True)} for r in rows]
        import json

        typer.echo(json.dumps(records, indent=1, default=str, ensure_ascii=False, allow_nan=False))
        return
    if as_csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow([sheet_cell(c) for c in columns])  # a cell is never a formula (OWASP)
        writer.writerows([sheet_cell(v) for v in r] for r in rows)
        return
    table = Table(title_justify="left")
    for c in columns:  # names and values are data, never markup
        table.add_column(Text(c), justify="left")
    for r in rows:
        table.add_row(*(Text("" if v is None else str(v)) for v in r))
    print_table(out_console(), table)


def _finite(value: Any) -> Any:
    """A query's value for JSON: NaN and infinities (a DuckDB aggregate may give them) are null, as JSON has none."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _example_module() -> str:
    """A registered module's name for the --module example: the first module folder with a switch of its own."""
    from ..engine.module import descriptors

    return next((u.name for u in descriptors() if any(f.kind == "bool" for f in u.flags)), "rain")
