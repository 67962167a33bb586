"""The weather's view pieces (MODULES.md 20): the tile and every corner's road condition in words, one entry per
corner (a chicane once), with what its token does to the corner or to its sector. Pure text of the engine's facts
(``conditions_of(state)``, the tile's effects): the weather descriptor's ``marks`` (engine/module.py) are these lines,
which the board and the HTML replay show; ``views/conditions.py`` draws the tokens on the circuit from
:func:`conditions`. Imported with the first weather race (issue 10: start-up)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import conditions_of, slot, weather_rules

if TYPE_CHECKING:
    from ...state import Car, RaceState


@dataclass(frozen=True, slots=True)
class CornerCondition:
    corner: int  # the corner's number as the board counts them, a chicane once (views.narrate.corner_number)
    lines: tuple[int, ...]  # after_space of each of its lines (two for a chicane)
    token: str
    kind: str  # "corner" or "sector"
    words: str  # what it does ("limit +1: 3 → 4", "sector 34–49: no cooldown")
    sector: tuple[int, int] | None  # first and last space of the sector it lies on (sector tokens)


def conditions(state: RaceState) -> list[CornerCondition]:
    """The road condition of every corner, in racing order; [] without the weather module (or before the
    tokens are drawn)."""
    cond, rules = conditions_of(state), weather_rules(state)
    if cond is None or rules is None:
        return []
    from .rules import corner_groups

    track = state.track
    out: list[CornerCondition] = []
    for group, token in zip(corner_groups(track), cond.tokens, strict=True):
        kind = rules.tokens[token].kind
        last = group[-1]
        afters = tuple(track.corners[i].after_space for i in group)
        if kind == "corner":
            effect = cond.by_line[last]
            limits = " and ".join(f"{track.corners[i].limit} → {cond.limit(track, i)}" for i in group)
            what = []
            if effect.limit:
                what.append(f"limit {effect.limit:+d}: {limits}")
            if effect.overheat:
                what.append(f"overheat: +{effect.overheat} Heat when over the limit")
            out.append(CornerCondition(len(out) + 1, afters, token, kind, "; ".join(what), None))
            continue
        spaces = [s for s in range(1, track.spaces + 1) if cond.sector_of_space[s] == len(out) + 1]
        first, end = sector_run(spaces, afters[-1], track.spaces)
        words = cond.by_space[first].words() or "nothing"
        out.append(CornerCondition(len(out) + 1, afters, token, kind, f"sector {first}–{end}: {words}", (first, end)))
    return out


def sector_run(spaces: list[int], after: int, n: int) -> tuple[int, int]:
    """First and last space of a sector that starts after line ``after`` (it may wrap through the finish)."""
    first = after % n + 1
    s = first
    while (s % n + 1) in spaces and s % n + 1 != first:
        s = s % n + 1
    return first, s


def conditions_lines(state: RaceState) -> list[str]:
    """The weather tile and each corner's token as lines of text (empty without the module)."""
    own = slot(state)
    if own is None:
        return []
    if own.tile is None:
        return ["weather: not drawn yet (MODULES.md 20.2)"]
    tile = own.rules.tiles[own.tile]
    head = f"weather: {tile.name} (start: {tile.start.words() or 'nothing'}; Weather token: {tile.sector.words()})"
    if own.conditions is None:
        return [head, "road conditions: not drawn yet"]
    items = [f"C{c.corner} {c.token}: {c.words}" for c in conditions(state)]
    return [head, "road: " + "; ".join(items)]


def event_words(ev: dict[str, Any], cards: Callable[[list[str]], str]) -> str | None:
    """The weather's events in a few words (the recorder's echo and undo lines): the tile drawn (# 20.2) and the
    road conditions' tokens, corner by corner (# 20.3)."""
    kind = ev.get("type")
    if kind == "weather_drawn":
        return f"weather {ev['tile']}"
    if kind == "road_conditions_drawn":
        return "road conditions " + ", ".join(f"corner {i} {t}" for i, t in enumerate(ev["tokens"], 1))
    return None


# ---------------------------------------------------------------------------------------------- the table's notation
# The recorder's set-up questions (the descriptor's ``notation``: the recorder asks them by the kinds "weather" and
# "road", the table server offers the tokens as a row): the tile, then one token per corner, typed as their ids.


