"""Legends in a race, event by event (MODULES.md 19, MA8–MA10, MC9–MC11). USA: corners after 12 (limit 7,
Legend line after 2), 33 (3, after 27), 49 (3, after 43), 57 (2, after 52); 69 spaces.

Legend card 1: black 16/2, blue 18/3, green 15/2, red 13/1, gray 14/1, yellow 11/0 (helmet / diamond);
card 2: black 18/3, blue 16/2; card 6: black 19/3."""

from __future__ import annotations

import pytest

from heatlog.engine import HeatlogError, IllegalEvent, MalformedInput, apply, decisions, waiting_for
from heatlog.engine.module import TurnRow, turn_row
from heatlog.engine.modules.legends import legend_move_of
from heatlog.formats.module_data import legends_module
from heatlog.formats.tracks import load_track_data

from ..conftest import PARKED, ev, rule_cited
from .helpers import legend_card, module_board, module_race


def parked(at, lane=None):
    return {"at": at, "hand": PARKED, **({"lane": lane} if lane else {})}


def first_round(race, card=1, **plays):
    """Steps 1–2 for the players (all parked in gear 1 by default), then every turn; the Legend card when due."""
    race.round(**({n: (1, "0") for n in race.state.pending} | plays))
    while race.state.round == 1 and race.state.phase == "race":
        w = waiting_for(race.state)
        if "legend_card_revealed" in w.kinds:
            legend_card(race, card)
        else:
            race.refill()
    return race


def test_19_1_19_10_MC10_a_legend_has_no_gear_cards_or_heat():
    race = module_board({"A": parked(40), "K": {"at": 31, "legend": "black"}})
    assert race.state.pending == ["A"]  # # 19.6: no gear for a Legend
    err = race.reject("gear_chosen", car="K", gear=2, rule="19.10")
    assert "Legend" in str(err)
    race.reject("cards_played", car="K", cards=["1"], rule="19.10")
    race.reject("deck_shuffled", car="K", rule="19.10")
    # MC10: past corner 2's Legend line it moves 3 + 2 = 5 from 31 to 36 over a limit-3 corner: no Heat, no
    # check, no spinout (a Legend never slows down by paying: # 19.10)
    first_round(race, card=1)
    k = race.car("K")
    assert k.progress == 36 and k.engine == 0 and k.hand is None and k.stress_taken == 0
    turn = race.state.last_turn("K")
    assert turn is not None and turn.corners == [] and not turn.spinout and turn.played == []


def test_19_2_MC11_solo_with_legends_is_a_race_but_legends_alone_are_not():
    race = module_race(["Solo"], {"L1": "black", "L2": "blue", "L3": "green", "L4": "red", "L5": "gray"})
    assert race.state.phase == "race" and race.state.started == 6
    start = ev(
        "race_started",
        track=load_track_data("usa"),
        laps=2,
        cars=[{"name": "L1", "colour": "black", "legend": True}, {"name": "L2", "colour": "blue", "legend": True}],
        variant="standard",
        handicap=[],
        mode="table",
        modules=["legends"],
        legends=legends_module(),
    )
    with pytest.raises(MalformedInput, match="at least one player"):
        apply(None, start)
    too_many = {**start, "cars": [{"name": f"P{i}", "colour": "red"} for i in range(7)]}
    with pytest.raises(MalformedInput, match="2 to 6 cars"):
        apply(None, too_many)


def test_19_3_legends_take_grid_spots_and_skip_the_deal():
    race = module_race(["A", "B"], {"K": "black"}, grid=["K", "A", "B"], mode="table")
    k = race.car("K")
    assert (k.progress, k.lane) == race.state.track.grid_progress(1)
    assert k.deck_size == 0 and k.hand_size == 0 and not k.needs_shuffle
    assert race.state.phase == "race"  # the deal ended without the Legend shuffling or drawing


