"""What a player knew: information sets, and full states drawn from them (docs/analysis.md).

An **information set** for a car at a point of a race is everything public — the table-mode log up to that
point (:func:`heatlog.engine.redact.open_to_table` of an open-mode log) — plus that car's own hand where the
log knows it (an open-mode race). :func:`information_set` builds it from a race's effective log and
:func:`sample` draws a full, open-mode ``RaceState`` from it: every hidden hand and every unknown deck order.

How uniform (the exact statement, tested in ``tests/test_analysis_infoset.py``):

    Every shuffle a car's deck ever had is a uniformly random order of its physical cards (copies of a card
    are distinct cards). Among all such chance histories, keep those that reproduce the public log: every
    flipped card is the top card of the deck at that moment; every revealed, discarded or cooled card is in
    the hand at that moment; a cluttered reveal (Heat played, # 13.1) leaves only Heat in the hand. A
    decision is taken as possible or not — never as evidence of which legal hand the player held. Each
    kept history is equally likely; :func:`sample` returns the current state of one of them with exactly
    that probability (its hand by the share of kept histories that end in it, then its deck order
    uniformly among the orders of the remaining cards).

Cars are independent given the public log (each car's observations depend only on its own shuffles), so the
posterior is a product over cars; for each car it is computed exactly by a forward filter over its hand —
a multiset of at most 8 card kinds — event by event (``_Filter``). The filter uses the engine's public
bookkeeping (``Car.pool`` = deck ∪ hand, ``hand_size``, ``stress_taken``) as its oracle and checks after
every event that it agrees with it: the deck of a car is always ``pool − hand``.

A Garage race (MODULES.md 18) is the same filter over the race's card catalogue (``state.cards.tokens``: the
base cards, then the upgrades): each car's upgrades are public from the draft on (the market, the picks, a
random deal, # 18.5), so its unseen multiset holds them like any card, and the Garage's events are more
observations of the same kinds — a card leaving the hand (revealed, discarded, a cooldown's Heat, the Stress a
Reduce discards, a Direct Play, # 18.15, 18.19), a card off the top of the deck (a flip, a scrapped card,
# 18.12), cards into the deck at an unknown place (a Salvage, then its shuffle, # 18.18). One observation is
new: a Refresh card goes back **on top** of the deck (# 18.21, MA15). The engine keeps that fact
(``Car.deck_top``, the one deduction of engine/knowledge.py: a draw takes them first, a flip or a scrap must show
the top one, a shuffle forgets them); the filter reads it and sets those cards apart from hand and deck: its
hands range over the car's unseen cards less the known top ones, a known card drawn joins the hand as it is,
a flip of the known top card tells nothing of the hand, and :meth:`InfoSet.sample` puts them back on top.

A race that starts from a position: the hidden cards of the position are taken as a uniformly random
arrangement of the car's unseen cards into hand and deck, subject to what the position records (``deck_max``,
the most each card the deck can hold). :func:`information_set_of_state` uses that prior alone for a state
without its log (a position file): it then conditions on the position's bookkeeping and nothing else.

Never read: the hands of other cars, and any recorded deck order (the future of a simulated or open-mode
race) — the information set is built from the table-mode projection, which holds neither.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import comb
from operator import gt, sub
from typing import Any

from ..engine import HeatlogError, IllegalEvent, MalformedInput, RaceState, apply
from ..engine.cards import CARDS, HEAT, STRESS
from ..engine.game import apply_decision, sub_multisets, to_move
from ..engine.module import removed_cards
from ..engine.redact import open_to_table
from ..engine.state import Car, Counts, Turn, expand

Event = dict[str, Any]
Hand = tuple[int, ...]  # a hand as counts in the race's card order (1 2 3 4 0 5 H S, then its upgrades)

_IH = CARDS.index(HEAT)  # the base cards come first in every race's catalogue
_IS = CARDS.index(STRESS)
_N = len(CARDS)
# The base game's events whose cards leave the car's hand, and how many of which (# 4.1, 11.1, 7.3); a module's
# own are its descriptor's (``Module.hand_moves``: the Garage's Stress reduced and Direct Play, # 18.15, 18.19).
_HAND_OUT = ("cards_revealed", "cards_discarded", "cooldown")


def _vec(c: Counts, tokens: tuple[str, ...] = CARDS) -> Hand:
    return tuple(c.get(k, 0) for k in tokens)  # (a Garage car's multisets get the upgrades at the deal, # 18.1)


def _left_hand(ev: Event) -> list[str]:
    """The cards an event takes out of its car's hand (public in table mode)."""
    kind = ev["type"]
    if kind in ("cards_revealed", "cards_discarded"):
        return list(ev["cards"])
    if kind == "cooldown":
        return [HEAT] * int(ev["count"])  # # 7.3; a card's cooldown too (# 18.13)
    return []


