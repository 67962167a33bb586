"""Statistics: stats (one race per car, or many races per driver with ratings) and turns (the derived table)."""

import os
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .common import (
    DbOpt,
    JsonOpt,
    RaceOpt,
    app,
    err_console,
    fail,
    fill_table,
    open_log,
    out_console,
    print_table,
    progress_steps,
    user_errors,
)

if TYPE_CHECKING:
    from ..stats import Career, RaceStats, Tally
    from ..store import DamagedLog


@app.command()
@user_errors
def stats(
    race: RaceOpt = None,
    all_races: Annotated[bool, typer.Option("--all", help="Every race (not branches), per driver name.")] = False,
    track: Annotated[str | None, typer.Option("--track", help="Races on this track (id, e.g. usa).")] = None,
    driver: Annotated[str | None, typer.Option("--driver", help="Only this driver, over every race.")] = None,
    season: Annotated[
        int | None,
        typer.Option("--season", help="The races of this championship season, with its points and standings."),
    ] = None,
    branches: Annotated[bool, typer.Option("--branches", help="Count what-if branches as races too.")] = False,
    as_json: JsonOpt = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV (one row per car or driver).")] = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Ignore the derived turns table; rebuild it.")] = False,
    db: DbOpt = None,
) -> None:
    """Statistics of a race per car (Heat paid and cooled, Stress, spinouts, slipstreams, boosts, speed per gear,
    corners, rounds led, place); with --all, --track or --driver, of many races per driver name, with wins, mean
    place and an openskill rating.

    Per-turn facts come from the derived `turns` table while it matches the log, else from the log (and the
    table is refreshed). Ctrl-C during a long run prints what was read so far, marked partial. Over many races,
    a race whose log is damaged (its hash chain broken) is left out and named on standard error after the
    statistics of the others, and the exit status is 1 (as `heatlog anchor`); `heatlog audit` lists its problems.

    With --season, the season's races: its standings (points per race, total, wins; MODULES.md 21.10) beside
    each driver's statistics and rating over those races; a damaged race is left out in the same way, and the
    standings stop before it.

    Example: heatlog stats --race 3;  heatlog stats --all --csv > drivers.csv;  heatlog stats --season 1
    """
    from ..engine.errors import MalformedInput
    from ..stats import TurnsTable, career, race_stats
    from ..store import DamagedLog

    if as_json and as_csv:
        raise MalformedInput("choose one of --json and --csv")
    many = all_races or track is not None or driver is not None
    if many and race is not None:
        raise MalformedInput("--race is one race; --all, --track and --driver are many races: choose one")
    if season is not None and (many or race is not None or branches):
        raise MalformedInput("--season reads the season's races: give it alone")
    if branches and not many and season is None:  # one race: there is nothing to count the branches among
        raise MalformedInput("--branches counts what-if branches among many races: give --all, --track or --driver")
    with open_log(db) as log:
        table = TurnsTable(log)
        if season is not None:
            damaged = _season_stats(log, table, season, rebuild, as_json, as_csv)
            if damaged:
                raise _left_out(damaged)
            return
        if not many:
            rid = log.resolve(race)
            facts = next(iter(table.facts([rid], rebuild=rebuild)))
            _print_race(race_stats(facts).to_dict() if as_json else race_stats(facts), as_json, as_csv)
            return
        infos = [i for i in log.store.races() if branches or i.parent is None]
        if track is not None:
            from ..formats.tracks import builtin_track_id

            track = builtin_track_id(track) or track  # as new --track names them: gb, USA, españa (a user's id as is)
            known = {str(i.meta.get("track")) for i in infos}
            if track not in known:
                raise MalformedInput(f"no race on track {track!r} (tracks: {', '.join(sorted(known)) or 'none'})")
            infos = [i for i in infos if i.meta.get("track") == track]
        if driver is not None:
            infos = [i for i in infos if driver in i.meta.get("cars", [driver])]
        ids = [i.id for i in infos]
        read: list[Any] = []
        partial = False
        left_out: list[DamagedLog] = []
        try:
            with progress_steps(len(ids), "reading races") as advance:
                for facts in table.facts(ids, rebuild=rebuild, progress=advance, damaged=left_out.append):
                    if track is None or facts.track == track:
                        read.append(facts)
        except KeyboardInterrupt:
            partial = True
        result = career(read, total=len(ids), partial=partial)
        result.damaged = [err.problem.race for err in left_out]
        if driver is not None:
            result.drivers = [d for d in result.drivers if d.driver == driver]
            if not result.drivers and not partial and not left_out:
                raise MalformedInput(f"no race with a driver named {driver!r}")
        # the title names the track as show and stats --race do (its name; a race read may say it)
        on = next((f.track_name for f in read if f.track_name), track) if track is not None else None
        _print_career(result, as_json, as_csv, on=on)
        if left_out:
            raise _left_out(left_out)


