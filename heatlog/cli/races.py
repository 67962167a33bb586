"""Start races and look at them: new, races, show, replay, position."""

import contextlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from .common import (
    FROM_REGISTRY,
    DbOpt,
    ForceOpt,
    JsonOpt,
    ModuleFlags,
    ModuleOpt,
    RaceOpt,
    RoundOpt,
    TrackOpt,
    app,
    creating_log,
    err_console,
    given_options,
    module_flags,
    open_log,
    out_console,
    parse_car,
    user_errors,
    with_named,
)


@app.command()
@user_errors
@module_flags("new")
def new(
    ctx: typer.Context,
    track: TrackOpt = "usa",
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
    modules: ModuleFlags = FROM_REGISTRY,  # every module's options (engine/module.py: Module.flags)
    module: ModuleOpt = None,
    db: DbOpt = None,
) -> None:
    """Start a race and print its id.

    Example: heatlog new --track usa --car Ann:red --car Bob:blue --car Cy:green --mode table

    Solo against Legends, with the weather: heatlog new --car Ann:red --legend black --legend blue --weather

    With the Garage, snake-drafted: heatlog new --car Ann:red --car Bob:blue --garage advanced --draft snake
    """
    from ..engine.errors import MalformedInput
    from ..engine.module import race_words
    from ..races import start_race
    from ..views import counted

    if from_position is not None:
        # the position file holds the track, laps, cars, mode and variant: a set-up option beside it would be
        # dropped without a word (a race "in table mode" that is open, on another track)
        given = given_options(ctx, "track", "car", "laps", "mode", "variant", "handicap", "grid", "seed")
        given += modules.given(ctx) + given_options(ctx, "module")
        if given:
            raise MalformedInput(
                f"{', '.join(given)}: a race started from a position is set up as the position file says; "
                "give only --from-position (and --name)"
            )
    options = with_named(modules.options(), module or [])  # every module's options as one mapping (issue 26)
    drawn = modules.drawn()  # set-up draws given (the weather's --tile and --road, MODULES.md 20.2)
    if grid is not None and seed is not None:  # the seed draws a random grid: the log would name one not drawn
        raise MalformedInput("--seed draws a random grid (# 1.4): give --seed or --grid, not both")
    added = modules.typed_cars()  # the cars the modules add, as typed (a --legend COLOUR each, # 19.3)
    with creating_log(db) as log, _as_typed(car or [], added, laps, handicap or [], modules.typed()):
        race = start_race(
            log,
            track=track,
            cars=[parse_car(c) for c in (car or [])],
            laps=laps,
            mode=mode.strip().lower(),  # as printed or typed in any case, as --track and --legend take them
            variant=variant.strip().lower() if variant is not None else None,
            handicap=handicap or [],
            grid=[g.strip() for g in grid.split(",")] if grid else None,
            seed=seed,
            from_position=from_position,
            name=name,
            modules=options,  # # 18.3, 18.5: the Garage's draft is recorded after the grid
            drawn=drawn,
        )
        proj = log.project(race)
        length = counted(proj.state.laps, "lap")
        named = "".join(f", {words}" for words in race_words(proj.state))  # its modules, with their options
        out_console().print(f"race {race}: {proj.state.track.name}, {length}, {proj.state.mode} mode{named}")
        typer.echo(str(race))


@contextlib.contextmanager
def _as_typed(
    cars: list[str], added: list[str], laps: int | None, handicap: list[str], gives: dict[str, str]
) -> Iterator[None]:
    """A refusal of new's set-up named by the option typed, not by the field of the log the user never typed
    (``race_started: laps: 11 is …`` is ``--laps 11: …``; ``road_conditions_drawn: …`` is ``--road …: …``);
    ``added``: the cars the modules add as typed (``--legend black``), listed after the players' cars."""
    from ..engine.errors import HeatlogError

    try:
        yield
    except HeatlogError as err:
        typed = None
        kind = err.input.get("type") if isinstance(err.input, dict) else None
        if isinstance(kind, str) and kind in gives:  # a module's option recorded as a set-up event (Flag.gives)
            typed = gives[kind]
        what = err.message
        field = re.match(r"race_started: (laps|handicap\[(\d+)\]|cars\[(\d+)\]\.(?:name|colour)): ", what)
        if field is not None:
            at = int(field[2] or field[3] or 0)
            if field[1] == "laps":
                typed = f"--laps {laps}"
            elif field[2] is not None and at < len(handicap):
                typed = f"--handicap {handicap[at]}"
            elif field[3] is not None and at < len(cars):
                typed = f"--car {cars[at]}"
            elif field[3] is not None and at - len(cars) < len(added):
                typed = added[at - len(cars)]
            what = what[field.end() :] if typed is not None else what
        else:  # a module's refusal of a car's value with no field of its own to map (a Legend's colour, # 19.4)
            bad = re.search(r", not '([^']*)' \(# [\d.]+\)$", what)
            named = [x for x in added if bad is not None and x.partition(" ")[2].strip().lower() == bad[1]]
            if named:
                typed = named[0]
        if typed is None:
            raise
        raise type(err)(f"{typed}: {what}", rule=err.rule) from None


