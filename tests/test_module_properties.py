"""Properties over random races with Legends and the weather (MODULES.md 19, 20): whole simulated races on
every built-in circuit, 1–4 player cars, 0–5 Legends (pro, aggressive), with or without the weather module.

Legends never hold a card nor pay Heat (# 19.1, 19.10); every player card stays in exactly one zone with the
weather's start effect counted (# 20.3); replay is deterministic; positions round-trip and the race goes on
from them; the table-mode projection tells the same public story; the Legend deck never repeats a card before
its reshuffle (# MA9)."""

from __future__ import annotations

import json
from typing import Any

from happenings import check_happenings
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from heatlog.engine import RaceState, apply, replay, state_from_position, state_to_position
from heatlog.engine.modules.legends import legend_move_of
from heatlog.engine.modules.weather import weather_tile
from heatlog.engine.redact import open_to_table
from heatlog.formats.tracks import BUILTIN_TRACKS
from heatlog.formats.validation import validate_against, validate_event
from heatlog.races import race_started_event
from heatlog.simulate import bot_names, default_cars
from heatlog.simulate.world import MAX_ROUNDS, race_events
from tests.rules.modules.helpers import legend_cars

Event = dict[str, Any]
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
START = {"cloud": (-1, 0), "fog": (0, 1), "storm": (1, 0), "snow": (0, -1), "rain": (0, 0), "sun": (0, 0)}


@st.composite
def module_races(draw: st.DrawFn) -> tuple[Any, ...]:
    seed = draw(st.integers(0, 2**32 - 1))
    track = draw(st.sampled_from(BUILTIN_TRACKS))
    players = draw(st.integers(1, 4))
    legends = draw(st.integers(1 if players == 1 else 0, 6 - players))
    weather = draw(st.booleans()) if legends else True
    pro = draw(st.integers(0, 6)) if legends else 0
    aggressive = draw(st.booleans()) if legends else False
    bot = draw(st.sampled_from(("heuristic", "heuristic", "random")))
    return seed, track, players, legends, weather, pro, aggressive, bot


_CACHE: dict[tuple[Any, ...], list[Event]] = {}


def race(params: tuple[Any, ...]) -> list[Event]:
    if params not in _CACHE:
        seed, track, players, legends, weather, pro, aggressive, bot = params
        cars = default_cars(players)
        start = race_started_event(
            track=track,
            cars=cars,
            mode="open",
            seed=seed,
            modules={
                **(
                    {
                        "legends": {
                            "cars": legend_cars(legends, [c["colour"] for c in cars]) if legends else [],
                            "pro": pro,
                            "aggressive": aggressive,
                        }
                    }
                    if legends or pro or aggressive
                    else {}
                ),
                **({"weather": {}} if weather else {}),
            },
        )
        names = [c["name"] for c in cars]
        _CACHE.clear()
        _CACHE[params] = list(race_events(start, bot_names(bot, names), seed))
    return _CACHE[params]


def position(state: RaceState) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(state_to_position(state)))
    return result


def check_books(state: RaceState, where: str) -> None:
    """Legends own nothing (# 19.1, 19.10); a player owns its deck's cards, the circuit's Heat and Stress as the
    weather tile changed them (# 20.3), and the Stress of its spinouts (# 10.3)."""
    if state.phase in ("grid", "weather"):
        return
    stress, heat = START[weather_tile(state)] if weather_tile(state) else (0, 0)
    for car in state.cars.values():
        if car.legend:
            assert sum(car.pool.values()) == 0 and car.hand_size == 0 and car.deck_size == 0, where
            assert car.engine == 0 and not car.discard and not car.play_area and car.stress_taken == 0, where
            continue
        total = sum(car.pool.values()) + len(car.play_area) + len(car.discard) + car.engine
        start_stress = max(0, state.track.stress + stress)
        expected = 15 + start_stress + state.track.heat + heat + car.stress_taken - (1 if car.handicap else 0)
        assert total == expected, f"{where}: {car.name} owns {total} cards, not {expected}"


