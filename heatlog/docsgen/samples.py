"""The sample races in ``replays/``: which races they are, how to make them, and what happens in them.

``python replays/make_replays.py`` (or :func:`write_samples`) regenerates every file from its seed, and the
README from the races themselves (:func:`highlights`), so the description cannot drift from the log.
Each file is an exported log (JSON Lines, one canonical event per line) that ``heatlog import`` loads and
``heatlog export`` writes back byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine import apply
from ..engine.module import Module, SampleRace, descriptors, in_race
from ..engine.module import marks as module_marks
from ..engine.redact import open_to_table
from ..engine.state import RaceState, Turn, expand
from ..formats.words import counted
from ..simulate import simulate_race

Event = dict[str, Any]


#: A sample race: its file, title and ``simulate_race`` keyword arguments (the seed picked for what happens in the
#: race); a module declares its own on its descriptor (``Module.samples``, ``Module.goldens``).
Sample = SampleRace


def _units() -> list[Module]:
    """Every module folder's descriptor, in the order of the generated pages (``Module.doc_order``, then name)."""
    return sorted(descriptors(), key=lambda m: (m.doc_order, m.name))


#: The base game's sample races, then each module's (``Module.samples``: a race of several modules comes with the
#: last of them), in the README's order.
SAMPLES: tuple[Sample, ...] = (
    Sample(
        "usa-4cars.jsonl",
        "USA, 2 laps, 4 heuristic cars",
        {"track": "usa", "cars": 4, "seed": 4, "bots": "heuristic"},
    ),
    Sample(
        "italy-6cars.jsonl",
        "Italy, 3 laps, 6 heuristic cars (the last two of each round get adrenaline, # 6.1)",
        {"track": "italy", "cars": 6, "laps": 3, "seed": 27, "bots": "heuristic"},
    ),
    Sample(
        "learning-2cars.jsonl",
        "USA one-lap learning race (# 17.1), 2 heuristic cars",
        {"track": "usa", "cars": 2, "variant": "one-lap", "seed": 30, "bots": "heuristic"},
    ),
)
SAMPLES += tuple(sample for m in _units() for sample in m.samples)
#: The table-mode twin (# 1.7: hands and deck orders hidden) of the first sample.
TABLE = ("usa-4cars-table.jsonl", "usa-4cars.jsonl")


def canonical_line(event: Event) -> str:
    """One event as ``heatlog export`` writes it (the store's canonical bytes, heatlog.store.canonical)."""
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False) + "\n"


def sample_events(sample: Sample) -> list[Event]:
    return simulate_race(None, **sample.args)[1]


def sample_logs() -> dict[str, list[Event]]:
    """Every sample's events by file name (the table-mode twin included)."""
    logs = {s.file: sample_events(s) for s in SAMPLES}
    logs[TABLE[0]] = open_to_table(logs[TABLE[1]])
    return logs


# ------------------------------------------------------------------------------------------------ what happens


@dataclass
class Highlights:
    """What happens in a race, found by replaying it."""

    track: str
    laps: int
    cars: int
    rounds: int
    order: list[str]
    spinouts: list[tuple[int, str, int]] = field(default_factory=list)  # (round, car, corner number)
    cluttered: list[tuple[int, str]] = field(default_factory=list)
    boosts: int = 0
    slipstreams: int = 0
    adrenaline: int = 0  # adrenaline bonuses taken
    lead_changes: int = 0
    margin: int | None = None  # spaces between the first two, when they finish in the same round
    side_by_side: bool = False  # the first two in the same space: the race line decides (# 16.7)
    last_round_pass: bool = False  # the winner did not lead at the start of the last round
    modules: list[str] = field(default_factory=list)  # the modules' words (Module.highlight: Legends, weather)

    def sentence(self) -> str:
        parts = [f"{self.order[0]} wins in {counted(self.rounds, 'round')}"]
        if self.side_by_side:
            parts.append(f"photo finish: {self.order[0]} and {self.order[1]} side by side, the race line decides")
        elif self.margin is not None and self.margin <= 1:
            parts.append(f"photo finish: {self.order[0]} beats {self.order[1]} by {counted(self.margin, 'space')}")
        elif self.margin is not None:
            parts.append(f"{self.order[1]} finishes in the same round, {counted(self.margin, 'space')} behind")
        if self.last_round_pass:
            parts.append("the winner takes the lead in the last round")
        if self.spinouts:
            spins = ", ".join(f"{car} at corner {corner} in round {rnd}" for rnd, car, corner in self.spinouts[:4])
            more = f" and {len(self.spinouts) - 4} more" if len(self.spinouts) > 4 else ""
            parts.append(f"{counted(len(self.spinouts), 'spinout')} ({spins}{more})")
        else:
            parts.append("no spinouts")
        parts += self.modules
        if self.cluttered:
            parts.append(counted(len(self.cluttered), "cluttered hand"))
        changes, boosts = counted(self.lead_changes, "lead change"), counted(self.boosts, "boost")
        parts.append(f"{changes}, {boosts}, {counted(self.slipstreams, 'slipstream')}")
        if self.adrenaline:
            parts.append(f"{self.adrenaline} adrenaline bonus{'' if self.adrenaline == 1 else 'es'} taken")
        return "; ".join(parts) + "."


