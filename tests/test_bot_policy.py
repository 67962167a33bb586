"""A module's bot policy is a hook of its descriptor (issue 26 build 1: "its bot policy hooks"): the bots ask the
registry for the race's modules' policies and name no module for their choices."""

from __future__ import annotations

import ast
import random
from pathlib import Path

from heatlog.bots import race_policies
from heatlog.engine.module import MODULES, BotPolicy
from heatlog.engine.modules.garage import garage_slot
from heatlog.simulate import simulate_race

BOTS = Path(__file__).resolve().parents[1] / "heatlog" / "bots"


def _names(path: Path) -> set[str]:
    """Every identifier, attribute and imported module the file's code names (not its comments or strings)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.update(node.module.split("."))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                out.update(alias.name.split("."))
        elif isinstance(node, ast.FunctionDef):
            out.add(node.name)
    return out


def test_the_bots_name_no_garage() -> None:
    # the Garage's draft values, its choices and its cards' plans are its bot policy (engine/modules/garage/bots.py)
    for path in sorted(BOTS.glob("*.py")):
        named = {n for n in _names(path) if "garage" in n.lower()}
        assert named == set(), f"{path.name} names the Garage: {sorted(named)}"


def test_the_bots_name_no_module() -> None:
    # issue 26 build 7: the weather's sectors, the championship's event 10 and the Legends' cars are asked of the
    # Rules (cooldown_block, cooldown_bonus, boost_cost, shift_cost), the bot policies (spinout_eliminates) and the
    # state (a car with no hand): no module's name, no import of a module's folder
    words = [*MODULES, "legend"]
    for path in sorted(BOTS.glob("*.py")):
        named = {n for n in _names(path) for w in words if w in n.lower()}
        assert named == set(), f"{path.name} names a module: {sorted(named)}"


def test_every_policy_hook_gives_a_policy_whose_own_kinds_are_its_modules() -> None:
    from heatlog.engine.events import REGISTRY

    hooked = [m for m in MODULES.values() if m.bot_policy is not None]
    assert "garage" in {m.name for m in hooked}
    for m in hooked:
        policy = m.bot_policy()
        assert isinstance(policy, BotPolicy)
        assert all(REGISTRY[k].module == m.name for k in policy.owns if k in REGISTRY)
        assert policy.owns <= REGISTRY.keys()


def test_a_race_asks_the_policies_of_its_modules_only() -> None:
    _, _, base = simulate_race(None, track="usa", cars=2, seed=1, bots="random")
    assert race_policies(base) == ((), None)
    _, _, garage = simulate_race(
        None, track="usa", cars=2, seed=1, bots="random", modules={"garage": {"upgrades": "basic"}}
    )
    policies, planner = race_policies(garage)
    assert policies == (MODULES["garage"].bot_policy(),) and planner is policies[0]


def test_18_5_the_heuristic_drafts_by_the_garage_policy() -> None:
    # the draft's first pick of each seed (# 18.5) is the Garage policy's: the best card of the market by its values
    from heatlog.engine.modules.garage.bots import best_pick

    for seed in range(4):
        events, final = simulate_race(
            None,
            track="usa",
            cars=2,
            seed=seed,
            bots="heuristic",
            modules={"garage": {"upgrades": "all", "draft": "draft"}},
        )[1:]
        market = next(e for e in events if e["type"] == "garage_market")
        pick = next(e for e in events if e["type"] == "upgrade_picked")
        assert garage_slot(final) is not None
        assert pick["card"] == best_pick(market["cards"], garage_slot(final).cards)


def test_21_2_the_heuristic_swaps_by_the_garage_policy(tmp_path: Path) -> None:
    """# 21.2, MA11: the first picker's swap of a season's draft is the Garage policy's (its upgrade values), asked
    by the heuristic like any module decision (a season wrapped its bots in a swap of its own before): it gives
    back its least worth upgrade for the market's best when that gains, and keeps its cards otherwise."""
    from heatlog.bots import Options, heuristic_bot
    from heatlog.engine import apply, waiting_for
    from heatlog.engine.modules.garage.bots import upgrade_value
    from heatlog.log.racelog import RaceLog
    from heatlog.season import new_season, next_race

    drivers = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}, {"name": "Cy", "colour": "green"}]
    log = RaceLog(tmp_path / "s.db")
    season = new_season(log, drivers=drivers, published="1961", mode="open", modules={"garage": {"upgrades": "basic"}})
    state = log.project(next_race(log, season, seed=4)).state
    cards = garage_slot(state).cards
    deck = garage_slot(state).draft.deck  # the season's Garage deck (# 21.2)
    ranked = sorted((t for t in cards if deck.get(t)), key=lambda t: (upgrade_value(cards[t]), t))
    low, high = ranked[:3], ranked[-3:]
    apply(state, {"type": "garage_market", "v": 1, "round": 1, "cards": [*low, *high]})
    grid = list(state.grid)
    for name, card in zip(reversed(grid), low, strict=True):  # every car picks a poor card: the best ones are left
        apply(state, {"type": "upgrade_picked", "v": 1, "car": name, "card": card})
    w = waiting_for(state)
    assert w.due == "upgrade_swapped"
    first = w.cars[0]
    chosen = heuristic_bot(state, first, Options(state, first, w), random.Random(0))
    assert chosen is not None and chosen["type"] == "upgrade_swapped" and chosen.get("take") == high[-1]
    assert upgrade_value(cards[chosen["take"]]) > upgrade_value(cards[chosen["give"]])
