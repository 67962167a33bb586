"""Positions: the complete state of a race at a point, as plain JSON data (like FEN for chess).

``state_to_position`` and ``state_from_position`` round-trip exactly: a race can start from any position
(puzzles, what-ifs, tests). The format is described by ``schema/position.schema.json``.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from .cards import BASE_CATALOGUE, HAND_SIZE, VALUE, Catalogue
from .errors import MalformedInput
from .events import complete
from .module import _MODULES as MODULE_UNITS
from .module import BASE_PHASES, _turn_records, car_key_problem, in_race, ranked, setup_phases
from .state import NO_RECORDS, Car, CornerCheck, RaceState, Turn, counts, expand
from .steps import Step
from .track import Track

FORMAT = "heatlog-position"
VERSION = 1

_TURN_FIELDS = [f.name for f in fields(Turn)]
_TURN_INDEX = {name: i for i, name in enumerate(_TURN_FIELDS)}
_TURN_BASE = frozenset(_TURN_FIELDS) - {"modules"}  # the keys of a position's turn that are the Turn's own
# The keys at the top of a base race's position (what ``state_to_position`` writes without modules, and what it
# wrote before); a module's top keys and its "modules" block are none of them (tests/test_module_discovery.py).
_BASE_TOP = frozenset(
    (
        "format", "v", "track", "laps", "variant", "mode", "cars", "started", "phase", "round", "step", "order",
        "adrenaline", "pending", "turn_index", "turn", "finished_this_round", "hall_of_fame", "finish_rounds",
        "eliminated", "grid", "shifts", "unknown", "whose_turn", "cards",
    )
)  # fmt: skip


# fields of a turn written only when they say something
_TURN_OPTIONAL = ("eliminated", "owed")


# a turn's lists whose default is the shared empty list (state.NO_CARDS)
_TURN_UNFILLED = ("played", "corners", "discarded", "owed")


def _turn_to_dict(t: Turn) -> dict[str, Any]:
    records = t.modules
    t.modules = NO_RECORDS  # (written below, by their modules)
    try:
        d = asdict(t)
    finally:
        t.modules = records
    del d["modules"]
    for key in _TURN_UNFILLED:  # plain lists (asdict keeps the shared empty default's class, state.NO_CARDS)
        d[key] = list(d[key])
    d["used"] = dict(d["used"])  # (and state.NO_USES)
    d["flips"] = [list(x) for x in t.flips]
    d["happenings"] = [list(x) for x in t.happenings]
    for key in _TURN_OPTIONAL:
        if not d[key]:
            del d[key]
    return _with_records(d, records)


def _with_records(d: dict[str, Any], records: dict[str, Any]) -> dict[str, Any]:
    """The turn's dict ``d`` with every module's keys of its record (``Module.turn_record``), each after the base
    field its module names (``TurnRecord.after``), where they were when they were ``Turn``'s own fields."""
    groups: list[tuple[int, dict[str, Any]]] = []
    for name, unit in _turn_records():  # (every module's: state_to_position completed the registry)
        keys = unit.to_position(records.get(name))
        if keys:
            groups.append((_TURN_INDEX[unit.after] if unit.after is not None else len(_TURN_INDEX), keys))
    if not groups:
        return d
    groups.sort(key=lambda g: g[0])
    out: dict[str, Any] = {}
    i = 0
    for key, value in d.items():
        at = _TURN_INDEX.get(key, len(_TURN_INDEX))
        while i < len(groups) and groups[i][0] < at:
            out.update(groups[i][1])
            i += 1
        out[key] = value
    for _, keys in groups[i:]:
        out.update(keys)
    return out


