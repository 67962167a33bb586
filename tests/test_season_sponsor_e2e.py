"""A sponsorship card earned, kept, played and gone, through the real entry point (MODULES.md 21.5, 21.7, MC7,
MA7, 18.24): a two-race season with the Garage on the USA under event 17 (no card dealt at the start, # 21.4:
press corners A and C), every step written by the ``heatlog`` commands in a subprocess: the season, each race
from it, each draft event (``heatlog add``), the racing by bots (``heatlog play-on``). Then the log is read back
and judged by the digest, not by the code that made it:

* race 1: Bob draws a sponsorship card in the turn whose Speed crossed press corner C (limit 3) at 3 + 2 or more
  (# 21.7) and still owns it when the race ends;
* race 2: the card is in Bob's deck from the start (MA7: BGA's reading, the season's default), Bob plays it, it is
  in the Play Area through the discard step (8) and out of the game after step 9 (MC7, # 18.24): never in the
  discard pile, one more in the supply's used pile; the season no longer counts it as his.

The seeds are pinned (play-on seed 15 for race 1, 0 for race 2): the test fails if the rules stop earning, keeping
or removing the card, or if the commands stop driving the season."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_cli import run

from heatlog.engine import apply
from heatlog.engine.modules.championship import sponsors_held
from heatlog.racelog import RaceLog
from heatlog.tracks import load_track_data

CARD = "P84"  # De Angeli Wings Inc. (speed 3, adjust +1, one-time use)


def ok(*args: str, db: Path) -> str:
    r = run(*args, db=db)
    assert r.returncode == 0, f"heatlog {' '.join(args)}: {r.stderr}"
    return r.stdout


def draft(db: Path, race: str, cards: list[str]) -> None:
    """The season draft of ``race`` through ``heatlog add``: the market, one pick each in the order the race
    waits for (# 21.2), and no swap."""
    start = json.loads(ok("export", "-r", race, db=db).splitlines()[0])  # race_started: the season's draft
    picks = start["championship"]["garage"].get("picks") or json.loads(ok("position", "-r", race, db=db))["grid"][::-1]
    ok("add", "-r", race, json.dumps({"type": "garage_market", "v": 1, "round": 1, "cards": cards}), db=db)
    for name, card in zip(picks, cards, strict=False):
        ok("add", "-r", race, json.dumps({"type": "upgrade_picked", "v": 1, "car": name, "card": card}), db=db)
    ok("add", "-r", race, json.dumps({"type": "upgrade_swapped", "v": 1, "car": picks[0]}), db=db)


def test_21_7_MA7_MC7_a_press_corner_card_is_earned_carried_played_and_removed(tmp_path: Path) -> None:
    db = tmp_path / "season.db"
    ok(
        "season",
        "new",
        "--race",
        "usa:17",
        "--race",
        "usa:17",
        "--car",
        "Ann:red",
        "--car",
        "Bob:blue",
        "--garage",
        "basic",
        "--mode",
        "open",
        db=db,
    )
    race1 = ok("season", "next", "1", "--seed", "1", db=db).strip().splitlines()[-1]
    draft(db, race1, ["U1", "U2", "U3", "U4", "U5"])
    ok("play-on", "--race", race1, "--seed", "15", db=db)
    shown = json.loads(ok("season", "show", "1", "--json", db=db))
    assert shown["races"][0]["finished"] and shown["sponsorship_cards"]["Bob"] == [CARD]  # MA7: kept

    log = RaceLog(db)
    usa = {c["after_space"]: c["limit"] for c in load_track_data("usa")["corners"]}
    earned = _earning_turn(log, int(race1), "Bob", CARD)
    # # 21.7: press corners A and C of event 17 are the lines after 12 and 49; a Speed of limit + 2 or more earns
    crossed = [c for c in earned.corners if c.after_space in (12, 49)]
    assert crossed and any(c.speed >= usa[c.after_space] + 2 for c in crossed), earned.corners
    assert not earned.spinout  # MA18: a spinout would have cancelled it

    race2 = ok("season", "next", "1", db=db).strip().splitlines()[-1]
    start = log.store.events(int(race2))[0].event
    assert start["championship"]["sponsors"]["carried"] == {"Bob": [CARD]}
    draft(db, race2, ["U6", "U7", "U8", "U9", "U10"])
    bob = log.project(int(race2)).state.cars["Bob"]  # the decks are built: the card is in Bob's (MA7)
    assert bob.pool[CARD] == 1 and bob.hand_size == 0 and bob.deck_size == 12 + 2 + 3 + 1  # Basic, upgrades, Stress
    ok("play-on", "--race", race2, "--seed", "0", db=db)

    events = [e.event for e in log.effective(int(race2)).entries]
    played = next(
        i for i, ev in enumerate(events) if ev["type"] == "cards_played" and ev["car"] == "Bob" and CARD in ev["cards"]
    )
    st = None
    for ev in events[:played]:
        st = apply(st, ev)
    assert st is not None
    used_before = st.sponsor_deck.used.get(CARD, 0)
    held_before = sponsors_held(st, st.cars["Bob"]).count(CARD)
    seen_at_8 = in_turn = False
    for ev in events[played:]:
        st = apply(st, ev)
        bob, turn = st.cars["Bob"], st.turn
        if turn is not None and turn.car == "Bob" and turn.sub <= 8:
            in_turn = True
            assert CARD in bob.play_area  # # 18.24, MC7: not removed before step 9
            seen_at_8 = seen_at_8 or turn.sub == 8
        elif in_turn:  # Bob's turn is over: step 9 has cleared the Play Area
            assert CARD not in bob.play_area and CARD not in bob.discard  # out of the game, not discarded
            assert sponsors_held(st, bob).count(CARD) == held_before - 1
            assert st.sponsor_deck.used.get(CARD, 0) == used_before + 1  # beside the supply (# 21.7)
            break
    else:
        raise AssertionError("Bob's turn never ended")
    assert seen_at_8, "the discard step of the turn was never observed"
    final = json.loads(ok("season", "show", "1", "--json", db=db))
    assert final["races"][1]["finished"] and CARD not in (final["sponsorship_cards"] or {}).get("Bob", [])
    assert run("season", "audit", "1", db=db).returncode == 0


def _earning_turn(log: RaceLog, race: int, car: str, card: str) -> Any:
    """``car``'s turn once the race's ``sponsor_drawn`` of ``card`` during the race is applied."""
    st = None
    for ev in (e.event for e in log.effective(race).entries):
        st = apply(st, ev)
        if ev["type"] == "sponsor_drawn" and ev["car"] == car and ev["card"] == card and st.phase == "race":
            assert st.turn is not None and st.turn.car == car
            return st.turn
    raise AssertionError(f"{car} never drew {card} during the race")
