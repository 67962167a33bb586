"""Seasons with the Garage and the sponsorship cards (MODULES.md 21.2, 21.4, 21.5, 21.11, MA7, MA11): every race
lists the Garage and holds the season's draft and sponsorship deck in its championship block; before each race
one upgrade is drafted (the race's Garage phase, recorded and checked like every event); the upgrades and the
sponsorship cards kept carry into the next race; simulated seasons draft with bots; the ``heatlog season`` commands
drive it through the real entry point."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from test_cli import run

from heatlog.engine import IllegalEvent, apply
from heatlog.engine.decide import decisions, waiting_for
from heatlog.engine.module import MODULES as UNITS
from heatlog.engine.modules.championship.rules import sponsor_deck
from heatlog.engine.modules.garage import garage_slot
from heatlog.engine.modules.garage.cards import GarageOptions, garage_deck
from heatlog.engine.modules.garage.season import draft_setup
from heatlog.engine.modules.weather import weather_tile
from heatlog.formats.garage_cards import garage_cards
from heatlog.log.racelog import RaceLog
from heatlog.log.season_view import season_files
from heatlog.season import (
    audit_season,
    enter_race,
    export_season,
    import_season,
    new_season,
    next_race,
    race_setup,
    season_view,
    simulate_season,
    unapplied_effects,
)

DRIVERS = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}, {"name": "Cy", "colour": "green"}]
BASIC = garage_deck(garage_cards(), GarageOptions("basic"))  # 16 types x 2 and 2 Heat cards (# 18.3, MA13)


@pytest.fixture
def log(tmp_path: Path) -> RaceLog:
    return RaceLog(tmp_path / "s.db")


def garage_season(log: RaceLog, **garage: Any) -> int:
    return new_season(
        log, drivers=DRIVERS, published="1961", mode="open", modules={"garage": {"upgrades": "basic", **garage}}
    )


def add(log: RaceLog, race: int, kind: str, **fields: Any) -> None:
    log.append(race, {"type": kind, "v": 1, **fields})


def state(log: RaceLog, race: int) -> Any:
    return log.project(race).state


# ---------------------------------------------------------------------------------------------- the races' set-up


def test_21_2_21_4_a_garage_season_race_lists_the_garage_and_holds_the_draft_and_the_sponsorship_deck(
    log: RaceLog,
) -> None:
    season = garage_season(log)
    race = next_race(log, season, seed=4)
    start = log.store.events(race)[0].event
    assert start["modules"] == ["garage", "championship"]  # the Garage first: the season's draft replaces its own
    assert start["garage"] == {"upgrades": "basic", "draft": "draft", "expansions": []}
    assert {t for t in start["cards"] if t.startswith("P")} == {"P80", "P81", "P82", "P83", "P84"}  # # 21.5
    block = start["championship"]
    assert block["garage"] == {"owned": {}, "deck": BASIC, "order": "lowest_first", "swap": True}  # race 1: no picks
    assert block["sponsors"] == {
        "deck": dict.fromkeys(["P80", "P81", "P82", "P83", "P84"], 7),
        "carried": {},
        "used": {},
    }
    assert unapplied_effects(season_view(log, season).races[0].event, 2, sponsors=True) == []  # event 1 in full
    assert audit_season(log, season) == []


def test_21_5_the_expansions_sponsorship_cards_come_with_their_upgrades(log: RaceLog) -> None:
    season = new_season(
        log, drivers=DRIVERS, published="1964", modules={"garage": {"upgrades": "all", "expansions": ["heavy-rain"]}}
    )
    start = log.store.events(next_race(log, season, seed=1))[0].event
    assert sorted(start["championship"]["sponsors"]["deck"]) == ["P80", "P81", "P82", "P83", "P84", "P85"]
    assert "P85" in start["cards"] and "P86" not in start["cards"]


def test_21_2_MA11_the_draft_is_one_round_from_the_last_car_then_the_first_pickers_swap(log: RaceLog) -> None:
    season = garage_season(log)
    race = next_race(log, season, seed=4)
    grid = state(log, race).grid  # # 21.2: race 1's order is the grid's, the car last on it picks first
    assert state(log, race).phase == "garage" and waiting_for(state(log, race)).due == "garage_market"
    stored = len(log.store.events(race))
    with pytest.raises(IllegalEvent, match="shows 6 cards, not 5"):  # # 21.2: players + 3
        add(log, race, "garage_market", round=1, cards=["U1", "U2", "U3", "U4", "U5"])
    add(log, race, "garage_market", round=1, cards=["U1", "U2", "U3", "U4", "U5", "U6"])
    with pytest.raises(IllegalEvent, match=f"it is {grid[-1]}'s pick"):
        add(log, race, "upgrade_picked", car=grid[0], card="U1")
    with pytest.raises(IllegalEvent) as refused:  # issue 29: by name, "U7 is not in the market (it holds U1 …)"
        add(log, race, "upgrade_picked", car=grid[-1], card="U7")
    assert refused.value.message.startswith(
        "Brakes 1/2/3/4 is not in the market (it holds 4 wheel drive 4, 4 wheel drive 0 (4wd0boost3), "
    ), refused.value.message
    for name, card in zip(reversed(grid), ("U1", "U2", "U3"), strict=True):
        add(log, race, "upgrade_picked", car=name, card=card)
    first = grid[-1]
    st = state(log, race)
    assert waiting_for(st).due == "upgrade_swapped" and waiting_for(st).cars == [first]
    options = decisions(st, first)
    assert {"type": "upgrade_swapped", "v": 1, "car": first} in options
    assert {"type": "upgrade_swapped", "v": 1, "car": first, "give": "U1", "take": "U6"} in options
    with pytest.raises(IllegalEvent, match=f"only {first}, who picked first"):
        add(log, race, "upgrade_swapped", car=grid[0], give="U3", take="U6")
    # issue 29: the draft's refusals name the cards as people know them (name and speed; the short name the
    # recorder takes where another card has both), never by their code (U1, U2)
    with pytest.raises(IllegalEvent) as refused:
        add(log, race, "upgrade_swapped", car=first, give="U1", take="U2")
    words = refused.value.message
    assert words.startswith("4 wheel drive 0 (4wd0boost3) is not left in the market (it holds "), words
    assert "U2" not in words and "U4" not in words
    with pytest.raises(IllegalEvent) as refused:
        add(log, race, "upgrade_swapped", car=first, give="U4", take="U6")
    assert refused.value.message == f"{first} has no Body 3: it holds 4 wheel drive 4", refused.value
    assert len(log.store.events(race)) == stored + 4  # every refusal wrote nothing
    add(log, race, "upgrade_swapped", car=first, give="U1", take="U6")
    st = state(log, race)
    assert garage_slot(st).owned == {first: ["U6"], grid[1]: ["U2"], grid[0]: ["U3"]}
    assert st.phase == "sponsors"  # then the event's sponsorship cards (# 21.4), then the deal
    assert st.cars[first].pool["U6"] == 1 and st.cars[first].deck_size == 12 + 1 + 3  # 12 Basic + 1 + Stress


def test_MA11_leader_first_and_no_swap_are_season_options(log: RaceLog) -> None:
    season = garage_season(log, order="leader_first", swap=False)
    assert season_view(log, season).options["garage"] == {
        "upgrades": "basic",
        "expansions": [],
        "order": "leader_first",
        "swap": False,
    }
    race = next_race(log, season, seed=4)
    grid = state(log, race).grid
    add(log, race, "garage_market", round=1, cards=["U1", "U2", "U3", "U4", "U5", "U6"])
    for name, card in zip(grid, ("U1", "U2", "U3"), strict=True):  # pole picks first
        add(log, race, "upgrade_picked", car=name, card=card)
    assert state(log, race).phase == "sponsors"  # no swap


def test_21_2_a_race_whose_draft_names_other_cars_is_refused_not_a_crash(log: RaceLog) -> None:
    season = garage_season(log)
    view = season_view(log, season)
    ev, _ = race_setup(view, 1, seed=1)
    ev = copy.deepcopy(ev)
    ev["championship"]["garage"]["picks"] = ["Ann", "Bob", "Zed"]
    st = apply(None, ev)
    with pytest.raises(IllegalEvent, match="the season's upgrade draft is for"):
        apply(st, {"type": "grid_set", "v": 1, "order": ["Ann", "Bob", "Cy"]})


# ---------------------------------------------------------------------------------------------- what carries over


def test_21_11_MA7_upgrades_and_sponsorship_cards_carry_into_the_next_race(log: RaceLog) -> None:
    season = simulate_season(log, published="1963", cars=DRIVERS, seed=3, modules={"garage": {"upgrades": "basic"}})
    view = season_view(log, season)
    assert view.over and audit_season(log, season) == []
    kept_any = False
    for prev, sr in zip(view.races, view.races[1:], strict=False):
        assert sr.race is not None
        start = log.store.events(sr.race)[0].event
        block = start["championship"]
        # # 21.11: the upgrades bought stay; # 21.2: one more each race
        assert block["garage"]["owned"] == {n: cs for n, cs in prev.upgrades.items() if cs}
        assert all(len(cs) == sr.index for cs in sr.upgrades.values())
        assert all(set(prev.upgrades[n]) <= set(sr.upgrades[n]) or n == _swapper(log, sr.race) for n in sr.upgrades)
        # MA7 (BGA's reading, the default): the sponsorship cards still owned stay in the deck
        assert block["sponsors"]["carried"] == {n: cs for n, cs in prev.sponsors.items() if cs}
        assert block["sponsors"]["used"] == prev.sponsors_used
        first = log.project(sr.race, upto_seq=2).state  # the race before its draft: the carried cards in the decks
        for name, cards in block["sponsors"]["carried"].items():
            kept_any = True
            for card in set(cards):
                assert first.cars[name].pool[card] == cards.count(card)
        # every sponsorship card is in the supply, out of the game (used) or held: never two of them
        deck = sponsor_deck(state(log, sr.race))
        assert deck is not None
        held = [c for n in sr.sponsors for c in sr.sponsors[n]]
        for card, copies in block["sponsors"]["deck"].items():
            assert deck.supply.get(card, 0) + deck.used.get(card, 0) + held.count(card) == copies
    assert kept_any, "no sponsorship card was carried: the test would prove nothing"


def _swapper(log: RaceLog, race: int) -> str | None:
    swaps = [e.event for e in log.store.events(race) if e.event["type"] == "upgrade_swapped" and "give" in e.event]
    return swaps[0]["car"] if swaps else None


def test_MA7_without_carry_over_the_cards_go_back_to_the_supply(log: RaceLog) -> None:
    roster = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}]
    season = new_season(
        log,
        drivers=roster,
        published="1961",
        mode="open",
        sponsors_carry_over=False,
        modules={"garage": {"upgrades": "basic"}},
    )
    _play_race(log, season, 1)
    view = season_view(log, season)
    assert any(view.races[0].sponsors.values()), "nobody kept a sponsorship card: the test proves nothing"
    ev, _ = race_setup(view, 2)
    assert ev["championship"]["sponsors"]["carried"] == {}
    st = apply(None, ev)
    assert all(st.cars[n].pool.get(c, 0) == 0 for n in ("Ann", "Bob") for c in ev["championship"]["sponsors"]["deck"])


def _play_race(log: RaceLog, season: int, index: int) -> int:
    from heatlog.simulate import bot_names, store_race
    from heatlog.simulate.world import play

    view = season_view(log, season)
    ev, order = race_setup(view, index, 5)
    bots = bot_names("heuristic", [d["name"] for d in view.drivers])  # (the swap: the championship's policy)
    events, _ = play(ev, bots, 5, grid=order)
    race = store_race(log, events)
    enter_race(log, season, index, race)
    return race


def test_21_2_the_season_has_one_garage_deck_and_the_drafts_leftovers_go_to_the_box(log: RaceLog) -> None:
    six = [
        {"name": n, "colour": c}
        for n, c in zip("ABCDEF", ("red", "blue", "green", "yellow", "black", "gray"), strict=True)
    ]
    season = simulate_season(log, published="1963", cars=six, seed=1, modules={"garage": {"upgrades": "basic"}})
    view = season_view(log, season)
    assert view.over
    for sr in view.races:
        setup = draft_setup(view, sr.index, season_files(UNITS["garage"]))  # its season hook's (Module.season)
        owned = [c for cs in setup.owned.values() for c in cs]
        if sr.index < 4:  # 34 cards: 9 per market; races 2 and 3 draw from what is neither owned nor in the box
            box: dict[str, int] = {}
            for before in view.races[: sr.index - 1]:
                for c, n in (before.box or {}).items():
                    box[c] = box.get(c, 0) + n
            assert sum(setup.deck.values()) == 34 - len(owned) - sum(box.values())
            for c, n in box.items():
                assert setup.deck.get(c, 0) <= BASIC[c] - n
        else:  # race 4: 34 - 18 owned - 18 in the box < 9: the box is shuffled back in (BGA's autoreshuffle)
            assert sum(setup.deck.values()) == 34 - len(owned)
        first = log.store.events(sr.race)[0].event
        assert first["championship"]["garage"]["deck"] == setup.deck


def test_21_12_MA11_later_drafts_pick_from_the_last_in_the_standings(log: RaceLog) -> None:
    season = simulate_season(log, published="1961", cars=DRIVERS, seed=2, modules={"garage": {"upgrades": "basic"}})
    view = season_view(log, season)
    for sr in view.races[1:]:
        table = view.tables[sr.index - 2]
        picks = [e.event["car"] for e in log.store.events(sr.race) if e.event["type"] == "upgrade_picked"]
        assert picks == [s.name for s in reversed(table)]


# ---------------------------------------------------------------------------------------------- the audit, files


def test_21_11_a_race_that_does_not_carry_what_the_season_says_is_not_entered(log: RaceLog) -> None:
    season = garage_season(log)
    _play_race(log, season, 1)
    view = season_view(log, season)
    ev, grid = race_setup(view, 2)
    wrong = copy.deepcopy(ev)
    name = grid[0]
    wrong["championship"]["garage"]["owned"][name] = [*view.races[0].upgrades[name], "U16"]  # one the season never gave
    race = log.new_race(wrong, grid=grid)
    with pytest.raises(IllegalEvent, match="the championship block differs from the season's in garage"):
        enter_race(log, season, 2, race)
    cheat = copy.deepcopy(ev)
    cheat["championship"]["sponsors"]["carried"] = {name: ["P83", "P83"]}  # sponsorship cards nobody kept
    with pytest.raises(IllegalEvent, match="differs from the season's in sponsors"):
        enter_race(log, season, 2, log.new_race(cheat, grid=grid))
    assert season_view(log, season).next_index == 2 and audit_season(log, season) == []


def test_a_garage_season_file_round_trips_byte_identical(log: RaceLog, tmp_path: Path) -> None:
    season = simulate_season(log, published="1961", cars=DRIVERS, seed=4, modules={"garage": {"upgrades": "basic"}})
    text = export_season(log, season)
    other = RaceLog(tmp_path / "again.db")
    imported = import_season(other, text)
    assert export_season(other, imported) == text
    assert [r.upgrades for r in season_view(other, imported).races] == [
        r.upgrades for r in season_view(log, season).races
    ]


# ---------------------------------------------------------------------------------------------- the CLI


def test_the_season_commands_drive_a_garage_season_end_to_end(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    r = run(
        "season",
        "new",
        "--published",
        "1961",
        "--car",
        "Ann:red",
        "--car",
        "Bob:blue",
        "--car",
        "Cy:green",
        "--garage",
        "basic",
        "--mode",
        "open",
        db=db,
    )
    assert r.returncode == 0, r.stderr
    r = run("season", "next", "1", "--seed", "4", db=db)
    assert r.returncode == 0, r.stderr
    assert "the upgrade draft (# 21.2) waits for garage market" in r.stdout
    race = r.stdout.strip().splitlines()[-1]
    grid = json.loads(run("position", "-r", race, db=db).stdout)["grid"]
    steps = [{"type": "garage_market", "v": 1, "round": 1, "cards": ["U1", "U2", "U3", "U4", "U5", "U6"]}]
    steps += [
        {"type": "upgrade_picked", "v": 1, "car": n, "card": c}
        for n, c in zip(grid[::-1], ["U1", "U2", "U3"], strict=True)
    ]
    steps.append({"type": "upgrade_swapped", "v": 1, "car": grid[-1], "give": "U1", "take": "U5"})
    for step in steps:
        r = run("add", "-r", race, json.dumps(step), db=db)
        assert r.returncode == 0, r.stderr
    assert "sponsorship card (# 21.4, 21.7)" in r.stdout  # what the race waits for next, in words
    r = run("play-on", "--race", race, "--seed", "1", db=db)
    assert r.returncode == 0, r.stderr
    r = run("season", "next", "1", db=db)
    assert r.returncode == 0, r.stderr
    assert f"  {grid[-1]}: upgrades body5;" in r.stdout  # the swapped upgrade carried into race 2 (# 21.11)
    data = json.loads(run("season", "show", "1", "--json", db=db).stdout)
    assert data["garage"]["upgrades"] == "basic"
    assert data["upgrades"] == {grid[-1]: ["U5"], grid[1]: ["U2"], grid[0]: ["U3"]}
    assert data["races"][1]["not_applied"] == []
    assert run("season", "audit", "1", db=db).returncode == 0


def test_simulate_season_with_the_garage_through_the_cli(tmp_path: Path) -> None:
    r = run(
        "simulate",
        "--season",
        "1961",
        "--cars",
        "3",
        "--garage",
        "basic",
        "--seed",
        "2",
        "--json",
        db=tmp_path / "sim.db",
    )
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["over"] and all(len(ups) == 3 for ups in data["upgrades"].values())  # one upgrade per race
    r = run("simulate", "--season", "1961", "--garage", "basic", "--draft", "snake", db=tmp_path / "sim.db")
    assert r.returncode != 0 and "one upgrade before each race" in r.stderr


# ---------------------------------------------------------------------------------------------- the weather (# 21.3)


def test_21_3_a_season_with_the_weather_reveals_it_after_the_draft_in_every_race(tmp_path: Path) -> None:
    """# 21.3: the weather and road conditions are revealed only after the upgrade choice (BGA plays every
    championship race with them): a season made with --weather lists the weather in each race's modules, its
    tile is drawn after the last pick of the draft, and the season's audit agrees. Without it, no weather."""
    db = tmp_path / "w.db"
    r = run("simulate", "--season", "1961", "--cars", "3", "--garage", "basic", "--weather", "--seed", "4", db=db)
    assert r.returncode == 0, r.stderr
    log = RaceLog(db)
    view = season_view(log, 1)
    assert view.options["weather"] is True
    assert len(view.races) == 3 and all(sr.race is not None for sr in view.races)
    for sr in view.races:
        events = [e.event for e in log.project(sr.race).effective.entries]
        assert events[0]["modules"] == ["garage", "weather", "championship"]
        kinds = [e["type"] for e in events]
        last_pick = max(i for i, k in enumerate(kinds) if k in ("upgrade_picked", "upgrade_swapped"))
        assert kinds.index("weather_drawn") > last_pick  # # 21.3
        assert weather_tile(log.project(sr.race).state) is not None
    assert run("season", "audit", "1", db=db).returncode == 0
    # The option is the season's: a season without it has no weather in its races.
    plain = new_season(log, drivers=DRIVERS, published="1961", mode="open", modules={"garage": {"upgrades": "basic"}})
    ev, _ = race_setup(season_view(log, plain), 1)
    assert "weather" not in ev["modules"] and "weather" not in season_view(log, plain).options
    # Legends are the season's option since issue 29 (# 19.16, tests/test_season_solo.py): too many cars are
    # refused, not silently dropped.
    r = run("simulate", "--season", "1961", "--cars", "4", "--legends", "3", db=db)
    assert r.returncode != 0 and "at most 6 cars" in r.stderr


