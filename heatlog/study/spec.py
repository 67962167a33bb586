"""A study's spec: which races a corpus holds, each race's set-up and seed (docs/study.md).

The spec is a small JSON file (``study.json``) saved beside the corpus, with the rules fingerprint the corpus
was simulated under. Race ``i`` of a corpus is a pure function of the spec and ``i``:

- a **grid** (``"seeds": {"first": F, "count": K}``): every combination of ``tracks`` × ``cars`` × ``bots`` ×
  ``modules`` (the *configurations*, in that order) is played with seeds ``F … F+K-1``; race ``i`` is
  configuration ``i % C`` with seed ``F + i // C`` (C configurations). The same seed gives every configuration
  the same grid draw and shuffles as far as they go alike (paired comparisons of a module option). More seeds
  later append races ``C·K …``: no race is played twice and none changes.
- a **sample** (``"sample": {"races": N, "seed": S}``): race ``i`` draws its configuration and its seed from a
  generator seeded with ``(S, i)`` alone; more races later append ``N …``.

Everything a user writes is checked before a race is played; each configuration's set-up is built once (the
door's own checks: 2–6 cars with Legends, Garage options, the track), so a spec that cannot be raced is refused
with the field named.
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.errors import HeatlogError, MalformedInput

if TYPE_CHECKING:
    from ..engine.module import Module

#: Races per batch unless the spec says otherwise: 5–15 s of one core for 4-car heuristic races (a task on a pool
#: or a cluster costs milliseconds), and one file per table: a query over 100,000 races reads 100 files of each
#: table rather than 400 (DuckDB took about half the time over files of 1,000 races than over files of 250).
DEFAULT_BATCH = 1000
MAX_RACES = 10**12  # a count beyond this is a typo, not a study
SPEC_FILE = "study.json"
SPEC_VERSION = 1

_ENTRY_KEYS = {"name", "variant"}  # a module entry's own keys; the rest are the modules' (by name, or old keys)
_TOP_KEYS = {"study", "tracks", "cars", "bots", "modules", "laps", "seeds", "sample", "batch", "rules"}


@dataclass(frozen=True, slots=True)
class Config:
    """One configuration of the grid: what :func:`heatlog.simulate.simulate_race` is given besides the seed."""

    index: int
    track: str
    cars: int
    bots: str  # one bot for every car ("heuristic") or one per car ("heuristic,random,random,random")
    option: str  # the module entry's name ("base", "weather", …)
    module: tuple[tuple[str, Any], ...]  # its options, sorted by key (without the name)
    laps: int | None

    def kwargs(self) -> dict[str, Any]:
        bots: str | list[str] = self.bots.split(",") if "," in self.bots else self.bots
        return {
            "track": self.track,
            "cars": self.cars,
            "laps": self.laps,
            "variant": dict(self.module).get("variant"),
            "bots": bots,
            "modules": self.modules(),
        }

    def modules(self) -> dict[str, Any]:
        """The configuration's modules, each one's options by its name, as ``simulate_race(modules=)`` takes them
        (issue 26, build 5): the keys a module was read by before it was a unit, made into its options by the
        module (``Module.study_block``: the old specs' upcaster), and any other registered module by its name."""
        opts = dict(self.module)
        out: dict[str, Any] = {}
        claimed: set[str] = set()
        for unit in _keyed():
            claimed.update(unit.study_keys)
            kept = {k: _value(opts[k]) for k in unit.study_keys if k in opts}
            if kept and unit.study_block is not None:
                block = unit.study_block(kept)
                if block is not None:
                    out[unit.name] = block
        for key, value in opts.items():
            if key not in claimed and key not in _ENTRY_KEYS:  # a module by its name: its block (JSON, as kept)
                out[key] = json.loads(value)
        return out


def _value(kept: Any) -> Any:
    """A module key's value as the entry keeps it: an object as its canonical JSON text, else as written."""
    return json.loads(kept) if isinstance(kept, str) else kept


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _fail(where: str, what: str) -> MalformedInput:
    return MalformedInput(f"study spec: {where}: {what}")


def _int(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(where, f"a whole number is needed, not {json.dumps(value, allow_nan=False)[:40]}")
    if not low <= value <= high:
        raise _fail(where, f"{value} is out of range ({low} to {high})")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise _fail(where, "a non-empty list is needed")
    if len(value) > 1000:
        raise _fail(where, f"{len(value)} entries: at most 1000")
    return value


def _track(value: Any, where: str) -> str:
    from ..formats.tracks import BUILTIN_TRACKS, builtin_track_id

    tid = builtin_track_id(value) if isinstance(value, str) else None
    if tid is None:
        raise _fail(
            where,
            f"unknown track {json.dumps(value, allow_nan=False)[:40]} (built-in tracks: {', '.join(BUILTIN_TRACKS)})",
        )
    return tid


def _bots(value: Any, where: str) -> str:
    from ..bots import BOTS

    if not isinstance(value, str) or not value:
        raise _fail(where, "a bot name, or one per car joined by commas (heuristic,random,…)")
    names = [b.strip() for b in value.split(",")]
    for b in names:
        if b not in BOTS:
            raise _fail(where, f"unknown bot {b[:40]!r} (choose {', '.join(BOTS)})")
    return ",".join(names)


def _module(value: Any, where: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
    if not isinstance(value, dict):
        raise _fail(where, 'an object of module options ({"name": "weather", "weather": true})')
    units = _units()
    keyed = _keyed()
    known_keys = _ENTRY_KEYS | {k for unit in keyed for k in unit.study_keys} | set(units)
    extra = sorted(set(value) - known_keys)
    if extra:
        raise _fail(where, f"unknown option {extra[0][:40]!r} (options: {', '.join(sorted(known_keys))})")
    opts: dict[str, Any] = {}
    for key in sorted(set(value) & set(units)):  # a registered module by its name: true (its example) or its block
        block = value[key]
        if block is False or block is None:
            continue
        if block is True:
            from ..formats.module_data import module_block

            block = module_block(key)
        if not isinstance(block, dict):
            raise _fail(f"{where}.{key}", "true (the module with its data file's options) or its options object")
        opts[key] = _canonical(block)
    for unit in keyed:  # the keys a module was read by before it was a unit, checked and kept by it (its upcaster)
        given = {k: value[k] for k in unit.study_keys if k in value}
        if not given or unit.study_read is None:
            continue
        try:
            kept = unit.study_read(given)
        except ValueError as exc:
            key, _, words = str(exc).partition(": ")
            raise _fail(f"{where}.{key}", words) from None
        for key, v in kept.items():
            opts[key] = _canonical(v) if isinstance(v, dict) else v
    if "variant" in value and value["variant"] not in (None, "standard"):
        if value["variant"] != "one-lap":
            raise _fail(f"{where}.variant", "one-lap, or none for the standard race")
        opts["variant"] = "one-lap"
    name = value.get("name")
    if name is None:
        name = " ".join(f"{k}={v}" for k, v in sorted(opts.items())) or "base"
    from ..formats.usertext import name_problem

    if not isinstance(name, str) or name_problem(name) is not None:
        raise _fail(f"{where}.name", "a short name of printable characters")
    return name, tuple(sorted(opts.items()))


def _units() -> list[str]:
    """The modules registered as one unit that a study entry may name (each with an example block: its data file's
    options), besides the keys the modules were read by before (``Module.study_keys``)."""
    from ..engine import rules as _registered  # noqa: F401  (importing the rules registers every module)
    from ..engine.module import MODULES

    old = {k for unit in MODULES.values() for k in unit.study_keys}
    return sorted(n for n, m in MODULES.items() if m.example is not None and n not in old)


def _keyed() -> list[Module]:
    """The modules a study entry reads by the keys they had before they were units (``Module.study_keys``)."""
    from ..engine import rules as _registered  # noqa: F401  (importing the rules registers every module)
    from ..engine.module import MODULES

    return [unit for unit in MODULES.values() if unit.study_keys]


@dataclass(frozen=True)
class StudySpec:
    tracks: tuple[str, ...]
    cars: tuple[int, ...]
    bots: tuple[str, ...]
    modules: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]  # (name, options)
    laps: int | None
    first_seed: int | None  # a grid: seeds first_seed … first_seed + seeds - 1
    seeds: int
    sample_seed: int | None  # a sample: races drawn from (sample_seed, i)
    sample_races: int
    batch: int
    rules: str

    # ---- reading and writing

    @classmethod
    def from_dict(cls, data: Any, *, rules: str | None = None) -> StudySpec:
        """A spec from its JSON document, checked field by field (``rules``: the fingerprint, when the document
        has none: a new study)."""
        if not isinstance(data, dict):
            raise _fail("the file", "a JSON object is needed")
        extra = sorted(set(data) - _TOP_KEYS)
        if extra:
            raise _fail(extra[0][:40], f"unknown field (fields: {', '.join(sorted(_TOP_KEYS))})")
        if data.get("study", SPEC_VERSION) != SPEC_VERSION:
            raise _fail(
                "study", f"version {json.dumps(data.get('study'), allow_nan=False)[:20]} is not one this heatlog reads"
            )
        tracks = tuple(_track(t, f"tracks[{i}]") for i, t in enumerate(_list(data.get("tracks", ["usa"]), "tracks")))
        cars = tuple(_int(c, f"cars[{i}]", 1, 6) for i, c in enumerate(_list(data.get("cars", [4]), "cars")))
        bots = tuple(_bots(b, f"bots[{i}]") for i, b in enumerate(_list(data.get("bots", ["heuristic"]), "bots")))
        modules = tuple(_module(m, f"modules[{i}]") for i, m in enumerate(_list(data.get("modules", [{}]), "modules")))
        names = [n for n, _ in modules]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise _fail("modules", f"two entries are named {dup!r}: give each its own name")
        laps = data.get("laps")
        if laps is not None:
            laps = _int(laps, "laps", 1, 9)
        if ("seeds" in data) == ("sample" in data):
            raise _fail("seeds", 'give "seeds" (a grid) or "sample" (random configurations), one of them')
        first = sample_seed = None
        seeds = sample_races = 0
        if "seeds" in data:
            s = data["seeds"]
            if not isinstance(s, dict) or set(s) - {"first", "count"}:
                raise _fail("seeds", '{"first": 1, "count": 1000}')
            first = _int(s.get("first", 0), "seeds.first", 0, 2**62)
            seeds = _int(s.get("count"), "seeds.count", 0, MAX_RACES)
        else:
            s = data["sample"]
            if not isinstance(s, dict) or set(s) - {"races", "seed"}:
                raise _fail("sample", '{"races": 10000, "seed": 1}')
            sample_seed = _int(s.get("seed", 0), "sample.seed", 0, 2**62)
            sample_races = _int(s.get("races"), "sample.races", 0, MAX_RACES)
        batch = _int(data.get("batch", DEFAULT_BATCH), "batch", 1, 100_000)
        fingerprint = data.get("rules", rules)
        if not isinstance(fingerprint, str) or not fingerprint or len(fingerprint) > 200:
            raise _fail("rules", "the rules fingerprint is missing")
        spec = cls(tracks, cars, bots, modules, laps, first, seeds, sample_seed, sample_races, batch, fingerprint)
        total = len(spec.configs()) * seeds if first is not None else sample_races
        if total > MAX_RACES:
            raise _fail("seeds", f"{total} races: at most {MAX_RACES}")
        spec.check()
        return spec

    def to_dict(self) -> dict[str, Any]:
        modules = []
        for name, opts in self.modules:
            entry: dict[str, Any] = {"name": name}
            for k, v in opts:
                entry[k] = v if k in _ENTRY_KEYS else _value(v)  # a module's object, from its canonical text
            modules.append(entry)
        out: dict[str, Any] = {
            "study": SPEC_VERSION,
            "tracks": list(self.tracks),
            "cars": list(self.cars),
            "bots": list(self.bots),
            "modules": modules,
            "laps": self.laps,
        }
        if self.first_seed is not None:
            out["seeds"] = {"first": self.first_seed, "count": self.seeds}
        else:
            out["sample"] = {"races": self.sample_races, "seed": self.sample_seed}
        out["batch"] = self.batch
        out["rules"] = self.rules
        return out

    def text(self) -> str:
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False, allow_nan=False) + "\n"

    @classmethod
    def read(cls, directory: Path) -> StudySpec:
        from ..formats.jsonio import loads, read_text_file

        path = directory / SPEC_FILE
        if not path.is_file():
            raise MalformedInput(f"{directory}: not a corpus (no {SPEC_FILE}); `heatlog study run` makes one")
        data = loads(read_text_file(path, "study spec"), f"{path}")  # the door's strict parser: no NaN
        return cls.from_dict(data)

    # ---- the races

    def configs(self) -> list[Config]:
        out = []
        for i, (track, cars, bots, (name, opts)) in enumerate(
            itertools.product(self.tracks, self.cars, self.bots, self.modules)
        ):
            out.append(Config(i, track, cars, bots, name, opts, self.laps))
        return out

    @property
    def total(self) -> int:
        """Races in the corpus."""
        return len(self.configs()) * self.seeds if self.first_seed is not None else self.sample_races

    def plan(self, index: int, configs: list[Config] | None = None) -> tuple[Config, int]:
        """Race ``index``'s configuration and seed (a pure function of the spec and the index)."""
        configs = configs if configs is not None else self.configs()
        if self.first_seed is not None:
            return configs[index % len(configs)], self.first_seed + index // len(configs)
        rng = random.Random(f"heatlog-study {self.sample_seed} {index}")  # str seeds: SHA-512, any platform
        return configs[rng.randrange(len(configs))], rng.randrange(2**31)

    def check(self) -> None:
        """Every configuration's set-up is one the door takes (built once each, nothing played)."""
        from ..formats.validation import validate_event
        from ..races import expand_modules, module_cars, race_started_event
        from ..simulate import bot_names, default_cars

        for c in self.configs():
            where = f"track {c.track}, {c.cars} cars, bots {c.bots}, modules {c.option!r}"
            try:
                kw = c.kwargs()
                modules = kw["modules"]
                roster = default_cars(c.cars)
                count = module_cars(modules)  # the cars the modules add (Module.car_count: the Legends', # 19.1)
                if count and not 2 <= c.cars + count <= 6:
                    raise MalformedInput(f"a race has 2 to 6 cars, the modules' cars included, not {c.cars + count}")
                if not count and c.cars < 2:
                    raise MalformedInput(f"a race has 2 to 6 cars, not {c.cars}")
                bot_names(kw["bots"], [r["name"] for r in roster])
                modules = expand_modules(modules, roster)  # a count as the cars (the colours left free, # 19.3)
                validate_event(
                    race_started_event(
                        track=c.track, cars=roster, laps=c.laps, mode="open", variant=kw["variant"], modules=modules
                    )
                )  # the door's schema check of the set-up, as simulate_race does with a log
            except HeatlogError as err:
                raise _fail(where, err.message) from None

    def extended(self, more: int) -> StudySpec:
        """The same spec with ``more`` seeds (a grid) or races (a sample)."""
        from dataclasses import replace

        if self.first_seed is not None:
            return replace(self, seeds=self.seeds + more)
        return replace(self, sample_races=self.sample_races + more)

    def same_study(self, other: StudySpec) -> bool:
        """The same races up to the shorter: everything but the count of seeds or races is the same."""
        return self._key() == other._key()

    def _key(self) -> dict[str, Any]:
        d = self.to_dict()
        if "seeds" in d:
            d["seeds"]["count"] = 0
        else:
            d["sample"]["races"] = 0
        return d


__all__ = ["DEFAULT_BATCH", "SPEC_FILE", "Config", "StudySpec"]
