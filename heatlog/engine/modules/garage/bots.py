"""How the bots play the Garage (MODULES.md 18): the module's bot policy (``Module.bot_policy``, engine/module.py).

Pure, like the rest of the engine: functions of the state and of the legal decisions the engine lists, with the
bot's own valuation handed in (``EndValue``); nothing here imports a bot, and heatlog/bots names no module.

The random bot needs nothing here: it picks uniformly among the legal decisions the engine lists. The heuristic
values a card by what it usually brings over a race: its best Speed, its "+" flips (about 2.5 spaces each, free of
Heat), its cooldown and Stress relief, its slipstream reach, minus what it costs (Heat, scrapped cards); a Heat card
from the Garage deck is dead weight (# 18.27). It picks the best card of a draft (# 18.5) and gives back the worst,
chooses the value of a multi-value card that scores best (# 18.6), Accelerates whenever the "+" it used score
(# 18.20), declares the first unpayable choice (# 18.11), takes the card cooldowns and Stress relief in full (# 18.13,
18.14), and Refreshes a card worth drawing again (# 18.21).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...cards import HEAT
from ...decide import Waiting, react_options
from ...module import GO_ON, BotPolicy, EndValue
from ...movement import landing
from ...state import Car, RaceState
from ...steps import DISCARD, REACT, SLIPSTREAM
from . import NAME, garage_record
from .cards import Card, speeds, symbol
from .race import GarageRace, planned_turn, refresh_options, scrap_pending, shows_marked

Event = dict[str, Any]

FLIP = 2.5  # the mean Basic card a "+" finds (1–4)
WEIGHTS: Mapping[str, float] = {
    "boost": FLIP,
    "cooldown": 1.2,
    "reduce": 0.9,
    "slipstream": 0.4,
    "adjust": 0.6,
    "salvage": 0.3,
    "super_cool": 1.0,
    "draft": 0.5,
    "refresh": 0.5,
    "direct": 0.8,
    "accelerate": 1.0,
    "heat": -1.6,
    "scrap": -0.1,
}


_VALUES: dict[int, tuple[Card, float]] = {}  # id(card) -> (the card, its value): a race's cards, asked per decision


def upgrade_value(card: Card | None) -> float:
    """A rough worth of one upgrade for the heuristic's deck (higher is better); ``None`` is a Heat card.
    Kept per card object (a race's card definitions never change; the card is held, so its id stays its own)."""
    if card is None:
        return -4.0
    hit = _VALUES.get(id(card))
    if hit is not None and hit[0] is card:
        return hit[1]
    value = _value(card)
    if len(_VALUES) > 4096:
        _VALUES.clear()
    _VALUES[id(card)] = (card, value)
    return value


def _value(card: Card) -> float:
    value = float(max(speeds(card)))
    if len(speeds(card)) > 1:
        value += 0.5  # a choice of values fits more corners
    for name, weight in WEIGHTS.items():
        value += weight * symbol(card, name)
    return value


def best_pick(choices: Sequence[str], cards: Mapping[str, Card], owned: Sequence[str] = ()) -> str:
    """The heuristic's pick among ``choices`` (tokens), first of the best in token order for determinism.
    A second card with a Heat cost is worth a little less (two of them strain the Engine)."""
    heat_cards = sum(1 for t in owned if t in cards and symbol(cards[t], "heat"))

    def score(token: str) -> tuple[float, str]:
        card = cards.get(token) if token != HEAT else None
        value = upgrade_value(card)
        if card is not None and symbol(card, "heat") and heat_cards:
            value -= 1.0
        return (-value, token)

    return min(choices, key=score)


def worst_card(owned: Sequence[str], cards: Mapping[str, Card]) -> str:
    """The card the heuristic gives back after a snake draft (# 18.5)."""
    return min(owned, key=lambda t: (upgrade_value(cards.get(t) if t != HEAT else None), t))


# ------------------------------------------------------------------------------------------------ the planner

_PLANS: dict[int, tuple[Mapping[str, Card], dict[str, tuple[int, int, int]]]] = {}
_NONE: dict[str, tuple[int, int, int]] = {}
_LAST_PLANS: list[tuple[Any, Mapping[str, tuple[int, int, int]]]] = [(None, _NONE)]  # _PLANS' last answer


def swap_choice(cards: Mapping[str, Card], options: Sequence[Event]) -> Event:
    """The first picker's swap of a season's draft (# 21.2, MA11: the championship's ``upgrade_swapped``, the draft
    being the Garage's): the legal swap that gains the most by :func:`upgrade_value`, or no swap when none gains
    (first in order on a tie)."""

    def worth(token: str) -> float:
        return upgrade_value(None if token == HEAT else cards.get(token))

    best, gain = next(o for o in options if "give" not in o), 0.0
    for o in options:
        if "give" in o and worth(o["take"]) - worth(o["give"]) > gain:
            best, gain = o, worth(o["take"]) - worth(o["give"])
    return best


def card_plans(state: RaceState) -> Mapping[str, tuple[int, int, int]]:
    """The race's upgrades as the heuristic plans with them (# 18.6, 18.8, 18.10): token -> (the Speed it counts,
    its "+" flips, its Heat cost). A multi-value card counts its highest value here; the value is chosen at reveal
    by what the corners allow. One mapping per card catalogue (held: its id stays its own)."""
    g: GarageRace | None = state.modules.get(NAME)
    if g is None:
        return _NONE
    last = _LAST_PLANS[0]  # (asked at every plan of a Garage race: the last catalogue's, without id() and a look-up)
    if last[0] is g.cards:
        return last[1]
    hit = _PLANS.get(id(g.cards))
    if hit is not None and hit[0] is g.cards:
        _LAST_PLANS[0] = hit
        return hit[1]
    plans: dict[str, tuple[int, int, int]] = {}
    for token, card in g.cards.items():
        sp = card.get("speed", 0)
        value = max(sp) if isinstance(sp, list) else int(sp)
        sym = card.get("symbols", {})
        plans[token] = (value, int(sym.get("boost", 0)), int(sym.get("heat", 0)))
    if len(_PLANS) > 64:
        _PLANS.clear()
    _PLANS[id(g.cards)] = _LAST_PLANS[0] = (g.cards, plans)
    return plans


# ------------------------------------------------------------------------------------------------ the decisions

OWNS = frozenset(("speed_chosen", "accelerated", "heat_unpayable", "upgrade_picked"))
# the decision kinds :func:`decide` answers by kind (each returns); any other is the Play Area's
_OWN_DUES = frozenset((*OWNS, "upgrade_removed", "upgrade_swapped"))


def decide(state: RaceState, car: Car, w: Waiting, options: Sequence[Event], end_value: EndValue) -> Event | None:
    """The heuristic's Garage decisions (# 18.5–18.21): picks by the card values above (a season draft's swap too,
    # 21.2), the value of a multi-value card that scores best, Accelerate whenever "+" were used and score, the
    first unpayable choice, the card cooldowns and Stress relief in full, and Refresh for a card worth drawing
    again. ``GO_ON``: go on (React ends with the Scrap); None: the heuristic's base choices (or, for a kind in
    ``OWNS``, no decision)."""
    g: GarageRace | None = state.modules.get(NAME)
    assert g is not None
    due = w.due
    turn = state.turn
    if due in _OWN_DUES:  # (most decisions are none of these: one look-up, not six comparisons)
        if due == "upgrade_picked":
            draft = g.draft
            assert draft is not None
            choices = [o["card"] for o in options]
            card = best_pick(choices, g.cards, draft.owned[car.name])
            return {"type": due, "v": 1, "car": car.name, "card": card}
        if due == "upgrade_removed":
            draft = g.draft
            assert draft is not None
            return {"type": due, "v": 1, "car": car.name, "card": worst_card(draft.owned[car.name], g.cards)}
        if due == "upgrade_swapped":  # # 21.2: a season's draft, the Garage's with the championship's swap
            return swap_choice(g.cards, options)
        if due == "speed_chosen":  # # 18.6: the value that scores best
            assert turn is not None
            best: tuple[float, int] | None = None
            for o in options:
                q, _ = landing(state, car, car.progress + turn.speed + o["speed"])
                v = end_value(state, car, q, turn.speed + o["speed"])
                if best is None or v > best[0]:
                    best = (v, options.index(o))
            assert best is not None
            return options[best[1]]
        if due == "accelerated":  # # 18.20: + the "+" used, when it scores at least as well
            assert turn is not None
            extra = garage_record(turn).plus_used
            q, _ = landing(state, car, car.progress + turn.speed + extra)
            take = extra > 0 and end_value(state, car, q, turn.speed + extra) >= end_value(
                state, car, landing(state, car, car.progress + turn.speed)[0], turn.speed
            )
            return next(o for o in options if o["taken"] is take)
        if due == "heat_unpayable":  # # 18.11
            return options[0] if options else None
    if turn is None or w.step < REACT or w.flipping is not None or not shows_marked(state, turn):
        # (no Play Area card showing a symbol: none of the choices below is open, each read from those cards — a
        # Direct Play card owned, which shows_symbols also counts, is none of them; issue 32: the React pool's
        # uses ask shows_symbols at the same decision)
        return None
    # the pool the engine read for this Waiting, not a new one (issue 32: each works out every React use)
    pool = w.react_pool() if w.may_go_on and turn.car == car.name else None
    offered = pool.options() if pool is not None else react_options(state, car, turn)  # once per decision
    for o in offered:
        if o["type"] == "cooldown" and o.get("cards"):
            return o  # # 18.13: a card's cooldown, before the Scrap closes React
    if w.step == REACT and scrap_pending(state, turn):
        return GO_ON  # # 18.12: go on: React ends with the Scrap
    for o in offered:
        if o["type"] == "stress_reduced" and not any(
            x["type"] == "stress_reduced" and x["cards"] == o["cards"] and x["count"] > o["count"] for x in offered
        ):
            return o  # # 18.14
        if o["type"] == "cooldown" and o.get("cards"):
            return o
    if w.step != DISCARD and w.step != SLIPSTREAM and w.step != REACT:
        return None
    refresh = refresh_options(state, car, turn)  # (most are empty: no generator for any() to run, issue 32)
    if refresh and any(upgrade_value(g.cards.get(o["card"])) >= 4.0 for o in refresh):
        # # 18.21 (the Refresh uses of the Play Area, a superset of the decisions' Refresh: the list only when it pays)
        for o in options:
            if o["type"] == "refreshed" and upgrade_value(g.cards.get(o["card"])) >= 4.0:
                return o
    return None


POLICY = BotPolicy(
    decide=decide,
    owns=OWNS,
    card_plans=card_plans,
    planned_turn=planned_turn,
    searched=False,  # the search bot leaves a Garage race to the heuristic
)


def policy() -> BotPolicy:
    """The Garage's bot policy (``Module.bot_policy``)."""
    return POLICY
