"""``heatlog review --html``: the HTML replay with the decision review added (docs/analysis.md).

The replay page (:mod:`heatlog.views.replay_html`) gets one more section after the circuit and narration: an
**evaluation graph** per reviewed car (expected place by round, with its 95 % interval, at the car's first
reviewed decision of the round; a cursor follows the round on show) and, for the round on show, **the review
beside each turn**: every turn's narration next to its reviewed decisions (taken, best found, expected places
with their intervals and playouts, loss, label). The review travels as JSON in the page; its script follows
``<body data-round>``, which the replay's script sets, and writes text with ``textContent`` only.

Issue 28 added: **next / previous mistake** buttons (``#next-mistake``, ``#prev-mistake``: the labelled decisions
in the log's order; the replay is moved to the decision's round through its slider and the decision's row is
marked ``data-focus="true"``; ``#mistake-at`` says where it is), the **biggest losses** (``<table id="losses">``,
a ``<tr class="loss" data-key>`` per significant loss, largest first: the expected cost beside what it cost in
this race — where the car finished less the best decision's expected place; a click jumps to it), and a graph
that marks **decisions** (``<circle class="eval-dot decision" data-label data-key>``, one per reviewed decision)
and **chance** (``<path class="chance" data-kinds>``: the chance events between two of the car's decisions)
apart.

Hooks for tests: ``<section id="review">`` with ``data-partial`` (and ``data-mistake``, the mistake shown);
``<svg id="eval-graph">`` with one ``<polyline class="eval" data-car>`` per car; ``<table id="review-table">``
whose rows are ``<tr class="decision" data-car data-round data-label data-key>`` (and ``<tr class="turn">`` for
each turn's narration).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ..formats.usertext import embed_json
from ..formats.usertext import html_text as escape
from ..formats.words import signed
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
  var section = document.getElementById("review");
  var status = document.getElementById("mistake-at");
  var focus = null;  // the key of the decision jumped to ("car/index/prelude")
  var at = -1;  // its place in D.mistakes
  function cell(tr, text, cls) {
    var td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }
  function num(x) {  // a loss zero but for rounding is 0.00, not -0.00 (as signed() on the Python side)
    if (x === null || x === undefined) return "?";
    var s = x.toFixed(2);
    return s === "-0.00" ? "0.00" : s;
  }
  function pm(e) {
    return num(e.expected_place) + " \u00b1" + num(e.expected_place_95) + " (n=" + e.playouts + ")";
  }
  function f1(x) { return x === null || x === undefined ? "?" : x.toFixed(1); }
  function progressAt(L, k) { return L.progress.length ? L.progress[Math.min(k, L.progress.length - 1)] : null; }
  // What the decision taken and the best found led to after their round (each option's "later" facts, the
  // numbers of the reason): a small table of the two, the cards' and decisions' words as text only. Its rows are
  // the same whatever the playouts gave ("-" where a row does not apply), and a decision whose best found is the
  // one taken has it too, hidden (class "same"): the page's elements never depend on the results.
  function laterRow(d, same) {
    var A = d.taken.later, B = d.best.later, r = A.round, n = Math.max(A.rounds_after, B.rounds_after);
    var span = n === 1 ? "round " + (r + 1) : n > 1 ? "rounds " + (r + 1) + "\u2013" + (r + n) : "the rounds after";
    function after(x) { return n > 0 ? x : "-"; }
    var last = Math.max(A.progress.length, B.progress.length) - 1;
    var rows = [
      ["progress, end of round " + r, f1(progressAt(A, 0)), f1(progressAt(B, 0))],
      ["progress, end of round " + (r + last) + " (the last followed)", f1(progressAt(A, last)),
       f1(progressAt(B, last))],
      ["Stress / Heat in hand for round " + (r + 1), f1(A.stress_in_hand) + " / " + f1(A.heat_in_hand),
       f1(B.stress_in_hand) + " / " + f1(B.heat_in_hand)],
      ["Engine, end of round " + r, f1(A.engine_end_of_round), f1(B.engine_end_of_round)],
      ["spins out in " + span, after(Math.round(100 * A.spinout_share) + "%"),
       after(Math.round(100 * B.spinout_share) + "%")],
      ["Heat paid at corners in " + span, after(f1(A.heat_paid)), after(f1(B.heat_paid))],
      ["spaces moved in " + span, after(f1(A.spaces_moved)), after(f1(B.spaces_moved))],
      ["Engine, end of round " + (r + n), after(f1(A.engine_after)), after(f1(B.engine_after))],
      ["finishes in round", f1(A.finish_round), f1(B.finish_round)]
    ];
    Object.keys(D.cards).sort().forEach(function (c) {  // the race's single-use cards (# 18.24), if any
      rows.push(["single-use " + D.cards[c] + " kept, end of round " + r, f1(A.single_use_kept[c] || 0),
                 f1(B.single_use_kept[c] || 0)]);
    });
    var tr = document.createElement("tr");
    tr.className = same ? "later same" : "later";
    tr.setAttribute("data-key", d.key);
    var td = cell(tr, "");
    td.colSpan = 7;
    var t = document.createElement("table");
    t.className = "later-facts";
    var head = document.createElement("tr");
    cell(head, "after its round (means of " + A.playouts + " and " + B.playouts + " playouts)");
    cell(head, d.taken.words, "taken");
    cell(head, d.best.words, "best");
    t.appendChild(head);
    rows.forEach(function (x) {
      var row = document.createElement("tr");
      cell(row, x[0]);
      cell(row, x[1], "taken");
      cell(row, x[2], "best");
      t.appendChild(row);
    });
    td.appendChild(t);
    return tr;
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
        row.setAttribute("data-key", d.key);
        if (d.key === focus) { row.classList.add("focus"); row.setAttribute("data-focus", "true"); }
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
        if (d.taken.later && d.best.later) table.appendChild(laterRow(d, same));
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
  // Jump to a decision: the replay shows its round (through the slider, as a person would), the row is marked.
  function jump(d) {
    var slider = document.getElementById("round-slider");
    var k = D.slider[String(d.round)];
    focus = d.key;
    if (slider && k !== undefined) {
      slider.value = String(k);
      slider.dispatchEvent(new Event("input", {bubbles: true}));
    }
    render();
    var row = table.querySelector('tr.decision[data-focus="true"]');
    if (row && row.scrollIntoView) row.scrollIntoView({block: "center"});
  }
  function round() { return +(document.body.getAttribute("data-round") || 0); }
  function go(step) {
    var M = D.mistakes, n = round(), k = -1, i;
    if (!M.length) return;
    if (at >= 0 && M[at].key === focus && M[at].round === n) {
      k = at + step;
    } else if (step > 0) {
      for (i = 0; i < M.length; i++) { if (M[i].round > n) { k = i; break; } }
    } else {
      for (i = M.length - 1; i >= 0; i--) { if (M[i].round < n) { k = i; break; } }
    }
    if (k < 0 || k >= M.length) {
      status.textContent = step > 0 ? "no mistake after round " + n : "no mistake before round " + n;
      return;
    }
    at = k;
    section.setAttribute("data-mistake", String(k));
    status.textContent = "mistake " + (k + 1) + " of " + M.length + ": round " + M[k].round + ", " + M[k].car +
      ", " + M[k].words + " (" + M[k].label + ")";
    jump(M[k]);
  }
  document.getElementById("next-mistake").addEventListener("click", function () { go(1); });
  document.getElementById("prev-mistake").addEventListener("click", function () { go(-1); });
  Array.prototype.forEach.call(document.querySelectorAll("#losses tr.loss"), function (tr) {
    tr.addEventListener("click", function () {
      var key = tr.getAttribute("data-key");
      var hit = D.losses.filter(function (d) { return d.key === key; })[0];
      if (hit) { at = -1; jump(hit); }
    });
  });
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
#review { min-width: 0; overflow-x: auto; }
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
#review tr.focus td { background: #fff3c4; }
#review .nav { margin: 6px 0; }
#review .nav button { margin-right: 6px; }
#review #losses tr.loss { cursor: pointer; }
#review .chance, #review .key-chance { stroke: #333; stroke-width: 0.8; fill: #fff; }
#review .eval-dot.labelled { stroke: #000; stroke-width: 1.5; }
#review .legend-key text { font-size: 11px; }
#review tr.later.same { display: none; }
#review table.later-facts { width: auto; font-size: 0.85em; margin: 0 0 4px 16px; }
#review table.later-facts td { border-bottom: 1px solid #eee; padding: 1px 8px; }
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
    dx = min(60.0, (right - left) / max(1, last - first))
    for c in review.cars:
        if not c.points:
            continue
        fill = fills.get(c.car, "#333")
        by_round: dict[int, list[Any]] = {}
        for p in c.points:
            by_round.setdefault(p.point.round, []).append(p)
        where: list[tuple[Any, float, float]] = []  # (point review, x, y) in the log's order
        for p in c.points:
            mates = by_round[p.point.round]
            k = mates.index(p)
            if not math.isfinite(p.taken.mean_place):
                continue
            px = x(p.point.round) + dx * 0.8 * ((k + 0.5) / len(mates) - 0.5)
            where.append((p, px, y(p.taken.mean_place)))
        for p, px, _ in where:
            half = p.taken.place_half if math.isfinite(p.taken.place_half) else n_cars
            lo, hi = p.taken.mean_place - half, p.taken.mean_place + half
            out.append(
                f'<line class="band" style="stroke:{fill}" x1="{px:.1f}" x2="{px:.1f}" '
                f'y1="{y(max(1, lo)):.1f}" y2="{y(min(n_cars, hi)):.1f}"/>'
            )
        line = " ".join(f"{px:.1f},{py:.1f}" for _, px, py in where)
        out.append(
            f'<polyline class="eval" data-car="{escape(c.car)}" style="stroke:{fill}" points="{line}">'
            f"<title>{escape(c.car)}: expected place at each reviewed decision</title></polyline>"
        )
        # Chance events between two decisions (the draws, flips, shuffles, module draws since the car's previous
        # decision): a diamond on the segment they moved, apart from the decisions' dots.
        for (_, x0, y0), (p, x1, y1) in zip(where, where[1:], strict=False):
            if not p.chance_before:
                continue
            mx, my = (x0 + x1) / 2, (y0 + y1) / 2
            kinds = " ".join(p.chance_before)
            out.append(
                f'<path class="chance" data-car="{escape(c.car)}" data-round="{p.point.round}" '
                f'data-kinds="{escape(kinds)}" d="M{mx:.1f},{my - 4:.1f} l4,4 l-4,4 l-4,-4 z">'
                f"<title>{escape(c.car)}: chance before its {escape(p.point.kind)} decision of round "
                f"{p.point.round} ({escape(', '.join(_chance_words(k) for k in p.chance_before))})</title></path>"
            )
        for p, px, py in where:
            lab = p.label or ""
            cls = "eval-dot decision" + (" labelled" if lab else "")
            out.append(
                f'<circle class="{cls}" data-car="{escape(c.car)}" data-round="{p.point.round}" '
                f'data-label="{lab}" data-key="{escape(_key(p))}" cx="{px:.1f}" cy="{py:.1f}" '
                f'r="{5 if lab else 3.5}" style="fill:{fill}">'
                f"<title>{escape(c.car)}, round {p.point.round}, {escape(p.taken.words)}: "
                f"{p.taken.mean_place:.2f} ±{p.taken.place_half:.2f} (n={p.taken.playouts})"
                + (f"; {lab}" if lab else "")
                + "</title></circle>"
            )
    ky = top + 2
    out.append(
        f'<g class="legend-key"><circle class="key-dot" cx="{right - 200}" cy="{ky}" r="3.5" '
        f'style="fill:#666"/><text x="{right - 192}" y="{ky + 4}">decision</text>'
        f'<path class="key-chance" d="M{right - 120},{ky - 4} l4,4 l-4,4 l-4,-4 z"/>'
        f'<text x="{right - 112}" y="{ky + 4}">chance since the last</text></g>'
    )
    out.append(f'<line id="eval-cursor" class="cursor" x1="{left}" x2="{left}" y1="{top - 8}" y2="{bottom + 6}"/>')
    out.append("</svg>")
    xs = {str(r): round(x(r), 1) for r in range(first, last + 1)}
    xs[str(first - 1)] = round(x(first), 1)
    return "\n".join(out), xs


#: The base chance events as a player says them (a module's: its type in words, "legend card revealed").
_CHANCE_WORDS = {
    "cards_drawn": "the draw",
    "card_flipped": "a flip",
    "deck_shuffled": "a shuffle",
    "grid_set": "the grid",
}


def _chance_words(kind: str) -> str:
    """A chance event type in words for the graph's tooltip (the page's data keeps the type)."""
    return _CHANCE_WORDS.get(kind, kind.replace("_", " "))


def _key(p: Any) -> str:
    """A decision's key in the page: car, place in the log, and the decisions before it in the same event."""
    return f"{p.point.car}/{p.point.index}/{len(p.point.prelude)}"