def _left_out(damaged: "list[DamagedLog]") -> typer.Exit:
    """The error of many races read with some left out, after what could be read: each damaged race named as
    every read of a damaged log names it (DamagedLog), once, in race order."""
    once = {err.problem.race: err for err in damaged}
    return fail("; ".join(f"race {race}: left out: {once[race].message}" for race in sorted(once)))


def _season_stats(log: Any, table: Any, season: int, rebuild: bool, as_json: bool, as_csv: bool) -> "list[DamagedLog]":
    """``stats --season``: the season's standings and each driver's statistics over its races. A damaged race
    is left out as with --all (returned, to be named after what could be read): the standings stop before it
    (its result cannot be read) and the statistics are those of the others."""
    from ..engine.errors import MalformedInput
    from ..season import season_view, seasons
    from ..stats import career
    from ..views import counted

    known = [s[0] for s in seasons(log)]
    if season not in known:
        raise MalformedInput(f"no season {season} (seasons: {', '.join(map(str, known)) or 'none'})")
    left_out: list[DamagedLog] = []
    view = season_view(log, season, damaged=left_out.append)
    ids = [sr.race for sr in view.races if sr.race is not None]
    read = list(table.facts(ids, rebuild=rebuild, damaged=left_out.append))
    result = career(read, total=len(ids))
    result.damaged = sorted({err.problem.race for err in left_out})
    names = [d["name"] for d in view.drivers]
    rows = view.tables[-1] if view.tables else []
    standing = {
        st.name: {"position": i, "points": st.points, "per_race": list(st.per_race), "wins": st.wins}
        for i, st in enumerate(rows, start=1)
    }
    order = {n: i for i, n in enumerate([st.name for st in rows] or names)}
    result.drivers.sort(key=lambda d: (order.get(d.driver, len(order)), d.driver))  # season order, then Legends
    summary = {
        "season": view.id,
        "name": view.name,
        "season_races": len(view.races),
        "races_run": len(view.tables),
        "over": view.over,
        "standings": [{"driver": n, **standing[n]} for n in (st.name for st in rows)],
        # issue 29: how each race run came to be (table, bots: finished by heatlog play-on, result: entered by
        # its result, which has no log and so no statistics of its own)
        "season_races_run": [
            {"index": sr.index, "race": sr.race, "recorded": sr.how, "mark": sr.how_words()}
            for sr in view.races
            if sr.result is not None
        ],
    }
    if as_json:
        import json

        typer.echo(json.dumps({**summary, **result.to_dict()}, indent=2, ensure_ascii=False, allow_nan=False))
        return left_out
    if as_csv:
        out = []
        for d in result.drivers:
            mine = standing.get(d.driver, {})
            out.append(
                {
                    "season": view.id,
                    "season_position": mine.get("position"),
                    "season_points": mine.get("points"),
                    **flat_row(d.to_dict()),
                }
            )
        _write_csv(out, {"season": None, "season_position": None, "season_points": None, **_driver_columns()})
        return left_out
    from rich.table import Table

    done = "over" if view.over else f"{len(view.tables)} of {counted(len(view.races), 'race')} run"
    stop = next((sr for sr in view.races if sr.race in result.damaged), None)
    damage = "" if stop is None else f"race {stop.index} of the season (race {stop.race}) is damaged"
    if stop is not None and stop.index == len(view.tables) + 1:  # the standings stop before it
        done = f"after race {len(view.tables)} of {len(view.races)}: {damage}"
    t = Table(title=f"season {view.id} ({view.name}): standings — {done}", title_justify="left")
    t.add_column("#", justify="right")
    t.add_column("Driver")
    for sr in view.races[: len(view.tables)]:
        t.add_column(f"R{sr.index}", justify="right")
    t.add_column("Points", justify="right")
    t.add_column("Wins", justify="right")
    for i, row in enumerate(rows, start=1):
        per_race = ("—" if p is None else str(p) for p in row.per_race)
        t.add_row(str(i), row.name, *per_race, str(row.points), str(row.wins))
    console = out_console()
    if rows:
        print_table(console, t)
    else:
        why = damage or "no race finished yet"
        console.print(f"season {view.id} ({view.name}): {'no standings: ' if damage else ''}{why}", markup=False)
    for sr in view.races:  # issue 29: a result the table did not record is marked where it is counted
        if sr.result is not None and sr.how_words():
            console.print(f"R{sr.index}: {sr.how_words()}; counted in the standings (# 21.10)", markup=False)
    if result.races:
        _print_career(result, False, False)
    return left_out


