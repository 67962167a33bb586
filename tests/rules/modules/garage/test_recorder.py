"""Recording a Garage race with ``heatlog record`` (# 18.5–18.23): the set-up wizard asks for the module and its
options, the draft is asked card by card, and a simulated Garage race typed in as a host would gives its log."""

from __future__ import annotations

from pathlib import Path

import pytest
from recorder_races import explicit  # tests/ is on the path (rootdir conftest)

from heatlog.bots import get_bot
from heatlog.engine import IllegalEvent, apply
from heatlog.engine.decide import decisions, slipstream_choices
from heatlog.engine.redact import open_to_table
from heatlog.log.racelog import RaceLog
from heatlog.races import race_started_event, start_race
from heatlog.recorder import NewRace, Session
from heatlog.recorder import script as rs
from heatlog.recorder.questions import ask, closed_map
from heatlog.recorder.session import slipstream_answer
from heatlog.simulate import default_cars
from heatlog.simulate.world import race_events, random_bot

from ..helpers import legend_cars
from .scenarios import PARK, garage_board, toks

OPTIONS = {"upgrades": "all", "draft": "snake", "expansions": ["heavy-rain", "tunnel-vision"]}
BASIC = {"upgrades": "basic", "draft": "draft"}  # the sample race's (replays/usa-garage-legends-weather.jsonl)


def simulated(
    seed: int,
    mode: str,
    n: int = 3,
    *,
    garage: dict = OPTIONS,
    legends: int = 0,
    weather: bool = False,
    laps: int = 1,
    bot: str = "random",
) -> list[dict]:
    """A bot's race as a host answers it (tests/recorder_races.py: a declined slipstream in words, an
    adrenaline cooldown with its Heat card), with Legends (MODULES.md 19) and the weather (20) if asked."""
    cars = default_cars(n)
    start = race_started_event(
        track="usa",
        cars=cars,
        laps=laps,
        mode="open",
        modules={
            "garage": dict(garage),
            **({"legends": {"cars": legend_cars(legends, [c["colour"] for c in cars])}} if legends else {}),
            **({"weather": {}} if weather else {}),
        },
    )
    play = explicit(random_bot if bot == "random" else get_bot(bot))
    events = list(race_events(start, {c["name"]: play for c in start["cars"] if not c.get("legend")}, seed))
    return open_to_table(events) if mode == "table" else events


def record(tmp_path: Path, expected: list[dict], mode: str) -> tuple[list[dict], set[str]]:
    """``heatlog record``'s session answered as a host would (heatlog.recorder.script) until the race is over:
    the log it stored and the kinds of question it asked. Every answer must be accepted."""
    first = expected[0]
    players = [c for c in first["cars"] if not c.get("legend")]
    legends = [c for c in first["cars"] if c.get("legend")] or None
    log = RaceLog(tmp_path / "race.db")
    rid = start_race(
        log,
        track="usa",
        cars=players,
        laps=first["laps"],
        mode=mode,
        grid=expected[1]["order"],
        modules={  # (the module contract: any module)
            **({"garage": dict(first["garage"])} if "garage" in first else {}),
            **({"legends": {"cars": legends}} if legends else {}),
            **({"weather": {}} if "weather" in first.get("modules", []) else {}),
            **{m: first[m] for m in first.get("modules", []) if m not in ("garage", "legends", "weather")},
        },
    )
    return typed_in(Session(log, rid, fresh=True), expected, mode)


def typed_in(s: Session, expected: list[dict], mode: str) -> tuple[list[dict], set[str]]:
    """Answer ``s``'s questions as a host would until the race is over (the grid, when asked, as ``expected``
    has it): the log it stored and the kinds of question it asked. Every answer must be accepted."""
    kinds: set[str] = set()
    for _ in range(20000):
        q = s.question
        if q.kind == "over":
            break
        i = s.proj.effective.length
        kinds.add(q.kind)
        if q.kind == "grid":  # (a race whose set-up did not give it: a season's, typed in from its start)
            text = " ".join(expected[i]["order"])
        else:
            text = rs.answer(q.kind, q.car or "", expected, i, typed_chance=mode == "table")
        errors = [x.text for x in s.answer(text) if x.style == "error"]
        assert not errors, (q.prompt, text, errors, expected[i : i + 3])
    else:
        raise AssertionError("the race did not end")
    return effective(s), kinds


