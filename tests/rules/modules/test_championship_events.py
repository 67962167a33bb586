"""The event cards in the race (MODULES.md 21.8, 21.13): each card's effect as a point of the race's Rules, built
from the ``championship`` block that ``race_started`` holds, driven through real events. One test (or more) per
event, named by item; the sponsorship effects (events 1, 2, 8, 11, 16) are in test_championship_sponsors.py."""

from __future__ import annotations

from typing import Any

import pytest

from heatlog.engine import IllegalEvent, MalformedInput, apply
from heatlog.engine.decide import decisions, discard_options, waiting_for
from heatlog.engine.module import removed_cards
from heatlog.engine.modules.championship import championship_turn
from heatlog.engine.ruleset import BASE_RULES, build_rules
from heatlog.formats.championship import championship_data
from heatlog.formats.tracks import load_track_data

from ..conftest import TRACK, Race, board, cards, deck, ev

SEASON_ID = "ab" * 32


def block(number: int, **options: Any) -> dict[str, Any]:
    """``race_started.championship`` for a race with event card ``number`` (the built-in card)."""
    card = championship_data()["events"][str(number)]
    opts = {"grid": "standings", "sponsors_carry_over": True, "points": [9, 6, 4, 3, 2, 1], **options}
    return {
        "season": {"id": SEASON_ID, "name": "test"},
        "race": 1,
        "races": 3,
        "event": {"number": number, "card": card},
        "options": opts,
    }


def with_event(race: Race, number: int) -> Race:
    """A built board under event card ``number``'s rules (as a season race would start them)."""
    race.state.rules = build_rules(["championship"], {"championship": block(number)})
    return race


def started(number: int, *, track: dict[str, Any] | None = None, mode: str = "open", laps: int = 1) -> Race:
    """Only ``race_started`` and the grid of a two-car race with event ``number``."""
    start = ev(
        "race_started",
        track=track or TRACK,
        laps=laps,
        cars=[{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}],
        variant="standard",
        handicap=[],
        mode=mode,
        modules=["championship"],
        championship=block(number),
    )
    race = Race(apply(None, start))
    race.log.append(start)
    race.ev("grid_set", order=["A", "B"])
    return race


# ---------------------------------------------------------------------------------------------- the block


def test_21_8_the_block_in_race_started_says_the_races_rules() -> None:
    """The race's log alone says its rules: the module is listed and its block read; a base race is unchanged."""
    race = started(4)
    assert race.state.rules.modules == ("championship",)
    assert race.state.rules.options["championship"]["event"]["number"] == 4
    assert started(7).state.rules.engine_heat is BASE_RULES.engine_heat  # event 7 changes no set-up value


@pytest.mark.parametrize(
    ("damage", "complaint"),
    [
        (lambda b: b.pop("event"), "incomplete"),
        (lambda b: b.update(race=5), "race must be a number between 1 and races"),
        (lambda b: b["event"]["card"]["effects"].update(turbo=True), "unknown effect 'turbo'"),
        (lambda b: b["options"].update(grid="alphabetical"), "grid must be one of standings, random"),
    ],
)
def test_21_8_a_bad_block_is_refused_before_the_race_exists(damage: Any, complaint: str) -> None:
    bad = block(4)
    damage(bad)
    start = ev(
        "race_started",
        track=TRACK,
        laps=1,
        cars=[{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}],
        modules=["championship"],
        championship=bad,
    )
    with pytest.raises(MalformedInput, match=complaint):
        apply(None, start)


def test_21_8_a_race_without_the_module_is_a_base_race() -> None:
    """Old logs keep loading: no module, no block, the base rules."""
    race = board({"A": {"at": 5}, "B": {"at": 1}})
    assert race.state.rules is BASE_RULES


# ---------------------------------------------------------------------------------------------- set-up values


def test_21_8_event_4_engine_restrictions_lifted_one_more_heat() -> None:
    race = started(4)
    assert [race.car(n).engine for n in "AB"] == [7, 7]


def test_21_8_event_9_safety_regulations_two_heat_one_stress_fewer_and_a_hand_of_6() -> None:
    race = started(9)
    a = race.car("A")
    assert a.engine == 4 and a.pool["S"] == 2 and a.deck_size == 17
    order = [c for c in deck() if c != "S"] + ["S", "S"]
    race.ev("deck_shuffled", car="A", order=order)
    race.reject("cards_drawn", car="A", cards=order[:7], rule="12.2")
    race.ev("cards_drawn", car="A", cards=order[:6])
    assert waiting_for(race.state).cars == ["B"]  # A's hand is full at 6


