"""Luck and skill that add up (docs/analysis.md, "Luck and skill"; issue 28, item 5).

One evaluator values every point of a race for every car: ``V(k)[car]``, the car's expected score
(``(cars − place) / (cars − 1)``: 1 for a win, 0 for last) over ``n`` playouts by the heuristic bots from the
race after its first ``k`` events, as an observer who sees every hand knows it
(:func:`heatlog.analysis.infoset.full_information`: hands and the cards played face down, never a deck's
order). **The same samples**: every point is played out with the same seed (common random numbers), so that a
difference between two points is the difference of the events between them, not of the playouts' luck.

The race's events after its set-up are cut into **segments**: runs of chance events (a shuffle, the draw, a
Stress or boost flip, a Legend card, the weather's and the road's draws …) and runs of one car's decisions.
For each car, each segment's change ``V(after) − V(before)`` is

- **luck** where the segment is chance: the value after it less the value before it — which is the expected
  value over the chance outcomes, since the playouts from before it draw them;
- **skill** where it is the car's own decisions: the value of what it did less the value of what the bots
  would have done there (the playouts from before it let the bot decide);
- **the others** where it is another car's decisions.

The last point is the race's result (the race is over: its actual score). So, for every car and exactly (a
telescoping sum): ``Σ luck + Σ skill + Σ others = actual score − expected score at the start``. **Net luck**
is a car's luck less the mean luck of the other cars.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from ..engine import MalformedInput, RaceState, apply
from ..engine.errors import REFUSED
from ..engine.events import REGISTRY
from ..engine.module import unplayable
from .infoset import full_information
from .playout import playouts

Event = dict[str, Any]


@dataclass(slots=True)
class Segment:
    start: int  # events[:start] is the point before it
    end: int  # events[:end] the point after it
    kind: str  # "luck", or "decision" (of ``car``)
    car: str | None
    round: int
    types: tuple[str, ...]  # the event types in it
    source: str | None = None  # a chance segment's: the module whose chance it is ("base": draws, flips, shuffles)
    before: dict[str, float] = field(default_factory=dict)  # V before, per car
    after: dict[str, float] = field(default_factory=dict)

    def delta(self, car: str) -> float:
        return self.after[car] - self.before[car]

    def to_dict(self) -> dict[str, Any]:
        return {
            "events": [self.start + 1, self.end],
            "round": self.round,
            "kind": self.kind,
            "car": self.car,
            "types": list(self.types),
            "source": self.source,
            "change": {c: round(self.delta(c), 6) for c in self.after},
        }


@dataclass(slots=True)
class CarLuck:
    car: str
    start: float  # expected score at the start
    actual: float  # the actual score
    luck: float
    skill: float
    others: float
    luck_by: dict[str, float] = field(default_factory=dict)  # its luck by source (Segment.source): sums to luck

    @property
    def total(self) -> float:
        return self.luck + self.skill + self.others

    def to_dict(self, net: float) -> dict[str, Any]:
        return {
            "car": self.car,
            "expected_at_start": round(self.start, 6),
            "actual": round(self.actual, 6),
            "luck": round(self.luck, 6),
            "skill": round(self.skill, 6),
            "others": round(self.others, 6),
            "net_luck": round(net, 6),
            "luck_by_source": {k: round(v, 6) for k, v in self.luck_by.items()},
        }


@dataclass(frozen=True, slots=True)
class NotValued:
    """Chance events of the race before the first point a play-out can start from, whose luck is in no car's
    part: the expected score at the start is the value after them (the starting grid; a set-up phase a play-out
    cannot start from, ``Module.unplayable``: the Garage draft's deals and markets, # 18.5)."""

    type: str
    source: str  # the module whose chance it is
    count: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "source": self.source, "count": self.count, "reason": self.reason}


@dataclass(slots=True)
class LuckReport:
    cars: list[CarLuck]
    segments: list[Segment]
    playouts: int  # per point
    seed: int
    not_valued: list[NotValued] = field(default_factory=list)

    @property
    def sources(self) -> list[str]:
        """The sources of the race's chance segments, in the order first met ("base" first)."""
        seen = dict.fromkeys(["base"] if any(s.source == "base" for s in self.segments) else [])
        for s in self.segments:
            if s.source is not None:
                seen.setdefault(s.source)
        return list(seen)

    def net_luck(self, car: str) -> float:
        """A car's luck less the mean luck of the other cars (0 for a car alone)."""
        mine = next(c for c in self.cars if c.car == car)
        rest = [c.luck for c in self.cars if c.car != car]
        return mine.luck - (math.fsum(rest) / len(rest) if rest else 0.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "playouts_per_point": self.playouts,
            "seed": self.seed,
            "cars": [c.to_dict(self.net_luck(c.car)) for c in self.cars],
            "not_valued": [x.to_dict() for x in self.not_valued],
            "segments": [s.to_dict() for s in self.segments],
        }


def _is_chance(ev: Event) -> bool:
    entry = REGISTRY.get(str(ev.get("type")))
    return entry is not None and entry.chance


