"""The question the race asks now, derived from the projected state (never stored)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine import HeatlogError, IllegalEvent, Knowledge, RaceState, Step, apply, closing_event, go_on
from ..engine.cards import BASE_CATALOGUE, HEAT, STRESS
from ..engine.decide import (
    Waiting,
    cooldown_left,
    legal_gears,
    playable_sets,
    react_options,
    slipstream_choices,
    slipstream_status,
    waiting_for,
)
from ..engine.module import ask as module_ask
from ..engine.module import (
    card_namer,
    discard_words,
    notation_of,
    react_help,
    react_hint,
    react_offers,
    react_pending,
)
from ..engine.modules import circuits
from ..engine.rules import slipstream_block
from ..engine.state import Car, Turn, expand
from ..views import counted
from ..views.narrate import corner_number
from .notation import CARD_NAMES, OVER_PROMPT, Event, card_text, typed_card
from .prompt import Question, make_event


@dataclass(slots=True)
class _GoOn:
    """An optional step nobody needs to answer: close it (derived, ``go_on``) and look again."""

    reason: str | None = None


@dataclass(slots=True)
class Line:
    text: str
    style: str = ""  # "", error, outcome, info, dim, head, board (print the board)


@dataclass(slots=True)
class Derived:
    view: RaceState
    question: Question
    notes: list[tuple[Any, Line]] = field(default_factory=list)
    turns: list[tuple[RaceState, Turn]] = field(default_factory=list)


STRESS_FLIPS = "+ Stress flips"  # the reveal prompt's words when a Stress card's flips go on its line
# ... and when the rest of the turn may follow on it (issue 29: a question asked once, answered with all it takes):
# React's uses and a discard; "-" = nothing more this turn; the cards alone = React is asked on its own
REST_OF_TURN = "React, d CARDS; - = nothing more"


def reveal_prompt(name: str, gear: int, *, stress: bool = True, rest: bool = True) -> str:
    """``Ann reveals 2 (+ Stress flips, React, d CARDS; - = nothing more): ``: what the reveal's line takes."""
    words = [w for w, on in ((STRESS_FLIPS, stress), (REST_OF_TURN, rest)) if on]
    if words and not stress:
        words[0] = "+ " + words[0]
    return f"{name} reveals {gear}{' (' + ', '.join(words) + ')' if words else ''}: "


def hand_text(car: Car) -> str:
    return " ".join(expand(car.hand)) if car.hand is not None else f"{car.hand_size} hidden"


def completing(state: RaceState, fn: Callable[[], Any]) -> list[Turn]:
    """Run ``fn`` (which advances ``state`` in place) and return the turns it completed. A round end replaces
    ``state.turns`` with a new list; the engine appended the round's last turns to the old one first."""
    old, n = state.turns, len(state.turns)
    fn()
    if state.turns is old:
        return old[n:]
    return old[n:] + state.turns


Closed = dict[tuple[int, str], int]  # (round, car) -> highest optional step closed by Enter (5 React, 8 Discard)


