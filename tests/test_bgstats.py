"""The BG Stats push-a-play link at a race's end (issue 29, Build 6): its documented createPlay request URL."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from urllib.parse import unquote

from recorder_races import simulated

from heatlog.engine import replay
from heatlog.views.bgstats import URL, bgstats_link, bgstats_play

ROOT = Path(__file__).resolve().parent.parent


def test_a_finished_race_gives_the_create_play_link_with_places_and_circuit() -> None:
    events = simulated(3, 2, "table", track="usa")
    state = replay(events)
    assert state.phase == "over"
    link = bgstats_link(state, played_at="2026-12-04 21:00:00")
    assert link is not None and link.startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    play = json.loads(unquote(link[len(URL) :]))
    assert play["game"]["bggId"] == 366013 and play["game"]["noPoints"] is True
    assert play["board"] == state.track.name and play["playDate"] == "2026-12-04 21:00:00"
    assert [p["name"] for p in play["players"]] == state.hall_of_fame
    assert [p["rank"] for p in play["players"]] == [1, 2, 3]
    assert [p["winner"] for p in play["players"]] == [True, False, False]
    assert sum(p["startPlayer"] for p in play["players"]) == 1
    assert bgstats_play(replay(events[:20])) is None  # not before the end


def test_show_of_a_finished_race_prints_the_link(tmp_path: Path) -> None:
    import subprocess

    from heatlog.log.racelog import RaceLog

    db = tmp_path / "r.db"
    log = RaceLog(db)
    for ev in simulated(2, 3, "table"):
        if ev["type"] == "race_started":
            rid = log.new_race(ev)
        else:
            log.append(rid, ev)
    log.close()
    out = subprocess.run(
        [sys.executable, "-m", "heatlog.cli", "show", "--db", str(db)], capture_output=True, text=True, check=True
    ).stdout
    line = [x for x in out.splitlines() if x.startswith("BG Stats")]
    assert len(line) == 1 and "createPlay.html?data=" in line[0]


def test_a_solo_player_beaten_by_legends_is_logged_at_their_place_not_as_the_winner() -> None:
    # issue 29 Build 6, checked by hand: gb-solo-legends (Legend-Gray first, Red second) was logged "Red rank 1,
    # winner": the Legends were left out of the places too. A Legend is no player, but its place counts (# 19.9)
    events = [json.loads(line) for line in (ROOT / "replays" / "gb-solo-legends.jsonl").read_text().splitlines()]
    state = replay(events)
    assert state.hall_of_fame[:2] == ["Legend-Gray", "Red"]
    play = bgstats_play(state)
    assert play is not None
    assert play["players"] == [{"name": "Red", "rank": 2, "winner": False, "startPlayer": state.grid[0] == "Red"}]
