"""The Garage's words (# 18.x; issue 26: a module's words are in its folder): upgrade names and each symbol used
in a turn's narration, a car's upgrades on the board, and the short names and words of its cards the recorder,
the season's results and the samples use. Pure: no I/O, no shell; the shells find the narration's and the
board's pieces through the descriptor (``card_name``, ``played_aside``, ``narrate_react``, ``car_facts``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ...cards import BASE_CATALOGUE, HEAT
from ...state import RaceState, Turn
from .cards import Card, describe

Event = dict[str, Any]


def card_name(state: RaceState, token: str) -> str:
    """An upgrade by its name and value(s) (``Brakes 1/3``); other cards as they are."""
    g = state.garage
    card = g.cards.get(token) if g is not None else None
    if card is None:
        return {"H": "Heat", "S": "Stress"}.get(token, token)
    sp = card.get("speed", 0)
    values = "/".join(str(v) for v in sp) if isinstance(sp, list) else str(sp)
    return f"{card['name']} {values}"


def card_word(state: RaceState, token: str) -> str:
    """A card where space is short (a table cell, a Scrap's cards): a basic card as the narration writes it (``2``,
    ``S``, ``H``), an upgrade or a sponsorship card by its name (``Air intake 4``), never its code (``U21``)."""
    g = state.garage
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


def garage_words(state: RaceState, turn: Turn) -> list[str]:
    """What the Garage's symbols did this turn, in order (from the turn's own record, never re-derived)."""
    gt = turn.garage
    if gt is None:
        return []
    out = []
    for what, card, n in gt.happenings:
        words = _WORDS.get(what)
        if words is not None:
            text = words(state, card, n)
            if what == "scrap" and gt.scrapped:  # the cards turned over, by their names (issue 29: no U21)
                text += " (" + " ".join(_scrapped(state, t) for t in gt.scrapped) + ")"
            out.append(text)
    if gt.bonuses:
        out.append("slipstream bonus +" + str(sum(state.garage.n(turn.played[i], "slipstream") for i in gt.bonuses)))
    return out


def upgrades_line(state: RaceState, name: str) -> str:
    """A car's upgrades for ``show`` and the board: ``Brakes 1/3, Cooling system 6, Heat``."""
    g = state.garage
    if g is None:
        return ""
    owned = g.owned.get(name) or (g.draft.owned.get(name, []) if g.draft is not None else [])
    return ", ".join(card_name(state, t) for t in owned) or "none yet"


def played_aside(turn: Turn) -> Collection[int]:
    """The indexes of the cards played from the hand in React (# 18.19): the narration tells them there."""
    return turn.garage.direct if turn.garage is not None else ()


def car_facts(state: RaceState, name: str) -> dict[str, str | None]:
    """# 18.5: a Garage car's upgrades (public once drafted), for the board and the HTML replay's cars table; none
    for a Legend, which never drafts (# 19.12: "none yet" said it would)."""
    if state.garage is None:
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
