"""Dataclasses whose methods are written out, so that no code is compiled for them at every start (issue 32).

``@dataclass`` writes the source of each class's ``__init__``, ``__repr__``, ``__eq__`` (and, frozen,
``__setattr__``, ``__delattr__``, ``__hash__``) and compiles it at import, at every start of the program: about
0.6–2.6 ms a class, a quarter of ``heatlog show``'s imports over typer's and rich's. ``@record(...)`` is
``@dataclass(..., init=False, repr=False, eq=False)`` — the fields, ``dataclasses.fields``, ``replace``,
``asdict``, ``__match_args__`` and slots are dataclass's own — plus a ``__repr__``, ``__eq__`` and ``__hash__``
made of closures over the fields (no code compiled), and the class's own ``__init__``, written in its body
(compiled once into its ``.pyc``) in the order and with the defaults of its fields.

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


if TYPE_CHECKING:  # to the type checker a record is the dataclass it behaves as (tests/test_written.py)
    from dataclasses import dataclass as record
else:

    def record(*, frozen: bool = False, slots: bool = False) -> Callable[[type[T]], type[T]]:
        """``@dataclass(frozen=frozen, slots=slots)`` for a class that writes its own ``__init__`` (see the module)."""

        def wrap(given: type[T]) -> type[T]:
            cls: Any = given
            if "__init__" not in cls.__dict__:
                raise TypeError(f"{cls.__qualname__}: @record needs the class's own __init__")
            code = cls.__dict__["__init__"].__code__
            if code.co_varnames[1 : code.co_argcount] != _init_fields(cls):
                # A field added without its parameter (or the other way round): dataclass's own __init__, compiled
                # at the start as before, so the class stays right; tests/test_written.py names it (STALE).
                STALE.append(cls.__qualname__)
                del cls.__init__
                made = dataclasses.dataclass(init=True, repr=False, eq=False, frozen=frozen, slots=slots)(cls)
            else:
                made = dataclasses.dataclass(init=False, repr=False, eq=False, frozen=frozen, slots=slots)(cls)
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
            WRITTEN.append(made)
            return made  # type: ignore[no-any-return]

        return wrap
