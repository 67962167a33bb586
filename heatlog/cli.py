"""The ``heatlog`` command line: a thin typer layer over :mod:`heatlog.racelog` and the views.

Heavy modules (sqlite-utils, jsonschema, the engine, rich tables) are imported inside the commands so that
``heatlog --help`` stays as fast as importing typer itself.
"""

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from . import __version__

if TYPE_CHECKING:
    from .racelog import RaceLog

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
    from .engine.errors import StoreError
    from .racelog import RaceLog

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
        from .engine.errors import HeatlogError

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
    from .engine.errors import MalformedInput

    name, sep, colour = spec.partition(":")
    name, colour = name.strip(), colour.strip()
    if not name or not sep or not colour:
        raise MalformedInput(f"--car {spec!r}: write NAME:COLOUR, e.g. Ann:red")
    return {"name": name, "colour": colour}


@app.command()
@user_errors
def new(
    track: Annotated[str, typer.Option(help="usa, great-britain, france, italy, or a track file path.")] = "usa",
    car: Annotated[list[str] | None, typer.Option("--car", help="NAME:COLOUR, once per car (2–6).")] = None,
    laps: Annotated[int | None, typer.Option(help="Laps (default: the track's).")] = None,
    mode: Annotated[str, typer.Option(help="table (hands hidden) or open (every card known).")] = "table",
    variant: Annotated[str | None, typer.Option(help="one-lap: the one-lap learning race (# 17.1).")] = None,
    handicap: Annotated[
        list[str] | None, typer.Option("--handicap", help="Experienced driver: 5 Engine Heat (# 17.2).")
    ] = None,
    grid: Annotated[str | None, typer.Option(help="Grid order, comma-separated names (default: random).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed for the random grid order.")] = None,
    from_position: Annotated[
        Path | None, typer.Option("--from-position", help="Start from a position file (JSON).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="A name for the race.")] = None,
    db: DbOpt = None,
) -> None:
    """Start a race and print its id.

    Example: heatlog new --track usa --car Ann:red --car Bob:blue --car Cy:green --mode table
    """
    from .setup import start_race

    with open_log(db, create=True) as log:
        race = start_race(
            log,
            track=track,
            cars=[parse_car(c) for c in (car or [])],
            laps=laps,
            mode=mode,
            variant=variant,
            handicap=handicap or [],
            grid=[g.strip() for g in grid.split(",")] if grid else None,
            seed=seed,
            from_position=from_position,
            name=name,
        )
        proj = log.project(race)
        out_console().print(f"race {race}: {proj.state.track.name}, {proj.state.laps} laps, {proj.state.mode} mode")
        typer.echo(str(race))


@app.command()
@user_errors
def races(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """List the races and branches in the database.

    Example: heatlog races --json
    """
    with open_log(db) as log:
        infos = log.store.races()
        if as_json:
            typer.echo(json.dumps([_race_dict(i) for i in infos], indent=2))
            return
        from rich.table import Table

        table = Table(title=f"races in {log.path}")
        for col in ("id", "name", "track", "mode", "cars", "events", "branch of", "created"):
            table.add_column(col)
        for i in infos:
            m = i.meta
            table.add_row(
                str(i.id),
                i.name or "",
                str(m.get("track", "")),
                str(m.get("mode", "")),
                ", ".join(m.get("cars", [])),
                str(i.event_count),
                f"{i.parent} @ {i.fork_seq}" if i.parent else "",
                i.created[:19],
            )
        out_console().print(table)


def _race_dict(i: Any) -> dict[str, Any]:
    return {
        "id": i.id,
        "name": i.name,
        "created": i.created,
        "parent": i.parent,
        "fork_seq": i.fork_seq,
        "meta": i.meta,
        "events": i.event_count,
    }


@app.command()
@user_errors
def show(race: RaceOpt = None, round: RoundOpt = None, as_json: JsonOpt = False, db: DbOpt = None) -> None:
    """Show a race's state: the board, each car, and what the race waits for.

    Example: heatlog show --race 2 --round 5
    """
    from .engine.position import state_to_position
    from .views.board import render_state

    with open_log(db) as log:
        rid = log.resolve(race)
        proj = log.project(rid, round=round)
        if as_json:
            typer.echo(json.dumps(state_to_position(proj.state), indent=1, sort_keys=True))
            return
        render_state(out_console(), proj.state, race=rid)


@app.command()
@user_errors
def replay(
    race: RaceOpt = None,
    round: Annotated[
        int | None, typer.Option("--round", help="Print round N (default: step through them all).")
    ] = None,
    car: Annotated[str | None, typer.Option("--car", help="Narrate only this car's turns.")] = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Write one self-contained HTML replay to this file instead.")
    ] = None,
    db: DbOpt = None,
) -> None:
    """Replay a race (or branch) round by round: the track, each car's turn, and what happened, in words.

    In a terminal it steps (n/→ next, p/← previous, a number + Enter jumps, q quits); piped, or with --round,
    it prints. With --html it writes a page with the circuit, round controls and lap and Heat charts.

    Example: heatlog replay --race 2 --round 5 --car Ann;  heatlog replay --html race.html
    """
    from .views.replay import load_replay

    with open_log(db) as log:
        rp = load_replay(log, race)
    rp.check_car(car)
    if html is not None:
        from .views.replay_html import write_html

        write_html(rp, html, round=round)
        err_console().print(f"race {rp.race}: {len(rp.rounds)} rounds written to {html}", markup=False)
        return
    from .views.stepper import print_rounds, step_rounds

    if round is None and sys.stdin.isatty() and sys.stdout.isatty():
        step_rounds(out_console(), rp, car=car)
    else:
        print_rounds(out_console(), rp, round=round, car=car)


@app.command()
@user_errors
def position(race: RaceOpt = None, round: RoundOpt = None, db: DbOpt = None) -> None:
    """Print the position (complete state as JSON, schema/position.schema.json).

    Example: heatlog position --round 3 > r3.json
    """
    from .engine.position import state_to_position

    with open_log(db) as log:
        rid = log.resolve(race)
        proj = log.project(rid, round=round)
        typer.echo(json.dumps(state_to_position(proj.state), indent=1, sort_keys=True))


@app.command()
@user_errors
def add(
    event: Annotated[str, typer.Argument(help="The event as JSON, or - to read JSON from standard input.")],
    race: RaceOpt = None,
    db: DbOpt = None,
) -> None:
    """Append one event (validated against its schema and the rules first).

    Example: heatlog add '{"type": "gear_chosen", "v": 1, "car": "Ann", "gear": 2}'
    """
    from .engine.decide import waiting_for
    from .engine.errors import MalformedInput

    text = sys.stdin.read() if event == "-" else event
    try:
        ev = json.loads(text)
    except ValueError as exc:
        raise MalformedInput(f"not JSON: {exc}", input=text) from None
    if isinstance(ev, dict):
        ev.setdefault("v", 1)
    with open_log(db) as log:
        rid = log.resolve(race)
        seq, proj = log.append(rid, ev)
        w = waiting_for(proj.state)
        typer.echo(f"race {rid}: event {seq} recorded; next: {w.text}")


@app.command()
@user_errors
def note(
    text: Annotated[str, typer.Argument(help="The note.")],
    car: Annotated[str | None, typer.Option(help="The car the note is about.")] = None,
    race: RaceOpt = None,
    db: DbOpt = None,
) -> None:
    """Attach a free-text note at the current point of the race.

    Example: heatlog note "Bob's cards were knocked over; order re-checked"
    """
    with open_log(db) as log:
        rid = log.resolve(race)
        proj = log.project(rid)
        ev: dict[str, Any] = {"type": "note", "v": 1, "text": text, "round": proj.state.round}
        if car:
            ev["car"] = car
        seq, _ = log.append(rid, ev, proj)
        typer.echo(f"race {rid}: note {seq} recorded at round {proj.state.round}")


@app.command()
@user_errors
def undo(
    reason: Annotated[str | None, typer.Option(help="Why the entry is withdrawn.")] = None,
    race: RaceOpt = None,
    db: DbOpt = None,
) -> None:
    """Retract the latest entry in force (a correction event; the original stays in the log).

    Example: heatlog undo --reason "wrong car"
    """
    with open_log(db) as log:
        rid = log.resolve(race)
        target = log.effective(rid).entries[-1]
        seq, _ = log.retract_last(rid, reason)
        typer.echo(f"race {rid}: event {target.seq} ({target.event['type']}) retracted by event {seq}")


@app.command()
@user_errors
def branch(
    at_round: Annotated[int, typer.Option("--at-round", help="The branch starts at the start of this round.")],
    name: Annotated[str, typer.Option(help="A name for the branch.")],
    race: RaceOpt = None,
    db: DbOpt = None,
) -> None:
    """Create a what-if branch from the start of a round; prints the branch id.

    Example: heatlog branch --at-round 4 --name "Ann boosts"
    """
    with open_log(db) as log:
        rid = log.resolve(race)
        bid = log.branch(rid, at_round, name)
        err_console().print(f"branch {bid} of race {rid} at the start of round {at_round}")
        typer.echo(str(bid))


@app.command()
@user_errors
def audit(
    race: RaceOpt = None,
    all_races: Annotated[bool, typer.Option("--all", help="Audit every race.")] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Re-verify hash chains, schemas and rules; report every problem. Exit 0 clean, 1 problems, 2 unreadable.

    Example: heatlog audit --all --json
    """
    from .audit import audit_races, render_audit
    from .engine.errors import HeatlogError

    try:
        log = open_log(db)
        ids = [i.id for i in log.store.races()] if all_races else [log.resolve(race)]
    except HeatlogError as err:
        raise fail(str(err), 2) from None
    with log:
        reports = audit_races(log, ids)
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
    db: DbOpt = None,
) -> None:
    """Export a race's log as JSON Lines (one event per line).

    Example: heatlog export --race 1 -o race1.jsonl
    """
    with open_log(db) as log:
        text = log.store.export_jsonl(log.resolve(race))
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
    from .setup import import_race

    text = file.read_text(encoding="utf-8")
    with open_log(db, create=True) as log:
        rid = import_race(log, text, name=name or file.stem, source=str(file))
        err_console().print(f"imported {file} as race {rid}")
        typer.echo(str(rid))


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
    from .recorder import record as run_recorder

    with open_log(db, create=new) as log:
        code = run_recorder(log, race=race, new=new, force=force)
    raise typer.Exit(code)


@app.command()
@user_errors
def simulate(
    track: Annotated[str, typer.Option(help="usa, great-britain, france, italy, or a track file path.")] = "usa",
    cars: Annotated[int, typer.Option(help="Cars (2–6), named Red, Blue, Green, Yellow, Black, White.")] = 4,
    laps: Annotated[int | None, typer.Option(help="Laps (default: the track's).")] = None,
    variant: Annotated[str | None, typer.Option(help="one-lap: the one-lap learning race (# 17.1).")] = None,
    handicap: Annotated[
        list[str] | None, typer.Option("--handicap", help="A car whose driver is experienced: 5 Engine Heat (# 17.2).")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed (default: random, printed); race k uses seed+k-1.")] = None,
    bot: Annotated[str | None, typer.Option(help="The bot for every car: heuristic (default) or random.")] = None,
    bots: Annotated[str | None, typer.Option(help="One bot per car, in car order: heuristic,random,…")] = None,
    races: Annotated[int, typer.Option(help="How many races to play.")] = 1,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Play whole races with bots into the database and print the finishing order.

    Example: heatlog simulate --track italy --cars 6 --bots heuristic,random,random,random,random,random --seed 7
    """
    import random

    from .engine.errors import MalformedInput
    from .simulate import TurnLog, bot_label, bot_names, default_cars, finishing_table, simulate_race

    if bot is not None and bots is not None:
        raise MalformedInput("give --bot (one bot for every car) or --bots (one per car), not both")
    if races < 1:
        raise MalformedInput(f"--races {races}: play at least one race")
    names = [c["name"] for c in default_cars(cars)]
    spec: Any = [b.strip() for b in bots.split(",")] if bots else (bot or "heuristic")
    drivers = bot_names(spec, names)
    labels = {n: bot_label(b) for n, b in drivers.items()}
    first = seed if seed is not None else random.SystemRandom().randrange(2**31)
    console = out_console()
    results: list[dict[str, Any]] = []
    with open_log(db, create=True) as log:

        def one(k: int) -> None:
            watch = TurnLog()
            race, events, state = simulate_race(
                log,
                track=track,
                cars=cars,
                laps=laps,
                variant=variant,
                handicap=handicap or [],
                seed=first + k,
                bots=drivers,
                watch=watch,
            )
            rows = finishing_table(state, watch.turns(), labels)
            results.append(
                {
                    "race": race,
                    "seed": first + k,
                    "track": state.track.name,
                    "laps": state.laps,
                    "rounds": state.round,
                    "events": len(events),
                    "order": rows,
                }
            )

        if races == 1:
            one(0)
        else:
            from rich.progress import Progress

            with Progress(console=err_console(), transient=True) as progress:
                task = progress.add_task(f"simulating {races} races", total=races)
                for k in range(races):
                    one(k)
                    progress.advance(task)
    if as_json:
        typer.echo(json.dumps(results if races > 1 else results[0], indent=1))
        return
    _print_simulated(console, results, names, log.path)


def _print_simulated(console: Any, results: list[dict[str, Any]], names: list[str], path: Path) -> None:
    from rich.table import Table

    r = results[0]
    if len(results) == 1:
        table = Table(
            title=f"race {r['race']}: {r['track']}, {r['laps']} laps, seed {r['seed']}: {r['rounds']} rounds",
            caption="round: the round it finished in; Heat: left on the Engine",
        )
        for col in ("place", "car", "bot", "round", "spinouts", "boosts", "slipstreams", "Heat"):
            table.add_column(col)
        for row in r["order"]:
            table.add_row(
                str(row["place"]),
                row["car"],
                row["bot"],
                str(row["round"]),
                str(row["spinouts"]),
                str(row["boosts"]),
                str(row["slipstreams"]),
                str(row["engine"]),
            )
        console.print(table)
        return
    table = Table(
        title=f"{len(results)} races on {r['track']}: seeds {r['seed']}–{results[-1]['seed']}, "
        f"races {r['race']}–{results[-1]['race']} in {path}"
    )
    for col in ("car", "bot", "wins", "mean place", "spinouts per race"):
        table.add_column(col)
    for car in names:
        places = [next(row for row in res["order"] if row["car"] == car) for res in results]
        table.add_row(
            car,
            places[0]["bot"],
            str(sum(p["place"] == 1 for p in places)),
            f"{sum(p['place'] for p in places) / len(places):.2f}",
            f"{sum(p['spinouts'] for p in places) / len(places):.2f}",
        )
    console.print(table)
    rounds = [res["rounds"] for res in results]
    mean = sum(rounds) / len(rounds)
    console.print(f"mean race length: {mean:.1f} rounds (shortest {min(rounds)}, longest {max(rounds)})")


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
    from .demo import run_demo

    with open_log(db, create=True) as log:
        clean = run_demo(log, out_console(), html)
    raise typer.Exit(0 if clean else 1)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
