"""The tokens the modules of a race draw on the HTML replay's circuit (``Module.badges``: the weather's road
conditions, MODULES.md 20.2): a badge under a corner's sign, a tent beside the middle of a sector. The modules
give them as data (engine/module.py: ``Badge``); this file draws them and names no module."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from ..engine.module import in_race

if TYPE_CHECKING:
    from ..engine.module import Badges
    from ..engine.state import RaceState
    from .circuit import CircuitLayout


def badges_svg(state: RaceState, lay: CircuitLayout) -> str:
    """Every module of the race's tokens drawn on the circuit; ``lay``: the circuit layout."""
    return "".join(_group(found, state, lay) for m in in_race(state) if m.badges and (found := m.badges(state)))


def _group(found: Badges, state: RaceState, lay: CircuitLayout) -> str:
    signs, marks, unit = lay.signs, lay.marks, lay.lane_width
    n = state.track.spaces
    attrs = "".join(f' {k}="{escape(v)}"' for k, v in found.attrs.items())
    out = [f'<g class="{escape(found.group)}"{attrs}>']
    for c in found.items:
        text = escape(c.text)
        title = escape(c.title)
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
        if c.sector is None:
            continue
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