def highlights(events: list[Event]) -> Highlights:
    """Replay ``events`` and note what happens: spinouts, cluttered hands, lead changes, the finish."""
    state: RaceState | None = None
    turns: list[Turn] = []
    current: list[Turn] | None = None
    leaders: list[str] = []
    round_start_leader: dict[int, str] = {}
    for ev in events:
        state = apply(state, ev, atomic=False)
        if state.turns is not current:
            if current:
                turns.extend(current)
            current = state.turns
            if state.phase == "race" and state.round not in round_start_leader:
                leader = state.standings()[0]
                round_start_leader[state.round] = leader
                if not leaders or leaders[-1] != leader:
                    leaders.append(leader)
    assert state is not None
    turns.extend(current or [])
    corner_no = {c.after_space: i for i, c in enumerate(state.track.corners, start=1)}
    h = Highlights(state.track.name, state.laps, len(state.cars), state.round, state.standings())
    for t in turns:
        for cc in t.corners:
            if cc.spinout:
                h.spinouts.append((t.round, t.car, corner_no[cc.after_space]))
        if t.cluttered:
            h.cluttered.append((t.round, t.car))
        h.boosts += t.boosted
        h.slipstreams += bool(t.slipstream)
        h.adrenaline += len(t.happened("adrenaline"))
    h.lead_changes = max(0, len(leaders) - 1)
    first, second = state.cars[h.order[0]], state.cars[h.order[1]]
    if state.finish_rounds.get(first.name) == state.finish_rounds.get(second.name):
        h.margin = first.progress - second.progress
        h.side_by_side = h.margin == 0
    h.last_round_pass = round_start_leader.get(state.finish_rounds[first.name]) != first.name
    for m in in_race(state):  # each module's words on the race, in rank order (Module.highlight)
        said = m.highlight(state) if m.highlight is not None else None
        if said:
            h.modules.append(said)
    return h


# ------------------------------------------------------------------------------------------------ files


def readme(logs: dict[str, list[Event]]) -> str:
    lines = [
        "# Sample races",
        "",
        "Simulated races (`heatlog simulate`), exported as JSON Lines: `heatlog import replays/<file>` loads one,",
        "`heatlog replay` plays it back. Regenerate them all (and this file) with `python replays/make_replays.py`;",
        "the seeds and bots are in `heatlog/docsgen/samples.py`. What happens in each race is read off the race"
        " itself.",
        "",
    ]
    for s in SAMPLES:
        h = highlights(logs[s.file])
        lines.append(f"- `{s.file}` — {s.title}, seed {s.args['seed']}: {h.sentence()}")
    table, source = TABLE
    lines.append(
        f"- `{table}` — the same race as `{source}` in table mode (# 1.7): draws are counts, shuffles have no "
        "order, and each car's cards appear when it reveals them; what a physical table would have recorded."
    )
    return "\n".join(lines) + "\n"