def tile_question(state: RaceState) -> tuple[str, str, tuple[str, ...]]:
    """# 20.2: the weather tile drawn at set-up."""
    rules = weather_rules(state)
    assert rules is not None
    tiles = tuple(rules.tiles)
    hint = "the tile drawn at set-up; its start effect changes every deck and Engine (MODULES.md 20.2, 20.3)"
    return f"weather tile ({' '.join(tiles)}): ", hint, tiles


def tile_parse(state: RaceState, text: str) -> dict[str, Any]:
    """The tile as typed (its id; the rules refuse an unknown one)."""
    return {"type": "weather_drawn", "v": 1, "tile": text.lower().strip()}


def road_question(state: RaceState) -> tuple[str, str, tuple[str, ...]]:
    """# 20.2: one road-condition token per corner, in racing order (a chicane is one corner, # 22.2)."""
    rules = weather_rules(state)
    assert rules is not None
    from .rules import corner_groups

    n = len(corner_groups(state.track))
    tokens = tuple(rules.tokens)
    hint = f"{n} of: {' '.join(tokens)} (a chicane is one corner; at most 2 of a kind, # 20.2)"
    return f"road conditions, one token per corner 1–{n} in racing order: ", hint, tokens


def road_parse(state: RaceState, text: str) -> dict[str, Any]:
    """The tokens as typed, by their ids, separated by spaces or commas (the rules check them, # 20.2)."""
    return {"type": "road_conditions_drawn", "v": 1, "tokens": [t.lower() for t in text.replace(",", " ").split()]}


def said(ev: dict[str, Any]) -> str:
    """A weather event in a few words (its notation's ``words``: :func:`event_words`'s)."""
    return event_words(ev, " ".join) or str(ev.get("type"))


def react_hint(state: RaceState, car: Car) -> str:
    """What the car's sector forbids or adds now (MODULES.md 20.7), for the recorder's React question; "" without
    one."""
    from .rules import sector_at

    effect = sector_at(state, car.progress)
    if not effect.active:
        return ""
    return f"sector: {effect.words()} (road condition {effect.token}); "


_SHORT = {
    "no_cooldown": "no cool",
    "no_slipstream": "no slip",
    "free_boost": "free boost",
}


def short_words(state: RaceState, c: CornerCondition) -> str:
    """A token's effect in a few characters, for the drawing ("+1", "overheat", "cool +1")."""
    cond = conditions_of(state)
    assert cond is not None
    if c.kind == "corner":
        line = c.lines[-1]
        effect = cond.by_line[next(i for i, k in enumerate(state.track.corners) if k.after_space == line)]
        return f"{effect.limit:+d}" if effect.limit else "overheat"
    assert c.sector is not None
    e = cond.by_space[c.sector[0]]
    for key, text in _SHORT.items():
        if getattr(e, key):
            return text
    if e.cooling:
        return f"cool +{e.cooling}"
    if e.slipstream:
        return f"slip +{e.slipstream}"
    return c.token


def badges(state: RaceState) -> Any:
    """# 20.2: the road-condition tokens on the circuit (the descriptor's ``badges``): a badge under each corner's
    sign for a corner token, a tent beside the middle of its sector for a sector token; None before they are drawn."""
    from ...module import Badge, Badges

    items = conditions(state)
    if not items:
        return None
    own = slot(state)
    tile = own.rules.tiles[own.tile].name if own is not None and own.tile else ""
    out = []
    for c in items:
        weather = f" (weather {tile})" if c.token == "weather" else ""
        title = f"corner {c.corner}: {c.token} — {c.words}{weather}"
        out.append(Badge(c.kind, c.corner, c.token, short_words(state, c), title, c.lines, c.sector))
    return Badges("road-conditions", {"data-weather": (own.tile if own is not None else None) or ""}, tuple(out))


def highlight(state: RaceState) -> str | None:
    """# 20.2: the tile and the tokens in words (a sample race's sentence)."""
    own = slot(state)
    if own is None or own.conditions is None or own.tile is None:
        return None
    tile = own.rules.tiles[own.tile].name
    return f"weather {tile}, road conditions {' '.join(own.conditions.tokens)}"