def test_21_8_event_10_title_sponsor_withdraws_one_more_stress() -> None:
    race = started(10)
    assert race.car("A").pool["S"] == 4 and race.car("A").deck_size == 19


def test_21_8_event_5_record_crowds_hand_of_8_at_the_deal_and_the_refill() -> None:
    race = started(5, mode="table")
    for name in "AB":
        race.ev("deck_shuffled", car=name)
        race.ev("cards_drawn", car=name, count=8)
    assert race.state.phase == "race" and race.car("A").hand_size == 8
    # the refill of step 9 fills to 8 as well
    race = with_event(board({"A": {"at": 5, "hand": "1234123"}, "B": {"at": 1}}), 5)
    race.round(A=(1, "1"), B=(1, "1"))
    race.go_on().go_on()
    assert waiting_for(race.state).due == "cards_drawn" and waiting_for(race.state).count == 2


def test_MA26_a_spinout_leaving_a_full_hand_of_6_draws_nothing() -> None:
    """Hand size 6 (event 9): a spinout that leaves 6 cards in the hand ends the turn without a draw (# 12.2)."""
    race = with_event(board({"A": {"at": 8, "gear": 3, "engine": 0, "hand": "4441233"}, "B": {"at": 1}}), 9)
    race.round(A=(3, "444"), B=(1, "1"))  # speed 12 over the limit-4 corner after 10 with an empty Engine
    race.go_on()
    turn = race.last_turn("A")
    assert turn.spinout and race.car("A").hand_size == 6  # 4 left + 2 Stress (# 10.3)
    assert race.turn.car == "B"  # A's turn is over: no discard, no draw


# ---------------------------------------------------------------------------------------------- during the race


def test_21_8_event_14_sudden_heavy_rain_nobody_gets_adrenaline() -> None:
    race = with_event(board({"A": {"at": 5}, "B": {"at": 1}}), 14)
    from heatlog.engine import start_round

    race.state.round = 0
    start_round(race.state)
    assert race.state.adrenaline == []
    race.round(A=(1, "1"), B=(1, "1"))
    race.turns_until("B")
    race.reject("adrenaline", car="B", bonus="move", rule="6.1")
    assert board({"A": {"at": 5}, "B": {"at": 1}}).state.adrenaline == ["B"]  # the base rule, for comparison


def test_21_8_event_12_turbulent_winds_slipstream_only_in_3rd_or_4th_gear() -> None:
    race = with_event(board({"A": {"at": 10}, "B": {"at": 8, "gear": 2, "hand": "1112341"}}), 12)
    race.round(A=(1, "1"), B=(2, "11"))  # A 10 -> 11; B 8 -> 10, A right ahead
    race.turns_until("B")
    assert "slipstream" not in waiting_for(race.state).optional
    err = race.reject("slipstream", car="B", taken=True, rule="8.1")
    assert "slipstream only in gear 3 or 4" in str(err)
    race = with_event(board({"A": {"at": 10}, "B": {"at": 7, "gear": 3, "hand": "1112341"}}), 12)
    race.round(A=(1, "1"), B=(3, "111"))  # the same in 3rd gear: B 7 -> 10
    race.turns_until("B")
    assert "slipstream" in waiting_for(race.state).optional
    race.slip("B")
    assert race.car("B").progress == 12


def test_21_8_event_15_hold_on_tight_at_most_one_card_discarded() -> None:
    race = with_event(board({"A": {"at": 5, "hand": "1234123"}, "B": {"at": 1}}), 15)
    race.round(A=(1, "1"), B=(1, "1"))
    race.go_on()
    assert all(len(d) == 1 for d in discard_options(race.car("A"), race.state))
    race.reject("cards_discarded", car="A", cards=["2", "3"], rule="21.8")
    race.discard("A", "2")
    assert race.last_turn("A").discarded == ["2"]


def test_21_8_event_13_chicanes_for_safety_heat_may_be_discarded() -> None:
    race = with_event(board({"A": {"at": 5, "hand": "1234HHS"}, "B": {"at": 1}}), 13)
    race.round(A=(1, "1"), B=(1, "1"))
    race.go_on()
    assert ["H"] in discard_options(race.car("A"), race.state) and ["S"] not in discard_options(
        race.car("A"), race.state
    )
    race.discard("A", "HH")
    assert race.last_turn("A").discarded == ["H", "H"] and race.car("A").discard.count("H") == 2
    base = board({"A": {"at": 5, "hand": "1234HHS"}, "B": {"at": 1}})
    base.round(A=(1, "1"), B=(1, "1"))
    base.go_on()
    base.reject("cards_discarded", car="A", cards=["H"], rule="11.1")


