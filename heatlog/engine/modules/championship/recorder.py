"""The championship's questions at the table (MODULES.md 21), asked and read by the recorder through the
descriptor's notation (engine/module.py: ``Notation``; issue 26: the recorder keeps no question of a module's own):

* **which sponsorship card was drawn** (``sponsor_drawn``), when the table is dealt the event's cards at the start
  (# 21.4) or a turn earns one (# 21.7 press corners, 21.9 the first across the line, events 2 and 8; MA30: a
  chance outcome the table sees, in table mode too): typed by its short name (``dramdo``, ``lord``), a unique
  prefix or its token (``P83``), among the cards the sponsorship deck can still give; the cards drawn now may be
  typed on one line (issue 29: one answer, not one a card);
* **the first picker's swap** of the season's upgrade draft (``upgrade_swapped``, # 21.2, MA11): ``GIVE TAKE``
  (an upgrade they own, a card left in the market) or Enter for no swap;
* **where the pressure cooker's Heat card came from** (``heat_removed``, # 21.8 event 18, MA23): hand, discard
  or deck.

The engine decides what the words mean and whether the event is legal (the Garage's ``card_named``, the rules);
this file holds no copy of a rule. Pure: the race's state and the words typed in, events out; loaded with the first
question of a championship race (issue 10: start-up).
"""

from __future__ import annotations

from typing import Any

from ...errors import MalformedInput
from ...state import RaceState
from ..garage import garage_slot
from ..garage.cards import card_named
from ..garage.words import card_label
from .rules import ChampionshipDraft, sponsor_deck
from .turn import championship_turn

Event = dict[str, Any]
NO_SWAP = ("", "-", "n", "no", "none", "keep")
PLACES = ("hand", "discard", "deck")


def sponsor_cards(state: RaceState) -> dict[str, dict[str, Any]]:
    """Token -> {name, short} of the race's sponsorship cards (its card catalogue, # 21.5)."""
    return {c.token: {"name": c.name, "short": c.short} for c in state.cards.cards if c.kind == "sponsor"}


def _drawing(state: RaceState) -> str:
    """The car the race waits for to draw a sponsorship card (the engine's word), or ""."""
    from ...decide import waiting_for

    w = waiting_for(state)
    return w.cars[0] if w.due == "sponsor_drawn" and w.cars else ""


