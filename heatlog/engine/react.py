"""React as a pool of uses (# 6.2, 7.1–7.6), and the happenings a turn records.

**The pool.** At React (step 5) a car has a pool of *uses*: each is one symbol from one source — the gear's
cooldown (# 7.2), the adrenaline move and cooldown (# 6.2, 7.4), the boost (# 7.5), a cooling bonus (the race's
``cooldown_bonus`` point: a weather sector's, # 20.10); a module adds its own (the Garage's card symbols, # 18.7)
by wrapping the race's ``Rules.react_uses`` point. :func:`react_pool` is the one answer to "what may this car
still do in React", which ``decide.react_options`` (and through it the recorder, the bots and the simulator)
turns into ready events, and each React handler checks and consumes: a use is consumed by the event that takes
it, and what it did is recorded on the turn as a happening. Nothing else knows what React offers.

**Happenings.** ``Turn.happenings`` is the turn's own record of what happened, in order, as plain tuples
``(kind, source, amount, moved)`` (plain tuples: the engine appends a few per turn on the hot path):

=================  ==============================  ===================================  =======================
kind               source                          amount                               moved
=================  ==============================  ===================================  =======================
``speed``          ``cards``                       the Speed of step 3 (# 5.1)          spaces moved (# 5.3)
``cluttered``      ``cards``                       0                                    0 (# 13.2)
``stress``         the card found ('' for none)    its value (# 5.2, A8)                0
``cooldown``       the sources it drew on, in      Heat moved hand → Engine (# 7.3)     0
                   order, joined by ``+``
                   (``gear``, ``gear+adrenaline``,
                   ``bonus``: a cooling bonus)
``adrenaline``     ``move`` / ``cooldown``         1 (# 6.2)                            spaces moved (# A11)
``boost``          ``engine`` / ``free``           the value found (# 7.5, 20.11)       spaces moved
``slipstream``     ``car`` / ``bonus``             spaces asked (# 8.2, 20.12)          spaces moved (# 8.4)
``corner``         the corner's ``after_space``    Heat paid (# 9.3)                    0
``spinout``        the corner's ``after_space``    Stress taken (# 10.3)                spaces back (negative)
``discard``        ``hand``                        cards discarded (# 11.1)             0
``reshuffle``      ``discard``                     cards shuffled into the deck (# 5.6) 0
``draw``           ``deck``                        cards drawn (# 12.2)                 0
=================  ==============================  ===================================  =======================

One event, one happening. A cooldown event names no source: it spends the gear's cooldown first, then the
adrenaline's, then a cooling bonus, and ``Turn.used`` keeps what each counted use has given so far
(``"cooldown:gear": 2``), which is what the pool reads back. Modules add kinds and uses of their own. Views,
narration and statistics read these instead of working anything out again.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from .steps import REACT

if TYPE_CHECKING:
    from .state import Car, RaceState, Turn

Event = dict[str, Any]
Happening = tuple[str, str, int, int]  # (kind, source, amount, moved): see the module docstring

# Sources of the base cooldown, in the order a cooldown that names none spends them (# 7.2, 7.4, 20.10).
COOLDOWN_SOURCES = ("gear", "adrenaline", "bonus")


class ReactUse(NamedTuple):
    """One use open in React: a symbol from a source, ``n`` of it left (cooldown: the Heat it may still move).
    A named tuple: the pool is built each time React is asked about, on the simulator's hot path."""

    symbol: str  # cooldown, boost, adrenaline_move, adrenaline_cooldown; a module's own (e.g. reduce, scrap)
    source: str  # gear, adrenaline, bonus, engine, free; a module's own (e.g. a card token)
    n: int = 1
    mandatory: bool = False  # must be used before React ends (the Garage's Heat cost and Scrap, # 18.25)
    events: tuple[Event, ...] = ()  # the decisions that take it, ready to append (cooldown: see ReactPool)


