"""``RaceState.copy`` (and ``Turn.copy``) against ``copy.deepcopy``: equal, and sharing nothing mutable.

The engine copies a state for every event that may fail after a partial change (the door's rollback, what-if
previews, playouts), so the copy is written out field by field instead of walked generically; these tests keep
it exact as the dataclasses grow: a new list, dict or mutable object that the copy forgot to copy is shared,
and the identity checks below name it.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from heatlog.engine import apply
from heatlog.engine.redact import open_to_table
from heatlog.engine.state import NO_RECORDS, Car, RaceState, Turn
from heatlog.simulate import simulate_race

# Immutable (or never changed once made) and shared by design: see RaceState.copy.
SHARED_STATE = {"track", "rules", "cards"}
CONFIGS = [
    {"bots": "random"},
    {"bots": "heuristic", "modules": {"legends": {"cars": 1}, "weather": {}}},
    {"bots": "random", "modules": {"garage": {"upgrades": "all", "draft": "snake"}}},
]


def _mutable(value: Any) -> bool:
    if value is NO_RECORDS:  # Turn.modules' shared empty default (it refuses a change: copies share it)
        return False
    if isinstance(value, (list, dict, set)):
        return True
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return not type(value).__dataclass_params__.frozen  # type: ignore[attr-defined]
    return False


def _deepcopy(state: RaceState) -> RaceState:
    """``copy.deepcopy`` keeping what a copy shares by design (LegendRules compare by identity)."""
    memo = {id(getattr(state, name)): getattr(state, name) for name in SHARED_STATE}
    legends = state.modules.get("legends")  # the Legends' slot: its rules shared, its deck copied
    if legends is not None:
        memo[id(legends.rules)] = legends.rules
    weather = state.modules.get("weather")  # the weather's slot: immutable, shared by copies (rules, conditions)
    if weather is not None:
        memo[id(weather)] = weather
    return copy.deepcopy(state, memo)


def _assert_unshared(a: Any, b: Any, where: str, skip: set[str] = frozenset()) -> None:  # type: ignore[assignment]
    """No mutable field of ``a`` is the same object in ``b`` (nor a mutable item of a list field)."""
    for f in dataclasses.fields(a):
        if f.name in skip:
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if _mutable(x):
            assert x is not y, f"{where}.{f.name} is shared by the copy"
        if isinstance(x, list) and f.name != "turns":  # completed turns are shared (never changed again)
            for i, (p, q) in enumerate(zip(x, y, strict=True)):
                if _mutable(p):
                    assert p is not q, f"{where}.{f.name}[{i}] is shared by the copy"


def _states(config: dict[str, Any], seed: int, table: bool) -> list[RaceState]:
    _, events, _ = simulate_race(None, seed=seed, track="usa", cars=4, **config)
    if table:
        events = open_to_table(events)
    out, state = [], None
    for i, ev in enumerate(events):
        state = apply(state, ev, atomic=False)
        if i % 7 == 3 or (state.turn is not None and state.turn.corners):
            out.append(state.copy())  # (a copy, so the race goes on without it)
    return out


@pytest.mark.parametrize("table", [False, True], ids=["open", "table"])
@pytest.mark.parametrize("config", CONFIGS, ids=["base", "legends-weather", "garage"])
def test_copy_is_a_deepcopy_that_shares_nothing_mutable(config: dict[str, Any], table: bool) -> None:
    if table and "garage" in config:
        pytest.skip("the table-mode form of a Garage log is not what this test is about")
    states = _states(config, seed=3, table=table)
    turns = [s for s in states if s.turn is not None]
    assert turns and any(s.turn.corners for s in turns)  # type: ignore[union-attr]  # turns at every step
    for state in states:
        new = state.copy()
        assert new == _deepcopy(state)
        _assert_unshared(state, new, "state", SHARED_STATE | {"cars", "turn"})
        for name, car in state.cars.items():
            assert new.cars[name] is not car
            _assert_unshared(car, new.cars[name], f"cars[{name}]")
        if state.turn is not None:
            assert new.turn is not state.turn
            _assert_unshared(state.turn, new.turn, "turn")
            assert state.turn.copy() == copy.deepcopy(state.turn)
        assert new.turns == state.turns and new.last_turns == state.last_turns  # completed turns are shared


def test_the_copy_goes_on_alone() -> None:
    """Applying the rest of the race to a copy leaves the original as it was (and the other way round)."""
    _, events, _ = simulate_race(None, seed=5, track="usa", cars=4, bots="random", modules={"legends": {"cars": 1}})
    state = None
    for ev in events[:400]:
        state = apply(state, ev, atomic=False)
    assert state is not None and state.turn is not None
    before = _deepcopy(state)
    branch = state.copy()
    for ev in events[400:]:
        apply(branch, ev, atomic=False)
    assert branch.phase == "over"
    assert state == before


def test_every_field_is_listed() -> None:
    """The copies build each object from all its fields, in order: a field added to a class is carried over."""
    for cls in (Car, Turn, RaceState):
        names = [f.name for f in dataclasses.fields(cls)]
        assert list(cls.__slots__) == names  # type: ignore[attr-defined]


def test_the_shared_empty_defaults_of_a_turn_cannot_change_and_stay_themselves() -> None:
    """Turn's rarely filled lists and its use counts share one empty default (state.NO_CARDS, NO_USES): equal to
    [] and {}, copied, deep-copied and pickled as themselves, and any change raises instead of changing the
    default of every turn."""
    import pickle

    from heatlog.engine.state import NO_CARDS, NO_USES

    for shared, empty in ((NO_CARDS, []), (NO_USES, {})):
        assert shared == empty and copy.copy(shared) is shared and copy.deepcopy(shared) is shared
        assert pickle.loads(pickle.dumps(shared)) is shared
    # Turn.modules' (no module's record): pickled as NO_USES, as empty and as unchangeable
    assert NO_RECORDS == {} and copy.deepcopy(NO_RECORDS) is NO_RECORDS and not pickle.loads(pickle.dumps(NO_RECORDS))
    changes = [
        lambda: NO_CARDS.append("1"),
        lambda: NO_CARDS.extend(["1"]),
        lambda: NO_CARDS.__iadd__(["1"]),
        lambda: NO_CARDS.__setitem__(slice(0, 0), ["1"]),
        lambda: NO_USES.__setitem__("boost", 1),
        lambda: NO_USES.update(boost=1),
        lambda: NO_USES.setdefault("boost", 1),
        lambda: NO_RECORDS.__setitem__("legends", None),
    ]
    for change in changes:
        with pytest.raises(TypeError, match="shared"):
            change()
    assert NO_CARDS == [] and NO_USES == {}
