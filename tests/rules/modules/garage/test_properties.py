"""Properties over random Garage races (# 18.1–18.26): random world, random bots, every way to draft.

Card conservation with upgrades and scrapped cards, determinism, every event valid at the door, and the table
projection (what a physical table saw) is a legal table-mode race telling the same public story.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from heatlog.engine import Knowledge, RaceState, apply, replay, state_from_position, state_to_position
from heatlog.engine.modules.garage import garage_slot
from heatlog.engine.redact import open_to_table
from heatlog.formats.validation import validate_against, validate_event
from heatlog.races import race_started_event
from heatlog.simulate import default_cars
from heatlog.simulate.world import race_events, random_bot

Event = dict[str, Any]
Params = tuple[int, str, str, int]
FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def garage_params(draw: st.DrawFn) -> Params:
    return (
        draw(st.integers(0, 2**32 - 1)),
        draw(st.sampled_from(("basic", "advanced", "all"))),
        draw(st.sampled_from(("random", "draft", "snake"))),
        draw(st.integers(2, 4)),
    )


@lru_cache(maxsize=16)
def _race(params: Params) -> tuple[Event, ...]:
    seed, upgrades, draft, n = params
    start = race_started_event(
        track="usa",
        cars=default_cars(n),
        laps=1,
        mode="open",
        modules={"garage": {"upgrades": upgrades, "draft": draft, "expansions": ["heavy-rain", "tunnel-vision"]}},
    )
    return tuple(race_events(start, {c["name"]: random_bot for c in start["cars"]}, seed))


def check_conservation(state: RaceState, where: str) -> None:
    """# 18.1, 18.5: 12 Basic + the 3 upgrades + the circuit's Stress and Heat, plus spinout Stress (# 10.3); a
    scrapped card is discarded, a refreshed one back on the deck: nothing leaves the car."""
    if state.phase in ("grid", "garage"):
        return
    for car in state.cars.values():
        assert min(car.pool.values()) >= 0, where
        assert sum(car.pool.values()) == car.hand_size + car.deck_size, where
        total = sum(car.pool.values()) + len(car.play_area) + len(car.discard) + car.engine
        expected = 12 + 3 + state.track.stress + state.track.heat + car.stress_taken
        assert total == expected, f"{where}: {car.name} owns {total} cards, not {expected}"
        if car.deck is not None and car.hand is not None:
            deck = {c: car.pool[c] - car.hand[c] for c in car.pool}
            assert all(car.deck.count(c) == n for c, n in deck.items()), where


@FAST
@given(garage_params())
def test_18_1_18_12_18_21_cards_are_conserved_at_every_event(params: Params) -> None:
    state: RaceState | None = None
    for i, ev in enumerate(_race(params)):
        state = apply(state, ev)
        check_conservation(state, f"event {i} {ev['type']}")
    assert state is not None and state.is_over()
    assert sorted(state.hall_of_fame) == sorted(state.cars)


@FAST
@given(garage_params())
def test_18_5_garage_races_replay_to_the_same_state_and_pass_the_door(params: Params) -> None:
    events = list(_race(params))
    for ev in events:
        validate_event(ev)
    a, b = replay(events), replay(events)
    assert a.hall_of_fame == b.hall_of_fame and a.round == b.round
    assert {n: (c.progress, c.engine, c.discard) for n, c in a.cars.items()} == {
        n: (c.progress, c.engine, c.discard) for n, c in b.cars.items()
    }
    assert garage_slot(a) is not None and all(len(v) == 3 for v in garage_slot(a).owned.values())


@FAST
@given(garage_params())
def test_table_mode_sees_the_upgrades_and_tells_the_same_public_story(params: Params) -> None:
    events = list(_race(params))
    table_events = open_to_table(events)
    open_state = replay(events)
    table: RaceState | None = None
    for i, ev in enumerate(table_events):
        validate_event(ev)
        table = apply(table, ev)
        check_conservation(table, f"table event {i} {ev['type']}")
    assert table is not None and table.mode == "table"
    assert table.hall_of_fame == open_state.hall_of_fame
    assert garage_slot(table) is not None and garage_slot(open_state) is not None
    assert garage_slot(table).owned == garage_slot(open_state).owned  # the upgrades are public after the draft
    for name, o in open_state.cars.items():
        t = table.cars[name]
        assert (t.progress, t.engine, t.discard, t.pool) == (o.progress, o.engine, o.discard, o.pool), name


def _round_starts(events: list[Event]) -> list[int]:
    """Where each round's steps 1–2 begin (every turn of the round before is over): the same points of an open
    log and of its table projection (which only drops the face-down plays, # 2.1)."""
    simultaneous = ("gear_chosen", "cards_played")
    return [
        i
        for i, e in enumerate(events)
        if e["type"] in simultaneous and (i == 0 or events[i - 1]["type"] not in simultaneous)
    ]


def _states_at(events: list[Event], points: list[int]) -> list[RaceState]:
    out: list[RaceState] = []
    state: RaceState | None = None
    marks = set(points)
    for i, ev in enumerate(events):
        if i in marks:
            assert state is not None
            out.append(state.copy())
        state = apply(state, ev)
    return out


@FAST
@given(garage_params())
@example((1, "all", "random", 2))  # a Refresh card waits on top of a deck at a round start (# 18.21)
@example((2, "advanced", "random", 3))  # (the same, 3 cars)
def test_18_21_table_mode_knows_what_the_open_race_had_on_top_and_in_hand(params: Params) -> None:
    """Principle 5 over random Garage races: the table projection accepts every real entry (the fold raises
    otherwise) and, at every round start, the one deduction (engine/knowledge.py) holds the true hand and deck:
    the cards a Refresh put on top are the open deck's top cards, a flip could show only the top one, and every
    card it forces into the hand or the deck is really there."""
    events = list(_race(params))
    table_events = open_to_table(events)
    opens, tables = _round_starts(events), _round_starts(table_events)
    assert len(opens) == len(tables)
    for o_state, t_state in zip(_states_at(events, opens), _states_at(table_events, tables), strict=True):
        assert o_state.round == t_state.round
        for name, o in o_state.cars.items():
            t = t_state.cars[name]
            if o.legend or o.needs_shuffle:
                continue
            assert t.deck_top == o.deck_top and t.pool == o.pool and t.hand_size == o.hand_size, name
            assert o.deck is not None and o.hand is not None
            assert o.deck[len(o.deck) - len(o.deck_top) :] == list(o.deck_top), name  # # 18.21: really on top
            know = Knowledge.of(t)
            assert know.hand_can_be(o.hand), name
            deck = o.deck_counts()
            assert deck is not None
            for c, n in deck.items():
                assert know.deck_min(c) <= n <= know.deck_max(c), (name, c)
                assert know.hand_min(c) <= o.hand[c] <= know.hand_max(c), (name, c)
            if o.deck:
                assert know.deck_can_show(o.deck[-1]), name
            if t.deck_top:
                assert [c for c in t.pool if know.deck_can_show(c)] == [t.deck_top[-1]], name


@FAST
@given(garage_params(), st.lists(st.floats(0, 1, exclude_max=True), min_size=1, max_size=3))
def test_positions_of_garage_races_round_trip_and_continue(params: Params, cuts: list[float]) -> None:
    """A position taken anywhere in a Garage race (the draft included) is valid, reads back to itself, and the
    rest of the log applied to it ends where the race ended."""
    events = list(_race(params))
    final = replay(events)
    for cut in cuts:
        k = 1 + int(cut * (len(events) - 1))
        state = replay(events[:k])
        pos = json.loads(json.dumps(state_to_position(state)))
        validate_against("position", pos)
        back = state_from_position(pos)
        assert json.loads(json.dumps(state_to_position(back))) == pos
        for ev in events[k:]:
            back = apply(back, ev)
        assert back.hall_of_fame == final.hall_of_fame
        assert state_to_position(back) == state_to_position(final)


def test_the_game_api_plays_garage_races_on_from_any_point() -> None:
    """Analysis's game API (heatlog.engine.game) over a Garage race: its draft picks and step-3 choices are
    decision nodes, markets and scraps chance nodes, and a full-information world plays to the end."""
    import random

    from heatlog.bots import Options, heuristic_bot
    from heatlog.engine import game

    events = list(_race((5, "all", "snake", 3)))

    def decide(state: RaceState, name: str) -> Event | None:
        return heuristic_bot(state, name, Options(state, name), random.Random(0))

    assert game.to_move(replay(events[:2])).kind == "chance"  # the first market (# 18.5)
    picks = next(i for i, e in enumerate(events) if e["type"] == "upgrade_picked")
    node = game.to_move(replay(events[:picks]))
    assert node.kind == "decision" and "upgrade_picked" in node.kinds
    for cut in (2, picks, len(events) // 2):
        world = game.play_out(replay(events[:cut]), decide, random.Random(cut))
        assert world.is_over() and sorted(world.hall_of_fame) == sorted(world.cars)
