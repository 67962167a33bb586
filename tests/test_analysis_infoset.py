"""What the players knew: the information set and its sampler (issue 12, docs/analysis.md).

The sampler's statement: uniform over the chance histories (each shuffle a uniformly random order of the
physical cards) that reproduce the public log. Checked here against a brute-force enumeration that uses only
the engine as its judge of consistency (# 1.7 what the table sees, # 5.2 flips, # 7.3 cooldown from the hand,
# 13.1 a cluttered hand, # 5.6 reshuffles), by a chi-square test on the samples, and on simulated races: the
true hand is always possible, the posterior never contradicts the engine's table-mode knowledge, and the
recorded future is never read.
"""

from __future__ import annotations

import functools
import json
import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from heatlog.analysis import InfoSet, information_set, information_set_of_state, sample
from heatlog.analysis.playout import playouts
from heatlog.engine import HeatlogError, RaceState, apply, state_from_position, state_to_position
from heatlog.engine.cards import CARDS
from heatlog.engine.game import apply_decision
from heatlog.engine.modules.garage import garage_slot
from heatlog.engine.redact import open_to_table, strip_identities
from heatlog.engine.state import counts, expand
from heatlog.simulate import simulate_race

Event = dict[str, Any]
REPLAYS = Path(__file__).resolve().parent.parent / "replays"


def _vec(c: dict[str, int]) -> tuple[int, ...]:
    return tuple(c[k] for k in CARDS)


def _fold(events: list[Event]) -> RaceState:
    state: RaceState | None = None
    for ev in events:
        state = apply(state, ev, atomic=False)
    assert state is not None
    return state


# ------------------------------------------------------------------------------------------------ a small case


def _small_case() -> tuple[list[Event], list[int]]:
    """A table-mode race from a position: car A holds 7 of 10 unseen cards, its deck can hold at most one
    Heat (so at least one Heat is in the hand); car B's cards are all "1" (nothing hidden). In A's turn:
    reveal 2 S, the Stress flip finds a 1, cool 1 Heat, draw 2 (the deck is empty), reshuffle the discard
    pile, draw 1. Returns the log and the indices after which the information set is checked."""
    _, events, _ = simulate_race(None, track="usa", cars=2, seed=11)
    table = open_to_table(events)
    state: RaceState | None = None
    for ev in table:
        state = apply(state, ev, atomic=False)
        if state.round == 2 and state.step == 1 and state.turn is None:
            break
    assert state is not None
    pos = strip_identities(state_to_position(state))
    a, b = pos["cars"]
    a_name, b_name = a["name"], b["name"]
    a.update(
        progress=20,
        lane=1,
        gear=1,
        hand_size=7,
        deck_size=3,
        engine=4,
        discard=[],
        play_area=[],
        unseen=list("1112223HHS"),
        deck_max=list("1112223HS"),
    )
    b.update(
        progress=10,
        lane=1,
        gear=1,
        hand_size=7,
        deck_size=5,
        discard=[],
        play_area=[],
        unseen=list("1" * 12),
        deck_max=None,
    )
    pos.update(order=[a_name, b_name], pending=[a_name, b_name], adrenaline=[b_name])  # # 2.2: A is ahead
    start = dict(table[0])
    start["position"] = pos
    log: list[Event] = [
        start,
        {"type": "gear_chosen", "v": 1, "car": a_name, "gear": 2},
        {"type": "gear_chosen", "v": 1, "car": b_name, "gear": 1},
        {"type": "cards_revealed", "v": 1, "car": a_name, "cards": ["2", "S"]},
        {"type": "card_flipped", "v": 1, "car": a_name, "card": "1"},
        {"type": "cooldown", "v": 1, "car": a_name, "count": 1},
        {"type": "cards_drawn", "v": 1, "car": a_name, "count": 2},
        {"type": "deck_shuffled", "v": 1, "car": a_name},
        {"type": "cards_drawn", "v": 1, "car": a_name, "count": 1},
    ]
    _fold(log)  # a legal table-mode log
    return log, [3, 4, 5, 6, 7, 9]


def _distinct_orders(cards: list[str]) -> list[tuple[str, ...]]:
    """Every distinct order of a small multiset of cards."""
    if not cards:
        return [()]
    out: list[tuple[str, ...]] = []
    for c in sorted(set(cards)):
        rest = list(cards)
        rest.remove(c)
        out.extend((c, *tail) for tail in _distinct_orders(rest))
    return out


