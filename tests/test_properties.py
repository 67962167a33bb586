"""Properties of the rules core over random legal races (heatlog.simulate.world: random world + random bots).

Each example draws a whole race: seed, track, 2–6 cars, one-lap or standard, handicapped drivers. The
races are legal by construction (the bots decide only through ``heatlog.engine.decisions``), so every
property here is about the engine keeping its books straight, not about the bots.
"""

from __future__ import annotations

import json
import random
from dataclasses import fields
from functools import lru_cache
from typing import Any

from happenings import check_happenings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heatlog.engine import HeatlogError, RaceState, Turn, apply, replay, state_from_position, state_to_position
from heatlog.engine.cards import CARDS
from heatlog.engine.knowledge import Knowledge
from heatlog.engine.module import turn_records
from heatlog.engine.modules.legends import legend_move_of
from heatlog.engine.redact import open_to_table, strip_identities
from heatlog.formats.tracks import BUILTIN_TRACKS, load_track_data
from heatlog.formats.validation import load_schema, validate_against, validate_event
from heatlog.simulate.world import MAX_ROUNDS, Bot, race_events, random_bot

Event = dict[str, Any]
Params = tuple[int, str, int, str, tuple[bool, ...]]

COLOURS = ("red", "blue", "green", "yellow", "black", "white")
NAMES = ("Red", "Blue", "Green", "Yellow", "Black", "White")

