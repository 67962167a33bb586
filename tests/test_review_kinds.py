"""Every decision kind is judged (issue 28, item 1): for each kind, a hand-built position where one option is
clearly worse (a certain spinout) gets a clearly worse estimate, a significant label, and a best found that is
another option, for 2, 4 and 6 cars. Card plays: tests/test_review_cards.py; a slipstream into a corner:
tests/test_review.py; these add the gear (step 1), React (step 5, a boost), a win this round by playing high
(step 2), a hand-built slipstream beside the leader (step 6), not cooling before a corner the cooldown would pay
(step 5), discarding the cards that cross the line next round (step 8) and a Garage card's speed choice (# 18.6).

The positions (tests/review_positions.py): Red at space 28 before USA's corner 2 (after space 33, limit 3,
# 9.1), the other cars behind it."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from heatlog.engine.cards import VALUE
from heatlog.engine.chance import draw
from heatlog.engine.decide import waiting_for
from heatlog.engine.game import apply_decision, legal_decisions
from heatlog.review import Settings, review_race
from tests.review_positions import apply_all, position_race, steps_1_2, to_turn

Event = dict[str, Any]
SETTINGS = Settings(seed=2, screen=16, keep=1)  # the review's cap (256): a label at the cap needs 99 %
BOOST = {"type": "boost", "v": 1, "car": "Red"}


def the_point(log: list[Event], only: Callable[[Any], bool]) -> Any:
    """Red's one decision point of ``log`` that ``only`` picks, reviewed."""
    (p,) = review_race(log, ["Red"], settings=SETTINGS, only=only).car("Red").points
    return p


def clearly_worse(p: Any, spins: str | None = None) -> None:
    """The taken option is estimated worse than the best, significantly, and labelled; ``spins``: its reason names
    the spinout at corner 2 in every playout of the taken option."""
    assert p.taken.mean_place > p.best.mean_place
    assert p.significant and p.label is not None, (p.loss, p.loss_half)
    if spins is not None:
        assert p.reason is not None and p.reason.startswith(f"{spins} spins out at corner 2"), p.reason
        assert "in 100% of" in p.reason


def gear_log(cars: int) -> list[Event]:
    """Red in gear 3 with 1 1 2 2 3 4 4 and an empty Engine shifts to gear 4: four cards make at least
    1 + 1 + 2 + 2 = 6, over the corner's line at speed 6 with no Heat to pay (# 9.3): a certain spinout
    (# 10.1). Gear 3 can play 1 1 2 (4, space 32) and gear 2 can play 1 1: both stop before the line."""
    return steps_1_2(position_race(cars, gear=3), 4, ["1", "1", "2", "2"])


def boost_log(cars: int) -> list[Event]:
    """Red in gear 2 plays 2 3 to space 33, just before the corner's line, with 1 Heat in its Engine. A boost
    (# 7.2) pays that Heat and flips a speed card: over the line at 6 or more with no Heat left, a spinout;
    going on stops at 33."""
    return [*steps_1_2(position_race(cars, engine=1), 2, ["2", "3"]), BOOST]


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_the_premise_a_boost_here_crosses_the_line_with_an_empty_engine(cars: int) -> None:
    log = boost_log(cars)
    before = apply_all(log[:-1])
    assert before.cars["Red"].engine == 1 and before.turn is not None and before.turn.car == "Red"
    keep = before.copy()
    apply_decision(keep, {"type": "go_on", "car": "Red"})
    assert keep.turn is None or not keep.turn.spinout


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_a_gear_that_must_spin_out_is_labelled_and_a_safe_gear_is_best(cars: int) -> None:
    review = review_race(gear_log(cars), ["Red"], settings=SETTINGS, only=lambda p: p.kind == "gear")
    (p,) = review.car("Red").points
    assert p.taken.words == "gear 4" and p.best.words in ("gear 2", "gear 3")
    assert p.taken.mean_place > p.best.mean_place
    assert p.significant and p.label is not None, (p.loss, p.loss_half)
    assert p.reason is not None and p.reason.startswith("gear 4 spins out at corner 2 (limit 3, speed 6.0) in 100%")


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_a_boost_into_a_corner_with_no_heat_left_is_labelled_and_going_on_is_best(cars: int) -> None:
    review = review_race(boost_log(cars), ["Red"], settings=SETTINGS, only=lambda p: p.kind == "react")
    (p,) = review.car("Red").points
    assert p.taken.words == "boost" and p.best.decision["type"] == "go_on"
    assert p.taken.mean_place > p.best.mean_place
    assert p.significant and p.label is not None, (p.loss, p.loss_half)
    assert p.reason is not None and p.reason.startswith("boost spins out at corner 2") and "in 100% of" in p.reason


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_a_low_play_that_gives_up_a_win_this_round_is_labelled_and_playing_high_is_best(cars: int) -> None:
    """Red 6 spaces before the finish line of a one-lap race (USA: 69 spaces, its last corner after 57 far
    behind), the others 14 or more behind: a play of 7 or more crosses the line this round, where no other car
    can reach it (# 16.1); ``1 1`` stops short and lets them come by."""
    log = steps_1_2(position_race(cars, progress=63, behind=55, hand="1122344"), 2, ["1", "1"])
    review = review_race(log, ["Red"], settings=SETTINGS, only=lambda p: p.kind == "cards")
    (p,) = review.car("Red").points
    assert p.taken.words == "play 1 1"
    assert sum(VALUE[c] for c in p.best.decision["cards"]) >= 7 and p.best.win == 1.0 and p.best.mean_place == 1.0
    assert p.taken.mean_place > p.best.mean_place
    assert p.significant and p.label is not None, (p.loss, p.loss_half)