LIST_COLUMNS = ("id", "name", "track", "mode", "cars", "status", "winner", "rounds", "events", "branch of", "created")


@app.command()
@user_errors
def races(
    db: DbOpt = None,
    as_json: JsonOpt = False,
    all_races: Annotated[bool, typer.Option("--all", help="List simulated races too.")] = False,
    simulated: Annotated[bool, typer.Option("--simulated", help="List only the simulated races.")] = False,
) -> None:
    """List the races and branches in the database: status, winner and rounds of each.

    Simulated races (heatlog simulate) are left out unless --all or --simulated: a host's races are not
    buried under simulations. Piped, one tab-separated line per race (nothing cut); --json for scripts.

    Example: heatlog races;  heatlog races --all --json
    """
    from ..log.racelist import list_races

    if all_races and simulated:  # refused as every other pair of options is (a usage error said it otherwise)
        from ..engine.errors import MalformedInput

        raise MalformedInput("--all lists every race and --simulated only the simulated ones: choose one")
    which = None if all_races else simulated
    with open_log(db) as log:

        def progress(done: int, todo: int) -> None:
            if done == 1 and todo > 50 and sys.stderr.isatty():  # only a first list of many races waits
                err_console().print(
                    f"summarising {todo} races (once: kept for the next list) …", style="dim", markup=False
                )

        listed, hidden = list_races(log, simulated=which, progress=progress)
        path = log.path
    if as_json:
        import json

        typer.echo(json.dumps([_race_dict(x) for x in listed], indent=2, allow_nan=False))
        return
    rows = [_race_cells(x) for x in listed]
    if not sys.stdout.isatty():
        # Piped: one tab-separated line per race, nothing cut to a terminal's width (and no table to lay out:
        # thousands of races print at once).
        from ..formats.usertext import sheet_cell, visible

        cells = [[sheet_cell(visible(c).replace("\t", "\\t")) for c in r] for r in rows]  # no formula (OWASP)
        lines = ["\t".join(LIST_COLUMNS)] + ["\t".join(r) for r in cells]
        sys.stdout.write("\n".join(lines) + "\n")
        if hidden and which is False:  # on standard error: what a script reads stays the list
            err_console().print(_hidden_hint(hidden), markup=False, soft_wrap=True)
        return
    import shutil

    from ..views.listing import aligned

    out = out_console()
    # A terminal: the date to the minute; mode, events and "branch of" (first when no race is a branch) give way
    # while lines do not fit, then the date while the name, the cars and the status would be cut below 12 cells
    # (at 80 columns every name was "usa…"), then they are cut with "…" (piped output above never cuts).
    rows = [(*r[:10], r[10][:16].replace("T", " ")) for r in rows]
    optional = [3, 8, 9] if any(x.info.parent for x in listed) else [9, 3, 8]
    width = shutil.get_terminal_size().columns
    lines = aligned(LIST_COLUMNS, rows, width=width, flexible=(1, 4, 5), optional=optional, before_cutting=[10])
    out.print(f"races in {path}", style="bold", markup=False, highlight=False)
    out.print(lines[0], style="bold", markup=False, highlight=False, soft_wrap=True)
    sys.stdout.flush()
    out.file.write("".join(line + "\n" for line in lines[1:]))
    out.file.flush()
    if not listed:
        out.print("no races" + (" of your own" if hidden else ""), style="dim", markup=False)
    if hidden and which is False:
        out.print(_hidden_hint(hidden), style="dim", markup=False)


def _hidden_hint(hidden: int) -> str:
    return f"{hidden} simulated race{'s' if hidden != 1 else ''} not listed: heatlog races --all"


