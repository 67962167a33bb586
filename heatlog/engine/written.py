"""Dataclasses whose methods are written out, so that no code is compiled for them at every start (issue 32).

``@dataclass`` writes the source of each class's ``__init__``, ``__repr__``, ``__eq__`` (and, frozen,
``__setattr__``, ``__delattr__``, ``__hash__``) and compiles it at import, at every start of the program: about
0.6–2.6 ms a class, a quarter of ``heatlog show``'s imports over typer's and rich's. ``@record(...)`` is
``@dataclass(..., init=False, repr=False, eq=False)`` — the fields, ``dataclasses.fields``, ``replace``,
``asdict``, ``__match_args__`` and slots are dataclass's own — plus a ``__repr__``, ``__eq__`` and ``__hash__``
made of closures over the fields (no code compiled), and the class's own ``__init__``, written in its body
(compiled once into its ``.pyc``) in the order and with the defaults of its fields. A frozen record's
``__setattr__`` and ``__delattr__`` are closures too (dataclass is told the class is not frozen, then the class
says it is), and a class without a docstring is given one naming its fields (dataclass would ask
``inspect.signature`` for it). ``@lite(...)`` is the same with an ``__init__`` made of a closure over the fields
as well (nothing to keep by hand, a few µs slower a call): for descriptors made a few times, whose fields others
add to (``Module``, ``Notation``, ``EventType``).

What ``dataclass`` would generate is the reference: tests/test_written.py builds it for every class made
here (:data:`WRITTEN`) and checks that the written ``__init__`` takes the same parameters in the same order with
the same defaults (a default factory called anew for each instance), calls ``__post_init__`` where there is
one, and that ``repr``, ``==`` and ``hash`` agree. A field added to such a class and not to its ``__init__``
fails there, and the class gets dataclass's generated ``__init__`` meanwhile (:data:`STALE`): never wrong, only
slower to import. To the type checker ``record`` is ``dataclass``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from reprlib import recursive_repr
from typing import TYPE_CHECKING, Any, TypeVar

T = TypeVar("T")

WRITTEN: list[type] = []  # every class made by :func:`record` (tests/test_written.py)
STALE: list[str] = []  # those whose written __init__ does not take their fields: dataclass's is used instead
LITE: list[type] = []  # every class made by :func:`lite` (tests/test_written.py)


class _Factory:
    __slots__ = ()

    def __repr__(self) -> str:
        return "FACTORY"


# The default of a written ``__init__``'s parameter whose field has a default factory: "call the factory".
FACTORY: Any = _Factory()


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The values of ``names`` of an object, as a tuple (what dataclass's methods compare and hash)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda o: (one(o),)
    return lambda o: ()


def _init_fields(cls: type) -> tuple[str, ...]:
    """The names ``dataclass`` would make ``__init__`` parameters of, in order (annotations of the class's own
    body, less ``field(init=False)`` ones; the classes made here inherit no fields)."""
    body = cls.__dict__
    return tuple(
        name
        for name in body.get("__annotations__", {})
        if not (isinstance(body.get(name), dataclasses.Field) and not body[name].init)
    )


def _frozen_methods(cls: Any, names: tuple[str, ...]) -> None:
    """A frozen dataclass's ``__setattr__`` and ``__delattr__`` (and, with slots, its pickling), as closures:
    ``dataclass(frozen=True)`` compiles the two methods anew for each class at every start (~0.2 ms a class).
    They refuse any field, and any attribute of the class itself (a subclass that is not a dataclass may add
    attributes of its own), as dataclass's do."""
    fields = frozenset(names)

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in fields:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in fields:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    for fn in (__setattr__, __delattr__):
        fn.__qualname__ = f"{cls.__qualname__}.{fn.__name__}"
        setattr(cls, fn.__name__, fn)
    if "__slots__" in cls.__dict__:
        # what dataclass gives a frozen class with slots, so that pickle and copy can set its fields
        if "__getstate__" not in cls.__dict__:
            cls.__getstate__ = lambda self: [getattr(self, name) for name in names]
        if "__setstate__" not in cls.__dict__:

            def __setstate__(self: Any, state: list[Any]) -> None:
                for name, value in zip(names, state, strict=False):
                    object.__setattr__(self, name, value)

            cls.__setstate__ = __setstate__


