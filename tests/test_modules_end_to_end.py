"""Legends and the weather end to end (MODULES.md 19, 20): the CLI through its real entry point, the recorder
session answering the module questions, the board and the HTML replay in headless Chromium, and the two
modules combined in one race."""

from __future__ import annotations

import json
from pathlib import Path

import browser
from test_cli import run

from heatlog.engine import replay
from heatlog.engine.modules.weather import conditions_of
from heatlog.log.racelog import RaceLog
from heatlog.races import import_race, start_race
from heatlog.recorder import Session
from heatlog.views.replay import build_replay
from heatlog.views.replay_html import render_html

REPLAYS = Path(__file__).resolve().parents[1] / "replays"
COMBINED = REPLAYS / "netherlands-legends-weather.jsonl"


def test_cli_simulate_solo_against_five_legends_with_the_weather(tmp_path: Path) -> None:
    r = run("simulate", "--cars", "1", "--legends", "5", "--weather", "--seed", "3", "--json", db=tmp_path / "h.db")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    bots = [row["bot"] for row in out["order"]]
    assert bots.count("Legend") == 5 and bots.count("heuristic") == 1  # # 19.2: one player, five Legends
    assert out["weather"] in ("cloud", "fog", "storm", "snow", "rain", "sun") and len(out["road_conditions"]) == 4
    # # 19.10: a Legend has no Engine: no Heat left on it (null), where the player's car has a number
    assert [row["engine"] is None for row in out["order"]] == [row["bot"] == "Legend" for row in out["order"]]
    table = run("simulate", "--cars", "1", "--legends", "2", "--seed", "3", db=tmp_path / "h.db").stdout
    legend_rows = [line for line in table.splitlines() if "Legend-" in line]
    assert len(legend_rows) == 2 and all(line.rstrip(" │").endswith("–") for line in legend_rows), table


def test_cli_simulate_refuses_too_many_legends(tmp_path: Path) -> None:
    r = run("simulate", "--cars", "4", "--legends", "3", db=tmp_path / "h.db")
    assert r.returncode != 0 and r.stderr.startswith("Error: ") and "2 to 6 cars" in r.stderr