def effective(s: Session) -> list[dict]:
    return [{k: v for k, v in e.event.items() if k not in ("raw", "at")} for e in s.proj.effective.entries]


def test_18_3_18_5_the_wizard_asks_for_the_garage():
    w = NewRace()
    for text in ("", "usa", "Ann:red Bob:blue", "", "", "table"):  # no race name, then the set-up
        assert not (w.answer(text) or "").startswith("error")
    assert w.step == "garage" and "Garage module" in w.prompt()
    assert w.answer("pro").startswith("error")
    assert w.answer("advanced snake tunnel-vision") == "Garage: advanced upgrades with tunnel-vision, snake draft"
    assert w.answers["garage"] == {"upgrades": "advanced", "draft": "snake", "expansions": ["tunnel-vision"]}


@pytest.mark.parametrize(("mode", "seed"), [("open", 3), ("table", 4), ("table", 9)])
def test_18_5_recording_a_simulated_garage_race_gives_its_log(tmp_path: Path, mode: str, seed: int) -> None:
    expected = simulated(seed, mode)
    log = RaceLog(tmp_path / "race.db")
    rid = start_race(
        log,
        track="usa",
        cars=default_cars(3),
        laps=1,
        mode=mode,
        grid=expected[1]["order"],
        modules={"garage": dict(OPTIONS)},
    )
    s = Session(log, rid, fresh=True)
    kinds = set()
    for _ in range(6000):
        q = s.question
        i = len(effective(s))
        if q.kind == "over":
            break
        kinds.add(q.kind)
        text = rs.answer(q.kind, q.car or "", expected, i, typed_chance=mode == "table")
        lines = s.answer(text)
        errors = [x.text for x in lines if x.style == "error"]
        assert not errors, (q.prompt, text, errors, expected[i : i + 3])
    else:
        raise AssertionError("the race did not end")
    got = effective(s)
    assert got[0]["garage"] == expected[0]["garage"]
    assert got[1:] == expected[1:]
    assert "garage" in kinds  # the draft was asked


@pytest.mark.parametrize(
    ("mode", "seed", "bot"),
    [
        ("open", 0, "heuristic"),
        ("table", 1, "heuristic"),
        ("table", 4, "heuristic"),
        ("open", 2, "random"),
        ("table", 3, "random"),
    ],
)
def test_18_16_20_12_19_a_garage_race_with_legends_and_the_weather_recorded_gives_its_log(
    tmp_path: Path, mode: str, seed: int, bot: str
) -> None:
    """Every module at once (the sample race's set-up: 3 cars with drafted basic upgrades, 2 Legends, the weather,
    2 laps), recorded whole: the Garage's slipstream bonuses beside a sector's (# 18.16, 20.12), Legend cards
    (19.5), the tile and tokens after the draft (18.4, 20.2)."""
    expected = simulated(seed, mode, garage=BASIC, legends=2, weather=True, laps=2, bot=bot)
    got, kinds = record(tmp_path, expected, mode)
    assert got[0]["garage"] == expected[0]["garage"] and got[1:] == expected[1:]
    assert {"garage", "legend", "weather", "road", "slipstream", "react"} <= kinds


@pytest.mark.parametrize(("mode", "seed"), [("open", 1), ("table", 2)])
def test_18_5_all_upgrades_a_legend_and_the_weather_recorded_gives_its_log(tmp_path: Path, mode: str, seed: int):
    """The snake draft of every upgrade (both expansions: Refresh after the finish, # 18.21; Scrap, # 18.12)."""
    expected = simulated(seed, mode, legends=1, weather=True, laps=2, bot="heuristic")
    got, _ = record(tmp_path, expected, mode)
    assert got[1:] == expected[1:]


