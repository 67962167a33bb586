"""rain: heatlog's own example module, the worked example of docs/design.md made real ("A module is one
registered unit").

**Not a rule of Heat.** It shows a module landing as one registered unit: this folder, its data file
(``heatlog/data/rain.json``) and its schemas (``schema/rain.schema.json``, ``schema/events/rain/``), and no edit
anywhere else. It is off unless a race lists it (``race_started.modules: ["rain"]``), so base races and every
other module are unchanged.

The rules, all of them:

- **Options** (``race_started.rain``): ``skies``, each sky's name with the number (0–3) added to every corner's
  speed limit under it (the data file: ``{"dry": 0, "wet": 1}``).
- **Set-up** (a phase ``rain`` after the grid and any other module's set-up, before the starting shuffles): the
  sky is drawn, one of the skies, each equally likely; the chance event ``rain_drawn`` records it.
- **Effect**: for the whole race, every corner's limit is its printed limit (as the modules before it left it)
  plus the sky's number; each ``CornerCheck`` records the limit used.

Pure, like every engine module: the recorder's question and notation, the narration's words and the board's
line are plain functions below; the shells find them through the descriptor (engine/module.py).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...events import EventType
from ...module import Flag, Module, Notation, SeasonHook
from ...written import record

if TYPE_CHECKING:
    from ...ruleset import Rules
    from ...state import Car, RaceState, Turn
    from ...track import Corner

Event = dict[str, Any]
NAME = "rain"
PHASE = "rain"  # its set-up phase
MAX_BY = 3


@record(frozen=True, slots=True)
class Rain:
    """The module's state (``state.modules["rain"]``): the skies, the sky drawn (None before the set-up draw) and
    what it adds to every corner's limit. Immutable: a draw replaces it, copies share it."""

    skies: Mapping[str, int]
    sky: str | None = None

    def __init__(self, skies: Mapping[str, int], sky: str | None = None) -> None:
        object.__setattr__(self, "skies", skies)
        object.__setattr__(self, "sky", sky)

    @property
    def by(self) -> int:
        return self.skies[self.sky] if self.sky is not None else 0


def read_skies(block: Any) -> dict[str, int]:
    """The skies of an options (or position) block, checked; ``ValueError`` names what is wrong."""
    skies = block.get("skies") if isinstance(block, dict) else None
    if not isinstance(skies, dict) or not skies:
        raise ValueError('rain: skies must name at least one sky (e.g. {"dry": 0, "wet": 1})')
    for sky, by in skies.items():
        if not isinstance(sky, str) or not sky:
            raise ValueError("rain: a sky needs a name")
        if not isinstance(by, int) or isinstance(by, bool) or not 0 <= by <= MAX_BY:
            raise ValueError(f"rain: sky {sky!r} must add 0 to {MAX_BY} to the corner limits, not {by!r}")
    return dict(skies)


def rain_of(state: RaceState) -> Rain:
    rain: Rain = state.modules[NAME]
    return rain


# ---------------------------------------------------------------------------------------------- rules


def build(rules: Rules, options: Any) -> Rules:
    """A set-up phase for the draw, and the corner limit raised by the sky (wrapping the point it is given, so
    it composes with the modules before it). The options are read by ``start`` into the race's state."""
    corner_limit, phase_waiting = rules.corner_limit, rules.phase_waiting

    def limit(state: RaceState, car: Car, turn: Turn, corner: Corner) -> int:
        return corner_limit(state, car, turn, corner) + state.modules[NAME].by

    def waiting(state: RaceState) -> tuple[str, list[str]] | None:
        if state.phase == PHASE:
            return "rain_drawn", []
        return phase_waiting(state)

    phases = tuple(p for p in rules.setup_phases if p != "deal") + (PHASE, "deal")  # before the decks
    return replace(rules, setup_phases=phases, corner_limit=limit, phase_waiting=waiting)


def start(state: RaceState, ev: Event) -> None:
    state.modules[NAME] = Rain(read_skies(ev.get(NAME)))


