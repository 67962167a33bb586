"""Cards as data: each card type is a ``CardDef``, and a race reads its cards through a ``Catalogue``
(# 1.1, 1.2, 4.2, 4.3, 14.1, 14.2).

The base cards are ``heatlog/data/cards/base.json`` (schema/cards.schema.json): the engine reads that frozen file
of its own once, at import, and derives everything below from it — nothing else in heatlog spells out what a
base card means. A race that meets other cards (the Garage's upgrades, sponsorship cards) embeds their
definitions in its ``race_started.cards`` block, as it embeds its track, and gets a catalogue of the base cards
plus those; a race without the block uses the base catalogue, so every old log reads unchanged. The base tokens
stay ``"1".."4","0","5","H","S"``.
"""

from __future__ import annotations

import json
import marshal
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .written import record

BASE_FILE = Path(__file__).resolve().parent.parent / "data" / "cards" / "base.json"
KINDS = ("basic", "starting", "heat", "stress", "upgrade", "sponsor")


@record(frozen=True, slots=True)
class CardDef:
    """One card type, as its data file describes it."""

    token: str  # the id every event, position and multiset uses
    name: str
    short: str  # what a recorder user types
    kind: str  # basic, starting, heat, stress, upgrade, sponsor
    speeds: tuple[int, ...]  # (4,) or a choice such as (1, 2, 3, 4) (# 18.6); () for Heat and Stress
    symbols: tuple[tuple[str, int], ...]  # (symbol, N), e.g. (("boost", 1),): Stress is one "+" flip
    copies: int

    def __init__(
        self,
        token: str,
        name: str,
        short: str,
        kind: str,
        speeds: tuple[int, ...],
        symbols: tuple[tuple[str, int], ...],
        copies: int,
    ) -> None:
        object.__setattr__(self, "token", token)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "short", short)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "speeds", speeds)
        object.__setattr__(self, "symbols", symbols)
        object.__setattr__(self, "copies", copies)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CardDef:
        """A ``ValueError`` or ``KeyError`` says what is wrong (the door checks the schema first)."""
        speed = d.get("speed")
        speeds = () if speed is None else (speed,) if isinstance(speed, int) else tuple(speed)
        if d["kind"] not in KINDS or not all(isinstance(s, int) and s >= 0 for s in speeds):
            raise ValueError(f"card {d.get('id')!r}: unknown kind or bad speed")
        symbols = tuple(sorted((str(k), int(v)) for k, v in dict(d.get("symbols", {})).items()))
        return cls(
            str(d["id"]),
            str(d["name"]),
            str(d.get("short", d["id"])).lower(),
            d["kind"],
            speeds,
            symbols,
            int(d.get("copies", 0)),
        )

    def symbol(self, name: str) -> int:
        return dict(self.symbols).get(name, 0)

    def to_dict(self) -> dict[str, Any]:
        """The definition :meth:`from_dict` reads back to this card (a position's ``cards``)."""
        out: dict[str, Any] = {"id": self.token, "name": self.name, "short": self.short, "kind": self.kind}
        if self.speeds:
            out["speed"] = self.speeds[0] if len(self.speeds) == 1 else list(self.speeds)
        return {**out, "symbols": dict(self.symbols), "copies": self.copies}

    @property
    def value(self) -> int | None:
        """The speed of a single-speed card; None for Heat, Stress and a choice of speeds."""
        return self.speeds[0] if len(self.speeds) == 1 else None


def _card_order(card: CardDef) -> tuple[int, str, int, str]:
    """Kind (upgrades before sponsorship cards), then the token in natural order: U2 before U10."""
    head = card.token.rstrip("0123456789")
    tail = card.token[len(head) :]
    return (KINDS.index(card.kind), head, int(tail) if tail else -1, card.token)


