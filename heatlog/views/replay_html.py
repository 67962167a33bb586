"""``heatlog replay --html``: one self-contained HTML page (inline CSS, JS and SVG; no network).

The page holds the circuit drawn in SVG (:mod:`heatlog.views.circuit`), round controls (buttons, a slider,
the arrow keys, ``#round=N`` in the address), the cars table and the narration of each round, and two charts:
the lap chart (position per round) and the Heat chart (Engine Heat per round). The race itself travels as JSON
inside the page; the page's script only moves markers and fills tables from it.

Hooks for tests and links: car markers are ``<g class="car" data-car data-space data-lane data-progress
data-finished>``, spots ``<path class="spot" data-space data-lane>``, chart lines ``<polyline class="series"
data-chart="lap|heat" data-car>``; ``<html data-errors>`` collects script errors and ``data-ready="true"`` says
the script ran; ``<body data-round>`` is the round on show.
"""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from .. import __version__
from ..engine.module import car_facts, press_corners, rules_lines, spaces_moved, turn_row
from ..engine.module import marks as module_marks
from ..engine.state import RaceState
from ..engine.track import Track
from ..formats.usertext import embed_json, visible
from ..formats.usertext import html_text as escape
from . import counted
from .badges import badges_svg
from .board import _corners, _flips, _gear, _slip, car_labels, deck_text, hand_text, lap_text, spot_text
from .cards import card_short
from .circuit import CircuitLayout, Point, circuit_layout
from .replay import Replay

CSS_COLOURS = {
    "red": "#e63946",
    "blue": "#2f6fdf",
    "green": "#2a9d4b",
    "yellow": "#f4c20d",
    "black": "#222222",
    "white": "#f7f7f7",
    "grey": "#8d8d8d",
    "gray": "#8d8d8d",
    "orange": "#f08c00",
    "purple": "#8e44ad",
    "pink": "#e75a9b",
    "teal": "#17a2a2",
}
FALLBACK = ("#e63946", "#2f6fdf", "#2a9d4b", "#f4c20d", "#8e44ad", "#f08c00", "#17a2a2", "#222222")
LIGHT = {"#f4c20d", "#f7f7f7", "#8d8d8d"}
LIGHT_LINES = {"#f7f7f7"}
CHART_W, CHART_H = 620, 270
CHART_PAD = (44, 16, 26, 30)  # left, right, top, bottom


def car_colour(colour: str, index: int) -> str:
    c = colour.strip().lower()
    if c in CSS_COLOURS:
        return CSS_COLOURS[c]
    if len(c) in (4, 7) and c.startswith("#") and all(ch in "0123456789abcdef" for ch in c[1:]):
        return c
    return FALLBACK[index % len(FALLBACK)]


def _ink(fill: str) -> str:
    if fill in LIGHT:
        return "#111111"
    h = fill.lstrip("#")
    if len(h) == 3:
        h = "".join(ch * 2 for ch in h)
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return "#111111" if 0.299 * r + 0.587 * g + 0.114 * b > 160 else "#ffffff"


