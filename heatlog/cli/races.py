"""Start races and look at them: new, races, show, replay, position."""

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from .common import (
    DbOpt,
    JsonOpt,
    RaceOpt,
    RoundOpt,
    app,
    creating_log,
    err_console,
    open_log,
    out_console,
    parse_car,
    user_errors,
)


@app.command()
@user_errors
def new(
    track: Annotated[
        str,
        typer.Option(
            help="usa, great-britain, france, italy, japan, mexico, spain, netherlands, or a track file path."
        ),
    ] = "usa",
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
    legend: Annotated[
        list[str] | None,
        typer.Option(
            "--legend", help="A Legend car by its Legend colour (black blue green red gray yellow); once each."
        ),
    ] = None,
    pro: Annotated[int, typer.Option(help="Pro Legends: +N to every helmet number, 0–6 (MODULES.md 19.15).")] = 0,
    aggressive: Annotated[
        bool, typer.Option("--aggressive", help="Aggressive Legends: chevrons let them cross more corners (19.14).")
    ] = False,
    weather: Annotated[
        bool, typer.Option("--weather", help="Weather and road conditions (MODULES.md 20): drawn at set-up.")
    ] = False,
    tile: Annotated[str | None, typer.Option(help="With --weather: the weather tile drawn (else asked later).")] = None,
    road: Annotated[
        str | None, typer.Option(help="With --tile: the road-condition tokens, one per corner, comma-separated.")
    ] = None,
    db: DbOpt = None,
) -> None:
    """Start a race and print its id.

    Example: heatlog new --track usa --car Ann:red --car Bob:blue --car Cy:green --mode table

    Solo against Legends, with the weather: heatlog new --car Ann:red --legend black --legend blue --weather
    """
    from ..races import legend_name, start_race

    with creating_log(db) as log:
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
            legends=[{"name": legend_name(c), "colour": c.strip().lower()} for c in legend or []],
            pro=pro,
            aggressive=aggressive,
            weather=weather or tile is not None,
            weather_tile=tile,
            road_tokens=[t.strip() for t in road.split(",")] if road else None,
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
        if not sys.stdout.isatty():
            # Piped: one tab-separated line per race, nothing cut to a terminal's width (and no table to
            # lay out: thousands of races print at once).
            from ..usertext import visible

            lines = ["\t".join(("id", "name", "track", "mode", "cars", "events", "branch of", "created"))]
            for i in infos:
                m = i.meta
                cells = (
                    str(i.id),
                    i.name or "",
                    str(m.get("track", "")),
                    str(m.get("mode", "")),
                    ", ".join(map(str, m.get("cars", []))),
                    str(i.event_count),
                    f"{i.parent} @ {i.fork_seq}" if i.parent else "",
                    i.created[:19],
                )
                lines.append("\t".join(visible(c).replace("\t", "\\t") for c in cells))
            sys.stdout.write("\n".join(lines) + "\n")
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
    from ..engine.position import state_to_position
    from ..views.board import render_state

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
    from ..views.replay import load_replay

    with open_log(db) as log:
        rp = load_replay(log, race)
    rp.check_car(car)
    if html is not None:
        from ..views.replay_html import write_html

        write_html(rp, html, round=round)
        err_console().print(f"race {rp.race}: {len(rp.rounds)} rounds written to {html}", markup=False)
        return
    from ..views.stepper import print_rounds, step_rounds

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
    from ..engine.position import state_to_position

    with open_log(db) as log:
        rid = log.resolve(race)
        proj = log.project(rid, round=round)
        typer.echo(json.dumps(state_to_position(proj.state), indent=1, sort_keys=True))
