"""Table mode knows the card a Refresh put back on top of the deck (# 18.21, MA15; principle 5: one joint
deduction for every check, heatlog/engine/knowledge.py).

The board: the test track (corner lines after 10, limit 4, and 13, limit 3), ``P`` parked far ahead, ``A`` on
space 10 in gear 1 with an empty Engine. ``A`` plays Suspension U34 (speed 4, Refresh) over the corner after 13:
it cannot pay the Heat and spins out (# 10.1–10.4), taking 1 Stress (gear 1, # 10.3), so its hand is full again
(6 + 1) and nothing is drawn (# 12.2): the Refresh card stays on top of the deck, face known to the table.
The races are started from a position (the engine's public API and the race log), so the errors name the race.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from heatlog.analysis.infoset import information_set
from heatlog.engine import (
    IllegalEvent,
    Knowledge,
    MalformedInput,
    RaceState,
    apply,
    state_from_position,
    state_to_position,
)
from heatlog.engine.redact import strip_identities
from heatlog.formats.positions import check_position
from heatlog.formats.validation import validate_against
from heatlog.log.racelog import RaceLog
from heatlog.races import race_started_event
from heatlog.recorder import Session

from .scenarios import OPTIONS, garage_board

Event = dict[str, Any]


def ev(kind: str, **fields: Any) -> Event:
    return {"type": kind, "v": 1, **fields}


A_UPGRADES = "U34 U33 U22"  # Suspension 4 (Refresh), Suspension 2 (cooldown 1, Refresh), Fuel 2 (Salvage 2)


def own(upgrades: str) -> Counter[str]:
    """What a Garage car owns besides its Engine's Heat: 12 Basic, its 3 upgrades, 3 Stress (# 18.1, MC2)."""
    return Counter([c for c in "1234" for _ in range(3)] + upgrades.split() + ["S"] * 3)


def rest(upgrades: str, hand: str, discard: str = "") -> str:
    """The deck: the car's cards (its Engine's Heat apart) less its hand and ``discard``."""
    left = own(upgrades) - Counter(hand.split()) - Counter(discard.split())
    return " ".join(sorted(left.elements()))


def start_position(hand: str, *, gear: int = 1, at: int = 10, mode: str = "table", discard: str = "") -> dict[str, Any]:
    """The board at step 1 of round 1 as a position: A's Engine is empty (its 6 Heat in the discard pile)."""
    pile = " ".join(["H"] * 6 + discard.split())
    race = garage_board(
        {
            "P": {
                "at": 29,
                "hand": "1 1 1 2 2 2 3",
                "upgrades": "U13 U15 U16",
                "deck": rest("U13 U15 U16", "1 1 1 2 2 2 3"),
            },
            "A": {
                "at": at,
                "gear": gear,
                "engine": 0,
                "hand": hand,
                "upgrades": A_UPGRADES,
                "deck": rest(A_UPGRADES, hand, discard),
                "discard": pile,
            },
        },
        mode=mode,
    )
    pos = json.loads(json.dumps(state_to_position(race.state)))
    check_position(pos)  # a whole, consistent position: what every car holds is its own (# 1.2, 18.1)
    return pos


def started(pos: dict[str, Any]) -> Event:
    """The race_started of a Garage race (its modules and cards) starting from the position ``pos``."""
    event = race_started_event(
        track=pos["track"],
        cars=[{"name": c["name"], "colour": c["colour"]} for c in pos["cars"]],
        laps=pos["laps"],
        mode=pos["mode"],
        modules={"garage": dict(OPTIONS)},
    )
    return {**event, "position": pos}


def round_1(refresh: list[str], reveal: list[str], gear: int = 1) -> list[Event]:
    """P drives 1; A reveals ``reveal``, spins out at the corner after 13 and refreshes ``refresh`` in order."""
    out = [ev("gear_chosen", car="P", gear=1), ev("gear_chosen", car="A", gear=gear)]
    out += [ev("cards_revealed", car="P", cards=["1"]), ev("cards_drawn", car="P", count=1)]
    out += [ev("cards_revealed", car="A", cards=reveal)]
    out += [ev("refreshed", car="A", card=c) for c in refresh]
    return out


