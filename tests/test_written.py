"""The classes whose methods are written out (heatlog/engine/written.py, issue 32: no code compiled for them at
every start) behave as ``@dataclass`` would make them: the same ``__init__`` (parameters, order, defaults, a
default factory called anew each time, ``__post_init__``), ``repr``, ``==`` and ``hash``. The reference is
``dataclass`` itself, run on the same fields here."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, ClassVar

import pytest

import heatlog.engine.decide  # noqa: F401  (the classes register as they are defined)
import heatlog.engine.knowledge  # noqa: F401
import heatlog.engine.ruleset  # noqa: F401
import heatlog.engine.state  # noqa: F401
import heatlog.log.racelog  # noqa: F401
import heatlog.store.streams  # noqa: F401
import heatlog.views.replay  # noqa: F401
from heatlog.engine.written import FACTORY, LITE, STALE, WRITTEN


def reference(cls: type) -> type:
    """What ``@dataclass`` makes of ``cls``'s fields, with its flags."""
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    specs = []
    for f in dataclasses.fields(cls):
        kw: dict[str, Any] = {"init": f.init, "repr": f.repr, "compare": f.compare, "hash": f.hash}
        if f.default is not dataclasses.MISSING:
            kw["default"] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            kw["default_factory"] = f.default_factory
        specs.append((f.name, Any, dataclasses.field(**kw)))
    ns = {"__post_init__": cls.__post_init__} if hasattr(cls, "__post_init__") else {}
    ref = dataclasses.make_dataclass(
        cls.__name__, specs, namespace=ns, frozen=params.frozen, slots="__slots__" in cls.__dict__
    )
    ref.__qualname__ = cls.__qualname__
    return ref


def values(cls: type) -> dict[str, Any]:
    """A distinct value for every init field (ints: hashable, and told apart by == and repr)."""
    return {f.name: 1000 + i for i, f in enumerate(dataclasses.fields(cls)) if f.init}


def test_every_engine_class_on_shows_path_is_written_out_and_up_to_date() -> None:
    names = {c.__qualname__ for c in WRITTEN}
    show = {"Car", "CornerCheck", "Turn", "RaceState", "Rules", "Corner", "Track", "Waiting", "Knowledge", "CardDef"}
    show |= {"Catalogue", "StoredEvent", "RaceInfo", "Problem", "RecorderSession", "Snapshot", "StreamKind"}
    show |= {"Entry", "Retraction", "Effective", "End", "RoundView", "Replay"}
    assert show <= names, show - names
    assert STALE == [], f"add the new fields to these classes' __init__ (heatlog/engine/written.py): {STALE}"


def test_a_class_whose_init_misses_a_field_gets_dataclass_init() -> None:
    from heatlog.engine.written import record

    @record(slots=True)
    class Late:
        a: int
        b: int = 2

        def __init__(self, a: int) -> None:  # b was added to the fields and not here
            self.a = a

    try:
        assert Late(1, 3).b == 3 and Late(1).b == 2 and repr(Late(1)).endswith("Late(a=1, b=2)")
        assert STALE[-1].endswith("Late")
    finally:
        STALE.remove(STALE[-1])
        WRITTEN.remove(WRITTEN[-1])


