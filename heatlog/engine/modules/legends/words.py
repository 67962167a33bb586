"""The Legends' words (issue 26: a module's words are in its folder): a Legend's turn in the narration
(MODULES.md 19.7–19.14), found by the narration through the descriptor (``narrate_turn``). Pure: no I/O, no
shell."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..circuits import corner_number
from . import legend_move_of
from .rules import slot

if TYPE_CHECKING:
    from ...state import RaceState, Turn


def narrate_turn(state: RaceState, turn: Turn) -> list[str] | None:
    """A Legend's turn: where the card sent it and why, and where it stopped (the narration adds the finish and
    lap words); None for a car's own turn."""
    move = legend_move_of(turn)
    if move is None:
        return None
    space = state.track.space_of
    lines = state.track.corners  # the move's corners are Corner Lines, told by the printed board's numbers
    parts = [f"{turn.car} (Legend) {move.describe(space, lambda k: corner_number(state, lines[k - 1].after_space))}"]
    if turn.moved < move.spaces:
        parts.append(f"blocked: stops on space {space(turn.start + turn.moved)} (# 19.9)")
    return parts


def event_words(ev: dict[str, Any], cards: Callable[[list[str]], str]) -> str | None:
    """The Legends' event in a few words (the recorder's echo and undo lines): the Legend card turned (# 19.4)."""
    if ev.get("type") == "legend_card_revealed":
        return f"Legend card {ev['card']} turned"
    return None


# ---------------------------------------------------------------------------------------------- the table's notation
# The recorder's question for the round's Legend card (the descriptor's ``notation``, asked by the kind "legend"):
# public chance, no car answers it (# 19.5); typed as the helmet number the Legend whose turn it is reads on the
# card turned, or as ``card N``.


def _legend(state: RaceState) -> tuple[Any, Any]:
    own, turn = slot(state), state.turn
    assert own is not None and turn is not None
    return own.rules, state.cars[turn.car]


def card_question(state: RaceState) -> tuple[str, str, tuple[str, ...]]:
    """# 19.5: the helmet number by this Legend's colour on the card turned; the numbers not yet turned."""
    rules, car = _legend(state)
    own = slot(state)
    assert own is not None
    deck = own.deck
    numbers = tuple(str(rules.entry(c, car.colour).helmet) for c in deck.available(rules))
    hint = (
        f"the number by the {car.colour} helmet on the card turned (or card N); not yet turned: "
        f"{' '.join(sorted(numbers, key=int))} (MODULES.md 19.5)"
    )
    return f"Legend card for round {state.round}: {car.name}'s helmet number ({car.colour}): ", hint, numbers


def card_parse(state: RaceState, text: str) -> dict[str, Any]:
    """The card as its helmet number for the Legend whose turn it is (each colour has each number once, # 19.4),
    or as ``card N``; ``ValueError`` says what to type."""
    rules, car = _legend(state)
    words = text.lower().split()
    if len(words) == 2 and words[0] == "card" and words[1].isdecimal():
        return {"type": "legend_card_revealed", "v": 1, "card": int(words[1])}
    if len(words) == 1 and words[0].isdecimal():
        card = rules.card_by_number(car.colour, int(words[0]))
        if card is None:
            raise ValueError(f"no Legend card gives {car.colour} the number {words[0]} (10–19, # 19.4)")
        return {"type": "legend_card_revealed", "v": 1, "card": card.id}
    raise ValueError(f"type {car.name}'s helmet number on the card turned (e.g. 16), or card N (1–10)")


def card_echo(state: RaceState, ev: dict[str, Any]) -> str:
    """``Legend-Black: Legend card 1 (black 16)``: the card and the number printed for this Legend (# 19.4)."""
    own, turn = slot(state), state.turn
    rules = own.rules if own is not None else None
    car = state.cars.get(turn.car) if turn is not None else None
    if rules is None or car is None:
        return said(ev)
    printed = rules.entry(ev["card"], car.colour).helmet
    return f"{car.name}: Legend card {ev['card']} ({car.colour} {printed})"


def said(ev: dict[str, Any]) -> str:
    """The Legend card in a few words (its notation's ``words``: :func:`event_words`'s)."""
    return event_words(ev, " ".join) or str(ev.get("type"))
