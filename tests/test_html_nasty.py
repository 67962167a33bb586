"""User text is data in every HTML page (issue 9): a corpus of nasty strings (in the manner of the big list of
naughty strings: markup, script and comment openers, event-handler attributes, ``javascript:`` URLs, quotes,
entities, template syntax, bidi overrides, zero-width and BOM characters, right-to-left scripts, emoji and
ZWJ sequences, U+2028/U+2029, NUL, the longest names the door allows) as car names, colours, the race name
and notes, rendered by the replay, review and season pages in headless Chromium.

Each page must (1) run its own script (``data-ready``, no ``data-errors``: the controls and charts live),
(2) run none of ours: every payload that could execute sets ``document.title`` to a word no input spells
out, and the DOM after the scripts ran has exactly the elements and attribute names of the same page made
from plain names (no injected element, no ``on…`` handler), and (3) show every string as text: the DOM's
text holds it as the door shows it (:func:`heatlog.formats.usertext.visible`). Lone surrogates never get that far:
the door refuses them (checked here too).
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import browser
import pytest
from edges import one_error_line, run

from heatlog.formats.usertext import name_problem, visible

#: What an executed payload writes into document.title. No input contains it: the payloads spell it 'PW'+'NED'.
MARK = "PWNED"
SET = "document.title='PW'+'NED'"

#: Car names: one word of at most 40 characters (the door's rule), so no spaces, commas or colons.
CARS = [
    "</script><!--<script>",
    "<img/src=x/onerror=document.title=1>",
    "\"'><svg/onload=alert(1)>&amp;&lt;",
    "سيارة-מכונית",  # right to left: Arabic and Hebrew
    "🏎💨{{7*7}}${7*7}",  # emoji and template syntax
    "W" * 20 + "Ж" * 20,  # the longest name: 40 characters
]
PLAIN_CARS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]
COLOURS = ["red", '"><svg/onload=alert(1)>', "url(javascript:alert(1))", "#fff;background:red", "blue", "green"]
#: What the page makes of COLOURS (a colour it does not know is drawn in its fallback palette), so that the plain
#: page has the same elements (a light colour gets an extra outline).
PLAIN_COLOURS = ["red", "#2f6fdf", "#2a9d4b", "#f4c20d", "blue", "green"]

RACE_NAME = f'<a href="javascript:{SET}">race</a> ]]><![CDATA[ <!-- "quoted" \'single\''

NOTES = [
    f"</script><script>{SET}</script>",
    "<!--<script>",
    f'<img src=x onerror="{SET}">',
    f"javascript:{SET}",
    f"\"'><svg onload={SET}>",
    f"<a href='javascript:{SET}'>link</a> <iframe src=\"javascript:{SET}\"></iframe>",
    f'{{{{constructor.constructor("{SET}")()}}}} ${{{SET}}}',
    "&lt;not a tag&gt; &amp; &#60;script&#62; &#x3c;",
    "line\u2028separator\u2029paragraph",
    "\u202eevil right-to-left override\u202c and \u2066isolate\u2069",
    "zero\u200bwidth\u200djoiner\ufeffbom\u2060word",
    "مرحبا بالعالم — שלום עולם",
    "🏎️💨 👨‍👩‍👧‍👦 🇫🇷 family and flag",
    "nul\x00and\x1b[2J escape\x07 bell",
    "x" * 1950 + f"<script>{SET}</script>",  # near the longest note (2000 characters)
]


class Dom(HTMLParser):
    """Tags, attribute names and values, and text of a page (entities decoded, as the browser has them)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attr_names: list[tuple[str, str]] = []
        self.attrs: list[tuple[str, dict[str, str]]] = []
        self.texts: list[str] = []
        self.title = ""
        self._in_title = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attr_names.extend((tag, k) for k, _ in attrs)
        self.attrs.append((tag, {k: v or "" for k, v in attrs}))
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        self.texts.append(data)
        if self._in_title:
            self.title += data

    @property
    def text(self) -> str:
        return "".join(self.texts)

    def root(self) -> dict[str, str]:
        return next(a for t, a in self.attrs if t == "html")


