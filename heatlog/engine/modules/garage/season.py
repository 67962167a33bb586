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


# ---------------------------------------------------------------------------------------------- entered by result
#
# A race of a Garage season entered by its result (``heatlog season result``, issue 29): its draft before the race
# (# 21.2, MA11) and its sponsorship cards (# 21.4-21.9, 18.24), as a host types them and as the rules check them
# (``SeasonHook.result_entry``, ``SeasonHook.result``; the season itself names no module).

#: What the season's refusals say when a season without the Garage is given its facts (# 21.2, 21.4).
NO_GARAGE = "a season without the Garage has no upgrades and no sponsorship cards"


def result_entry(
    block: Any, typed: Mapping[str, Any], files: Mapping[str, Any], refuse: Any, words: Any
) -> dict[str, Any]:
    """The ``draft`` and ``sponsors`` of a ``race_result`` from what a host typed (``--pick NAME:CARD``, the market,
    the swap GIVE:TAKE and each driver's sponsorship cards, ``--dealt NAME:CARD[,CARD]``...): cards by the names the
    recorder takes (``body5``, ``dramdo``, a unique prefix, a token), read by :func:`.cards.card_named`."""
    from ...errors import HeatlogError
    from .cards import card_named

    cards: dict[str, Any] = {}
    if block is not None:
        cards = {c["id"]: c for c in files[GARAGE_CARDS]["cards"]}
        cards.update(race_cards(block, files))  # # 21.5: the sponsorship cards

    def card(word: str, option: str, car: str | None = None) -> str:
        if block is None:
            raise refuse(NO_GARAGE, "21.2, 21.4", option=option)
        try:
            return card_named(word, cards)
        except HeatlogError as err:
            raise refuse(err.message, "18.2, 21.5", car=car, option=option, given=word) from None

    def per_car(specs: Sequence[str], option: str) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for spec in specs:
            car, sep, rest = str(spec).partition(":")
            if not sep or not car.strip():
                raise refuse("write NAME:CARD[,CARD...]", "21", option=option, given=spec)
            out.setdefault(car.strip(), []).extend(card(w, option, car.strip()) for w in words(rest, option))
        return out

    picks, market, swap = typed.get("picks") or (), typed.get("market"), typed.get("swap")
    entry: dict[str, Any] = {}
    if picks or market or swap:
        chosen = per_car(picks, "picks")
        for car, cs in chosen.items():
            if len(cs) != 1:  # # 21.2: one upgrade per race
                raise refuse(f"{car} picks one upgrade a race, not {len(cs)}", "21.2", car=car, option="picks")
        draft: Event = {"picks": {car: cs[0] for car, cs in chosen.items()}}
        if market:
            draft["market"] = [card(w, "market") for w in words(market, "market")]
        if swap:
            parts = words(swap.replace(":", " "), "swap")
            if len(parts) != 2:
                raise refuse(
                    "write GIVE:TAKE (the upgrade given back, the card taken from the market)",
                    "21.2",
                    option="swap",
                    given=swap,
                )
            draft["swap"] = {"give": card(parts[0], "swap"), "take": card(parts[1], "swap")}
        entry["draft"] = draft
    sponsors: dict[str, dict[str, list[str]]] = {}
    for key in ("dealt", "press", "event", "used"):
        for car, cs in per_car(typed.get(key) or (), key).items():
            sponsors.setdefault(car, {})[key] = cs
    if sponsors:
        entry["sponsors"] = sponsors
    return entry


