"""The Garage module (MODULES.md section 18): the race's options, the Garage deck, the draft, and the symbol rules.

Pure: no I/O. Card definitions come in as the JSON objects of ``heatlog/data/cards/garage.json`` (the block a
Garage race embeds in its ``race_started``), so a later edit of the card file never changes an old race.
Each function here answers one rule question; the step machine asks them through the race's rules object.
Item numbers (``# 18.5``) refer to ``../shared/rules/MODULES.md``; docs/garage.md lists every reading taken.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...cards import BASIC, HEAT, STRESS
from ...errors import AmbiguousInput, IllegalEvent, MalformedInput
from ...module import CardTable

Card = Mapping[str, Any]  # one card definition, as in heatlog/data/cards/garage.json
Event = dict[str, Any]

UPGRADE_LEVELS = ("basic", "advanced", "all")  # # 18.3
DRAFT_METHODS = ("random", "draft", "snake")  # # 18.5
EXPANSIONS = ("heavy-rain", "tunnel-vision")  # # 18.2: Air intake (Super Cool), Front Wing (Draft)
UPGRADES_EACH = 3  # # 18.5: three upgrades each, whatever the way of choosing
SNAKE_KEPT_FROM = 4  # # 18.5: a snake draft picks 4 and removes 1
BASIC_SLIPSTREAM = 2  # # 8.2
# Symbols in the order a card's description lists them (the card files' order; logs store keys sorted).
SYMBOL_ORDER: tuple[str, ...] = ("boost", "heat", "scrap", "cooldown", "reduce", "slipstream", "adjust")
SYMBOL_ORDER += ("salvage", "direct", "accelerate", "refresh", "super_cool", "draft", "one_time")
MANDATORY_REACT = ("heat", "scrap")  # # 18.25: must be resolved before React ends
REACT_SYMBOLS = ("heat", "scrap", "cooldown", "reduce", "salvage", "direct", "super_cool", "draft")  # # 18.7


# ---------------------------------------------------------------------------------------------- options


@dataclass(frozen=True, slots=True)
class GarageOptions:
    """The Garage's play options, recorded in ``race_started.garage`` (docs/garage.md)."""

    upgrades: str = "basic"  # # 18.3: basic, advanced or all upgrades
    draft: str = "draft"  # # 18.5: random, draft or snake
    expansions: tuple[str, ...] = ()  # # 18.2: expansion upgrades in play

    @classmethod
    def from_dict(cls, data: Any) -> GarageOptions:
        """Read ``race_started.garage``; a ``ValueError`` says what is wrong."""
        if not isinstance(data, dict):
            raise ValueError("garage options must be an object (upgrades, draft, expansions)")
        unknown = sorted(set(data) - {"upgrades", "draft", "expansions"})
        if unknown:
            raise ValueError(f"unknown garage option {unknown[0]!r} (upgrades, draft, expansions)")
        upgrades = data.get("upgrades", "basic")
        if upgrades not in UPGRADE_LEVELS:
            raise ValueError(f"upgrades must be one of {', '.join(UPGRADE_LEVELS)}, not {upgrades!r} (# 18.3)")
        draft = data.get("draft", "draft")
        if draft not in DRAFT_METHODS:
            raise ValueError(f"draft must be one of {', '.join(DRAFT_METHODS)}, not {draft!r} (# 18.5)")
        expansions = data.get("expansions", [])
        if not isinstance(expansions, list) or not all(e in EXPANSIONS for e in expansions):
            raise ValueError(f"expansions must be a list of {', '.join(EXPANSIONS)} (# 18.2)")
        if len(set(expansions)) != len(expansions):
            raise ValueError("an expansion is named twice")
        return cls(upgrades=upgrades, draft=draft, expansions=tuple(e for e in EXPANSIONS if e in expansions))

    def to_dict(self) -> dict[str, Any]:
        return {"upgrades": self.upgrades, "draft": self.draft, "expansions": list(self.expansions)}


# ---------------------------------------------------------------------------------------------- the Garage deck


def in_play(card: Card, options: GarageOptions) -> bool:
    """Whether ``card`` is in this race's Garage deck (# 18.3, MA13): its level is played and its set is base or
    a named expansion. Sponsorship cards are never drafted (# 21.5)."""
    if card.get("kind") not in ("upgrade", "heat"):
        return False
    level = card.get("level")
    if options.upgrades != "all" and level != options.upgrades:
        return False
    return card.get("set") == "base" or card.get("set") in options.expansions


