"""What the table knows (table mode: draws are counts, hands hidden) and readable error messages (# 1.1, 1.7,
4.1, 5.6, 7.3, 12.2, 13.1)."""

from __future__ import annotations

import json

from heatlog.engine import HeatlogError, IllegalEvent, MalformedInput
from heatlog.engine.knowledge import Knowledge

from .conftest import PARKED, board, deck, start_race


def table(b_hand="1234123", b_deck=None, b_engine=6, b_gear=1, b_discard=""):
    """Table mode; the builder knows B's cards, the engine only knows B's unseen multiset (deck and hand).
    By default B's deck is the rest of its 18-card starting deck (# 1.1, 1.2)."""
    if b_deck is None:
        b_deck = deck(b_hand)[7:]
    return board(
        {
            "A": {"at": 20, "hand": PARKED},
            "B": {"at": 3, "hand": b_hand, "deck": b_deck, "engine": b_engine, "gear": b_gear, "discard": b_discard},
        },
        mode="table",
    )


def test_1_7_table_mode_turn_draws_are_counts_and_hands_unknown():
    # 1.7, 12.2
    race = table()
    race.gears(A=1, B=2)
    race.reject("cards_played", car="B", cards=["1", "2"], rule="1.7")
    race.reveal("A", "0").refill()
    race.reveal("B", "12")
    assert race.car("B").hand is None and race.car("B").hand_size == 5
    race.go_on().go_on()
    race.reject("cards_drawn", car="B", cards=["4", "1"], rule="1.7")
    race.reject("cards_drawn", car="B", count=3, rule="12.2")
    race.ev("cards_drawn", car="B", count=2)
    assert race.car("B").hand_size == 7 and race.state.round == 2


def test_1_1_table_mode_refuses_a_fourth_four_revealed():
    # 1.1, 4.1: a car has three 4s; revealing four is impossible.
    race = table(b_hand="4441231", b_gear=3)
    race.gears(A=1, B=4)
    race.reveal("A", "0").refill()
    err = race.reject("cards_revealed", car="B", cards=["4", "4", "4", "4"], rule="4.1")
    assert 'only 3 "4" are unseen' in str(err)


def test_1_1_table_mode_refuses_a_fourth_four_flipped():
    # 1.1, 5.2: three 4s revealed with a Stress; the Stress flip cannot find a fourth 4.
    race = table(b_hand="444S123", b_gear=3)
    race.gears(A=1, B=4)
    race.reveal("A", "0").refill()
    race.reveal("B", "444S")
    err = race.reject("card_flipped", car="B", card="4", rule="1.1")
    assert "no " in str(err) and '"4"' in str(err)
    race.flip("B", "3")
    assert race.turn.speed == 15


def test_1_1_table_mode_refuses_a_flip_of_a_card_known_to_be_in_the_discard():
    # 1.1: both 0 and 5 are known to be in the discard pile: a flip cannot show them.
    race = table(b_hand="S123412", b_deck="4123412341", b_discard="0 5")
    race.gears(A=1, B=1)
    race.reveal("A", "0").refill()
    race.reveal("B", "S")
    race.reject("card_flipped", car="B", card="5", rule="1.1")
    race.reject("card_flipped", car="B", card="0", rule="1.1")
    race.flip("B", "2")


def test_13_1_table_mode_refuses_a_cluttered_claim_the_known_heat_makes_impossible():
    # 13.1: with 6 Heat on the Engine only 1 Heat can be unseen; a cluttered "1 H" in gear 2 would leave 5 Heat
    # in the hand.
    race = table(b_hand="1H23412")
    race.gears(A=1, B=2)
    race.reveal("A", "0").refill()
    err = race.reject("cards_revealed", car="B", cards=["1", "H"], rule="13.1")
    assert "5 Heat" in str(err)


def test_13_1_table_mode_accepts_a_possible_cluttered_claim():
    # 13.1, 13.2: 6 Heat unseen (1 on the Engine): "1 H" leaves 5 Heat, possible.
    race = table(b_hand="1HHHHHH", b_deck=deck("1H")[2:], b_engine=1)
    race.gears(A=1, B=2)
    race.reveal("A", "0").refill()
    race.reveal("B", "1H")
    assert race.turn.cluttered and race.car("B").gear == 1 and race.car("B").progress == 3


