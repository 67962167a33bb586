"""The four tables of a corpus, per race: ``races``, ``car_races``, ``turns``, ``decisions`` (docs/study.md).

Every column is read off what the rest of heatlog already derives — the per-turn facts of
:class:`heatlog.stats.FactCollector` (the ``turns`` table, the same columns as the derived SQLite table), the
per-car statistics of :func:`heatlog.stats.race_stats` flattened as ``heatlog stats --csv`` prints them (the
``car_races`` table), the race's set-up event and final state (``races``), and the decision events themselves
(``decisions``). Nothing here applies a rule.

The same :class:`RaceRows` watches a race being simulated (a ``watch`` of :func:`heatlog.simulate.simulate_race`:
the state after each event, no second fold) and a stored race being folded (``heatlog export --parquet``), so a
simulated corpus and an exported database answer the same queries.

A batch of races is written as one Parquet file per table, with a fixed schema (a column that happens to be
empty in one batch has the same type as in every other) and no timestamp: the same races give the same bytes.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any

from ..engine import RaceState, apply
from ..engine.errors import HeatlogError, MalformedInput
from ..engine.events import REGISTRY
from ..engine.module import MODULES, Module, ranked
from ..stats.facts import TURN_COLUMNS, TURN_FIELD_TYPES, FactCollector, RaceFacts, TurnFacts
from ..stats.summary import CAR_FLAT_KEYS, CarStats, Tally, flat_row, race_stats

if TYPE_CHECKING:
    import pyarrow as pa

Event = dict[str, Any]

#: The tables of a corpus, in the order they are written.
TABLES: tuple[str, ...] = ("races", "car_races", "turns", "decisions")

# ---------------------------------------------------------------------------------------------------- columns

#: The base's ``races`` columns; each module's (``Module.race_columns``) go in after the one it names.
_BASE_RACE_COLUMNS: dict[str, str] = {
    "race": "int64",
    "name": "string",
    "track": "string",
    "track_name": "string",
    "mode": "string",
    "laps": "int64",
    "over": "bool",
    "rounds": "int64",
    "seed": "int64",
    "variant": "string",
    "cars": "int64",
    "modules": "string",
    "winner": "string",
    "events": "int64",
    "bots": "string",
    "option": "string",
    "parent": "int64",
}
_ARROW_TYPES = {"int": "int64", "str": "string", "bool": "bool"}


def _module_race_columns() -> list[tuple[Module, str]]:
    """The registered modules that add ``races`` columns, as (module, the column they follow), by rank."""
    return [(m, m.race_after) for m in ranked(list(MODULES)) if m.race_columns]


def _race_columns() -> dict[str, str]:
    out: dict[str, str] = {}
    placed = _module_race_columns()
    for name, kind in _BASE_RACE_COLUMNS.items():
        out[name] = kind
        for m, after in placed:
            if after == name:
                out.update({c.name: _ARROW_TYPES[c.type] for c in m.race_columns})
    return out


#: ``races``: one row per race. The first columns are ``heatlog stats --json``'s race keys; then its set-up (from
#: ``race_started``), what the modules add (their options, what chance drew for them: ``Module.race_columns``),
#: the winner, and where it comes from (a study's option and bots; a database's name and parent race).
RACE_COLUMNS: dict[str, str] = _race_columns()

_STATS_FLOAT = frozenset({"boosts_mean", *(f"mean_speed_by_gear_{g}" for g in "1234")})


def _car_columns() -> dict[str, str]:
    """``car_races``: ``stats --csv``'s columns of one car (race, track, then the car's flat statistics), and what
    a study wants besides: the bot, whether it is a Legend, its grid position and the Heat left on its Engine."""
    proto = flat_row(CarStats("", "", 0, False, None, Tally()).to_dict())
    out = {"race": "int64", "track": "string"}
    for key, value in proto.items():
        if key in _STATS_FLOAT:
            out[key] = "float64"
        elif isinstance(value, bool):
            out[key] = "bool"
        elif isinstance(value, str):
            out[key] = "string"
        else:  # ints, and the ints a car without turns lacks (finish_round, stress_drawn)
            out[key] = "int64"
    out.update({"bot": "string", "legend": "bool", "grid": "int64", "heat_left": "int64"})
    return out


CAR_COLUMNS: dict[str, str] = _car_columns()
# CAR_COLUMNS is (race, track, a car's flat statistics — CarStats.flat_values' columns —, bot, legend, grid,
# heat_left): a car row is then made from flat_values, without the nested dict (issue 31); else by keys
_BY_VALUES = tuple(CAR_COLUMNS) == ("race", "track", *CAR_FLAT_KEYS, "bot", "legend", "grid", "heat_left")


def _turn_type(text: str) -> str:
    if "bool" in text:
        return "bool"
    if "int" in text:
        return "int64"
    return "string"


#: ``turns``: exactly the derived SQLite table's columns (:data:`heatlog.stats.TURN_COLUMNS`), booleans as booleans.
TURN_TYPES: dict[str, str] = {name: _turn_type(tp) for name, tp in TURN_FIELD_TYPES.items()}

#: ``decisions``: one row per decision event (gear, cards, React, slipstream, discard, draft picks, …), in log
#: order: the event's place in the log, the round, the car, its type and its main values; ``detail`` holds the
#: event's other fields as canonical JSON.
DECISION_COLUMNS: dict[str, str] = {
    "race": "int64",
    "event": "int64",
    "round": "int64",
    "car": "string",
    "type": "string",
    "gear": "int64",
    "cards": "string",
    "taken": "bool",
    "count": "int64",
    "detail": "string",
}

COLUMNS: dict[str, dict[str, str]] = {
    "races": RACE_COLUMNS,
    "car_races": CAR_COLUMNS,
    "turns": TURN_TYPES,
    "decisions": DECISION_COLUMNS,
}

_DECISION_MAIN = frozenset({"type", "v", "car", "gear", "cards", "card", "taken", "count"})


_DECISION_KINDS: dict[str, bool] = {}


def _is_decision(kind: str) -> bool:
    """A decision: an event type that is neither chance, nor beside the race, nor the set-up (cached)."""
    known = _DECISION_KINDS.get(kind)
    if known is None:
        entry = REGISTRY.get(kind)
        known = entry is not None and not entry.chance and not entry.aside and kind != "race_started"
        _DECISION_KINDS[kind] = known
    return known


def module_columns_doc() -> str:
    """The columns the registered modules add (``Module.race_columns``, ``Module.turn_columns``) as docs/study.md
    lists them, from their declarations (tests/test_study_tables.py checks the doc holds this text)."""
    from ..stats.facts import MODULE_TURN_COLUMNS

    lines = []
    for m, after in _module_race_columns():
        for c in m.race_columns:
            shown = _shown(c.default)
            lines.append(f"| `races` | `{c.name}` | {c.type} | {m.name} | {shown} | {c.doc} (after `{after}`) |")
    turn_modules = {c.name: m.name for m in MODULES.values() for c in m.turn_columns}
    for c in MODULE_TURN_COLUMNS:
        module = turn_modules[c.name]
        lines.append(f"| `turns` | `{c.name}` | {c.type} | {module} | {_shown(c.default)} | {c.doc} (after `led`) |")
    head = "| table | column | type | module | without the module | meaning |\n|---|---|---|---|---|---|\n"
    return head + "\n".join(lines) + "\n"


def _shown(value: Any) -> str:
    return "NULL" if value is None else f"`{json.dumps(value, ensure_ascii=False, allow_nan=False)}`"


def module_race_values(state: RaceState, started: Event) -> dict[str, Any]:
    """The ``races`` columns every module adds (``Module.race_columns``): its ``race_facts`` for a module the race
    plays, the columns' defaults for the others (asked once per race)."""
    playing = set(state.rules.modules)
    out: dict[str, Any] = {}
    for m, _ in _module_race_columns():
        if m.name in playing and m.race_facts is not None:
            out.update(zip((c.name for c in m.race_columns), m.race_facts(state, started), strict=True))
        else:
            out.update((c.name, c.default) for c in m.race_columns)
    return out


