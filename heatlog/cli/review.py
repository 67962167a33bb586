"""Decision review: review (every decision of a car, judged by playouts over what it knew)."""

import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .common import (
    DbOpt,
    JsonOpt,
    RaceOpt,
    app,
    check_output,
    err_console,
    fill_table,
    open_log,
    out_console,
    print_table,
    user_errors,
)

if TYPE_CHECKING:
    from ..review import PointReview, Review


@app.command()
@user_errors
def review(
    race: RaceOpt = None,
    car: Annotated[
        list[str] | None, typer.Option("--car", help="Review this car (repeat; default: every car).")
    ] = None,
    round: Annotated[list[int] | None, typer.Option("--round", help="Only this round (repeat).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the playouts: the same seed gives the same review.")] = 0,
    screen: Annotated[int, typer.Option(help="Playouts per legal decision in the screening.")] = 16,
    keep: Annotated[int, typer.Option(help="Best decisions of the screening played out besides the one taken.")] = 2,
    target: Annotated[
        float,
        typer.Option(help="± of a settled label's loss (68 %), in expected score (cars − place) / (cars − 1)."),
    ] = 0.05,
    max_playouts: Annotated[
        int, typer.Option("--max-playouts", help="Playouts per decision played out, at most.")
    ] = 256,
    bots: Annotated[str, typer.Option(help="Bot that plays every car on in the playouts: heuristic or random.")] = (
        "heuristic"
    ),
    evaluator: Annotated[
        str,
        typer.Option(
            help="Who plays the reviewed car on in the playouts: bots (the --bots bot, like every car) or search "
            "(its gear and cards searched for the rest of the decision's round and --search-rounds more; several "
            "times slower, docs/analysis.md)."
        ),
    ] = "bots",
    search_rounds: Annotated[
        int, typer.Option("--search-rounds", help="Rounds after the decision's own the search evaluator plans.")
    ] = 1,
    workers: Annotated[int | None, typer.Option(help="Local worker processes (default: all cores).")] = None,
    dask_scheduler: Annotated[
        str | None, typer.Option("--dask-scheduler", help="Run the playouts on this Dask cluster instead.")
    ] = None,
    as_json: JsonOpt = False,
    html: Annotated[
        Path | None, typer.Option("--html", help="Write the HTML replay with the review beside each turn.")
    ] = None,
    db: DbOpt = None,
) -> None:
    """Review every decision of a car (gear, cards, React, slipstream, discard): the decision taken, the best
    alternatives, and each one's expected place and win share, by playouts over what the car knew.

    Every legal decision is screened with a few playouts (common random numbers); the best few and the one
    taken are played out on the same worlds until the label is settled: the loss of the one taken (in expected
    score, the share of the other cars beaten) lies within one label's band (68 %) or is known to ± --target,
    or --max-playouts are played. Significant losses against the best are labelled inaccuracy, mistake or
    blunder (docs/analysis.md).
    Decisions not reviewed are listed with the reason. Ctrl-C prints what was reviewed, marked partial.

    Example: heatlog review --race 2 --car Ann --round 4;  heatlog review --car Ann --html review.html
    """
    from ..analysis.executors import default_workers, executor_for, width
    from ..engine.errors import MalformedInput
    from ..review import Settings, review_race

    if max_playouts < screen:
        raise MalformedInput(f"--max-playouts {max_playouts} is fewer than --screen {screen}")
    if min(screen, keep + 1, max_playouts) < 1 or not target > 0:
        raise MalformedInput("--screen and --max-playouts need at least 1, --keep 0 or more, --target above 0")
    from ..bots import get_bot
    from ..review import check_evaluator

    get_bot(bots)  # an unknown bot is refused before any work
    settings = Settings(
        screen=screen,
        keep=keep,
        target=target,
        max_playouts=max_playouts,
        bots=bots,
        seed=seed,
        evaluator=evaluator,
        search_rounds=search_rounds,
    )
    check_evaluator(settings)  # and an unknown evaluator
    check_output(html, "--html")  # and a page that cannot be written
    with open_log(db) as log:
        rid = log.resolve(race)
        entries = log.effective(rid).entries
        name = log.store.race(rid).name
    events = [e.event for e in entries]
    seqs = [e.seq for e in entries]
    with executor_for(workers, dask_scheduler) as ex, _progress() as progress:
        # On a Dask cluster, as many decisions under way as its threads (they were reviewed one at a time)
        parallel = width(ex, 1) if dask_scheduler else workers if workers is not None else default_workers()
        result = review_race(
            events,
            car or None,
            settings=settings,
            executor=ex,
            parallel=max(1, parallel),
            progress=progress,
            seqs=seqs,
            rounds=set(round) if round else None,
            race=rid,
            name=name,
        )
    if html is not None:
        from ..views.replay import build_replay
        from ..views.review_html import write_review_html

        rp = build_replay(events, race=rid, name=name)
        write_review_html(rp, result, html)
        err_console().print(f"race {rid}: review written to {html}", markup=False)
        if not as_json:
            _summary(result)
            return
    if as_json:
        import json

        typer.echo(json.dumps(result.to_dict(), indent=1, ensure_ascii=False, allow_nan=False))
        return
    _print(result)


