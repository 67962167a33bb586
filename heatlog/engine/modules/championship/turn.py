"""The championship's record of a car's turn (``turn.modules["championship"]``, MODULES.md 21.7-21.9, MA23, MC7):
the sponsorship cards earned, drawn and used and the Heat cards event 18 took, with its accessors and how a
position and a turn's copy keep it (the descriptor's ``turn_record``). Light: a base race imports it with the
descriptor."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...state import NO_CARDS
from ...written import record

if TYPE_CHECKING:
    from ...state import Turn

NAME = "championship"


@record(slots=True)
class ChampionshipTurn:
    """The championship's record of a car's turn (``turn.modules["championship"]``; were ``Turn``'s fields), made
    when the first of its lists gets something: every list a new one when it grows (a turn's record is copied with
    it, ``copy_turn``)."""

    heat_removed: list[str] = NO_CARDS  # event 18 (MA23): where each removed Heat came from
    earned: list[str] = NO_CARDS  # why each sponsorship card was earned (# 21.7, 21.9)
    sponsors_drawn: list[str] = NO_CARDS  # the sponsorship cards drawn this turn (MA30)
    sponsors_used: list[str] = NO_CARDS  # one-time cards that left the game at step 9 (MC7)

    def __init__(
        self,
        heat_removed: list[str] = NO_CARDS,
        earned: list[str] = NO_CARDS,
        sponsors_drawn: list[str] = NO_CARDS,
        sponsors_used: list[str] = NO_CARDS,
    ) -> None:
        self.heat_removed = heat_removed
        self.earned = earned
        self.sponsors_drawn = sponsors_drawn
        self.sponsors_used = sponsors_used


NOTHING = ChampionshipTurn()  # the record of a turn without one: every list the shared empty one (never changed)
KEYS = ("heat_removed", "earned", "sponsors_drawn", "sponsors_used")  # its keys in a position's turn


def championship_turn(turn: Turn) -> ChampionshipTurn:
    """The championship's record of ``turn`` (was ``turn.heat_removed``, ``turn.earned``, ``turn.sponsors_drawn``,
    ``turn.sponsors_used``): empty lists for a turn without one (never change it: ``championship_record``)."""
    own: ChampionshipTurn = turn.modules.get(NAME, NOTHING)
    return own


def championship_record(turn: Turn) -> ChampionshipTurn:
    """The championship's record of ``turn`` to change (made and kept at the first change)."""
    own: ChampionshipTurn | None = turn.modules.get(NAME)
    if own is None:
        own = ChampionshipTurn()
        turn.keep(NAME, own)
    return own


def copy_turn(own: ChampionshipTurn) -> ChampionshipTurn:
    return ChampionshipTurn(list(own.heat_removed), list(own.earned), list(own.sponsors_drawn), list(own.sponsors_used))


def turn_to_position(own: ChampionshipTurn | None) -> dict[str, Any]:
    """Its lists, each only when it says something (as when they were ``Turn``'s fields)."""
    if own is None:
        return {}
    return {k: list(v) for k in KEYS if (v := getattr(own, k))}


def turn_from_position(d: Mapping[str, Any]) -> ChampionshipTurn | None:
    lists = [d.get(k) or NO_CARDS for k in KEYS]
    return ChampionshipTurn(*lists) if any(lists) else None