def test_7_3_table_mode_cooldown_limited_by_heat_that_can_be_in_hand():
    # 7.3: 6 Heat on the Engine: at most 1 Heat can be in the hand.
    race = table(b_hand="1H23412")
    race.gears(A=1, B=1)
    race.reveal("A", "0").refill()
    race.reveal("B", "1")
    race.reject("cooldown", car="B", count=2, rule="7.3")
    race.cooldown("B", 1)
    assert race.car("B").engine == 7 and race.car("B").pool["H"] == 0


def test_5_6_table_mode_reshuffle_without_an_order():
    # 5.6, 1.7: the new deck is the (public) discard pile; its order is not recorded at the table.
    race = table(b_hand="S123412", b_deck="", b_discard="H 3")
    race.gears(A=1, B=1)
    race.reveal("A", "0").refill()
    race.reveal("B", "S")
    race.reject("deck_shuffled", car="B", order=["3", "H"], rule="1.7")
    race.ev("deck_shuffled", car="B")
    race.flip("B", "H")
    race.flip("B", "3")
    assert race.turn.speed == 3


def test_5_6_table_mode_draw_no_more_than_the_deck_holds():
    # 5.6
    race = table(b_deck="4", b_gear=2)
    race.gears(A=1, B=2)
    race.reveal("A", "0").refill()
    race.reveal("B", "12")
    race.go_on().go_on()
    race.reject("cards_drawn", car="B", count=2, rule="5.6")
    race.ev("cards_drawn", car="B", count=1)
    race.ev("deck_shuffled", car="B")
    race.ev("cards_drawn", car="B", count=1)
    assert race.car("B").hand_size == 7


def test_table_mode_reveal_only_in_turn():
    # 2.4, 1.7: B cannot reveal before A has finished; open-mode style play is refused.
    race = table()
    race.gears(A=1, B=1)
    race.reject("cards_revealed", car="B", cards=["1"], rule="2.4")


def test_table_mode_whole_race_from_counts_plays_out():
    # 1.7: a two-car race recorded with counts only runs its turns.
    race = start_race(mode="table")
    race.gears(A=2, B=2)
    race.reveal("A", "12").refill()
    race.reveal("B", "34").refill()
    assert race.state.round == 2 and race.car("A").progress == 3 and race.car("B").progress == 7


# ------------------------------------------------------------------------------------- readable errors


def test_error_message_names_round_step_car_input_and_rule():
    # 7.6: "illegal: round 1, step 5 (react), car B: {...boost...}: ... (# 7.6)"
    race = table(b_engine=0)
    race.gears(A=1, B=1)
    race.reveal("A", "0").refill()
    race.reveal("B", "1")
    err = race.reject("boost", car="B", rule="7.6")
    text = str(err)
    assert text.startswith("illegal: round 1, step 5 (react), car B: ")
    assert '"type": "boost"' in text and text.endswith("(# 7.6)")
    assert err.to_dict()["rule"] == "7.6" and err.to_dict()["car"] == "B" and err.to_dict()["step"] == 5
    assert "race 12" in str(err.located(race=12))


def test_error_message_at_step_1_and_2():
    # 3.4, 4.1
    race = board({"A": {"at": 5}, "B": {"at": 3}})
    err = race.reject("gear_chosen", car="A", gear=4, rule="3.4")
    assert str(err).startswith("illegal: round 1, step 1 (shift gears), car A: ")
    race.gears(A=1, B=1)
    err = race.reject("cards_played", car="B", cards=["1", "2"], rule="4.1")
    assert str(err).startswith("illegal: round 1, step 2 (play cards), car B: ")
    assert "gear 1" in str(err)


def test_malformed_versus_illegal():
    # MalformedInput: cannot be read; IllegalEvent: well-formed but the rules forbid it.
    race = board({"A": {"at": 5}, "B": {"at": 3}})
    err = race.reject("gear_chosen", car="Zed", gear=2, error=MalformedInput)
    assert "A, B" in str(err)
    race.reject("gear_chosen", car="A", gear="two", error=MalformedInput)
    race.reject("no_such_event", car="A", error=MalformedInput)
    assert isinstance(race.reject("gear_chosen", car="A", gear=4), IllegalEvent)
    for e in (MalformedInput("x"), IllegalEvent("y")):
        assert isinstance(e, HeatlogError)
    assert json.loads(json.dumps(err.to_dict()))["kind"] == "malformed"


