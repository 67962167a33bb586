"""The recorder's Garage words (# 18.5): typed card names, Tab completion, the draft's questions and echoes."""

from __future__ import annotations

import pytest

from heatlog.engine import AmbiguousInput, MalformedInput
from heatlog.engine.modules.garage.cards import Draft, GarageOptions, garage_deck
from heatlog.formats.garage_cards import garage_cards, race_block
from heatlog.recorder.garage import draft_event, draft_prompt, parse_garage_cards, says

OPTIONS = GarageOptions(upgrades="basic", draft="snake")
CARDS = race_block(OPTIONS)


def test_typed_names():
    assert parse_garage_cards("brakes1234, cool6  heat U16", CARDS) == ["U7", "U11", "H", "U16"]
    assert parse_garage_cards("body5 4wd4", CARDS) == ["U5", "U1"]
    with pytest.raises(AmbiguousInput):
        parse_garage_cards("cool", CARDS)
    with pytest.raises(MalformedInput):
        parse_garage_cards("turbo8", CARDS)  # an advanced card is not in a basic race


def test_18_5_the_snake_draft_asked_and_answered():
    draft = Draft.start("snake", ("Red", "Blue"), garage_deck(garage_cards(), OPTIONS))
    prompt, car, words = draft_prompt(draft, CARDS)
    assert prompt == "Garage market, round 1: the 7 cards revealed" and car is None and "brakes1234" in words
    ev = draft_event(draft, CARDS, "4wd4 4wd0boost3 body3 body5 brakes13 brakes24 heat")
    draft.apply(ev)
    assert says(ev, CARDS) == "Garage market round 1: 4wd4, 4wd0boost3, body3, body5, brakes13, brakes24, heat"
    prompt, car, words = draft_prompt(draft, CARDS)
    assert car == "Blue" and prompt.startswith("Blue picks one of 4wd4 4wd0boost3 body3")
    assert words == ("4wd4", "4wd0boost3", "body3", "body5", "brakes13", "brakes24", "heat")
    ev = draft_event(draft, CARDS, "brakes2")
    assert ev == {"type": "upgrade_picked", "v": 1, "car": "Blue", "card": "U9"}
    assert says(ev, CARDS) == "Blue picks Brakes (speed 2/4)"
    with pytest.raises(ValueError, match="one card"):
        draft_event(draft, CARDS, "body3 body5")
