"""The Garage's hot-path shortcuts (issue 32) answer exactly what the long way answers, in every React of
simulated Garage races: ``mandatory_open`` against the React pool's mandatory uses (# 18.11, 18.12, 18.25), the
per-race symbol numbers against the card dicts (# 18.7), and the open-mode hand count against the joint
deduction (# 1.7)."""

from __future__ import annotations

import pytest

from heatlog.engine import react_pool
from heatlog.engine.knowledge import Knowledge
from heatlog.engine.modules.garage import garage_slot
from heatlog.engine.modules.garage.cards import symbol
from heatlog.engine.modules.garage.race import (
    advanced_options,
    mandatory_open,
    react_options,
    refresh_options,
    scrap_pending,
    shows_marked,
    shows_symbols,
)
from heatlog.engine.react import cooldown_uses
from heatlog.engine.ruleset import BASE_RULES, base_react_mandatory, build_rules
from heatlog.engine.state import RaceState
from heatlog.engine.steps import REACT
from heatlog.simulate import simulate_race

SYMBOLS = ("heat", "scrap", "cooldown", "reduce", "salvage", "super_cool", "draft", "direct", "accelerate", "boost")


def _reacts(upgrades: str, seed: int) -> list[tuple[RaceState, str]]:
    seen: list[tuple[RaceState, str]] = []

    def watch(state: RaceState, ev: dict) -> None:
        turn = state.turn
        if turn is not None and turn.sub == REACT:
            seen.append((state.copy(), turn.car))

    simulate_race(
        None,
        track="usa",
        cars=4,
        seed=seed,
        bots=["heuristic", "random", "heuristic", "random"],
        modules={"garage": {"upgrades": upgrades, "draft": "draft"}},
        watch=watch,
    )
    return seen


@pytest.mark.parametrize(("upgrades", "seed"), [("basic", 1), ("all", 2), ("all", 3)])
def test_shortcuts_match_the_long_way(upgrades: str, seed: int) -> None:
    states = _reacts(upgrades, seed)
    assert states
    mandatory = skipped = cools = unmarked = 0
    for state, name in states:
        car, turn = state.cars[name], state.turn
        assert turn is not None
        pool = react_pool(state, car, turn)
        assert mandatory_open(state, car, turn) == bool(pool.mandatory)  # # 18.25
        # the race's Rules point asked as React ends (rules._react_may_end), and its base (which builds the pool)
        assert state.rules.react_mandatory(state, car, turn) == bool(pool.mandatory)
        assert base_react_mandatory(state, car, turn) == bool(pool.mandatory)
        mandatory += bool(pool.mandatory)
        g = garage_slot(state)
        assert g is not None
        for token in turn.played:
            card = g.cards.get(token)
            for name_ in SYMBOLS:
                assert g.n(token, name_) == (symbol(card, name_) if card is not None else 0)
        know = Knowledge.of(car)
        assert car.hand is not None
        assert all(car.hand.get(t, 0) == know.hand_max(t) for t in car.pool)  # open mode: # 1.7
        if not shows_symbols(state, car, turn):  # the React pool's and the bot policy's shortcut (issue 32)
            assert react_options(state, car, turn) == advanced_options(state, car, turn) == []
            assert refresh_options(state, car, turn) == [] and not scrap_pending(state, turn)
            skipped += 1
        if not shows_marked(state, turn):  # the bot policy's shortcut (issue 32): a Direct Play card owned aside
            # the bot's Garage choices: card cooldowns, Stress relief (# 18.13–18.15), the Scrap, Refresh (# 18.21)
            assert not [o for o in react_options(state, car, turn) if o["type"] in ("cooldown", "stress_reduced")]
            assert refresh_options(state, car, turn) == [] and not scrap_pending(state, turn)
            unmarked += 1
        # # 7.2, 18.13: the pool's cooldown uses are the base pool's (a cooldown event reads only those, issue 32)
        assert not state.rules.pool_cooling
        if turn.flipping is None and not turn.cluttered:  # where a cooldown may come (handlers.react_turn)
            assert [u for u in pool.uses if u.symbol == "cooldown"] == cooldown_uses(state, car, turn)
            cools += 1
        # the same events asked twice (the per-race caches change nothing they answer)
        assert react_options(state, car, turn) == react_options(state, car, turn)
        assert advanced_options(state, car, turn) == advanced_options(state, car, turn)
    assert mandatory  # the races reach a mandatory use (a Heat cost or a Scrap), so the check is not vacuous
    assert 0 < skipped <= unmarked < len(states) and cools