def _hand_moves() -> dict[str, tuple[str, Any]]:
    """Every registered module's events that move a car's cards in sight of the table (``Module.hand_moves``)."""
    from ..engine.module import MODULES

    return {kind: move for m in MODULES.values() for kind, move in m.hand_moves.items()}


_DRAWS: dict[tuple[Hand, int], list[tuple[Hand, float]]] = {}


def _draws(deck: Hand, n: int) -> list[tuple[Hand, float]]:
    """The multisets of ``n`` cards a draw from ``deck`` can bring, each with its number of physical draws."""
    key = (deck, n)
    hit = _DRAWS.get(key)
    if hit is None:
        hit = []
        for x in sub_multisets(deck, n):
            ways = 1
            for d, k in zip(deck, x, strict=True):
                if k:
                    ways *= comb(d, k)
            hit.append((x, float(ways)))
        if len(_DRAWS) > 50_000:
            _DRAWS.clear()
        _DRAWS[key] = hit
    return hit


_CODED: dict[tuple[Hand, int, int], list[tuple[int, float]]] = {}


def _code(h: Hand, bits: int) -> int:
    """A hand as one number, ``bits`` bits per kind of card (the first kind lowest): the sum of two codes is the
    code of the sum of the hands while no count reaches ``1 << bits`` (no carry)."""
    out = 0
    for k in reversed(h):
        out = (out << bits) | k
    return out


_DECODED: dict[tuple[int, int], dict[int, Hand]] = {}


def _decoder(bits: int, kinds: int) -> dict[int, Hand]:
    """The hands decoded so far from codes of ``bits`` bits per kind and ``kinds`` kinds (:func:`_decode`)."""
    hit = _DECODED.get((bits, kinds))
    if hit is None or len(hit) > 200_000:
        hit = _DECODED[(bits, kinds)] = {}
    return hit


def _decode(code: int, bits: int, kinds: int) -> Hand:
    mask = (1 << bits) - 1
    return tuple((code >> (bits * i)) & mask for i in range(kinds))


def _coded_draws(deck: Hand, n: int, bits: int) -> list[tuple[int, float]]:
    """:func:`_draws` with each multiset as its :func:`_code`."""
    key = (deck, n, bits)
    hit = _CODED.get(key)
    if hit is None:
        hit = [(_code(x, bits), ways) for x, ways in _draws(deck, n)]
        if len(_CODED) > 50_000:
            _CODED.clear()
        _CODED[key] = hit
    return hit


def _hidden(car: Car, tokens: tuple[str, ...]) -> Hand:
    """The car's unseen cards less those known on top of its deck (the engine's fact, # 18.21): what its hand and
    the rest of its deck share."""
    pool = _vec(car.pool, tokens)
    if not car.deck_top:
        return pool
    out = list(pool)
    for c in car.deck_top:
        out[tokens.index(c)] -= 1
    return tuple(out)


