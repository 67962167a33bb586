"""heatlog playout, compare, branch --play-on and play-on through the real entry point (issue 12)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from test_cli import HEATLOG, run

from heatlog.formats.tracks import load_track

GOLDEN_TABLE = Path(__file__).parent / "golden" / "golden_italy_table.jsonl"


@pytest.fixture(scope="module")
def simdb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("analysis") / "h.db"
    r = run("simulate", "--cars", "3", "--seed", "4", db=db)
    assert r.returncode == 0, r.stderr
    return db


def on_one_and_two_workers(db: Path, *args: str) -> list[Any]:
    """The --json answers of one command on the same database with --workers 1 and --workers 2."""
    outs = []
    for workers in ("1", "2"):
        r = run(*args, "--workers", workers, "--json", db=db)
        assert r.returncode == 0, r.stderr
        outs.append(json.loads(r.stdout))
    return outs


def test_playout_prints_the_distribution_and_is_the_same_on_any_number_of_workers(simdb: Path) -> None:
    outs = on_one_and_two_workers(simdb, "playout", "--race", "1", "--round", "6", "-k", "40", "--seed", "3")
    assert outs[0] == outs[1]
    out = outs[0]
    assert out["playouts"] == 40 and not out["partial"] and out["round"] == 6 and out["viewer"] is None
    cars = {c["car"]: c for c in out["cars"]}
    assert set(cars) == {"Red", "Blue", "Green"}
    assert sum(c["win"] for c in cars.values()) == pytest.approx(1.0, abs=1e-3)
    for c in cars.values():
        lo, hi = c["place_95"]
        assert 1 <= lo <= c["mean_place"] <= hi <= 3.5 and c["rounds_to_finish"] > 0
    table = run("playout", "--race", "1", "--round", "6", "-k", "16", "--seed", "3", "--workers", "1", db=simdb)
    said = " ".join(table.stdout.split())
    assert table.returncode == 0 and "16 playouts over public information, heuristic bots, seed 3" in said
    assert "1st" in table.stdout and "95 %" in table.stdout


def test_playout_from_a_position_file_and_as_a_car(simdb: Path, tmp_path: Path) -> None:
    pos = run("position", "--race", "1", "--round", "8", db=simdb)
    assert pos.returncode == 0
    path = tmp_path / "r8.json"
    path.write_text(pos.stdout)
    r = run("playout", "--position", str(path), "-k", "16", "--seed", "1", "--workers", "1", "--as", "Red", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["viewer"] == "Red" and out["round"] == 8 and out["playouts"] == 16
    bad = run("playout", "--position", str(path), "--race", "1", db=simdb)
    assert bad.returncode != 0 and "not both" in bad.stderr
    over = run("playout", "--race", "1", "-k", "4", db=simdb)
    assert over.returncode != 0 and "the race is over" in over.stderr


def test_piped_playouts_and_simulations_leave_standard_error_empty(simdb: Path, tmp_path: Path) -> None:
    # the progress bar, drawn only in a terminal, left a blank line on a piped standard error
    for args, db in (
        (("playout", "--race", "1", "--round", "6", "-k", "4", "--workers", "1", "--seed", "1"), simdb),
        (("compare", "1", "1", "-k", "4", "--workers", "1"), simdb),
        (("simulate", "--races", "2", "--seed", "1", "--workers", "1"), tmp_path / "s.db"),
    ):
        r = run(*args, db=db)
        assert r.returncode == 0 and r.stderr == "", (args, r.stderr)


def test_playout_refuses_bad_input_clearly(simdb: Path) -> None:
    for args, words in (
        (["--bots", "oracle"], "unknown bot"),
        (["--bots", "heuristic,random"], "2 bots for 3 cars"),
        (["-k", "0"], "at least one"),
        (["--as", "Nobody"], "no car named 'Nobody'"),
        (["--workers", "0"], "at least one worker"),
    ):
        r = run("playout", "--race", "1", "--round", "5", *args, db=simdb)
        assert r.returncode != 0 and words in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)


def test_review_refuses_a_round_the_race_does_not_have(simdb: Path) -> None:
    # review --round 99 reviewed "0 of 0 decisions" and exited 0, as if the round had no decision to review
    rounds = json.loads(run("show", "--race", "1", "--json", db=simdb).stdout)["round"]
    for wrong in ("0", str(rounds + 1), "-2"):
        r = run("review", "--race", "1", "--car", "Red", "--round", wrong, "--workers", "1", db=simdb)
        said = f"race 1: no round {wrong} (rounds 1–{rounds})"
        assert r.returncode == 1 and said in r.stderr and "decisions reviewed" not in r.stdout, (wrong, r)


def test_branch_play_on_with_a_bot_unknown_makes_no_branch(simdb: Path) -> None:
    # the branch was created, then the unknown bot refused: the command failed and left a branch behind
    before = run("races", "--all", "--json", db=simdb).stdout
    for bots, said in (("oracle", "unknown bot 'oracle'"), ("random,random", "2 bots for 3 cars")):
        r = run("branch", "--race", "1", "--at-round", "3", "--name", "x", "--play-on", "--bots", bots, db=simdb)
        assert r.returncode == 1 and said in r.stderr and "branch" not in r.stderr.split("Error")[0], r.stderr
    assert run("races", "--all", "--json", db=simdb).stdout == before


def test_playout_of_a_race_without_its_grid_is_refused_as_play_on_refuses_it(tmp_path: Path) -> None:
    # a race whose grid was undone crashed playout (KeyError, "internal error"); play-on refused it plainly
    db = tmp_path / "h.db"
    assert run("new", "--car", "Ann:red", "--car", "Bob:blue", "--seed", "1", db=db).returncode == 0
    for _ in range(5):  # back to the race's set-up event: no grid
        assert run("undo", db=db).returncode == 0
    for args in (["playout", "-k", "2", "--workers", "1"], ["play-on"]):
        r = run(*args, db=db)
        assert r.returncode == 1 and "race 1" in r.stderr and "the race has no grid yet" in r.stderr, (args, r)


def test_compare_refuses_negative_playouts_in_the_option_s_words(simdb: Path) -> None:
    # "-1 playouts: play at least one", though compare takes 0 (none)
    r = run("compare", "1", "1", "--playouts", "-1", db=simdb)
    assert r.returncode == 1 and "--playouts -1: 0 (none) or more" in r.stderr, r.stderr


def test_one_playout_one_lap_one_mistake_in_the_singular(simdb: Path, tmp_path: Path) -> None:
    # "1 playouts over public information", a race of "1 laps", a review's "1 mistakes"
    r = run("playout", "--race", "1", "--round", "3", "-k", "1", "--seed", "1", "--workers", "1", db=simdb)
    assert r.returncode == 0 and "race 1, start of round 3: 1 playout over public information" in r.stdout, r
    r = run("simulate", "--cars", "2", "--laps", "1", "--seed", "1", db=tmp_path / "one.db")
    assert r.returncode == 0 and "race 1: USA, 1 lap, seed 1:" in r.stdout, r.stdout
    from heatlog.views import labels

    assert labels({"blunder": 0, "mistake": 1, "inaccuracy": 1}) == "0 blunders, 1 mistake, 1 inaccuracy"


def test_playout_refuses_a_position_new_refuses(simdb: Path, tmp_path: Path) -> None:
    # # 1.2: a car holds exactly its own cards. playout --position checked only the schema, so a position that
    # new --from-position refuses (a Heat card more than the car owns) was played out as if it could be
    pos = json.loads(run("position", "--race", "1", "--round", "3", db=simdb).stdout)
    pos["cars"][0]["discard"].append("H")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(pos), encoding="utf-8")
    made = run("new", "--from-position", str(bad), db=tmp_path / "new.db")
    played = run("playout", "--position", str(bad), "-k", "2", "--workers", "1", db=simdb)
    for r in (made, played):
        assert r.returncode == 1 and f"position file {bad}: cars[0]:" in r.stderr and "owns" in r.stderr, r.stderr


def test_review_of_a_car_named_twice_reviews_it_once(simdb: Path) -> None:
    # --car Red --car Red reviewed every decision twice: "Red: 0 of 2 decisions ...", then "Red: 4 of 2 ..."
    args = ["review", "--race", "1", "--round", "3", "--screen", "2", "--max-playouts", "4", "--workers", "1"]
    once = run(*args, "--car", "Red", "--json", db=simdb)
    twice = run(*args, "--car", "Red", "--car", "Red", "--json", db=simdb)
    assert once.returncode == twice.returncode == 0, twice.stderr
    cars = json.loads(twice.stdout)["cars"]
    assert [c["car"] for c in cars] == ["Red"] and cars == json.loads(once.stdout)["cars"]


def test_19_1_review_says_a_legend_is_not_reviewed_instead_of_0_of_0_decisions(tmp_path: Path) -> None:
    # a Legend is moved by the Legend cards (# 19.1): the review said "Legend-Black: 0 of 0 decisions reviewed;
    # accuracy —; ...", as if a player's decisions had been looked for and none found
    db = tmp_path / "l.db"
    assert run("simulate", "--cars", "1", "--legends", "1", "--seed", "1", "--workers", "1", db=db).returncode == 0
    args = ["review", "--race", "1", "--round", "1", "--screen", "2", "--keep", "0", "--max-playouts", "2"]
    r = run(*args, "--workers", "1", db=db)
    said = " ".join(r.stdout.split())
    assert r.returncode == 0, r.stderr
    assert "Legend-Black: a Legend, moved by the Legend cards: it makes no decisions, so it is not reviewed" in said
    # 5: the discard Red made during React is two decisions, "no (more) React" and the discard (issue 28)
    assert "Legend-Black: 0 of 0" not in said and "Red: 5 of 5 decisions reviewed" in said
    alone = run(*args, "--car", "Legend-Black", "--workers", "1", "--json", db=db)
    assert alone.returncode == 0, alone.stderr
    cars = json.loads(alone.stdout)["cars"]
    assert [(c["car"], c["legend"], c["decisions"]) for c in cars] == [("Legend-Black", True, [])]
    page = tmp_path / "r.html"
    assert run(*args, "--car", "Legend-Black", "--workers", "1", "--html", str(page), db=db).returncode == 0
    assert "it makes no decisions, so it is not reviewed" in page.read_text() and "0 of 0" not in page.read_text()


def test_compare_without_playouts_refuses_the_playouts_options(simdb: Path) -> None:
    # compare 1 1 --as Nobody (no --playouts) dropped --as, --bots and --seed without a word
    r = run("compare", "1", "1", "--as", "Nobody", "--seed", "3", db=simdb)
    said = " ".join(r.stderr.split())
    assert r.returncode == 1 and "--as, --seed: they choose how the playouts are played: add --playouts K" in said


def test_play_on_of_a_finished_race_names_the_race(simdb: Path) -> None:
    # "the race is over: there is nothing to play on" did not say which race (playout's refusal does)
    r = run("play-on", "--race", "1", db=simdb)
    assert r.returncode == 1 and "race 1: the race is over: there is nothing to play on" in r.stderr, r.stderr


def test_branch_play_on_records_a_what_if_that_replay_and_audit_read(simdb: Path) -> None:
    r = run(
        "branch",
        "--race",
        "1",
        "--at-round",
        "5",
        "--name",
        "bots again",
        "--play-on",
        "--seed",
        "2",
        "--bots",
        "random",
        db=simdb,
    )
    assert r.returncode == 0, r.stderr
    bid = int(r.stdout.strip().splitlines()[-1])
    assert "played on with seed 2" in r.stderr
    show = run("show", "--race", str(bid), "--json", db=simdb)
    assert show.returncode == 0 and json.loads(show.stdout)["phase"] == "over"
    assert run("audit", "--race", str(bid), db=simdb).returncode == 0
    assert run("replay", "--race", str(bid), "--round", "6", db=simdb).returncode == 0
    again = run("play-on", "--race", str(bid), db=simdb)
    assert again.returncode != 0 and "the race is over" in again.stderr
    no = run("branch", "--race", "1", "--at-round", "5", "--name", "x", "--seed", "2", db=simdb)
    assert no.returncode != 0 and "add --play-on" in no.stderr


def test_compare_a_race_and_a_branch_at_a_known_divergence(simdb: Path) -> None:
    """A branch at round 7 whose first event is another gear for the first car: compare finds exactly that
    event, shows the rounds after it, and with playouts gives both distributions and their difference."""
    r = run("branch", "--race", "1", "--at-round", "7", "--name", "other gear", db=simdb)
    assert r.returncode == 0, r.stderr
    bid = r.stdout.strip().splitlines()[-1]
    pos = json.loads(run("position", "--race", bid, db=simdb).stdout)
    first = pos["pending"][0]
    prefix = run("export", "--race", bid, db=simdb).stdout.splitlines()
    whole = run("export", "--race", "1", db=simdb).stdout.splitlines()
    recorded = json.loads(whole[len(prefix)])
    assert recorded["type"] == "gear_chosen" and recorded["car"] == first  # the original's next event
    add = None
    for g in (g for g in (1, 2, 3, 4) if g != recorded["gear"]):
        add = run("add", "--race", bid, json.dumps({"type": "gear_chosen", "v": 1, "car": first, "gear": g}), db=simdb)
        if add.returncode == 0:
            break
    assert add is not None and add.returncode == 0, add.stderr if add else ""
    play = run("play-on", "--race", bid, "--seed", "1", db=simdb)
    assert play.returncode == 0, play.stderr
    out = run("compare", "1", bid, "-k", "32", "--seed", "5", "--workers", "1", "--json", db=simdb)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    d = data["diverge"]
    assert d["round"] == 7 and d["b"]["car"] == first and d["b"]["type"] == "gear_chosen"
    assert d["a"] != d["b"]
    assert data["rounds"][0]["round"] == 7 and data["rounds"][-1]["round"] > 7
    p = data["playouts"]
    assert p["playouts"] == 32 and not p["partial"] and p["viewer"] == first
    diffs = {x["car"]: x for x in p["difference"]}
    a = {x["car"]: x["mean_place"] for x in p["a"]}
    b = {x["car"]: x["mean_place"] for x in p["b"]}
    for name, x in diffs.items():
        assert x["difference"] == pytest.approx(a[name] - b[name], abs=1e-3)
        lo, hi = x["difference_95"]
        assert lo <= x["difference"] <= hi
        assert x["playouts_for_0.1"]["crn"] >= 0
    text = run("compare", "1", bid, db=simdb)
    assert text.returncode == 0 and f"diverge at event {d['event']} (round 7)" in text.stdout
    same = run("compare", "1", "1", db=simdb)
    assert same.returncode == 0 and "the same log" in same.stdout


def test_compare_shows_no_round_end_a_branch_has_not_reached(simdb: Path) -> None:
    """A branch at round 6 with one different gear and nothing more: its log stops inside round 6, so it has
    no end of round 6 (docs/analysis.md: "at the end of every round since"); its start-of-round positions
    were shown there, beside the race's end-of-round ones, as if its cars had not moved."""
    r = run("branch", "--race", "1", "--at-round", "6", "--name", "one gear", db=simdb)
    assert r.returncode == 0, r.stderr
    bid = r.stdout.strip().splitlines()[-1]
    first = json.loads(run("position", "--race", bid, db=simdb).stdout)["pending"][0]
    whole = run("export", "--race", "1", db=simdb).stdout.splitlines()
    prefix = run("export", "--race", bid, db=simdb).stdout.splitlines()
    recorded = json.loads(whole[len(prefix)])
    for g in (g for g in (1, 2, 3, 4) if g != recorded["gear"]):
        ev = json.dumps({"type": "gear_chosen", "v": 1, "car": first, "gear": g})
        if run("add", "--race", bid, ev, db=simdb).returncode == 0:
            break
    out = run("compare", "1", bid, "--json", db=simdb)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["rounds"]
    assert rows[0]["round"] == 6 and rows[0]["a"] is not None
    assert all(row["b"] is None for row in rows), rows[0]["b"]
    text = run("compare", "1", bid, db=simdb).stdout
    six = [line for line in text.splitlines() if line.startswith("│     6 │")]
    assert len(six) == 3 and all(line.count("–") == 3 for line in six), six