def test_the_garage_answers_react_mandatory_without_the_pool() -> None:
    """# 18.25: a base race keeps the base point (never asked: its pool has no mandatory use); a Garage race asks
    ``mandatory_open``, which does not build the React pool (issue 32); a module built before the Garage that
    answers the point itself is still asked."""
    assert BASE_RULES.react_mandatory is base_react_mandatory
    rules = build_rules(["garage"], {"garage": {"upgrades": "all", "draft": "draft"}})
    assert rules.react_mandatory is mandatory_open
    assert not rules.unchanged.react_mandatory
    from dataclasses import replace

    from heatlog.engine.modules.garage.race import build

    asked: list[str] = []

    def theirs(state: RaceState, car: object, turn: object) -> bool:
        asked.append("theirs")
        return True

    both = build(replace(BASE_RULES, react_mandatory=theirs), {"upgrades": "basic", "draft": "draft"})
    state, name = _reacts("basic", 1)[0]
    car, turn = state.cars[name], state.turn
    assert turn is not None
    assert both.react_mandatory(state, car, turn) is (mandatory_open(state, car, turn) or True)
    assert asked == ([] if mandatory_open(state, car, turn) else ["theirs"])


def test_upgrade_values_kept_per_card_are_the_values() -> None:
    """The heuristic's card values, kept per card object, are the values worked out afresh (a copy of the card)."""
    from heatlog.engine.modules.garage.bots import upgrade_value

    states = _reacts("all", 4)
    g = garage_slot(states[-1][0])
    assert g is not None and g.cards
    for card in g.cards.values():
        first = upgrade_value(card)
        assert upgrade_value(card) == first == upgrade_value(dict(card))
    assert upgrade_value(None) == -4.0


def _hands(upgrades: str, seed: int) -> list[dict[str, int]]:
    """The cards held (count > 0) by every car at each gear step of a simulated Garage race."""
    from heatlog.engine.steps import GEARS

    seen: list[dict[str, int]] = []

    def watch(state: RaceState, ev: dict) -> None:
        if ev.get("type") == "cards_drawn" or state.step == GEARS:
            for car in state.cars.values():
                if car.hand is not None:
                    seen.append({c: n for c, n in car.hand.items() if n})

    simulate_race(
        None, track="usa", cars=4, seed=seed, modules={"garage": {"upgrades": upgrades, "draft": "draft"}}, watch=watch
    )
    return seen


def test_garage_plays_packed_are_the_plays_card_by_card() -> None:
    """The heuristic's plays of a Garage hand (issue 32: each card's plan packed in an integer, a play's sum by
    C-level calls over the engine's plays, # 4.1, 4.2, 13.1, 18.8, 18.10, 18.17) are the plays the long way lists,
    card by card over ``hand_playable_sets``: the same groups, the same first play of each, in the same order —
    with no card changing a limit, with some, for cluttered hands and for a card planned outside the packed range."""
    from heatlog import bots as heuristic
    from heatlog.engine.cards import HEAT

    hands = _hands("all", 5) + _hands("basic", 6)
    assert len(hands) > 100
    tokens = sorted({c for h in hands for c in h if c not in heuristic.VALUE and c != heuristic.STRESS})
    assert tokens  # Garage cards were held
    hands += [{HEAT: 3, tokens[0]: 1}, {HEAT: 5}, {tokens[0]: 2, HEAT: 2, heuristic.STRESS: 1}]  # # 13.1
    compared = with_ups = 0
    for hand in hands:
        held = [c for c in hand if c in tokens]
        for touching in (frozenset(), frozenset(held[:1]), frozenset(held[1:3]), frozenset(tokens)):
            ups = bool(touching) and any(hand.get(c) for c in touching)
            key = tuple(hand.items())  # (as _hand_key: the hand's packing is kept for its gears)
            for gear in (1, 2, 3, 4, 3, 2, 1):
                fast = heuristic._module_plays(hand, gear, touching, key)
                assert fast == heuristic._module_plays_long(hand, gear, touching, ups), (hand, gear, touching)
                assert fast == heuristic._module_plays(hand, gear, touching)
                compared += 1
                with_ups += any(p[4] for p in fast)
    assert compared > 1000 and with_ups > 100
    # a card planned outside the packed range takes the long way, with the same answer
    odd = "zz-odd-card"
    heuristic._MODULE_CARDS[odd] = (70, 0, 1)
    try:
        hand = {"1": 2, "3": 1, odd: 1, heuristic.STRESS: 1, tokens[0]: 2}
        for gear in (1, 2, 3, 4):
            for touching in (frozenset(), frozenset([odd]), frozenset([tokens[0]])):
                ups = any(hand.get(c) for c in touching)
                assert heuristic._module_plays(hand, gear, touching) == heuristic._module_plays_long(
                    hand, gear, touching, ups
                )
    finally:
        del heuristic._MODULE_CARDS[odd]