def test_5_6_table_mode_after_a_reshuffle_the_deck_is_the_old_discard_pile():
    # 5.6, 1.7: B's deck is empty; its Stress flip needs a reshuffle of the public discard pile (1 2 H).
    # The new deck holds exactly those cards, so a 4 cannot be flipped, though B's hand may hold 4s.
    race = table(b_hand="S444123", b_deck="", b_discard="1 2 H", b_gear=1)
    race.gears(A=1, B=1)
    race.reveal("A", "0").refill()
    race.reveal("B", "S")
    race.ev("deck_shuffled", car="B")
    assert race.car("B").deck_max is not None
    err = race.reject("card_flipped", car="B", card="4", rule="5.6")
    assert "the 3-card deck is exactly 1 2 H" in str(err)
    race.flip("B", "H", "2")  # the Heat is skipped (# 5.2), the 2 is found
    assert race.turn.speed == 2
    race.reject("card_flipped", car="B", card="2", rule="14.1")  # nothing left to resolve


def test_13_1_table_mode_cards_that_cannot_be_in_the_deck_make_a_clutter_claim_impossible():
    # 13.1, 5.6, 1.7: B reshuffles a discard of H 1 plus its played 4 (# 12.1): the new deck can hold one 4 at
    # most, so two of B's three unseen 4s are in its hand. In gear 3, Heat only is not a cluttered hand; 4 4 H is.
    race = table(b_hand="444HHHH", b_deck="", b_discard="H 1", b_gear=1)
    race.gears(A=1, B=1)
    race.reveal("A", "0").refill()
    race.reveal("B", "4").go_on().go_on()
    race.ev("deck_shuffled", car="B")
    race.ev("cards_drawn", car="B", count=1)
    b = race.car("B")
    known = Knowledge.of(b)
    assert known.hand_min("4") == 2 and known.hand_min("H") == 4
    race.gears(A=1, B=3)
    race.reveal("A", "1").refill()
    err = race.reject("cards_revealed", car="B", cards=["H", "H", "H"], rule="13.1")
    assert "at least 2 playable" in str(err)
    race.reveal("B", "44H")
    assert race.last_turn("B").cluttered and race.car("B").gear == 1


def test_error_messages_show_an_embedded_track_by_name_and_stay_short():
    # A race_started error names the track, not its whole data, and a long input is cut.
    from heatlog.engine.errors import MAX_SHOWN, shown_input

    assert '"track": "<track usa>"' in shown_input({"type": "race_started", "track": {"id": "usa", "spaces": 69}})
    long = shown_input({"type": "note", "text": "x" * 1000})
    assert len(long) == MAX_SHOWN and long.endswith("…")


def test_1_7_one_deduction_a_deck_known_to_be_1_h_h_leaves_seven_stress_in_hand():
    # 1.7, 5.2, 5.6 (issue 10 item 3): B's 3-card deck is provably 1 H H (the table saw it shuffled from the
    # discard pile), so its 7-card hand is seven Stress. Reveal and flip ask the same deduction: a reveal of
    # "1 S" is refused (the 1 is in the deck), "S S" is accepted, and the Stress flip then accepts the 1 or a
    # Heat -- never a Stress, which is all in the hand or the Play Area.
    race = table(b_hand="SSSSSSS", b_deck="1HH", b_gear=1)
    race.car("B").deck_max = {"1": 1, "2": 0, "3": 0, "4": 0, "0": 0, "5": 0, "H": 2, "S": 0}
    known = Knowledge.of(race.car("B"))
    assert known.deck_known() == known.cap and known.hand_min("S") == 7
    race.gears(A=1, B=2)
    race.reveal("A", "0").refill()
    err = race.reject("cards_revealed", car="B", cards=["1", "S"], rule="4.1")
    assert "the 3-card deck is exactly 1 H H" in str(err)
    race.reveal("B", "SS")
    race.reject("card_flipped", car="B", card="S", rule="5.6")
    race.flip("B", "H", "1")  # the Heat is skipped (# 5.2), the 1 found for the first Stress
    race.flip("B", "H")  # the last Heat is skipped: the deck is empty and the discard holds no Basic card
    assert race.turn.stress_left == 0 or race.turn.flipping is None
