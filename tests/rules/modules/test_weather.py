"""Weather and road conditions in a race, event by event (MODULES.md 20, 22.2, MA5, MA17, MA19, MA20, MC8).

USA sectors: corner 1's 13–33, corner 2's 34–49, corner 3's 50–57, corner 4's 58–12 (through the finish line).
``CLOUDY`` puts the Weather token on sector 1 (Cloud: no cooldown), overheat on corner 2 (after 33, limit 3),
+1 on corner 3 (after 49, limit 3 -> 4) and heat control on sector 4."""

from __future__ import annotations

import pytest

from heatlog.engine import IllegalEvent, MalformedInput, apply, decisions, react_options, waiting_for
from heatlog.engine.modules.weather import conditions_of
from heatlog.engine.modules.weather.rules import sector_at
from heatlog.formats.module_data import weather_module
from heatlog.formats.tracks import load_track_data

from ..conftest import PARKED, ev
from .helpers import module_board, module_race

CLOUDY = ("cloud", ["weather", "overheat", "limit+1", "heat-control"])


def parked(at, lane=None):
    return {"at": at, "hand": PARKED, **({"lane": lane} if lane else {})}


def started(mode="open"):
    data = load_track_data("usa")
    cars = [{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}]
    s = apply(
        None,
        ev(
            "race_started",
            track=data,
            laps=2,
            cars=cars,
            variant="standard",
            handicap=[],
            mode=mode,
            modules=["weather"],
            weather=weather_module(),
        ),
    )
    apply(s, ev("grid_set", order=["A", "B"]))
    return s


def test_20_1_20_2_the_tile_is_one_of_six_and_comes_first():
    s = started()
    assert waiting_for(s).kinds == ["weather_drawn"]
    with pytest.raises(MalformedInput, match="no weather tile"):
        apply(s, ev("weather_drawn", tile="hail"))
    with pytest.raises(IllegalEvent, match="# 20.3"):
        apply(s, ev("deck_shuffled", car="A"))  # the decks wait for the weather (# 20.3)
    apply(s, ev("weather_drawn", tile="fog"))
    assert waiting_for(s).kinds == ["road_conditions_drawn"]
    with pytest.raises(IllegalEvent, match="# 20.2"):
        apply(s, ev("weather_drawn", tile="sun"))


def test_20_2_MC8_one_token_per_corner_in_racing_order():
    s = started()
    apply(s, ev("weather_drawn", tile="storm"))
    with pytest.raises(IllegalEvent, match="4 corners"):
        apply(s, ev("road_conditions_drawn", tokens=["weather", "overheat", "limit+1"]))
    with pytest.raises(IllegalEvent, match="only 2"):
        apply(s, ev("road_conditions_drawn", tokens=["overheat"] * 3 + ["weather"]))
    apply(s, ev("road_conditions_drawn", tokens=["slipstream+1", "limit-1", "weather", "overheat"]))
    assert s.phase == "deal" and conditions_of(s) is not None
    assert conditions_of(s).by_space[20].slipstream == 1  # a sector token on corner 1's sector
    assert conditions_of(s).by_line[1].limit == -1  # a corner token on corner 2
    assert conditions_of(s).by_space[52].slipstream == 2  # Storm through the Weather token on sector 3


def test_22_2_a_chicane_receives_one_token():
    race = module_race(["A", "B"], track="netherlands", weather=("rain", ["overheat", "weather", "limit-1", "weather"]))
    cond = conditions_of(race.state)
    assert cond is not None and cond.by_line[0].overheat == 1 and cond.by_line[1].overheat == 1  # both lines