def _source(ev: Event) -> str:
    """The module whose chance event ``ev`` is, by the registry ("base": the draws, flips and shuffles)."""
    entry = REGISTRY.get(str(ev.get("type")))
    return str(entry.module) if entry is not None and entry.module else "base"


def not_valued(events: Sequence[Event], first: int) -> list[NotValued]:
    """The chance events of ``events[:first]`` (before the first point a play-out can start from), by type, each
    with why its luck is in no car's part."""
    out: dict[str, NotValued] = {}
    state: RaceState | None = None
    for ev in events[:first]:
        if state is not None and _is_chance(ev):
            t = str(ev.get("type"))
            said = unplayable(state.phase)
            if said is not None:
                why = f"drawn in the {said[0]}: {said[1]} (# {said[2]}); the start is after it"
            else:
                why = "drawn before the race can be played out: the start is after it"
            had = out.get(t)
            out[t] = NotValued(t, _source(ev), 1 + (had.count if had else 0), had.reason if had else why)
        state = apply(state, ev, atomic=False)
    return list(out.values())


def segments(events: Sequence[Event]) -> tuple[int, list[Segment]]:
    """Where the evaluation starts (the first point a race can be played on from: after the grid and any set-up
    phase a play-out cannot start from, ``Module.unplayable``: the Garage draft, # 18.5) and the segments after it
    (module doc). Notes and retractions join the segment they are in; a run of chance events is cut where the
    module whose chance it is changes (``Segment.source``), so that each module's luck is told apart."""
    state: RaceState | None = None
    first: int | None = None
    out: list[Segment] = []
    for i, ev in enumerate(events):
        if state is not None and first is None and state.phase != "grid" and unplayable(state.phase) is None:
            first = i
        if first is not None:
            entry = REGISTRY.get(str(ev.get("type")))
            if entry is not None and entry.aside and out:
                out[-1].end = i + 1
            else:
                chance = _is_chance(ev)
                car = None if chance else ev.get("car")
                kind = "luck" if chance else "decision"
                source = _source(ev) if chance else None
                last = out[-1] if out else None
                if last is not None and last.kind == kind and last.car == car and last.source == source:
                    last.end = i + 1
                    last.types = tuple(dict.fromkeys((*last.types, str(ev.get("type")))))
                else:
                    rnd = state.round if state is not None else 0
                    out.append(
                        Segment(
                            i,
                            i + 1,
                            kind,
                            car if isinstance(car, str) else None,
                            rnd,
                            (str(ev.get("type")),),
                            source=source,
                        )
                    )
        state = apply(state, ev, atomic=False)
    if state is None or first is None:
        raise MalformedInput("the race has not started: there is no luck to tell yet")
    if state.phase != "over":
        raise MalformedInput("the race is not over: luck and skill add up to a result only at the end", words=REFUSED)
    return first, out


def luck_report(
    events: Sequence[Event],
    *,
    n: int = 32,
    seed: int = 0,
    bots: str = "heuristic",
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> LuckReport:
    """Luck, skill and the others' part for every car of a finished race (module doc)."""
    events = list(events)
    first, segs = segments(events)
    state: RaceState | None = None
    for ev in events:
        state = apply(state, ev, atomic=False)
    assert state is not None
    names = list(state.cars)
    span = max(1, len(names) - 1)
    standings = state.standings()
    actual = {c: (len(names) - (standings.index(c) + 1)) / span for c in names}
    cache: dict[int, dict[str, float]] = {}

    def value(k: int) -> dict[str, float]:
        hit = cache.get(k)
        if hit is not None:
            return hit
        if k >= len(events):
            cache[k] = dict(actual)
            return cache[k]
        info = full_information(events[:k])
        if info.public.phase == "over":
            cache[k] = dict(actual)
            return cache[k]
        result = playouts(info, n, seed=seed, bots=bots, executor=executor)
        if result.partial:
            raise KeyboardInterrupt
        out = {}
        for c in names:
            places = [o.places[c] for o in result.outcomes[0]]
            out[c] = math.fsum((len(names) - p) / span for p in places) / len(places)
        cache[k] = out
        return out

    points = sorted({first, *(s.start for s in segs), *(s.end for s in segs)})
    for j, k in enumerate(points):
        value(k)
        if progress is not None:
            progress(j + 1, len(points))
    for s in segs:
        s.before, s.after = value(s.start), value(s.end)
    cars: list[CarLuck] = []
    sources = list(dict.fromkeys(s.source for s in segs if s.source is not None))
    for c in names:
        luck = math.fsum(s.delta(c) for s in segs if s.kind == "luck")
        skill = math.fsum(s.delta(c) for s in segs if s.kind == "decision" and s.car == c)
        others = math.fsum(s.delta(c) for s in segs if s.kind == "decision" and s.car != c)
        by = {src: math.fsum(s.delta(c) for s in segs if s.source == src) for src in sources}
        cars.append(CarLuck(c, value(first)[c], actual[c], luck, skill, others, by))
    return LuckReport(cars, segs, n, seed, not_valued(events, first))


__all__ = ["CarLuck", "LuckReport", "NotValued", "Segment", "luck_report", "not_valued", "segments"]