def _hands(pool: dict[str, int], size: int) -> list[dict[str, int]]:
    """Every sub-multiset of ``pool`` with ``size`` cards."""
    out: list[dict[str, int]] = []
    kinds = [c for c in CARDS if pool[c]]

    def go(i: int, left: int, acc: dict[str, int]) -> None:
        if i == len(kinds):
            if left == 0:
                out.append(counts(expand(acc)))
            return
        for k in range(min(pool[kinds[i]], left) + 1):
            go(i + 1, left - k, {**acc, kinds[i]: k})

    go(0, size, {})
    return out


@functools.cache
def _brute_force_cached(upto: int) -> dict[tuple[int, ...], float]:
    log, _ = _small_case()
    return _brute_force(log, upto, log[0]["position"]["cars"][0]["name"])


def _brute_force(log: list[Event], upto: int, car: str) -> dict[tuple[int, ...], float]:
    """Every chance history, weighted by its physical orders; the engine alone judges which reproduce the
    public log. Returns the weight of the physical histories ending in each hand of ``car``.

    A start arrangement is a hand multiset h and a deck order s: it stands for prod(P_c! / h_c!) physical
    arrangements (which copies are in the hand, in which physical order the deck lies), i.e. weight
    1 / prod(h_c!) up to a constant."""
    public = _fold(log[:3])  # after the gears: A's turn waits for its reveal (hidden cards unchanged)
    a = public.cars[car]
    out: Counter[tuple[int, ...]] = Counter()
    bound = a.deck_max
    assert bound is not None
    for hc in _hands(a.pool, a.hand_size):
        rest = {c: a.pool[c] - hc[c] for c in CARDS}
        if any(rest[c] > bound[c] for c in CARDS):
            continue  # the position says the deck cannot hold this
        weight = 1.0 / math.prod(math.factorial(hc[c]) for c in CARDS)
        for deck in _distinct_orders(expand(rest)):
            world = public.copy()
            world.mode = "open"
            for c in world.cars.values():
                if c.name == car:
                    c.hand = dict(hc)
                    c.deck = list(reversed(deck))  # top last
                else:  # car B: every card is a "1", nothing is hidden
                    c.deck = ["1"] * c.deck_size
                    c.hand = counts(["1"] * c.hand_size)
                c.deck_max = None
            _explore(world, log[3:upto], car, weight, out)
    return dict(out)


def _explore(world: RaceState, rest: list[Event], car: str, weight: float, out: Counter[tuple[int, ...]]) -> None:
    """Play the rest of the public log on ``world``; a reshuffle branches over every order of the pile."""
    if not rest:
        assert world.cars[car].hand is not None
        out[_vec(world.cars[car].hand)] += weight  # type: ignore[arg-type]
        return
    ev, tail = rest[0], rest[1:]
    kind = ev["type"]
    try:
        if kind == "deck_shuffled":
            pile = list(world.cars[ev["car"]].discard)
            pc = counts(pile)
            copies = math.prod(math.factorial(pc[c]) for c in CARDS)
            for order in _distinct_orders(pile):
                w = world.copy()
                apply(w, {**ev, "order": list(order)})
                _explore(w, tail, car, weight * copies, out)
            return
        w = world.copy()
        if kind == "cards_drawn":
            deck = w.cars[ev["car"]].deck
            assert deck is not None
            n = ev["count"]
            apply(w, {"type": "cards_drawn", "v": 1, "car": ev["car"], "cards": deck[len(deck) - n :][::-1]})
        elif kind == "cards_revealed":
            apply_decision(w, ev)
        else:
            apply(w, ev)
    except HeatlogError:
        return  # this history does not reproduce the public log
    _explore(w, tail, car, weight, out)


@pytest.fixture(scope="module")
def small() -> tuple[list[Event], list[int], str]:
    log, cuts = _small_case()
    car = log[0]["position"]["cars"][0]["name"]
    return log, cuts, car