def round_2_stress() -> list[Event]:
    """A reveals a Stress (gear 1 after the spinout, # 10.4): the flip for it comes from the top of the deck."""
    return [
        ev("gear_chosen", car="P", gear=1),
        ev("gear_chosen", car="A", gear=1),
        ev("cards_revealed", car="P", cards=["1"]),
        ev("cards_drawn", car="P", count=1),
        ev("cards_revealed", car="A", cards=["S"]),
    ]


HAND = "U34 1 1 2 2 3 3"


def fold(events: list[Event]) -> RaceState:
    state: RaceState | None = None
    for e in events:
        state = apply(state, e)
    assert state is not None
    return state


@pytest.fixture
def refreshed_log() -> list[Event]:
    pos = start_position(HAND)
    return [started(pos), *round_1(["U34"], ["U34"]), *round_2_stress()]


def test_18_21_a_flip_of_another_card_than_the_refreshed_one_is_refused_naming_race_round_step_car_input_rule(
    tmp_path: Path, refreshed_log: list[Event]
) -> None:
    with RaceLog(tmp_path / "race.db") as log:
        race = log.new_race(refreshed_log[0])
        for e in refreshed_log[1:]:
            log.append(race, e)
        a = log.project(race).state.cars["A"]
        assert a.hand_size == 6 and a.deck_top == ("U34",)  # the hand was full: nothing drawn (# 12.2)
        length = log.effective(race).length
        bad = ev("card_flipped", car="A", card="4")
        with pytest.raises(IllegalEvent) as info:
            log.append(race, bad)
        err = info.value
        assert (err.race, err.round, err.car, err.rule, err.input) == (race, 2, "A", "18.21", bad)
        text = str(err)
        assert text.startswith(f"illegal: race {race}, round 2, step 3 (reveal and move), car A: ")
        assert '"card": "4"' in text and "Suspension 4" in text and text.endswith("(# 18.21)")
        assert "U34" not in text  # the card by its name, not its code (issue 29)
        assert log.effective(race).length == length  # nothing was written (principle 3)
        log.append(race, ev("card_flipped", car="A", card="U34"))  # the known card: accepted (# 18.9: discarded)
        state = log.project(race).state
        assert state.cars["A"].deck_top == () and state.cars["A"].discard[-1] == "U34"
        log.append(race, ev("card_flipped", car="A", card="4"))  # the rest of the deck is hidden again: any card
        assert log.project(race).state.turn.flips[-1] == ("stress", "4")


def test_18_21_every_check_of_the_one_deduction_knows_the_top_card(refreshed_log: list[Event]) -> None:
    """Knowledge (the one deduction) sets the known top card apart: the deck must show it, holds it, and the hand
    cannot (reveal, discard and cooldown checks ask the same deduction)."""
    state = fold(refreshed_log[:-1])  # before the Stress reveal of round 2
    know = Knowledge.of(state.cars["A"])
    assert know.top == ("U34",)
    assert know.deck_can_show("U34") and not any(know.deck_can_show(c) for c in ("1", "2", "3", "4", "S"))
    assert know.deck_min("U34") == know.deck_max("U34") == 1
    assert know.hand_max("U34") == 0  # its only copy is on the deck
    assert state.cars["A"].hand_size == 7  # 6 + 1 Stress: nothing was drawn (# 10.3, 12.2)
    assert "Refresh put" in (know.why_not_in_hand(["U34"]) or "")
    with pytest.raises(IllegalEvent, match=r"only 0 Suspension 4 can be in the hand.*Refresh"):
        apply(state.copy(), ev("cards_revealed", car="A", cards=["U34"]))  # # 18.21: it is on the deck
    # A cluttered claim (# 13.1) counts it out of the hand too: 7 cards, no Heat unseen, so no clutter.
    assert know.why_not_cluttered(["H"], 1) is not None


