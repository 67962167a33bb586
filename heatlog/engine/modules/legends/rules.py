"""Legends (MODULES.md 19): the Legend deck and where a Legend goes. Pure: no I/O, no race state.

A Legend's move is decided by the track, its progress, this round's Legend card and the corner limits
(road conditions change them, # 19.11); placing the car on a free spot is the base blocking rule (# 19.9),
which the step machine applies to the target computed here. See docs/legends-weather.md.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...module import copy_data, read_once
from ...track import Track

MAX_PRO = 6  # # 19.15: BGA's option offers +1..+6


@dataclass(frozen=True, slots=True)
class LegendEntry:
    """One colour's cell on a Legend card (# 19.4)."""

    helmet: int
    diamond: int


@dataclass(frozen=True, slots=True, eq=False)
class LegendCard:
    id: int
    by_colour: Mapping[str, LegendEntry]


@dataclass(frozen=True, slots=True, eq=False)
class LegendRules:
    """The Legends module of one race: its cards and options, as embedded in ``race_started``."""

    cards: tuple[LegendCard, ...]
    colours: tuple[str, ...]
    pro: int = 0  # # 19.15
    aggressive: bool = False  # # 19.14
    _by_id: Mapping[int, LegendCard] = field(default_factory=dict, repr=False)
    data: Mapping[str, Any] = field(default_factory=dict, repr=False)  # as embedded in race_started

    @classmethod
    def from_dict(cls, data: Any) -> LegendRules:
        """Build from ``race_started.modules.legends``; ValueError names what is wrong. Immutable, so the rules
        of data already read are the same object (a simulated race read its deck three times: issue 32)."""
        return read_once(cls._read, data)

    @classmethod
    def _read(cls, data: Any) -> LegendRules:
        if not isinstance(data, dict):
            raise ValueError("modules.legends must be an object")
        raw = data.get("cards")
        if not isinstance(raw, list) or not raw:
            raise ValueError("modules.legends.cards must list the Legend cards (# 19.4)")
        cards: list[LegendCard] = []
        colours: tuple[str, ...] | None = None
        for i, c in enumerate(raw):
            if not isinstance(c, dict) or not isinstance(c.get("by_colour"), dict):
                raise ValueError(f"modules.legends.cards[{i}] must have an id and by_colour")
            cid = c.get("id")
            if not isinstance(cid, int) or isinstance(cid, bool):
                raise ValueError(f"modules.legends.cards[{i}].id must be a number")
            entries: dict[str, LegendEntry] = {}
            for colour, e in c["by_colour"].items():
                h, d = (e.get("helmet"), e.get("diamond")) if isinstance(e, dict) else (None, None)
                if not (isinstance(h, int) and isinstance(d, int) and h >= 1 and 0 <= d <= 3):
                    raise ValueError(f"modules.legends.cards[{i}].by_colour.{colour}: helmet >= 1, diamond 0-3")
                entries[str(colour)] = LegendEntry(h, d)
            these = tuple(entries)
            if colours is None:
                colours = these
            elif set(these) != set(colours):
                raise ValueError(f"modules.legends.cards[{i}] does not name the same colours as card 1")
            cards.append(LegendCard(cid, entries))
        ids = [c.id for c in cards]
        if len(set(ids)) != len(ids):
            raise ValueError("modules.legends.cards: card ids must be unique")
        pro = data.get("pro", 0)
        if not isinstance(pro, int) or isinstance(pro, bool) or not 0 <= pro <= MAX_PRO:
            raise ValueError(f"modules.legends.pro must be 0 to {MAX_PRO} (# 19.15)")
        aggressive = data.get("aggressive", False)
        if not isinstance(aggressive, bool):
            raise ValueError("modules.legends.aggressive must be true or false (# 19.14)")
        assert colours is not None
        embedded = {"cards": copy.deepcopy(raw), "pro": pro, "aggressive": aggressive}
        return cls(tuple(cards), colours, pro, aggressive, {c.id: c for c in cards}, embedded)

    def card(self, card_id: int) -> LegendCard | None:
        return self._by_id.get(card_id)

    def entry(self, card_id: int, colour: str) -> LegendEntry:
        return self._by_id[card_id].by_colour[colour]

    def card_by_number(self, colour: str, helmet: int) -> LegendCard | None:
        """The card on which ``colour`` has helmet number ``helmet`` (printed, without the pro bonus): each colour
        has each number once over the deck (# 19.4), so one helmet identifies the card turned at the table."""
        found = [c for c in self.cards if c.by_colour.get(colour, LegendEntry(0, 0)).helmet == helmet]
        return found[0] if len(found) == 1 else None


