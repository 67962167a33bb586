"""An analyst's and a season organiser's walk (h42, second round): simulate, stats, compare, playout and the
season commands read as a user reads them, through the real entry point (``python -m heatlog.cli``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


def heatlog(*args: str, columns: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns)} if columns else None
    cmd = [sys.executable, "-m", "heatlog.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)


def test_compare_of_two_what_ifs_played_on_by_other_bots(tmp_path: Path) -> None:
    """Two branches of one race at round 14, played on by heuristic and by random bots. `heatlog compare`
    diverged at their play-on notes (a note changes nothing), so its playouts played both sides from the same
    state and answered +0.00 for every car, 95 % interval +0.00…+0.00, however different the branches; the note
    was shown as its fields, the bots as a Python dict. It diverges at their first differing decision now (notes
    are beside the race), and the answers differ. At 80 columns its round table cut "A lap:space" to
    "lap:sp…" and a finished car to "finish…"."""
    import json

    from rich.cells import cell_len

    db = str(tmp_path / "r.db")
    assert heatlog("import", str(REPLAYS / "usa-4cars.jsonl"), "--db", db).returncode == 0
    for name, bots in (("heuristic", "heuristic"), ("random", "random")):
        branch = ["branch", "-r", "1", "--at-round", "14", "--name", name, "--play-on", "--bots", bots]
        r = heatlog(*branch, "--seed", "1", "--db", db)
        assert r.returncode == 0, r.stderr
    r = heatlog("compare", "2", "3", "--db", db, columns=80)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "…" not in out, out
    assert "lap:space" in out and "finished" in out, out
    assert all(cell_len(line) <= 80 for line in out.splitlines()), out
    assert "note" not in out.split("each car")[0], out
    r = heatlog("compare", "2", "3", "-k", "8", "--seed", "1", "--workers", "1", "--json", "--db", db)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    d = data["diverge"]
    assert d["a"]["type"] != "note" and d["b"]["type"] != "note" and d["round"] == 14, d
    assert any(x["difference"] != 0 for x in data["playouts"]["difference"]), data["playouts"]
    assert heatlog("compare", "2", "2", "--db", db).stdout.strip() == "races 2 and 2 have the same log"


def test_18_13_stats_of_a_garage_race_count_the_heat_its_upgrades_cooled(tmp_path: Path) -> None:
    """# 18.13, 18.22: `heatlog stats` of a Garage race counted the Heat cooled by the gear and adrenaline only,
    so the Engine did not add up: Green paid 15 Heat and cooled 6, from 6 on the Engine, and ended with 0 (its
    upgrades' Cooldowns had moved the other 3). Heat on the Engine at the start + cooled − paid = Heat left, for
    every car, and the upgrades' share is a row of its own."""
    import json

    db = str(tmp_path / "g.db")
    for extra in ([], ["--expansion", "heavy-rain"]):
        r = heatlog("simulate", "--cars", "3", "--garage", "advanced", "--seed", "3", *extra, "--db", db)
        assert r.returncode == 0, r.stderr
    upgrades = 0
    for race in ("1", "2"):
        r = heatlog("stats", "--race", race, "--json", "--db", db)
        assert r.returncode == 0, r.stderr
        for car in json.loads(r.stdout)["cars"]:
            cooled, paid = car["heat_cooled"], car["heat_paid"]
            assert cooled["total"] == cooled["gear"] + cooled["adrenaline"] + cooled["upgrades"], car
            assert 6 + cooled["total"] - paid["total"] == car["engine_left"], (race, car["car"], cooled, paid)
            upgrades += cooled["upgrades"]
    assert upgrades > 0  # the races did use an upgrade's Cooldown
    r = heatlog("stats", "--race", "1", "--db", db, columns=120)
    assert "Heat cooled: upgrades" in r.stdout and "Heat cooled: total" in r.stdout, r.stdout


def test_the_season_page_s_races_fit_a_phone_without_scrolling(tmp_path: Path) -> None:
    """A 1961 season played on by bots, its page at 390 px: the races table (circuit, event card, winner, how it
    was recorded, replay link) was 395 px in a 348 px card, so each race's replay link sat half off the screen
    and every event card's words were cut at the card's edge until the reader scrolled the table sideways."""
    import pytest

    from tests.browser import LAUNCH_ARGS, PHONE, chromium

    sync_api = pytest.importorskip("playwright.sync_api")
    exe = chromium()
    db = str(tmp_path / "s.db")
    cars = ["--car", "Ann:red", "--car", "Bob:blue", "--car", "Cy:green"]
    assert heatlog("season", "new", "--published", "1961", *cars, "--db", db).returncode == 0
    for race in ("1", "2", "3"):
        assert heatlog("season", "next", "1", "--seed", race, "--db", db).returncode == 0
        assert heatlog("play-on", "-r", race, "--seed", race, "--db", db).returncode == 0
    page_file = tmp_path / "season.html"
    assert heatlog("season", "show", "1", "--html", str(page_file), "--db", db).returncode == 0
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=LAUNCH_ARGS)
        page = browser.new_context(**PHONE).new_page()
        page.goto(page_file.as_uri())
        page.wait_for_selector("#races")
        card = page.evaluate(
            "() => { const c = document.querySelector('#races').closest('section');"
            " const r = c.getBoundingClientRect(); return [c.scrollWidth, c.clientWidth, r.right]; }"
        )
        links = page.evaluate(
            "() => [...document.querySelectorAll('#races a')].map(a => a.getBoundingClientRect().right)"
        )
        browser.close()
    assert card[0] <= card[1], card  # the table fits its card: nothing to scroll sideways
    assert len(links) == 3 and all(right <= card[2] for right in links), (links, card)


