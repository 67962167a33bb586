"""The Legends' words (issue 26: a module's words are in its folder): a Legend's turn in the narration
(MODULES.md 19.7–19.14), found by the narration through the descriptor (``narrate_turn``). Pure: no I/O, no
shell."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..circuits import corner_number

if TYPE_CHECKING:
    from ...state import RaceState, Turn


def narrate_turn(state: RaceState, turn: Turn) -> list[str] | None:
    """A Legend's turn: where the card sent it and why, and where it stopped (the narration adds the finish and
    lap words); None for a car's own turn."""
    move = turn.legend
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