def ask(state: RaceState, closed: Closed | None = None) -> Question | _GoOn:
    """The question the race asks at ``state``; ``closed`` names the optional steps already closed by Enter,
    per turn (the view may run a turn ahead of the log: a turn can end without a further event)."""
    if state.phase == "over":
        return Question("over", None, OVER_PROMPT, "leave", "undo takes back the last answer", ("undo",))
    if state.phase == "grid":
        names = tuple(state.cars)
        return Question(
            "grid",
            None,
            "grid order, front first (Enter = random): ",
            "random",
            "names, e.g. " + " ".join(names),
            names,
        )
    told = _ask_module(state)  # a module's own set-up draw, asked in its own words (engine/module.py)
    if told is not None:
        return told
    if state.phase == "deal":
        return _ask_deal(state)
    w = waiting_for(state)
    turn = state.turn
    if turn is None:
        name = w.cars[0]
        car = state.cars[name]
        if w.step == Step.GEARS:
            gears = legal_gears(state, car)
            more = f"; {len(state.pending)} cars: type all their gears at once" if len(state.pending) > 1 else ""
            return Question(
                "gear",
                name,
                f"{name} gear (now {car.gear}) [{car.gear}]: ",
                str(car.gear),
                f"legal: {' '.join(map(str, gears))} (a two-gear shift costs 1 Engine Heat, # 3.2)"
                + ("; flooded: downshift costs 1 more Heat (# 22.4)" if state.track.is_flooded(car.progress) else "")
                + more,
                tuple(map(str, gears)),
            )
        sets = playable_sets(car, car.gear)
        if len(sets) == 1:
            return Question("play", name, "", auto=make_event("cards_played", car=name, cards=sets[0]))
        return Question(
            "play", name, f"{name} plays {car.gear} (hand {hand_text(car)}): ", None, "the cards, e.g. 4 3 s (# 4.1)"
        )
    told = _ask_module(state, w)  # a module's own chance in the race (a Legend's card, # 19.5), in its words
    if told is not None:
        return told
    car = state.cars[w.cars[0]]
    name = car.name
    done = (closed or {}).get((turn.round, name), 0)
    step = w.step
    if w.flipping is not None:
        own = _ask_own(state, w)  # a module's (the Garage's Salvage shuffle, # 18.18, and Scrap, # 18.12)
        if own is not None:
            return own
        if w.due == "deck_shuffled":
            return _ask_shuffle(state, car, "to go on flipping")
        what = {"stress": "Stress", "boost": "Boost", "plus": "card +", "replace": "replacement (# 18.11)"}.get(
            w.flipping, w.flipping
        )
        if car.deck is not None:
            return Question("flip", name, "", auto=make_event("card_flipped", car=name, card=car.deck[-1]))
        if car.deck_top:  # a Refresh put it on top, face known (# 18.21): told, not asked
            return Question("flip", name, "", auto=make_event("card_flipped", car=name, card=car.deck_top[-1]))
        return Question(
            "flip",
            name,
            f"flip for {name}'s {what}: ",
            None,
            "the flipped card(s) in order until a 1–4; 0, 5, h, s are discarded and flipping goes on (# 14.1)",
            tuple(c.short for c in BASE_CATALOGUE.cards),
        )
    own = _ask_own(state, w)  # a module's (the Garage's step 3, # 18.6, 18.20, and an unpaid Heat cost, # 18.11)
    if own is not None:
        return own
    if step == Step.REVEAL:
        # a Stress card's flips are typed on the reveal's line (one answer; issue 29) when they are typed at all
        # (an unknown deck order) and the deduction says a Stress card can be among the cards (# 1.7, 14.1)
        stress = car.deck is None and not car.deck_top and Knowledge.of(car).hand_max(STRESS) >= 1
        # the rest of the turn on the same line (React's uses, d CARDS, "-"): the line's end closes the turn
        # (session.nothing_more)
        rest = True
        return Question(
            "reveal",
            name,
            reveal_prompt(name, turn.gear, stress=stress, rest=rest),
            None,
            f"gear {turn.gear}: the {turn.gear} played cards (# 4.1)"
            + ("; a Stress card's flips follow them on the line, e.g. 4 s 3 (# 14.1)" if stress else "")
            + (
                "; then, if you like, React's uses (c1 b 3 a), d CARDS and - for nothing more this turn, e.g. "
                "4 3 c1 d2 (the cards alone: React is asked on its own, after the move is shown)"
                if rest
                else ""
            ),
        )
    if step in (Step.REACT, Step.SLIPSTREAM):
        if step == Step.REACT and done < Step.REACT:
            opts = react_options(state, car, turn)  # the React pool: the Garage's symbols too (# 18.7)
            # ac would be refused with no Heat possible in the hand (# 7.3): the prompt leaves the bonus out (it would
            # cool nothing), but React stays open while the engine offers it: ac0 takes it alone (# 6.2), so a race
            # that took it can be typed in (the prompt lists ac0 only when nothing else is left)
            bare = not heat_may_be_in_hand(car)
            refresh = _refresh_before_the_end(state, car, turn)  # # 18.21: now, or the turn ends without it
            if opts or refresh:
                tokens = _react_tokens(opts, state, bare) + (["f"] if refresh else [])
                own_help = react_help(state)  # the modules' own React answers (the Garage's p, rN …)
                # Enter = nothing more this turn (React, and the discard unless a slipstream question comes next,
                # or, in a Garage race, a Refresh is open: the discard question offers it; session.nothing_more)
                slip_next = slipstream_block(state, car, turn) is None
                keeps_discard = (  # session.nothing_more's cases: the discard is asked after these
                    slip_next or bool(discard_words(state, car, turn)) or react_pending(state, turn)
                )
                enter = f"Enter = {'done' if keeps_discard else 'nothing more'}"
                if slip_next:
                    # the slipstream question comes next: its answer (and a discard after it) may end this one,
                    # one question fewer (issue 29: answers); Enter still asks it on its own
                    enter = f"slipstream y/n; {enter}"
                if w.due == "heat_unpayable":  # # 18.11: React cannot end before it is settled
                    enter = f"the Engine ({car.engine}) cannot pay every Heat cost: u:CARD leaves that card's unpaid"
                    if payable_answers(opts, state):  # # 18.10: the engine lets one be paid first
                        enter += ", p:CARD pays that card's first"
                return Question(
                    "react",
                    name,
                    f"{name} react ({' '.join(tokens)}; {enter}): ",
                    "",
                    f"Engine {car.engine}, cooldown left {cooldown_left(turn, state, car)}; {react_hint(state, car)}"
                    "cN moves N Heat from the hand to the Engine, b boosts (1 Engine Heat, then the flips), "
                    "a adrenaline move (+1 space), ac adrenaline cooldown (1 more Heat from the hand to the Engine; "
                    "acN with a cooldown of N at once, e.g. ac2 in gear 2; ac0 the bonus alone); "
                    "several at once in order, e.g. c1 b 3; then y/n (slipstream) and d CARDS (discard) may follow"
                    + own_help
                    + refresh,
                    tuple(_react_answers(opts, state, bare)) + (("f",) if refresh else ()),
                )
        if step == Step.REACT and react_pending(state, turn):
            return _GoOn()  # # 18.12: React ends with the Scrap (its cards are asked next)
        ok, why = slipstream_status(state, car)
        if ok:
            choices = slipstream_choices(state, car)  # the engine's: bonus cards (# 18.16) and sectors (# 20.12)
            totals = sorted({n for n, _ in choices}) or [2]
            cards = any(c.get("bonuses") for _, c in choices)
            if len(totals) > 1 and cards:  # # 18.16, MA17: the bonuses are optional
                longest = max(n for n, c in choices if c.get("bonuses"))
                shown = " ".join(map(str, totals))
                return Question(
                    "slipstream",
                    name,
                    f"{name} slipstream? (y = {longest}, n, or the distance: {shown}): ",
                    None,
                    why + "; the Play Area's slipstream bonuses add to the 2 (# 18.16)" + _slip_ways(state, choices),
                    ("y", "n", *map(str, totals)),
                )
            if len(totals) > 1:  # MODULES.md 20.12: the sector bonus is optional
                answers = ("y", *map(str, totals), "n")
                prompt = f"{name} slipstream? (y = 2, {' / '.join(map(str, totals[1:]))} with the bonus, n): "
                return Question("slipstream", name, prompt, None, why, answers)
            return Question("slipstream", name, f"{name} slipstream? (y/n): ", None, why, ("y", "n"))
        # # 18.21: going on now would end the turn without it (# 10.5, 12.2), so it is asked here, once: Enter or
        # "-" closes it as it closes the discard question (session._close_optional), and the turn goes on
        refresh = _refresh_before_the_end(state, car, turn) if done < Step.DISCARD else ""
        if refresh:
            words = refresh.removeprefix("; ").replace("closing React", "going on")
            return Question("discard", name, f"{name}: no slipstream; {words} (Enter = none): ", "", why)
        return _GoOn(f"{name}: no slipstream — {why}")
    if step == Step.DISCARD:
        refresh = discard_words(state, car, turn)
        if done < Step.DISCARD and not circuits.may_discard(state.track, car.progress) and not refresh:
            return _GoOn(f"{name}: in a tunnel — no discard (# 22.6)")
        # the engine says whether a discard is open (# 11.1, 13.3, 22.6), a finished car's too: its turn goes on to
        # the discard and the draw (# 16.2); the deduction says whether the hand may hold a card to discard
        open_ = "cards_discarded" in w.optional and _can_discard(state, car)
        if done < Step.DISCARD and (refresh or open_):
            hand = f"hand {hand_text(car)}; " if car.hand is not None else ""
            hand += refresh
            return Question(
                "discard",
                name,
                f"{name} discards ({hand}Enter = none): ",
                "",
                _discard_hint(state, car),
            )
        return _GoOn()
    if step == Step.REPLENISH:
        if w.due == "deck_shuffled":
            return _ask_shuffle(state, car, "to draw")
        return _ask_draw(state, car, w.count)
    raise IllegalEvent(f"the recorder does not know what to ask at step {step}")  # pragma: no cover


