"""The race log: the store, the door (schema + rules) and the projector, for one database.

Every way of recording (``heatlog add``, ``import``, the recorder, the simulator) appends through
:meth:`RaceLog.append`, so nothing reaches the log without being validated against its schema and the rules.
The projector folds a race's effective log (retractions applied) through the engine, using per-round
snapshots (a cache: rebuildable, keyed by the rules version) to jump to a round without replaying the race.
"""

from __future__ import annotations

import contextlib
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import RULES_VERSION, engine  # the engine's rules load at the first fold (heatlog races needs none)
from ..engine.errors import NOT_FOUND, REFUSED, HeatlogError, IllegalEvent, MalformedInput, StoreError
from ..engine.written import FACTORY, record
from ..formats.usertext import check_label
from ..store import Snapshot, StoredEvent

if TYPE_CHECKING:
    from ..engine import RaceState
    from ..store import EventStore


def validate_event(event: dict[str, Any]) -> None:
    """The schema check of :mod:`heatlog.formats.validation`, imported at the first write (jsonschema takes ~0.1 s to
    import; reading a race never needs it)."""
    from ..formats.validation import validate_event as check

    check(event)


Event = dict[str, Any]


def check_note(race: int, state: RaceState, note: Event) -> None:
    """The door's check of a new note: its text says something, the car it names is a car of the race, the
    round it names has begun (0 = set-up). Only the door asks it: the rules take any note (it changes nothing),
    so a log that already holds a blank note, one about no car of its race or about a round to come, still
    replays and imports."""
    text = note.get("text")
    if isinstance(text, str) and text and not text.strip():  # an empty text is the schema's (minLength)
        # kept, it would be a note that says nothing, shown as an empty line (as a blank undo reason, refused)
        raise MalformedInput("text: is blank: write what the note is about; nothing was written", race=race, input=note)
    car = note.get("car")
    if car is not None and car not in state.cars:  # a misspelt car would be kept as a note about no car of the race
        cars = ", ".join(state.cars)
        raise MalformedInput(
            f"no car named {car!r} in this race (cars: {cars})", race=race, input=note, words=NOT_FOUND
        )
    bots = note.get("bots")
    strangers = [c for c in (bots if isinstance(bots, dict) else {}) if c not in state.cars]
    if strangers:  # play-on's mark names the cars its bots drove (heatlog.log.played_by)
        cars = ", ".join(state.cars)
        raise MalformedInput(
            f"bots: no car named {strangers[0]!r} in this race (cars: {cars})", race=race, input=note, words=NOT_FOUND
        )
    at = note.get("round")
    if at is not None and at > state.round:
        raise MalformedInput(
            f"the note names round {at}, but the race is at round {state.round}: a note is about a round that has "
            "begun (0 = set-up)",
            race=race,
            input=note,
        )


def check_integers(race: int, event: Event) -> None:
    """The door's check that a new event's numbers are integers as written. Every number of an event is an
    integer (no event schema has a ``number``: tests/test_doors.py), but JSON Schema's ``integer`` takes
    ``1.0``: a gear of ``1.0`` was refused by the rules as no gear 1 to 4, a note's round ``1.0`` or ``"v": 1.0``
    was stored as written. Only the door asks it: an old log holding one still imports."""
    from ..formats.jsonio import decimal_problem

    problem = decimal_problem(event)
    if problem is not None:
        raise MalformedInput(problem, race=race, input=event)


def check_retraction(race: int, retraction: Event) -> None:
    """The door's check of a new retraction's reason: given, it says something. An empty or blank reason would
    be kept as no reason at all, though the user meant to give one; it is refused, not dropped. Only the door
    asks it (``heatlog add``, undo): a log that already holds a blank reason still replays and imports."""
    reason = retraction.get("reason")
    if isinstance(reason, str) and not reason.strip():
        raise MalformedInput(
            f"the reason is {'empty' if not reason else 'blank'}: say in words why the entry is withdrawn, or give "
            "no reason; nothing was undone",
            race=race,
        )