def test_cli_new_with_legends_and_weather_then_show(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    r = run(
        "new",
        "--car",
        "Ann:red",
        "--legend",
        "black",
        "--legend",
        "gray",
        "--weather",
        "--tile",
        "rain",
        "--road",
        "weather,overheat,limit+1,heat-control",
        db=db,
    )
    assert r.returncode == 0, r.stderr
    show = run("show", db=db)
    assert show.returncode == 0, show.stderr
    assert "weather: Rain" in show.stdout and "C3 limit+1: limit +1: 3 → 4" in show.stdout
    assert "Legend-Black" in show.stdout and "waiting for: gears" in show.stdout
    bad = run("new", "--car", "Ann:red", "--legend", "white", db=db)
    assert bad.returncode != 0 and "Legend card" in bad.stderr  # # 19.4
    # # 20.2: the tile and the tokens by their printed names, in any case, as --legend and --track take them
    # (a capital was refused with the schema's pattern: "does not match the pattern ^[a-z]...")
    r = run(
        "new",
        "--car",
        "Ann:red",
        "--car",
        "Bob:blue",
        "--weather",
        "--tile",
        "RAIN",
        "--road",
        "Weather, OVERHEAT,limit+1,Heat-Control",
        db=db,
    )
    assert r.returncode == 0, r.stderr
    shown = run("show", db=db).stdout
    assert "weather: Rain" in shown and "C2 overheat" in shown and "C4 heat-control" in shown, shown


def test_recorder_asks_tile_tokens_and_the_legend_card(tmp_path: Path) -> None:
    with RaceLog(tmp_path / "h.db") as log:
        race = start_race(
            log,
            track="usa",
            cars=[{"name": "Ann", "colour": "red"}],
            modules={"legends": {"cars": [{"name": "Legend-Black", "colour": "black"}]}, "weather": {}},
            mode="table",
            grid=["Legend-Black", "Ann"],
        )
        s = Session(log, race)
        assert s.question.kind == "weather" and "rain" in s.question.options
        assert s.answer("rain")[0].text == "  ✓ weather rain"  # echoed in words, as every answer is
        assert s.question.kind == "road" and "heat-control" in s.question.options
        lines = s.answer("weather overheat")  # USA has four corners
        assert any("4 corners" in line.text for line in lines)
        lines = s.answer("weather overheat limit+1 heat-control")
        assert lines[0].text == (
            "  ✓ road conditions corner 1 weather, corner 2 overheat, corner 3 limit+1, corner 4 heat-control"
        )
        while s.question.kind == "setup_shuffle" or s.question.kind == "setup_draw":
            lines += s.answer("")
        texts = [line.text for line in lines]
        assert (
            "  Legend-Black: space 69 (race line), lap 1/2, Legend (moved by the Legend card); next: corner 1, "
            "limit 7, 13 spaces ahead" in texts
        )  # # 19.1: no gear, Engine or hand on a Legend's line
        assert s.question.kind == "gear"
        s.answer("1")
        assert s.question.kind == "legend"  # the Legend on pole moves first, with the round's card (# 19.5)
        assert "Legend-Black's helmet number" in s.question.prompt
        assert "not yet turned" in s.question.hint
        assert "no Legend card gives black the number 25" in s.answer("25")[0].text
        lines = s.answer("16")  # black 16 is card 1 (# 19.4): 68 + ... from the grid: diamond 2 = space 10
        state = log.project(race).state
        assert "legends" in state.modules and state.modules["legends"].deck.used == [1]
        assert state.cars["Legend-Black"].progress == 10
        assert lines[0].text == "  ✓ Legend-Black: Legend card 1 (black 16)"
        assert any("Legend" in line.text and "diamond 2" in line.text for line in lines)
        assert s.question.kind == "reveal" and s.question.car == "Ann"
        # undo of the Legend card: the status line said "Legend-Black …, gear 1, Engine 0, hand 0 hidden" (# 19.1)
        undone = [line.text for line in s.answer("undo")]
        assert s.question.kind == "legend"
        now = next(t for t in undone if t.startswith("now:"))
        assert now.endswith("Legend-Black on space 69 (race line), a Legend (moved by the Legend card)"), now
        assert "Engine" not in now and "hand" not in now and "gear" not in now


def test_combined_sample_imports_replays_and_draws_in_chromium(tmp_path: Path) -> None:
    text = COMBINED.read_text(encoding="utf-8")
    events = [json.loads(line) for line in text.splitlines()]
    state = replay(events)
    assert "legends" in state.modules and conditions_of(state) is not None  # both modules in one race
    with RaceLog(tmp_path / "h.db") as log:
        race = import_race(log, text, source=COMBINED.name)
        assert log.store.export_jsonl(race) == text
    page = tmp_path / "combined.html"
    page.write_text(render_html(build_replay(events)), encoding="utf-8")
    dom = browser.dump_dom(page.as_uri())
    assert 'class="road-conditions"' in dom and dom.count('class="road-token') >= 4
    assert "Legend: no cards" in dom and "weather:" in dom
    shot = browser.screenshot(page.as_uri(), tmp_path / "combined.png")
    assert browser.colour_count(shot) > 50


def test_set_up_echoes_legends_and_their_options_in_words() -> None:
    from heatlog.recorder.wizard import NewRace

    wiz = NewRace(modules={"weather": {}})
    wiz.answer("")  # no race name
    wiz.answer("usa")
    assert "at least one player" in wiz.answer("legend:black legend:white")
    assert wiz.answer("Ann:red legend:black") == "cars: Ann (red); Legends: Legend-Black"
    assert wiz.prompt().startswith("Legend options")
    assert "0 to 6" in wiz.answer("pro 9")  # # 19.15
    assert wiz.answer("pro 2 aggressive") == "Legends: pro +2, aggressive"


def test_cli_new_with_the_garage_then_the_draft_is_recorded(tmp_path: Path) -> None:
    """``heatlog new --garage`` starts a Garage race as ``record --new`` and ``simulate --garage`` do (# 18.3,
    18.5): the options are recorded in race_started, and the race then waits for the draft the table plays."""
    db = tmp_path / "h.db"
    r = run(
        "new",
        "--car",
        "Ann:red",
        "--car",
        "Bob:blue",
        "--grid",
        "Ann,Bob",
        "--garage",
        "basic",
        "--draft",
        "snake",
        "--expansion",
        "heavy-rain",
        db=db,
    )
    assert r.returncode == 0, r.stderr
    with RaceLog(db) as log:
        first = log.project(1).effective.entries[0].event
        assert first["garage"] == {"upgrades": "basic", "draft": "snake", "expansions": ["heavy-rain"]}
        assert "garage" in first["modules"] and first["cards"]  # the race's upgrades travel with it
    assert "waiting for: the Garage market (# 18.5)" in run("show", db=db).stdout
    with RaceLog(db) as log:
        s = Session(log, 1)
        assert s.question.kind == "garage" and "round 1: the 7 cards revealed" in s.question.prompt  # 2 × 2 + 3
        s.answer("4wd4 4wd0boost3 body3 body5 brakes13 brakes24 heat")
        assert s.question.prompt.startswith("Bob picks one of")  # # 18.5: the snake's round 1 starts with the last
    for bad, says in [
        (["--draft", "snake"], "give --garage too"),
        (["--expansion", "heavy-rain"], "give --garage too"),
        # named by the option typed, not only by the log's field ("upgrades must be …" of --garage fancy)
        (["--garage", "fancy"], "--garage fancy: upgrades must be one of basic, advanced, all"),
        (["--garage", "basic", "--draft", "auction"], "--draft auction: draft must be one of random, draft, snake"),
        (
            ["--garage", "basic", "--expansion", "monsoon"],
            "--expansion monsoon: expansions must be a list of heavy-rain, tunnel-vision",
        ),
    ]:
        r = run("new", "--car", "Ann:red", "--car", "Bob:blue", *bad, db=db)
        assert r.returncode != 0 and r.stderr.startswith("Error: ") and says in r.stderr, (bad, r.stderr)
    position = tmp_path / "pos.json"
    position.write_text(run("position", "--race", "1", db=db).stdout)
    r = run("new", "--from-position", str(position), "--garage", "basic", db=db)
    assert r.returncode != 0 and "--garage" in r.stderr, r.stderr  # the position says the set-up
    with RaceLog(db) as log:
        assert [race.id for race in log.store.races()] == [1]  # nothing was written by a refused set-up


def test_19_12_a_legend_in_a_garage_race_is_not_said_to_have_no_upgrades_yet(tmp_path: Path) -> None:
    # # 19.12: Legends never draft. show printed "upgrades Legend-Black: none yet" and the HTML replay's hand
    # cell "Legend: no cards · upgrades: none yet", as if its upgrades were to come
    db = tmp_path / "h.db"
    r = run("simulate", "--cars", "2", "--legends", "1", "--garage", "basic", "--seed", "3", db=db)
    assert r.returncode == 0, r.stderr
    shown = run("show", db=db).stdout
    assert "upgrades Red:" in shown and "upgrades Blue:" in shown and "upgrades Legend" not in shown, shown
    page = tmp_path / "r.html"
    assert run("replay", "--html", str(page), db=db).returncode == 0
    text = page.read_text(encoding="utf-8")
    start = text.index('id="replay-data">') + len('id="replay-data">')
    data = json.loads(text[start : text.index("</script>", start)])
    found = 0

    def walk(x: object) -> None:
        nonlocal found
        if isinstance(x, dict):
            if x.get("legend") is True and "upgrades" in x:
                found += 1
                assert x["upgrades"] is None, x
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(data)
    assert found, "no Legend car in the page's data"
    assert "none yet" not in text
