"""The Garage in a race: the set-up phase and each symbol at its step (MODULES.md 18.4–18.26).

The step machine (``rules.py``) calls the functions here at its named points when the race has the Garage
(``garage_slot(state)`` is set); a base race never reaches this file. What a symbol means comes from the card
definitions embedded in ``race_started`` (``GarageRace.cards``), the rule questions from ``garage.py``.

The functions here read the slots as ``state.modules.get(NAME)`` and ``turn.modules.get(NAME)``, what
``garage_slot`` and ``garage_turn`` return, without the call: the React checks below are asked several times an
event (issue 32: the calls were ~2 % of a Garage race's instructions).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ... import handlers as H
from ...cards import BASIC, HEAT, STRESS, Catalogue
from ...errors import IllegalEvent
from ...knowledge import Knowledge
from ...module import copy_data
from ...movement import landing, move, place
from ...react import ReactUse, base_react_uses
from ...ruleset import Rules, base_react_mandatory
from ...state import Car, RaceState, Turn, counts
from ...steps import DISCARD, REACT, REVEAL, SLIPSTREAM
from ...track import Corner
from .. import circuits
from . import DRAFT_EVENTS, EVENTS, NAME, TURN_EVENTS, garage_record
from .cards import (
    Card,
    Draft,
    GarageOptions,
    bonus_subsets,
    draft_distance,
    garage_deck,
    legal_slipstream_totals,
    payable_choices,
    speeds,
    starting_deck,
    symbol,
)

Event = dict[str, Any]
BASIC_SET = frozenset(BASIC)


# ---------------------------------------------------------------------------------------------- race and turn


_NO_MARKS: tuple[Any, ...] = (None, None, -1, ())  # GarageRace.marks before _marked's first answer


@dataclass(slots=True)
class GarageRace:
    """The Garage of one race: its options and card definitions (shared, never changed), the draft while it runs,
    and the upgrades each car owns (public once the draft is over, docs/garage.md)."""

    options: GarageOptions
    cards: Mapping[str, Card]
    draft: Draft | None = None
    owned: dict[str, list[str]] = field(default_factory=dict)
    # token -> its symbols with a number (none for a Basic card), read from ``cards`` once per race (issue 32: the
    # React pool asks them tens of thousands of times a race); shared by every copy, as ``cards`` is (never changed)
    numbers: dict[str, Mapping[str, int]] = field(default_factory=dict, compare=False, repr=False)
    # the Direct Play cards in token order, each with whether it shows Accelerate (# 18.19, 18.20); None: not read
    direct_cards: tuple[tuple[str, bool], ...] | None = field(default=None, compare=False, repr=False)
    # the last answer of _marked, with the lists it was read from (the React pool asks it several times a decision);
    # at first no list's (None is never a turn's ``played``)
    marks: list[Any] = field(default_factory=lambda: [_NO_MARKS], compare=False, repr=False)

    def copy(self) -> GarageRace:
        return GarageRace(
            self.options,
            self.cards,
            self.draft.copy() if self.draft is not None else None,
            {k: list(v) for k, v in self.owned.items()},
            self.numbers,
            self.direct_cards,
            self.marks,
        )

    def card(self, token: str) -> Card | None:
        return self.cards.get(token)

    def n(self, token: str, name: str) -> int:
        return self.symbols(token).get(name, 0)

    def symbols(self, token: str) -> Mapping[str, int]:
        """The symbols ``token`` shows with their numbers (:func:`symbol` of each; empty for a card of no module)."""
        found = self.numbers.get(token)
        if found is None:
            card = self.cards.get(token)
            names = card.get("symbols", {}) if card is not None else {}
            found = self.numbers[token] = {k: v for k in names if (v := symbol(card, k))}  # type: ignore[arg-type]
        return found

    def directs(self) -> tuple[tuple[str, bool], ...]:
        """The cards with a Direct Play symbol (# 18.19), in the catalogue's order, and whether each accelerates."""
        if self.direct_cards is None:
            self.direct_cards = tuple(
                (token, bool(symbol(card, "accelerate")))
                for token, card in self.cards.items()
                if symbol(card, "direct")
            )
        return self.direct_cards


@dataclass(slots=True)
class GarageTurn:
    """What the Garage adds to one car's turn. Play Area cards are named by their index in ``Turn.played``."""

    choose: list[int] = field(default_factory=list)  # multi-value cards still to value (# 18.6)
    chosen: dict[int, int] = field(default_factory=dict)  # index -> the value chosen
    accelerators: list[int] = field(default_factory=list)  # Accelerate cards still to decide (# 18.20)
    accelerate: int = 0  # Accelerate cards taken
    plus_left: int = 0  # card "+" flips still to make in step 3 (# 18.8)
    plus_used: int = 0  # "+" symbols used this turn (# 18.20: Stress, card "+", Boost, replacements)
    paid: list[int] = field(default_factory=list)  # Heat costs settled (# 18.10)
    replaced: list[int] = field(default_factory=list)  # cards discarded for an unpayable cost (# 18.11)
    replacing: list[int] = field(default_factory=list)  # replacement flips still to make
    scrap_left: int = 0  # scraps under way (# 18.12)
    scrap_done: list[int] = field(default_factory=list)  # cards whose Scrap is resolved
    scrapped: list[str] = field(default_factory=list)
    cooled_from: list[int] = field(default_factory=list)  # cards whose Cooldown is spent (# 18.13, MA32)
    # Heat the upgrades moved to the Engine: their own Cooldowns' share of a cooldown (# 18.13; the gear's and
    # adrenaline's share is Turn.cooled) and Super Cool (# 18.22); ``naming``: the cooldown the cards named allow
    cooled: int = 0
    naming: int = 0
    reduced_from: list[int] = field(default_factory=list)  # cards whose Reduce Stress is spent (# 18.15)
    refreshed: list[int] = field(default_factory=list)  # cards going back on top of the deck (# 18.21)
    bonuses: list[int] = field(default_factory=list)  # slipstream bonuses taken (# 18.16)
    used: list[tuple[int, str]] = field(default_factory=list)  # (card, symbol) spent: salvage, super_cool, draft
    direct: list[int] = field(default_factory=list)  # cards Direct-Played in React (# 18.19)
    step3: int = 0  # the Speed step 3 moved (before any React move)
    happenings: list[tuple[str, str, int]] = field(default_factory=list)  # (what, card, amount) for narration

    def waits(self) -> bool:
        """Whether step 3 waits for a Garage decision before the car moves (a value, Accelerate)."""
        return bool(self.choose or self.accelerators)


def start(ev: Event, catalogue: Catalogue) -> GarageRace:
    """The race's Garage from ``race_started``: its options (``garage``) and the upgrade and sponsorship cards
    of the race's card catalogue (the ``cards`` block, # 18.2, 21.5)."""
    try:
        options = GarageOptions.from_dict(ev.get("garage") if ev.get("garage") is not None else {})
    except ValueError as exc:
        raise H.malformed(None, ev, str(exc)) from exc
    block = ev.get("cards") or {}
    tokens = tuple(c.token for c in catalogue.cards if c.kind in ("upgrade", "sponsor"))
    shared = _shared_cards(block, tokens, catalogue)
    if shared is not None:
        return GarageRace(options=options, cards=shared[0], numbers=shared[1])
    cards = {token: block[token] for token in tokens}
    if not any(c.get("kind") == "upgrade" for c in cards.values()):
        raise H.malformed(None, ev, "a Garage race embeds its upgrade cards in race_started.cards (# 18.2)")
    return GarageRace(options=options, cards=cards)


# The card definitions of the races started in this process, by the text of their ``race_started.cards`` block
# and the tokens the race reads of it: every race on the same cards (every simulated race of one upgrade set) shares
# one mapping, its symbol numbers and what the bots keep by it (issue 32), as the weather's tiles and the Legend
# deck are read once (``module.read_once``). The mapping is a private copy of the block (never changed: a caller
# changing its log's events changes no other race).
_SHARED_CARDS: dict[str, tuple[tuple[str, ...], dict[str, Card], dict[str, Mapping[str, int]]]] = {}
# The same answers by the race's catalogue (``Catalogue.with_block`` of the same block, made once for the block's
# text and kept): (the catalogue, held so that its id stays its own, the text's entry). Reading a block's text is
# ~1.1 M instructions for the all-upgrades cards (~2.4 k an event of such a race, issue 32); the catalogue has read it.
_BY_CATALOGUE: dict[int, tuple[Catalogue, tuple[tuple[str, ...], dict[str, Card], dict[str, Mapping[str, int]]]]] = {}


def _shared_cards(
    block: Any, tokens: tuple[str, ...], catalogue: Catalogue | None = None
) -> tuple[dict[str, Card], dict[str, Mapping[str, int]]] | None:
    """The shared card mapping and symbol numbers of ``block`` (the Garage's ``tokens`` of it, in order), or None
    for a block that is not one (read then the long way, with its refusal). ``catalogue``: the race's, made of this
    block (``race_started``: ``state.cards``)."""
    if type(block) is not dict or not tokens:
        return None
    if catalogue is not None and block:  # (the race's catalogue is made of a block it has: rules._race_started)
        kept = _BY_CATALOGUE.get(id(catalogue))
        if kept is not None and kept[0] is catalogue and kept[1][0] == tokens:
            return kept[1][1], kept[1][2]
    try:
        text = repr(block)
    except RecursionError:
        return None
    if len(text) > 1_000_000:
        return None
    hit = _SHARED_CARDS.get(text)
    if hit is not None and hit[0] == tokens:
        if catalogue is not None:
            _keep_by_catalogue(catalogue, hit)
        return hit[1], hit[2]
    if not all(type(block.get(t)) is dict for t in tokens):
        return None
    cards = {token: copy_data(block[token]) for token in tokens}
    if not any(c.get("kind") == "upgrade" for c in cards.values()):
        return None
    if len(_SHARED_CARDS) >= 16:  # the oldest goes (all at once made a kept answer depend on the races before)
        del _SHARED_CARDS[next(iter(_SHARED_CARDS))]
    _SHARED_CARDS[text] = (tokens, cards, {})
    if catalogue is not None:
        _keep_by_catalogue(catalogue, _SHARED_CARDS[text])
    return cards, _SHARED_CARDS[text][2]


def _keep_by_catalogue(
    catalogue: Catalogue, entry: tuple[tuple[str, ...], dict[str, Card], dict[str, Mapping[str, int]]]
) -> None:
    if len(_BY_CATALOGUE) >= 16:  # the oldest goes, as _SHARED_CARDS's
        del _BY_CATALOGUE[next(iter(_BY_CATALOGUE))]
    _BY_CATALOGUE[id(catalogue)] = (catalogue, entry)


def _all_cards(g: GarageRace) -> list[Card]:
    heat = {"id": HEAT, "kind": "heat", "set": "base", "copies": 2}
    return [*g.cards.values(), {**heat, "level": "basic"}, {**heat, "level": "advanced"}]


# ---------------------------------------------------------------------------------------------- set-up (# 18.4, 18.5)


def begin_draft(state: RaceState) -> None:
    """After the grid (# 18.4): the Garage phase, before any shuffle or draw. Legends never draft (# 18.4)."""
    g: GarageRace | None = state.modules.get(NAME)
    assert g is not None
    drafting = [n for n in state.grid if not state.cars[n].legend]
    g.draft = Draft.start(g.options.draft, drafting, garage_deck(_all_cards(g), g.options))


def draft_event(state: RaceState, ev: Event) -> None:
    g: GarageRace | None = state.modules.get(NAME)
    if g is None:
        raise H.illegal(state, ev, "the Garage module is not in this race", "18.1")
    if state.phase != "garage" or g.draft is None:
        raise H.illegal(state, ev, "the Garage draft comes after the grid and before the starting shuffles", "18.4")
    draft = g.draft.copy()
    draft.apply(ev, state.cards.named)  # a refusal names the cards as people know them (issue 29)
    g.draft = draft
    if draft.done:
        _build_decks(state, g, draft)


def _build_decks(state: RaceState, g: GarageRace, draft: Draft) -> None:
    """# 18.1, 18.5, MC2: 12 Basic + the chosen upgrades + the circuit's Stress; the circuit's Heat on the Engine."""
    g.owned = {name: list(cards) for name, cards in draft.owned.items()}
    g.draft = None
    tokens = state.cards.tokens
    for name in g.owned:
        car = state.cars[name]
        deck = state.rules.starting_deck(state, car)  # the Garage's point below (# 18.1)
        car.pool = counts(deck, tokens)
        car.deck_size = len(deck)
        car.hand = counts([], tokens) if state.mode == "open" else None
        car.hand_size = 0
        car.deck = None
        car.deck_max = dict(car.pool) if car.hand is None else None
        car.needs_shuffle = True
    state.phase = state.rules.phase_after("garage")
    state.rules.enter_phase(state, state.phase)


# ------------------------------------------------------------------------------------- step 3 (# 18.6, 18.8, 18.20)


def reveal(state: RaceState, car: Car, turn: Turn, cards: list[str]) -> None:
    """The played cards' Speed and "+" symbols (# 5.1, 18.6, 18.8); multi-value cards and Accelerate wait."""
    g: GarageRace | None = state.modules.get(NAME)
    assert g is not None
    gt = GarageTurn()
    turn.keep(NAME, gt)  # the Garage's record of the turn (garage_turn)
    speed = 0
    for i, c in enumerate(cards):
        card = g.card(c)
        if card is None:
            speed += state.cards.value.get(c, 0)
            continue
        values = speeds(card)
        if len(values) > 1:
            gt.choose.append(i)
        else:
            speed += values[0]
        shown = g.symbols(c)  # (its symbols' numbers, read from the card once a race: symbol() of each)
        gt.plus_left += shown.get("boost", 0)
        if shown.get("accelerate"):
            gt.accelerators.append(i)
    turn.speed = gt.step3 = speed
    turn.stress_left = cards.count(STRESS)
    if turn.stress_left:
        turn.flipping = "stress"
    elif gt.plus_left:
        turn.flipping = "plus"


def after_flip(state: RaceState, car: Car, turn: Turn, purpose: str, value: int, found: bool) -> None:
    """Book-keeping after a "+" flip found ``value`` (# 18.8, 18.11, 18.20); moves for React flips."""
    gt = garage_record(turn)
    if found:
        gt.plus_used += 1  # 18.20: skipped cards never count
        if gt.accelerate:
            turn.speed += gt.accelerate
    if purpose == "plus":
        turn.speed += value
        gt.plus_left -= 1
        gt.happenings.append(("plus", "", value))
        if gt.plus_left == 0:
            turn.flipping = None
    elif purpose == "replace":
        gt.replacing.pop(0)
        turn.speed += value
        gt.happenings.append(("replace", "", value))
        if not gt.replacing:
            turn.flipping = None
            _re_move(state, car, turn)


def stress_done(turn: Turn) -> None:
    """After the last Stress flip: the card "+" flips follow in the same step (# 18.8)."""
    gt: GarageTurn | None = turn.modules.get(NAME)
    if gt is not None and gt.plus_left and turn.flipping is None:
        turn.flipping = "plus"


def boost_moved(turn: Turn) -> int:
    """Accelerate's +1 on a gear Boost found after the decision (# 18.20, MA2): the extra spaces to move."""
    gt: GarageTurn | None = turn.modules.get(NAME)
    return gt.accelerate if gt is not None else 0


def _turn(state: RaceState, ev: Event, what: str) -> tuple[Car, Turn, GarageTurn, GarageRace]:
    car, turn = H.turn_car(state, ev, what)
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None:
        raise H.illegal(state, ev, "the Garage module is not in this race", "18.1")
    return car, turn, gt, g


def _played_index(state: RaceState, ev: Event, turn: Turn, gt: GarageTurn, token: Any, among: list[int]) -> int:
    for i in among:
        if turn.played[i] == token:
            return i
    raise H.illegal(state, ev, f"no {token} waits for this in {turn.car}'s Play Area", "18.7")


def speed_chosen(state: RaceState, ev: Event) -> None:
    """# 18.6, MC3: the value of a multi-value card, chosen at reveal (after the Stress flips if wished)."""
    car, turn, gt, g = _turn(state, ev, "choosing a Speed value")
    if turn.sub != REVEAL or not gt.choose:
        raise H.illegal(state, ev, f"{car.name} has no card whose value is still to choose", "18.6")
    i = _played_index(state, ev, turn, gt, ev.get("card"), gt.choose)
    value = ev.get("speed")
    values = speeds(g.cards[turn.played[i]])
    if value not in values or isinstance(value, bool):
        shown = " or ".join(map(str, values))
        raise H.illegal(state, ev, f"{turn.played[i]} is worth {shown}, not {value!r}", "18.6")
    gt.choose.remove(i)
    gt.chosen[i] = value
    turn.speed += value
    gt.happenings.append(("value", turn.played[i], value))
    gt.step3 = turn.speed
    H.step_machine.flips_done(state, car, turn)


def accelerated(state: RaceState, ev: Event) -> None:
    """# 18.20, MC1, MA2: Accelerate is decided in step 3; taken, it adds 1 for every "+" of the turn."""
    car, turn, gt, g = _turn(state, ev, "Accelerate")
    if turn.sub != REVEAL or not gt.accelerators:
        raise H.illegal(state, ev, f"{car.name} has no Accelerate to decide now", "18.20")
    if turn.flipping is not None:
        raise H.illegal(state, ev, f"finish flipping for the {turn.flipping} first", "18.20")
    taken = ev.get("taken")
    if not isinstance(taken, bool):
        raise H.malformed(state, ev, "taken must be true or false")
    i = _played_index(state, ev, turn, gt, ev.get("card"), gt.accelerators)
    gt.accelerators.remove(i)
    if taken:
        gt.accelerate += 1
        turn.speed += gt.plus_used  # every "+" already resolved (MA2)
        gt.happenings.append(("accelerate", turn.played[i], gt.plus_used))
    gt.step3 = turn.speed
    H.step_machine.flips_done(state, car, turn)


# ------------------------------------------------------------------------------------- React (# 18.10–18.15, 18.25)


def _active(turn: Turn, gt: GarageTurn) -> list[int]:
    replaced = gt.replaced
    if not replaced:
        return list(range(len(turn.played)))  # (the usual case, asked at every React decision: issue 32)
    return [i for i in range(len(turn.played)) if i not in replaced]


def _marked(g: GarageRace, turn: Turn, gt: GarageTurn) -> tuple[tuple[int, str, Mapping[str, int]], ...]:
    """The Play Area cards still in play (not replaced, # 18.11) that show a symbol: (index, token, symbols), in
    Play Area order. Most played cards are Basic ones with none: the React pool's questions skip them at once.

    Kept for the same lists: ``Turn.played`` is never changed in place (a reveal or a Direct Play sets a new list,
    as a copy of the turn does) and ``GarageTurn.replaced`` only grows, so the same two objects, ``replaced`` of the
    same length, give the same answer."""
    played, replaced = turn.played, gt.replaced
    last = g.marks[0]
    if last[0] is played and last[1] is replaced and last[2] == len(replaced):
        return last[3]  # (the memo holds both lists: neither id can be another list's while it is kept)
    found_ = _marked_now(g, played, replaced)
    g.marks[0] = (played, replaced, len(replaced), found_)
    return found_


def _marked_now(
    g: GarageRace, played: list[str], replaced: list[int]
) -> tuple[tuple[int, str, Mapping[str, int]], ...]:
    numbers = g.numbers
    out = []
    for i, token in enumerate(played):
        found = numbers.get(token)
        if found is None:
            found = g.symbols(token)
        if found and i not in replaced:
            out.append((i, token, found))
    return tuple(out)


def shows_marked(state: RaceState, turn: Turn) -> bool:
    """Whether a card of ``turn``'s Play Area still in play shows a symbol (:func:`shows_symbols` without the Direct
    Play cards owned): the card cooldowns, Stress relief, the Scrap and Refresh (# 18.12–18.15, 18.21) are all read
    from those cards, so when none does, none of them is open."""
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None or turn.cluttered:
        return False
    return bool(_marked(g, turn, gt))


def shows_symbols(state: RaceState, car: Car, turn: Turn) -> bool:
    """Whether the Garage may offer ``car`` anything in React now: a card of its Play Area still in play shows a
    symbol, or it owns a Direct Play card (# 18.19). When not, the Garage's React options, its advanced options,
    the Scrap to come and Refresh are all empty (each reads only those cards), so a caller may skip them."""
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None or turn.cluttered:
        return False
    if _marked(g, turn, gt):
        return True
    pool = car.pool
    # (a loop, not any() over a generator or C-level maps: 3.5 k instructions against 5.3 k, issue 32)
    for token, _ in g.directs():  # noqa: SIM110
        if pool.get(token):
            return True
    return False


def unpaid(state: RaceState, turn: Turn) -> list[int]:
    """Play Area cards whose Heat cost is still due (# 18.10)."""
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None or turn.cluttered:
        return []
    marked = _marked(g, turn, gt)
    if not marked:
        return []  # (most Play Areas: no comprehension to run, each a call of its own; issue 32)
    return _unpaid_of(gt, marked)


def _unpaid_of(gt: GarageTurn, marked: tuple[tuple[int, str, Mapping[str, int]], ...]) -> list[int]:
    """:func:`unpaid` of the cards :func:`_marked` found (for a caller that holds both)."""
    return [i for i, _, sy in marked if "heat" in sy and i not in gt.paid]


def _settled(g: GarageRace, gt: GarageTurn, turn: Turn, i: int) -> bool:
    """Card ``i``'s Heat cost is settled, so its other symbols may be used (MA28): paid, or it has none."""
    return i in gt.paid or not g.n(turn.played[i], "heat")


def scraps_due(state: RaceState, turn: Turn) -> list[int]:
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None or turn.cluttered:
        return []
    marked = _marked(g, turn, gt)
    if not marked:
        return []
    return [
        i
        for i, _, sy in marked
        if "scrap" in sy and i not in gt.scrap_done and (i in gt.paid or "heat" not in sy)  # (_settled, MA28)
    ]


def scrap_pending(state: RaceState, turn: Turn) -> bool:
    """Whether a Scrap is still to come this React (# 18.12), counting cards whose Heat cost React will pay."""
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None or turn.cluttered:
        return False
    marked = _marked(g, turn, gt)
    if not marked:
        return False
    return any("scrap" in sy and i not in gt.scrap_done for i, _, sy in marked)


def _cards_named(state: RaceState, ev: Event, turn: Turn, among: list[int], what: str, rule: str) -> list[int]:
    names = ev.get("cards")
    if not isinstance(names, list) or not names:
        raise H.malformed(state, ev, "cards must name at least one Play Area card")
    left = list(among)
    out = []
    for token in names:
        hit = next((i for i in left if turn.played[i] == token), None)
        if hit is None:
            raise H.illegal(state, ev, f"no {token} in {turn.car}'s Play Area {what}", rule)
        left.remove(hit)
        out.append(hit)
    return out


def heat_paid(state: RaceState, ev: Event) -> None:
    """# 18.10: pay the Heat cost of the named cards from the Engine (mandatory, any moment of React)."""
    car, turn = H.react_turn(state, ev, "paying a Heat cost", "18.10")
    gt = garage_record(turn)
    g: GarageRace | None = state.modules.get(NAME)
    assert g is not None and gt is not None
    picks = _cards_named(state, ev, turn, unpaid(state, turn), "with a Heat cost still to pay", "18.10")
    cost = sum(g.n(turn.played[i], "heat") for i in picks)
    if cost > car.engine:
        raise H.illegal(
            state, ev, f"the cost is {cost} Heat and the Engine holds {car.engine}: declare it unpayable", "18.11"
        )
    H.pay_heat(car, cost)
    gt.paid.extend(picks)
    gt.happenings.append(("heat", " ".join(turn.played[i] for i in picks), cost))


def heat_unpayable(state: RaceState, ev: Event) -> None:
    """# 18.11, MA1, MA27: the named cards cannot be paid for: each leaves the Play Area, its symbols are lost and a
    "+" flip replaces it; then the car moves the new Speed from its start-of-turn space."""
    car, turn = H.react_turn(state, ev, "an unpayable Heat cost", "18.11")
    gt = garage_record(turn)
    g: GarageRace | None = state.modules.get(NAME)
    assert g is not None and gt is not None
    due = unpaid(state, turn)
    picks = _cards_named(state, ev, turn, due, "with a Heat cost still to pay", "18.11")
    costs = [g.n(turn.played[i], "heat") for i in due]
    legal = [tuple(due[j] for j in pay) for pay in payable_choices(costs, car.engine)]
    rest = tuple(i for i in due if i not in picks)
    if rest not in legal:
        can = max(len(p) for p in legal)
        raise H.illegal(
            state,
            ev,
            f"the Engine holds {car.engine} Heat: pay for {can} of these cards (cheapest first) "
            "and replace only the others",
            "18.11",
        )
    for i in picks:
        token = turn.played[i]
        value = gt.chosen.get(i, speeds(g.cards[token])[0])
        turn.speed -= value  # 18.11: the found card replaces the upgrade's value
        car.play_area.remove(token)
        car.discard.append(token)
        gt.replaced.append(i)
        gt.replacing.append(i)
        gt.happenings.append(("unpayable", token, 0))
    turn.flipping = "replace"
    H.step_machine.flips_done(state, car, turn)


def _re_move(state: RaceState, car: Car, turn: Turn) -> None:
    """# 18.11, MA1: back to the start-of-turn space, then the new Speed in one move (blocked normally)."""
    p, lane = landing(state, car, turn.start + max(0, turn.speed), turn.start)
    place(state, car, p, lane)
    turn.reached = max(turn.start, p)


def card_scrapped(state: RaceState, ev: Event) -> None:
    """# 18.12, MA6: one card off the top of the draw deck to the discard pile (a chance outcome)."""
    car, turn = H.turn_car(state, ev, "a scrapped card")
    gt: GarageTurn | None = turn.modules.get(NAME)
    if gt is not None and turn.flipping is None and turn.sub == REACT and scrap_pending(state, turn):
        # The first scrapped card closes React as go_on would (derived, so replay does the same, # 18.25).
        if must_declare_unpayable(state, car, turn):
            raise H.illegal(state, ev, "record which card's Heat cost is unpayable first", "18.11")
        leave_react(state, car, turn)
    if gt is None or turn.flipping != "scrap":
        raise H.illegal(state, ev, f"{car.name} has no Scrap under way", "18.12")
    card = ev.get("card")
    if not isinstance(card, str) or card not in state.cards.token_set:
        raise H.malformed(state, ev, "card must be a card token")
    H.take_from_deck(state, car, ev, card)
    car.discard.append(card)
    gt.scrapped.append(card)
    gt.scrap_left -= 1
    _scrap_continue(car, turn, gt)
    if turn.flipping is None and turn.sub == REACT:
        # The Scrap began as React closed: it ends React only. Slipstream is step 6, after React (# 2.1, 8.1),
        # still open to a car that scrapped (# 18.7, 18.12, 18.25); the next event or go_on closes it.
        turn.sub = SLIPSTREAM


def _scrap_continue(car: Car, turn: Turn, gt: GarageTurn) -> None:
    if gt.scrap_left and car.deck_size == 0 and not car.discard:
        gt.scrap_left = 0  # MA6: deck and discard both empty: the rest is lost
    if not gt.scrap_left:
        turn.flipping = None


def start_scrap(state: RaceState, car: Car, turn: Turn) -> None:
    """# 18.12, 18.25: the mandatory Scrap of every card in the Play Area, when React closes."""
    g: GarageRace | None = state.modules.get(NAME)
    gt = garage_record(turn)
    assert g is not None
    due = scraps_due(state, turn)
    n = sum(g.n(turn.played[i], "scrap") for i in due)
    gt.scrap_done.extend(due)
    gt.scrap_left = n
    gt.happenings.append(("scrap", " ".join(turn.played[i] for i in due), n))
    turn.flipping = "scrap"
    _scrap_continue(car, turn, gt)


def _card_words(state: RaceState, token: str) -> str:
    """A card as a person reads it (issue 29): its name and the short name a host types, never the token."""
    card = state.cards[token] if token in state.cards.token_set else None
    return token if card is None else f"{card.name} ({card.short})"


def must_declare_unpayable(state: RaceState, car: Car, turn: Turn) -> bool:
    """# 18.11, MA27: the unpaid Heat costs are more than the Engine holds (a decision: which cards go)."""
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None or turn.cluttered:
        return False
    marked = _marked(g, turn, gt)
    if not marked:
        return False  # (asked at every React decision: no call of unpaid to say so, issue 32)
    due = _unpaid_of(gt, marked)
    return bool(due) and sum(g.n(turn.played[i], "heat") for i in due) > car.engine


def leave_react(state: RaceState, car: Car, turn: Turn) -> bool:
    """React closes (go_on or a later step): pay the costs the Engine covers (derived, # 18.10), start the Scrap.
    Returns True when the turn must wait (scrapped cards to record)."""
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None or turn.cluttered:
        return False
    marked = _marked(g, turn, gt)
    due = _unpaid_of(gt, marked) if marked else []  # (unpaid, with the records read above: issue 32)
    if due:
        cost = sum(g.n(turn.played[i], "heat") for i in due)
        if cost > car.engine:
            raise IllegalEvent(
                f"the Heat cost of {', '.join(_card_words(state, turn.played[i]) for i in due)} is {cost} Heat, "
                f"more than the Engine holds ({car.engine}): record which card's cost goes unpaid",
                round=state.round,
                step=int(REACT),
                car=car.name,
                rule="18.11",
            )
        H.pay_heat(car, cost)
        gt.paid.extend(due)
        gt.happenings.append(("heat", " ".join(turn.played[i] for i in due), cost))
    if marked and scraps_due(state, turn):  # (none marked, none to scrap: paying changes neither list)
        start_scrap(state, car, turn)
        return turn.flipping is not None
    return False


def cooldown_picks(state: RaceState, ev: Event, car: Car, turn: Turn) -> tuple[list[int], int]:
    """# 18.13, MA32: the card cooldowns a ``cooldown`` names (each spent whole) and the cooldown they add."""
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None:
        raise H.illegal(state, ev, "the Garage module is not in this race: cooldown names no cards", "18.13")
    open_ = [i for i in _active(turn, gt) if g.n(turn.played[i], "cooldown") and i not in gt.cooled_from]
    picks = _cards_named(state, ev, turn, open_, "with an unused Cooldown", "18.13")
    gt.naming = sum(g.n(turn.played[i], "cooldown") for i in picks)
    return picks, gt.naming


def spend_cooldown(turn: Turn, picks: list[int], n: int) -> None:
    gt = garage_record(turn)
    gt.cooled_from.extend(picks)
    gt.cooled += min(n, gt.naming)  # the cards' share (the rules spend it first, the pool's uses the rest)
    gt.happenings.append(("cooldown", " ".join(turn.played[i] for i in picks), n))


def stress_reduced(state: RaceState, ev: Event) -> None:
    """# 18.15: Stress cards from hand to the discard pile, up to the Reduce symbols named."""
    car, turn = H.react_turn(state, ev, "reducing Stress", "18.15")
    gt = garage_record(turn)
    g: GarageRace | None = state.modules.get(NAME)
    if g is None or gt is None:
        raise H.illegal(state, ev, "the Garage module is not in this race", "18.15")
    if not circuits.may_discard(state.track, car.progress):  # # 18.15, 22.6: it is a discard from the hand
        raise H.illegal(state, ev, f"{car.name} is in a tunnel: no Stress may be discarded from the hand", "22.6")
    open_ = [
        i
        for i in _active(turn, gt)
        if g.n(turn.played[i], "reduce") and i not in gt.reduced_from and _settled(g, gt, turn, i)
    ]
    picks = _cards_named(state, ev, turn, open_, "with an unused Reduce Stress", "18.15")
    n = ev.get("count")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise H.malformed(state, ev, "count must be a positive number")
    allowed = sum(g.n(turn.played[i], "reduce") for i in picks)
    if n > allowed:
        raise H.illegal(state, ev, f"the Reduce Stress named allows {allowed}, not {n}", "18.15")
    why = H.has_in_hand(state, car, [STRESS] * n)
    if why:
        raise H.illegal(state, ev, f"Reduce Stress discards Stress from the hand: {why}", "18.15")
    H.remove_from_hand(car, [STRESS] * n)
    car.discard.extend([STRESS] * n)
    gt.reduced_from.extend(picks)
    gt.happenings.append(("reduce", " ".join(turn.played[i] for i in picks), n))


# ---------------------------------------------------------------------------------------------- steps 6, 7, 9


def slipstream_bonuses(state: RaceState, turn: Turn) -> list[int]:
    """Play Area indexes of the slipstream bonuses that apply (# 18.16; a replaced card's are lost)."""
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None:
        return []
    return [i for i, _, sy in _marked(g, turn, gt) if "slipstream" in sy and (i in gt.paid or "heat" not in sy)]


def slipstream_distance(state: RaceState, ev: Event, car: Car, turn: Turn) -> int:
    """# 18.16, MA17: 2 + the bonuses named; the final-lap ban is judged on that total."""
    names = ev.get("bonuses", [])
    if not names:
        return 2
    g: GarageRace | None = state.modules.get(NAME)
    if g is None:
        raise H.illegal(state, ev, "slipstream bonuses come from Garage upgrades", "18.16")
    named = {**ev, "cards": names}
    picks = _cards_named(state, named, turn, slipstream_bonuses(state, turn), "with a slipstream bonus", "18.16")
    total = 2 + sum(g.n(turn.played[i], "slipstream") for i in picks)
    if total not in legal_slipstream_totals(car.progress, state.final_line, [total - 2]):
        raise H.illegal(state, ev, f"a slipstream of {total} would cross the finish line on the final lap", "8.6")
    gt = garage_record(turn)
    gt.bonuses.extend(picks)
    return total


def slipstream_options(state: RaceState, car: Car, turn: Turn) -> list[Event]:
    """# 18.16, MA17: the longest legal slipstream with bonuses (one way to make it), when it beats the basic 2."""
    g: GarageRace | None = state.modules.get(NAME)
    idx = slipstream_bonuses(state, turn)
    if g is None or not idx:
        return []
    values = [g.n(turn.played[i], "slipstream") for i in idx]
    totals = legal_slipstream_totals(car.progress, state.final_line, values)
    if not totals or totals[-1] == 2:
        return []
    pick = bonus_subsets(values, totals[-1])[0]
    names = [turn.played[idx[j]] for j in pick]
    return [{"type": "slipstream", "v": 1, "car": car.name, "taken": True, "bonuses": names}]


def adjust(state: RaceState, turn: Turn) -> int:
    """# 18.17: the sum of the Adjust symbols in the Play Area (mandatory; a replaced card's are lost)."""
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None or turn.cluttered:
        return 0
    marked = _marked(g, turn, gt)
    if not marked:
        return 0
    return sum(sy.get("adjust", 0) for i, _, sy in marked if i in gt.paid or "heat" not in sy)


def planned_turn(state: RaceState, car: Car, gear: int, cards: list[str], paid: bool = True) -> Turn:
    """The turn a play of ``cards`` in ``gear`` would be once revealed, every upgrade's Heat cost paid (``paid``,
    # 18.10) or every such card replaced by a flip (# 18.11: its symbols lost): what a bot asks the race's
    ``corner_limit`` point with while it plans, so that the Adjust of the cards it weighs counts (# 18.17)
    without a second copy of that rule. Nothing of the state changes."""
    g: GarageRace | None = state.modules.get(NAME)
    turn = Turn(car=car.name, round=state.round, gear=gear, from_gear=car.gear, start=car.progress)
    turn.played = list(cards)
    turn.cluttered = HEAT in cards  # # 13.1: no card takes effect (# 18.26)
    gt = GarageTurn()
    if g is not None:
        costly = [i for i, c in enumerate(cards) if g.n(c, "heat")]
        if paid:
            gt.paid = costly
        else:
            gt.replaced = costly
    turn.keep(NAME, gt)  # the Garage's record of the turn (garage_turn)
    return turn


def refreshed(state: RaceState, ev: Event) -> None:
    """# 18.21, MA15: a Refresh card goes back on top of the draw deck instead of the discard pile (step 9)."""
    car, turn = H.turn_car(state, ev, "Refresh")
    gt: GarageTurn | None = turn.modules.get(NAME)
    g: GarageRace | None = state.modules.get(NAME)
    if g is None or gt is None:
        raise H.illegal(state, ev, "the Garage module is not in this race", "18.21")
    if turn.cluttered:
        raise H.illegal(state, ev, "a cluttered hand: no card takes effect", "18.26")
    if turn.sub < REACT or turn.sub > DISCARD or turn.flipping is not None:
        raise H.illegal(state, ev, "Refresh comes when the Play Area is cleared, before the refill", "18.21")
    open_ = [i for i in _active(turn, gt) if g.n(turn.played[i], "refresh") and i not in gt.refreshed]
    token = str(ev.get("card"))
    i = next((j for j in open_ if turn.played[j] == token), None)
    if i is None:
        raise H.illegal(state, ev, f"no Refresh card {token!r} in {car.name}'s Play Area", "18.21")
    gt.refreshed.append(i)  # first: closing the steps may end the turn at once (# 12.2: a full hand), MA15
    gt.happenings.append(("refresh", token, 1))
    H.step_machine.close_until(state, car, turn, DISCARD, ev)


def clear_play_area(car: Car, turn: Turn) -> None:
    """# 12.1, 18.21: the Play Area goes to the discard pile, Refresh cards on top of the draw deck."""
    gt: GarageTurn | None = turn.modules.get(NAME)
    back = [turn.played[i] for i in gt.refreshed] if gt is not None else []
    for token in back:
        car.play_area.remove(token)
    car.discard.extend(car.play_area)
    car.play_area = []
    for token in back:
        car.pool[token] += 1
        car.deck_size += 1
        if car.deck is not None:
            car.deck.append(token)  # top of the deck is last
        if car.deck_max is not None:
            car.deck_max[token] += 1
        car.deck_top += (token,)  # the table saw it go there: the known top card (the last named on top)


# ---------------------------------------------------------------------------------------------- what the engine offers


def react_options(state: RaceState, car: Car, turn: Turn) -> list[Event]:
    """The Garage's React decisions open now, each a ready event (# 18.10–18.15)."""
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None or turn.cluttered:
        return []
    out: list[Event] = []
    due = unpaid(state, turn)
    for i in due:
        if g.n(turn.played[i], "heat") <= car.engine:
            out.append({"type": "heat_paid", "v": 1, "car": car.name, "cards": [turn.played[i]]})
    if due:
        costs = [g.n(turn.played[i], "heat") for i in due]
        if sum(costs) > car.engine:
            for pay in payable_choices(costs, car.engine):
                rest = [turn.played[due[j]] for j in range(len(due)) if j not in pay]
                out.append({"type": "heat_unpayable", "v": 1, "car": car.name, "cards": rest})
    marked = _marked(g, turn, gt)
    cooling = [i for i, _, sy in marked if "cooldown" in sy and i not in gt.cooled_from]
    reducing = [i for i, _, sy in marked if "reduce" in sy and i not in gt.reduced_from]
    if not cooling and not reducing:
        return out  # (the deduction below is worked out only for a card that needs it: issue 32)
    most = _most_in_hand(car)  # the one joint deduction (# 1.7): what the hand can hold
    heat = most(HEAT) if cooling and not state.rules.cooldown_block(state, car) else 0  # none where barred (# 20.9)
    for i in cooling:
        if heat:
            token = turn.played[i]
            k = min(g.n(token, "cooldown"), heat)
            out.append({"type": "cooldown", "v": 1, "car": car.name, "count": k, "cards": [token]})
    stress = most(STRESS) if reducing and circuits.may_discard(state.track, car.progress) else 0
    for i in reducing:  # # 18.15, 22.6
        token = turn.played[i]
        n = g.n(token, "reduce")
        if stress and (i in gt.paid or not g.n(token, "heat")):
            for k in range(1, min(n, stress) + 1):
                out.append({"type": "stress_reduced", "v": 1, "car": car.name, "count": k, "cards": [token]})
    return out


def _most_in_hand(car: Car) -> Callable[[str], int]:
    """``Knowledge.of(car).hand_max`` (# 1.7); in open mode the hand's own count, which it equals, without building
    the deduction (a copy of the car's pool: the React pool asks it at every decision, issue 32)."""
    hand = car.hand
    if hand is not None:
        return lambda token: hand.get(token, 0)
    return Knowledge.of(car).hand_max


def step3_options(state: RaceState, car: Car, turn: Turn) -> list[Event]:
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None:
        return []
    if gt.choose:
        i = gt.choose[0]
        token = turn.played[i]
        return [
            {"type": "speed_chosen", "v": 1, "car": car.name, "card": token, "speed": v} for v in speeds(g.cards[token])
        ]
    if gt.accelerators:
        token = turn.played[gt.accelerators[0]]
        return [{"type": "accelerated", "v": 1, "car": car.name, "card": token, "taken": t} for t in (True, False)]
    return []


def refresh_options(state: RaceState, car: Car, turn: Turn) -> list[Event]:
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None or turn.cluttered or turn.sub > DISCARD or turn.sub < REACT:
        return []
    marked = _marked(g, turn, gt)
    if not marked:
        return []
    return [
        {"type": "refreshed", "v": 1, "car": car.name, "card": token}
        for i, token, sy in marked
        if "refresh" in sy and i not in gt.refreshed
    ]


def draft_options(state: RaceState, name: str) -> list[Event]:
    g: GarageRace | None = state.modules.get(NAME)
    if g is None or g.draft is None:
        return []
    due, cars = g.draft.waiting()
    if name not in cars:
        return []
    if due == "upgrade_picked" and g.draft.market is not None:
        return [{"type": due, "v": 1, "car": name, "card": c} for c, k in g.draft.market.items() if k]
    if due == "upgrade_removed":
        return [{"type": due, "v": 1, "car": name, "card": c} for c in dict.fromkeys(g.draft.owned[name])]
    return []


# ---------------------------------------------------------------------------------------------- advanced React symbols


def _open_symbol(state: RaceState, turn: Turn, name: str) -> list[int]:
    """Play Area cards whose ``name`` symbol is still usable: not replaced, cost settled (MA28), not spent."""
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None or turn.cluttered:
        return []
    return [
        i
        for i, _, sy in _marked(g, turn, gt)
        if name in sy and (i, name) not in gt.used and (i in gt.paid or "heat" not in sy)  # (_settled, MA28)
    ]


def _sources(state: RaceState, ev: Event, turn: Turn, name: str, rule: str) -> tuple[list[int], int]:
    g: GarageRace | None = state.modules.get(NAME)
    assert g is not None
    named = {**ev, "cards": ev.get("sources")}
    picks = _cards_named(state, named, turn, _open_symbol(state, turn, name), f"with an unused {name}", rule)
    return picks, sum(g.n(turn.played[i], name) for i in picks)


def salvaged(state: RaceState, ev: Event) -> None:
    """# 18.18, MC5, MA6, MA25: up to N cards of the own discard pile shuffled into the draw deck."""
    car, turn = H.react_turn(state, ev, "Salvage", "18.18")
    gt = garage_record(turn)
    if NAME not in state.modules or gt is None:
        raise H.illegal(state, ev, "the Garage module is not in this race", "18.18")
    picks, n = _sources(state, ev, turn, "salvage", "18.18")
    chosen = H.event_cards(state, ev)
    if len(chosen) > n:
        raise H.illegal(state, ev, f"Salvage takes up to {n} cards, not {len(chosen)}", "18.18")
    pile = list(car.discard)
    for c in chosen:
        if c not in pile:
            raise H.illegal(state, ev, f"{car.name}'s discard pile holds no more {c}", "18.18")
        pile.remove(c)
    gt.used.extend((i, "salvage") for i in picks)
    gt.happenings.append(("salvage", " ".join(chosen), len(chosen)))
    if not chosen:
        return  # MA25: nothing chosen, nothing shuffled
    car.discard = pile
    for c in chosen:
        car.pool[c] += 1
        if car.deck_max is not None:
            car.deck_max[c] += 1
    car.deck_size += len(chosen)
    car.deck = None
    car.deck_top = ()  # the whole deck is shuffled: no card is known on top any more
    turn.flipping = "salvage"  # the whole draw deck is shuffled: a deck_shuffled comes next


def salvage_shuffle(state: RaceState, ev: Event, car: Car, turn: Turn, order: list[str] | None) -> None:
    """The shuffle after a Salvage (# 18.18; the race's ``Rules.flip_shuffle``): the order, when known, is exactly
    the draw deck."""
    if order is not None:
        deck = car.deck_counts()
        if deck is not None and counts(order, state.cards.tokens) != deck:
            raise H.illegal(
                state, ev, "the shuffled order must be exactly the draw deck with the salvaged cards", "18.18"
            )
        car.deck = list(reversed(order))
    turn.flipping = None
    turn.shuffles += 1


def super_cooled(state: RaceState, ev: Event) -> None:
    """# 18.22: up to N Heat from the own discard pile to the Engine; not a cooldown."""
    car, turn = H.react_turn(state, ev, "Super Cool", "18.22")
    if NAME not in state.modules or NAME not in turn.modules:
        raise H.illegal(state, ev, "the Garage module is not in this race", "18.22")
    picks, n = _sources(state, ev, turn, "super_cool", "18.22")
    count = ev.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise H.malformed(state, ev, "count must be a positive number")
    if count > n:
        raise H.illegal(state, ev, f"Super Cool moves up to {n} Heat, not {count}", "18.22")
    have = car.discard.count(HEAT)
    if count > have:
        raise H.illegal(state, ev, f"{car.name}'s discard pile holds {have} Heat, not {count}", "18.22")
    for _ in range(count):
        car.discard.remove(HEAT)
    car.engine += count
    gt = garage_record(turn)
    gt.used.extend((i, "super_cool") for i in picks)
    gt.cooled += count
    gt.happenings.append(("super_cool", " ".join(turn.played[i] for i in picks), count))


def _occupied(state: RaceState, car: Car) -> list[int]:
    """Progress of every other car on the track (cars past the finish line still count, MA29)."""
    return [
        c.progress
        for c in state.cars.values()
        if c.name != car.name and state.spots.get((state.track.space_of(c.progress), c.lane)) == c.name
    ]


def drafted(state: RaceState, ev: Event) -> None:
    """# 18.23, MA3, MA29: move forward through empty spaces to the space behind the next car."""
    car, turn = H.react_turn(state, ev, "Draft", "18.23")
    if NAME not in state.modules or NAME not in turn.modules:
        raise H.illegal(state, ev, "the Garage module is not in this race", "18.23")
    picks, n = _sources(state, ev, turn, "draft", "18.23")
    d = draft_distance(car.progress, _occupied(state, car), n)
    if d is None:
        raise H.illegal(
            state, ev, f"no Draft of up to {n}: the next car ahead is not within reach behind empty spaces", "18.23"
        )
    p = car.progress + d
    place(state, car, p, state.track.race_lane(p))
    turn.reached = max(turn.reached, p)
    gt = garage_record(turn)
    gt.used.extend((i, "draft") for i in picks)
    gt.happenings.append(("draft", " ".join(turn.played[i] for i in picks), d))


def direct_played(state: RaceState, ev: Event) -> None:
    """# 18.19, MA14, MA24: a Direct Play card from the hand into the Play Area: it moves its Speed at once and
    its symbols bind as if revealed (its Heat cost is due, its Scrap pending, Accelerate decided now, MA2)."""
    car, turn = H.react_turn(state, ev, "Direct Play", "18.19")
    g: GarageRace | None = state.modules.get(NAME)
    gt = garage_record(turn)
    if g is None or gt is None:
        raise H.illegal(state, ev, "the Garage module is not in this race", "18.19")
    token = ev.get("card")
    if not isinstance(token, str):
        raise H.malformed(state, ev, "card must be a card token")
    card = g.card(token)
    if card is None or not symbol(card, "direct"):
        raise H.illegal(state, ev, f"{token!r} has no Direct Play symbol", "18.19")
    why = H.has_in_hand(state, car, [token])
    if why:
        raise H.illegal(state, ev, f"{car.name} cannot Direct-Play {token}: {why}", "18.19")
    accelerate = ev.get("accelerate", False)
    if not isinstance(accelerate, bool) or (accelerate and not symbol(card, "accelerate")):
        raise H.illegal(state, ev, "only an Accelerate card is accelerated", "18.20")
    H.remove_from_hand(car, [token])
    car.play_area.append(token)
    turn.played = [*turn.played, token]  # (a new list, as _reveal sets it)
    i = len(turn.played) - 1
    gt.direct.append(i)
    value = speeds(card)[0]
    if accelerate:
        gt.accelerate += 1
        value += gt.plus_used  # MA2: every "+" already resolved
    turn.speed += value
    moved = move(state, car, turn, value)
    gt.happenings.append(("direct", token, moved))


def advanced_options(state: RaceState, car: Car, turn: Turn) -> list[Event]:
    """Salvage, Super Cool, Draft and Direct Play decisions open now (# 18.18, 18.19, 18.22, 18.23)."""
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None or turn.cluttered:
        return []
    out: list[Event] = []
    # _open_symbol of the three, in one pass over the marked cards (the pool is built at every React decision)
    salvages: list[int] = []
    cools: list[int] = []
    drafts: list[int] = []
    for i, _, sy in _marked(g, turn, gt):
        if "heat" in sy and i not in gt.paid:
            continue  # its Heat cost not settled: no other symbol yet (_settled, MA28)
        if "salvage" in sy and (i, "salvage") not in gt.used:
            salvages.append(i)
        if "super_cool" in sy and (i, "super_cool") not in gt.used:
            cools.append(i)
        if "draft" in sy and (i, "draft") not in gt.used:
            drafts.append(i)
    for i in salvages:
        n = g.n(turn.played[i], "salvage")
        kinds = sorted(set(car.discard))
        seen: set[tuple[str, ...]] = set()
        for k in range(0, min(n, len(car.discard)) + 1):
            for combo in itertools.combinations_with_replacement(kinds, k):
                if combo in seen or any(combo.count(c) > car.discard.count(c) for c in set(combo)):
                    continue
                seen.add(combo)
                out.append(
                    {"type": "salvaged", "v": 1, "car": car.name, "sources": [turn.played[i]], "cards": list(combo)}
                )
    heat = car.discard.count(HEAT)
    for i in cools:
        for k in range(1, min(g.n(turn.played[i], "super_cool"), heat) + 1):
            out.append({"type": "super_cooled", "v": 1, "car": car.name, "sources": [turn.played[i]], "count": k})
    if drafts:
        total = sum(g.n(turn.played[i], "draft") for i in drafts)
        d = draft_distance(car.progress, _occupied(state, car), total)
        if d is not None:
            out.append({"type": "drafted", "v": 1, "car": car.name, "sources": [turn.played[i] for i in drafts]})
    most: Callable[[str], int] | None = None  # made only if a Direct Play card is owned
    pool = car.pool
    for token, accelerates in g.directs():
        if pool.get(token):  # owned (a Garage race's pool counts every token of the race, most at 0)
            if most is None:
                most = _most_in_hand(car)  # the one joint deduction: in table mode, a card that can be in the hand
            if most(token) > 0:
                out.append({"type": "direct_played", "v": 1, "car": car.name, "card": token})
                if accelerates:
                    out.append({"type": "direct_played", "v": 1, "car": car.name, "card": token, "accelerate": True})
    return out


# ---------------------------------------------------------------------------------------------- positions


def race_to_dict(g: GarageRace | None) -> dict[str, Any] | None:
    """The Garage of a position (options, card definitions, upgrades owned, the draft under way)."""
    if g is None:
        return None
    d = g.draft
    draft = None
    if d is not None:
        draft = {
            "method": d.method,
            "order": list(d.order),
            "deck": dict(d.deck),
            "exact": d.exact,
            "round": d.round,
            "market": dict(d.market) if d.market is not None else None,
            "market_left": d.market_left,
            "queue": list(d.queue),
            "owned": {k: list(v) for k, v in d.owned.items()},
            "removing": list(d.removing),
            "removed": list(d.removed),
        }
        extra = d.extra_to_dict()
        if extra is not None:  # a season's draft: its pick order and swap (# 21.2, MA11)
            draft["championship"] = extra
    return {
        "options": g.options.to_dict(),
        "cards": {k: dict(v) for k, v in g.cards.items()},
        "owned": {k: list(v) for k, v in g.owned.items()},
        "draft": draft,
    }


def race_from_dict(d: dict[str, Any] | None) -> GarageRace | None:
    if d is None:
        return None
    draft = None
    dd = d.get("draft")
    if dd is not None:
        draft = Draft(
            method=dd["method"],
            order=tuple(dd["order"]),
            deck=dict(dd["deck"]),
            exact=bool(dd["exact"]),
            round=int(dd["round"]),
            market=dict(dd["market"]) if dd.get("market") is not None else None,
            market_left=int(dd["market_left"]),
            queue=list(dd["queue"]),
            owned={k: list(v) for k, v in dd["owned"].items()},
            removing=list(dd["removing"]),
            removed=list(dd["removed"]),
        )
        if dd.get("championship") is not None:  # a season's draft (# 21.2, MA11)
            from ..championship.rules import ChampionshipDraft  # noqa: PLC0415  (loaded with a season race only)

            draft = ChampionshipDraft.from_draft(draft, dd["championship"])
    return GarageRace(
        options=GarageOptions.from_dict(d["options"]),
        cards={k: dict(v) for k, v in d["cards"].items()},
        draft=draft,
        owned={k: list(v) for k, v in d["owned"].items()},
    )


def turn_to_dict(gt: GarageTurn | None) -> dict[str, Any] | None:
    if gt is None:
        return None
    out: dict[str, Any] = {}
    for name in GarageTurn.__dataclass_fields__:
        value = getattr(gt, name)
        if name == "chosen":
            value = {str(k): v for k, v in value.items()}
        elif name in ("happenings", "used"):
            value = [list(x) for x in value]
        elif isinstance(value, list):
            value = list(value)
        out[name] = value
    return out


def turn_from_dict(d: dict[str, Any] | None) -> GarageTurn | None:
    if d is None:
        return None
    values = dict(d)
    values["chosen"] = {int(k): int(v) for k, v in d.get("chosen", {}).items()}
    values["happenings"] = [tuple(x) for x in d.get("happenings", [])]
    values["used"] = [tuple(x) for x in d.get("used", [])]
    return GarageTurn(**{k: v for k, v in values.items() if k in GarageTurn.__dataclass_fields__})


# ---------------------------------------------------------------------------------------------- the Rules points


def _starting_deck(state: RaceState, car: Car) -> list[str]:
    """# 18.1, 18.5, MC2: 12 Basic cards, the car's upgrades (none before the draft ends) and the circuit's Stress."""
    g: GarageRace | None = state.modules.get(NAME)
    owned = g.owned.get(car.name, []) if g is not None else []
    return starting_deck(owned, state.track.stress)


def _step3_due(state: RaceState, car: Car, turn: Turn) -> str | None:
    gt: GarageTurn | None = turn.modules.get(NAME)
    if gt is None:
        return None
    return "speed_chosen" if gt.choose else "accelerated" if gt.accelerators else None  # # 18.6, 18.20


def _after_flip(state: RaceState, car: Car, turn: Turn, purpose: str, value: int, found: bool) -> int:
    gt: GarageTurn | None = turn.modules.get(NAME)
    if gt is None:
        return 0
    extra = gt.accelerate if purpose == "boost" and found else 0  # # 18.20, MA2: Accelerate's +1 on the Boost
    after_flip(state, car, turn, purpose, value, found)
    if purpose == "stress":
        stress_done(turn)  # # 18.8: the card "+" flips follow the Stress
    if turn.sub == REVEAL:
        gt.step3 = turn.speed  # what step 3 moves (narration)
    return extra


# The Garage's React decisions as uses of the React pool (engine/react.py): (symbol, mandatory) by event type.
_USES = {
    "heat_paid": ("heat", False),  # a payable cost is also paid as React ends (derived, # 18.10)
    "heat_unpayable": ("heat", True),  # # 18.11: React cannot end before it is settled
    "cooldown": ("card_cooldown", False),  # # 18.13: a card's cooldown (the gear's is the pool's own)
    "stress_reduced": ("reduce", False),
    "salvaged": ("salvage", False),
    "super_cooled": ("super_cool", False),
    "drafted": ("draft", False),
    "direct_played": ("direct", False),
}


def _react_uses(prev: Any) -> Any:
    """The race's React uses: ``prev``'s (the base game's, the weather's) and the Garage's symbols (# 18.7,
    18.10–18.23), each a use of the pool with its ready events; the Scrap to come is a mandatory use that
    React ends with (# 18.12, 18.25: going on resolves it)."""

    def uses(state: RaceState, car: Car, turn: Turn) -> list[ReactUse]:
        out = list(prev(state, car, turn))
        if not shows_symbols(state, car, turn):
            return out  # (most React decisions of a Garage race: built at each of them, issue 32)
        for ev in react_options(state, car, turn) + advanced_options(state, car, turn):
            symbol, mandatory = _USES[ev["type"]]
            source = ev.get("card") or "/".join(ev.get("cards") or ev.get("sources") or ())
            out.append(ReactUse(symbol, source, 1, mandatory, (ev,)))
        if scrap_pending(state, turn):
            out.append(ReactUse("scrap", "play area", 1, True))
        return out

    return uses


def _react_due(state: RaceState, car: Car, turn: Turn) -> str | None:
    """# 18.10, 18.11: a Heat cost the Engine cannot cover must be settled before React ends: declared
    unpayable, or paid once a cooldown (or Super Cool) has put the Heat there (the decisions offer both)."""
    return "heat_unpayable" if must_declare_unpayable(state, car, turn) else None


def _slipstream_cards(state: RaceState, ev: Event, car: Car, turn: Turn) -> int:
    """# 18.16: the spaces the bonuses named add to the slipstream (recorded on the turn)."""
    names = ev.get("bonuses") or []
    if not names:
        return 0
    named = {**ev, "cards": names}
    picks = _cards_named(state, named, turn, slipstream_bonuses(state, turn), "with a slipstream bonus", "18.16")
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    assert g is not None and gt is not None
    gt.bonuses.extend(picks)
    return sum(g.n(turn.played[i], "slipstream") for i in picks)


def _slipstream_bonus_cards(state: RaceState, car: Car, turn: Turn) -> list[tuple[str, int]]:
    """# 18.16: the bonus cards a slipstream may name now (a replaced card's bonus is lost, # 18.11)."""
    g: GarageRace | None = state.modules.get(NAME)
    if g is None:
        return []
    return [(turn.played[i], g.n(turn.played[i], "slipstream")) for i in slipstream_bonuses(state, turn)]


def mandatory_open(state: RaceState, car: Car, turn: Turn) -> bool:
    """Whether the React pool holds a mandatory use now (``react_pool(...).mandatory``, # 18.25) without building
    the pool (issue 32: asked at every decision of a React): the Garage's are the only mandatory uses, an unpayable
    Heat cost to declare (# 18.11) and the Scrap to come (# 18.12). tests/test_garage_speed.py checks it against
    the pool in every React of simulated Garage races."""
    if turn.sub != REACT or turn.flipping is not None or turn.cluttered:
        return False  # the pool is empty (react_pool)
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None:
        return False
    marked = _marked(g, turn, gt)
    if not marked:
        return False  # (no card showing a symbol: neither use is open, and no call of either to say so, issue 32)
    # scrap_pending, must_declare_unpayable and unpaid on the cards read here (each would read them again)
    done = gt.scrap_done
    for i, _, sy in marked:
        if "scrap" in sy and i not in done:
            return True  # the Scrap to come (# 18.12)
    due = _unpaid_of(gt, marked)
    if not due:
        return False
    costs = [g.n(turn.played[i], "heat") for i in due]
    if sum(costs) <= car.engine:
        return False  # the Engine covers them (# 18.10): nothing to declare
    return bool(payable_choices(costs, car.engine))  # # 18.11


def _turn_options(state: RaceState, car: Car, turn: Turn) -> list[Event]:
    """Slipstream with bonuses (# 18.16) while a slipstream is open, and Refresh (# 18.21)."""
    g: GarageRace | None = state.modules.get(NAME)
    gt: GarageTurn | None = turn.modules.get(NAME)
    if g is None or gt is None or not _marked(g, turn, gt):
        # (asked at every decision of a turn: the bonuses, Refresh and the mandatory uses are each read from the
        # Play Area cards showing a symbol; with none, each would read the slots and _marked again to say so)
        return []
    out: list[Event] = []
    if turn.sub == REACT and mandatory_open(state, car, turn):
        return out  # # 18.25: React ends with its mandatory uses first
    if turn.sub <= SLIPSTREAM and H.step_machine.slipstream_block(state, car, turn) is None:
        out += slipstream_options(state, car, turn)
    return out + refresh_options(state, car, turn)


def _phase_waiting(state: RaceState) -> tuple[str, list[str]] | None:
    g: GarageRace | None = state.modules.get(NAME)
    if state.phase != "garage" or g is None or g.draft is None:
        return None
    due, cars = g.draft.waiting()  # # 18.5
    return due, list(cars[:1]) if due != "upgrade_removed" else list(cars)


def _phase_decisions(state: RaceState, name: str) -> list[Event]:
    return draft_options(state, name) if state.phase == "garage" else []  # # 18.5


def _enter_phase(state: RaceState, phase: str) -> None:
    if phase == "garage":
        begin_draft(state)  # # 18.4


def _leave_react(state: RaceState, car: Car, turn: Turn) -> bool:
    return leave_react(state, car, turn)


def _clear_play_area(state: RaceState, car: Car, turn: Turn) -> None:
    clear_play_area(car, turn)  # # 12.1, 18.21


_FLIP_DRAWS: Mapping[str, str] = {"scrap": "card_scrapped", "salvage": "deck_shuffled"}  # (never changed)


def _mandatory_also(before: Callable[[RaceState, Car, Turn], bool]) -> Callable[[RaceState, Car, Turn], bool]:
    def react_mandatory(state: RaceState, car: Car, turn: Turn) -> bool:
        return mandatory_open(state, car, turn) or before(state, car, turn)

    return react_mandatory


def build(rules: Rules, options: Any) -> Rules:
    """The Garage's points (MODULES.md 18): its set-up phase right after the grid (# 18.4, before a weather
    phase, whose start effect acts on the Garage decks, # 20.3), its deck, its symbols at their steps."""
    limit = rules.corner_limit

    def corner_limit(state: RaceState, car: Car, turn: Turn, corner: Corner) -> int:
        return limit(state, car, turn, corner) + adjust(state, turn)  # # 18.17: every Adjust in the Play Area

    i = rules.setup_phases.index("grid") + 1
    before = rules.react_mandatory  # # 18.25: the Garage's uses, and those of a module built before if any
    react_mandatory = mandatory_open if before is base_react_mandatory else _mandatory_also(before)
    return replace(
        rules,
        setup_phases=(*rules.setup_phases[:i], "garage", *rules.setup_phases[i:]),
        enter_phase=_enter_phase,
        phase_waiting=_phase_waiting,
        phase_decisions=_phase_decisions,
        starting_deck=_starting_deck,
        reveal=reveal,
        after_flip=_after_flip,
        step3_due=_step3_due,
        step3_options=step3_options,
        react_uses=_react_uses(rules.react_uses),
        # # 18.13: the Garage's uses add no cooldown to the pool (a card's own is named by the event): a cooldown
        # reads the base pool's, unless a module built before added some
        pool_cooling=rules.pool_cooling and rules.react_uses is not base_react_uses,
        react_due=_react_due,
        leave_react=_leave_react,
        slipstream_cards=_slipstream_cards,
        slipstream_bonus_cards=_slipstream_bonus_cards,
        turn_options=_turn_options,
        react_mandatory=react_mandatory,
        corner_limit=corner_limit,
        clear_play_area=_clear_play_area,
        cooldown_cards=cooldown_picks,  # # 18.13, MA32: the upgrades' own cooldowns
        cooldown_cards_spent=spend_cooldown,
        flip_draws=_FLIP_DRAWS,  # # 18.12: a Scrap flips into card_scrapped; # 18.18: a Salvage shuffles the deck
        flip_shuffle=salvage_shuffle,
    )


__all__ = ["DRAFT_EVENTS", "EVENTS", "TURN_EVENTS", "GarageRace", "GarageTurn"]