def test_simulate_names_a_race_s_garage_and_legends_and_keeps_words_whole(tmp_path: Path) -> None:
    """# 18.3, 19.1, 19.14, 19.15: `heatlog simulate --garage advanced` printed the very title a base race has
    (weather named itself; the Garage and Legends did not), and with Legends on the grid at 80 columns rich cut
    "spinouts" and "slipstreams" to "spinou…" and "slipst…" and gave each Legend 0 spinouts, boosts and
    slipstreams, which it cannot have (# 19.10)."""
    import json

    from rich.cells import cell_len

    db = str(tmp_path / "m.db")
    legends = ["simulate", "--cars", "3", "--legends", "2", "--pro", "2", "--aggressive", "--seed", "5", "--db", db]
    r = heatlog(*legends, columns=80)
    assert r.returncode == 0, r.stderr
    assert "…" not in r.stdout and all(cell_len(line) <= 80 for line in r.stdout.splitlines()), r.stdout
    assert "2 Legends, pro +2, aggressive" in r.stdout, r.stdout
    rows = [line.split("│")[1:-1] for line in r.stdout.splitlines() if "Legend-" in line]
    assert len(rows) == 2 and all([c.strip() for c in row[4:]] == ["–"] * 4 for row in rows), rows
    r = heatlog("simulate", "--cars", "3", "--garage", "advanced", "--seed", "3", "--db", db, columns=80)
    assert r.returncode == 0 and "Garage advanced upgrades (draft)" in r.stdout, r.stdout
    r = heatlog(
        "simulate", "--cars", "2", "--garage", "basic", "--draft", "snake", "--legends", "1", "--json", "--db", db
    )
    race = json.loads(r.stdout)
    assert race["garage"] == {"upgrades": "basic", "draft": "snake", "expansions": []}, race
    assert race["legends"] == {"cars": 1, "pro": 0, "aggressive": False}, race


def test_playout_says_which_bots_played_and_other_bots_answer_otherwise(tmp_path: Path) -> None:
    """`heatlog playout --bots random` and `--bots heuristic` answer very differently (random bots take twice
    the rounds), but both printed the same title, "…playouts over public information, seed 1": nothing on the
    screen said which bots the answer is about. The title and the JSON name them now."""
    import json

    db = str(tmp_path / "p.db")
    assert heatlog("import", str(REPLAYS / "usa-4cars.jsonl"), "--db", db).returncode == 0
    base = ["playout", "-r", "1", "--round", "5", "-k", "6", "--seed", "1", "--workers", "1", "--db", db]
    said = {}
    left = {}
    for bots in ("heuristic", "random", "heuristic,random,random,random"):
        r = heatlog(*base, "--bots", bots, columns=200)
        assert r.returncode == 0, r.stderr
        said[bots] = r.stdout.splitlines()[0]
        out = json.loads(heatlog(*base, "--bots", bots, "--json").stdout)
        cars = list(out["bots"])
        assert out["bots"] == dict(zip(cars, bots.split(",") * (4 if "," not in bots else 1), strict=True))
        left[bots] = sum(c["rounds_to_finish"] for c in out["cars"])
    assert "heuristic bots, seed 1" in said["heuristic"] and "random bots, seed 1" in said["random"], said
    assert f"bots {cars[0]} heuristic, {cars[1]} random" in said["heuristic,random,random,random"], said
    assert left["random"] > 1.5 * left["heuristic"], left  # the options do give different answers
