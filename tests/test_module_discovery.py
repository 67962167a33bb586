"""Lazy module discovery (issue 32 item 4; docs/design.md, "Lazy module discovery"): a base race loads no module
folder, while every public registry is whole, in its order, from its first access, and a module's race, event,
position key or name loads the modules before anything is read or refused. Each check runs in a fresh process
(the registry is process-wide)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

import heatlog.engine.rules  # noqa: F401  (the registries are whole once the rules are loaded)
from heatlog.engine import Turn, events, module, ruleset

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = ROOT / "replays"

PRELUDE = """
import json, sys
def loaded():
    found = [m for m in sys.modules if m.startswith("heatlog.engine.modules.") and m.count(".") == 3]
    return sorted(m.rsplit(".", 1)[-1] for m in found if m != "heatlog.engine.modules.circuits")
def events_of(name):
    with open(name) as fh:
        return [json.loads(line) for line in fh if line.strip()]
"""


def run(code: str) -> dict:
    """Run ``code`` (after PRELUDE) in a fresh interpreter; it prints one JSON value, returned."""
    done = subprocess.run(
        [sys.executable, "-c", PRELUDE + code], capture_output=True, text=True, cwd=REPLAYS, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    answer: dict = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def whole_order() -> list[str]:
    """The catalogue as it must read: the base types, then every module folder's, by Module.order then name."""
    base = [n for n, e in events.REGISTRY.items() if e.module == "base"]
    return base + [e.name for unit in module.descriptors() for e in unit.events]


def test_a_base_race_folds_and_reads_its_positions_without_any_module() -> None:
    said = run("""
from heatlog.engine import apply, state_from_position, state_to_position, waiting_for
from heatlog.engine.position import state_from_position
log = events_of("usa-4cars.jsonl")
positions = []
s = None
for ev in log:
    s = apply(s, ev)
    waiting_for(s).chance, waiting_for(s).text
    positions.append(s)
before = loaded()
unit = "heatlog.engine.unit" in sys.modules
import copy
from heatlog.engine.position import state_to_position
pos = [state_to_position(p) for p in positions[::40]]  # (writing a position asks every module: it loads them)
print(json.dumps({"before": before, "unit": unit, "after": loaded()}))
""")
    assert said["before"] == [] and not said["unit"]  # the fold loaded no module folder, no descriptor class
    assert said["after"] == sorted(u.name for u in module.descriptors())


def test_reading_a_base_position_loads_no_module_and_a_module_position_loads_them() -> None:
    said = run("""
from heatlog.engine import apply, state_to_position
def positions(name):
    s, out = None, []
    for ev in events_of(name):
        s = apply(s, ev)
        out.append(json.dumps(state_to_position(s)))
    return out
base, garage = positions("usa-4cars.jsonl"), positions("usa-garage-legends-weather.jsonl")
print(json.dumps({"base": base[::25], "garage": garage[::60]}))
""")
    for kind, texts in said.items():
        for text in texts:
            got = run(f"""
from heatlog.engine import state_from_position, state_to_position
pos = json.loads({text!r})
s = state_from_position(pos)
print(json.dumps({{"loaded": loaded(), "same": state_to_position(s) == pos}}))
""")
            assert got["same"]
            assert got["loaded"] == ([] if kind == "base" else sorted(u.name for u in module.descriptors()))


@pytest.mark.parametrize("name", ["REGISTRY", "CHANCE", "DECISION", "MODULE_CHANCE"])
@pytest.mark.parametrize("rules_first", [True, False])
def test_every_public_catalogue_name_is_whole_once_the_rules_are_loaded(name: str, rules_first: bool) -> None:
    """As before lazy discovery: a name read after the rules are loaded is whole at once; one taken before (the
    object) is whole once they load (the base types are theirs)."""
    said = run(f"""
if {rules_first}:
    import heatlog.engine.rules
from heatlog.engine.events import {name} as first
import heatlog.engine.rules
from heatlog.engine import Turn, events, module, ruleset
print(json.dumps({{"first": sorted(first), "registry": list(events.REGISTRY), "chance": sorted(events.CHANCE),
    "modules": list(module.MODULES), "builders": list(ruleset.MODULES)}}))
""")
    assert said["registry"] == whole_order() == list(events.REGISTRY)
    assert said["chance"] == sorted(events.CHANCE)
    assert said["first"] == sorted(getattr(events, name))
    assert said["modules"] == [u.name for u in module.descriptors()] == list(module.MODULES)
    assert said["builders"] == list(ruleset.MODULES)


@pytest.mark.parametrize("rules_first", [True, False])
def test_the_module_registry_is_whole_once_the_rules_are_loaded_and_in_its_order(rules_first: bool) -> None:
    said = run(f"""
if {rules_first}:
    import heatlog.engine.rules
from heatlog.engine.module import MODULES
from heatlog.engine.ruleset import MODULES as BUILDERS
import heatlog.engine.rules
from heatlog.engine import events
print(json.dumps({{"modules": list(MODULES), "builders": list(BUILDERS), "registry": list(events.REGISTRY),
    "loaded": loaded()}}))
""")
    names = [u.name for u in module.descriptors()]
    assert said["modules"] == names == said["builders"] and said["loaded"] == sorted(names)
    assert said["registry"] == whole_order()