class _Filter:
    """The posterior over one car's hand (hand -> weight, proportional to the kept chance histories), over the
    race's card ``tokens``. The deck is the car's hidden cards (:func:`_hidden`) less the hand."""

    __slots__ = ("name", "weights", "tokens")

    def __init__(self, name: str, weights: dict[Hand, float], tokens: tuple[str, ...] = CARDS) -> None:
        self.name = name
        self.weights = weights
        self.tokens = tokens

    @classmethod
    def prior(cls, car: Car) -> _Filter:
        """A uniformly random arrangement of the unseen cards into hand and deck, the deck within its bound (the
        cards known on top of it apart)."""
        tokens = tuple(car.pool)  # the race's card order (a car's multisets hold exactly its race's tokens)
        pool = _hidden(car, tokens)
        top = car.deck_top
        bound = tuple(car.deck_bound(c) - top.count(c) for c in tokens)
        weights: dict[Hand, float] = {}
        if car.hand is not None:
            return cls(car.name, {_vec(car.hand, tokens): 1.0}, tokens)
        for h in sub_multisets(pool, car.hand_size):
            if all(p - k <= b for p, k, b in zip(pool, h, bound, strict=True)):
                ways = 1
                for p, k in zip(pool, h, strict=True):
                    ways *= comb(p, k)
                weights[h] = float(ways)
        return cls(car.name, weights, tokens)

    def grow(self, car: Car) -> None:
        """Take in the kinds of card the car's multisets now hold (its upgrades, dealt with the deck, # 18.1)."""
        new = tuple(k for k, v in car.pool.items() if v and k not in self.tokens)
        if new:
            pad = (0,) * len(new)
            self.tokens = (*self.tokens, *new)
            self.weights = {(*h, *pad): w for h, w in self.weights.items()}

    def _set(self, weights: dict[Hand, float], what: str) -> None:
        if not weights:
            raise IllegalEvent(f"no hand of {self.name} is consistent with the public log after {what}")
        top = max(weights.values())
        if top > 1e200 or top < 1e-200:
            weights = {h: w / top for h, w in weights.items()}
        self.weights = weights

    def add(self, i: int, k: int) -> None:
        """``k`` cards of kind ``i`` go into the hand (Stress at a spinout, # 10.3): public."""
        self.weights = {(*h[:i], h[i] + k, *h[i + 1 :]): w for h, w in self.weights.items()}

    def remove(self, x: Hand, *, only_heat_left: bool = False, what: str = "") -> None:
        """The cards ``x`` leave the hand (revealed, discarded, cooled): the hand held them."""
        out: dict[Hand, float] = {}
        for h, w in self.weights.items():
            rest = tuple(map(sub, h, x))
            if min(rest) < 0:
                continue
            if only_heat_left and sum(rest) != rest[_IH]:
                continue  # # 13.1: a cluttered hand played every playable card; the rest is Heat
            out[rest] = out.get(rest, 0.0) + w
        self._set(out, what)

    def heat_removed(self, source: str) -> None:
        """Event 18 (MA23): a Heat card left the game from ``source``: the Engine (public), else the hand, else
        the discard pile, else the deck; from the discard pile or the deck, the hand held no Heat card."""
        i = self.tokens.index(HEAT)
        if source == "hand":
            self.remove(tuple(1 if k == i else 0 for k in range(len(self.tokens))), what="a Heat card from the hand")
        elif source in ("discard", "deck"):
            self._set({h: w for h, w in self.weights.items() if h[i] == 0}, f"a Heat card from the {source}")

    def draw(self, pool: Hand, n: int) -> None:
        """``n`` hidden cards come from the top of the deck (``pool − hand``) into the hand."""
        if not n:
            return
        # Hands as numbers (_code): a new hand is one addition, not a tuple built for each of the (hand, draw)
        # pairs, the most of an information set's cost late in a race. The same sums in the same order, and the
        # hands first met in the same order: the same weights, bit for bit.
        bits = max(1, max(pool).bit_length())  # every hand and draw lies within the pool: no carry
        out: dict[int, float] = {}
        get = out.get
        for h, w in self.weights.items():
            hc = _code(h, bits)
            for xc, ways in _coded_draws(tuple(map(sub, pool, h)), n, bits):
                k = hc + xc
                out[k] = get(k, 0.0) + w * ways
        kinds = len(pool)
        known = _decoder(bits, kinds)
        hands: dict[Hand, float] = {}
        for k, w in out.items():
            new = known.get(k)
            if new is None:
                new = known[k] = _decode(k, bits, kinds)
            hands[new] = w
        self._set(hands, f"a draw of {n}")

    def flip(self, pool: Hand, i: int) -> None:
        """A card of kind ``i`` was the top of the deck (a flip, a scrapped card): each hand counts the copies its
        deck holds."""
        out: dict[Hand, float] = {}
        for h, w in self.weights.items():
            here = pool[i] - h[i]
            if here > 0:
                out[h] = w * here
        self._set(out, f"a flip of {self.tokens[i]}")

    def check(self, car: Car) -> None:
        """The engine's bookkeeping is the oracle: every hand has hand_size cards and lies within the pool."""
        pool = _hidden(car, self.tokens)
        size = car.hand_size
        for h in self.weights:
            if sum(h) != size or len(h) != len(pool) or any(map(gt, h, pool)):
                raise IllegalEvent(
                    f"analysis: the hand filter of {car.name} disagrees with the engine "
                    f"(hand {h} against {car.hand_size} cards, unseen {pool})"
                )


