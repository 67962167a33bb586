"""The answers a host would type into ``heatlog record`` to record a known log.

Used by the recorder tests (in process and through a pseudo-terminal), the benchmark and the captured
screens of docs/recording.md: a simulated race (``heatlog.simulate.world``) gives the log, this module gives the typing.
It reads only the question (its kind and car, or the prompt text as shown on screen) and the next expected
events -- never the recorder's internals.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..engine.module import TurnAnswer

Event = dict[str, Any]

REACT = ("cooldown", "boost", "adrenaline")


def _named_cards(expected: list[Event]) -> bool:
    """Whether the race has cards beyond the base (race_started's ``cards``: the Garage's upgrades, # 18.2): its
    cards are typed by their names, so a discard's are spaced (``d 2 brakes13``), and a bare ``y`` takes the
    longest slipstream with the bonus cards (# 18.16), so the basic 2 is typed as a distance."""
    return bool(expected and expected[0].get("cards"))


def _module_word(ev: Event, nm: Callable[[str], str], expected: list[Event]) -> str | None:
    """The word a module of the race types for ``ev`` on a car's line (engine/module.py: ``Module.react_answer``;
    the Garage's ``p:u11``, ``play:NAME`` …, # 18.10-18.23), or None: not a module's word."""
    from ..engine.module import react_answer

    return react_answer(ev, nm, expected[0].get("modules", []) if expected else [])


@cache
def _turn_answers() -> dict[str, TurnAnswer]:
    """The modules' questions inside a car's turn, by kind (engine/module.py: ``Module.turn_answers``)."""
    from ..engine.module import descriptors

    return {kind: told for unit in descriptors() for kind, told in unit.turn_answers.items()}


def _line_answer(event: str) -> TurnAnswer | None:
    """A module's question inside a turn that a later part of a reveal's line answers with an ``event`` (step 3's
    value, Accelerate, # 18.6, 18.20), or None."""
    return next((t for t in _turn_answers().values() if t.line and t.event == event), None)


@cache
def _line_ends() -> frozenset[str]:
    """The event kinds after which a reveal's line stops (every module's ``line_ends``)."""
    from ..engine.module import descriptors

    return frozenset(k for m in descriptors() for k in m.line_ends)


def _module_screens() -> list[tuple[str, str]]:
    """The modules' questions as the terminal shows them (engine/module.py: ``Notation.screen``), by kind."""
    from ..engine.module import descriptors

    seen: list[tuple[str, str]] = []
    for unit in descriptors():
        for told in unit.notation.values():
            if told.screen is not None and (told.kind, told.screen) not in seen:
                seen.append((told.kind, told.screen))
    return seen


# Prompt text (as on screen) -> question kind; group 1 is the car (the base's, then every module's).
PROMPTS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(rx))
    for kind, rx in (
        ("gear", r"^(\S+) gear \(now \d\) \[\d\]: $"),
        ("play", r"^(\S+) plays \d \(hand [^)]*\): $"),
        # a Stress card's flips on its line, and the rest of the turn (React's uses, d CARDS, -)
        ("reveal", r"^(\S+) reveals \d(?: \(\+ [^()]*\))?: $"),
        ("flip", r"^flip for (\S+)'s (?:Stress|Boost|card \+|replacement[^:]*): $"),  # # 14.1, 18.8, 18.11
        ("react", r"^(\S+) react \((?:[^()]|\([^()]*\))*\): $"),  # a card's words in parentheses
        ("slipstream", r"^(\S+) slipstream\? \([^)]*\): $"),  # y/n, or the distances
        ("discard", r"^(\S+) discards \((?:[^;]*; )*Enter = none\): $"),  # the hand, a Refresh
        ("draw", r"^(\S+) draws (?:\[\d\]|\d)(?: \([^)]*\))?: $"),
        ("shuffle", r"^(\S+)'s deck is empty: shuffle the discard pile .*\[Enter\]: $"),
        ("shuffle", r"^(\S+) reshuffles \d+ cards .*: order top first, or Enter if unknown: $"),
        ("setup_shuffle", r"^(\S+) shuffles the starting deck \[Enter\]: $"),
        ("setup_shuffle", r"^(\S+)'s starting shuffle: .*: $"),
        *((kind, told.screen) for kind, told in _turn_answers().items()),  # a module's in a turn (# 18.6-18.18)
        *_module_screens(),  # the modules' own questions (the Garage's draft, # 18.5; the season's, 21.2-21.8)
    )
)

# One pattern that finds any of them at the end of a screen line (for pexpect).
ANY_PROMPT = re.compile(
    "|".join("(?:" + rx.pattern.lstrip("^").rstrip("$") + ")" for _, rx in PROMPTS),
)


