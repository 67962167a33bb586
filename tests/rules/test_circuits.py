"""Expansion circuit features and circuit values (MODULES.md section 22), on the built-in circuits."""

from __future__ import annotations

from collections import Counter

from heatlog.formats.tracks import load_track, load_track_data

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


# ---------------------------------------------------------------------------------------------- the feature rules


def test_22_4_flooded_downshift_surcharge() -> None:
    """One gear down from a flooded space costs 1 Heat, two gears 2 (# 3.2, 3.3 plus 1); up or staying as
    usual; the car's space at the start of the round counts (MA16)."""
    from heatlog.engine.modules.circuits import shift_heat

    japan = load_track("japan")
    assert japan.is_flooded(8)
    assert [shift_heat(japan, 8, 3, g) for g in (1, 2, 3, 4)] == [2, 1, 0, 0]
    assert [shift_heat(japan, 8, 2, g) for g in (1, 2, 3, 4)] == [1, 0, 0, 1]
    assert [shift_heat(japan, 12, 3, g) for g in (1, 2, 3, 4)] == [1, 0, 0, 0]  # space 12 is dry
    assert shift_heat(japan, 60 + 40, 4, 2) == 2  # second lap, space 40 is flooded
    assert shift_heat(japan, 0, 2, 1) == 0  # the grid is dry


def test_22_5_a_cluttered_hand_still_pays_the_surcharge() -> None:
    # the surcharge depends on the shift alone, never on the hand (3.5: a cluttered car may still shift)
    from heatlog.engine.modules.circuits import flooded_surcharge

    assert flooded_surcharge(load_track("japan"), 40, 4, 3) == 1


def test_22_6_21_13_no_discard_on_a_tunnel_space() -> None:
    from heatlog.engine.modules.circuits import may_discard

    spain = load_track("spain")
    assert not may_discard(spain, 17) and not may_discard(spain, 88)
    assert may_discard(spain, 16) and may_discard(spain, 89)
    assert all(may_discard(load_track(t), p) for t in ("usa", "japan") for p in range(1, 60))


def test_22_1_22_3_chicane_lines_and_press_letters() -> None:
    from heatlog.engine.modules.circuits import chicane_of, press_corner

    japan = load_track("japan")
    chicane = chicane_of(japan, 10)
    assert chicane is not None and chicane == chicane_of(japan, 12)
    assert (chicane.first.after_space, chicane.second.after_space, chicane.spaces) == (10, 12, (11, 12))
    assert chicane_of(japan, 18) is None
    assert press_corner(japan, "A") is not None and press_corner(japan, "A").after_space == 12  # type: ignore[union-attr]
    assert press_corner(load_track("italy"), "E").after_space == 19  # type: ignore[union-attr]  # wraps


# ---------------------------------------------------------------------------------------------- in the engine


def _japan() -> dict:
    return load_track_data("japan")


def test_22_4_MA16_the_engine_charges_the_flooded_surcharge() -> None:
    from heatlog.engine.decide import legal_gears

    from .conftest import board

    # A starts the round on flooded space 8, B on dry space 13; both in gear 3 with 1 Heat on the Engine
    race = board({"A": {"at": 8, "gear": 3, "engine": 1}, "B": {"at": 13, "gear": 3, "engine": 1}}, track=_japan())
    assert legal_gears(race.state, race.car("A")) == [2, 3, 4]  # two down would cost 2 (# 3.3 + 22.4)
    assert legal_gears(race.state, race.car("B")) == [1, 2, 3, 4]
    race.reject("gear_chosen", car="A", gear=1, rule="22.4")
    race.gears(A=2, B=1)
    assert (race.car("A").engine, race.car("B").engine) == (0, 0)  # A: 0 + 1 flooded; B: 1 for two gears
    race.play(A="12", B="1")
    race.turns_until("A")  # B leads (space 13): its turn first
    assert race.turn.car == "A" and race.turn.shift_heat == 1


def test_22_4_shifting_up_or_staying_on_a_flooded_space_is_as_usual() -> None:
    from .conftest import board

    race = board({"A": {"at": 8, "gear": 2, "engine": 1}, "B": {"at": 40, "gear": 2, "engine": 1}}, track=_japan())
    race.gears(A=3, B=2)
    assert (race.car("A").engine, race.car("B").engine) == (1, 1)


