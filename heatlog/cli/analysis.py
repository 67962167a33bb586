"""heatlog playout, compare and play-on: analysis over what the players knew (docs/analysis.md)."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .common import (
    DbOpt,
    JsonOpt,
    RaceOpt,
    app,
    fill_table,
    open_log,
    out_console,
    print_table,
    progress_steps,
    user_errors,
)

if TYPE_CHECKING:
    from ..analysis.playout import PlayoutResult

PlayoutsOpt = Annotated[int, typer.Option("--playouts", "-k", help="How many playouts.")]
BotsOpt = Annotated[
    str | None,
    typer.Option("--bots", help="The bot for every car (heuristic, random), or one per car in car order: a,b,…"),
]
SeedOpt = Annotated[int | None, typer.Option(help="Seed (default: random, printed). Same seed, same result.")]
WorkersOpt = Annotated[
    int | None, typer.Option("--workers", help="Local processes (default: all cores; 1: in this process).")
]
DaskOpt = Annotated[
    str | None,
    typer.Option("--dask-scheduler", help="Run on a Dask cluster at ADDRESS (pip install 'heatlog[dask]')."),
]
AsOpt = Annotated[
    str | None,
    typer.Option("--as", help="Judge from what this car knew (its own hand, open-mode races); default: public."),
]


def bot_map(spec: str | None, cars: list[str]) -> dict[str, str]:
    from ..bots import get_bot
    from ..engine.errors import MalformedInput

    names = [b.strip() for b in (spec or "heuristic").split(",")]
    if len(names) == 1:
        names = names * len(cars)
    if len(names) != len(cars):
        raise MalformedInput(f"{len(names)} bots for {len(cars)} cars: give one bot, or one per car in car order")
    for n in names:
        get_bot(n)
    return dict(zip(cars, names, strict=True))


def _bots_words(bots: dict[str, str]) -> str:
    """ "heuristic bots", or each car's ("Red random, Blue heuristic") when they differ."""
    names = set(bots.values())
    if len(names) == 1:
        return f"{names.pop()} bots"
    return "bots " + ", ".join(f"{car} {bot}" for car, bot in bots.items())


def pick_seed(seed: int | None) -> int:
    import random

    return seed if seed is not None else random.SystemRandom().randrange(2**31)


def _run(
    info: Any,
    k: int,
    *,
    seed: int,
    bots: dict[str, str],
    sides: list[list[dict[str, Any]]],
    workers: int | None,
    dask: str | None,
    what: str,
) -> "PlayoutResult":
    """Playouts with a progress bar on stderr; Ctrl-C stops them and keeps what is finished."""
    from ..analysis.executors import executor_for
    from ..analysis.playout import playouts

    with executor_for(workers, dask) as ex, progress_steps(k, what) as advance:  # a bar only in a terminal
        return playouts(info, k, seed=seed, bots=bots, sides=sides, executor=ex, progress=advance)


def _summary_rows(result: "PlayoutResult", side: int) -> list[dict[str, Any]]:
    rows = [s.to_dict() for s in result.sides[side].values()]
    return sorted(rows, key=lambda r: (r["mean_place"], r["car"]))


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _playout_table(result: "PlayoutResult", side: int, title: str) -> Any:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    n = len(result.cars)
    table = Table()
    table.caption = "place: mean finishing place (95 % interval); 1st…: share of playouts; left: rounds to finish"
    for col in ("car", "place", "95 %", *[_ordinal(p) for p in range(1, n + 1)], "left"):
        table.add_column(col, justify="left" if col == "car" else "right")
    for r in _summary_rows(result, side):
        lo, hi = r["place_95"]
        table.add_row(
            r["car"],
            f"{r['mean_place']:.2f}",
            f"{lo:.1f}–{hi:.1f}",
            *[_pct(r["places"].get(str(p), 0.0)) for p in range(1, n + 1)],
            f"{r['rounds_to_finish']:.1f}",
        )
    return Group(Text(title), table)


