"""The set-up questions of ``heatlog record --new``."""

from __future__ import annotations

import contextlib
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..engine import HeatlogError, MalformedInput
from ..formats.validation import validate_event
from ..log.racelog import RaceLog
from .notation import error_text
from .questions import make_event


@dataclass(slots=True)
class NewRace:
    """The set-up questions of ``heatlog record --new``: track, cars, variant, handicap, mode, grid."""

    answers: dict[str, Any] = field(default_factory=dict)
    #: The modules chosen on the command line, as one mapping by name (``record --new --weather``: the tile and
    #: tokens are asked once the race exists, MODULES.md 20); the Garage and Legends are asked here.
    modules: dict[str, Any] = field(default_factory=dict)
    # # 17.2: experienced drivers are declared before the grid is randomised.
    STEPS: tuple[str, ...] = (
        *("name", "track", "cars", "legend_options", "variant", "handicap", "mode"),
        *("garage", "grid"),
    )

    @property
    def step(self) -> str | None:
        for s in self.STEPS:
            if s == "legend_options" and not self.answers.get("legends"):
                continue  # asked only when Legends race (MODULES.md 19.14, 19.15)
            if s not in self.answers:
                return s
        return None

    def prompt(self) -> str:
        return {
            "name": "race name, e.g. Friday night USA (Enter = none): ",
            "track": "track (usa, great-britain, france, italy, japan, mexico, spain, netherlands, "
            "or a track file) [usa]: ",
            "cars": "cars, NAME:COLOUR each, e.g. Ann:red Bob:blue, Legends as legend:COLOUR (2–6): ",
            "legend_options": "Legend options: pro N (+N helmet), aggressive (chevrons) (Enter = none): ",
            "variant": "variant: standard or one-lap [standard]: ",
            "handicap": "experienced drivers, who start with 5 Engine Heat (Enter = none): ",
            "mode": "mode: table (hands hidden) or open (every card entered) [table]: ",
            "garage": "Garage module: none, or basic/advanced/all upgrades, random/draft/snake, "
            "heavy-rain, tunnel-vision [none]: ",
            "grid": "grid order, front first (Enter = random): ",
        }[self.step or "track"]

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
                self.answers.pop("legends", None)
            return f"undone: {done[-1]}"
        try:
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
                cars, legends = [], []
                typed: list[str] = []  # each car as typed, in the order of cars then legends (the log's order)
                legend_typed: list[str] = []
                for spec in s.replace(",", " ").split():
                    name, sep, colour = spec.partition(":")
                    if not name or not sep or not colour:
                        raise MalformedInput(f"{spec!r}: write NAME:COLOUR, e.g. Ann:red (a Legend: legend:black)")
                    if name.lower() == "legend":  # MODULES.md 19.3: a Legend is named after its colour
                        from ..engine.modules.legends import legend_name

                        legends.append({"name": legend_name(colour), "colour": colour.lower()})
                        legend_typed.append(spec)
                    else:
                        cars.append({"name": name, "colour": colour})
                        typed.append(spec)
                typed += legend_typed
                names = [c["name"] for c in cars + legends]
                if not 2 <= len(names) <= 6:  # # A14 (Legends count, MODULES.md 19.3)
                    raise MalformedInput(f"a race has 2 to 6 cars, Legends included, not {len(names)}")
                if not cars:
                    raise MalformedInput("a race needs at least one player's car beside the Legends")
                if len(set(names)) != len(names):
                    raise MalformedInput("every car needs its own name")
                if legends:
                    from ..formats.module_data import legend_data

                    colours = legend_data()["colours"]
                    bad = [c["colour"] for c in legends if c["colour"] not in colours]
                    if bad:
                        raise MalformedInput(f"{bad[0]!r} is not a Legend colour: {' '.join(colours)} (# 19.4)")
                from ..races import race_started_event

                with _as_typed(typed):
                    validate_event(make_event("grid_set", order=names))
                    # the door's checks of the cars (names, colours each its own, # 19.4), asked now: refused when
                    # the race was made, the whole set-up answered for nothing
                    modules = {"legends": {"cars": legends}} if legends else None
                    validate_event(race_started_event(track=self.answers["track"], cars=cars, modules=modules))
                self.answers["cars"] = cars
                self.answers["legends"] = legends
                echo = "cars: " + ", ".join(f"{c['name']} ({c['colour']})" for c in cars)
                return echo + ("; Legends: " + ", ".join(c["name"] for c in legends) if legends else "")
            if step == "legend_options":
                from ..engine.modules.legends.rules import MAX_PRO
                from ..formats.module_data import legends_module

                words = s.lower().replace(",", " ").split()
                pro, aggressive = 0, False
                i = 0
                while i < len(words):
                    if words[i] == "aggressive":
                        aggressive = True
                    elif words[i] == "pro" and i + 1 < len(words) and words[i + 1].isdecimal():
                        pro = int(words[i + 1])
                        i += 1
                    else:
                        raise MalformedInput(f"type pro N (0–{MAX_PRO}), aggressive, both, or Enter for none")
                    i += 1
                # the range new --pro is held to (# 19.15), asked now, refused in its words
                legends_module(pro=pro, aggressive=aggressive, option="pro")
                self.answers["legend_options"] = {"pro": pro, "aggressive": aggressive}
                return f"Legends: pro +{pro}, {'aggressive' if aggressive else 'not aggressive'}"
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
            if step == "garage":  # # 18.3, 18.5: the module and its options, recorded in race_started
                from ..engine.modules.garage.cards import DRAFT_METHODS, EXPANSIONS, UPGRADE_LEVELS, GarageOptions

                words = s.lower().replace(",", " ").split()
                if not words or words == ["none"]:
                    self.answers["garage"] = None
                    return "Garage: none"
                level = [w for w in words if w in UPGRADE_LEVELS]
                method = [w for w in words if w in DRAFT_METHODS]
                exp = [w for w in words if w in EXPANSIONS]
                rest = [w for w in words if w not in (*level, *method, *exp)]
                if rest or len(level) > 1 or len(method) > 1:
                    raise MalformedInput(
                        "name the upgrades (basic, advanced, all), then random, draft or snake, and any of "
                        "heavy-rain, tunnel-vision (# 18.3, 18.5)"
                    )
                try:
                    opts = GarageOptions.from_dict(
                        {"upgrades": (level or ["basic"])[0], "draft": (method or ["draft"])[0], "expansions": exp}
                    )
                except ValueError as exc:
                    raise MalformedInput(str(exc)) from exc
                self.answers["garage"] = opts.to_dict()
                extra = f" with {', '.join(opts.expansions)}" if opts.expansions else ""
                how = {"random": "dealt at random", "draft": "draft", "snake": "snake draft"}[opts.draft]
                return f"Garage: {opts.upgrades} upgrades{extra}, {how}"
            if step == "grid":
                names = [c["name"] for c in self.answers["cars"] + self.answers.get("legends", [])]
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

    def create(self, log: RaceLog) -> int:
        from ..races import start_race

        a = self.answers
        modules = dict(self.modules)
        if a.get("garage") is not None:
            modules["garage"] = a["garage"]
        if a.get("legends") or a.get("legend_options"):
            modules["legends"] = {"cars": list(a.get("legends") or []), **a.get("legend_options", {})}
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
