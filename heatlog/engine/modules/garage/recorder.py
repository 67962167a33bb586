"""The Garage's notation at the table (# 18.x): how a host types the Garage's React decisions on a turn's line,
both ways, found by the recorder through the descriptor (engine/module.py: ``Module.react_word`` reads a word,
``Module.react_answer`` writes the word that makes an event), so the recorder's session and its scripted host
name no Garage event.

The words: ``p`` (pay the Heat costs), ``rN`` (reduce N Stress), ``kN`` (super-cool N), ``dr`` (draft),
``play:NAME`` (a Direct Play; ``play+:NAME`` accelerated), ``salvage:CARDS``, ``f`` (the first Refresh), ``cN``
(the gear's cooldown first, then the fewest card cooldowns that cover N), and the exact forms naming their cards
(``c2:cool1``, ``p:u11``, ``r2:u4``, ``k1:u53``, ``dr:u55``, ``f:u34``, ``u:u11`` for an unpaid cost,
``salvage:u22:4/3``). Each becomes the legal decision the engine lists (``decide.decisions``); what the engine
refuses is refused with its reason when the session applies it.

Its questions inside a car's turn are here too, as data (``Module.ask``, ``react_help``, ``react_pending``,
``discard_words``): the recorder makes its questions of them.

Pure: the engine's state and decisions in, an event out; the cards a word names are read by the shell's own
reading of cards (``cards``), a card's name against the race's cards, the car's own first (``named_card``).
Imported with the first Garage answer (issue 10: start-up).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from typing import Any

from ...decide import Waiting, cooldown_left, decisions, react_options
from ...errors import MalformedInput
from ...module import Ask, cards_held
from ...state import Car, RaceState, Turn
from ...steps import Step
from ...words import counted
from . import garage_record, garage_slot, garage_turn
from .cards import Draft, card_named, completions
from .race import refresh_options, scrap_pending, step3_options
from .words import card_label, card_name, event_words

Event = dict[str, Any]
Cards = Callable[[str], list[str]]  # the shell's reading of cards as typed ("4/3" -> ["4", "3"])


def named_card(word: str, cards: Mapping[str, Any], held: Collection[str] | None = None) -> str:
    """The token a typed name means, the cards the car can hold (``held``) first: a name or prefix that fits one
    of them is that card, whatever other cards of the race share it (``turbo`` is turbo8 for a car that owns
    turbo8, not ambiguous with turbo7); a word that fits none of them is read against the whole catalogue, so
    the rules name what is wrong (a card the car does not hold)."""
    if held:
        own = {t: c for t, c in cards.items() if t in held}
        if own:
            try:
                return card_named(word, own)
            except MalformedInput:
                pass
    return card_named(word, cards)


def react_word(state: RaceState, name: str, word: str, cards: Cards) -> Event | None:
    """The event a React word of ``name``'s line means in a Garage race (the module's ``react_word``): a
    cooldown ``cN`` (# 18.13), a Refresh ``f`` / ``f:CARD`` (# 18.21), or one of the Garage's own answers; None:
    not a Garage word (the recorder reads it). ``MalformedInput`` names what is wrong with a Garage word."""
    if garage_slot(state) is None:
        return None
    t = word.lower()
    if t.startswith("c") and (t[1:].isdecimal() or t == "c"):
        return _cooldown(state, name, int(t[1:] or "1"))
    if t == "f" or t.startswith("f:"):
        return _refresh(state, name, word, cards)
    return _answer(state, name, word, cards)


def _cooldown(work: RaceState, name: str, n: int) -> Event:
    """``cN`` in a Garage race: the gear's cooldown first, then the fewest card cooldowns that cover N (# 18.13)."""
    turn = work.turn
    assert turn is not None
    left = cooldown_left(turn, work, work.cars[name])
    if n <= left:
        return {"type": "cooldown", "v": 1, "car": name, "count": n}
    options = sorted(
        (o for o in decisions(work, name) if o["type"] == "cooldown" and o.get("cards")),
        key=lambda o: -int(o["count"]),
    )
    g = garage_slot(work)
    assert g is not None
    named: list[str] = []
    total = left
    for o in options:
        if total >= n:
            break
        named += o["cards"]
        total += g.n(o["cards"][0], "cooldown")
    if total < n:
        raise MalformedInput(f"cooldown {n}: the gear and the cards' cooldown allow {total} (# 7.2, 18.13)")
    return {"type": "cooldown", "v": 1, "car": name, "count": n, "cards": named}


def _refresh(state: RaceState, name: str, word: str, cards: Cards) -> Event:
    """``f`` (the first Refresh card of the Play Area) or ``f:CARD``: the Refresh the engine lists (# 18.21);
    refused in words when there is none."""
    open_ = [o for o in decisions(state, name) if o["type"] == "refreshed"]
    if not open_:
        raise MalformedInput(f"{name} has no Refresh card in the Play Area")
    if word.lower() == "f":
        return dict(open_[0])
    ev = _answer(state, name, word, cards)
    assert ev is not None
    return ev


def _answer(work: RaceState, name: str, word: str, cards: Cards) -> Event | None:
    """The Garage's React answers (see the module's docstring). None: not a Garage answer."""
    t = word.lower()
    g = garage_slot(work)
    assert g is not None
    held = cards_held(work, name)

    def one(w: str) -> str:  # a name means the car's own card first (issue 29)
        return named_card(w, g.cards, held)

    def event(kind: str, **fields: Any) -> Event:
        return {"type": kind, "v": 1, "car": name, **fields}

    head, sep, tail = t.partition(":")
    if sep and head not in ("play", "play+", "salvage"):
        names = [one(x) for x in tail.split("/") if x]
        if head == "p":
            return event("heat_paid", cards=names)
        if head == "f" and len(names) == 1:
            return event("refreshed", card=names[0])
        if head == "dr":
            return event("drafted", sources=names)
        if head == "u":
            return event("heat_unpayable", cards=names)  # # 18.11
        if head[:1] in ("c", "r", "k") and head[1:].isdecimal():
            n = int(head[1:])
            if head[0] == "c":
                return event("cooldown", count=n, cards=names)
            if head[0] == "r":
                return event("stress_reduced", count=n, cards=names)
            return event("super_cooled", count=n, sources=names)
        raise MalformedInput(f"{word!r}: not a React answer")
    if head == "play+":
        return event("direct_played", card=one(tail), accelerate=True)
    if head == "play":
        return event("direct_played", card=one(tail))
    if head == "salvage":
        if tail.count(":") == 1:
            src, _, picked = tail.partition(":")
            return event("salvaged", sources=[one(src)], cards=cards(picked.replace("/", " ")))
        sources = [o["sources"] for o in decisions(work, name) if o["type"] == "salvaged"]
        if not sources:
            raise MalformedInput("no Salvage open now (# 18.18)")
        return event("salvaged", sources=sources[0], cards=cards(tail.replace("/", " ")))
    if t == "p":
        paid = [c for o in decisions(work, name) if o["type"] == "heat_paid" for c in o["cards"]]
        if not paid:
            raise MalformedInput("no Heat cost the Engine can pay now (# 18.10)")
        return event("heat_paid", cards=paid)
    if t[:1] in ("r", "k") and t[1:].isdecimal():
        kind = "stress_reduced" if t[0] == "r" else "super_cooled"
        hit = [o for o in decisions(work, name) if o["type"] == kind and o["count"] == int(t[1:])]
        if not hit:
            raise MalformedInput(f"{word!r}: not open now")
        return dict(hit[0])
    if t == "dr":
        hit = [o for o in decisions(work, name) if o["type"] == "drafted"]
        if not hit:
            raise MalformedInput("no Draft now: it needs a car ahead behind empty spaces, in reach (# 18.23)")
        return dict(hit[0])
    return None


#: The Garage's React events (# 18.10–18.23), each typed in its exact form by :func:`react_answer`.
REACT_EVENTS = (
    "heat_paid",
    "heat_unpayable",
    "stress_reduced",
    "super_cooled",
    "drafted",
    "direct_played",
    "salvaged",
    "refreshed",
)


def react_answer(ev: Event, nm: Callable[[str], str]) -> str | None:
    """The exact word that makes ``ev`` on a turn's line (the module's ``react_answer``; ``nm`` names a card as
    the host types it): one of the Garage's React events, or a cooldown that names its cards (# 18.13); None for
    any other event. :func:`react_word` reads it back to ``ev``."""
    t = ev["type"]
    if t == "cooldown":
        return f"c{ev['count']}:" + "/".join(map(nm, ev["cards"])) if ev.get("cards") else None
    if t == "heat_paid":
        return "p:" + "/".join(map(nm, ev["cards"]))
    if t == "stress_reduced":
        return f"r{ev['count']}:" + "/".join(map(nm, ev["cards"]))
    if t == "super_cooled":
        return f"k{ev['count']}:" + "/".join(map(nm, ev["sources"]))
    if t == "drafted":
        return "dr:" + "/".join(map(nm, ev["sources"]))
    if t == "direct_played":
        return ("play+:" if ev.get("accelerate") else "play:") + nm(ev["card"])
    if t == "salvaged":
        return f"salvage:{nm(ev['sources'][0])}:" + "/".join(map(nm, ev["cards"]))
    if t == "refreshed":
        return "f:" + nm(ev["card"])
    if t == "heat_unpayable":
        return "u:" + "/".join(map(nm, ev["cards"]))
    return None


# ---------------------------------------------------------------------------------------------- its questions
# The recorder's questions of the Garage's own inside a car's turn (the descriptor's ``ask``, as data: the recorder
# makes its Question of each and reads the answer by its kind, from the engine's decisions).


def ask(state: RaceState, w: Waiting) -> Ask | None:
    """The Garage's question now, or None: while the car flips, a Salvage's shuffle (# 18.18) or a Scrap's
    cards (# 18.12); else step 3's value of a multi-value card or Accelerate (# 18.6, 18.20), or which card's
    Heat cost goes unpaid when nothing can put Heat on the Engine first (# 18.11; else React asks it, # 18.10)."""
    turn = state.turn
    if garage_slot(state) is None or turn is None or not w.cars:
        return None
    car = state.cars[w.cars[0]]
    if w.flipping is not None:
        if w.flipping == "salvage":  # # 18.18: the salvaged cards are shuffled into the draw deck
            return _ask_salvage_shuffle(state, car)
        if w.flipping == "scrap" and w.due != "deck_shuffled":  # # 18.12
            return _ask_scrap(state, car)
        return None
    if w.step == Step.REVEAL and w.due in ("speed_chosen", "accelerated"):
        return _ask_step3(state, car, w.due)
    if w.due == "heat_unpayable" and all(
        o["type"] in ("heat_unpayable", "heat_paid") for o in react_options(state, car, turn)
    ):
        return _ask_unpayable(state, car)
    return None


def _ask_step3(state: RaceState, car: Car, due: str) -> Ask:
    turn = state.turn
    assert turn is not None and garage_turn(turn) is not None
    name = car.name
    options = step3_options(state, car, turn)
    card = options[0]["card"]
    if due == "speed_chosen":  # # 18.6
        values = [str(o["speed"]) for o in options]
        return Ask(
            "speed",
            name,
            f"{name}: {card_name(state, card)} is worth ({' or '.join(values)}): ",
            None,
            "the printed value it counts this turn (# 18.6)",
            tuple(values),
        )
    return Ask(
        "accelerate",
        name,
        f"{name}: accelerate with {card_name(state, card)} "
        f"(+1 per + this turn, so far {garage_record(turn).plus_used})? (y/n): ",
        None,
        "Accelerate is decided in step 3 and counts every + of the turn (# 18.20, MC1)",
        ("y", "n"),
    )


def _ask_unpayable(state: RaceState, car: Car) -> Ask:
    """Which card's Heat cost goes unpaid (# 18.11), as the engine lists the choices; when the Engine can pay one
    of the costs, paying that card's first is a choice too (``p:CARD``, # 18.10: the engine lists it), so a race
    that paid one card and then left the other unpaid can be typed in."""
    g = garage_slot(state)
    assert g is not None
    opts = decisions(state, car.name)
    choices = [" ".join(card_label(c, g.cards) for c in o["cards"]) for o in opts if o["type"] == "heat_unpayable"]
    pay = [
        "p:" + "/".join(card_label(c, g.cards) for c in o["cards"]).lower() for o in opts if o["type"] == "heat_paid"
    ]
    paid = f", or {' | '.join(pay)} pays that card's first" if pay else ""
    return Ask(
        "unpayable",
        car.name,
        f"{car.name}'s Engine ({car.engine}) cannot pay every Heat cost: which card's cost goes unpaid "
        f"({' | '.join(choices)}{paid}): ",
        choices[0] if len(choices) == 1 else None,
        "each is discarded and replaced by a flip; the car moves again from its start (# 18.11); p:CARD pays a "
        "card's Heat cost first (# 18.10)",
        (*choices, *pay),
    )


def _ask_scrap(state: RaceState, car: Car) -> Ask:
    turn = state.turn
    assert turn is not None
    left = garage_record(turn).scrap_left
    if car.deck is not None:
        return Ask("scrap", car.name, "", auto={"type": "card_scrapped", "v": 1, "car": car.name, "card": car.deck[-1]})
    if car.deck_top:  # a Refresh put it on top, face known (# 18.21): told, not asked
        top = car.deck_top[-1]
        return Ask("scrap", car.name, "", auto={"type": "card_scrapped", "v": 1, "car": car.name, "card": top})
    return Ask(
        "scrap",
        car.name,
        f"scrap for {car.name} ({left} to go): the card(s) turned over: ",
        None,
        "Scrap discards the top cards of the draw deck, whatever they are (# 18.12), e.g. 3 h",
    )


def _ask_salvage_shuffle(state: RaceState, car: Car) -> Ask:
    if state.mode == "table":
        return Ask("salvage_shuffle", car.name, f"{car.name} shuffles the salvaged cards in [Enter]: ", "", "# 18.18")
    return Ask(
        "salvage_shuffle",
        car.name,
        f"{car.name} shuffles {counted(car.deck_size, 'card')} (the salvaged ones in): order top first, or Enter if "
        "unknown: ",
        "unknown",
        "# 18.18",
        ("unknown",),
    )


# The answers to those questions (the descriptor's ``turn_answers``: the recorder reads them by the question's kind;
# each the legal decision the engine lists, or the event the rules then check).


def read_speed(state: RaceState, name: str, text: str, cards: Cards) -> list[Event]:
    """Step 3's printed value of a multi-value card (# 18.6): one of the values the engine offers."""
    opts = [o for o in decisions(state, name) if o["type"] == "speed_chosen"]
    hit = [o for o in opts if str(o["speed"]) == text.strip()]
    if not hit:
        raise MalformedInput(f"type one of the printed values: {' '.join(str(o['speed']) for o in opts)}")
    return [dict(hit[0])]


def read_accelerate(state: RaceState, name: str, text: str, cards: Cards) -> list[Event]:
    """Accelerate or not, in step 3 (# 18.20): y or n."""
    t = text.strip().lower()
    if t not in ("y", "yes", "n", "no"):
        raise MalformedInput("answer y (accelerate) or n")
    want = t.startswith("y")
    opts = [o for o in decisions(state, name) if o["type"] == "accelerated" and o["taken"] is want]
    return [dict(o) for o in opts[:1]]


def read_unpayable(state: RaceState, name: str, text: str, cards: Cards) -> list[Event]:
    """The cards whose Heat cost goes unpaid (# 18.11): their names (``u:CARDS`` in a line, ``/`` between); or
    ``p`` / ``p:CARDS``, the Heat cost the Engine can pay, paid first (# 18.10: the React word, the engine's
    ``heat_paid``), so the question asks again of the costs left."""
    t = text.strip()
    if t.lower() == "p" or t.lower().startswith("p:"):
        paid = _answer(state, name, t, cards)
        assert paid is not None
        return [paid]
    if t.lower().startswith("u:"):
        t = t[2:].replace("/", " ")
    return [{"type": "heat_unpayable", "v": 1, "car": name, "cards": cards(t)}]


def read_scrap(state: RaceState, name: str, text: str, cards: Cards) -> list[Event]:
    """One card a Scrap turned over (# 18.12): a question of its own for each."""
    read = cards(text)
    if len(read) != 1:
        raise MalformedInput("one card per flip")
    return [{"type": "card_scrapped", "v": 1, "car": name, "card": read[0]}]


def read_salvage_shuffle(state: RaceState, name: str, text: str, cards: Cards) -> list[Event]:
    """The draw deck shuffled with the salvaged cards in (# 18.18): its order top first, when it is known."""
    if state.mode == "table" or text.strip().lower() in ("", "unknown", "?", "u"):
        return [{"type": "deck_shuffled", "v": 1, "car": name}]
    return [{"type": "deck_shuffled", "v": 1, "car": name, "order": cards(text)}]


def typed_speed(ev: Event, nm: Callable[[str], str]) -> str:
    """The answer that chose step 3's value (# 18.6)."""
    return str(ev["speed"])


def typed_accelerate(ev: Event, nm: Callable[[str], str]) -> str:
    """The answer that accelerated or not (# 18.20)."""
    return "y" if ev["taken"] else "n"


def typed_cards(ev: Event, nm: Callable[[str], str]) -> str:
    """The cards whose Heat cost went unpaid, as typed (# 18.11)."""
    return " ".join(map(nm, ev["cards"]))


def typed_card(ev: Event, nm: Callable[[str], str]) -> str:
    """The card a Scrap turned over, as typed (# 18.12)."""
    return nm(ev["card"])


def typed_order(ev: Event, nm: Callable[[str], str]) -> str:
    """The salvaged deck's order top first, or Enter when it is not known (# 18.18)."""
    return " ".join(map(nm, ev.get("order") or []))


def react_offers(opts: list[Event], label: Callable[[str], str]) -> tuple[list[str], list[str]]:
    """The answers the Garage's React options open (``Module.react_offers``): the prompt's words (``p (pay Heat:
    cool6)``, ``r1-r2 (reduce: up to 2 S)`` …) and the Tab completions, the cards by ``label``."""
    words: list[str] = []
    pay = [label(c) for o in opts if o["type"] == "heat_paid" for c in o["cards"]]
    each: list[str] = []  # # 18.11: the Engine cannot pay them all (a bare p would), so one cost at a time
    if any(o["type"] == "heat_unpayable" for o in opts):
        each = ["p:" + "/".join(label(c) for c in o["cards"]).lower() for o in opts if o["type"] == "heat_paid"]
        words += list(dict.fromkeys(each))
    elif pay:
        words.append(f"p (pay Heat: {' '.join(pay)})")  # # 18.10
    reduce = max((o["count"] for o in opts if o["type"] == "stress_reduced"), default=0)
    if reduce:
        words.append(("r1" if reduce == 1 else f"r1-r{reduce}") + f" (reduce: up to {reduce} S)")  # # 18.15
    sc = max((o["count"] for o in opts if o["type"] == "super_cooled"), default=0)
    if sc:
        words.append(("k1" if sc == 1 else f"k1-k{sc}") + " (super cool)")  # # 18.22
    if any(o["type"] == "drafted" for o in opts):
        words.append("dr (draft)")  # # 18.23
    direct = [f"play:{label(o['card'])}" for o in opts if o["type"] == "direct_played" and not o.get("accelerate")]
    words += direct  # # 18.19
    if any(o["type"] == "salvaged" for o in opts):
        words.append("salvage:CARDS")  # # 18.18
    unpaid = ["u:" + "/".join(label(c) for c in o["cards"]).lower() for o in opts if o["type"] == "heat_unpayable"]
    unpaid = list(dict.fromkeys(unpaid))  # # 18.11: offered whenever the Engine cannot pay
    words += unpaid
    answers = list(dict.fromkeys(each)) or ["p" for o in opts if o["type"] == "heat_paid"][:1]
    answers += [f"r{o['count']}" for o in opts if o["type"] == "stress_reduced"]
    answers += [f"k{o['count']}" for o in opts if o["type"] == "super_cooled"]
    answers += ["dr" for o in opts if o["type"] == "drafted"]
    return words, answers + unpaid + direct


def react_pending(state: RaceState, turn: Turn) -> bool:
    """A Scrap still to come this React (# 18.12): React closes, its cards are asked, then the discard."""
    return garage_slot(state) is not None and scrap_pending(state, turn)


def discard_words(state: RaceState, car: Car, turn: Turn) -> str:
    """The Refresh cards the car may use before the discard (# 18.21), ``f = refresh Brakes 1/3; ``; "" for none."""
    if garage_slot(state) is None:
        return ""
    opts = refresh_options(state, car, turn)
    if not opts:
        return ""
    return "f = refresh " + ", ".join(card_name(state, o["card"]) for o in opts) + "; "


# ---------------------------------------------------------------------------------------------- the draft (# 18.5)
#: The draft's questions (``Module.notation``, kind "garage"): the market as revealed, each pick in order, the
#: snake draft's give-back, a random deal; the cards typed by their short names (``brakes1234``), a unique prefix
#: or their token (``U7``), and ``heat`` (# 18.2).
DRAFT_HINT = "card short names (Tab completes), e.g. brakes13 cool6 heat"


def parse_garage_cards(text: str, cards: Mapping[str, Any], offered: Collection[str] | None = None) -> list[str]:
    """``"brakes1234, cool6 heat"`` -> ``["U7", "U11", "H"]``; an unknown or ambiguous word raises. ``offered``:
    the cards the question offers (a pick's market), read first (``rpm`` is the market's rpm1, not ambiguous
    with the rpm2 and rpm3 elsewhere in the race: :func:`named_card`)."""
    return [named_card(word, cards, offered) for word in re.split(r"[\s,]+", text.strip()) if word]


def draft_prompt(draft: Draft, cards: Mapping[str, Any]) -> tuple[str, str | None, tuple[str, ...]]:
    """What the recorder asks now in the Garage phase: (prompt, car or None, Tab-completion words)."""
    due, cars = draft.waiting()
    everything = tuple(completions("", cards))
    if due == "garage_market":
        n = draft.next_market_size()
        return f"Garage market, round {draft.round + 1}: the {n} cards revealed", None, everything
    if due == "upgrades_dealt":
        return f"{cars[0]} takes 3 upgrades from the Garage deck", cars[0], everything
    if due == "upgrade_picked":
        later = draft.queue[1:] if draft.picks_together() else []
        then = f" (then {' '.join(later)}: their picks may follow, in order)" if later else ""
        if draft.market is not None:
            left = tuple(card_label(c, cards) for c, k in draft.market.items() for _ in range(k))
            return f"{cars[0]} picks one of {' '.join(left)}{then}", cars[0], tuple(dict.fromkeys(left))
        return f"{cars[0]} picks a card from the market{then}", cars[0], everything
    if due == "upgrade_removed":
        car = cars[0]
        mine = tuple(card_label(c, cards) for c in draft.owned[car])
        return f"{car} gives back one of {' '.join(mine)} (snake draft)", car, mine
    return "the Garage draft is over", None, ()


def draft_event(draft: Draft, cards: Mapping[str, Any], answer: str, car: str | None = None) -> Event:
    """The event an answer to :func:`draft_prompt` makes (checked by the rules when applied)."""
    due, cars = draft.waiting()
    who = car if car is not None else (cars[0] if cars else None)
    if due == "garage_market":
        return {"type": due, "v": 1, "round": draft.round + 1, "cards": parse_garage_cards(answer, cards)}
    if due == "upgrades_dealt":
        return {"type": due, "v": 1, "car": who, "cards": parse_garage_cards(answer, cards)}
    picked = parse_garage_cards(answer, cards, _offered(draft))
    if len(picked) != 1:
        raise ValueError("name one card")
    return {"type": due, "v": 1, "car": who, "card": picked[0]}


def _offered(draft: Draft) -> tuple[str, ...] | None:
    """The cards a pick is made from: the market's, when the draft has one."""
    return tuple(draft.market) if draft.market is not None and draft.waiting()[0] == "upgrade_picked" else None


def draft_events(draft: Draft, cards: Mapping[str, Any], answer: str, car: str | None = None) -> list[Event]:
    """The events an answer to the draft's question makes (:func:`draft_event`'s), and at a pick of a draft whose
    picks go together (``Draft.picks_together``: a season's, # 21.2) the picks after it typed on the same line, in
    pick order (``draft.queue``; the rules check each when applied, in turn: issue 29, one answer for the
    round's picks, not one per driver)."""
    due, cars = draft.waiting()
    picked = parse_garage_cards(answer, cards, _offered(draft)) if due == "upgrade_picked" else []
    if len(picked) < 2 or not draft.picks_together():
        return [draft_event(draft, cards, answer, car)]
    who = car if car is not None else cars[0]
    order = [who, *draft.queue[1:]]
    if len(picked) > len(order):
        left = f"1 pick is left ({who})" if len(order) == 1 else f"{len(order)} picks are left ({', '.join(order)})"
        raise ValueError(f"{left}, not {len(picked)}")
    return [{"type": due, "v": 1, "car": name, "card": c} for name, c in zip(order, picked, strict=False)]


def _draft(state: RaceState) -> tuple[Draft, Mapping[str, Any]]:
    g = garage_slot(state)
    if g is None or g.draft is None:
        raise ValueError("no Garage draft is under way")
    return g.draft, g.cards


def draft_question(state: RaceState) -> tuple[str, str, tuple[str, ...]]:
    """The notation's question: the draft's prompt, the hint, the Tab-completion words."""
    draft, cards = _draft(state)
    prompt, _car, words = draft_prompt(draft, cards)
    return prompt + ": ", DRAFT_HINT, words


def draft_parse_many(state: RaceState, text: str) -> list[Event]:
    """The events an answer to the draft's question makes (a season's picks left may follow, # 21.2)."""
    draft, cards = _draft(state)
    return draft_events(draft, cards, text)


def draft_parse(state: RaceState, text: str) -> Event:
    """The one event an answer to the draft's question makes."""
    draft, cards = _draft(state)
    return draft_event(draft, cards, text)


def draft_typed(ev: Event, nm: Callable[[str], str]) -> str:
    """The answer that makes a draft event, its cards as the host types them (``nm``: their short names)."""
    if "card" in ev:
        return nm(str(ev["card"]))
    return " ".join(nm(str(c)) for c in ev.get("cards", []))


def draft_answer(ev: Event) -> str:
    """The answer that makes a draft event, its cards by their tokens (``U7``: ``card_named`` reads them)."""
    return draft_typed(ev, str.lower)


def picks_together(started: Event) -> bool:
    """Whether a race's picks go on one answer: a season race's draft (# 21.2; the championship's race)."""
    return "championship" in (started.get("modules") or ())


def draft_words(ev: Event) -> str:
    """A draft event in a few words, its cards by their tokens (the recorder words it by ``event_words``)."""
    return event_words(ev, " ".join) or str(ev.get("type"))
