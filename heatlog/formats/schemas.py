"""The JSON schemas of heatlog: where each lives, one registry and one validator per schema, the compiled fast
check of event schemas, :func:`validate_against` for the other documents (tracks, positions, data files) and
the plain words every schema problem is told in (docs/design.md).

The layer below every reader of JSON: :mod:`heatlog.formats.jsonio`, :mod:`heatlog.formats.tracks`,
:mod:`heatlog.formats.positions` and the data files check their documents here, and
:mod:`heatlog.formats.validation` (the event door, which checks a set-up's track and position through those
modules) builds on it (issue 26: no import circle).

Messages name the schema, the JSON path of the problem (``cards[2]``) and what is wrong in plain words.
"""

from __future__ import annotations

import json
import numbers
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from ..engine import rules as _registers  # noqa: F401  (importing the rules registers every event type)
from ..engine.errors import MalformedInput
from ..engine.events import REGISTRY, event_types
from .jsonio import json_path

SCHEMA_DIR = Path(__file__).parent.parent / "schema"  # heatlog/schema is a symlink to the top-level schema/
SCHEMA_BASE = "https://heatlog.example/schema/"
SUFFIX = ".schema.json"

# The event catalogue (heatlog.engine.events), in its order; importing the engine registers the base types.
# Each type has schema/events/<schema>.schema.json.
EVENT_TYPES: tuple[str, ...] = event_types()
_EVENT_TYPE_SET = frozenset(EVENT_TYPES)


def schema_path(name: str) -> Path:
    """Where the schema called ``name`` lives: ``"boost"`` (or ``"events/boost"``), ``"track"``, ``"event"``.

    Event types and ``defs`` live in ``schema/events/``, everything else in ``schema/``. The file need not
    exist.
    """
    name = name.removesuffix(SUFFIX)
    if name.startswith("events/"):
        return SCHEMA_DIR / "events" / f"{name.removeprefix('events/')}{SUFFIX}"
    if name in _EVENT_TYPE_SET:
        return SCHEMA_DIR / "events" / f"{REGISTRY[name].schema_name}{SUFFIX}"
    if name == "defs":
        return SCHEMA_DIR / "events" / f"{name}{SUFFIX}"
    return SCHEMA_DIR / f"{name}{SUFFIX}"


#: Event types whose check is compiled only once asked for this many times in a process: a set-up comes once
#: per race, and compiling its check (~8 ms with the track and cards; bigger parts compile at first use) costs
#: what jsonschema takes for ~5 of them (1.6 ms each), so a one-race command never compiles it, and an
#: import or audit of many races does after the third.
_DEFERRED = {"race_started": 3}


@dataclass
class _Schemas:
    """All schemas under one folder, their registry and (lazily) one validator per schema."""

    contents: dict[Path, dict[str, Any]]
    registry: Registry[Any]
    validators: dict[Path, Draft202012Validator] = field(default_factory=dict)
    #: event type -> compiled fast check (None: the schema uses keywords the compiler leaves to jsonschema).
    fast: dict[str, _Check | None] = field(default_factory=dict)
    #: event type -> how many times its check was asked for before it is compiled (see _DEFERRED).
    asked: dict[str, int] = field(default_factory=dict)

    def fast_check(self, etype: str) -> _Check | None:
        try:
            return self.fast[etype]
        except KeyError:
            pass
        wait = _DEFERRED.get(etype, 0)
        if wait:
            asked = self.asked[etype] = self.asked.get(etype, 0) + 1
            if asked <= wait:
                return None  # jsonschema decides, as for an uncompiled schema
        path = schema_path(etype)
        check: _Check | None = None
        schema = self.contents.get(path)
        if schema is not None and self.validator(path).format_checker is None:
            try:
                check = _Compiler(self.registry).root(schema)
            except _Unsupported:
                check = None
        self.fast[etype] = check
        return check

    def validator(self, path: Path) -> Draft202012Validator:
        found = self.validators.get(path)
        if found is None:
            try:
                schema = self.contents[path]
            except KeyError:
                raise FileNotFoundError(f"no schema {path}") from None
            found = Draft202012Validator(schema, registry=self.registry)
            self.validators[path] = found
        return found


