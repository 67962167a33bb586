"""Starting and importing races (the set-up half of the CLI, as a Python API)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from ..engine import apply
from ..engine.errors import BY_THE_RULES, HeatlogError, IllegalEvent, MalformedInput
from ..engine.module import MODULES as MODULE_UNITS
from ..formats.jsonio import decimal_problem, read_json_file
from ..formats.usertext import check_label
from ..formats.validation import event_errors
from ..formats.words import counted
from ..log.race_start import race_started_event
from ..log.racelog import RaceLog, effective_log
from ..store import read_jsonl

Event = dict[str, Any]


def module_cars(options: Mapping[str, Any]) -> int:
    """How many cars the modules' options add to a race (``Module.car_count``: the Legends', # 19.1)."""
    from ..engine import rules as _registered  # noqa: F401  (importing the rules registers every module)

    total = 0
    for m in _playing(options):
        count = MODULE_UNITS[m].car_count
        if count is not None:
            total += count(options[m])
    return total


def expand_modules(options: Mapping[str, Any], cars: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    """The modules' options with every count of cars made into cars (``Module.expand``: ``{"legends": {"cars":
    2}}`` -> two Legend cars in the colours ``cars`` leave free, # 19.3, 19.4), as ``race_started_event`` takes
    them; ``MalformedInput`` refuses in words."""
    from ..engine import rules as _registered  # noqa: F401  (importing the rules registers every module)
    from ..formats.module_data import data_of

    out = dict(options)
    taken = [c["colour"] for c in cars]
    for m in _playing(options):
        unit = MODULE_UNITS[m]
        if unit.expand is not None:
            try:
                out[m] = unit.expand(options[m], taken, data_of(m))
            except ValueError as exc:
                raise MalformedInput(str(exc)) from None
    return out


def table_setup_events(order: list[str], deckless: list[str] | tuple[str, ...] = ()) -> list[Event]:
    """What every physical table does before round 1, in table mode: shuffle, draw seven (# 1.2); ``deckless``:
    the cars the modules add, which have no deck (a Legend, MODULES.md 19.3)."""
    out: list[Event] = []
    for name in order:
        if name in deckless:
            continue
        out.append({"type": "deck_shuffled", "v": 1, "car": name})
        out.append({"type": "cards_drawn", "v": 1, "car": name, "count": 7})
    return out


def start_race(
    log: RaceLog,
    *,
    track: str,
    cars: list[dict[str, str]],
    laps: int | None = None,
    mode: str = "table",
    variant: str | None = None,
    handicap: list[str] | None = None,
    grid: list[str] | None = None,
    seed: int | None = None,
    from_position: Path | None = None,
    name: str | None = None,
    modules: Mapping[str, Any] | None = None,
    drawn: Sequence[Event] = (),
) -> int:
    """Create a race. The grid is random (seeded) unless given; in table mode the set-up shuffles and
    draws are recorded too, since they are the same at every table. In open mode the cards are recorded
    by the host (the recorder asks for them).

    Legends (MODULES.md 19) take grid spots like any car. A module's set-up draws (the weather's tile and
    tokens, 20.2, 20.3) come before the decks: given here (``drawn``) they are recorded at once; otherwise the
    recorder asks for them (and the table-mode set-up follows them).

    ``modules``: the modules' options as one mapping by module name (``race_started_event``; issue 26, build 5):
    the Legends' ``cars`` are ``{"name", "colour"}`` each (``expand_modules`` makes a count into them). ``drawn``:
    the set-up chance events the table has drawn already (``Module.given_draws`` makes them from a command's
    flags)."""
    if mode not in ("table", "open"):
        raise MalformedInput(f"--mode {mode!r}: choose table or open")
    if from_position is not None:
        pos = read_json_file(from_position, "position file")
        from ..formats.positions import check_position

        check_position(pos, f"position file {from_position}")
        ev: Event = {
            "type": "race_started",
            "v": 1,
            "track": pos["track"],
            "laps": pos["laps"],
            "cars": [{"name": c["name"], "colour": c["colour"] or "grey"} for c in pos["cars"]],
            "variant": pos.get("variant", "standard"),
            "handicap": [c["name"] for c in pos["cars"] if c.get("handicap")],
            "mode": pos["mode"],
            "position": pos,
        }
        return log.new_race(ev, name=name)
    options = dict(modules or {})
    total = len(cars) + module_cars(options)  # the Legends count (# 19.2)
    if not 2 <= total <= 6:
        raise MalformedInput(
            f"a race has 2 to 6 cars, Legends included (give --car NAME:COLOUR for each), not {total} (# 19.2)",
            words=BY_THE_RULES,
        )
    given = _given_draws(drawn, options)
    ev = race_started_event(
        track=track,
        cars=cars,
        laps=laps,
        mode=mode,
        variant=variant,
        handicap=handicap,
        seed=seed,
        modules=options,
    )
    names = [c["name"] for c in ev["cars"]]
    if grid is None:
        grid = list(names)
        random.Random(seed).shuffle(grid)  # # 1.4: random starting order
    elif sorted(grid) != sorted(names):
        raise MalformedInput(f"--grid must name every car once: {', '.join(names)}")
    setup: list[Event] = [dict(d) for d in drawn]  # MODULES.md 20.2: before the decks
    # the table-mode shuffles and draws follow at once when no module of the race has a set-up step left for the
    # recorder to ask (the Garage's draft, # 18.4; a weather tile not given, # 20.2)
    waiting = [m for m in _playing(options) if MODULE_UNITS[m].phases and m not in given]
    if given and waiting:
        raise MalformedInput(
            f"{', '.join(sorted(given))}: set-up draws given, but the race's {waiting[0]} set-up comes before "
            "them: the recorder asks them in order"
        )
    if mode == "table" and not waiting:
        # the cars the modules add come after the players' (a Legend: no deck, # 19.3)
        setup += table_setup_events(grid, [c["name"] for c in ev["cars"][len(cars) :]])
    return log.new_race(ev, grid=grid, name=name, setup=setup)


def _playing(options: Mapping[str, Any]) -> list[str]:
    """The registered modules the options put in the race."""
    return [m for m, block in options.items() if m in MODULE_UNITS and block is not None and block is not False]


def _given_draws(drawn: Sequence[Event], options: Mapping[str, Any]) -> set[str]:
    """The modules whose set-up draws ``drawn`` holds; each must be a chance event of a module of the race."""
    from ..engine.module import of_event

    given: set[str] = set()
    for d in drawn:
        kind = d.get("type") if isinstance(d, Mapping) else None
        unit = of_event(kind) if isinstance(kind, str) else None
        if unit is None or unit.name not in _playing(options) or not unit.phases:
            raise MalformedInput(f"{kind!r} is not a set-up draw of a module in the race")
        given.add(unit.name)
    return given


def _check_export_anchor(
    lines: list[tuple[int, Event]], anchors: list[tuple[int, Event]], source: str, texts: list[str] | None
) -> None:
    """An export ends with its race's anchor: the events before it must chain to the anchor's head.
    ``texts``: the events' canonical texts, when the reader has them."""
    from ..store import GENESIS, canonical, chain_hash

    number, anchor = anchors[-1]
    if len(anchors) > 1 or number < lines[-1][0]:
        raise MalformedInput(f"{source}: line {number}: an anchor line belongs at the end of the file, once")
    head = GENESIS
    try:
        for raw in (canonical(ev) for _, ev in lines) if texts is None else (t.encode() for t in texts):
            head = chain_hash(head, raw)
    except (TypeError, ValueError):
        raise MalformedInput(f"{source}: an event cannot be stored as JSON") from None
    if anchor.get("seq") != len(lines) or anchor.get("head") != head:
        raise MalformedInput(
            f"{source}: line {number}: the events do not match the file's anchor (it was exported with "
            f"{anchor.get('seq')} events; events were removed, added or changed since); nothing imported"
        )


def _schema_problems(lines: list[tuple[int, Event]], events: list[Event], texts: list[str] | None) -> list[str]:
    """Every schema problem of the events, each named by its line, in line order (empty: all well-formed).

    The check's answer is a function of the event alone, and an event's canonical text is the event (same
    text: same value, same types): given the texts, each distinct event is checked once, and most of a log's
    lines are copies of another (the same flips, gears, boosts: ~70 % of a simulated race's)."""
    if texts is None:
        verdicts = list(map(event_errors, events))
    else:
        distinct = dict(zip(texts, events, strict=True))
        checked = {text: event_errors(ev) for text, ev in distinct.items()}
        if not any(checked.values()):
            return []
        verdicts = list(map(checked.__getitem__, texts))
    return [f"line {number}: {p}" for (number, _), errors in zip(lines, verdicts, strict=True) for p in errors]


class Refusal(NamedTuple):
    """An entry of an imported log that the rules of this heatlog refuse (a log recorded by an earlier, more
    lenient version): imported as recorded and withdrawn at once by a ``retracted`` event that says why."""

    line: int  # the entry's line in the imported file
    seq: int  # its seq in the imported race
    type: str
    why: str  # the rules' refusal, where and which rule, without the event's JSON

    def __str__(self) -> str:
        return f"line {self.line} (event {self.seq}, {self.type}): {self.why}"


#: The reason of a retraction made by import (the rules' words are in its ``refused`` field).
REFUSED_REASON = "refused on import: the rules of this heatlog refuse it; kept in the log, folded as never made"
MAX_REFUSED = 1000  # the length the schema allows a retraction's ``refused`` field


def refusal_words(err: HeatlogError) -> str:
    """A rules refusal in words: where, what, which rule; the event itself is not shown (it is the log's own
    line, and its JSON said nothing a person reads)."""
    words = type(err)(
        err.message, race=err.race, round=err.round, step=err.step, car=err.car, input=None, rule=err.rule
    ).describe()
    return words if len(words) <= MAX_REFUSED else words[: MAX_REFUSED - 1] + "…"


def import_race(
    log: RaceLog,
    text: str,
    *,
    name: str | None = None,
    source: str = "input",
    progress: Callable[[int], None] | None = None,
    again: bool = True,
    strict: bool = False,
    refused: list[Refusal] | None = None,
) -> int:
    """Import a JSON Lines log as a new race: all lines well-formed, or nothing is written.
    ``progress(n)`` is told every 500 events how many have been checked (of twice the events: schema, rules).
    ``again=False``: a log the database already holds (a race, or the beginning of one, with the very same
    events: the file imported before, or exported from here) is refused, naming that race.

    Old logs keep loading: an entry the rules refuse (a log recorded by an earlier version, whose checks were
    more lenient) does not strand the log. It is imported as recorded, followed at once by a ``retracted``
    event whose ``refused`` field holds the rules' words, so the race is folded as if it had never been made
    (a refused entry never changes derived state, and the correction is a new event); later entries are checked
    against that state, and refused the same way if they need it. Each refusal is appended to ``refused``.
    ``strict=True`` (the export check) refuses the log instead. The set-up (the first event) is never withdrawn."""
    check_label(name)
    anchors: list[tuple[int, Event]] = []
    try:
        lines, texts = read_jsonl(text, anchors)  # texts: each event's canonical text, when the fast reader read it
    except MalformedInput as err:  # named by the file, as every other refusal of it is
        raise MalformedInput(f"{source}: {err.message}; nothing imported", words=err.words) from None
    if not lines:
        raise MalformedInput(f"{source}: no events")
    if anchors:
        _check_export_anchor(lines, anchors, source, texts)
    events = list(map(itemgetter(1), lines))  # event seq i is lines[i - 1]
    problems = _schema_problems(lines, events, texts)
    if progress is not None:  # the check is done (for copies of an event, at its first copy)
        for i in range(500, len(lines) + 1, 500):
            progress(i)
    if problems:
        raise MalformedInput(
            f"{source}: {counted(len(problems), 'problem')}, nothing imported:\n  " + "\n  ".join(problems)
        )
    if lines[0][1].get("type") != "race_started":
        raise MalformedInput(f"{source}: line {lines[0][0]}: the first event must be race_started")
    in_force: Iterable[tuple[int, dict[str, Any]]] = enumerate(events, start=1)
    if "retracted" in map(itemgetter("type"), events):  # else every event is in force, as it stands
        try:
            in_force = [(entry.seq, entry.event) for entry in effective_log(in_force).entries]
        except HeatlogError as err:
            raise IllegalEvent(f"{source}: {refusal_words(err)}; nothing imported") from None
    state = None
    accepted: list[Event] = []
    withdrawn: dict[int, str] = {}  # file seq of a refused entry: the rules' words
    for i, (seq, ev) in enumerate(in_force, start=1):
        if progress is not None and i % 500 == 0:
            progress(len(lines) + i)
        try:
            # no rollback copy while nothing was refused: the first refusal folds the accepted entries again
            state = apply(state, ev, atomic=bool(withdrawn))
        except HeatlogError as err:
            number = lines[seq - 1][0]
            # the rules cannot take 1.0 where they need a number (a gear): say so in heatlog add's words
            decimal = decimal_problem(ev)
            said = refusal_words(err) + (f" ({decimal})" if decimal is not None else "")
            if strict or seq == 1:
                raise type(err)(f"{source}: line {number}: {said}; nothing imported", input=None) from None
            if not withdrawn:
                state = None
                for earlier in accepted:
                    state = apply(state, earlier, atomic=False)
            withdrawn[seq] = said
            continue
        if not withdrawn:
            accepted.append(ev)
    if withdrawn:
        events = _with_refusals(events, withdrawn, lines, refused)
        texts = None
    if not again:
        held = log.store.holding(events, texts)
        if held is not None:
            whole = log.store.tail(held)[0] == len(events)  # the race's last seq: the whole log, or more
            raise MalformedInput(
                f"{source}: race {held} already holds "
                + (f"these {len(events)} events" if whole else f"these {len(events)} events as its beginning")
                + ": nothing imported (--again imports the file as another race)"
            )
    first = lines[0][1]
    meta = {
        "track": first["track"]["id"],
        "mode": first.get("mode"),
        "cars": [c["name"] for c in first.get("cars", [])],
        "laps": first.get("laps"),
        "imported_from": source,
    }
    return log.store.create_race(name, meta, events, texts=texts)


def _with_refusals(
    events: list[Event], withdrawn: dict[int, str], lines: list[tuple[int, Event]], refused: list[Refusal] | None
) -> list[Event]:
    """The file's events as stored: each refused entry followed by the retraction that withdraws it. A
    retraction of the file names the same event at its new seq (it always withdraws the latest entry in force,
    which a refused entry, in force to the end, never is)."""
    out: list[Event] = []
    moved: dict[int, int] = {}  # file seq -> seq in the race
    for seq, ev in enumerate(events, start=1):
        if ev.get("type") == "retracted" and moved.get(ev["seq"], ev["seq"]) != ev["seq"]:
            ev = {**ev, "seq": moved[ev["seq"]]}
        out.append(ev)
        moved[seq] = len(out)
        why = withdrawn.get(seq)
        if why is not None:
            out.append({"type": "retracted", "v": 1, "seq": len(out), "reason": REFUSED_REASON, "refused": why})
            if refused is not None:
                refused.append(Refusal(lines[seq - 1][0], len(out) - 1, str(ev.get("type")), why))
    return out