#: Rows of the biggest losses list.
LOSSES = 10


def review_data(rp: Replay, review: Any) -> dict[str, Any]:
    """Per round, every turn (its narration) with the reviewed decisions of that car in that round; the labelled
    decisions in the log's order (``mistakes``: the next / previous mistake buttons); the biggest losses with
    their expected cost beside what they cost in this race (``losses``); the slider's index of each round."""
    from ..analysis.playout import single_use_tokens
    from ..review.evaluate import point_dict
    from ..review.points import card_words

    by_key: dict[tuple[int, str], list[dict[str, Any]]] = {}
    every: list[tuple[Any, Any]] = []
    for c in review.cars:
        for p in c.points:
            by_key.setdefault((p.point.round, c.car), []).append({**point_dict(p), "key": _key(p)})
            every.append((c, p))
    rounds: dict[str, Any] = {}
    for rv in rp.rounds:
        turns = []
        for _, car, text in rv.lines():
            decisions = by_key.get((rv.number, car), [])
            if decisions:
                turns.append({"car": car, "text": text, "decisions": decisions})
        rounds[str(rv.number)] = {"turns": turns}
    every.sort(key=lambda cp: (cp[1].point.index, len(cp[1].point.prelude), cp[0].car))
    mistakes = [
        {"key": _key(p), "round": p.point.round, "car": c.car, "words": p.taken.words, "label": p.label}
        for c, p in every
        if p.label is not None
    ]
    # the significant losses only (their interval excludes 0 as a label needs: 95 %, 99 % at the cap): the rest noise
    worst = sorted((cp for cp in every if cp[1].significant), key=lambda cp: (-cp[1].score_loss, cp[1].point.index))
    losses = []
    for c, p in worst[:LOSSES]:
        actual = c.actual_cost(p)
        losses.append(
            {
                "key": _key(p),
                "round": p.point.round,
                "car": c.car,
                "taken": p.taken.words,
                "best": p.best.words,
                "label": p.label,
                "loss_places": p.loss,
                "loss_places_95": p.loss_half,
                "loss_score": p.score_loss,
                "place": c.place,
                "best_place": p.best.mean_place,
                "actual_cost_places": actual,
            }
        )
    slider = {str(rp.first - 1): 0}
    for k, rv in enumerate(rp.rounds, start=1):
        slider[str(rv.number)] = k
    # the single-use cards' names, for the later facts' rows (``later.single_use_kept`` holds their tokens)
    once = single_use_tokens(rp.final.cards)
    named = card_words(rp.final) or str
    cards = {c: named(c) for c in sorted(once)}
    return {"rounds": rounds, "mistakes": mistakes, "losses": losses, "slider": slider, "cards": cards}


