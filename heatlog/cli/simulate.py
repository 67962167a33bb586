"""heatlog simulate: whole races played by bots."""

from pathlib import Path
from typing import Annotated, Any

import typer

from .common import (
    FROM_REGISTRY,
    DbOpt,
    JsonOpt,
    ModuleFlags,
    ModuleOpt,
    TrackOpt,
    app,
    creating_log,
    err_console,
    fill_table,
    given_options,
    module_flags,
    out_console,
    print_table,
    progress_steps,
    user_errors,
    with_named,
)


@app.command()
@user_errors
@module_flags("simulate")
def simulate(
    ctx: typer.Context,
    track: TrackOpt = "usa",
    cars: Annotated[int, typer.Option(help="Cars (2–6), named Red, Blue, Green, Yellow, Black, White.")] = 4,
    laps: Annotated[int | None, typer.Option(help="Laps (default: the track's).")] = None,
    variant: Annotated[str | None, typer.Option(help="one-lap: the one-lap learning race (# 17.1).")] = None,
    handicap: Annotated[
        list[str] | None, typer.Option("--handicap", help="A car whose driver is experienced: 5 Engine Heat (# 17.2).")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed (default: random, printed); race k uses seed+k-1.")] = None,
    bot: Annotated[
        str | None, typer.Option(help="The bot for every car: heuristic (default), search or random.")
    ] = None,
    bots: Annotated[str | None, typer.Option(help="One bot per car, in car order: search,heuristic,random,…")] = None,
    races: Annotated[int, typer.Option(help="How many races to play.")] = 1,
    workers: Annotated[
        int | None, typer.Option("--workers", help="Local processes for --races (default: all cores; 1: this one).")
    ] = None,
    dask_scheduler: Annotated[
        str | None, typer.Option("--dask-scheduler", help="Play --races on a Dask cluster at ADDRESS.")
    ] = None,
    season: Annotated[
        str | None,
        typer.Option(help="Play a whole published season instead (1961 … 1965, # 21.1); race k uses seed+k."),
    ] = None,
    modules: ModuleFlags = FROM_REGISTRY,  # every module's options (engine/module.py: Module.flags)
    module: ModuleOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Play whole races with bots into the database and print the finishing order.

    Example: heatlog simulate --track italy --cars 6 --bots heuristic,random,random,random,random,random --seed 7
    """
    import random

    from ..engine.errors import MalformedInput
    from ..simulate import TurnLog, bot_label, bot_names, default_cars, finishing_table, simulate_race

    if bot is not None and bots is not None:
        raise MalformedInput("give --bot (one bot for every car) or --bots (one per car), not both")
    if races < 1:
        raise MalformedInput(f"--races {races}: play at least one race")
    options = with_named(modules.options(), module or [])  # every module's options as one mapping (issue 26, build 5)
    names = [c["name"] for c in default_cars(cars)]
    spec: Any = [b.strip() for b in bots.split(",")] if bots else (bot or "heuristic")
    if isinstance(spec, list) and len(spec) != len(names):  # said in the options' words ("1 bots for 4 cars")
        from ..views import counted

        raise MalformedInput(
            f"--bots {bots}: {counted(len(spec), 'bot')} for {counted(len(names), 'car')}: give one per car, in car "
            "order (or --bot for every car)"
        )
    if season is not None:
        modules.refuse_in_season(ctx)  # what the season decides itself (Flag.not_in_season: a draft method)
        # The season sets each race's circuit, laps and grid (# 21.1, 21.8) and is one season: an option that
        # would change a race of it is refused rather than dropped without a word.
        given = [
            o
            for o in given_options(ctx, "track", "laps", "variant", "handicap", "races", "dask_scheduler", "module")
            if not (o == "--races" and races == 1)
        ]
        if given:
            raise MalformedInput(
                f"{', '.join(given)}: a season's races are set up from the season (circuit, laps, grid, # 21.1); "
                "play one season at a time"
            )
        if workers is not None:  # it was dropped without a word
            raise MalformedInput("--workers: a season's races are played one after the other, in this process")
        # # 19.16: a solo championship (--cars 1) against Legends, or Legends filling a bigger grid
        _simulate_season(season, cars, spec, seed, as_json, db, options, modules)
        return
    drivers = bot_names(spec, names)
    labels = {n: bot_label(b) for n, b in drivers.items()}
    first = seed if seed is not None else random.SystemRandom().randrange(2**31)
    console = out_console()
    results: list[dict[str, Any]] = []
    with creating_log(db) as log:  # a refused simulation leaves no new file behind

        def one(k: int) -> None:
            watch = TurnLog()
            race, events, state = simulate_race(
                log,
                track=track,
                cars=cars,
                laps=laps,
                variant=variant.strip().lower() if variant is not None else None,  # in any case, as --track
                handicap=handicap or [],
                seed=first + k,
                bots=drivers,
                watch=watch,
                modules=options,
            )
            rows = finishing_table(state, watch.turns(), labels)
            results.append(
                {
                    "race": race,
                    "seed": first + k,
                    "track": state.track.name,
                    "laps": state.laps,
                    "rounds": state.round if state.phase == "over" else state.round - 1,  # stopped: rounds played
                    "over": state.phase == "over",
                    "events": len(events),
                    **_conditions(state),
                    "order": rows,
                }
            )

        partial = False
        if races == 1:
            one(0)
        else:
            from ..analysis.executors import executor_for
            from ..simulate import store_race
            from ..simulate.parallel import simulate_many

            kwargs = {
                "track": track,
                "cars": cars,
                "laps": laps,
                "variant": variant,
                "handicap": handicap or [],
                "bots": spec,
                "car_names": names,
                "modules": options,
            }
            # Workers play the races; this process is the one writer, storing them in seed order.
            with (
                executor_for(workers, dask_scheduler) as ex,
                progress_steps(races, f"simulating {races} races") as advance,  # a bar only in a terminal
            ):
                played, was_cut = simulate_many(races, first, kwargs, ex, progress=advance)
                try:
                    for p in played:
                        race = store_race(
                            log,
                            p.events,
                            name=f"sim {p.events[0]['track']['id']} seed {p.seed}",
                            bots=drivers,
                            validated=p.validated,
                            summary=p.summary,
                        )
                        results.append(
                            {
                                "race": race,
                                "seed": p.seed,
                                "track": p.track,
                                "laps": p.laps,
                                "rounds": p.rounds,
                                "over": p.over,
                                "events": len(p.events),
                                **p.conditions,
                                "order": p.order,
                            }
                        )
                except KeyboardInterrupt:
                    partial = True
                partial = partial or was_cut()
            if not results:
                raise typer.Exit(130)
    if as_json:
        import json

        typer.echo(json.dumps(results if races > 1 else results[0], indent=1, allow_nan=False))
    else:
        _print_simulated(console, results, names, log.path)
    if partial:
        err_console().print(f"partial: {len(results)} of {races} races (interrupted)", markup=False)
        raise typer.Exit(130)


def _simulate_season(
    name: str,
    cars: int,
    spec: Any,
    seed: int | None,
    as_json: bool,
    db: Path | None,
    options: dict[str, Any],
    flags: ModuleFlags,
) -> None:
    import random

    from ..season import season_view, simulate_season
    from .season import print_season, season_dict

    first = seed if seed is not None else random.SystemRandom().randrange(2**31)
    # each module's options as the season command makes them from the same values (the Garage's: its draft is the
    # season's, # 21.2); a module the season command has no flag for keeps its options (the season refuses it)
    modules = flags.season_options(options)
    typed: dict[str, str | list[str]] = {  # a refusal names the option typed (issue 29)
        "published": f"--season {name}",
        "count": f"--cars {cars}",
        **flags.typed_values(),
    }
    with creating_log(db) as log:  # a refused simulation leaves no new file behind
        season = simulate_season(log, published=name, cars=cars, seed=first, bots=spec, modules=modules, typed=typed)
        data = season_dict(season_view(log, season))
    data["seed"] = first
    if as_json:
        import json

        typer.echo(json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False))
        return
    print_season(data)


def _conditions(state: Any) -> dict[str, Any]:
    """The modules' facts of a simulated race, for the JSON and the table title (``Module.summary``)."""
    from ..engine.module import summary

    return summary(state)


def _print_simulated(console: Any, results: list[dict[str, Any]], names: list[str], path: Path) -> None:
    from rich.table import Table

    from ..engine.module import summary_words
    from ..views import counted

    r = results[0]
    if len(results) == 1:
        table = Table(
            title=f"race {r['race']}: {r['track']}, {counted(r['laps'], 'lap')}, seed {r['seed']}: "
            f"{counted(r['rounds'], 'round')}"
            + "".join(f"; {words}" for words in summary_words(r)),  # the modules' (Module.summary_words)
            caption="round: the round it finished in; slips: slipstreams taken; Heat: left on the Engine"
            + ("" if r["over"] else f"\nstopped unfinished after {r['rounds']} rounds: {_stuck(r)}"),
        )
        cells = []
        for row in r["order"]:
            legend = row["engine"] is None  # a Legend: no Engine, never spins out, boosts or slipstreams (# 19.10)
            cells.append(
                (
                    str(row["place"]),
                    row["car"],
                    row["bot"],
                    "-" if row["round"] is None else str(row["round"]),
                    *("–" if legend else str(row[k]) for k in ("spinouts", "boosts", "slipstreams")),
                    "–" if legend else str(row["engine"]),
                )
            )
        # every word whole at 80 columns, names too ("Legend-Bl…" would be Legend-Black or Legend-Blue): with a
        # Legend on the grid rich cut "spinouts" and "slipstreams" to "spinou…" and "slipst…"
        heads = ("place", "car", "bot", "round", "spinouts", "boosts", "slips", "Heat")
        fill_table(console, table, [(h, "left") for h in heads], cells)
        print_table(console, table)
        return
    table = Table(
        title=f"{len(results)} races on {r['track']}: seeds {r['seed']}–{results[-1]['seed']}, "
        f"races {r['race']}–{results[-1]['race']} in {path}"
    )
    for col in ("car", "bot", "wins", "mean place", "spinouts per race"):
        table.add_column(col)
    cars = list(dict.fromkeys([*names, *(row["car"] for row in r["order"])]))  # Legends too (MODULES.md 19.1)
    for car in cars:
        places = [next(row for row in res["order"] if row["car"] == car) for res in results]
        table.add_row(
            car,
            places[0]["bot"],
            str(sum(p["place"] == 1 for p in places)),
            f"{sum(p['place'] for p in places) / len(places):.2f}",
            f"{sum(p['spinouts'] for p in places) / len(places):.2f}",
        )
    print_table(console, table)
    rounds = [res["rounds"] for res in results]
    mean = sum(rounds) / len(rounds)
    console.print(f"mean race length: {mean:.1f} rounds (shortest {min(rounds)}, longest {max(rounds)})")
    stopped = [res for res in results if not res["over"]]
    if stopped:
        console.print(
            f"{counted(len(stopped), 'race')} stopped unfinished after {counted(stopped[0]['rounds'], 'round')}, "
            "ranked as they stood: " + "; ".join(f"race {res['race']}: {_stuck(res)}" for res in stopped)
        )


def _stuck(result: dict[str, Any]) -> str:
    """Who never finished a race the simulator stopped (simulate.world.MAX_ROUNDS)."""
    cars = [row["car"] for row in result["order"] if row["round"] is None]
    return f"{', '.join(cars)} never finished (a car can be stuck for good, e.g. an empty Engine before a slow corner)"