def slipstream_log(cars: int) -> list[Event]:
    """Blue (the leader, at 30, lane 2) plays a 3 in gear 1 to space 33; Red (28, gear 3, empty Engine) plays
    1 1 3 to space 33 beside it, just before corner 2's line. Slipstream (# 8.1) moves it 2 more, over the line at
    speed 5 (# 8.5: checked at the play's speed) with 2 Heat owed and none in the Engine (# 9.3): a certain spinout
    (# 10.1), two Stress (# 10.3) and gear 1 (# 10.4); declining stops at 33 in gear 3."""
    log = position_race(cars, ahead=(30, "1233444", 1))
    blue = next(n for n in apply_all(log).order if n != "Red")
    log = to_turn(steps_1_2(log, 3, ["1", "1", "3"], plays={blue: (1, ["3"])}), "Red")
    return [*log, {"type": "slipstream", "v": 1, "car": "Red", "taken": True}]


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_the_premise_the_slipstream_spins_out_and_declining_it_does_not(cars: int) -> None:
    log = slipstream_log(cars)
    before = apply_all(log[:-1])
    assert before.turn is not None and before.turn.car == "Red" and before.cars["Red"].engine == 0
    assert before.cars["Red"].progress == 33 and log[-1] in legal_decisions(before, "Red")
    take = before.copy()
    apply_decision(take, log[-1])
    apply_decision(take, {"type": "go_on", "car": "Red"})
    assert take.turn is not None and take.turn.spinout  # # 10.1
    keep = before.copy()
    apply_decision(keep, {"type": "go_on", "car": "Red"})
    assert keep.turn is None or not keep.turn.spinout


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_a_slipstream_over_a_corner_with_no_heat_is_labelled_and_declining_is_best(cars: int) -> None:
    p = the_point(slipstream_log(cars), lambda p: p.kind == "slipstream")
    assert p.taken.words == "slipstream" and p.best.words != "slipstream"
    clearly_worse(p, spins="slipstream")


def discard_log(cars: int) -> list[Event]:
    """Red, in gear 2 at space 57 of a one-lap race (USA: the line after 69), plays 1 1 to 59 and keeps
    2 2 3 4 4; next round, in gear 3 (# 3.1: one up), 4 4 3 makes the 11 that crosses the line (# 16.1) before
    the others, from 50 back, can reach it. Discarding the two 4s throws that away: the refill comes
    from a deck of mostly Heat and Stress (# 11.1, 12.2)."""
    log = steps_1_2(position_race(cars, progress=57, behind=50, hand="1122344"), 2, ["1", "1"])
    return [*log, {"type": "cards_discarded", "v": 1, "car": "Red", "cards": ["4", "4"]}]


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_discarding_the_cards_that_cross_the_line_is_labelled_and_keeping_them_is_best(cars: int) -> None:
    p = the_point(discard_log(cars), lambda p: p.kind == "discard")
    assert p.taken.words == "discard 4 4" and "4" not in p.best.decision.get("cards", [])
    clearly_worse(p)
    assert p.best.win > p.taken.win and p.reason is not None and "expected place" in p.reason