@dataclass(slots=True)
class CarBelief:
    """What is known of one car's hand: the hands the log allows with their probabilities (sorted), as counts
    of ``tokens`` (the base cards 1 2 3 4 0 5 H S, then any upgrades the car holds, # 18.1)."""

    hands: list[Hand]
    cumulative: list[float]  # cumulative probabilities, last == 1.0
    tokens: tuple[str, ...] = CARDS

    @classmethod
    def of(cls, weights: dict[Hand, float], tokens: tuple[str, ...] = CARDS) -> CarBelief:
        hands = sorted(weights)
        total = sum(weights[h] for h in hands)
        acc = 0.0
        cum: list[float] = []
        for h in hands:
            acc += weights[h] / total
            cum.append(acc)
        cum[-1] = 1.0
        return cls(hands, cum, tokens)

    def probabilities(self) -> dict[Hand, float]:
        out: dict[Hand, float] = {}
        prev = 0.0
        for h, c in zip(self.hands, self.cumulative, strict=True):
            out[h] = c - prev
            prev = c
        return out

    def draw(self, rng: random.Random) -> Hand:
        if len(self.hands) == 1:
            return self.hands[0]
        return self.hands[bisect_right(self.cumulative, rng.random() * self.cumulative[-1])]


@dataclass(slots=True)
class InfoSet:
    """An information set: the public state at a point, what is known of every hand, and the viewer.

    ``public`` is the table-mode state (no hand, no deck order); ``beliefs`` the posterior over each car's
    hand; ``known`` the hands the viewer knows (its own, in an open-mode race) and ``committed`` the cards the
    viewer has played face down at step 2 and not yet revealed (open mode). Picklable: it is what playout
    workers receive."""

    public: RaceState
    beliefs: dict[str, CarBelief]
    viewer: str | None = None
    known: dict[str, Hand] = field(default_factory=dict)
    committed: dict[str, list[str]] = field(default_factory=dict)

    @property
    def tops(self) -> dict[str, list[str]]:
        """The cards known on top of each car's deck, top last (the engine's ``Car.deck_top``, # 18.21)."""
        return {n: list(c.deck_top) for n, c in self.public.cars.items() if c.deck_top}

    def hand_distribution(self, car: str) -> dict[Hand, float]:
        """The probability of each hand of ``car`` (one hand with probability 1 where it is known)."""
        if car in self.known:
            return {self.known[car]: 1.0}
        return self.beliefs[car].probabilities()

    def sample(self, rng: random.Random) -> RaceState:
        """A full open-mode state drawn from this information set (see the module's statement)."""
        world = self.public.copy()
        world.mode = "open"
        for name, car in world.cars.items():
            belief = self.beliefs[name]
            h = self.known[name] if name in self.known else belief.draw(rng)
            tokens = tuple(car.pool)  # the race's card order
            car.hand = dict.fromkeys(tokens, 0)
            car.hand.update(zip(belief.tokens, h, strict=True))
            car.deck_max = None
            if car.needs_shuffle:
                car.deck = None  # the starting shuffle is still to come: a chance event of the world
                continue
            top = car.deck_top  # public: the world keeps it (# 18.21)
            rest = {c: car.pool[c] - car.hand[c] for c in tokens}
            for c in top:
                rest[c] -= 1
            deck = expand(rest)
            rng.shuffle(deck)
            car.deck = deck + list(top)  # the known top cards stay on top (top last)
        for name, cards in self.committed.items():
            car = world.cars[name]
            node = to_move(world)
            if node.kind == "decision" and node.car == name and "cards_revealed" in node.kinds:
                apply_decision(world, {"type": "cards_revealed", "v": 1, "car": name, "cards": cards})
            else:
                car.committed = list(cards)
        return world


