"""``heatlog review --html``: the HTML replay with the decision review added (docs/analysis.md).

The replay page (:mod:`heatlog.views.replay_html`) gets one more section after the circuit and narration: an
**evaluation graph** per reviewed car (expected place by round, with its 95 % interval, at the car's first
reviewed decision of the round; a cursor follows the round on show) and, for the round on show, **the review
beside each turn**: every turn's narration next to its reviewed decisions (taken, best found, expected places
with their intervals and playouts, loss, label). The review travels as JSON in the page; its script follows
``<body data-round>``, which the replay's script sets, and writes text with ``textContent`` only.

Hooks for tests: ``<section id="review">`` with ``data-partial``; ``<svg id="eval-graph">`` with one
``<polyline class="eval" data-car>`` per car; ``<table id="review-table">`` whose rows are ``<tr class="decision"
data-car data-round data-label>`` (and ``<tr class="turn">`` for each turn's narration).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..usertext import embed_json
from ..usertext import html_text as escape
from . import counted, labels, not_reviewed
from .replay import Replay
from .replay_html import car_colour, render_html

W, H = 620, 240
PAD = (44, 16, 20, 30)  # left, right, top, bottom

_SCRIPT = r"""
(function () {
 try {
  var D = JSON.parse(document.getElementById("review-data").textContent);
  var table = document.querySelector("#review-table tbody");
  var cursor = document.getElementById("eval-cursor");
  var title = document.getElementById("review-round");
  function cell(tr, text, cls) {
    var td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }
  function num(x) { return x === null || x === undefined ? "?" : x.toFixed(2); }
  function pm(e) {
    return num(e.expected_place) + " \u00b1" + num(e.expected_place_95) + " (n=" + e.playouts + ")";
  }
  function render() {
    var n = +(document.body.getAttribute("data-round") || 0);
    var r = D.rounds[String(n)] || {turns: []};
    title.textContent = n > 0 ? "Round " + n : "Grid";
    while (table.firstChild) table.removeChild(table.firstChild);
    r.turns.forEach(function (t) {
      var tr = document.createElement("tr");
      tr.className = "turn";
      tr.setAttribute("data-car", t.car);
      var td = cell(tr, t.car + ": " + t.text);
      td.colSpan = 7;
      table.appendChild(tr);
      t.decisions.forEach(function (d) {
        var row = document.createElement("tr");
        row.className = "decision";
        row.setAttribute("data-car", t.car);
        row.setAttribute("data-round", String(n));
        row.setAttribute("data-label", d.label || "");
        cell(row, d.kind + " (" + d.options + " options)");
        cell(row, d.taken.words);
        cell(row, pm(d.taken));
        var same = d.best.words === d.taken.words;
        cell(row, same ? "(the one taken)" : d.best.words);
        cell(row, same ? "" : pm(d.best));
        cell(row, same ? "0" : num(d.loss_places) + " \u00b1" + num(d.loss_places_95));
        cell(row, d.label || "", d.label ? "label " + d.label : "label");
        table.appendChild(row);
        if (d.reason) {
          var why = document.createElement("tr");
          why.className = "reason";
          cell(why, "why: " + d.reason).colSpan = 7;
          table.appendChild(why);
        }
      });
    });
    if (!r.turns.length) {
      var empty = document.createElement("tr");
      cell(empty, "No reviewed decision in this round.").colSpan = 7;
      table.appendChild(empty);
    }
    var x = D.x[String(n)];
    if (cursor && x !== undefined) { cursor.setAttribute("x1", x); cursor.setAttribute("x2", x); }
  }
  new MutationObserver(render).observe(document.body, {attributes: true, attributeFilter: ["data-round"]});
  render();
  document.getElementById("review").setAttribute("data-ready", "true");
 } catch (e) {
  var root = document.documentElement, before = root.getAttribute("data-errors");
  root.setAttribute("data-errors", (before ? before + " | " : "") + "review: " + String(e && e.message || e));
 }
})();
"""

_CSS = """
#review #eval-graph { max-width: 680px; display: block; }
#review .eval { fill: none; stroke-width: 2.5; }
#review .band { stroke-width: 1.2; opacity: 0.6; }
#review table { border-collapse: collapse; width: 100%; font-size: 0.9em; }
#review td { padding: 2px 6px; border-bottom: 1px solid #ddd; vertical-align: top; }
#review tr.turn td { font-style: italic; padding-top: 8px; }
#review .label.blunder { color: #b00020; font-weight: bold; }
#review .label.mistake { color: #d35400; font-weight: bold; }
#review .label.inaccuracy { color: #8a6d00; }
#review .summary li { margin: 2px 0; }
"""


def _graph(review: Any, rp: Replay, fills: dict[str, str]) -> tuple[str, dict[str, float]]:
    left, right = PAD[0], W - PAD[1]
    top, bottom = PAD[2], H - PAD[3]
    n_cars = max(2, review.n_cars)
    last = max(1, rp.last)
    first = max(1, rp.first)

    def x(r: int) -> float:
        return left + (right - left) * (r - first) / max(1, last - first)

    def y(place: float) -> float:
        return top + (bottom - top) * (place - 1) / (n_cars - 1)

    out = [
        f'<svg id="eval-graph" class="chart" viewBox="0 0 {W} {H}" role="img" aria-label="expected place of each '
        'reviewed car by round">'
    ]
    for p in range(1, n_cars + 1):
        out.append(f'<line class="grid" x1="{left}" x2="{right}" y1="{y(p):.1f}" y2="{y(p):.1f}"/>')
        out.append(f'<text x="{left - 8}" y="{y(p) + 4:.1f}" text-anchor="end">P{p}</text>')
    every = max(1, (last - first + 1) // 16 + 1)
    for r in range(first, last + 1):
        if (r - first) % every == 0 or r == last:
            out.append(f'<text x="{x(r):.1f}" y="{bottom + 20}" text-anchor="middle">{r}</text>')
    for c in review.cars:
        pts = c.graph()
        if not pts:
            continue
        fill = fills.get(c.car, "#333")
        pts = [g for g in pts if g["expected_place"] is not None]
        for g in pts:
            half = g["expected_place_95"] if g["expected_place_95"] is not None else n_cars
            lo, hi = g["expected_place"] - half, g["expected_place"] + half
            out.append(
                f'<line class="band" style="stroke:{fill}" x1="{x(g["round"]):.1f}" x2="{x(g["round"]):.1f}" '
                f'y1="{y(max(1, lo)):.1f}" y2="{y(min(n_cars, hi)):.1f}"/>'
            )
        line = " ".join(f"{x(g['round']):.1f},{y(g['expected_place']):.1f}" for g in pts)
        for g in pts:
            out.append(
                f'<circle class="eval-dot" data-car="{escape(c.car)}" data-round="{g["round"]}" '
                f'cx="{x(g["round"]):.1f}" cy="{y(g["expected_place"]):.1f}" r="3.5" style="fill:{fill}">'
                f"<title>{escape(c.car)}, round {g['round']}: {g['expected_place']:.2f} "
                f"±{g['expected_place_95'] or 0:.2f} "
                f"(n={g['playouts']})</title></circle>"
            )
        out.append(
            f'<polyline class="eval" data-car="{escape(c.car)}" style="stroke:{fill}" points="{line}">'
            f"<title>{escape(c.car)}: expected place by round</title></polyline>"
        )
    out.append(f'<line id="eval-cursor" class="cursor" x1="{left}" x2="{left}" y1="{top - 8}" y2="{bottom + 6}"/>')
    out.append("</svg>")
    xs = {str(r): round(x(r), 1) for r in range(first, last + 1)}
    xs[str(first - 1)] = round(x(first), 1)
    return "\n".join(out), xs


def review_data(rp: Replay, review: Any) -> dict[str, Any]:
    """Per round, every turn (its narration) with the reviewed decisions of that car in that round."""
    from ..review.evaluate import point_dict

    by_key: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for c in review.cars:
        for p in c.points:
            by_key.setdefault((p.point.round, c.car), []).append(point_dict(p))
    rounds: dict[str, Any] = {}
    for rv in rp.rounds:
        turns = []
        for _, car, text in rv.lines():
            decisions = by_key.get((rv.number, car), [])
            if decisions:
                turns.append({"car": car, "text": text, "decisions": decisions})
        rounds[str(rv.number)] = {"turns": turns}
    return {"rounds": rounds}


def render_review_html(rp: Replay, review: Any) -> str:
    """The replay page with the review section (see the module's docstring)."""
    page = render_html(rp)
    fills = {name: car_colour(c.colour, i) for i, (name, c) in enumerate(rp.final.cars.items())}
    graph, xs = _graph(review, rp, fills)
    data = review_data(rp, review)
    data["x"] = xs
    json.dumps(data, allow_nan=False)  # JSON has no Infinity or NaN: JSON.parse would stop the page's script
    summary = []
    for c in review.cars:
        if c.legend:
            summary.append(f'<li data-car="{escape(c.car)}">{escape(not_reviewed(c.car))}</li>')
            continue
        s = c.summary()
        acc = "—" if s["accuracy"] is None else f"{s['accuracy']}"
        summary.append(
            f'<li data-car="{escape(c.car)}"><b>{escape(c.car)}</b>: accuracy {acc}; '
            f"{s['decisions']} of {counted(s['decision_points'], 'decision')}; {labels(s)}; "
            f"mean loss {s['mean_loss_places'] or 0:.3f} places; "
            f"{s['playouts']:,} playout{'' if s['playouts'] == 1 else 's'}"
            + "".join(f"; not reviewed: {counted(n, 'decision')}: {escape(why)}" for why, n in c.reasons().items())
            + "</li>"
        )
    st = review.settings
    partial = "true" if review.partial else "false"
    section = (
        f'<section class="card" id="review" data-partial="{partial}">'
        f"<style>{_CSS}</style>"
        "<h2>Decision review" + (" <small>(partial: interrupted)</small>" if review.partial else "") + "</h2>"
        f"<p>Playouts over what each car knew (seed {st.seed}, bots {escape(st.bots)}): every legal decision "
        f"screened with {st.screen} playouts, the best {st.keep} and the one taken played out to "
        f"±{st.target} places (95 %). Expected place: 1 = first.</p>"
        f'<ul class="summary">{"".join(summary)}</ul>'
        "<h3>Evaluation graph <small>expected place at the car's first decision of each round, 95 % interval"
        "</small></h3>"
        f"{graph}"
        '<h3 id="review-round"></h3>'
        '<table id="review-table"><thead><tr><th>decision</th><th>taken</th><th>expected place</th>'
        "<th>best found</th><th>expected place</th><th>loss (places)</th><th>label</th></tr></thead>"
        "<tbody></tbody></table>"
        f'<script type="application/json" id="review-data">{embed_json(data)}</script>'
        f"<script>{_SCRIPT}</script>"
        "</section>"
    )
    anchor = "</main>"
    if anchor in page:
        return page.replace(anchor, anchor + section, 1)
    return page.replace("</body>", section + "</body>", 1)


def write_review_html(rp: Replay, review: Any, path: str | Path) -> Path:
    out = Path(path)
    out.write_text(render_review_html(rp, review), encoding="utf-8")
    return out