def _turn_from_dict(d: dict[str, Any]) -> Turn:
    d = dict(d)
    d["flips"] = [tuple(x) for x in d.get("flips", [])]
    d["corners"] = [CornerCheck(**c) for c in d.get("corners", [])]
    if "sub" in d:
        d["sub"] = int(Step(int(d["sub"])))  # an unknown step is refused
    records = {}
    for name, unit in _turn_records():  # a module's record of the turn, from its keys (Module.turn_record)
        record = unit.from_position(d)
        if record is not None:
            records[name] = record
    if "happenings" in d:
        d["happenings"] = [(str(k), str(s), int(a), int(m)) for k, s, a, m in d["happenings"]]
        d["used"] = {str(k): int(n) for k, n in d.get("used", {}).items()}
    else:  # a position written before turns recorded their happenings
        d["happenings"], d["used"] = _old_happenings(d)
    return Turn(**{k: v for k, v in d.items() if k in _TURN_BASE}, modules=records or NO_RECORDS)


def _old_happenings(d: dict[str, Any]) -> tuple[list[tuple[str, str, int, int]], dict[str, int]]:
    """The happenings and React uses consumed of a turn from a position that predates them (its ``react_order``
    strings and summary fields), as the turn would have recorded them."""
    out: list[tuple[str, str, int, int]] = []
    used: dict[str, int] = {}
    sub = int(d.get("sub", 3))
    if sub <= 3 and not d.get("cluttered"):
        return [("stress", c if c != "-" else "", VALUE.get(c, 0), 0) for c in d.get("stress_found", [])], used
    for c in d.get("stress_found", []):
        out.append(("stress", c if c != "-" else "", VALUE.get(c, 0), 0))
    if d.get("cluttered"):
        out.append(("cluttered", "cards", 0, 0))
        return out, used
    boost = VALUE.get(d.get("boost_card") or "", 0) if d.get("boosted") else 0
    speed = int(d.get("speed", 0)) - (1 if d.get("adrenaline_move") else 0) - boost
    out.append(("speed", "cards", speed, int(d.get("moved", 0))))
    gear = int(d.get("cooldown_allowance", 0)) - (1 if d.get("adrenaline_cooldown") else 0)
    for item in d.get("react_order", []):
        if item.startswith("cooldown"):
            total = n = int(item.split()[1])
            sources = []
            for source, room in (("gear", gear), ("adrenaline", 1 - used.get("cooldown:adrenaline", 0)), ("bonus", n)):
                k = min(n, room)
                if k > 0:
                    used[f"cooldown:{source}"] = used.get(f"cooldown:{source}", 0) + k
                    sources.append(source)
                    n -= k
                    if source == "gear":
                        gear -= k
            out.append(("cooldown", "+".join(sources), total, 0))
        elif item == "boost":
            out.append(("boost", "free" if d.get("boost_free") else "engine", boost, int(d.get("boost_moved", 0))))
        elif item == "adrenaline move":
            out.append(("adrenaline", "move", 1, int(d.get("adrenaline_moved", 0))))
        elif item == "adrenaline cooldown":
            out.append(("adrenaline", "cooldown", 1, 0))
    if d.get("slipstream"):
        out.append(("slipstream", "car", 2, int(d.get("slipstream_moved", 0))))
    for c in d.get("corners", []):
        c = c if isinstance(c, dict) else asdict(c)
        out.append(("corner", str(c["after_space"]), int(c["paid"]), 0))
        if c["spinout"]:
            out.append(("spinout", str(c["after_space"]), int(d.get("spinout_stress", 0)), 0))
    if d.get("discarded"):
        out.append(("discard", "hand", len(d["discarded"]), 0))
    if d.get("drawn"):
        out.append(("draw", "deck", int(d["drawn"]), 0))
    return out, used


def unknowns(state: RaceState) -> list[str]:
    """What this position does not know (table mode hides hands; an unrecorded shuffle hides order)."""
    out: list[str] = []
    for car in state.cars.values():
        if car.legend:
            continue  # a Legend has no cards (# 19.3)
        if car.hand is None:
            out.append(f"hand of {car.name}")
        if car.deck is None and car.deck_size:
            out.append(f"deck order of {car.name}")
    return out


