"""The weather module's data and effect tables as pure functions (# 20.1–20.6, 20.8, 20.13, 22.2, MA19)."""

from __future__ import annotations

import pytest

from heatlog.engine.modules.weather.rules import (
    StartEffect,
    WeatherRules,
    build_conditions,
    check_tokens,
    corner_cost,
    corner_groups,
    start_heat,
)
from heatlog.formats.module_data import weather_module
from heatlog.formats.tracks import load_track

RULES = WeatherRules.from_dict(weather_module())
USA = load_track("usa")
NED = load_track("netherlands")
ESP = load_track("spain")


def test_20_1_six_tiles_and_twelve_tokens():
    assert list(RULES.tiles) == ["cloud", "fog", "storm", "snow", "rain", "sun"]
    assert sum(t.copies for t in RULES.tokens.values()) == 12
    assert {t.id: t.kind for t in RULES.tokens.values()} == {
        "weather": "sector",
        "overheat": "corner",
        "limit-1": "corner",
        "limit+1": "corner",
        "heat-control": "sector",
        "slipstream+1": "sector",
    }


def test_20_3_20_5_tile_effects_as_the_digest_tables():
    t = RULES.tiles
    assert t["cloud"].start == StartEffect(stress=-1) and t["cloud"].sector.no_cooldown
    assert t["fog"].start == StartEffect(engine=1) and t["fog"].sector.no_slipstream
    assert t["storm"].start == StartEffect(stress=1) and t["storm"].sector.slipstream == 2
    assert t["snow"].start == StartEffect(engine=-1) and t["snow"].sector.cooling == 1
    assert t["rain"].start == StartEffect(engine_to_deck=3) and t["rain"].sector.cooling == 1
    assert t["sun"].start == StartEffect(engine_to_discard=3) and t["sun"].sector.slipstream == 2


def test_20_3_start_heat_never_moves_more_than_the_engine_holds():
    assert start_heat(RULES.tiles["rain"].start, 6) == (3, 3, 0)
    assert start_heat(RULES.tiles["sun"].start, 6) == (3, 0, 3)
    assert start_heat(RULES.tiles["snow"].start, 5) == (4, 0, 0)  # handicapped driver (# 17.2)
    assert start_heat(RULES.tiles["fog"].start, 6) == (7, 0, 0)
    assert start_heat(StartEffect(engine_to_discard=3), 2) == (0, 0, 2)


def test_20_2_22_2_a_chicane_is_one_corner():
    assert corner_groups(USA) == [(0,), (1,), (2,), (3,)]
    assert corner_groups(NED) == [(0, 1), (2,), (3,), (4,)]
    assert len(corner_groups(ESP)) == 9


def test_20_2_MC8_one_token_per_corner_at_most_two_of_a_kind():
    assert check_tokens(USA, RULES, ["weather", "overheat", "limit+1", "heat-control"]) is None
    assert "4 corners" in (check_tokens(USA, RULES, ["weather"]) or "")
    assert "only 2" in (check_tokens(USA, RULES, ["weather"] * 3 + ["overheat"]) or "")
    assert "no road-condition token" in (check_tokens(USA, RULES, ["weather", "x", "overheat", "weather"]) or "")


def test_20_6_sectors_run_from_a_corner_line_to_the_next_wrapping_through_the_finish():
    cond = build_conditions(USA, RULES, "storm", ["slipstream+1", "weather", "overheat", "heat-control"])
    # Corner 1's sector is 13..33, corner 2's 34..49, corner 3 carries a corner token, corner 4's 58..12.
    assert cond.by_space[13].slipstream == 1 and cond.by_space[33].slipstream == 1
    assert cond.by_space[34].slipstream == 2 and cond.by_space[49].token == "weather"  # Storm: slipstream +2
    assert cond.by_space[50].active is False and cond.by_space[57].active is False
    assert cond.by_space[58].free_boost and cond.by_space[69].free_boost and cond.by_space[12].free_boost
    assert cond.sector(USA, -3).free_boost  # a grid spot (space 66) is in the last sector
    assert cond.by_line[2].overheat == 1 and cond.by_line[0].overheat == 0


def test_20_8_22_2_a_corner_token_modifies_both_lines_of_a_chicane():
    cond = build_conditions(NED, RULES, "sun", ["limit-1", "weather", "weather", "limit+1"])
    assert [cond.limit(NED, i) for i in range(5)] == [4, 4, 3, 8, 5]


def test_22_2_a_sector_token_on_a_chicane_lies_after_its_second_line():
    cond = build_conditions(NED, RULES, "snow", ["weather", "overheat", "overheat", "limit+1"])
    assert [cond.by_space[s].cooling for s in (10, 13, 14, 16, 17)] == [0, 0, 1, 1, 0]
    assert cond.sector_of_space[10] == 0 and cond.sector_of_space[14] == 1


def test_20_13_MA19_corner_cost_with_overheat():
    assert corner_cost(7, 5, 1) == 3
    assert corner_cost(5, 5, 1) == 0  # MA19: exactly at the limit: no extra Heat
    assert corner_cost(4, 5, 1) == 0
    assert corner_cost(6, 5, 0) == 1
    assert corner_cost(3, -1, 0) == 4  # a limit may drop below 0 (no floor)


@pytest.mark.parametrize(
    "bad",
    [
        {"tiles": []},
        {"tokens": [{"id": "x", "kind": "middle", "copies": 2, "effect": {}}]},
        {"tiles": [{"id": "x", "name": "X", "start": {}, "sector": {"wind": 1}}]},
    ],
)
def test_20_1_bad_weather_data_is_named(bad):
    with pytest.raises(ValueError):
        WeatherRules.from_dict({**weather_module(), **bad})
