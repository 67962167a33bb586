"""The Championship as pure rules (MODULES.md 21): the published seasons and event cards as data, what an event
card does to a race's set-up, press corners and the cards they give, points, standings, the next grid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heatlog.engine.errors import MalformedInput
from heatlog.engine.modules.championship.rules import (
    EventCard,
    RaceResult,
    draft_order,
    next_grid,
    press_cards_earned,
    press_lines,
    race_points,
    race_values,
    standings,
)
from heatlog.formats.championship import championship_data, event_card, published_season, season_names
from heatlog.formats.tracks import load_track

REFERENCE = Path(__file__).resolve().parents[4] / "shared" / "reference" / "championship.json"
CIRCUIT = {"gb": "great-britain", "italia": "italy", "espana": "spain", "nederland": "netherlands"}


def test_21_1_the_published_seasons_are_the_reference_transcribed() -> None:
    """1961–1963 base game (3, 3, 4 races), 1964 Heavy Rain, 1965 Tunnel Vision (4 each); circuits, event
    cards, sponsorship counts (# 21.4) and press letters (# 21.6) as the reference has them."""
    assert season_names() == ["1961", "1962", "1963", "1964", "1965"]
    assert [len(published_season(s)) for s in season_names()] == [3, 3, 4, 4, 4]
    if not REFERENCE.exists():
        pytest.skip("shared/reference is not beside this clone")
    ref = json.loads(REFERENCE.read_text(encoding="utf-8"))
    for name, races in ref["seasons"].items():
        assert [(t, e.number) for t, e in published_season(name)] == [
            (CIRCUIT.get(r["circuit"], r["circuit"]), r["event_id"]) for r in races
        ]
    for number, card in ref["events"].items():
        ours = event_card(int(number))
        assert (ours.name, ours.sponsor_cards, list(ours.press)) == (
            card["name"],
            card["sponsor_cards"],
            card["press_letters"],
        )


def test_MC6_1961_race_1_has_press_corner_A_only() -> None:
    track, card = published_season("1961")[0]
    assert (track, card.number, card.press) == ("great-britain", 1, ("A",))
    assert [c.after_space for c in press_lines(load_track(track), card)] == [15]


def test_unknown_season_and_card_are_named() -> None:
    with pytest.raises(MalformedInput, match="1966.*1961, 1962"):
        published_season("1966")
    with pytest.raises(MalformedInput, match="unknown event card 19"):
        event_card(19)


def test_21_8_22_9_event_cards_change_the_circuit_values() -> None:
    """Circuit values (# 22.9) changed by the card (# 21.8)."""
    italy, gb, france, netherlands = (load_track(t) for t in ("italy", "great-britain", "france", "netherlands"))
    assert race_values(italy, event_card(3)).laps == 2  # Drivers' strike: one lap fewer
    assert race_values(italy, event_card(4)).heat == 7  # Engine restrictions lifted: +1 Heat
    crowds = race_values(gb, event_card(5))  # Record crowds: one lap more, hand size 8
    assert (crowds.laps, crowds.hand_size) == (3, 8)
    safety = race_values(france, event_card(9))  # New safety regulations: −2 Heat, −1 Stress, hand 6
    assert (safety.heat, safety.stress, safety.hand_size) == (4, 2, 6)
    assert race_values(italy, event_card(10)).stress == 4  # Title sponsor withdraws: +1 Stress
    assert race_values(netherlands, event_card(18)).laps == 4  # The pressure cooker: one lap more
    plain = race_values(load_track("usa"), event_card(7))  # New title sponsor: nothing but 3 sponsors
    assert (plain.laps, plain.heat, plain.stress, plain.hand_size) == (2, 6, 3, 7)
    assert event_card(7).sponsor_cards == 3  # # 21.4


def test_21_8_every_event_cards_effect_is_data() -> None:
    cards = {n: event_card(n) for n in range(1, 19)}
    assert cards[1].first_across_lap_1 == 3  # # 21.9
    assert cards[2].speed_record == 15
    assert cards[3].winner_bonus == 2 and cards[6].podium_bonus == 1
    assert cards[8].passes_for_card == 3  # MA22
    assert cards[10].spinout_eliminates  # MA21
    assert cards[11].press_cards == 2
    assert cards[12].slipstream_gears == (3, 4)
    assert cards[13].discard_heat and cards[17].discard_stress  # tunnels still win, # 21.13, 22.6
    assert cards[14].no_adrenaline
    assert cards[15].max_discard == 1
    assert cards[16].press_below_limit
    assert cards[18].lap_heat_removed  # MA23
    assert all(c.hand_size == 7 for n, c in cards.items() if n not in (5, 9))  # MA26 reads the changed size


def test_21_6_22_3_press_letters_wrap_and_sit_on_a_chicanes_second_line() -> None:
    italy = load_track("italy")  # three lettered corners: E is index 4 → 4 mod 3 = 1 → B
    assert [c.after_space for c in press_lines(italy, event_card(4))] == [19]
    japan = load_track("japan")  # chicane 10/12: letter A is on the second line
    assert [c.after_space for c in press_lines(japan, EventCard(0, "x", press=("A",)))] == [12]
    spain = load_track("spain")  # Spain's explicit list: A..E on 15, 32, 65, 85, 98
    assert [c.after_space for c in press_lines(spain, event_card(17))] == [15, 65]
    assert press_lines(japan, event_card(14)) == []  # no press corner in this race


def test_21_7_MA4_press_corner_needs_limit_plus_two_or_a_slipstream() -> None:
    card = event_card(1)

    def earned(speed: int, slip: bool = False, spun: bool = False, c: EventCard = card) -> int:
        return press_cards_earned(speed=speed, limit=5, slipstreamed_across=slip, spun_out=spun, event=c)

    assert earned(7) == 1 and earned(6) == 0  # limit (after road tokens, not Adjust: MA4) + 2
    assert earned(3, slip=True) == 1  # a slipstream across the line earns at any Speed
    assert earned(9, slip=True) == 1  # one card per press corner per crossing, both conditions or not


def test_MA3_a_draft_crossing_is_not_a_slipstream_crossing() -> None:
    # the caller passes slipstreamed_across=False for a Draft move: only the Speed test applies
    assert press_cards_earned(speed=4, limit=5, slipstreamed_across=False, spun_out=False, event=event_card(1)) == 0


def test_MA18_a_spinout_that_turn_cancels_the_sponsorship() -> None:
    assert press_cards_earned(speed=12, limit=5, slipstreamed_across=True, spun_out=True, event=event_card(1)) == 0


def test_21_8_events_11_and_16_change_what_a_press_corner_gives() -> None:
    assert press_cards_earned(speed=7, limit=5, slipstreamed_across=False, spun_out=False, event=event_card(11)) == 2
    smile = event_card(16)  # only below the limit, slipstream or not
    assert press_cards_earned(speed=4, limit=5, slipstreamed_across=False, spun_out=False, event=smile) == 1
    assert press_cards_earned(speed=7, limit=5, slipstreamed_across=True, spun_out=False, event=smile) == 0


def test_21_10_MA12_points_per_place_bonuses_and_eliminations() -> None:
    places = ["A", "B", "C", "D", "E", "F", "G"]
    plain = race_points(places, event_card(7))
    assert plain == {"A": 9, "B": 6, "C": 4, "D": 3, "E": 2, "F": 1, "G": 0}  # beyond 6th: 0 (MA12)
    assert race_points(places, event_card(3))["A"] == 11  # Drivers' strike: winner +2
    corrupt = race_points(places, event_card(6))  # Corruption: top three +1
    assert [corrupt[n] for n in "ABCD"] == [10, 7, 5, 3]
    out = race_points(["A", "B", "C"], event_card(10), eliminated=frozenset({"C"}))
    assert out["C"] == 0  # eliminated by event 10 (MA21): 0 points whatever its place


def test_21_10_standings_tie_broken_by_the_last_race() -> None:
    first = RaceResult(("A", "B", "C"), points={"A": 9, "B": 6, "C": 4})
    second = RaceResult(("B", "C", "A"), points={"B": 9, "C": 6, "A": 4})
    table = standings(["A", "B", "C"], [first, second])
    assert [(s.name, s.points) for s in table] == [("B", 15), ("A", 13), ("C", 10)]
    tie = RaceResult(("C", "A", "B"), points={"C": 9, "A": 6, "B": 4})
    table = standings(["A", "B", "C"], [first, tie])
    assert [(s.name, s.points, s.last_place) for s in table] == [("A", 15, 2), ("C", 13, 1), ("B", 10, 3)]
    assert [s.wins for s in table] == [1, 1, 0]
    assert table[0].per_race == (9, 6)


def test_21_12_MA11_next_grid_is_the_standings_and_the_draft_starts_with_the_last() -> None:
    table = standings(["A", "B", "C"], [RaceResult(("C", "A", "B"), points={"C": 9, "A": 6, "B": 4})])
    assert next_grid(table) == ["C", "A", "B"]  # leader on pole
    assert next_grid(table, "random") is None  # configurable (MA11): the race's own random grid (# 1.4)
    assert draft_order(table) == ["B", "A", "C"]  # # 21.2: lowest-ranked picks first
    with pytest.raises(ValueError, match="unknown grid rule"):
        next_grid(table, "reverse")


def test_championship_file_is_complete() -> None:
    data = championship_data()
    assert data["points"] == [9, 6, 4, 3, 2, 1]
    assert sorted(map(int, data["events"])) == list(range(1, 19))


def test_22_7_22_8_what_heavy_rain_and_tunnel_vision_add() -> None:
    """Heavy Rain: Japan and Mexico, Super Cool upgrades, the E.Mercury sponsorship card, events 11–14 and the
    1964 season; Tunnel Vision: Spain and the Netherlands, Draft upgrades, Eole Wings, events 15–18, 1965."""
    from heatlog.formats.garage_cards import garage_cards, sponsor_cards

    data = championship_data()
    sets = {n: e["set"] for n, e in data["events"].items()}
    assert [n for n, s in sets.items() if s == "heavy-rain"] == ["11", "12", "13", "14"]
    assert [n for n, s in sets.items() if s == "tunnel-vision"] == ["15", "16", "17", "18"]
    assert data["seasons"]["1964"]["set"] == "heavy-rain" and data["seasons"]["1965"]["set"] == "tunnel-vision"
    assert {t for t, _ in published_season("1964")} == {"japan", "france", "mexico"}
    assert {"spain", "netherlands"} <= {t for t, _ in published_season("1965")}
    assert load_track("japan").flooded and load_track("spain").tunnel
    rain = [c for c in garage_cards() if c.get("set") == "Heavy Rain" or c.get("set") == "heavy-rain"]
    tunnel = [c for c in garage_cards() if c.get("set") in ("Tunnel Vision", "tunnel-vision")]
    assert rain and all("super_cool" in c["symbols"] for c in rain if c["kind"] == "upgrade")
    assert tunnel and all("draft" in c["symbols"] for c in tunnel if c["kind"] == "upgrade")
    sponsors = {c["name"]: c for c in sponsor_cards()}
    mercury = sponsors["E.Mercury air system"]
    assert (mercury["set"], mercury["symbols"]["super_cool"]) == ("heavy-rain", 2)
    eole = sponsors["Eole Wings Industries"]
    assert (eole["set"], eole["speed"], eole["symbols"]["draft"]) == ("tunnel-vision", 5, 2)