def state_to_position(state: RaceState) -> dict[str, Any]:
    complete()  # every module writes its keys (the Legends' turn key, null in every turn: positions keep their shape)
    cars = []
    for c in state.cars.values():
        cars.append(
            {
                "name": c.name,
                "colour": c.colour,
                "handicap": c.handicap,
                "progress": c.progress,
                "space": state.track.space_of(c.progress),
                "lane": c.lane,
                "lap": state.lap_of(c),
                "laps_done": state.laps_done(c),
                "gear": c.gear,
                "hand": expand(c.hand) if c.hand is not None else None,
                "hand_size": c.hand_size,
                "deck": list(reversed(c.deck)) if c.deck is not None else None,  # top first
                "deck_size": c.deck_size,
                "unseen": expand(c.pool),  # deck ∪ hand as a multiset
                "discard": list(c.discard),
                "engine": c.engine,
                "play_area": list(c.play_area),
                "committed": list(c.committed) if c.committed is not None else None,
                "stress_taken": c.stress_taken,
                "needs_shuffle": c.needs_shuffle,
                "deck_max": expand(c.deck_max) if c.deck_max is not None else None,
                **({"deck_top": list(reversed(c.deck_top))} if c.deck_top else {}),  # top first, as "deck"
                "finished": c.finished,
                **({"legend": True} if c.legend else {}),
            }
        )
    return {
        "format": FORMAT,
        "v": VERSION,
        "track": state.track.data,
        "laps": state.laps,
        "variant": state.variant,
        "mode": state.mode,
        "started": state.started,
        "phase": state.phase,
        "round": state.round,
        "step": state.step,
        "order": list(state.order),
        "adrenaline": list(state.adrenaline),
        "pending": list(state.pending),
        "turn_index": state.turn_index,
        "turn": _turn_to_dict(state.turn) if state.turn is not None else None,
        "whose_turn": state.turn.car if state.turn is not None else None,
        "shifts": {k: list(v) for k, v in state.shifts.items()},
        "grid": list(state.grid),
        "cars": cars,
        "finished_this_round": list(state.finished_round),
        "hall_of_fame": list(state.hall_of_fame),
        "finish_rounds": dict(state.finish_rounds),
        **({"eliminated": list(state.eliminated)} if state.eliminated else {}),
        **_modules_top(state),
        **_cards_to_position(state),
        "unknown": unknowns(state),
        **_modules_to_position(state),
    }


def _modules_top(state: RaceState) -> dict[str, Any]:
    """The keys modules write at the top of the position (``Module.top_to_position``), in registration order."""
    out: dict[str, Any] = {}
    for m in MODULE_UNITS.values():
        if m.top_to_position is not None:
            out.update(m.top_to_position(state))
    return out


def _modules_to_position(state: RaceState) -> dict[str, Any]:
    """The optional modules' part of a position: each registered module's block (its race data, as embedded in
    race_started, and its state), in registration order (engine/module.py)."""
    out: dict[str, Any] = {}
    if state.rules.modules:
        listed = state.rules.modules
        for unit in MODULE_UNITS.values():
            if unit.name in listed and unit.to_position is not None:
                block = unit.to_position(state)
                if block is not None:
                    out[unit.name] = block
    return {"modules": out} if out else {}


def _modules_from_position(state: RaceState, pos: dict[str, Any]) -> None:
    from .ruleset import build_rules

    modules = pos.get("modules") or {}
    units = ranked(list(modules)) if isinstance(modules, dict) else []
    if units:  # the race's Rules, as race_started built them (the Garage and the weather add set-up phases)
        options = {u.name: modules[u.name] for u in units if u.options_in_position}
        state.rules = build_rules([u.name for u in units], options)
    for unit in units:
        if unit.from_position is not None:
            unit.from_position(state, modules[unit.name], pos)
    if state.cards is BASE_CATALOGUE and pos.get("cards"):
        state.cards = _catalogue(pos)  # the race's own cards (# 21.4: sponsorship cards without the Garage)


def _catalogue(pos: dict[str, Any]) -> Catalogue:
    """The card catalogue of a position's race: the base cards, plus those a module's block carries
    (``Module.cards_key``: the Garage's), else the race's own cards beyond the base (``cards``: a championship
    race's sponsorship cards, # 21.4)."""
    modules = pos.get("modules") or {}
    cards = pos.get("cards")
    for unit in ranked(list(modules)) if isinstance(modules, dict) else ():
        block = modules[unit.name]
        if unit.cards_key is not None and isinstance(block, dict):  # its block carries them (the Garage's)
            cards = block.get(unit.cards_key)
            break
    return BASE_CATALOGUE.with_block(cards) if cards else BASE_CATALOGUE


