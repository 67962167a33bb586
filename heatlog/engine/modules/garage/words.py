"""The Garage's words (# 18.x; issue 26: a module's words are in its folder): upgrade names and each symbol used
in a turn's narration, a car's upgrades on the board, and the short names and words of its cards the recorder,
the season's results and the samples use. Pure: no I/O, no shell; the shells find the narration's and the
board's pieces through the descriptor (``card_name``, ``played_aside``, ``narrate_react``, ``car_facts``)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from ...cards import BASE_CATALOGUE, HEAT
from ...state import RaceState, Turn
from . import garage_slot, garage_turn
from .cards import Card, describe

Event = dict[str, Any]


def card_name(state: RaceState, token: str) -> str:
    """An upgrade by its name and value(s) (``Brakes 1/3``); other cards as they are."""
    g = garage_slot(state)
    card = g.cards.get(token) if g is not None else None
    if card is None:
        return {"H": "Heat", "S": "Stress"}.get(token, token)
    sp = card.get("speed", 0)
    values = "/".join(str(v) for v in sp) if isinstance(sp, list) else str(sp)
    return f"{card['name']} {values}"


def card_word(state: RaceState, token: str) -> str:
    """A card where space is short (a table cell, a Scrap's cards): a basic card as the narration writes it (``2``,
    ``S``, ``H``), an upgrade or a sponsorship card by its name (``Air intake 4``), never its code (``U21``)."""
    g = garage_slot(state)
    if g is not None and token in g.cards:
        return card_name(state, token)
    if token in state.cards.token_set and token not in BASE_CATALOGUE.token_set:
        return state.cards.name(token)  # a sponsorship card of a season race without the Garage
    return token


_scrapped = card_word


def _names(state: RaceState, tokens: str) -> str:
    return ", ".join(card_name(state, t) for t in tokens.split()) or "nothing"


_WORDS = {
    "value": lambda s, c, n: f"{card_name(s, c)} counts {n}",
    "plus": lambda s, c, n: f"card + finds {n}",
    "accelerate": lambda s, c, n: f"accelerates (+{n} for the + so far)",
    "heat": lambda s, c, n: f"pays {n} Heat for {_names(s, c)}",
    "unpayable": lambda s, c, n: f"cannot pay for {card_name(s, c)}: discarded, a flip replaces it",
    "replace": lambda s, c, n: f"the replacement finds {n}, moves again from the start",
    "scrap": lambda s, c, n: f"scraps {n}",
    "cooldown": lambda s, c, n: f"cools {n} Heat with {_names(s, c)}",
    "reduce": lambda s, c, n: f"discards {n} Stress ({_names(s, c)})",
    "refresh": lambda s, c, n: f"puts {card_name(s, c)} back on the deck",
    "salvage": lambda s, c, n: f"salvages {_names(s, c) if c else 'nothing'}",
    "super_cool": lambda s, c, n: f"super-cools {n} Heat",
    "draft": lambda s, c, n: f"drafts {n}",
    "direct": lambda s, c, n: f"plays {card_name(s, c)} directly, moves {n}",
}


STEP3 = frozenset(("value", "plus", "accelerate"))  # # 18.6, 18.8, 18.20: step 3's, before the move


def garage_words(state: RaceState, turn: Turn, *, step3: bool | None = None) -> list[str]:
    """What the Garage's symbols did this turn, in order (from the turn's own record, never re-derived); ``step3``:
    only step 3's (True: a card's value, its + flips, Accelerate, told before the move) or only the rest (False)."""
    gt = garage_turn(turn)
    if gt is None:
        return []
    out = []
    for what, card, n in gt.happenings:
        if step3 is not None and (what in STEP3) != step3:
            continue
        words = _WORDS.get(what)
        if words is not None:
            text = words(state, card, n)
            if what == "scrap" and gt.scrapped:  # the cards turned over, by their names (issue 29: no U21)
                text += " (" + " ".join(_scrapped(state, t) for t in gt.scrapped) + ")"
            out.append(text)
    if gt.bonuses and step3 is not True:
        g = garage_slot(state)
        assert g is not None
        out.append("slipstream bonus +" + str(sum(g.n(turn.played[i], "slipstream") for i in gt.bonuses)))
    return out


def step3_words(state: RaceState, turn: Turn) -> list[str]:
    """Step 3's symbols (a card's value, its + flips, Accelerate), told before the move (issue 29, bug 16)."""
    return garage_words(state, turn, step3=True)


def react_words(state: RaceState, turn: Turn) -> list[str]:
    """The React symbols used this turn, in order, told after the move."""
    return garage_words(state, turn, step3=False)


def spaces_moved(turn: Turn) -> int | None:
    """The spaces a turn moved at step 3 and by React moves (the ``move`` column): after an unpayable Heat cost the
    car moved again from its start-of-turn space with the new Speed (# 18.11, MA1), which replaces the moves before
    it (16, not the 20 of the first move plus nothing): what it reached less the slipstream (every React use waits
    for that declaration, so the moves after the re-move are in ``reached`` too)."""
    gt = garage_turn(turn)
    if gt is None or not gt.replaced or not turn.revealed:
        return None  # as the turn (or another module: a Legend's, # 19.7) counts them
    return max(0, turn.reached - turn.start - (turn.slipstream_moved if turn.slipstream else 0))


def upgrades_line(state: RaceState, name: str) -> str:
    """A car's upgrades for ``show`` and the board: ``Brakes 1/3, Cooling system 6, Heat``."""
    g = garage_slot(state)
    if g is None:
        return ""
    owned = g.owned.get(name) or (g.draft.owned.get(name, []) if g.draft is not None else [])
    return ", ".join(card_name(state, t) for t in owned) or "none yet"


def played_aside(turn: Turn) -> Collection[int]:
    """The indexes of the cards played from the hand in React (# 18.19): the narration tells them there."""
    gt = garage_turn(turn)
    return gt.direct if gt is not None else ()


def car_facts(state: RaceState, name: str) -> dict[str, str | None]:
    """# 18.5: a Garage car's upgrades (public once drafted), for the board and the HTML replay's cars table; none
    for a Legend, which never drafts (# 19.12: "none yet" said it would)."""
    if garage_slot(state) is None:
        return {}
    return {"upgrades": None if state.cars[name].legend else upgrades_line(state, name)}


def card_label(token: str, cards: Mapping[str, Card]) -> str:
    """The short name a card is shown by (``brakes1234``; ``heat`` for a Heat card)."""
    if token == HEAT or token not in cards:
        return "heat" if token == HEAT else token
    return str(cards[token]["short"])


def card_words(token: str, cards: Mapping[str, Card]) -> str:
    """The card in words for narration: ``Brakes (speed 1/2/3/4; heat 1)``."""
    if token == HEAT:
        return "a Heat card"
    return describe(cards[token]) if token in cards else token


def says(ev: Event, cards: Mapping[str, Card]) -> str:
    """A draft event in words (narration and the recorder's echo)."""
    kind = ev.get("type")
    if kind == "garage_market":
        shown = ", ".join(card_label(c, cards) for c in ev.get("cards", [])) or "(cards not noted)"
        return f"Garage market round {ev.get('round')}: {shown}"
    if kind == "upgrade_picked":
        return f"{ev.get('car')} picks {card_words(ev.get('card', ''), cards)}"
    if kind == "upgrade_removed":
        return f"{ev.get('car')} gives back {card_words(ev.get('card', ''), cards)}"
    if kind == "upgrades_dealt":
        return f"{ev.get('car')} takes " + ", ".join(card_words(c, cards) for c in ev.get("cards", []))
    return str(kind)


def event_words(ev: Event, cards: Callable[[list[str]], str]) -> str | None:
    """The Garage's events in a few words (# 18.5-18.23), for the recorder's echo and undo lines: the car, then
    what it did, its cards worded by ``cards`` (their short names)."""
    said = _EVENT_WORDS.get(str(ev.get("type")))
    if said is None:
        return None
    text = said({**ev, **{k: cards([ev[k]]) for k in ("card",) if k in ev}}, cards)
    car = ev.get("car", "")
    return f"{car} {text}" if car else text


# (event with its ``card`` in words, cards) -> words
_EVENT_WORDS: dict[str, Callable[[Event, Callable[[list[str]], str]], str]] = {
    "garage_market": lambda ev, t: f"market round {ev['round']}: " + t(ev.get("cards", [])),
    "upgrade_picked": lambda ev, t: f"picks {ev['card']}",
    "upgrade_removed": lambda ev, t: f"gives back {ev['card']}",
    "upgrades_dealt": lambda ev, t: "takes " + t(ev["cards"]),
    "speed_chosen": lambda ev, t: f"values {ev['card']} at {ev['speed']}",
    "accelerated": lambda ev, t: ("accelerates " if ev["taken"] else "does not accelerate ") + ev["card"],
    "heat_paid": lambda ev, t: "pays the Heat of " + t(ev["cards"]),
    "heat_unpayable": lambda ev, t: "cannot pay for " + t(ev["cards"]),
    "card_scrapped": lambda ev, t: f"scraps {ev['card']}",
    "stress_reduced": lambda ev, t: f"discards {ev['count']} Stress",
    "refreshed": lambda ev, t: f"refreshes {ev['card']}",
    "salvaged": lambda ev, t: "salvages " + t(ev["cards"]),
    "super_cooled": lambda ev, t: f"super-cools {ev['count']}",
    "drafted": lambda ev, t: "drafts",
    "direct_played": lambda ev, t: f"plays {ev['card']} directly",
}


def car_cards(state: RaceState, name: str) -> tuple[str, ...]:
    """The upgrades car ``name`` owns (# 18.5), in the order it got them (the descriptor's ``car_cards``)."""
    g = garage_slot(state)
    return tuple(g.owned.get(name) or ()) if g is not None else ()


def playthrough_tail(state: RaceState, events: list[Event]) -> list[str]:
    """# 18.5: the draft as the table saw it and every car's upgrades, after a golden playthrough's head."""
    g = garage_slot(state)
    if g is None:
        return []
    from . import DRAFT_EVENTS

    draft = [f"  {says(ev, g.cards)}" for ev in events if ev.get("type") in DRAFT_EVENTS]
    owned = [f"  {name} upgrades: {upgrades_line(state, name)}" for name in state.grid]
    return ["", "== Garage draft ==", *draft, *owned]