def _finish(made: Any, frozen: bool) -> Any:
    """The ``__eq__``, ``__repr__`` and ``__hash__`` of a dataclass, as closures over its fields (no code compiled)."""
    every = dataclasses.fields(made)
    values = _getter(tuple(f.name for f in every if f.compare))
    hashed = _getter(tuple(f.name for f in every if (f.compare if f.hash is None else f.hash)))
    shown = tuple(f.name for f in every if f.repr)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    @recursive_repr()
    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"

    made.__eq__ = __eq__
    made.__repr__ = __repr__
    if frozen:

        def __hash__(self: Any) -> int:
            return hash(hashed(self))

        made.__hash__ = __hash__
    else:
        made.__hash__ = None  # as dataclass: eq without frozen is unhashable
    __eq__.__qualname__ = f"{made.__qualname__}.__eq__"
    __repr__.__qualname__ = f"{made.__qualname__}.__repr__"
    return made


#: What ``dataclasses.fields`` asks of a field (``Field._field_type``): the standard library's marker of a plain
#: field. Without it (another Python), :func:`plain_dataclass` is ``dataclass`` itself.
_PLAIN_FIELD = getattr(dataclasses, "_FIELD", None)


def plain_dataclass(cls: Any, slots: bool) -> Any:
    """``dataclass(init=False, repr=False, eq=False, slots=slots)(cls)`` for a class of plain fields: the same
    ``__dataclass_fields__`` (what ``fields``, ``replace`` and ``asdict`` read), ``__match_args__`` and slots,
    without dataclass's field processing (~0.1 ms a class at every start: a ``field()`` and three
    string-annotation checks per field, of ~300 on ``heatlog show``'s path). A class this does not cover
    (inherited fields, a ``ClassVar``/``InitVar``/``KW_ONLY`` annotation, a keyword-only field, a mutable default)
    goes to dataclass, which words what is wrong."""
    body = cls.__dict__
    annotations = body.get("__annotations__", {})
    plain = (
        _PLAIN_FIELD is not None
        and cls.__bases__ == (object,)
        and "__slots__" not in body
        and not any("ClassVar" in str(a) or "InitVar" in str(a) or "KW_ONLY" in str(a) for a in annotations.values())
    )
    fields: dict[str, dataclasses.Field[Any]] = {}
    for name, annotation in annotations.items() if plain else ():
        given = body.get(name, dataclasses.MISSING)
        f: Any = given if isinstance(given, dataclasses.Field) else dataclasses.field(default=given)
        if f.kw_only is True or (f.default is not dataclasses.MISSING and f.default.__hash__ is None):
            plain = False
            break
        f.name, f.type, f.kw_only = name, annotation, False  # (as dataclass sets them)
        f._field_type = _PLAIN_FIELD
        fields[name] = f
    if not plain:
        return dataclasses.dataclass(init=False, repr=False, eq=False, slots=slots)(cls)
    for name, f in fields.items():  # the class attribute is the default, as dataclass leaves it
        if isinstance(body.get(name), dataclasses.Field):
            if f.default is dataclasses.MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    cls.__dataclass_fields__ = fields
    cls.__dataclass_params__ = _Params(frozen=False)
    setattr(cls, "__match_args__", tuple(name for name, f in fields.items() if f.init))  # noqa: B010
    if not slots:
        return cls
    # as dataclass's _add_slots: a new class with the fields as slots and no class attribute of theirs
    made = dict(body)
    made["__slots__"] = tuple(fields)
    for name in (*fields, "__dict__", "__weakref__"):
        made.pop(name, None)
    new = type(cls)(cls.__name__, cls.__bases__, made)
    new.__qualname__ = cls.__qualname__
    return new


class _Params:
    """``__dataclass_params__`` of a class made by :func:`plain_dataclass` (what dataclass and the tests read)."""

    __slots__ = ("init", "repr", "eq", "order", "unsafe_hash", "frozen")

    def __init__(self, frozen: bool) -> None:
        self.init = self.repr = self.eq = self.order = self.unsafe_hash = False
        self.frozen = frozen

    def __repr__(self) -> str:
        return f"_Params(frozen={self.frozen!r})"


def _named(cls: Any) -> None:
    """A class without a docstring gets one naming its fields before dataclass sees it: dataclass would write it
    from ``inspect.signature(cls)`` (~0.1 ms a class at every start)."""
    if not cls.__dict__.get("__doc__"):
        cls.__doc__ = f"{cls.__name__}({', '.join(cls.__dict__.get('__annotations__', {}))})"


if TYPE_CHECKING:  # to the type checker a record is the dataclass it behaves as (tests/test_written.py)
    from dataclasses import dataclass as lite
    from dataclasses import dataclass as record