@record(slots=True)
class Entry:
    """One event of the effective log with its sequence number."""

    seq: int
    event: Event

    def __init__(
        self,
        seq: int,
        event: Event,
    ) -> None:
        self.seq = seq
        self.event = event


@record(slots=True)
class Retraction:
    seq: int  # the retraction event's own seq
    target: int
    reason: str | None
    target_event: Event

    def __init__(
        self,
        seq: int,
        target: int,
        reason: str | None,
        target_event: Event,
    ) -> None:
        self.seq = seq
        self.target = target
        self.reason = reason
        self.target_event = target_event


@record(slots=True)
class Effective:
    """A race's log after retractions: what the rules see, plus notes and corrections for the record."""

    entries: list[Entry] = field(default_factory=list)  # events the rules fold (notes included, no effect)
    retractions: list[Retraction] = field(default_factory=list)
    length: int = 0  # raw log length (seq of the last stored event)

    def __init__(
        self,
        entries: list[Entry] = FACTORY,
        retractions: list[Retraction] = FACTORY,
        length: int = 0,
    ) -> None:
        self.entries = [] if entries is FACTORY else entries
        self.retractions = [] if retractions is FACTORY else retractions
        self.length = length


def effective_log(stored: Iterable[tuple[int, Event]]) -> Effective:
    """Apply retractions: a ``retracted`` event withdraws the latest entry still in force (undo semantics)."""
    eff = Effective()
    for seq, ev in stored:
        eff.length = seq
        if ev.get("type") == "retracted":
            target = ev.get("seq")
            if not eff.entries or eff.entries[-1].seq != target:
                last = eff.entries[-1].seq if eff.entries else None
                raise IllegalEvent(
                    f"a retraction withdraws the latest entry in force (event {last}), not event {target}",
                    input=ev,
                )
            if len(eff.entries) == 1:
                raise IllegalEvent("the race set-up cannot be retracted; start a new race instead", input=ev)
            gone = eff.entries.pop()
            eff.retractions.append(Retraction(seq, gone.seq, ev.get("reason"), gone.event))
            continue
        eff.entries.append(Entry(seq, ev))
    return eff


@record(slots=True)
class End:
    """The end of a race's log (:meth:`RaceLog.end`): the projection there, the latest entry in force, the log's
    length (seq of its last row, retractions included), and whether the whole log was read to get them."""

    projection: Projection
    last: Entry
    length: int
    whole: bool = False

    def __init__(
        self,
        projection: Projection,
        last: Entry,
        length: int,
        whole: bool = False,
    ) -> None:
        self.projection = projection
        self.last = last
        self.length = length
        self.whole = whole


class Projection:
    """A race's state at a point, with the effective log that produced it.

    A jump to a round from its snapshot reads no events: ``effective`` (and ``upto``) are then read from the
    store the first time they are asked for, as the log was at the jump.
    """

    __slots__ = ("race", "state", "_effective", "_upto", "_seq", "_load")

    def __init__(
        self,
        race: int,
        state: RaceState,
        effective: Effective | None,
        upto: int | None = None,
        *,
        seq: int | None = None,
        load: Callable[[], Effective] | None = None,
    ) -> None:
        if effective is None and (load is None or seq is None):
            raise ValueError("a projection needs its effective log, or a seq and a way to load it")
        self.race = race
        self.state = state
        self._effective = effective
        self._upto = upto  # number of effective entries folded
        self._seq = seq
        self._load = load

    @property
    def effective(self) -> Effective:
        if self._effective is None:
            assert self._load is not None
            self._effective = self._load()
        return self._effective

    @property
    def upto(self) -> int:
        """Number of effective entries folded."""
        if self._upto is None:
            assert self._seq is not None
            self._upto = bisect_right(self.effective.entries, self._seq, key=_entry_seq)
        return self._upto

    @upto.setter
    def upto(self, value: int) -> None:
        self._upto = value
        self._seq = None

    @property
    def seq(self) -> int:
        """Seq of the last folded event (0 if none)."""
        if self._seq is not None:
            return self._seq
        return self.effective.entries[self.upto - 1].seq if self.upto else 0

    def __repr__(self) -> str:
        return f"Projection(race={self.race}, seq={self.seq}, round={self.state.round})"