def test_the_filter_equals_brute_force_enumeration(small: tuple[list[Event], list[int], str]) -> None:
    """The posterior over A's hand is exactly the share of consistent physical histories ending in it."""
    log, cuts, car = small
    for upto in cuts:
        brute = _brute_force_cached(upto)
        total = sum(brute.values())
        want = {h: w / total for h, w in brute.items()}
        got = information_set(log[:upto]).hand_distribution(car)
        assert set(got) == set(want), upto
        for h in want:
            assert got[h] == pytest.approx(want[h], rel=1e-9), (upto, h)
    # the case is not trivial: several hands are possible, not equally likely, and the log moved them
    mid = information_set(log[:5]).hand_distribution(car)
    assert len(mid) >= 6 and max(mid.values()) > 2 * min(mid.values())
    zeros = (0,) * (len(CARDS) - 8)  # the Garage's upgrade tokens, none in a base race
    assert information_set(log[:7]).hand_distribution(car) == {(2, 2, 1, 0, 0, 0, 1, 0, *zeros): 1.0}  # deck empty
    assert len(information_set(log[:9]).hand_distribution(car)) == 3  # one of the reshuffled cards drawn


def _chi_square_critical(dof: int, z: float = 3.09) -> float:
    """Wilson–Hilferty: the chi-square quantile for one-sided p = 0.001 (z = 3.09)."""
    k = dof
    return k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3


def _chi_square(samples: Counter[tuple[int, ...]], probs: dict[tuple[int, ...], float]) -> tuple[float, int]:
    n = sum(samples.values())
    assert set(samples) <= set(probs), "a sampled hand no history allows"
    stat = sum((samples.get(h, 0) - n * p) ** 2 / (n * p) for h, p in probs.items())
    return stat, len(probs) - 1


def test_samples_are_uniform_over_the_histories_chi_square(small: tuple[list[Event], list[int], str]) -> None:
    log, _, car = small
    for upto in (5, 9):
        brute = _brute_force_cached(upto)
        total = sum(brute.values())
        probs = {h: w / total for h, w in brute.items()}
        info = information_set(log[:upto])
        rng = random.Random(2024)
        seen: Counter[tuple[int, ...]] = Counter()
        for _ in range(6000):
            world = info.sample(rng)
            seen[_vec(world.cars[car].hand)] += 1  # type: ignore[arg-type]
        stat, dof = _chi_square(seen, probs)
        assert stat < _chi_square_critical(dof), (upto, stat, dof)
        # The test can fail: hands drawn uniformly among the possible ones (ignoring how many histories
        # lead to each) are rejected, where they differ.
        hands = sorted(probs)
        if max(probs.values()) > 1.5 * min(probs.values()):
            flat = Counter(rng.choice(hands) for _ in range(6000))
            bad, _ = _chi_square(flat, probs)
            assert bad > _chi_square_critical(dof)


def test_no_sample_contradicts_the_public_log(small: tuple[list[Event], list[int], str]) -> None:
    """Every sampled world is the end of some history that reproduces the log (brute force), and the deck
    order of a sample is one of the remaining cards' orders."""
    log, cuts, car = small
    for upto in cuts:
        brute = _brute_force_cached(upto)
        info = information_set(log[:upto])
        rng = random.Random(upto)
        public = _fold(log[:upto])
        for _ in range(300):
            world = info.sample(rng)
            a = world.cars[car]
            assert a.hand is not None and _vec(a.hand) in brute
            assert a.deck is not None
            assert Counter(a.deck) + Counter(expand(a.hand)) == Counter(expand(public.cars[car].pool))
            assert world.mode == "open" and a.hand_size == public.cars[car].hand_size


def test_the_deck_order_is_uniform_given_the_hand(small: tuple[list[Event], list[int], str]) -> None:
    log, _, car = small
    info = information_set(log[:5])  # after the flip: A's deck holds 2 cards
    rng = random.Random(5)
    orders: Counter[tuple[str, ...]] = Counter()
    for _ in range(4000):
        world = info.sample(rng)
        a = world.cars[car]
        if a.hand is not None and _vec(a.hand) == max(info.hand_distribution(car), key=info.hand_distribution(car).get):
            assert a.deck is not None
            orders[tuple(a.deck)] += 1
    assert len(orders) >= 1
    if len(orders) > 1:
        n = sum(orders.values())
        stat = sum((k - n / len(orders)) ** 2 / (n / len(orders)) for k in orders.values())
        assert stat < _chi_square_critical(len(orders) - 1)