def classify(prompt: str) -> tuple[str, str]:
    """(kind, car) of a prompt as shown on screen."""
    text = prompt.rstrip("\r\n")
    text = text[text.rfind("\n") + 1 :]
    for kind, rx in PROMPTS:
        m = rx.search(text)
        if m:
            return kind, m.group(1)
    raise ValueError(f"not a recorder prompt: {prompt!r}")


def _namer(expected: list[Event]) -> Callable[[str], str]:
    """How the host types a card: an upgrade by its short name (``brakes1234``, # 18.2), a base card by its token."""
    defs = expected[0].get("cards", {}) if expected else {}

    def nm(token: str) -> str:
        return str(defs[token]["short"]) if token in defs else token.lower()

    return nm


def _adrenaline(ev: Event, following: Event) -> tuple[str, bool]:
    """The word for an adrenaline bonus (``ev``) and whether it takes the event after it along: ``a`` the move;
    the cooldown (# 6.2, 7.4) with the plain cooldown that follows it as ``ac`` (a cooldown of 1) or ``acN`` (the
    gear's and the adrenaline's at once, ``ac2``), else ``ac0``, the bonus alone (a cooldown naming its cards,
    # 18.13, a boost or nothing comes next: their own words follow)."""
    if ev["bonus"] == "move":
        return "a", False
    plain = following.get("type") == "cooldown" and following.get("car") == ev.get("car")
    if plain and not following.get("cards"):
        n = int(following["count"])
        return ("ac" if n == 1 else f"ac{n}"), True
    return "ac0", False


def _slip_in_line(ev: Event, expected: list[Event]) -> str:
    """A slipstream as a later part of a line: ``n``, ``y`` (the basic 2), ``y3`` (a distance with a sector's
    bonus, # 20.12), ``y4:rpm2`` (a distance and the bonus cards that make it, # 18.16); in a Garage race a bare
    ``y`` takes the longest, so the basic 2 is ``y2``."""
    if not ev["taken"]:
        return "n"
    if ev.get("bonuses"):
        cards = expected[0].get("cards", {})
        named = [cards[b] for b in ev["bonuses"]]
        total = ev.get("spaces", 2 + sum(int(k["symbols"]["slipstream"]) for k in named))
        return f"y{total}:" + "/".join(str(k["short"]) for k in named)
    if "spaces" in ev:
        return f"y{ev['spaces']}"
    return "y2" if _named_cards(expected) else "y"


def _rest_of_turn(car: str, expected: list[Event], i: int) -> list[str]:
    """The rest of ``car``'s turn after its reveal at ``expected[i]`` (and its flips) as the reveal's line takes it
    (``React, d CARDS; - = nothing more``): a multi-value card's value and Accelerate (# 18.6, 18.20), React's uses
    (a boost with its flips; the Garage's by their exact forms), then ``d CARDS``; the line's end is "nothing more
    this turn", so a turn that does nothing more ends with ``-``. A turn with a slipstream decision is left to the
    React prompt, which offers it with the discard (the cards alone here), and so is a turn whose React has steps
    of its own (a Scrap's cards, a Salvage's shuffle, a Refresh, an unpayable cost, # 18.11-18.21); a line ending
    with a boost ends with ``-`` (its flips were news, React would stay open)."""
    nm = _namer(expected)
    j = i + 1
    flips = ("card_flipped", "deck_shuffled")
    while j < len(expected) and expected[j].get("car") == car and expected[j]["type"] in flips:
        j += 1  # the Stress card's flips (typed before this part) and the rules' reshuffles between them
    later = []
    for ev in expected[j:]:
        if ev.get("car") != car or ev["type"] in ("cards_drawn", "gear_chosen"):
            break
        later.append(ev)
    own_steps = _line_ends()  # the modules' steps asked apart (Module.line_ends: a Scrap's cards, # 18.12 …)
    if any(ev["type"] == "slipstream" or ev["type"] in own_steps for ev in later):
        return []  # asked at the React prompt (the slipstream with the discard) or at their own questions
    tokens: list[str] = []
    skip = False
    boosted = False
    for k, ev in enumerate(later):
        t = ev["type"]
        if skip:
            skip = False
            continue  # the cooldown that ``ac`` / ``acN`` records with the bonus
        own = _line_answer(t)  # a module's question as a part of the line (a card's value, Accelerate, # 18.6, 18.20)
        if own is not None:
            tokens.append(own.typed(ev, nm))
            continue
        said = _module_word(ev, nm, expected)
        if said is not None:
            tokens.append(said)
        elif t == "cooldown":
            tokens.append(f"c{ev['count']}")
        elif t == "boost":
            tokens.append("b")
        elif t == "adrenaline":
            word, skip = _adrenaline(ev, later[k + 1] if k + 1 < len(later) else {})
            tokens.append(word)
        elif t == "card_flipped":
            tokens.append(nm(ev["card"]))
            continue
        elif t == "cards_discarded":
            cards = [nm(c) for c in ev["cards"]]
            tokens.append("d" + "".join(cards) if not _named_cards(expected) else " ".join(["d", *cards]))
        elif t == "deck_shuffled":
            continue  # the rules' reshuffle between a boost's flips (# 12.3): never typed at a table
        else:
            break
        boosted = t == "boost"
    react = [w for w in tokens if not w.isdecimal() and w not in ("y", "n")]  # past step 3's words
    return tokens + (["-"] if not react or boosted else [])