def test_21_8_event_17_tunnel_vision_stress_may_be_discarded() -> None:
    race = with_event(board({"A": {"at": 5, "hand": "1234HHS"}, "B": {"at": 1}}), 17)
    race.round(A=(1, "1"), B=(1, "1"))
    race.go_on()
    race.reject("cards_discarded", car="A", cards=["H"], rule="11.1")
    race.discard("A", "S")
    assert race.last_turn("A").discarded == ["S"] and "S" in race.car("A").discard


def test_21_8_event_17_10_3_the_stress_a_spinout_adds_may_be_discarded_in_the_same_turn() -> None:
    """Recorded while React is still open (a log that went on silently), the discard closes React and the corners
    first: the spinout's 2 Stress (# 10.3, gear 3) are in the hand by step 8 and event 17 lets them go."""
    race = with_event(board({"A": {"at": 8, "gear": 3, "engine": 0, "hand": "4441233"}, "B": {"at": 3}}), 17)
    race.round(A=(3, "444"), B=(1, "1"))  # A: speed 12 over the corner with an empty Engine: it will spin out
    assert race.turn.car == "A" and race.turn.sub == 5 and race.car("A").hand["S"] == 0
    race.discard("A", "SS")
    turn = race.last_turn("A")
    assert turn.spinout and turn.discarded == ["S", "S"] and race.car("A").discard.count("S") == 2
    calm = with_event(board({"A": {"at": 8, "gear": 1, "hand": "4441233"}, "B": {"at": 3}}), 17)
    calm.round(A=(1, "1"), B=(1, "1"))  # no spinout: no Stress comes, and the discard is refused (nothing changes)
    calm.reject("cards_discarded", car="A", cards=["S", "S"], rule="11.1")


def test_21_13_22_6_tunnels_win_over_an_event_that_allows_discards() -> None:
    """Event 17 lets Stress be discarded, but not from a tunnel space (Spain 17–24)."""
    spain = load_track_data("spain")
    race = with_event(board({"A": {"at": 12, "gear": 2, "hand": "34123SS"}, "B": {"at": 1}}, track=spain), 17)
    race.round(A=(2, "34"), B=(1, "1"))  # A: 12 + 7 = 19, in the tunnel
    race.go_on()
    while race.turn.sub < 8:
        race.go_on()
    assert race.state.track.in_tunnel(race.car("A").progress)
    assert "cards_discarded" not in waiting_for(race.state).optional
    race.reject("cards_discarded", car="A", cards=["S"], rule="22.6")


# ---------------------------------------------------------------------------------------------- event 10


def test_21_8_MA21_event_10_a_car_that_spins_out_is_eliminated() -> None:
    """The car leaves the track at once (no longer blocks), nothing more that turn, and takes the last place."""
    race = with_event(
        board({"A": {"at": 8, "gear": 3, "engine": 0, "hand": "4441233"}, "B": {"at": 3, "gear": 3}, "C": {"at": 1}}),
        10,
    )
    race.round(A=(3, "444"), B=(3, "123"), C=(1, "1"))
    race.go_on()  # A: speed 12 over the limit-4 corner with an empty Engine: spinout
    a_turn = race.last_turn("A")
    assert a_turn.spinout and a_turn.eliminated
    assert race.state.eliminated == ["A"] and "A" not in race.state.spots.values()
    assert race.car("A").finished and race.turn.car == "B"  # no discard, no draw: B's turn
    assert race.state.standings()[-1] == "A"
    from heatlog.views.narrate import narrate_turn

    assert "spins out" in narrate_turn(race.state, a_turn) and "is eliminated" in narrate_turn(race.state, a_turn)
    race.refill()
    race.refill()
    assert race.state.round == 2 and race.state.order == ["B", "C"]  # the next round goes on without A


def test_MA21_an_eliminated_car_takes_the_last_place_when_the_race_ends() -> None:
    race = with_event(
        board(
            {"A": {"at": 8, "gear": 3, "engine": 0, "hand": "4441233"}, "B": {"at": 28, "gear": 3, "hand": "4441233"}}
        ),
        10,
    )
    race.round(A=(3, "444"), B=(3, "444"))  # B goes over the line (30 spaces, 1 lap); A spins out
    while race.state.turn is not None:
        race.refill()
    assert race.state.phase == "over" and race.state.hall_of_fame == ["B", "A"]
    assert race.state.eliminated == ["A"]


