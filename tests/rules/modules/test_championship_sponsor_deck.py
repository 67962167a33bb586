"""The sponsorship deck of a race (MODULES.md 21.4, 21.7, MA30, MC7): what it can give, the used cards that
go back in when it runs out, and the cards a driver still holds for the next race (MA7)."""

from __future__ import annotations

from heatlog.engine.modules.championship.rules import SponsorDeck, sponsors_held

from ..conftest import board


def test_21_4_MA7_the_deck_without_the_cards_the_drivers_already_hold() -> None:
    deck = SponsorDeck.of({"P80": 7, "P81": 7}, ["P80", "P80", "P83"])  # P83 is not in this deck: ignored
    assert deck.supply == {"P80": 5, "P81": 7} and deck.left() == 12


def test_21_7_MA30_draws_come_from_the_supply_then_the_used_cards_reshuffled() -> None:
    deck = SponsorDeck.of({"P80": 1, "P81": 1})
    assert deck.why_not("P80") is None and deck.why_not("P86") is not None
    deck.draw("P80")
    assert "cannot come from the sponsorship deck now (it holds P81)" in (deck.why_not("P80") or "")
    deck.used_up("P80")  # MC7: a one-time card played leaves the game at step 9, beside the supply
    deck.draw("P81")
    assert deck.available() == {"P80": 1}  # the supply is empty: the used cards are reshuffled (# 21.7)
    deck.draw("P80")
    assert deck.left() == 0 and "empty" in (deck.why_not("P80") or "")
    copy = SponsorDeck.from_dict(deck.to_dict())
    assert copy == deck and copy is not deck and copy.copy() == deck


def test_MA7_a_base_race_holds_no_sponsorship_cards() -> None:
    race = board({"A": {"at": 5}, "B": {"at": 1}})
    assert sponsors_held(race.state, race.car("A")) == []