# ---------------------------------------------------------------------------------------------------- rows


class RaceRows:
    """The rows of one race, collected as its events are applied: call it after each event with the state the
    event left (the ``watch`` of :func:`heatlog.simulate.simulate_race`), or :meth:`fold` a stored log.

    ``extra``: values of the ``races`` columns the log does not hold (a study's ``option``; a database's race
    ``name`` and ``parent``); ``bots``: the bot of each car, by name."""

    __slots__ = ("bots", "collector", "decisions", "events", "extra", "first", "grid", "race")

    def __init__(
        self, race: int, *, bots: Mapping[str, str] | None = None, extra: Mapping[str, Any] | None = None
    ) -> None:
        self.race = race
        self.bots = dict(bots or {})
        self.extra = dict(extra or {})
        self.collector = FactCollector(race, self.extra.get("name"))
        self.decisions: list[tuple[int, int, Event]] = []  # (place in the log, round, event): rows made at the end
        self.events = 0
        self.grid: list[str] = []
        self.first: Event | None = None

    def __call__(self, state: RaceState, event: Event) -> None:
        kind = event.get("type", "")
        if self.first is None:
            self.first = event
        elif kind == "grid_set":
            self.grid = list(event.get("order", []))
        elif _DECISION_KINDS.get(kind) or (kind not in _DECISION_KINDS and _is_decision(kind)):
            self.decisions.append((self.events, state.round, event))
        self.events += 1
        self.collector.observe(state)  # after this event, before the next (FactCollector.apply's order)

    def fold(self, events: Sequence[Event]) -> None:
        """Apply a stored race's effective log, event by event (errors name the race)."""
        state: RaceState | None = None
        for ev in events:
            try:
                state = apply(state, ev, atomic=False)
            except HeatlogError as err:
                raise err.located(race=self.race) from None
            self(state, ev)

    def facts(self) -> RaceFacts:
        return self.collector.result()

    def summary_rows(self, facts: RaceFacts) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
        """The race's ``races`` row and ``car_races`` rows (tuples in :data:`COLUMNS` order), from its ``facts``."""
        state = self.collector.state
        assert state is not None and self.first is not None
        first = self.first
        stats = race_stats(facts)
        cars = first.get("cars", [])
        race_row = {
            **stats.race_dict(),
            "track_name": facts.track_name,
            "seed": first.get("seed"),
            "variant": first.get("variant"),
            "cars": len(cars),
            **module_race_values(state, first),
            "modules": " ".join(first.get("modules", [])),
            "winner": facts.cars[0].name if facts.over and facts.cars else None,
            "events": self.events,
            "bots": ",".join(self.bots.get(c["name"], "") for c in first.get("cars", []) if not c.get("legend"))
            or None,
            **self.extra,
            "race": self.race,
        }
        grid = {name: i for i, name in enumerate(self.grid, start=1)}
        car_rows = []
        for c in stats.cars:
            car = state.cars[c.car]
            bot = self.bots.get(c.car, "Legend" if car.legend else None)
            heat_left = None if car.legend else car.engine
            if _BY_VALUES:  # the columns' own order (always, unless CAR_COLUMNS is reshaped)
                legend = bool(car.legend)
                car_rows.append((self.race, facts.track, *c.flat_values(), bot, legend, grid.get(c.car), heat_left))
                continue
            row = {"race": self.race, "track": facts.track, **flat_row(c.to_dict())}
            row.update(bot=bot, legend=bool(car.legend), grid=grid.get(c.car), heat_left=heat_left)
            car_rows.append(tuple(row.get(k) for k in CAR_COLUMNS))
        return tuple(race_row.get(k) for k in RACE_COLUMNS), car_rows

    def rows(self) -> dict[str, list[tuple[Any, ...]]]:
        """The race's rows of each table (tuples in :data:`COLUMNS` order; a :class:`Batch` keeps columns)."""
        facts = self.collector.result()
        race_row, car_rows = self.summary_rows(facts)
        return {
            "races": [race_row],
            "car_races": car_rows,
            "turns": list(facts.turns),  # (a TurnFacts is a tuple in the columns' order)
            "decisions": decision_rows(self.race, self.decisions),
        }