@pytest.mark.parametrize(
    ("tile", "stress", "engine", "heat_in_deck", "discard"),
    [
        ("cloud", 2, 6, 1, 0),
        ("fog", 3, 7, 1, 0),
        ("storm", 4, 6, 1, 0),
        ("snow", 3, 5, 1, 0),
        ("rain", 3, 3, 4, 0),
        ("sun", 3, 3, 1, 3),
    ],
)
def test_20_3_start_effects_before_the_decks_are_shuffled(tile, stress, engine, heat_in_deck, discard):
    race = module_race(["A", "B"], {"K": "black"}, weather=(tile, ["weather"] * 2 + ["overheat"] * 2))
    for name in ("A", "B"):
        a = race.car(name)
        assert a.pool["S"] == stress and a.engine == engine and a.pool["H"] == heat_in_deck
        assert a.discard == ["H"] * discard
        assert a.hand_size + a.deck_size == 14 + stress + heat_in_deck  # 12 Basic, 0, 5, the Heat, the Stress
    assert race.car("K").engine == 0 and race.car("K").discard == []  # no Legend has an Engine


def test_20_3_start_effects_in_table_mode_bound_the_deck():
    race = module_race(["A", "B"], weather=("rain", ["weather"] * 2 + ["overheat"] * 2), mode="table")
    a = race.car("A")
    assert a.pool["H"] == 4 and a.deck_size + a.hand_size == 21 and a.engine == 3


def test_20_4_20_5_the_weather_token_brings_the_tiles_sector_effect():
    for tile, check in [
        ("cloud", lambda e: e.no_cooldown),
        ("fog", lambda e: e.no_slipstream),
        ("storm", lambda e: e.slipstream == 2),
        ("snow", lambda e: e.cooling == 1),
        ("rain", lambda e: e.cooling == 1),
        ("sun", lambda e: e.slipstream == 2),
    ]:
        race = module_race(["A", "B"], weather=(tile, ["weather", "overheat", "limit+1", "heat-control"]))
        cond = conditions_of(race.state)
        assert cond is not None and check(cond.by_space[20]) and cond.by_space[20].token == "weather"


def test_20_6_20_9_no_cooldown_in_the_sector():
    race = module_board({"P": parked(60), "A": {"at": 20, "hand": "1H23412"}}, weather=CLOUDY)
    race.round(P=(1, "0"), A=(1, "1"))
    race.turns_until("A")
    assert race.at("A")[0] == 21  # in corner 1's sector (13–33)
    assert [o for o in react_options(race.state, race.car("A"), race.turn) if o["type"] == "cooldown"] == []
    race.reject("cooldown", car="A", count=1, rule="20.9")


def test_20_9_no_adrenaline_cooldown_either():
    race = module_board({"P": parked(60), "A": {"at": 20, "hand": "1H23412", "gear": 3}}, weather=CLOUDY)
    race.round(P=(1, "0"), A=(3, "123"))
    race.turns_until("A")
    assert race.turn.adrenaline
    race.adrenaline("A", "cooldown")  # taking the bonus is allowed (a later move could leave the sector) …
    race.reject("cooldown", car="A", count=1, rule="20.9")  # … using it here is not


def test_20_7_MA5_a_boost_out_of_the_sector_opens_the_cooldown():
    race = module_board(
        {"P": parked(60), "A": {"at": 27, "gear": 2, "hand": "2H13412", "deck": "4 1234123412"}}, weather=CLOUDY
    )
    race.round(P=(1, "0"), A=(2, "21"))
    race.turns_until("A")
    assert race.at("A")[0] == 30
    race.reject("cooldown", car="A", count=1, rule="20.9")
    race.boost("A", "4")  # 30 + 4 = 34: corner 2's sector has no token
    assert race.at("A")[0] == 34
    race.cooldown("A", 1)  # # 20.7: judged where the car is now (gear 2 allows 1)
    assert race.car("A").engine == 6


def test_20_10_cooling_bonus_adds_one_cooldown_while_in_the_sector():
    snowy = ("snow", ["weather", "overheat", "limit+1", "heat-control"])
    race = module_board({"P": parked(60), "A": {"at": 14, "gear": 3, "hand": "123HH41"}}, weather=snowy)
    race.round(P=(1, "0"), A=(3, "123"))
    race.turns_until("A")
    assert race.at("A")[0] == 20
    counts = [o["count"] for o in react_options(race.state, race.car("A"), race.turn) if o["type"] == "cooldown"]
    assert counts == [1]  # gear 3 gives none; the sector gives 1 (# 20.10)
    race.reject("cooldown", car="A", count=2, rule="7.2")
    race.cooldown("A", 1)
    assert race.car("A").engine == 7  # the board's 6 + 1 cooled


