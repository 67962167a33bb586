"""The Garage's hot-path shortcuts (issue 32) answer exactly what the long way answers, in every React of
simulated Garage races: ``mandatory_open`` against the React pool's mandatory uses (# 18.11, 18.12, 18.25), the
per-race symbol numbers against the card dicts (# 18.7), and the open-mode hand count against the joint
deduction (# 1.7)."""

from __future__ import annotations

import pytest

from heatlog.engine import react_pool
from heatlog.engine.knowledge import Knowledge
from heatlog.engine.modules.garage import garage_slot
from heatlog.engine.modules.garage.cards import symbol
from heatlog.engine.modules.garage.race import advanced_options, mandatory_open, react_options
from heatlog.engine.ruleset import BASE_RULES, base_react_mandatory, build_rules
from heatlog.engine.state import RaceState
from heatlog.engine.steps import REACT
from heatlog.simulate import simulate_race

SYMBOLS = ("heat", "scrap", "cooldown", "reduce", "salvage", "super_cool", "draft", "direct", "accelerate", "boost")


def _reacts(upgrades: str, seed: int) -> list[tuple[RaceState, str]]:
    seen: list[tuple[RaceState, str]] = []

    def watch(state: RaceState, ev: dict) -> None:
        turn = state.turn
        if turn is not None and turn.sub == REACT:
            seen.append((state.copy(), turn.car))

    simulate_race(
        None,
        track="usa",
        cars=4,
        seed=seed,
        bots=["heuristic", "random", "heuristic", "random"],
        modules={"garage": {"upgrades": upgrades, "draft": "draft"}},
        watch=watch,
    )
    return seen


@pytest.mark.parametrize(("upgrades", "seed"), [("basic", 1), ("all", 2), ("all", 3)])
def test_shortcuts_match_the_long_way(upgrades: str, seed: int) -> None:
    states = _reacts(upgrades, seed)
    assert states
    mandatory = 0
    for state, name in states:
        car, turn = state.cars[name], state.turn
        assert turn is not None
        pool = react_pool(state, car, turn)
        assert mandatory_open(state, car, turn) == bool(pool.mandatory)  # # 18.25
        # the race's Rules point asked as React ends (rules._react_may_end), and its base (which builds the pool)
        assert state.rules.react_mandatory(state, car, turn) == bool(pool.mandatory)
        assert base_react_mandatory(state, car, turn) == bool(pool.mandatory)
        mandatory += bool(pool.mandatory)
        g = garage_slot(state)
        assert g is not None
        for token in turn.played:
            card = g.cards.get(token)
            for name_ in SYMBOLS:
                assert g.n(token, name_) == (symbol(card, name_) if card is not None else 0)
        know = Knowledge.of(car)
        assert car.hand is not None
        assert all(car.hand.get(t, 0) == know.hand_max(t) for t in car.pool)  # open mode: # 1.7
        # the same events asked twice (the per-race caches change nothing they answer)
        assert react_options(state, car, turn) == react_options(state, car, turn)
        assert advanced_options(state, car, turn) == advanced_options(state, car, turn)
    assert mandatory  # the races reach a mandatory use (a Heat cost or a Scrap), so the check is not vacuous


def test_the_garage_answers_react_mandatory_without_the_pool() -> None:
    """# 18.25: a base race keeps the base point (never asked: its pool has no mandatory use); a Garage race asks
    ``mandatory_open``, which does not build the React pool (issue 32); a module built before the Garage that
    answers the point itself is still asked."""
    assert BASE_RULES.react_mandatory is base_react_mandatory
    rules = build_rules(["garage"], {"garage": {"upgrades": "all", "draft": "draft"}})
    assert rules.react_mandatory is mandatory_open
    assert not rules.unchanged.react_mandatory
    from dataclasses import replace

    from heatlog.engine.modules.garage.race import build

    asked: list[str] = []

    def theirs(state: RaceState, car: object, turn: object) -> bool:
        asked.append("theirs")
        return True

    both = build(replace(BASE_RULES, react_mandatory=theirs), {"upgrades": "basic", "draft": "draft"})
    state, name = _reacts("basic", 1)[0]
    car, turn = state.cars[name], state.turn
    assert turn is not None
    assert both.react_mandatory(state, car, turn) is (mandatory_open(state, car, turn) or True)
    assert asked == ([] if mandatory_open(state, car, turn) else ["theirs"])


def test_upgrade_values_kept_per_card_are_the_values() -> None:
    """The heuristic's card values, kept per card object, are the values worked out afresh (a copy of the card)."""
    from heatlog.engine.modules.garage.bots import upgrade_value

    states = _reacts("all", 4)
    g = garage_slot(states[-1][0])
    assert g is not None and g.cards
    for card in g.cards.values():
        first = upgrade_value(card)
        assert upgrade_value(card) == first == upgrade_value(dict(card))
    assert upgrade_value(None) == -4.0
