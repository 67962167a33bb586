"""The answers a host would type into ``heatlog record`` to record a known log.

Used by the recorder tests (in process and through a pseudo-terminal), the benchmark and the captured
screens of docs/recording.md: a simulated race (``heatlog.simulate.world``) gives the log, this module gives the typing.
It reads only the question (its kind and car, or the prompt text as shown on screen) and the next expected
events -- never the recorder's internals.
"""

from __future__ import annotations

import re
from typing import Any

Event = dict[str, Any]

REACT = ("cooldown", "boost", "adrenaline")

# Prompt text (as on screen) -> question kind; group 1 is the car.
PROMPTS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(rx))
    for kind, rx in (
        ("gear", r"^(\S+) gear \(now \d\) \[\d\]: $"),
        ("play", r"^(\S+) plays \d \(hand [^)]*\): $"),
        ("reveal", r"^(\S+) reveals \d: $"),
        ("flip", r"^flip for (\S+)'s (?:Stress|Boost): $"),
        ("react", r"^(\S+) react \([^)]*\): $"),
        ("slipstream", r"^(\S+) slipstream\? \(y/n\): $"),
        ("discard", r"^(\S+) discards \((?:hand [^;]*; )?Enter = none\): $"),
        ("draw", r"^(\S+) draws (?:\[\d\]|\d)(?: \([^)]*\))?: $"),
        ("shuffle", r"^(\S+)'s deck is empty: shuffle the discard pile .*\[Enter\]: $"),
        ("shuffle", r"^(\S+) reshuffles \d+ cards .*: order top first, or Enter if unknown: $"),
        ("setup_shuffle", r"^(\S+) shuffles the starting deck \[Enter\]: $"),
        ("setup_shuffle", r"^(\S+)'s starting shuffle: .*: $"),
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


def _cards(cards: list[str]) -> str:
    return " ".join(c.lower() for c in cards)


def answer(
    kind: str,
    car: str,
    expected: list[Event],
    i: int,
    *,
    typed_chance: bool = True,
    multi: bool = True,
) -> str:
    """What to type at a ``kind`` question for ``car`` when ``expected[i:]`` is what the log must get next.

    ``typed_chance``: flips are typed (table mode, or an unknown deck order); False when the recorder
    determines them from a known deck order. ``multi``: answer several gears / flips / react choices at once.
    """
    nxt = expected[i] if i < len(expected) else {}
    t, c = nxt.get("type"), nxt.get("car")
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
        return _cards(nxt["cards"])
    if kind == "flip":
        flips = []
        for ev in expected[i:]:
            if ev.get("type") != "card_flipped" or ev.get("car") != car:
                break
            flips.append(ev["card"].lower())
            if not multi:
                break
        assert flips, (kind, car, nxt)
        return " ".join(flips)
    if kind == "react":
        tokens: list[str] = []
        skip = False
        for j in range(i, len(expected)):
            ev = expected[j]
            et = ev.get("type")
            if ev.get("car") != car or et not in (*REACT, "card_flipped"):
                break
            if skip:  # the cooldown of 1 that ``ac`` records with the adrenaline bonus
                skip = False
                continue
            if et == "cooldown":
                tokens.append(f"c{ev['count']}")
            elif et == "boost":
                tokens.append("b")
            elif et == "adrenaline":
                tokens.append("a" if ev["bonus"] == "move" else "ac")
                skip = ev["bonus"] == "cooldown"
            elif typed_chance:
                tokens.append(ev["card"].lower())
            if multi:
                continue
            # one choice per answer; a boost takes its flips along (they follow it in the same answer)
            following = expected[j + 1] if j + 1 < len(expected) else {}
            if not (following.get("type") == "card_flipped" and following.get("car") == car and typed_chance):
                break
        return " ".join(tokens)
    if kind == "slipstream":
        assert t == "slipstream" and c == car, (kind, car, nxt)
        return "y" if nxt["taken"] else "n"
    if kind == "discard":
        if t == "cards_discarded" and c == car:
            return _cards(nxt["cards"])
        return ""
    if kind in ("draw", "setup_draw"):
        assert t == "cards_drawn" and c == car, (kind, car, nxt)
        return _cards(nxt["cards"]) if "cards" in nxt else ""
    if kind in ("shuffle", "setup_shuffle"):
        assert t == "deck_shuffled" and c == car, (kind, car, nxt)
        return _cards(nxt["order"]) if nxt.get("order") else ""
    raise AssertionError(f"no scripted answer for a {kind} question")
