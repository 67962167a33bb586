"""The weather and Legends races' per-race shortcuts (issue 32) answer exactly what the long way answers: a module's
rules read once per distinct data (``module.read_once``), type for type, a refusal never kept; the Legend rules'
table of a track built once per Track object; the heuristic's stretch keys with the cost tables' numbers kept
per plan."""

from __future__ import annotations

import copy

import pytest

from heatlog.engine.module import copy_data, read_once
from heatlog.engine.modules.legends.rules import LegendRules, legend_move
from heatlog.engine.modules.weather import conditions_of
from heatlog.engine.modules.weather.rules import WeatherRules, sector_at
from heatlog.formats.module_data import legend_colours, legend_data, legends_module, weather_module
from heatlog.simulate import simulate_race
from tests.rules.modules.helpers import legend_cars


def test_the_same_data_is_read_once_into_one_rules_object() -> None:
    # # 19.4, 20.1: the rules of a block are immutable; every race on the same deck shares them
    legends, weather = legends_module(), weather_module()
    assert LegendRules.from_dict(legends) is LegendRules.from_dict(copy.deepcopy(legends))
    assert WeatherRules.from_dict(weather) is WeatherRules.from_dict(copy.deepcopy(weather))
    # what they read is the long way's
    kept = LegendRules.from_dict(legends)
    fresh = LegendRules.from_dict(dict(reversed(list(copy.deepcopy(legends).items()))))  # other text: read anew
    assert fresh is not kept
    assert [(c.id, dict(c.by_colour)) for c in kept.cards] == [(c.id, dict(c.by_colour)) for c in fresh.cards]
    assert (kept.colours, kept.pro, kept.aggressive) == (fresh.colours, fresh.pro, fresh.aggressive)
    assert kept.data == fresh.data
    other = LegendRules.from_dict({**legends, "pro": 2})
    assert other is not kept and other.pro == 2


def test_data_that_differs_in_type_only_is_read_again_and_refused() -> None:
    legends = legends_module(pro=1)
    assert LegendRules.from_dict(legends).pro == 1
    with pytest.raises(ValueError, match="19.15"):  # True == 1 in Python: the key must tell them apart
        LegendRules.from_dict({**legends, "pro": True})
    with pytest.raises(ValueError, match="19.14"):
        LegendRules.from_dict({**legends, "aggressive": 0})
    weather = weather_module()
    WeatherRules.from_dict(weather)
    # a tuple of the same tiles is other data (equal by a key of values alone): read again, kept as it came
    assert isinstance(WeatherRules.from_dict({**weather, "tiles": tuple(weather["tiles"])}).data["tiles"], tuple)


def test_a_refusal_is_never_kept() -> None:
    calls: list[object] = []

    def read(data: object) -> object:
        calls.append(data)
        raise ValueError("no")

    for _ in range(2):
        with pytest.raises(ValueError):
            read_once(read, {"a": 1})
    assert len(calls) == 2
    # what is not a dict (hostile: a list, a deep nest) is read each time, never crashes
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert read_once(len, {"x": deep}) == 1
    assert read_once(len, [1, 2]) == 2


def test_the_legend_colours_are_the_decks_without_a_copy() -> None:
    assert legend_colours() == tuple(legend_data()["colours"])
    assert [c["colour"] for c in legend_cars(2, taken=[legend_colours()[0]])] == list(legend_colours()[1:3])


def test_the_legend_track_table_follows_the_track_object() -> None:
    # two Track objects of the same circuit (equal content) give the same moves (# 19.7, 19.8)
    a = simulate_race(None, track="usa", cars=4, seed=3, modules={"legends": {"cars": 2}})[2].track
    b = simulate_race(None, track="usa", cars=4, seed=4, modules={"legends": {"cars": 2}})[2].track
    entry = LegendRules.from_dict(legends_module()).cards[0].by_colour[legend_colours()[0]]
    for p in range(0, 2 * a.spaces):
        assert legend_move(a, p, entry, final_line=2 * a.spaces) == legend_move(b, p, entry, final_line=2 * b.spaces)


def test_copy_data_is_a_deep_copy_of_json_data() -> None:
    cards = legend_data()["cards"]
    copied = copy_data(cards)
    assert copied == cards and type(copied) is list
    copied[0]["by_colour"][legend_colours()[0]]["helmet"] = 99  # nothing shared with the original
    assert cards[0]["by_colour"][legend_colours()[0]]["helmet"] != 99
    odd = {"t": (1, [2]), "n": None, "b": True, "f": 1.5}  # not JSON: the tuple as copy.deepcopy copies it
    assert copy_data(odd) == copy.deepcopy(odd) and copy_data(odd)["t"][1] is not odd["t"][1]


def test_sector_at_reads_the_space_of_any_progress() -> None:
    # # 20.6, 20.7: the sector of the space the car is on, whatever the lap (or the grid, behind the line)
    state = simulate_race(None, track="usa", cars=4, seed=5, modules={"weather": {}})[2]
    cond = conditions_of(state)
    assert cond is not None
    for p in range(-2 * state.track.spaces, 3 * state.track.spaces):
        assert sector_at(state, p) is cond.by_space[state.track.space_of(p)]
