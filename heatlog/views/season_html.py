"""``heatlog season show --html``: one self-contained HTML page of a season (no script, no network).

The page holds the season's races (circuit, event card, winner, a link to each race's own replay page), the
standings after the last race run (points per race, total, wins), and the standings chart: each driver's
points after every race, one line per driver in the driver's colour. What the season's races do not apply
yet is listed at the foot.

Hooks for tests: ``<polyline class="series" data-driver data-points>`` (the running totals), ``<a
class="replay" data-race href>``, ``<tr data-driver>`` of the standings table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import __version__
from ..engine.modules.championship.words import event_card_lines
from ..engine.track import Track
from ..formats.usertext import html_text as escape
from ..season import SeasonView, unapplied_effects
from . import counted
from .replay_html import car_colour

CHART_W, CHART_H = 720, 300
EMPTY = '<tr><td colspan="4">no race run yet</td></tr>'
PAD = (46, 110, 20, 34)  # left, right, top, bottom
TIE_BREAK = "drivers level on points are ordered by their place in the last race run (# 21.10, MA12)"

CSS = """
:root { --bg: #f3f0e8; --ink: #1f2328; --muted: #6b6f76; --card: #fff; --line: #e2ddd0; --accent: #d62828; }
html { background: var(--bg); color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
body { margin: 0 auto; padding: 0 20px 24px; max-width: 1100px; }
header { display: flex; align-items: baseline; gap: 18px; padding: 16px 0 8px; flex-wrap: wrap; }
.logo { background: var(--accent); color: #fff; padding: 2px 8px; border-radius: 4px; font-style: italic;
  font-weight: 900; }
h1 { margin: 0; font-size: 22px; } header p { margin: 0; color: var(--muted); }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px;
  margin-top: 14px; overflow-x: auto; }
h2 { margin: 0 0 8px; font-size: 14px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
th { text-align: left; color: var(--muted); font-weight: 600; border-bottom: 1px solid var(--line); padding: 4px; }
td { padding: 5px 4px; border-bottom: 1px solid #f0ece2; } td.num, th.num { text-align: right; }
.chip { display: inline-block; width: 12px; height: 12px; border-radius: 50%; margin-right: 6px; vertical-align: -1px;
  border: 1px solid rgba(0,0,0,.3); }
.chart { width: 100%; height: auto; display: block; }
.chart .grid { stroke: #e3ddcf; stroke-dasharray: 2 4; } .chart text { font-size: 11px; fill: var(--muted); }
.chart .series { fill: none; stroke-width: 2.6; stroke-linejoin: round; stroke-linecap: round; }
.chart .halo { fill: none; stroke: #555; stroke-width: 4.8; }
.chart .name { font-weight: 700; fill: var(--ink); }
.notes { color: var(--muted); font-size: 13px; } .notes li { margin: 2px 0; }
.mark, .marks { color: #8a4b00; font-size: 13px; }
tr.event td { border-bottom: 1px solid var(--line); color: var(--muted); font-size: 12.5px; padding-top: 0; }
tr.event ul { margin: 0; padding-left: 16px; }
footer { margin-top: 16px; color: var(--muted); font-size: 12px; text-align: center; }
@media (max-width: 480px) { body { padding: 0 10px 16px; } .card { padding: 10px 8px; }
  #races td, #races th { padding-left: 2px; padding-right: 2px; } }
"""


def _chart(view: SeasonView, colours: dict[str, str]) -> str:
    races = len(view.races)
    left, right = PAD[0], CHART_W - PAD[1]
    top, bottom = PAD[2], CHART_H - PAD[3]
    totals = {name: [0] for name in view.cars}  # the Legends too (# 19.16, 21.10)
    for table in view.tables:
        by = {s.name: s.points for s in table}
        for name in totals:
            totals[name].append(by.get(name, totals[name][-1]))
    most = max([10] + [v for t in totals.values() for v in t])

    def x(k: int) -> float:
        return left + (right - left) * k / max(1, races)

    def y(points: int) -> float:
        return bottom - (bottom - top) * points / most

    out = [
        f'<svg class="chart" id="standings-chart" viewBox="0 0 {CHART_W} {CHART_H}" role="img" '
        'aria-label="championship points of each driver after each race">'
    ]
    step = 5 if most <= 40 else 10
    for p in range(0, most + 1, step):
        out.append(f'<line class="grid" x1="{left}" x2="{right}" y1="{y(p):.1f}" y2="{y(p):.1f}"/>')
        out.append(f'<text x="{left - 8}" y="{y(p) + 4:.1f}" text-anchor="end">{p}</text>')
    for k in range(races + 1):
        label = "start" if k == 0 else f"R{k}"
        out.append(f'<text x="{x(k):.1f}" y="{bottom + 20}" text-anchor="middle">{label}</text>')
    ends: list[tuple[float, str, str]] = []
    for name, series in totals.items():
        pts = " ".join(f"{x(k):.1f},{y(v):.1f}" for k, v in enumerate(series))
        colour = colours[name]
        if colour in ("#f7f7f7",):
            out.append(f'<polyline class="halo" points="{pts}"/>')
        out.append(
            f'<polyline class="series" data-driver="{escape(name)}" data-points="{",".join(map(str, series))}" '
            f'style="stroke:{colour}" points="{pts}"><title>{escape(name)}</title></polyline>'
        )
        ends.append((y(series[-1]), name, colour))
    ends.sort()
    last_y = -100.0
    for yy, name, _ in ends:  # names beside the last points, pushed apart so they never overlap
        yy = max(yy, last_y + 14)
        last_y = yy
        out.append(f'<text class="name" x="{x(len(view.tables)) + 8:.1f}" y="{yy + 4:.1f}">{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _ties(view: SeasonView) -> str:
    """The tie-break note under the standings (# 21.10): drivers level on points are ordered by their place in the
    last race run (BGA's ``setScoreAux``); empty when nobody is level."""
    if not view.tables:
        return ""
    rows = view.tables[-1]
    level = [s for s in rows if sum(1 for t in rows if t.points == s.points) > 1]
    if not level:
        return ""
    names = ", ".join(f"{escape(s.name)} ({s.points})" for s in level)
    return f'<p class="tiebreak">Level on points: {names}; the place in the last race run breaks the tie (# 21.10).</p>'


def _marks(view: SeasonView) -> str:
    """Under the races (issue 29): each race whose result the table did not record round by round (finished by
    bots, entered by its result), said in words; its result counts in the standings all the same (# 21.10)."""
    items = "".join(
        f'<li data-race="{sr.index}">race {sr.index} ({escape(sr.track["name"])}): {escape(sr.how_words())}; its '
        "result counts in the standings (# 21.10)</li>"
        for sr in view.races
        if sr.how_words() and (sr.result is not None or sr.by_result)
    )
    return f'<ul class="marks">{items}</ul>' if items else ""


def render_season_html(view: SeasonView, replays: dict[int, str] | None = None) -> str:
    """The season page; ``replays`` maps a race's index to the address of its replay page."""
    replays = replays or {}
    colours = {d["name"]: car_colour(d["colour"], i) for i, d in enumerate([*view.drivers, *view.module_cars])}

    def chip(name: str) -> str:
        return f'<span class="chip" style="background:{colours.get(name, "#888")}"></span>{escape(name)}'

    run = len(view.tables)
    rows = []
    for sr in view.races:
        link = replays.get(sr.index)
        replay = f'<a class="replay" data-race="{sr.index}" href="{escape(link)}">replay</a>' if link else ""
        winner = chip(sr.result.places[0]) if sr.result else ("under way" if sr.race is not None else "")
        how = f'<span class="mark">{escape(sr.how_words())}</span>' if sr.how_words() else ""
        # # 21.6-21.8 (issue 29): what the event card asks and which corners are press corners, in words
        said = "".join(f"<li>{escape(line)}</li>" for line in event_card_lines(sr.event, Track.from_dict(sr.track)))
        rows.append(
            f'<tr data-race="{sr.index}" data-recorded="{sr.how}"><td class="num">{sr.index}</td>'
            f"<td>{escape(sr.track['name'])}</td>"
            f"<td>{sr.event.number}. {escape(sr.event.name)}</td><td>{winner}</td><td>{how}</td><td>{replay}</td></tr>"
            f'<tr class="event" data-race-event="{sr.index}"><td></td><td colspan="5"><ul>{said}</ul></td></tr>'
        )
    standings = []
    if view.tables:
        for pos, s in enumerate(view.tables[-1], start=1):
            per = "".join(f'<td class="num">{"–" if p is None else p}</td>' for p in s.per_race)
            standings.append(
                f'<tr data-driver="{escape(s.name)}"><td class="num">{pos}</td><td>{chip(s.name)}</td>{per}'
                f'<td class="num"><b>{s.points}</b></td><td class="num">{s.wins}</td></tr>'
            )
    heads = "".join(f'<th class="num">R{k}</th>' for k in range(1, run + 1))
    sponsors = view.sponsors  # a Garage season applies the sponsorship cards and press corners (# 21.4-21.9)
    notes = "".join(
        f"<li>race {sr.index} ({escape(sr.event.name)}): "
        f"{escape('; '.join(unapplied_effects(sr.event, view.version, sponsors, view.effects)))}</li>"
        for sr in view.races
        if unapplied_effects(sr.event, view.version, sponsors, view.effects)
    )
    champion = ""
    if view.over and view.tables:
        first = view.tables[-1][0]
        champion = f'<p class="champion">Champion: {chip(first.name)} with {counted(first.points, "point")}</p>'
    tied = _ties(view)
    # # 19.16: the cars a module adds (a solo championship against Legends, or Legends filling the grid) score too
    added = view.module_cars_words()
    against = f" against {added}" if added else ""
    status = "over" if view.over else f"{run} of {counted(len(view.races), 'race')} run"
    body = f"""<header><span class="logo">HEAT</span><h1>Season {escape(view.name)}</h1>
<p>{counted(len(view.drivers), "driver")}{against} · {counted(len(view.races), "race")} · {status}</p>
{champion}</header>
<section class="card"><h2>Standings chart <small>points after each race</small></h2>{_chart(view, colours)}</section>
<section class="card"><h2>Standings{f" after race {run}" if run else ""}</h2>
<table id="standings"><thead><tr><th class="num">pos</th><th>driver</th>{heads}<th class="num">points</th>
<th class="num">wins</th></tr></thead><tbody>{"".join(standings) or EMPTY}
</tbody></table>{tied}</section>
<section class="card"><h2>Races</h2><table id="races"><thead><tr><th class="num">#</th><th>circuit</th>
<th>event card</th><th>winner</th><th>recorded</th><th></th></tr></thead><tbody>{"".join(rows)}</tbody></table>
{_marks(view)}</section>
<section class="card notes"><h2>Not applied by heatlog yet</h2><ul>{notes or "<li>nothing</li>"}</ul>
<p class="rules">Points 9-6-4-3-2-1 (# 21.10); {TIE_BREAK}; later grids {escape(view.options["grid"])} (# 21.12).</p>
</section>
<footer>Made with heatlog {escape(__version__)} from the season's stream and its races' logs.</footer>"""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Season {escape(view.name)}</title><style>{CSS}</style></head><body>{body}</body></html>\n"
    )


def write_season_html(log: Any, view: SeasonView, path: str | Path) -> list[Path]:
    """Write the season page to ``path`` and one replay page per race beside it (``<stem>-race-<k>.html``);
    return every file written."""
    import errno
    import os

    from .replay import load_replay
    from .replay_html import render_html

    out = Path(path)
    pages: list[tuple[Path, str]] = []
    links: dict[int, str] = {}
    for sr in view.races:
        if sr.race is None:
            continue
        page = out.with_name(f"{out.stem}-race-{sr.index}.html")
        pages.append((page, render_html(load_replay(log, sr.race))))
        links[sr.index] = page.name
    pages.insert(0, (out, render_season_html(view, links)))
    # All the pages or none: each is written beside its place first and put in place only when every one was
    # written, so a season page that cannot be written (a directory of that name, a full disk) leaves no race
    # pages behind that link to nothing.
    parts: list[Path] = []
    try:
        for page, text in pages:
            if page.is_dir():
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(page))
            part = page.with_name(f".{page.name}.{os.getpid()}.part")
            parts.append(part)
            try:
                part.write_text(text, encoding="utf-8")
            except OSError as err:  # named by the page asked for, not the temporary file
                raise OSError(err.errno, err.strerror, str(page)) from None
        for part, (page, _) in zip(parts, pages, strict=True):
            os.replace(part, page)
    finally:
        for part in parts:
            part.unlink(missing_ok=True)
    return [page for page, _ in pages]
