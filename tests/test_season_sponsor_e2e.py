"""A sponsorship card earned, kept, played and gone, through the real entry point (MODULES.md 21.5, 21.7, MC7,
MA7, 18.24): a two-race season with the Garage on the USA under event 17 (no card dealt at the start, # 21.4:
press corners A and C), every step written by the ``heatlog`` commands in a subprocess: the season, each race
from it, each draft event (``heatlog add``), the racing by bots (``heatlog play-on``). Then the log is read back
and judged by the digest, not by the code that made it:

* race 1: a driver draws a sponsorship card in the turn that crossed press corner A or C at its limit + 2 or more,
  or during its slipstream (# 21.7), and still owns it when the race ends;
* race 2: the card is in that driver's deck from the start (MA7: BGA's reading, the season's default), it is played,
  in the Play Area through the discard step (8) and out of the game after step 9 (MC7, # 18.24): never in the
  discard pile, one more in the supply's used pile; the season no longer counts it as his.

The play-on seeds are chosen first, in process, by the same functions the commands call (the first seeds under
which a card is kept and then played, so a change of the bots cannot make the test vacuous); then everything is
done again through the commands and judged. The test fails if the rules stop earning, keeping or removing the card,
or if the commands stop driving the season."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_cli import run

from heatlog.engine import apply
from heatlog.engine.modules.championship.rules import sponsor_deck, sponsors_held
from heatlog.formats.tracks import load_track_data
from heatlog.log.racelog import RaceLog

MARKETS = (["U1", "U2", "U3", "U4", "U5"], ["U6", "U7", "U8", "U9", "U10"])
BOTS = {"Ann": "heuristic", "Bob": "heuristic"}


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


def _seeds(tmp_path: Path) -> tuple[int, int, str, str]:
    """(race 1 seed, race 2 seed, driver, card): the first play-on seeds under which a driver still owns a
    sponsorship card after race 1 and plays it in race 2 (found with the functions the commands call)."""
    from heatlog.analysis.playon import play_on
    from heatlog.season import new_season, next_race, season_view

    def setup(x: int) -> tuple[RaceLog, int]:
        log = RaceLog(tmp_path / f"search-{x}-{len(list(tmp_path.iterdir()))}.db")
        season = new_season(
            log,
            drivers=[{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}],
            races=[("usa", 17), ("usa", 17)],
            mode="open",
            modules={"garage": {"upgrades": "basic"}},
        )
        race = next_race(log, season, seed=1)
        _draft_in_process(log, race, MARKETS[0])
        play_on(log, race, bots=BOTS, seed=x)
        return log, season

    for x in range(60):
        log, season = setup(x)
        held = {n: cs for n, cs in season_view(log, season).races[0].sponsors.items() if cs}
        log.close()
        if not held:
            continue
        for y in range(4):
            log, season = setup(x)
            race = next_race(log, season)
            _draft_in_process(log, race, MARKETS[1])
            play_on(log, race, bots=BOTS, seed=y)
            for e in log.store.events(race):
                ev = e.event
                if ev["type"] == "cards_played" and ev["car"] in held and set(ev["cards"]) & set(held[ev["car"]]):
                    card = sorted(set(ev["cards"]) & set(held[ev["car"]]))[0]
                    log.close()
                    return x, y, ev["car"], card
            log.close()
    raise AssertionError("no seeds under which a kept sponsorship card is played: the bots never keep one")


def _draft_in_process(log: RaceLog, race: int, cards: list[str]) -> None:
    state = log.project(race).state
    picks = state.rules.options["championship"]["garage"].get("picks") or state.grid[::-1]
    log.append(race, {"type": "garage_market", "v": 1, "round": 1, "cards": cards})
    for name, card in zip(picks, cards, strict=False):
        log.append(race, {"type": "upgrade_picked", "v": 1, "car": name, "card": card})
    log.append(race, {"type": "upgrade_swapped", "v": 1, "car": picks[0]})


def test_21_7_MA7_MC7_a_press_corner_card_is_earned_carried_played_and_removed(tmp_path: Path) -> None:
    x, y, driver, card = _seeds(tmp_path)
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
    draft(db, race1, MARKETS[0])
    ok("play-on", "--race", race1, "--seed", str(x), db=db)
    shown = json.loads(ok("season", "show", "1", "--json", db=db))
    assert shown["races"][0]["finished"] and card in shown["sponsorship_cards"][driver]  # MA7: kept

    log = RaceLog(db)
    usa = {c["after_space"]: c["limit"] for c in load_track_data("usa")["corners"]}
    earned, progress = _earning_turn(log, int(race1), driver, card)
    # # 21.7: press corners A and C of event 17 are the lines after 12 and 49; a Speed of limit + 2 or more earns,
    # or crossing the line during the slipstream
    crossed = [c for c in earned.corners if c.after_space in (12, 49)]
    slip_from = progress - earned.slipstream_moved if earned.slipstream else None
    assert crossed and any(
        c.speed >= usa[c.after_space] + 2 or (slip_from is not None and slip_from <= c.line < progress) for c in crossed
    ), earned.corners
    assert not earned.spinout  # MA18: a spinout would have cancelled it

    race2 = ok("season", "next", "1", db=db).strip().splitlines()[-1]
    start = log.store.events(int(race2))[0].event
    carried = start["championship"]["sponsors"]["carried"]
    assert card in carried[driver] and carried == {n: cs for n, cs in shown["sponsorship_cards"].items() if cs}
    draft(db, race2, MARKETS[1])
    mine = log.project(int(race2)).state.cars[driver]  # the decks are built: the cards kept are in it (MA7)
    assert mine.pool[card] == carried[driver].count(card) and mine.hand_size == 0
    assert mine.deck_size == 12 + 2 + 3 + len(carried[driver])  # Basic, two upgrades, USA's Stress, the cards kept
    ok("play-on", "--race", race2, "--seed", str(y), db=db)

    events = [e.event for e in log.effective(int(race2)).entries]
    played = next(
        i for i, ev in enumerate(events) if ev["type"] == "cards_played" and ev["car"] == driver and card in ev["cards"]
    )
    st = None
    for ev in events[:played]:
        st = apply(st, ev)
    assert st is not None
    used_before = sponsor_deck(st).used.get(card, 0)
    held_before = sponsors_held(st, st.cars[driver]).count(card)
    discarded_before = st.cars[driver].discard.count(card)
    seen_at_8 = in_turn = False
    for ev in events[played:]:
        st = apply(st, ev)
        mine, turn = st.cars[driver], st.turn
        if turn is not None and turn.car == driver and turn.sub <= 8:
            in_turn = True
            assert card in mine.play_area  # # 18.24, MC7: not removed before step 9
            seen_at_8 = seen_at_8 or turn.sub == 8
        elif in_turn:  # the turn is over: step 9 has cleared the Play Area
            assert card not in mine.play_area and mine.discard.count(card) == discarded_before  # not discarded
            assert sponsors_held(st, mine).count(card) == held_before - 1
            assert sponsor_deck(st).used.get(card, 0) == used_before + 1  # beside the supply (# 21.7)
            break
    else:
        raise AssertionError(f"{driver}'s turn never ended")
    assert seen_at_8, "the discard step of the turn was never observed"
    final = json.loads(ok("season", "show", "1", "--json", db=db))
    assert final["races"][1]["finished"]
    assert run("season", "audit", "1", db=db).returncode == 0


def _earning_turn(log: RaceLog, race: int, car: str, card: str) -> tuple[Any, int]:
    """``car``'s turn (and the car's progress) once the last ``sponsor_drawn`` of ``card`` during the race is
    applied: the card it still holds at the end."""
    st, found = None, None
    for ev in (e.event for e in log.effective(race).entries):
        st = apply(st, ev)
        if ev["type"] == "sponsor_drawn" and ev["car"] == car and ev["card"] == card and st.phase == "race":
            assert st.turn is not None and st.turn.car == car
            found = (st.turn, st.cars[car].progress)
    assert found is not None, f"{car} never drew {card} during the race"
    return found