def _ask_own(state: RaceState, w: Waiting) -> Question | None:
    """A module's own question inside a car's turn (``Module.ask``: data the recorder makes its question of)."""
    asked = module_ask(state, w)
    if asked is None:
        return None
    return Question(asked.kind, asked.car, asked.prompt, asked.default, asked.hint, asked.options, asked.auto)


def _ask_module(state: RaceState, w: Waiting | None = None) -> Question | None:
    """The question of a module's event the race waits for, when the module words it itself
    (``Module.notation``): a set-up draw (the weather's tile and tokens, # 20.2; heatlog's example module rain)
    or a chance in the race (a Legend's card, # 19.5), by the notation's kind, answered by ``Notation.parse``.
    For the car the race waits for, else the car whose turn it is, else the host."""
    if w is None:
        if state.phase in ("grid", "deal", "race", "over"):
            return None
        w = waiting_for(state)
    told = notation_of(w.due) if w.due is not None else None
    if told is None:
        return None
    prompt, hint, answers = told.question(state)
    car = w.cars[0] if w.cars else state.turn.car if state.turn is not None else None
    return Question(told.kind, car, prompt, told.default, hint, answers, several=told.several)


def _ask_deal(state: RaceState) -> Question:
    w = waiting_for(state)
    name = w.cars[0]
    car = state.cars[name]
    if w.kinds == ["deck_shuffled"]:
        if state.mode == "table":  # nothing to enter: the deck is hidden (# 1.2, 1.7)
            return Question("setup_shuffle", name, "", auto=make_event("deck_shuffled", car=name))
        return Question(
            "setup_shuffle",
            name,
            f"{name}'s starting shuffle: 18 cards top first, or Enter if unknown: ",
            "unknown",
            "the order if a computer shuffled it (then draws and flips are never asked), else Enter (# 1.2)",
            ("unknown",),
        )
    return _ask_draw(state, car, min(state.rules.hand_size(state, car) - car.hand_size, car.deck_size), setup=True)


