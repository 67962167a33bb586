"""The game API for search (heatlog.engine.game): nodes, legal decisions in canonical form, chance, play-out.

Every enumerated decision is accepted by the engine; decisions it does not enumerate are refused (or, for
the documented cases — a slipstream declined where none is offered, a discard during React, another car's
gear after a turn with nothing to draw — do exactly what ``go_on`` and then a listed decision do).
Digest items: gears # 3.1–3.4, plays # 4.1–4.2 and # 13.1, cooldown # 7.2–7.3, boost # 7.5, adrenaline
# 6.1–6.3, slipstream # 8.1–8.3, discard # 11.1, flips # 5.2 / 14.1, reshuffle # 5.6.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from heatlog.analysis import information_set
from heatlog.bots import Options, heuristic_bot, random_bot
from heatlog.engine import HeatlogError, RaceState, apply, state_to_position, waiting_for
from heatlog.engine.cards import CARDS
from heatlog.engine.game import (
    GO_ON,
    apply_decision,
    canonical,
    chance_event,
    clone,
    decision_key,
    legal_decisions,
    pending_chance,
    play_out,
    to_move,
    whose_turn,
)
from heatlog.engine.redact import open_to_table
from heatlog.races import race_started_event
from heatlog.simulate import simulate_race

Event = dict[str, Any]


def _decision_states(seed: int, bot: Any = random_bot, cars: int = 3) -> list[RaceState]:
    """States at decision nodes along a simulated race (random bots reach odd corners of the rules)."""
    out: list[RaceState] = []

    def watch(state: RaceState, ev: Event) -> None:
        if to_move(state).kind == "decision" and len(out) < 400:
            out.append(state.copy())

    simulate_race(None, track="usa", cars=cars, seed=seed, bots=bot, watch=watch)
    return out


def _candidates(state: RaceState, car: str, rng: random.Random) -> list[Event]:
    """Decisions of every kind, legal or not, around the state."""
    c = state.cars[car]
    hand = [x for x in CARDS for _ in range((c.hand or {}).get(x, 0))] or list("1234")
    out: list[Event] = [{"type": "gear_chosen", "v": 1, "car": car, "gear": g} for g in range(1, 5)]
    for _ in range(6):
        k = rng.randint(1, 4)
        cards = [rng.choice(CARDS) for _ in range(k)]
        out.append({"type": "cards_played", "v": 1, "car": car, "cards": cards})
        out.append({"type": "cards_revealed", "v": 1, "car": car, "cards": cards})
        out.append({"type": "cards_discarded", "v": 1, "car": car, "cards": cards[:2]})
    out.append({"type": "cards_played", "v": 1, "car": car, "cards": hand[: c.gear]})
    out += [{"type": "cooldown", "v": 1, "car": car, "count": n} for n in (1, 2, 3, 4)]
    out += [{"type": "boost", "v": 1, "car": car}, {"type": "slipstream", "v": 1, "car": car, "taken": True}]
    out += [{"type": "adrenaline", "v": 1, "car": car, "bonus": b} for b in ("move", "cooldown")]
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_enumerated_decision_is_accepted_and_others_refused(seed: int) -> None:
    rng = random.Random(seed)
    checked = refused = composite = 0
    for state in _decision_states(seed):
        car = whose_turn(state)
        assert car is not None
        legal = legal_decisions(state)
        keys = {decision_key(d) for d in legal}
        assert len(keys) == len(legal), "one entry per decision"
        go_on_result = None
        for d in legal:
            copy = state.copy()
            apply_decision(copy, d)  # accepted
            if d["type"] == GO_ON:
                go_on_result = state_to_position(copy)
            checked += 1
        for d in _candidates(state, car, rng):
            if decision_key(d) in keys:
                continue
            copy = state.copy()
            try:
                apply_decision(copy, d)
            except HeatlogError:
                refused += 1
                continue
            # Accepted without being listed: a later decision taken now (a discard during React closes React
            # and Slipstream first; another car's gear closes a turn that has nothing left to draw, # 12.2), or
            # a slipstream declined where none is offered. Each is going on first: the same state as go_on,
            # then the decision as listed at the next node.
            assert go_on_result is not None, d
            later = state.copy()
            apply_decision(later, {"type": GO_ON, "car": car})
            if d["type"] == "slipstream":
                assert not d["taken"] and state_to_position(copy) == go_on_result
            else:
                assert decision_key(d) in {decision_key(x) for x in legal_decisions(later, d["car"])}, d
                apply_decision(later, d)
                assert state_to_position(copy) == state_to_position(later)
            composite += 1
    assert checked > 200 and refused > 200


def test_equivalent_card_sets_are_one_decision() -> None:
    d1 = {"type": "cards_played", "v": 1, "car": "Red", "cards": ["3", "1", "S"], "raw": "31s"}
    d2 = {"type": "cards_played", "v": 1, "car": "Red", "cards": ["S", "1", "3"]}
    assert canonical(d1) == canonical(d2) == {"type": "cards_played", "v": 1, "car": "Red", "cards": ["1", "3", "S"]}
    assert decision_key(d1) == decision_key(d2)
    assert decision_key(d1) != decision_key({**d2, "cards": ["1", "3", "4"]})


def test_nodes_follow_what_the_race_waits_for() -> None:
    """A decision node where the race waits for a decision kind or an optional step; chance otherwise; and
    every chance event drawn is one the engine accepts."""
    rng = random.Random(7)
    state = apply(None, race_started_event(track="usa", cars=[{"name": "A"}, {"name": "B"}], mode="open"))
    assert to_move(state).kind == "chance" and to_move(state).car is None  # the grid (# 1.4)
    seen = {"decision": 0, "chance": 0}
    while to_move(state).kind != "terminal":
        node = to_move(state)
        w = waiting_for(state)
        seen[node.kind] += 1
        if node.kind == "chance":
            ch = pending_chance(state)
            if state.phase != "grid":
                assert ch is not None and ch.car == node.car and ch.kind in w.kinds
                if ch.outcomes:
                    assert sum(p for _, p in ch.outcomes) == pytest.approx(1.0)
            apply(state, chance_event(state, rng))  # type: ignore[arg-type]
        else:
            assert node.car in w.cars and pending_chance(state) is None
            d = heuristic_bot(state, node.car, Options(state, node.car), rng)  # type: ignore[arg-type]
            apply_decision(state, d or {"type": GO_ON, "car": node.car})
        assert state.round < 60
    assert seen["decision"] > 50 and seen["chance"] > 50 and state.hall_of_fame


def test_flip_and_draw_outcomes_of_a_deck_of_known_contents() -> None:
    """With the deck's contents known but not its order (a hand known, # 1.7), the chance outcomes are the
    deck's cards with their shares, and the draws' probabilities sum to one."""
    _, events, _ = simulate_race(None, track="usa", cars=2, seed=4)
    state: RaceState | None = None
    found = 0
    for ev in events:
        state = apply(state, ev, atomic=False)
        node = to_move(state)
        if node.kind == "chance" and state.phase == "race":
            blind = state.copy()
            car = blind.cars[node.car]  # type: ignore[index]
            car.deck = None
            ch = pending_chance(blind)
            if ch is not None and ch.kind in ("card_flipped", "cards_drawn") and ch.outcomes:
                assert sum(p for _, p in ch.outcomes) == pytest.approx(1.0)
                found += 1
    assert found > 20


def test_play_out_drives_a_race_exactly_as_the_simulator() -> None:
    """The game API's play-out from the set-up, with the same bots and seed, writes the simulator's log."""
    for seed in (0, 5):
        start = race_started_event(track="usa", cars=[{"name": "A"}, {"name": "B"}, {"name": "C"}], mode="open")
        _, sim_events, sim_final = simulate_race(None, track="usa", cars=["A", "B", "C"], seed=seed)
        state = apply(None, sim_events[0])
        rng = random.Random(seed)
        log: list[Event] = [sim_events[0]]
        play_out(state, lambda s, n, rng=rng: heuristic_bot(s, n, Options(s, n), rng), rng, record=log.append)
        assert log == sim_events and state.hall_of_fame == sim_final.hall_of_fame
        assert start["track"] == sim_events[0]["track"]


def test_a_world_sampled_mid_round_reveals_by_decision_and_plays_to_the_end() -> None:
    """A table-mode race sampled at a car's reveal: the open-mode world takes that reveal as the car's
    decision (the log never knew cards played face down) and plays on to the finish."""
    _, events, _ = simulate_race(None, track="usa", cars=3, seed=9)
    table = open_to_table(events)
    cut = next(i for i in range(len(table) // 2, len(table)) if table[i]["type"] == "cards_revealed")
    info = information_set(table[:cut])
    rng = random.Random(1)
    world = info.sample(rng)
    node = to_move(world)
    assert node.kind == "decision" and "cards_revealed" in node.kinds
    legal = legal_decisions(world)
    assert legal and all(d["type"] == "cards_revealed" for d in legal)
    other = clone(world)
    apply_decision(other, legal[0])
    assert other.cars[node.car].hand != world.cars[node.car].hand  # type: ignore[index]
    play_out(world, lambda s, n: heuristic_bot(s, n, Options(s, n), rng), rng)
    assert world.phase == "over" and len(world.hall_of_fame) == 3


def test_play_out_drives_a_legends_and_weather_race_exactly_as_the_simulator() -> None:
    """MODULES.md 19.5, 20.2: the weather tile, the road tokens and each round's Legend card are chance events
    of the game API (``module_chance_event``), drawn as the simulator draws them: the same log."""
    for seed in (1, 4):
        _, sim_events, sim_final = simulate_race(
            None, track="usa", cars=2, modules={"legends": {"cars": 2}, "weather": {}}, seed=seed
        )
        state = apply(None, sim_events[0])
        rng = random.Random(seed)
        log: list[Event] = [sim_events[0]]
        play_out(state, lambda s, n, rng=rng: heuristic_bot(s, n, Options(s, n), rng), rng, record=log.append)
        assert log == sim_events and state.hall_of_fame == sim_final.hall_of_fame
        kinds = {e["type"] for e in log}
        assert {"weather_drawn", "road_conditions_drawn", "legend_card_revealed"} <= kinds


def test_the_legend_card_is_a_uniform_chance_node() -> None:
    """# 19.5, MA9: when a Legend's turn waits for the round's card, the game API says so: a chance node whose
    outcomes are the cards not turned since the last reshuffle, each equally likely."""
    found = 0

    def watch(state: RaceState, ev: Event) -> None:
        nonlocal found
        ch = pending_chance(state)
        if ch is not None and ch.kind == "legend_card_revealed":
            assert to_move(state).kind == "chance" and state.cars[ch.car].legend
            own = state.modules["legends"]
            cards = sorted(own.deck.available(own.rules))
            assert [o["card"] for o, _ in ch.outcomes] == cards
            assert all(p == pytest.approx(1 / len(cards)) for _, p in ch.outcomes)
            assert chance_event(state, random.Random(0))["card"] in cards  # type: ignore[index]
            found += 1

    simulate_race(None, track="usa", cars=2, modules={"legends": {"cars": 2}}, seed=3, watch=watch)
    assert found >= 10


def test_playouts_of_a_legends_and_weather_race_run_in_worker_processes() -> None:
    """The race's Rules (closures of the weather and Legends modules) travel to the workers as their
    configuration and are rebuilt there: the same results in 2 processes as in this one."""
    from heatlog.analysis.executors import local_executor
    from heatlog.analysis.playout import playouts

    _, events, _ = simulate_race(None, track="usa", cars=2, modules={"legends": {"cars": 2}, "weather": {}}, seed=2)
    cut = next(i for i, e in enumerate(events) if e["type"] == "legend_card_revealed")
    info = information_set(events[:cut])
    inline = playouts(info, 8, seed=5)
    with local_executor(2) as ex:
        pooled = playouts(info, 8, seed=5, executor=ex)
    assert not inline.partial and [o.places for o in inline.outcomes[0]] == [o.places for o in pooled.outcomes[0]]


def test_go_on_is_listed_only_where_the_engine_takes_it() -> None:
    """# 18.11: a Garage card's Heat cost the Engine cannot cover must be settled before React ends (declared
    unpayable, or paid after a cooldown): "go on" is then not a legal decision. The game API listed it at every
    step 5–8, so a review of that decision drew no world where "go on" was possible ("no world drawn", issue 28);
    it now asks the engine (``waiting_for(...).may_go_on``). Every listed decision is accepted, "go on" where it
    is not listed is refused."""
    garage = {"upgrades": "all", "draft": "snake", "expansions": ["heavy-rain", "tunnel-vision"]}
    unpayable = 0
    for seed in range(1, 9):
        states: list[RaceState] = []

        def watch(state: RaceState, ev: Event, states: list[RaceState] = states) -> None:
            if to_move(state).kind == "decision" and waiting_for(state).due == "heat_unpayable":
                states.append(state.copy())

        simulate_race(
            None, track="usa", cars=2, laps=1, seed=seed, bots=random_bot, modules={"garage": garage}, watch=watch
        )
        for state in states:
            car = whose_turn(state)
            assert car is not None
            legal = legal_decisions(state)
            assert {"type": GO_ON, "car": car} not in legal
            assert any(d["type"] == "heat_unpayable" for d in legal)
            for d in legal:
                apply_decision(state.copy(), d)  # accepted
            with pytest.raises(HeatlogError, match="18.11|React is not over|unpaid"):
                apply_decision(state.copy(), {"type": GO_ON, "car": car})
            unpayable += 1
    assert unpayable > 0
