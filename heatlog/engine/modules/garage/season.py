"""The Garage in a championship season (MODULES.md 18, 21; ``Module.season``): one upgrade drafted before each race
(# 21.2), kept from race to race (# 21.11), and the sponsorship cards that come with it (# 21.4-21.7).

Its season block is ``season_started.options.garage``: ``{"upgrades", "expansions", "order", "swap"}``, the
upgrades in the Garage deck and the expansions (# 18.2, 18.3), who picks first and whether the first picker may
swap (MA11, kept configurable: BGA's ``lowest_first`` and the swap by default). The draft itself is the
championship's (engine/modules/championship/rules.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import MalformedInput
from ...module import Said
from ..championship.rules import DRAFT_ORDERS
from . import MODULE, PHASE
from .cards import GarageOptions

if TYPE_CHECKING:
    from ...state import RaceState
    from ..championship.rules import SeasonGarage

Event = dict[str, Any]


def setup(given: Any, drivers: Sequence[Mapping[str, Any]], data: Any, said: Said) -> Any:
    """``season_started.options.garage`` from the caller's choice (None: no Garage), checked (# 18.2, 18.3, MA11)."""
    if given is None:
        return None
    if not isinstance(given, Mapping):
        raise MalformedInput("the Garage's options are a mapping (upgrades, expansions, order, swap)")
    unknown = sorted(set(given) - {"upgrades", "expansions", "order", "swap"})
    if unknown:
        raise MalformedInput(f"unknown garage option {unknown[0]!r} (upgrades, expansions, order, swap)")
    try:
        chosen = GarageOptions.from_dict({k: v for k, v in given.items() if k in ("upgrades", "expansions")})
    except ValueError as exc:
        raise MalformedInput(str(exc)) from None
    order, swap = given.get("order", "lowest_first"), given.get("swap", True)
    if order not in DRAFT_ORDERS:
        chosen_order = said("draft_order", f"draft order {order!r}")
        raise MalformedInput(f"{chosen_order}: choose {' or '.join(DRAFT_ORDERS)} (MA11)")
    if not isinstance(swap, bool):
        raise MalformedInput("swap must be true or false (MA11)")
    return {"upgrades": chosen.upgrades, "expansions": list(chosen.expansions), "order": order, "swap": swap}


def options(block: Any) -> GarageOptions:
    """The Garage of a season's races (# 21.2: its upgrades drafted one before each race)."""
    return GarageOptions.from_dict({"upgrades": block["upgrades"], "draft": "draft", "expansions": block["expansions"]})


def race(block: Any) -> Any:
    """The Garage's options in each race of the season (# 21.2)."""
    return options(block).to_dict() if block is not None else None


def finished(state: RaceState, drivers: list[str], events: list[Event] | None) -> dict[str, Any]:
    """What a finished race gives the season's next ones (# 21.11: the upgrades stay; MA7: the sponsorship cards
    kept, if the season keeps them; # 18.24: the one-time cards out of the supply; # 18.5, 21.2: what its draft put
    in the box, None for a market recorded by its size only); {} for a race without the Garage. Only the drivers
    draft and take sponsorship cards (# 19.10, 19.12)."""
    from ..championship.rules import draft_leftovers, sponsor_deck, sponsors_held
    from . import garage_slot

    garage = garage_slot(state)
    if garage is None:
        return {}
    deck = sponsor_deck(state)
    return {
        "upgrades": {n: sorted(garage.owned.get(n, [])) for n in drivers},
        "sponsors": {n: sponsors_held(state, state.cars[n]) for n in drivers},
        "sponsors_used": dict(sorted(deck.used.items())) if deck else {},
        "box": draft_leftovers(events) if events is not None else None,
    }


#: The data files the season hands the hooks below (its descriptor's ``SeasonHook.files``): the Garage's cards and
#: the sponsorship cards (# 18.2, 21.5), read by the season (the engine reads no file).
GARAGE_CARDS, SPONSOR_CARDS = MODULE.season.files if MODULE.season is not None else ("", "")


