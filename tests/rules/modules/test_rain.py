"""rain, heatlog's own example module (engine/modules/rain/; not a rule of Heat): the docs' worked example as a
registered module. Its set-up draw, its one effect (every corner's limit + the sky's number), its refusals, and
that a race that does not list it is the base race."""

from __future__ import annotations

from typing import Any

import pytest

from heatlog.engine import IllegalEvent, MalformedInput, apply, state_from_position, state_to_position, waiting_for
from heatlog.engine.modules.rain import Rain
from heatlog.engine.ruleset import BASE_RULES, build_rules
from heatlog.formats.module_data import module_block
from heatlog.formats.tracks import load_track_data

from ..conftest import board, ev

SKIES = {"dry": 0, "wet": 1}


def started(**more: Any) -> Any:
    cars = [{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}]
    s = apply(None, ev("race_started", track=load_track_data("usa"), laps=1, cars=cars, mode="open", **more))
    return apply(s, ev("grid_set", order=["A", "B"]))


def checks(turn: Any) -> list[tuple[int, int, int, int]]:
    return [(c.after_space, c.limit, c.speed, c.cost) for c in turn.corners]


def test_the_sky_is_drawn_after_the_grid_before_the_decks() -> None:
    s = started(modules=["rain"], rain=module_block("rain"))
    assert module_block("rain") == {"skies": SKIES}  # the data file
    w = waiting_for(s)
    assert (s.phase, w.due, w.chance, w.cars) == ("rain", "rain_drawn", True, [])
    assert "the sky" in w.text
    with pytest.raises(IllegalEvent, match="the starting shuffle happens at set-up"):
        apply(s.copy(), ev("deck_shuffled", car="A"))
    with pytest.raises(MalformedInput, match="there is no sky 'hail'"):
        apply(s, ev("rain_drawn", sky="hail"))
    apply(s, ev("rain_drawn", sky="wet"))
    assert s.phase == "deal" and s.modules["rain"] == Rain(SKIES, "wet")
    with pytest.raises(IllegalEvent, match="the sky is drawn once"):
        apply(s, ev("rain_drawn", sky="dry"))


def test_a_wet_sky_raises_every_corner_limit() -> None:
    """9.3 with the example's effect: speed 5 over the corners after 10 (limit 4) and 13 (limit 3) costs 1 + 2
    Heat in a base race; under a wet sky (+1) the limits are 5 and 4: 0 + 1 Heat, and each check records it."""
    race = board({"A": {"at": 25, "hand": "0123412"}, "B": {"at": 9, "gear": 2, "hand": "3212341"}})
    race.state.rules = build_rules(["rain"], {"rain": {"skies": SKIES}})
    race.state.modules["rain"] = Rain(SKIES, "wet")
    race.round(A=(1, "0"), B=(2, "32"))
    race.turns_until("B").go_on()
    assert checks(race.turn) == [(10, 5, 5, 0), (13, 4, 5, 1)]
    assert race.car("B").engine == 5


def test_a_dry_sky_and_a_race_without_the_module_are_the_base_race() -> None:
    race = board({"A": {"at": 25, "hand": "0123412"}, "B": {"at": 9, "gear": 2, "hand": "3212341"}})
    assert race.state.rules is BASE_RULES and race.state.modules == {}
    race.state.rules = build_rules(["rain"], {"rain": {"skies": SKIES}})
    race.state.modules["rain"] = Rain(SKIES, "dry")
    race.round(A=(1, "0"), B=(2, "32"))
    race.turns_until("B").go_on()
    assert checks(race.turn) == [(10, 4, 5, 1), (13, 3, 5, 2)]
    assert started().rules is BASE_RULES  # off unless a race lists it


@pytest.mark.parametrize(
    ("block", "words"),
    [
        (None, "skies must name at least one sky"),
        ({"skies": {}}, "skies must name at least one sky"),
        ({"skies": {"wet": 4}}, "must add 0 to 3"),
        ({"skies": {"wet": True}}, "must add 0 to 3"),
    ],
)
def test_bad_options_are_refused_before_the_race_exists(block: Any, words: str) -> None:
    with pytest.raises(MalformedInput, match=words):
        started(modules=["rain"], rain=block)


def test_the_position_carries_the_sky() -> None:
    s = started(modules=["rain"], rain={"skies": SKIES})
    apply(s, ev("rain_drawn", sky="wet"))
    pos = state_to_position(s)
    assert pos["modules"] == {"rain": {"skies": SKIES, "sky": "wet"}}
    back = state_from_position(pos)
    assert back.modules["rain"] == Rain(SKIES, "wet") and back.rules.modules == ("rain",)
    assert state_to_position(back) == pos
    pos["modules"]["rain"]["sky"] = "hail"
    with pytest.raises(MalformedInput, match="not one of the skies"):
        state_from_position(pos)