def answer(
    kind: str,
    car: str,
    expected: list[Event],
    i: int,
    *,
    typed_chance: bool = True,
    multi: bool = True,
    prompt: str = "",
) -> str:
    """What to type at a ``kind`` question for ``car`` when ``expected[i:]`` is what the log must get next.

    ``typed_chance``: flips are typed (table mode, or an unknown deck order); False when the recorder
    determines them from a known deck order. ``multi``: answer several gears / flips / react choices at once.
    ``prompt``: the question as shown; a React prompt that offers the slipstream (``slipstream y/n``) is answered
    with it, and the discard after it, as a host who reads the prompt does.
    """
    nm = _namer(expected)

    def _cards(cards: list[str]) -> str:
        return " ".join(map(nm, cards))

    nxt = expected[i] if i < len(expected) else {}
    t, c = nxt.get("type"), nxt.get("car")
    table = bool(expected) and expected[0].get("mode") == "table"  # a reshuffle is the rules' there, never asked
    if kind == "gear":
        if t != "gear_chosen":
            raise AssertionError(f"gear question, but the log expects {nxt}")
        if not multi:
            return str(nxt["gear"])
        gears = []
        for ev in expected[i:]:
            if ev.get("type") != "gear_chosen":
                break
            gears.append(str(ev["gear"]))
        return " ".join(gears)
    if kind in ("play", "reveal"):
        assert t in ("cards_played", "cards_revealed") and c == car, (kind, car, nxt)
        typed = [nm(card) for card in nxt["cards"]]
        # the prompt takes a Stress card's flips, and so does a line that goes on with the rest of the turn (a
        # card's + flips, # 18.8: the line's next part answers their question); guided: one choice per answer
        line = "Stress flips" in prompt or "React, d CARDS" in prompt
        if kind == "reveal" and line and typed_chance and multi:
            for ev in expected[i + 1 :]:
                if ev.get("car") != car:
                    break
                if ev.get("type") == "deck_shuffled" and table:
                    continue  # the rules' reshuffle between two flips (# 14.1, 12.3): never typed at a table
                if ev.get("type") != "card_flipped":
                    break
                typed.append(nm(ev["card"]))
        if kind == "reveal" and "React, d CARDS" in prompt and typed_chance and multi:
            typed += _rest_of_turn(car, expected, i)  # the prompt takes the rest of the turn too
        return " ".join(typed)
    if kind == "flip":
        flips = []
        for ev in expected[i:]:
            if ev.get("type") != "card_flipped" or ev.get("car") != car:
                break
            flips.append(nm(ev["card"]))
            if not multi:
                break
        assert flips, (kind, car, nxt)
        return " ".join(flips)
    from ..engine.module import notation_kinds, notation_of

    if kind in notation_kinds():  # a module's own notation (engine/module.py): the answer that makes the event
        told = notation_of(str(t))
        assert told is not None and told.kind == kind, (kind, car, nxt)
        as_typed = told.typed
        say: Callable[[Event], str] = told.answer if as_typed is None else lambda ev: as_typed(ev, nm)
        if multi and told.together is not None and expected and told.together(expected[0]):
            return " ".join(say(ev) for ev in _run(expected, i, lambda ev: ev.get("type") == t))  # one answer
        return say(nxt)
    own = _turn_answers().get(kind)  # a module's question inside the turn: the answer that makes its event
    if own is not None:
        words: list[str] = []
        for ev in expected[i:]:
            if ev.get("type") != own.event or ev.get("car") != car:
                break
            words.append(own.typed(ev, nm))
            if not (own.walks and multi):  # several at once (a Scrap's cards), when the answer walks on
                break
        said = _module_word(nxt, nm, expected) if not words and nxt.get("car") == car else None
        if said is not None:  # a module's React word its question takes too (the Garage's p:CARD there, # 18.10)
            return said
        assert words, (kind, car, nxt)
        return " ".join(words)
    if kind == "react":
        tokens: list[str] = []
        skip = False
        spaced = _named_cards(expected)  # the discard's cards spaced (named cards)
        boosted = False
        several = multi  # as asked: a boost's flips across the rules' reshuffle go on the line only then
        multi = True  # one React prompt takes every use (issue 29): one answer, whatever ``multi``
        j = i
        for j in range(i, len(expected) + 1):
            if j == len(expected):
                break
            ev = expected[j]
            et = ev.get("type")
            if et == "deck_shuffled" and ev.get("car") == car and table and tokens and several:
                continue  # the rules' reshuffle between a boost's flips (# 14.1, 12.3): never typed at a table
            said = _module_word(ev, nm, expected)
            if ev.get("car") != car or (said is None and et not in (*REACT, "card_flipped", "card_scrapped")):
                break
            if skip:  # the cooldown that ``ac`` / ``acN`` records with the adrenaline bonus
                skip = False
                continue
            if said is not None:
                tokens.append(said)
                if et == "salvaged" and ev.get("cards"):
                    break  # its flips or shuffle are their own question (a Salvage of no cards has none, # 18.18:
                    # the line goes on to the discard, or its end closes the turn without the discard the log has)
            elif et == "card_scrapped":
                break
            elif et == "cooldown":
                tokens.append(f"c{ev['count']}")
            elif et == "boost":
                tokens.append("b")
            elif et == "adrenaline":
                word, skip = _adrenaline(ev, expected[j + 1] if j + 1 < len(expected) else {})
                tokens.append(word)
            elif typed_chance:
                tokens.append(nm(ev["card"]))
            following = expected[j + 1] if j + 1 < len(expected) else {}
            flip_next = following.get("type") == "card_flipped" and following.get("car") == car and typed_chance
            if et == "boost" and not typed_chance:
                boosted = True  # its flips are not typed here: React is asked again once they are known
                break
            if multi:
                continue
            # one choice per answer; a boost takes its flips along (they follow it in the same answer)
            if not flip_next:
                break
        if not boosted and (j == len(expected) or expected[j].get("type") != "card_scrapped"):
            # the line's end is "nothing more this turn": a discard goes on it unless a slipstream question comes
            # (or a Scrap's cards, # 18.12: chance the table turns over after React)
            later = [ev for ev in expected[j:] if ev.get("car") == car]
            nxt_ev = later[0] if later else {}
            if "slipstream y/n" in prompt and nxt_ev.get("type") == "slipstream":
                tokens.append(_slip_in_line(nxt_ev, expected))  # the slipstream the prompt offers (# 8.1)
                nxt_ev = later[1] if len(later) > 1 else {}
            if nxt_ev.get("type") == "cards_discarded":
                cards = [nm(c) for c in nxt_ev["cards"]]
                tokens.append("d" + "".join(cards) if not spaced else " ".join(["d", *cards]))
        return " ".join(tokens)
    if kind == "slipstream":
        if t == "refreshed" and c == car:  # # 18.21: a Refresh closes step 6 without a slipstream
            return "f:" + nm(nxt["card"])
        assert t == "slipstream" and c == car, (kind, car, nxt)
        if not nxt["taken"]:
            return "n"
        if nxt.get("bonuses"):  # the distance and the bonus cards that make it (# 18.16, 20.12)
            cards = expected[0].get("cards", {})
            named = [cards[b] for b in nxt["bonuses"]]
            total = nxt.get("spaces", 2 + sum(int(k["symbols"]["slipstream"]) for k in named))
            return f"{total}:" + "/".join(str(k["short"]) for k in named)
        if "spaces" in nxt:  # with the sector bonus (MODULES.md 20.12)
            return str(nxt["spaces"])
        return "2" if _named_cards(expected) else "y"  # with bonus cards y takes the longest (# 18.16)
    if kind == "discard":
        words = []
        j = i
        while j < len(expected) and expected[j].get("type") == "refreshed" and expected[j].get("car") == car:
            words.append("f:" + nm(expected[j]["card"]))
            j += 1
        if j < len(expected) and expected[j].get("type") == "cards_discarded" and expected[j].get("car") == car:
            words.append(("d " if words else "") + _cards(expected[j]["cards"]))  # later in a line: d CARDS
        return " ".join(words[:1] + words[1:]) if words else ""
    if kind in ("draw", "setup_draw"):
        assert t == "cards_drawn" and c == car, (kind, car, nxt)
        return _cards(nxt["cards"]) if "cards" in nxt else ""
    if kind in ("shuffle", "setup_shuffle"):
        assert t == "deck_shuffled" and c == car, (kind, car, nxt)
        return _cards(nxt["order"]) if nxt.get("order") else ""
    raise AssertionError(f"no scripted answer for a {kind} question")


def _run(expected: list[Event], i: int, same: Callable[[Event], bool]) -> list[Event]:
    """The events from ``expected[i]`` on while ``same`` holds (what one answer may type at once)."""
    out = []
    for ev in expected[i:]:
        if not same(ev):
            break
        out.append(ev)
    return out