def test_20_11_MA20_free_boost_with_an_empty_engine():
    race = module_board(
        {"P": parked(40), "A": {"at": 60, "engine": 0, "hand": "1234123", "deck": "2 1234123412"}}, weather=CLOUDY
    )
    race.round(P=(1, "0"), A=(1, "1"))
    race.turns_until("A")
    assert {"type": "boost", "v": 1, "car": "A"} in react_options(race.state, race.car("A"), race.turn)
    race.boost("A", "2")  # heat control (corner 4's sector, 58–12): no Heat, even from an empty Engine
    a = race.car("A")
    assert a.engine == 0 and a.progress == 63 and race.turn.speed == 3 and race.turn.boost_free
    race.reject("boost", car="A", rule="7.5")  # still once a turn


def test_20_11_MA5_a_boost_is_free_only_when_made_in_the_sector():
    race = module_board(
        {"P": parked(40), "A": {"at": 52, "engine": 3, "hand": "4123412", "deck": "4 1234123412"}}, weather=CLOUDY
    )
    race.round(P=(1, "0"), A=(1, "4"))
    race.turns_until("A")
    assert race.at("A")[0] == 56  # corner 3's sector (50–57): no token
    race.boost("A", "4")  # ends in the heat-control sector, but was made outside it: it costs 1
    assert race.car("A").engine == 2 and race.at("A")[0] == 60


def test_20_12_slipstream_bonus_is_optional():
    tokens = ["slipstream+1", "overheat", "limit+1", "heat-control"]
    race = module_board({"B": parked(17), "A": {"at": 12, "hand": "4123412"}}, weather=("cloud", tokens))
    race.round(B=(1, "0"), A=(1, "4"))
    race.turns_until("A")
    assert race.at("A")[0] == 16
    slips = [o for o in decisions(race.state, "A") if o["type"] == "slipstream"]
    assert slips == [
        {"type": "slipstream", "v": 1, "car": "A", "taken": True},
        {"type": "slipstream", "v": 1, "car": "A", "taken": True, "spaces": 3},
        {"type": "slipstream", "v": 1, "car": "A", "taken": False},
    ]
    race.reject("slipstream", car="A", taken=True, spaces=4, rule="20.12")
    race.ev("slipstream", car="A", taken=True, spaces=3)
    assert race.at("A")[0] == 19


def test_20_12_storm_weather_gives_two_more_spaces():
    race = module_board(
        {"B": parked(17), "A": {"at": 12, "hand": "4123412"}},
        weather=("storm", ["weather", "overheat", "limit+1", "heat-control"]),
    )
    race.round(B=(1, "0"), A=(1, "4"))
    race.turns_until("A")
    race.ev("slipstream", car="A", taken=True, spaces=4)
    assert race.at("A")[0] == 20


def test_20_12_no_slipstream_from_a_fog_sector_but_into_one():
    foggy = ("fog", ["weather", "overheat", "limit+1", "heat-control"])
    race = module_board({"B": parked(17), "A": {"at": 12, "hand": "4123412"}}, weather=foggy)
    race.round(B=(1, "0"), A=(1, "4"))
    race.turns_until("A")
    assert "slipstream" not in waiting_for(race.state).optional
    race.reject("slipstream", car="A", taken=True, rule="20.12")  # the sector refuses it, cited once
    race = module_board({"B": parked(12), "A": {"at": 7, "hand": "4123412"}}, weather=foggy)
    race.round(B=(1, "0"), A=(1, "4"))
    race.turns_until("A")
    race.slip("A")  # from 11 (sector 4) into sector 1
    assert race.at("A")[0] == 13


def test_20_12_MA17_the_final_lap_ban_applies_to_the_total():
    tokens = ["weather", "overheat", "limit+1", "slipstream+1"]
    race = module_board({"B": parked(137), "A": {"at": 132, "hand": "4123412"}}, weather=("cloud", tokens), laps=2)
    race.round(B=(1, "0"), A=(1, "4"))
    race.turns_until("A")
    assert race.at("A")[0] == 136  # line after 138: 2 more is allowed, 3 would cross it
    slips = [o for o in decisions(race.state, "A") if o["type"] == "slipstream" and o["taken"]]
    assert slips == [{"type": "slipstream", "v": 1, "car": "A", "taken": True}]
    err = race.reject("slipstream", car="A", taken=True, spaces=3, rule="8.6")
    assert "MA17" in str(err)