def _losses_table(losses: list[dict[str, Any]]) -> str:
    if not losses:
        return '<p id="losses-none">No decision lost a significant share of its expected score.</p>'
    rows = []
    for d in losses:
        actual = d["actual_cost_places"]
        cost = "—"
        if actual is not None:
            cost = f"{signed(actual, 2)} (finished P{d['place']}, the best expected {d['best_place']:.2f})"
        rows.append(
            f'<tr class="loss" data-key="{escape(d["key"])}" data-round="{d["round"]}" data-car="{escape(d["car"])}">'
            f"<td>{d['round']}</td><td>{escape(d['car'])}</td><td>{escape(d['taken'])}</td><td>{escape(d['best'])}</td>"
            f"<td>{d['loss_places']:.2f} ±{d['loss_places_95']:.2f}</td><td>{cost}</td>"
            f'<td class="label {escape(d["label"] or "")}">{escape(d["label"] or "")}</td></tr>'
        )
    return (
        '<table id="losses"><thead><tr><th>round</th><th>car</th><th>taken</th><th>best found</th>'
        "<th>expected cost (places)</th><th>cost in this race (places)</th><th>label</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def render_review_html(rp: Replay, review: Any) -> str:
    """The replay page with the review section (see the module's docstring)."""
    from ..review import evaluator_words

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
        f"<p>Playouts over what each car knew (seed {st.seed}, bots {escape(st.bots)}, "
        f'<span class="evaluator" data-evaluator="{escape(st.evaluator)}">evaluator '
        f"{escape(evaluator_words(st))}</span>): every legal decision "
        f"screened with {st.screen} playouts, the best {st.keep} and the one taken played out until the label "
        f"settles (a label's loss ±{st.target} expected score, 68 %). Expected place: 1 = first.</p>"
        f'<ul class="summary">{"".join(summary)}</ul>'
        "<h3>Biggest losses <small>expected cost beside what it cost in this race: where the car finished less the "
        "best decision's expected place, the luck and the decisions that followed included; click a row to see "
        "it</small></h3>"
        f"{_losses_table(data['losses'])}"
        "<h3>Evaluation graph <small>expected place at each reviewed decision (dots, 95 % interval), chance "
        "events between two decisions (diamonds)</small></h3>"
        f"{graph}"
        '<div class="nav"><button type="button" id="prev-mistake">◀ previous mistake</button>'
        '<button type="button" id="next-mistake">next mistake ▶</button>'
        f'<span id="mistake-at">{counted(len(data["mistakes"]), "labelled decision")}</span></div>'
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
