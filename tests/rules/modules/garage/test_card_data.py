"""The Garage card files against the research reference (# 18.2, 18.3, 18.27, MA13, MC3).

``heatlog/data/cards/garage.json`` and ``sponsors.json`` are the project's transcription of
``shared/reference/upgrade_cards.json``; a copy of the reference's card list sits in ``tests/data`` so the
check also runs on a clone without the shared folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heatlog.engine.cards import HEAT, STRESS, VALUE, starting_deck
from heatlog.engine.modules.garage.cards import GarageOptions, garage_deck, race_cards, speeds
from heatlog.formats.garage_cards import garage_cards, race_block, sponsor_cards

REPO = Path(__file__).resolve().parents[4]
REFERENCE = REPO / "tests" / "data" / "upgrade_cards.reference.json"
SHARED = REPO.parent / "shared" / "reference" / "upgrade_cards.json"
SETS = {"base": "base", "Heavy Rain": "heavy-rain", "Tunnel Vision": "tunnel-vision"}
SYMBOLS = {
    "boost",
    "heat",
    "scrap",
    "cooldown",
    "reduce",
    "slipstream",
    "adjust",
    "salvage",
    "direct",
    "accelerate",
    "refresh",
    "super_cool",
    "draft",
    "one_time",
}


def reference() -> list[dict]:
    return json.loads(REFERENCE.read_text(encoding="utf-8"))["cards"]


def test_the_repo_copy_of_the_reference_is_the_shared_file():
    if not SHARED.exists():
        pytest.skip("shared/reference is not beside this clone")
    assert json.loads(SHARED.read_text(encoding="utf-8"))["cards"] == reference()


def test_76_reference_types_all_accounted_for():
    ref = reference()
    assert len(ref) == 76
    ours = {c["bga_type"]: c for c in garage_cards() + sponsor_cards()}
    base = {
        r["bga_type"]
        for r in ref
        if r["kind"] in ("speed", "starting_upgrade", "stress") or r["bga_type"] in (106, 111)
    }
    assert base == {100, 101, 102, 103, 104, 105, 106, 110, 111}
    assert set(ours) | base == {r["bga_type"] for r in ref}
    assert not set(ours) & base


@pytest.mark.parametrize(
    "ref",
    [r for r in json.loads(REFERENCE.read_text())["cards"] if r["bga_type"] < 100],
    ids=lambda r: str(r["bga_type"]),
)
def test_18_2_each_garage_and_sponsor_type_matches_the_reference(ref):
    card = {c["bga_type"]: c for c in garage_cards() + sponsor_cards()}[ref["bga_type"]]
    assert card["name"] == ref["name"] or card["kind"] == "heat"
    assert card["speed"] == ref["speed"]
    assert card["set"] == SETS[ref["set"]]
    expected = {k.replace("-", "_"): v for k, v in ref["symbols"].items()}
    if ref["kind"] == "sponsor":
        expected["one_time"] = 1  # 18.24: every sponsorship card is one-time use
        assert card["kind"] == "sponsor" and card["copies"] == 7 and card["id"] == f"P{ref['bga_type']}"
    elif ref["kind"] == "heat":
        # 18.27, MA13: the Garage deck's Heat cards are plain Heat cards
        assert card["kind"] == "heat" and card["id"] == HEAT and card["copies"] == 2
        assert card["level"] == ("basic" if ref["bga_type"] < 18 else "advanced")
    else:
        assert card["kind"] == "upgrade" and card["copies"] == 2 and card["id"] == f"U{ref['bga_type']}"
        assert card["level"] == {"basic_upgrade": "basic", "advanced_upgrade": "advanced"}[ref["kind"]]
    assert card["symbols"] == expected
    assert set(card["symbols"]) <= SYMBOLS


def test_base_types_are_the_engine_tokens():
    """The base types 100–111 are the engine's own tokens (# 1.1, 1.2)."""
    ref = {r["bga_type"]: r for r in reference()}
    for t, token in zip((101, 102, 103, 104), ("1", "2", "3", "4"), strict=True):
        assert ref[t]["speed"] == VALUE[token]
    assert ref[100]["speed"] == VALUE["0"] and ref[105]["speed"] == VALUE["5"]
    assert ref[110]["symbols"] == {"boost": 1} and STRESS in starting_deck()
    assert ref[106]["kind"] == ref[111]["kind"] == "heat"


def test_short_names_are_unique_and_typeable():
    shorts = [c["short"] for c in garage_cards() if c["kind"] == "upgrade"] + [c["short"] for c in sponsor_cards()]
    assert len(shorts) == len(set(shorts))
    assert all(s == s.lower() and " " not in s for s in shorts)


def test_MC3_multi_value_cards_keep_their_printed_values():
    multi = {c["id"]: speeds(c) for c in garage_cards() if len(speeds(c)) > 1}
    assert multi == {"U7": (1, 2, 3, 4), "U8": (1, 3), "U9": (2, 4), "U10": (1, 5), "U31": (1, 2)}
    assert (1, 4) not in multi.values()  # MC3: the ruling's "1 or 4" card is not a card


@pytest.mark.parametrize(
    ("upgrades", "expansions", "types", "heat"),
    [
        ("basic", [], 16, 2),
        ("advanced", [], 30, 2),
        ("all", [], 46, 4),
        ("advanced", ["heavy-rain"], 36, 2),
        ("all", ["heavy-rain", "tunnel-vision"], 58, 4),
        ("basic", ["heavy-rain", "tunnel-vision"], 16, 2),  # 18.2: the expansion upgrades are advanced
    ],
)
def test_18_3_MA13_garage_deck_two_of_each_type_in_play(upgrades, expansions, types, heat):
    options = GarageOptions.from_dict({"upgrades": upgrades, "expansions": expansions})
    deck = garage_deck(garage_cards(), options)
    assert deck.pop(HEAT) == heat
    assert len(deck) == types and set(deck.values()) == {2}
    assert set(race_cards(garage_cards(), options)) == set(deck)
    assert race_block(options) == {t: c for t, c in ((c["id"], c) for c in garage_cards()) if t in deck}
