"""A card in a table cell (the board's and the HTML replay's cars tables): any race's cards, whatever module
added them (the race's catalogue knows their short names, docs/cards.md)."""

from __future__ import annotations

from ..engine.cards import BASE_CATALOGUE
from ..engine.state import RaceState


def card_short(state: RaceState, token: str) -> str:
    """A card in a table cell, where columns are narrow: a basic card as its token (``2``, ``S``, ``H``), an upgrade
    or a sponsorship card by the short name the recorder shows and takes (``turbo7``, ``dramdo``; docs/cards.md),
    never its code (``U42``)."""
    if token in BASE_CATALOGUE.token_set or token not in state.cards.token_set:
        return token
    return state.cards[token].short