# ------------------------------------------------------------------------------------------------ the deck


@dataclass(slots=True)
class LegendsState:
    """The Legends' slot of a race (``state.modules["legends"]``, engine/module.py): the race's Legend rules
    (immutable, shared by copies) and its Legend deck (copied with the state)."""

    rules: LegendRules
    deck: LegendDeck

    def copy(self) -> LegendsState:
        return LegendsState(self.rules, self.deck.copy())


def slot(state: RaceState) -> LegendsState | None:
    """The Legends' slot of ``state`` (None: a race without them)."""
    own: LegendsState | None = state.modules.get("legends")
    return own


@dataclass(slots=True)
class LegendDeck:
    """Which Legend cards were turned since the last reshuffle, and this round's card (# 19.5, MA9).

    The reshuffle is derived: once every card has been turned, the next reveal starts a new cycle."""

    used: list[int] = field(default_factory=list)
    current: int | None = None  # the card serving every Legend this round
    current_round: int = 0
    reshuffles: int = 0

    def copy(self) -> LegendDeck:
        return LegendDeck(list(self.used), self.current, self.current_round, self.reshuffles)

    def available(self, rules: LegendRules) -> list[int]:
        """Cards that can be turned next (all of them right after a reshuffle, # MA9)."""
        left = [c.id for c in rules.cards if c.id not in self.used]
        return left or [c.id for c in rules.cards]

    def why_not(self, rules: LegendRules, card_id: Any) -> str | None:
        if not isinstance(card_id, int) or isinstance(card_id, bool) or rules.card(card_id) is None:
            return f"there is no Legend card {card_id!r} (cards {', '.join(str(c.id) for c in rules.cards)})"
        if card_id not in self.available(rules):
            return (
                f"Legend card {card_id} was already turned since the last reshuffle "
                f"(cards left: {', '.join(map(str, self.available(rules)))})"
            )
        return None

    def reveal(self, rules: LegendRules, card_id: int, round: int) -> None:
        if len(self.used) >= len(rules.cards):  # # MA9: all ten used: reshuffle all ten
            self.used = []
            self.reshuffles += 1
        self.used.append(card_id)
        self.current = card_id
        self.current_round = round

    def to_dict(self) -> dict[str, Any]:
        return {
            "used": list(self.used),
            "current": self.current,
            "current_round": self.current_round,
            "reshuffles": self.reshuffles,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LegendDeck:
        cur = d.get("current")
        return cls(
            [int(x) for x in d.get("used", [])],
            int(cur) if cur is not None else None,
            int(d.get("current_round", 0)),
            int(d.get("reshuffles", 0)),
        )


# ------------------------------------------------------------------------------------------------ the move


@dataclass(frozen=True, slots=True)
class LegendMove:
    """Where a Legend aims this turn, and why (before blocking, # 19.9)."""

    case: str  # "helmet" | "diamond" (19.7), "corner" (19.8), "finish" (19.13)
    start: int  # progress
    target: int  # progress aimed at
    helmet: int  # helmet number used (pro bonus included, # 19.15)
    diamond: int
    corner: int  # 1-based number of the next corner line (track order), 0 if none before the finish
    after_space: int  # that line lies after this space
    line: int  # that line's progress
    limit: int | None = None  # corner case: the limit used (road condition included, # 19.11)
    allowance: int = 1  # Corner Lines it may cross (# 19.8, 19.14)
    stopped_before: int | None = None  # corner case: the corner number of the line it stopped before

    @property
    def spaces(self) -> int:
        return self.target - self.start

    def describe(self, space_of: Callable[[int], int], corner_of: Callable[[int], int] | None = None) -> str:
        """One line for the narration: which case, and the numbers behind it; ``corner_of``: a Corner Line's number
        (1-based, track order) as the printed board numbers the corners (a chicane once, issue 29 bug 12)."""
        number = corner_of or (lambda k: k)
        to = f"space {space_of(self.target)}" if self.target > self.start else f"stays on space {space_of(self.start)}"
        if self.case == "finish":
            return f"the finish comes before the next corner: full helmet {self.helmet} → {to} (# 19.13)"
        if self.case == "helmet":
            return f"before the Legend line: helmet {self.helmet} → {to} (# 19.7)"
        if self.case == "diamond":
            return (
                f"before the Legend line: helmet {self.helmet} would cross corner {number(self.corner)}, "
                f"stops on diamond {self.diamond} ({to}) (# 19.7)"
            )
        extra = f" (chevrons: up to {self.allowance} Corner Lines)" if self.allowance > 1 else ""
        stop = (
            f", stops before corner {number(self.stopped_before)}: at most {self.allowance} line"
            f"{'s' if self.allowance > 1 else ''} a round"
            if self.stopped_before is not None
            else ""
        )
        return (
            f"past the Legend line: corner {number(self.corner)} limit {self.limit} + diamond {self.diamond} = "
            f"{(self.limit or 0) + self.diamond}{extra}{stop} → {to} (# 19.8)"
        )


@dataclass(frozen=True, slots=True)
class _LegendTrack:
    """A track's Corner Lines as the Legend rules read them, built once per track."""

    after: tuple[int, ...]  # after_space of each line, track order
    legend_gap: tuple[int | None, ...]  # spaces from the Legend line to the Corner Line ((c - L) mod N)
    chevrons: Mapping[int, int]  # space -> extra lines allowed (1 single chevron, 2 double; # 19.14)


def legend_track_problem(track: Track) -> str | None:
    """Why Legends cannot race on ``track`` (a corner without a Legend line), or None."""
    missing = [i + 1 for i, c in enumerate(track.corners) if c.legend_line_after_space is None]
    if missing:
        return (
            f"{track.name} has no Legend line for corner{'s' if len(missing) > 1 else ''} "
            f"{', '.join(map(str, missing))}: Legends need one per corner (# 19.7)"
        )
    return None


_TRACKS: dict[int, tuple[Track, _LegendTrack]] = {}  # by the track's id (a Track hashes its whole content)


def _legend_track(track: Track) -> _LegendTrack:
    """The track's lines as the Legend rules read them, built once per Track object."""
    hit = _TRACKS.get(id(track))
    if hit is not None and hit[0] is track:
        return hit[1]
    if len(_TRACKS) >= 32:
        _TRACKS.clear()
    lt = _legend_lines(track)
    _TRACKS[id(track)] = (track, lt)  # holds the track: its id stays its own
    return lt


def _legend_lines(track: Track) -> _LegendTrack:
    n = track.spaces
    gaps = tuple(
        (c.after_space - c.legend_line_after_space) % n if c.legend_line_after_space is not None else None
        for c in track.corners
    )
    chevrons: dict[int, int] = {}
    for c in track.corners:  # (a space two corners mark: the most it allows)
        for sp in c.chevron_spaces | c.double_chevron_spaces:
            chevrons[sp] = max(chevrons.get(sp, 0), c.chevrons(sp))
    return _LegendTrack(tuple(c.after_space for c in track.corners), gaps, chevrons)


def next_line(track: Track, p: int) -> tuple[int, int]:
    """(line progress, corner index) of the first Corner Line at or ahead of progress ``p`` (a car on the space
    just before a line has not crossed it)."""
    n = track.spaces
    lap = (p - 1) // n
    space = p - lap * n
    for i, c in enumerate(track.corners):
        if c.after_space >= space:
            return lap * n + c.after_space, i
    return (lap + 1) * n + track.corners[0].after_space, 0


def legend_move(
    track: Track,
    start: int,
    entry: LegendEntry,
    *,
    final_line: int,
    pro: int = 0,
    aggressive: bool = False,
    limit_of: Callable[[int], int] | None = None,
) -> LegendMove:
    """Where a Legend on progress ``start`` aims with this round's card ``entry`` (# 19.7, 19.8, 19.13, 19.14).

    ``limit_of(i)`` is the limit of corner line ``i`` (0-based, track order) after road conditions (# 19.11);
    by default the printed one. Lines beyond ``final_line`` are ignored (# 16.4, 19.13, MA31)."""
    lt = _legend_track(track)
    n = track.spaces
    lines = lt.after
    helmet = entry.helmet + pro  # # 19.15: helmet numbers only
    k = entry.diamond
    c_line, ci = next_line(track, start)
    if c_line > final_line:  # # 19.13: the finish line comes first: full helmet number
        return LegendMove("finish", start, start + helmet, helmet, k, 0, 0, 0)
    after = lines[ci]
    prev_line = c_line - ((after - lines[ci - 1]) % n or n)
    gap = lt.legend_gap[ci]
    assert gap is not None, "legend_track_problem() refuses such a track at race start"
    legend_line = c_line - gap
    if legend_line > prev_line and start <= legend_line:  # # 19.7, MA10: on L itself is still before it
        if start + helmet > c_line:
            target = max(start, c_line - k)  # a Legend never moves backwards (MA10)
            return LegendMove("diamond", start, target, helmet, k, ci + 1, after, c_line)
        return LegendMove("helmet", start, start + helmet, helmet, k, ci + 1, after, c_line)
    # # 19.8: past the Legend line (or the line lies at/behind the previous Corner Line, e.g. a chicane's second)
    limit = limit_of(ci) if limit_of is not None else track.corners[ci].limit
    allowance = 1 + (lt.chevrons.get(track.space_of(start), 0) if aggressive else 0)  # # 19.14
    target = start + max(0, limit + k)
    crossed: list[tuple[int, int]] = []  # (line progress, corner index) of the lines the move would cross
    lap = (start - 1) // n - 1
    while lap * n < target:
        for i, a in enumerate(lines):
            line = lap * n + a
            if start <= line < target and line <= final_line:  # # MA31: lines beyond the finish do not count
                crossed.append((line, i))
        lap += 1
    crossed.sort()
    stopped = None
    if len(crossed) > allowance:
        line, i = crossed[allowance]
        target, stopped = line, i + 1  # the last space before the (m+1)-th line
    return LegendMove("corner", start, target, helmet, k, ci + 1, after, c_line, limit, allowance, stopped)


# ------------------------------------------------------------------------------------------------ in a race


def legend_turn_move(state: RaceState, car: Car) -> LegendMove:
    """Where the Legend ``car`` aims this round with the card turned (# 19.7–19.15), corner limits after road
    conditions (# 19.11)."""
    own = slot(state)
    assert own is not None
    rules, deck = own.rules, own.deck
    assert deck.current is not None
    entry = rules.entry(deck.current, car.colour)
    track, turn, corner_limit = state.track, state.turn, state.rules.corner_limit
    assert turn is not None and turn.car == car.name

    def limit_of(i: int) -> int:  # the race's corner limit, as for every car (road tokens: # 19.11, 20.8)
        return corner_limit(state, car, turn, track.corners[i])

    return legend_move(
        track,
        car.progress,
        entry,
        final_line=state.final_line,
        pro=rules.pro,
        aggressive=rules.aggressive,
        limit_of=limit_of,
    )


def setup_problem(rules: LegendRules, track: Track, cars: list[dict[str, Any]]) -> str | None:
    """Why these cars cannot be this race's Legends (# 19.2, 19.4, 19.7), or None."""
    legends = [c for c in cars if c.get("legend")]
    if not legends:
        return "the Legends module is in play but no car is a Legend (mark one with legend: true)"
    if len(legends) == len(cars):
        return "a race needs at least one player's car besides the Legends (# 19.2)"
    colours = [c.get("colour") for c in legends]
    bad = [c for c in colours if c not in rules.colours]
    if bad:
        return (
            f"a Legend's colour must be one printed on the Legend cards ({', '.join(rules.colours)}), "
            f"not {bad[0]!r} (# 19.4)"
        )
    if len(set(colours)) != len(colours):
        return "two Legends share a colour: each colour has one column on the Legend card (# 19.4)"
    return legend_track_problem(track)


# ---------------------------------------------------------------------------------------------- in a race


def legend_moves(state: RaceState, car: Car, turn: Turn) -> None:
    """# 19.7–19.14: the Legend's move, placed by the base blocking rule (# 19.9); no React, slipstream, corner
    check, discard or draw (# 19.10): its turn ends at once."""
    from ...handlers import step_machine
    from ...movement import move

    plan = legend_turn_move(state, car)
    turn.keep("legends", plan)  # the Legends' record of the turn (legend_move)
    turn.speed = plan.spaces
    turn.moved = move(state, car, turn, plan.spaces)
    step_machine.end_turn(state, car, turn)


def legend_card_revealed(state: RaceState, ev: dict[str, Any]) -> None:
    """# 19.5, MA9: the round's Legend card, turned when the round's first Legend moves; that Legend moves."""
    from ...handlers import illegal, step_machine
    from ...steps import REACT

    own, turn = slot(state), state.turn
    if own is None:
        raise illegal(state, ev, "there are no Legends in this race", "19.1")
    rules, deck = own.rules, own.deck
    if turn is None or not state.cars[turn.car].legend or deck.current_round == state.round:
        if deck.current_round == state.round and state.phase == "race":
            raise illegal(state, ev, f"the Legend card of round {state.round} is already turned", "19.5")
        raise illegal(state, ev, "the Legend card is turned when the first Legend of the round moves", "MA9")
    card = ev.get("card")
    why = deck.why_not(rules, card)
    if why:
        raise illegal(state, ev, why, "MA9")
    assert isinstance(card, int)
    deck.reveal(rules, card, state.round)
    car = state.cars[turn.car]
    legend_moves(state, car, turn)
    step_machine.advance(state, car, turn, REACT)  # on to the next car's turn


def legend_turn(state: RaceState, car: Car) -> tuple[Car, Turn] | None:
    """# 19.6: a Legend's turn is its move, with this round's Legend card (# 19.5): it waits for the card when
    it is the round's first Legend, else it is over at once (the step machine goes on to the next car)."""
    from ...handlers import step_machine

    car, turn = step_machine.start_turn(state)
    own = slot(state)
    assert own is not None
    if own.deck.current_round != state.round:
        return None  # waiting for legend_card_revealed
    legend_moves(state, car, turn)
    return car, turn


def build(rules: Rules, options: Any) -> Rules:
    """# 19: a Legend car's turn is of the kind "legend" (its options are read at race_started: its ``start``)."""
    from dataclasses import replace

    turn_kind = rules.turn_kind

    def kind(state: RaceState, car: Car) -> str:
        return "legend" if car.legend else turn_kind(state, car)

    return replace(
        rules,
        turn_kind=kind,
        turns={**rules.turns, "legend": legend_turn},
        turn_waits={**rules.turn_waits, "legend": "legend_card_revealed"},  # # 19.5, MA9: the round's card
    )


if TYPE_CHECKING:  # at the end: state imports this module
    from ...ruleset import Rules
    from ...state import Car, RaceState, Turn


def check_data(data: Any) -> None:
    """``heatlog/data/legends.json`` read as a race reads its block (``Module.data_check``): the 10 Legend cards,
    numbered 1 to 10 (# 19.4)."""
    LegendRules.from_dict({"cards": data["cards"]})
    ids = sorted(c["id"] for c in data["cards"])
    if ids != list(range(1, 11)):
        raise ValueError("the Legend deck has cards 1..10 (# 19.4)")


def options_block(cards: Any, pro: int, aggressive: bool) -> dict[str, Any]:
    """``race_started.legends``: a copy of the Legend cards and the two options (# 19.4, 19.14, 19.15), checked by
    the rules (``ValueError`` names what is wrong: a pro value out of range …)."""
    block = {"cards": copy_data(cards), "pro": pro, "aggressive": aggressive}
    LegendRules.from_dict(block)
    return block
