"""Lists of event kinds come from the event catalogue (``events.REGISTRY``), never from a copy kept beside it.

Two copies kept by hand had drifted into user-visible bugs: the game API's own list of decision kinds lacked the
championship's ``upgrade_swapped`` (# 21.2, MA11), so ``to_move`` called the first picker's swap a chance node and
``play_out`` stopped there; the review's own list held only the base game's 8 decisions, so a car's Garage
decisions (Refresh, Reduce, Salvage, Direct Play, Super Cool: # 18.13–18.21) were reviewed as "go on".
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from heatlog.bots import Options, heuristic_bot
from heatlog.engine import RaceState, apply
from heatlog.engine.decide import waiting_for
from heatlog.engine.events import CHANCE, DECISION, REGISTRY, module_chance_types
from heatlog.engine.game import legal_decisions, play_out, to_move
from heatlog.log.racelog import RaceLog
from heatlog.review.points import DECISION_KINDS, decision_points
from heatlog.season import new_season, next_race

Event = dict[str, Any]
ROOT = Path(__file__).resolve().parents[2]
DRIVERS = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}, {"name": "Cy", "colour": "green"}]


def test_the_decision_kinds_are_the_catalogues_every_type_neither_chance_nor_aside() -> None:
    assert {n for n, e in REGISTRY.items() if not e.chance and not e.aside} == DECISION
    assert not DECISION & CHANCE
    assert {"upgrade_swapped", "upgrade_picked", "refreshed", "salvaged", "direct_played"} <= DECISION
    assert DECISION_KINDS is DECISION  # the review asks the catalogue
    assert "sponsor_drawn" in module_chance_types() and "deck_shuffled" not in module_chance_types()


def test_21_2_MA11_the_first_pickers_swap_is_a_decision_of_the_game_api_and_play_out_goes_on(tmp_path: Path) -> None:
    """A championship race with the Garage: after the picks the first picker's swap (or none) is that car's
    decision node, and a play-out through the game API drives the race past it to the finish."""
    log = RaceLog(tmp_path / "s.db")
    season = new_season(log, drivers=DRIVERS, published="1961", mode="open", modules={"garage": {"upgrades": "basic"}})
    race = next_race(log, season, seed=4)
    state = log.project(race).state
    grid = list(state.grid)
    apply(state, {"type": "garage_market", "v": 1, "round": 1, "cards": ["U1", "U2", "U3", "U4", "U5", "U6"]})
    for name, card in zip(reversed(grid), ("U1", "U2", "U3"), strict=True):
        apply(state, {"type": "upgrade_picked", "v": 1, "car": name, "card": card})
    assert waiting_for(state).due == "upgrade_swapped"
    node = to_move(state)
    assert node.kind == "decision" and node.car == grid[-1]
    assert {"type": "upgrade_swapped", "v": 1, "car": grid[-1]} in legal_decisions(state)
    rng = random.Random(3)
    seen: list[str] = []

    def decide(s: RaceState, n: str) -> Event | None:
        # the swap too: the heuristic asks the championship's bot policy (# 21.2), as for every decision
        return heuristic_bot(s, n, Options(s, n), rng)

    play_out(state, decide, rng, record=lambda e: seen.append(e["type"]))
    assert seen[0] == "upgrade_swapped" and state.phase == "over"


def test_18_13_18_21_the_review_takes_a_cars_garage_decisions_as_its_own() -> None:
    """replays/usa-garage-4cars.jsonl: every decision point whose next event is the car's own Garage decision
    (Refresh, Reduce, Salvage, Direct Play, Super Cool) reviews that decision, not "go on"."""
    events = [json.loads(line) for line in (ROOT / "replays" / "usa-garage-4cars.jsonl").read_text().splitlines()]
    events = [e.get("event", e) for e in events]
    garage = {"refreshed", "stress_reduced", "salvaged", "direct_played", "super_cooled"}
    cars = [c["name"] for c in events[0]["cars"]]
    taken = []
    for car in cars:
        for p in decision_points(events, car):
            nxt = events[p.index]
            if nxt.get("car") == car and nxt["type"] in garage:
                taken.append(p.taken["type"])
    assert taken and all(t in garage for t in taken), taken