def _table_filters(events: Sequence[Event]) -> tuple[RaceState, dict[str, _Filter]]:
    """Fold a table-mode log through the engine and every car's hand filter."""
    state: RaceState | None = None
    removed_by: Callable[[Turn], list[str]] | None = None  # made at the first event after race_started
    filters: dict[str, _Filter] = {}
    checked: dict[str, tuple[dict[Hand, float], int, Counts, tuple[str, ...]]] = {}  # last checked against
    moves = _hand_moves()
    for ev in events:
        kind = ev.get("type")
        if kind == "retracted":
            raise MalformedInput("an information set is built from an effective log: resolve retractions first")
        if state is None:
            state = apply(None, ev, atomic=False)
            if state.phase != "grid":  # a race from a position
                filters = {n: _Filter.prior(c) for n, c in state.cars.items()}
            continue
        before = {n: (_hidden(state.cars[n], f.tokens), state.cars[n].stress_taken) for n, f in filters.items()}
        tops = {n: len(state.cars[n].deck_top) for n in filters}
        # Event 18 (MA23): a Heat card leaves the game in the turn under way (at step 8, or by the table's
        # heat_removed): only that turn, the turns the event ended and the one it began can have a new one.
        current, ended = state.turn, len(state.turns)
        if removed_by is None:
            removed_by = removed_cards(state)  # the race's modules' (event 18's Heat, MA23)
        removed = len(removed_by(current)) if current is not None else 0
        apply(state, ev, atomic=False)
        touched = [current, *state.turns[ended:], state.turn]
        for k, t in enumerate(touched):
            if t is None or t.car not in filters or any(t is u for u in touched[:k]):
                continue
            for source in removed_by(t)[removed if t is current else 0 :]:
                filters[t.car].heat_removed(source)
        if kind == "grid_set":
            filters = {n: _Filter(n, {(0,) * _N: 1.0}) for n in state.cars}
            continue
        if len(state.cards.tokens) > _N:  # a race with more cards than the base ones (the Garage, # 18.1)
            for n, f in filters.items():
                f.grow(state.cars[n])
                b = before[n][0]
                before[n] = ((*b, *(0,) * (len(f.tokens) - len(b))), before[n][1])
        name = ev.get("car")
        for n, c in state.cars.items():
            extra = c.stress_taken - before[n][1]
            if extra and n in filters:
                filters[n].add(_IS, extra)  # # 10.3: Stress into the hand at a spinout (any event may close a turn)
        if isinstance(name, str) and name in filters:
            f = filters[name]
            car = state.cars[name]
            extra = car.stress_taken - before[name][1]  # Stress a spinout put in the hand first
            pool_mid = tuple(p + (extra if i == _IS else 0) for i, p in enumerate(before[name][0]))
            what = f"{kind} (event {state.events})"
            move = moves.get(kind) if isinstance(kind, str) else None  # a module's (Module.hand_moves)
            top = tops[name]
            if kind in _HAND_OUT or (move is not None and move[0] == "out"):
                left = _vec(Counter(_left_hand(ev) if move is None else move[1](ev)), f.tokens)
                f.remove(left, only_heat_left=kind == "cards_revealed" and HEAT in ev["cards"], what=what)  # # 13.1
            elif kind == "cards_drawn":
                # The engine's fact (# 18.21): cards known on top of the deck (a Refresh's, perhaps put there by
                # this very event as it cleared the Play Area) that the draw took join the hidden cards as they
                # enter the hand; the rest of the draw came from the unknown part of the deck.
                after = _hidden(car, f.tokens)
                known = tuple(a - b for a, b in zip(after, pool_mid, strict=True))
                for i, k in enumerate(known):
                    if k > 0:
                        f.add(i, k)
                f.draw(after, int(ev["count"]) - sum(k for k in known if k > 0))
            elif move is not None and move[0] == "in":
                for token in move[1](ev):  # shown, into the hand (a sponsorship card, # 21.4, 21.7)
                    f.add(f.tokens.index(token), 1)
            elif (kind == "card_flipped" or (move is not None and move[0] == "top")) and len(car.deck_top) >= top:
                # the top of the deck, seen (# 14.1; a Scrap's, # 18.12); a known top card (the engine's deck_top
                # shrank, it checked the card) tells nothing of the hand
                for token in [ev["card"]] if move is None else move[1](ev):
                    f.flip(pool_mid, f.tokens.index(token))
        for n, f in filters.items():
            c = state.cars[n]
            seen = checked.get(n)
            # The check is a pure function of the hands and the car's bookkeeping: done again only when either
            # changed (most events leave every other car's filter and pool as they were).
            if (
                seen is None
                or seen[0] is not f.weights
                or seen[1] != c.hand_size
                or seen[2] != c.pool
                or seen[3] != c.deck_top
            ):
                f.check(c)
                checked[n] = (f.weights, c.hand_size, dict(c.pool), c.deck_top)
    if state is None:
        raise MalformedInput("an empty log has no race")
    return state, filters