class ReactPool:
    """The uses open to the car in React now, in the order a player would be offered them."""

    __slots__ = ("uses", "car", "heat_in_hand")

    def __init__(self, uses: tuple[ReactUse, ...], car: str = "", heat_in_hand: int = 0) -> None:
        self.uses = uses
        self.car = car
        self.heat_in_hand = heat_in_hand  # the most Heat the hand can hold (the joint deduction, # 1.7): caps cooldown

    def __repr__(self) -> str:
        return f"ReactPool({self.uses!r}, car={self.car!r}, heat_in_hand={self.heat_in_hand})"

    def left(self, symbol: str) -> int:
        """How much of ``symbol`` is left over all its sources (cooldown adds up, # 7.4, 18.13)."""
        n = 0
        for u in self.uses:
            if u.symbol == symbol:
                n += u.n
        return n

    def of(self, symbol: str) -> list[ReactUse]:
        return [u for u in self.uses if u.symbol == symbol]

    @property
    def mandatory(self) -> list[ReactUse]:
        """The uses React cannot end without (none in the base game)."""
        return [u for u in self.uses if u.mandatory]

    def options(self) -> list[Event]:
        """Every React decision open now, ready to append: the cooldowns 1..N (N: all the cooldown left, capped
        by the Heat the hand can hold, # 7.3), then each other use's events."""
        out: list[Event] = []
        cool = 0
        for u in self.uses:
            if u.symbol == "cooldown":
                cool += u.n
            else:
                out += u.events
        heat = self.heat_in_hand
        if cool > heat:  # (min, without its call: asked at every React decision)
            cool = heat
        if cool > 0:  # (a loop, not a comprehension over a range: most pools hold one to three)
            car = self.car
            evs: list[Event] = [{"type": "cooldown", "v": 1, "car": car, "count": 1}]
            n = 2
            while n <= cool:
                evs.append({"type": "cooldown", "v": 1, "car": car, "count": n})
                n += 1
            evs += out
            return evs
        return out

    def most_cooldown(self) -> Event | None:
        """The last cooldown of :meth:`options` (the one that moves the most Heat: all the cooldown left, capped by
        the Heat the hand can hold, # 7.3), or None when there is none, without building the others."""
        cool = 0
        for u in self.uses:
            if u.symbol == "cooldown":
                cool += u.n
        heat = self.heat_in_hand
        if cool > heat:
            cool = heat
        if cool > 0:
            return {"type": "cooldown", "v": 1, "car": self.car, "count": cool}
        return None

    def kinds(self) -> list[str]:
        """The event types of :meth:`options`, each once, in their order (without building the events)."""
        cool = 0
        out: list[str] = []
        for u in self.uses:  # (one pass: asked at every React decision)
            if u.symbol == "cooldown":
                cool += u.n
            else:
                for ev in u.events:
                    kind = ev["type"]
                    if kind not in out:
                        out.append(kind)
        if cool > 0 and self.heat_in_hand > 0:  # the cooldowns come first (as in options)
            if "cooldown" in out:  # (a module's use whose events are cooldowns)
                out.remove("cooldown")
            out.insert(0, "cooldown")
        return out


EMPTY = ReactPool(())

# ``ReactUse(symbol, source, n, mandatory, events)`` made by ``tuple.__new__`` itself, without the named tuple's
# Python-level ``__new__``: the base pool is built for every React decision and every React event.
_use = partial(tuple.__new__, ReactUse)


def cooled_by(turn: Turn) -> dict[str, int]:
    """The Heat each cooldown source has moved this turn (``Turn.used``)."""
    return {k[9:]: n for k, n in turn.used.items() if k.startswith("cooldown:")}


def base_react_uses(state: RaceState, car: Car, turn: Turn) -> list[ReactUse]:
    """The base game's React uses open now (# 6.2, 7.2–7.6), through the race's points where the car is now:
    a cooldown block or bonus (a weather sector's, # 20.7, 20.9, 20.10, MA5) and the boost's cost (free in a
    heat-control sector, # 20.11)."""
    uses = cooldown_uses(state, car, turn)
    name = car.name
    if not turn.boosted:
        rules = state.rules  # 0 where it is free, even from an empty Engine (# 20.11, MA20); the base's: 1
        cost = BOOST_COST if rules.react_plain else rules.boost_cost(state, car)
        if car.engine >= cost:  # # 7.6
            ev = {"type": "boost", "v": 1, "car": name}
            uses.append(_use(("boost", "engine" if cost else "free", 1, False, (ev,))))
    if turn.adrenaline:  # # 6.1–6.3: each bonus once, neither traded for the other
        if not turn.adrenaline_move:
            ev = {"type": "adrenaline", "v": 1, "car": name, "bonus": "move"}
            uses.append(_use(("adrenaline_move", "adrenaline", 1, False, (ev,))))
        if not turn.adrenaline_cooldown:
            ev = {"type": "adrenaline", "v": 1, "car": name, "bonus": "cooldown"}
            uses.append(_use(("adrenaline_cooldown", "adrenaline", 1, False, (ev,))))
    return uses