def test_22_4_narration_says_when_the_surcharge_applies() -> None:
    from heatlog.views.narrate import gear_words

    from .conftest import board

    race = board({"A": {"at": 8, "gear": 3}, "B": {"at": 1, "gear": 1}}, track=_japan())
    race.round(A=(2, "12"), B=(1, "1"))
    turn = race.turn if race.turn.car == "A" else race.last_turn("A")
    assert gear_words(turn) == "shifts to 2nd (pays 1 Heat; flooded: downshift costs 1 more Heat)"


def test_22_5_a_cluttered_car_on_a_flooded_space_pays_for_its_downshift() -> None:
    """# 3.5: a cluttered car may still shift; on a flooded space its downshift costs the surcharge."""
    from .conftest import board

    race = board({"A": {"at": 9, "gear": 2, "engine": 2, "hand": "HHHHHHS"}, "B": {"at": 1, "gear": 1}}, track=_japan())
    race.gears(A=1, B=1)
    assert race.car("A").engine == 1


def test_22_6_MA16_no_discard_on_a_tunnel_space() -> None:
    """A car that ends its move on a tunnel space may not discard; the recorder and the bots are not offered it."""
    from heatlog.engine.decide import waiting_for

    from .conftest import board

    spain = load_track_data("spain")
    race = board({"A": {"at": 12, "gear": 2, "hand": "1234123"}, "B": {"at": 1, "gear": 1}}, track=spain)
    race.round(A=(2, "34"), B=(1, "1"))  # A: 12 + 7 = 19, in the tunnel of 17-24
    assert race.turn.car == "A"
    race.go_on()
    while race.turn.sub < 8:
        race.go_on()
    assert race.state.track.in_tunnel(race.car("A").progress)
    assert "cards_discarded" not in waiting_for(race.state).optional
    race.reject("cards_discarded", car="A", cards=["1"], rule="22.6")


def test_22_6_discard_allowed_just_outside_a_tunnel() -> None:
    from heatlog.engine.decide import waiting_for

    from .conftest import board

    spain = load_track_data("spain")
    race = board({"A": {"at": 8, "gear": 2, "hand": "1234123"}, "B": {"at": 1, "gear": 1}}, track=spain)
    race.round(A=(2, "34"), B=(1, "1"))  # 8 + 7 = 15: before the tunnel
    while race.turn.sub < 8:
        race.go_on()
    assert race.turn.car == "A" and not race.state.track.in_tunnel(race.car("A").progress)
    assert "cards_discarded" in waiting_for(race.state).optional
    race.discard("A", "1")


def test_22_1_each_chicane_line_is_checked_and_paid() -> None:
    """Japan's chicane 10/12 (limit 4 twice): a Speed-6 move across both lines pays 2 + 2 (# 9.3)."""
    from .conftest import board

    race = board({"A": {"at": 7, "gear": 2, "engine": 6}, "B": {"at": 1, "gear": 1}}, track=_japan())
    race.round(A=(2, "33"), B=(1, "1"))  # 7 + 6 = 13: crosses the lines after 10 and 12
    while race.state.turn is not None and race.turn.car == "A" and race.turn.sub < 8:
        race.go_on()
    turn = race.last_turn("A")
    assert [(c.after_space, c.cost) for c in turn.corners] == [(10, 2), (12, 2)]
    assert race.car("A").engine == 2


def test_22_2_a_chicane_takes_one_token_corner_tokens_on_both_lines_sectors_after_the_second() -> None:
    """Japan's chicane (lines after 10 and 12) is one corner for the tokens: a corner token changes both lines;
    a sector token lies on the sector after the second line, and the stretch inside the chicane gets none."""
    from heatlog.engine.modules.weather.rules import WeatherRules, build_conditions, corner_groups
    from heatlog.formats.module_data import weather_module

    japan = load_track("japan")
    groups = corner_groups(japan)
    afters = [c.after_space for c in japan.corners]
    chicane = next(g for g in groups if len(g) == 2)
    assert [afters[i] for i in chicane] == [10, 12]
    rules = WeatherRules.from_dict(weather_module())
    k = groups.index(chicane)
    tokens = ["limit+1" if i == k else "overheat" for i in range(len(groups))]
    cond = build_conditions(japan, rules, next(iter(rules.tiles)), tokens)
    assert cond.by_line[chicane[0]].limit == cond.by_line[chicane[1]].limit == 1  # both lines
    tokens = ["slipstream+1" if i == k else "overheat" for i in range(len(groups))]
    cond = build_conditions(japan, rules, next(iter(rules.tiles)), tokens)
    assert cond.by_space[11].token is None  # inside the chicane (after the first line): no sector
    assert cond.by_space[13].token == "slipstream+1"  # the sector after the second line
    assert all(cond.by_line[i].token is None for i in chicane)  # a sector token changes neither line
