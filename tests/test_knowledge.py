"""Table mode's one joint deduction (heatlog/engine/knowledge.py, # 1.7) against a brute-force oracle.

The oracle knows nothing of ``cap``: it carries, per car, every (hand, deck) pair of multisets that agrees
with the public entries so far, and follows each entry literally (a draw of k takes every k-card
sub-multiset of the deck into the hand, a flip keeps the decks holding the card, a reveal keeps the hands
holding the cards, …). Random open-mode races are projected to table mode (what a physical table records)
and checked event by event:

- every real entry is accepted, and the engine's knowledge is exactly the oracle's set of arrangements;
- at random points, every alternative entry (another reveal, flip, cooldown, discard) is accepted by the
  engine exactly when the oracle finds an arrangement allowing it (so the first impossible entry is
  refused), and a random walk on from an accepted alternative is never stuck: each question it meets has
  an accepted answer.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from heatlog.engine import HeatlogError, RaceState, apply, decisions, waiting_for
from heatlog.engine.cards import CARDS, DISCARDABLE, HEAT, PLAYABLE, STRESS
from heatlog.engine.knowledge import Knowledge
from heatlog.engine.modules.circuits import may_discard
from heatlog.engine.redact import open_to_table
from heatlog.engine.rules import go_on
from heatlog.formats.tracks import BUILTIN_TRACKS, load_track_data
from heatlog.simulate.world import race_events, random_bot

Event = dict[str, Any]
Vec = tuple[int, ...]  # counts in CARDS order
Pair = tuple[Vec, Vec]  # (hand, deck)
IDX = {c: i for i, c in enumerate(CARDS)}
H_I, S_I = IDX[HEAT], IDX[STRESS]

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def vec(cards: list[str] | dict[str, int]) -> Vec:
    out = [0] * len(CARDS)
    if isinstance(cards, dict):
        for c, n in cards.items():
            out[IDX[c]] += n
    else:
        for c in cards:
            out[IDX[c]] += 1
    return tuple(out)


def add(a: Vec, b: Vec) -> Vec:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def sub(a: Vec, b: Vec) -> Vec | None:
    out = tuple(x - y for x, y in zip(a, b, strict=True))
    return out if min(out) >= 0 else None


@lru_cache(maxsize=100_000)
def sub_multisets(d: Vec, k: int) -> tuple[Vec, ...]:
    """Every k-card sub-multiset of ``d``."""
    if k == 0:
        return ((0,) * len(d),)
    out: list[Vec] = []

    rest = [sum(d[i:]) for i in range(len(d) + 1)]

    def rec(i: int, left: int, acc: list[int]) -> None:
        if i == len(d):
            if left == 0:
                out.append(tuple(acc))
            return
        for n in range(max(0, left - rest[i + 1]), min(d[i], left) + 1):
            acc.append(n)
            rec(i + 1, left - n, acc)
            acc.pop()

    rec(0, k, [])
    return tuple(out)


# ---------------------------------------------------------------------------------------------- the oracle


def oracle_start(state: RaceState) -> dict[str, set[Pair]]:
    return {n: {((0,) * len(CARDS), vec(c.pool))} for n, c in state.cars.items()}


def stress_added(before: RaceState, ev: Event, after: RaceState, name: str) -> int:
    """Spinout Stress that entered ``name``'s hand during ``ev`` (the corners an entry closes, # 10.3)."""
    c0, c1 = before.cars[name], after.cars[name]
    dh = c1.hand_size - c0.hand_size
    if name != ev.get("car"):
        return dh
    own = {
        "cards_drawn": lambda: ev["count"],
        "cards_discarded": lambda: -len(ev["cards"]),
        "cards_revealed": lambda: -len(ev["cards"]),
        "cooldown": lambda: -ev["count"],
    }.get(ev["type"], lambda: 0)()
    return dh - own


