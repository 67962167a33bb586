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

import json
import math
from html import escape
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from .. import __version__
from ..engine.state import RaceState
from .board import _corners, _flips, _gear, _slip, car_labels, hand_text, lap_text, spot_text
from .circuit import CircuitLayout, Point, layout
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


def circuit_svg(rp: Replay, lay: CircuitLayout, cars: list[dict[str, str]]) -> str:
    track = rp.track
    w, h = lay.width, lay.height
    out = [
        f'<svg id="circuit" class="circuit" viewBox="0 0 {w:.0f} {h:.0f}" role="img" '
        f'aria-label="{escape(track.name)}: the circuit with the cars" data-track="{escape(track.id)}" '
        f'data-spaces="{track.spaces}">',
        f'<rect class="field" x="0" y="0" width="{w:.0f}" height="{h:.0f}" rx="14"/>',
        f'<path class="infield" d="{_path(lay.outline[1], close=True)}"/>',
        f'<path class="kerb" d="{_path(lay.outline[0], close=True)}"/>',
        f'<path class="kerb" d="{_path(lay.outline[1], close=True)}"/>',
        '<g class="spots">',
    ]
    for (space, lane), poly in sorted(lay.spots.items()):
        race = " race" if track.race_lane(space) == lane else ""
        out.append(
            f'<path class="spot{race}" data-space="{space}" data-lane="{lane}" d="{_path(poly, close=True)}">'
            f"<title>space {space}, lane {lane}{' (race line)' if race else ''}</title></path>"
        )
    out.append("</g>")
    for sector, lane, pts in lay.race_line:
        out.append(f'<path class="race-line" data-sector="{sector}" data-lane="{lane}" d="{_path(pts)}"/>')
    out.append('<g class="numbers">')
    for space, (x, y) in sorted(lay.labels.items()):
        out.append(f'<text class="num" x="{x:.1f}" y="{y:.1f}">{space}</text>')
    out.append("</g>")
    finish_outer, finish_inner = lay.lines[track.spaces]
    fl = f'x1="{finish_outer[0]:.1f}" y1="{finish_outer[1]:.1f}" x2="{finish_inner[0]:.1f}" y2="{finish_inner[1]:.1f}"'
    out.append(
        f'<g class="finish" data-after-space="{track.spaces}"><line class="finish-a" {fl}/>'
        f'<line class="finish-b" {fl}/><title>start/finish line</title></g>'
    )
    for number, corner in enumerate(track.corners, start=1):
        (ox, oy), (ix, iy) = lay.lines[corner.after_space]
        nx, ny = lay.outward[corner.after_space]
        sx, sy = ix - nx * 20, iy - ny * 20  # the sign stands in the infield, beside the line
        line = f'x1="{ox:.1f}" y1="{oy:.1f}" x2="{ix:.1f}" y2="{iy:.1f}"'
        out.append(
            f'<g class="corner" data-corner="{number}" data-after-space="{corner.after_space}" '
            f'data-limit="{corner.limit}"><title>corner {number}: speed limit {corner.limit}, line after space '
            f"{corner.after_space}; race line in lane {corner.race_line_lane_after} after it</title>"
            f'<line class="corner-line" {line}/><line class="corner-line inner" {line}/>'
            f'<g class="sign"><circle cx="{sx:.1f}" cy="{sy:.1f}" r="15"/>'
            f'<text x="{sx:.1f}" y="{sy + 0.5:.1f}">{corner.limit}</text></g></g>'
        )
    cx, cy = lay.infield
    out.append(f'<text class="title" x="{cx:.1f}" y="{cy - 34:.1f}">{escape(track.name.upper())}</text>')
    out.append(f'<text class="subtitle" id="circuit-round" x="{cx:.1f}" y="{cy - 8:.1f}"></text>')
    out.append(
        f'<text class="podium-label" id="podium-label" data-hidden="true" x="{cx:.1f}" y="{cy + 22:.1f}">'
        "finished</text>"
    )
    r = max(7.0, min(11.0, lay.lane_width * 0.46))
    for car in cars:
        out.append(
            f'<g class="ghost still" data-car="{escape(car["name"])}" data-hidden="true">'
            f'<circle r="{r:.1f}" style="stroke:{car["fill"]}"/></g>'
        )
    for car in cars:
        out.append(
            f'<g class="car still" data-car="{escape(car["name"])}" data-space="" data-lane="" data-finished="">'
            f'<title>{escape(car["name"])}</title><circle r="{r:.1f}" style="fill:{car["fill"]}"/>'
            f'<text style="fill:{car["ink"]}" y="0.5">{escape(car["label"])}</text></g>'
        )
    out.append("</svg>")
    return "\n".join(out)


def podium(lay: CircuitLayout, count: int) -> list[Point]:
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
        "cards": None if c.hand is None else [card for card in _expand(c.hand)],
        "deck": c.deck_size,
        "discard": len(c.discard),
        "stress": c.stress_taken,
    }


def _expand(counts: dict[str, int]) -> list[str]:
    from ..engine.state import expand

    return expand(counts)


def _cars_at(state: RaceState) -> dict[str, dict[str, Any]]:
    ranks = {name: i for i, name in enumerate(state.standings(), start=1)}
    return {name: _car_now(state, name, ranks[name]) for name in state.cars}


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
            turns.append(
                {
                    "car": name,
                    "text": text,
                    "gear": _gear(t),
                    "played": " ".join(t.played),
                    "flips": _flips(t),
                    "speed": t.speed,
                    "move": t.moved + t.boost_moved + t.adrenaline_moved,
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
                "turns": turns,
                "notes": [[who, text] for who, text in rv.notes],
            }
        )
    return {
        "race": rp.race,
        "mode": rp.final.mode,
        "start": start,
        "cars": cars,
        "spots": {f"{s}:{lane}": [round(x, 1), round(y, 1)] for (s, lane), (x, y) in lay.centres.items()},
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
    lay = layout(state.track)
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
    laps = f"{state.laps} lap{'s' if state.laps != 1 else ''}"
    title = f"{state.track.name} — race {rp.race}" + (f" ({rp.name})" if rp.name else "")
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
    legend = "".join(
        f'<span class="key" data-car="{escape(c["name"])}"><span class="swatch" style="background:{c["fill"]}">'
        f"</span>{escape(c['name'])}</span>"
        for c in cars
    )
    hidden = "Table mode: hands are hidden — counts only (marked ?)." if state.mode == "table" else ""
    return page.substitute(
        version=__version__,
        title=escape(title),
        facts=escape(facts),
        hall_of_fame=hof,
        max_index=len(indexes) - 1,
        start_index=start,
        start_label=escape(data["rounds"][start]["label"]),
        circuit=circuit_svg(rp, lay, cars),
        hidden_note=hidden,
        legend=legend,
        lap_chart=chart_svg(rp, "lap", points, cars, start),
        heat_chart=chart_svg(rp, "heat", points, cars, start),
        data=json.dumps(data, separators=(",", ":")).replace("</", "<\\/"),
        css=(assets / "replay.css").read_text(encoding="utf-8"),
        js=(assets / "replay.js").read_text(encoding="utf-8"),
    )


def write_html(rp: Replay, path: str | Path, *, round: int | None = None) -> Path:
    out = Path(path)
    out.write_text(render_html(rp, round=round), encoding="utf-8")
    return out
