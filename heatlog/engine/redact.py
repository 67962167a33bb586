"""Projections of a log: the same race seen with less information.

``open_to_table`` re-expresses an open-mode log (every card known: computer shuffles, simulated races,
online play) as the table-mode log the same race would have produced at a physical table, where hands and
deck orders are hidden (# 1.7) and a car's cards become known only when it reveals them at step 3.

``strip_identities`` does the same for a position: it forgets every card identity a table does not see.

Pure: no I/O. Both are derived views; neither changes the race.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from .decide import waiting_for
from .errors import MalformedInput
from .events import REGISTRY
from .module import ranked
from .position import state_from_position, state_to_position
from .rules import _begin_turns, _close_until, _is_foreign, apply
from .state import RaceState, Turn
from .steps import PLAY, REPLENISH

Event = dict[str, Any]

# Events whose payload names hidden cards: their ``raw`` text may name them too, so it is dropped.
_HIDING = frozenset(("deck_shuffled", "cards_drawn"))


def strip_identities(position: dict[str, Any]) -> dict[str, Any]:
    """The table-mode position of the same moment: what a physical table knows, and nothing more.

    Forgotten (# 1.7): every hand (``hand`` -> null; ``hand_size`` stays), every deck order (``deck`` ->
    null; ``deck_size`` stays), the cards played face down at step 2 (``committed`` -> null: they are still
    in the hand until revealed) and the cards drawn in the current turn (``turn.drawn_cards`` -> []).
    ``mode`` becomes ``"table"`` and ``unknown`` is recomputed.

    Kept, because a table sees them: positions, gears, Engine counts, discard piles and Play Areas,
    revealed and flipped cards, and ``unseen`` (deck ∪ hand as a multiset: every card entering or leaving
    it is public, so it is known without knowing the hand).

    Table mode has no step 2 (played cards are entered when revealed), so an open position in step 2
    becomes the table position that follows the last gear choice: step 3, the first car's turn open and
    waiting for its reveal. Returns a new position; ``position`` is not changed.
    """
    state = state_from_position(position)
    _strip_state(state)
    return state_to_position(state)


def _strip_state(state: RaceState) -> None:
    state.mode = "table"
    for car in state.cars.values():
        car.hand = None
        car.deck = None
        car.committed = None
    if state.turn is not None:
        state.turn.drawn_cards = []
    if state.phase == "race" and state.step == PLAY and state.turn is None:
        _begin_turns(state)


def open_to_table(events: list[Event]) -> list[Event]:
    """The table-mode log of the race recorded by the open-mode log ``events``.

    Event by event (the input is not changed; every output event is a new dict):

    - ``race_started``: ``mode`` becomes ``"table"`` (a start ``position`` goes through
      :func:`strip_identities`);
    - ``deck_shuffled``: without ``order`` (the shuffle is hidden);
    - ``cards_drawn``: ``count`` instead of ``cards`` (the hand is hidden);
    - ``cards_played`` (step 2, open mode only): dropped. A ``cards_revealed`` with the same cards is
      inserted exactly where the table-mode engine waits for that car's reveal (its step 3, # 2.4) -- the
      projection replays a table-mode state alongside to find that point. When the previous turn is closed
      implicitly by an event of the next car (e.g. its draw, docs/design.md), the reveal goes just before
      that event;
    - everything else (gears, flips, cooldowns, boosts, adrenaline, slipstream, discards, notes) unchanged:
      those are public at a table.

    The identities forgotten are exactly those :func:`strip_identities` forgets in a position, so the
    table replay of the result ends in ``strip_identities`` of the open replay's final position. ``raw``
    is dropped from shuffles and draws (the typed text may name hidden cards).

    A start ``position`` may hold cards already played face down (``committed``): they are revealed first.

    ``events`` must be an effective log (retractions resolved, as for ``replay``): a ``retracted`` event
    cannot be projected because the projection renumbers the log. A partial log gives the partial table
    log (ending, e.g., before a reveal whose cards were not yet played). Raises :class:`MalformedInput` if
    the log is not an open-mode log, and the engine's error if it is not a legal race.
    """
    if not events or events[0].get("type") != "race_started":
        raise MalformedInput("the first event of a race is race_started")
    if events[0].get("mode", "open") != "open":
        raise MalformedInput("only an open-mode log can be projected to table mode", input=events[0])
    # Each car's played cards, in the order they will be revealed: first any cards a start position holds
    # face down (played before the position was taken), then the log's cards_played events.
    played: dict[str, deque[list[str]]] = {}
    start_position = events[0].get("position")
    if isinstance(start_position, dict):
        for car in start_position.get("cars", []):
            if car.get("committed") is not None:
                played[car["name"]] = deque([list(car["committed"])])
    # A reveal the log writes itself (a start position at a car's step 3 whose cards were not played face down:
    # the open engine takes that car's cards_revealed) is the log's own, not one of the cards_played reveals:
    # while it is to come, that car waits for it. Per car, the log's indexes of its own reveals still to come.
    own: dict[str, deque[int]] = {}
    played_at: dict[str, deque[int]] = {name: deque([-1]) for name in played}  # a position's: before the log
    for i, ev in enumerate(events):
        kind = ev.get("type")
        if kind == "cards_played":
            played.setdefault(ev["car"], deque()).append(list(ev["cards"]))
            played_at.setdefault(ev["car"], deque()).append(i)
        elif kind == "cards_revealed" and isinstance(ev.get("car"), str):
            own.setdefault(ev["car"], deque()).append(i)
        elif kind == "retracted":
            raise MalformedInput("project an effective log: resolve retractions first", input=ev)

    out: list[Event] = []
    state: RaceState | None = None
    says = _table_says(events[0])
    lap_heat = bool(says)  # (event 18, MA23: the open replay runs alongside, for its turns)
    open_state: RaceState | None = None
    open_turns: dict[tuple[int, str], Any] = {}  # (round, car) -> the open replay's turn (event 18's sources)
    for i, ev in enumerate(events):
        if ev.get("type") == "cards_revealed" and own.get(ev.get("car", "")):
            own[ev["car"]].popleft()
        if lap_heat:
            if open_state is not None and open_state.turn is not None:  # the turn this event may close
                open_turns[(open_state.turn.round, open_state.turn.car)] = open_state.turn
            open_state = apply(open_state, ev, atomic=False)
            if open_state.turn is not None:
                open_turns[(open_state.turn.round, open_state.turn.car)] = open_state.turn
        new = _project(ev)
        if new is None:
            continue
        if lap_heat and state is not None:
            _owed_due(state, open_turns, new, out, says)
        if state is not None:
            # An event of another car closes the current turn implicitly (docs/design.md); the next turn
            # then starts inside that event. Close it here, as apply() would, so the reveal of the next car
            # goes in between.
            kind = new.get("type")
            while (turn := state.turn) is not None and _is_foreign(turn, new, REGISTRY.get(kind)):  # type: ignore[arg-type]
                _close_until(state, state.cars[turn.car], turn, REPLENISH, new)
                if state.turn is turn:
                    break  # the turn still needs a draw: apply() reports the event as out of turn
                _reveals_due(state, played, out, (own, played_at, i))
        state = apply(state, new, atomic=False)
        out.append(new)
        _reveals_due(state, played, out, (own, played_at, i + 1))
    return out


def _table_says(start: Event) -> list[Callable[[Turn, Turn | None], Event | None]]:
    """What the race's modules say for a table-mode turn that owes an outcome only the table knows
    (``Module.table_says``: event 18's pile, MA23); [] when no module of the race has anything to say."""
    names = start.get("modules")
    if not isinstance(names, list):
        return []
    says = (m.table_says(start) for m in ranked([n for n in names if isinstance(n, str)]) if m.table_says)
    return [say for say in says if say is not None]


def _owed_due(
    state: RaceState,
    open_turns: dict[tuple[int, str], Any],
    new: Event,
    out: list[Event],
    says: list[Callable[[Turn, Turn | None], Event | None]],
) -> None:
    """Where the table-mode log cannot know an outcome a turn owes (event 18: an empty Engine and a hidden hand
    that may hold Heat, MA23), the table says it: insert what the race's modules say from the open log's own
    turn, just before the event that would otherwise be refused for it."""
    from .errors import HeatlogError  # noqa: PLC0415

    while True:
        preview = state.copy()
        try:
            apply(preview, new, atomic=False)
            return
        except HeatlogError:
            turn = preview.turn
            if turn is None:
                return  # refused for another reason: apply() below says why
        mine = open_turns.get((turn.round, turn.car))
        ev = next((e for say in says if (e := say(turn, mine)) is not None), None)
        if ev is None:
            return  # refused for another reason: apply() below says why
        apply(state, ev, atomic=False)
        out.append(ev)


def _reveals_due(
    state: RaceState,
    played: dict[str, deque[list[str]]],
    out: list[Event],
    where: tuple[dict[str, deque[int]], dict[str, deque[int]], int] | None = None,
) -> None:
    """Insert the reveals the table-mode ``state`` waits for (a reveal can end a turn at once when there is
    nothing to draw, so the next car may be waiting too). ``where``: per car, the log's indexes of its own
    reveals and of its cards_played still to come, and the index of the next event: a car whose own reveal
    comes before its next cards_played waits for that reveal."""
    while True:
        w = waiting_for(state)
        if w.kinds != ["cards_revealed"]:
            return
        if where is not None:
            own, played_at, at = where
            mine, next_played = own.get(w.cars[0]), played_at.get(w.cars[0])
            if mine and mine[0] >= at and (not next_played or mine[0] < next_played[0]):
                return  # the log reveals this turn's cards itself
        queue = played.get(w.cars[0])
        if not queue:
            return  # partial log: that car's cards are not in it yet
        if where is not None and where[1].get(w.cars[0]):
            where[1][w.cars[0]].popleft()
        reveal: Event = {"type": "cards_revealed", "v": 1, "car": w.cars[0], "cards": queue.popleft()}
        apply(state, reveal, atomic=False)
        out.append(reveal)


def _project(ev: Event) -> Event | None:
    kind = ev.get("type")
    if kind == "cards_played":
        return None
    new = dict(ev)
    if kind == "race_started":
        new["mode"] = "table"
        if new.get("position") is not None:
            new["position"] = strip_identities(new["position"])
    elif kind == "deck_shuffled":
        new.pop("order", None)
    elif kind == "cards_drawn" and "cards" in new:
        new["count"] = len(new.pop("cards"))
    if kind in _HIDING:
        new.pop("raw", None)
    return new
