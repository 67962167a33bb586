"""What ``heatlog races`` shows of each race: status, winner and rounds, cached so the list stays fast.

A race's status is derived (the rules decide when it is over and who won), so it comes from the projection.
Projecting thousands of races for one list would take minutes; each summary is therefore cached in the
store's ``race_summaries`` table, keyed by the race's effective log length and the rules version: any new
event (a retraction too) or a new rules version makes it stale, and it is projected again. The simulator
writes the summary of each race it stores (it holds the final state already).

A summary is served only when the log vouches for it (issue 30): the row holds the head of the chain it was
made from and a seal keyed outside the file (:mod:`heatlog.store.cachekey`) over race, length, head, rules version
and summary, and the race's chain is checked whole when it is listed (``EventStore.vouched_tail``). A forged
winner, a row copied from another race, or an event edited under the cache (even mid-log, without a re-hash)
is never shown: the race is projected again, or listed as unreadable with the damage found.

Simulated races (``meta.simulated``) are not listed unless asked (``--all``, ``--simulated``): a host's
races are not buried under a thousand simulations in the same file.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import RULES_VERSION
from ..engine.errors import HeatlogError
from ..store import RaceInfo, StoreError
from .played_by import played_on
from .racelog import RaceLog

if TYPE_CHECKING:
    from ..engine import RaceState


def _unreadable(err: HeatlogError) -> dict[str, Any]:
    return {"status": "unreadable", "round": 0, "winner": None, "why": str(err)}


def seal_summary(race: int, length: int, head: str, summary: dict[str, Any]) -> dict[str, Any]:
    """The cache row's content for ``summary`` of ``race`` made from the log of ``length`` events ending in
    ``head``: the summary, that head, and a keyed seal over all of it and the rules version."""
    from ..store import canonical
    from ..store.cachekey import seal

    body = canonical(summary).decode()
    sealed = seal("summary", str(race), str(length), head, RULES_VERSION, body)
    return {"head": head, "seal": sealed, "summary": summary}


def unseal_summary(race: int, length: int, head: str, row: dict[str, Any]) -> dict[str, Any] | None:
    """The summary of a cache row if the log vouches for it (made from the log that ends in ``head`` at
    ``length``, under these rules) and its seal holds; None otherwise (the race is projected again)."""
    from ..store import canonical
    from ..store.cachekey import same_text, seal

    summary = row.get("summary")
    if row.get("head") != head or not isinstance(summary, dict) or not isinstance(row.get("seal"), str):
        return None
    try:
        body = canonical(summary).decode()
    except (TypeError, ValueError):
        return None
    expected = seal("summary", str(race), str(length), head, RULES_VERSION, body)
    return summary if same_text(row["seal"], expected) else None


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
            at = s.get("played_on")  # issue 29: the round bots took over (heatlog play-on)
            if not isinstance(at, int):
                return "finished"
            return f"finished by bots from round {at}" if at else "played by bots"
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
    stored = log.store.race_summaries(RULES_VERSION)
    cached: dict[int, tuple[int, dict[str, Any]]] = {}
    heads: dict[int, str] = {}
    fresh: list[tuple[int, int, dict[str, Any]]] = []
    for info in shown:
        try:
            length, head = log.store.vouched_tail(info.id)  # the whole chain checked: the log vouches or not
        except HeatlogError as err:
            cached[info.id] = (info.event_count, _unreadable(err))
            continue
        heads[info.id] = head
        row = stored.get(info.id)
        summary = None if row is None or row[0] != length else unseal_summary(info.id, length, head, row[1])
        if summary is not None:
            cached[info.id] = (length, summary)
    todo = [i for i in shown if i.id not in cached]
    for n, info in enumerate(todo, 1):
        try:
            proj = log.project(info.id)
            summary = summary_of(proj.state)
            bots = played_on(e.event for e in proj.effective.entries)
            if bots is not None:  # issue 29: a race finished by bots (heatlog play-on) says so in the list
                summary["played_on"] = bots.round
        except HeatlogError as err:  # a damaged race is listed with what went wrong, and not cached
            cached[info.id] = (info.event_count, _unreadable(err))
        else:
            cached[info.id] = (info.event_count, summary)
            fresh.append((info.id, info.event_count, seal_summary(info.id, info.event_count, heads[info.id], summary)))
        if progress is not None:
            progress(n, len(todo))
    if fresh:
        with contextlib.suppress(StoreError):  # read-only or busy: the list is right, the next one projects again
            log.store.put_race_summaries(RULES_VERSION, fresh)
    return [Listed(info, cached[info.id][1]) for info in shown], len(infos) - len(shown)