def test_18_21_stacked_refreshes_keep_their_order_and_a_draw_takes_the_top_one_first() -> None:
    """Two Refresh cards (U34 then U33, the last named on top, MA15), gear 2: spinout, 1 Stress (# 10.3), the hand
    is 6 and draws 1: the top one (U33) goes to the hand, U34 waits on top for the next flip."""
    pos = start_position("U34 U33 1 1 2 2 3", gear=2)
    log = [started(pos), *round_1(["U34", "U33"], ["U34", "U33"], gear=2)]
    before_draw = fold(log)
    assert before_draw.cars["A"].hand_size == 6 and before_draw.cars["A"].deck_top == ()  # still in the Play Area
    state = fold([*log, ev("cards_drawn", car="A", count=1)])  # step 9: on top (U33 last), then the draw (# 12.1)
    a = state.cars["A"]
    know = Knowledge.of(a)
    assert a.deck_top == ("U34",) and know.hand_min("U33") == 1  # the table saw U33 go into the hand
    state = fold([*log, ev("cards_drawn", car="A", count=1), *round_2_stress()])
    with pytest.raises(IllegalEvent, match=r"top card of the deck is Suspension 4.*18\.21"):
        apply(state.copy(), ev("card_flipped", car="A", card="4"))
    apply(state, ev("card_flipped", car="A", card="U34"))
    # The other order: U33 then U34 puts U34 on top, so the draw takes U34 and U33 waits.
    other = [started(pos), *round_1(["U33", "U34"], ["U34", "U33"], gear=2), ev("cards_drawn", car="A", count=1)]
    a = fold(other).cars["A"]
    assert a.deck_top == ("U33",) and Knowledge.of(a).hand_min("U34") == 1


def test_18_21_a_draw_of_several_takes_the_known_cards_first_then_hidden_ones() -> None:
    """Gear 3 from space 14 (U34 U33 1: speed 7, no corner): the hand keeps 4 and draws 3: the two Suspensions
    refreshed (U34 then U33, so U33 on top), then one hidden card. The table knows both are in the hand; the
    information set agrees with the engine."""
    pos = start_position("U34 U33 1 2 2 3 3", gear=3, at=14)
    log = [started(pos), *round_1(["U34", "U33"], ["U34", "U33", "1"], gear=3), ev("cards_drawn", car="A", count=3)]
    state = fold(log)
    a = state.cars["A"]
    assert a.hand_size == 7 and a.deck_top == () and a.progress == 21  # no spinout
    know = Knowledge.of(a)
    assert know.hand_min("U33") == know.hand_min("U34") == 1 and know.deck_max("U34") == 0
    info = information_set(log)
    tokens = info.beliefs["A"].tokens
    for hand in info.hand_distribution("A"):
        assert hand[tokens.index("U33")] == hand[tokens.index("U34")] == 1


def test_18_18_21_a_shuffle_of_the_deck_forgets_the_known_top_card() -> None:
    """A Salvage (# 18.18) shuffles cards into the whole draw deck: the Refresh card on top is lost in it, and a
    flip may then show any card the deck can hold."""
    pos = start_position("U34 U22 1 1 2 3 3", discard="2")
    state = fold([started(pos), *round_1(["U34"], ["U34"])])
    assert state.cars["A"].deck_top == ("U34",)
    for e in [
        ev("gear_chosen", car="P", gear=1),
        ev("gear_chosen", car="A", gear=1),
        ev("cards_revealed", car="P", cards=["1"]),
        ev("cards_drawn", car="P", count=1),
        ev("cards_revealed", car="A", cards=["U22"]),
    ]:
        apply(state, e)
    apply(state, ev("salvaged", car="A", sources=["U22"], cards=["2"]))
    apply(state, ev("deck_shuffled", car="A"))
    assert state.cars["A"].deck_top == ()
    know = Knowledge.of(state.cars["A"])
    assert know.top == () and know.deck_can_show("4") and know.deck_can_show("U34")


