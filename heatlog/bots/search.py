"""The review's search evaluator (issue 28, item 2): a car that plans with :class:`heatlog.bots.SearchBot` for
its next round or two, then plays on as the heuristic bot.

In a review's playouts the reviewed car's continuation decides how good each option looks: with the heuristic
everywhere (the default evaluator) every verdict is "how the heuristic bot would go on from here". With
``review --evaluator search`` the reviewed car's gear and cards (steps 1–2, where Heat is won or lost) are the
search bot's up to round ``last`` (the round of the decision and the next ``search_rounds``), the other cars'
and everything after the heuristic's: a search over the car's candidate plans (the heuristic's best play for
each gear, judged by 8 determinized worlds played two rounds on) where the cost is highest per decision and
where the continuation matters most. docs/analysis.md, "The search evaluator", says what it costs.

A playout names its bots by strings (they travel to worker processes with the job): the evaluator's bot is
``search@N`` (``get_bot("search@7")``: search while the race's round is at most 7). One bot of each ``N`` is
made in a process and kept (its search's heuristic caches are shared, as the heuristic bot's are).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ..engine.state import RaceState
from . import SearchBot, heuristic_bot

Event = dict[str, Any]

_NAME = re.compile(r"search@([0-9]{1,4})")


class SearchUntil:
    """:class:`SearchBot`'s decisions while the race's round is at most ``last``; the heuristic's after (and at
    every step the search leaves to it: React, slipstream, discards, a Garage race)."""

    def __init__(self, last: int, search: SearchBot | None = None) -> None:
        self.last = last
        self.search = search if search is not None else SearchBot()
        self.name = f"search@{last}"

    def __call__(self, state: RaceState, name: str, options: Sequence[Event], rng: random.Random) -> Event | None:
        if state.round <= self.last:
            return self.search(state, name, options, rng)
        return heuristic_bot(state, name, options, rng)

    def __repr__(self) -> str:
        return f"SearchUntil({self.last})"


@lru_cache(maxsize=64)
def _until(last: int) -> SearchUntil:
    return SearchUntil(last)


def search_until(name: str) -> SearchUntil | None:
    """The bot a name ``search@N`` stands for (one per process and ``N``), or None for any other name."""
    m = _NAME.fullmatch(name)
    return _until(int(m.group(1))) if m is not None else None


def evaluator_name(evaluator: str, bots: str, start_round: int, search_rounds: int) -> str:
    """The bot the reviewed car plays with in a playout that starts in round ``start_round``: ``bots`` (every car's
    bot) for the ``bots`` evaluator; for the ``search`` evaluator ``search@N``, N = ``start_round +
    search_rounds`` (the rest of the decision's round and ``search_rounds`` more)."""
    if evaluator == "bots":
        return bots
    if evaluator == "search":
        return f"search@{start_round + search_rounds}"
    raise ValueError(f"unknown evaluator {evaluator!r}")


#: The review's evaluators: ``bots`` (the ``--bots`` bot plays every car on, the heuristic by default) and
#: ``search`` (the reviewed car's next plans searched, :class:`SearchUntil`).
EVALUATORS: tuple[str, ...] = ("bots", "search")

__all__ = ["EVALUATORS", "SearchUntil", "evaluator_name", "search_until"]
