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

from . import SearchUntil, search_until


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
