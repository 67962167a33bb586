"""Who played a race: the table, or bots from some round on (``heatlog play-on``, ``branch --play-on``).

``play-on`` writes a ``note`` carrying ``bots`` (car -> bot) before the events the bots played: a fact from
outside (who made the decisions), kept in the race's own log, so a race finished by bots is known as one in
every database and every export. A season counts such a race in its standings as the rules say (its Hall of
Fame is its result) but marks it everywhere it is shown: ``races``, ``season show``, the season page and
``stats --season`` (issue 29, bug 15). Pure: reads events, writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["PlayedOn", "bots_note", "played_on"]


@dataclass(frozen=True, slots=True)
class PlayedOn:
    """The bots took over at ``round`` (0: before round 1) and drove ``bots`` (car -> bot)."""

    round: int
    bots: dict[str, str]

    def words(self) -> str:
        """``finished by bots from round 5`` (what a list shows beside the race)."""
        return f"finished by bots from round {self.round}" if self.round else "played by bots"

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "bots": dict(self.bots)}


def bots_note(round_: int, bots: Mapping[str, str], seed: int) -> dict[str, Any]:
    """The note ``play-on`` writes before the events its bots play (``round_``: the race's round then)."""
    who = ", ".join(f"{car} {bot}" for car, bot in bots.items())
    return {
        "type": "note",
        "v": 1,
        "text": f"played on by bots from here (seed {seed}): {who}",
        "round": round_,
        "bots": dict(bots),
    }


def played_on(events: Iterable[Mapping[str, Any]]) -> PlayedOn | None:
    """The first ``play-on`` mark of a race's effective events, or None for a race its table played out."""
    for ev in events:
        if ev.get("type") == "note" and isinstance(ev.get("bots"), dict) and ev["bots"]:
            at = ev.get("round")
            bots = {str(k): str(v) for k, v in ev["bots"].items()}
            return PlayedOn(at if isinstance(at, int) and not isinstance(at, bool) else 0, bots)
    return None
