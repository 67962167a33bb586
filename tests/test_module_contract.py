"""The module contract, driven by the registries (the pattern of OpenSpiel's ``games_sim_test``): every registered
module (``ruleset.MODULES``), alone and in the combinations the simulator's seeds allow, is simulated to the
finish, replayed to the same state, played out through the game API, read back from a position, recorded through
the recorder's notation (``heatlog.recorder_script``) and drawn as an HTML replay; at every node the game API's
decision/chance split agrees with the event catalogue. A module that registers a kind of event and forgets one of
these fails here, whatever the module is called (the drift of the game API's and the review's own lists of
decision kinds would have been caught: both are now the catalogue's).

The championship's races come from a season (# 21): ``test_registry_lists`` plays one through the game API.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from recorder_races import explicit
from rules.modules.garage.test_recorder import record  # the recorder driven by recorder_script

from heatlog.bots import Options, heuristic_bot, random_bot
from heatlog.engine import apply, replay, state_from_position, state_to_position, waiting_for
from heatlog.engine.events import CHANCE, DECISION, REGISTRY
from heatlog.engine.game import play_out, to_move
from heatlog.engine.module import MODULES as UNITS_REGISTRY
from heatlog.engine.ruleset import MODULES
from heatlog.module_data import module_block
from heatlog.races import legend_cars, race_started_event
from heatlog.simulate import default_cars
from heatlog.simulate.world import race_events
from heatlog.validation import validate_event
from heatlog.views.replay import build_replay
from heatlog.views.replay_html import render_html

Event = dict[str, Any]
GARAGE = {"upgrades": "all", "draft": "snake", "expansions": ["heavy-rain", "tunnel-vision"]}
#: The modules a simulated race takes by itself, and how; the championship's come from a season (see above).
OPTIONS: dict[str, dict[str, Any]] = {
    "garage": {"garage": GARAGE},
    "legends": {"legends": 1},
    "weather": {"weather": True},
}
SEASON_ONLY = {"championship"}
#: The modules registered as one unit with an example block (engine/module.py: Module.example): this test plays
#: them from their own descriptor and data file, alone and with the others, without naming them.
UNITS = sorted(m for m, u in UNITS_REGISTRY.items() if u.example is not None and m not in OPTIONS)
COMBOS = [(m,) for m in OPTIONS] + [("garage", "legends", "weather"), ("legends", "weather")]
COMBOS += [(m,) for m in UNITS] + [("garage", "legends", "weather", m) for m in UNITS]


def test_every_registered_module_is_covered() -> None:
    """A new module must say how it is simulated here (or that it comes only from a season), or carry an example
    block in its descriptor."""
    assert set(MODULES) == set(OPTIONS) | SEASON_ONLY | set(UNITS)
    assert set(UNITS_REGISTRY) == set(MODULES)  # every module is one registered unit
    for name in MODULES:
        assert any(e.module == name for e in REGISTRY.values()), f"{name} registers no event type"


def _start(modules: tuple[str, ...]) -> Event:
    cars = default_cars(2)
    opts: dict[str, Any] = {}
    for m in modules:
        opts.update(OPTIONS.get(m, {}))
    legends = opts.pop("legends", 0)
    ev = race_started_event(
        track="usa",
        cars=cars,
        laps=1,
        mode="open",
        legends=legend_cars(legends, [c["colour"] for c in cars]) if legends else None,
        **opts,
    )
    for m in modules:  # a unit's own block, from its data file (heatlog.module_data.module_block)
        if m in UNITS:
            ev["modules"] = [*ev.get("modules", []), m]
            ev[m] = module_block(m)
    return validate_event(ev)


def _race(modules: tuple[str, ...], seed: int) -> list[Event]:
    start = _start(modules)
    play = explicit(random_bot)  # a host's answers (a declined slipstream in words …)
    return list(race_events(start, {c["name"]: play for c in start["cars"] if not c.get("legend")}, seed))


@pytest.mark.parametrize("modules", COMBOS, ids="+".join)
def test_a_module_race_meets_the_contract(modules: tuple[str, ...], tmp_path: Path) -> None:
    events = _race(modules, seed=3)
    kinds = {e["type"] for e in events}
    for m in modules:  # the module's own events happen
        assert any(REGISTRY[k].module == m for k in kinds), f"no {m} event in the race"
    # simulated to the finish; the fold of the log is the incremental state, through positions on the way
    state = None
    for i, ev in enumerate(events):
        if state is not None and state.phase != "over":
            w = waiting_for(state)
            node = to_move(state)
            decision = any(k in DECISION for k in w.kinds)  # what fits now, by the catalogue
            assert node.kind == ("decision" if decision and w.cars else "chance"), (i, w.due, node)
            assert (w.due in CHANCE) != (w.due in DECISION), w.due  # the catalogue says which it is
            if i % 7 == 0:
                pos = json.loads(json.dumps(state_to_position(state)))
                assert json.loads(json.dumps(state_to_position(state_from_position(pos)))) == pos, i
        state = apply(state, ev, atomic=False)
    assert state is not None and state.phase == "over"
    assert state_to_position(replay(events)) == state_to_position(state)
    # played out through the game API from its start
    rng = random.Random(5)
    world = apply(None, events[0])
    play_out(world, lambda s, n: heuristic_bot(s, n, Options(s, n), rng), rng)
    assert world.phase == "over"
    # drawn as an HTML replay
    html = render_html(build_replay(events, race=1, name="+".join(modules)))
    assert "<html" in html.lower() and len(html) > 1000
    # recorded through the recorder's notation: the log typed in gives the same log
    recorded, asked = record(tmp_path, events, "open")
    strip = [{k: v for k, v in e.items() if k not in ("raw", "at")} for e in events]
    assert recorded == strip
    decided = {e["type"] for e in events if e["type"] in DECISION and REGISTRY[e["type"]].module in modules}
    assert decided <= kinds and asked
