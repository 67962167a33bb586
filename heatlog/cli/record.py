"""heatlog record: the guided recording session at the table."""

from typing import Annotated, Any

import typer

from .common import FROM_REGISTRY, DbOpt, ModuleFlags, RaceOpt, app, module_flags, open_log, user_errors


@app.command()
@user_errors
@module_flags("record")
def record(
    ctx: typer.Context,
    race: RaceOpt = None,
    new: Annotated[bool, typer.Option("--new", help="Start a new race: asks the set-up questions first.")] = False,
    modules: ModuleFlags = FROM_REGISTRY,  # every module's options for --new (engine/module.py: Module.flags)
    force: Annotated[
        bool, typer.Option("--force", help="Take the race over from a recorder on another machine that is gone.")
    ] = False,
    season: Annotated[
        int | None,
        typer.Option("--season", help="With --new: the season's next race, set up from the season (no questions)."),
    ] = None,
    rules: Annotated[
        bool, typer.Option("--rules", help="Name the rules digest items (# 4.1) in messages, for hosts who know them.")
    ] = False,
    read_damaged: Annotated[
        bool,
        typer.Option(
            "--read-damaged", help="Record on a log whose hash chain is broken (damaged or tampered with), warned."
        ),
    ] = False,
    db: DbOpt = None,
) -> None:
    """Record a race at the table: a guided session that asks every entry in turn (resumes where it stopped).

    With --new --season ID the race is the season's next one: its circuit, laps, drivers and grid come from the
    season (heatlog season new), and the recorder goes straight to the first round.

    Example: heatlog record --new;  heatlog record --new --season 1

    Legends are cars written legend:COLOUR in the set-up (e.g. Ann:red legend:black legend:gray).
    """
    from ..recorder import record as run_recorder

    typed = modules.given(ctx)
    if season is not None:
        from ..engine.errors import MalformedInput
        from ..formats.usertext import console
        from ..season import next_race, season_view, unapplied_effects

        if not new or race is not None:
            raise MalformedInput("--season starts the season's next race: give it with --new (and no --race)")
        if typed:  # it was dropped without a word: the season's races have the season's modules
            raise MalformedInput(f"{', '.join(typed)}: a season's race is set up from the season (season new)")
        with open_log(db, force=read_damaged, force_flag="--read-damaged") as log:
            race = next_race(log, season)
            view = season_view(log, season)
            sr = next(r for r in view.races if r.race == race)
            err = console(stderr=True)
            err.print(f"race {race}: race {sr.index} of season {view.name}, {sr.track['name']}, event {sr.event.name}")
            missing = unapplied_effects(sr.event, view.version, view.sponsors)
            if missing:
                err.print(f"not applied by heatlog yet: {'; '.join(missing)}")
            code = run_recorder(log, race=race, new=False, force=force, rules=rules)
            _offer_anchor(log, race, code)
        raise typer.Exit(code)
    if typed and not new:
        from ..engine.errors import MalformedInput

        raise MalformedInput(f"{', '.join(typed)} goes with --new: a race's modules are chosen when it starts")
    with open_log(db, create=new, force=read_damaged, force_flag="--read-damaged") as log:
        before = _finished(log, race) if not new else False
        code = run_recorder(log, race=race, new=new, force=force, modules=modules.options(), rules=rules)
        if not before:
            _offer_anchor(log, log.store.latest_race() if new else race, code)
    raise typer.Exit(code)


def _finished(log: Any, race: int | None) -> bool:
    from ..engine.errors import HeatlogError

    try:
        return bool(log.project(log.resolve(race)).state.phase == "over")
    except HeatlogError:
        return False


def _offer_anchor(log: Any, race: int | None, code: int) -> None:
    """A race finished in this recording, at a terminal: offer to keep its anchor (heatlog.cli.anchor)."""
    import sys

    from .anchor import offer_anchor

    if code != 0 or race is None or not sys.stdin.isatty() or not _finished(log, race):
        return
    from ..formats.usertext import console

    out = console()
    # kept without a question: a prompt after the race's last answer would hold the terminal (and every script
    # that drives the recorder); the lines say where it went and how to check it
    offer_anchor(log, log.resolve(race), lambda _: "", lambda text: out.print(text, style="cyan", markup=False))