def decision_rows(race: int, noted: Sequence[tuple[int, int, Event]]) -> list[tuple[Any, ...]]:
    """The ``decisions`` rows of a race's decision events, ``noted`` as (place in the log, round, event): each row
    is :func:`decision_row`'s (tests/test_study_tables.py checks it), made by :func:`decision_columns`."""
    return list(zip(*decision_columns(race, noted), strict=True)) if noted else []


def decision_columns(race: int, noted: Sequence[tuple[int, int, Event]]) -> list[Sequence[Any]]:
    """The ``decisions`` columns (:data:`DECISION_COLUMNS` order) of a race's decision events, ``noted`` as (place
    in the log, round, event), kept as columns to the Parquet file (no row tuples made and turned back into
    columns). Issue 31: Python's cost is per value, so each value is made by C where it can be — the fields read
    by ``map(dict.get)``, the place and round by one ``zip``, a column whose values are all of its type (or None)
    kept as it is, the cards joined without ``str`` when they are all text — and each shortcut falls back to
    :func:`decision_row`'s reading value by value (tests/test_study_tables.py checks the rows are its rows)."""
    if not noted:
        return [[] for _ in DECISION_COLUMNS]
    index, rounds, evs = zip(*noted, strict=True)
    get = dict.get
    cards = list(map(get, evs, repeat("cards")))
    gear = list(map(get, evs, repeat("gear")))
    taken = list(map(get, evs, repeat("taken")))
    count = list(map(get, evs, repeat("count")))
    try:  # (lists of text, as every log holds: join refuses anything else, then each card is str()'d)
        text = [
            (" ".join(c) if type(c) is list else None)
            if c is not None
            else None
            if (d := e.get("card")) is None
            else str(d)
            for e, c in zip(evs, cards, strict=True)
        ]
    except TypeError:
        text = [
            (" ".join(map(str, c)) if type(c) is list else None)
            if c is not None
            else None
            if (d := e.get("card")) is None
            else str(d)
            for e, c in zip(evs, cards, strict=True)
        ]
    return [
        [race] * len(evs),
        index,
        rounds,
        list(map(get, evs, repeat("car"))),
        list(map(get, evs, repeat("type"))),
        gear if _INT_OR_NONE.issuperset(map(type, gear)) else [g if type(g) is int else None for g in gear],
        text,
        taken if _BOOL_OR_NONE.issuperset(map(type, taken)) else [t if type(t) is bool else None for t in taken],
        count if _INT_OR_NONE.issuperset(map(type, count)) else [k if type(k) is int else None for k in count],
        [
            None
            if len(e)
            <= 1
            + ("v" in e)
            + ("car" in e)
            + (c is not None or e.get("card") is not None)
            + (g is not None)
            + (t is not None)
            + (k is not None)
            else _detail(e)  # (the fields with a column of their own counted, as decision_row does)
            for e, c, g, t, k in zip(evs, cards, gear, taken, count, strict=True)
        ],
    ]