@record(frozen=True, slots=True)
class Catalogue:
    """The card types a race can meet, in canonical order, with their meanings precomputed for the hot path.
    Immutable and shared by every copy of a state, like the track."""

    cards: tuple[CardDef, ...]
    tokens: tuple[str, ...]
    token_set: frozenset[str]
    basic: frozenset[str]  # carry the Speed symbol: the only cards a "+" flip can find (# 14.1)
    playable: frozenset[str]  # # 4.2: everything but Heat (a cluttered hand aside, # 13)
    discardable: frozenset[str]  # # 11.1: never Heat or Stress
    value: Mapping[str, int]  # single-speed cards
    heat: str  # the Heat token (# 4.2; a Garage Heat card is the same, # 18.27)
    stress: str

    def __init__(
        self,
        cards: tuple[CardDef, ...],
        tokens: tuple[str, ...],
        token_set: frozenset[str],
        basic: frozenset[str],
        playable: frozenset[str],
        discardable: frozenset[str],
        value: Mapping[str, int],
        heat: str,
        stress: str,
    ) -> None:
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "tokens", tokens)
        object.__setattr__(self, "token_set", token_set)
        object.__setattr__(self, "basic", basic)
        object.__setattr__(self, "playable", playable)
        object.__setattr__(self, "discardable", discardable)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "heat", heat)
        object.__setattr__(self, "stress", stress)

    @classmethod
    def of(cls, cards: Iterable[CardDef]) -> Catalogue:
        cards = tuple(cards)
        tokens = tuple(c.token for c in cards)
        if len(set(tokens)) != len(tokens):
            raise ValueError("a card token is defined twice")
        heat = [c.token for c in cards if c.kind == "heat"]
        stress = [c.token for c in cards if c.kind == "stress"]
        if len(heat) != 1 or len(stress) != 1:
            raise ValueError("a catalogue holds exactly one Heat and one Stress card type")
        return cls(
            cards,
            tokens,
            frozenset(tokens),
            frozenset(c.token for c in cards if c.kind == "basic"),
            frozenset(c.token for c in cards if c.kind != "heat"),
            frozenset(c.token for c in cards if c.kind not in ("heat", "stress")),
            {c.token: c.speeds[0] for c in cards if len(c.speeds) == 1},
            heat[0],
            stress[0],
        )

    def with_block(self, block: Any) -> Catalogue:
        """This catalogue plus the definitions of a ``race_started.cards`` block ({token: definition}); a
        ``ValueError`` says what is wrong."""
        if not isinstance(block, dict) or not block:
            raise ValueError("cards must map card tokens to their definitions")
        # kept by the block's exact bytes: every race on the same cards shares one catalogue (issue 32). ``marshal``
        # version 2 (no references: the same values give the same bytes, whatever their identities) writes every
        # value with its type (1, 1.0 and True apart), refuses any other type or a subclass (ValueError), and is
        # built in (no import); ~0.5 M instructions for the all-upgrades block, where its ``repr`` took ~1.1 M
        try:
            text = marshal.dumps(block, 2) if type(block) is dict else b""
        except ValueError:  # (an object marshal does not write, or nested too deep: not kept)
            text = b""
        key = (id(self), text)
        hit = _WITH_BLOCK.get(key) if 0 < len(text) < 1_000_000 else None
        if hit is not None and hit[0] is self:
            return hit[1]
        made = self._with_block(block)
        if 0 < len(text) < 1_000_000:
            if len(_WITH_BLOCK) >= 16:  # the oldest goes (all at once made a kept answer depend on the races before)
                del _WITH_BLOCK[next(iter(_WITH_BLOCK))]
            _WITH_BLOCK[key] = (self, made)
        return made

    def _with_block(self, block: dict[str, Any]) -> Catalogue:
        extra = []
        for token, d in block.items():
            if not isinstance(d, dict) or d.get("id", token) != token:
                raise ValueError(f"card {token!r}: its definition must be an object with id {token!r}")
            if token in self.token_set:
                raise ValueError(f"card {token!r} is a base card: it cannot be redefined")
            card = CardDef.from_dict({**d, "id": token})
            if card.kind in ("heat", "stress"):
                raise ValueError(f"card {token!r}: Heat and Stress are the base tokens H and S (# 18.27)")
            extra.append(card)
        # The race's order of its cards (a hand's multiset order, hence the order of the plays offered) must not
        # depend on the block's key order: a log read back from the store has its keys sorted (U1 U10 U11 …
        # U2), one built in memory does not (U1 U2 …). Same events, same state (principle 6).
        extra.sort(key=_card_order)
        return Catalogue.of((*self.cards, *extra))

    def __getitem__(self, token: str) -> CardDef:
        for c in self.cards:
            if c.token == token:
                return c
        raise KeyError(token)

    def name(self, token: str) -> str:
        """How messages name a card: Heat, Stress, an upgrade's name, or a quoted speed ("4")."""
        card = self[token] if token in self.token_set else None
        if card is None or card.kind in ("basic", "starting"):
            return f'"{token}"'
        return card.name

    def named(self, token: str) -> str:
        """How refusals name one card, as people know it (issue 29): Heat, Stress, a quoted speed ("4"), an
        upgrade or sponsorship card by its name and speed ("Suspension 4", "Dramdo Brakes 1/2/3/4"); where
        another card of the race has the same name and speed, with the short name the recorder takes
        ("Suspension 2 (susp2cool)"), never the code ("U33")."""
        if token in _BASE_TOKENS or token not in self.token_set:
            return self.name(token)
        card = self[token]
        shown = _name_and_speed(card)
        twins = [c for c in self.cards if c.token != token and c.kind == card.kind and _name_and_speed(c) == shown]
        return f"{shown} ({card.short})" if twins else shown

    def label(self, token: str) -> str:
        """How narration shows a card: its name (Heat, Stress, an upgrade), a speed card as its token."""
        card = self[token] if token in self.token_set else None
        return token if card is None or card.kind in ("basic", "starting") else card.name

    def listing(self) -> str:
        """The tokens, for messages: "1 2 3 4 0 5 H S"."""
        return " ".join(self.tokens)


