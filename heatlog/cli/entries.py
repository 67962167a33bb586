"""Entries into a race's log by hand: add, note, undo, branch."""

import sys
from typing import Annotated, Any

import typer

from .common import (
    DbOpt,
    RaceOpt,
    app,
    err_console,
    open_log,
    user_errors,
)


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
    from ..engine.decide import waiting_for
    from ..formats.jsonio import MAX_SMALL_BYTES, loads, read_stdin

    text = read_stdin("standard input", limit=MAX_SMALL_BYTES) if event == "-" else event
    ev = loads(text, "the event" if event != "-" else "standard input")
    if isinstance(ev, dict):
        ev.setdefault("v", 1)
    with open_log(db) as log:
        rid = log.resolve(race)
        seq, proj = log.append(rid, ev)
        w = waiting_for(proj.state)
        typer.echo(f"race {rid}: event {seq} recorded; next: {w.text}")


#: How many times `heatlog note` tries to append before it says the conflict (issue 30: 67 of 120 parallel
#: notes got a conflict when it tried once).
NOTE_ATTEMPTS = 5


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
    from ..engine.errors import ConflictError

    with open_log(db) as log:
        rid = log.resolve(race)
        for attempt in range(1, NOTE_ATTEMPTS + 1):
            proj = log.project(rid)
            ev: dict[str, Any] = {"type": "note", "v": 1, "text": text, "round": proj.state.round}
            if car is not None:
                ev["car"] = car  # the door refuses a car not in the race (racelog.check_note), as for heatlog add
            try:
                seq, _ = log.append(rid, ev, proj)
            except ConflictError:
                # another writer appended first: a note goes at the point the race has reached, so it is read
                # again and tried again, after a short random wait (writers that collided do not collide again
                # in step); the last conflict is said, as for every other entry
                if attempt == NOTE_ATTEMPTS:
                    raise
                import random
                import time

                time.sleep(random.uniform(0, 0.05 * attempt))
                continue
            break
        typer.echo(f"race {rid}: note {seq} recorded at round {proj.state.round}")


@app.command()
@user_errors
def undo(
    reason: Annotated[
        str | None, typer.Option(help="Why the entry is withdrawn, in words (an empty or blank reason is refused).")
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Reopen a finished race without asking.")] = False,
    race: RaceOpt = None,
    db: DbOpt = None,
) -> None:
    """Retract the latest entry in force (a correction event; the original stays in the log).

    Undoing into a finished race reopens it: heatlog asks first (or give --yes).

    Example: heatlog undo --reason "wrong car"
    """
    from ..engine.errors import REFUSED, MalformedInput
    from ..engine.events import REGISTRY

    with open_log(db) as log:
        rid = log.resolve(race)
        end = log.end(rid)  # from the latest round start: undo costs the same however long the race
        proj, target = end.projection, end.last
        kind = REGISTRY.get(target.event.get("type", ""))
        # a note beside a finished race goes without reopening it: only an entry of the race itself reopens
        reopens = proj.state.phase == "over" and not (kind is not None and kind.aside)
        if reopens and not yes:
            question = f"race {rid} is finished: undo reopens it. Reopen?"
            if not sys.stdin.isatty() or not typer.confirm(question, default=False, err=True):
                raise MalformedInput(
                    "the race is finished: nothing was undone (give --yes to reopen it)", race=rid, words=REFUSED
                )
        seq, _ = log.retract_last(rid, reason, end)
    from ..formats.usertext import visible
    from ..recorder.notation import describe, race_cards

    # what was undone in words, as the recorder says it (a bare "event 6 (cards_drawn)" named no car nor card)
    said = visible(describe(target.event, race_cards(proj.state)))
    typer.echo(f"race {rid}: undone: {said} — event {target.seq} ({target.event['type']}) retracted by event {seq}")


@app.command()
@user_errors
def branch(
    at_round: Annotated[int, typer.Option("--at-round", help="The branch starts at the start of this round.")],
    name: Annotated[str, typer.Option(help="A name for the branch.")],
    race: RaceOpt = None,
    play_on: Annotated[
        bool, typer.Option("--play-on", help="Let bots play the branch on to the finish, into its log.")
    ] = False,
    bots: Annotated[
        str | None, typer.Option(help="With --play-on: the bot for every car, or one per car in car order.")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="With --play-on: the seed (default: random, printed).")] = None,
    db: DbOpt = None,
) -> None:
    """Create a what-if branch from the start of a round; prints the branch id. With --play-on, bots play it
    on to the finish (a recorded what-if that replay and compare read like any race).

    Example: heatlog branch --at-round 4 --name "Ann boosts" --play-on --seed 1
    """
    from ..engine.errors import MalformedInput

    if not play_on and (bots is not None or seed is not None):
        raise MalformedInput("--bots and --seed play a branch on: add --play-on")
    with open_log(db) as log:
        rid = log.resolve(race)
        if play_on:
            from ..analysis.playon import play_on as play
            from .analysis import bot_map, pick_seed

            drivers = bot_map(bots, list(log.project(rid).state.cars))  # refused before the branch exists
        bid = log.branch(rid, at_round, name)
        err_console().print(f"branch {bid} of race {rid} at the start of round {at_round}", markup=False)
        if play_on:
            first = pick_seed(seed)
            done = play(log, bid, bots=drivers, seed=first)
            err_console().print(f"played on with seed {first}: {done.events} events", markup=False)
        typer.echo(str(bid))
