"""React as a pool of uses, and the happenings a turn records (issue 11 item 5; # 6.2, 7.1–7.6, 18.25).

The pool (engine/react.py) is the one answer to "what may this car still do in React": the options the recorder,
the bots and the simulator are offered come from it, each React event consumes a use of it, and a module adds
uses through the race's ``react_uses`` point. Each turn records what happened as (kind, source, amount, moved)
happenings, which narration, the board and statistics read.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest

from heatlog.engine import IllegalEvent, ReactUse, go_on, react_options, react_pool, state_from_position
from heatlog.engine.react import cooled_by
from heatlog.engine.ruleset import BASE_RULES, MODULES, Rules, build_rules, register_module
from heatlog.formats.validation import validate_against
from heatlog.views.narrate import narrate_turn

from .conftest import PARKED, board


def react_board(hand: str = "1HHH123", gear: int = 1, engine: int = 6, deck: str = "4123412341234", at: int = 3):
    """A parked in front on space 20, B behind: B holds adrenaline (# 6.1)."""
    return board(
        {
            "A": {"at": 20, "hand": PARKED},
            "B": {"at": at, "hand": hand, "gear": gear, "engine": engine, "deck": deck},
        }
    )


def uses(race: Any) -> list[tuple[str, str, int]]:
    pool = react_pool(race.state, race.car("B"), race.turn)
    return [(u.symbol, u.source, u.n) for u in pool.uses]


# ---------------------------------------------------------------------------------------------- the base pool


def test_7_2_6_2_7_5_the_base_pool_lists_gear_cooldown_boost_and_both_adrenaline_bonuses():
    race = react_board(hand="12HHH12", gear=2)
    race.round(A=(1, "0"), B=(2, "12"))
    race.turns_until("B")
    assert uses(race) == [
        ("cooldown", "gear", 1),  # # 7.2: gear 2
        ("boost", "engine", 1),  # # 7.5: 1 Heat from the Engine
        ("adrenaline_move", "adrenaline", 1),  # # 6.2
        ("adrenaline_cooldown", "adrenaline", 1),  # # 6.2, 7.4
    ]
    # The options everyone is offered are the pool's, in its order.
    assert react_options(race.state, race.car("B"), race.turn) == [
        {"type": "cooldown", "v": 1, "car": "B", "count": 1},
        {"type": "boost", "v": 1, "car": "B"},
        {"type": "adrenaline", "v": 1, "car": "B", "bonus": "move"},
        {"type": "adrenaline", "v": 1, "car": "B", "bonus": "cooldown"},
    ]


def test_7_4_each_event_consumes_its_use_and_a_cooldown_draws_on_gear_then_adrenaline():
    # 7.4: gear 2 gives 1, the adrenaline cooldown adds 1; one cooldown of 2 takes both (one happening).
    race = react_board(hand="12HHH12", gear=2)
    race.round(A=(1, "0"), B=(2, "12"))
    race.turns_until("B")
    race.adrenaline("B", "cooldown")
    assert ("adrenaline_cooldown", "adrenaline", 1) not in uses(race)
    assert ("cooldown", "adrenaline", 1) in uses(race)
    race.cooldown("B", 2)
    assert [u for u in uses(race) if u[0] == "cooldown"] == []
    assert race.turn.happenings[1:] == [("adrenaline", "cooldown", 1, 0), ("cooldown", "gear+adrenaline", 2, 0)]
    assert race.turn.used == {"cooldown:gear": 1, "cooldown:adrenaline": 1}
    assert cooled_by(race.turn) == {"gear": 1, "adrenaline": 1}
    race.reject("cooldown", car="B", count=1, rule="7.2")  # nothing left in the pool
    assert "cools 2 Heat" in narrate_turn(race.state, race.turn)  # one event, told once


def test_13_3_no_pool_after_a_cluttered_reveal_nor_during_a_flip():
    race = react_board(hand="1HHH123", deck="H 3")
    race.round(A=(1, "0"), B=(1, "1"))
    race.turns_until("B")
    race.ev("boost", car="B")
    assert react_pool(race.state, race.car("B"), race.turn).uses == ()  # # 14.1: finish the flip first
    race.flip("B", "H", "3")
    assert ("boost", "engine", 1) not in uses(race)  # # 7.5: once a turn


# ---------------------------------------------------------------------------------------------- happenings


def test_5_1_7_5_9_3_a_turn_records_its_happenings_in_order_and_narration_reads_them():
    # B: gear 2, plays 2 3 (speed 5 from space 3 to 8), boosts a 4 (to 12: over the corner after 10, limit 4,
    # at speed 9: 5 Heat), discards a 1, draws 3.
    race = react_board(hand="2312341", gear=2, deck="4 123412341234")
    race.round(A=(1, "0"), B=(2, "23"))
    race.turns_until("B")
    race.boost("B", "4")
    race.go_on().discard("B", "1").refill("B")
    t = race.last_turn("B")
    assert t.happenings == [
        ("speed", "cards", 5, 5),
        ("boost", "engine", 4, 4),
        ("corner", "10", 5, 0),
        ("discard", "hand", 1, 0),
        ("draw", "deck", 3, 0),
    ]
    assert t.step3_speed == 5 and t.speed == 9 and t.spaces_moved == 9
    text = narrate_turn(race.state, t)
    assert "speed 5; moves 5; boosts (1 Heat): +4, moves 4; speed 9" in text


def test_10_2_a_spinout_is_a_happening_with_the_stress_and_the_spaces_back():
    # 10.1–10.3: speed 7 from 4 to 11, over the corner after 10 (limit 4), 1 Heat on the Engine: spin out.
    race = react_board(hand="3412341", gear=2, engine=1, at=4)
    race.round(A=(1, "0"), B=(2, "34"))
    race.turns_until("B").go_on()
    spin = race.turn.happened("spinout")
    assert race.turn.happened("corner") == [("corner", "10", 1, 0)]
    assert race.turn.reached == 11 and race.car("B").progress == 10  # # 10.2: back before the corner line
    assert spin == [("spinout", "10", 1, -1)]


# ---------------------------------------------------------------------------------------------- positions


def test_positions_keep_the_happenings_and_old_positions_rebuild_them():
    race = react_board(hand="12HHH12", gear=2, deck="3 123412341234")
    race.round(A=(1, "0"), B=(2, "12"))
    race.turns_until("B")
    race.adrenaline("B", "move").boost("B", "3").cooldown("B", 1)
    pos = race.position()
    assert pos["turn"]["happenings"][0] == ["speed", "cards", 3, 3]
    validate_against("position", json.loads(json.dumps(pos)))  # the position schema knows the new fields
    assert state_from_position(pos).turn.happenings == race.turn.happenings
    assert state_from_position(pos).turn.used == race.turn.used == {"cooldown:gear": 1}
    # A position written before happenings existed: react_order strings and the summary fields.
    old = dict(pos, turn={k: v for k, v in pos["turn"].items() if k not in ("happenings", "used")})
    old["turn"]["react_order"] = ["adrenaline move", "boost", "cooldown 1"]
    assert state_from_position(old).turn.happenings == race.turn.happenings
    assert state_from_position(old).turn.used == race.turn.used
    validate_against("position", json.loads(json.dumps(old)))  # and still accepts the old form


# ---------------------------------------------------------------------------------------------- a module's uses


def radio(rules: Rules, options: Any) -> Rules:
    """A made-up module: the pit radio orders one cooldown every turn a car holds Heat, a mandatory use of its
    own (# 18.25's pattern: React cannot end while it is left)."""
    base = rules.react_uses

    def react_uses(state: Any, car: Any, turn: Any) -> list[ReactUse]:
        out = base(state, car, turn)
        if not cooled_by(turn).get("radio") and car.hand and car.hand["H"]:  # only a cooldown it can do
            out.append(ReactUse("cooldown", "radio", 1, mandatory=True))
        return out

    return dataclasses.replace(rules, react_uses=react_uses)


@pytest.fixture
def with_radio() -> Iterator[None]:
    register_module("radio", radio)
    yield
    del MODULES["radio"]


def test_18_25_a_module_adds_a_use_and_react_cannot_end_while_a_mandatory_one_is_left(with_radio: None):
    race = react_board(hand="1234HH1", gear=3)
    race.state.rules = build_rules(["radio"], {})
    assert race.state.rules is not BASE_RULES
    race.round(A=(1, "0"), B=(3, "123"))
    race.turns_until("B")
    assert ("cooldown", "radio", 1) in uses(race)  # gear 3 gives none (# 7.2): the radio's is the only one
    assert {"type": "cooldown", "v": 1, "car": "B", "count": 1} in react_options(race.state, race.car("B"), race.turn)
    with pytest.raises(IllegalEvent, match="React is not over"):
        go_on(race.state.copy())
    race.reject("slipstream", car="B", taken=False, rule="18.25")
    race.reject("cards_discarded", car="B", cards=["4"], rule="18.25")
    race.cooldown("B", 1)
    assert race.turn.happenings[-1] == ("cooldown", "radio", 1, 0) and race.turn.used == {"cooldown:radio": 1}
    race.go_on()  # the radio's order is done: React may end
    assert race.car("B").engine == 7


@pytest.mark.parametrize(
    "config",
    [
        {"bots": "random"},
        {"bots": "heuristic", "modules": {"weather": {}}},
        {"bots": "random", "modules": {"garage": {"upgrades": "all"}}},
    ],
    ids=["base", "weather", "garage"],
)
def test_the_pool_names_its_option_types_as_its_options_do(config: dict[str, Any]) -> None:
    """``ReactPool.kinds`` (what ``Waiting.optional`` reads without building the events) is the types of
    ``options()`` in their order, each once: at every React step of whole simulated races, modules' uses too."""
    from heatlog.engine import apply
    from heatlog.simulate import simulate_race

    _, events, _ = simulate_race(None, seed=2, track="usa", cars=4, **config)
    state, seen = None, 0
    for ev in events:
        state = apply(state, ev, atomic=False)
        turn = state.turn
        if turn is not None and turn.sub == 5 and turn.flipping is None:
            pool = react_pool(state, state.cars[turn.car], turn)
            assert pool.kinds() == list(dict.fromkeys(o["type"] for o in pool.options()))
            seen += bool(pool.uses)
    assert seen > 10
