"""Recording a Garage race with ``heatlog record`` (# 18.5–18.23): the set-up wizard asks for the module and its
options, the draft is asked card by card, and a simulated Garage race typed in as a host would gives its log."""

from __future__ import annotations

from pathlib import Path

import pytest
from recorder_races import explicit  # tests/ is on the path (rootdir conftest)

from heatlog import recorder_script as rs
from heatlog.engine.redact import open_to_table
from heatlog.racelog import RaceLog
from heatlog.races import race_started_event, start_race
from heatlog.recorder import NewRace, Session
from heatlog.simulate import default_cars
from heatlog.simulate.world import race_events, random_bot

OPTIONS = {"upgrades": "all", "draft": "snake", "expansions": ["heavy-rain", "tunnel-vision"]}


def simulated(seed: int, mode: str, n: int = 3) -> list[dict]:
    """The random bot as a host answers it (tests/recorder_races.py: a declined slipstream in words, an
    adrenaline cooldown with its Heat card)."""
    start = race_started_event(track="usa", cars=default_cars(n), laps=1, mode="open", garage=dict(OPTIONS))
    bot = explicit(random_bot)
    events = list(race_events(start, {c["name"]: bot for c in start["cars"]}, seed))
    return open_to_table(events) if mode == "table" else events


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
        log, track="usa", cars=default_cars(3), laps=1, mode=mode, grid=expected[1]["order"], garage=dict(OPTIONS)
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