def garage_deck(cards: Iterable[Card], options: GarageOptions) -> dict[str, int]:
    """The Garage deck as token -> copies (# 18.3: 2 of each type in play; both Heat types are ``H``, # 18.27)."""
    deck: dict[str, int] = {}
    for card in cards:
        if in_play(card, options):
            deck[card["id"]] = deck.get(card["id"], 0) + int(card["copies"])
    return deck


def race_cards(cards: Iterable[Card], options: GarageOptions) -> dict[str, Card]:
    """Token -> definition of the upgrades that can appear in this race (the block ``race_started`` embeds).
    Heat cards of the Garage deck are the base ``H`` (# 18.27) and need no definition."""
    return {c["id"]: c for c in cards if in_play(c, options) and c.get("kind") == "upgrade"}


def race_block(cards: Iterable[Card], options: GarageOptions) -> dict[str, dict[str, Any]]:
    """``race_started.cards`` of a race with ``options``: token -> a copy of the definition of every upgrade it can
    meet (# 18.2: the race carries its cards, as it carries its track), from the Garage's card file's cards."""
    return {t: dict(c) for t, c in race_cards(cards, options).items()}


def market_size(method: str, players: int) -> int:
    """Cards revealed per draft round (# 18.5; [004]: "4 cards each draft round" with one player)."""
    if method == "draft":
        return players + 3
    if method == "snake":
        return 2 * players + 3
    raise ValueError(f"a {method} choice has no market (# 18.5)")


def draft_rounds(method: str) -> int:
    """# 18.5: 3 rounds of the draft, 2 of the snake draft, none when dealt at random."""
    return {"random": 0, "draft": 3, "snake": 2}[method]


def pick_order(order: Sequence[str], method: str, round_: int) -> list[str]:
    """Who picks, in turn, in draft round ``round_`` (1-based); ``order`` is the starting order, pole first.

    # 18.5: the draft's rounds 1 and 3 start with the car last in the starting order and go forward, round 2
    starts with the first car; the snake draft's round is that order followed by the same order reversed
    (round 1 from the last car, round 2 from the first).
    """
    base = list(reversed(order)) if round_ % 2 == 1 else list(order)
    if method == "draft":
        return base
    if method == "snake":
        return base + list(reversed(base))
    raise ValueError(f"a {method} choice has no pick order (# 18.5)")


def starting_deck(upgrades: Sequence[str], stress: int) -> list[str]:
    """# 18.1, 18.5, MC2: 12 Basic cards, the chosen upgrades and the circuit's Stress (no 0, 5, Heat upgrade)."""
    return [c for c in BASIC for _ in range(3)] + list(upgrades) + [STRESS] * stress


def engine_heat(circuit_heat: int, handicap: bool) -> int:
    """# 18.5, 22.9: the circuit's Heat on the Engine; an experienced driver takes one fewer (# 17.2)."""
    return circuit_heat - 1 if handicap else circuit_heat


# ---------------------------------------------------------------------------------------------- the draft


def _illegal(ev: Event, message: str, rule: str, car: str | None = None) -> IllegalEvent:
    return IllegalEvent(message, step=0, car=car if car is not None else ev.get("car"), input=ev, rule=rule)


def _malformed(ev: Event, message: str) -> MalformedInput:
    return MalformedInput(message, step=0, car=ev.get("car") if isinstance(ev.get("car"), str) else None, input=ev)