def test_21_3_season_new_weather_through_the_cli(tmp_path: Path) -> None:
    db = tmp_path / "n.db"
    r = run("season", "new", "--published", "1962", "--car", "Ann:red", "--car", "Bob:blue", "--weather", db=db)
    assert r.returncode == 0, r.stderr
    log = RaceLog(db)
    assert season_view(log, 1).options.get("weather") is True
    ev, _ = race_setup(season_view(log, 1), 1)
    assert "weather" in ev["modules"] and "tiles" in ev["weather"]


def test_21_2_MA11_a_position_taken_anywhere_in_the_season_draft_round_trips_whole_and_plays_on(log: RaceLog) -> None:
    """A position of a season race before the market, between picks, at the first picker's swap and after it
    keeps the pick order (lowest-ranked first, # 21.2), the swap still to answer and the market left (MA11):
    it reads back to itself, waits for the same entry, and the rest of the draft applied to it ends where the
    race's draft ended."""
    from heatlog.engine import state_from_position, state_to_position
    from heatlog.formats.positions import position_problems

    season = garage_season(log)
    race = next_race(log, season, seed=4)
    grid = state(log, race).grid
    draft = [
        {"type": "garage_market", "v": 1, "round": 1, "cards": ["U1", "U2", "U3", "U4", "U5", "U6"]},
        *(
            {"type": "upgrade_picked", "v": 1, "car": n, "card": c}
            for n, c in zip(reversed(grid), ["U1", "U2", "U3"], strict=True)
        ),
        {"type": "upgrade_swapped", "v": 1, "car": grid[-1], "give": "U1", "take": "U6"},
    ]
    st = state(log, race)
    states = [st.copy()]
    for ev in draft:
        apply(st, ev)
        states.append(st.copy())
    end = state_to_position(states[-1])
    for i, at in enumerate(states[:-1]):
        pos = json.loads(json.dumps(state_to_position(at)))
        assert list(position_problems(pos)) == [], f"after {i} draft entries"  # a whole position (# 18.4)
        back = state_from_position(pos)
        assert json.loads(json.dumps(state_to_position(back))) == pos, f"after {i} draft entries"
        assert waiting_for(back) == waiting_for(at), f"after {i} draft entries"
        assert decisions(back, grid[-1]) == decisions(at, grid[-1]), f"after {i} draft entries"
        for ev in draft[i:]:
            apply(back, ev)
        assert state_to_position(back) == end, f"played on from the position after {i} draft entries"
    at_swap = state_from_position(json.loads(json.dumps(state_to_position(states[4]))))
    # the market left is kept (MA11)
    with pytest.raises(IllegalEvent, match=r"4 wheel drive 0 \(4wd0boost3\) is not left in the market"):
        apply(at_swap, {"type": "upgrade_swapped", "v": 1, "car": grid[-1], "give": "U1", "take": "U2"})


def test_21_2_a_race_whose_cards_are_not_the_season_s_is_refused_at_its_entry(log: RaceLog) -> None:
    """# 21.2, 21.5: a Garage season's race holds the season's Garage and cards; one with an upgrade taken out of
    its cards is refused when it is entered, in the words of the Garage's season hook (``SeasonHook.audited``)."""
    season = new_season(log, drivers=DRIVERS[:2], races=[("usa", 7)], modules={"garage": {"upgrades": "basic"}})
    ev, grid = race_setup(season_view(log, season), 1, seed=1)
    ev["cards"] = dict(ev["cards"])
    ev["cards"].pop(sorted(t for t in ev["cards"] if t.startswith("U"))[-1])
    race = log.new_race(ev, grid=grid, name="not the season's")
    with pytest.raises(IllegalEvent, match=r"the Garage options or the race's cards are not the season's \(# 21\.2"):
        enter_race(log, season, 1, race)