# with_block's answers by (the catalogue, the block's bytes): a catalogue is immutable, and one made of the same
# definitions is the same catalogue (a refusal is never kept: it is raised again)
_WITH_BLOCK: dict[tuple[int, bytes], tuple[Catalogue, Catalogue]] = {}


def _name_and_speed(card: CardDef) -> str:
    """An upgrade or sponsorship card as its printed face names it: "Suspension 4", "Brakes 1/2/3/4"."""
    return f"{card.name} {'/'.join(map(str, card.speeds))}" if card.speeds else card.name


def _load_base() -> Catalogue:
    data = json.loads(BASE_FILE.read_text(encoding="utf-8"))
    return Catalogue.of(CardDef.from_dict(d) for d in data["cards"])


BASE_CATALOGUE = _load_base()
_BASE_TOKENS = BASE_CATALOGUE.token_set
_base = BASE_CATALOGUE

# The base cards' meanings, derived from the data file (the names the engine and its callers have always used).
BASIC = tuple(t for t in _base.tokens if t in _base.basic)  # 1 2 3 4
UPGRADES = tuple(c.token for c in _base.cards if c.kind == "starting")  # 0 5 (# 4.3, 14.2)
HEAT = _base.heat
STRESS = _base.stress
CARDS = _base.tokens  # canonical order: 1 2 3 4 0 5 H S
PLAYABLE = _base.playable
DISCARDABLE = _base.discardable
VALUE = dict(_base.value)
_COPIES = {c.token: c.copies for c in _base.cards}

HAND_SIZE = 7  # # 1.2, 12.2
GEAR_COOLDOWN = {1: 3, 2: 1, 3: 0, 4: 0}  # # 7.2
SPINOUT_STRESS = {1: 1, 2: 1, 3: 2, 4: 2}  # # 10.3


def starting_deck(stress: int | None = None) -> list[str]:
    """The draw deck before shuffling (# 1.2): 12 Basic, 0, 5, the Heat upgrade and the circuit's Stress
    (3 on the base circuits, # 22.9), in canonical order."""
    n = dict(_COPIES)
    if stress is not None:
        n[STRESS] = stress
    return [c for c in CARDS for _ in range(n[c])]


def engine_heat(handicap: bool, heat: int = 6) -> int:
    """Heat cards on the Engine at the start: the circuit's Heat (6 on the base circuits, # 22.9), one fewer
    for an experienced driver (# 17.2: 5 instead of 6; on other circuits read as one fewer)."""
    return heat - 1 if handicap else heat


# ---------------------------------------------------------------------------------------------- multisets

Counts = dict[str, int]


def counts(cards: list[str] | tuple[str, ...], tokens: tuple[str, ...] = CARDS) -> Counts:
    """A multiset over ``tokens`` (the race's card tokens, ``RaceState.cards.tokens``; the base cards by
    default), in their canonical order. A car's multisets hold exactly its race's tokens."""
    out = dict.fromkeys(tokens, 0)
    for c in cards:
        out[c] += 1
    return out


def expand(c: Counts) -> list[str]:
    """Cards of a multiset in its canonical order (1 2 3 4 0 5 H S, then the race's other cards)."""
    out: list[str] = []
    for card, n in c.items():  # (a loop, not a nested comprehension: asked for every hand the bots weigh)
        if n == 1:
            out.append(card)
        elif n > 0:
            out += [card] * n
    return out