@dataclass(slots=True)
class Draft:
    """The Garage phase (# 18.4, 18.5): between ``grid_set`` and the starting shuffles.

    ``deck`` is what the Garage deck can still hold: exact while every market was seen, an upper bound once a
    market was recorded by its size only (a table that did not note the cards left over).
    """

    method: str
    order: tuple[str, ...]  # starting order of the drafting cars, pole first (Legends never draft)
    deck: dict[str, int]
    exact: bool = True
    round: int = 0  # draft round under way, 1-based; 0 before the first market
    market: dict[str, int] | None = None  # cards still in this round's market; None when not seen
    market_left: int = 0
    queue: list[str] = field(default_factory=list)  # cars still to pick this round, in order
    owned: dict[str, list[str]] = field(default_factory=dict)
    removing: list[str] = field(default_factory=list)  # snake draft: cars still to give one card back
    removed: list[str] = field(default_factory=list)  # cards out of the game (market leftovers are not listed)

    @classmethod
    def start(cls, method: str, order: Sequence[str], deck: Mapping[str, int]) -> Draft:
        if method not in DRAFT_METHODS:
            raise ValueError(f"draft must be one of {', '.join(DRAFT_METHODS)} (# 18.5)")
        return cls(method=method, order=tuple(order), deck=dict(deck), owned={name: [] for name in order})

    def copy(self) -> Draft:
        return Draft(
            method=self.method,
            order=self.order,
            deck=dict(self.deck),
            exact=self.exact,
            round=self.round,
            market=dict(self.market) if self.market is not None else None,
            market_left=self.market_left,
            queue=list(self.queue),
            owned={k: list(v) for k, v in self.owned.items()},
            removing=list(self.removing),
            removed=list(self.removed),
        )

    def picks_together(self) -> bool:
        """Whether one answer may give the round's picks left, in pick order (a season's draft, one round,
        # 21.2); a Garage race's own drafts ask each pick on its own (# 18.5)."""
        return False

    def extra_to_dict(self) -> dict[str, Any] | None:
        """What a kind of draft keeps beyond these fields, for a position (the championship's, # 21.2); none here."""
        return None

    # -- what it waits for

    def waiting(self) -> tuple[str, tuple[str, ...]]:
        """The event the draft waits for and the cars that may send it (none for a market)."""
        if self.method == "random":
            left = tuple(n for n in self.order if not self.owned[n])
            return ("upgrades_dealt", left) if left else ("done", ())
        if self.queue:
            return "upgrade_picked", (self.queue[0],)
        if self.round < draft_rounds(self.method):
            return "garage_market", ()
        if self.removing:
            return "upgrade_removed", tuple(self.removing)
        return "done", ()

    @property
    def done(self) -> bool:
        return self.waiting()[0] == "done"

    def next_market_size(self) -> int:
        """Cards the next market shows: the full size, or what is left of the Garage deck."""
        return min(market_size(self.method, len(self.order)), sum(self.deck.values()))

    # -- events

    def apply(self, ev: Event, named: Callable[[str], str] = str) -> None:
        """Apply one draft event, or raise and leave the draft unchanged (callers apply to a copy). ``named``:
        how a refusal names a card (the race's ``Catalogue.named``: "Suspension 4", never "U34"; issue 29)."""
        kind = ev.get("type")
        expected, cars = self.waiting()
        if kind != expected:
            if expected == "done":
                raise _illegal(ev, "the Garage draft is over: every car has its upgrades", "18.5")
            who = f" ({', '.join(cars)})" if cars else ""
            raise _illegal(ev, f"the Garage draft waits for {expected.replace('_', ' ')}{who}, not {kind}", "18.5")
        if kind == "upgrades_dealt":
            self._dealt(ev, named)
        elif kind == "garage_market":
            self._market(ev, named)
        elif kind == "upgrade_picked":
            self._picked(ev, named)
        elif kind == "upgrade_removed":
            self._removed(ev, named)

    def _car(self, ev: Event) -> str:
        name = ev.get("car")
        if not isinstance(name, str) or name not in self.owned:
            raise _malformed(ev, f"no drafting car named {name!r} (cars: {', '.join(self.order)})")
        return name

    def _token(self, ev: Event, value: Any) -> str:
        if not isinstance(value, str) or not (value in self.deck or value == HEAT or _is_upgrade_token(value)):
            raise _malformed(ev, f"{value!r} is not a Garage card (U1 … U60, or H for a Heat card)")
        return value

    def _take(self, ev: Event, cards: Sequence[str], what: str, named: Callable[[str], str]) -> None:
        """Take ``cards`` out of the Garage deck after checking it can hold them (# 18.3)."""
        need: dict[str, int] = {}
        for c in cards:
            need[c] = need.get(c, 0) + 1
        for c, n in need.items():
            have = self.deck.get(c, 0)
            if n > have:
                held = "is not in this race's Garage deck" if c not in self.deck else f"has only {have} left"
                raise _illegal(ev, f"{what}: {named(c)} {held} (the deck holds 2 of each type in play)", "18.3")
        for c, n in need.items():
            self.deck[c] -= n

    def _dealt(self, ev: Event, named: Callable[[str], str]) -> None:
        name = self._car(ev)
        if self.owned[name]:
            held = ", ".join(map(named, self.owned[name]))
            raise _illegal(ev, f"{name} already has its upgrades: {held}", "18.5")
        cards = ev.get("cards")
        if not isinstance(cards, list):
            raise _malformed(ev, "cards must be a list of Garage cards")
        cards = [self._token(ev, c) for c in cards]
        if len(cards) != UPGRADES_EACH:
            raise _illegal(
                ev, f"each car takes {UPGRADES_EACH} upgrades from the Garage deck, not {len(cards)}", "18.5"
            )
        self._take(ev, cards, f"{name}'s upgrades", named)
        self.owned[name] = list(cards)

    def _market(self, ev: Event, named: Callable[[str], str]) -> None:
        rnd = ev.get("round")
        if rnd != self.round + 1:
            raise _illegal(ev, f"the next market is round {self.round + 1}, not {rnd!r}", "18.5")
        size = self.next_market_size()
        cards = ev.get("cards")
        if cards is None:
            self.market = None
            self.exact = False
        else:
            if not isinstance(cards, list):
                raise _malformed(ev, "cards must be a list of Garage cards")
            cards = [self._token(ev, c) for c in cards]
            if len(cards) != size:
                raise _illegal(
                    ev,
                    f"a {self.method} market with {len(self.order)} player{'s' if len(self.order) > 1 else ''} "
                    f"shows {size} cards, not {len(cards)}",
                    "18.5",
                )
            self._take(ev, cards, "the market", named)
            self.market = {}
            for c in cards:
                self.market[c] = self.market.get(c, 0) + 1
        self.round += 1
        self.market_left = size
        self.queue = pick_order(self.order, self.method, self.round)

    def _picked(self, ev: Event, named: Callable[[str], str]) -> None:
        name = self._car(ev)
        if name != self.queue[0]:
            raise _illegal(ev, f"it is {self.queue[0]}'s pick, not {name}'s (# 18.5 pick order)", "18.5", car=name)
        card = self._token(ev, ev.get("card"))
        if self.market is not None:
            if not self.market.get(card):
                shown = ", ".join(named(c) for c, n in self.market.items() for _ in range(n)) or "nothing"
                raise _illegal(ev, f"{named(card)} is not in the market (it holds {shown})", "18.5", car=name)
            self.market[card] -= 1
        else:
            self._take(ev, [card], f"{name}'s pick", named)
        self.market_left -= 1
        self.owned[name].append(card)
        self.queue.pop(0)
        if not self.queue:
            # # 18.5: the cards left in the market are removed from the game.
            self.market = None
            self.market_left = 0
            if self.round == draft_rounds(self.method) and self.method == "snake":
                self.removing = list(self.order)

    def _removed(self, ev: Event, named: Callable[[str], str]) -> None:
        name = self._car(ev)
        if name not in self.removing:
            raise _illegal(ev, f"{name} has already given back a card", "18.5", car=name)
        card = self._token(ev, ev.get("card"))
        if card not in self.owned[name]:
            held = ", ".join(map(named, self.owned[name])) or "nothing"
            raise _illegal(ev, f"{name} has no {named(card)}: it holds {held}", "18.5", car=name)
        self.owned[name].remove(card)
        self.removed.append(card)
        self.removing.remove(name)


