"""Variants: the one-lap learning race and the experienced-driver handicap (# 17.x)."""

from __future__ import annotations

from collections import Counter

import pytest

from heatlog.engine import MalformedInput, slipstream_status

from .conftest import PARKED, board, race_started, start_race, usa


def test_17_1_one_lap_race_has_exactly_one_lap():
    # 17.1
    with pytest.raises(MalformedInput) as info:
        race_started(track=usa(), laps=2, variant="one-lap")
    assert "17.1" in str(info.value)
    race = start_race(track=usa(), laps=1, variant="one-lap")
    assert race.state.laps == 1 and race.state.final_line == 69


def test_17_1_same_decks_six_engine_heat_three_stress():
    # 17.1
    race = start_race(track=usa(), laps=1, variant="one-lap")
    for car in race.state.cars.values():
        assert car.engine == 6 and car.pool["S"] == 3 and car.pool["H"] == 1 and sum(car.pool.values()) == 18


def test_17_1_first_crossing_is_the_final_finish():
    # 17.1, 16.1: on USA the first crossing ends the race for that car.
    race = board({"A": {"at": 66, "hand": "4123412"}, "B": {"at": 40, "hand": PARKED}}, track=usa(), variant="one-lap")
    race.round(A=(1, "4"), B=(1, "0"))
    race.refill().refill()
    assert race.state.hall_of_fame == ["A"]


def test_17_1_no_slipstream_across_the_line_pre_finish_corners_paid():
    # 17.1, 8.6, 16.3: USA corner after 57 (limit 2) is paid on the finishing turn; no slipstream across.
    race = board(
        {"C": {"at": 69, "hand": PARKED}, "A": {"at": 56, "gear": 2, "hand": "4412312"}, "B": {"at": 40}},
        track=usa(),
        variant="one-lap",
    )
    race.round(C=(1, "0"), A=(2, "44"), B=(1, "1"))
    race.turns_until("A")
    assert race.at("A")[0] == 64
    race.go_on()
    assert [(c.after_space, c.cost) for c in race.turn.corners] == [(57, 6)]
    race = board(
        {"C": {"at": 69, "hand": PARKED}, "A": {"at": 64, "hand": "4123412"}, "B": {"at": 40}},
        track=usa(),
        variant="one-lap",
    )
    race.round(C=(1, "0"), A=(1, "4"), B=(1, "1"))
    race.turns_until("A")
    assert race.at("A")[0] == 68 and not slipstream_status(race.state, race.car("A"))[0]


def test_17_2_handicap_starts_with_five_engine_heat_same_deck():
    # 17.2: the designated driver has 5 Heat on the Engine; the 18-card deck with the Heat upgrade is unchanged.
    race = start_race(["A", "B"], handicap=["A"])
    a, b = race.car("A"), race.car("B")
    assert a.engine == 5 and b.engine == 6 and a.handicap and not b.handicap
    full = Counter({"1": 3, "2": 3, "3": 3, "4": 3, "0": 1, "5": 1, "H": 1, "S": 3})
    assert Counter({c: n for c, n in a.pool.items() if n}) == full
    assert sum(a.pool.values()) + a.engine == 23


def test_17_2_handicap_declared_at_race_start_for_known_cars():
    # 17.2: declared with the race (before the grid); unknown names are refused.
    with pytest.raises(MalformedInput) as info:
        race_started(handicap=["Zed"])
    assert "17.2" in str(info.value)
    race = race_started(handicap=["B"])
    assert race.state.phase == "grid" and race.car("B").engine == 5


def test_17_2_handicap_changes_nothing_else():
    # 17.2: the handicapped car plays a normal turn (a two-gear shift pays 1 Heat as usual); only the Engine
    # count differs.
    race = start_race(["A", "B"], handicap=["A"])
    race.round(A=(3, "123"), B=(3, "123"))
    race.refill().refill()
    assert race.at("A") == (6, 1) and race.at("B") == (6, 2)
    assert race.car("A").engine == 4 and race.car("B").engine == 5
