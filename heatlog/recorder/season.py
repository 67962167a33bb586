"""The recorder's questions of a championship race (MODULES.md 21), kept apart from the base and Garage ones:

* **which sponsorship card was drawn** (``sponsor_drawn``), when the table is dealt the event's cards at the start
  (# 21.4) or a turn earns one (# 21.7 press corners, 21.9 the first across the line, events 2 and 8; MA30: a
  chance outcome the table sees, in table mode too): typed by its short name (``dramdo``, ``lord``), a unique
  prefix or its token (``P83``), among the cards the sponsorship deck can still give;
* **the first picker's swap** of the season's upgrade draft (``upgrade_swapped``, # 21.2, MA11): ``GIVE TAKE``
  (an upgrade they own, a card left in the market) or Enter for no swap.

The engine decides what the words mean and whether the event is legal (:func:`~heatlog.engine.modules.garage.cards.
card_named`, the rules); this file holds no copy of a rule.
"""

from __future__ import annotations

from typing import Any

from ..engine import RaceState, apply
from ..engine.decide import Waiting, waiting_for
from ..engine.errors import MalformedInput
from ..engine.modules.championship.rules import ChampionshipDraft, sponsor_deck
from ..engine.modules.garage.cards import card_named
from .notation import Event
from .prompt import Question, make_event

KINDS = ("sponsor", "swap")
NO_SWAP = ("", "-", "n", "no", "none", "keep")


def sponsor_cards(state: RaceState) -> dict[str, dict[str, Any]]:
    """Token -> {name, short} of the race's sponsorship cards (its card catalogue, # 21.5)."""
    return {c.token: {"name": c.name, "short": c.short} for c in state.cards.cards if c.kind == "sponsor"}


def ask_season(state: RaceState, w: Waiting | None = None) -> Question | None:
    """The championship question the race asks now, or None when it asks something else."""
    w = w if w is not None else waiting_for(state)
    if w.due == "sponsor_drawn" and w.cars:
        return _ask_sponsor(state, w.cars[0])
    if w.due == "upgrade_swapped" and w.cars and state.garage is not None:
        return _ask_swap(state, w.cars[0])
    return None


def _ask_sponsor(state: RaceState, name: str) -> Question:
    deck = sponsor_deck(state)
    cards = sponsor_cards(state)
    can = sorted(deck.available()) if deck is not None else sorted(cards)
    shorts = tuple(str(cards[t]["short"]) for t in can if t in cards)
    block = state.rules.options.get("championship") or {}
    event = block.get("event", {}).get("card", {})
    turn = state.turn
    left = drawing_now(state, name)
    if state.phase == "sponsors":  # # 21.4: the event's cards, dealt before the deal
        each = int(event.get("sponsor_cards", 0))
        got = deck.dealt.get(name, 0) if deck is not None else 0
        which = f"card {got + 1} of {each}" if left == 1 else f"cards {got + 1}-{each}"
        why = f"{event.get('name', 'the event')}: {each} each at the start, {which} (# 21.4)"
    else:  # # 21.7, 21.9: earned in the turn, drawn at once
        done = len(turn.sponsors_drawn) if turn is not None else 0
        reasons = turn.earned if turn is not None else []
        why = "; ".join(reasons[done:]) or "earned this turn (# 21.7)"
    if state.phase == "sponsors":  # the whole deal may be typed at once, in the order the cards are dealt
        several = "; the rest of the deal may follow on one line, in order"
    else:
        several = f"; the {left} on one line, or one at a time" if left > 1 else ""
    return Question(
        "sponsor",
        name,
        f"{name} draws a sponsorship card ({why}{several}): which card? ",
        None,
        "its name as printed, short: " + " ".join(shorts) + " (Tab completes; # 21.5, MA30)",
        shorts,
    )


def drawing_now(state: RaceState, name: str) -> int:
    """How many sponsorship cards ``name`` draws one after the other from now (the engine's count: the event's
    cards still due at the start, # 21.4, or the cards the turn earned and has not drawn yet, # 21.7, 21.9)."""
    if state.phase == "sponsors":
        deck = sponsor_deck(state)
        block = state.rules.options.get("championship") or {}
        each = int(block.get("event", {}).get("card", {}).get("sponsor_cards", 0))
        return max(1, each - (deck.dealt.get(name, 0) if deck is not None else 0))
    turn = state.turn
    if turn is None or turn.car != name:
        return 1
    return max(1, len(turn.earned) - len(turn.sponsors_drawn))