def _ask_draw(state: RaceState, car: Car, n: int, setup: bool = False) -> Question:
    kind = "setup_draw" if setup else "draw"
    name = car.name
    more = (
        "" if n == state.rules.hand_size(state, car) - car.hand_size else f" (the deck holds {n}; then the reshuffle)"
    )
    if state.mode == "table":  # the count is forced: up to 7, or what the deck holds (# 12.2, 5.6)
        return Question(kind, name, "", auto=make_event("cards_drawn", car=name, count=n))
    if car.deck is not None:
        return Question(
            kind, name, "", auto=make_event("cards_drawn", car=name, cards=car.deck[len(car.deck) - n :][::-1])
        )
    top = list(reversed(car.deck_top))  # known on top, face known (# 18.21): drawn first
    if top and n <= len(top):
        return Question(kind, name, "", auto=make_event("cards_drawn", car=name, cards=top[:n]))
    hint = "the cards drawn, e.g. 4 h 2 (# 12.2)"
    if top:
        namer = card_namer(state)  # the race's module names its cards (Module.card_name): the Garage's upgrades
        known = " ".join(namer(state, c) if namer is not None else CARD_NAMES.get(c, c) for c in top)
        hint = f"the cards drawn, {known} among them (a Refresh put them on top, # 18.21), e.g. 4 h 2"
    return Question(kind, name, f"{name} draws {n}{more}: ", None, hint)