def test_19_10_compare_gives_a_legend_no_engine_or_stress(tmp_path: Path) -> None:
    # a Legend has no Engine and no cards (# 19.1, 19.10): compare showed Engine 0 and Stress 0 for it
    db = tmp_path / "l.db"
    assert run("simulate", "--cars", "2", "--legends", "2", "--seed", "3", db=db).returncode == 0
    r = run("branch", "--race", "1", "--at-round", "6", "--name", "again", "--play-on", "--seed", "1", db=db)
    assert r.returncode == 0, r.stderr
    data = json.loads(run("compare", "1", "2", "--json", db=db).stdout)
    assert data["rounds"]
    for row in data["rounds"]:
        for side in (row["a"], row["b"]):
            for name, car in (side or {}).items():
                legend = name.startswith("Legend-")
                assert (car["engine"] is None) == legend and (car["stress"] is None) == legend, (name, car)
    assert "Traceback" not in run("compare", "1", "2", db=db).stderr


def test_table_mode_play_on_and_playout(tmp_path: Path) -> None:
    """A table-mode race (hidden hands): the play-on draws a world from what the table knew and writes
    table-mode events (counts, reveals, shuffles without order) that the door and the audit accept."""
    db = tmp_path / "t.db"
    assert run("import", str(GOLDEN_TABLE), db=db).returncode == 0
    r = run("branch", "--race", "1", "--at-round", "4", "--name", "w", "--play-on", "--seed", "3", db=db)
    assert r.returncode == 0, r.stderr
    bid = r.stdout.strip().splitlines()[-1]
    assert run("audit", "--race", bid, db=db).returncode == 0
    lines = [json.loads(x) for x in run("export", "--race", bid, db=db).stdout.splitlines()]
    kinds = {e.get("type") for e in lines}
    assert "cards_played" not in kinds and "cards_revealed" in kinds
    assert all("order" not in e for e in lines if e.get("type") == "deck_shuffled")
    assert all("cards" not in e for e in lines if e.get("type") == "cards_drawn")
    p = run("playout", "--race", "1", "--round", "5", "-k", "16", "--seed", "1", "--workers", "1", "--json", db=db)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["playouts"] == 16


