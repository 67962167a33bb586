"""The heuristic's keeps never change a decision (principle 6: the same seed gives the same simulation, whatever
ran before in the process).

The heuristic keeps what it computes across races: track plans shared by content (``HeuristicBot._by_content``),
value rows and look-aheads shared by stretch of track (``heatlog.bots.Stretches``), module-level tables (plays by
hand, flip sums, card plans). A kept value is found again by another race, of another kind, on another track plan,
so it must be the value its key names and nothing else: a value that depends on what the key leaves out (a car's
cards, the race's Rules or modules) or is written under another key makes a race depend on what ran before. It
happened: a cluttered Garage play holding a Heat-cost card (# 13.2, 18.26) was weighed at Speed -1, and ``row[-1]``
is a value row's last speed, so Speed -1's value was kept as Speed 13's for every plan sharing the row
(``tests/test_module_contract.py::test_a_season_race_does_not_depend_on_what_ran_before``).
docs/design.md ("What a keep's key must hold") states the rule.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import heatlog.bots
from heatlog.bots import Bot, HeuristicBot
from heatlog.engine import rules as _registered  # noqa: F401  (importing the rules registers every module)
from heatlog.engine.cards import HEAT
from heatlog.engine.module import MODULES
from heatlog.formats.module_data import module_blocks
from heatlog.races import expand_modules, race_started_event
from heatlog.simulate import default_cars, simulate_race
from heatlog.simulate.world import race_events

Event = dict[str, Any]
GARAGE = {"upgrades": "all", "draft": "snake", "expansions": ["heavy-rain", "tunnel-vision"]}
#: How a simulated race takes each module (as tests/test_module_contract.py); a unit with an example block
#: (engine/module.py: ``Module.example``) is taken by its block, without naming it here.
OPTIONS: dict[str, dict[str, Any]] = {
    "garage": {"garage": GARAGE},
    "legends": {"legends": {"cars": 1}},  # a count: Legend colours the cars leave free
    "weather": {"weather": {}},
}
SEASON_ONLY = {"championship"}  # its races come from a season (# 21)


def _kinds() -> dict[str, dict[str, Any]]:
    """Every kind of race the registry allows a simulated race to be, by name: the base game, each registered
    module alone, and the first wave's modules together."""
    kinds: dict[str, dict[str, Any]] = {"base": {}}
    for name, unit in sorted(MODULES.items()):
        if name in OPTIONS:
            kinds[name] = OPTIONS[name]
        elif unit.example is not None:
            kinds[name] = module_blocks([name])
        else:
            assert name in SEASON_ONLY, f"module {name}: say how a race plays it here"
    kinds["garage+legends+weather"] = {**OPTIONS["garage"], **OPTIONS["legends"], **OPTIONS["weather"]}
    return kinds


KINDS = _kinds()


def _start(kind: str, track: str, seed: int) -> Event:
    """``race_started`` of a two-car open race of ``kind``, as ``simulate_race`` makes it."""
    cars = default_cars(2)
    return race_started_event(track=track, cars=cars, mode="open", seed=seed, modules=expand_modules(KINDS[kind], cars))


def _drivers(start: Event, bot: Bot) -> dict[str, Bot]:
    return {c["name"]: bot for c in start["cars"] if not c.get("legend")}


def _alone(start: Event) -> list[Event]:
    """The race played by a bot of its own: every keep of the bot starts empty."""
    return list(race_events(start, _drivers(start, HeuristicBot()), start["seed"]))


def _interleaved(starts: list[Event], bot: Bot) -> list[list[Event]]:
    """The races played by one bot, event by event in turn: each race's decisions meet the others' keeps."""
    runs: list[Iterator[Event]] = [race_events(s, _drivers(s, bot), s["seed"]) for s in starts]
    logs: list[list[Event]] = [[] for _ in starts]
    live = list(range(len(runs)))
    while live:
        for i in list(live):
            ev = next(runs[i], None)
            if ev is None:
                live.remove(i)
            else:
                logs[i].append(ev)
    return logs


def test_every_registered_module_is_a_kind_here() -> None:
    assert set(MODULES) == (set(KINDS) - {"base", "garage+legends+weather"}) | SEASON_ONLY


def test_interleaved_races_of_every_kind_decide_as_each_alone() -> None:
    """One bot driving a race of every kind the registry allows (base, Garage, Legends, weather, …), an event of
    each in turn, makes each race's decisions as a bot of its own does."""
    starts = [_start(kind, "usa", seed) for seed, kind in enumerate(sorted(KINDS))]
    alone = [_alone(s) for s in starts]
    assert _interleaved(starts, HeuristicBot()) == alone


