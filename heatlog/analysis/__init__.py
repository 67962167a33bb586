"""Analysis: search over races — what players knew, playouts, comparisons (docs/analysis.md).

The Python API (stable for other shells, e.g. decision review):

- :mod:`heatlog.engine.game`: the game API (whose turn, legal decisions in canonical form, apply a decision
  or a chance outcome, clone, pending chance);
- :func:`information_set`, :func:`information_set_of_state`, :func:`sample`: what a car knew and full
  states drawn from it; :func:`as_known_by`: the log before a decision without what the other cars did at
  the same time (steps 1–2, # 2.1);
- :func:`playouts`: bots play a race on from an information set K times, on any executor, with common random
  numbers across the sides of a comparison.
"""

from .infoset import (
    CarBelief,
    InfoSet,
    as_known_by,
    information_set,
    information_set_of_state,
    made_at_the_same_time,
    sample,
)

__all__ = [
    "CarBelief",
    "InfoSet",
    "as_known_by",
    "information_set",
    "information_set_of_state",
    "made_at_the_same_time",
    "sample",
]