def _cards_to_position(state: RaceState) -> dict[str, Any]:
    """The race's cards beyond the base, as race_started.cards defines them, where no module's block carries them
    (the Garage's does): a championship race's sponsorship cards without the Garage (# 21.4). Absent otherwise."""
    if state.cards is BASE_CATALOGUE or any(unit.cards_key is not None for unit in in_race(state)):
        return {}
    extra = {c.token: c.to_dict() for c in state.cards.cards if c.token not in BASE_CATALOGUE.token_set}
    return {"cards": extra} if extra else {}


def _base_only(pos: dict[str, Any]) -> bool:
    """Whether ``pos`` holds a base race's keys alone (at its top and in its turn, each with a value): then no
    module's hook reads anything in it, and the modules not registered yet need not be (``events.complete``)."""
    if any(v is not None for k, v in pos.items() if k not in _BASE_TOP):
        return False
    turn = pos.get("turn")
    return not isinstance(turn, dict) or all(v is None for k, v in turn.items() if k not in _TURN_BASE)


def state_from_position(pos: dict[str, Any], track: Track | None = None) -> RaceState:
    if not isinstance(pos, dict) or pos.get("format") != FORMAT:
        raise MalformedInput(f"not a heatlog position (format must be {FORMAT!r})", input=None)
    if pos.get("v") != VERSION:
        raise MalformedInput(f"unknown position version {pos.get('v')!r}")
    if not _base_only(pos):
        complete()  # a module's key: every module reads the position, as before lazy discovery
    try:
        if track is None:
            track = Track.from_dict(pos["track"])
        roster: dict[str, Car] = {}
        spots: dict[tuple[int, int], str] = {}
        tokens = _catalogue(pos).tokens  # the race's card tokens: every multiset holds exactly these
        for d in pos["cars"]:
            hand = counts(d["hand"], tokens) if d.get("hand") is not None else None
            deck = list(reversed(d["deck"])) if d.get("deck") is not None else None
            car = Car(
                name=d["name"],
                colour=d.get("colour", ""),
                handicap=bool(d.get("handicap", False)),
                progress=int(d["progress"]),
                lane=int(d["lane"]),
                gear=int(d["gear"]),
                pool=counts(d["unseen"], tokens),
                hand=hand,
                hand_size=int(d["hand_size"]),
                deck=deck,
                deck_size=int(d["deck_size"]),
                discard=list(d["discard"]),
                engine=int(d["engine"]),
                play_area=list(d.get("play_area", [])),
                committed=list(d["committed"]) if d.get("committed") is not None else None,
                stress_taken=int(d.get("stress_taken", 0)),
                needs_shuffle=bool(d.get("needs_shuffle", False)),
                deck_max=counts(d["deck_max"], tokens) if d.get("deck_max") is not None else None,
                deck_top=_deck_top(d.get("deck_top")),  # older positions have none (# 18.21)
                finished=bool(d.get("finished", False)),
                legend=bool(d.get("legend", False)),
            )
            _check_car(car)
            roster[car.name] = car
        hall = list(pos.get("hall_of_fame", []))
        gone = set(pos.get("eliminated", []))  # MA21: off the track
        for car in roster.values():
            if car.name not in hall and car.name not in gone and pos.get("phase") != "grid":
                key = (track.space_of(car.progress), car.lane)
                if key in spots:
                    raise MalformedInput(f"cars {spots[key]} and {car.name} share space {key[0]} lane {key[1]}")
                spots[key] = car.name
        state = RaceState(
            track=track,
            laps=int(pos["laps"]),
            variant=pos.get("variant", "standard"),
            mode=pos["mode"],
            cars=roster,
            started=int(pos.get("started", len(roster))),
            phase=pos["phase"],
            round=int(pos["round"]),
            step=int(Step(int(pos["step"]))),
            order=list(pos.get("order", [])),
            adrenaline=list(pos.get("adrenaline", [])),
            pending=list(pos.get("pending", [])),
            turn_index=int(pos.get("turn_index", 0)),
            turn=_turn_from_dict(pos["turn"]) if pos.get("turn") else None,
            finished_round=list(pos.get("finished_this_round", [])),
            hall_of_fame=hall,
            finish_rounds=dict(pos.get("finish_rounds", {})),
            eliminated=list(pos.get("eliminated", [])),
            grid=list(pos.get("grid", [])),
            spots=spots,
            shifts={k: (int(v[0]), bool(v[1])) for k, v in pos.get("shifts", {}).items()},
        )
        _modules_from_position(state, pos)
        for m in tuple(MODULE_UNITS.values()):  # the keys modules write at the top (Module.top_from_position)
            if m.top_from_position is not None:
                m.top_from_position(state, pos)
    except MalformedInput:
        raise
    except (KeyError, TypeError, ValueError, AssertionError) as exc:
        raise MalformedInput(f"position is incomplete or inconsistent: {exc!r}") from exc
    said = car_key_problem(pos.get("cars"), state.rules.modules)  # (# 19.1: a Legend car needs the Legends)
    if said is not None:
        raise MalformedInput(f"position: {said}")
    if state.mode not in ("table", "open"):
        raise MalformedInput(f"unknown information mode {state.mode!r}")
    if state.phase not in BASE_PHASES and state.phase not in setup_phases():
        raise MalformedInput(f"unknown phase {state.phase!r}")
    if state.phase == "race" and (state.step >= Step.REVEAL) != (state.turn is not None):
        # # 2.1: steps 1–2 are everyone's at once (no car's turn); steps 3–9 are one car's turn at a time. A race
        # at step 3 with no turn would wait for nothing any car can send.
        raise MalformedInput(
            f"position: step {state.step} "
            + ("is a car's turn (steps 3–9, # 2.1): name it in turn" if state.turn is None else "has no car's turn")
        )
    return state


