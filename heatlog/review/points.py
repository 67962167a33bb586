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
recorded, so card plays, cooldowns and discards (whose options depend on the hand) are not reviewable; gear,
boost, adrenaline and slipstream are. Nothing is skipped without a word: every decision of the car the review
does not judge (a decision kind of the registry it does not play out, a forced one, a hand decision of a
table-mode race, a pick in a set-up phase a play-out cannot start from: a Garage draft pick) is a
:class:`NotReviewed` with its reason.

Two decisions in one event: a discard during React or Slipstream closes those steps first (the engine takes
it, exactly equal to going on and then discarding). It is two decision points: "go on" at React (or
Slipstream) and the discard at step 8, reached in the sampled world by going on first (``prelude``). A
slipstream taken during React (the engine lists it there: it closes React) is a decision point of kind
"slipstream", not "react".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..analysis.infoset import as_known_by, made_at_the_same_time
from ..engine import HeatlogError, RaceState, Step, apply, waiting_for
from ..engine.cards import BASE_CATALOGUE
from ..engine.events import DECISION, REGISTRY
from ..engine.game import GO_ON, apply_decision, canonical, decision_key, legal_decisions, to_move
from ..engine.module import event_words, unplayable

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
    # decisions applied to the state after events[:index] before this point's options (a discard that closed
    # React: "go on" first, then the discard at step 8)
    prelude: tuple[Event, ...] = ()

    step: str = ""  # the step the race waits in (point_kind), where ``kind`` names the decision taken

    @property
    def go_on_kind(self) -> str:
        """How "go on" reads here: at React with a slipstream offered it also declines the slipstream."""
        at = self.step or self.kind
        if at == "react" and any(o.get("type") == "slipstream" for o in self.options):
            return "react+slipstream"
        return at

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
    """How a review names the cards of ``state``'s race: a card beyond the base by its short name (a Garage
    upgrade's ``brakes1234``, as the recorder takes it, # 18.5), read from the race's card catalogue, which holds
    every module's cards (``Module.cards_key``); a base card by its token; None: every card by its token (a race of
    base cards only)."""
    base = BASE_CATALOGUE.token_set
    shorts = {c.token: c.short for c in state.cards.cards if c.token not in base}
    if not shorts:
        return None
    return lambda token: shorts.get(token, token)


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
        return {
            "react": "no (more) React",
            "react+slipstream": "no (more) React, no slipstream",
            "slipstream": "no slipstream",
            "discard": "keep the hand",
        }.get(kind or "", "go on")
    return module_words(decision, name)


def module_words(decision: Event, name: Callable[[str], str] | None = None) -> str:
    """A module's decision as its module words it (``Module.event_words``, else its notation's ``words``: a
    Garage card's speed "values Brakes 2/4 at 4", # 18.6), without the car's name the recorder's echo puts
    first; the type's words where no module words it."""
    t = str(decision.get("type"))

    def cards(tokens: list[str]) -> str:
        return " ".join(map(name, tokens) if name is not None else tokens)

    try:
        said = event_words(decision, cards)
    except (KeyError, TypeError, ValueError):  # an event missing a field its words read: the type's words
        said = None
    if not said:
        return t.replace("_", " ")
    car = decision.get("car")
    if isinstance(car, str) and car and said.startswith(car) and said[len(car) : len(car) + 1] in (" ", ":"):
        said = said[len(car) + 1 :].strip()
    return said or t.replace("_", " ")


@dataclass(frozen=True, slots=True)
class NotReviewed:
    """A decision of the car the review does not judge, and why (as GTO Wizard marks a spot it cannot
    analyse)."""

    round: int
    seq: int | None
    kind: str  # the event type
    words: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "seq": self.seq, "kind": self.kind, "words": self.words, "reason": self.reason}


def is_decision(ev: Event) -> bool:
    """Whether an event is a car's decision by the registry: not chance, not beside the race, not the set-up."""
    entry = REGISTRY.get(str(ev.get("type")))
    return entry is not None and not entry.chance and not entry.aside and entry.name != "race_started"