def draft_chance(draft: Draft, rng: Any) -> Event | None:
    """The chance event the draft waits for, drawn with ``rng`` (a ``random.Random``): a market (draft, snake) or a
    car's three cards (random) from what is left of the Garage deck (# 18.5). The deck is sorted first, so the
    outcome never depends on how it happens to lie in memory. None when a decision is due or the draft is over."""
    due, cars = draft.waiting()
    if due not in ("garage_market", "upgrades_dealt"):
        return None
    pool = sorted(card for card, copies in draft.deck.items() for _ in range(copies))
    if due == "garage_market":
        n = draft.next_market_size()
        return {"type": due, "v": 1, "round": draft.round + 1, "cards": rng.sample(pool, min(n, len(pool)))}
    return {"type": due, "v": 1, "car": cars[0], "cards": rng.sample(pool, min(UPGRADES_EACH, len(pool)))}


def _is_upgrade_token(value: str) -> bool:
    return value.startswith("U") and value[1:].isdigit()


# ---------------------------------------------------------------------------------------------- card symbols


def speeds(card: Card) -> tuple[int, ...]:
    """The printed Speed values (# 18.6): one, or several to choose from at reveal."""
    value = card.get("speed", 0)
    return tuple(value) if isinstance(value, list) else (int(value),)