class _progress:
    """A progress bar over decisions on stderr, in a terminal."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> Any:
        if not sys.stderr.isatty():
            return None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(
            TextColumn("reviewing decisions"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err_console(),
            transient=True,
        )
        self.bar.__enter__()

        def advance(done: int, total: int) -> None:
            if self.task is None:
                self.task = self.bar.add_task("review", total=total)
            self.bar.update(self.task, completed=done, total=total)

        return advance

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)


def _pm(mean: float, half: float) -> str:
    from ..formats.words import fixed

    return f"{fixed(mean)} ±{half:.2f}" if math.isfinite(half) else f"{fixed(mean)} ±?"


def _summary(result: "Review") -> None:
    from ..views import counted, labels, not_reviewed

    console = out_console()
    for c in result.cars:
        if c.legend:
            console.print(not_reviewed(c.car), markup=False, highlight=False)
            continue
        s = c.summary()
        console.print(
            f"{c.car}: {s['decisions']} of {counted(s['decision_points'], 'decision')} reviewed; accuracy "
            f"{s['accuracy'] if s['accuracy'] is not None else '—'}; mean loss {s['mean_loss_places'] or 0:.3f} "
            f"places; {labels(s)}; {s['playouts']:,} playout{'' if s['playouts'] == 1 else 's'}",
            markup=False,
            highlight=False,
        )
        for reason, count in c.reasons().items():
            console.print(f"  not reviewed: {counted(count, 'decision')}: {reason}", markup=False, highlight=False)
    if result.partial:
        console.print("PARTIAL: interrupted before every decision was reviewed.", markup=False)


def _print(result: "Review") -> None:
    from rich.table import Table

    from ..review import evaluator_words

    console = out_console()
    named = f" ({result.name})" if result.name else ""
    head = f"race {result.race}{named}: {result.track_name or result.track}, {result.mode} mode"
    s = result.settings
    console.print(
        f"{head}; seed {s.seed}, bots {s.bots}, evaluator {evaluator_words(s)}; screening {s.screen} playouts "
        f"per decision, the best {s.keep} and "
        f"the one taken played out until the label settles (a label's loss ±{s.target} expected score, 68 %), "
        f"at most {s.max_playouts}" + (" — PARTIAL (interrupted)" if result.partial else ""),
        markup=False,
    )
    for c in result.cars:
        rounds = sorted({p.point.round for p in c.points})
        for r in rounds:
            headers = (
                ("step", "left"),
                ("options", "right"),
                ("taken", "left"),
                ("E[place] ±95%", "right"),
                ("win", "right"),
                ("best found", "left"),
                ("E[place] ±95%", "right"),
                ("loss ±95%", "right"),
                ("label", "left"),
                ("playouts", "right"),
            )
            rows = []
            for p in (p for p in c.points if p.point.round == r):
                same = p.best is p.taken
                rows.append(
                    (
                        p.point.kind,
                        str(len(p.point.options)),
                        p.taken.words,
                        _pm(p.taken.mean_place, p.taken.place_half) + f" n={p.taken.playouts}",
                        f"{100 * p.taken.win:.0f}%",
                        "(the one taken)" if same else p.best.words,
                        "" if same else _pm(p.best.mean_place, p.best.place_half) + f" n={p.best.playouts}",
                        _pm(p.loss, p.loss_half) if not same else "0",
                        _label_words(p),
                        f"{p.playouts:,}",
                    )
                )
            table = Table(title=f"{c.car}, round {r}", title_justify="left")
            # the playouts, options and win columns left out first when the words cannot fit
            left_out = fill_table(console, table, headers, rows, optional=(9, 1, 4))
            print_table(console, table)
            if left_out:
                console.print(
                    f"left out at this width: {', '.join(left_out)} (--json gives them)", style="dim", markup=False
                )
            for p in (p for p in c.points if p.point.round == r and p.reason):
                console.print(f"  why {p.taken.words} ({p.label}): {p.reason}", markup=False, highlight=False)
    _summary(result)


def _label_words(p: "PointReview") -> str:
    """The label, and where the loss's interval still straddled a threshold at the cap, that it is what the
    evidence there supports: "within noise" when it supports none."""
    if p.settled:
        return p.label or ""
    return f"{p.label} (near a threshold)" if p.label else "within noise"


@app.command()
@user_errors
def luck(
    race: RaceOpt = None,
    playouts: Annotated[int, typer.Option("--playouts", "-k", help="Playouts per point of the race.")] = 32,
    seed: Annotated[int, typer.Option(help="Seed of the playouts (the same at every point).")] = 0,
    workers: Annotated[int | None, typer.Option(help="Local worker processes (default: all cores).")] = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Luck and skill of a finished race, per car, that add up: the expected score at the start, plus the luck
    of every chance event (its value after less the expected value before), plus the car's decisions against
    the bots' play, plus the other cars' decisions, is the car's actual score (docs/analysis.md). Net luck: a
    car's luck less the mean luck of the others.

    Example: heatlog luck --race 2 --playouts 32 --seed 1
    """
    from ..analysis.executors import executor_for
    from ..analysis.luck import luck_report
    from ..engine.errors import MalformedInput
    from ..formats.words import signed

    if playouts < 1:
        raise MalformedInput(f"--playouts {playouts}: play at least one")
    with open_log(db) as log:
        rid = log.resolve(race)
        events = [e.event for e in log.effective(rid).entries]
    from ..engine.errors import HeatlogError

    try:
        with executor_for(workers, None) as ex:
            report = luck_report(events, n=playouts, seed=seed, executor=ex)
    except HeatlogError as err:  # named by its race, as every refusal is ("the race is not over": which?)
        raise err.located(race=rid) from None
    if as_json:
        import json

        typer.echo(json.dumps({"race": rid, **report.to_dict()}, indent=1, ensure_ascii=False, allow_nan=False))
        return
    from rich.table import Table

    console = out_console()
    console.print(
        f"race {rid}: luck and skill in expected score (1 = a win, 0 = last), {playouts} playouts per point, "
        f"seed {seed}; start + luck + skill + others = actual",
        markup=False,
    )
    table = Table()
    sources = report.sources if len(report.sources) > 1 else []  # the luck of each module's chance, told apart
    for col in ("car", "start", "luck", *(f"of it: {src}" for src in sources), "skill", "others", "actual", "net luck"):
        table.add_column(col, justify="left" if col == "car" else "right")
    for c in report.cars:
        table.add_row(
            c.car,
            f"{c.start:.3f}",
            signed(c.luck),
            *(signed(c.luck_by.get(src, 0.0)) for src in sources),
            signed(c.skill),
            signed(c.others),
            f"{c.actual:.3f}",
            signed(report.net_luck(c.car)),
        )
    print_table(console, table)
    if sources:
        console.print(
            "of it: the luck of each source's chance events (base: the draws, flips and shuffles)", markup=False
        )
    for x in report.not_valued:
        console.print(f"not valued: {x.count} {x.type.replace('_', ' ')} ({x.source}), {x.reason}", markup=False)
