"""THE event catalogue: every event type is registered once, here or by its module, with its handler, its
schema and what the step machine needs to know about it.

From this one registry come the door's list of types (``heatlog.formats.validation.EVENT_TYPES``), the dispatch of
``apply``, the chance/decision split of ``waiting_for``, docs/events.md (``heatlog.docsgen.events``) and the contract
test (tests/test_event_catalogue.py: every registered type has a schema, a handler, a docs entry and a place in
``schema/event.schema.json``). A module registers its own types from its own file (``module="garage"``); the
base types are registered at the end of ``rules.py``, in the catalogue's order.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .written import lite

Event = dict[str, Any]
Handler = Callable[[Any, Event], None]  # (RaceState, event) -> None; mutates the state or raises


@lite(frozen=True, slots=True)
class EventType:
    name: str
    handler: Handler
    module: str = "base"  # "base", or the module that adds it (garage, legends, weather …)
    schema: str = ""  # path under schema/events/ without ".schema.json" (default: the name)
    turn: bool = False  # part of a car's turn (steps 3–9): an event of another kind closes that turn
    guarded: bool = False  # its handler may change the state before a later check fails (rollback copy)
    chance: bool = False  # an observed chance outcome (a shuffle, draw, flip), not a decision
    aside: bool = False  # beside the race (a note, a retraction): never closes a turn

    @property
    def schema_name(self) -> str:
        return self.schema or self.name

    @property
    def decision(self) -> bool:
        """A decision someone at the table takes (a car's gear, cards, React use, pick …): neither an observed
        chance outcome nor an event beside the race."""
        return not self.chance and not self.aside


# The catalogue and its sets. Their public names (``REGISTRY``, ``CHANCE``, ``DECISION``, ``MODULE_CHANCE``) are
# the whole catalogue, every module's types included, once the rules are loaded (as they always were: the end of
# rules.py registers the base types): their first access registers every module folder (``complete``, PEP 562
# ``__getattr__`` below), and one taken before the rules load is made whole when they load. The core reads the
# private names: a base race's fold asks for the base types, and a type it does not find completes the catalogue
# before it is called unknown (docs/design.md, "Lazy module discovery").
_REGISTRY: dict[str, EventType] = {}
_CHANCE: set[str] = set()  # the names of the chance types, kept by register() (asked on every simulated event)
# The names of the decision types (EventType.decision), kept by register(): the game API's decision nodes and the
# review's decision points ask this set, never a list of their own (a module's decisions come with its types).
_DECISION: set[str] = set()
_MODULE_CHANCE: set[str] = set()  # the chance types a module adds (its draws: the weather tile, a Legend card …)
_PUBLIC: dict[str, Any] = {
    "REGISTRY": _REGISTRY,
    "CHANCE": _CHANCE,
    "DECISION": _DECISION,
    "MODULE_CHANCE": _MODULE_CHANCE,
}

if TYPE_CHECKING:
    REGISTRY: dict[str, EventType]
    CHANCE: set[str]
    DECISION: set[str]
    MODULE_CHANCE: set[str]

# Module discovery's state: the runner (``module.discover``, installed by rules.py once the base types are in),
# whether it ran, whether it runs now (in the thread holding the lock), and whether the registries were asked for
# before the rules loaded. A thread asking while another completes waits for it (the table server's threads).
_discover: Callable[[], None] | None = None
_whole = False
_running = False
_wanted = False
_lock = threading.RLock()


def complete() -> bool:
    """Register every module folder not registered yet (``module.discover``), once: True when the registries were
    not whole when asked and are now (a look-up that missed may look again), False when they were whole already or
    are being made whole by this very thread (``register_unit`` inside the discovery). Before the rules are loaded
    it only notes the wish: rules.py completes them as it finishes loading."""
    global _whole, _running, _wanted
    if _whole:
        return False
    if _discover is None:
        _wanted = True
        return False
    with _lock:
        if _running:
            return False
        if not _whole:
            _running = True
            try:
                _discover()
                _whole = True
            finally:
                _running = False
    return True


def is_whole() -> bool:
    """Whether every module folder is registered (``complete`` ran)."""
    return _whole


def discovered_by(discover: Callable[[], None]) -> None:
    """Install the runner that registers every module folder (rules.py, after the base types); the registries
    asked for before it are made whole now."""
    global _discover
    _discover = discover
    if _wanted:
        complete()


def __getattr__(name: str) -> Any:
    """The public catalogue, whole (``complete``)."""
    found = _PUBLIC.get(name)
    if found is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    complete()
    return found


def register(entry: EventType) -> EventType:
    """Register one event type (once: a second registration of a name is a programming error)."""
    if entry.name in _REGISTRY:
        raise ValueError(f"event type {entry.name!r} is registered twice")
    _REGISTRY[entry.name] = entry
    if entry.chance:
        _CHANCE.add(entry.name)
        if entry.module != "base":
            _MODULE_CHANCE.add(entry.name)
    if entry.decision:
        _DECISION.add(entry.name)
    return entry


def entry_of(kind: str) -> EventType | None:
    """The catalogue's entry for ``kind`` (None: no type of that name in the whole catalogue): what the core asks
    per event. A kind not registered yet completes the catalogue first (a module's type: the modules load)."""
    found = _REGISTRY.get(kind)
    if found is None and complete():
        found = _REGISTRY.get(kind)
    return found


def event_types(module: str | None = None) -> tuple[str, ...]:
    """The registered types in catalogue order (of one module, if named)."""
    complete()
    return tuple(n for n, e in _REGISTRY.items() if module is None or e.module == module)


def module_chance_types() -> frozenset[str]:
    """The chance types a module adds (its draws: the weather tile, a Legend card, a market …)."""
    complete()
    return frozenset(_MODULE_CHANCE)