_INT_OR_NONE = frozenset({int, type(None)})  # (not bool: True is no gear or count)
_BOOL_OR_NONE = frozenset({bool, type(None)})


# json.dumps(..., separators=(",", ":"), ensure_ascii=False, allow_nan=False), made once: dumps with options makes
# a new encoder at every call
_DETAIL_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode


# the detail of an event's fields seen before: (its fields, their values' types) -> JSON
_DETAILS: dict[tuple[tuple[tuple[str, Any], ...], tuple[type, ...]], str] = {}
_PLAIN = frozenset({str, int, bool, type(None)})  # values whose equal ones (of one type) have one JSON text


def _detail(ev: Event) -> str:
    """The event's fields beyond the columns as canonical JSON. The same few small details come back in every
    race (an adrenaline's bonus …): the JSON of an event of plain values is remembered, keyed by its fields as
    they are and their values' types (``1`` and ``True`` are equal keys but other JSON; a float is never a key:
    ``0.0 == -0.0``), a few thousand at most; the key is made in C (issue 31: ~12,000 instructions a detail
    were spent sorting names for it)."""
    types = tuple(map(type, ev.values()))
    if not _PLAIN.issuperset(types):
        return _json_detail(ev)
    key = (tuple(ev.items()), types)
    said = _DETAILS.get(key)
    if said is None:
        said = _json_detail(ev)
        if len(_DETAILS) >= 4096:
            _DETAILS.clear()
        _DETAILS[key] = said
    return said


def _json_detail(ev: Event) -> str:
    names = sorted(ev.keys() - _DECISION_MAIN)
    return _DETAIL_JSON(dict(zip(names, map(ev.__getitem__, names), strict=True)))


def decision_row(race: int, index: int, round_: int, ev: Event) -> tuple[Any, ...]:
    """One row of ``decisions``: the event's main fields in their columns (a value of another type: NULL),
    ``detail`` the event's other fields as canonical JSON when it has any beyond its columns."""
    get = ev.get
    main = 1 + ("v" in ev) + ("car" in ev)  # the fields with a column of their own, to tell if any is left
    cards = get("cards")
    card_text: str | None = None
    if cards is not None:
        main += 1
        if type(cards) is list:
            card_text = " ".join(map(str, cards))
    else:
        card = get("card")
        if card is not None:
            main += 1
            card_text = str(card)
    gear = get("gear")
    taken = get("taken")
    count = get("count")
    main += (gear is not None) + (taken is not None) + (count is not None)
    detail = _detail(ev) if len(ev) > main else None
    return (
        race,
        index,
        round_,
        get("car"),
        get("type"),
        gear if type(gear) is int else None,
        card_text,
        taken if type(taken) is bool else None,
        count if type(count) is int else None,
        detail,
    )