def test_19_3_the_deal_never_waits_for_a_legend():
    data = load_track_data("usa")
    st = apply(
        None,
        ev(
            "race_started",
            track=data,
            laps=2,
            cars=[{"name": "A", "colour": "red"}, {"name": "K", "colour": "black", "legend": True}],
            variant="standard",
            handicap=[],
            mode="table",
            modules=["legends"],
            legends=legends_module(),
        ),
    )
    apply(st, ev("grid_set", order=["K", "A"]))
    assert waiting_for(st).cars == ["A"]


def test_19_4_a_legend_needs_a_legend_card_colour_of_its_own():
    base = dict(track=load_track_data("usa"), laps=2, variant="standard", handicap=[], mode="table")
    mods = {"modules": ["legends"], "legends": legends_module()}
    white = [{"name": "A", "colour": "red"}, {"name": "K", "colour": "white", "legend": True}]
    with pytest.raises(MalformedInput, match="colour must be one printed"):
        apply(None, ev("race_started", cars=white, **mods, **base))
    twins = [
        {"name": "A", "colour": "red"},
        {"name": "K", "colour": "blue", "legend": True},
        {"name": "J", "colour": "blue", "legend": True},
    ]
    with pytest.raises(MalformedInput, match="share a colour"):
        apply(None, ev("race_started", cars=twins, **mods, **base))
    with pytest.raises(MalformedInput, match="Legends module"):
        apply(None, ev("race_started", cars=white[:1] + [{**white[1], "colour": "black"}], **base))


def test_19_5_MA9_one_card_a_round_turned_for_the_first_legend():
    race = module_board({"K": {"at": 14, "legend": "black"}, "A": parked(5), "J": {"at": 1, "legend": "blue"}})
    race.round(A=(1, "0"))
    w = waiting_for(race.state)
    assert w.kinds == ["legend_card_revealed"] and w.cars == []  # a public chance event (# 19.5)
    legend_card(race, 2)  # black 18/3: 14 + 18 = 32 (before corner 2's Legend line, no crossing)
    assert race.car("K").progress == 32
    race.refill("A")
    # J's turn uses the same card without a new reveal: blue 16/2 from 1 -> 17 > 12: diamond 2 = space 10.
    assert race.car("J").progress == 10 and race.state.round == 2
    race.round(A=(1, "1"))
    err = race.reject("legend_card_revealed", card=2, rule="MA9")  # already turned since the last reshuffle
    assert "already turned" in str(err)
    legend_card(race, 3)


def test_19_5_a_second_card_in_the_same_round_is_refused():
    race = module_board({"K": {"at": 14, "legend": "black"}, "A": parked(5)})
    race.round(A=(1, "0"))
    legend_card(race, 1)
    race.reject("legend_card_revealed", card=2)


def test_MA9_after_ten_cards_all_ten_are_reshuffled():
    race = module_board({"K": {"at": 14, "legend": "black"}, "A": parked(5)}, legend_cards_used=range(1, 11))
    race.round(A=(1, "0"))
    legend_card(race, 4)  # every card had been turned: the deck is the ten again
    deck = race.state.modules["legends"].deck
    assert deck is not None and deck.used == [4] and deck.reshuffles == 1


def test_19_6_legends_skip_steps_1_2_and_move_in_their_place():
    race = module_board({"A": parked(40), "K": {"at": 20, "legend": "black"}, "B": parked(5)}, mode="open")
    assert race.state.order == ["A", "K", "B"]
    race.gears(A=1, B=1)
    assert race.state.step == 2 and race.state.pending == ["A", "B"]
    race.play(A="0", B="0")
    race.refill("A")
    legend_card(race, 1)  # K: 20 + 16 = 36 > 33 -> diamond 2 = space 31
    assert race.car("K").progress == 31
    assert race.turn.car == "B"  # the Legend's turn ended by itself
    assert decisions(race.state, "K") == []


