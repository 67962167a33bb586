"""Positions and tracks are checked whole when read (issue 9): names consistent, the round order and the
adrenaline cars as the rules derive them (# 2.2, 6.1, 6.4), every car holding exactly its own cards (# 1.2),
and every size bounded by what a printed board can be."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from edges import one_error_line, run, state_of

from heatlog.engine import MalformedInput, apply, state_to_position
from heatlog.engine.modules.championship import championship_turn
from heatlog.engine.modules.weather import weather_tile
from heatlog.engine.redact import open_to_table
from heatlog.formats.positions import check_position, position_problems
from heatlog.formats.tracks import validate_track_data
from heatlog.formats.validation import validate_event
from heatlog.races import race_started_event
from heatlog.simulate.world import race_events, random_bot

SPRINT = Path(__file__).parent / "data" / "sprint.json"


def simulated(seed: int, n: int, track: str = "usa") -> list[dict[str, Any]]:
    cars = [
        {"name": f"C{i}", "colour": c} for i, c in enumerate(["red", "blue", "green", "yellow", "black", "white"][:n])
    ]
    return list(
        race_events(
            race_started_event(track=track, cars=cars, mode="open"), {c["name"]: random_bot for c in cars}, seed
        )
    )


def positions(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out, state = [], None
    for ev in events:
        state = apply(state, ev, atomic=False)
        out.append(state_to_position(state))
    return out


@pytest.mark.parametrize(("seed", "n", "track"), [(11, 2, "italy"), (12, 5, "great-britain"), (13, 6, "usa")])
def test_every_position_of_a_simulated_race_passes(seed: int, n: int, track: str) -> None:
    events = simulated(seed, n, track)
    for events_ in (events, open_to_table(events)):
        for pos in positions(events_):
            assert list(position_problems(pos)) == []


@pytest.fixture(scope="module")
def round_start() -> dict[str, Any]:
    """A position at the start of round 3 of a 6-car race (two adrenaline cars)."""
    state = None
    for ev in simulated(21, 6):
        state = apply(state, ev, atomic=False)
        if state.round == 3 and state.step == 1 and state.turn is None and not state.shifts:
            return state_to_position(state)
    raise AssertionError("no round 3")


def refused(pos: dict[str, Any], *words: str) -> str:
    with pytest.raises(MalformedInput) as exc:
        check_position(pos)
    for w in words:
        assert w in exc.value.message, exc.value.message
    return exc.value.message


def test_a_round_start_position_is_accepted(round_start: dict[str, Any]) -> None:
    check_position(round_start)


def test_names_must_be_the_cars(round_start: dict[str, Any]) -> None:
    pos = copy.deepcopy(round_start)
    pos["order"][0] = "Zed"
    refused(pos, "order[0]", "'Zed' is not a car of this position")
    pos = copy.deepcopy(round_start)
    pos["cars"][0]["name"] = "Renamed"  # the other fields still say C0
    refused(pos, "is not a car of this position")


def test_round_order_is_the_one_the_board_gives(round_start: dict[str, Any]) -> None:  # 2.2
    pos = copy.deepcopy(round_start)
    pos["order"] = list(reversed(pos["order"]))
    pos["adrenaline"] = pos["order"][-2:]
    refused(pos, "is not the order the board gives", "# 2.2")


def test_adrenaline_cars_are_the_last_two_of_six(round_start: dict[str, Any]) -> None:  # 6.1, 6.4
    pos = copy.deepcopy(round_start)
    pos["adrenaline"] = pos["order"][-1:]
    refused(pos, "adrenaline", "# 6.1, 6.4")


def test_a_car_holds_exactly_its_cards(round_start: dict[str, Any]) -> None:  # 1.2
    pos = copy.deepcopy(round_start)
    pos["cars"][1]["discard"].append("5")
    refused(pos, "cars[1]", "owns")
    pos = copy.deepcopy(round_start)
    pos["cars"][2]["engine"] += 1
    refused(pos, "cars[2]", "H (owns")


def test_sizes_are_bounded_by_a_printed_board() -> None:
    track = json.loads(SPRINT.read_text())
    for key, value in (("spaces", 1000000), ("laps", 500), ("heat", 10**6)):
        bad = dict(track, **{key: value})
        with pytest.raises(MalformedInput, match=f"{key}: {value} is greater than the maximum"):
            validate_track_data(bad)
    bad = dict(track, corners=track["corners"] * 30)
    with pytest.raises(MalformedInput, match="corners"):
        validate_track_data(bad)


def test_cli_refuses_huge_track_and_inconsistent_position_and_writes_nothing(
    tmp_path: Path, round_start: dict[str, Any]
) -> None:
    db = tmp_path / "h.db"
    assert run("new", "--car", "Ann:red", "--car", "Bob:blue", db=db).returncode == 0
    before = state_of(db)
    big = dict(json.loads(SPRINT.read_text()), spaces=1000000)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(big))
    r = run("new", "--track", str(path), "--car", "Ann:red", "--car", "Bob:blue", db=db)
    assert one_error_line(r) and "spaces" in r.stderr and "150" in r.stderr, r
    pos = copy.deepcopy(round_start)
    pos["cars"][0]["name"] = "Renamed"
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(pos))
    r = run("new", "--from-position", str(path), db=db)
    assert one_error_line(r) and "position file" in r.stderr, r
    assert state_of(db) == before
    path.write_text(json.dumps(round_start))
    r = run("new", "--from-position", str(path), db=db)
    assert r.returncode == 0, r
    assert run("show", db=db).returncode == 0 and run("replay", db=db).returncode == 0


def test_the_event_door_checks_an_embedded_position(round_start: dict[str, Any]) -> None:
    pos = copy.deepcopy(round_start)
    ev = {
        "type": "race_started",
        "v": 1,
        "track": pos["track"],
        "laps": pos["laps"],
        "cars": [{"name": c["name"], "colour": c["colour"]} for c in pos["cars"]],
        "variant": "standard",
        "handicap": [],
        "mode": pos["mode"],
        "position": pos,
    }
    validate_event(ev)
    pos["adrenaline"] = []
    with pytest.raises(MalformedInput, match="position.adrenaline"):
        validate_event(ev)
    ev2 = dict(ev, position=dict(round_start), cars=ev["cars"][::-1])
    with pytest.raises(MalformedInput, match="position.cars"):
        validate_event(ev2)


GARAGE = {"upgrades": "all", "draft": "snake", "expansions": ["heavy-rain", "tunnel-vision"]}


@pytest.mark.parametrize(
    "modules",
    [
        {"garage": GARAGE},
        {"legends": {"cars": 1}},
        {"garage": GARAGE, "legends": {"cars": 1}},
        {"weather": {}},
        {"weather": {}, "legends": {"cars": 1}},
    ],
)
def test_a_position_of_a_module_race_starts_a_race_that_plays_on_to_the_same_end(
    tmp_path: Path, modules: dict[str, Any]
) -> None:
    """# 1.2, 18.1, 19.3: a Garage car owns its drafted upgrades instead of the Starting Upgrades, a Legend no
    cards; the race started from the position (``new --from-position``'s path) keeps the position's modules, so
    the rest of the log plays on to the state the whole race ended in."""
    from heatlog.engine import replay
    from heatlog.log.racelog import RaceLog
    from heatlog.races import start_race
    from heatlog.simulate import simulate_race

    _, events, final = simulate_race(None, track="usa", cars=2, seed=3, bots="random", modules=modules)
    cut = len(events) // 2
    pos = json.loads(json.dumps(state_to_position(replay(events[:cut]))))
    assert list(position_problems(pos)) == []
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(pos))
    with RaceLog(tmp_path / "race.db") as log:
        race = start_race(log, track="usa", cars=[], mode="open", from_position=path)
        for ev in events[cut:]:
            log.append(race, ev)
        assert state_to_position(log.project(race).state) == state_to_position(final)


def test_a_weather_race_s_cars_own_the_cards_its_tile_gave_them() -> None:
    """# 20.3, 1.2: the tile's start effect changes what each car owns (Cloud one Stress fewer, Storm one more, Fog
    one Heat more, Snow one fewer; Rain and Sun move Engine Heat to the deck or discard pile, still the car's):
    every tile's positions pass, and one card too many or too few is still refused."""
    from heatlog.engine import replay
    from heatlog.simulate import simulate_race

    seen: dict[str, list[dict[str, Any]]] = {}
    for seed in range(60):
        _, events, final = simulate_race(None, track="japan", cars=3, seed=seed, bots="random", modules={"weather": {}})
        if weather_tile(final) not in seen:
            seen[str(weather_tile(final))] = events
    assert set(seen) == {"cloud", "fog", "storm", "snow", "rain", "sun"}
    for tile, events in seen.items():
        for cut in (len(events) // 4, len(events) // 2):
            pos = json.loads(json.dumps(state_to_position(replay(events[:cut]))))
            assert list(position_problems(pos)) == [], tile
        extra = copy.deepcopy(pos)
        car = extra["cars"][0]
        car["discard"] = [*car["discard"], "S"]
        refused(extra, "cars[0]", "S (owns")
        fewer = copy.deepcopy(pos)
        car = fewer["cars"][1]
        car["engine"] = car["engine"] + 1
        refused(fewer, "cars[1]", "H (owns")


@pytest.fixture(scope="module")
def season_races(tmp_path_factory: pytest.TempPathFactory) -> list[list[dict[str, Any]]]:
    """The races of a simulated Garage season (sponsorship cards dealt at set-up and earned, # 21.4, 21.7) whose
    events are 18 (a Heat card leaves the game per non-final lap, MA23) and 10 (a spinout eliminates, MA21)."""
    from heatlog.log.racelog import RaceLog
    from heatlog.season import season_view, simulate_season

    with RaceLog(tmp_path_factory.mktemp("season") / "s.db") as log:
        season = simulate_season(
            log, cars=3, seed=2, races=[("usa", 18), ("italy", 10)], modules={"garage": {"upgrades": "all"}}
        )
        return [[e.event for e in log.store.events(sr.race)] for sr in season_view(log, season).races]


def test_every_position_of_a_championship_race_passes_and_plays_on_to_the_same_end(
    tmp_path: Path, season_races: list[list[dict[str, Any]]]
) -> None:
    """# 21.4, 21.7, MA21, MA23: which car drew which sponsorship card, the Heat event 18 took and the car event 10
    took off the track are the race's history, which a position does not carry; every position of the races
    (open and as the table saw them) passes, and a race started from one plays on to the state the whole race
    ended in."""
    from heatlog.engine import replay
    from heatlog.log.racelog import RaceLog
    from heatlog.races import start_race

    events_18, events_10 = season_races
    assert any(e["type"] == "sponsor_drawn" for e in events_18)  # cards dealt and earned
    state, removed = None, False
    for ev in events_18:
        state = apply(state, ev, atomic=False)
        removed = removed or any(championship_turn(t).heat_removed for t in state.turns)
    assert removed, "event 18 should take Heat cards in the seed's race 1"
    assert replay(events_10).eliminated, "the seed's race 2 should eliminate a car (event 10)"
    dealt = 0
    for events in season_races:
        for events_ in (events, open_to_table(events)):
            every = positions(events_)
            dealing = [pos for pos in every if pos["phase"] == "sponsors"]  # the set-up deal of # 21.4
            dealt += len(dealing)
            for pos in every[::3] + dealing:
                assert list(position_problems(json.loads(json.dumps(pos)))) == []
        cut = len(events) // 2
        path = tmp_path / "pos.json"
        path.write_text(json.dumps(state_to_position(replay(events[:cut]))))
        with RaceLog(tmp_path / f"race-{cut}.db") as log:
            race = start_race(log, track="usa", cars=[], mode="open", from_position=path)
            for ev in events[cut:]:
                log.append(race, ev)
            assert state_to_position(log.project(race).state) == state_to_position(replay(events))
    assert dealt  # positions of the sponsorship deal at set-up (the schema's phase "sponsors")


def test_a_championship_position_still_holds_every_card_once(season_races: list[list[dict[str, Any]]]) -> None:
    """# 21.4, 21.7, MC7: a sponsorship card is in one car's cards, the supply or the used pile, once; # 1.2, MA23:
    a car of an event-18 race holds its own Heat, less at most one per non-final lap it completed."""
    from heatlog.engine import replay

    events = season_races[0]
    pos = json.loads(json.dumps(state_to_position(replay(events[: len(events) * 3 // 4]))))
    assert list(position_problems(pos)) == []
    sponsor = next(c for c in pos["sponsor_deck"]["supply"] if pos["sponsor_deck"]["supply"][c])
    extra = copy.deepcopy(pos)
    extra["cars"][0]["discard"].append(sponsor)  # a copy from nowhere
    refused(extra, "sponsor_deck", "sponsorship deck has", f"× {sponsor}", "(# 21.4, 21.7)")
    taken = copy.deepcopy(pos)
    taken["sponsor_deck"]["supply"][sponsor] -= 1  # a copy gone from the supply without a car drawing it
    refused(taken, "sponsor_deck", f"× {sponsor}")
    moved = copy.deepcopy(pos)  # a card drawn by one car or another: the race's history, not the position's
    moved["cars"][1]["discard"].append(sponsor)
    moved["sponsor_deck"]["supply"][sponsor] -= 1
    assert list(position_problems(moved)) == []
    state = replay(events[: len(events) * 3 // 4])
    car = next(c for c in state.cars.values() if state.laps_done(c) >= 1)
    i = list(state.cars).index(car.name)
    # Heat added to its Engine: accepted while it puts back no more than event 18 can have taken, then refused
    gone = min(state.laps_done(car), state.laps - 1)
    more = copy.deepcopy(pos)
    for _ in range(gone + 1):
        more["cars"][i]["engine"] += 1
        problems = list(position_problems(more))
        if problems:
            break
    assert problems and problems[0][0] == f"cars[{i}]" and "removed by event 18, MA23" in problems[0][1], problems
    fewer = copy.deepcopy(pos)  # and Heat taken from it: refused once it is more than event 18 can have taken
    for _ in range(fewer["cars"][i]["engine"]):
        fewer["cars"][i]["engine"] -= 1
        problems = list(position_problems(fewer))
        if problems:
            break
    assert problems and "removed by event 18, MA23" in problems[0][1], problems
