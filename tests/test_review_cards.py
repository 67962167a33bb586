"""Card plays are evaluated (issue 28, item 1): each legal play of the reviewed car gets its own playouts.

Regression of 6a28f1e: a play at step 2 is judged without the other cars' gears of the round (# 2.1), so the
sampled world is at step 1; at step 2 the car's bot played its own cards over the reviewed ones and every
play got the same playouts ("loss 0.00 ±0.00"). The positions are hand-built (tests/review_positions.py): Red
before USA's corner 2 (limit 3, # 9.1) with an empty Engine, so a play of 6 or more spins out for certain
(# 9.3, 10.1) and a play of 5 or less stops before the line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heatlog.analysis import information_set
from heatlog.analysis.playout import playouts
from heatlog.engine import MalformedInput
from heatlog.engine.cards import VALUE
from heatlog.engine.game import apply_decision
from heatlog.review import Settings, decision_points, review_race
from tests.review_positions import apply_all, position_race, steps_1_2
from tests.test_cli import run

Event = dict[str, Any]


def play(*cards: str) -> Event:
    return {"type": "cards_played", "v": 1, "car": "Red", "cards": list(cards)}


def spins(log: list[Event], cards: list[str]) -> bool:
    """Whether Red's play spins it out in the position (the engine, Red's turn played to its corners)."""
    state = apply_all(log[:-1])
    apply_decision(state, play(*cards))
    apply_decision(state, {"type": "go_on", "car": "Red"})
    return bool(state.turn is not None and state.turn.car == "Red" and state.turn.spinout)


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_the_premise_six_or_more_spins_out_five_or_less_does_not(cars: int) -> None:
    log = steps_1_2(position_race(cars), 2, ["4", "4"])
    assert spins(log, ["4", "4"]) and spins(log, ["2", "4"])  # 8 and 6: over the line at 3 with no Heat
    assert not spins(log, ["2", "3"]) and not spins(log, ["1", "1"])


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_two_plays_of_the_same_point_get_their_own_playouts(cars: int) -> None:
    """Playouts at the card play, as the review sees it (the world at step 1): the certain spinout is clearly
    worse than the safe play (paired, 95 %). Before the fix a play at step 1 was refused (compare's error)."""
    log = steps_1_2(position_race(cars), 2, ["4", "4"])
    (point,) = [p for p in decision_points(log, "Red") if p.kind == "cards"]
    assert point.hidden  # the other cars' gears and plays of the round are hidden from it (# 2.1)
    info = information_set(point.known(log), "Red")
    assert info.public.step == 1  # the world goes back to step 1
    result = playouts(info, 64, seed=1, sides=[[play("4", "4")], [play("2", "3")]])
    d = result.difference()["Red"]
    assert d.interval[0] > 0, d  # the spinout is worse, and its interval excludes 0
    assert result.outcomes[0] != result.outcomes[1]


def test_a_play_the_hand_cannot_make_is_refused_not_played() -> None:
    log = steps_1_2(position_race(2), 2, ["4", "4"])
    (point,) = [p for p in decision_points(log, "Red") if p.kind == "cards"]
    info = information_set(point.known(log), "Red")
    with pytest.raises(MalformedInput, match="cannot play"):
        playouts(info, 1, seed=1, sides=[[play("5", "5")]])  # no 5 in Red's hand (# 4.1)


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_the_review_labels_a_certain_spinout_and_finds_a_play_that_stops_before_the_corner(cars: int) -> None:
    log = steps_1_2(position_race(cars), 2, ["4", "4"])
    settings = Settings(seed=2, screen=16, keep=1, max_playouts=128)
    review = review_race(log, ["Red"], settings=settings, only=lambda p: p.kind == "cards")
    (p,) = review.car("Red").points
    assert p.taken.words == "play 4 4"
    assert sum(VALUE[c] for c in p.best.decision["cards"]) <= 5  # best found stops before the line
    assert p.significant and p.label is not None, (p.loss, p.loss_half)
    means = {e.words: e.mean_place for e in p.estimates}
    assert len(set(means.values())) > 1  # not one estimate for every play
    assert p.taken.mean_place > p.best.mean_place


def test_compare_at_a_card_play_divergence(tmp_path: Path) -> None:
    """compare A B --playouts N where A and B differ at a card play (it said 'no world drawn … cards are played
    at step 2')."""
    db = tmp_path / "h.db"
    base = position_race(4)
    for k, cards in enumerate((["4", "4"], ["2", "3"])):
        f = tmp_path / f"{k}.jsonl"
        f.write_text("".join(json.dumps(ev) + "\n" for ev in steps_1_2(base, 2, cards)))
        r = run("import", str(f), "--again", db=db)
        assert r.returncode == 0, r.stderr
    out = run("compare", "1", "2", "-k", "32", "--seed", "1", "--workers", "1", "--json", db=db)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["diverge"]["a"]["type"] == "cards_played" and data["playouts"]["viewer"] == "Red"
    red = next(x for x in data["playouts"]["difference"] if x["car"] == "Red")
    assert red["difference_95"][0] > 0  # A (the spinout) is clearly worse than B


@pytest.mark.parametrize("cars", [2, 4, 6])
def test_the_reason_of_a_certain_spinout_names_the_corner_the_heat_and_the_share(cars: int) -> None:
    """Issue 28, item 4: the label comes with its reason, from the playouts (# 9.3, 10.1)."""
    log = steps_1_2(position_race(cars), 2, ["4", "4"])
    review = review_race(
        log, ["Red"], settings=Settings(seed=2, screen=16, keep=1, max_playouts=128), only=lambda p: p.kind == "cards"
    )
    (p,) = review.car("Red").points
    assert p.label is not None and p.reason is not None
    assert p.reason.startswith("play 4 4 spins out at corner 2 (limit 3, speed 8.0) in 100% of playouts")
    assert "owing 5.0 Heat and paying 0.0 (Engine 0 at the decision)" in p.reason
    assert f"{p.best.words}: 0%" in p.reason
    assert "a Stress flip finds" in p.reason  # the spinout's Stress (# 10.3): what the deck makes of it


def test_a_deck_of_low_cards_says_a_stress_flip_costs_little() -> None:
    from heatlog.review.evaluate import deck_words

    log = steps_1_2(position_race(2, hand="3334445"), 2, ["3", "3"])
    (point,) = [p for p in decision_points(log, "Red") if p.kind == "cards"]
    words = deck_words(information_set(point.known(log), "Red"), "Red")
    assert words is not None and "only low cards: a Stress flip costs little here" in words, words
    log = steps_1_2(position_race(2, hand="1122H0S"), 2, ["1", "1"])
    (point,) = [p for p in decision_points(log, "Red") if p.kind == "cards"]
    words = deck_words(information_set(point.known(log), "Red"), "Red")
    assert words is not None and "costs little" not in words


def test_a_stress_flip_finds_only_basic_cards_and_the_deck_is_listed_card_by_card() -> None:
    """# 5.2, 14.1, 14.2: a flip passes the 0 and the 5 (and Heat, Stress) to the discard pile, so what it finds is
    the mean of the deck's Basic cards. Red holds 2 2 2 3 3 3 4: its deck's Basic cards are 1 1 1 4 4, a flip
    finds 2.2 on average, at most 4 (it said 2.3, at most 5: the 0 and the 5 counted), and the deck reads as a
    play does, card by card (it said "1×3 4×2 …", the count after the card: "four 1s" or "one 4"?)."""
    from heatlog.review.evaluate import deck_words

    log = steps_1_2(position_race(2, hand="2223334"), 2, ["2", "3"])
    (point,) = [p for p in decision_points(log, "Red") if p.kind == "cards"]
    words = deck_words(information_set(point.known(log), "Red"), "Red")
    assert words is not None and "a Stress flip finds 2.2 on average (at most 4)" in words, words
    assert words.startswith("its deck holds 1 1 1 4 4 0 5 "), words
    assert "×" not in words


def test_a_garage_deck_names_its_upgrades_as_the_table_does_and_a_flip_passes_them() -> None:
    """A Garage race (# 18): the deck's upgrades by their short names (issue 29: never an upgrade's code, U9),
    and a flip finds none of them (# 14.2: every upgrade is discarded by a "+" flip)."""
    import re

    from heatlog.engine import replay
    from heatlog.review.evaluate import deck_words
    from heatlog.review.points import card_words

    log = steps_1_2(position_race(2, garage=True), 2, ["1", "2"])
    (point,) = [p for p in decision_points(log, "Red") if p.kind == "cards"]
    info = information_set(point.known(log), "Red")
    words = deck_words(info, "Red")
    state = replay(log)
    kinds = {d.token: d.kind for d in state.cards.cards}
    upgrades = [c for c, n in state.cars["Red"].pool.items() if n > 0 and kinds.get(c) == "upgrade"]
    assert upgrades, "Red drafted upgrades"
    name = card_words(state)
    assert name is not None and words is not None
    assert not re.search(r"\bU\d+\b", words), words
    assert all(name(u) in words for u in upgrades), (words, [name(u) for u in upgrades])
    assert "a Stress flip finds 2.6 on average (at most 4)" in words, words  # Basic: 1 2 3 3 4 (the Brakes passed)


def test_an_empty_deck_s_flip_is_told_from_the_discard_pile_it_shuffles() -> None:
    """# 5.6, 14.3: a flip from an empty deck shuffles the discard pile (public: every card in it was seen) into a
    new deck first, so what a Stress flip finds is the pile's Basic cards; it said only "its deck is empty"."""
    from collections import Counter

    from heatlog.engine.cards import BASIC
    from heatlog.review.evaluate import deck_words
    from heatlog.simulate import simulate_race

    for seed in range(1, 30):
        _, events, _ = simulate_race(None, track="usa", cars=2, seed=seed, laps=1)
        for point in decision_points(events, "Red"):
            if point.kind != "cards":
                continue
            info = information_set(point.known(events), "Red")
            car = info.public.cars["Red"]
            hand = Counter(dict(zip(info.beliefs["Red"].tokens, info.known["Red"], strict=True)))
            pile = Counter(car.discard)
            basic = [VALUE[c] for c in pile.elements() if c in BASIC]
            if +(Counter(car.pool) - hand) or not basic:
                continue  # a deck with cards, or a pile without a Basic card
            words = deck_words(info, "Red")
            assert words is not None and words.startswith("its deck is empty: a flip shuffles its discard pile"), words
            assert f"finds {sum(basic) / len(basic):.1f} on average (at most {max(basic)})" in words, (words, pile)
            return
    pytest.fail("no race of these seeds has a card play with an empty deck")
