"""The set-up questions of ``heatlog record --new``."""

from __future__ import annotations

import contextlib
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..engine import HeatlogError, MalformedInput
from ..engine.errors import BY_THE_RULES
from ..engine.module import Module, SetupCars, SetupStep, descriptors
from ..formats.validation import validate_event
from ..log.racelog import RaceLog
from .notation import error_text
from .questions import make_event


def _unit(name: str) -> Module:
    """Module folder ``name``'s descriptor."""
    return next(unit for unit in descriptors() if unit.name == name)


def _car_typers() -> list[SetupCars]:
    """How the modules type the cars they add in the set-up (``Module.setup_cars``), in the modules' order."""
    return [c for unit in descriptors() if (c := unit.setup_cars) is not None]


#: The base set-up steps, in order (# 17.2: experienced drivers are declared before the grid is randomised); the
#: modules' own steps (``Module.setup_steps``) come after the base step each names.
BASE_STEPS = ("name", "track", "cars", "variant", "handicap", "mode", "grid")


def module_steps() -> list[tuple[Module, SetupStep]]:
    """Every module folder's set-up steps (engine/module.py: ``Module.setup_steps``), in the modules' order."""
    return [(unit, step) for unit in descriptors() for step in unit.setup_steps]


def setup_steps() -> tuple[str, ...]:
    """Every step of the set-up, in the order asked: the base's, each module's after the base step it names."""
    extra = module_steps()
    out: list[str] = []
    for base in BASE_STEPS:
        out.append(base)
        out += [step.key for _, step in extra if step.after == base]
    return tuple(out)


