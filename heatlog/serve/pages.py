"""The table server's HTML: whole pages and the panels the live updates replace.

Every piece of user text (car and race names, notes, what the recorder says back, which echoes what was typed)
goes through :func:`html.escape` here, in one place: the browser's script only puts these panels in place
(``innerHTML`` of server-escaped HTML) and sets car positions; it never builds markup from data.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from importlib import resources
from typing import Any

from .. import __version__
from ..engine import RaceState
from ..views.circuit import circuit_layout
from ..views.replay import Replay
from ..views.replay_html import circuit_key, circuit_svg, podium


def e(value: Any) -> str:
    return escape(str(value), quote=True)


def _json_script(element_id: str, data: Any) -> str:
    """JSON for the page's script, safe inside <script> (no '</' can end it early)."""
    text = json.dumps(data, ensure_ascii=True, allow_nan=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def page(title: str, role: str, csrf: str, body: str) -> str:
    return (
        "<!doctype html>\n"
        f'<html lang="en" data-role="{e(role)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="csrf" content="{e(csrf)}"><meta name="generator" content="heatlog {e(__version__)}">'
        f"<title>{e(title)}</title>"
        '<link rel="stylesheet" href="/static/replay.css"><link rel="stylesheet" href="/static/table.css">'
        '<script src="/static/table.js" defer></script></head>'
        f'<body class="{e(role)}">{body}<div id="message" role="status" aria-live="polite"></div></body></html>'
    )


def circuit(state: RaceState, race: int) -> str:
    """The circuit as the HTML replay draws it, with one marker per car (placed by the page's script)."""
    from ..views.board import car_labels
    from ..views.replay_html import car_colour

    labels = car_labels(state)
    cars = []
    for i, (name, c) in enumerate(state.cars.items()):
        fill = car_colour(c.colour, i)
        cars.append({"name": name, "label": labels[name], "fill": fill, "ink": "#ffffff"})
    lay = circuit_layout(state.track)
    rp = Replay(race=race, name=None, grid=state, rounds=[], final=state)
    geometry = {
        "spots": {f"{s}:{lane}": [round(x, 1), round(y, 1)] for (s, lane), (x, y) in lay.centres.items()},
        "angles": {f"{s}:{lane}": round(a, 1) for (s, lane), a in lay.angles.items()},
        "podium": [[round(x, 1), round(y, 1)] for x, y in podium(lay, len(cars))],
    }
    return (
        '<div class="board-wrap">'
        + circuit_svg(rp, lay, cars)
        + circuit_key(state.track)
        + "</div>"
        + _json_script("geometry", geometry)
    )


def asset(name: str) -> str:
    if name == "replay.css":
        return (resources.files("heatlog.views") / "assets" / "replay.css").read_text(encoding="utf-8")
    return (resources.files("heatlog.serve") / "assets" / name).read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------------------- panels


def status_html(pub: dict[str, Any]) -> str:
    head = f"{e(pub['track'])} · race {pub['race']} · {e(pub['mode'])}"
    if pub["phase"] == "over":
        hof = " ".join(f"<li>{e(n)}</li>" for n in pub["hall_of_fame"])
        return f'<p class="head">{head}</p><p class="waits over">Race over — Hall of Fame</p><ol>{hof}</ol>'
    parts = [f'<p class="head">{head}</p>']
    if pub["phase"] == "race":
        order = " › ".join(e(n) for n in pub["order"])
        adr = ", ".join(e(n) for n in pub["adrenaline"])
        parts.append(
            f'<p class="round">Round {pub["round"]}'
            + (f" · order {order}" if order else "")
            + (f" · adrenaline: {adr}" if adr else "")
            + "</p>"
        )
    if pub.get("just"):  # what the latest change entered: the table sees each tap land
        parts.append(f'<p class="just">Just now: {e("; ".join(pub["just"]))}</p>')
    parts.append(f'<p class="waits" data-turn="{e(pub["turn"] or "")}">Waiting for: {e(pub["waits"])}</p>')
    for style, text in pub["lines"]:
        parts.append(f'<p class="line {e(style)}">{e(text)}</p>')
    return "".join(parts)


def cars_html(pub: dict[str, Any]) -> str:
    rows = []
    for c in sorted(pub["cars"], key=lambda c: c["rank"] or 99):
        turn = ' class="turn"' if c["name"] == pub["turn"] else ""
        phone = "phone" if c["phone"] else ("Legend" if c["legend"] else "host screen")
        rows.append(
            f'<tr{turn} data-car="{e(c["name"])}"><td><span class="chip" style="background:{e(c["fill"])}">'
            f"{e(c['label'])}</span> {e(c['name'])}</td><td>{e(c['spot'])}</td><td>{e(c['lap'])}</td>"
            f"<td>{e(c['gear'] if c['gear'] is not None else 'L')}</td>"
            f"<td>{e(c['engine'] if c['engine'] is not None else '-')}</td>"
            f"<td>{e(c['hand_size'] if c['hand_size'] is not None else '-')}</td><td>{phone}</td></tr>"
        )
    return (
        '<table class="cars"><thead><tr><th>car</th><th>space</th><th>lap</th><th>gear</th><th>Engine</th>'
        "<th>hand</th><th></th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def narration_html(pub: dict[str, Any]) -> str:
    items = "".join(
        f'<li data-car="{e(car)}"><span class="r">R{e(rnd)}</span> {e(text)}</li>'
        for rnd, car, text in pub["narration"]
    )
    return f'<ul class="narration">{items}</ul>' if items else '<p class="dim">No turn completed yet.</p>'


def _cards(
    tokens: list[list[str]],
    *,
    count: int | None,
    action: str,
    car: str | None,
    prefix: str = "",
    label: str = "send",
    empty: str = "",
) -> str:
    buttons = "".join(
        f'<button type="button" class="cardbtn" data-token="{e(tok)}">{e(label)}</button>' for label, tok in tokens
    )
    need = f' data-count="{count}"' if count else ""
    pre = f' data-prefix="{e(prefix)}"' if prefix else ""
    pre += f' data-empty="{e(empty)}"' if empty else ""  # what the picker says before a tap (table.js)
    return (
        f'<div class="picker" data-action="{e(action)}" data-car="{e(car or "")}"{need}{pre}>'
        f'<div class="cards">{buttons}</div><p class="chosen" aria-live="polite"></p>'
        '<div class="row"><button type="button" class="clear">clear</button>'
        '<button type="button" class="unpick" aria-label="take back the last card tapped">⌫ last</button>'
        f'<button type="button" class="send primary">{e(label)}</button></div></div>'
    )


def controls_html(ctls: list[dict[str, Any]], *, host: bool = False) -> str:
    out = []
    for c in ctls:
        kind = c["kind"]
        car = c.get("car")
        who = f"{e(car)}: " if host and car else ""
        if kind == "plan":
            gears = ", ".join(map(str, c["gears"]))
            secret = (  # a phone's plan is its own; on the shared screen whoever looks sees the taps
                "Nobody sees them until the reveal."
                if not host
                else "This is the shared screen: whoever looks sees the cards tapped here (a phone keeps them "
                "private: scan the car's code)."
            )
            out.append(
                f'<section class="ctl plan" data-car="{e(car)}" data-round="{e(c["round"])}">'  # (its taps' question)
                f"<h3>{who}Round {c['round']}: gear and cards</h3>"
                f'<p class="hint">Tap the cards you play: their number is your gear (now {c["gear"]}; '
                f"may shift to {e(gears)}; Engine {c['engine']}). {secret}</p>"
                + _cards(c["tokens"], count=None, action="plan", car=car)
                + "</section>"
            )
        elif kind == "held":
            out.append(
                f'<section class="ctl held" data-car="{e(car)}"><h3>{who}{e(c["text"])}</h3>'
                f'<p class="hint">Waiting for the others.{"" if host else " Nobody else sees this."}</p>'
                f'<button type="button" class="takeback" data-car="{e(car)}">change</button></section>'
            )
        elif kind == "question":
            at = f' data-at="{e(c["at"])}"' if c.get("at") is not None else ""  # the screen's question (table.js)
            parts = [f'<section class="ctl question" data-question="{e(c["question"])}" data-car="{e(car or "")}"{at}>']
            parts.append(f"<h3>{who if not car else ''}{e(c['prompt'])}</h3>")
            if c.get("error"):
                parts.append(f'<p class="line error">{e(c["error"])}</p>')
            for style, text in c.get("said", []):
                if style != "dim":
                    parts.append(f'<p class="line {e(style)}">{e(text)}</p>')
            typing = c.get("hint")  # the recorder's typing notation: folded under the typed line, not a wall of text
            if "tokens" in c:
                parts.append(
                    _cards(c["tokens"], count=c.get("count"), action="answer", car=car, empty=c.get("empty", ""))
                )
            if c["buttons"]:
                parts.append(
                    '<div class="row answers">'
                    + "".join(
                        f'<button type="button" class="answer" data-text="{e(tok)}" data-car="{e(car or "")}">'
                        f"{e(label)}</button>"
                        for label, tok in c["buttons"]
                    )
                    + "</div>"
                )
            if c["enter"] is not None:
                label = c.get("enter_label") or {"": "done", "1": "keep"}.get(c["enter"], c["enter"]) or "done"
                if c["question"] == "discard":
                    label = "no discard"
                elif c["question"] == "react":
                    label = "done reacting"
                parts.append(
                    f'<div class="row"><button type="button" class="answer primary" data-text="" '
                    f'data-car="{e(car or "")}">{e(label)}</button></div>'
                )
            if c.get("discard"):
                parts.append('<p class="hint">or end my turn discarding:</p>')
                parts.append(
                    _cards(
                        c["discard"], count=None, action="answer", car=car, prefix="- d ", label="discard, end my turn"
                    )
                )
            form = (
                f'<form class="typed" data-car="{e(car or "")}"><input name="text" autocomplete="off" '
                f'aria-label="type the answer" placeholder="{"or type it" if host else "the answer, typed"}">'
                '<button type="submit">send</button></form>'
            )
            help_ = f'<p class="hint">{e(typing)}</p>' if typing else ""
            if host:  # the shared screen's keyboard: the typed line at hand, its notation folded
                parts.append(form)
                if typing:
                    parts.append(f'<details class="hint typing"><summary>how to type it</summary>{help_}</details>')
            else:  # a phone is tapped: typing (the recorder's notation, docs/recording.md) is folded away
                parts.append(f'<details class="typing"><summary>type it instead</summary>{form}{help_}</details>')
            parts.append("</section>")
            out.append("".join(parts))
        elif kind == "away":  # a car whose phone holds the seat: the host may act for an absent player
            inner = dict(c, kind="plan" if "gears" in c else "question")
            out.append(
                f'<details class="ctl away" data-car="{e(car)}"><summary>{e(car)}\'s player away? '
                f"act for {e(car)} here (the phone is told)</summary>"
                + controls_html([inner], host=True)
                + "</details>"
            )
        elif kind == "over":
            out.append(f'<section class="ctl over"><h3>{e(c.get("text") or "The race is over")}</h3></section>')
        else:
            nxt = " next" if c.get("next") else ""
            out.append(f'<section class="ctl wait{nxt}"><p>{e(c["text"])}</p></section>')
    return "".join(out)


def private_html(priv: dict[str, Any]) -> str:
    parts = [f'<h2 data-hand="{e(priv["car"])}">{e(priv["car"])}</h2>']
    if priv["hand"] is not None:
        names = priv.get("hand_names") or priv["hand"]
        cards = " ".join(f'<span class="cardbtn small">{e(c)}</span>' for c in names) or "no cards yet"
        parts.append(f'<p class="hand" data-hand="{e(priv["car"])}">Your hand: {cards}</p>')
    plan = priv["plan"]
    if plan is not None and plan["cards"]:
        parts.append(f'<p class="plan">Your plan: gear {plan["gear"]}, {e(plan.get("words") or plan["cards"])}</p>')
    if priv.get("told"):
        parts.append(f'<p class="line warn told">{e(priv["told"])}</p>')
    if priv.get("last"):  # only when it would be taken back: this car's answer is the latest (table.py)
        parts.append(
            '<div class="ctl undo-mine"><button type="button" class="ask-takeback">↶ take back my last entry</button>'
            f'<p class="hint">yours: {e(priv["last"])}</p>'
            '<div class="confirm" hidden><p class="line warn">Take back your last entry? '
            f"{e(priv['last'])}: you are asked again.</p>"
            '<div class="row"><button type="button" class="takeback mine primary">yes, take it back</button>'
            '<button type="button" class="keep">no, keep it</button></div></div></div>'
        )
    return "".join(parts)


def seats_html(seats: list[dict[str, Any]]) -> str:
    rows = []
    for s in seats:
        state = "phone joined" if s["phone"] else "no phone: played here"
        rows.append(
            f'<figure class="seat" data-car="{e(s["car"])}"><div class="qr">{s["qr"]}</div>'
            f'<figcaption><b>{e(s["car"])}</b> · {e(state)}<br><a href="{e(s["url"])}" class="join">'
            f"{e(s['url'])}</a></figcaption></figure>"
        )
    # once every seat has a phone the codes are folded away (still a tap to open: a phone may need to join again);
    # a seat without a phone opens them again
    every = bool(seats) and all(s["phone"] for s in seats)
    summary = "join codes · every seat has a phone" if every else "join codes"
    return (
        f'<details id="seats-box"{"" if every else " open"}><summary>{e(summary)}</summary>'
        f'<div class="seats">{"".join(rows)}</div></details>'
    )


# ------------------------------------------------------------------------------------------------ whole pages


def board_page(role: str, csrf: str, title: str, circuit_html: str, *, seat: str | None = None) -> str:
    """The host screen, a phone's seat or a spectator's board: panels filled by the live updates."""
    if role == "seat":
        body = (
            f'<main class="phone"><div id="private" class="panel"></div><div id="controls" class="panel"></div>'
            f'<div id="status" class="panel"></div><details><summary>the board</summary>{circuit_html}'
            '<div id="cars" class="panel"></div></details><div id="narration" class="panel"></div></main>'
        )
    elif role == "host":
        body = (
            '<main class="host"><div class="left">' + circuit_html + '<div id="cars" class="panel"></div>'
            '<div id="narration" class="panel"></div></div><div class="right"><div id="status" class="panel"></div>'
            '<div id="controls" class="panel"></div><div id="seats" class="panel"></div>'
            "<details><summary>corrections and notes</summary>"
            '<form id="undo"><label>undo the latest entry, because <input name="reason" required '
            'placeholder="e.g. wrong car"></label><label><input type="checkbox" name="reopen"> reopen a finished race'
            '</label><button type="submit">undo</button></form>'
            '<form id="note"><input name="text" placeholder="a note at this point" required>'
            '<button type="submit">note</button></form></details>'
            '<p class="dim"><a href="/watch" target="_blank">spectator board</a> · '
            '<a href="/host/setup">another race</a></p></div></main>'
        )
    else:
        body = (
            '<main class="watch"><div class="left">' + circuit_html + '</div><div class="right">'
            '<div id="status" class="panel"></div><div id="cars" class="panel"></div>'
            '<div id="narration" class="panel"></div></div></main>'
        )
    return page(title, role, csrf, body)


def setup_page(
    csrf: str,
    tracks: list[str],
    races: list[tuple[int, str]],
    error: str | None = None,
    switches: Sequence[tuple[str, str]] = (),
    fields: Sequence[tuple[str, str, str, str]] = (),
    cars_words: str = "",
) -> str:
    """The host's set-up form; ``switches``: each module's switch (its parameter and its words, from the
    registry: ``app.switches``); ``fields``: each module's set-up question as a text field (its name, words,
    placeholder, and the base field it follows: ``app.module_fields``); ``cars_words``: how the cars field types
    the cars the modules add ("; Legends as legend:COLOUR": ``app.cars_words``)."""

    def after(base: str) -> str:
        return "".join(
            f'<label>{e(words)} <input name="{e(name)}" placeholder="{e(hint)}"></label>'
            for name, words, hint, follows in fields
            if follows == base
        )

    track_opts = "".join(f'<option value="{e(t)}"{" selected" if t == "usa" else ""}>{e(t)}</option>' for t in tracks)
    resume = "".join(
        f'<li><button type="button" class="resume" data-race="{rid}">resume race {rid}</button> {e(label)}</li>'
        for rid, label in races
    )
    body = (
        '<main class="setup"><h1>heatlog at the table</h1>'
        + (f'<p class="line error">{e(error)}</p>' if error else "")
        + '<form id="setup"><h2>A new race</h2>'
        '<label>race name <input name="name" placeholder="Friday night USA"></label>'
        + after("name")
        + f'<label>track <select name="track">{track_opts}</select></label>'
        + after("track")
        + f'<label>cars, NAME:COLOUR each{e(cars_words)} <input name="cars" required '
        'placeholder="Ann:red Bob:blue Cy:green"></label>'
        + after("cars")
        + '<label>variant <select name="variant"><option>standard</option><option>one-lap</option></select></label>'
        + after("variant")
        + '<label>experienced drivers (5 Engine Heat) <input name="handicap" placeholder="Ann"></label>'
        + after("handicap")
        + '<label>mode <select name="mode"><option value="table">table (hands hidden)</option>'
        '<option value="private">private hands (each phone enters its draws)</option>'
        '<option value="open">open (every card entered, nothing hidden)</option></select></label>'
        + after("mode")
        + "".join(f'<label><input type="checkbox" name="{e(p)}"> {e(words)}</label>' for p, words in switches)
        + '<label>grid order, front first (empty: random) <input name="grid" placeholder="Ann Bob Cy"></label>'
        '<button type="submit" class="primary">start the race</button></form>'
        + (f'<h2>Or resume</h2><ul class="races">{resume}</ul>' if resume else "")
        + "</main>"
    )
    return page("heatlog — a new race", "setup", csrf, body)


def plain_page(title: str, text: str, *, link: tuple[str, str] | None = None) -> str:
    more = f'<p><a href="{e(link[0])}">{e(link[1])}</a></p>' if link else ""
    return page(title, "plain", "", f'<main class="plain"><h1>{e(title)}</h1><p>{e(text)}</p>{more}</main>')