# ---------------------------------------------------------------------------------------------- one race


def flat_row(d: dict[str, Any]) -> dict[str, Any]:
    """A statistics dict as flat CSV columns (:func:`heatlog.stats.summary.flat_row`, imported when needed)."""
    from ..stats.summary import flat_row as flat

    return flat(d)


def _write_csv(rows: list[dict[str, Any]], template: dict[str, Any] | None = None) -> None:
    """``rows`` as CSV; ``template``: a row of nothing, whose columns the header has even without rows (no
    finished race yet: the header alone, not an empty line)."""
    import csv  # (inside: heatlog --help imports this module, issue 32)
    import io

    columns: list[str] = list(template or ())
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    from ..formats.usertext import sheet_cell

    for row in rows:  # a name a spreadsheet would evaluate is written as text (OWASP)
        writer.writerow({k: "" if v is None else sheet_cell(v) for k, v in row.items()})
    sys.stdout.write(buf.getvalue())


def _driver_columns() -> dict[str, Any]:
    """The CSV columns of a driver's row (a driver of no race: every column is fixed, FIXED_SUBS)."""
    from ..stats.summary import DriverStats

    return flat_row(DriverStats("").to_dict())


def _speeds(t: "Tally") -> str:
    return "  ".join(f"{g}: {v:.1f}" for g, v in t.mean_speed().items()) or "—"


def _boosts(t: "Tally") -> str:
    if not t.boosts:
        return "0"
    values = " ".join(map(str, t.boost_values))
    return f"{t.boosts} (+{values}; mean {sum(t.boost_values) / t.boosts:.1f})"


def _dash(v: Any) -> str:
    return "—" if v is None else str(v)


STAT_ROWS: list[tuple[str, Any]] = [
    ("Heat paid: corners", lambda t: t.heat_corners),
    ("Heat paid: boosts", lambda t: t.heat_boost),
    ("Heat paid: 2-gear shifts", lambda t: t.heat_shift),
    ("Heat paid: flooded downshift", lambda t: t.heat_flooded),
    ("Heat paid: upgrades' costs", lambda t: t.heat_upgrades),
    ("Heat paid: total", lambda t: t.heat_paid),
    ("Heat cooled: gear", lambda t: t.cooled_gear),
    ("Heat cooled: adrenaline", lambda t: t.cooled_adrenaline),
    ("Heat cooled: upgrades", lambda t: t.cooled_upgrades),
    ("Heat cooled: total", lambda t: t.heat_cooled),
    ("Stress played", lambda t: t.stress_played),
    ("Stress drawn", lambda t: _dash(t.stress_drawn)),
    ("Stress taken at spinouts", lambda t: t.stress_spinouts),
    ("Spinouts", lambda t: t.spinouts),
    ("Slipstreams taken", lambda t: t.slipstreams_taken),
    ("Slipstreams declined", lambda t: t.slipstreams_declined),
    ("Slipstream spaces", lambda t: t.slipstream_spaces),
    ("Boosts (values)", _boosts),
    ("Mean speed per gear", _speeds),
    ("Corners crossed", lambda t: t.corners),
    ("Corners over the limit", lambda t: t.corners_over),
    ("Cluttered hands", lambda t: t.cluttered),
    ("Rounds led", lambda t: t.rounds_led),
    ("Rounds in gear 1 2 3 4", lambda t: " ".join(str(t.rounds_in_gear.get(g, 0)) for g in (1, 2, 3, 4))),
    ("Adrenaline rounds (+1 moves)", lambda t: f"{t.adrenaline_rounds} ({t.adrenaline_moves})"),
    ("Adrenaline spaces", lambda t: t.adrenaline_spaces),
    ("2-gear shifts up / down", lambda t: f"{t.shifts_up_2} / {t.shifts_down_2}"),
    ("Cards discarded", lambda t: t.cards_discarded),
    ("Turns", lambda t: t.turns),
]