def test_18_21_the_known_top_card_survives_a_position_and_older_positions_load_without_it(
    refreshed_log: list[Event],
) -> None:
    """Principle 8: the position carries ``deck_top`` (top first, as ``deck``), validated by the schema, read back
    whole; a position written before the field existed (none) loads with nothing known on top."""
    state = fold(refreshed_log)
    pos = json.loads(json.dumps(state_to_position(state)))
    validate_against("position", pos)
    assert pos["cars"][1]["name"] == "A" and pos["cars"][1]["deck_top"] == ["U34"]
    assert "deck_top" not in pos["cars"][0]  # nothing known on P's deck: the field is absent, as before
    back = state_from_position(pos)
    assert state_to_position(back) == pos and back.cars["A"].deck_top == ("U34",)
    with pytest.raises(IllegalEvent, match=r"18\.21"):
        apply(back.copy(), ev("card_flipped", car="A", card="4"))
    apply(back, ev("card_flipped", car="A", card="U34"))
    old = json.loads(json.dumps(pos))
    del old["cars"][1]["deck_top"]
    validate_against("position", old)
    assert state_from_position(old).cars["A"].deck_top == ()
    bad = json.loads(json.dumps(pos))
    bad["cars"][1]["deck_top"] = ["U13"]  # P's card, not one of A's
    with pytest.raises(MalformedInput, match="deck_top"):
        state_from_position(bad)
    too_many = json.loads(json.dumps(pos))
    too_many["cars"][1]["deck_top"] = ["4"] * 5  # A holds 4 "4"s
    with pytest.raises(MalformedInput, match="deck_top"):
        state_from_position(too_many)


def test_18_21_an_open_race_keeps_the_fact_so_its_table_position_knows_it() -> None:
    """In open mode the deck order is known, and the table's fact is kept beside it: stripping the position to
    what a table sees (redact.strip_identities) keeps the card known on top."""
    pos = start_position(HAND, mode="open")
    state = fold([started(pos)])
    for e in round_1(["U34"], ["U34"]):
        if e["type"] == "cards_revealed":
            continue  # open mode: the plays are made at step 2
        if e["type"] == "cards_drawn":
            e = ev("cards_drawn", car="P", cards=[state.cars["P"].deck[-1]])  # the known order
        apply(state, e)
        if e["type"] == "gear_chosen" and e["car"] == "A":
            apply(state, ev("cards_played", car="P", cards=["1"]))
            apply(state, ev("cards_played", car="A", cards=["U34"]))
    a = state.cars["A"]
    assert a.deck is not None and a.deck[-1] == "U34" and a.deck_top == ("U34",)
    table = state_from_position(strip_identities(state_to_position(state)))
    assert table.cars["A"].deck is None and table.cars["A"].deck_top == ("U34",)


def test_18_21_the_information_set_uses_the_engine_s_fact(refreshed_log: list[Event]) -> None:
    """Analysis asks the engine, not a copy of the rule: the information set refuses the same flip with the
    engine's error, knows the card on top, and every sampled world has it there."""
    import random

    info = information_set(refreshed_log)
    assert info.tops == {"A": ["U34"]}
    for k in range(10):
        world = info.sample(random.Random(k))
        assert world.cars["A"].deck is not None and world.cars["A"].deck[-1] == "U34"
        assert world.cars["A"].hand is not None and world.cars["A"].hand["U34"] == 0
    with pytest.raises(IllegalEvent, match=r"18\.21"):
        information_set([*refreshed_log, ev("card_flipped", car="A", card="4")])
    after = information_set([*refreshed_log, ev("card_flipped", car="A", card="U34")])
    assert after.tops == {}