def test_a_garage_draws_worth_is_the_long_ways() -> None:
    """What the heuristic expects of a card it draws (# 11.1: its discard weighs each card in hand against it), read
    in a Garage race from the tokens its pool holds (issue 32: not the deck's counts of every token of the race),
    is exactly the long way's: one sum over ``deck_counts`` (with the discard pile and Play Area when the refill
    reaches into the reshuffle, # 5.6, 12.3), in its order — at every discard of simulated Garage races."""
    from heatlog.bots import UTILITY, _utility, draw_worth
    from heatlog.engine.steps import DISCARD

    def long_way(car, need: int) -> float | None:
        source = car.deck_counts()
        if car.deck_size < need + 2:
            for c in [*car.discard, *car.play_area]:
                source[c] += 1
        total = sum(source.values())
        if not total:
            return None
        return sum([(UTILITY[c] if c in UTILITY else _utility(c)) * n for c, n in source.items() if n]) / total

    seen: list[tuple] = []

    def watch(state: RaceState, ev: dict) -> None:
        turn = state.turn
        if turn is not None and turn.sub == DISCARD:
            car = state.cars[turn.car]
            need = 7 - car.hand_size  # # 12.2
            seen.append((draw_worth(car, need), long_way(car, need), car.deck_size < need + 2))

    for upgrades, seed in (("all", 4), ("basic", 7)):
        simulate_race(
            None,
            track="usa",
            cars=4,
            seed=seed,
            bots="heuristic",
            modules={"garage": {"upgrades": upgrades, "draft": "draft"}},
            watch=watch,
        )
    for fast, slow, _ in seen:
        assert fast == slow
    short = sum(1 for _, _, refill in seen if refill)
    assert len(seen) > 40 and 0 < short < len(seen)


def _started(upgrades: str = "all", seed: int = 0, **modules: dict) -> dict:
    _, events, _ = simulate_race(
        None, track="usa", cars=2, seed=seed, modules={"garage": {"upgrades": upgrades, "draft": "draft"}, **modules}
    )
    return events[0]


def test_races_on_the_same_cards_share_one_catalogue_and_card_mapping() -> None:
    """Races whose ``race_started.cards`` block is the same share one card catalogue and one Garage card mapping
    with its symbol numbers (issue 32: what the engine and the bots keep by them is then kept across races); a
    private copy, so that changing one log's events changes no other race; another block reads its own."""
    import copy

    from heatlog.engine import replay
    from heatlog.engine.cards import BASE_CATALOGUE

    first, second, basic = _started("all", 1), _started("all", 2), _started("basic", 3)
    assert first["cards"] == second["cards"] and first["cards"] is not second["cards"]
    a, b = replay([first]), replay([copy.deepcopy(second)])
    ga, gb = garage_slot(a), garage_slot(b)
    assert a.cards is b.cards and ga is not None and gb is not None
    assert ga.cards is gb.cards and ga.numbers is gb.numbers
    token = next(iter(ga.cards))
    assert ga.cards[token] == first["cards"][token] and ga.cards[token] is not first["cards"][token]
    first["cards"][token]["name"] = "changed after the race"  # the log's event, not the race's cards
    assert ga.cards[token]["name"] != "changed after the race"
    c = replay([basic])
    gc = garage_slot(c)
    assert gc is not None and gc.cards is not ga.cards and c.cards is not a.cards
    assert BASE_CATALOGUE.with_block(dict(second["cards"])) is a.cards
    # a block equal to it (==) but holding another value of a log (True or 1.0 for 1) is another block: its own
    # catalogue and card mapping (kept by the block's exact bytes, not by equality)
    one = next(t for t, d in second["cards"].items() if d.get("bga_type") == 1 and d.get("bga_type") is not True)
    for value in (True, 1.0):
        other = copy.deepcopy(second)
        other["cards"][one]["bga_type"] = value
        assert other["cards"] == second["cards"]
        d = replay([other])
        gd = garage_slot(d)
        assert d.cards is not a.cards and gd is not None and gd.cards is not ga.cards
        assert gd.cards[one]["bga_type"] is value
    with pytest.raises(ValueError):  # a refusal is never kept
        BASE_CATALOGUE.with_block({"U1": {"id": "U2"}})
    with pytest.raises(ValueError):
        BASE_CATALOGUE.with_block({"U1": {"id": "U2"}})


