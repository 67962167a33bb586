"""The recorder's words for the Garage set-up (# 18.5): card names typed at the table, their Tab completion,
the draft's questions and what each draft event says.

Cards are typed by their short names (``brakes1234``, ``cool6``, ``heat``), a unique prefix of one, or their token
(``U7``); the engine's :func:`~heatlog.engine.modules.garage.cards.card_named` decides what a word means, so the
recorder holds no second copy of the card list.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..engine.module import cards_held as cards_held
from ..engine.modules.championship.rules import ChampionshipDraft
from ..engine.modules.garage.cards import Card, Draft, card_named, completions
from ..engine.modules.garage.recorder import named_card as named_card
from ..engine.modules.garage.words import card_label as card_label
from ..engine.modules.garage.words import card_words as card_words
from ..engine.modules.garage.words import says as says

Event = dict[str, Any]


def parse_garage_cards(text: str, cards: Mapping[str, Card]) -> list[str]:
    """``"brakes1234, cool6 heat"`` -> ``["U7", "U11", "H"]``; an unknown or ambiguous word raises."""
    return [card_named(word, cards) for word in re.split(r"[\s,]+", text.strip()) if word]


def several_picks(draft: Any) -> bool:
    """Whether a pick's answer may carry the picks after it: in a season's draft (one round, # 21.2, MA11; a
    Garage race's own drafts ask each pick on its own)."""
    return isinstance(draft, ChampionshipDraft)


def draft_prompt(draft: Draft, cards: Mapping[str, Card]) -> tuple[str, str | None, tuple[str, ...]]:
    """What the recorder asks now in the Garage phase: (prompt, car or None, Tab-completion words)."""
    due, cars = draft.waiting()
    everything = tuple(completions("", cards))
    if due == "garage_market":
        n = draft.next_market_size()
        return f"Garage market, round {draft.round + 1}: the {n} cards revealed", None, everything
    if due == "upgrades_dealt":
        return f"{cars[0]} takes 3 upgrades from the Garage deck", cars[0], everything
    if due == "upgrade_picked":
        later = draft.queue[1:] if several_picks(draft) else []
        then = f" (then {' '.join(later)}: their picks may follow, in order)" if later else ""
        if draft.market is not None:
            left = tuple(card_label(c, cards) for c, k in draft.market.items() for _ in range(k))
            return f"{cars[0]} picks one of {' '.join(left)}{then}", cars[0], tuple(dict.fromkeys(left))
        return f"{cars[0]} picks a card from the market{then}", cars[0], everything
    if due == "upgrade_removed":
        car = cars[0]
        mine = tuple(card_label(c, cards) for c in draft.owned[car])
        return f"{car} gives back one of {' '.join(mine)} (snake draft)", car, mine
    return "the Garage draft is over", None, ()


def draft_event(draft: Draft, cards: Mapping[str, Card], answer: str, car: str | None = None) -> Event:
    """The event an answer to :func:`draft_prompt` makes (checked by the rules when applied)."""
    due, cars = draft.waiting()
    who = car if car is not None else (cars[0] if cars else None)
    if due == "garage_market":
        return {"type": due, "v": 1, "round": draft.round + 1, "cards": parse_garage_cards(answer, cards)}
    if due == "upgrades_dealt":
        return {"type": due, "v": 1, "car": who, "cards": parse_garage_cards(answer, cards)}
    picked = parse_garage_cards(answer, cards)
    if len(picked) != 1:
        raise ValueError("name one card")
    return {"type": due, "v": 1, "car": who, "card": picked[0]}