def write_samples(directory: str | Path) -> list[Path]:
    """Write every sample log and the README into ``directory``; return the paths written."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    logs = sample_logs()
    written = []
    for name, events in logs.items():
        path = out / name
        path.write_text("".join(canonical_line(e) for e in events), encoding="utf-8")
        written.append(path)
    path = out / "README.md"
    path.write_text(readme(logs), encoding="utf-8")
    written.append(path)
    return written


# ------------------------------------------------------------------------------------------------ golden playthrough

#: The golden playthrough (tests/golden/): one simulated race with its state after every round.
GOLDEN = Sample(
    "sim_usa_seed7",
    "USA, 2 laps, 3 heuristic cars and 1 random car",
    {"track": "usa", "cars": 4, "seed": 7, "bots": ["heuristic", "heuristic", "heuristic", "random"]},
)


#: A second golden playthrough, in table mode (# 1.7): hands and deck orders hidden, a handicapped driver
#: (# 17.2) and two adrenaline cars per round (# 6.1).
GOLDEN_TABLE = Sample(
    "golden_italy_table",
    "Italy, 3 laps, 6 cars (Red handicapped), table mode",
    {
        "track": "italy",
        "cars": 6,
        "laps": 3,
        "seed": 11,
        "bots": ["heuristic", "heuristic", "heuristic", "heuristic", "random", "random"],
        "handicap": ["Red"],
    },
)
#: Golden playthroughs of the expansion features: Japan (flooded spaces, # 22.4; the chicane 10/12, # 22.1)
#: and Spain (tunnels, # 22.6; the chicanes 29/32 and 95/98).
GOLDEN_JAPAN = Sample(
    "golden_japan",
    "Japan, 2 laps, 3 heuristic cars and 1 random car: flooded spaces and the chicane",
    {"track": "japan", "cars": 4, "seed": 3, "bots": ["heuristic", "heuristic", "heuristic", "random"]},
)
GOLDEN_SPAIN = Sample(
    "golden_spain",
    "Spain, 1 lap, 3 heuristic cars and 1 random car: tunnels and two chicanes",
    {"track": "spain", "cars": 4, "seed": 2, "bots": ["heuristic", "heuristic", "heuristic", "random"]},
)
#: Every golden playthrough and whether it is kept in table mode: the base game's, then each module's
#: (``Module.goldens``).
GOLDENS: tuple[tuple[Sample, bool], ...] = (
    (GOLDEN, False),
    (GOLDEN_TABLE, True),
    (GOLDEN_JAPAN, False),
    (GOLDEN_SPAIN, False),
    *((sample, sample.table) for m in _units() for sample in m.goldens),
)


def golden_events(sample: Sample, table: bool) -> list[Event]:
    """A golden race's log: simulated in open mode, re-expressed for the table when ``table``."""
    events = sample_events(sample)
    return open_to_table(events) if table else events


def _cards(cards: list[str]) -> str:
    return " ".join(cards) or "-"


def playthrough(events: list[Event]) -> str:
    """A race as readable text, round by round: the round's order and adrenaline (# 2.2, 6.1), each turn's
    narration, then every car's space, lane, lap, gear, Engine, hand, deck (top first) and discard pile
    (bottom first) at the end of the round."""
    from ..views.narrate import narrate_turn

    state: RaceState | None = None
    out: list[str] = []
    header: list[str] = []
    current: list[Turn] | None = None
    for ev in events:
        state = apply(state, ev, atomic=False)
        if state.turns is current:
            continue
        if current:  # a round has ended: the state is as the round left it
            out += header
            out += [f"  {narrate_turn(state, t)}" for t in current]
            out += _car_lines(state)
        current = state.turns
        if state.phase == "race":
            header = [
                "",
                f"== round {state.round} ==",
                f"order: {', '.join(state.order)}; adrenaline: {', '.join(state.adrenaline)}",
            ]
    assert state is not None
    if current:
        out += header
        out += [f"  {narrate_turn(state, t)}" for t in current]
        out += _car_lines(state)
    start = events[0]
    head = [
        f"{state.track.name}, {counted(state.laps, 'lap')}, {counted(len(state.cars), 'car')}, "
        f"seed {start.get('seed')}: {counted(len(events), 'event')}, {counted(state.round, 'round')}",
        f"grid: {', '.join(state.grid)}",
        f"result: {', '.join(state.hall_of_fame)}",
    ]
    units = list(in_race(state))
    for m in units:  # the modules' own lines under the result (Module.playthrough_head: the Legend options)
        head += m.playthrough_head(state) if m.playthrough_head is not None else []
    head += module_marks(state)  # the modules' own lines (engine/module.py: Module.marks; the weather's, 20)
    for m in units:  # then theirs after the marks (Module.playthrough_tail: the Garage's draft, # 18.5)
        head += m.playthrough_tail(state, events) if m.playthrough_tail is not None else []
    return "\n".join(head + out) + "\n"


def _car_lines(state: RaceState) -> list[str]:
    lines = []
    for car in state.cars.values():
        if car.name in state.hall_of_fame and state.finish_rounds.get(car.name, 0) < state.round:
            continue  # finished in an earlier round: off the track (# 16.8)
        if car.legend:  # MODULES.md 19.1: no gear, Engine or cards to show
            where = "finished" if car.finished else f"space {state.track.space_of(car.progress):>2} lane {car.lane}"
            lines.append(f"  {car.name:<6} {where} lap {state.lap_of(car)} (Legend)")
            continue
        hand = f"{car.hand_size} hidden" if car.hand is None else _cards(expand(car.hand))
        deck = _cards(list(reversed(car.deck))) if car.deck is not None else f"{car.deck_size} hidden"
        where = "finished" if car.finished else f"space {state.track.space_of(car.progress):>2} lane {car.lane}"
        lines.append(
            f"  {car.name:<6} {where} lap {state.lap_of(car)} gear {car.gear} engine {car.engine}"
            f" | hand {hand} | deck {deck} | discard {_cards(car.discard)}"
        )
    return lines
