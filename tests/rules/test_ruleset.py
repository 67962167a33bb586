"""The Rules object and its policy points (issue 11): a base race uses the plain base functions; a module
changes named points and nothing else. A made-up "mist" module (corner limits +N in the mist, the Rules builder
of docs/design.md's worked example; the example itself is now a registered module, engine/modules/rain/) built on
the ``corner_limit`` point, driven through real events."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from heatlog.engine import MalformedInput, apply, ruleset
from heatlog.engine.ruleset import BASE_RULES, MODULES, Rules, build_rules, register_module

from .conftest import TRACK, board, ev

# ---------------------------------------------------------------------------------------------- the module


def mist(rules: Rules, options: Any) -> Rules:
    """A made-up module: every corner's limit is ``by`` higher in the mist (default 1)."""
    by = (options or {}).get("by", 1)
    if not isinstance(by, int) or isinstance(by, bool) or not 1 <= by <= 3:
        raise ValueError("mist: by must be 1, 2 or 3")
    limit = rules.corner_limit  # compose with whatever the modules before it did

    def corner_limit(state: Any, car: Any, turn: Any, corner: Any) -> int:
        return limit(state, car, turn, corner) + by

    return dataclasses.replace(rules, corner_limit=corner_limit)


@pytest.fixture
def with_mist() -> Iterator[None]:
    register_module("mist", mist)
    yield
    del MODULES["mist"]


def checks(turn: Any) -> list[tuple[int, int, int, int]]:
    return [(c.after_space, c.limit, c.speed, c.cost) for c in turn.corners]


# ---------------------------------------------------------------------------------------------- base


def test_a_base_race_has_the_base_functions_themselves() -> None:
    """No module: every point is the plain base function (the base pays no indirection beyond one lookup)."""
    race = board({"A": {"at": 25}, "B": {"at": 9}})
    assert race.state.rules is BASE_RULES
    assert BASE_RULES.corner_limit is ruleset.base_corner_limit
    assert BASE_RULES.shift_cost is ruleset.base_shift_cost
    assert race.state.copy().rules is race.state.rules  # shared like the track
    assert build_rules(None, {}) is build_rules([], {}) is BASE_RULES


def test_9_3_base_corner_cost_is_speed_over_the_printed_limit() -> None:
    # 9.1, 9.3: speed 5 over the corners after 10 (limit 4) and 13 (limit 3): 1 + 2 Heat.
    race = board({"A": {"at": 25, "hand": "0123412"}, "B": {"at": 9, "gear": 2, "hand": "3212341"}})
    race.round(A=(1, "0"), B=(2, "32"))
    race.turns_until("B").go_on()
    assert checks(race.turn) == [(10, 4, 5, 1), (13, 3, 5, 2)]


def test_plain_names_the_points_still_their_base_function(with_mist: None) -> None:
    """``Rules.plain``: the step machine skips a point named there whose base does nothing (a base race pays for
    no module), so it holds exactly the points no module changed."""
    from heatlog.formats.module_data import weather_module

    points = {f.name for f in dataclasses.fields(Rules) if f.init and callable(getattr(BASE_RULES, f.name))}
    assert len(points) >= 30 and BASE_RULES.plain == points
    assert build_rules(["mist"], {"mist": {"by": 1}}).plain == points - {"corner_limit"}
    weather = build_rules(["weather"], {"weather": weather_module()}).plain
    assert {"corner_limit", "corner_cost", "boost_cost", "cooldown_block", "cooldown_bonus"}.isdisjoint(weather)
    assert "shift_cost" in weather and "after_corners" in weather
    for rules in (BASE_RULES, build_rules(["mist"], {"mist": {"by": 1}})):  # the same answer, one flag per point
        assert {name for name in points if getattr(rules.unchanged, name)} == rules.plain
        assert rules.react_plain == ({"cooldown_block", "cooldown_bonus", "boost_cost"} <= rules.plain)
        assert rules.waits_plain == ({"step3_due", "react_due", "hand_size"} <= rules.plain)
    assert not build_rules(["weather"], {"weather": weather_module()}).react_plain


def test_a_do_nothing_point_a_module_changes_is_called() -> None:
    """A module that gives a point the base leaves empty (here after_corners, the end of step 7) is called there:
    skipping the base function never skips a module's."""
    seen: list[tuple[str, int]] = []

    def watch(rules: Rules, options: Any) -> Rules:
        def after_corners(state: Any, car: Any, turn: Any) -> None:
            seen.append((car.name, len(turn.corners)))

        return dataclasses.replace(rules, after_corners=after_corners)

    register_module("watch", watch)
    try:
        race = board({"A": {"at": 25, "hand": "0123412"}, "B": {"at": 9, "gear": 2, "hand": "3212341"}})
        race.state.rules = build_rules(["watch"], {})
        assert "after_corners" not in race.state.rules.plain
        race.round(A=(1, "0"), B=(2, "32"))
        race.turns_until("B").go_on()
    finally:
        del MODULES["watch"]
    assert seen == [("A", 0), ("B", 2)]  # # 9.1: B crossed the corners after 10 and 13