#: Where the other cars start in the cooldown position: far enough back that Red leads whatever it does (# 6.1).
COOL_BEHIND = 12


def cooldown_log(cars: int) -> list[Event]:
    """Red in gear 1 at space 31, an empty Engine and two Heat in hand, plays a 4 to space 35: over corner 2's line
    at speed 4, 1 Heat owed (# 9.3). Cooling at React (# 7.2: up to 3 in gear 1; # 7.3: from hand) comes before the
    corner check and pays it (# 7.8); going on without cooling is a certain spinout (# 10.1): back to 33 (# 10.2),
    a Stress card (# 10.3), and the two Heat still in hand. The other cars start from space 12 back: still well
    behind at the round's end, whatever Red does (why: ``test_not_cooling_before_a_corner_it_would_pay_…``). The
    log records going on by what follows it: the next chance event (drawn from the known decks)."""
    log = steps_1_2(position_race(cars, progress=31, gear=1, hand="HH12344", behind=COOL_BEHIND), 1, ["4"])
    state = apply_all(log)
    apply_decision(state, {"type": "go_on", "car": "Red"})
    ev = draw(state, random.Random(0), waiting_for(state))
    assert ev is not None
    return [*log, ev]


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_the_premise_cooling_pays_the_corner_and_going_on_spins_out(cars: int) -> None:
    before = apply_all(cooldown_log(cars)[:-1])
    assert before.turn is not None and before.turn.car == "Red" and before.cars["Red"].engine == 0
    assert {"type": "cooldown", "v": 1, "car": "Red", "count": 2} in legal_decisions(before, "Red")
    cool = before.copy()
    apply_decision(cool, {"type": "cooldown", "v": 1, "car": "Red", "count": 1})
    apply_decision(cool, {"type": "go_on", "car": "Red"})
    assert cool.cars["Red"].progress == 35  # paid: past the line
    go = before.copy()
    apply_decision(go, {"type": "go_on", "car": "Red"})
    assert go.cars["Red"].progress <= 33 and go.cars["Red"].gear == 1  # # 10.2, 10.4: spun out
    # the others have not moved yet this round (Red leads, # 2.1): none is past space 12, 21 behind the spinout's 33
    assert all(c.progress <= COOL_BEHIND for n, c in before.cars.items() if n != "Red")


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_not_cooling_before_a_corner_it_would_pay_is_labelled_and_cooling_is_best(cars: int) -> None:
    """Issue 28. The spinout here is the cheapest there is: Red is in gear 1 already (# 10.4 takes nothing), it
    takes one Stress card (# 10.3) and loses 2 spaces, and its two Heat stay in hand, to be cooled next round in
    gear 1 (# 7.2). What it costs is tempo, and in a 2-car race that depends on where the other car is. With the
    others from space 20 back (the position before, xfail(strict=True) in 2 cars), Blue (gear 3, 5 Heat) ends the
    round at 30–33 (at 33 in 54 % of 200 worlds drawn from Red's information set), beside the space the spinout
    puts Red on; in a 2-car race the car behind gets adrenaline every round (# 6.1: +1 speed, +1 cooldown) and a
    slipstream off the leader (# 8.1), so a lead of 2 spaces there is worth nothing or less: going on 1.60
    expected place against cooling 1.77 in those 200 paired worlds (Red had adrenaline in 4.3 rounds against 2.5,
    Blue in 2.9 against 4.3), and Red put further on after cooling (at round 3's start) did better only once clear
    of Blue (at 35: 1.72; 36: 1.68; 38: 1.52; 40: 1.34; 300 worlds). The heuristic's play after the spinout (gear
    1, cool 2) and after cooling (gear 2, on to corner 3) was sound: the premise was wrong in 2 cars, not the
    review. From space 12 back Blue ends the round at 19–22, 11 or more behind: going on 1.51 against cooling 1.25
    (200 worlds); the review's loss is 0.27–0.39 expected places, labelled, for seeds 0–5 (2 cars; 0.9–1.2 places
    in 4 cars and 1.2–1.8 in 6, seeds 0–2)."""
    p = the_point(cooldown_log(cars), lambda p: p.kind == "react")
    assert p.taken.words == "no (more) React" and p.best.decision["type"] == "cooldown"
    clearly_worse(p, spins="no (more) React")


