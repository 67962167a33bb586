"""What ``heatlog races`` shows of each race: status, winner and rounds, cached so the list stays fast.

A race's status is derived (the rules decide when it is over and who won), so it comes from the projection.
Projecting thousands of races for one list would take minutes; each summary is therefore cached in the
store's ``race_summaries`` table, keyed by the race's effective log length and the rules version: any new
event (a retraction too) or a new rules version makes it stale, and it is projected again. The simulator
writes the summary of each race it stores (it holds the final state already).

Simulated races (``meta.simulated``) are not listed unless asked (``--all``, ``--simulated``): a host's
races are not buried under a thousand simulations in the same file.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import RULES_VERSION
from .engine.errors import HeatlogError
from .racelog import RaceLog
from .store import RaceInfo, StoreError

if TYPE_CHECKING:
    from .engine import RaceState


def summary_of(state: RaceState) -> dict[str, Any]:
    """``{"status": "finished" | "racing" | "set-up", "round": N, "winner": name | None}`` of a state."""
    if state.phase == "over":
        order = state.hall_of_fame or state.standings()
        return {"status": "finished", "round": state.round, "winner": order[0] if order else None}
    if state.phase == "race":
        return {"status": "racing", "round": state.round, "winner": None}
    return {"status": "set-up", "round": 0, "winner": None}


@dataclass(frozen=True, slots=True)
class Listed:
    info: RaceInfo
    summary: dict[str, Any]

    @property
    def simulated(self) -> bool:
        return "simulated" in self.info.meta

    def status_words(self) -> str:
        s = self.summary
        if s["status"] == "finished":
            return "finished"
        if s["status"] == "racing":
            return "racing"
        return str(s["status"])


def list_races(
    log: RaceLog,
    *,
    simulated: bool | None = False,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[Listed], int]:
    """The races to list (oldest first) with their summaries, and how many were left out.

    ``simulated``: False lists the races a host made (recorded, imported, branches of them), True only the
    simulated ones, None every race. Summaries missing or stale are projected (``progress(done, todo)``
    after each) and cached in one transaction; a file that cannot be written is listed all the same."""
    infos = log.store.races()
    shown = [i for i in infos if simulated is None or ("simulated" in i.meta) == simulated]
    cached = log.store.race_summaries(RULES_VERSION)
    fresh: list[tuple[int, int, dict[str, Any]]] = []
    todo = [i for i in shown if cached.get(i.id, (-1, {}))[0] != i.event_count]
    for n, info in enumerate(todo, 1):
        try:
            summary = summary_of(log.project(info.id).state)
        except HeatlogError as err:  # a damaged race is listed with what went wrong, and not cached
            cached[info.id] = (info.event_count, {"status": "unreadable", "round": 0, "winner": None, "why": str(err)})
        else:
            cached[info.id] = (info.event_count, summary)
            fresh.append((info.id, info.event_count, summary))
        if progress is not None:
            progress(n, len(todo))
    if fresh:
        with contextlib.suppress(StoreError):  # read-only or busy: the list is right, the next one projects again
            log.store.put_race_summaries(RULES_VERSION, fresh)
    return [Listed(info, cached[info.id][1]) for info in shown], len(infos) - len(shown)