# ------------------------------------------------------------------------------------------------ simulated races


@pytest.fixture(scope="module")
def races() -> list[list[Event]]:
    return [simulate_race(None, track=t, cars=n, seed=s)[1] for t, n, s in (("usa", 4, 3), ("italy", 3, 8))]


def test_the_true_hand_is_always_possible(races: list[list[Event]]) -> None:
    """The filter never rules out what really happened, at any point (a false exclusion would be a bug)."""
    for events in races:
        for cut in range(20, len(events), max(1, len(events) // 9)):
            truth = _fold(events[:cut])
            info = information_set(events[:cut])
            for name, car in truth.cars.items():
                assert car.hand is not None
                assert info.hand_distribution(name).get(_vec(car.hand), 0) > 0, (cut, name)


def test_the_posterior_respects_the_engines_table_knowledge(races: list[list[Event]]) -> None:
    """Every possible hand holds the cards the engine knows must be in the hand, and leaves a deck within
    its bound (``Car.forced_in_hand``, ``deck_max``): the filter knows at least what the table knows."""
    for events in races:
        table = open_to_table(events)
        for cut in range(20, len(table), max(1, len(table) // 7)):
            public = _fold(table[:cut])
            info = information_set(table[:cut])
            for name, car in public.cars.items():
                for h in info.hand_distribution(name):
                    for i, c in enumerate(CARDS):
                        assert h[i] >= car.forced_in_hand(c)
                        assert car.pool[c] - h[i] <= car.deck_bound(c)


def test_the_viewer_knows_its_own_hand_in_an_open_race(races: list[list[Event]]) -> None:
    events = races[0]
    cut = len(events) // 2
    truth = _fold(events[:cut])
    name = next(iter(truth.cars))
    info = information_set(events[:cut], name)
    assert info.hand_distribution(name) == {_vec(truth.cars[name].hand): 1.0}  # type: ignore[arg-type]
    others = [n for n in truth.cars if n != name]
    assert any(len(info.hand_distribution(n)) > 1 for n in others)
    world = sample(info, name, random.Random(1))
    assert world.cars[name].hand == truth.cars[name].hand
    with pytest.raises(HeatlogError, match="information set"):
        sample(info, None, random.Random(1))


def _scramble_future(events: list[Event], cut: int, rng: random.Random) -> list[Event]:
    """The same log prefix with every deck's still-undrawn cards put in another order, in the shuffle events
    that recorded them: the recorded future changes, nothing anyone saw does."""
    state = _fold(events[:cut])
    out = [dict(e) for e in events[:cut]]
    for name, car in state.cars.items():
        if car.deck is None or len(car.deck) < 2:
            continue
        last = max(i for i, e in enumerate(out) if e["type"] == "deck_shuffled" and e["car"] == name)
        order = list(out[last]["order"])
        k = len(car.deck)
        tail = order[-k:]
        for _ in range(20):
            rng.shuffle(tail)
            if tail != order[-k:]:
                break
        out[last] = {**out[last], "order": order[:-k] + tail}
    return out


def test_playouts_are_blind_to_the_recorded_future(races: list[list[Event]]) -> None:
    """Scramble the recorded future deck orders: the same playout results for the same seed."""
    events = races[0]
    cut = len(events) // 2
    scrambled = _scramble_future(events, cut, random.Random(4))
    assert scrambled != events[:cut]
    a, b = _fold(events[:cut]), _fold(scrambled)
    assert any(a.cars[n].deck != b.cars[n].deck for n in a.cars)  # the scramble changed the future
    for viewer in (None, next(iter(a.cars))):
        ra = playouts(information_set(events[:cut], viewer), 24, seed=9)
        rb = playouts(information_set(scrambled, viewer), 24, seed=9)
        assert ra.outcomes == rb.outcomes


def test_a_position_without_its_log_conditions_on_its_bookkeeping(races: list[list[Event]]) -> None:
    events = races[0]
    truth = _fold(events[: len(events) // 2])
    info = information_set_of_state(truth)
    assert isinstance(info, InfoSet) and info.public.mode == "table"
    world = sample(truth, None, random.Random(3))
    for name, car in world.cars.items():
        assert car.hand is not None and car.deck is not None
        assert Counter(expand(car.hand)) + Counter(car.deck) == Counter(expand(truth.cars[name].pool))
    # a round trip through a position gives the same information set
    again = information_set_of_state(state_from_position(state_to_position(truth)))
    assert {n: b.hands for n, b in again.beliefs.items()} == {n: b.hands for n, b in info.beliefs.items()}


# ------------------------------------------------------------------------------------------------ Garage races

GARAGE_ALL = {"upgrades": "all", "draft": "snake", "expansions": ["heavy-rain", "tunnel-vision"]}


@pytest.fixture(scope="module")
def garage_races() -> list[list[Event]]:
    """Garage races (MODULES.md 18): every upgrade, snake draft (Refresh, Scrap, Salvage, Super Cool, Direct Play,
    Reduce); the drafted basic upgrades with a Legend and the weather (19, 20)."""
    mixed = ["heuristic", "random", "random"]
    return [
        simulate_race(
            None,
            track="usa",
            cars=3,
            seed=1,  # Refresh on top
            modules={"garage": GARAGE_ALL},
            bots=mixed,
        )[1],
        simulate_race(
            None,
            track="usa",
            cars=3,
            seed=1,  # Salvage
            modules={"garage": GARAGE_ALL, "legends": {"cars": 1}},
            bots=mixed,
        )[1],
        simulate_race(
            None,
            track="usa",
            cars=3,
            seed=0,  # Direct
            modules={"garage": GARAGE_ALL, "weather": {}},
            bots=mixed,
        )[1],
        simulate_race(
            None,
            track="usa",
            cars=2,
            seed=1,
            modules={"garage": {"upgrades": "basic", "draft": "draft"}, "legends": {"cars": 1}, "weather": {}},
        )[1],
    ]


def _gvec(hand: dict[str, int], info: InfoSet, car: str) -> tuple[int, ...]:
    return tuple(hand.get(k, 0) for k in info.beliefs[car].tokens)


def _cuts(events: list[Event], k: int) -> list[int]:
    """About ``k`` points of the race after the draft; never right after a car's face-down play (its cards are
    revealed in the table's log before they are in the open race's: the viewer's ``committed``)."""
    first = next(i for i, e in enumerate(events) if e["type"] == "gear_chosen")
    step = max(1, (len(events) - first) // k)
    return [c for c in range(first, len(events), step) if events[c - 1]["type"] != "cards_played"]


def test_18_1_a_garage_cars_unseen_cards_hold_its_upgrades_and_the_true_hand_is_possible(garage_races):
    """# 18.1, 18.5: the upgrades a car drafted are public, so its hand is a multiset over the base cards and its
    own upgrades; the filter never rules out what really happened (Scrap, Salvage, Reduce, Direct Play,
    Refresh: # 18.12–18.21)."""
    kinds = {e["type"] for events in garage_races for e in events}
    assert {"card_scrapped", "salvaged", "refreshed", "stress_reduced", "direct_played"} <= kinds
    for events in garage_races:
        for cut in _cuts(events, 5):
            truth = _fold(events[:cut])
            info = information_set(events[:cut])
            for name, car in truth.cars.items():
                if car.legend:
                    continue
                assert car.hand is not None
                tokens = info.beliefs[name].tokens
                owned = garage_slot(truth).owned[name]  # type: ignore[union-attr]
                assert tokens[:8] == CARDS and set(tokens[8:]) == set(owned)  # its own upgrades
                assert info.hand_distribution(name).get(_gvec(car.hand, info, name), 0) > 0, (cut, name)


def test_18_the_garage_posterior_respects_the_engines_table_knowledge(garage_races):
    """Every possible hand holds what the engine knows must be in the hand and leaves a deck within its bound
    (``Car.forced_in_hand``, ``deck_bound``), upgrades included: the filter knows at least what the table knows."""
    for events in garage_races[::3]:
        table = open_to_table(events)
        for cut in _cuts(table, 5):
            public = _fold(table[:cut])
            info = information_set(table[:cut])
            for name, car in public.cars.items():
                tokens = info.beliefs[name].tokens
                for h in info.hand_distribution(name):
                    for i, c in enumerate(tokens):
                        assert h[i] >= car.forced_in_hand(c)
                        assert car.pool[c] - h[i] <= car.deck_bound(c)


def test_18_21_a_refresh_card_is_known_on_top_of_the_deck(garage_races):
    """# 18.21, MA15: the Refresh card goes back on top of the draw deck, face known: the information set keeps it
    there (every sampled world has it on top, as the real deck does) and the next draw takes it first."""
    events = garage_races[0]
    found = 0
    for i in (j for j, e in enumerate(events) if e["type"] == "refreshed"):
        cut = next((c for c in range(i + 1, i + 8) if information_set(events[:c]).tops), None)
        if cut is None:
            continue
        info = information_set(events[:cut])
        truth = _fold(events[:cut])
        for name, top in info.tops.items():
            assert truth.cars[name].deck[-len(top) :] == top  # the real deck (top last)
            for k in range(20):
                world = info.sample(random.Random(k))
                assert world.cars[name].deck[-len(top) :] == top
                assert Counter(expand(world.cars[name].hand)) + Counter(world.cars[name].deck) == Counter(
                    expand(truth.cars[name].pool)
                )
            found += 1
    assert found, "no Refresh card waited on top of a deck in this race: pick another seed"


def test_18_garage_samples_hold_each_cars_own_cards(garage_races):
    """A sampled world deals each car exactly its unseen cards, upgrades included (hand ∪ deck = the car's deck
    and hand as the table counts them, # 18.1), never another car's upgrade; the viewer's own hand is its own."""
    events = garage_races[0]
    for cut in _cuts(events, 6):
        truth = _fold(events[:cut])
        info = information_set(events[:cut], "Red")
        for k in range(5):
            world = info.sample(random.Random(k))
            assert world.cars["Red"].hand == truth.cars["Red"].hand
            for name, car in world.cars.items():
                assert car.hand is not None and sum(car.hand.values()) == car.hand_size
                if car.needs_shuffle:
                    continue
                assert car.deck is not None
                held = Counter(expand(car.hand)) + Counter(car.deck)
                assert held == Counter(expand(truth.cars[name].pool))
                assert {c for c in held if c.startswith("U")} <= set(garage_slot(truth).owned[name])


def test_18_garage_playouts_are_blind_to_the_recorded_future(garage_races):
    """Scramble the recorded future deck orders of a Garage race: the same playout results for the same seed."""
    events = garage_races[0]
    half = range(len(events) // 2, len(events))
    cut = next(c for c in half if events[c - 1]["type"] == "gear_chosen" and not information_set(events[:c]).tops)
    scrambled = _scramble_future(events, cut, random.Random(4))
    a, b = _fold(events[:cut]), _fold(scrambled)
    assert any(a.cars[n].deck != b.cars[n].deck for n in a.cars)  # the scramble changed the future
    for viewer in (None, "Red"):
        ra = playouts(information_set(events[:cut], viewer), 12, seed=9)
        rb = playouts(information_set(scrambled, viewer), 12, seed=9)
        assert ra.outcomes == rb.outcomes


def test_18_a_review_of_a_garage_race_runs_on_what_the_car_knew():
    """Decision review of a Garage race (the sample with every module, round 2): each decision is judged by
    playouts from the car's information set, so the figures stay the same when every deck's recorded future
    (the orders of the cards not yet drawn) is scrambled."""
    from heatlog.review import Settings, review_race

    events = [json.loads(line) for line in (REPLAYS / "usa-garage-legends-weather.jsonl").read_text().splitlines()]
    cut = next(i for i, e in enumerate(events) if e["type"] == "gear_chosen" and _fold(events[: i + 1]).round == 3)
    scrambled = _scramble_future(events, cut, random.Random(2))
    assert scrambled != events[:cut]
    tiny = Settings(seed=1, screen=2, keep=1, batch=4, max_playouts=4)
    a, b = (review_race(log, ["Red"], settings=tiny, rounds={2}).cars[0].points for log in (events[:cut], scrambled))
    assert a and all(p.playouts > 0 for p in a)
    assert {p.point.kind for p in a} >= {"gear", "cards"}
    assert [(p.taken.mean_place, p.best.words, p.loss) for p in a] == [
        (p.taken.mean_place, p.best.words, p.loss) for p in b
    ]


def test_what_the_others_did_at_the_same_time_is_not_known_at_steps_1_2() -> None:
    """# 2.1: at steps 1–2 a car knows none of the other cars' gears and plays of that round, whatever order
    the log writes them in; its own earlier gear it knows. At step 3 on, nothing is left out."""
    from heatlog.analysis import as_known_by, made_at_the_same_time
    from heatlog.engine import apply
    from heatlog.simulate import simulate_race

    events = simulate_race(None, track="usa", cars=3, seed=5)[1]
    checked = 0
    state = None
    for i, ev in enumerate(events):
        if state is not None and state.phase == "race" and state.turn is None and ev["type"] == "cards_played":
            car = ev["car"]
            hidden = made_at_the_same_time(events, i, car)
            steps_1_2 = [j for j in range(i) if events[j]["type"] in ("gear_chosen", "cards_played")]
            this_round = steps_1_2[-len(state.cars) * 2 :]
            assert all(events[j]["car"] != car for j in hidden)
            assert all(events[j]["type"] in ("gear_chosen", "cards_played") for j in hidden)
            own_gear = [j for j in this_round if events[j]["car"] == car and events[j]["type"] == "gear_chosen"]
            assert own_gear and own_gear[-1] not in hidden  # its own gear of this round: known
            others = {events[j]["car"] for j in range(i) if j >= own_gear[-1] and events[j]["type"] == "cards_played"}
            assert {events[j]["car"] for j in hidden if events[j]["type"] == "cards_played"} == others
            known = as_known_by(events, i, car, at_steps_1_2=True)
            assert len(known) == i - len(hidden)
            checked += bool(others)
        if state is not None and state.turn is not None:
            assert as_known_by(events, i, ev.get("car"), at_steps_1_2=False) == events[:i]
        state = apply(state, ev, atomic=False)
    assert checked > 10


@pytest.fixture(scope="module")
def season_races(tmp_path_factory: pytest.TempPathFactory) -> list[list[Event]]:
    """Championship races (MODULES.md 21): a 1961 season with the Garage (sponsorship cards dealt at the start
    and earned at press corners, # 21.4, 21.7) and a 1965 season without it, whose last race is event 18's
    (a Heat card leaves the game at each lap, MA23)."""
    from heatlog.log.racelog import RaceLog
    from heatlog.season import season_view, simulate_season

    log = RaceLog(tmp_path_factory.mktemp("seasons") / "s.db")
    garage = simulate_season(
        log, published="1961", cars=3, seed=2, modules={"garage": {"upgrades": "basic", "expansions": []}}
    )
    cooker = simulate_season(log, published="1965", cars=3, seed=4)
    races = [season_view(log, garage).races[0].race, season_view(log, cooker).races[-1].race]
    return [[e.event for e in log.effective(r).entries] for r in races if r is not None]


def test_21_4_21_7_MA23_the_filter_follows_sponsorship_cards_and_heat_left_the_game(season_races):
    """A sponsorship card drawn into a hand is shown (# 21.4, 21.7), and event 18's Heat card leaves the game from
    the Engine, else the hand, else the discard pile, else the deck (MA23): the filter took in neither, and every
    playout, review and compare of a championship race stopped with "the hand filter … disagrees with the
    engine". The true hand stays possible and every possible hand respects what the table knows."""
    kinds = [{e["type"] for e in open_to_table(events)} for events in season_races]
    assert "sponsor_drawn" in kinds[0] and "heat_removed" in kinds[1]
    for events in season_races:
        table = open_to_table(events)
        cuts = [c for c in range(2, len(events), max(1, len(events) // 12)) if events[c - 1]["type"] != "cards_played"]
        table_cuts = sorted({i + 1 for i, e in enumerate(table) if e["type"] in ("sponsor_drawn", "heat_removed")})
        for cut in cuts:
            truth = _fold(events[:cut])
            info = information_set(events[:cut])
            for name, car in truth.cars.items():
                assert car.hand is not None
                hand = tuple(car.hand.get(k, 0) for k in info.beliefs[name].tokens)
                assert info.hand_distribution(name).get(hand, 0) > 0, (cut, name)
        for cut in table_cuts:
            public = _fold(table[:cut])
            info = information_set(table[:cut])
            for name, car in public.cars.items():
                tokens = info.beliefs[name].tokens
                for h in info.hand_distribution(name):
                    assert sum(h) == car.hand_size
                    for i, c in enumerate(tokens):
                        assert h[i] >= car.forced_in_hand(c) and car.pool[c] - h[i] <= car.deck_bound(c)