def decision_points(
    events: Sequence[Event],
    car: str,
    *,
    seqs: Sequence[int] | None = None,
    rounds: set[int] | None = None,
    skipped: list[NotReviewed] | None = None,
) -> list[DecisionPoint]:
    """Every decision point of ``car`` in the effective log ``events`` (see the module's docstring);
    ``skipped`` receives each decision of the car that is not a decision point, with its reason."""
    out: list[DecisionPoint] = []
    state: RaceState | None = None
    table = bool(events) and events[0].get("mode", "open") == "table"
    for i, ev in enumerate(events):
        if state is not None and (rounds is None or state.round in rounds):
            seq = seqs[i] if seqs is not None else None
            mine = ev.get("car") == car and ev.get("type") in DECISION_KINDS
            why: str | None = None
            if state.phase != "race":
                if ev.get("car") == car and is_decision(ev):
                    said = unplayable(state.phase)  # a module's set-up phase (the Garage draft, # 18.5)
                    why = f"a {said[0]} decision: {said[1]} (# {said[2]})" if said else "made before the race starts"
            elif mine and ev.get("type") == "cards_discarded" and _before_discard(state, car):
                out.extend(_discard_closing_react(state, car, ev, i, seq, table))
            else:
                point = _point(state, car, ev, mine, table)
                if point is not None:
                    options, taken = point
                    step = point_kind(state)
                    out.append(
                        DecisionPoint(
                            index=i,
                            seq=seq,
                            round=state.round,
                            kind="slipstream" if taken.get("type") == "slipstream" else step,
                            car=car,
                            taken=taken,
                            options=options,
                            hidden=made_at_the_same_time(events, i, car) if state.turn is None else (),
                            step=step,
                        )
                    )
                elif ev.get("car") == car and is_decision(ev):
                    why = _why_not(state, car, ev, mine, table)
            if why is not None and skipped is not None:
                skipped.append(
                    NotReviewed(
                        state.round, seq, str(ev.get("type")), describe(canonical(ev), name=card_words(state)), why
                    )
                )
        try:
            state = apply(state, ev, atomic=False)
        except HeatlogError as err:
            raise err.located() from None
    return out


def _before_discard(state: RaceState, car: str) -> bool:
    """Whether ``car``'s turn is at React or Slipstream (steps 5-7), no flip under way: the step read through
    ``waiting_for``, the one reader of the step outside the engine."""
    w = waiting_for(state)
    return car in w.cars and w.flipping is None and Step.REACT <= w.step < Step.DISCARD


def _discard_closing_react(
    state: RaceState, car: str, ev: Event, i: int, seq: int | None, table: bool
) -> list[DecisionPoint]:
    """A discard made during React or Slipstream: "go on" there, then the discard at step 8 (module doc)."""
    out: list[DecisionPoint] = []
    world = state.copy()
    prelude: list[Event] = []
    go = {"type": GO_ON, "car": car}
    while _before_discard(world, car):
        node = to_move(world)
        if node.kind != "decision" or node.car != car:
            return out
        options = _listed(world, car, table)
        if len(options) > 1:
            at = point_kind(world)
            out.append(DecisionPoint(i, seq, world.round, at, car, dict(go), options, prelude=tuple(prelude), step=at))
        try:
            apply_decision(world, dict(go))
        except HeatlogError:
            return out
        prelude.append(dict(go))
    node = to_move(world)
    if node.kind == "decision" and node.car == car:
        options = _listed(world, car, table)
        taken = canonical(ev)
        taken.pop("v", None)
        if len(options) > 1 and decision_key(taken) in {decision_key(o) for o in options}:
            out.append(
                DecisionPoint(
                    i, seq, world.round, "discard", car, taken, options, prelude=tuple(prelude), step="discard"
                )
            )
    return out


def _listed(state: RaceState, car: str, table: bool) -> list[Event]:
    options = legal_decisions(state, car)
    if table:
        options = [o for o in options if o.get("type") not in _HAND_KINDS]
    return options


def _why_not(state: RaceState, car: str, ev: Event, mine: bool, table: bool) -> str:
    """Why the car's decision ``ev`` is not a decision point."""
    kind = str(ev.get("type"))
    if not mine:
        return f"{kind}: a decision kind the review does not play out yet"
    if table and kind in _HAND_KINDS:
        return "the hand was never recorded (table mode): its options cannot be listed"
    options = legal_decisions(state, car)
    if len(options) < 2:
        return "forced: the only legal decision"
    return "not among the decisions the engine lists at this point"


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