def _renamed(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [_renamed(v, names) for v in value]
    if isinstance(value, dict):
        return {names.get(k, k): _renamed(v, names) for k, v in value.items()}
    return value


def race_log(cars: list[str], colours: list[str], notes: list[str]) -> str:
    """One simulated race (open mode, 6 cars), the same whatever the names: played with the plain names, then
    renamed to ``cars`` (and ``colours``), with the notes spread through it; as JSON Lines."""
    from heatlog.races import race_started_event
    from heatlog.simulate.world import race_events, random_bot
    from heatlog.store import canonical

    plain = [{"name": n, "colour": c} for n, c in zip(PLAIN_CARS, PLAIN_COLOURS, strict=True)]
    start = race_started_event(track="usa", cars=plain, mode="open")
    events = list(race_events(start, {n: random_bot for n in PLAIN_CARS}, 11))
    events = _renamed(events, dict(zip(PLAIN_CARS, cars, strict=True)))
    for car, colour in zip(events[0]["cars"], colours, strict=True):
        car["colour"] = colour
    # a third of the notes each early, halfway and at the end of the race (three rounds to look at)
    places = [len(events) // 10, len(events) // 2, len(events) - 1]
    for i, text in reversed(list(enumerate(notes))):
        events.insert(places[i * 3 // len(notes)], {"type": "note", "v": 1, "text": text})
    return "".join(canonical(ev).decode() + "\n" for ev in events)


def note_rounds(db: Path) -> dict[int, list[str]]:
    """round -> the notes the replay shows in it."""
    from heatlog.log.racelog import RaceLog
    from heatlog.views.replay import load_replay

    with RaceLog(db, create=False) as log:
        rp = load_replay(log, None)
    return {r.number: [text for _, text in r.notes] for r in rp.rounds if r.notes}


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """(nasty page, the same page from plain names) for the replay and the review."""
    assert all(name_problem(n, car=True) is None for n in CARS), [name_problem(n, car=True) for n in CARS]
    tmp = tmp_path_factory.mktemp("nasty")
    out: dict[str, list[Path]] = {"replay": [], "review": []}
    for label, cars, colours, notes, name in (
        ("nasty", CARS, COLOURS, NOTES, RACE_NAME),
        ("plain", PLAIN_CARS, PLAIN_COLOURS, [f"note {i}" for i in range(len(NOTES))], "plain race"),
    ):
        db, log = tmp / f"{label}.db", tmp / f"{label}.jsonl"
        log.write_text(race_log(cars, colours, notes), encoding="utf-8")
        r = run("import", str(log), "--name", name, db=db)
        assert r.returncode == 0, r
        replay = tmp / f"{label}-replay.html"
        r = run("replay", "--html", str(replay), db=db)
        assert r.returncode == 0, r
        out["replay"].append(replay)
        review = tmp / f"{label}-review.html"
        args = ["--car", cars[1], "--round", "3", "--screen", "2", "--max-playouts", "4", "--workers", "1"]
        r = run("review", *args, "--html", str(review), db=db)
        assert r.returncode == 0, r
        out["review"].append(review)
    return {k: (v[0], v[1]) for k, v in out.items()}


def _check(nasty: Path, plain: Path, fragment: str, strings: list[str]) -> Dom:
    dom = Dom(browser.dump_dom(nasty.as_uri() + fragment))
    base = Dom(browser.dump_dom(plain.as_uri() + fragment))
    # a page with a script of its own (not the season page) ran it to the end, as the plain page does
    assert dom.root().get("data-errors") == base.root().get("data-errors") in ("", None), dom.root()
    assert MARK not in dom.title and MARK not in dom.text and MARK not in json.dumps(dom.attrs)  # none of ours
    assert dom.tags == base.tags  # no injected element (no script, img, svg, iframe, a, comment-swallowed part)
    assert sorted(dom.attr_names) == sorted(base.attr_names)  # no injected attribute (no on… handler)
    assert not [a for a in dom.attr_names if a[1].startswith("on")]
    values = " ".join(v for _, a in dom.attrs for v in a.values())
    assert "javascript:" not in " ".join(a.get("href", "") + a.get("src", "") for _, a in dom.attrs)
    for s in strings:  # shown as text (as the door shows it: control and invisible characters made visible)
        shown = visible(s)
        assert shown in dom.text or shown in values, (s, shown)
    return dom


@pytest.mark.parametrize("fragment", ["#round=3&press=End"])
def test_replay_page_shows_nasty_names_and_notes_as_text(pages: dict[str, tuple[Path, Path]], fragment: str) -> None:
    nasty, plain = pages["replay"]
    dom = _check(nasty, plain, fragment, CARS)
    assert dom.root().get("data-ready") == "true"
    rows = {a["data-car"] for t, a in dom.attrs if t == "tr" and "data-car" in a}
    assert rows == set(CARS)  # the names made it into the page's own script and back into the DOM unchanged


def test_every_note_and_the_race_name_reach_the_page_as_text(pages: dict[str, tuple[Path, Path]]) -> None:
    nasty, plain = pages["replay"]
    rounds = note_rounds(nasty.parent / "nasty.db")
    assert sorted(n for notes in rounds.values() for n in notes) == sorted(NOTES)
    for rnd, notes in rounds.items():
        _check(nasty, plain, f"#round={rnd}", notes)
    static = Dom(nasty.read_text(encoding="utf-8"))
    assert visible(RACE_NAME) in static.title + static.text


def test_review_page_shows_nasty_names_as_text(pages: dict[str, tuple[Path, Path]]) -> None:
    nasty, plain = pages["review"]
    dom = _check(nasty, plain, "#round=3", CARS)
    assert any(a.get("data-ready") == "true" for t, a in dom.attrs if t == "section" and a.get("id") == "review")


def test_season_page_shows_nasty_driver_names_as_text(tmp_path: Path) -> None:
    from heatlog.log.racelog import RaceLog
    from heatlog.season import season_view, simulate_season
    from heatlog.views.season_html import write_season_html

    made: list[Path] = []
    for label, cars, colours in (("nasty", CARS[:4], COLOURS[:4]), ("plain", PLAIN_CARS[:4], PLAIN_COLOURS[:4])):
        with RaceLog(tmp_path / f"{label}.db") as log:
            drivers = [{"name": n, "colour": c} for n, c in zip(cars, colours, strict=True)]
            season = simulate_season(log, published="1961", cars=drivers, seed=7)
            page = tmp_path / label / "season.html"
            page.parent.mkdir()
            write_season_html(log, season_view(log, season), page)
            made.append(page)
    nasty, plain = made
    _check(nasty, plain, "", CARS[:4])
    race = _check(nasty.parent / "season-race-2.html", plain.parent / "season-race-2.html", "", CARS[:4])
    assert race.root().get("data-ready") == "true"


@pytest.mark.parametrize("field", ["car", "note", "race name"])
def test_lone_surrogates_are_refused_at_the_door(tmp_path: Path, field: str) -> None:
    db = tmp_path / "h.db"
    text = race_log(PLAIN_CARS, PLAIN_COLOURS, ["x"])
    if field == "car":
        text = text.replace('"Ann"', '"A\\ud800"')
    elif field == "note":
        text = text.replace('"text":"x"', '"text":"\\udfff"')
    log = tmp_path / "s.jsonl"
    log.write_text(text, encoding="utf-8")
    args: list[Any] = ["import", str(log)]
    if field == "race name":
        args += ["--name", "a\udc80b"]
    r = run(*args, db=db)
    assert one_error_line(r), r
    assert not db.exists()