def _pts(points: list[Point]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def _path(points: list[Point], close: bool = False) -> str:
    head, *rest = points
    return f"M{head[0]:.1f},{head[1]:.1f}L" + " ".join(f"{x:.1f},{y:.1f}" for x, y in rest) + ("Z" if close else "")


# ---------------------------------------------------------------------------------------------- the circuit


FEATURE_TITLES = {
    "flooded": "flooded: downshift costs 1 more Heat (# 22.4)",
    "tunnel": "tunnel: no card may be discarded here (# 22.6)",
}


def _spot_path(track: Track, space: int, lane: int, poly: list[Point]) -> str:
    classes = ["spot"]
    notes = []
    if track.race_lane(space) == lane:
        classes.append("race")
        notes.append("race line")
    for feature, spaces in (("flooded", track.flooded), ("tunnel", track.tunnel)):
        if space in spaces:
            classes.append(feature)
            notes.append(FEATURE_TITLES[feature])
    extra = f" ({'; '.join(notes)})" if notes else ""
    return (
        f'<path class="{" ".join(classes)}" data-space="{space}" data-lane="{lane}" d="{_path(poly, close=True)}">'
        f"<title>space {space}, lane {lane}{extra}</title></path>"
    )


def _line(a: Point, b: Point, cls: str) -> str:
    return f'<line class="{cls}" x1="{a[0]:.1f}" y1="{a[1]:.1f}" x2="{b[0]:.1f}" y2="{b[1]:.1f}"/>'


def _diamond(x: float, y: float, r: float) -> str:
    return f"M{x:.1f},{y - r:.1f}L{x + r:.1f},{y:.1f}L{x:.1f},{y + r:.1f}L{x - r:.1f},{y:.1f}Z"


def circuit_svg(rp: Replay, lay: CircuitLayout, cars: list[dict[str, str]]) -> str:
    """The circuit (spots, lines, signs, features) with one marker, one trail and one ghost per car."""
    track = rp.track
    w, h = lay.width, lay.height
    unit = lay.lane_width  # everything is sized by the lane spacing, so both layouts read alike
    kind = "board" if lay.board else "schematic"
    out = [
        f'<svg id="circuit" class="circuit {kind}" viewBox="0 0 {w:.0f} {h:.0f}" role="img" '
        f'aria-label="{escape(track.name)}: the circuit with the cars" data-track="{escape(track.id)}" '
        f'data-spaces="{track.spaces}" data-layout="{kind}">',
        "<defs>"
        '<pattern id="water" width="14" height="8" patternUnits="userSpaceOnUse">'
        '<rect width="14" height="8" fill="#3d7fc4"/><path d="M0,5 Q3.5,2 7,5 T14,5" fill="none" stroke="#a9d2f5" '
        'stroke-width="1.4"/></pattern>'
        '<pattern id="tunnel-roof" width="9" height="9" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        '<rect width="9" height="9" fill="#2b2d31"/><rect width="4" height="9" fill="#4a4d54"/></pattern>'
        "</defs>",
        f'<rect class="field" x="0" y="0" width="{w:.0f}" height="{h:.0f}" rx="{unit * 0.6:.0f}"/>',
    ]
    if not lay.board:
        out += [
            f'<path class="infield" d="{_path(lay.outline[1], close=True)}"/>',
            f'<path class="kerb" d="{_path(lay.outline[0], close=True)}"/>',
            f'<path class="kerb" d="{_path(lay.outline[1], close=True)}"/>',
        ]
    for poly in lay.underpasses:
        out.append(f'<path class="underpass" d="{_path(poly, close=True)}"><title>under the bridge</title></path>')
    out.append('<g class="spots">')
    for (space, lane), poly in sorted(lay.spots.items()):
        if space not in lay.bridge:
            out.append(_spot_path(track, space, lane, poly))
    out.append("</g>")
    for edge in lay.edges:
        out.append(f'<path class="kerb" d="{_path(edge)}"/>')
    for first, second in track.chicanes():  # # 22.1: blue curbs on both sides between the two lines
        spaces = [(first.after_space + k) % track.spaces + 1 for k in range(second.after_space - first.after_space)]
        for side in (0, 1):
            pts = [p for s in spaces for p in lay.sides[s][side]]
            out.append(
                f'<path class="chicane-curb" data-chicane="{first.after_space}-{second.after_space}" d="{_path(pts)}">'
                f"<title>chicane: two corner lines, after spaces {first.after_space} and {second.after_space} "
                f"(# 22.1)</title></path>"
            )
    for sector, lane, pts in lay.race_line:
        out.append(f'<path class="race-line" data-sector="{sector}" data-lane="{lane}" d="{_path(pts)}"/>')
    out.append('<g class="numbers">')
    for space, (x, y) in sorted(lay.labels.items()):
        out.append(f'<text class="num" x="{x:.1f}" y="{y:.1f}">{space}</text>')
    out.append("</g>")
    if lay.bridge:
        over = ", ".join(map(str, sorted(lay.bridge)))
        out.append(f'<g class="bridge"><title>the bridge: spaces {over}</title>')
        for space in sorted(lay.bridge):
            for kerb in lay.sides[space]:
                out.append(f'<path class="parapet" d="{_path(kerb)}"/>')
        for (space, lane), poly in sorted(lay.spots.items()):
            if space in lay.bridge:
                out.append(_spot_path(track, space, lane, poly))
        for space in sorted(lay.bridge):
            for kerb in lay.sides[space]:
                out.append(f'<path class="kerb" d="{_path(kerb)}"/>')
        out.append("</g>")
    gw, gh = unit * 1.3, unit * 0.72
    for number, ((x, y), angle) in enumerate(_grid_marks(track, lay), start=1):  # # 1.4: the grid boxes
        back = math.radians(angle + 180)
        tx, ty = x + math.cos(back) * (gw / 2 - unit * 0.26), y + math.sin(back) * (gw / 2 - unit * 0.26)
        out.append(
            f'<g class="grid-box" data-grid="{number}"><rect x="{-gw / 2:.1f}" y="{-gh / 2:.1f}" width="{gw:.1f}" '
            f'height="{gh:.1f}" rx="2" transform="translate({x:.1f} {y:.1f}) rotate({angle:.0f})"/>'
            f'<text x="{tx:.1f}" y="{ty + 0.5:.1f}" style="font-size:{unit * 0.34:.1f}px">{number}</text></g>'
        )
    a, b = lay.lines[track.spaces]
    out.append(
        f'<g class="finish" data-after-space="{track.spaces}">{_line(a, b, "finish-a")}{_line(a, b, "finish-b")}'
        "<title>start/finish line</title></g>"
    )
    r_sign = max(13.0, unit * 0.62)
    pressed = press_corners(rp.final)  # # 21.6: this race's press corners (None: no module of the race sets them)
    for number, corner in enumerate(track.corners, start=1):
        a, b = lay.lines[corner.after_space]
        chicane = ""
        if corner.chicane_second_line_of is not None:
            chicane = f"; second line of a chicane with corner {corner.chicane_second_line_of} (# 22.1)"
        press = f"; press corner {corner.press} (# 21.6)" if corner.press else ""
        if pressed is not None and corner.press:
            press = (
                f"; press corner {corner.press} this race (# 21.6, 21.7)"
                if corner.after_space in pressed
                else f"; press letter {corner.press}, not a press corner this race (# 21.6)"
            )
        sx, sy = lay.signs[corner.after_space]
        out.append(
            f'<g class="corner" data-corner="{number}" data-after-space="{corner.after_space}" '
            f'data-limit="{corner.limit}"{" data-chicane" if chicane else ""}'
            f"{' data-press' if pressed and corner.after_space in pressed else ''}><title>corner {number}: speed limit "
            f"{corner.limit}, line after space {corner.after_space}; race line in lane {corner.race_line_lane_after} "
            f"after it{chicane}{press}</title>"
            f"{_line(a, b, 'corner-line')}{_line(a, b, 'corner-line inner')}"
            f'<g class="sign"><circle cx="{sx:.1f}" cy="{sy:.1f}" r="{r_sign:.1f}"/>'
            f'<text x="{sx:.1f}" y="{sy + 0.5:.1f}" style="font-size:{r_sign * 1.05:.1f}px">{corner.limit}</text>'
            "</g></g>"
        )
    out.append(_legend_marks(track, lay))
    out.append(badges_svg(rp.final, lay))  # the modules' tokens (Module.badges: the road conditions, MODULES.md 20.2)
    cx, cy = lay.infield
    big = unit * 1.25
    out.append(
        f'<text class="title" x="{cx:.1f}" y="{cy - big * 0.9:.1f}" style="font-size:{big:.1f}px">'
        f"{escape(track.name.upper())}</text>"
    )
    out.append(
        f'<text class="subtitle" id="circuit-round" x="{cx:.1f}" y="{cy:.1f}" style="font-size:{big * 0.5:.1f}px">'
        "</text>"
    )
    px, py = lay.podium[0] if lay.podium else (cx, cy + big)
    out.append(
        f'<text class="podium-label" id="podium-label" data-hidden="true" x="{px:.1f}" y="{py - unit * 1.1:.1f}" '
        f'style="font-size:{unit * 0.45:.1f}px">finished</text>'
    )
    car_w, car_h = unit * 1.45, unit * 0.8
    for car in cars:
        name = escape(car["name"])
        out.append(
            f'<path class="trail" data-car="{name}" data-hidden="true" d="" '
            f'style="stroke:{car["fill"]};stroke-width:{unit * 0.22:.1f}px"/>'
        )
    for car in cars:
        out.append(
            f'<g class="ghost still" data-car="{escape(car["name"])}" data-hidden="true">'
            f'<circle r="{car_h * 0.42:.1f}" style="stroke:{car["fill"]}"/></g>'
        )
    for car in cars:
        out.append(
            f'<g class="car still" data-car="{escape(car["name"])}" data-space="" data-lane="" data-finished="">'
            f'<title>{escape(car["name"])}</title><g class="body">'
            f'<rect x="{-car_w / 2:.1f}" y="{-car_h / 2:.1f}" width="{car_w:.1f}" height="{car_h:.1f}" '
            f'rx="{car_h * 0.42:.1f}" style="fill:{car["fill"]}"/>'
            f'<path class="nose" d="M{car_w / 2 - car_h * 0.5:.1f},{-car_h * 0.22:.1f}L{car_w / 2 - car_h * 0.14:.1f},0'
            f'L{car_w / 2 - car_h * 0.5:.1f},{car_h * 0.22:.1f}Z" style="fill:{car["ink"]}"/></g>'
            f'<text style="fill:{car["ink"]};font-size:{car_h * 0.72:.1f}px" y="0.5">{escape(car["label"])}</text></g>'
        )
    out.append("</svg>")
    return "\n".join(out)


def _grid_marks(track: Track, lay: CircuitLayout) -> list[tuple[Point, float]]:
    """Where the grid boxes are painted: on each grid spot, turned with the race (# 1.4)."""
    return [(lay.centres[(space, lane)], lay.angles[(space, lane)]) for space, lane in track.grid]


def _legend_marks(track: Track, lay: CircuitLayout) -> str:
    """Legend lines (orange, # 19.7), the diamonds 0–3 before each corner (# 19.4) and the chevrons (# 19.14): printed
    on every board, so drawn in every race, Legends or not. They are track data (the track file, ``engine.track.
    Corner``, which says what a chevron allows), as the race line and the press letters are: the Legends' rules read
    them from the track as this drawing does (docs/design.md, "The Legend lines are track data")."""
    out = ['<g class="legend-marks">']
    unit = lay.lane_width
    used: dict[int, int] = {}  # marks already on a space (chicanes: two corners' diamonds share spaces)
    for number, corner in enumerate(track.corners, start=1):
        line = corner.legend_line_after_space
        if line is not None and line in lay.lines:
            a, b = lay.lines[line]
            out.append(
                f'<g class="legend-line" data-corner="{number}" data-after-space="{line}">'
                f"<title>Legend line of corner {number}, after space {line} (# 19.7)</title>{_line(a, b, 'legend')}</g>"
            )
        for k, space in enumerate(corner.legend_diamond_spaces):
            if space not in lay.marks:
                continue
            x, y = lay.marks[space]
            k_on = used.get(space, 0)
            used[space] = k_on + 1
            if k_on:  # further out, away from the road
                (x1, y1), (x2, y2) = lay.centres[(space, 1)], lay.centres[(space, 2)]
                dx, dy = x - (x1 + x2) / 2, y - (y1 + y2) / 2
                d = math.hypot(dx, dy) or 1.0
                x, y = x + dx / d * unit * 0.8 * k_on, y + dy / d * unit * 0.8 * k_on
            chevrons = corner.chevrons(space)
            title = f"diamond {k} of corner {number}" + (
                f", {'double ' if chevrons == 2 else ''}chevron (# 19.14)" if chevrons else ""
            )
            out.append(
                f'<g class="diamond" data-corner="{number}" data-space="{space}" data-diamond="{k}" '
                f'data-chevrons="{chevrons}"><title>{title}</title>'
                f'<path d="{_diamond(x, y, unit * 0.3)}"/>'
                f'<text x="{x:.1f}" y="{y + 0.5:.1f}" style="font-size:{unit * 0.32:.1f}px">{k}</text>'
            )
            if chevrons:
                angle = lay.angles[(space, 1)]
                for c in range(chevrons):
                    off = unit * (0.55 + 0.28 * c)
                    cx, cy = x + math.cos(math.radians(angle)) * off, y + math.sin(math.radians(angle)) * off
                    u, v = unit * 0.12, unit * 0.2
                    out.append(
                        f'<path class="chevron" transform="translate({cx:.1f} {cy:.1f}) rotate({angle:.0f})" '
                        f'd="M{-u:.1f},{-v:.1f}L{unit * 0.1:.1f},0L{-u:.1f},{v:.1f}"/>'
                    )
            out.append("</g>")
    out.append("</g>")
    return "".join(out)


def circuit_key(track: Track) -> str:
    """What the marks on this circuit mean, as the board's legend would say it."""
    items = [
        ("race-line", "race line: the preferred spot of each sector (# 1.5)"),
        ("corner", "corner line and its speed limit"),
        ("legend", "Legend line, diamonds 0–3" + (" and chevrons" if track.has_chevrons() else "")),
    ]
    if track.chicanes():
        items.append(("chicane", "chicane: two corner lines, each checked (# 22.1)"))
    if track.flooded:
        items.append(("flooded", FEATURE_TITLES["flooded"]))
    if track.tunnel:
        items.append(("tunnel", FEATURE_TITLES["tunnel"]))
    if track.id == "japan":
        items.append(("bridge", "bridge: spaces 1–2 pass over 30–31"))
    return (
        '<ul class="circuit-key">'
        + "".join(f'<li data-key="{k}"><span class="mark {k}"></span>{escape(text)}</li>' for k, text in items)
        + "</ul>"
    )


def _conditions_key(state: RaceState) -> str:
    """The weather tile and every corner's road condition in words (MODULES.md 20), under the circuit."""
    lines = module_marks(state)  # the modules' own lines (engine/module.py: Module.marks; the weather's)
    if not lines:
        return ""
    return '<ul class="conditions-key">' + "".join(f"<li>{escape(text)}</li>" for text in lines) + "</ul>"


def _event_key(state: RaceState) -> str:
    """The rules the modules set in words (a championship race's event card and press corners, # 21.6-21.8, issue
    29), under the circuit."""
    lines = rules_lines(state)
    return '<ul class="event-key">' + "".join(f"<li>{escape(text)}</li>" for text in lines) + "</ul>" if lines else ""


def podium(lay: CircuitLayout, count: int) -> list[Point]:
    if len(lay.podium) >= count:
        return lay.podium[:count]
    cx, cy = lay.infield
    step = max(24.0, lay.lane_width * 1.2)
    return [(cx + (i - (count - 1) / 2) * step, cy + 46) for i in range(count)]


# ---------------------------------------------------------------------------------------------- charts


def _chart_x(count: int) -> list[float]:
    left, right = CHART_PAD[0], CHART_W - CHART_PAD[1]
    if count <= 1:
        return [(left + right) / 2] * count
    return [left + (right - left) * i / (count - 1) for i in range(count)]


def chart_points(rp: Replay) -> dict[str, Any]:
    """Per chart, per car, one (x, y) per entry of ``rp.states()``; overlapping Heat lines are nudged apart."""
    series = rp.series()
    states = rp.states()
    xs = _chart_x(len(states))
    top, bottom = CHART_PAD[2], CHART_H - CHART_PAD[3]
    n = len(rp.cars)
    top_heat = max([6] + [v for s in series.values() for v in s["engine"]])
    lap: dict[str, list[list[float]]] = {}
    heat: dict[str, list[list[float]]] = {}
    for k, name in enumerate(rp.cars):
        nudge = (k - (n - 1) / 2) * 2.2
        lap[name] = [
            [round(x, 1), round(top + (bottom - top) * (r - 1) / max(1, n - 1), 1)]
            for x, r in zip(xs, series[name]["rank"], strict=True)
        ]
        heat[name] = [
            [round(x, 1), round(bottom - (bottom - top) * e / top_heat + nudge, 1)]
            for x, e in zip(xs, series[name]["engine"], strict=True)
        ]
    return {"x": [round(x, 1) for x in xs], "lap": lap, "heat": heat, "top_heat": top_heat}


def chart_svg(rp: Replay, kind: str, points: dict[str, Any], cars: list[dict[str, str]], start: int) -> str:
    left, right = CHART_PAD[0], CHART_W - CHART_PAD[1]
    top, bottom = CHART_PAD[2], CHART_H - CHART_PAD[3]
    states = rp.states()
    xs = points["x"]
    what = "position" if kind == "lap" else "Engine Heat"
    out = [
        f'<svg class="chart" id="{kind}-chart" data-chart="{kind}" viewBox="0 0 {CHART_W} {CHART_H}" role="img" '
        f'aria-label="{what} of each car per round">'
    ]
    if kind == "lap":
        n = len(rp.cars)
        for r in range(1, n + 1):
            y = top + (bottom - top) * (r - 1) / max(1, n - 1)
            out.append(f'<line class="grid" x1="{left}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}"/>')
            out.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">P{r}</text>')
    else:
        top_heat = points["top_heat"]
        for e in range(0, top_heat + 1, 2 if top_heat > 8 else 1):
            y = bottom - (bottom - top) * e / top_heat
            out.append(f'<line class="grid" x1="{left}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}"/>')
            out.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{e}</text>')
    out.append(f'<line class="axis" x1="{left}" x2="{right}" y1="{bottom + 8}" y2="{bottom + 8}"/>')
    every = max(1, math.ceil(len(states) / 16))
    for i, (number, _) in enumerate(states):
        if i % every == 0 or i == len(states) - 1:
            label = str(number) if number > 0 else "grid"
            out.append(f'<text x="{xs[i]:.1f}" y="{bottom + 22}" text-anchor="middle">{label}</text>')
    for car in cars:
        name = escape(car["name"])
        if car["fill"] in LIGHT_LINES:  # a white line needs a dark edge to be seen on white
            out.append(f'<polyline class="halo" points="{_pts([tuple(p) for p in points[kind][car["name"]]])}"/>')
        out.append(
            f'<polyline class="series" data-chart="{kind}" data-car="{name}" style="stroke:{car["fill"]}" '
            f'points="{_pts([tuple(p) for p in points[kind][car["name"]]])}"><title>{name}</title></polyline>'
        )
    x0 = xs[start] if xs else left
    out.append(f'<line class="cursor" x1="{x0}" x2="{x0}" y1="{top - 10}" y2="{bottom + 8}"/>')
    for car in cars:
        px, py = points[kind][car["name"]][start]
        out.append(
            f'<circle class="dot" data-chart="{kind}" data-car="{escape(car["name"])}" cx="{px}" cy="{py}" r="4.5" '
            f'style="fill:{car["fill"]}"/>'
        )
    out.append("</svg>")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------- the page's data


def _car_now(state: RaceState, name: str, rank: int) -> dict[str, Any]:
    c = state.cars[name]
    finished = name in state.hall_of_fame
    return {
        "space": state.track.space_of(c.progress),
        "lane": c.lane,
        "progress": c.progress,
        "finished": finished,
        "place": state.hall_of_fame.index(name) + 1 if finished else None,
        "rank": rank,
        "lap": lap_text(state, c),
        "spot": spot_text(state, c),
        "gear": c.gear,
        "engine": c.engine,
        "hand": hand_text(c),
        "cards": None if c.hand is None else [card_short(state, card) for card in _expand(c.hand)],
        "deck": c.deck_size,
        # with a Refresh's card back on top, face known (# 18.21, MA15): the board's words
        **({"deck_text": deck_text(state, c)} if c.deck_top else {}),
        "discard": len(c.discard),
        "stress": c.stress_taken,
        **({"legend": True, "gear": "L", "engine": "-", "hand": "-", "deck": "-", "discard": "-"} if c.legend else {}),
        **car_facts(state, name),  # the modules' (the Garage's upgrades, # 18.5: the page's script shows them)
    }


def _expand(counts: dict[str, int]) -> list[str]:
    from ..engine.state import expand

    return expand(counts)


def _cars_at(state: RaceState) -> dict[str, dict[str, Any]]:
    ranks = {name: i for i, name in enumerate(state.standings(), start=1)}
    return {name: _car_now(state, name, ranks[name]) for name in state.cars}


def trails(start: RaceState, end: RaceState, lay: CircuitLayout) -> dict[str, list[list[float]]]:
    """Each car's move of the round as a line on the circuit: from its spot at the start of the round, along
    the road's middle over every space it passed, to its spot at the end (or to the finish line, if it
    finished). Cars that did not move have none. Trails of different cars are set a little apart."""
    track = start.track
    names = list(end.cars)
    out: dict[str, list[list[float]]] = {}
    final_line = end.final_line
    for k, name in enumerate(names):
        a, b = start.cars[name], end.cars[name]
        if b.progress <= a.progress and b.lane == a.lane:
            continue
        if name in start.hall_of_fame:
            continue
        finished = name in end.hall_of_fame
        last = min(b.progress, final_line) if finished else b.progress
        shift = (k - (len(names) - 1) / 2) * lay.lane_width * 0.12
        pts: list[Point] = [lay.centres[(track.space_of(a.progress), a.lane)]]
        for q in range(a.progress + 1, last + (1 if finished else 0)):
            s = track.space_of(q)
            (x1, y1), (x2, y2) = lay.centres[(s, 1)], lay.centres[(s, 2)]
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            dx, dy = x2 - x1, y2 - y1
            d = math.hypot(dx, dy) or 1.0
            pts.append((mx + dx / d * shift, my + dy / d * shift))
        if finished:
            e1, e2 = lay.lines[track.space_of(final_line)]
            pts.append(((e1[0] + e2[0]) / 2, (e1[1] + e2[1]) / 2))
        else:
            pts.append(lay.centres[(track.space_of(b.progress), b.lane)])
        out[name] = [[round(x, 1), round(y, 1)] for x, y in pts]
    return out


def page_data(rp: Replay, lay: CircuitLayout, cars: list[dict[str, str]], start: int) -> dict[str, Any]:
    rounds: list[dict[str, Any]] = []
    grid = rp.grid
    rounds.append(
        {
            "n": rp.first - 1,
            "label": "Grid" if rp.first <= 1 else f"Start of round {rp.first}",
            "title": "On the grid" if rp.first <= 1 else f"Start of round {rp.first}",
            "order": [],
            "adrenaline": [],
            "standings": grid.standings(),
            "cars": _cars_at(grid),
            "from": None,
            "turns": [],
            "notes": [],
        }
    )
    for rv in rp.rounds:
        state = rv.end
        turns = []
        for (_, name, text), t in zip(rv.lines(), rv.all_turns(), strict=True):
            own = turn_row(state, t)  # a turn a module plays: a Legend's card's numbers (MODULES.md 19.7, 19.8)
            turns.append(
                {
                    "car": name,
                    "text": text,
                    "gear": own.gear if own is not None else _gear(t),
                    "played": own.played_long
                    if own is not None
                    else " ".join(card_short(state, c) for c in t.played),  # names, never U39 (issue 29)
                    "flips": _flips(state, t),
                    "speed": t.speed,
                    "move": spaces_moved(state, t),  # # 18.11: after a re-move, the re-move
                    "slip": _slip(t),
                    "corners": _corners(state, t),
                    "spin": f"+{t.spinout_stress}S" if t.spinout else "",
                }
            )
        status = "" if rv.complete else " (under way)"
        rounds.append(
            {
                "n": rv.number,
                "label": f"Round {rv.number} / {rp.last}",
                "title": f"Round {rv.number}{status}",
                "order": rv.order,
                "adrenaline": list(rv.start.adrenaline),
                "standings": state.standings(),
                "cars": _cars_at(state),
                "from": {
                    n: {"space": c["space"], "lane": c["lane"], "progress": c["progress"]}
                    for n, c in _cars_at(rv.start).items()
                },
                "trails": trails(rv.start, state, lay),
                "turns": turns,
                # as the terminal shows them: control and invisible characters (bidi overrides, zero-width,
                # U+2028) written as visible escapes, so a note cannot reorder or hide the text around it
                "notes": [[who, visible(text)] for who, text in rv.notes],
            }
        )
    return {
        "race": rp.race,
        "mode": rp.final.mode,
        "start": start,
        "cars": cars,
        "spots": {f"{s}:{lane}": [round(x, 1), round(y, 1)] for (s, lane), (x, y) in lay.centres.items()},
        "angles": {f"{s}:{lane}": round(a, 1) for (s, lane), a in lay.angles.items()},
        "podium": [[round(x, 1), round(y, 1)] for x, y in podium(lay, len(cars))],
        "rounds": rounds,
    }


def render_html(rp: Replay, *, round: int | None = None) -> str:
    """The whole page as a string."""
    state = rp.final
    labels = car_labels(state)
    cars = []
    for i, (name, c) in enumerate(state.cars.items()):
        fill = car_colour(c.colour, i)
        cars.append({"name": name, "label": labels[name], "fill": fill, "ink": _ink(fill)})
    lay = circuit_layout(state.track)
    indexes = [rp.first - 1] + [rv.number for rv in rp.rounds]
    if round is not None:
        rp.round(round)  # an unknown round is an error, not a silent default
        start = indexes.index(round)
    else:
        start = 1 if len(indexes) > 1 else 0
    data = page_data(rp, lay, cars, start)
    points = chart_points(rp)
    data["charts"] = {"x": points["x"], "lap": points["lap"], "heat": points["heat"]}
    assets = resources.files("heatlog.views") / "assets"
    page = Template((assets / "replay.html").read_text(encoding="utf-8"))
    laps = counted(state.laps, "lap")
    title = state.track.name + (f" — race {rp.race}" if rp.race is not None else "")
    title += f" ({rp.name})" if rp.name else ""
    facts = (
        f"{len(cars)} cars · {laps} · {state.mode} mode · {len(rp.rounds)} round{'s' if len(rp.rounds) != 1 else ''}"
        + ("" if state.phase == "over" else " · race under way")
    )
    hof = "".join(
        f'<li data-car="{escape(n)}"><span class="chip" style="background:{cars_by[n]["fill"]};color:'
        f'{cars_by[n]["ink"]}">{escape(cars_by[n]["label"])}</span><span class="pos">{i}.</span>{escape(n)}</li>'
        for cars_by in [{c["name"]: c for c in cars}]
        for i, n in enumerate(state.hall_of_fame, start=1)
    )

    def key(shown: list[dict[str, str]]) -> str:
        return "".join(
            f'<span class="key" data-car="{escape(c["name"])}"><span class="swatch" style="background:{c["fill"]}">'
            f"</span>{escape(c['name'])}</span>"
            for c in shown
        )

    # # 19.1, 19.10: a Legend has no Engine and no Heat; a line at 0 would say its Engine is empty
    engined = [c for c in cars if not state.cars[c["name"]].legend]
    hidden = "Table mode: hands are hidden — counts only (marked ?)." if state.mode == "table" else ""
    return page.substitute(
        version=__version__,
        title=escape(title),
        facts=escape(facts),
        hall_of_fame=hof,
        max_index=len(indexes) - 1,
        start_index=start,
        start_label=escape(data["rounds"][start]["label"]),
        circuit=circuit_svg(rp, lay, cars) + circuit_key(state.track) + _conditions_key(state) + _event_key(state),
        hidden_note=hidden,
        legend=key(cars),
        heat_legend=key(engined),
        lap_chart=chart_svg(rp, "lap", points, cars, start),
        heat_chart=chart_svg(rp, "heat", points, engined, start),
        data=embed_json(data),
        css=(assets / "replay.css").read_text(encoding="utf-8"),
        js=(assets / "replay.js").read_text(encoding="utf-8"),
    )


def write_html(rp: Replay, path: str | Path, *, round: int | None = None) -> Path:
    out = Path(path)
    out.write_text(render_html(rp, round=round), encoding="utf-8")
    return out
