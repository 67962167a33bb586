"""The recorder in a championship race (MODULES.md 21): the event card's rules are the race's own, so the
recorder asks what they make the table do — a hand of 8 (event 5) or 6 (event 9), Heat or Stress offered for the
discard (events 13, 17), the end of a race whose last car is eliminated (event 10, MA21) — and records the same
log the table would. Each race is simulated in open mode, then recorded through the recorder in table mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from recorder_races import TRACK, cars, explicit, strip
from rules.modules.test_championship_events import block
from test_recorder_session import effective, play

from heatlog.bots import random_bot
from heatlog.engine import apply, closing_event
from heatlog.engine.decide import slipstream_status, waiting_for
from heatlog.engine.redact import open_to_table
from heatlog.log.racelog import RaceLog
from heatlog.races import race_started_event
from heatlog.recorder import Session
from heatlog.recorder.questions import advance
from heatlog.simulate.world import race_events


def simulated(event: int, n: int, seed: int) -> list[dict[str, Any]]:
    start = race_started_event(track=str(TRACK), cars=cars(n), mode="open", variant="one-lap")
    start["modules"] = ["championship"]
    start["championship"] = block(event)
    bot = explicit(random_bot)
    return list(race_events(start, {c["name"]: bot for c in cars(n)}, seed))


def record(tmp_path: Path, events: list[dict[str, Any]]) -> tuple[Session, list[dict[str, Any]]]:
    expected = open_to_table(events)
    log = RaceLog(tmp_path / "race.db")
    rid = log.new_race(expected[0], grid=expected[1]["order"])
    s = Session(log, rid, fresh=True)
    play(s, strip(expected), "table")
    return s, strip(expected)


@pytest.mark.parametrize(("event", "size"), [(5, 8), (9, 6)])
def test_21_8_MA26_the_recorder_deals_and_refills_to_the_events_hand_size(
    tmp_path: Path, event: int, size: int
) -> None:
    events = simulated(event, 3, seed=4)
    s, expected = record(tmp_path, events)
    assert strip(effective(s)) == expected
    deal = [e for e in expected[:12] if e["type"] == "cards_drawn"]
    assert deal and all(e["count"] == size for e in deal)  # the table-mode deal: counts only (# 1.7)


def test_MA21_the_recorder_records_the_end_of_a_race_whose_last_car_is_eliminated(tmp_path: Path) -> None:
    for seed in range(1, 30):
        events = simulated(10, 3, seed)
        state = None
        for ev in events:
            state = apply(state, ev)
        assert state is not None and state.phase == "over"
        if state.eliminated and state.hall_of_fame[-1] == state.eliminated[0] and len(state.eliminated) == 3:
            break
    else:  # pragma: no cover - the seeds above hold such a race
        pytest.fail("no race with every car eliminated")
    before = None
    for ev in events[:-1]:
        before = apply(before, ev)
    assert before is not None and before.turn is not None
    assert not slipstream_status(before, before.cars[before.turn.car])[0]  # no slipstream question was open:
    assert closing_event(before) == events[-1]  # the last event is the one the rules give for going on
    s, expected = record(tmp_path, events)
    assert strip(effective(s)) == expected
    assert s.question.kind == "over" and s.proj.state.phase == "over"  # the log itself is over, not only the view


def test_MA23_the_recorder_asks_where_event_18s_heat_card_came_from(tmp_path: Path) -> None:
    """Table mode, an empty Engine, a hidden hand that may hold Heat: the question names the order (MA23)."""
    from rules.modules.test_championship_events import event_18_revealed_in_table_mode

    race = event_18_revealed_in_table_mode()
    race.go_on()
    assert waiting_for(race.state).due == "heat_removed"
    q = advance(race.state).question
    assert q.kind == "heat_removed" and q.car == "A" and q.options == ("hand", "discard", "deck")
    assert "from hand, discard or deck" in q.prompt


@pytest.mark.parametrize(("event", "size"), [(5, 8), (9, 6), (7, 7)])
def test_21_8_MA26_season_next_deals_the_table_to_the_events_hand_size(tmp_path: Path, event: int, size: int) -> None:
    """In table mode ``season next`` records the deal every table does (shuffle, draw): to the race's hand size,
    so a race of event 9 can start at all (a draw of 7 into a hand of 6 is refused, # 12.2)."""
    from heatlog.season import new_season, next_race

    log = RaceLog(tmp_path / "s.db")
    season = new_season(log, drivers=cars(2), races=[("usa", event)], mode="table")
    race = next_race(log, season, seed=1)
    state = log.project(race).state
    assert state.phase == "race" and waiting_for(state).due == "gear_chosen"
    assert all(c.hand_size == size for c in state.cars.values())
    draws = [e.event for e in log.store.events(race) if e.event["type"] == "cards_drawn"]
    assert [d["count"] for d in draws] == [size, size]
