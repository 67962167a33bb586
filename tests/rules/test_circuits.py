"""Expansion circuit features and circuit values (MODULES.md section 22), on the built-in circuits."""

from __future__ import annotations

from collections import Counter

from heatlog.tracks import load_track_data

from .conftest import race_started


def test_22_9_heat_and_stress_come_from_the_circuit() -> None:
    """Japan: 7 Heat on the Engine; Mexico: 2 Stress in the deck; the base circuits: 6 and 3 (# 1.2)."""
    japan = race_started(track=load_track_data("japan")).ev("grid_set", order=["A", "B"])
    assert [japan.car(n).engine for n in "AB"] == [7, 7]
    assert japan.car("A").pool["S"] == 3 and japan.car("A").deck_size == 18
    mexico = race_started(track=load_track_data("mexico")).ev("grid_set", order=["A", "B"])
    assert mexico.car("A").engine == 6
    assert Counter(mexico.car("A").pool) == Counter({"1": 3, "2": 3, "3": 3, "4": 3, "0": 1, "5": 1, "H": 1, "S": 2})
    assert mexico.car("A").deck_size == 17
    usa = race_started(track=load_track_data("usa")).ev("grid_set", order=["A", "B"])
    assert usa.car("A").engine == 6 and usa.car("A").pool["S"] == 3


def test_22_9_laps_come_from_the_circuit() -> None:
    """With no laps given, a race runs the circuit's laps (Spain 1, Mexico 3)."""
    from heatlog.engine import apply

    for track_id, laps in (("spain", 1), ("mexico", 3), ("netherlands", 3), ("japan", 2)):
        data = load_track_data(track_id)
        state = apply(
            None,
            {
                "type": "race_started",
                "v": 1,
                "track": data,
                "cars": [{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}],
                "variant": "standard",
                "handicap": [],
                "mode": "open",
            },
        )
        assert state.laps == laps, track_id


def test_17_2_22_9_handicap_is_one_heat_fewer_than_the_circuit() -> None:
    japan = race_started(track=load_track_data("japan"), handicap=["A"]).ev("grid_set", order=["A", "B"])
    assert (japan.car("A").engine, japan.car("B").engine) == (6, 7)