@pytest.mark.parametrize("cls", WRITTEN, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_written_init_is_dataclass_init(cls: type) -> None:
    ref = reference(cls)
    mine = inspect.signature(cls.__init__).parameters  # type: ignore[misc]
    theirs = inspect.signature(ref.__init__).parameters  # type: ignore[misc]
    assert list(mine) == list(theirs), "the same parameters in the same order"
    for name, p in theirs.items():
        assert mine[name].kind == p.kind, name
        if name == "self":
            continue
        f = {f.name: f for f in dataclasses.fields(cls)}[name]
        if f.default_factory is not dataclasses.MISSING:
            assert mine[name].default is FACTORY, name
        else:
            assert mine[name].default is p.default or mine[name].default == p.default, name
    required = {n: v for n, v in values(cls).items() if theirs[n].default is inspect.Parameter.empty}
    a, b, r = cls(**required), cls(**required), ref(**required)
    for f in dataclasses.fields(cls):
        if not f.init:
            assert getattr(a, f.name) == getattr(r, f.name), f"__post_init__ sets {f.name}"
            continue
        assert getattr(a, f.name) == getattr(r, f.name), f.name
        if f.default_factory is not dataclasses.MISSING and isinstance(getattr(a, f.name), list | dict | set):
            assert getattr(a, f.name) is not getattr(b, f.name), f"{f.name}: a new one for each instance"
    given = values(cls)
    positional = cls(*given.values())
    assert all(getattr(positional, n) == v for n, v in given.items()), "positional order"


@pytest.mark.parametrize("cls", WRITTEN + LITE, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_written_repr_eq_hash_are_dataclass_ones(cls: type) -> None:
    ref = reference(cls)
    given = values(cls)
    mine, theirs = cls(**given), ref(**given)
    assert repr(mine) == repr(theirs)
    assert mine == cls(**given)
    assert mine.__ne__(cls(**given)) is False
    assert mine != object() and (mine == object()) is False
    for name in given:
        other = dict(given, **{name: -1})
        assert (mine == cls(**other)) == (theirs == ref(**other)), name
    if cls.__hash__ is None:
        assert ref.__hash__ is None
    else:
        assert hash(mine) == hash(theirs)
    if cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        with pytest.raises(dataclasses.FrozenInstanceError):
            mine.__setattr__(next(iter(given)), 0)
    assert dataclasses.replace(mine, **{next(iter(given)): 7}) == cls(**dict(given, **{next(iter(given)): 7}))


@pytest.mark.parametrize("cls", WRITTEN + LITE, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_written_classes_pickle_and_copy_as_dataclass_ones(cls: type) -> None:
    """A frozen record's ``__setattr__`` is a closure, not dataclass's; with slots, pickle and copy set the fields
    through its ``__setstate__`` (playouts send states to worker processes, engine/ruleset.py)."""
    import copy
    import pickle

    if "__reduce__" in cls.__dict__:
        pytest.skip("pickled as its own configuration (Rules), not field by field")
    given = values(cls)
    mine = cls(**given)
    for again in (pickle.loads(pickle.dumps(mine)), copy.copy(mine), copy.deepcopy(mine)):
        assert again == mine  # (a class may copy as itself: Track)
        assert all(getattr(again, name) == value for name, value in given.items())


def test_a_frozen_record_refuses_changes_as_dataclass_does() -> None:
    from heatlog.engine.written import record

    @record(frozen=True, slots=True)
    class Fixed:
        a: int
        b: str = "x"

        def __init__(self, a: int, b: str = "x") -> None:
            object.__setattr__(self, "a", a)
            object.__setattr__(self, "b", b)

    try:
        one = Fixed(1)
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'a'"):
            one.a = 2  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'b'"):
            del one.b  # type: ignore[misc]
        assert Fixed.__dataclass_params__.frozen  # type: ignore[attr-defined]
        assert Fixed.__doc__ == "Fixed(a, b)"  # named without inspect.signature
        assert dataclasses.replace(one, b="y") == Fixed(1, "y") and one.b == "x"
    finally:
        WRITTEN.remove(Fixed)


@pytest.mark.parametrize("cls", LITE, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_lite_init_binds_as_dataclass_init(cls: type) -> None:
    """``@lite``'s ``__init__`` is a closure over the fields (nothing compiled at the start): it takes what
    dataclass's takes, gives the same fields, and refuses what it refuses."""
    ref = reference(cls)
    given = values(cls)
    names = list(given)
    theirs = inspect.signature(ref.__init__).parameters  # type: ignore[misc]
    required = {n: v for n, v in given.items() if theirs[n].default is inspect.Parameter.empty}
    for args, kwargs in (
        ((), required),
        (tuple(given.values()), {}),
        ((given[names[0]],), dict(list(given.items())[1:])),
    ):
        mine, want = cls(*args, **kwargs), ref(*args, **kwargs)
        assert all(getattr(mine, f.name) == getattr(want, f.name) for f in dataclasses.fields(cls))
    a, b = cls(**required), cls(**required)
    for f in dataclasses.fields(cls):
        if f.default_factory is not dataclasses.MISSING and isinstance(getattr(a, f.name), list | dict | set):
            assert getattr(a, f.name) is not getattr(b, f.name), f"{f.name}: a new one for each instance"
    with pytest.raises(TypeError, match="positional arguments"):
        cls(*given.values(), 0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'nonesuch'"):
        cls(**required, nonesuch=1)
    with pytest.raises(TypeError, match=f"multiple values for argument '{names[0]}'"):
        cls(given[names[0]], **{names[0]: given[names[0]]})
    if required:
        with pytest.raises(TypeError, match=f"missing 1 required positional argument: '{next(iter(required))}'"):
            cls(**dict(list(required.items())[1:]))
    assert cls.__dataclass_params__.init  # type: ignore[attr-defined]


def test_lite_refuses_a_written_init_and_sets_init_false_fields_as_dataclass() -> None:
    from heatlog.engine.written import lite

    with pytest.raises(TypeError, match="use @record"):

        @lite()
        class Written:
            a: int

            def __init__(self, a: int) -> None:
                self.a = a

    @lite(frozen=True, slots=True)
    class Late:
        a: int
        b: int = dataclasses.field(init=False, default=2)
        c: list[int] = dataclasses.field(init=False, default_factory=list)

    @dataclasses.dataclass(frozen=True, slots=True)
    class Theirs:
        a: int
        b: int = dataclasses.field(init=False, default=2)
        c: list[int] = dataclasses.field(init=False, default_factory=list)

    try:
        one, two = Late(1), Late(a=1)
        assert (one.a, one.b, one.c) == (1, 2, []) and one.c is not two.c and one == two
        assert repr(one) == repr(Theirs(1)).replace("Theirs", "Late")
        with pytest.raises(TypeError, match="unexpected keyword argument 'b'"):
            Late(1, b=3)
    finally:
        LITE.remove(Late)


def _sample(slots: bool) -> tuple[type, type]:
    """The same class body twice: given to dataclass, and to written.py's own field processing."""
    from heatlog.engine.written import plain_dataclass

    def body() -> dict[str, Any]:
        return {
            "__annotations__": {"a": "int", "b": "str", "c": "list[int]", "d": "int"},
            "__module__": __name__,
            "b": "x",
            "c": dataclasses.field(default_factory=list, repr=False),
            "d": dataclasses.field(default=4, init=False, compare=False, metadata={"m": 1}),
            "twice": lambda self: 2 * self.a,
        }

    theirs = dataclasses.dataclass(init=False, repr=False, eq=False, slots=slots)(type("Sample", (), body()))
    mine = plain_dataclass(type("Sample", (), body()), slots)
    return theirs, mine


@pytest.mark.parametrize("slots", [False, True])
def test_written_fields_are_dataclass_ones(slots: bool) -> None:
    """What dataclass leaves on a class (its fields, ``__match_args__``, the slots, the defaults as class
    attributes) is what written.py's processing leaves, without running dataclass's (issue 32: start-up)."""
    theirs, mine = _sample(slots)
    keys = ("name", "type", "default", "default_factory", "init", "repr", "hash", "compare", "metadata", "kw_only")
    assert [[getattr(f, k) for k in keys] for f in dataclasses.fields(mine)] == [
        [getattr(f, k) for k in keys] for f in dataclasses.fields(theirs)
    ]
    assert mine.__match_args__ == theirs.__match_args__ == ("a", "b", "c")  # type: ignore[attr-defined]
    assert mine.__dict__.get("__slots__") == theirs.__dict__.get("__slots__")
    for name in ("a", "b", "c", "d"):
        assert (name in mine.__dict__) == (name in theirs.__dict__), name
        if not slots and name in mine.__dict__:
            assert mine.__dict__[name] == theirs.__dict__[name], name
    one = mine()
    for name, value in (("a", 1), ("b", "y"), ("c", [3]), ("d", 4)):
        object.__setattr__(one, name, value)
    assert dataclasses.asdict(one) == {"a": 1, "b": "y", "c": [3], "d": 4}
    assert dataclasses.is_dataclass(mine) and one.twice() == 2  # type: ignore[attr-defined]


def test_a_class_written_py_does_not_cover_goes_to_dataclass() -> None:
    from heatlog.engine.written import plain_dataclass

    body = {"__annotations__": {"a": "int", "n": ClassVar[int]}, "__module__": __name__, "n": 3}
    made = plain_dataclass(type("Counted", (), body), False)
    assert [f.name for f in dataclasses.fields(made)] == ["a"]  # dataclass's reading of the ClassVar
    with pytest.raises(ValueError, match="mutable default"):
        plain_dataclass(type("Listed", (), {"__annotations__": {"a": "list[int]"}, "a": []}), False)