def transition(pairs: set[Pair], ev: Event, stress: int, gear: int, shuffled_in: Vec | None) -> set[Pair]:
    """The arrangements left after ``ev`` for the car that made it (``stress`` spinout Stress first)."""
    if stress:
        s = tuple(stress if i == S_I else 0 for i in range(len(CARDS)))
        pairs = {(add(h, s), d) for h, d in pairs}
    kind = ev["type"]
    out: set[Pair] = set()
    if kind == "cards_drawn":
        k = ev["count"]
        for h, d in pairs:
            for x in sub_multisets(d, k):
                nd = sub(d, x)
                assert nd is not None
                out.add((add(h, x), nd))
        return out
    if kind == "card_flipped":
        c = vec([ev["card"]])
        return {(h, nd) for h, d in pairs if (nd := sub(d, c)) is not None}
    if kind == "deck_shuffled":
        assert shuffled_in is not None
        return {(h, shuffled_in) for h, d in pairs if sum(d) == 0}
    if kind == "cards_revealed":
        cards = ev["cards"]
        c = vec(cards)
        if HEAT in cards:  # # 13.1: the whole hand is the revealed cards plus Heat
            for h, d in pairs:
                rest = sum(h) - len(cards)
                exact = tuple(c[i] + (rest if i == H_I else 0) for i in range(len(CARDS)))
                if rest >= 0 and h == exact and sum(h[IDX[p]] for p in PLAYABLE) < gear:
                    out.add((sub(h, c) or (), d))  # type: ignore[arg-type]
            return out
        return {(nh, d) for h, d in pairs if (nh := sub(h, c)) is not None}
    if kind == "cooldown":
        c = vec([HEAT] * ev["count"])
        return {(nh, d) for h, d in pairs if (nh := sub(h, c)) is not None}
    if kind == "cards_discarded":
        c = vec(ev["cards"])
        return {(nh, d) for h, d in pairs if (nh := sub(h, c)) is not None}
    return pairs


def oracle_step(oracle: dict[str, set[Pair]], before: RaceState, ev: Event, after: RaceState) -> None:
    for name in before.cars:
        s = stress_added(before, ev, after, name)
        if name == ev.get("car") and ev["type"] == "deck_shuffled" and before.cars[name].needs_shuffle:
            continue  # the starting shuffle (# 1.2): the deck is the 18 cards, in an unknown order
        if name == ev.get("car"):
            shuffled = None
            if ev["type"] == "deck_shuffled":
                grown = sub(vec(after.cars[name].pool), vec(before.cars[name].pool))
                assert grown is not None
                shuffled = sub(grown, vec([STRESS] * s))
            oracle[name] = transition(oracle[name], ev, s, before.cars[name].gear, shuffled)
        elif s:
            oracle[name] = transition(oracle[name], {"type": "note"}, s, 0, None)


def oracle_allows(oracle: dict[str, set[Pair]], state: RaceState, ev: Event) -> bool | None:
    """Does some arrangement allow the knowledge-bound entry ``ev``? (Pending corners first, # 10.3.) None when
    the entry's step does not come (a spinout that leaves 7 cards skips the discard, # 12.2), or when the
    car ends its move in a tunnel, where no card may be discarded whatever the hand (# 22.6)."""
    name = ev["car"]
    stress = 0
    if ev["type"] == "cards_discarded" and state.turn is not None:
        view = state
        if state.turn.sub in (5, 6):
            view = go_on(state.copy())
            if view.turn is None or view.turn.car != name or view.turn.sub != 8:
                return None
        if not may_discard(view.track, view.cars[name].progress):
            return None
        stress = view.cars[name].hand_size - state.cars[name].hand_size
    return bool(transition(oracle[name], ev, stress, state.cars[name].gear, None))


def assert_engine_knows_exactly(state: RaceState, name: str, pairs: set[Pair], where: object) -> None:
    """The engine's knowledge (D ≤ cap, |D| = deck_size, hand = unseen - D) is exactly the oracle's set: every
    oracle arrangement fits it, and it has no more arrangements than the oracle (counted, not listed)."""
    k = Knowledge.of(state.cars[name])
    unseen, cap = vec(k.unseen), vec(k.cap)
    for h, d in pairs:
        assert sum(d) == k.deck_size and all(x <= y for x, y in zip(d, cap, strict=True)), where
        assert add(h, d) == unseen, where
    ways = [1] + [0] * k.deck_size  # multisets D ≤ cap of each size
    for m in cap:
        ways = [sum(ways[j - x] for x in range(min(m, j) + 1)) for j in range(k.deck_size + 1)]
    assert ways[k.deck_size] == len({d for _, d in pairs}) == len(pairs), where


