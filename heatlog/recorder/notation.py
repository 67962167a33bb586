"""The recorder's notation: cards as typed (``4 3 s``), events in a few words, errors without JSON."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from ..engine import HeatlogError, MalformedInput, RaceState
from ..engine.cards import BASE_CATALOGUE, HEAT
from ..engine.module import card_typed
from ..engine.module import event_words as module_event_words

Event = dict[str, Any]

COMMANDS = ("undo", "note", "board", "help", "quit")
SAVED = "progress is saved; run heatlog record to resume"
OVER_PROMPT = "race over — Enter to leave (undo takes back the last answer): "
# What a user types for a card and how a card is shown, from the card catalogue (engine/cards.py).
CARD_WORDS = {c.name.lower(): c.token for c in BASE_CATALOGUE.cards if c.kind in ("heat", "stress")}
CARD_CHARS = {c.short: c.token for c in BASE_CATALOGUE.cards if len(c.short) == 1}
CARD_NAMES = {c.token: c.name for c in BASE_CATALOGUE.cards if c.kind in ("heat", "stress")}


def race_cards(state: RaceState) -> dict[str, dict[str, str]] | None:
    """The race's card definitions beyond the base cards (upgrades and sponsorship cards), ``{"short", "name"}``
    by token, or None in a race of base cards only: the race's card catalogue, which holds every module's cards
    (``Module.cards_key``), so no module is named here. A card is typed and said by its short name (issue 29)."""
    extra = {
        c.token: {"short": c.short, "name": c.name}
        for c in state.cards.cards
        if c.token not in BASE_CATALOGUE.token_set
    }
    return extra or None


def typed_card(state: RaceState | None, token: str) -> str:
    """How the host types card ``token`` in this race: in a race with cards beyond the base (``race_cards``) a
    card by its short name (``brakes1234``) and a Heat card as ``heat``; else by its token."""
    defs = race_cards(state) if state is not None else None
    if defs is None:
        return token
    if token == HEAT:
        return "heat"
    return defs[token]["short"] if token in defs else token


def parse_cards(text: str, defs: Mapping[str, Any] | None = None, held: Collection[str] | None = None) -> list[str]:
    """``"4 3 s"``, ``"43s"``, ``"4,3,stress"`` -> ``["4", "3", "S"]`` (# 1.1: 1–4, 0 and 5, Heat, Stress).

    In a race with cards beyond the base (``defs``: their definitions, ``race_cards``: a Garage race's upgrades)
    such a card is typed as its module reads it (``Module.card_typed``: an upgrade by its short name or a unique
    prefix of it, ``brakes13``, ``turbo8``, or its token, ``U8``, # 18.2); ``held``: the tokens of the cards the
    car can hold, which a name means first (``turbo`` is turbo8 for a car that owns turbo8 and not turbo7)."""
    out: list[str] = []
    for tok in text.replace(",", " ").lower().split():
        if tok in CARD_WORDS:
            out.append(CARD_WORDS[tok])
        elif all(ch in CARD_CHARS for ch in tok):
            out.extend(CARD_CHARS[ch] for ch in tok)
        elif defs and (token := card_typed(tok, defs, held)) is not None:
            out.append(token)
        else:
            raise MalformedInput(f"{tok!r} is not a card: write 1 2 3 4, 0 or 5 (upgrades), h (Heat), s (Stress)")
    return out


def card_text(cards: list[str], defs: Mapping[str, Any] | None = None) -> str:
    """Cards in words: 1 2 Heat Stress; a card beyond the base by its short name (``brakes24``, what the host
    types, # 18.2) when the race's definitions (``defs``, ``race_cards``) are given, else by its token."""

    def word(c: str) -> str:
        if c in CARD_NAMES:
            return CARD_NAMES[c]
        return str(defs[c]["short"]) if defs is not None and c in defs else c

    return " ".join(word(c) for c in cards) or "nothing"


def describe(ev: Event, defs: Mapping[str, Any] | None = None) -> str:
    """An event in a few words, for undo and automatic entries; the cards beyond the base (upgrades) by their
    short names with the race's card definitions (``defs``, ``race_cards``)."""
    kind, car = ev.get("type"), ev.get("car", "")

    def card_text(cards: list[str]) -> str:
        return _card_text(cards, defs)

    if kind == "gear_chosen":
        return f"{car} gear {ev['gear']}"
    if kind in ("cards_played", "cards_revealed"):
        return f"{car} {'plays' if kind == 'cards_played' else 'reveals'} {card_text(ev['cards'])}"
    if kind == "card_flipped":
        return f"{car} flips {card_text([ev['card']])}"
    if kind == "deck_shuffled":
        return f"{car} shuffles" + (f" ({card_text(ev['order'])})" if ev.get("order") else "")
    if kind == "cards_drawn":
        return f"{car} draws " + (card_text(ev["cards"]) if "cards" in ev else str(ev["count"]))
    if kind == "cooldown":
        return f"{car} cools {ev['count']}"
    if kind == "boost":
        return f"{car} boosts"
    if kind == "adrenaline":
        return f"{car} adrenaline {ev['bonus']}"
    if kind == "slipstream":
        if not ev["taken"]:
            return f"{car} declines the slipstream"
        return f"{car} slipstreams" + (f" {ev['spaces']} spaces" if "spaces" in ev else "")
    if kind == "cards_discarded":
        return f"{car} discards {card_text(ev['cards'])}"
    if kind == "grid_set":
        return "grid " + " > ".join(ev["order"])
    if kind == "note":
        return f"note {ev['text']!r}"
    said = module_event_words(ev, card_text)  # a module's own words (Module.event_words, engine/module.py)
    if said is not None:
        return said
    return str(kind).replace("_", " ")


_card_text = card_text


def error_text(err: HeatlogError, *, rules: bool = True) -> str:
    """The engine's message in plain words, without the JSON of the event (the host typed something else);
    without digest tags such as ``(# 4.1)`` unless ``rules`` (the terminal strips them: ``strip_rule_tags``)."""
    message = err.message if rules else strip_rule_tags(err.message)
    return f"{err.words}: {message}" + (f" (# {err.rule})" if rules and err.rule else "")


def strip_rule_tags(text: str) -> str:
    """``"... Engine (# 3.2)"`` -> ``"... Engine"``: digest citations (``# 4.1``, ``# 20.9, MA5``,
    ``MODULES.md 20.11``) are for those who ask for them; the words around them stay."""
    for pattern, keep in _TAGS:
        text = pattern.sub(keep, text)
    return text.strip()


_ONE = r"[A-Z]{0,3}\d+(?:\.\d+)?"
_CITE = rf"(?:#|MODULES\.md)\s+{_ONE}(?:\s*[,–-]\s*(?:#\s+)?{_ONE})*"  # "# 4.1", never "#2" (user text)
_TAGS = (
    (re.compile(rf"\s*\(\s*{_CITE}\s*\)"), ""),  # "(# 4.1)", "(# 20.9, 20.10, MA5)": gone
    (re.compile(rf"\(\s*{_CITE}\s*[;,]\s*"), "("),  # "(# A14; Legends count)" -> "(Legends count)"
    (re.compile(rf"\(\s*{_CITE}\s+(?=[^\s)])"), "("),  # "(# 18.5 pick order)" -> "(pick order)"
    (re.compile(rf"\s*[;,]\s*{_CITE}(?=\s*\))"), ""),  # "(a b, # 19.4)" -> "(a b)"
    (re.compile(rf"\s*{_CITE}\b"), ""),  # "rule # 9.3 says" -> "rule says"
)
