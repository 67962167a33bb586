"""Every race the simulator plays can be typed back in: the harness of tests/test_recorder_typed_back.py.

A race is simulated by the project's bots as they are (``heatlog.simulate.world.race_events``), with one convention
of the recorder only: a slipstream the bot passes by without a word is a declined slipstream in the log, since the
recorder records a decline whenever it offers the slipstream (docs/design.md). Nothing else is adjusted: an
adrenaline cooldown is whatever the bot made of it (the bonus alone, with a cooldown of 1 or of more, # 6.2, 7.4).
The race is then typed back in through a :class:`heatlog.recorder.Session`, word by word as
:mod:`heatlog.recorder.script` types what a host would, question by question (the guided session) or with every
offer a prompt makes (the reveal's line with the rest of the turn, the React prompt's slipstream and discard).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from heatlog.bots import get_bot, random_bot
from heatlog.engine.decide import slipstream_choices
from heatlog.engine.module import descriptors
from heatlog.engine.redact import open_to_table
from heatlog.formats.module_data import module_block
from heatlog.formats.validation import validate_event
from heatlog.log.racelog import RaceLog
from heatlog.races import race_started_event
from heatlog.recorder import Session
from heatlog.recorder import script as rs
from heatlog.simulate import default_cars, store_race
from heatlog.simulate.world import race_events
from tests.rules.modules.helpers import legend_cars

Event = dict[str, Any]
#: How a simulated race takes each module the registry lists (the championship comes from a season, # 21).
OPTIONS: dict[str, dict[str, Any]] = {
    "garage": {"garage": {"upgrades": "all", "draft": "snake", "expansions": ["heavy-rain", "tunnel-vision"]}},
    "legends": {"legends": {"cars": 1}},
    "weather": {"weather": {}},
}
SEASON_ONLY = frozenset({"championship"})


def module_sets() -> list[tuple[str, ...]]:
    """The module sets to simulate: none, each module alone, and all together (the registry's; a module with an
    example block, ``Module.example``, from its own data file)."""
    units = sorted(d.name for d in descriptors() if d.name not in SEASON_ONLY)
    return [(), *((m,) for m in units), tuple(units)]


def host_bot(bot: Any) -> Any:
    """``bot`` with the recorder's one convention: passing a slipstream by is a declined slipstream."""

    def wrapped(state: Any, name: str, options: Any, rng: Any) -> Event | None:
        choice = bot(state, name, options, rng)
        if choice is None and slipstream_choices(state, state.cars[name]):
            return {"type": "slipstream", "v": 1, "car": name, "taken": False}
        return choice

    return wrapped


def started(modules: tuple[str, ...], cars: int, laps: int = 1) -> Event:
    """A race_started of ``modules`` on the USA track."""
    field = default_cars(cars)
    opts: dict[str, Any] = {}
    units: list[str] = []
    for m in modules:
        if m in OPTIONS:
            opts.update(OPTIONS[m])
        else:
            units.append(m)
    if "legends" in opts:
        opts["legends"] = {"cars": legend_cars(opts["legends"]["cars"], [c["colour"] for c in field])}
    ev = race_started_event(track="usa", cars=field, laps=laps, mode="open", modules=opts)
    for m in units:  # a unit's own block, from its data file
        ev["modules"] = [*ev.get("modules", []), m]
        ev[m] = module_block(m)
    return validate_event(ev)


def simulated(modules: tuple[str, ...], seed: int, *, bot: str = "random", cars: int = 2) -> list[Event]:
    """The open-mode log of a simulated race of ``modules`` (``bot``: random or heuristic, for every player)."""
    start = started(modules, cars)
    play = host_bot(random_bot if bot == "random" else get_bot(bot))
    return list(race_events(start, {c["name"]: play for c in start["cars"] if not c.get("legend")}, seed))


def plain(events: list[Event]) -> list[Event]:
    """What the rules see: without ``raw``, ``at`` and notes."""
    return [{k: v for k, v in e.items() if k not in ("raw", "at")} for e in events if e.get("type") != "note"]


def recorded(tmp: Path, expected: list[Event], mode: str, *, offers: bool, multi: bool = True) -> list[Event]:
    """Type ``expected`` (an open-mode log; converted for a table-mode race) into a new race's session, answer by
    answer, and return the log it stored; the race's set-up is stored as ``expected`` has it. ``offers``: answer
    with what each prompt offers (the reveal's line, React's slipstream), else one question at a time (``multi``:
    several gears, flips or a module's picks in one answer, else one each). An answer
    refused fails at once, naming the question, the answer and what the log expects next."""
    log_events = expected if mode == "open" else open_to_table(expected)
    with RaceLog(tmp / "typed.db") as log:
        s = Session(log, store_race(log, [dict(log_events[0], mode=mode)], name="typed"), fresh=True)
        for _ in range(20000):
            q = s.question
            if q.kind == "over":
                return plain([e.event for e in s.proj.effective.entries])
            i = s.proj.effective.length
            if q.kind == "grid":
                text = " ".join(log_events[i]["order"])
            else:
                prompt = q.prompt if offers else ""
                table = mode == "table"
                text = rs.answer(q.kind, q.car or "", log_events, i, typed_chance=table, multi=multi, prompt=prompt)
            errors = [x.text for x in s.answer(text) if x.style == "error"]
            assert not errors, (q.prompt, text, errors, log_events[i : i + 3])
        raise AssertionError("the race did not end")