#: The decisions of steps 1–2, which every car makes at the same time (# 2.1).
SIMULTANEOUS = frozenset(("gear_chosen", "cards_played"))


def made_at_the_same_time(events: Sequence[Event], i: int, car: str) -> tuple[int, ...]:
    """Indices of the other cars' gears and plays that ``car`` could not know when deciding at ``events[i]``,
    a decision at steps 1–2: every car shifts and plays at the same time (# 2.1), but a log writes them one
    after another. They are the run of steps 1–2 events just before ``i`` (a round's steps 1–2 follow the
    last car's draw of the round before, so the run holds nothing else); the caller says the point is at
    steps 1–2 (for a point at step 3 or later, every play was made and is revealed car by car)."""
    k = i
    while k > 0 and events[k - 1].get("type") in SIMULTANEOUS:
        k -= 1
    return tuple(j for j in range(k, i) if events[j].get("car") != car)


def as_known_by(events: Sequence[Event], i: int, car: str | None, *, at_steps_1_2: bool) -> list[Event]:
    """The log before ``events[i]`` as ``car`` knew it: ``events[:i]`` without what the other cars did at the
    same time (:func:`made_at_the_same_time`) when the point is at steps 1–2 (# 2.1)."""
    if car is None or not at_steps_1_2:
        return list(events[:i])
    hidden = set(made_at_the_same_time(events, i, car))
    return [ev for j, ev in enumerate(events[:i]) if j not in hidden]


def information_set(events: Sequence[Event], car: str | None = None) -> InfoSet:
    """The information set of ``car`` (None: public information only) after the effective log ``events``.

    An open-mode log is first projected to the table-mode log of the same race (what every player saw);
    the viewer's own hand and its cards played face down are then added from the open log."""
    if not events or events[0].get("type") != "race_started":
        raise MalformedInput("the first event of a race is race_started")
    mode = events[0].get("mode", "open")
    if mode == "open":
        table = open_to_table(list(events))
        public, filters = _table_filters(table)
    else:
        public, filters = _table_filters(events)
    if car is not None and car not in public.cars:
        raise MalformedInput(f"no car named {car!r} in this race (cars: {', '.join(public.cars)})")
    info = InfoSet(public, {n: CarBelief.of(f.weights, f.tokens) for n, f in filters.items()}, viewer=car)
    if car is not None and mode == "open":
        full: RaceState | None = None
        for ev in events:
            full = apply(full, ev, atomic=False)
        assert full is not None
        _know_own(info, full.cars[car])
    return info


