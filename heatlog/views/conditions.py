"""The race's weather and road conditions in words (MODULES.md 20), for the board, the recorder and the HTML
replay: one entry per corner (a chicane once), with what its token does to the corner or to its sector."""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.modules.weather import corner_groups
from ..engine.state import RaceState


@dataclass(frozen=True, slots=True)
class CornerCondition:
    corner: int  # 1-based number of the corner's (last) line in the track's list
    lines: tuple[int, ...]  # after_space of each of its lines (two for a chicane)
    token: str
    kind: str  # "corner" or "sector"
    words: str  # what it does ("limit +1: 3 → 4", "sector 34–49: no cooldown")
    sector: tuple[int, int] | None  # first and last space of the sector it lies on (sector tokens)


def conditions(state: RaceState) -> list[CornerCondition]:
    """The road condition of every corner, in racing order; [] without the weather module (or before the
    tokens are drawn)."""
    cond, rules = state.conditions, state.weather
    if cond is None or rules is None:
        return []
    track = state.track
    out = []
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
            out.append(CornerCondition(last + 1, afters, token, kind, "; ".join(what), None))
            continue
        spaces = [s for s in range(1, track.spaces + 1) if cond.sector_of_space[s] == len(out) + 1]
        first, end = _run(spaces, afters[-1], track.spaces)
        words = cond.by_space[first].words() or "nothing"
        out.append(CornerCondition(last + 1, afters, token, kind, f"sector {first}–{end}: {words}", (first, end)))
    return out


def _run(spaces: list[int], after: int, n: int) -> tuple[int, int]:
    """First and last space of a sector that starts after line ``after`` (it may wrap through the finish)."""
    first = after % n + 1
    s = first
    while (s % n + 1) in spaces and s % n + 1 != first:
        s = s % n + 1
    return first, s


def conditions_lines(state: RaceState) -> list[str]:
    """The weather tile and each corner's token as lines of text (empty without the module)."""
    if state.weather is None:
        return []
    if state.weather_tile is None:
        return ["weather: not drawn yet (MODULES.md 20.2)"]
    tile = state.weather.tiles[state.weather_tile]
    head = f"weather: {tile.name} (start: {tile.start.words() or 'nothing'}; Weather token: {tile.sector.words()})"
    if state.conditions is None:
        return [head, "road conditions: not drawn yet"]
    items = [f"C{c.corner} {c.token}: {c.words}" for c in conditions(state)]
    return [head, "road: " + "; ".join(items)]