def _build(root: Path = SCHEMA_DIR, extra: Mapping[str, Mapping[str, Any]] | None = None) -> _Schemas:
    """Load every ``*.schema.json`` under ``root`` into a registry keyed by ``$id``.

    ``extra`` adds resources by URI (tests use it for stand-ins of schemas not written yet).
    """
    contents: dict[Path, dict[str, Any]] = {}
    resources: list[tuple[str, Resource[Any]]] = []
    for path in sorted(root.rglob(f"*{SUFFIX}")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        uri = schema.get("$id") or SCHEMA_BASE + path.relative_to(root).as_posix()
        if path.relative_to(root).as_posix() in _COMPOSED:
            _compose_modules(path.name, schema)
        contents[path] = schema
        resources.append((uri, Resource.from_contents(schema, default_specification=DRAFT202012)))
    for uri, schema in (extra or {}).items():
        resources.append((uri, Resource.from_contents(dict(schema), default_specification=DRAFT202012)))
    registry: Registry[Any] = Registry().with_resources(resources).crawl()
    return _Schemas(contents=contents, registry=registry)


#: The schemas a registered module adds its blocks to (engine/module.py): race_started's options, a position's
#: modules block and its set-up phases, a season's options (``SeasonHook.schema``).
_COMPOSED = ("events/race_started.schema.json", "position.schema.json", "season/season_started.schema.json")


def _compose_modules(name: str, schema: dict[str, Any]) -> None:
    """Add each registered module's blocks that the file does not spell itself (``Module.options_schema``,
    ``position_schema``, ``phases``): a module lands with its own schema file and no edit of these."""
    from ..engine.module import MODULES, setup_phases

    props = schema["properties"]
    if name == "season_started.schema.json":  # a module's season block (season_started.options[name])
        options = props["options"]["properties"]
        for m in MODULES.values():
            if m.season is not None and m.season.schema and m.name not in options:
                options[m.name] = {"$ref": f"../{m.season.schema}", "description": f"The {m.name} module's season."}
        return
    if name == "race_started.schema.json":
        for m in MODULES.values():
            if m.options_schema and m.name not in props:
                props[m.name] = {"$ref": f"../{m.options_schema}", "description": f"The {m.name} module's options."}
        return
    blocks = props["modules"].setdefault("properties", {})
    for m in MODULES.values():
        if m.position_schema and m.name not in blocks:
            blocks[m.name] = {"$ref": m.position_schema, "description": f"The {m.name} module's block."}
    phase = props.get("phase", {})
    if isinstance(phase.get("enum"), list):
        phase["enum"] += sorted(setup_phases() - set(phase["enum"]))


_CACHE: _Schemas | None = None


def catalogue() -> _Schemas:
    global _CACHE
    if _CACHE is None:
        _CACHE = _build()
    return _CACHE


def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema ``name`` (see :func:`schema_path`)."""
    path = schema_path(name)
    try:
        return catalogue().contents[path]
    except KeyError:
        raise FileNotFoundError(f"no schema {path}") from None


def registry() -> Registry[Any]:
    """The registry of every schema under ``schema/`` (for resolving ``$ref`` elsewhere, e.g. docs)."""
    return catalogue().registry


def compiled_check(etype: str) -> _Check | None:
    """The fast check of ``etype`` if one was compiled already in this process (None: not yet, or none), without
    loading the schemas or compiling anything: the common case of :func:`heatlog.formats.validation.event_errors`."""
    return _CACHE.fast.get(etype) if _CACHE is not None else None


# --------------------------------------------------------------------------------------------------
# the fast check: event schemas compiled to plain Python predicates
#
# jsonschema spends ~150 µs on a small event (descending, evolving validators, resolving every $ref through
# the registry): more than the durable write itself. The door only needs a yes for the common case, so each
# event schema is compiled once, into the source of one Python function (exec'd once), a predicate that is
# *sound*: when it says True, jsonschema would find no error (its semantics are mirrored keyword by keyword,
# including which keywords apply to which JSON types). It may say False for a valid event (e.g. uniqueItems
# over non-strings); then, and for every invalid event, jsonschema runs as before and gives the verdict and
# the message. A schema using a keyword the compiler does not know is not compiled at all.
# tests/test_fast_validation.py checks the agreement (hypothesis: it never accepts what jsonschema refuses).
# Generated code, not closures: about 2.3x the rate of the closure-per-keyword predicates it replaced.

_Check = Callable[[Any], bool]


class _Unsupported(Exception):
    """The schema uses something the compiler leaves to jsonschema."""


# Keywords that assert nothing (format asserts only with a format checker, which the validators lack).
_ANNOTATIONS = frozenset(
    ("$schema", "$id", "$defs", "$comment", "title", "description", "examples", "default", "format", "deprecated")
)


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


class _Matches:
    """A ``pattern`` of a compiled check, with the strings already seen to match it (at most :attr:`LIMIT`): a
    log repeats the same car names and card tokens thousands of times, and a set look-up is ~10x cheaper than
    the search. Only matches are kept, so the verdict is the regex's whatever is cached."""

    LIMIT = 4096

    def __init__(self, pattern: str) -> None:
        self.search = re.compile(pattern).search
        self.good: set[str] = set()

    def match(self, text: str) -> bool:
        if self.search(text) is None:
            return False
        if len(self.good) < self.LIMIT:
            self.good.add(text)
        return True


class _Lazy:
    """A part of a compiled check big enough to compile on its first call: a set-up's position, championship
    or weather block costs more to compile than most races will ever ask of it (issue 9: a one-race command
    must not pay for the parts its race does not have)."""

    def __init__(self, source: str, name: str, namespace: dict[str, Any]) -> None:
        self.source, self.name, self.namespace = source, name, namespace
        self.fn: _Check | None = None

    def __call__(self, x: Any) -> bool:
        fn = self.fn
        if fn is None:
            exec(compile(self.source, "<heatlog compiled schema>", "exec"), self.namespace)  # noqa: S102
            fn = self.fn = self.namespace[self.name]
        return fn(x)


#: A property whose check is longer than this (lines of source) becomes a :class:`_Lazy` of its own.
_LAZY_LINES = 60


class _Compiler:
    """Compiles an event schema into the source of one Python function (``exec``'d once): every keyword becomes
    a plain ``if ...: return False`` on the value, with no call per keyword. It mirrors jsonschema keyword by
    keyword (which keywords apply to which JSON types), so the function is *sound*: True means jsonschema
    finds no error. ``exact`` parts also make False mean invalid; an inexact part (numbers jsonschema knows
    beyond int and float, uniqueItems over non-strings) only says "not sure", and jsonschema decides."""

    def __init__(self, registry: Registry[Any]) -> None:
        self.registry = registry
        self.depth = 0
        self.consts: dict[str, Any] = {"_Number": numbers.Number}
        self.funcs: list[str] = []
        self.n = 0
        self.namespace: dict[str, Any] = {}  # of the check and of its lazy parts (which compile into it later)
        #: variable -> the Python type its schema's "type" already asserted (a statement before, same block or
        #: an enclosing one): the checks after it need not ask isinstance again
        self.known: dict[str, str] = {}

    def root(self, schema: dict[str, Any]) -> _Check:
        resolver = self.registry.resolver(base_uri=schema.get("$id", ""))
        name, _ = self.function(schema, resolver)
        namespace = self.namespace
        namespace.update(self.consts)
        exec(compile("\n".join(self.funcs), "<heatlog compiled schema>", "exec"), namespace)  # noqa: S102
        check: _Check = namespace[name]
        return check

    # ---- building blocks

    def const(self, value: Any) -> str:
        name = f"_k{len(self.consts)}"
        self.consts[name] = value
        return name

    def var(self) -> str:
        self.n += 1
        return f"v{self.n}"

    def function(self, schema: Any, resolver: Any) -> tuple[str, bool]:
        """A function ``f(x) -> bool`` for ``schema`` (its source goes to ``self.funcs``)."""
        name = f"_f{len(self.funcs)}_{self.n}"
        self.n += 1
        body: list[str] = []
        known, self.known = self.known, {}  # a new function: its x is not the caller's
        try:
            exact = self.emit(schema, resolver, "x", body, 1)
        finally:
            self.known = known
        self.funcs.append("\n".join([f"def {name}(x):", *body, "    return True"]))
        return name, exact

    def isa(self, v: str, kind: str) -> str:
        """Source of ``isinstance(v, kind)``: ``True`` where the schema's "type" has asserted it already."""
        return "True" if self.known.get(v) == kind else f"isinstance({v}, {kind})"

    def guard(self, v: str, kind: str) -> str:
        """Source of ``isinstance(v, kind) and ``, or nothing where the schema's "type" has asserted it already."""
        return "" if self.known.get(v) == kind else f"isinstance({v}, {kind}) and "

    def emit(self, schema: Any, resolver: Any, v: str, out: list[str], ind: int) -> bool:
        """Append statements that ``return False`` unless ``v`` is valid; return ``exact``."""
        pad = "    " * ind
        if schema is True:
            return True
        if schema is False:
            out.append(f"{pad}return False")
            return True
        if not isinstance(schema, dict):
            raise _Unsupported("schema is not an object")
        self.depth += 1
        known = dict(self.known)  # what this schema asserts holds in its own statements only
        try:
            if self.depth > 40:
                raise _Unsupported("schema nests too deep (recursive $ref?)")
            if "$id" in schema:
                resolver = resolver.in_subresource(Resource.from_contents(schema, default_specification=DRAFT202012))
            exact = True
            # "type" first: every keyword is a test that returns False, so their order changes no verdict, and
            # the ones after a single "type" need not ask isinstance of the value again
            for key, value in sorted(schema.items(), key=lambda item: item[0] != "type"):
                if key not in _ANNOTATIONS:
                    exact = self.keyword(key, value, schema, resolver, v, out, ind) and exact
                    if key == "type" and isinstance(value, str) and value in _KNOWN_TYPES:
                        self.known[v] = _KNOWN_TYPES[value]
            return exact
        finally:
            self.depth -= 1
            self.known = known

    def keyword(
        self, key: str, value: Any, schema: dict[str, Any], resolver: Any, v: str, out: list[str], ind: int
    ) -> bool:
        pad = "    " * ind
        fail = f"{pad}    return False"
        body: list[str]
        if key == "$ref":
            resolved = resolver.lookup(value)
            return self.emit(resolved.contents, resolved.resolver, v, out, ind)
        if key == "type":
            names = value if isinstance(value, list) else [value]
            if not all(isinstance(n, str) and n in _TYPE_SOURCE for n in names):
                raise _Unsupported(f"type {value!r}")
            test = " or ".join(f"({_TYPE_SOURCE[n].format(v=v)})" for n in names)
            out += [f"{pad}if not ({test}):", fail]
            return "number" not in names  # jsonschema's numbers include Decimal, Fraction, ...
        if key == "const":
            out += [f"{pad}if not ({self.equals(v, value)}):", fail]
            return True
        if key == "enum":
            if not isinstance(value, list):
                raise _Unsupported("enum is not a list")
            if all(isinstance(x, str) for x in value):
                out += [f"{pad}if not ({self.guard(v, 'str')}{v} in {self.const(frozenset(value))}):", fail]
            else:
                out += [f"{pad}if not ({' or '.join(f'({self.equals(v, x)})' for x in value) or 'False'}):", fail]
            return True
        if key == "required":
            out += [f"{pad}if {self.guard(v, 'dict')}not ({self.const(frozenset(value))} <= {v}.keys()):", fail]
            return True
        if key == "properties":
            out.append(f"{pad}if {self.isa(v, 'dict')}:")
            exact = True
            out.append(f"{pad}    pass")
            for name, sub in value.items():
                w = self.var()
                out += [f"{pad}    if {name!r} in {v}:", f"{pad}        {w} = {v}[{name!r}]"]
                mark, part = len(self.funcs), list[str]()
                exact = self.emit(sub, resolver, w, part, ind + 2) and exact
                if len(part) <= _LAZY_LINES:
                    out += part
                    continue
                # A big part: its statements become the body of a function of its own (parameter w, dedented
                # to one level), compiled with the helpers it made at its first call.
                fname, cut = f"_lazy{len(self.consts)}", "    " * (ind + 1)
                source = [*self.funcs[mark:], f"def {fname}({w}):", *(line[len(cut) :] for line in part)]
                del self.funcs[mark:]
                lazy = self.const(_Lazy("\n".join([*source, "    return True"]), fname, self.namespace))
                out += [f"{pad}        if not {lazy}({w}):", f"{pad}            return False"]
            return exact
        if key == "additionalProperties":
            if "patternProperties" in schema:
                raise _Unsupported("patternProperties")
            known = self.const(frozenset(schema.get("properties", {})))
            if value is True:
                return True
            if value is False:
                out += [f"{pad}if {self.guard(v, 'dict')}not {known}.issuperset({v}):", fail]
                return True
            k, w = self.var(), self.var()
            out += [
                f"{pad}if {self.isa(v, 'dict')}:",
                f"{pad}    for {k}, {w} in {v}.items():",
                f"{pad}        if {k} not in {known}:",
            ]
            body = []
            exact = self.emit(value, resolver, w, body, ind + 3)
            out += body or [f"{pad}            pass"]
            return exact
        if key == "prefixItems":
            if not isinstance(value, list):
                raise _Unsupported("prefixItems is not a list")
            out += [f"{pad}if {self.isa(v, 'list')}:", f"{pad}    pass"]
            exact = True
            for i, sub in enumerate(value):
                w = self.var()
                out += [f"{pad}    if len({v}) > {i}:", f"{pad}        {w} = {v}[{i}]"]
                exact = self.emit(sub, resolver, w, out, ind + 2) and exact
            return exact
        if key == "items":
            w = self.var()
            skip = len(schema.get("prefixItems", ()))  # 2020-12: "items" applies after the prefix only
            whole = f"{v}[{skip}:]" if skip else v
            out += [f"{pad}if {self.isa(v, 'list')}:", f"{pad}    for {w} in {whole}:"]
            body = []
            exact = self.emit(value, resolver, w, body, ind + 2)
            out += body or [f"{pad}        pass"]
            return exact
        if key in ("minProperties", "maxProperties"):
            if not (isinstance(value, int) and not isinstance(value, bool)):
                raise _Unsupported(f"{key} {value!r}")
            op = "<" if key.startswith("min") else ">"
            out += [f"{pad}if {self.guard(v, 'dict')}len({v}) {op} {value!r}:", fail]
            return True
        if key == "propertyNames":
            k = self.var()
            out += [f"{pad}if {self.isa(v, 'dict')}:", f"{pad}    for {k} in {v}:"]
            body = []
            exact = self.emit(value, resolver, k, body, ind + 2)
            out += body or [f"{pad}        pass"]
            return exact
        if key in ("minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum"):
            if not _is_number(value):
                raise _Unsupported(f"{key} {value!r}")
            if key in ("minItems", "maxItems", "minLength", "maxLength"):
                kind = "list" if key.endswith("Items") else "str"
                op = "<" if key.startswith("min") else ">"
                out += [f"{pad}if {self.guard(v, kind)}len({v}) {op} {value!r}:", fail]
                return True
            op = "<" if key == "minimum" else ">"
            out += [
                f"{pad}if isinstance({v}, (int, float)):",
                f"{pad}    if not isinstance({v}, bool) and {v} {op} {value!r}:",
                f"{pad}        return False",
                f"{pad}elif isinstance({v}, _Number):",  # Decimal, Fraction, ...: left to jsonschema
                fail,
            ]
            return False
        if key == "pattern":
            seen = _Matches(value)  # the strings seen to match: a set look-up for a name or card seen before
            good, match = self.const(seen.good), self.const(seen.match)
            out += [f"{pad}if {self.guard(v, 'str')}{v} not in {good} and not {match}({v}):", fail]
            return True
        if key == "uniqueItems":
            if not value:
                return True
            # Sound for lists of strings or of integers (not booleans, which jsonschema tells from 1 and 0);
            # anything else is left to jsonschema (not exact).
            w = self.var()
            out += [
                f"{pad}if {self.guard(v, 'list')}not ((all(isinstance({w}, str) for {w} in {v}) "
                f"or all(type({w}) is int for {w} in {v})) and len(set({v})) == len({v})):",
                fail,
            ]
            return False
        if key == "if":
            # Draft 2020-12: "then"/"else" apply by the verdict of "if" (which asserts nothing itself). The branch
            # is only known when the "if" check is exact (its False means invalid, not "not sure").
            cond, cond_exact = self.function(value, resolver)
            if not cond_exact:
                raise _Unsupported("if of an inexact schema")
            exact = True
            for branch, test in (("then", f"{cond}({v})"), ("else", f"not {cond}({v})")):
                if branch in schema:
                    body = []
                    exact = self.emit(schema[branch], resolver, v, body, ind + 1) and exact
                    out += [f"{pad}if {test}:", *(body or [f"{pad}    pass"])]
            return exact
        if key in ("then", "else"):
            return True  # applied by "if" (and without an "if" they assert nothing)
        if key in ("oneOf", "anyOf", "allOf"):
            if key == "allOf":
                exact = True
                for sub in value:
                    exact = self.emit(sub, resolver, v, out, ind) and exact
                return exact
            subs = [self.function(sub, resolver) for sub in value]
            exact = all(e for _, e in subs)
            if key == "anyOf":
                out += [f"{pad}if not ({' or '.join(f'{f}({v})' for f, _ in subs) or 'False'}):", fail]
                return exact
            if not exact:  # "exactly one" needs to know the others fail ...
                if not self.disjoint(value, resolver):
                    raise _Unsupported("oneOf of inexact schemas")
                # ... unless no two branches accept a value of the same JSON type: then one that holds is the one
                out += [f"{pad}if not ({' or '.join(f'{f}({v})' for f, _ in subs)}):", fail]
                return False
            out += [f"{pad}if ({' + '.join(f'{f}({v})' for f, _ in subs) or '0'}) != 1:", fail]
            return True
        raise _Unsupported(key)

    def disjoint(self, branches: list[Any], resolver: Any) -> bool:
        """Whether each branch declares a ``type`` and no two declare one in common (an integer is a number)."""
        seen: set[str] = set()
        for branch in branches:
            while isinstance(branch, dict) and "type" not in branch and set(branch) - _ANNOTATIONS == {"$ref"}:
                resolved = resolver.lookup(branch["$ref"])
                branch, resolver = resolved.contents, resolved.resolver
            kinds = branch.get("type") if isinstance(branch, dict) else None
            names = set(kinds if isinstance(kinds, list) else [kinds])
            if not names <= _TYPE_SOURCE.keys():
                return False
            if names & {"number", "integer"}:
                names |= {"number", "integer"}
            if names & seen:
                return False
            seen |= names
        return True

    def equals(self, v: str, value: Any) -> str:
        """Source of jsonschema's ``equal(v, value)`` for a scalar ``value`` (booleans are not numbers)."""
        if isinstance(value, str):
            return f"{self.guard(v, 'str')}{v} == {value!r}"
        if isinstance(value, bool) or value is None:
            return f"{v} is {value!r}"
        if _is_number(value):
            return f"isinstance({v}, (int, float)) and not isinstance({v}, bool) and {v} == {self.const(value)}"
        raise _Unsupported(f"const/enum value {value!r}")


#: The JSON types whose check is one isinstance (the compiled check asks it once per value).
_KNOWN_TYPES = {"string": "str", "object": "dict", "array": "list"}

#: jsonschema's draft 2020-12 type checker, as source over the value ``{v}``.
_TYPE_SOURCE = {
    "string": "isinstance({v}, str)",
    "object": "isinstance({v}, dict)",
    "array": "isinstance({v}, list)",
    "boolean": "isinstance({v}, bool)",
    "null": "{v} is None",
    "number": "isinstance({v}, (int, float)) and not isinstance({v}, bool)",
    "integer": "(isinstance({v}, int) and not isinstance({v}, bool)) or (isinstance({v}, float) and {v}.is_integer())",
}


# --------------------------------------------------------------------------------------------------
# other schemas


def validate_against(schema_name: str, instance: object) -> None:
    """Check ``instance`` against ``schema/<schema_name>.schema.json`` (e.g. ``"track"``, ``"position"``).

    Raises :class:`MalformedInput` naming the schema, the JSON path of the first problem and what is wrong.
    """
    validator = catalogue().validator(schema_path(schema_name))
    error = next(validator.iter_errors(instance), None)
    if error is not None:
        path, what = first_problem(error)
        raise MalformedInput(problem_message(schema_name, path, what), input=instance)


# --------------------------------------------------------------------------------------------------
# plain-words messages


TYPE_WORDS = {
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


def json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def show(value: object) -> str:
    if isinstance(value, str):
        return repr(value)
    try:
        return json.dumps(value, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return repr(value)


def _article(noun: str) -> str:
    vowel = noun[:1].lower() in "aeiou" and not noun.lower().startswith(("one", "uni", "use"))
    return ("an " if vowel else "a ") + noun


def _plain(value: object) -> str:
    """A value inside an explanation: strings bare (``H``), everything else as JSON."""
    return value if isinstance(value, str) else show(value)


def all_problems(errors: Iterable[ValidationError]) -> Iterator[tuple[str, str]]:
    seen: set[tuple[str, str]] = set()
    for error in errors:
        for problem in _describe(error):
            if problem not in seen:
                seen.add(problem)
                yield problem


def first_problem(error: ValidationError) -> tuple[str, str]:
    return next(_describe(error), (json_path(error.absolute_path), error.message))


def _describe(error: ValidationError) -> Iterator[tuple[str, str]]:
    """(JSON path, plain words) for one jsonschema error; one per name for required/additionalProperties."""
    parts = list(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    value = error.instance
    kind = error.validator
    title = schema.get("title")

    if kind == "required" and isinstance(value, dict):
        for name in error.validator_value:
            if name not in value:
                yield json_path([*parts, name]), "missing (required)"
        return
    if kind == "additionalProperties" and isinstance(value, dict):
        allowed = list(schema.get("properties", {}))
        patterns = list(schema.get("patternProperties", {}))
        for name in value:
            if name not in allowed and not any(re.search(p, name) for p in patterns):
                yield json_path([*parts, name]), f"unknown field (allowed: {', '.join(allowed)})"
        return

    path = json_path(parts)
    shown = show(value)
    if kind == "enum":
        options = " ".join(_plain(o) for o in error.validator_value)
        what = f"{shown} is not {_article(title)} (one of {options})" if title else f"{shown} is not one of {options}"
    elif kind == "const":
        must = show(error.validator_value)
        what = f"{shown} is not {_article(title)} (must be {must})" if title else f"must be {must}, not {shown}"
    elif kind == "type":
        given = error.validator_value
        wanted = [str(t) for t in (given if isinstance(given, list) else [given])]
        what = f"{shown} is not " + " or ".join(TYPE_WORDS.get(t, t) for t in wanted)
    elif kind in ("minimum", "maximum"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            what = f"{shown} is out of range ({low} to {high})"
        elif kind == "minimum":
            what = f"{shown} is less than {low}"
        else:
            what = f"{shown} is more than {high}"
    elif kind == "minItems":
        what = f"has {_items(len(value))}; at least {error.validator_value} needed"
    elif kind == "maxItems":
        what = f"has {_items(len(value))}; at most {error.validator_value} allowed"
    elif kind == "minLength":
        what = "is empty" if not value else f"{shown} is shorter than {error.validator_value} characters"
    elif kind == "maxLength":
        what = f"is {len(value)} characters long; at most {error.validator_value} allowed"
    elif kind == "pattern":
        if title:
            what = f"{shown} is not a valid {title}"
            if schema.get("description"):
                what += f" ({_lower_first(schema['description']).rstrip('.')})"
        else:
            what = f"{shown} does not match the pattern {error.validator_value}"
    elif kind == "uniqueItems":
        dups = [v for i, v in enumerate(value) if v in value[:i]]
        what = f"{show(dups[0])} appears more than once" if dups else "items must be unique"
    elif kind == "oneOf" and required_alternatives(error.validator_value):
        names = required_alternatives(error.validator_value)
        present = [n for n in names if isinstance(value, dict) and n in value]
        choice = " or ".join(names)
        what = f"give exactly one of {choice}, not both" if present else f"give {choice} (one is required)"
    elif kind in ("oneOf", "anyOf") and error.context:
        # Not one of the allowed forms: report the problem of the closest alternative.
        best = min(error.context, key=lambda e: (-len(e.absolute_path), len(e.context or ())))
        yield from _describe(best)
        return
    else:
        what = error.message
    yield path, what


def required_alternatives(branches: object) -> list[str]:
    """``["cards", "count"]`` if ``branches`` is a oneOf of bare ``{"required": [name]}`` forms, else []."""
    if not isinstance(branches, list):
        return []
    names: list[str] = []
    for branch in branches:
        if not (isinstance(branch, dict) and set(branch) == {"required"} and len(branch["required"]) == 1):
            return []
        names.append(branch["required"][0])
    return names


def _items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def problem_message(etype: str, path: str, what: str) -> str:
    return f"{etype}: {path}: {what}" if path else f"{etype}: {what}"