def race_cards(block: Any, files: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Token -> definition of the sponsorship cards of a season's races (# 21.5: the base five, and the
    expansions' when their upgrades are in play, as BGA deals them): the race's cards too."""
    expansions = options(block).expansions
    cards = files[SPONSOR_CARDS]["cards"]
    return {c["id"]: dict(c) for c in cards if c["set"] == "base" or c["set"] in expansions}


def race_block(view: Any, index: int, files: Mapping[str, Any]) -> dict[str, Any]:
    """What the Garage adds to race ``index``'s championship block (``race_started.championship``): the season's
    draft before it (``garage``, # 21.2) and its sponsorship cards (``sponsors``, # 21.4-21.7). ``view``: the
    season's state (log/season_view.SeasonView: its options, drivers, races before this one and standings)."""
    return {"garage": draft_setup(view, index, files).to_dict(), "sponsors": sponsor_setup(view, index, files)}


def sponsor_setup(view: Any, index: int, files: Mapping[str, Any]) -> dict[str, Any]:
    """``championship.sponsors`` of race ``index`` (# 21.4, 21.5, MA7): the sponsorship deck (7 of each type), the
    cards each driver still holds after the previous race when the season keeps them (``sponsors_carry_over``,
    BGA's reading; otherwise they go back to the supply), and the one-time cards used so far that are still out
    of the supply (# 18.24; they come back when it runs out, # 21.7)."""
    deck = {t: int(c["copies"]) for t, c in race_cards(view.options["garage"], files).items()}
    prev = view.races[index - 2] if index > 1 else None
    carried: dict[str, list[str]] = {}
    used: dict[str, int] = {}
    if prev is not None:
        used = dict(prev.sponsors_used)
        if view.options["sponsors_carry_over"]:
            carried = {n: list(cs) for n, cs in prev.sponsors.items() if cs}
    return {"deck": deck, "carried": carried, "used": used}


def draft_setup(view: Any, index: int, files: Mapping[str, Any]) -> SeasonGarage:
    """The season's upgrade draft before race ``index`` (# 21.2, 21.11, MA11): the upgrades each driver owns
    after the races before it, the Garage deck the market draws from, and the pick order (the lowest-ranked
    driver first; the first race's is its grid's, the last car first).

    One Garage deck serves the whole season: what a draft leaves (the market's rest, an upgrade swapped back) goes
    to the box, out of the deck, and comes back only when the deck is too short for a market (BGA:
    ``Cards::$autoreshuffleCustom``, upgrades <- box; # 18.5 "removed from the game"). A market recorded by its
    size only leaves the box as it was: the deck is then an upper bound."""
    from ..championship.rules import SeasonGarage, draft_order
    from .cards import garage_deck, market_size

    rules = view.options["garage"]
    full = garage_deck(files[GARAGE_CARDS]["cards"], options(rules))
    need = market_size("draft", len(view.drivers))
    owned: dict[str, list[str]] = {}
    box: dict[str, int] = {}
    deck: dict[str, int] = {}
    for sr in view.races[:index]:
        held = [c for cs in owned.values() for c in cs]
        deck = _minus(full, held)
        if sum(_minus(deck, box).values()) >= need:
            deck = _minus(deck, box)
        else:
            box = {}  # the box is shuffled back into the deck
        if sr.index == index:
            break
        owned = {n: list(cs) for n, cs in sr.upgrades.items()}
        for c, n in (sr.box or {}).items():
            box[c] = box.get(c, 0) + n
    order, swap = rules.get("order", "lowest_first"), rules.get("swap", True)
    drafting = {d["name"] for d in view.drivers}  # # 19.12: Legends do not draft
    picks = tuple(n for n in draft_order(view.tables[index - 2], order) if n in drafting) if index > 1 else ()
    return SeasonGarage({n: tuple(cs) for n, cs in owned.items() if cs}, deck, picks, order, swap)


def _minus(deck: Mapping[str, int], cards: Sequence[str] | Mapping[str, int]) -> dict[str, int]:
    left = dict(deck)
    pairs = cards.items() if isinstance(cards, Mapping) else ((c, 1) for c in cards)
    for c, n in pairs:
        left[c] = max(0, left.get(c, 0) - n)
    return {c: n for c, n in left.items() if n}


def card_labels(tokens: Sequence[str], files: Mapping[str, Any]) -> str:
    """Upgrades and sponsorship cards by the short names a host types at the recorder (``body5 dramdo``,
    ``words.card_label``), "none" for none."""
    from .words import card_label

    cards = {c["id"]: c for c in (*files[GARAGE_CARDS]["cards"], *files[SPONSOR_CARDS]["cards"])}
    return " ".join(card_label(t, cards) for t in tokens) or "none"


def next_lines(view: Any, index: int, state: RaceState, files: Mapping[str, Any]) -> list[str]:
    """What the season carries into race ``index`` (# 21.11: the upgrades; MA7: the sponsorship cards kept) and
    what its draft waits for (# 21.2), under ``season next``'s line."""
    from ...decide import waiting_for

    block = state.rules.options["championship"]
    owned, carried = block["garage"]["owned"], block["sponsors"].get("carried", {})
    out = []
    for d in view.drivers:
        name = d["name"]
        ups, spons = card_labels(owned.get(name, []), files), card_labels(carried.get(name, []), files)
        out.append(f"  {name}: upgrades {ups}; sponsorship cards {spons}")
    w = waiting_for(state)
    if state.phase == PHASE:
        who = f" ({', '.join(w.cars)})" if w.cars else ""
        out.append(
            f"the upgrade draft (# 21.2) waits for {str(w.due).replace('_', ' ')}{who}: "
            f"heatlog record --race {view.races[index - 1].race}"
        )
    return out


def race_json(race: Any) -> dict[str, Any]:
    """A season race's keys in ``season show --json``: once it is over, the upgrades each driver owns after its
    draft (# 21.11) and the sponsorship cards each still holds (MA7); None before (and in a season without it)."""
    over = race.result is not None
    return {"upgrades": race.upgrades if over else None, "sponsorship_cards": race.sponsors if over else None}


def season_json(view: Any) -> dict[str, Any]:
    """The season's keys in ``season show --json``: its Garage options, and after the last race run each driver's
    upgrades (# 21.11) and the sponsorship cards kept (MA7: none when the season does not keep them)."""
    block = view.options.get(MODULE.name)
    done = [sr for sr in view.races if sr.result is not None]
    last = done[-1] if done and block is not None else None
    kept = (last.sponsors if view.options["sponsors_carry_over"] else {}) if last is not None else None
    return {"garage": block, "upgrades": last.upgrades if last is not None else None, "sponsorship_cards": kept}


def show_lines(data: Mapping[str, Any], files: Mapping[str, Any]) -> list[str]:
    """``season show``'s lines after the standings: each driver's upgrades (# 21.11) and the sponsorship cards kept
    (MA7) after the last race run, by the short names a host types."""
    if not data.get("upgrades"):
        return []
    done = sum(1 for r in data["races"] if r["finished"])
    out = [f"after race {done}: upgrades (# 21.11) and sponsorship cards kept (MA7)"]
    for d in data["drivers"]:
        ups = card_labels(data["upgrades"].get(d["name"], []), files)
        spons = card_labels((data["sponsorship_cards"] or {}).get(d["name"], []), files)
        out.append(f"  {d['name']}: {ups}; sponsorship cards {spons}")
    return out