def test_21_8_event_10_only_a_spinout_eliminates() -> None:
    race = with_event(board({"A": {"at": 5}, "B": {"at": 1}}), 10)
    race.round(A=(1, "1"), B=(1, "1"))
    race.go_on()
    assert race.state.eliminated == [] and not race.last_turn("A").eliminated


# ---------------------------------------------------------------------------------------------- event 18


def _lap(race: Race, name: str) -> None:
    """Go on through React and Slipstream to the discard step of ``name``'s turn."""
    race.turns_until(name)
    while race.turn.sub < 8:
        race.go_on()


def test_21_8_MA23_event_18_a_completed_lap_removes_a_heat_card_from_the_engine() -> None:
    race = with_event(board({"A": {"at": 28, "gear": 2, "hand": "4412333"}, "B": {"at": 1}}, laps=2), 18)
    race.round(A=(2, "44"), B=(1, "1"))  # A: 28 + 8 = 36: lap 1 done (30 spaces)
    _lap(race, "A")
    assert race.car("A").engine == 5 and championship_turn(race.turn).heat_removed == ["engine"]
    assert removed_cards(race.state)(race.turn) == ["engine"]  # the descriptor's, for the information sets
    from heatlog.views.narrate import narrate_turn

    assert "a Heat card from the Engine leaves the game" in narrate_turn(race.state, race.turn)
    assert race.car("A").discard.count("H") == 0  # out of the game, not discarded


def test_21_8_MA23_event_18_the_final_lap_removes_nothing() -> None:
    race = with_event(board({"A": {"at": 28, "gear": 2, "hand": "4412333"}, "B": {"at": 1}}, laps=1), 18)
    race.round(A=(2, "44"), B=(1, "1"))  # A finishes the race
    _lap(race, "A")
    assert race.car("A").engine == 6 and championship_turn(race.turn).heat_removed == []


def test_MA23_event_18_with_an_empty_engine_the_hand_then_the_discard_then_the_deck() -> None:
    race = with_event(board({"A": {"at": 28, "gear": 2, "engine": 0, "hand": "44H2333"}, "B": {"at": 1}}, laps=2), 18)
    race.round(A=(2, "44"), B=(1, "1"))
    _lap(race, "A")
    assert championship_turn(race.turn).heat_removed == ["hand"]
    assert race.car("A").hand["H"] == 0 and race.car("A").hand_size == 4
    race = with_event(
        board({"A": {"at": 28, "gear": 2, "engine": 0, "hand": "4412333", "discard": "H1"}, "B": {"at": 1}}, laps=2),
        18,
    )
    race.round(A=(2, "44"), B=(1, "1"))
    _lap(race, "A")
    assert championship_turn(race.turn).heat_removed == ["discard"] and race.car("A").discard == ["1"]
    race = with_event(
        board({"A": {"at": 28, "gear": 2, "engine": 0, "hand": "4412333", "deck": "12H3"}, "B": {"at": 1}}, laps=2),
        18,
    )
    race.round(A=(2, "44"), B=(1, "1"))
    _lap(race, "A")
    assert championship_turn(race.turn).heat_removed == ["deck"] and race.car("A").deck == list(reversed(cards("123")))


def event_18_revealed_in_table_mode() -> Race:
    """Event 18, table mode: A, with an empty Engine and a hidden hand that may hold Heat, has revealed 4 4 on its
    way over the finish line (a lap ends: a Heat card leaves the game, MA23) and is reacting."""
    race = with_event(
        board(
            {"A": {"at": 28, "gear": 2, "engine": 0, "hand": "44H2333", "discard": "H"}, "B": {"at": 1}},
            laps=2,
            mode="table",
        ),
        18,
    )
    race.gears(A=2, B=1)
    race.reveal("A", "44")
    return race


def test_MA23_the_tables_answer_closes_react_and_comes_before_the_discard() -> None:
    """Table mode, an empty Engine, a hand that may hold Heat: a log that went on silently from React records
    ``heat_removed`` next (it closes React and the slipstream, MA23 at step 8's entry); a discard first is
    refused (the chance outcome is recorded before anything else of the turn) and changes nothing."""
    race = event_18_revealed_in_table_mode()
    assert race.turn.sub == 5
    race.reject("cards_discarded", car="A", cards=["3"], rule="MA23")
    race.ev("heat_removed", car="A", **{"from": "hand"})
    assert race.turn.sub == 8 and championship_turn(race.turn).heat_removed == ["hand"] and not race.turn.owed
    race.discard("A", "3")
    assert race.last_turn("A").discarded == ["3"]