def _ordinal(p: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(p, f"{p}th")


def _partial_note(result: "PlayoutResult") -> str | None:
    if not result.partial:
        return None
    return f"partial: {result.done} of {result.requested} playouts (interrupted)"


@app.command()
@user_errors
def playout(
    race: RaceOpt = None,
    round: Annotated[
        int | None, typer.Option("--round", help="From the start of round N (default: the end of the log).")
    ] = None,
    position: Annotated[Path | None, typer.Option("--position", help="From a position file instead of a race.")] = None,
    k: PlayoutsOpt = 200,
    bots: BotsOpt = None,
    as_car: AsOpt = None,
    seed: SeedOpt = None,
    workers: WorkersOpt = None,
    dask_scheduler: DaskOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Play a race on K times with bots from any round, hidden cards resampled each time from what was
    known; print each car's finishing places (mean, 95 % interval, win %) and rounds to finish.

    Example: heatlog playout --race 3 --round 6 --playouts 500 --seed 1
    """
    from ..analysis.infoset import information_set, information_set_of_state
    from ..analysis.playout import refuse_to_play_on
    from ..engine.errors import MalformedInput
    from ..views import counted

    if k < 1:
        raise MalformedInput(f"--playouts {k}: play at least one")
    if position is not None:
        if race is not None or round is not None:
            raise MalformedInput("give --position, or --race/--round, not both")
        from ..formats.jsonio import read_json_file
        from ..formats.positions import check_position

        data = read_json_file(position, "position file")
        # the one check of a position file (new --from-position's): its schema, and that it is consistent (each
        # car holds its own cards); a position new refused was played out as if it could be
        state = check_position(data, f"position file {position}")
        info = information_set_of_state(state, as_car)
        where = f"position {position}"
    else:
        with open_log(db) as log:
            rid = log.resolve(race)
            proj = log.project(rid, round=round)
            events = [e.event for e in proj.effective.entries[: proj.upto]]
        info = information_set(events, as_car)
        where = f"race {rid}" + (f", start of round {round}" if round is not None else f", round {info.public.round}")
    try:
        refuse_to_play_on(info.public)  # over, no grid yet, in its Garage draft
    except MalformedInput as err:
        hint = " (try --round)" if info.public.phase == "over" else ""
        raise MalformedInput(f"{where}: {err.message}{hint}") from None
    cars = list(info.public.cars)
    first = pick_seed(seed)
    chosen = bot_map(bots, cars)
    result = _run(
        info,
        k,
        seed=first,
        bots=chosen,
        sides=[[]],
        workers=workers,
        dask=dask_scheduler,
        what=f"{k} playouts",
    )
    note = _partial_note(result)
    if as_json:
        import json

        typer.echo(
            json.dumps(
                {
                    "from": where,
                    "viewer": as_car,
                    "bots": chosen,
                    "seed": first,
                    "playouts": result.done,
                    "requested": k,
                    "partial": result.partial,
                    "round": info.public.round,
                    "cars": _summary_rows(result, 0),
                },
                indent=1,
                allow_nan=False,
            )
        )
    else:
        console = out_console()
        view = f"what {as_car} knew" if as_car else "public information"
        done = counted(result.done, "playout")
        # the bots named: two runs with other --bots answer differently, and the title says why
        title = f"{where}: {done} over {view}, {_bots_words(chosen)}, seed {first}"
        print_table(console, _playout_table(result, 0, title))
        if note:
            console.print(note, style="bold", markup=False)
    if result.partial:
        raise typer.Exit(130)


def _divergence(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> tuple[int, int] | None:
    """Where the logs first differ: the indexes in ``a`` and in ``b`` of their first differing events (the typed
    ``raw`` text aside), or None if they hold the same events. Events beside the race (notes) are skipped: two
    what-ifs played on by other bots from one round diverge at their first differing decision, not at their
    play-on notes, which change nothing and from which playouts gave both sides the very same answer."""
    from ..engine.events import REGISTRY

    def game(events: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
        out = []
        for i, e in enumerate(events):
            entry = REGISTRY.get(str(e.get("type")))
            if entry is None or not entry.aside:
                out.append((i, {k: v for k, v in e.items() if k != "raw"}))
        return out

    ga, gb = game(a), game(b)
    for (i, x), (j, y) in zip(ga, gb, strict=False):
        if x != y:
            return i, j
    if len(ga) == len(gb):
        return None
    n = min(len(ga), len(gb))
    return (ga[n][0] if n < len(ga) else len(a)), (gb[n][0] if n < len(gb) else len(b))


def _divergence_with_notes(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> int | None:
    """The first index where the logs differ, notes included (None: the same events)."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if {k: v for k, v in x.items() if k != "raw"} != {k: v for k, v in y.items() if k != "raw"}:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def _per_round(events: list[dict[str, Any]], from_round: int) -> dict[int, dict[str, dict[str, Any]]]:
    """Each car at the end of every round from ``from_round`` on: where it is, its Heat on the Engine and
    the Stress cards it owns (hand, deck, discard, Play Area)."""
    from ..engine import apply

    out: dict[int, dict[str, dict[str, Any]]] = {}
    state = None

    def snap(s: Any, r: int) -> None:
        # # 19.1, 19.10: a Legend has no Engine and no cards: no Heat and no Stress to compare (null, shown –)
        out[r] = {
            name: {
                "space": s.track.space_of(c.progress),
                "lap": s.lap_of(c),
                "progress": c.progress,
                "engine": None if c.legend else c.engine,
                "stress": None if c.legend else c.pool["S"] + c.discard.count("S") + c.play_area.count("S"),
                "finished": c.name in s.hall_of_fame,
            }
            for name, c in s.cars.items()
        }

    last_round = 0
    for ev in events:
        state = apply(state, ev, atomic=False)
        if state.round != last_round:
            if last_round >= from_round:
                snap(state, last_round)
            last_round = state.round
    # The last round ends with the race; a log that stops inside a round (a branch not played on yet) has no
    # end of that round to show, and its start-of-round state is not one.
    if state is not None and state.phase == "over" and last_round >= from_round:
        snap(state, last_round)
    return out


def _describe(ev: dict[str, Any] | None) -> str:
    if ev is None:
        return "(nothing: the log ends)"

    def show(v: Any) -> str:
        if isinstance(v, dict):  # a note's bots ({"Red": "heuristic", …}) read "Red heuristic, …", not a repr
            return ", ".join(f"{k} {show(x)}" for k, x in v.items())
        return " ".join(map(str, v)) if isinstance(v, list) else str(v)

    if ev["type"] == "note" and isinstance(ev.get("text"), str):  # its words, not its fields (the bots repeat them)
        return f"note: {ev['text']}"
    fields = ", ".join(f"{k} {show(v)}" for k, v in ev.items() if k not in ("type", "v", "raw"))
    return f"{ev['type']}: {fields}"


@app.command()
@user_errors
def compare(
    a: Annotated[int, typer.Argument(help="A race or branch id.")],
    b: Annotated[int, typer.Argument(help="Another race or branch id (e.g. a what-if branch of A).")],
    k: Annotated[int, typer.Option("--playouts", "-k", help="Playouts from the divergence (0: none).")] = 0,
    bots: BotsOpt = None,
    as_car: AsOpt = None,
    seed: SeedOpt = None,
    workers: WorkersOpt = None,
    dask_scheduler: DaskOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Compare two races or branches: where they diverge (the first differing event, notes aside), each car's
    place, Heat and Stress per round after it, and with --playouts K both sides played on K times from the divergence
    with common random numbers (the same resampled hands and deck orders), with the difference and its
    95 % interval.

    Example: heatlog compare 3 5 --playouts 300 --seed 1
    """
    from ..analysis.infoset import as_known_by, information_set
    from ..engine.errors import MalformedInput

    if k < 0:  # refused before any work, in the option's words (0 is none, as its help says)
        raise MalformedInput(f"--playouts {k}: 0 (none) or more")
    if k == 0:  # they choose how the playouts are played: without playouts they were dropped without a word
        given = [
            o
            for o, v in (
                ("--bots", bots),
                ("--as", as_car),
                ("--seed", seed),
                ("--workers", workers),
                ("--dask-scheduler", dask_scheduler),
            )
            if v is not None
        ]
        if given:
            raise MalformedInput(f"{', '.join(given)}: they choose how the playouts are played: add --playouts K")
    with open_log(db) as log:
        ra, rb = log.resolve(a), log.resolve(b)
        ea = [e.event for e in log.effective(ra).entries]
        eb = [e.event for e in log.effective(rb).entries]
    if ea[0] != eb[0] and {k2: v for k2, v in ea[0].items() if k2 != "raw"} != {
        k2: v for k2, v in eb[0].items() if k2 != "raw"
    }:
        raise MalformedInput(f"races {ra} and {rb} do not start alike: compare a race with its branches")
    at = _divergence(ea, eb)
    out: dict[str, Any] = {"a": ra, "b": rb}
    console = out_console()
    if at is None:
        out["diverge"] = None
        if as_json:
            import json

            typer.echo(json.dumps(out, indent=1, allow_nan=False))
        else:
            aside = "" if len(ea) == len(eb) and _divergence_with_notes(ea, eb) is None else " (their notes aside)"
            console.print(f"races {ra} and {rb} have the same log{aside}", markup=False)
        return
    i, j = at
    from ..engine import apply

    prefix = None
    for ev in ea[:i]:
        prefix = apply(prefix, ev, atomic=False)
    assert prefix is not None
    at_round = prefix.round
    xa, xb = (ea[i] if i < len(ea) else None), (eb[j] if j < len(eb) else None)
    out["diverge"] = {"event": i + 1, "event_b": j + 1, "round": at_round, "a": xa, "b": xb}
    rounds_a, rounds_b = _per_round(ea, at_round), _per_round(eb, at_round)
    out["rounds"] = [
        {"round": r, "a": rounds_a.get(r), "b": rounds_b.get(r)} for r in sorted(set(rounds_a) | set(rounds_b))
    ]
    result = None
    if k:
        viewer = as_car
        if viewer is None and prefix.mode == "open":
            car = (xa or xb or {}).get("car")
            viewer = car if isinstance(car, str) else None
        # At steps 1–2 the viewer decided without the others' gears and plays of that round (# 2.1).
        steps_1_2 = prefix.phase == "race" and prefix.turn is None
        info = information_set(as_known_by(ea, i, viewer, at_steps_1_2=steps_1_2), viewer)
        cars = list(info.public.cars)
        first = pick_seed(seed)
        sides = [[xa] if xa is not None else [], [xb] if xb is not None else []]
        result = _run(
            info,
            k,
            seed=first,
            bots=bot_map(bots, cars),
            sides=sides,
            workers=workers,
            dask=dask_scheduler,
            what=f"{k} paired playouts",
        )
        diff = result.difference()
        out["playouts"] = {
            "seed": first,
            "viewer": viewer,
            "playouts": result.done,
            "requested": k,
            "partial": result.partial,
            "a": _summary_rows(result, 0),
            "b": _summary_rows(result, 1),
            "difference": [diff[c].to_dict() for c in cars],
        }
    if as_json:
        import json

        typer.echo(json.dumps(out, indent=1, allow_nan=False))
    else:
        _print_compare(console, out, ra, rb, result)
    if result is not None and result.partial:
        raise typer.Exit(130)


def _print_compare(console: Any, out: dict[str, Any], ra: int, rb: int, result: Any) -> None:
    from rich.table import Table

    from ..formats.words import signed

    d = out["diverge"]
    of_b = "" if d["event_b"] == d["event"] else f" of {ra}, {d['event_b']} of {rb}"
    console.print(f"races {ra} and {rb} diverge at event {d['event']}{of_b} (round {d['round']}):", markup=False)
    console.print(f"  {ra}: {_describe(d['a'])}", markup=False)
    console.print(f"  {rb}: {_describe(d['b'])}", markup=False)
    console.print(f"each car at the end of every round since (A: race {ra}, B: race {rb}):", markup=False)
    table = Table()

    def place(x: dict[str, Any] | None) -> str:
        if x is None:
            return "–"
        return "finished" if x["finished"] else f"{x['lap']}:{x['space']}"

    cells: list[tuple[str, ...]] = []
    for row in out["rounds"]:
        cars = list((row["a"] or row["b"]).keys())
        for car in cars:
            pa = (row["a"] or {}).get(car)
            pb = (row["b"] or {}).get(car)
            cells.append(
                (
                    str(row["round"]),
                    car,
                    place(pa),
                    place(pb),
                    *(
                        "–" if p is None or p[key] is None else str(p[key])
                        for key in ("engine", "stress")
                        for p in (pa, pb)
                    ),
                )
            )
    # fitted (no word cut at 80 columns: rich alone cut "lap:space" to "lap:sp…" and "finished" to "finish…")
    round_heads = ("round", "car", "A lap:space", "B lap:space", "A Engine", "B Engine", "A Stress", "B Stress")
    fill_table(console, table, [(h, "left" if h == "car" else "right") for h in round_heads], cells)
    print_table(console, table)
    if result is None:
        return
    p = out["playouts"]
    view = f"what {p['viewer']} knew" if p["viewer"] else "public information"
    print_table(console, _playout_table(result, 0, f"race {ra} played on from the divergence ({view})"))
    print_table(console, _playout_table(result, 1, f"race {rb} played on from the divergence ({view})"))
    console.print(
        f"difference in mean place, {ra} − {rb}: {p['playouts']} paired playouts, seed {p['seed']}", markup=False
    )
    diff = Table(
        caption="common random numbers: both sides from the same resampled hands and decks; "
        "variance ×: how much smaller the variance of the difference is than with independent playouts",
    )
    heads = ("car", "difference", "95 % interval", "variance ×", "playouts for ±0.1 (CRN)", "(independent)")
    cells = []
    for row in p["difference"]:
        lo, hi = row["difference_95"]
        red = row["variance_reduction"]
        cells.append(
            (
                row["car"],
                signed(row["difference"], 2),
                f"{signed(lo, 2)}…{signed(hi, 2)}",
                "∞" if red is None else f"{red:.1f}",
                str(row["playouts_for_0.1"]["crn"]),
                str(row["playouts_for_0.1"]["independent"]),
            )
        )
    fill_table(console, diff, [(h, "left" if h == "car" else "right") for h in heads], cells)
    print_table(console, diff)
    note = _partial_note(result)
    if note:
        console.print(note, style="bold", markup=False)


@app.command(name="play-on")
@user_errors
def play_on_cmd(
    race: RaceOpt = None,
    bots: BotsOpt = None,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Play a race or branch on to its finish with bots, into its log: a recorded what-if that replay and
    compare read like any race (table-mode races: hidden cards drawn from what the table knew).

    Example: heatlog play-on --race 5 --bots heuristic --seed 1
    """
    from ..analysis.playon import play_on

    with open_log(db) as log:
        rid = log.resolve(race)
        cars = list(log.project(rid).state.cars)
        first = pick_seed(seed)
        done = play_on(log, rid, bots=bot_map(bots, cars), seed=first)
        standings = log.project(rid).state.standings()
    if as_json:
        import json

        typer.echo(
            json.dumps(
                {
                    "race": rid,
                    "seed": first,
                    "events": done.events,
                    "first_seq": done.first_seq,
                    "standings": standings,
                },
                indent=1,
                allow_nan=False,
            )
        )
        return
    out_console().print(
        f"race {rid}: played on with seed {first}: {done.events} events from seq {done.first_seq}; "
        f"finishing order {', '.join(standings)}",
        markup=False,
    )
