"""heatlog season: championship seasons (MODULES.md 21): new, next, show, list, export, import, audit."""

from pathlib import Path
from typing import Annotated, Any

import typer

from .common import (
    FROM_REGISTRY,
    DbOpt,
    JsonOpt,
    ModuleFlags,
    app,
    creating_log,
    module_flags,
    open_log,
    out_console,
    parse_car,
    print_table,
    user_errors,
)

season_app = typer.Typer(
    name="season",
    help="Championship seasons: a season of races with event cards and points (MODULES.md 21).\n\n"
    "Example: heatlog season new --published 1961 --car Ann:red --car Bob:blue --car Cy:green",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
app.add_typer(season_app, name="season")

SeasonArg = Annotated[int, typer.Argument(help="The season's id (heatlog season list).")]


@season_app.command("new")
@user_errors
@module_flags("season")
def new(
    published: Annotated[
        str | None, typer.Option(help="A published season: 1961, 1962, 1963 (base), 1964 (Heavy Rain), 1965.")
    ] = None,
    race: Annotated[
        list[str] | None,
        typer.Option("--race", help="A custom season instead: TRACK:EVENT per race, in order (e.g. japan:11)."),
    ] = None,
    car: Annotated[list[str] | None, typer.Option("--car", help="NAME:COLOUR, once per driver (2–6).")] = None,
    grid: Annotated[
        str, typer.Option(help="Grid of races 2..: standings (leader on pole, # 21.12) or random (MA11).")
    ] = "standings",
    keep_sponsors: Annotated[
        bool, typer.Option(help="Unused sponsorship cards stay in the deck for later races (MA7).")
    ] = True,
    mode: Annotated[str, typer.Option(help="table (hands hidden) or open (every card known).")] = "table",
    name: Annotated[str | None, typer.Option(help="A name for the season.")] = None,
    modules: ModuleFlags = FROM_REGISTRY,  # every module's options (engine/module.py: Module.flags)
    db: DbOpt = None,
) -> None:
    """Set up a season and print its id; then start each race with `heatlog season next ID`.

    Example: heatlog season new --published 1964 --car Ann:red --car Bob:blue --garage basic --expansion heavy-rain
    --weather
    """
    from ..engine.errors import MalformedInput
    from ..season import new_season, season_view
    from ..views import counted

    races = None
    if race:
        races = []
        for spec in race:
            track, sep, number = spec.rpartition(":")
            if not sep or not track or not number.strip().isdecimal():
                raise MalformedInput(f"--race {spec!r}: write TRACK:EVENT, e.g. usa:7 (event cards 1..18)")
            races.append((track.strip(), int(number)))
    if grid not in ("standings", "random"):
        raise MalformedInput(f"--grid {grid!r}: choose standings or random")
    mode = mode.strip().lower()  # in any case, as new takes it
    if mode not in ("table", "open"):
        raise MalformedInput(f"--mode {mode!r}: choose table or open")
    options = modules.options()  # each module's options, read by its season hook (Module.season, issue 26)
    drivers = [parse_car(c) for c in (car or [])]
    typed: dict[str, str | list[str]] = {  # a refusal names the option as typed (issue 29), not the season's field
        "published": f"--published {published}",
        "races": [f"--race {spec}" for spec in race or []],
        "drivers": [f"--car {spec}" for spec in car or []],
        "name": "--name",
        **modules.typed_values(),  # each module's options, by its flag's parameter (Module.flags)
    }
    with creating_log(db) as log:  # a refused season leaves no new database behind
        season = new_season(
            log,
            drivers=drivers,
            published=published,
            races=races,
            name=name,
            grid=grid,
            sponsors_carry_over=keep_sponsors,
            mode=mode,
            modules=options,
            typed=typed,
        )
        view = season_view(log, season)
        plan = ", ".join(f"{r.track['name']} ({r.event.name})" for r in view.races)
        out_console().print(f"season {season}: {view.name}, {counted(len(view.races), 'race')}: {plan}", markup=False)
        typer.echo(str(season))


@season_app.command("next")
@user_errors
def next_(
    season: SeasonArg,
    seed: Annotated[int | None, typer.Option(help="Seed for the random grid of the first race.")] = None,
    handicap: Annotated[
        list[str] | None,
        typer.Option(help="A driver who takes the experienced-driver handicap in this race (# 17.2, 21.14)."),
    ] = None,
    db: DbOpt = None,
) -> None:
    """Start the season's next race, set up from the season (circuit, event card, grid); print its id.

    Example: heatlog season next 1;  heatlog season next 1 --handicap Ann
    """
    from ..log.season_view import season_files
    from ..season import next_race, season_view, unapplied_effects
    from ..views import counted

    with open_log(db) as log:
        race = next_race(log, season, seed=seed, handicap=handicap or [])
        view = season_view(log, season)
        sr = next(r for r in view.races if r.race == race)
        proj = log.project(race)
        con = out_console()
        con.print(
            f"race {race}: race {sr.index} of {view.name}, {proj.state.track.name}, "
            f"{counted(proj.state.laps, 'lap')}, "
            f"event {sr.event.number} {sr.event.name}; grid {', '.join(proj.state.grid)}",
            markup=False,
        )
        for unit, _ in view.blocks:  # each module's lines (SeasonHook.next_lines: the draft)
            if unit.season is not None and unit.season.next_lines is not None:
                for line in unit.season.next_lines(view, sr.index, proj.state, season_files(unit)):
                    con.print(line, markup=False)
        missing = unapplied_effects(sr.event, view.version, view.sponsors, view.effects)
        if missing:
            con.print(f"not applied by heatlog yet: {'; '.join(missing)}", markup=False)
        typer.echo(str(race))


@season_app.command("result")
@user_errors
@module_flags("season result")
def result(
    season: SeasonArg,
    places: Annotated[
        str, typer.Option(help="The finishing order, winner first: every driver once, e.g. Bob,Ann,Cy (# 16.7).")
    ],
    eliminated: Annotated[
        str | None, typer.Option(help="Drivers eliminated by a spinout under event 10, placed last (MA21).")
    ] = None,
    grid: Annotated[
        str | None,
        typer.Option(help="The race's grid, pole first (race 1 of a Garage season: its draft order, # 21.2)."),
    ] = None,
    modules: ModuleFlags = FROM_REGISTRY,  # each season module's facts (SeasonHook.result_flags: the Garage's)
    db: DbOpt = None,
) -> None:
    """Enter the season's next race by its result, for a race the group played without recording it: the
    finishing order and what the season needs (the draft, the sponsorship cards). Checked by the rules first:
    nothing is written on a refusal. The race is marked "entered by result" everywhere (it has no log to replay).

    Example: heatlog season result 1 --places Bob,Ann,Cy --pick Ann:body5 --pick Bob:brakes --pick Cy:cool
    --dealt Ann:dramdo --press Bob:lord
    """
    from ..season import enter_result, season_view

    with open_log(db) as log:
        index, _ = enter_result(
            log,
            season,
            places=places,
            eliminated=eliminated,
            grid=grid,
            **modules.values,  # each season module's options, by the field they fill (SeasonHook.result_flags)
        )
        view = season_view(log, season)
    sr = view.races[index - 1]
    points = ", ".join(f"{n} {p}" for n, p in (sr.result.points.items() if sr.result else ()))
    out_console().print(
        f"season {season}: race {index} ({sr.track['name']}) entered by result: {points} (# 21.10)", markup=False
    )
    if view.next_index is not None:
        out_console().print(f"next: heatlog season next {season}  (race {view.next_index})", markup=False)


@season_app.command("list")
@user_errors
def list_(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """List the seasons in the database: how many of their races have been run, who leads (or won), when each
    was started. Piped, one tab-separated line per season under a header; --json for scripts.

    Example: heatlog season list --json
    """
    import sys

    from ..engine.errors import StoreError
    from ..season import season_view, seasons

    unreadable: list[str] = []
    with open_log(db) as log:
        listed = []
        for i, n, c in seasons(log):
            damaged: list[Any] = []
            try:
                view = season_view(log, i, damaged=damaged.append)  # a damaged race: the standings stop before it
            except StoreError as err:  # a damaged stream: named, the other seasons listed
                unreadable.append(str(err))
                continue
            listed.append((i, n, c, view, damaged[0].problem.race if damaged else None))
        path = log.path
    if unreadable:
        from .common import err_console

        for why in unreadable:
            err_console().print(f"Warning: {why}", markup=False, soft_wrap=True)
    if as_json:
        out = [{"id": i, "name": n, "created": c, **_progress(view, damaged)} for i, n, c, view, damaged in listed]
        import json

        typer.echo(json.dumps(out, indent=2, ensure_ascii=False, allow_nan=False))
        return
    if not listed:  # it printed nothing at all (on standard error: a script reading the list reads none)
        from .common import err_console

        err_console().print(f"no seasons in {path} (heatlog season new starts one)", markup=False)
        return
    header = ("id", "name", "races", "leader", "created")
    rows = [(str(i), n or "", *_progress_cells(view, damaged), c[:19]) for i, n, c, view, damaged in listed]
    if not sys.stdout.isatty():  # piped: tab-separated, nothing cut (as heatlog races)
        from ..formats.usertext import sheet_cell, visible

        cells = [[sheet_cell(visible(x).replace("\t", "\\t")) for x in r] for r in rows]  # no formula (OWASP)
        lines = ["\t".join(header)] + ["\t".join(r) for r in cells]
        sys.stdout.write("\n".join(lines) + "\n")
        return
    import shutil

    from ..views.listing import aligned

    con = out_console()
    rows = [(*r[:4], r[4][:16].replace("T", " ")) for r in rows]
    lines = aligned(header, rows, width=shutil.get_terminal_size().columns, flexible=(1, 3))
    con.print(f"seasons in {path}", style="bold", markup=False, highlight=False)
    con.print(lines[0], style="bold", markup=False, highlight=False, soft_wrap=True)
    for line in lines[1:]:
        con.print(line, markup=False, highlight=False, soft_wrap=True)


def _progress(view: Any, damaged: int | None) -> dict[str, Any]:
    """A season's progress for ``season list --json``: races run of all, over, the leader (or champion) and
    their points (# 21.10), and the race whose damaged log stopped the standings, if any."""
    top = view.tables[-1][0] if view.tables else None
    return {
        "races": len(view.races),
        "run": len(view.tables),
        "over": view.over and damaged is None,
        "leader": None if top is None else {"name": top.name, "points": top.points},
        "damaged_race": damaged,
    }


def _progress_cells(view: Any, damaged: int | None) -> tuple[str, str]:
    from ..views import counted

    p = _progress(view, damaged)
    if damaged is not None:
        races = f"{p['run']} of {p['races']} run; race {damaged} is damaged"
    elif p["over"]:
        races = f"{counted(p['races'], 'race')}: over"
    else:
        races = f"{p['run']} of {counted(p['races'], 'race')} run"
    lead = p["leader"]
    leader = "" if lead is None else f"{lead['name']} ({counted(lead['points'], 'point')})"
    if lead is not None and p["over"]:
        leader = f"champion {leader}"
    return races, leader


@season_app.command("show")
@user_errors
def show(
    season: SeasonArg,
    as_json: JsonOpt = False,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Write the season page to this file (and each race's replay beside it)."),
    ] = None,
    db: DbOpt = None,
) -> None:
    """The standings after each race: points per race, total, wins; which races are still to come.

    With --html it writes a page with the standings chart across the races and a link to each race's replay.

    Example: heatlog season show 1 --json;  heatlog season show 1 --html season.html
    """
    from ..season import season_view

    with open_log(db) as log:
        view = season_view(log, season)
        if html is not None:
            from ..views.season_html import write_season_html

            files = write_season_html(log, view, html)
            from ..views import counted

            out_console().print(
                f"season {season}: {counted(len(files), 'page')} written ({html}"
                + (" and its races)" if len(files) > 1 else "; no race run yet)"),
                markup=False,
            )
            return
        data = season_dict(view)
        if as_json:
            import json

            typer.echo(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False))
            return
        print_season(data)


def season_dict(view: Any) -> dict[str, Any]:
    from ..engine.module import season_units
    from ..season import unapplied_effects

    hooks = [u.season for u in season_units() if u.season is not None]  # every season module's keys (one shape)

    races = []
    for sr in view.races:
        races.append(
            {
                "index": sr.index,
                "track": sr.track["id"],
                "circuit": sr.track["name"],
                "event": {"number": sr.event.number, "name": sr.event.name},
                "race": sr.race,
                "mark": sr.how_words(),
                "finished": sr.result is not None,
                # issue 29: table (recorded), bots (finished by bots: heatlog play-on) or result (entered by result)
                "recorded": sr.how if sr.result is not None or sr.by_result else None,
                "played_on": sr.played_on.to_dict() if sr.played_on is not None else None,
                "places": list(sr.result.places) if sr.result else None,
                "points": dict(sr.result.points) if sr.result else None,
                "not_applied": unapplied_effects(sr.event, view.version, view.sponsors, view.effects),
                **{k: v for h in hooks if h.race_json is not None for k, v in h.race_json(sr).items()},
            }
        )
    tables = [
        [
            {
                "name": s.name,
                "points": s.points,
                "per_race": list(s.per_race),
                "wins": s.wins,
                "last_place": s.last_place,
            }
            for s in table
        ]
        for table in view.tables
    ]
    return {
        "season": view.id,
        "name": view.name,
        "drivers": view.drivers,
        "options": view.options,
        "mode": view.mode,
        "version": view.version,
        "races": races,
        "standings": tables,
        "over": view.over,
        "next": view.next_index,
        # each module's keys (SeasonHook.season_json: the Garage's options, upgrades, sponsorship cards kept)
        **{k: v for h in hooks if h.season_json is not None for k, v in h.season_json(view).items()},
    }


def print_season(data: dict[str, Any]) -> None:
    from rich.table import Table
    from rich.text import Text

    from ..views import counted

    con = out_console()
    done = sum(1 for r in data["races"] if r["finished"])
    run = f"{done} of {counted(len(data['races']), 'race')} run"
    con.print(f"season {data['season']}: {data['name']} — {run}", markup=False)
    races = Table(title="races")
    marked = any(r["mark"] for r in data["races"])
    for col in ("#", "circuit", "event", "race", "winner", *(("recorded",) if marked else ())):
        races.add_column(col)
    for r in data["races"]:
        races.add_row(
            str(r["index"]),
            Text(r["circuit"]),
            Text(f"{r['event']['number']} {r['event']['name']}"),
            "" if r["race"] is None else str(r["race"]),
            Text(r["places"][0] if r["places"] else ("under way" if r["race"] is not None else "")),
            *((Text(r["mark"]),) if marked else ()),
        )
    print_table(con, races)
    for r in data["races"]:  # issue 29: a result the table did not record is said in words, not only in a column
        if r["mark"] and r["finished"]:
            con.print(f"race {r['index']}: {r['mark']}; its result counts in the standings (# 21.10)", markup=False)
    if data["standings"]:
        last = data["standings"][-1]
        table = Table(title=f"standings after race {len(data['standings'])}")
        table.add_column("pos")
        table.add_column("driver")
        for r in data["races"][: len(data["standings"])]:
            table.add_column(f"R{r['index']}", justify="right")
        table.add_column("points", justify="right")
        table.add_column("wins", justify="right")
        for pos, row in enumerate(last, start=1):
            per_race = ("-" if p is None else str(p) for p in row["per_race"])
            table.add_row(str(pos), Text(row["name"]), *per_race, str(row["points"]), str(row["wins"]))
        print_table(con, table)
        if done == len(data["races"]):  # as the season page says it (issue 29, bug 13)
            con.print(f"Champion: {last[0]['name']} with {counted(last[0]['points'], 'point')} (# 21.10)", markup=False)
        level = [row for row in last if sum(1 for other in last if other["points"] == row["points"]) > 1]
        if level:
            names = ", ".join(f"{row['name']} ({row['points']})" for row in level)
            con.print(
                f"Level on points: {names}; the place in the last race run breaks the tie (# 21.10, MA12)", markup=False
            )
    from ..engine.module import season_units
    from ..log.season_view import season_files

    for unit in season_units():  # each module's lines (SeasonHook.show_lines: the upgrades, the cards kept)
        if unit.season is not None and unit.season.show_lines is not None:
            for line in unit.season.show_lines(data, season_files(unit)):
                con.print(line, markup=False)
    gaps = [r for r in data["races"] if r["not_applied"]]
    if gaps:
        con.print(
            "Not applied by heatlog (a season without the Garage has no sponsorship cards, # 21.4):", markup=False
        )
        for r in gaps:
            con.print(f"  race {r['index']}: {'; '.join(r['not_applied'])}", markup=False)
    running = [r for r in data["races"] if r["race"] is not None and not r["finished"] and r["recorded"] is None]
    if running:  # its next race cannot start before this one is over: record it (it said "season next")
        r = running[0]
        con.print(f"next: heatlog record --race {r['race']}  (race {r['index']} is under way)", markup=False)
    elif data["next"] is not None:
        con.print(f"next: heatlog season next {data['season']}  (race {data['next']})", markup=False)


@season_app.command("export")
@user_errors
def export(
    season: SeasonArg,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="File to write (default: standard output).")] = None,
    db: DbOpt = None,
) -> None:
    """Write the season and all its races as one JSON Lines file.

    Example: heatlog season export 1 --out season-1961.jsonl
    """
    from ..season import export_season

    with open_log(db) as log:
        text = export_season(log, season)
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")


@season_app.command("import")
@user_errors
def import_(
    path: Annotated[Path, typer.Argument(help="A season file (heatlog season export), or - to read standard input.")],
    db: DbOpt = None,
) -> None:
    """Import a season file: the season and every race, all checked first, or nothing.

    Example: heatlog season import season-1961.jsonl
    """
    from ..formats.jsonio import read_stdin, read_text_file
    from ..season import import_season

    piped = str(path) == "-"  # as heatlog import - and heatlog add - read standard input
    source = "standard input" if piped else str(path)
    # as heatlog import reads a file (UTF-8, size, not a database)
    text = read_stdin(source) if piped else read_text_file(path, "season file")
    with creating_log(db) as log:  # a refused import leaves no new database behind
        season = import_season(log, text, source=source)
    typer.echo(str(season))


@season_app.command("audit")
@user_errors
def audit(season: SeasonArg, db: DbOpt = None) -> None:
    """Check the season's stream and that every race's set-up is what the season says; exit 1 if not.

    Example: heatlog season audit 1
    """
    from ..season import audit_season

    with open_log(db) as log:
        problems = audit_season(log, season)
    for p in problems:
        typer.echo(p)
    if problems:
        raise typer.Exit(1)
    typer.echo(f"season {season}: ok")
