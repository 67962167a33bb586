"""Cards as data (issue 11): the base cards come from heatlog/data/cards/base.json through the Catalogue; a race
reads the cards it can meet from its race_started, never from a file (# 1.1, 1.2, 4.2, 4.3, 11.1, 14.1)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from heatlog.engine import IllegalEvent, MalformedInput, apply
from heatlog.engine.cards import (
    BASE_CATALOGUE,
    BASIC,
    CARDS,
    DISCARDABLE,
    HEAT,
    PLAYABLE,
    STRESS,
    VALUE,
    CardDef,
    starting_deck,
)
from heatlog.formats.validation import validate_event
from heatlog.log.racelog import RaceLog
from heatlog.races import race_started_event
from heatlog.views.narrate import played_words

from .conftest import TRACK, board, ev

ROOT = Path(__file__).resolve().parents[2]
CARD_FILES = sorted((ROOT / "heatlog" / "data" / "cards").glob("*.json"))
CARS = [{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}]


def garage(n: int = 3) -> dict[str, dict]:
    cards = json.loads((ROOT / "heatlog" / "data" / "cards" / "garage.json").read_text())["cards"]
    return {c["id"]: c for c in cards if c["kind"] == "upgrade"}


@pytest.mark.parametrize("path", CARD_FILES, ids=lambda p: p.name)
def test_every_card_file_follows_the_card_schema(path: Path) -> None:
    schema = json.loads((ROOT / "schema" / "cards.schema.json").read_text())
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(json.loads(path.read_text())))
    assert not errors, [e.message for e in errors[:3]]


def test_1_1_the_base_meanings_come_from_the_data_file() -> None:
    # 1.1, 4.2, 4.3, 11.1, 14.1: the tokens and what they mean, as every log and golden file has them.
    assert CARDS == ("1", "2", "3", "4", "0", "5", "H", "S") == BASE_CATALOGUE.tokens
    assert BASIC == ("1", "2", "3", "4") and (HEAT, STRESS) == ("H", "S")
    assert set(CARDS) - {"H"} == PLAYABLE and set(CARDS) - {"H", "S"} == DISCARDABLE
    assert VALUE == {"1": 1, "2": 2, "3": 3, "4": 4, "0": 0, "5": 5}
    assert BASE_CATALOGUE[STRESS].symbol("boost") == 1  # # 5.2: one "+" flip
    assert BASE_CATALOGUE.name("H") == "Heat" and BASE_CATALOGUE.name("4") == '"4"'


def test_1_2_starting_deck_from_the_copies() -> None:
    # 1.2, 22.9: 3 of each Basic, the 0, the 5, the Heat upgrade and the circuit's Stress.
    deck = starting_deck()
    assert len(deck) == 18 and deck.count("S") == 3 and deck.count("H") == 1
    assert starting_deck(2).count("S") == 2


def test_the_event_schemas_card_is_the_catalogues_token_form_and_every_card_file_fits_it() -> None:
    """The door's card (schema/events/defs.schema.json) is the form of a catalogue token (cards.schema.json's
    id pattern), not a list of the base cards: module cards pass the door, and which cards a race has is its
    catalogue's (the rules check it)."""
    defs = json.loads((ROOT / "schema" / "events" / "defs.schema.json").read_text())["$defs"]["card"]
    ids = json.loads((ROOT / "schema" / "cards.schema.json").read_text())
    pattern = ids["$defs"]["card"]["properties"]["id"]["pattern"]
    assert "enum" not in defs and defs["pattern"] == pattern
    tokens = [c["id"] for path in CARD_FILES for c in json.loads(path.read_text())["cards"]]
    assert len(tokens) > 60 and all(re.fullmatch(pattern, t) for t in tokens)
    for token in ("U1", "P80", *BASE_CATALOGUE.tokens):  # a Garage upgrade, a sponsor, the base cards
        validate_event(ev("cards_revealed", car="A", cards=[token]))