# Small enough that the whole file runs well under a minute on two cores (a standard 6-car race is
# ~3,000 events); the seeds and shapes vary from run to run.
FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def race_params(draw: st.DrawFn) -> Params:
    seed = draw(st.integers(0, 2**32 - 1))
    track = draw(st.sampled_from(BUILTIN_TRACKS))
    n = draw(st.integers(2, 6))
    variant = draw(st.sampled_from(("one-lap", "standard")))
    handicap = tuple(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    return seed, track, n, variant, handicap


def cut_points() -> st.SearchStrategy[list[float]]:
    """Where in a race to look closer, as fractions of its length (1 to 4 points)."""
    return st.lists(st.floats(0, 1, exclude_max=True), min_size=1, max_size=4)


def _marks(cuts: list[float], n: int) -> set[int]:
    """Cut fractions as numbers of events applied (1..n)."""
    return {1 + int(f * n) for f in cuts}


def race_started(track: str, n: int, variant: str, handicap: tuple[bool, ...]) -> Event:
    data = load_track_data(track)
    return {
        "type": "race_started",
        "v": 1,
        "track": data,
        "laps": 1 if variant == "one-lap" else data["laps"],
        "cars": [{"name": NAMES[i], "colour": COLOURS[i]} for i in range(n)],
        "variant": variant,
        "handicap": [NAMES[i] for i in range(n) if handicap[i]],
        "mode": "open",
    }


@lru_cache(maxsize=32)
def _race(params: Params) -> tuple[Event, ...]:
    seed, track, n, variant, handicap = params
    start = race_started(track, n, variant, handicap)
    bots: dict[str, Bot] = {NAMES[i]: random_bot for i in range(n)}
    return tuple(race_events(start, bots, seed))


def race(params: Params) -> list[Event]:
    """The whole open-mode event log of the race (cached: several properties look at the same race)."""
    return list(_race(params))


def position(state: RaceState) -> dict[str, Any]:
    """The position as it would be stored: through JSON."""
    result: dict[str, Any] = json.loads(json.dumps(state_to_position(state)))
    return result


def check_conservation(state: RaceState, where: str) -> None:
    """# 1.2, 17.2, 22.9: every card a car owns is in exactly one zone (15 deck cards, the circuit's Stress and
    Heat); only spinouts add cards (# 10.3)."""
    if state.phase == "grid":
        return  # decks are dealt out at grid_set
    for car in state.cars.values():
        unseen = sum(car.pool.values())  # pool = deck ∪ hand
        assert min(car.pool.values()) >= 0, where
        assert unseen == car.hand_size + car.deck_size, where
        # Committed cards (open mode, step 2) stay in the hand until revealed: not counted twice.
        total = unseen + len(car.play_area) + len(car.discard) + car.engine
        expected = 15 + state.track.stress + state.track.heat + car.stress_taken - (1 if car.handicap else 0)
        assert total == expected, f"{where}: {car.name} owns {total} cards, not {expected}"
        if car.hand is not None:
            assert sum(car.hand.values()) == car.hand_size, where
            assert all(0 <= car.hand[c] <= car.pool[c] for c in CARDS), where
            if car.committed is not None:
                assert all(car.committed.count(c) <= car.hand[c] for c in set(car.committed)), where
        if car.deck is not None:
            assert len(car.deck) == car.deck_size, where
            deck = {c: car.pool[c] - (car.hand[c] if car.hand is not None else 0) for c in CARDS}
            assert all(car.deck.count(c) == deck[c] for c in CARDS), where


# ---------------------------------------------------------------------------------------------- (a)


@FAST
@given(race_params())
def test_cards_are_conserved_at_every_event(params: Params) -> None:
    events = race(params)
    state: RaceState | None = None
    for i, ev in enumerate(events):
        state = apply(state, ev)
        check_conservation(state, f"open event {i} {ev['type']}")
    assert state is not None
    table: RaceState | None = None
    for i, ev in enumerate(open_to_table(events)):
        table = apply(table, ev)
        check_conservation(table, f"table event {i} {ev['type']}")


# ---------------------------------------------------------------------------------------------- (b)


@FAST
@given(race_params())
def test_replay_is_deterministic(params: Params) -> None:
    events = race(params)
    first = position(replay(events))
    second = position(replay(json.loads(json.dumps(events))))  # also: events that went through storage
    assert first == second


# ---------------------------------------------------------------------------------------------- (c)


@FAST
@given(race_params(), cut_points(), st.integers(0, 2**32 - 1))
def test_positions_round_trip_and_continue(params: Params, cuts: list[float], seed: int) -> None:
    events = race(params)
    rnd = random.Random(seed)  # which other events get a (cheap) round-trip check
    final = position(replay(events))
    state: RaceState | None = None
    marks = _marks(cuts, len(events))
    for i, ev in enumerate(events, start=1):
        state = apply(state, ev)
        if i not in marks and rnd.random() > 0.05:
            continue
        pos = position(state)
        back = state_from_position(pos)
        assert position(back) == pos, f"round trip after event {i}"
        if i in marks:
            validate_against("position", pos)
            for later in events[i:]:
                back = apply(back, later)
            assert position(back) == final, f"continued from the position after event {i}"
    validate_against("position", final)


# ---------------------------------------------------------------------------------------------- (d)


@FAST
@given(race_params())
def test_table_projection_tells_the_same_public_story(params: Params) -> None:
    events = race(params)
    table_events = open_to_table(events)
    for ev in table_events:
        validate_event(ev)
    kinds = {ev["type"] for ev in table_events}
    assert "cards_played" not in kinds
    assert sum(ev["type"] == "cards_revealed" for ev in table_events) == sum(
        ev["type"] == "cards_played" for ev in events
    )
    open_state = replay(events)
    table_state = replay(table_events)  # raises if the projection is not a legal table-mode race
    assert table_state.mode == "table"
    for name, o in open_state.cars.items():
        t = table_state.cars[name]
        assert (t.progress, t.lane, table_state.lap_of(t)) == (o.progress, o.lane, open_state.lap_of(o)), name
        assert t.gear == o.gear, name
        assert t.engine == o.engine, name
        assert t.discard == o.discard, name
        assert t.hand_size == o.hand_size, name
        assert t.deck_size == o.deck_size and t.pool == o.pool, name
        assert t.hand is None and t.deck is None, name
        # The table's bound on the deck (# 1.7, 5.6) always holds the true deck, and every card it
        # forces into the hand really is there.
        deck = o.deck_counts()
        assert t.deck_max is not None and deck is not None and o.hand is not None
        known = Knowledge.of(t)
        assert known.hand_can_be(o.hand) and known.hand_can_hold(o.hand), name
        for c, n in deck.items():
            assert known.deck_min(c) <= n <= known.deck_max(c), (name, c)
            assert known.hand_min(c) <= o.hand[c] <= known.hand_max(c), (name, c)
    assert table_state.hall_of_fame == open_state.hall_of_fame
    assert table_state.finish_rounds == open_state.finish_rounds
    # Everything public agrees, and nothing hidden is left: the table position is the open one stripped.
    table_pos = position(table_state)
    assert _without_deck_max(table_pos) == strip_identities(position(open_state))
    validate_against("position", table_pos)
    assert position(state_from_position(table_pos)) == table_pos


@FAST
@given(race_params(), st.floats(0, 1, exclude_max=True), st.booleans())
def test_a_race_started_from_a_position_tells_the_same_story(params: Params, cut: float, step2: bool) -> None:
    """race_started.position: the log from a mid-race position replays to the same end, in open mode and,
    projected (strip_identities of the start, committed cards revealed first), in table mode."""
    events = race(params)
    k = min(_marks([cut], len(events) - 1))
    if step2:  # prefer a cut in step 2, where table mode (no step 2) must start the first turn itself
        state: RaceState | None = None
        step2_cuts = []
        for i, ev in enumerate(events[:-1], start=1):
            state = apply(state, ev)
            if state.phase == "race" and state.step == 2:
                step2_cuts.append(i)
        if step2_cuts:
            k = step2_cuts[int(cut * len(step2_cuts))]
    log = [{**events[0], "position": position(replay(events[:k]))}, *events[k:]]
    final = position(replay(events))
    assert position(replay(log)) == final
    assert _without_deck_max(position(replay(open_to_table(log)))) == strip_identities(final)


def _without_deck_max(pos: dict[str, Any]) -> dict[str, Any]:
    """deck_max is the table's memory of past reshuffles, which an open position alone cannot give."""
    return {**pos, "cars": [{**c, "deck_max": None} for c in pos["cars"]]}


# ---------------------------------------------------------------------------------------------- (e)


@FAST
@given(race_params(), cut_points())
def test_incremental_fold_equals_replay(params: Params, cuts: list[float]) -> None:
    events = race(params)
    marks = _marks(cuts, len(events))
    state: RaceState | None = None
    snapshots: list[tuple[RaceState, dict[str, Any]]] = []
    for i, ev in enumerate(events, start=1):
        state = apply(state, ev)  # atomic, as the recorder applies events one by one
        if i in marks:
            assert position(state) == position(replay(events[:i])), f"after event {i}"
            copy = state.copy()
            snapshots.append((copy, position(copy)))
            _rejected_events_leave_no_trace(state, events, i)
    assert state is not None
    assert position(state) == position(replay(events))
    for copy, pos in snapshots:  # copies are independent of the state they were taken from
        assert position(copy) == pos


def _rejected_events_leave_no_trace(state: RaceState, events: list[Event], i: int) -> None:
    """Illegal variants of nearby events raise and leave the state exactly as it was."""
    probes = [events[i - 1]]  # the event just applied, again
    if i < len(events):
        nxt = events[i]
        other = next((n for n in state.cars if n != nxt.get("car")), None)
        probes.append({**nxt, "car": other})  # the next event, by another car
    for probe in probes:
        trial = state.copy()
        before = position(trial)
        try:
            apply(trial, probe)
        except HeatlogError:
            assert position(trial) == before, f"rejected {probe['type']} after event {i} changed the state"


# ---------------------------------------------------------------------------------------------- (f)


@FAST
@given(race_params())
def test_every_race_finishes_and_everyone_is_ranked(params: Params) -> None:
    _, _, n, _, _ = params
    events = race(params)  # race_events raises if MAX_ROUNDS is reached
    state = replay(events)
    assert state.phase == "over"
    assert state.round <= MAX_ROUNDS
    assert sorted(state.hall_of_fame) == sorted(state.cars) and len(state.hall_of_fame) == n  # # 16.8
    rounds = [state.finish_rounds[name] for name in state.hall_of_fame]
    assert rounds == sorted(rounds), "earlier-round finishers rank ahead (# 16.8)"
    assert rounds[-1] == state.round
    assert all(car.finished and car.progress > state.final_line for car in state.cars.values())  # # 16.1


# ---------------------------------------------------------------------------------------------- schema sync


def test_position_schema_names_every_field() -> None:
    """The schema is strict (additionalProperties: false), so it must follow the engine's fields."""
    schema = load_schema("position")
    start = race_started("usa", 3, "standard", (False, True, False))
    bots: dict[str, Bot] = {name: random_bot for name in NAMES[:3]}
    events = list(race_events(start, bots, 7))
    state = replay(events[:200])
    pos = position(state)
    # Only a race with optional modules has "modules" (and Legend cars their "legend" mark); only a
    # championship race with an eliminated car has "eliminated" (MA21), and one with sponsorship cards its deck
    # and, without the Garage, the extra cards themselves ("cards", issue 26).
    optional_top = {"modules", "eliminated", "sponsor_deck", "cards"}
    assert set(schema["properties"]) - optional_top == set(pos) == set(schema["required"])
    car_schema = schema["properties"]["cars"]["items"]
    # "deck_top" only when a Refresh put a card on top of the deck (# 18.21)
    assert set(car_schema["properties"]) - {"legend", "deck_top"} == set(pos["cars"][0]) == set(car_schema["required"])
    turn_schema = schema["properties"]["turn"]["oneOf"][1]
    # championship fields, a Garage turn's record (# 18.6–18.25): present only when they say something
    optional = {"eliminated", "heat_removed", "owed", "garage", "earned", "sponsors_drawn", "sponsors_used"}
    # react_order: read from positions written before turns recorded happenings, never written; those positions
    # have no happenings or used, so the two are not required.
    # a module's record of the turn (Turn.modules) is written as its own keys (Module.turn_record: "legend" …)
    turn_fields = {f.name for f in fields(Turn)} - {"modules"} | {k for _, u in turn_records() for k in u.keys}
    assert set(turn_schema["properties"]) - {"react_order"} == turn_fields
    assert set(turn_schema["required"]) == turn_fields - optional - {"happenings", "used"}


# ---------------------------------------------------------------------------------------------- happenings


@FAST
@given(race_params())
def test_every_turns_happenings_agree_with_its_record(params: Params) -> None:
    state: RaceState | None = None
    seen: set[tuple[int, str]] = set()
    for i, ev in enumerate(race(params)):
        state = apply(state, ev)
        for turn in state.last_turns.values():  # every turn, the moment it is over (a round's last one too)
            if (turn.round, turn.car) not in seen and legend_move_of(turn) is None:
                seen.add((turn.round, turn.car))
                check_happenings(turn, f"{params} event {i}")
    assert state is not None and len(seen) >= state.round  # the leader alone had a turn every round
