"""One corner numbering everywhere, the printed board's (issue 29, bug 12), and the limit in force in the round
header (bug 11). Japan: a chicane (lines after 10 and 12, limit 4), then corners after 18, 45 and 53; with the
weather, one road-condition token per corner, the chicane's on both its lines (MODULES.md 20.2, 22.2)."""

from __future__ import annotations

from pathlib import Path

from heatlog.engine.modules.weather.words import conditions, conditions_lines
from heatlog.log.racelog import RaceLog
from heatlog.races import start_race
from heatlog.recorder import Session
from heatlog.views.narrate import corner_number

CARS = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}]


def japan(tmp_path: Path) -> tuple[RaceLog, Session, str]:
    log = RaceLog(tmp_path / "h.db")
    rid = start_race(log, track="japan", cars=CARS, modules={"weather": {}}, grid=["Ann", "Bob"])
    s = Session(log, rid, fresh=True)
    s.answer("cloud")
    said = "\n".join(line.text for line in s.answer("limit-1 overheat limit+1 heat-control"))
    return log, s, said


def test_the_round_header_gives_the_limit_a_road_condition_token_makes(tmp_path: Path) -> None:
    # bug 11: the chicane's limit-1 token makes its limit 3 (# 20.8); the header said "limit 4", the printed one
    log, s, said = japan(tmp_path)
    try:
        assert "Ann: space 60 (race line), lap 1/2, gear 1, Engine 7; next: corner 1, limit 3," in said, said
    finally:
        log.close()


def test_a_chicane_is_one_corner_in_set_up_play_and_the_board(tmp_path: Path) -> None:
    # bug 12: set-up counted the chicane once ("corner 3 overheat" for the corner after 45), play counted each
    # line ("corner 4", "C4"), and the chicane's token was labelled C2
    log, s, said = japan(tmp_path)
    try:
        state = s.view
        assert "road conditions corner 1 limit-1, corner 2 overheat, corner 3 limit+1, corner 4 heat-control" in said
        assert [corner_number(state, a) for a in (10, 12, 18, 45, 53)] == [1, 1, 2, 3, 4]
        assert [c.corner for c in conditions(state)] == [1, 2, 3, 4]
        road = conditions_lines(state)[1]
        assert road.startswith("road: C1 limit-1: limit -1: 4 → 3 and 4 → 3; C2 overheat"), road
    finally:
        log.close()