@FAST
@given(module_races())
# A random driver stuck for good before a slow corner (empty Engine, a limit-1 token, a hand of Stress): the
# simulator stops the race unfinished after MAX_ROUNDS rounds, and the books still balance.
@example(params=(3702, "mexico", 4, 1, True, 1, True, "random"))
def test_19_10_legends_hold_no_cards_and_pay_no_heat_and_cards_are_conserved(params: tuple[Any, ...]) -> None:
    events = race(params)
    state: RaceState | None = None
    for i, ev in enumerate(events):
        state = apply(state, ev)
        check_books(state, f"event {i} {ev['type']}")
        if state.turn is not None and state.cars[state.turn.car].legend:
            assert state.turn.corners == [] and not state.turn.spinout  # # 19.10, MC10
    assert state is not None
    if state.is_over():
        assert sorted(state.hall_of_fame) == sorted(state.cars)  # Legends finish and rank too (# 19.13)
    else:  # stopped by the simulator: only a random driver gets stuck for good
        assert state.round == MAX_ROUNDS + 1 and params[-1] == "random"


@FAST
@given(module_races())
def test_MA9_the_legend_deck_repeats_no_card_before_its_reshuffle(params: tuple[Any, ...]) -> None:
    cards = [ev["card"] for ev in race(params) if ev["type"] == "legend_card_revealed"]
    for k in range(0, len(cards), 10):
        cycle = cards[k : k + 10]
        assert len(set(cycle)) == len(cycle), cards


@FAST
@given(module_races())
def test_module_replay_is_deterministic_and_every_event_passes_the_door(params: tuple[Any, ...]) -> None:
    events = race(params)
    for ev in events:
        validate_event(ev)
    assert position(replay(events)) == position(replay(json.loads(json.dumps(events))))


@FAST
@given(module_races(), st.lists(st.floats(0, 1, exclude_max=True), min_size=1, max_size=3))
# A two-gear downshift from a flooded space: 2 Heat at step 1 (# 3.2, MODULES.md 22.4).
@example(params=(34816, "japan", 4, 0, True, 0, False, "heuristic"), cuts=[0.40625])
def test_module_positions_round_trip_and_continue(params: tuple[Any, ...], cuts: list[float]) -> None:
    events = race(params)
    final = position(replay(events))
    validate_against("position", final)
    for cut in cuts:
        k = 1 + int(cut * (len(events) - 1))
        pos = position(replay(events[:k]))
        validate_against("position", pos)
        back = state_from_position(pos)
        assert position(back) == pos, f"round trip after event {k}"
        for later in events[k:]:
            back = apply(back, later)
        assert position(back) == final, f"continued from the position after event {k}"


@FAST
@given(module_races())
def test_module_table_projection_tells_the_same_public_story(params: tuple[Any, ...]) -> None:
    events = race(params)
    table = open_to_table(events)
    open_state, table_state = replay(events), replay(table)
    assert table_state.hall_of_fame == open_state.hall_of_fame
    assert table_state.finish_rounds == open_state.finish_rounds
    assert weather_tile(table_state) == weather_tile(open_state)
    for name, o in open_state.cars.items():
        t = table_state.cars[name]
        assert (t.progress, t.lane, t.engine, t.discard) == (o.progress, o.lane, o.engine, o.discard), name


@FAST
@given(module_races())
def test_every_players_happenings_agree_with_its_record_with_legends_and_weather(params: tuple[Any, ...]) -> None:
    """Issue 11 item 5 with the modules on: a free boost, cooling bonuses, slipstream bonuses, corner tokens."""
    state: RaceState | None = None
    seen: set[tuple[int, str]] = set()
    for i, ev in enumerate(race(params)):
        state = apply(state, ev)
        for turn in state.last_turns.values():
            if (turn.round, turn.car) not in seen and legend_move_of(turn) is None:
                seen.add((turn.round, turn.car))
                check_happenings(turn, f"{params} event {i}")
    assert state is not None and seen
