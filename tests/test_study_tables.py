"""The ``decisions`` rows made column by column (issue 31: the corpus writer's hot path) are the rows of
:func:`decision_row`, event by event: for the decisions of simulated races of every module and for events of odd
shapes (a main field null or of another type, both ``card`` and ``cards``, fields beyond the columns). A car's
``car_races`` values made straight from its figures are ``flat_row(to_dict())``'s (``stats --csv``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heatlog.engine.events import REGISTRY
from heatlog.simulate import simulate_race
from heatlog.stats.facts import collect
from heatlog.stats.summary import CAR_FLAT_KEYS, CarStats, Tally, flat_row, race_stats
from heatlog.study.tables import CAR_COLUMNS, decision_row, decision_rows

REPLAYS = Path(__file__).resolve().parent.parent / "replays"

ODD: list[dict[str, Any]] = [
    {"type": "gear_chosen", "v": 1, "car": "Red", "gear": None},
    {"type": "gear_chosen", "car": "Red", "gear": "3"},
    {"type": "gear_chosen", "v": 1, "car": "Red", "gear": True},
    {"type": "cards_played", "v": 1, "car": "Red", "cards": ["1", 2, None]},
    {"type": "cards_played", "v": 1, "car": "Red", "cards": "1 2"},
    {"type": "cards_played", "v": 1, "car": "Red", "cards": ["1"], "card": "U1"},
    {"type": "cards_played", "v": 1, "car": "Red", "cards": None, "card": 7},
    {"type": "slipstream", "v": 1, "car": "Red", "taken": 1, "spaces": 3},
    {"type": "cooldown", "v": 1, "car": "Red", "count": True, "cards": ["U2"]},
    {"type": "adrenaline", "v": 1, "car": "Red", "bonus": "mové", "z": [1, {"b": 2, "a": None}]},
    {"type": "boost", "car": None},
    {"type": "cards_discarded"},
]


def test_columns_make_the_rows_of_decision_row() -> None:
    events: list[dict[str, Any]] = []
    for modules in ({}, {"weather": {}}, {"legends": {"cars": 2}}, {"garage": {"upgrades": "all", "draft": "snake"}}):
        events += simulate_race(None, track="usa", cars=4, seed=5, bots="random", modules=modules)[1]
    decisions = [e for e in events if e["type"] in REGISTRY and not REGISTRY[e["type"]].chance] + ODD
    noted = [(i, i // 7, e) for i, e in enumerate(decisions)]
    assert decision_rows(12, noted) == [decision_row(12, i, r, e) for i, r, e in noted]
    # each column's shortcut (all of its type, all cards text) and its fallback, alone and beside plain events
    plain = noted[: -len(ODD)]
    for odd in [[], *([x] for x in noted[-len(ODD) :])]:
        for part in (odd, plain[:9] + odd, odd + plain[9:]):
            if part:
                assert decision_rows(12, part) == [decision_row(12, i, r, e) for i, r, e in part]
    assert decision_rows(12, []) == []
    assert any(row[-1] is not None for row in decision_rows(12, noted))  # some carry a detail


def test_a_remembered_detail_is_the_json_of_its_own_event() -> None:
    """The ``detail`` text is remembered per shape of plain fields (issue 31): equal values of other types (1 and
    True, 0.0 and -0.0) keep their own JSON, whatever came first."""
    import json

    events = [
        {"type": "adrenaline", "v": 1, "car": "Red", "bonus": value}
        for value in (1, True, 1, True, 0.0, -0.0, 0.0, "1", None, [1], [1], {"a": 1})
    ]
    for ev in events * 2:
        detail = decision_row(1, 0, 1, ev)[-1]
        assert detail == json.dumps({"bonus": ev["bonus"]}, separators=(",", ":"), ensure_ascii=False)
        assert decision_rows(1, [(0, 1, ev)])[0][-1] == detail


def test_docs_list_the_modules_columns_from_their_declarations() -> None:
    """# 18.10, 20.2, 19.1: docs/study.md's table of the modules' columns is made from Module.race_columns and
    Module.turn_columns (issue 26), and the tables hold those columns where the declarations put them."""
    from pathlib import Path

    from heatlog.engine.module import MODULES
    from heatlog.stats.facts import TURN_COLUMNS
    from heatlog.study.tables import RACE_COLUMNS, module_columns_doc

    doc = (Path(__file__).resolve().parent.parent / "docs" / "study.md").read_text(encoding="utf-8")
    assert module_columns_doc() in doc
    for m in MODULES.values():
        for c in m.race_columns:
            assert c.name in RACE_COLUMNS
            assert list(RACE_COLUMNS).index(c.name) > list(RACE_COLUMNS).index(m.race_after)
        for c in m.turn_columns:
            assert TURN_COLUMNS.index(c.name) > TURN_COLUMNS.index("led")


def _car_values_are_flat_rows(cars: list[CarStats]) -> None:
    for car in cars:
        flat = flat_row(car.to_dict())
        assert tuple(flat) == CAR_FLAT_KEYS
        values = car.flat_values()
        assert values == tuple(flat.values())
        assert [type(v) for v in values] == [type(v) for v in flat.values()]  # (1 is not True, 2 is not 2.0)


@pytest.mark.parametrize("replay", sorted(p.name for p in REPLAYS.glob("*.jsonl")))
def test_a_cars_flat_values_are_its_flat_row_in_every_replay(replay: str) -> None:
    """Issue 31: the corpus's car rows come from ``CarStats.flat_values``, not the nested dict flattened: the same
    values for the replays of every module (weather, Legends — # 19.1, their figures None —, the Garage's
    upgrades' Heat, # 18.6) and table mode (hidden draws: ``stress_drawn`` None, # 1.7)."""
    events = [json.loads(line) for line in (REPLAYS / replay).read_text(encoding="utf-8").splitlines() if line]
    _car_values_are_flat_rows(race_stats(collect(events)).cars)


def test_a_cars_flat_values_are_its_flat_row_for_odd_figures() -> None:
    """A car without a turn, a race cut short, gears a row has no column for (# 3.1: 1 to 4), a gear whose turns
    were all cluttered (no mean, # 13.2), boosts of equal values and a mean with a remainder."""
    odd = Tally(turns=3, stress_drawn=None, boosts=3, boost_values=[4, 1, 1])
    odd.speed_by_gear = {2: [7, 3], 5: [9, 1], 0: [2, 1], 3: [0, 0], True: [4, 1]}
    odd.rounds_in_gear = {2: 3, 7: 1}
    cars = [
        CarStats("Red", "red", 1, False, None, Tally()),
        CarStats("Blue", "blue", 2, True, 9, odd, start_position=2, engine_left=0),
        CarStats("Grey", "grey", 3, False, None, Tally(legend=True, turns=4, spaces=30, rounds_led=1)),
    ]
    _car_values_are_flat_rows(cars)
    for seed in (1, 2):
        _, events, _ = simulate_race(
            None, track="japan", cars=3, seed=seed, bots="random", modules={"legends": {"cars": 1}, "weather": {}}
        )
        _car_values_are_flat_rows(race_stats(collect(events[: len(events) // 2])).cars)  # under way
    assert list(CAR_COLUMNS)[2 : 2 + len(CAR_FLAT_KEYS)] == list(CAR_FLAT_KEYS)
