"""The store of a command that only reads a race and prints it (``heatlog show``, ``replay``, ``position``)."""

from __future__ import annotations

from typing import Any

from .caches import Caches


class ReadStore(Caches):
    """The event store of one SQLite file for a command that reads a race and prints it (``heatlog show``,
    ``replay``, ``position``): the connection, the reads, the race list and the caches, the jobs below ``Caches`` in
    :class:`~heatlog.store.EventStore`'s chain, without importing the code of the others (appends, audit, leases,
    streams: ~2 ms of every such start, issue 32). It is an ``EventStore`` that has not loaded them yet: the first
    job asked of it that is not here (a damaged log's lenient read, an append) loads the whole store and makes it
    one, the same object, so nothing a reader may need is missing."""

    def __getattr__(self, name: str) -> Any:
        from .streams import EventStore

        if name.startswith("__") or not hasattr(EventStore, name):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self.__class__ = EventStore  # type: ignore[assignment]  # (the same attributes: no job has an __init__)
        return getattr(self, name)