def test_table_mode_play_on_from_a_car_waiting_to_reveal(tmp_path: Path) -> None:
    """A table-mode race stopped at a car's reveal (# 5.1: its gear chosen, its cards not yet shown), as a
    recorder left at "Ann reveals 2:" leaves it: the play-on's own reveal of that turn was taken for a
    cards_played of the next round ("in gear 2 play exactly 2 cards, not 3") and nothing was played on."""
    from heatlog.engine import apply

    events = [json.loads(x) for x in GOLDEN_TABLE.read_text(encoding="utf-8").splitlines() if x.strip()]
    state, cut = None, 0
    for i, ev in enumerate(events):
        state = apply(state, ev, atomic=False)
        if state.round >= 3 and state.turn is not None and not state.turn.revealed and not state.turn.played:
            cut = i + 1
            break
    assert cut
    part = tmp_path / "part.jsonl"
    part.write_text("".join(json.dumps(e) + "\n" for e in events[:cut]), encoding="utf-8")
    db = tmp_path / "t.db"
    assert run("import", str(part), db=db).returncode == 0
    played = run("play-on", "--race", "1", "--seed", "1", db=db)
    assert played.returncode == 0, played.stderr
    assert run("audit", "--race", "1", db=db).returncode == 0
    assert json.loads(run("show", "--race", "1", "--json", db=db).stdout)["phase"] == "over"