# ---------------------------------------------------------------------------------------------- races


@st.composite
def races(draw: st.DrawFn) -> tuple[int, str, int]:
    return draw(st.integers(0, 2**32 - 1)), draw(st.sampled_from(BUILTIN_TRACKS)), draw(st.integers(2, 3))


@lru_cache(maxsize=16)
def table_log(params: tuple[int, str, int]) -> tuple[Event, ...]:
    return tuple(open_to_table(list(open_log(params))))


@lru_cache(maxsize=16)
def open_log(params: tuple[int, str, int]) -> tuple[Event, ...]:
    """The open-mode race that ``table_log`` projects to table mode."""
    seed, track, n = params
    data = load_track_data(track)
    names = ["Ann", "Bob", "Cy"][:n]
    start = {
        "type": "race_started",
        "v": 1,
        "track": data,
        "laps": 1,
        "cars": [{"name": x, "colour": c} for x, c in zip(names, ("red", "blue", "green"), strict=False)],
        "variant": "one-lap",
        "mode": "open",
    }
    return tuple(race_events(start, dict.fromkeys(names, random_bot), seed))


def accepted(state: RaceState, ev: Event) -> RaceState | None:
    try:
        return apply(state.copy(), ev)
    except HeatlogError:
        return None


CHANGING = frozenset(("cards_drawn", "deck_shuffled", "cards_revealed", "card_flipped", "cards_discarded"))
KNOWLEDGE_KINDS = ("cards_revealed", "card_flipped", "cooldown", "cards_discarded")


def candidates(state: RaceState) -> Iterator[Event]:
    """Entries a host could type now (a superset of the legal ones)."""
    w = waiting_for(state)
    if not w.cars:
        return
    name = w.cars[0]
    car = state.cars[name]
    turn = state.turn
    for kind in w.kinds:
        if kind == "gear_chosen":
            yield from decisions(state, name)
        elif kind == "cards_revealed":
            for combo in combinations_with_replacement(CARDS, car.gear):
                if any(combo.count(c) > car.pool[c] for c in combo):
                    continue  # more than the unseen cards: refused without any deduction
                yield {"type": kind, "v": 1, "car": name, "cards": list(combo)}
        elif kind == "card_flipped":
            for c in CARDS:
                yield {"type": kind, "v": 1, "car": name, "card": c}
        elif kind == "deck_shuffled":
            yield {"type": kind, "v": 1, "car": name}
        elif kind == "cards_drawn":
            for n in range(1, 8):
                yield {"type": kind, "v": 1, "car": name, "count": n}
        elif kind == "cooldown" and turn is not None:  # within the gear's allowance (# 7.2): the hand decides
            for n in range(1, turn.cooldown_allowance - turn.cooled + 1):
                yield {"type": kind, "v": 1, "car": name, "count": n}
        elif kind in ("boost", "adrenaline", "slipstream"):
            yield from (d for d in decisions(state, name) if d["type"] == kind)
        elif kind == "cards_discarded":
            for k in (1, 2):
                for combo in combinations_with_replacement(sorted(DISCARDABLE), k):
                    yield {"type": kind, "v": 1, "car": name, "cards": list(combo)}


# ---------------------------------------------------------------------------------------------- properties


@SETTINGS
@given(races())
def test_every_real_entry_is_accepted_and_the_knowledge_is_exact(params: tuple[int, str, int]) -> None:
    log = table_log(params)
    state = apply(apply(None, log[0]), log[1])  # the grid: the 18-card decks exist
    oracle = oracle_start(state)
    for i, ev in enumerate(log[2:], start=2):
        after = accepted(state, ev)
        assert after is not None, f"real entry {i} refused: {ev}"
        oracle_step(oracle, state, ev, after)
        state = after
        for name in state.cars:
            assert oracle[name], (i, name, "the oracle lost the true arrangement")
            if ev.get("car") == name and ev["type"] in CHANGING:
                assert_engine_knows_exactly(state, name, oracle[name], (i, name, ev))


