"""The race's weather and road conditions in words (MODULES.md 20), for the board, the recorder and the HTML
replay: one entry per corner (a chicane once), with what its token does to the corner or to its sector."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.modules.weather.words import CornerCondition, conditions, conditions_lines

if TYPE_CHECKING:  # the board of a race without weather imports neither (issue 10: start-up)
    from ..engine.state import RaceState
    from .circuit import CircuitLayout

__all__ = ["CornerCondition", "conditions", "conditions_lines", "conditions_svg", "short_words"]


_SHORT = {
    "no_cooldown": "no cool",
    "no_slipstream": "no slip",
    "free_boost": "free boost",
}


def short_words(state: RaceState, c: CornerCondition) -> str:
    """A token's effect in a few characters, for the drawing ("+1", "overheat", "cool +1")."""
    cond = state.conditions
    assert cond is not None
    if c.kind == "corner":
        effect = cond.by_line[state.track.corners.index(_corner(state, c.lines[-1]))]
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


def _corner(state: RaceState, after_space: int) -> object:
    return next(c for c in state.track.corners if c.after_space == after_space)


def conditions_svg(state: RaceState, lay: CircuitLayout) -> str:
    """The road-condition tokens drawn on the circuit (MODULES.md 20.2): a badge under each corner's sign for a
    corner token, a tent beside the middle of the sector for a sector token. ``lay``: the circuit layout."""
    from html import escape

    items = conditions(state)
    if not items:
        return ""
    signs, marks, unit = lay.signs, lay.marks, lay.lane_width
    n = state.track.spaces
    tile = state.weather.tiles[state.weather_tile].name if state.weather and state.weather_tile else ""
    out = [f'<g class="road-conditions" data-weather="{escape(state.weather_tile or "")}">']
    for c in items:
        text = escape(short_words(state, c))
        weather = f" (weather {tile})" if c.token == "weather" else ""
        title = escape(f"corner {c.corner}: {c.token} — {c.words}{weather}")
        if c.kind == "corner":
            for after in c.lines:  # # 22.2: both lines of a chicane
                x, y = signs[after]
                out.append(
                    f'<g class="road-token corner-token" data-corner="{c.corner}" data-after-space="{after}" '
                    f'data-token="{escape(c.token)}"><title>{title}</title>'
                    f'<rect x="{x - unit * 0.75:.1f}" y="{y + unit * 0.7:.1f}" width="{unit * 1.5:.1f}" '
                    f'height="{unit * 0.6:.1f}" rx="3"/>'
                    f'<text x="{x:.1f}" y="{y + unit * 1.0:.1f}" style="font-size:{unit * 0.38:.1f}px">{text}'
                    "</text></g>"
                )
            continue
        assert c.sector is not None
        first, last = c.sector
        length = (last - first) % n + 1
        mid = (first - 1 + length // 2) % n + 1
        if mid not in marks:
            continue
        x, y = marks[mid]
        w = unit * (0.3 + 0.24 * len(text))
        out.append(
            f'<g class="road-token sector-token" data-corner="{c.corner}" data-sector="{first}-{last}" '
            f'data-token="{escape(c.token)}"><title>{title}</title>'
            f'<path d="M{x - w / 2:.1f},{y + unit * 0.3:.1f}L{x:.1f},{y - unit * 0.45:.1f}L{x + w / 2:.1f},'
            f'{y + unit * 0.3:.1f}Z"/>'
            f'<text x="{x:.1f}" y="{y + unit * 0.14:.1f}" style="font-size:{unit * 0.3:.1f}px">{text}</text></g>'
        )
    out.append("</g>")
    return "".join(out)