@dataclass(slots=True)
class NewRace:
    """The set-up questions of ``heatlog record --new``: track, cars, variant, handicap, mode, grid, and the
    modules' own (``Module.setup_steps``: the Garage's options after the mode, # 18.3; the Legend options after
    the cars, # 19.14, 19.15), asked from the registry."""

    answers: dict[str, Any] = field(default_factory=dict)
    #: The modules chosen on the command line, as one mapping by name (``record --new --weather``: the tile and
    #: tokens are asked once the race exists, MODULES.md 20); the modules' own set-up steps are asked here.
    modules: dict[str, Any] = field(default_factory=dict)
    STEPS: tuple[str, ...] = field(default_factory=setup_steps)
    _own: dict[str, tuple[Module, SetupStep]] = field(
        default_factory=lambda: {step.key: (unit, step) for unit, step in module_steps()}
    )

    @property
    def step(self) -> str | None:
        for s in self.STEPS:
            own = self._own.get(s)
            if own is not None and own[1].asked is not None and not own[1].asked(self.answers):
                continue  # asked only when it applies (the Legend options when Legends race, MODULES.md 19.14)
            if s not in self.answers:
                return s
        return None

    def _cars_prompt(self) -> str:
        added = "".join(f", {c.label} as {c.word}:COLOUR" for c in _car_typers())
        return f"cars, NAME:COLOUR each, e.g. Ann:red Bob:blue{added} (2–6): "

    def prompt(self) -> str:
        step = self.step or "track"
        own = self._own.get(step)
        if own is not None:
            return own[1].prompt
        return {
            "name": "race name, e.g. Friday night USA (Enter = none): ",
            "track": "track (usa, great-britain, france, italy, japan, mexico, spain, netherlands, "
            "or a track file) [usa]: ",
            "cars": self._cars_prompt(),
            "variant": "variant: standard or one-lap [standard]: ",
            "handicap": "experienced drivers, who start with 5 Engine Heat (Enter = none): ",
            "mode": "mode: table (hands hidden) or open (every card entered) [table]: ",
            "grid": "grid order, front first (Enter = random): ",
        }[step]

    def answer(self, text: str) -> str | None:
        """Record one set-up answer; returns a message (an error starts with ``error``) or None."""
        s = text.strip()
        step = self.step
        if s.lower() == "undo":
            done = [k for k in self.STEPS if k in self.answers]
            if not done:
                return "error: nothing to undo"
            self.answers.pop(done[-1])
            if done[-1] == "cars":
                self.answers.pop("module_cars", None)
            return f"undone: {done[-1]}"
        try:
            own = self._own.get(step or "")
            if own is not None:  # a module's own step (engine/module.py: Module.setup_steps)
                try:
                    value, said = own[1].read(s, self.answers)
                except ValueError as exc:
                    raise MalformedInput(str(exc)) from exc
                self.answers[own[1].key] = value
                return said
            if step == "name":
                from ..formats.usertext import check_label

                check_label(s or None)  # the door's check of a race name, asked now (not after every question)
                self.answers["name"] = s or None
                return f"race name: {s}" if s else None
            if step == "track":
                from ..formats.tracks import load_track_data

                data = load_track_data(s or "usa")
                self.answers["track"] = s or "usa"
                laps = f"{data['laps']} lap{'s' if data['laps'] > 1 else ''}"
                return f"{data['name']}: {data['spaces']} spaces, {laps}, {len(data['corners'])} corners"
            if step == "cars":
                return self._cars(s)
            if step == "variant":
                v = s.lower() or "standard"
                if v not in ("standard", "one-lap"):
                    raise MalformedInput("standard or one-lap (# 17.1)")
                self.answers["variant"] = v
                return f"variant: {v}"
            if step == "handicap":
                names = [c["name"] for c in self.answers["cars"]]
                chosen = []
                for tok in s.replace(",", " ").split():
                    hits = [n for n in names if n.lower() == tok.lower()]
                    if not hits:
                        raise MalformedInput(f"{tok!r} is not a car of this race ({', '.join(names)})")
                    chosen.append(hits[0])
                self.answers["handicap"] = chosen
                if not chosen:
                    return "handicap: none"
                verb = "starts" if len(chosen) == 1 else "start"
                return f"handicap: {', '.join(chosen)} {verb} with 5 Heat on the Engine"
            if step == "mode":
                m = s.lower() or "table"
                if m not in ("table", "open"):
                    raise MalformedInput("table or open")
                self.answers["mode"] = m
                return f"mode: {m} ({'hands hidden' if m == 'table' else 'every card entered'})"
            if step == "grid":
                added = self.answers.get("module_cars", {})
                names = [c["name"] for c in [*self.answers["cars"], *(c for cs in added.values() for c in cs)]]
                if not s or s.lower() == "random":
                    order = names[:]
                    random.shuffle(order)  # # 1.4
                else:
                    order = []
                    for tok in s.replace(",", " ").split():
                        hits = [n for n in names if n.lower() == tok.lower()] or [
                            n for n in names if n.lower().startswith(tok.lower())
                        ]
                        if len(hits) != 1:
                            raise MalformedInput(f"{tok!r} is not one car of this race ({', '.join(names)})")
                        order.append(hits[0])
                    if sorted(order) != sorted(names):
                        raise MalformedInput(f"name every car once: {', '.join(names)}")
                self.answers["grid"] = order
                return "grid: " + " > ".join(order)
        except HeatlogError as err:
            return "error: " + error_text(err).split(": ", 1)[-1]
        return None

    def _cars(self, s: str) -> str:
        """The cars, ``NAME:COLOUR`` each, and the cars the modules add as they type them (``Module.setup_cars``:
        a Legend as ``legend:COLOUR``, MODULES.md 19.3), checked as the race's first event will check them."""
        typers = {c.word: unit for unit in descriptors() if (c := unit.setup_cars) is not None}
        cars: list[dict[str, str]] = []
        added: dict[str, list[dict[str, str]]] = {}
        typed: list[str] = []  # each car as typed, in the order of the players' cars then the modules' (the log's)
        added_typed: list[str] = []
        for spec in s.replace(",", " ").split():
            name, sep, colour = spec.partition(":")
            if not name or not sep or not colour:
                examples = "".join(f" ({c.example})" for c in _car_typers() if c.example)
                raise MalformedInput(f"{spec!r}: write NAME:COLOUR, e.g. Ann:red{examples}")
            unit = typers.get(name.lower())
            if unit is not None and unit.setup_cars is not None:  # a module's car, named after its colour
                added.setdefault(unit.name, []).append(unit.setup_cars.car(colour))
                added_typed.append(spec)
            else:
                cars.append({"name": name, "colour": colour})
                typed.append(spec)
        typed += added_typed
        more = [c for cs in added.values() for c in cs]
        names = [c["name"] for c in cars + more]
        labels = " and ".join(c.label for c in _car_typers())
        if not 2 <= len(names) <= 6:  # # A14 (Legends count, MODULES.md 19.3)
            included = f", {labels} included" if labels else ""
            raise MalformedInput(f"a race has 2 to 6 cars{included}, not {len(names)}", words=BY_THE_RULES)
        if not cars:
            raise MalformedInput(f"a race needs at least one player's car beside the {labels}")
        if len(set(names)) != len(names):
            raise MalformedInput("every car needs its own name")
        for m, theirs in added.items():
            check = _unit(m).setup_cars
            if check is not None and check.check is not None:
                from ..formats.module_data import data_of

                why = check.check(theirs, data_of(m))
                if why:
                    raise MalformedInput(why)
        from ..races import race_started_event

        with _as_typed(typed):
            validate_event(make_event("grid_set", order=names))
            # the door's checks of the cars (names, colours each its own, # 19.4), asked now: refused when
            # the race was made, the whole set-up answered for nothing
            modules = {m: {"cars": theirs} for m, theirs in added.items()} or None
            validate_event(race_started_event(track=self.answers["track"], cars=cars, modules=modules))
        self.answers["cars"] = cars
        self.answers["module_cars"] = added
        echo = "cars: " + ", ".join(f"{c['name']} ({c['colour']})" for c in cars)
        for m, theirs in added.items():
            typer = _unit(m).setup_cars
            assert typer is not None
            echo += f"; {typer.label}: " + ", ".join(c["name"] for c in theirs)
        return echo

    def create(self, log: RaceLog) -> int:
        from ..races import start_race

        a = self.answers
        modules = dict(self.modules)
        for m, theirs in a.get("module_cars", {}).items():  # the cars a module adds are its options' cars
            if theirs:
                modules[m] = {"cars": list(theirs)}
        for unit, step in self._own.values():  # each module's own answers, into its options
            if step.key in a:
                opts = step.options(a[step.key], modules.get(unit.name))
                if opts is not None:
                    modules[unit.name] = opts
        return start_race(
            log,
            track=a["track"],
            cars=a["cars"],
            mode=a["mode"],
            variant=None if a["variant"] == "standard" else a["variant"],
            handicap=a["handicap"],
            grid=a["grid"],
            name=a.get("name"),
            modules=modules,
        )


@contextlib.contextmanager
def _as_typed(typed: list[str]) -> Iterator[None]:
    """A refusal of the cars named by the car as the host typed it (``ann:blue: 'ann' differs from 'Ann' only in
    case``), not by the field of the log the host never sees (``race_started: cars[1].name: …``)."""
    try:
        yield
    except MalformedInput as err:
        field = re.match(r"(?:grid_set: order\[(\d+)\]|race_started: cars\[(\d+)\]\.(?:name|colour)): ", err.message)
        at = int(field[1] or field[2]) if field is not None else len(typed)
        if at >= len(typed):
            raise
        assert field is not None
        raise MalformedInput(f"{typed[at]}: {err.message[field.end() :]}") from None
