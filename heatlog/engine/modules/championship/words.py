"""The championship's words (issue 29, build 5; issue 26: a module's words are in its folder): the event card and
the press corners of a championship race (what the card asks, each with its rules item, which corners are press
corners this race and what earns a sponsorship card there), shown on the board (``heatlog show``, the HTML replay,
through the descriptor's ``rules_lines`` and ``press_corners``) and on the season page; and a turn's sponsorship
cards, eliminations and Heat taken out of the game in the narration (``narrate_after``). The facts are the
engine's (:class:`.rules.EventCard`, :func:`.rules.press_lines`, the road-condition tokens of the weather
module); this file only words them. Pure: no I/O, no shell."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...module import CardTable
from ...words import counted
from .rules import HAND_SIZE, ChampionshipBlock, EventCard, press_lines
from .turn import championship_turn

if TYPE_CHECKING:
    from ...state import RaceState, Turn
    from ...track import Track

__all__ = ["asks", "event_card_lines", "narrate_after", "press_corner_words", "race_event_lines", "race_press_lines"]


def asks(card: EventCard) -> list[str]:
    """What the event card asks, one item each, with its rules item (# 21.8 and the items it points to)."""
    out: list[str] = []
    if card.sponsor_cards:
        out.append(f"{counted(card.sponsor_cards, 'sponsorship card')} dealt to each driver at the start (# 21.4)")
    if card.laps:
        out.append(f"{card.laps:+d} lap{'s' if abs(card.laps) != 1 else ''} (# 21.8, 22.9)")
    if card.heat:
        out.append(f"{card.heat:+d} Heat on the Engine (# 21.8)")
    if card.stress:
        out.append(f"{card.stress:+d} Stress in the deck (# 21.8)")
    if card.hand_size != HAND_SIZE:
        out.append(f"hand size {card.hand_size} (# 21.8, MA26)")
    if card.first_across_lap_1:
        out.append(f"the first {card.first_across_lap_1} across the line after lap 1 earn a sponsorship card (# 21.9)")
    if card.speed_record:
        out.append(f"a Speed of {card.speed_record} or more earns a sponsorship card (# 21.8)")
    if card.passes_for_card:
        out.append(f"passing {card.passes_for_card} cars in a turn earns a sponsorship card (# 21.8, MA22)")
    if card.spinout_eliminates:
        out.append("a car that spins out is eliminated and scores 0 (# 21.8, MA21)")
    if card.press_cards != 1:
        out.append(f"a press corner gives {counted(card.press_cards, 'sponsorship card')} (# 21.8)")
    if card.slipstream_gears != (1, 2, 3, 4):
        out.append(f"slipstream only in gear {' or '.join(map(str, card.slipstream_gears))} (# 21.8)")
    if card.discard_heat:
        out.append("Heat cards may be discarded in step 8, not in a tunnel (# 21.8, 21.13)")
    if card.no_adrenaline:
        out.append("no adrenaline (# 21.8)")
    if card.max_discard is not None:
        out.append(f"at most {counted(card.max_discard, 'card')} discarded a turn (# 21.8)")
    if card.press_below_limit:
        out.append("a press corner gives a card only at a Speed below its limit, slipstream or not (# 21.8)")
    if card.discard_stress:
        out.append("Stress cards may be discarded in step 8, not in a tunnel (# 21.8, 21.13)")
    if card.lap_heat_removed:
        out.append("each lap completed (not the last) takes a Heat card out of the game (# 21.8, MA23)")
    if card.winner_bonus:
        out.append(f"the winner scores {card.winner_bonus} more points (# 21.10)")
    if card.podium_bonus:
        more = counted(card.podium_bonus, "more point")
        out.append(f"the first three score {more} each (# 21.10)")
    return out or ["no special rule (# 21.8)"]


def press_corner_words(track: Track, card: EventCard, state: RaceState | None = None) -> list[str]:
    """Each press corner of the race (# 21.6: the card's letters on the circuit, a chicane's on its second line)
    and what earns a card there (# 21.7; MA4: the limit with the road-condition token, never a car's Adjust)."""
    from ..weather import rules as weather  # noqa: PLC0415  (the road-condition tokens)

    out = []
    numbers = {c.after_space: i for i, c in enumerate(track.corners, start=1)}
    for corner in press_lines(track, card):
        token = weather.corner_at(state, corner.after_space).limit if state is not None else 0
        limit = corner.limit + token
        shown = f"limit {limit}" + (f" (printed {corner.limit}, road token {token:+d})" if token else "")
        gives = counted(card.press_cards, "sponsorship card")
        if card.press_below_limit:
            how = f"{gives} at a Speed below {limit}"
        else:
            how = f"{gives} at a Speed of {limit + 2} or more, or slipstreaming across the line"
        out.append(
            f"press corner {corner.press} (corner {numbers[corner.after_space]}, the line after space "
            f"{corner.after_space}, {shown}): {how}, once a lap; none in a turn with a spinout (# 21.6, 21.7, MA18)"
        )
    return out


def event_card_lines(card: EventCard, track: Track, state: RaceState | None = None) -> list[str]:
    """The event card's name, what it asks and the race's press corners, as lines of text."""
    head = f"event card {card.number}: {card.name} (# 21.8): " + "; ".join(asks(card))
    press = press_corner_words(track, card, state)
    return [head, *(press or ["no press corner this race (# 21.6)"])]


def race_event_lines(state: RaceState) -> list[str]:
    """:func:`event_card_lines` of a championship race (empty for any other race or an unreadable block)."""
    if "championship" not in state.rules.modules:
        return []
    options: Any = state.rules.options.get("championship")
    try:
        block = ChampionshipBlock.from_dict(options)
    except ValueError:
        return []
    return event_card_lines(block.event, state.track, state)


def race_press_lines(state: RaceState) -> set[int] | None:
    """The lines (after_space) that are press corners in a championship race (# 21.6); None in any other race."""
    if "championship" not in state.rules.modules:
        return None
    try:
        block = ChampionshipBlock.from_dict(state.rules.options.get("championship"))
    except ValueError:
        return None
    return {c.after_space for c in press_lines(state.track, block.event)}


_WHERE = {"engine": "the Engine", "hand": "the hand", "discard": "the discard pile", "deck": "the deck"}


def narrate_after(state: RaceState, turn: Turn) -> list[str]:
    """A turn's sponsorship cards earned, taken and used (# 21.4, 21.7, MC7), an elimination (event 10, MA21) and
    the Heat cards it took out of the game (event 18, MA23), from the turn's own record: the narration's words
    after the corners."""
    own = championship_turn(turn)
    parts = [f"earns a sponsorship card: {why}" for why in own.earned]
    if own.sponsors_drawn:
        parts.append("takes " + ", ".join(state.cards.name(c) for c in own.sponsors_drawn))
    for card in own.sponsors_used:
        parts.append(f"{state.cards.name(card)} leaves the game (one-time use, MC7)")
    if turn.eliminated:
        parts.append("is eliminated: off the track, last place, 0 points (event 10, MODULES.md MA21)")
    for source in own.heat_removed:
        parts.append(f"a Heat card from {_WHERE[source]} leaves the game (event 18, MA23)")
    return parts


def event_words(ev: dict[str, Any], cards: Callable[[list[str]], str]) -> str | None:
    """The championship's events in a few words (the recorder's echo and undo lines): a Heat card that leaves the
    game (MA23), a sponsorship card drawn (# 21.7), the draft swap between races (# 21.9)."""
    kind, car = ev.get("type"), ev.get("car", "")
    if kind == "heat_removed":
        return f"{car}: a Heat card from the {ev['from']} leaves the game"
    if kind == "sponsor_drawn":
        return f"{car} draws the sponsorship card {cards([ev['card']])}"
    if kind == "upgrade_swapped":
        if "give" not in ev:
            return f"{car} keeps their upgrades"
        return f"{car} swaps {cards([ev['give']])} for {cards([ev['take']])}"
    return None


def card_tables(read: Callable[[str], Any]) -> list[CardTable]:
    """docs/cards.md's table of the sponsorship cards (``Module.card_tables``, # 21.5), from their card file
    (``read("cards/sponsors.json")``: its JSON, read by the shell), each described as an upgrade is (# 18.2)."""
    from ..garage.cards import describe

    cards = read("cards/sponsors.json")["cards"]
    rows = tuple((str(c["short"]), describe(c), str(c.get("copies", ""))) for c in cards)
    return [CardTable("Sponsorship cards (championship, # 21.5)", ("short name", "card", "copies"), rows)]