def test_19_7_helmet_before_the_legend_line_and_the_diamond_instead_of_the_corner():
    race = first_round(module_board({"A": parked(40), "K": {"at": 1, "legend": "black"}}), card=1)
    assert race.car("K").progress == 10  # 1 + 16 = 17 would cross corner 1: diamond 2 = space 10
    turn = race.state.last_turn("K")
    assert turn is not None and legend_move_of(turn) is not None
    assert legend_move_of(turn).describe(race.state.track.space_of) == (
        "before the Legend line: helmet 16 would cross corner 1, stops on diamond 2 (space 10) (# 19.7)"
    )
    # # 19.7: the board's and the HTML replay's row of the turn, from the descriptor: the helmet number stands
    # for the cards played, the speed is the spaces the card sent it (9), the gear "L"
    assert turn_row(race.state, turn) == TurnRow("h16", "helmet 16", 9, "L")
    assert turn_row(race.state, race.state.last_turn("A")) is None  # a car's own turn: its cards


def test_19_8_past_the_legend_line_limit_plus_diamond():
    race = first_round(module_board({"A": parked(45), "K": {"at": 28, "legend": "yellow"}}), card=1)
    assert race.car("K").progress == 31  # 19.8 worked example: 3 + 0 from 28


def test_19_9_a_full_diamond_sends_the_legend_behind():
    cars = {"A": parked(10, 1), "B": parked(10, 2), "K": {"at": 1, "legend": "black"}}
    race = first_round(module_board(cars), card=1)
    assert race.at("K") == (9, race.state.track.race_lane(9))  # diamond 2 (space 10) is full (# 5.3, 5.5)


def test_19_9_a_legend_can_be_slipstreamed():
    # K (ahead, on 26) moves first: black 17/2 would cross corner 2, so diamond 2 = 31. A plays 5 from 25 to 30,
    # right behind the Legend: slipstream is open (# 8.1) and takes it past.
    race = module_board({"K": {"at": 26, "legend": "black"}, "A": {"at": 25, "hand": "5123412"}})
    race.round(A=(1, "5"))
    legend_card(race, 3)
    assert race.car("K").progress == 31 and race.at("A")[0] == 30
    assert "slipstream" in waiting_for(race.state).optional
    race.slip("A")
    assert race.at("A")[0] == 32


def test_19_9_a_legend_blocks_a_player():
    race = module_board({"K": {"at": 20, "legend": "black"}, "L": {"at": 21, "legend": "blue"}, "A": {"at": 16}})
    race.round(A=(1, "4"))
    legend_card(race, 8)  # L (ahead): blue 19/3 -> 21 + 19 = 40 > 33: diamond 3 = 30; K: black 11/0 -> 31
    assert race.car("L").progress == 30 and race.car("K").progress == 31
    assert race.at("A")[0] == 20


def test_19_11_road_conditions_reach_legends_only_through_the_corner_limit():
    tokens = ["weather", "limit+1", "overheat", "heat-control"]
    race = first_round(
        module_board({"A": parked(45), "K": {"at": 28, "legend": "yellow"}}, weather=("cloud", tokens)), card=1
    )
    assert race.car("K").progress == 32  # (3 + 1) + 0: the +1 token of corner 2 (# 19.11)
    race = first_round(
        module_board({"A": parked(45), "K": {"at": 46, "legend": "yellow"}}, weather=("cloud", tokens)), card=1
    )
    assert race.car("K").progress == 49 and race.car("K").engine == 0  # overheat: nothing to a Legend


def test_19_12_legends_have_no_deck_a_draft_could_fill():
    # 19.12: the Garage module is not built yet; what it would rely on holds: a Legend has no deck or hand.
    race = module_race(["A"], {"K": "black"})
    k = race.car("K")
    assert sum(k.pool.values()) == 0 and k.deck is None and k.hand is None