def rain_drawn(state: RaceState, ev: Event) -> None:
    """The sky drawn at set-up: once, in the module's phase, one of the race's skies."""
    from ...handlers import illegal, malformed  # (here: the descriptor alone stays light for a command line)

    rain = state.modules.get(NAME)
    if rain is None:
        raise illegal(state, ev, "the rain module is not in this race")
    if state.phase != PHASE:
        raise illegal(state, ev, "the sky is drawn once, after the grid and before the decks")
    sky = ev.get("sky")
    if not isinstance(sky, str) or sky not in rain.skies:
        raise malformed(state, ev, f"there is no sky {sky!r} (skies: {', '.join(rain.skies)})")
    state.modules[NAME] = replace(rain, sky=sky)
    state.phase = state.rules.phase_after(PHASE)
    state.rules.enter_phase(state, state.phase)


def chance(state: RaceState, rng: random.Random) -> Event | None:
    """The world's draw: a sky, each equally likely (sorted first: the draw never depends on the block's order)."""
    if state.phase != PHASE:
        return None
    return {"type": "rain_drawn", "v": 1, "sky": rng.choice(sorted(rain_of(state).skies))}


# ---------------------------------------------------------------------------------------------- position


def to_position(state: RaceState) -> Any:
    rain = state.modules.get(NAME)
    return None if rain is None else {"skies": dict(rain.skies), "sky": rain.sky}


def from_position(state: RaceState, block: Any, pos: Mapping[str, Any]) -> None:
    rain = Rain(read_skies(block), block.get("sky"))
    if rain.sky is not None and rain.sky not in rain.skies:
        raise ValueError(f"rain: the sky {rain.sky!r} is not one of the skies")
    state.modules[NAME] = rain


# ---------------------------------------------------------------------------------------------- words


def _question(state: RaceState) -> tuple[str, str, tuple[str, ...]]:
    skies = tuple(rain_of(state).skies)
    hint = "heatlog's example module rain: the sky drawn at set-up; " + ", ".join(
        f"{s} +{n}" for s, n in rain_of(state).skies.items()
    )
    return f"sky ({' '.join(skies)}): ", hint + " to every corner's limit", skies


def _parse(state: RaceState, text: str) -> Event:
    sky = text.strip().lower()
    if sky not in rain_of(state).skies:
        raise ValueError(f"type one of the skies: {' '.join(rain_of(state).skies)}")
    return {"type": "rain_drawn", "v": 1, "sky": sky}


def marks(state: RaceState) -> list[str]:
    rain = state.modules.get(NAME)
    if rain is None:
        return []
    if rain.sky is None:
        return ["rain (example module): sky not drawn yet"]
    return [f"rain (example module): {rain.sky}, corner limits +{rain.by}"]


MODULE = Module(
    NAME,
    build=build,
    events=(EventType("rain_drawn", rain_drawn, module=NAME, schema="rain/rain_drawn", chance=True),),
    start=start,
    to_position=to_position,
    from_position=from_position,
    chance=chance,
    phases=(PHASE,),
    data="rain.json",
    options_schema="rain.schema.json#/$defs/options",
    position_schema="rain.schema.json#/$defs/position",
    waiting={"rain_drawn": "the sky (the rain example module)"},
    notation={
        "rain_drawn": Notation(
            question=_question,
            parse=_parse,
            answer=lambda ev: str(ev["sky"]),
            words=lambda ev: f"the sky is {ev['sky']}",
            screen=r"^()sky \([^)]*\): $",  # the host's, as the terminal shows it (recorder/script.py)
        )
    },
    marks=marks,
    example=lambda data: {"skies": dict(data["skies"])},
    flags=(  # its switch on every command that starts a race, with the data file's skies (its example block)
        Flag(
            "rain",
            ("--rain",),
            "heatlog's example module rain (not a rule of Heat): a sky drawn at set-up raises every corner's limit.",
            commands=("new", "simulate", "record", "season"),
            label="rain (heatlog's example module, not a rule of Heat)",
        ),
    ),
    # in every race of a season given it (MODULES.md 21: the season iterates the registry's hooks): the data file's
    # skies are its season block, each race draws its sky at set-up
    season=SeasonHook(
        "rain (heatlog's example module)",
        setup=lambda given, drivers, data, said: dict(given) if isinstance(given, Mapping) and given else None,
        race=lambda block: {"skies": dict(block["skies"])},
        schema="rain.schema.json#/$defs/options",
    ),
)