def _ask_shuffle(state: RaceState, car: Car, why: str) -> Question:
    n = len(car.discard)
    name = car.name
    if state.mode == "table":  # forced, and hidden: the table shuffles, nothing to enter (# 5.6)
        return Question("shuffle", name, "", auto=make_event("deck_shuffled", car=name))
    return Question(
        "shuffle",
        name,
        f"{name} reshuffles {counted(n, 'card')} {why}: order top first, or Enter if unknown: ",
        "unknown",
        f"discard pile: {card_text(sorted(car.discard))} (# 5.6)",
        ("unknown",),
    )


def closed_map(closed: list[tuple[int, str, int]]) -> Closed:
    out: Closed = {}
    for r, c, x in closed:
        out[(r, c)] = max(x, out.get((r, c), 0))
    return out


def _adrenaline_words(opts: list[Event], bare: bool) -> list[str]:
    """The adrenaline bonuses open (# 6.2): ``a`` the move, ``ac`` the cooldown with the Heat it moves; when no Heat
    can be in the hand (``bare``: ac would be refused, # 7.3) the cooldown is left out, unless it is all React has
    left (then ``ac0``, the bonus alone: React is open for it)."""
    out = ["a" if o["bonus"] == "move" else "ac" for o in opts if o["type"] == "adrenaline"]
    if bare and "ac" in out:
        out.remove("ac")
        if len(opts) == 1:
            out.append("ac0")
    return out


def _react_tokens(opts: list[Event], state: RaceState, bare: bool = False) -> list[str]:
    """The React answers open, for the prompt; the cards by their short names (``p (pay Heat: cool6)``); ``bare``:
    no Heat can be in the hand (the adrenaline cooldown is offered as ``ac0``)."""

    def label(token: str) -> str:  # a card as the host types it (its short name)
        return typed_card(state, token)

    out: list[str] = []
    cool = [o["count"] for o in opts if o["type"] == "cooldown" and not o.get("cards")]
    card_cool = sum(o["count"] for o in opts if o["type"] == "cooldown" and o.get("cards"))
    top = max(cool, default=0) + card_cool
    if top:
        out.append(
            ("c1" if top == 1 else f"c1-c{top}") + (f" (cool {top} of {top}: cards {card_cool})" if card_cool else "")
        )
    if any(o["type"] == "boost" for o in opts):
        out.append("b")
    out += _adrenaline_words(opts, bare)
    out += react_offers(state, opts, label)[0]  # the modules' own (the Garage's p, rN, kN, dr, play:, salvage:, u:)
    return out


def unpayable_answers(opts: list[Event], state: RaceState) -> list[str]:
    """The answers open when the Engine cannot pay every Heat cost (# 18.11: the cards whose cost goes unpaid), as
    the modules offer them (``Module.react_offers``), by their short names."""
    return [a for a in react_offers(state, opts, lambda token: typed_card(state, token))[1] if a.startswith("u:")]


def payable_answers(opts: list[Event], state: RaceState) -> list[str]:
    """The Heat costs the Engine can pay one card at a time when it cannot pay every cost (# 18.10, 18.11: the car
    may pay one first, then leave the others unpaid; a bare ``p`` pays them all and is refused), as the modules
    offer them (``Module.react_offers``: the Garage's ``p:CARD``), by their short names."""
    return [a for a in react_offers(state, opts, lambda token: typed_card(state, token))[1] if a.startswith("p:")]


