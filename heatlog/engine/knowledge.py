"""What is known about one car's hidden cards: one joint deduction over hand, deck and discard (# 1.7).

Every card entering or leaving deck ∪ hand is public (draws move cards between the two unseen piles; plays,
flips, discards, cooldowns and spinout Stress are seen), so the multiset ``unseen`` = deck ∪ hand is exact.
What is not known is how ``unseen`` splits into hand and deck. The table knows one more thing: after a
reshuffle the deck is exactly the public discard pile, and from then on it only loses cards (draws take
unknown cards, flips show theirs). So the deck is bounded by ``cap`` (the rules keep it as
``Car.deck_max``; never above ``unseen``), and the knowledge is exactly:

    the deck D is any multiset with  D ≤ cap  and  |D| = deck_size;  the hand is  unseen − D.

This is exact, not an approximation: every such D is reachable by some draw order, and no other (the
proof follows each event: a reshuffle sets D = cap; a draw of k cards keeps "any k-smaller sub-multiset of
cap"; a flip of c removes c from cap and from unseen; a card leaving the hand removes it from unseen, and
cap is read as ``min(cap, unseen)``; a card entering the hand from outside (spinout Stress) is added after
cap has been lowered to ``unseen``, which the rules do). In open mode the hand is known: cap is the deck
itself and the same formulas give one arrangement.

One more fact is public and kept apart: the cards a Refresh put back on top of the deck (# 18.21, MA15;
``Car.deck_top``, top last, kept by the rules: a draw or a flip takes them first, a shuffle forgets them).
They are part of the deck in a known place, so the deduction is about the rest: ``unseen``, ``cap`` and
``deck_size`` here are deck ∪ hand, the bound and the deck size *without* the known top cards (``top``), and
the deck is ``top`` + D. A flip must then show the top one; the hand can hold none of them.

Every table-mode check asks this one deduction: a reveal, a flip, a cooldown, a discard and a cluttered
claim are accepted exactly when some arrangement of the unseen cards allows them together with every
earlier entry, so an accepted entry can never leave a later question without an accepted answer.

Pure: no I/O. Analysis may sample a hand consistent with what the table knows (:meth:`Knowledge.sample`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from .cards import BASE_CATALOGUE, HEAT, Catalogue, Counts, counts, expand
from .written import record

if TYPE_CHECKING:  # (knowledge reads a Car; state asks knowledge: the import goes one way)
    from .state import Car


def card_name(c: str) -> str:
    return BASE_CATALOGUE.name(c)  # Heat, Stress, or the quoted token


def _amount(n: int, c: str, name: Callable[[str], str] = card_name) -> str:
    return f"{n} {name(c)}"


@record(frozen=True, slots=True)
class Knowledge:
    """The arrangements of one car's unseen cards that agree with everything public so far."""

    unseen: Counts  # deck ∪ hand, exact (less the known top cards)
    cap: Counts  # the deck holds at most this (≤ unseen; less the known top cards)
    hand_size: int
    deck_size: int  # the deck's cards under the known top ones
    hand_known: bool = False  # open mode: cap is the deck itself
    top: tuple[str, ...] = ()  # the cards known on top of the deck, top last (a Refresh, # 18.21)

    def __init__(
        self,
        unseen: Counts,
        cap: Counts,
        hand_size: int,
        deck_size: int,
        hand_known: bool = False,
        top: tuple[str, ...] = (),
    ) -> None:
        object.__setattr__(self, "unseen", unseen)
        object.__setattr__(self, "cap", cap)
        object.__setattr__(self, "hand_size", hand_size)
        object.__setattr__(self, "deck_size", deck_size)
        object.__setattr__(self, "hand_known", hand_known)
        object.__setattr__(self, "top", top)

    @classmethod
    def of(cls, car: Car) -> Knowledge:
        pool = car.pool
        if car.hand is not None:  # open mode: the hand is known, so the deck is too
            cap = {c: n - car.hand[c] for c, n in pool.items()}
        elif car.deck_max is not None:
            bound = car.deck_max  # min(n, bound) without min()'s call: the deduction is built at every refusal
            cap = {c: n if n <= bound[c] else bound[c] for c, n in pool.items()}
        else:  # no memory of a reshuffle (a position): any unseen card may be in the deck
            cap = dict(pool)
        top = car.deck_top
        if not top:
            return cls(dict(pool), cap, car.hand_size, car.deck_size, car.hand is not None)
        unseen = dict(pool)
        for c in top:  # in the deck, in a known place: the deduction is about the rest (# 18.21)
            unseen[c] -= 1
            cap[c] = max(0, cap[c] - 1)
        return cls(unseen, cap, car.hand_size, car.deck_size - len(top), car.hand is not None, top)

    # ------------------------------------------------------------------ the deduction

    def consistent(self) -> bool:
        """Some arrangement exists (always true for a state the rules built)."""
        return sum(self.cap.values()) >= self.deck_size and sum(self.unseen.values()) == self.hand_size + self.deck_size

    def hand_can_hold(self, cards: Counts) -> bool:
        """Can the hand hold ``cards`` (a multiset) in some arrangement? The deck must then fit in what is left:
        D ≤ cap and D ≤ unseen − cards, with |D| = deck_size."""
        if sum(cards.values()) > self.hand_size:
            return False
        if any(c not in self.unseen for c, n in cards.items() if n > 0):
            return False  # a card this car has none of
        room = 0
        for c in self.unseen:
            left = self.unseen[c] - cards.get(c, 0)
            if left < 0:
                return False
            cap = self.cap[c]
            room += cap if cap < left else left
        return room >= self.deck_size

    def hand_can_be(self, hand: Counts) -> bool:
        """Can the hand be exactly ``hand``?"""
        if sum(hand.values()) != self.hand_size:
            return False
        return all(0 <= n - hand.get(c, 0) <= self.cap[c] for c, n in self.unseen.items())

    def deck_can_show(self, card: str) -> bool:
        """Can the top card of the deck be ``card``? The known top card if there is one (# 18.21); else the order
        is not known here: any card the deck can hold."""
        if self.top:
            return self.top[-1] == card
        return self.deck_size > 0 and self.cap[card] > 0

    def deck_max(self, card: str) -> int:
        """How many ``card`` the deck can hold at most (the known top cards included)."""
        return self._rest_max(card) + (self.top.count(card) if self.top else 0)

    def deck_min(self, card: str) -> int:
        """How many ``card`` the deck must hold: what the rest of cap cannot fill, and the known top cards."""
        return self._rest_min(card) + (self.top.count(card) if self.top else 0)

    def _rest_max(self, card: str) -> int:
        return min(self.cap[card], self.deck_size)

    def _rest_min(self, card: str) -> int:
        return max(0, self.deck_size - (sum(self.cap.values()) - self.cap[card]))

    def hand_min(self, card: str) -> int:
        """How many ``card`` must be in the hand."""
        return self.unseen[card] - self._rest_max(card)

    def hand_max(self, card: str) -> int:
        """How many ``card`` can be in the hand."""
        return self.unseen[card] - self._rest_min(card)

    @staticmethod
    def why_not_in_hand_of(car: Car, cards: list[str], catalogue: Catalogue | None = None) -> str | None:
        """``Knowledge.of(car).why_not_in_hand(cards)``, answered at once when the hand is known and holds the
        cards (open mode: the deck is then known exactly, so the hand holds them iff it has them) — for the
        hot path; the deduction itself words every refusal, naming the cards by ``catalogue`` (the race's:
        an upgrade by its name and token) or, without one, by the base game's."""
        hand = car.hand
        if hand is not None:
            for c in cards:  # at most a hand's worth: counting in the list beats building a multiset
                if hand.get(c, 0) < cards.count(c):
                    break
            else:
                return None
        elif not car.deck_top and len(cards) <= car.hand_size:
            # Table mode, no card known on top: hand_can_hold over Knowledge.of(car)'s unseen (the pool) and cap
            # (the pool bounded by deck_max), read from the car without building them (every reveal, discard and
            # cooldown asks this). Only a yes is answered here: the deduction words every refusal.
            # room = Σ min(cap, unseen − cards), one plain loop (min() calls cost more than the sums they make).
            pool, bound = car.pool, car.deck_max
            room = counted = 0
            for c, n in pool.items():
                cap = n if bound is None or bound[c] >= n else bound[c]
                if c in cards:
                    k = cards.count(c)
                    left = n - k
                    if left < 0:
                        break
                    counted += k
                    room += cap if cap < left else left
                else:
                    room += cap
            else:
                if room >= car.deck_size and counted == len(cards):  # (not counted: a card this car has none of)
                    return None
        return Knowledge.of(car).why_not_in_hand(cards, catalogue.named if catalogue is not None else card_name)

    @staticmethod
    def why_not_on_deck_of(car: Car, card: str, catalogue: Catalogue | None = None) -> str | None:
        """``Knowledge.of(car).why_not_on_deck(card)``, answered at once when the deck can show the card and no
        card is known on top (``deck_can_show`` with the card's cap read from the car) — for the hot path: every
        flip and draw of a car whose deck order is not known. The deduction words every refusal."""
        n = car.pool.get(card, 0)
        if n > 0 and car.deck_size > 0 and not car.deck_top:
            hand, bound = car.hand, car.deck_max  # cap as Knowledge.of: the deck (open), else the pool ≤ deck_max
            if hand is not None:
                n -= hand[card]
            elif bound is not None and bound[card] < n:
                n = bound[card]
            if n > 0:
                return None
        return Knowledge.of(car).why_not_on_deck(card, catalogue.named if catalogue is not None else card_name)

    @staticmethod
    def most_in_hand(car: Car, card: str) -> int:
        """``Knowledge.of(car).hand_max(card)`` without building the deduction when the hand is known (open
        mode: then it is the hand's count) — for the hot path."""
        if car.hand is not None:
            return car.hand[card]
        return Knowledge.of(car).hand_max(card)

    def playable_min(self) -> int:
        """How many playable cards the hand holds at least (the deck takes as many as it can)."""
        playable = sum(n for c, n in self.unseen.items() if c != HEAT)  # # 4.2, 18.26: every card but Heat
        return playable - min(self.deck_size, sum(n for c, n in self.cap.items() if c != HEAT))

    def deck_known(self) -> Counts | None:
        """The deck as a multiset when it is forced (cap holds exactly deck_size cards; the known top cards
        added)."""
        if sum(self.cap.values()) != self.deck_size:
            return None
        deck = dict(self.cap)
        for c in self.top:
            deck[c] += 1
        return deck

    # ------------------------------------------------------------------ reasons, in words

    def why_not_in_hand(self, cards: list[str], name: Callable[[str], str] = card_name) -> str | None:
        """Why the hand cannot hold ``cards``, or None when some arrangement allows it (``name``: how cards are
        named, e.g. by the race's catalogue)."""
        need = _tally(cards, self.unseen)
        if self.hand_can_hold(need):
            return None
        if len(cards) > self.hand_size:
            return f"the hand holds only {self.hand_size} cards"
        for c in need:
            if c not in self.unseen:
                return f"only 0 {name(c)} are unseen (deck and hand), not {need[c]}"
        for c in self.unseen:
            if self.hand_known and need.get(c, 0) > self.hand_max(c):
                have = self.hand_max(c)
                return f"only {have} {name(c)} {'is' if have == 1 else 'are'} in the hand, not {need.get(c, 0)}"
        for c in self.top:
            if need.get(c, 0) > self.unseen[c]:
                have = self.unseen[c]
                return f"only {have} {name(c)} can be in the hand, not {need[c]}: {self._top_words(name)}"
        for c in self.unseen:
            if need.get(c, 0) > self.unseen[c]:
                have = self.unseen[c]
                verb = "is" if have == 1 else "are"
                return f"only {have} {name(c)} {verb} unseen (deck and hand), not {need[c]}"
        for c in self.unseen:
            if need.get(c, 0) > self.hand_max(c):
                return f"at most {self.hand_max(c)} {name(c)} can be in the hand: {self._deck_words(c, name)}"
        return f"the hand cannot hold {' '.join(cards)} together: {self._deck_words(None, name)}"

    def why_not_on_deck(self, card: str, name: Callable[[str], str] = card_name) -> str | None:
        """Why ``card`` cannot be the next card of the deck, or None (``name``: how cards are named, e.g. by the
        race's catalogue)."""
        if self.deck_can_show(card):
            return None
        if self.top:
            return f"the top card of the deck is {name(self.top[-1])}, not {name(card)}: {self._top_words(name)}"
        if self.unseen[card] == 0:
            return f"no {name(card)} can be in the deck: all are accounted for"
        return f"no {name(card)} can be in the deck: {self._deck_words(card, name)}"

    def why_not_cluttered(self, cards: list[str], gear: int, name: Callable[[str], str] = card_name) -> str | None:
        """# 13.1: a reveal with Heat claims a cluttered hand: fewer than ``gear`` playable cards, all of them
        revealed, the rest of the hand Heat. Why no arrangement gives such a hand, or None."""
        heat = cards.count(HEAT)
        rest = self.hand_size - len(cards)
        hand = _tally(cards, self.unseen)
        hand[HEAT] = heat + rest
        if rest >= 0 and self.hand_can_be(hand):
            return None
        reasons = []
        if self.unseen[HEAT] < hand[HEAT]:
            reasons.append(
                f"a cluttered hand would leave {rest} Heat in hand, but only {self.unseen[HEAT] - heat} more Heat "
                "can be there"
            )
        least = self.playable_min()
        if least > len(cards) - heat:
            reasons.append(
                f"the hand holds at least {least} playable cards (they cannot be in the deck), "
                f"so it {'is not cluttered' if least >= gear else 'plays them before Heat'}"
            )
        if reasons:
            return "; ".join(reasons)
        return f"the hand cannot be {' '.join(expand(hand))}: {self._deck_words(None, name)}"

    def _top_words(self, name: Callable[[str], str] = card_name) -> str:
        """The known top cards, in words (top first)."""
        cards = ", ".join(name(c) for c in reversed(self.top))
        return f"a Refresh put {cards} back on top of the deck, face known (the table saw it)"

    def _deck_words(self, card: str | None, name: Callable[[str], str] = card_name) -> str:
        if self.top:  # the rest of the deck, under the known top cards
            rest = Knowledge(self.unseen, self.cap, self.hand_size, self.deck_size, self.hand_known)
            under = rest._deck_words(card, name)
            return f"{self._top_words(name)}; under {'them' if len(self.top) > 1 else 'it'}, {under}"
        known = self.deck_known()
        if known is not None:
            return f"the {self.deck_size}-card deck is exactly {' '.join(expand(known)) or 'empty'}"
        if card is not None and self.deck_min(card) > 0:
            return f"the {self.deck_size}-card deck must hold {_amount(self.deck_min(card), card, name)}"
        if card is not None:
            return (
                f"the {self.deck_size}-card deck was shuffled from a discard pile holding "
                f"{self.cap[card]} more, the rest are in the hand"
            )
        return f"the {self.deck_size}-card deck holds only cards from {' '.join(expand(self.cap))}"

    # ------------------------------------------------------------------ sampling (analysis)

    def sample(self, rng: random.Random) -> tuple[Counts, Counts]:
        """One (hand, deck) arrangement consistent with the knowledge: the deck is ``deck_size`` cards drawn
        uniformly from the physical cards of ``cap``, the hand is the rest of ``unseen``; the known top cards are
        in the deck."""
        deck = counts(rng.sample(expand(self.cap), self.deck_size), tuple(self.unseen))
        hand = {c: n - deck[c] for c, n in self.unseen.items()}
        for c in self.top:
            deck[c] += 1
        return hand, deck


def _tally(cards: list[str], tokens: Counts) -> Counts:
    """``counts`` over the car's tokens that also keeps a token outside them: never in this car's cards."""
    out = dict.fromkeys(tokens, 0)
    for c in cards:
        out[c] = out.get(c, 0) + 1
    return out


def knowledge(car: Car) -> Knowledge:
    """The table's (table mode) or the full (open mode) knowledge of ``car``'s unseen cards."""
    return Knowledge.of(car)


__all__ = ["Knowledge", "card_name", "knowledge"]