def test_20_8_a_corner_token_applies_at_every_crossing():
    race = module_board({"P": parked(20), "A": {"at": 46, "hand": "4123412"}}, weather=CLOUDY, laps=2)
    race.round(P=(1, "0"), A=(1, "4"))
    race.turns_until("A").go_on()
    check = race.turn.corners[0]
    assert (check.after_space, check.limit, check.speed, check.cost) == (49, 4, 4, 0)  # 3 + 1
    race = module_board({"P": parked(20), "A": {"at": 115, "hand": "4123412"}}, weather=CLOUDY, laps=2)
    race.round(P=(1, "0"), A=(1, "4"))
    race.turns_until("A").go_on()
    assert race.turn.corners[0].limit == 4  # lap 2 too


def test_20_13_MA19_overheat_adds_one_only_above_the_limit():
    race = module_board({"P": parked(60), "A": {"at": 28, "gear": 2, "hand": "3412341"}}, weather=CLOUDY)
    race.round(P=(1, "0"), A=(2, "34"))
    race.turns_until("A").go_on()
    check = race.turn.corners[0]
    assert (check.limit, check.speed, check.cost, check.paid) == (3, 7, 5, 5)  # 4 over + 1 overheat
    race = module_board({"P": parked(60), "A": {"at": 31, "gear": 2, "hand": "1212341"}}, weather=CLOUDY)
    race.round(P=(1, "0"), A=(2, "12"))
    race.turns_until("A").go_on()
    assert race.turn.corners[0].cost == 0  # MA19: Speed 3 = limit 3


def test_20_13_overheat_can_spin_a_car_out():
    race = module_board({"P": parked(60), "A": {"at": 28, "gear": 2, "engine": 4, "hand": "3412341"}}, weather=CLOUDY)
    race.round(P=(1, "0"), A=(2, "34"))
    race.turns_until("A").go_on()
    assert race.turn.spinout and race.turn.corners[0].cost == 5  # 5 > 4 on the Engine (# 10.1)


@pytest.mark.parametrize("tile", ["cloud", "fog", "storm", "snow", "rain", "sun"])
def test_20_7_20_9_20_12_the_points_read_the_sector_where_the_car_stands(tile):
    # MA5, # 20.7: each sector point answers what the sector of the car's space holds, on every space of both
    # laps and beyond the line, whichever effects the draw left on no sector (issue 32: they read the sector
    # themselves, and skip it when the race's sectors lack their effect)
    draws = [
        ["weather", "overheat", "limit+1", "heat-control"],
        ["overheat", "limit-1", "limit+1", "overheat"],
        ["slipstream+1", "weather", "heat-control", "limit-1"],
        ["weather", "weather", "slipstream+1", "slipstream+1"],
    ]
    for tokens in draws:
        race = module_race(["A", "B"], weather=(tile, tokens))
        s, car = race.state, race.car("A")
        rules = s.rules
        cond = conditions_of(s)
        assert cond is not None
        effects = set(cond.by_space[1:])
        assert cond.effects == {
            k
            for k in ("no_cooldown", "no_slipstream", "free_boost", "cooling", "slipstream")
            if any(getattr(e, k) for e in effects)
        }
        for p in range(0, 3 * s.track.spaces + 2):
            car.progress = p
            e = sector_at(s, p)
            assert (rules.cooldown_block(s, car) is not None) == e.no_cooldown, (tokens, p)
            assert rules.cooldown_bonus(s, car) == e.cooling, (tokens, p)
            assert rules.boost_cost(s, car) == (0 if e.free_boost else 1), (tokens, p)
            assert (rules.slipstream_block(s, car) is not None) == e.no_slipstream, (tokens, p)
            assert rules.slipstream_bonus(s, car) == e.slipstream, (tokens, p)