def speed_log(cars: int) -> list[Event]:
    """A Garage race (# 18): Red in gear 2 at space 30, an empty Engine, plays 1 and the Brakes 2/4 (U9, no
    Heat cost) and chooses its value at reveal (# 18.6). 2 stops at 33, before corner 2's line; 4 makes speed 5
    over it with 2 Heat owed and none to pay (# 9.3): a certain spinout (# 10.1)."""
    log = position_race(cars, progress=30, hand=["1", "1", "2", "U9", "3", "4", "4"], garage=True)
    log = steps_1_2(log, 2, ["1", "U9"])
    return [*log, {"type": "speed_chosen", "v": 1, "car": "Red", "card": "U9", "speed": 4}]


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_the_premise_the_brakes_at_4_spin_out_and_at_2_do_not(cars: int) -> None:
    log = speed_log(cars)
    before = apply_all(log[:-1])
    assert before.turn is not None and before.turn.car == "Red" and before.cars["Red"].engine == 0
    assert {**log[-1], "speed": 2} in legal_decisions(before, "Red")
    fast = before.copy()
    apply_decision(fast, log[-1])
    apply_decision(fast, {"type": "go_on", "car": "Red"})
    assert fast.cars["Red"].progress <= 33 and fast.cars["Red"].gear == 1  # # 10.2, 10.4: spun out
    slow = before.copy()
    apply_decision(slow, {**log[-1], "speed": 2})
    apply_decision(slow, {"type": "go_on", "car": "Red"})
    assert slow.cars["Red"].progress == 33 and slow.cars["Red"].gear == 2


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_a_garage_speed_choice_that_must_spin_out_is_labelled_and_the_low_value_is_best(cars: int) -> None:
    """In 2 cars the spinout (against the 2, which stops on the same space, 33) costs Red its gear and a Stress
    card: 0.09 expected score (0.088 ± 0.036 with 600 paired playouts), near the mistake's threshold, which the
    test's former cap of 128 playouts could not tell from 0 (0.06 ± 0.09). At the review's cap (256 per side) it
    is labelled for seed 2 (for 6 of the seeds 2–9: at the cap a loss of 0.09 is above 0 at 99 % about 3 times
    in 4; seed 5 settles "no label" after 32 playouts a side, in which the two values part 3 times)."""
    p = the_point(speed_log(cars), lambda p: p.taken.get("type") == "speed_chosen")
    assert p.taken.decision["speed"] == 4 and p.best.decision["speed"] == 2
    # the Garage's own words for the choice (its event_words), the card by its short name (# 18.6)
    assert (p.taken.words, p.best.words) == ("values brakes24 at 4", "values brakes24 at 2")
    clearly_worse(p, spins="values brakes24 at 4")


def test_a_garage_decision_not_reviewed_names_its_upgrade_as_the_table_does() -> None:
    """The draft's picks (# 18.5) are said not reviewed, with their reason, in the words the table knows: the upgrade
    by its short name (issue 29: never a code such as U5; it said "picks U5", "cannot pay for U18")."""
    import re

    from heatlog.engine.cards import BASE_CATALOGUE
    from heatlog.review import decision_points
    from heatlog.simulate import simulate_race

    _, events, state = simulate_race(
        None, track="usa", cars=2, seed=1, laps=1, modules={"garage": {"upgrades": "basic", "draft": "draft"}}
    )
    shorts = {c.short for c in state.cards.cards if c.token not in BASE_CATALOGUE.token_set}
    skipped: list[Any] = []
    decision_points(events, "Red", skipped=skipped)
    picks = [s for s in skipped if s.kind == "upgrade_picked"]
    assert picks and all("Garage draft" in s.reason and "18.5" in s.reason for s in picks)
    for s in skipped:
        assert not re.search(r"\bU\d+\b", s.words), s
    assert all(s.words.split()[-1] in shorts for s in picks), [s.words for s in picks]