# ---------------------------------------------------------------------------------------------------- Parquet


#: How every table file is written (besides one row group per file).
PARQUET_OPTIONS: dict[str, Any] = {
    "compression": "zstd",
    "compression_level": 3,
    "use_dictionary": True,
    "write_statistics": True,
}


def require_pyarrow() -> None:
    """Parquet needs pyarrow, the study extra: said as a user error before anything is made."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise MalformedInput("Parquet needs pyarrow: pip install 'heatlog[study]'") from None


def schema(table: str) -> pa.Schema:
    import pyarrow as pa

    kinds = {"int64": pa.int64(), "string": pa.string(), "bool": pa.bool_(), "float64": pa.float64()}
    return pa.schema([(name, kinds[kind]) for name, kind in COLUMNS[table].items()])


def parquet_bytes(table: str, rows: list[tuple[Any, ...]], metadata: Mapping[str, str]) -> bytes:
    """``rows`` of ``table`` as the bytes of one Parquet file: :func:`parquet_columns` of their columns."""
    columns = [list(col) for col in zip(*rows, strict=True)] if rows else [[] for _ in COLUMNS[table]]
    return parquet_columns(table, columns, metadata)


def parquet_columns(table: str, columns: Sequence[Sequence[Any]], metadata: Mapping[str, str]) -> bytes:
    """The ``columns`` of ``table`` (:data:`COLUMNS` order, all of one length) as the bytes of one Parquet file
    (zstd, dictionary encoding, one row group, the schema of :data:`COLUMNS`, ``metadata`` as key-value
    metadata): a pure function of its arguments."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sch = schema(table).with_metadata({k.encode(): v.encode() for k, v in metadata.items()})
    arrow = pa.Table.from_arrays([pa.array(col, type=sch.field(i).type) for i, col in enumerate(columns)], schema=sch)
    buf = io.BytesIO()
    pq.write_table(arrow, buf, row_group_size=max(1, arrow.num_rows), **PARQUET_OPTIONS)
    return buf.getvalue()


class Batch:
    """The rows of a batch of races, table by table: :meth:`add` each race as it ends (its state is let go),
    then :meth:`files`.

    Kept as the Parquet files want them (issue 31: no tuple per row made to be turned back into columns): the
    ``races`` and ``car_races`` rows (a few a race), the ``turns`` as the races' :class:`TurnFacts` (tuples in the
    columns' order: their columns are one ``zip`` when the file is made) and the ``decisions`` as columns."""

    __slots__ = ("decisions", "races", "rows", "turns")

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[Any, ...]]] = {"races": [], "car_races": []}
        self.turns: list[TurnFacts] = []
        self.decisions: list[list[Any]] = [[] for _ in DECISION_COLUMNS]
        self.races = 0

    def add(self, race: RaceRows) -> None:
        facts = race.collector.result()
        race_row, car_rows = race.summary_rows(facts)
        self.rows["races"].append(race_row)
        self.rows["car_races"].extend(car_rows)
        self.turns.extend(facts.turns)
        if race.decisions:
            for column, values in zip(self.decisions, decision_columns(race.race, race.decisions), strict=True):
                column.extend(values)
        self.races += 1

    def columns(self, table: str) -> list[Sequence[Any]]:
        """The batch's columns of ``table`` (:data:`COLUMNS` order), rows in the order the races were added."""
        if table == "turns":
            return list(zip(*self.turns, strict=True)) if self.turns else [() for _ in TURN_COLUMNS]
        if table == "decisions":
            return list(self.decisions)
        rows = self.rows[table]
        return list(zip(*rows, strict=True)) if rows else [() for _ in COLUMNS[table]]

    def files(self, metadata: Mapping[str, str]) -> dict[str, bytes]:
        """The Parquet bytes of each table (rows in the order the races were added)."""
        return {t: parquet_columns(t, self.columns(t), metadata) for t in TABLES}


__all__ = [
    "CAR_COLUMNS",
    "COLUMNS",
    "DECISION_COLUMNS",
    "PARQUET_OPTIONS",
    "RACE_COLUMNS",
    "TABLES",
    "TURN_TYPES",
    "Batch",
    "RaceRows",
    "decision_columns",
    "decision_row",
    "decision_rows",
    "module_columns_doc",
    "module_race_values",
    "parquet_bytes",
    "parquet_columns",
    "require_pyarrow",
    "schema",
]
