"""The replay model: a race folded once, cut into rounds.

For every round it keeps the state at the round's start and end, the turns in the order they were played (the
engine's own ``Turn`` records), a plain-words narration of each turn, the notes written during the round and,
for the charts, one value per car per round (position, progress, Engine Heat). Round 0 of the series is the
grid (the start of round 1); round ``n`` is the end of round ``n``.

Nothing here re-applies a rule: it only reads what the engine recorded. What a table could not see stays
hidden: in table mode the state has no hands and no deck orders, and the views show counts only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from typing import Any

from ..engine import HeatlogError, MalformedInput, RaceState, Turn, apply
from ..engine.errors import NOT_FOUND
from ..engine.written import FACTORY, record
from .narrate import narrate_turn

Event = dict[str, Any]


@record(slots=True)
class RoundView:
    """One round of a race as the views show it."""

    number: int
    start: RaceState  # at the start of the round (step 1, before any gear is chosen)
    end: RaceState  # after the round's last turn (or now, if the round is still being played)
    turns: list[Turn] = field(default_factory=list)  # completed turns, in turn order
    narration: list[str] = field(default_factory=list)  # one line per completed turn
    current: Turn | None = None  # a turn still under way (only in the last round of a race in progress)
    current_narration: str = ""
    notes: list[tuple[str | None, str]] = field(default_factory=list)  # (car or None, text)
    complete: bool = False

    def __init__(
        self,
        number: int,
        start: RaceState,
        end: RaceState,
        turns: list[Turn] = FACTORY,
        narration: list[str] = FACTORY,
        current: Turn | None = None,
        current_narration: str = "",
        notes: list[tuple[str | None, str]] = FACTORY,
        complete: bool = False,
    ) -> None:
        self.number = number
        self.start = start
        self.end = end
        self.turns = [] if turns is FACTORY else turns
        self.narration = [] if narration is FACTORY else narration
        self.current = current
        self.current_narration = current_narration
        self.notes = [] if notes is FACTORY else notes
        self.complete = complete

    @property
    def order(self) -> list[str]:
        """The cars in this round's turn order (# 2.2), fixed at the start of the round."""
        return list(self.start.order)

    def all_turns(self) -> list[Turn]:
        return self.turns + ([self.current] if self.current is not None else [])

    def lines(self, car: str | None = None) -> list[tuple[int, str, str]]:
        """(place in the turn order, car, sentence) per turn, the turn under way included; only ``car``'s
        turns if given."""
        out = list(zip((t.car for t in self.turns), self.narration, strict=True))
        if self.current is not None:
            out.append((self.current.car, self.current_narration + " … (under way)"))
        return [(i, c, text) for i, (c, text) in enumerate(out, start=1) if car is None or c == car]


@record(slots=True)
class Replay:
    """A whole race, round by round."""

    race: Any
    name: str | None
    grid: RaceState  # at the start of round 1 (or at the start of the log's first round)
    rounds: list[RoundView]
    final: RaceState  # the state at the end of the log
    of: int | None = None  # the race's last round, when ``rounds`` holds only some (:func:`load_round`)

    def __init__(
        self,
        race: Any,
        name: str | None,
        grid: RaceState,
        rounds: list[RoundView],
        final: RaceState,
        of: int | None = None,
    ) -> None:
        self.race = race
        self.name = name
        self.grid = grid
        self.rounds = rounds
        self.final = final
        self.of = of

    @property
    def track(self) -> Any:
        return self.final.track

    @property
    def cars(self) -> list[str]:
        return list(self.final.cars)

    @property
    def last(self) -> int:
        if self.of is not None:
            return self.of
        return self.rounds[-1].number if self.rounds else 0

    @property
    def first(self) -> int:
        return self.rounds[0].number if self.rounds else 0

    def round(self, number: int) -> RoundView:
        for rv in self.rounds:
            if rv.number == number:
                return rv
        if not self.rounds:
            raise MalformedInput(f"race {self.race} has not started its first round yet")  # (names it once)
        raise MalformedInput(f"no round {number} (rounds {self.first}–{self.last})", race=self.race, words=NOT_FOUND)

    def check_car(self, car: str | None) -> None:
        if car is not None and car not in self.final.cars:
            cars = ", ".join(self.final.cars)
            raise MalformedInput(f"no car {car!r} in race {self.race} (cars: {cars})", words=NOT_FOUND)

    def states(self) -> list[tuple[int, RaceState]]:
        """(round, state) for the grid (round 0, or the first round's start) and the end of every round."""
        return [(self.first - 1, self.grid)] + [(rv.number, rv.end) for rv in self.rounds]

    def series(self) -> dict[str, dict[str, list[int]]]:
        """Per car, one value per entry of :meth:`states`: ``rank`` (1 = leading), ``progress``, ``engine``."""
        out: dict[str, dict[str, list[int]]] = {n: {"rank": [], "progress": [], "engine": []} for n in self.cars}
        for _, state in self.states():
            ranks = {name: i for i, name in enumerate(state.standings(), start=1)}
            for name, car in state.cars.items():
                out[name]["rank"].append(ranks[name])
                out[name]["progress"].append(car.progress)
                out[name]["engine"].append(car.engine)
        return out