def test_the_planners_module_answers_are_kept_while_what_they_read_holds() -> None:
    """The heuristic's answers for module cards kept on a track plan (the plan of a play's limits, which cards
    change a limit, # 18.17) are kept for a race on the same cards, Rules and road conditions, and emptied for a
    race whose Rules or conditions differ (issue 32)."""
    from heatlog import bots as heuristic
    from heatlog.bots import HeuristicBot
    from heatlog.engine import replay
    from heatlog.engine.modules.garage.bots import card_plans

    bot = HeuristicBot()
    states = [
        replay([_started("all", 1)]),
        replay([_started("all", 2)]),
        replay([_started("all", 3, weather={})]),
        replay([_started("basic", 4)]),
    ]
    plans = [card_plans(s) for s in states]
    tp = bot._track_plan(states[0])
    heuristic._module_context(states[0], tp, plans[0])
    tp.by_play[("kept", False)] = tp
    tp.touch = ({}, frozenset())
    heuristic._module_context(states[1], tp, plans[1])  # the same cards, Rules of the same options, no weather
    assert plans[1] is plans[0] and ("kept", False) in tp.by_play and tp.touch is not None
    heuristic._module_context(states[2], tp, plans[2])  # the same cards, with weather: other Rules and conditions
    assert not tp.by_play and tp.touch is None
    tp.by_play[("kept", False)] = tp
    heuristic._module_context(states[3], tp, plans[3])  # other cards (basic upgrades)
    assert not tp.by_play


def test_rules_are_built_once_per_configuration() -> None:
    """``build_rules`` keeps its answer by the modules and the options' text (issue 32: a module race's
    race_started built its Rules anew): equal options give the same Rules, other options other Rules, and the
    kept Rules hold their own copy of the options (changing an event's dict afterwards changes no race)."""
    from heatlog.engine.modules.garage.race import build

    config = {"garage": {"upgrades": "all", "draft": "draft"}}
    rules = build_rules(["garage"], config)
    assert build_rules(["garage"], {"garage": {"draft": "draft", "upgrades": "all"}}) is rules
    assert build_rules(["garage"], {"garage": {"upgrades": "basic", "draft": "draft"}}) is not rules
    assert build_rules(["garage", "weather"], {**config, "weather": {}}) is not rules
    config["garage"]["upgrades"] = "basic"
    assert rules.options == {"garage": {"upgrades": "all", "draft": "draft"}}
    assert build_rules(["garage"], {"garage": {"upgrades": "all", "draft": "draft"}}) is rules
    # options that are not JSON are built afresh each time (never kept), and the answer is the same
    odd = {"garage": {"upgrades": "all", "draft": "draft", "x": {1, 2}}}
    assert build_rules(["garage"], odd) is not build_rules(["garage"], odd)
    # # 7.2: the Garage adds no cooldown use to the React pool; built on a module's uses that may, it keeps theirs
    assert not rules.pool_cooling and BASE_RULES.pool_cooling
    assert build_rules(["weather", "garage"], {**config, "weather": {}}).pool_cooling is False

    def theirs(state: RaceState, car: object, turn: object) -> list:
        return []

    from dataclasses import replace

    assert build(replace(BASE_RULES, react_uses=theirs), {"upgrades": "basic", "draft": "draft"}).pool_cooling


def test_a_kept_rules_survives_the_configurations_built_after_it() -> None:
    """``build_rules`` keeps at most 64 configurations and lets the oldest go: a Rules just built stays kept while
    a few others are built, however many were built before it (clearing them all when full made the answer depend
    on the number of races an earlier test had started: the full suite's order failed
    test_rules_are_built_once_per_configuration)."""
    for n in range(64):  # whatever number of configurations was kept before, one of these rounds fills the keep
        rules = build_rules(["garage"], {"garage": {"upgrades": "basic", "draft": "snake", "n": n}})
        for i in range(2):  # (three a round: the keep's count goes through every value up to 64)
            build_rules(["garage"], {"garage": {"upgrades": "all", "draft": "draft", "n": n, "m": i}})
        assert build_rules(["garage"], {"garage": {"n": n, "draft": "snake", "upgrades": "basic"}}) is rules