def _ask_swap(state: RaceState, name: str) -> Question:
    from .garage import card_label

    g = state.garage
    assert g is not None
    draft = g.draft
    assert isinstance(draft, ChampionshipDraft)
    mine = tuple(dict.fromkeys(card_label(c, g.cards) for c in draft.owned[name]))
    left = tuple(dict.fromkeys(card_label(c, g.cards) for c, n in (draft.left or {}).items() for _ in range(n)))
    shown = " ".join(left) if draft.left is not None else "(the market's cards were not noted)"
    return Question(
        "swap",
        name,
        f"{name} picked first: swap an upgrade (GIVE TAKE) for one left in the market ({shown}), Enter = keep: ",
        "keep",
        f"{name} owns {' '.join(mine)}; the rest of the market leaves the game (# 21.2, MA11)",
        mine + tuple(c for c in left if c not in mine),
    )


def season_events(state: RaceState, q: Question, text: str) -> list[Event]:
    """The events an answer to :func:`ask_season`'s question makes (the rules check each when it is applied):
    the sponsorship cards the car draws now may be typed on one line (issue 29: one answer, not one a card)."""
    words = text.replace(",", " ").split()
    if q.kind == "sponsor":
        if not words:
            raise MalformedInput(f"type the sponsorship card {q.car} drew, e.g. {q.options[0] if q.options else 'P80'}")
        cards = sponsor_cards(state)
        work = state.copy()
        out: list[Event] = []
        for word in words:  # the engine says who draws next: this car's cards, then (at the deal) the next car's
            w = waiting_for(work)
            if w.due != "sponsor_drawn" or not w.cars:
                drawn = f"{len(out)} sponsorship card is" if len(out) == 1 else f"{len(out)} sponsorship cards are"
                raise MalformedInput(f"{drawn} drawn now, not {len(words)} ({word!r} is one too many)")
            ev = make_event("sponsor_drawn", car=w.cars[0], card=card_named(word, cards))
            work = apply(work, ev)  # a card the deck cannot give is refused here, by the rules (# 21.5)
            out.append(ev)
        return out
    if q.kind == "swap":
        if text.strip().lower() in NO_SWAP:
            return [make_event("upgrade_swapped", car=q.car)]
        g = state.garage
        assert g is not None
        if len(words) != 2:
            raise MalformedInput("type the upgrade given back and the card taken from the market (GIVE TAKE), or Enter")
        give, take = (card_named(word, g.cards) for word in words)
        return [make_event("upgrade_swapped", car=q.car, give=give, take=take)]
    raise MalformedInput(f"nothing to answer here ({q.kind})")  # pragma: no cover


def draft_events(draft: Any, cards: Any, answer: str, car: str | None = None) -> list[Event]:
    """The events an answer to the draft's question (``draft``: the race's Garage ``Draft``, ``cards``: its card
    definitions by token) makes (:func:`~heatlog.recorder.garage.draft_event`'s), and at
    a pick of a season's draft the picks after it typed on the same line, in pick order (``draft.queue``; the
    rules check each when applied, in turn: issue 29, one answer for the round's picks, not one per driver)."""
    from .garage import draft_event, parse_garage_cards, several_picks

    due, cars = draft.waiting()
    picked = parse_garage_cards(answer, cards) if due == "upgrade_picked" else []
    if len(picked) < 2 or not several_picks(draft):
        return [draft_event(draft, cards, answer, car)]
    who = car if car is not None else cars[0]
    order = [who, *draft.queue[1:]]
    if len(picked) > len(order):
        left = f"1 pick is left ({who})" if len(order) == 1 else f"{len(order)} picks are left ({', '.join(order)})"
        raise ValueError(f"{left}, not {len(picked)}")
    return [{"type": due, "v": 1, "car": name, "card": c} for name, c in zip(order, picked, strict=False)]
