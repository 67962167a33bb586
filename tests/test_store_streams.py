"""The season stream behind the store's stream API (issue 26, heatlog/store/streams.py): a database whose seasons
were written by season.py's own tables and transactions (tests/data/season-before-26.db) keeps opening, its
chains and anchors hold, it takes appends, and the store writes a stream exactly as season.py did."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from heatlog.log.racelog import RaceLog
from heatlog.season import (
    audit_season,
    check_season_anchor,
    missing_season_guards,
    next_race,
    season_anchor,
    season_chain_problems,
    season_events,
    season_view,
    seasons,
)
from heatlog.store import SEASON_STREAM, STREAMS, StoreError

DATA = Path(__file__).parent / "data" / "season-before-26.db"
#: season_anchor() of the file's two seasons, as heatlog before issue 26 gave them
ANCHORS = [
    {
        "heatlog_anchor": 1,
        "season": 1,
        "seq": 3,
        "head": "d442213171b76e7c92d73f8a251849c89b771d9bb13660ca264a49ebbc154d2c",
    },
    {
        "heatlog_anchor": 1,
        "season": 2,
        "seq": 1,
        "head": "e5a8fb33246c5cf28a075e56811efa63152ab028d8891ea8b88c1265ef8cd5d6",
    },
]


@pytest.fixture
def old(tmp_path: Path) -> RaceLog:
    path = tmp_path / "old.db"
    shutil.copy(DATA, path)
    return RaceLog(path, create=False)


def test_a_season_database_from_before_opens_and_its_anchors_hold(old: RaceLog) -> None:
    assert [(s, name) for s, name, _ in seasons(old)] == [(1, "custom season"), (2, "second")]
    for anchor in ANCHORS:
        assert season_anchor(old, anchor["season"]) == anchor
        assert check_season_anchor(old, anchor) == []
        assert season_chain_problems(old, anchor["season"]) == []
    assert missing_season_guards(old) == []
    assert audit_season(old, 1) == []
    view = season_view(old, 1)
    assert view.over and [sr.race for sr in view.races] == [1, 2]


def test_a_season_from_before_takes_appends_on_its_chain(old: RaceLog) -> None:
    race = next_race(old, 2, seed=1)  # race_entered, appended through the store's stream API
    assert season_chain_problems(old, 2) == []
    assert check_season_anchor(old, ANCHORS[1]) == []  # appends after an anchor are fine
    assert season_anchor(old, 2)["seq"] == 2
    assert season_events(old, 2)[-1]["race"] == old.store.events(race)[0].hash
    assert audit_season(old, 2) == []


def test_the_store_writes_a_stream_as_season_py_did(old: RaceLog, tmp_path: Path) -> None:
    """The same events as a new stream in a new file: the same hashes (the chain rule of races, unchanged)."""
    events = season_events(old, 1)
    with RaceLog(tmp_path / "new.db") as fresh:
        owner = fresh.store.new_stream(SEASON_STREAM, "custom season", events[:1])
        fresh.store.append_stream(SEASON_STREAM, owner, events[1:])
        assert fresh.store.stream_anchor(SEASON_STREAM, owner) == {**ANCHORS[0], "season": owner}
        assert fresh.store.verify_stream(SEASON_STREAM, owner) == []
        assert fresh.store.stream_events(SEASON_STREAM, owner) == events


def test_the_stream_api_refuses_what_the_season_refused(tmp_path: Path) -> None:
    assert set(STREAMS) == {"season"}
    with RaceLog(tmp_path / "none.db") as log:
        assert log.store.streams(SEASON_STREAM) == []
        with pytest.raises(StoreError, match="no season in"):
            log.store.stream_events(SEASON_STREAM, 1)
        with pytest.raises(StoreError, match="no season -1"):
            log.store.stream_events(SEASON_STREAM, -1)
        assert log.store.check_stream_anchor(SEASON_STREAM, {"season": "x"})[0].startswith("not a season anchor")