def test_an_engine_name_of_the_package_loads_the_rules_and_the_registries_read_whole() -> None:
    said = run("""
from heatlog.engine import apply  # (the package's names load the rules first, engine/__init__.py)
from heatlog.engine.module import MODULES
print(json.dumps({"modules": list(MODULES)}))
""")
    assert said["modules"] == [u.name for u in module.descriptors()]


def test_a_race_listing_a_module_loads_them_and_plays_as_with_the_whole_registry() -> None:
    for name in ("usa-garage-4cars.jsonl", "netherlands-legends-weather.jsonl", "gb-solo-legends.jsonl"):
        lazy = run(f"""
from heatlog.engine import replay, state_to_position
s = replay(events_of({name!r}))
print(json.dumps({{"pos": state_to_position(s), "loaded": loaded()}}))
""")
        whole = run(f"""
from heatlog.engine.events import REGISTRY
from heatlog.engine import replay, state_to_position
print(json.dumps({{"pos": state_to_position(replay(events_of({name!r}))), "loaded": loaded()}}))
""")
        assert lazy == whole


def test_a_module_event_or_key_in_a_base_race_is_refused_in_that_module_s_words() -> None:
    """# 19.1 (a Legend car needs the Legends), and a module's event in a race without it: refused by its module,
    the same words as when the registry was whole before the race began."""
    code = """
from heatlog.engine import apply, HeatlogError
log = events_of("usa-4cars.jsonl")
out = []
s = None
for ev in log[:12]:
    s = apply(s, ev)
for bad in ({"type": "weather_drawn", "tile": 1}, {"type": "speed_chosen", "car": "Red", "speed": 3},
            {"type": "no_such_type"}):
    try:
        apply(s.copy(), bad)
        out.append("accepted")
    except HeatlogError as exc:
        out.append(str(exc))
start = dict(log[0], cars=[dict(log[0]["cars"][0], legend=True), *log[0]["cars"][1:]])
try:
    apply(None, start)
except HeatlogError as exc:
    out.append(str(exc))
try:
    apply(None, dict(log[0], modules=["no_such_module"]))
except HeatlogError as exc:
    out.append(str(exc))
print(json.dumps(out))
"""
    lazy = run(code)
    whole = run("from heatlog.engine.module import MODULES\n" + code)
    assert lazy == whole
    assert len(lazy) == 5 and "accepted" not in lazy
    assert "Legends" in lazy[3] and "19.1" in lazy[3]
    for unit in module.descriptors():  # an unknown module is named among every module there is
        assert unit.name in lazy[4]


def test_base_keys_and_phases_are_no_module_s() -> None:
    """What the core takes for a base race's own (engine/module.py: BASE_CAR_KEYS, BASE_PHASES) claims nothing a
    module claims: a module's car key or phase always loads the modules before it is read."""
    for unit in module.descriptors():
        assert not set(unit.car_keys) & module.BASE_CAR_KEYS, unit.name
        assert not set(unit.phases) & module.BASE_PHASES, unit.name
        assert not set(unit.before_decks) & module.BASE_PHASES, unit.name
        if unit.turn_record is not None:  # a turn's keys of its own: none of Turn's (a position's base turn keys)
            assert not set(unit.turn_record.keys) & {f.name for f in fields(Turn)}, unit.name
    assert set(ruleset.MODULES) == set(module.MODULES) == {u.name for u in module.descriptors()}


def test_threads_that_need_the_modules_at_once_each_get_them_whole() -> None:
    """The table server's threads: one thread completing the registry while another's race lists a module makes
    the other wait, never find a module missing (a race begun meanwhile is refused as 'unknown module')."""
    said = run("""
import threading
import heatlog.engine.rules
from heatlog.engine import replay, HeatlogError
logs = [events_of(n)[:40] for n in ("usa-garage-4cars.jsonl", "netherlands-legends-weather.jsonl",
                                    "gb-solo-legends.jsonl", "usa-weather-4cars.jsonl")] * 3
gate = threading.Barrier(len(logs))
out = [None] * len(logs)
def play(i):
    gate.wait()
    try:
        out[i] = replay(logs[i]).events
    except (HeatlogError, ValueError) as exc:
        out[i] = str(exc)
threads = [threading.Thread(target=play, args=(i,)) for i in range(len(logs))]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(out))
""")
    assert all(isinstance(n, int) for n in said), said


def test_every_descriptor_class_is_still_a_name_of_engine_module() -> None:
    """engine/unit.py's classes are ``heatlog.engine.module``'s names too (the folders and the shells import them
    from there), the same objects."""
    from heatlog.engine import unit

    classes = [n for n, v in vars(unit).items() if isinstance(v, type) and v.__module__ == unit.__name__]
    assert "Module" in classes and len(classes) >= 18
    for name in [*classes, "GO_ON", "EndValue"]:
        assert getattr(module, name) is getattr(unit, name), name