def test_18_21_the_recorder_tells_the_flip_of_the_known_card_instead_of_asking(tmp_path: Path) -> None:
    """The recorder's forced path: a flip of the card known on top is told (an automatic entry), and the next flip
    is asked."""
    pos = start_position(HAND)
    with RaceLog(tmp_path / "race.db") as log:
        race = log.new_race(started(pos))
        for e in [*round_1(["U34"], ["U34"]), *round_2_stress()[:-1]]:
            log.append(race, e)
        s = Session(log, race, fresh=True)
        assert s.question.kind == "reveal" and s.question.car == "A"
        s.answer("s")
        assert s.question.kind == "flip" and s.question.auto is None  # the U34 flip was told, not asked
        flips = [e for e in (x.event for x in log.effective(race).entries) if e["type"] == "card_flipped"]
        assert flips == [ev("card_flipped", car="A", card="U34")]


def test_18_21_open_mode_without_the_shuffle_order_the_recorder_tells_the_flip_of_the_known_card(
    tmp_path: Path,
) -> None:
    """Open mode whose shuffles were not typed (the deck order unknown): the Refresh card is still known on top
    (the same fact), so the recorder tells its flip ("determined by the rules") and asks the next one. The Refresh
    is typed in React as ``f:susp4`` (the spinout fills the hand, so the turn ends as React closes)."""
    pos = start_position(HAND, mode="open")
    for car in pos["cars"]:
        car["deck"] = None  # the host did not type the shuffles
    pos["unknown"] = ["deck order of P", "deck order of A"]
    answers = ["1 1", "1", "susp4", "", "", "4", "f:susp4", "1 1", "1", "s", "", "4"]
    with RaceLog(tmp_path / "race.db") as log:
        race = log.new_race(started(pos))
        s = Session(log, race, fresh=True)
        told: list[str] = []
        for answer in answers:
            assert s.question.auto is None
            for line in s.answer(answer) or []:
                told.append(getattr(line, "text", str(line)))
        assert any("A flips susp4 (determined by the rules)" in t for t in told), told
        assert s.question.kind == "flip" and s.question.car == "A" and s.question.auto is None
        events = [x.event for x in log.effective(race).entries]
        assert events[-1] == ev("card_flipped", car="A", card="U34")
        assert log.project(race).state.cars["A"].deck_top == ()


def test_18_21_an_open_draw_without_the_shuffle_order_must_take_the_known_top_card() -> None:
    """Open mode, deck order not typed: the draw names its cards, and the card a Refresh put on top must be
    among them (# 18.21); any card the deck holds may come after it."""
    pos = start_position("U34 U33 1 1 2 2 3", gear=2, mode="open")
    for car in pos["cars"]:
        car["deck"] = None
    pos["unknown"] = ["deck order of P", "deck order of A"]
    state = fold([started(pos)])
    for e in round_1(["U34", "U33"], ["U34", "U33"], gear=2):
        if e["type"] == "cards_revealed":
            continue  # open mode: the plays are made at step 2
        if e["type"] == "cards_drawn":
            e = ev("cards_drawn", car="P", cards=["4"])
        apply(state, e)
        if e["type"] == "gear_chosen" and e["car"] == "A":
            apply(state, ev("cards_played", car="P", cards=["1"]))
            apply(state, ev("cards_played", car="A", cards=["U34", "U33"]))
    assert state.cars["A"].hand_size == 6  # 5 + 1 Stress (# 10.3): one card to draw, U33 (on top)
    with pytest.raises(IllegalEvent, match=r"Refresh put Suspension 2 \(susp2cool\) .* draw takes it first.*18\.21"):
        apply(state.copy(), ev("cards_drawn", car="A", cards=["4"]))
    apply(state, ev("cards_drawn", car="A", cards=["U33"]))
    assert state.cars["A"].deck_top == ("U34",) and state.cars["A"].hand is not None
    assert state.cars["A"].hand["U33"] == 1


