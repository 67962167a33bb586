"""Simulated races as a Python API: set a race up, let bots drive it, and (optionally) store its log.

>>> race, events, state = simulate_race(None, track="usa", cars=4, seed=7, bots="heuristic")
>>> state.hall_of_fame  # the finishing order (# 16.8)

The log is an open-mode log (# 1.7): every shuffle with its order, every draw, flip and decision — exactly
what a recorded open-mode race holds. It is a pure function of the arguments: the same arguments and seed
give the same events, byte for byte, on any machine (one seeded ``random.Random`` draws the grid and every
shuffle; the bots are deterministic or draw from that same generator; nothing depends on hash order).

Writing to a database: every event is validated against its schema (the door, :func:`validate_event`) and
the rules have already checked each one as the race was played, so the whole log is appended in one
transaction with :meth:`EventStore.append_many` — one commit per race, not one per event.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from .. import RULES_VERSION
from ..bots import Bot, get_bot
from ..engine.errors import BY_THE_RULES, MalformedInput
from ..engine.state import RaceState, Turn
from ..formats.validation import validate_event
from ..log.racelist import summary_of
from ..log.racelog import RaceLog
from ..races import expand_modules, module_cars, race_started_event
from .world import play

Event = dict[str, Any]
BotSpec = str | Bot
Watch = Callable[[RaceState, Event], None]

#: Default cars, in order: name and colour (# 1.1: up to six players).
DEFAULT_CARS: tuple[tuple[str, str], ...] = (
    ("Red", "red"),
    ("Blue", "blue"),
    ("Green", "green"),
    ("Yellow", "yellow"),
    ("Black", "black"),
    ("White", "white"),
)


def default_cars(n: int) -> list[dict[str, str]]:
    """The first ``n`` default cars (2–6, # A14; one is enough with Legends, MODULES.md 19.2)."""
    if not 1 <= n <= len(DEFAULT_CARS):
        raise MalformedInput(f"a base race has 2 to 6 cars, not {n} (a solo car races with Legends)")
    return [{"name": name, "colour": colour} for name, colour in DEFAULT_CARS[:n]]


def _cars(cars: int | Sequence[str | Mapping[str, str]]) -> list[dict[str, str]]:
    if isinstance(cars, int):
        return default_cars(cars)
    out: list[dict[str, str]] = []
    colours = [c for _, c in DEFAULT_CARS]
    for i, c in enumerate(cars):
        if isinstance(c, str):
            out.append({"name": c, "colour": colours[i % len(colours)]})
        else:
            out.append({"name": c["name"], "colour": c.get("colour") or colours[i % len(colours)]})
    return out


def bot_names(bots: BotSpec | Sequence[BotSpec] | Mapping[str, BotSpec], names: list[str]) -> dict[str, Bot]:
    """One bot per car: a single bot (name or callable) for all, a list in car order, or a mapping by name."""
    if isinstance(bots, str) or callable(bots):
        spec: list[BotSpec] = [bots] * len(names)
    elif isinstance(bots, Mapping):
        missing = [n for n in names if n not in bots]
        if missing:
            raise MalformedInput(f"no bot for {', '.join(missing)}")
        spec = [bots[n] for n in names]
    else:
        spec = list(bots)
        if len(spec) != len(names):
            raise MalformedInput(f"{len(spec)} bots for {len(names)} cars: give one bot per car, in car order")
    return {n: get_bot(b) if isinstance(b, str) else b for n, b in zip(names, spec, strict=True)}


def simulate_race(
    log: RaceLog | None = None,
    *,
    track: str | dict[str, Any] = "usa",
    cars: int | Sequence[str | Mapping[str, str]] = 4,
    laps: int | None = None,
    variant: str | None = None,
    handicap: Sequence[str] = (),
    seed: int = 0,
    bots: BotSpec | Sequence[BotSpec] | Mapping[str, BotSpec] = "heuristic",
    name: str | None = None,
    watch: Watch | None = None,
    modules: Mapping[str, Any] | None = None,
) -> tuple[int | None, list[Event], RaceState]:
    """Play one race; return ``(race id or None, events, final state)``.

    ``track``: a built-in track id (usa, great-britain, france, italy, japan, mexico, spain, netherlands), a
    track file path or a track dict.
    ``cars``: a number (default names and colours) or names / ``{"name", "colour"}`` dicts.
    ``variant``: ``"one-lap"`` for the one-lap learning race (# 17.1); ``handicap``: experienced drivers
    (# 17.2). ``bots``: ``"heuristic"``, ``"random"`` or a bot callable, for every car or one per car.
    With a ``log`` the race is stored (validated at the door, one transaction) and its id returned.
    ``watch(state, event)`` is called after each event is applied.
    ``modules``: the modules the race plays with, each module's options by its registered name (issue 26, build
    5), as ``race_started_event(modules=)`` takes them, but for the Legends' ``cars``, which may be a count
    (Legend colours the cars leave free): ``{"legends": {"cars": 1, "pro": 2}, "weather": {}, "garage":
    {"upgrades": "all", "draft": "snake"}, "rain": {...}}``. The world draws every module's chance (the weather
    tile, the Garage's markets or deals …) and the bots draft.
    """
    roster = _cars(cars)
    names = [c["name"] for c in roster]
    options = dict(modules or {})
    count = module_cars(options)  # the cars the modules add (the Legends', # 19.1): a count or the cars
    if count and not 2 <= len(roster) + count <= 6:
        raise MalformedInput(
            f"a race has 2 to 6 cars, Legends included, not {len(roster) + count} (# 19.2)", words=BY_THE_RULES
        )
    options = expand_modules(options, roster)  # a count: the colours the cars leave free (# 19.3, 19.4)
    drivers = bot_names(bots, names)
    start = race_started_event(
        track=track,
        cars=roster,
        laps=laps,
        mode="open",
        variant=variant,
        handicap=list(handicap),
        seed=seed,
        modules=options,
    )
    if log is not None:
        validate_event(start)  # the door: a bad set-up is refused before a single turn is played
    events, state = play(start, drivers, seed, watch=watch)  # the rules check every event as it is played
    race = None
    if log is not None:
        label = name or f"sim {start['track']['id']} seed {seed}"
        race = store_race(log, events, name=label, bots=drivers, start_validated=True, summary=summary_of(state))
    return race, events, state


def simulate_races(
    log: RaceLog | None,
    count: int,
    *,
    seed: int = 0,
    **kwargs: Any,
) -> Iterator[tuple[int | None, list[Event], RaceState]]:
    """``count`` races with seeds ``seed``, ``seed + 1``, …: each as :func:`simulate_race` returns it."""
    for i in range(count):
        yield simulate_race(log, seed=seed + i, **kwargs)


def store_race(
    log: RaceLog,
    events: list[Event],
    *,
    name: str | None = None,
    bots: Mapping[str, Bot] | None = None,
    start_validated: bool = False,
    validated: bool = False,
    summary: dict[str, Any] | None = None,
) -> int:
    """Validate every event of a played race (the door) and append the log to ``log`` in one transaction.

    The events must be a legal race (as :func:`heatlog.simulate.world.play` makes them: the rules have applied each).
    ``start_validated``: ``race_started`` has passed the door already; ``validated``: every event has
    (:func:`validate_played`, run by the worker that played the race, under the same rules).
    """
    if not validated:
        for ev in events[1:] if start_validated else events:
            _validate(ev)
    first = events[0]
    meta = {
        "track": first["track"]["id"],
        "mode": first.get("mode"),
        "cars": [c["name"] for c in first.get("cars", [])],
        "laps": first.get("laps"),
        "simulated": {"seed": first.get("seed"), "bots": {n: bot_label(b) for n, b in (bots or {}).items()}},
    }
    race = log.store.create_race(name, meta)
    log.store.append_many(race, events)
    if summary is not None:  # what `heatlog races` shows, from the final state the simulator holds (racelist.py)
        from ..log.racelist import seal_summary

        row = seal_summary(race, len(events), log.store.tail(race)[1], summary)
        log.store.put_race_summaries(RULES_VERSION, [(race, len(events), row)])
    return race


# Canonical JSON of events already found valid: a race repeats most of its events byte for byte (the same
# gear, the same draw), and the same bytes always get the same verdict from the same schema.
_VALID: set[str] = set()


def _validate(ev: Event) -> None:
    text = json.dumps(ev, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    if text in _VALID:
        return
    validate_event(ev)
    if len(_VALID) > 200_000:
        _VALID.clear()
    _VALID.add(text)


def validate_played(events: list[Event]) -> None:
    """The door's schema check of every event of a played race (a worker runs it, so that the one writer
    only stores; ``MalformedInput`` names the first bad event)."""
    for ev in events:
        _validate(ev)


def bot_label(bot: Bot) -> str:
    """A bot's name for tables and race metadata (random, heuristic)."""
    return str(getattr(bot, "name", None) or getattr(bot, "__name__", "bot")).removesuffix("_bot")


class TurnLog:
    """A ``watch`` that keeps every completed turn of a race, round by round, as the race is played.

    The engine keeps the current round's completed turns in ``state.turns`` and starts a new list each
    round; this keeps the old lists.
    """

    def __init__(self) -> None:
        self.rounds: list[list[Turn]] = []
        self._list: list[Turn] | None = None

    def __call__(self, state: RaceState, event: Event) -> None:
        if state.turns is not self._list:
            if self._list:
                self.rounds.append(self._list)
            self._list = state.turns

    def turns(self) -> list[Turn]:
        """Every completed turn so far, in play order."""
        out = [t for r in self.rounds for t in r]
        return out + (self._list or [])


def finishing_table(state: RaceState, turns: list[Turn], bots: Mapping[str, str]) -> list[dict[str, Any]]:
    """One row per car in finishing order (# 16.8): place, car, bot, round finished, spinouts, boosts, Heat
    left on the Engine (None for a Legend, which has no Engine, # 19.10)."""
    rows = []
    for place, name in enumerate(state.standings(), start=1):
        car = state.cars[name]
        mine = [t for t in turns if t.car == name]
        rows.append(
            {
                "place": place,
                "car": name,
                "colour": car.colour,
                "bot": bots.get(name) or ("Legend" if car.legend else ""),
                "round": state.finish_rounds.get(name),
                "spinouts": sum(t.spinout for t in mine),
                "boosts": sum(t.boosted for t in mine),
                "slipstreams": sum(bool(t.slipstream) for t in mine),
                "engine": None if car.legend else car.engine,
            }
        )
    return rows
