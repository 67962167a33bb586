"""The prompt loop: ``input()`` with readline, a rich console for the output."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine import MalformedInput
from ..engine.errors import NOT_FOUND
from ..log.racelog import RaceLog
from .lease import Lease
from .notation import SAVED, strip_rule_tags
from .questions import Line
from .session import Session
from .wizard import NewRace

STYLES = {
    "error": "bold red",
    "warn": "bold yellow",
    "outcome": "bold",
    "info": "cyan",
    "dim": "dim",
    "head": "bold magenta",
    "board-strip": "",
    "": "",
}


def show(console: Any, session: Session | None, lines: list[Line], *, rules: bool | None = None) -> None:
    """Print the session's lines; digest tags (``# 4.1``) only for a host who asked for them (--rules)."""
    tags = rules if rules is not None else (session.rules if session is not None else False)
    for line in lines:
        if line.style == "board" and session is not None:
            from ..views.board import render_state

            render_state(console, session.view, race=session.race)
            continue
        text = line.text if tags else strip_rule_tags(line.text)
        console.print(text, style=STYLES.get(line.style, ""), markup=False, highlight=False, soft_wrap=True)


def _readline(options: Callable[[str], tuple[str, ...]]) -> None:
    """Line editing, history and Tab completion: of the current question's answers and the commands, and
    in a one-line entry of the answers the words typed so far lead to (``options(words before)``)."""
    try:
        import readline
    except ImportError:  # pragma: no cover - not on every platform
        return

    def complete(text: str, state: int) -> str | None:
        before = readline.get_line_buffer()[: readline.get_begidx()]
        words = [w for w in dict.fromkeys(options(before)) if w.startswith(text.lower())]
        return words[state] if state < len(words) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" ,")
    readline.parse_and_bind("tab: complete")


def run(session: Session, console: Any, input_fn: Callable[[str], str] = input) -> int:
    """Ask until the race is over or the host leaves. Every answer is committed before the next question."""
    show(console, session, session.start_lines())
    over_at_start = session.question.kind == "over"
    while True:
        q = session.question
        if q.kind == "over" and over_at_start:
            return 0  # nothing recorded here: just the results
        try:
            text = input_fn(q.prompt)
        except (EOFError, KeyboardInterrupt):
            console.print(f"\n{SAVED}", style="cyan", markup=False, highlight=False)
            return 0
        if q.kind == "over" and text.strip().lower() in ("", "quit", "exit", "leave"):
            return 0  # the last answer stands (undo, note, board and help still work at this prompt)
        show(console, session, session.answer(text))
        if session.quit:
            return 0


def new_race(
    log: RaceLog,
    console: Any,
    input_fn: Callable[[str], str] = input,
    *,
    modules: dict[str, Any] | None = None,
    rules: bool = False,
) -> int | None:
    """Ask the set-up questions; create the race (with ``modules``, the options chosen on the command line, by
    module name). None if the host left before the end."""
    wiz = NewRace(modules=dict(modules or {}))
    console.print("new race — set-up (undo goes back one question)", style="bold magenta", markup=False)
    while wiz.step is not None:
        try:
            text = input_fn(wiz.prompt())
        except (EOFError, KeyboardInterrupt):
            console.print("\nno race was created", style="cyan", markup=False)
            return None
        if text.strip().lower() in ("quit", "exit"):
            console.print("no race was created", style="cyan", markup=False)
            return None
        msg = wiz.answer(text)
        if msg and not rules:
            msg = strip_rule_tags(msg)
        if msg:
            console.print(msg, style="bold red" if msg.startswith("error") else "cyan", markup=False, soft_wrap=True)
    rid = wiz.create(log)
    console.print(f"race {rid} created: {wiz.answers.get('name') or 'no name'}", style="cyan", markup=False)
    return rid


def record(
    log: RaceLog,
    *,
    race: int | None = None,
    new: bool = False,
    force: bool = False,
    rules: bool = False,
    console: Any = None,
    input_fn: Callable[[str], str] = input,
    modules: dict[str, Any] | None = None,
) -> int:
    """``heatlog record``: open (or create) the race, take its lease, run the session. Returns the exit code."""
    from ..formats.usertext import console as literal_console

    con = console or literal_console()
    if new and race is not None:
        raise MalformedInput("--new starts a new race: leave out --race")
    if modules and not new:
        raise MalformedInput(f"{', '.join(modules)}: a race's modules are chosen when it starts (--new)")
    if new:
        log.store.check_writable()  # a read-only or locked file refused now, not after every set-up question
        made = new_race(log, con, input_fn, modules=modules, rules=rules)
        if made is None:
            return 0
        rid = made
    else:
        if race is None and log.store.latest_race() is None:
            raise MalformedInput(f"no races in {log.path} yet: start one with heatlog record --new", words=NOT_FOUND)
        if race is None:  # the host's latest race: simulations stored since never take its place
            mine = [i.id for i in log.store.races() if "simulated" not in i.meta]
            race = mine[-1] if mine else None
        rid = log.resolve(race)
    lease = Lease(log, rid)
    notice = lease.acquire(force=force)
    try:
        if notice:
            con.print(notice, style="cyan", markup=False)
        session = Session(log, rid, lease=lease, fresh=new, rules=rules)
        _readline(session.completions)
        return run(session, con, input_fn)
    except KeyboardInterrupt:
        con.print(f"\n{SAVED}", style="cyan", markup=False)
        return 0
    finally:
        lease.release()