def build_replay(events: Iterable[Event], *, race: Any = None, name: str | None = None) -> Replay:
    """Fold an effective log (retractions already applied) once and cut it into rounds."""
    return _build(events, race=race, name=name)


def _build(
    events: Iterable[Event],
    *,
    race: Any = None,
    name: str | None = None,
    start: RaceState | None = None,
    last: int | None = None,
    final: RaceState | None = None,
) -> Replay:
    """:func:`build_replay`; with ``start`` (a state at the start of a round, owned by the caller: it is folded
    on), only that round, up to the start of the next one (``last`` and ``final`` are then the race's last
    round and latest state)."""
    state: RaceState | None = start
    rounds: list[RoundView] = []
    grid: RaceState | None = None
    current: RoundView | None = None
    loose_notes: list[tuple[str | None, str]] = []
    if start is not None:
        # As the loop below opens a round at the event that starts it: the same state, the same turns list.
        grid = start.copy()
        current = RoundView(number=start.round, start=grid, end=grid, turns=start.turns)
        rounds.append(current)
    for ev in events:
        if start is not None and current is not None and current.complete:
            break  # the one round asked for is over
        try:
            state = apply(state, ev, atomic=False)
        except HeatlogError as err:
            raise err.located(race=race) from None
        if ev.get("type") == "note":
            note = (ev.get("car"), str(ev.get("text", "")))
            (current.notes if current is not None else loose_notes).append(note)
        moment: RaceState | None = None
        if current is not None and (state.round != current.number or state.phase == "over") and not current.complete:
            # The engine starts the next round (a fresh ``turns`` list) as soon as the last turn ends, so the
            # list captured at the round's start holds exactly this round's turns.
            moment = _close(current, state)
        if start is not None:
            continue
        if state.phase == "race" and (current is None or state.round != current.number):
            start_state = moment or state.copy()  # the end of a round is the start of the next: one copy for both
            current = RoundView(number=state.round, start=start_state, end=start_state, turns=state.turns)
            rounds.append(current)
            if grid is None:
                grid = current.start
    if state is None:
        raise MalformedInput("the race has no events", race=race)
    if current is not None and not current.complete:
        current.end = state.copy()
        current.turns = list(state.turns)
        current.narration = [narrate_turn(state, t) for t in current.turns]
        if state.turn is not None:
            current.current = state.turn
            current.current_narration = narrate_turn(state, state.turn)
    if rounds and loose_notes:
        rounds[0].notes[:0] = loose_notes
    return Replay(race=race, name=name, grid=grid or state.copy(), rounds=rounds, final=final or state, of=last)


def _close(rv: RoundView, state: RaceState) -> RaceState:
    rv.turns = list(rv.turns)
    rv.narration = [narrate_turn(state, t) for t in rv.turns]
    rv.end = state.copy()
    rv.complete = True
    return rv.end


def load_replay(log: Any, race: int | None = None) -> Replay:
    """The replay of ``race`` (default: the most recent) from a :class:`heatlog.log.racelog.RaceLog`."""
    rid = log.resolve(race)
    entries = log.effective(rid).entries
    return build_replay((e.event for e in entries), race=rid, name=log.store.race(rid).name)


def load_round(log: Any, race: int | None, number: int) -> Replay:
    """What ``heatlog replay --round N`` prints, without folding and narrating the whole race: a replay whose
    ``rounds`` hold round ``number`` alone (its ``grid`` is that round's start), folded from the round's
    snapshot to the start of the next round; ``last`` and ``final`` are the race's own (its latest state,
    from the latest snapshot). The rows read are hash-checked from each snapshot's event on, as ``heatlog show``
    checks them (docs/store.md, "What a read checks"): the round's own rows and those since the latest round
    start. Printed, it is the same as that round of :func:`load_replay` (tests/test_replay.py); a round the
    race does not have is refused by :func:`load_replay`, with its words."""
    rid = log.resolve(race)
    end = log.latest(rid)
    latest = end.projection
    try:
        at = log.project(rid, round=number)
    except MalformedInput:
        return load_replay(log, rid)
    if not (at.state.phase == "race" and at.state.round == number and at.state.turn is None):
        return load_replay(log, rid)  # not a round's start (a race from a position): the whole race says it
    tail = (e.event for e in log.entries_after(rid, at, end.length))
    name = log.store.race(rid).name
    return _build(tail, race=rid, name=name, start=at.state, last=latest.state.round, final=latest.state)


def current_round(state: RaceState) -> RoundView:
    """The round being played now, as far as it went: what ``heatlog show`` prints."""
    rv = RoundView(number=state.round, start=state, end=state, turns=list(state.turns))
    rv.narration = [narrate_turn(state, t) for t in rv.turns]
    if state.turn is not None:
        rv.current = state.turn
        rv.current_narration = narrate_turn(state, state.turn)
    rv.complete = state.phase == "over"
    return rv
