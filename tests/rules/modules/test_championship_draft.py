"""The upgrade draft between championship races (MODULES.md 21.2, 21.3, MA11) as a pure state machine on the
Garage's draft: one round, a market of players + 3, the lowest-ranked driver picks first, then the first
picker's swap; the upgrades of earlier races stay (21.11)."""

from __future__ import annotations

import pytest

from heatlog.engine import IllegalEvent, MalformedInput
from heatlog.engine.modules.championship.rules import ChampionshipDraft, Standing, draft_order

DECK = {f"U{n}": 2 for n in range(1, 17)}


def ev(kind: str, **fields: object) -> dict:
    return {"type": kind, "v": 1, **fields}


def standings_of(*names: str) -> list[Standing]:
    return [Standing(n, 10 - i, (10 - i,), 0, i + 1) for i, n in enumerate(names)]


def test_21_2_MA11_one_round_players_plus_3_lowest_ranked_first_then_the_swap() -> None:
    picks = draft_order(standings_of("Ann", "Bob", "Cy"))  # Cy is last: Cy picks first
    assert picks == ["Cy", "Bob", "Ann"]
    d = ChampionshipDraft.begin(["Ann", "Bob", "Cy"], picks, DECK, {"Ann": ["U3"], "Cy": ["U9"]})
    assert d.waiting() == ("garage_market", ()) and d.next_market_size() == 6  # # 21.2: players + 3
    with pytest.raises(IllegalEvent, match="shows 6 cards, not 4"):
        d.copy().apply(ev("garage_market", round=1, cards=["U1", "U2", "U4", "U5"]))
    d.apply(ev("garage_market", round=1, cards=["U1", "U2", "U4", "U5", "U6", "U7"]))
    assert d.waiting() == ("upgrade_picked", ("Cy",))
    with pytest.raises(IllegalEvent, match="it is Cy's pick, not Ann's"):
        d.copy().apply(ev("upgrade_picked", car="Ann", card="U1"))
    for name, card in (("Cy", "U1"), ("Bob", "U2"), ("Ann", "U4")):
        d.apply(ev("upgrade_picked", car=name, card=card))
    assert d.waiting() == ("upgrade_swapped", ("Cy",))  # the first picker may swap (# 21.2)
    with pytest.raises(IllegalEvent, match="only Cy, who picked first"):
        d.copy().apply(ev("upgrade_swapped", car="Ann", give="U3", take="U5"))
    with pytest.raises(IllegalEvent, match="U2 is not left in the market"):
        d.copy().apply(ev("upgrade_swapped", car="Cy", give="U9", take="U2"))
    with pytest.raises(IllegalEvent, match="Cy has no U3"):
        d.copy().apply(ev("upgrade_swapped", car="Cy", give="U3", take="U5"))
    with pytest.raises(MalformedInput, match="or neither"):
        d.copy().apply(ev("upgrade_swapped", car="Cy", give="U9"))
    d.apply(ev("upgrade_swapped", car="Cy", give="U9", take="U6"))
    assert d.done and d.owned == {"Ann": ["U3", "U4"], "Bob": ["U2"], "Cy": ["U1", "U6"]}
    assert d.swapped == ("U9", "U6") and "U9" in d.removed


def test_21_2_the_swap_may_be_declined() -> None:
    d = ChampionshipDraft.begin(["Ann", "Bob"], ["Bob", "Ann"], DECK, {})
    d.apply(ev("garage_market", round=1, cards=["U1", "U2", "U4", "U5", "U6"]))
    d.apply(ev("upgrade_picked", car="Bob", card="U1"))
    d.apply(ev("upgrade_picked", car="Ann", card="U2"))
    d.apply(ev("upgrade_swapped", car="Bob"))
    assert d.done and d.owned == {"Ann": ["U2"], "Bob": ["U1"]} and d.swapped is None
    with pytest.raises(IllegalEvent, match="draft is over"):
        d.copy().apply(ev("upgrade_picked", car="Ann", card="U4"))


def test_21_2_a_copy_is_independent() -> None:
    d = ChampionshipDraft.begin(["Ann", "Bob"], ["Bob", "Ann"], DECK, {"Ann": ["U3"]})
    c = d.copy()
    c.apply(ev("garage_market", round=1, cards=["U1", "U2", "U4", "U5", "U6"]))
    assert d.waiting() == ("garage_market", ()) and c.waiting() == ("upgrade_picked", ("Bob",))
    assert isinstance(c, ChampionshipDraft) and d.owned == {"Ann": ["U3"], "Bob": []}


def test_MA11_the_pick_order_must_name_every_car() -> None:
    with pytest.raises(ValueError, match="every drafting car once"):
        ChampionshipDraft.begin(["Ann", "Bob"], ["Bob"], DECK, {})