def symbol(card: Card, name: str) -> int:
    """The number on a card's symbol ``name`` (0 when the card does not show it)."""
    return int(card.get("symbols", {}).get(name, 0))


def plus_symbols(card: Card) -> int:
    """# 18.8: a numbered boost N is N "+" symbols, N separate flips."""
    return symbol(card, "boost")


def speed_choices(played: Sequence[Card]) -> list[tuple[int, ...]]:
    """Every way to value the played upgrades (# 18.6: exactly one printed value each)."""
    return list(itertools.product(*(speeds(c) for c in played)))


def slipstream_totals(bonuses: Sequence[int]) -> list[int]:
    """# 18.16: the distances a slipstream may cover: the basic 2 plus any subset of the bonuses."""
    totals = {BASIC_SLIPSTREAM}
    for n in bonuses:
        totals |= {t + n for t in totals}
    return sorted(totals)


def legal_slipstream_totals(progress: int, final_line: int, bonuses: Sequence[int]) -> list[int]:
    """# 18.16, MA17, 8.6: the totals whose nominal end does not cross the final finish line."""
    return [t for t in slipstream_totals(bonuses) if progress + t <= final_line]


def bonus_subsets(bonuses: Sequence[int], total: int) -> list[tuple[int, ...]]:
    """Which bonuses (by index) make up ``total`` (# 18.16: each bonus optional and separate)."""
    out = []
    for k in range(len(bonuses) + 1):
        for pick in itertools.combinations(range(len(bonuses)), k):
            if BASIC_SLIPSTREAM + sum(bonuses[i] for i in pick) == total:
                out.append(pick)
    return out


def adjusted_limit(printed: int, adjusts: Iterable[int], road_token: int = 0) -> int:
    """# 18.17: printed limit + road-condition token + every Adjust in the Play Area; no floor."""
    return printed + road_token + sum(adjusts)


def accelerate_bonus(plus_used: int, accelerators: int) -> int:
    """# 18.20, MA2: +1 Speed for every "+" used this turn, for each Accelerate taken (skipped cards never count)."""
    return plus_used * accelerators


def draft_distance(progress: int, occupied: Iterable[int], values: int) -> int | None:
    """# 18.23, MA29: how far a Draft of up to ``values`` moves the car from ``progress``, or None if it cannot.

    ``occupied`` are the progresses of the spaces holding another car (cars past the finish line count). The
    landing space is forced: the last empty space before the first occupied one ahead; it needs d >= 1.
    """
    ahead = [p for p in occupied if p > progress]
    if not ahead:
        return None  # MA29: nothing ahead
    d = min(ahead) - 1 - progress
    if d < 1 or d > values:
        return None
    return d


def payable_count(costs: Sequence[int], engine: int) -> int:
    """# 18.11, MA1: how many of the unpaid Heat-cost cards must be paid: as many as the Engine covers,
    counted cheapest first."""
    total = 0
    count = 0
    for c in sorted(costs):
        if total + c > engine:
            break
        total += c
        count += 1
    return count


def payable_choices(costs: Sequence[int], engine: int) -> list[tuple[int, ...]]:
    """# 18.11, MA1: the sets of cards (indexes into ``costs``) the player may choose to pay for; the others are
    replaced by a flip. Each set has :func:`payable_count` cards and fits in the Engine."""
    k = payable_count(costs, engine)
    return [pick for pick in itertools.combinations(range(len(costs)), k) if sum(costs[i] for i in pick) <= engine]


@dataclass(frozen=True, slots=True)
class Use:
    """One symbol a played card offers (the React pool's entry for a card): which card, which symbol, its N."""

    source: int  # index of the card in the Play Area
    card: str  # its token
    symbol: str
    n: int
    mandatory: bool