def result(view: Any, index: int, block: Any, race: Any, entry: Mapping[str, Any], refuse: Any) -> dict[str, Any]:
    """Check the draft and the sponsorship cards of race ``index`` entered by its result against the rules, and say
    what they give the season (``SeasonRace`` fields): the upgrades each driver owns after the draft (# 21.2,
    21.11), the sponsorship cards each still holds (MA7), the one-time cards out of the supply (# 18.24) and what
    the draft put in the box (# 18.5). ``race``: the race as the season sets it up, its grid set (``started``,
    ``state``, ``grid``); the rules are the engine's (the race fed the draft's events, its sponsorship deck, the
    championship's press-corner rules), never a second copy."""
    from ...decide import waiting_for
    from ...errors import HeatlogError
    from ...rules import apply
    from ...words import counted
    from ..championship.rules import draft_leftovers, press_cards_earned, press_lines, sponsor_deck
    from . import garage_slot
    from .words import card_label  # cards are said by name, never by token

    draft, sponsors = entry.get("draft"), entry.get("sponsors")
    if block is None:
        if draft is not None or sponsors:
            first: dict[str, Any] = next(iter((sponsors or {}).values()), {})
            option = "picks" if draft is not None else next(iter(first), "dealt")
            why = "a season without the Garage has no draft and no sponsorship cards"
            raise refuse(why, "21.2, 21.4", option=option)
        return {}
    sr = view.races[index - 1]
    drivers = [d["name"] for d in view.drivers]  # only they draft and take sponsorship cards (# 19.10, 19.12)
    ev, state, grid = race.started, race.state, race.grid
    if draft is None:
        raise refuse("the draft before the race: give --pick NAME:CARD for every driver", "21.2", option="picks")
    picks = dict(draft.get("picks") or {})
    for car in picks:
        if car not in drivers:
            raise refuse(f"no driver {car} in the season", "21.2", car=car, option="picks", given=car)

    catalogue = ev.get("cards") or {}

    def named(*tokens: str) -> str:
        return " ".join(card_label(t, catalogue) for t in tokens)

    market: Event = {"type": "garage_market", "v": 1, "round": 1}
    if draft.get("market") is not None:
        market["cards"] = list(draft["market"])
    made: list[Event] = []

    def feed(event: Event, option: str, car: str | None = None, given: Any = None) -> None:
        nonlocal state
        try:
            state = apply(state, event)
        except HeatlogError as err:  # the engine's words and rule, said of the option typed (never the event)
            raise refuse(err.message, err.rule or "21.2", car=car, option=option, given=given) from None
        made.append(event)

    feed(market, "market", given=named(*market.get("cards", [])) or None)
    while (w := waiting_for(state)).due == "upgrade_picked" and w.cars:
        car = w.cars[0]
        if car not in picks:
            raise refuse(f"{car} picks next: give --pick {car}:CARD", "21.2", car=car, option="picks")
        feed({"type": "upgrade_picked", "v": 1, "car": car, "card": picks[car]}, "picks", car, named(picks[car]))
    swap = draft.get("swap")
    if waiting_for(state).due == "upgrade_swapped":
        car = waiting_for(state).cars[0]
        shown = f"{named(swap['give'])}:{named(swap['take'])}" if swap else None
        feed({"type": "upgrade_swapped", "v": 1, "car": car, **(swap or {})}, "swap", car, shown)
    elif swap is not None:
        raise refuse("this season's draft has no swap (--no-swap)", "MA11", option="swap", given=swap)
    garage = garage_slot(state)
    assert garage is not None
    upgrades = {n: sorted(garage.owned.get(n, [])) for n in drivers}
    deck = sponsor_deck(state)
    deck = deck.copy() if deck is not None else None
    championship = ev["championship"]
    carried = {n: list(cs) for n, cs in championship["sponsors"].get("carried", {}).items()}
    sponsors = dict(sponsors or {})
    for car in sponsors:
        if car not in drivers:
            raise refuse(f"no driver {car} in the season", "21.4", car=car, option="dealt", given=car)
    laps = int(ev["laps"])
    track = state.track
    # # 21.7: one card (event 11: two) per press line per lap at most, whichever way it is earned (MA4: never Adjust)
    per_line = max(
        press_cards_earned(speed=s, limit=0, slipstreamed_across=True, spun_out=False, event=sr.event) for s in (-1, 2)
    )
    press_most = laps * per_line * len(press_lines(track, sr.event))
    card = sr.event
    by_condition = card.first_across_lap_1 or card.speed_record or card.passes_for_card
    held_end: dict[str, list[str]] = {}
    first_across = 0
    racing = [c for c in grid if c in drivers]

    def draw(car: str, option: str, cards: list[str]) -> None:
        for c in cards:  # the race's own sponsorship deck says what it can give (# 21.4, 21.7)
            why = deck.why_not(c) if deck is not None else "no sponsorship deck"
            if why:
                raise refuse(why, "21.4, 21.7", car=car, option=option, given=named(c))
            assert deck is not None
            deck.draw(c)

    for car in racing:  # # 21.4: the event's cards are dealt first, in grid order
        dealt = list((sponsors.get(car) or {}).get("dealt") or [])
        if deck is not None and len(dealt) != min(card.sponsor_cards, deck.left()):
            raise refuse(
                f"{card.name} deals {counted(card.sponsor_cards, 'sponsorship card')} to each driver at the start: "
                f"{car} was dealt {len(dealt)}",
                "21.4",
                car=car,
                option="dealt",
            )
        draw(car, "dealt", dealt)
    for car in racing:  # then the cards earned in the race (# 21.7, 21.8, 21.9) and those played (# 18.24)
        got = sponsors.get(car) or {}
        dealt, press, won, used = (list(got.get(k) or []) for k in ("dealt", "press", "event", "used"))
        if len(press) > press_most:
            lines = len(press_lines(track, card))
            raise refuse(
                f"at most {press_most} press-corner cards in this race ({counted(lines, 'press corner')}, "
                f"{counted(laps, 'lap')}, {per_line} a crossing)",
                "21.6, 21.7",
                car=car,
                option="press",
                given=len(press),
            )
        if won and not by_condition:
            raise refuse(f"{card.name} gives no sponsorship card for a condition met", "21.8", car=car, option="event")
        if won and card.first_across_lap_1 and not (card.speed_record or card.passes_for_card):
            first_across += len(won)
            if len(won) > 1 or first_across > card.first_across_lap_1:
                raise refuse(
                    f"only the first {card.first_across_lap_1} across the line after lap 1 earn one card each",
                    "21.9",
                    car=car,
                    option="event",
                )
        draw(car, "press", press)
        draw(car, "event", won)
        hand = [*carried.get(car, []), *dealt, *press, *won]
        for c in used:
            if c not in hand:
                why = f"{car} held no {named(c)} to play (kept, dealt or earned)"
                raise refuse(why, "18.24", car=car, option="used", given=named(c))
            hand.remove(c)
            if deck is not None:
                deck.used_up(c)
        held_end[car] = sorted(hand)
    return {
        "upgrades": upgrades,
        "sponsors": {n: held_end.get(n, []) for n in drivers},
        "sponsors_used": dict(sorted(deck.used.items())) if deck is not None else {},
        "box": draft_leftovers(made),
    }