def test_18_21_the_game_api_s_chance_outcomes_keep_the_known_card_on_top() -> None:
    """Analysis's game API over an open race without typed shuffles: the flip after a Refresh has one outcome, the
    known card (not every card the deck holds, by its counts)."""
    from heatlog.engine.game import pending_chance

    pos = start_position(HAND, mode="open")
    for car in pos["cars"]:
        car["deck"] = None
    pos["unknown"] = ["deck order of P", "deck order of A"]
    state = fold([started(pos)])
    for e in [*round_1(["U34"], ["U34"]), *round_2_stress()]:
        if e["type"] == "cards_revealed":
            continue
        if e["type"] == "cards_drawn":
            e = ev("cards_drawn", car="P", cards=["4"])
        apply(state, e)
        if e["type"] == "gear_chosen" and e["car"] == "A":
            apply(state, ev("cards_played", car="P", cards=["1"]))
            apply(state, ev("cards_played", car="A", cards=["U34" if state.round == 1 else "S"]))
    chance = pending_chance(state)
    assert chance is not None and chance.kind == "card_flipped" and chance.car == "A"
    assert chance.outcomes == [(ev("card_flipped", car="A", card="U34"), 1.0)]


def _at_a_react(log: RaceLog, at: int) -> tuple[int, Session]:
    """An open race whose deck orders were not typed, recorded up to A's React in round 1: A (Engine empty, at
    ``at``) plays Suspension 4 (a Refresh card), P drives 1 and draws a 4."""
    pos = start_position(HAND, at=at, mode="open")
    for car in pos["cars"]:
        car["deck"] = None
    pos["unknown"] = ["deck order of P", "deck order of A"]
    race = log.new_race(started(pos))
    s = Session(log, race, fresh=True)
    for answer in ["1 1", "1", "susp4", "", "", "4"]:
        s.answer(answer)
    return race, s


def test_18_21_the_recorder_offers_the_refresh_at_react_when_closing_react_ends_the_turn(tmp_path: Path) -> None:
    """A spinout ahead that leaves a full hand ends the turn as React closes (nothing is discarded or drawn, # 10.5,
    12.2), so no discard question would offer the Refresh: the React question offers ``f`` and says why. Where the
    turn goes on to the discard, the React question is as before and the discard question offers it (# 18.21)."""
    with RaceLog(tmp_path / "race.db") as log:
        race, s = _at_a_react(log, at=10)  # the corner after 13 is ahead: a spinout with an empty Engine
        q = s.question
        assert (q.kind, q.car) == ("react", "A")
        assert q.prompt == "A react (a f; Enter = done): "  # no ac: no Heat can be in the open hand (# 7.3)
        assert "f = refresh Suspension 4: closing React now ends the turn (# 10.5, 12.2)" in (q.hint or "")
        assert "f" in q.options
        s.answer("f")
        events = [x.event for x in log.effective(race).entries]
        assert {k: v for k, v in events[-1].items() if k != "raw"} == ev("refreshed", car="A", card="U34")
        assert log.project(race).state.cars["A"].deck_top == ("U34",)


@pytest.mark.parametrize("close", ["", "-"])
def test_18_21_10_5_enter_at_the_refresh_before_the_end_ends_the_turn_without_it(tmp_path: Path, close: str) -> None:
    """Enter at React leaves the Refresh open (# 18.21); the next question offers it once more, as going on ends
    the turn (a spinout leaves a full hand: nothing discarded or drawn, # 10.5, 12.2). Enter (or ``-``) there says
    no: the turn goes on, A spins out, and the next round's gears are asked, with no Refresh in the log. (The
    question came back after Enter, again and again, and the turn never closed: found by the module contract's
    recordings, garage seed 7.)"""
    with RaceLog(tmp_path / "race.db") as log:
        race, s = _at_a_react(log, at=10)
        s.answer("")  # done reacting: the Refresh is still open
        q = s.question
        assert (q.kind, q.car) == ("discard", "A")
        assert "f = refresh Suspension 4: going on now ends the turn (# 10.5, 12.2)" in q.prompt
        lines = s.answer(close)
        assert not [x.text for x in lines if x.style == "error"]
        assert any("spins out" in x.text for x in lines)  # # 10.1-10.4, derived as the turn goes on
        q = s.question
        assert (q.kind, q.car) == ("gear", "P") and s.view.round == 2
        assert s.view.cars["A"].deck_top == () and s.view.cars["A"].gear == 1  # no Refresh (# 18.21); # 10.4
        assert "refreshed" not in [x.event["type"] for x in log.effective(race).entries]


