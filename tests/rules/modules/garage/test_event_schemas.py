"""The Garage's set-up events as JSON Schemas (schema/events/garage/), checked at the door like base events
(# 18.5: the market, each pick, the snake draft's removal, a random deal)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from heatlog.engine.errors import MalformedInput
from heatlog.engine.modules.garage.cards import Draft, GarageOptions, garage_deck
from heatlog.formats.garage_cards import garage_cards
from heatlog.formats.validation import validate_against

SCHEMAS = Path(__file__).resolve().parents[4] / "schema" / "events" / "garage"
TYPES = ("garage_market", "upgrade_picked", "upgrade_removed", "upgrades_dealt")


def schema(t: str) -> dict:
    return json.loads((SCHEMAS / f"{t}.schema.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("etype", TYPES)
def test_18_5_examples_validate_and_the_draft_reads_them(etype):
    s = schema(etype)
    assert s["additionalProperties"] is False and "# 18.5" in s["description"]
    for ex in s["examples"]:
        validate_against(f"events/garage/{etype}", ex)
    # every example is an event the draft machine accepts at the right moment
    d = Draft.start(
        {"upgrades_dealt": "random", "upgrade_removed": "snake"}.get(etype, "draft"),
        ("Red", "Blue"),
        garage_deck(garage_cards(), GarageOptions()),
    )
    if etype == "upgrades_dealt":
        d.apply(copy.deepcopy(s["examples"][0]))
        assert d.owned["Blue"] == ["U3", "U9", "H"]
    elif etype == "garage_market":
        d.apply({"type": "garage_market", "v": 1, "round": 1, "cards": ["U1", "U7", "U12", "U16", "H"]})
        assert d.waiting() == ("upgrade_picked", ("Blue",))


@pytest.mark.parametrize(
    ("etype", "bad"),
    [
        ("upgrade_picked", {"type": "upgrade_picked", "v": 1, "car": "Red", "card": "U61"}),
        ("upgrade_picked", {"type": "upgrade_picked", "v": 1, "car": "Red", "card": "4"}),
        ("upgrade_picked", {"type": "upgrade_picked", "v": 1, "car": "Red"}),
        ("upgrade_picked", {"type": "upgrade_picked", "v": 1, "car": "Red", "card": "U1", "extra": 1}),
        ("garage_market", {"type": "garage_market", "v": 1, "round": 4}),
        ("garage_market", {"type": "garage_market", "v": 1, "round": 1, "cards": []}),
        ("upgrades_dealt", {"type": "upgrades_dealt", "v": 1, "car": "Red", "cards": ["U1", "U2"]}),
        ("upgrade_removed", {"type": "upgrade_removed", "v": 2, "car": "Red", "card": "U1"}),
    ],
)
def test_malformed_garage_events_are_refused_at_the_door(etype, bad):
    with pytest.raises(MalformedInput):
        validate_against(f"events/garage/{etype}", bad)
