"""The Garage beside the weather (MODULES.md 18 with 20): the readings a Garage race meets only on road
conditions (MC4, MA5, MA19, MA20), turn by turn on the USA circuit.

USA: corner lines after spaces 12 (limit 7), 33 (3), 49 (3) and 57 (2). ``CLOUDY`` puts the Weather token on
corner 1 (its sector, 13–33, forbids cooldown: the Cloud tile), overheat on corner 2, limit+1 on corner 3 and
heat control on corner 4 (its sector, 58–12: a free boost). Car ``P`` is parked far ahead; ``A`` is under test.
"""

from __future__ import annotations

from collections import Counter

from heatlog.engine import waiting_for
from heatlog.engine.decide import decisions
from heatlog.engine.modules.garage import garage_slot
from heatlog.engine.modules.weather import weather_tile
from heatlog.formats.tracks import load_track_data
from heatlog.simulate import simulate_race
from heatlog.views.narrate import narrate_turn

from .scenarios import PARK, garage_board, toks

CLOUDY = ("cloud", ["weather", "overheat", "limit+1", "heat-control"])
OPTIONS = {"upgrades": "all", "draft": "draft", "expansions": ["heavy-rain", "tunnel-vision"]}


def board(a: dict, *, p_at: int = 40):
    spec = {"hand": "1 1 1 1 1 1 1", "deck": "4 1 2 3 4 1 2 3 4 1 2 3 4", "upgrades": "U11 U37 U46", **a}
    return garage_board(
        {"P": {"at": p_at, "hand": PARK, "upgrades": "U13 U15 U16"}, "A": spec},
        track="usa",
        weather=CLOUDY,
    )


def play(race, a_cards: str, gear: int = 1):
    race.round(P=(1, ["1"]), A=(gear, toks(a_cards)))
    race.turns_until("A")
    return race


def test_MC4_a_garage_race_with_the_weather_draws_its_tile_and_tokens_at_random_after_the_draft():
    tiles, kinds = Counter(), []
    for seed in range(6):
        _, events, state = simulate_race(
            None, track="usa", cars=3, seed=seed, modules={"garage": OPTIONS, "weather": {}}
        )
        kinds = [e["type"] for e in events[:40]]
        last_pick = max(i for i, k in enumerate(kinds) if k == "upgrade_picked")
        # 18.4, 20.2: the grid, the draft, then the tile and one token per corner, then the decks
        assert kinds.index("weather_drawn") == last_pick + 1 and kinds[last_pick + 2] == "road_conditions_drawn"
        tokens = events[last_pick + 2]["tokens"]
        assert len(tokens) == len(load_track_data("usa")["corners"])  # only their number is the circuit's
        tiles[events[last_pick + 1]["tile"]] += 1
        assert state.phase == "over" and garage_slot(state).owned and weather_tile(state)
    assert len(tiles) > 1  # MC4: random each race, not the circuit's


def test_MA5_a_move_into_a_no_cooldown_sector_leaves_a_heat_cost_unpayable():
    # [004]'s case: Cooling system 6 (heat 1) with an empty Engine, counting on a cooldown; the move ends in
    # corner 1's sector (Weather token, Cloud: no cooldown, # 20.9) — the sector where the car is now (MA5).
    race = play(board({"at": 7, "engine": 0, "hand": "U11 H 1 1 1 1 1", "deck": "S 3 1 2 3 4"}), "U11")
    assert race.at("A")[0] == 13
    assert not [o for o in decisions(race.state, "A") if o["type"] == "cooldown"]  # neither gear nor card
    race.reject("cooldown", car="A", count=1, rule="20.9")
    race.reject("cooldown", car="A", count=1, cards=["U11"], rule="20.9")
    assert waiting_for(race.state).due == "heat_unpayable"  # # 18.11: nothing can put Heat on the Engine
    race.ev("heat_unpayable", car="A", cards=["U11"])
    race.flip("A", "S", "3")  # the replacement flip (the "+" rule skips the Stress)
    assert race.turn.speed == 3 and race.at("A")[0] == 10  # back to space 7, then 3


def test_MA5_the_same_card_is_paid_by_a_cooldown_where_cooldown_is_allowed():
    # Same hand, one space further back: the move ends on 12, still in corner 4's sector (heat control).
    race = play(board({"at": 6, "engine": 0, "hand": "U11 H 1 1 1 1 1"}), "U11")
    assert race.at("A")[0] == 12
    assert waiting_for(race.state).due == "heat_unpayable"  # the cost must be settled before React ends …
    offered = decisions(race.state, "A")
    assert {"type": "cooldown", "v": 1, "car": "A", "count": 1} in offered  # … and a cooldown may pay it (# 18.10)
    race.cooldown("A", 1)
    race.ev("heat_paid", car="A", cards=["U11"])
    assert race.car("A").engine == 0 and "U11" in race.car("A").play_area


def test_MA19_an_adjust_that_brings_the_limit_to_the_speed_owes_no_overheat():
    # Corner 2 (limit 3, overheat): Tires 1 (adjust +1, scrap 2) and a 3 cross it at Speed 4 = limit 4.
    race = play(board({"at": 30, "gear": 2, "hand": "U37 3 1 1 1 1 1"}), "U37 3", gear=2)
    race.go_on()
    assert waiting_for(race.state).due == "card_scrapped"  # the Scrap first (# 18.12), then the corners
    race.ev("card_scrapped", car="A", card="4")
    race.ev("card_scrapped", car="A", card="1")
    race.go_on()  # no slipstream (step 6 stays open after the Scrap, # 8.1): then the corners (step 7)
    check = race.turn.corners[0]
    assert (check.after_space, check.limit, check.speed, check.cost) == (33, 4, 4, 0)  # MA19: none at the limit


def test_MA19_without_the_adjust_the_overheat_is_owed():
    race = play(board({"at": 30, "gear": 2, "hand": "3 1 1 1 1 1 1"}), "3 1", gear=2)
    race.go_on()
    check = race.turn.corners[0]
    assert (check.limit, check.speed, check.cost) == (3, 4, 2)  # 1 over the limit + 1 overheat (# 20.13)


def test_MA20_a_free_boost_after_a_heat_cost_emptied_the_engine():
    # Corner 4's sector (58–12, heat control): Cooling system 6 pays its Heat cost with the Engine's last Heat;
    # the boost still costs nothing, even from the empty Engine (# 20.11, MA20), and the Garage's "+" rule
    # finds its card as for any boost (# 18.14).
    race = play(board({"at": 58, "engine": 1, "hand": "U11 1 1 1 1 1 1", "deck": "2 1 2 3 4"}), "U11")
    assert race.at("A")[0] == 64
    race.ev("heat_paid", car="A", cards=["U11"])
    assert race.car("A").engine == 0
    assert {"type": "boost", "v": 1, "car": "A"} in decisions(race.state, "A")
    race.boost("A", "2")
    turn = race.turn
    assert race.car("A").engine == 0 and turn.boost_free and turn.speed == 8 and race.at("A")[0] == 66
    race.go_on()
    words = narrate_turn(race.state, race.turn)
    assert "pays 1 Heat for Cooling system 6" in words and "free: heat control" in words
