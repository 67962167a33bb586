"""``heatlog record``: the guided session that records a physical race as it happens (issue 5).

Two halves, so the logic is testable without a terminal:

* :class:`Session` holds the :class:`~heatlog.log.racelog.RaceLog`, the race's current projection and nothing
  else of importance. It derives **the next question from the projected state** (``question``) and turns
  each typed answer into events, a correction or a clear error (``answer``). Every event goes through
  ``RaceLog.append`` (schema + rules, then a durable append) before the next question is derived, so a
  killed process loses nothing and a restarted one asks exactly the question that was open.
* :func:`run` is the thin prompt loop: ``input()`` (with the stdlib ``readline`` for line editing,
  history and Tab completion) and a rich console for the output.

What is never asked (the rules determine it): chance events whose outcome is known (a flip or a draw from a
deck whose order was entered, open mode), a play when only one set of cards is legal, optional steps with
nothing to choose (React without a legal option, Slipstream when the car is not in position -- then the
reason is shown -- and Discard with nothing discardable).

Optional steps (React, Discard) close by Enter. Closing is not an event (docs/design.md: an event of a later
step closes them), so the session remembers "closed at log length L" in a small side table of the same
database (``recorder_sessions``), together with the recorder's lease; a resumed session therefore asks the
exact question that was open even between two events. That table is UI state, never race truth: deleting it
only means React is asked once more.

One live recorder per race: the lease row names the process holding the race (host, pid and its start
time). A second ``heatlog record`` on the same race is told at start who holds it; a lease whose process is
gone (killed, crashed) is taken over with a notice; ``--force`` takes over a lease held on another host.
Whatever else writes to the race meanwhile (``heatlog add``) makes the store refuse the recorder's next
append (ConflictError): the recorder reloads the race and asks again.
"""

from .lease import Lease
from .notation import card_text, describe, error_text, parse_cards, race_cards
from .questions import Line, Question, advance, ask
from .session import Session
from .terminal import new_race, record, run, show
from .wizard import NewRace

__all__ = [
    "Lease",
    "Line",
    "NewRace",
    "Question",
    "Session",
    "advance",
    "ask",
    "card_text",
    "describe",
    "error_text",
    "new_race",
    "parse_cards",
    "race_cards",
    "record",
    "run",
    "show",
]