def test_the_door_names_a_card_the_race_does_not_have_and_takes_a_module_card_its_catalogue_has(
    tmp_path: Path,
) -> None:
    # 4.1: the door refuses a token no card of the race has, naming the path and the race's cards; the same
    # token in a race whose catalogue has it is a card, refused (if at all) by the rules of play.
    start = race_started_event(track=TRACK, cars=CARS, laps=1, mode="table")
    with RaceLog(tmp_path / "cards.db") as log:
        base = log.new_race(start, grid=["A", "B"])
        garage_race = log.new_race({**start, "cards": garage()}, grid=["A", "B"])
        for race in (base, garage_race):
            for car in ("A", "B"):
                log.append(race, ev("deck_shuffled", car=car))
                log.append(race, ev("cards_drawn", car=car, count=7))
            log.append(race, ev("gear_chosen", car="A", gear=1))
            log.append(race, ev("gear_chosen", car="B", gear=1))
        before = len(log.stored(base))
        words = "cards[0]: 'U1' is not a card of this race (one of 1 2 3 4 0 5 H S)"
        with pytest.raises(MalformedInput, match=re.escape(words)) as err:
            log.append(base, ev("cards_revealed", car=log.project(base).state.turn.car, cards=["U1"]))
        assert f"race {base}" in str(err.value) and len(log.stored(base)) == before
        car = log.project(garage_race).state.turn.car
        with pytest.raises(IllegalEvent) as illegal:  # a card of this race: the hand cannot hold it (# 1.1, 4.1)
            log.append(garage_race, ev("cards_revealed", car=car, cards=["U1"]))
        assert "not a card" not in str(illegal.value)


def test_the_garage_model_fits_multi_speed_cards_and_numbered_symbols() -> None:
    # 18.6: a choice of speeds; symbols with their numbers.
    sponsors = json.loads((ROOT / "heatlog" / "data" / "cards" / "sponsors.json").read_text())["cards"]
    multi = CardDef.from_dict(next(c for c in sponsors if isinstance(c.get("speed"), list)))
    assert len(multi.speeds) > 1 and multi.value is None and multi.symbol("one_time") == 1
    up = CardDef.from_dict(garage()["U1"])
    assert up.speeds == (4,) and up.symbol("boost") == 1 and up.kind == "upgrade"


def test_a_race_embeds_the_cards_it_can_meet() -> None:
    """race_started.cards extends the base catalogue for that race only; the file is never read again."""
    block = garage()
    state = apply(None, ev("race_started", track=TRACK, laps=1, cars=CARS, cards=block))
    assert state.cards.tokens[:8] == CARDS and "U1" in state.cards.token_set
    assert state.cards["U1"].name == block["U1"]["name"] and state.copy().cards is state.cards
    base = apply(None, ev("race_started", track=TRACK, laps=1, cars=CARS))
    assert base.cards is BASE_CATALOGUE


def test_an_unknown_card_is_malformed_in_a_base_race_and_known_in_a_garage_race() -> None:
    # 4.1: a card that is not in the hand cannot be played; a token no card of the race has is not a card.
    race = board({"A": {"at": 25, "hand": "0123412"}, "B": {"at": 9, "hand": "3212341"}})
    race.gears(A=1, B=1)
    with pytest.raises(MalformedInput, match=r"cards\[0\]: 'U1' is not a card of this race \(one of 1 2 3 4 0 5 H S\)"):
        apply(race.state, ev("cards_played", car="A", cards=["U1"]))
    race.state.cards = BASE_CATALOGUE.with_block(garage())
    race.reject("cards_played", car="A", cards=["U1"], rule="4.1")


def test_a_block_cannot_redefine_a_base_card_or_add_a_heat_type() -> None:
    with pytest.raises(MalformedInput, match="is a base card"):
        apply(
            None,
            ev(
                "race_started",
                track=TRACK,
                laps=1,
                cars=CARS,
                cards={"4": {"id": "4", "name": "x", "kind": "basic", "speed": 9, "symbols": {}, "copies": 1}},
            ),
        )
    with pytest.raises(MalformedInput, match="Heat and Stress"):
        apply(
            None,
            ev(
                "race_started",
                track=TRACK,
                laps=1,
                cars=CARS,
                cards={"U17": {"id": "U17", "name": "x", "kind": "heat", "symbols": {}, "copies": 1}},
            ),
        )


def test_error_texts_and_narration_name_cards_by_the_races_catalogue() -> None:
    # 7.5, 14.1: a flip naming a card that is not on top of the known deck is refused; the message names the
    # cards as the race's catalogue does (an upgrade by its name, a speed card by its token).
    block = garage()
    race = board({"A": {"at": 25, "hand": "0123412"}, "B": {"at": 9, "hand": "3212341", "deck": "2 1234"}})
    race.state.cards = BASE_CATALOGUE.with_block(block)
    race.round(A=(1, "0"), B=(1, "3"))
    race.turns_until("B").ev("boost", car="B")
    err = race.reject("card_flipped", car="B", card="U1", rule="5.2")
    assert f'deck is "2", not {block["U1"]["name"]}' in str(err)
    turn = race.turn
    turn.played = ["U1", "S"]
    turn.stress_found = ["3"]
    assert played_words(turn, race.state.cards) == f"{block['U1']['name']} Stress→3"
    assert played_words(turn) == "U1 Stress→3"  # the base catalogue knows no U1: the bare token