def _deck_top(cards: Any) -> tuple[str, ...]:
    """A position's ``deck_top`` (top first) as the car keeps it (top last)."""
    if cards is None:
        return ()
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise MalformedInput("deck_top must be a list of cards, top first")
    return tuple(reversed(cards))


def _check_car(car: Car) -> None:
    if car.lane not in (1, 2) or not 1 <= car.gear <= 4:
        raise MalformedInput(f"car {car.name}: lane must be 1 or 2 and gear 1 to 4")
    if any(v < 0 for v in car.pool.values()) or car.engine < 0:
        raise MalformedInput(f"car {car.name}: negative card counts")
    if car.hand_size + car.deck_size != sum(car.pool.values()):
        raise MalformedInput(
            f"car {car.name}: hand ({car.hand_size}) + deck ({car.deck_size}) must equal the unseen cards "
            f"({sum(car.pool.values())})"
        )
    if car.hand is not None and (
        sum(car.hand.values()) != car.hand_size or any(car.hand[c] > car.pool[c] for c in car.pool)
    ):
        raise MalformedInput(f"car {car.name}: the hand must be part of the unseen cards and hold hand_size cards")
    if car.deck is not None and len(car.deck) != car.deck_size:
        raise MalformedInput(f"car {car.name}: the deck order must list deck_size cards")
    if car.deck_top:  # # 18.21: cards of the deck, in a known place
        top = counts(list(car.deck_top), tuple(car.pool))
        deck = car.deck_counts()
        if (
            len(car.deck_top) > car.deck_size
            or any(top[c] > car.pool[c] for c in top)
            or (deck is not None and any(top[c] > deck[c] for c in top))
            or (car.deck_max is not None and any(top[c] > car.deck_max[c] for c in top))
            or (car.deck is not None and car.deck[len(car.deck) - len(car.deck_top) :] != list(car.deck_top))
        ):
            raise MalformedInput(f"car {car.name}: deck_top must be the top cards of the deck")
    if car.hand_size > HAND_SIZE + 2 * 8:
        raise MalformedInput(f"car {car.name}: implausible hand size {car.hand_size}")