def _weather_point(seed: int, pick: Callable[[Any, Any], bool]) -> tuple[Any, Any]:
    """Red's first decision point of a simulated 2-car weather race (MODULES.md 20) that ``pick(point, info)``
    takes, with its information set."""
    from heatlog.analysis import information_set
    from heatlog.review import decision_points
    from heatlog.simulate import simulate_race

    _, events, _ = simulate_race(None, track="usa", cars=2, seed=seed, laps=1, modules={"weather": {}})
    for p in decision_points(events, "Red"):
        if not p.prelude:
            info = information_set(p.known(events), "Red")
            if pick(p, info):
                return p, info
    raise AssertionError("no such point")


def _reviewed(point: Any, taken: Any, best: Any) -> Any:
    """A labelled review of ``point``: the first option taken, the second best, with these turn facts each."""
    from heatlog.review.evaluate import Estimate, PointReview
    from heatlog.review.points import describe

    a, b = point.options[:2]
    est = [
        Estimate(o, describe(o, point.step), 64, place, 0.1, 0.5, 0.1, k + 1, True)
        for k, (o, place) in enumerate(((a, 1.8), (b, 1.2)))
    ]
    return PointReview(
        point,
        2,
        est[0],
        est[1],
        est,
        0.6,
        0.2,
        128,
        label="blunder",
        facts={"taken": [taken] * 64, "best": [best] * 64},
    )


def test_a_weather_sector_at_react_is_named_in_the_reason() -> None:
    """A weather-driven cooldown (MODULES.md 20.7: a sector of the weather tile Snow, cooling +1): the reason of a
    React decision says where the car reacts, in the weather's words (Module.react_hint, as the recorder's React
    question says it); it said nothing of it."""
    from heatlog.engine.module import react_hint
    from heatlog.review.evaluate import reason

    point, info = _weather_point(
        6, lambda p, i: p.step == "react" and "cooling +1" in react_hint(i.public, i.public.cars["Red"])
    )
    said = reason(_reviewed(point, None, None), info)
    assert "where it reacts, sector: cooling +1 (road condition weather)" in said, said


def test_a_spinout_at_a_corner_the_weather_lowered_names_the_board_s_limit_and_the_change() -> None:
    """A corner whose limit a road condition lowers (MODULES.md 20.5, Speed limit -1 on USA's corner 2: 3 on the
    board, 2 in this race): the spinout's reason gives both, so that a player sees what decided (it said "limit 2"
    beside a board that prints 3)."""
    from heatlog.analysis.playout import TurnFacts
    from heatlog.review.evaluate import reason

    point, info = _weather_point(4, lambda p, i: p.kind == "cards")
    spun = TurnFacts(True, 33, 2, 5, 3, 0, 5, ())
    safe = TurnFacts(False, 33, 2, 2, 0, 0, 2, ())
    said = reason(_reviewed(point, spun, safe), info)
    assert "spins out at corner 2 (limit 2: 3 on the board, -1 this race, speed 5.0) in 100% of playouts" in said, said


def test_the_graph_s_chance_diamonds_read_in_words_and_keep_the_types_as_data() -> None:
    """The HTML page's evaluation graph: a diamond's tooltip names the chance since the car's last decision as a
    player says it ("the draw, legend card revealed", MODULES.md 19.7), not as the log's types (it read
    "cards_drawn, legend_card_revealed"); its data-kinds keep the types."""
    import re

    from heatlog.simulate import simulate_race
    from heatlog.views.replay import build_replay
    from heatlog.views.review_html import render_review_html

    _, events, _ = simulate_race(None, track="usa", cars=2, seed=4, laps=1, modules={"legends": {"cars": 1}})
    cheap = Settings(screen=2, keep=1, batch=2, max_playouts=2, step=2)
    review = review_race(events, ["Red"], settings=cheap, rounds={2, 3}, only=lambda p: p.kind == "gear")
    page = render_review_html(build_replay(events), review)
    titles = re.findall(r'<path class="chance"[^>]*data-kinds="([^"]*)"[^>]*><title>([^<]*)</title>', page)
    assert titles, "no chance diamond"
    assert any("legend_card_revealed" in kinds for kinds, _ in titles)
    for kinds, title in titles:
        assert "_" not in title and "the draw" in title, title
        assert "cards_drawn" in kinds