else:

    def record(*, frozen: bool = False, slots: bool = False) -> Callable[[type[T]], type[T]]:
        """``@dataclass(frozen=frozen, slots=slots)`` for a class that writes its own ``__init__`` (see the module)."""

        def wrap(given: type[T]) -> type[T]:
            cls: Any = given
            if "__init__" not in cls.__dict__:
                raise TypeError(f"{cls.__qualname__}: @record needs the class's own __init__")
            _named(cls)
            code = cls.__dict__["__init__"].__code__
            if code.co_varnames[1 : code.co_argcount] != _init_fields(cls):
                # A field added without its parameter (or the other way round): dataclass's own __init__, compiled
                # at the start as before, so the class stays right; tests/test_written.py names it (STALE).
                STALE.append(cls.__qualname__)
                del cls.__init__
                made = dataclasses.dataclass(init=True, repr=False, eq=False, frozen=frozen, slots=slots)(cls)
            else:
                # not frozen to dataclass: the written __init__ sets its fields with object.__setattr__, and the
                # frozen methods are closures (_frozen_methods); the class says it is frozen all the same
                made = plain_dataclass(cls, slots)
                if frozen:
                    _frozen_methods(made, tuple(f.name for f in dataclasses.fields(made)))
                    made.__dataclass_params__.frozen = True
            WRITTEN.append(made)
            return _finish(made, frozen)  # type: ignore[no-any-return]

        return wrap

    def lite(*, frozen: bool = False, slots: bool = False) -> Callable[[type[T]], type[T]]:
        """``@dataclass(frozen=frozen, slots=slots)`` for a class made a few times (a descriptor, a registry
        entry) whose fields other work adds to, so that no ``__init__`` is kept by hand: :func:`record`'s
        methods, and an ``__init__`` that is not compiled either (:func:`_fields_init`: it binds its arguments
        by the fields, a few µs a call, where dataclass's compiled one for the 44 fields of ``Module`` cost
        ~1.5 ms at every start)."""

        def wrap(given: type[T]) -> type[T]:
            cls: Any = given
            if "__init__" in cls.__dict__:
                raise TypeError(f"{cls.__qualname__}: @lite makes the __init__; use @record for a written one")
            _named(cls)
            made = plain_dataclass(cls, slots)
            every = dataclasses.fields(made)
            made.__init__ = _fields_init(made, every)
            if frozen:
                _frozen_methods(made, tuple(f.name for f in every))
                made.__dataclass_params__.frozen = True
            made.__dataclass_params__.init = True
            LITE.append(made)
            return _finish(made, frozen)  # type: ignore[no-any-return]

        return wrap


_UNSET: Any = object()


def _fields_init(cls: Any, every: tuple[dataclasses.Field[Any], ...]) -> Callable[..., None]:
    """The ``__init__`` dataclass would write for ``every`` field, as a closure: positional or keyword arguments
    in the fields' order, defaults and default factories (a new value each call), ``__post_init__`` after, and
    the refusals Python words for a wrong call; a ``field(init=False)`` gets its default or a new value of its
    factory, as dataclass's does. Keyword-only fields are refused (none of these classes has one)."""
    for f in every:
        if f.kw_only is True:
            raise TypeError(f"{cls.__qualname__}.{f.name}: @lite takes no keyword-only field")
    params = tuple(f for f in every if f.init)
    names = tuple(f.name for f in params)
    index = {name: i for i, name in enumerate(names)}
    defaults = tuple((f.default, f.default_factory) for f in params)
    late = tuple((f.name, f.default, f.default_factory) for f in every if not f.init)
    missing = dataclasses.MISSING
    post = "__post_init__" in cls.__dict__
    where = f"{cls.__qualname__}.__init__()"
    put = object.__setattr__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names):
            raise TypeError(f"{where} takes {len(names) + 1} positional arguments but {len(args) + 1} were given")
        values = [*args, *(_UNSET,) * (len(names) - len(args))]
        for key, value in kwargs.items():
            i = index.get(key)
            if i is None:
                raise TypeError(f"{where} got an unexpected keyword argument {key!r}")
            if values[i] is not _UNSET:
                raise TypeError(f"{where} got multiple values for argument {key!r}")
            values[i] = value
        for name, value, (default, factory) in zip(names, values, defaults, strict=True):
            if value is _UNSET:
                if default is not missing:
                    value = default
                elif factory is not missing:
                    value = factory()
                else:
                    raise TypeError(f"{where} missing 1 required positional argument: {name!r}")
            put(self, name, value)
        for name, default, factory in late:
            if default is not missing:
                put(self, name, default)
            elif factory is not missing:
                put(self, name, factory())
        if post:
            self.__post_init__()

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__