def sponsor_question(state: RaceState) -> tuple[str, str, tuple[str, ...]]:
    """# 21.4, 21.7: the sponsorship card drawn, why it is drawn, and how many may follow on the line."""
    name = _drawing(state)
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
        done = len(championship_turn(turn).sponsors_drawn) if turn is not None else 0
        reasons = championship_turn(turn).earned if turn is not None else []
        why = "; ".join(reasons[done:]) or "earned this turn (# 21.7)"
    if state.phase == "sponsors":  # the whole deal may be typed at once, in the order the cards are dealt
        several = "; the rest of the deal may follow on one line, in order"
    else:
        several = f"; the {left} on one line, or one at a time" if left > 1 else ""
    return (
        f"{name} draws a sponsorship card ({why}{several}): which card? ",
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
    own = championship_turn(turn)
    return max(1, len(own.earned) - len(own.sponsors_drawn))


def sponsor_parse_many(state: RaceState, text: str) -> list[Event]:
    """The sponsorship cards drawn now, one event a card, in order (the engine says who draws next: this car's
    cards, then at the deal the next car's); a card the deck cannot give is refused by the rules (# 21.5)."""
    from ...rules import apply

    words = text.replace(",", " ").split()
    name = _drawing(state)
    if not words:
        shorts = sponsor_question(state)[2]
        raise MalformedInput(f"type the sponsorship card {name} drew, e.g. {shorts[0] if shorts else 'P80'}")
    cards = sponsor_cards(state)
    work = state.copy()
    out: list[Event] = []
    for word in words:
        who = _drawing(work)
        if not who:
            drawn = f"{len(out)} sponsorship card is" if len(out) == 1 else f"{len(out)} sponsorship cards are"
            raise MalformedInput(f"{drawn} drawn now, not {len(words)} ({word!r} is one too many)")
        ev = {"type": "sponsor_drawn", "v": 1, "car": who, "card": card_named(word, cards)}
        work = apply(work, ev)
        out.append(ev)
    return out


def sponsor_parse(state: RaceState, text: str) -> Event:
    """The one sponsorship card an answer names."""
    evs = sponsor_parse_many(state, text)
    if len(evs) != 1:
        raise MalformedInput("name one sponsorship card")
    return evs[0]


def sponsor_answer(ev: Event) -> str:
    return str(ev["card"]).lower()


def always(started: Event) -> bool:
    """The sponsorship cards drawn one after the other go on one answer (the deal: every car's, in order)."""
    return True


def _swapper(state: RaceState) -> tuple[str, ChampionshipDraft]:
    from ...decide import waiting_for

    g = garage_slot(state)
    w = waiting_for(state)
    if g is None or not isinstance(g.draft, ChampionshipDraft) or w.due != "upgrade_swapped" or not w.cars:
        raise MalformedInput("no swap is asked now")
    return w.cars[0], g.draft


def swap_question(state: RaceState) -> tuple[str, str, tuple[str, ...]]:
    """# 21.2, MA11: the first picker's swap, the market's cards left, Enter keeps."""
    name, draft = _swapper(state)
    g = garage_slot(state)
    assert g is not None
    mine = tuple(dict.fromkeys(card_label(c, g.cards) for c in draft.owned[name]))
    left = tuple(dict.fromkeys(card_label(c, g.cards) for c, n in (draft.left or {}).items() for _ in range(n)))
    shown = " ".join(left) if draft.left is not None else "(the market's cards were not noted)"
    return (
        f"{name} picked first: swap an upgrade (GIVE TAKE) for one left in the market ({shown}), Enter = keep: ",
        f"{name} owns {' '.join(mine)}; the rest of the market leaves the game (# 21.2, MA11)",
        mine + tuple(c for c in left if c not in mine),
    )


def swap_parse(state: RaceState, text: str) -> Event:
    """``GIVE TAKE`` (an upgrade owned, a card left in the market) or a word of no swap."""
    name, _draft = _swapper(state)
    if text.strip().lower() in NO_SWAP:
        return {"type": "upgrade_swapped", "v": 1, "car": name}
    g = garage_slot(state)
    assert g is not None
    words = text.replace(",", " ").split()
    if len(words) != 2:
        raise MalformedInput("type the upgrade given back and the card taken from the market (GIVE TAKE), or Enter")
    give, take = (card_named(word, g.cards) for word in words)
    return {"type": "upgrade_swapped", "v": 1, "car": name, "give": give, "take": take}


def swap_answer(ev: Event) -> str:
    return f"{ev['give']} {ev['take']}".lower() if "give" in ev else ""


def heat_question(state: RaceState) -> tuple[str, str, tuple[str, ...]]:
    """# 21.8 event 18, MA23: only the table knows where the Heat card that leaves the game is."""
    from ...decide import waiting_for

    w = waiting_for(state)
    name = w.cars[0] if w.cars else ""
    return (
        f"{name} completes a lap: a Heat card leaves the game, and the Engine is empty: from hand, discard or deck? ",
        "The pressure cooker (event 18): the hand first, else the discard pile, else the deck (MA23)",
        PLACES,
    )


def heat_parse(state: RaceState, text: str) -> Event:
    from ...decide import waiting_for

    where = [w for w in PLACES if w.startswith(text.strip().lower() or "?")]
    if len(where) != 1:
        raise MalformedInput("type hand, discard or deck: where the Heat card came from")
    w = waiting_for(state)
    return {"type": "heat_removed", "v": 1, "car": w.cars[0] if w.cars else "", "from": where[0]}


def heat_answer(ev: Event) -> str:
    return str(ev["from"])


def said(ev: Event) -> str:
    """The event in a few words, its cards by their tokens (the recorder words it by ``event_words``)."""
    from .words import event_words

    return event_words(ev, " ".join) or str(ev.get("type"))