def _react_answers(opts: list[Event], state: RaceState, bare: bool = False) -> list[str]:
    """Every single react answer (for Tab completion); cards by their short names (``bare``: as
    :func:`_react_tokens`)."""

    def label(token: str) -> str:  # a card as the host types it (its short name)
        return typed_card(state, token)

    out = [f"c{o['count']}" for o in opts if o["type"] == "cooldown"]
    out += ["b" for o in opts if o["type"] == "boost"]
    out += _adrenaline_words(opts, bare)
    out += react_offers(state, opts, label)[1]  # the modules' own (Module.react_offers)
    return list(dict.fromkeys(out))


def _discard_hint(state: RaceState, car: Car) -> str:
    """What may be discarded here: never Heat or Stress (# 11.1), unless the race's event card allows them or
    caps the number (MODULES.md 21.8: events 13, 15, 17)."""
    can = state.rules.can_discard
    allowed = [w for c, w in ((HEAT, "Heat"), (STRESS, "Stress")) if can(state, car, c)]
    limit = state.rules.discard_limit(state, car)
    if allowed:
        words = f"cards to discard; {' and '.join(allowed)} too in this race (event card, MODULES.md 21.8)"
    else:
        words = "cards to discard; never Heat or Stress (# 11.1)"
    if limit is not None:
        words += f"; at most {limit} (event card, MODULES.md 21.8)"
    return words


def heat_may_be_in_hand(car: Car) -> bool:
    """Whether a Heat card can be in ``car``'s hand (the one deduction, # 1.7): ``ac`` moves one to the Engine
    (# 6.2, 7.4), so it is offered and accepted only then (# 7.3)."""
    return Knowledge.of(car).hand_max(HEAT) >= 1


def _can_discard(state: RaceState, car: Car) -> bool:
    if car.hand_size == 0:
        return False
    known = Knowledge.of(car)  # the one deduction: could a discardable card be in the hand? (# 1.7, 11.1)
    return any(known.hand_max(c) > 0 and state.rules.can_discard(state, car, c) for c in known.unseen)


def advance(state: RaceState, closed: Closed | None = None, *, inplace: bool = False) -> Derived:
    """Close every optional step nobody needs to answer (on a copy unless ``inplace``) and return the state
    the next question is asked at, the question, and what happened on the way."""
    view = state
    copied = inplace
    d = Derived(state, Question("over", None, ""))
    while True:
        q = ask(view, closed)
        if isinstance(q, Question):
            d.view, d.question = view, q
            if q.kind in ("react", "slipstream") and view.turn is not None:
                d.notes += _corners_ahead(view, view.turn, q.kind)
            return d
        closing = closing_event(view)  # going on ends the race (MODULES.md MA21): the log must say so
        if closing is not None:
            d.view, d.question = view, Question("slipstream", closing["car"], "", auto=closing)
            return d
        if not copied:
            view = view.copy()
            copied = True
        turn = view.turn
        assert turn is not None
        if q.reason:
            d.notes.append((("noslip", turn.round, turn.car), Line(q.reason, "dim")))
        before = waiting_for(view).step
        done = completing(view, _go_on(view))
        if before <= Step.SLIPSTREAM and turn.corners and view.turn is turn:
            d.notes.append((("corners", turn.round, turn.car), Line(_corner_preview(view, turn), "info")))
        d.turns += [(view, t) for t in done]