def test_19_13_final_lap_full_helmet_and_the_legend_finishes_like_a_car():
    race = first_round(module_board({"A": parked(100), "K": {"at": 127, "legend": "black"}}, laps=2), card=1)
    assert "K" in race.state.hall_of_fame  # 127 + 16 = 143 > 138: finished (# 16.7, 16.8)
    assert race.state.finish_rounds["K"] == 1
    assert race.state.standings()[0] == "K"


def test_19_14_aggressive_legend_on_a_chevron_crosses_two_lines():
    tokens = ["limit+1", "weather", "weather", "overheat"]  # Netherlands: the chicane 9/13 is one corner
    cars = {"A": parked(40), "K": {"at": 8, "legend": "black"}}
    race = first_round(module_board(cars, track="netherlands", weather=("sun", tokens), aggressive=True), card=2)
    assert race.car("K").progress == 16  # (5 + 1) + 3 = 9 from 8 -> 17 crosses 9, 13, 16: stops on 16
    race = first_round(module_board(cars, track="netherlands", weather=("sun", tokens)), card=2)
    assert race.car("K").progress == 13  # not aggressive: one line (# 19.8)


def test_19_15_pro_legends_add_to_the_helmet_number():
    race = first_round(module_board({"A": parked(45), "K": {"at": 14, "legend": "black"}}, pro=3), card=1)
    assert race.car("K").progress == 33  # 14 + 16 + 3 = 33: on the last space before corner 2
    race = first_round(module_board({"A": parked(45), "K": {"at": 14, "legend": "black"}}), card=1)
    assert race.car("K").progress == 30


def test_19_16_a_solo_race_runs_like_any_race():
    # 19.16 (solo Championship) is the Championship's; a solo single race is a normal race: one player, five
    # Legends, the player's turn and the Legends' in the round order.
    race = module_race(["Solo"], {"L1": "black", "L2": "blue", "L3": "green", "L4": "red", "L5": "gray"})
    assert race.state.pending == ["Solo"]
    race.round(Solo=(1, "1"))
    while race.state.round == 1:
        if "legend_card_revealed" in waiting_for(race.state).kinds:
            legend_card(race, 5)
        else:
            race.refill()
    assert all(race.car(n).progress > 0 for n in ("L1", "L2", "L3", "L4", "L5"))


def test_19_17_MA8_legends_count_for_adrenaline_but_take_nothing():
    cars = {
        "L1": {"at": 30, "legend": "black"},
        "L2": {"at": 29, "legend": "blue"},
        "A": parked(20),
        "L3": {"at": 10, "legend": "green"},
        "L4": {"at": 5, "legend": "red"},
    }
    race = module_board(cars)  # 5 cars started, Legends included: the last two get adrenaline (# 6.1)
    assert race.state.adrenaline == ["L3", "L4"]  # A is third from last: nothing passes on to it
    race.round(A=(1, "0"))
    legend_card(race, 1)
    assert not race.turn.adrenaline
    cars["A"] = parked(6)
    race = module_board(cars)
    assert race.state.adrenaline == ["A", "L4"]
    race.round(A=(1, "0"))
    legend_card(race, 1)
    assert race.turn.car == "A" and race.turn.adrenaline


def test_MA10_a_legend_on_its_legend_line_is_before_it():
    race = first_round(module_board({"A": parked(45), "K": {"at": 27, "legend": "black"}}), card=3)
    assert race.car("K").progress == 31  # on L (27): helmet 17 would cross 33: diamond 2 = 31 (not 3 + 2 = 32)
    race = first_round(module_board({"A": parked(45), "K": {"at": 28, "legend": "black"}}), card=3)
    assert race.car("K").progress == 33  # on L + 1: 3 + 2 = 5 -> 33


def test_19_10_events_naming_a_legend_are_refused_with_the_rule():
    race = module_board({"A": parked(45), "K": {"at": 28, "legend": "black"}})
    with pytest.raises(HeatlogError) as info:
        apply(race.state, ev("cooldown", car="K", count=1))
    assert isinstance(info.value, IllegalEvent) and rule_cited(info.value, "19.10")