@SETTINGS
@given(races(), st.lists(st.floats(0, 1, exclude_max=True), min_size=1, max_size=2), st.integers(0, 2**32 - 1))
# A discard in Spain's tunnel is refused by # 22.6, not by the hand.
@example(params=(0, "spain", 2), cuts=[0.5], seed=0)
def test_the_first_impossible_entry_is_refused_and_nothing_gets_stuck(
    params: tuple[int, str, int], cuts: list[float], seed: int
) -> None:
    log = table_log(params)
    rng = random.Random(seed)
    points = sorted({2 + int(f * (len(log) - 2)) for f in cuts})
    state = apply(apply(None, log[0]), log[1])
    oracle = oracle_start(state)
    for i, ev in enumerate(log[2:], start=2):
        if i in points and ev["type"] in KNOWLEDGE_KINDS:
            _walk(state, {k: set(v) for k, v in oracle.items()}, rng)
        after = apply(state.copy(), ev)
        oracle_step(oracle, state, ev, after)
        state = after


def _walk(state: RaceState, oracle: dict[str, set[Pair]], rng: random.Random, steps: int = 12) -> None:
    """From ``state``, check every candidate against the oracle and go on with a random accepted one."""
    for _ in range(steps):
        if state.phase == "over":
            return
        options: list[tuple[Event, RaceState]] = []
        for ev in candidates(state):
            after = accepted(state, ev)
            if ev["type"] in KNOWLEDGE_KINDS:
                allowed = oracle_allows(oracle, state, ev)
                assert allowed is None or (after is not None) == allowed, (ev, after is not None)
            if after is not None:
                options.append((ev, after))
        w = waiting_for(state)
        if w.may_go_on:  # steps 5–8: the car may simply go on (no event; a spinout may end the turn, # 12.2)
            options.append(({"type": "note", "v": 1, "text": "go on"}, go_on(state.copy())))
        assert options, f"stuck: {w.text}"
        ev, after = rng.choice(options)
        oracle_step(oracle, state, ev, after)
        state = after


# ------------------------------------------------------------------------------- the hot path's quick answers


def _quick_answers_agree(state: RaceState, rng: random.Random) -> None:
    for car in state.cars.values():
        if car.legend or car.hand_size is None:
            continue
        full = Knowledge.of(car)
        tokens = [*car.pool, "?"]  # "?": a token this car has none of (the door refuses it before a flip)
        for card in tokens[:-1]:
            assert Knowledge.why_not_on_deck_of(car, card) == full.why_not_on_deck(card), (car.name, card)
        for _ in range(6):
            cards = [rng.choice(tokens[:-1] if rng.random() < 0.9 else tokens) for _ in range(rng.randint(1, 8))]
            assert Knowledge.why_not_in_hand_of(car, cards) == full.why_not_in_hand(cards), (car.name, cards)


@SETTINGS
@given(races(), st.booleans(), st.integers(0, 2**32 - 1))
def test_the_quick_answers_are_the_deductions(params: tuple[int, str, int], table: bool, seed: int) -> None:
    """``why_not_in_hand_of`` and ``why_not_on_deck_of`` answer a yes without building the deduction (every
    reveal, discard, cooldown and flip asks them, # 1.7): at every point of open and table races, for every card
    and random plays (too many cards, cards the car has none of among them), they say exactly what the
    deduction says."""
    log = table_log(params) if table else open_log(params)
    rng = random.Random(seed)
    state = apply(None, log[0])
    for ev in log[1:]:
        state = apply(state, ev)
        _quick_answers_agree(state, rng)


def test_the_quick_answers_with_cards_known_on_top() -> None:
    """A Refresh puts a card back on top of the deck, face known (# 18.21): the quick answers then ask the
    deduction, which knows the top card."""
    from heatlog.simulate import simulate_race

    rng = random.Random(3)
    tops = 0
    for seed in range(4):
        _, log, _ = simulate_race(
            None, seed=seed, track="usa", cars=3, bots="heuristic", modules={"garage": {"upgrades": "all"}}
        )
        for view in (log, open_to_table(log)):
            state = apply(None, view[0])
            for ev in view[1:]:
                state = apply(state, ev)
                tops += sum(1 for car in state.cars.values() if car.deck_top)
                _quick_answers_agree(state, rng)
    assert tops, "no Refresh put a card on top: the case is not exercised"
