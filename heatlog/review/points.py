"""Decision points of a car in a race's log, each with the decision taken and every legal alternative.

A decision point is a moment of the effective log at which the car was to decide and had more than one legal
decision (:func:`heatlog.engine.game.legal_decisions`, canonical forms, "go on" included where an optional
step could be left): its gear (step 1), its cards (step 2, or the reveal in table mode), each React choice
(step 5: cooldown, boost, adrenaline), slipstream (step 6) and the discard (step 8). The decision taken is
the car's own event there, or "go on" when the log's next event closed the optional step instead.

What the car knew at steps 1–2 excludes the other cars' steps 1–2 of the same round (# 2.1: every car shifts
and plays at the same time, without waiting for the others): the log writes those choices one car after
another, so a point at steps 1–2 lists them in ``hidden`` and :meth:`DecisionPoint.known` leaves them out of
what the car saw; playouts from there let the other cars choose again.

Only what the car could decide from what it knew is listed: in a table-mode race its hand was never
recorded, so card plays, cooldowns and discards (whose options depend on the hand) are not reviewable and
are skipped; gear, boost, adrenaline and slipstream are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..analysis.infoset import as_known_by, made_at_the_same_time
from ..engine import HeatlogError, RaceState, Step, apply, waiting_for
from ..engine.events import DECISION
from ..engine.game import GO_ON, canonical, decision_key, legal_decisions, to_move

Event = dict[str, Any]

#: Event types that are a car's decisions (the rest are chance, set-up, notes): the event catalogue's, every
#: module's included (the Garage's Refresh, Reduce, Salvage … are the car's decisions as much as a cooldown).
DECISION_KINDS = DECISION
#: What a decision point is about, by the step the car is at.
KIND_NAMES = ("gear", "cards", "react", "slipstream", "discard")
_HAND_KINDS = frozenset(("cards_played", "cards_revealed", "cooldown", "cards_discarded"))


@dataclass(slots=True)
class DecisionPoint:
    index: int  # events[:index] is the log before the decision (events[index] is the event that follows)
    seq: int | None  # seq of events[index] in the race's log, if known
    round: int
    kind: str  # gear, cards, react, slipstream, discard
    car: str
    taken: Event  # canonical form, or {"type": "go_on", "car": …}
    options: list[Event]  # every legal decision, canonical, the taken one included
    # indices in events[:index] of the other cars' steps 1–2 of this round, made at the same time (# 2.1)
    hidden: tuple[int, ...] = ()

    def known(self, events: Sequence[Event]) -> list[Event]:
        """The log before the decision as the car saw it: events[:index] without the other cars' choices made
        at the same time (# 2.1, :func:`heatlog.analysis.as_known_by`)."""
        return as_known_by(events, self.index, self.car, at_steps_1_2=bool(self.hidden))


def point_kind(state: RaceState) -> str:
    """What the car decides now, by the step the race waits in (the engine's ``waiting_for``)."""
    return _KIND_BY_STEP.get(waiting_for(state).step, "discard")


_KIND_BY_STEP = {
    Step.GEARS: "gear",
    Step.PLAY: "cards",
    Step.REVEAL: "cards",
    Step.REACT: "react",
    Step.SLIPSTREAM: "slipstream",
    Step.DISCARD: "discard",
}


def card_words(state: RaceState) -> Callable[[str], str] | None:
    """How a review names the cards of ``state``'s race: a Garage upgrade by its short name (``brakes1234``, as
    the recorder takes it, # 18.5), a base card by its token; None: every card by its token (no Garage)."""
    garage = state.garage
    if garage is None:
        return None
    cards = garage.cards
    return lambda token: str(cards[token]["short"]) if token in cards and "short" in cards[token] else token


def describe(decision: Event, kind: str | None = None, name: Callable[[str], str] | None = None) -> str:
    """A decision in a few words: "gear 3", "play 4 3 S", "cool 2", "boost", "no slipstream", "go on";
    ``name``: how a card is named (``card_words``), else by its token."""
    t = decision.get("type")
    if t == "gear_chosen":
        return f"gear {decision.get('gear')}"
    if t in ("cards_played", "cards_revealed"):
        cards = decision.get("cards", [])
        return "play " + " ".join(map(name, cards) if name is not None else cards)
    if t == "cooldown":
        return f"cool {decision.get('count')}"
    if t == "boost":
        return "boost"
    if t == "adrenaline":
        return f"adrenaline {decision.get('bonus')}"
    if t == "slipstream":
        return "slipstream" if decision.get("taken") else "no slipstream"
    if t == "cards_discarded":
        cards = decision.get("cards", [])
        return "discard " + " ".join(map(name, cards) if name is not None else cards)
    if t == GO_ON:
        return {"react": "no (more) React", "slipstream": "no slipstream", "discard": "keep the hand"}.get(
            kind or "", "go on"
        )
    return str(t)


def decision_points(
    events: Sequence[Event], car: str, *, seqs: Sequence[int] | None = None, rounds: set[int] | None = None
) -> list[DecisionPoint]:
    """Every decision point of ``car`` in the effective log ``events`` (see the module's docstring)."""
    out: list[DecisionPoint] = []
    state: RaceState | None = None
    table = bool(events) and events[0].get("mode", "open") == "table"
    for i, ev in enumerate(events):
        if state is not None and state.phase == "race" and (rounds is None or state.round in rounds):
            mine = ev.get("car") == car and ev.get("type") in DECISION_KINDS
            point = _point(state, car, ev, mine, table)
            if point is not None:
                options, taken = point
                out.append(
                    DecisionPoint(
                        index=i,
                        seq=seqs[i] if seqs is not None else None,
                        round=state.round,
                        kind=point_kind(state),
                        car=car,
                        taken=taken,
                        options=options,
                        hidden=made_at_the_same_time(events, i, car) if state.turn is None else (),
                    )
                )
        try:
            state = apply(state, ev, atomic=False)
        except HeatlogError as err:
            raise err.located() from None
    return out


def _point(state: RaceState, car: str, ev: Event, mine: bool, table: bool) -> tuple[list[Event], Event] | None:
    turn = state.turn
    if turn is None:  # steps 1–2: the car's own event is its decision (the log may order cars any way)
        if not mine:
            return None
    else:
        if turn.car != car:
            return None
        node = to_move(state)
        if node.kind != "decision" or node.car != car:
            return None
    options = legal_decisions(state, car)
    if table:
        options = [o for o in options if o.get("type") not in _HAND_KINDS]
    if len(options) < 2:
        return None
    taken = canonical(ev) if mine else {"type": GO_ON, "car": car}
    taken.pop("v", None)
    keys = {decision_key(o) for o in options}
    if decision_key(taken) not in keys:
        return None  # not a decision from these options (in table mode: a play of a hand never recorded)
    return options, taken