def test_MA23_event_18_in_a_tunnel_is_not_a_discard() -> None:
    """The Heat card leaves the game on a tunnel space too (# 22.6 forbids discards from the hand only)."""
    tunnel = {**TRACK, "schema_version": 2, "special_spaces": {"flooded": [], "tunnel": list(range(1, 9))}}
    race = with_event(board({"A": {"at": 28, "gear": 2, "hand": "4412333"}, "B": {"at": 1}}, track=tunnel, laps=2), 18)
    race.round(A=(2, "44"), B=(1, "1"))  # 28 + 8 = 36: space 6 of lap 2, in the tunnel
    _lap(race, "A")
    assert race.state.track.in_tunnel(race.car("A").progress)
    assert championship_turn(race.turn).heat_removed == ["engine"] and race.car("A").engine == 5


def test_MA23_event_18_in_table_mode_the_table_says_where_the_card_came_from() -> None:
    """Table mode, empty Engine, a hidden hand that may hold Heat: the turn waits for heat_removed."""
    race = event_18_revealed_in_table_mode()
    race.go_on()
    w = waiting_for(race.state)
    assert (w.due, w.cars, w.count) == ("heat_removed", ["A"], 1) and w.chance
    race.reject("cards_discarded", car="A", cards=["2"], rule="MA23")
    race.reject("cards_drawn", car="A", count=1, rule="MA23")
    race.reject("heat_removed", car="A", error=MalformedInput, **{"from": "engine"})
    race.reject("heat_removed", car="A", rule="MA23", **{"from": "deck"})  # the discard pile holds one
    race.ev("heat_removed", car="A", **{"from": "hand"})
    assert championship_turn(race.turn).heat_removed == ["hand"]
    assert race.car("A").hand_size == 4 and race.car("A").pool["H"] == 0
    assert waiting_for(race.state).due == "cards_drawn"


def test_MA23_heat_removed_is_refused_when_nothing_is_owed() -> None:
    race = with_event(board({"A": {"at": 5}, "B": {"at": 1}}), 18)
    race.round(A=(1, "1"), B=(1, "1"))
    with pytest.raises(IllegalEvent, match="owes no Heat card"):
        apply(race.state, ev("heat_removed", car="A", **{"from": "hand"}))


def test_21_8_decisions_follow_the_event_cards_rules() -> None:
    """The decisions offered are the Rules' (one joint set of points): no adrenaline under event 14."""
    race = with_event(board({"A": {"at": 5}, "B": {"at": 1}}), 14)
    from heatlog.engine import start_round

    race.state.round = 0
    start_round(race.state)
    race.round(A=(1, "1"), B=(1, "1"))
    race.turns_until("B")
    assert not [d for d in decisions(race.state, "B") if d["type"] == "adrenaline"]


def test_MA21_a_position_keeps_the_eliminated_cars_and_the_championship_block() -> None:
    """A position of a championship race holds its block (the race's Rules) and who was eliminated; it
    round-trips exactly and passes the position schema."""
    from heatlog.engine import state_from_position, state_to_position
    from heatlog.formats.validation import validate_against

    race = with_event(
        board({"A": {"at": 8, "gear": 3, "engine": 0, "hand": "4441233"}, "B": {"at": 3, "gear": 3}, "C": {"at": 1}}),
        10,
    )
    race.round(A=(3, "444"), B=(3, "123"), C=(1, "1"))
    race.go_on()
    pos = state_to_position(race.state)
    validate_against("position", pos)
    assert pos["eliminated"] == ["A"] and pos["modules"]["championship"]["event"]["number"] == 10
    back = state_from_position(pos)
    assert back.eliminated == ["A"] and back.rules.modules == ("championship",) and "A" not in back.spots.values()
    assert state_to_position(back) == pos
    plain = state_to_position(board({"A": {"at": 5}, "B": {"at": 1}}).state)
    assert "eliminated" not in plain and "modules" not in plain  # a base position is unchanged


def test_MA21_the_heuristic_bot_weighs_a_spinout_under_event_10_as_the_end_of_its_race() -> None:
    """Under event 10 a spinout eliminates (0 points, last place): the heuristic's plan counts it so; the same
    board without the event keeps the plain spinout weight (the two plans are not shared)."""
    from heatlog.bots import ELIMINATED, heuristic_bot

    spec = {"A": {"at": 5}, "B": {"at": 1}}
    plain = heuristic_bot._track_plan(board(spec).state)
    ten = heuristic_bot._track_plan(with_event(board(spec), 10).state)
    assert ten.spin == plain.spin + ELIMINATED and ten is not plain
    assert heuristic_bot._track_plan(with_event(board(spec), 7).state).spin == plain.spin