# ---------------------------------------------------------------------------------------------- the worked example


def test_mist_raises_every_corner_limit(with_mist: None) -> None:
    """The same turn as above in the mist (+1): limits 5 and 4, so 0 + 1 Heat; the check records the limit used."""
    race = board({"A": {"at": 25, "hand": "0123412"}, "B": {"at": 9, "gear": 2, "hand": "3212341"}})
    race.state.rules = build_rules(["mist"], {"mist": {"by": 1}})
    race.round(A=(1, "0"), B=(2, "32"))
    race.turns_until("B").go_on()
    assert checks(race.turn) == [(10, 5, 5, 0), (13, 4, 5, 1)]
    assert race.car("B").engine == 5


def test_a_race_names_its_modules_in_race_started(with_mist: None) -> None:
    """The configuration is part of the log: race_started lists the modules and holds each one's options."""
    start = ev(
        "race_started",
        track=TRACK,
        laps=1,
        cars=[{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}],
        modules=["mist"],
        mist={"by": 2},
    )
    state = apply(None, start)
    assert state.rules.modules == ("mist",) and state.rules.options == {"mist": {"by": 2}}
    corner = state.track.corners[0]
    assert state.rules.corner_limit(state, None, None, corner) == corner.limit + 2
    assert state.rules.shift_cost is ruleset.base_shift_cost  # the points it does not touch stay the base


def test_modules_compose_in_the_order_listed(with_mist: None) -> None:
    register_module("drizzle", mist)
    try:
        rules = build_rules(["mist", "drizzle"], {"mist": {"by": 1}, "drizzle": {"by": 2}})
    finally:
        del MODULES["drizzle"]
    corner = board({"A": {"at": 25}, "B": {"at": 9}}).state.track.corners[0]
    assert rules.corner_limit(None, None, None, corner) == corner.limit + 3


def test_an_unknown_module_or_bad_options_are_refused_before_the_race_exists(with_mist: None) -> None:
    cars = [{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}]
    with pytest.raises(MalformedInput, match="unknown module 'snow'"):
        apply(None, ev("race_started", track=TRACK, cars=cars, modules=["snow"]))
    with pytest.raises(MalformedInput, match="mist: by must be 1, 2 or 3"):
        apply(None, ev("race_started", track=TRACK, cars=cars, modules=["mist"], mist={"by": 9}))
    with pytest.raises(ValueError, match="registered twice"):
        register_module("mist", mist)


def test_set_up_phases_come_from_the_rules() -> None:
    assert BASE_RULES.phase_after("grid") == "deal" and BASE_RULES.phase_after("deal") == "race"
    garage = dataclasses.replace(BASE_RULES, setup_phases=("grid", "garage", "deal"))
    assert garage.phase_after("grid") == "garage" and garage.phase_after("garage") == "deal"


def test_20_8_weather_is_points_and_composes_with_another_module(with_mist: None) -> None:
    """The weather module changes the base rules only through Rules points (issue 15): its corner token and the
    mist's +1 add up at the same point, in the order the race lists them; the points it does not need stay the
    base functions."""
    from heatlog.formats.module_data import weather_module

    rules = build_rules(["weather", "mist"], {"weather": weather_module(), "mist": {"by": 1}})
    assert rules.setup_phases == ("grid", "weather", "deal")
    assert rules.shift_cost is ruleset.base_shift_cost and rules.can_discard is ruleset.base_can_discard
    for point in ("corner_limit", "corner_cost", "boost_cost", "cooldown_block", "cooldown_bonus"):
        assert getattr(rules, point) is not getattr(BASE_RULES, point), point
    race = board({"A": {"at": 25}, "B": {"at": 9}})
    state = race.state
    corner = state.track.corners[0]
    assert rules.corner_limit(state, None, None, corner) == corner.limit + 1  # no conditions drawn: mist only


def test_19_6_a_legend_turn_is_a_kind_of_turn_of_the_rules() -> None:
    """The Legends module gives a Legend car the turn kind "legend", run by the Rules' ``turns`` (issue 15):
    the base step machine starts a player's turn and never asks whether a car is a Legend."""
    rules = build_rules(["legends"], {"legends": None})
    car = dataclasses.make_dataclass("C", [("legend", bool)])
    assert rules.turn_kind(None, car(True)) == "legend" and "legend" in rules.turns  # type: ignore[arg-type]
    assert rules.turn_kind(None, car(False)) == "player"  # type: ignore[arg-type]
    assert BASE_RULES.turn_kind(None, car(True)) == "player" and BASE_RULES.turns == {}  # type: ignore[arg-type]