def _corners_ahead(state: RaceState, turn: Turn, kind: str) -> list[tuple[Any, Line]]:
    """Before React (and Slipstream): the corners the move crosses as it stands, what each will cost and
    whether the Engine can pay (# 9.1–9.3, 10.1), so the table can still cool or boost knowingly."""
    out: list[tuple[Any, Line]] = []
    ahead = state.copy()
    at = ahead.turn
    assert at is not None
    try:
        go_on(ahead)
    except HeatlogError:
        return out  # React cannot end yet (a Garage Heat cost to settle, # 18.11, 18.25): no preview
    key = ("ahead", turn.round, turn.car, turn.speed, turn.reached)
    if at.corners:
        out.append((key, Line(_ahead_words(state, turn.car, at, "as it stands"), _ahead_style(at))))
    if kind == "slipstream":
        slip = state.copy()
        try:
            apply(slip, make_event("slipstream", car=turn.car, taken=True))
        except HeatlogError:
            return out
        st = slip.turn if slip.turn is not None and slip.turn.car == turn.car else None
        if st is not None and st.corners != at.corners:
            words = _ahead_words(state, turn.car, st, "if it slipstreams")
            out.append(((*key, "slip"), Line(words, _ahead_style(st))))
    return out


def _ahead_style(turn: Turn) -> str:
    return "warn" if any(cc.spinout for cc in turn.corners) else "info"


def _ahead_words(state: RaceState, name: str, turn: Turn, when: str) -> str:
    engine = state.cars[name].engine
    parts = []
    for cc in turn.corners:
        n = corner_number(state, cc.after_space)
        if cc.spinout:
            parts.append(
                f"corner {n} (limit {cc.limit}) at speed {cc.speed} costs {cc.cost} Heat, the Engine has {cc.paid}: "
                "SPINOUT AHEAD"
            )
            break
        parts.append(f"corner {n} (limit {cc.limit}) at speed {cc.speed} costs {cc.cost} Heat")
    tail = f" (Engine {engine})" if not any(cc.spinout for cc in turn.corners) else ""
    return f"{name} {when}: " + "; ".join(parts) + tail


def _go_on(state: RaceState) -> Callable[[], Any]:
    return lambda: go_on(state)


def corner_line(state: RaceState, turn: Turn) -> str:
    """The corner check's outcome in words: what the table does now (# 9.3, 10.1–10.4)."""
    return _corner_preview(state, turn)


def _corner_preview(state: RaceState, turn: Turn) -> str:
    parts = []
    for cc in turn.corners:
        n = corner_number(state, cc.after_space)
        if cc.spinout:
            parts.append(f"corner {n} (limit {cc.limit}) at speed {cc.speed}: owes {cc.cost}, has {cc.paid}: SPINS OUT")
        else:
            parts.append(f"corner {n} (limit {cc.limit}) at speed {cc.speed}: pays {cc.cost} Heat")
    return f"{turn.car}: " + "; ".join(parts)


def _slip_ways(state: RaceState, choices: list[tuple[int, Event]]) -> str:
    """The distances several ways cover, each way in the answer that takes it (``4:rpm1``; a bare distance takes
    the first, the plainest)."""
    ways: dict[int, list[str]] = {}
    for n, c in choices:
        cards = "/".join(typed_card(state, t) for t in c.get("bonuses", []))
        ways.setdefault(n, []).append(f"{n}:{cards}" if cards else f"{n}")
    several = [" or ".join(w) for w in ways.values() if len(w) > 1]
    return ("; made several ways: " + ", ".join(several)) if several else ""


def _refresh_before_the_end(state: RaceState, car: Car, turn: Turn) -> str:
    """The React hint's words for a Refresh (# 18.21) that must be typed now: the Play Area holds a Refresh card
    and closing React ends the turn (a spinout leaves a full hand, so nothing is discarded or drawn, # 10.5,
    12.2), so no discard question would offer it. Empty when there is none, or the discard question will."""
    words = discard_words(state, car, turn)
    if not words:
        return ""
    preview = state.copy()
    try:
        go_on(preview)  # the engine's own answer to "what does closing React lead to"
    except HeatlogError:
        return ""  # React cannot close yet (a Heat cost or a Scrap first): it is asked again later
    after = waiting_for(preview)
    if after.step == Step.DISCARD and car.name in after.cars:
        return ""  # the discard question offers it
    return "; " + words.removesuffix("; ") + ": closing React now ends the turn (# 10.5, 12.2)"