@pytest.mark.parametrize(("mode", "seed"), [("open", 5), ("table", 6), ("open", 7), ("table", 8)])
def test_18_5_a_heuristic_garage_race_recorded_gives_its_log(tmp_path: Path, mode: str, seed: int) -> None:
    """Garage only, two laps of heuristic drivers: slipstream bonuses taken and left (# 18.16)."""
    expected = simulated(seed, mode, garage=BASIC, laps=2, bot="heuristic")
    got, _ = record(tmp_path, expected, mode)
    assert got[1:] == expected[1:]


# USA, corner 1's sector (13–33) under a Slipstream +1 token (# 20.12); A, in 2nd gear, plays two R.P.M. cards
# (slipstream +2 each, # 18.16) from space 14 to 17, right behind P.
SLIP_PLUS_1 = ("cloud", ["slipstream+1", "overheat", "limit+1", "heat-control"])


def rpm_behind_p():
    race = garage_board(
        {
            "P": {"at": 17, "hand": PARK, "upgrades": "U13 U15 U16"},
            "A": {"at": 14, "gear": 2, "hand": "U14 U15 1 1 1 1 1", "upgrades": "U14 U15 U16"},
        },
        track="usa",
        weather=SLIP_PLUS_1,
    )
    race.round(P=(1, ["1"]), A=(2, toks("U14 U15")))
    race.turns_until("A")
    assert race.at("A") == (17, 2) and race.at("P")[0] == 18
    return race


def test_18_16_20_12_the_slipstream_choices_take_any_bonus_cards_with_or_without_the_sectors():
    state = rpm_behind_p().state
    choices = slipstream_choices(state, state.cars["A"])
    ways = sorted((n, tuple(c.get("bonuses", [])), "spaces" in c) for n, c in choices)
    assert ways == [
        (2, (), False),
        (3, (), True),  # the sector's +1 alone
        (4, ("U14",), False),
        (4, ("U15",), False),
        (5, ("U14",), True),
        (5, ("U15",), True),
        (6, ("U14", "U15"), False),
        (7, ("U14", "U15"), True),  # both cards and the sector
    ]
    for n, c in choices:  # each is legal and moves the car its distance (nothing blocks on the straight)
        after = state.copy()
        apply(after, c)
        assert after.cars["A"].progress == 17 + n
    # the bots' choices are among them (the decisions name one way per distance, the longest with cards)
    offered = [d for d in decisions(state, "A") if d["type"] == "slipstream" and d["taken"]]
    assert offered and all(d in [c for _, c in choices] for d in offered)


def test_18_16_20_12_the_recorder_asks_every_distance_and_takes_the_cards_named():
    state = rpm_behind_p().state
    q = ask(state, closed_map([(state.round, "A", 5)]))  # React closed: the slipstream question
    assert q.kind == "slipstream"
    assert q.prompt == "A slipstream? (y = 7, n, or the distance: 2 3 4 5 6 7): "
    assert "made several ways: 4:rpm1 or 4:rpm2, 5:rpm1 or 5:rpm2" in q.hint
    assert slipstream_answer(state, "A", "y") == {
        "type": "slipstream",
        "v": 1,
        "car": "A",
        "taken": True,
        "bonuses": ["U14", "U15"],
        "spaces": 7,
    }
    assert slipstream_answer(state, "A", "3") == {"type": "slipstream", "v": 1, "car": "A", "taken": True, "spaces": 3}
    assert slipstream_answer(state, "A", "4")["bonuses"] == ["U14"]  # the first way: fewest cards, in play order
    assert slipstream_answer(state, "A", "4:rpm2")["bonuses"] == ["U15"]
    assert slipstream_answer(state, "A", "y5:rpm2") == {
        "type": "slipstream",
        "v": 1,
        "car": "A",
        "taken": True,
        "bonuses": ["U15"],
        "spaces": 5,
    }
    assert slipstream_answer(state, "A", "maybe") is None
    # a distance no way makes is passed on as typed: the rules refuse it with their reason
    with pytest.raises(IllegalEvent, match="not 8"):
        apply(state.copy(), slipstream_answer(state, "A", "8"))
    with pytest.raises(IllegalEvent, match="18.16"):
        apply(state.copy(), slipstream_answer(state, "A", "4:rpm3"))  # R.P.M. 3 is not in the Play Area