def test_a_race_in_its_garage_draft_is_not_played_on(tmp_path: Path) -> None:
    """# 18.5, 21.2: the draft's markets are what the table reveals; playout and play-on stopped with "the race
    waits for nothing the game can draw" and now say why, writing nothing."""
    db = tmp_path / "g.db"
    cars = ("--car", "Ann:red", "--car", "Bob:blue")
    assert run("season", "new", "--published", "1961", *cars, "--garage", "basic", db=db).returncode == 0
    assert run("season", "next", "1", "--seed", "1", db=db).returncode == 0
    before = run("export", db=db).stdout
    for args in (("playout", "-k", "4", "--workers", "1", "--seed", "1"), ("play-on", "--seed", "1")):
        r = run(*args, db=db)
        assert r.returncode == 1 and "the race is in its Garage draft" in r.stderr, (args, r.stderr)
        assert "waits for nothing" not in r.stderr
    assert run("export", db=db).stdout == before


@pytest.mark.skipif(HEATLOG is None, reason="needs the heatlog entry point")
def test_ctrl_c_stops_playouts_with_a_partial_result(simdb: Path) -> None:
    env = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [
            HEATLOG or "heatlog",
            "playout",
            "--race",
            "1",
            "--round",
            "3",
            "-k",
            "100000",
            "--seed",
            "1",
            "--workers",
            "2",
            "--json",
            "--db",
            str(simdb),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
        # A process started in the background inherits an ignored SIGINT (and Python then keeps it ignored):
        # give the command the default handling a terminal gives it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(8)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    data = json.loads(out)
    assert data["partial"] is True and 0 < data["playouts"] < 100000 and data["requested"] == 100000
    assert data["playouts"] % 16 == 0  # whole chunks: a prefix of the full run
    assert "Traceback" not in err


def test_simulate_races_on_workers_gives_the_same_races_and_ids(tmp_path: Path) -> None:
    """Workers play, one writer stores in seed order: the same races, ids and logs on 1 or 2 workers."""
    outs, logs = [], []
    for workers in ("1", "2"):
        db = tmp_path / f"w{workers}.db"
        r = run("simulate", "--races", "9", "--cars", "3", "--seed", "5", "--workers", workers, "--json", db=db)
        assert r.returncode == 0, r.stderr
        outs.append(json.loads(r.stdout))
        logs.append(run("export", "--race", "8", db=db).stdout)
    assert outs[0] == outs[1] and logs[0] == logs[1]
    assert [x["race"] for x in outs[0]] == list(range(1, 10)) and [x["seed"] for x in outs[0]] == list(range(5, 14))


def test_simulate_races_on_workers_keeps_the_legends_and_the_weather(tmp_path: Path) -> None:
    """MODULES.md 19, 20: ``--races N`` plays the same module races as one at a time, on 1 or 2 workers (the
    Legends and the weather reach the workers; each race says its tile and road tokens)."""
    outs = []
    for workers in ("1", "2"):
        db = tmp_path / f"m{workers}.db"
        r = run(
            "simulate",
            "--races",
            "3",
            "--cars",
            "2",
            "--legends",
            "2",
            "--weather",
            "--seed",
            "2",
            "--workers",
            workers,
            "--json",
            db=db,
        )
        assert r.returncode == 0, r.stderr
        outs.append(json.loads(r.stdout))
        single = run("simulate", "--cars", "2", "--legends", "2", "--weather", "--seed", "3", "--json", db=db)
        assert json.loads(single.stdout)["order"] == outs[-1][1]["order"]  # race 2 of the run has seed 3
        table = run("simulate", "--races", "2", "--cars", "2", "--legends", "2", "--seed", "2", db=db).stdout
        assert "Legend-" in table  # the summary ranks the Legends as cars
    assert outs[0] == outs[1]
    for res in outs[0]:
        assert res["weather"] and len(res["road_conditions"]) == len(load_track("usa").corners)  # one per corner
        assert sum(row["car"].startswith("Legend-") for row in res["order"]) == 2


def test_a_race_with_a_car_stuck_for_good_is_stopped_unfinished_not_a_crash(tmp_path: Path) -> None:
    """A random driver can be stuck for good (empty Engine before a slow corner lowered by a road token, a hand
    of Stress: # 10.1–10.4, MODULES.md 20.8): the simulator stops the race after MAX_ROUNDS rounds, stores its
    legal log, ranks the cars as they stand and says who never finished."""
    args = (
        "simulate",
        "--track",
        "mexico",
        "--cars",
        "4",
        "--legends",
        "1",
        "--weather",
        "--pro",
        "1",
        "--aggressive",
        "--bot",
        "random",
        "--seed",
        "3702",
    )
    r = run(*args, db=tmp_path / "s.db")
    assert r.returncode == 0, r.stderr
    assert "stopped unfinished after 200 rounds" in r.stdout and "Green never finished" in r.stdout
    out = json.loads(run(*args, "--json", db=tmp_path / "s.db").stdout)
    assert out["over"] is False and out["rounds"] == 200 and out["order"][-1]["car"] == "Green"
    assert run("audit", "--race", "1", db=tmp_path / "s.db").returncode == 0


def test_18_playout_and_review_of_a_garage_race_on_what_a_car_knew(tmp_path: Path) -> None:
    """The sample race with every module (Garage draft, Legends, weather) through the real entry point: a playout
    as Red (its information set: its own hand and upgrades, every other hand drawn from what it knew, MODULES.md
    18.1), the same on two workers, and a review of one round (they refused Garage races before)."""
    db = tmp_path / "h.db"
    sample = Path(__file__).resolve().parent.parent / "replays" / "usa-garage-legends-weather.jsonl"
    assert run("import", str(sample), db=db).returncode == 0
    outs = on_one_and_two_workers(db, "playout", "--round", "5", "-k", "12", "--seed", "1", "--as", "Red")
    assert outs[0] == outs[1] and outs[0]["viewer"] == "Red" and outs[0]["playouts"] == 12
    assert {c["car"] for c in outs[0]["cars"]} == {"Red", "Blue", "Green", "Legend-Black", "Legend-Gray"}
    r = run("review", "--car", "Red", "--round", "3", "--screen", "2", "--keep", "1", "--max-playouts", "4", db=db)
    assert r.returncode == 0, r.stderr
    assert "Red: 6 of 6 decisions reviewed" in " ".join(r.stdout.split())