def cooldown_uses(state: RaceState, car: Car, turn: Turn) -> list[ReactUse]:
    """The base pool's cooldown uses open now, in the order a cooldown that names no source spends them: the
    gear's (# 7.2), the adrenaline's (# 7.4), a cooling bonus where the car is (# 20.10); none where cooldown is
    blocked (# 20.9, MA5). The first uses of :func:`base_react_uses`; a cooldown event reads only these."""
    uses: list[ReactUse] = []
    rules = state.rules
    plain = rules.react_plain  # the points of React still their base function (no block, no bonus, boost 1)
    if plain or rules.unchanged.cooldown_block or not rules.cooldown_block(state, car):  # # 20.9: none here
        used = turn.used
        adrenaline_cooldown = turn.adrenaline_cooldown
        gear = turn.cooldown_allowance - (1 if adrenaline_cooldown else 0)
        if used:
            gear -= used.get("cooldown:gear", 0)
        if gear > 0:
            uses.append(_GEAR_COOLDOWN[gear] if gear < _KEPT_GEAR else _use(("cooldown", "gear", gear, False, ())))
        if adrenaline_cooldown and not used.get("cooldown:adrenaline"):
            uses.append(_ADRENALINE_COOLDOWN)
        bonus = 0 if plain or rules.unchanged.cooldown_bonus else rules.cooldown_bonus(state, car)
        if bonus:  # # 20.10: while the car is where the bonus holds
            bonus -= used.get("cooldown:bonus", 0)
            if bonus > 0:
                uses.append(_use(("cooldown", "bonus", bonus, False, ())))
    return uses


BOOST_COST = 1  # # 7.5: the Heat a boost costs from the Engine (ruleset.base_boost_cost)


# The uses that carry no event, made once (immutable tuples: every pool may share them).
_KEPT_GEAR = 9
_GEAR_COOLDOWN = tuple(_use(("cooldown", "gear", n, False, ())) for n in range(_KEPT_GEAR))
_ADRENALINE_COOLDOWN = _use(("cooldown", "adrenaline", 1, False, ()))


def react_pool(state: RaceState, car: Car, turn: Turn) -> ReactPool:
    """The React pool of ``car``'s turn now: empty outside React, during a "+" flip and after a cluttered reveal
    (# 13.3). The race's ``Rules.react_uses`` point lists the uses (the base ones, and any module's)."""
    if turn.sub != REACT or turn.flipping is not None or turn.cluttered:
        return EMPTY
    uses = tuple(state.rules.react_uses(state, car, turn))
    heat = 0
    for u in uses:
        if u.symbol == "cooldown":  # only then does the hand's Heat matter (# 7.3)
            hand = car.hand  # (Knowledge.most_in_hand, inlined for a known hand: its count)
            token = state.cards.heat
            heat = hand[token] if hand is not None else (_MOST_IN_HAND or _most_in_hand())(car, token)
            break
    pool = _new_pool(ReactPool)  # ReactPool(uses, car.name, heat) without its __init__ call: asked per decision
    pool.uses = uses
    pool.car = car.name
    pool.heat_in_hand = heat
    return pool


_new_pool = object.__new__


def _most_in_hand() -> Any:
    """``Knowledge.most_in_hand``, imported on first use (knowledge reads the state, which reads the rules,
    which read this module) and kept, so the hot path pays no import."""
    global _MOST_IN_HAND
    if _MOST_IN_HAND is None:
        from .knowledge import Knowledge

        _MOST_IN_HAND = Knowledge.most_in_hand
    return _MOST_IN_HAND


_MOST_IN_HAND: Any = None


def spend(turn: Turn, use: ReactUse, n: int) -> None:
    """Record that ``n`` of ``use`` is consumed (``Turn.used``, which the pool reads back)."""
    key = f"{use.symbol}:{use.source}"
    if not turn.used:
        turn.used = {}  # (a new dict: the default is shared, state.NO_USES)
    turn.used[key] = turn.used.get(key, 0) + n


def spend_cooldown(turn: Turn, pool: ReactPool, n: int) -> None:
    """Consume ``n`` cooldown from the pool's cooldown uses, in their order; one happening for the event."""
    total, sources = n, []
    used = turn.used
    if not used:
        used = turn.used = {}  # (a new dict: the default is shared, state.NO_USES)
    for use in pool.uses:
        if use.symbol != "cooldown":
            continue
        if n <= 0:
            break
        k = min(n, use.n)
        key = "cooldown:" + use.source  # (spend, inlined)
        used[key] = used.get(key, 0) + k
        sources.append(use.source)
        n -= k
    turn.happenings.append(("cooldown", "+".join(sources), total, 0))


__all__ = [
    "BOOST_COST",
    "COOLDOWN_SOURCES",
    "Happening",
    "ReactPool",
    "ReactUse",
    "base_react_uses",
    "cooldown_uses",
    "cooled_by",
    "react_pool",
    "spend",
    "spend_cooldown",
]