def test_18_21_the_react_question_is_unchanged_where_the_discard_question_offers_the_refresh(tmp_path: Path) -> None:
    with RaceLog(tmp_path / "race.db") as log:
        _, s = _at_a_react(log, at=2)  # far from the corners: no spinout, the turn reaches step 8
        q = s.question
        assert (q.kind, q.car) == ("react", "A") and q.prompt == "A react (a; Enter = done): "
        assert "f" not in q.options and "refresh" not in q.hint
        s.answer("")
        while s.question.kind == "slipstream":
            s.answer("n")
        q = s.question
        assert (q.kind, q.car) == ("discard", "A") and "f = refresh Suspension 4" in q.prompt


def test_1_7_refusals_of_the_joint_deduction_name_an_upgrade_by_its_name() -> None:
    """The hand checks (reveal, play, cooldown, discard: one deduction, # 1.7) word a refusal with the race's card
    catalogue: an upgrade is named as the table knows it (its name and speed, "Fuel 2"; issue 29: not its code)."""
    pos = start_position(HAND, gear=2)  # table mode: A's hand is private; its one U22 (Fuel) is unseen
    state = fold([started(pos), *round_1([], [], gear=2)[:4]])
    name = state.cards.name("U22")
    assert name not in ("", '"U22"')
    with pytest.raises(IllegalEvent) as info:
        apply(state.copy(), ev("cards_revealed", car="A", cards=["U22", "U22"]))  # a second copy
    why = str(info.value).split("cannot play Fuel 2, Fuel 2: ")[1]  # (the input itself is quoted before it)
    assert why == f"only 1 {name} 2 is unseen (deck and hand), not 2 (# 4.1)", why
    a = state.cars["A"]
    assert f"only 1 {name} 2 is" in (Knowledge.why_not_in_hand_of(a, ["U22", "U22"], state.cards) or "")
    assert '"U22"' in (Knowledge.why_not_in_hand_of(a, ["U22", "U22"]) or "")  # without the race's cards: a token
    assert Knowledge.of(a).why_not_in_hand(["1", "1", "1"], state.cards.named) == Knowledge.of(a).why_not_in_hand(
        ["1", "1", "1"]
    )  # a base card is named the same either way


def test_18_21_boards_show_the_card_known_on_top_of_the_deck(refreshed_log: list[Event], tmp_path: Path) -> None:
    """The table saw the Refresh card go back on top of the deck (MA15): ``heatlog show`` and the replay page (in
    Chromium) show it beside the deck's size, named as the table knows it; a deck with nothing known on top shows
    its size alone."""
    import browser
    from edges import run

    from heatlog.views.board import deck_text

    state = fold(refreshed_log[:-1])
    a, p = state.cars["A"], state.cars["P"]
    assert deck_text(state, a) == f"{a.deck_size}, top Suspension 4" and deck_text(state, p) == str(p.deck_size)
    db = tmp_path / "race.db"
    with RaceLog(db) as log:
        race = log.new_race(refreshed_log[0])
        for e in refreshed_log[1:-1]:
            log.append(race, e)
    shown = run("show", db=db)
    assert shown.returncode == 0, shown
    assert f"{a.deck_size}, top Suspension 4" in shown.stdout, shown.stdout
    page = tmp_path / "race.html"
    made = run("replay", "--html", str(page), db=db)
    assert made.returncode == 0, made
    dom = browser.dump_dom(page.as_uri() + "#round=1")
    assert f"{a.deck_size}, top Suspension 4</td>" in dom
    p_row = dom[dom.index('<tr data-car="P"') :]
    assert ", top " not in p_row[: p_row.index("</tr>")]  # P's deck: its size alone