def react_uses(play_area: Sequence[str], cards: Mapping[str, Card], paid: Iterable[int] = ()) -> list[Use]:
    """The React symbols the Play Area offers (# 18.7, 18.25). A card's symbols other than Cooldown wait for its
    Heat cost (# 18.10, MA28); ``paid`` are the Play Area indexes whose cost is settled. Direct Play is offered
    from the hand, not the Play Area (# 18.19), so it is not listed here."""
    settled = set(paid)
    out: list[Use] = []
    for i, token in enumerate(play_area):
        card = cards.get(token)
        if card is None:
            continue
        cost = symbol(card, "heat")
        for name in REACT_SYMBOLS:
            n = symbol(card, name)
            if not n or name == "direct":
                continue
            if name == "heat":
                if i not in settled:
                    out.append(Use(i, token, "heat", n, True))
                continue
            if cost and i not in settled and name != "cooldown":
                continue  # MA28
            out.append(Use(i, token, name, n, name in MANDATORY_REACT))
    return out


# ---------------------------------------------------------------------------------------------- names


def card_named(text: str, cards: Mapping[str, Card]) -> str:
    """The token a typed name means: a token (``U7``), a short name (``brakes1234``) or a unique prefix of one.
    ``heat`` is the Heat card. Raises ``AmbiguousInput`` listing the candidates, ``MalformedInput`` if none."""
    word = text.strip().lower()
    if word in ("h", "heat"):
        return HEAT
    by_token = {t.lower(): t for t in cards}
    if word in by_token:
        return by_token[word]
    shorts = {str(c["short"]).lower(): t for t, c in cards.items()}
    if word in shorts:
        return shorts[word]
    hits = sorted({t for s, t in shorts.items() if s.startswith(word)} if word else set())
    if len(hits) == 1:
        return hits[0]
    if hits:
        names = ", ".join(str(cards[t]["short"]) for t in hits)
        raise AmbiguousInput(f"{text!r} could be {names}: type more of the name", input=text)
    raise MalformedInput(f"no Garage card called {text!r} in this race", input=text)


def completions(prefix: str, cards: Mapping[str, Card]) -> list[str]:
    """Short names starting with ``prefix`` (the recorder's Tab completion), and ``heat``."""
    word = prefix.lower()
    names = sorted({str(c["short"]) for c in cards.values()} | {"heat"})
    return [n for n in names if n.lower().startswith(word)]


def describe(card: Card) -> str:
    """One line for narration: ``Brakes (speed 1/2/3/4; heat 1)``."""
    sp = "/".join(str(v) for v in speeds(card))
    parts = []
    symbols = card.get("symbols", {})
    for name in SYMBOL_ORDER:
        if name not in symbols:
            continue
        n = symbols[name]
        label = name.replace("_", " ")
        if name in ("direct", "accelerate", "refresh", "one_time"):
            parts.append(label)
        elif name == "adjust":
            parts.append(f"adjust {n:+d}")
        elif name == "boost":
            parts.append("+" * int(n) if n <= 3 else f"+{n}")
        else:
            parts.append(f"{label} {n}")
    return f"{card['name']} (speed {sp}" + (f"; {', '.join(parts)})" if parts else ")")


#: The sets of docs/cards.md's upgrade tables, in the page's order (# 18.2).
_DOC_SETS = {
    "base": "Garage (base box)",
    "heavy-rain": "Heavy Rain expansion",
    "tunnel-vision": "Tunnel Vision expansion",
}


def card_tables(read: Callable[[str], Any]) -> list[CardTable]:
    """docs/cards.md's tables of the upgrades (``Module.card_tables``, # 18.2): one per set, then any other set,
    from the Garage card file (``read("cards/garage.json")``: its JSON, read by the shell)."""
    upgrades = [c for c in read("cards/garage.json")["cards"] if c.get("kind") == "upgrade"]
    titled = [
        (f"Upgrades: {title} (# 18.2)", [c for c in upgrades if c.get("set", "base") == key])
        for key, title in _DOC_SETS.items()
    ]
    titled.append(("Other upgrades", [c for c in upgrades if c.get("set", "base") not in _DOC_SETS]))
    columns = ("short name", "card", "level", "copies")
    return [
        CardTable(
            title,
            columns,
            tuple((str(c["short"]), describe(c), str(c.get("level", "")), str(c.get("copies", ""))) for c in part),
        )
        for title, part in titled
        if part
    ]