#: The rows of STAT_ROWS that a Legend has figures for (# 19.1, 19.10: it has no Engine, hand, gear or Stress,
#: never reacts, slipstreams or pays at a corner): the others are "—" for it, None in --json and --csv.
LEGEND_ROWS = frozenset({"Rounds led", "Turns"})


def _cell(label: str, get: Any, tally: "Tally") -> str:
    return str(get(tally)) if label in LEGEND_ROWS or not tally.legend else "—"


def _print_race(rs: "RaceStats | dict[str, Any]", as_json: bool, as_csv: bool) -> None:
    if isinstance(rs, dict):
        import json

        typer.echo(json.dumps(rs, indent=2, ensure_ascii=False, allow_nan=False))
        return
    if as_csv:
        rows = []
        for c in rs.cars:
            d = c.to_dict()
            rows.append({"race": rs.race, "track": rs.track, **flat_row(d)})
        _write_csv(rows)
        return
    from rich.table import Table

    from ..views import counted

    state = "finished" if rs.over else f"under way (round {rs.rounds}): places are the standings now"
    name = f" ({rs.name})" if rs.name else ""
    title = f"race {rs.race}{name}: {rs.track_name or rs.track}, {counted(rs.laps, 'lap')}, {rs.mode} mode — {state}"
    place_cells = [f"{c.place}" + (f" (round {c.finish_round})" if c.finish_round else "") for c in rs.cars]
    cells: list[tuple[str, ...]] = [
        ("Place", *place_cells),
        ("Start position", *(_dash(c.start_position) for c in rs.cars)),
    ]
    cells += [(label, *(_cell(label, get, c.tally) for c in rs.cars)) for label, get in STAT_ROWS]
    cells.append(("Heat left in the Engine", *(_dash(c.engine_left) for c in rs.cars)))
    console = out_console()
    # the title on its own line, wrapped at the terminal's width (as the table's title it wrapped at the table's,
    # "— under way (round" / "1): places …" in a two-car race); piped, one line
    console.print(title, markup=False, highlight=False, soft_wrap=not console.is_terminal)
    table = Table()
    fill_table(console, table, [("", "left"), *((c.car, "right") for c in rs.cars)], cells)
    print_table(console, table)
    if rs.mode == "table":
        console.print("Stress drawn: — in table mode (draws are hidden, # 1.7).", markup=False)


# ---------------------------------------------------------------------------------------------- many races


#: The columns of the drivers' table a narrow terminal leaves out, least wanted first.
CAREER_OPTIONAL = ("μ ± σ", "Slips", "Boosts", "Heat paid", "Spinouts", "Led")