def _race_cells(x: Any) -> tuple[str, ...]:
    i, s = x.info, x.summary
    m = i.meta
    return (
        str(i.id),
        i.name or "",
        str(m.get("track", "")),
        str(m.get("mode", "")),
        ", ".join(map(str, m.get("cars", []))),
        x.status_words(),
        s.get("winner") or "",
        str(s.get("round") or ""),
        str(i.event_count),
        f"{i.parent} @ {i.fork_seq}" if i.parent else "",
        i.created[:19],
    )


def _race_dict(x: Any) -> dict[str, Any]:
    i = x.info
    return {
        "id": i.id,
        "name": i.name,
        "created": i.created,
        "parent": i.parent,
        "fork_seq": i.fork_seq,
        "meta": i.meta,
        "events": i.event_count,
        "simulated": x.simulated,
        "status": x.summary["status"],
        "winner": x.summary.get("winner"),
        "rounds": x.summary.get("round"),
        "played_on": x.summary.get("played_on"),  # issue 29: the round bots took over (heatlog play-on), or None
    }


@app.command()
@user_errors
def show(
    race: RaceOpt = None, round: RoundOpt = None, as_json: JsonOpt = False, force: ForceOpt = False, db: DbOpt = None
) -> None:
    """Show a race's state: the board, each car, and what the race waits for.

    Example: heatlog show --race 2 --round 5
    """
    from ..engine.position import state_to_position
    from ..views.board import render_state
    from ..views.plain import write

    with open_log(db, force=force, reader=True) as log:
        rid = log.resolve(race)
        # the end: from the latest round start (docs/store.md, "What a read checks")
        proj = log.project(rid, round=round) if round is not None else log.latest(rid).projection
        if as_json:
            import json

            typer.echo(json.dumps(state_to_position(proj.state), indent=1, sort_keys=True, allow_nan=False))
            return
        # piped: written as rich would write it, without importing rich's console (views/plain.py)
        write(lambda console: render_state(console, proj.state, race=rid), out_console)
        if proj.state.phase == "over" and round is None:  # the play for BG Stats (issue 29, Build 6)
            from ..views.bgstats import bgstats_link

            typer.echo(f"BG Stats (open on the phone to log the play): {bgstats_link(proj.state)}")


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
    force: ForceOpt = False,
    db: DbOpt = None,
) -> None:
    """Replay a race (or branch) round by round: the track, each car's turn, and what happened, in words.

    In a terminal it steps (n/→ next, p/← previous, a number + Enter jumps, q quits), a round a screen: one
    taller than the terminal is read a page at a time (m more, b back). Piped, or with --round, it prints.
    With --html it writes a page with the circuit, round controls and lap and Heat charts.

    Example: heatlog replay --race 2 --round 5 --car Ann;  heatlog replay --html race.html
    """
    from ..engine.errors import MalformedInput
    from ..views.replay import load_replay, load_round

    if html is not None and car is not None:  # the page tells every car's turns; --car was dropped there
        raise MalformedInput("--car narrates one car in the terminal; the HTML page tells every car: leave out one")
    with open_log(db, force=force, reader=True) as log:
        # One round printed (not the HTML page, which holds them all): only that round is folded and narrated.
        rp = load_round(log, race, round) if round is not None and html is None else load_replay(log, race)
    rp.check_car(car)
    if html is not None:
        from ..views.replay_html import write_html

        write_html(rp, html, round=round)
        from ..views import counted

        err_console().print(f"race {rp.race}: {counted(len(rp.rounds), 'round')} written to {html}", markup=False)
        return
    from ..views.stepper import print_rounds, step_rounds

    if round is None and sys.stdin.isatty() and sys.stdout.isatty():
        step_rounds(out_console(), rp, car=car)
    else:
        from ..views.plain import write

        write(lambda console: print_rounds(console, rp, round=round, car=car), out_console)


@app.command()
@user_errors
def position(race: RaceOpt = None, round: RoundOpt = None, force: ForceOpt = False, db: DbOpt = None) -> None:
    """Print the position (complete state as JSON, schema/position.schema.json).

    Example: heatlog position --round 3 > r3.json
    """
    from ..engine.position import state_to_position

    with open_log(db, force=force, reader=True) as log:
        rid = log.resolve(race)
        proj = log.project(rid, round=round)
        import json

        typer.echo(json.dumps(state_to_position(proj.state), indent=1, sort_keys=True, allow_nan=False))