def test_a_value_row_holds_each_speed_s_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cause of the season's bug: every value a Garage race leaves in the rows its track plans keep (shared
    by stretch, across races) is the value of its own speed on a plan that kept nothing. The race weighs a
    cluttered play holding a Heat-cost card (# 13.2, 18.26: its base value -1), whose value went to ``row[-1]``,
    the row's last speed; it is now valued as no move (the test below), so no speed below 0 is ever asked."""
    from heatlog.bots import _TrackPlan  # (the plans' rows are what is checked)

    asked: list[int] = []
    value = _TrackPlan.value

    def watching(tp: Any, p: int, speed: int, engine: int, gear: int, adrenaline: bool) -> float:
        if speed < 0:
            asked.append(speed)
        return value(tp, p, speed, engine, gear, adrenaline)

    monkeypatch.setattr(_TrackPlan, "value", watching)
    bot = HeuristicBot()
    state = simulate_race(None, track="italy", cars=2, seed=2, modules={"garage": GARAGE}, bots=bot)[2]
    monkeypatch.setattr(_TrackPlan, "value", value)
    assert not asked  # # 13.2: a cluttered play moves nothing (the race holds some: the test below)
    car = next(iter(state.cars.values()))
    fresh = HeuristicBot()._track_plan(state, car)
    plans = list(bot._by_content.values())
    plans += [v for tp in plans for v in tp.variants.values()]
    checked = 0
    for tp in plans:
        twin = fresh.variant(state, car, tp.corner_limits)
        for (p, engine, gear, adrenaline), row in tp.rows.items():
            for speed, kept in enumerate(row):
                if kept is not None:
                    assert kept == twin.value(p, speed, engine, gear, adrenaline), (p, engine, gear, speed)
                    checked += 1
    assert checked > 100


@settings(max_examples=6, deadline=None)
@given(
    races=st.lists(
        st.tuples(st.sampled_from(sorted(KINDS)), st.sampled_from(["usa", "italy"]), st.integers(0, 50)),
        min_size=2,
        max_size=3,
    )
)
def test_a_process_s_races_decide_alike_in_any_order(races: list[tuple[str, str, int]]) -> None:
    """Races of random kinds, tracks and seeds, played one after another by one bot, in one order and in the
    reverse order: each race is the same race both times."""
    starts = [_start(kind, track, seed) for kind, track, seed in races]
    bot = HeuristicBot()
    forward = [list(race_events(s, _drivers(s, bot), s["seed"])) for s in starts]
    bot = HeuristicBot()
    backward = [list(race_events(s, _drivers(s, bot), s["seed"])) for s in reversed(starts)]
    assert forward == backward[::-1]


def test_a_garage_race_plans_with_its_own_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    """# 18.2: a race carries its cards, and a token is a card of that race's catalogue (an old or imported log may
    define ``U1`` otherwise than the card file). A race on other definitions of the same tokens, after a race on
    the card file's, decides as it does in a process that played nothing before (the card plans were kept by
    token, the first met for good)."""

    def fresh_process() -> None:  # the module-level keeps as a new process has them
        for name, empty in (("_MODULE_CARDS", {}), ("_PLANNED_CARDS", [None]), ("_PLAYS", {}), ("_HAND_PREP", [None])):
            monkeypatch.setattr(heatlog.bots, name, empty)

    ours = _start("garage", "usa", 1)
    theirs = copy.deepcopy(ours)
    for card in theirs["cards"].values():  # other Speeds, no Heat cost
        if isinstance(card.get("speed"), int) and card["speed"] < 6:
            card["speed"] = 6 - card["speed"]
        card.get("symbols", {}).pop("heat", None)
    fresh_process()
    alone = _alone(theirs)
    fresh_process()
    assert _alone(ours) != alone
    assert _alone(theirs) == alone


def test_a_cluttered_play_with_a_heat_cost_card_is_valued_as_no_move_and_no_cost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """# 13.2, 18.26: a cluttered play moves nothing and none of its cards takes effect, so a Heat-cost Garage card
    in it costs no Heat. The heuristic values such a play as the plain cluttered play holding as many Heat: the
    same no-move, no-cost value (it was valued as a move at Speed -1 with the card's Heat cost paid). Both orders
    of the two plays are weighed: the first of two equal values is kept, so each order's first is chosen only when
    the values are equal."""
    plays_of = heatlog.bots._plays
    seen: list[tuple[Any, str, int, Any]] = []  # (state, car, gear, the cluttered play with a Heat cost)
    current: list[tuple[Any, str]] = []
    plan_of = HeuristicBot._plan_of

    def planning(bot: HeuristicBot, state: Any, car: Any, *args: Any, **kwargs: Any) -> Any:
        current[:] = [(state, car.name)]
        return plan_of(bot, state, car, *args, **kwargs)

    def watching(hand: dict[str, int], gear: int, *args: Any) -> Any:
        out = plays_of(hand, gear, *args)
        if not seen and current:
            for play in out:
                if play[0] < 0 and play[2] > 0:
                    state, name = current[0]
                    seen.append((state.copy(), name, gear, play))
                    break
        return out

    monkeypatch.setattr(HeuristicBot, "_plan_of", planning)
    monkeypatch.setattr(heatlog.bots, "_plays", watching)
    simulate_race(None, track="italy", cars=2, seed=2, modules={"garage": GARAGE}, bots=HeuristicBot())
    assert seen, "no cluttered play with a Heat cost was weighed: pick another seed"
    monkeypatch.setattr(HeuristicBot, "_plan_of", plan_of)
    state, name, gear, costly = seen[0]
    base, _, heat, cards, _ = costly
    assert base == -1 and heat > 0 and HEAT in cards
    # the plain cluttered play: the Heat-cost cards swapped for 1s, as many Heat
    plain = tuple(c if c == HEAT or heatlog.bots._card_plan(c)[2] == 0 else "1" for c in cards)
    assert plain != cards and plain.count(HEAT) == cards.count(HEAT)
    for first, second in ((costly, (-1, 0, 0, plain, ())), ((-1, 0, 0, plain, ()), costly)):
        monkeypatch.setattr(heatlog.bots, "_plays", lambda *a, _p=(first, second): list(_p))
        fresh = state.copy()
        chosen = HeuristicBot()._plan(fresh, fresh.cars[name], gear)
        assert chosen == (gear, first[3]), (first, second)