def _entry_seq(entry: Entry) -> int:
    return entry.seq


def fold(entries: Sequence[Entry], start: RaceState | None = None, *, race: Any = None) -> RaceState:
    state = start
    for entry in entries:
        try:
            state = engine.apply(state, entry.event, atomic=False)
        except HeatlogError as err:
            raise err.located(race=race) from None
    if state is None:
        raise MalformedInput("the race has no events", race=race)
    return state


class RaceLog:
    """One heatlog database: races, their events, and their states."""

    def __init__(self, path: str | Path, *, create: bool = True, reader: bool = False) -> None:
        """``reader``: for a command that reads races and prints them (show, replay, position): the store starts
        as a ``ReadStore`` (heatlog.store.reader), which loads the writer's code only if it is asked for it."""
        self.path = Path(path)
        if reader and not create:
            from ..store.reader import ReadStore

            self.store: EventStore = ReadStore(path, create=False)  # type: ignore[assignment]  # (one on demand)
        else:
            from ..store import EventStore

            self.store = EventStore(path, create=create)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> RaceLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- reading

    def resolve(self, race: int | None) -> int:
        """The race asked for, or by default the most recent race a host made (recorded, imported, a branch of
        one): a simulation stored since never takes its place (issue 10). Only a database of simulations alone
        defaults to its most recent simulated race."""
        if race is None:
            latest = self.store.latest_race(simulated=False)
            if latest is None:
                latest = self.store.latest_race()
            if latest is None:
                raise MalformedInput(f"no races in {self.path} yet: start one with `heatlog new`")
            return latest
        self.store.race(race)  # raises StoreError for an unknown race
        return race

    def stored(self, race: int) -> list[StoredEvent]:
        return self.store.events(race)

    def effective(self, race: int, *, upto: int | None = None) -> Effective:
        """The effective log (of the stored events up to seq ``upto``, if given)."""
        try:
            return effective_log(self.store.log_from(race, upto=upto))
        except HeatlogError as err:
            raise err.located(race=race) from None

    def project(self, race: int, *, round: int | None = None, upto_seq: int | None = None) -> Projection:
        """State at the end of the log, at the start of ``round``, or after the events up to ``upto_seq``."""
        if round is not None and upto_seq is None:
            jumped = self._jump(race, round)
            if jumped is not None:
                return jumped
        eff = self.effective(race)
        entries = eff.entries
        if upto_seq is not None:
            n = bisect_right(entries, upto_seq, key=_entry_seq)
            return Projection(race, fold(entries[:n], race=race), eff, n)
        if round is None:
            return Projection(race, self._fold_cached(race, entries), eff, len(entries))
        snap = self.store.get_snapshot(race, RULES_VERSION, round=round)
        if snap is not None and _snapshot_valid(eff, snap.seq):
            n = bisect_right(entries, snap.seq, key=_entry_seq)
            return Projection(race, engine.state_from_position(snap.state), eff, n)
        starts = self._snapshot_rounds(race, entries)
        if round not in starts:
            have = f"rounds {min(starts)}–{max(starts)}" if starts else "no round has started yet"
            raise MalformedInput(
                f"no round {round} ({have})", race=race, words=NOT_FOUND
            )  # a position's race begins at its round
        n = starts[round]
        return Projection(race, fold(entries[:n], race=race), eff, n)

    def _jump(self, race: int, round: int) -> Projection | None:
        """The start of ``round`` from its snapshot, reading no events when nothing since can undo it.

        Costs the snapshot, the log length and a look at the ``retracted`` events since the snapshot (an
        index), however long the race; each such retraction is checked by counting the rows it spans. It folds no
        event, so it checks no hash chain: the snapshot is sealed to the hash of its event (EventStore._unseal),
        and a full read (position, replay, export, audit) checks the chain (docs/store.md, "What a read checks"). None
        (replay the log instead) if there is no snapshot, or if it does not hold: its event is gone, or a
        retraction since reaches back to it or is not one :func:`effective_log` would accept.
        """
        held = self._holding_snapshot(race, round)
        if held is None:
            return None
        snap, length = held
        return Projection(
            race,
            engine.state_from_position(snap.state),
            None,
            seq=snap.seq,
            load=lambda: self.effective(race, upto=length),
        )

    def _holding_snapshot(self, race: int, round: int) -> tuple[Snapshot, int] | None:
        """The snapshot of ``round`` and the log's length, if the snapshot holds (:meth:`_jump`)."""
        snap = self.store.get_snapshot(race, RULES_VERSION, round=round)
        if snap is None:
            return None
        length = self.store.length(race)
        if not 1 <= snap.seq <= length:
            return None
        since = self.store.retractions_since(race, snap.seq)
        if since and not self._retractions_hold(race, snap.seq, since):
            return None
        return snap, length

    def _retractions_hold(self, race: int, snap_seq: int, since: list[tuple[int, Event]]) -> bool:
        """True if the retractions recorded since a snapshot at ``snap_seq`` (``since``, in seq order) each
        withdraw the latest entry in force, after the snapshot: then the snapshot's event is still in force
        and :func:`effective_log` accepts them (given the log up to the snapshot, which it accepted).

        Retraction R of T does that iff snap_seq < T < R, T is an entry (not a retraction) and every entry
        after T and before R was withdrawn before R, i.e. the retractions between T and R all target events
        between T and R and are as many as the entries there. Costs one count over T..R per retraction.
        """
        targets: dict[int, Any] = {seq: ev.get("seq") for seq, ev in since}
        for r_seq, target in targets.items():
            if isinstance(target, bool) or not isinstance(target, int) or not snap_seq < target < r_seq:
                return False
            if target in targets:
                return False  # a retraction of a retraction
            inner = [t for s, t in targets.items() if target < s < r_seq]
            if not all(isinstance(t, int) and target < t < r_seq for t in inner):
                return False
            entries, has_target = self.store.entries_between(race, target, r_seq)
            if not has_target or entries != len(inner) + 1:
                return False
        return True

    def _fold_cached(self, race: int, entries: list[Entry]) -> RaceState:
        if not entries:
            raise MalformedInput("the race has no events", race=race)
        last_seq = entries[-1].seq
        snap = self.store.get_snapshot(race, RULES_VERSION, max_seq=last_seq)
        if snap is not None and _snapshot_seq_in(entries, snap.seq):
            n = bisect_right(entries, snap.seq, key=_entry_seq)
            return fold(entries[n:], engine.state_from_position(snap.state), race=race)
        return fold(entries, race=race)

    def _snapshot_rounds(self, race: int, entries: list[Entry]) -> dict[int, int]:
        """Fold the race once, caching a snapshot at the start of every round."""
        starts: dict[int, int] = {}
        snaps: list[tuple[int, int, dict[str, Any]]] = []
        state: RaceState | None = None
        for i, entry in enumerate(entries, start=1):
            try:
                state = engine.apply(state, entry.event, atomic=False)
            except HeatlogError as err:
                raise err.located(race=race) from None
            if state.round and state.round not in starts and state.step == 1 and state.turn is None:
                starts[state.round] = i
                snaps.append((state.round, entry.seq, engine.state_to_position(state)))
        with contextlib.suppress(StoreError):  # a cache: a file that cannot be written (read-only, busy) is read
            self.store.put_snapshots(race, RULES_VERSION, snaps)
        return starts

    def rounds(self, race: int) -> int:
        return self.project(race).state.round

    # ---- writing

    def new_race(
        self,
        race_started: Event,
        grid: list[str] | None = None,
        name: str | None = None,
        setup: Sequence[Event] = (),
    ) -> int:
        """Create a race from its set-up event and, optionally, its grid order and further ``setup`` events,
        all validated first and written in one transaction (a refused race leaves nothing behind)."""
        check_label(name)
        validate_event(race_started)
        state = engine.apply(None, race_started)
        events = [race_started]
        more: list[Event] = [{"type": "grid_set", "v": 1, "order": grid}] if grid is not None else []
        for ev in [*more, *setup]:
            validate_event(ev)
            state = engine.apply(state, ev)
            events.append(ev)
        meta = {
            "track": race_started["track"]["id"],
            "mode": race_started.get("mode"),
            "cars": [c["name"] for c in race_started.get("cars", [])],
            "laps": race_started.get("laps"),
        }
        return self.store.create_race(name, meta, events)

    def check(self, race: int, event: Event, projection: Projection | None = None) -> Projection:
        """Validate ``event`` against its schema and the rules at the end of ``race``; return the projection it
        was checked against (its state already has the event applied). Raises and writes nothing."""
        try:
            validate_event(event)
        except HeatlogError as err:
            raise err.located(race=race) from None
        check_integers(race, event)
        proj = projection or self.project(race)
        if event["type"] == "retracted":
            check_retraction(race, event)
            try:
                effective_log([(e.seq, e.event) for e in proj.effective.entries] + [(proj.effective.length + 1, event)])
            except HeatlogError as err:
                raise err.located(race=race) from None
            return proj
        if event["type"] == "race_started":
            raise IllegalEvent("a race has one set-up event; start a new race instead", race=race, input=event)
        if event["type"] == "note":
            check_note(race, proj.state, event)
        elif event["type"] == "grid_set":
            from ..engine.module import grid_given  # (late: start-up)

            if grid_given(proj.effective.entries[0].event):
                self._check_given_grid(race, proj, event)
        try:
            engine.apply(proj.state, event)
        except HeatlogError as err:
            raise err.located(race=race) from None
        return proj

    def _check_given_grid(self, race: int, proj: Projection, event: Event) -> None:
        """A grid entered again (after an undo) in a race whose module block says its season gives the grid
        (``Module.grid_given``: a season race, # 21.12: the standings, leader on pole) is the one the season
        gives. Only the door asks it: the rules cannot, as the standings are the season's, not the race's; an
        order that is no grid of the race's cars is left to the rules' own words."""
        from .season_view import given_grid  # (below this log; late only for start-up: read from the seasons)

        order = event.get("order")
        if not isinstance(order, list) or sorted(map(str, order)) != sorted(proj.state.cars):
            return
        given = given_grid(self, proj.effective.entries[0].event)
        if given is not None and order != given[0]:
            raise IllegalEvent(given[1], race=race, round=proj.state.round, input=event, rule=given[2])

    def append(self, race: int, event: Event, projection: Projection | None = None) -> tuple[int, Projection]:
        """Check and durably append one event; returns its seq and the projection after it."""
        proj = self.check(race, event, projection)
        stored = self.store.append(race, event, expected_seq=proj.effective.length + 1)
        if event["type"] == "retracted":
            self.store.clear_snapshots(race, from_seq=int(event["seq"]))
            return stored.seq, self.project(race)
        proj.effective.entries.append(Entry(stored.seq, event))
        proj.effective.length = stored.seq
        proj.upto = len(proj.effective.entries)
        return stored.seq, proj

    def end(self, race: int) -> End:
        """The state at the end of the log and its latest entry in force, from the latest snapshot that holds:
        it reads and folds the events since that snapshot (a round or so), not the whole log, so it costs the
        same however long the race (what keeps ``heatlog undo`` flat). The snapshot holds as for a jump
        (:meth:`_jump`: sealed to its event, every retraction since withdraws an entry after it); the rows read
        are hash-checked from the snapshot's event on. Without such a snapshot it reads and folds the whole log
        (``End.whole``). The projection's effective log is read from the store if asked for."""
        length = self.store.length(race)
        snap = self.store.get_snapshot(race, RULES_VERSION, max_seq=length)
        if snap is not None and 1 <= snap.seq <= length:
            since = self.store.retractions_since(race, snap.seq)
            if not since or self._retractions_hold(race, snap.seq, since):
                found = self._end_from(race, snap.seq, snap.state, length)
                if found is not None:
                    return found
        proj = self.project(race)
        entries = proj.effective.entries
        if not entries:
            raise MalformedInput("the race has no events", race=race)
        return End(proj, entries[-1], proj.effective.length, whole=True)

    def _end_from(self, race: int, snap_seq: int, position: dict[str, Any], length: int) -> End | None:
        """:meth:`end` from a snapshot at ``snap_seq`` whose retractions since hold; None if the rows read say
        otherwise (then the whole log is read)."""
        stack = self._in_force_from(race, snap_seq, length)
        if stack is None:
            return None
        state = fold(stack[1:], engine.state_from_position(position), race=race)
        last = stack[-1]
        return End(
            Projection(race, state, None, seq=last.seq, load=lambda: self.effective(race, upto=length)), last, length
        )

    def _in_force_from(self, race: int, seq: int, upto: int) -> list[Entry] | None:
        """The entries in force from the one at ``seq`` to ``upto``, the one at ``seq`` first, read and hash-checked
        from the row at ``seq`` on, given that the entry at ``seq`` stays in force up to ``upto`` (a snapshot's
        event whose retractions since hold). None if a row read says otherwise: no row at ``seq``, or a retraction
        that reaches back to it or before (then the caller reads the whole log)."""
        rows = self.store.log_from(race, after=seq - 1, upto=upto)
        if not rows or rows[0][0] != seq:
            return None
        stack = [Entry(s, ev) for s, ev in rows[:1]]
        for s, ev in rows[1:]:
            if ev.get("type") != "retracted":
                stack.append(Entry(s, ev))
            elif len(stack) > 1 and stack[-1].seq == ev.get("seq"):
                stack.pop()
            else:
                return None
        return stack

    def latest(self, race: int) -> End:
        """:meth:`end` for a reader (``heatlog show``): the state at the end of the log from the latest round-start
        snapshot that holds, the rows since it hash-checked, the rows before it vouched for by the snapshot's seal
        (docs/store.md, "What a read checks"). A log without snapshots is read whole and checked, and its round
        starts are cached then, so the next read starts from the latest of them (not when the log is read with
        ``--force``: a snapshot of a damaged log would vouch for the damage before it)."""
        end = self.end(race)
        if end.whole and self.store.on_damage is None:
            self.cache_snapshots(race, end.projection)
        return end

    def entries_after(self, race: int, start: Projection, length: int) -> Iterator[Entry]:
        """The entries in force after ``start`` (the start of a round: a projection whose event stays in force up to
        the log's ``length``), in order, read lazily from the store: first up to the start of the next round
        whose snapshot holds (what ``heatlog replay --round N`` folds), the rest only if asked for. Each part is
        hash-checked from the row it starts at; a part whose rows say it does not hold is taken from the whole
        effective log instead."""
        seq = start.seq
        held = self._holding_snapshot(race, start.state.round + 1)
        bound = held[0].seq if held is not None and seq < held[0].seq <= length else length
        first = self._in_force_from(race, seq, bound)
        if first is None:
            yield from (e for e in self.effective(race, upto=length).entries if e.seq > seq)
            return
        yield from first[1:]
        if bound == length:
            return
        rest = self._in_force_from(race, bound, length)
        if rest is None:
            yield from (e for e in self.effective(race, upto=length).entries if e.seq > bound)
            return
        yield from rest[1:]

    def retract_last(self, race: int, reason: str | None = None, end: End | None = None) -> tuple[int, Projection]:
        """Undo: retract the latest entry in force (the original stays in the log). Reads the log from the latest
        snapshot only (:meth:`end`; ``end``: the caller's, read just before), so it costs the same however long
        the race; a log without snapshots (an import, ``heatlog add``) is read whole once and gets them."""
        at = end or self.end(race)
        if at.last.seq <= 1:  # the set-up (event 1) is never withdrawn (effective_log)
            raise IllegalEvent("nothing to undo: only the race set-up is left", race=race, words=REFUSED)
        ev: Event = {"type": "retracted", "v": 1, "seq": at.last.seq}
        if reason is not None:
            ev["reason"] = reason
        check_retraction(race, ev)  # before the schema: an empty reason is blank, not a field too short
        try:
            validate_event(ev)
        except HeatlogError as err:
            raise err.located(race=race) from None
        stored = self.store.append(race, ev, expected_seq=at.length + 1)
        self.store.clear_snapshots(race, from_seq=at.last.seq)
        after = self.end(race)
        if after.whole:
            self.cache_snapshots(race, after.projection)  # the next undo reads from a round start
        return stored.seq, after.projection

    def retract_entries(
        self, race: int, count: int, projection: Projection, reason: str | None = None
    ) -> tuple[list[Entry], Projection]:
        """Undo ``count`` entries at once: retract the latest ``count`` entries in force, in one transaction,
        and return them with the projection after. Costs the retracted entries and the replay from the
        latest snapshot (a round start), not the whole log: undo stays flat however long the race."""
        eff = projection.effective
        if count < 1:
            return [], projection
        if len(eff.entries) - count < 1:
            raise IllegalEvent("nothing to undo: only the race set-up is left", race=race, words=REFUSED)
        targets = eff.entries[len(eff.entries) - count :]
        events: list[Event] = []
        for entry in reversed(targets):
            ev: Event = {"type": "retracted", "v": 1, "seq": entry.seq}
            if reason is not None:
                ev["reason"] = reason
            check_retraction(race, ev)
            validate_event(ev)
            events.append(ev)
        stored = self.store.append_many(race, events, expected_seq=eff.length + 1)
        self.store.clear_snapshots(race, from_seq=targets[0].seq)
        kept = eff.entries[: len(eff.entries) - count]
        retractions = list(eff.retractions)
        for st, entry in zip(stored, reversed(targets), strict=True):
            retractions.append(Retraction(st.seq, entry.seq, reason, entry.event))
        new = Effective(kept, retractions, stored[-1].seq)
        return list(targets), Projection(race, self._fold_cached(race, new.entries), new, len(new.entries))

    def cache_snapshots(self, race: int, projection: Projection) -> None:
        """Snapshot every round start of ``projection`` unless its current round has one (a log made elsewhere:
        an import, ``heatlog add``): what keeps a later undo flat."""
        state = projection.state
        if state.round < 2 or self.store.get_snapshot(race, RULES_VERSION, round=state.round) is not None:
            return
        self._snapshot_rounds(race, projection.effective.entries)

    def cache_round_start(self, race: int, projection: Projection) -> None:
        """Snapshot the state if it is the start of a round (step 1, no turn): what a flat undo replays from."""
        state = projection.state
        if state.phase != "race" or state.step != 1 or state.turn is not None or not projection.effective.entries:
            return
        if state.pending != state.order:
            return
        seq = projection.effective.entries[projection.upto - 1].seq
        self.store.put_snapshot(race, state.round, RULES_VERSION, seq, engine.state_to_position(state))

    def branch(self, race: int, at_round: int, name: str) -> int:
        """A what-if branch whose log is ``race``'s log up to the start of ``at_round`` (shared, not copied)."""
        check_label(name, "branch name")
        eff = self.effective(race)
        starts = self._snapshot_rounds(race, eff.entries)
        if at_round not in starts:
            # a race started from a position begins at its round, not round 1
            have = f"rounds {min(starts)}–{max(starts)}" if starts else "no round has started yet"
            raise MalformedInput(f"no round {at_round} to branch at ({have})", race=race, words=NOT_FOUND)
        fork_seq = eff.entries[starts[at_round] - 1].seq
        for r in eff.retractions:
            if r.seq > fork_seq >= r.target:
                raise IllegalEvent(
                    f"round {at_round} of race {race} begins before a later correction (event {r.seq}): "
                    "branch from a round after it",
                    race=race,
                )
        return self.store.create_branch(race, fork_seq, name)


def _snapshot_valid(eff: Effective, seq: int) -> bool:
    """A snapshot at ``seq`` holds if no later retraction reaches back to it or before."""
    return _snapshot_seq_in(eff.entries, seq) and not any(r.seq > seq >= r.target for r in eff.retractions)


def _snapshot_seq_in(entries: list[Entry], seq: int) -> bool:
    i = bisect_right(entries, seq, key=_entry_seq)  # entries are in seq order
    return i > 0 and entries[i - 1].seq == seq