def _print_career(result: "Career", as_json: bool, as_csv: bool, *, on: str | None = None) -> None:
    """``on``: the track the races were chosen by (--track), named in the title."""
    from ..views import counted

    if as_json:
        import json

        typer.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False, allow_nan=False))
        return
    if as_csv:
        rows = []
        for d in result.drivers:
            flat = flat_row(d.to_dict())
            if result.partial:
                flat["partial"] = True
            rows.append(flat)
        _write_csv(rows, _driver_columns())
        return
    from rich.table import Table

    done = counted(len(result.races), "race") + (f" on {on}" if on else "")
    if result.partial:
        done += f" of {result.total} — PARTIAL (interrupted)"
    if result.damaged:
        done += f" ({counted(len(result.damaged), 'race')} left out: damaged)"
    columns = {
        "Driver": [d.driver for d in result.drivers],
        "Races": [
            f"{d.races}" + (f" ({d.races - d.finished} unfinished)" if d.races > d.finished else "")
            for d in result.drivers
        ],
        "Wins": [str(d.wins) for d in result.drivers],
        "Podiums": [str(d.podiums) for d in result.drivers],
        "Mean place": [_dash(d.mean_place) for d in result.drivers],
        "Rating": ["—" if d.rating is None else f"{d.rating.ordinal:.1f}" for d in result.drivers],
        "μ ± σ": ["—" if d.rating is None else f"{d.rating.mu:.1f}±{d.rating.sigma:.1f}" for d in result.drivers],
        "Spinouts": ["—" if d.tally.legend else str(d.tally.spinouts) for d in result.drivers],
        "Heat paid": ["—" if d.tally.legend else str(d.tally.heat_paid) for d in result.drivers],
        "Boosts": ["—" if d.tally.legend else str(d.tally.boosts) for d in result.drivers],
        "Slips": ["—" if d.tally.legend else str(d.tally.slipstreams_taken) for d in result.drivers],
        "Led": [str(d.tally.rounds_led) for d in result.drivers],
    }

    def career_table(keep: list[str]) -> Table:
        table = Table(title=f"drivers over {done}", title_justify="left")
        for col in keep:
            table.add_column(col, justify="left" if col == "Driver" else "right")
        for i in range(len(result.drivers)):
            table.add_row(*(columns[col][i] for col in keep))
        return table

    console = out_console()
    keep = list(columns)
    left_out: list[str] = []
    if console.is_terminal or "COLUMNS" in os.environ:
        # A narrow terminal: rather than let rich shrink the table (it cut "Legend-Black" and "Legend-Blue" both
        # to "Leg…", a mean place to "2.…"), the least wanted columns give way until the table fits whole
        # (--csv and --json always give them all).
        for col in CAREER_OPTIONAL:
            unbounded = console.options.update(max_width=100_000)  # (measures are clamped to the width)
            if console.measure(career_table(keep), options=unbounded).maximum <= console.width:
                break
            keep.remove(col)
            left_out.append(col)
    print_table(console, career_table(keep))
    if left_out:
        console.print(
            f"left out at this width: {', '.join(left_out)} (a wider terminal, --csv or --json shows them)",
            style="dim",
            markup=False,
        )
    console.print(
        "Rating: μ−3σ of openskill's Plackett–Luce model over the finishing orders of finished races, in race "
        "order (the conservative estimate; μ starts at 25, σ at 8.3).",
        markup=False,
    )


# ---------------------------------------------------------------------------------------------- the table


@app.command()
@user_errors
def turns(
    race: RaceOpt = None,
    all_races: Annotated[bool, typer.Option("--all", help="Every race and branch (default: one race).")] = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Rebuild even rows that match the log.")] = False,
    drop: Annotated[bool, typer.Option("--drop", help="Remove the derived tables instead.")] = False,
    db: DbOpt = None,
) -> None:
    """Build (or refresh) the derived `turns` table: one row per turn, for sqlite-utils, Datasette, pandas or
    DuckDB. Derived from the log, never trusted by the door or the audit; safe to drop (docs/stats.md). With
    --all, a race whose log is damaged is left out and named on standard error (exit 1); the others are built.

    Example: heatlog turns --all;  sqlite-utils heatlog.db "select car, sum(heat_corners) from turns group by car"
    """
    from ..engine.errors import MalformedInput
    from ..stats import TurnsTable
    from ..store import DamagedLog
    from ..views import counted

    if drop and (race is not None or all_races or rebuild):
        # --drop removes the tables of every race: a --race beside it would seem to drop that race's rows only
        raise MalformedInput("--drop removes the derived tables of every race: give it alone")
    if all_races and race is not None:
        raise MalformedInput("--race is one race and --all every race: choose one")
    with open_log(db) as log:
        table = TurnsTable(log)
        if drop:
            table.drop()
            err_console().print("derived tables turns and derived dropped", markup=False)
            return
        ids = [i.id for i in log.store.races()] if all_races else [log.resolve(race)]
        left_out: list[DamagedLog] = []
        built, fresh = table.build(ids, rebuild=rebuild, damaged=left_out.append if all_races else None)
        if not table.writable:
            err_console().print(f"Error: cannot write the derived tables: {table.why}", markup=False)
            raise typer.Exit(1)
        n = table.rows()
        out_console().print(
            f"turns: {counted(built, 'race')} rebuilt from the log, {fresh} already matched it; "
            f"{counted(n, 'row')} in {log.path}",
            markup=False,
        )
    if left_out:  # the others are built
        raise _left_out(left_out)