def _know_own(info: InfoSet, mine: Car) -> None:
    """The viewer's own hand (and the cards it played face down at step 2), where the full state knows them."""
    if mine.hand is not None:
        info.known[mine.name] = _vec(mine.hand, info.beliefs[mine.name].tokens)
        if mine.committed is not None:
            info.committed[mine.name] = list(mine.committed)


def full_information(events: Sequence[Event]) -> InfoSet:
    """What an observer who sees every hand knows after the effective log ``events`` (luck analysis, docs/
    analysis.md): every car's hand and the cards it played face down, where the log knows them (open mode);
    the order of every deck stays unknown (it is the future's chance: each deck is drawn uniformly from its
    cards). No hand filter is needed (every hand is known), so this is much cheaper than
    :func:`information_set`. A table-mode log knows no hand: the public information set."""
    if not events or events[0].get("type") != "race_started":
        raise MalformedInput("the first event of a race is race_started")
    if events[0].get("mode", "open") != "open":
        return information_set(events, None)
    public: RaceState | None = None
    for ev in open_to_table(list(events)):
        public = apply(public, ev, atomic=False)
    full: RaceState | None = None
    for ev in events:
        full = apply(full, ev, atomic=False)
    assert public is not None and full is not None
    info = InfoSet(public, {})
    for name, car in full.cars.items():
        tokens = tuple(public.cars[name].pool)
        if car.hand is None:  # (the set-up, before the hands are dealt: nothing hidden yet)
            info.beliefs[name] = CarBelief.of({(0,) * len(tokens): 1.0}, tokens)
            continue
        hand = list(_vec(car.hand, tokens))
        cards = list(car.committed) if car.committed is not None else None
        if cards and sum(hand) != public.cars[name].hand_size:
            # The table projection of a log cut between two cars' plays at step 2 has revealed this car's cards
            # already (a table has no step 2): they are on the table, not in its hand nor face down.
            for c in cards:
                hand[tokens.index(c)] -= 1
            cards = None
        info.beliefs[name] = CarBelief.of({tuple(hand): 1.0}, tokens)
        info.known[name] = tuple(hand)
        if cards:
            info.committed[name] = cards
    return info


def information_set_of_state(state: RaceState, car: str | None = None) -> InfoSet:
    """The information set of a state known without its log (a position): the prior of a position start —
    hands and deck orders uniformly arranged within the bookkeeping the state records (``pool``,
    ``hand_size``, ``deck_max``), plus ``car``'s own hand where the state knows it. An open-mode state is
    first stripped of what a table does not see (:func:`heatlog.engine.redact.strip_identities`)."""
    from ..engine.position import state_from_position, state_to_position
    from ..engine.redact import strip_identities

    full = state
    public = state_from_position(strip_identities(state_to_position(state))) if state.mode == "open" else state.copy()
    priors = {n: _Filter.prior(c) for n, c in public.cars.items()}
    info = InfoSet(public, {n: CarBelief.of(f.weights, f.tokens) for n, f in priors.items()}, viewer=car)
    if car is not None:
        if car not in state.cars:
            raise MalformedInput(f"no car named {car!r} in this race (cars: {', '.join(state.cars)})")
        _know_own(info, full.cars[car])
    return info


def sample(state: RaceState | InfoSet, car: str | None, rng: random.Random) -> RaceState:
    """A full open-mode state consistent with what ``car`` knows (None: the public information), drawn as the
    module's statement says. ``state`` is an :class:`InfoSet` (exact, from the race's log) or a bare state
    (a position: its bookkeeping is all that is conditioned on)."""
    info = state if isinstance(state, InfoSet) else information_set_of_state(state, car)
    if isinstance(state, InfoSet) and car != state.viewer:
        raise MalformedInput(f"this information set is {state.viewer or 'the public'}'s, not {car or 'the public'}'s")
    return info.sample(rng)


__all__ = [
    "SIMULTANEOUS",
    "CarBelief",
    "Hand",
    "HeatlogError",
    "InfoSet",
    "as_known_by",
    "full_information",
    "information_set",
    "made_at_the_same_time",
    "information_set_of_state",
    "sample",
]
