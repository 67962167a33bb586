"""``heatlog record``: the guided session that records a physical race as it happens (issue 5).

Two halves, so the logic is testable without a terminal:

* :class:`Session` holds the :class:`~heatlog.racelog.RaceLog`, the race's current projection and nothing
  else of importance. It derives **the next question from the projected state** (``question``) and turns
  each typed answer into events, a correction or a clear error (``answer``). Every event goes through
  ``RaceLog.append`` (schema + rules, then a durable append) before the next question is derived, so a
  killed process loses nothing and a restarted one asks exactly the question that was open.
* :func:`run` is the thin prompt loop: ``input()`` (with the stdlib ``readline`` for line editing,
  history and Tab completion) and a rich console for the output.

What is never asked (the rules determine it): chance events whose outcome is known (a flip or a draw from a
deck whose order was entered, open mode), a play when only one set of cards is legal, optional steps with
nothing to choose (React without a legal option, Slipstream when the car is not in position -- then the
reason is shown -- and Discard with nothing discardable).

Optional steps (React, Discard) close by Enter. Closing is not an event (docs/design.md: an event of a later
step closes them), so the session remembers "closed at log length L" in a small side table of the same
database (``recorder_sessions``), together with the recorder's lease; a resumed session therefore asks the
exact question that was open even between two events. That table is UI state, never race truth: deleting it
only means React is asked once more.

One live recorder per race: the lease row names the process holding the race (host, pid and its start
time). A second ``heatlog record`` on the same race is told at start who holds it; a lease whose process is
gone (killed, crashed) is taken over with a notice; ``--force`` takes over a lease held on another host.
Whatever else writes to the race meanwhile (``heatlog add``) makes the store refuse the recorder's next
append (ConflictError): the recorder reloads the race and asks again.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .engine import HeatlogError, IllegalEvent, MalformedInput, RaceState, apply
from .engine.cards import DISCARDABLE, HAND_SIZE
from .engine.decide import cooldown_left, legal_gears, playable_sets, react_options, slipstream_status, waiting_for
from .engine.errors import ConflictError, StoreError
from .engine.rules import go_on
from .engine.state import Car, Turn, expand
from .racelog import Entry, Projection, RaceLog
from .validation import validate_event
from .views.narrate import ORDINAL, corner_number, narrate_turn, played_words

Event = dict[str, Any]

COMMANDS = ("undo", "note", "board", "help", "quit")
SAVED = "progress is saved; run heatlog record to resume"
OVER_PROMPT = "race over — Enter to leave (undo takes back the last answer): "
CARD_WORDS = {"heat": "H", "stress": "S"}
CARD_CHARS = {"1": "1", "2": "2", "3": "3", "4": "4", "0": "0", "5": "5", "h": "H", "s": "S"}
CARD_NAMES = {"H": "Heat", "S": "Stress"}

# --------------------------------------------------------------------------------------------- parsing


def parse_cards(text: str) -> list[str]:
    """``"4 3 s"``, ``"43s"``, ``"4,3,stress"`` -> ``["4", "3", "S"]`` (# 1.1: 1–4, 0 and 5, Heat, Stress)."""
    out: list[str] = []
    for tok in text.replace(",", " ").lower().split():
        if tok in CARD_WORDS:
            out.append(CARD_WORDS[tok])
        elif all(ch in CARD_CHARS for ch in tok):
            out.extend(CARD_CHARS[ch] for ch in tok)
        else:
            raise MalformedInput(f"{tok!r} is not a card: write 1 2 3 4, 0 or 5 (upgrades), h (Heat), s (Stress)")
    return out


def card_text(cards: list[str]) -> str:
    return " ".join(CARD_NAMES.get(c, c) for c in cards) or "nothing"


def describe(ev: Event) -> str:
    """An event in a few words, for undo and automatic entries."""
    kind, car = ev.get("type"), ev.get("car", "")
    if kind == "gear_chosen":
        return f"{car} gear {ev['gear']}"
    if kind in ("cards_played", "cards_revealed"):
        return f"{car} {'plays' if kind == 'cards_played' else 'reveals'} {card_text(ev['cards'])}"
    if kind == "card_flipped":
        return f"{car} flips {card_text([ev['card']])}"
    if kind == "deck_shuffled":
        return f"{car} shuffles" + (f" ({card_text(ev['order'])})" if ev.get("order") else "")
    if kind == "cards_drawn":
        return f"{car} draws " + (card_text(ev["cards"]) if "cards" in ev else str(ev["count"]))
    if kind == "cooldown":
        return f"{car} cools {ev['count']}"
    if kind == "boost":
        return f"{car} boosts"
    if kind == "adrenaline":
        return f"{car} adrenaline {ev['bonus']}"
    if kind == "slipstream":
        return f"{car} {'slipstreams' if ev['taken'] else 'declines the slipstream'}"
    if kind == "cards_discarded":
        return f"{car} discards {card_text(ev['cards'])}"
    if kind == "grid_set":
        return "grid " + " > ".join(ev["order"])
    if kind == "note":
        return f"note {ev['text']!r}"
    return str(kind)


def error_text(err: HeatlogError) -> str:
    """The engine's message with its rule, without the JSON of the event (the user typed something else)."""
    return f"{err.kind}: {err.message}" + (f" (# {err.rule})" if err.rule else "")


# --------------------------------------------------------------------------------------------- questions


@dataclass(slots=True)
class Question:
    """What the session asks now. ``auto`` is set when the rules determine the answer (never asked)."""

    kind: str  # grid setup_shuffle setup_draw gear play reveal flip shuffle react slipstream discard draw over
    car: str | None
    prompt: str
    default: str | None = None  # what Enter means, if anything
    hint: str = ""
    options: tuple[str, ...] = ()  # for Tab completion
    auto: Event | None = None


@dataclass(slots=True)
class _GoOn:
    """An optional step nobody needs to answer: close it (derived, ``go_on``) and look again."""

    reason: str | None = None


@dataclass(slots=True)
class Line:
    text: str
    style: str = ""  # "", error, outcome, info, dim, head, board (print the board)


@dataclass(slots=True)
class _Derived:
    view: RaceState
    question: Question
    notes: list[tuple[Any, Line]] = field(default_factory=list)
    turns: list[tuple[RaceState, Turn]] = field(default_factory=list)


def _ev(kind: str, **fields: Any) -> Event:
    return {"type": kind, "v": 1, **fields}


def _hand(car: Car) -> str:
    return " ".join(expand(car.hand)) if car.hand is not None else f"{car.hand_size} hidden"


def _completing(state: RaceState, fn: Callable[[], Any]) -> list[Turn]:
    """Run ``fn`` (which advances ``state`` in place) and return the turns it completed. A round end replaces
    ``state.turns`` with a new list; the engine appended the round's last turns to the old one first."""
    old, n = state.turns, len(state.turns)
    fn()
    if state.turns is old:
        return old[n:]
    return old[n:] + state.turns


Closed = dict[tuple[int, str], int]  # (round, car) -> highest optional step closed by Enter (5 React, 8 Discard)


def ask(state: RaceState, closed: Closed | None = None) -> Question | _GoOn:
    """The question the race asks at ``state``; ``closed`` names the optional steps already closed by Enter,
    per turn (the view may run a turn ahead of the log: a turn can end without a further event)."""
    if state.phase == "over":
        return Question("over", None, OVER_PROMPT, "leave", "undo takes back the last answer", ("undo",))
    if state.phase == "grid":
        names = tuple(state.cars)
        return Question(
            "grid",
            None,
            "grid order, front first (Enter = random): ",
            "random",
            "names, e.g. " + " ".join(names),
            names,
        )
    if state.phase == "deal":
        return _ask_deal(state)
    turn = state.turn
    if turn is None:
        name = state.pending[0]
        car = state.cars[name]
        if state.step == 1:
            gears = legal_gears(state, car)
            more = f"; {len(state.pending)} cars: type all their gears at once" if len(state.pending) > 1 else ""
            return Question(
                "gear",
                name,
                f"{name} gear (now {car.gear}) [{car.gear}]: ",
                str(car.gear),
                f"legal: {' '.join(map(str, gears))} (a two-gear shift costs 1 Engine Heat, # 3.2){more}",
                tuple(map(str, gears)),
            )
        sets = playable_sets(car, car.gear)
        if len(sets) == 1:
            return Question("play", name, "", auto=_ev("cards_played", car=name, cards=sets[0]))
        return Question(
            "play", name, f"{name} plays {car.gear} (hand {_hand(car)}): ", None, "the cards, e.g. 4 3 s (# 4.1)"
        )
    car = state.cars[turn.car]
    name = car.name
    done = (closed or {}).get((turn.round, name), 0)
    if turn.flipping is not None:
        if car.deck_size == 0:
            return _ask_shuffle(state, car, "to go on flipping")
        what = "Stress" if turn.flipping == "stress" else "Boost"
        if car.deck is not None:
            return Question("flip", name, "", auto=_ev("card_flipped", car=name, card=car.deck[-1]))
        return Question(
            "flip",
            name,
            f"flip for {name}'s {what}: ",
            None,
            "the flipped card(s) in order until a 1–4; 0, 5, h, s are discarded and flipping goes on (# 14.1)",
            ("1", "2", "3", "4", "0", "5", "h", "s"),
        )
    if turn.sub == 3:
        return Question(
            "reveal",
            name,
            f"{name} reveals {turn.gear}: ",
            None,
            f"gear {turn.gear}: the {turn.gear} played cards (# 4.1)",
        )
    if turn.sub in (5, 6):
        if turn.sub == 5 and done < 5:
            opts = react_options(state, car, turn)
            if opts:
                tokens = _react_tokens(opts)
                return Question(
                    "react",
                    name,
                    f"{name} react ({' '.join(tokens)}; Enter = done): ",
                    "",
                    f"Engine {car.engine}, cooldown left {cooldown_left(turn)}; "
                    "cN cools N Heat, b boosts (then the flips), a / ac adrenaline move / cooldown; "
                    "several at once in order, e.g. c1 b 3",
                    tuple(_react_answers(opts)),
                )
        ok, why = slipstream_status(state, car)
        if ok:
            return Question("slipstream", name, f"{name} slipstream? (y/n): ", None, why, ("y", "n"))
        return _GoOn(f"{name}: no slipstream — {why}")
    if turn.sub == 8:
        if done < 8 and _can_discard(car):
            hand = f"hand {_hand(car)}; " if car.hand is not None else ""
            return Question(
                "discard",
                name,
                f"{name} discards ({hand}Enter = none): ",
                "",
                "cards to discard; never Heat or Stress (# 11.1)",
            )
        return _GoOn()
    if turn.sub == 9:
        if car.deck_size == 0:
            return _ask_shuffle(state, car, "to draw")
        n = min(HAND_SIZE - car.hand_size, car.deck_size)
        return _ask_draw(state, car, n)
    raise IllegalEvent(f"the recorder does not know what to ask at step {turn.sub}")  # pragma: no cover


def _ask_deal(state: RaceState) -> Question:
    w = waiting_for(state)
    name = w.cars[0]
    car = state.cars[name]
    if w.kinds == ["deck_shuffled"]:
        if state.mode == "table":
            return Question("setup_shuffle", name, f"{name} shuffles the starting deck [Enter]: ", "", "# 1.2")
        return Question(
            "setup_shuffle",
            name,
            f"{name}'s starting shuffle: 18 cards top first, or Enter if unknown: ",
            "unknown",
            "the order if a computer shuffled it (then draws and flips are never asked), else Enter (# 1.2)",
            ("unknown",),
        )
    return _ask_draw(state, car, min(HAND_SIZE - car.hand_size, car.deck_size), setup=True)


def _ask_draw(state: RaceState, car: Car, n: int, setup: bool = False) -> Question:
    kind = "setup_draw" if setup else "draw"
    name = car.name
    more = "" if n == HAND_SIZE - car.hand_size else f" (the deck holds {n}; then the reshuffle)"
    if state.mode == "table":
        return Question(kind, name, f"{name} draws [{n}]{more}: ", str(n), "how many cards (# 12.2)")
    if car.deck is not None:
        return Question(kind, name, "", auto=_ev("cards_drawn", car=name, cards=car.deck[len(car.deck) - n :][::-1]))
    return Question(kind, name, f"{name} draws {n}{more}: ", None, "the cards drawn, e.g. 4 h 2 (# 12.2)")


def _ask_shuffle(state: RaceState, car: Car, why: str) -> Question:
    n = len(car.discard)
    name = car.name
    if state.mode == "table":
        return Question(
            "shuffle",
            name,
            f"{name}'s deck is empty: shuffle the discard pile ({n} cards) {why} [Enter]: ",
            "",
            "only the discard pile; the Play Area stays out (# 5.6)",
        )
    return Question(
        "shuffle",
        name,
        f"{name} reshuffles {n} cards {why}: order top first, or Enter if unknown: ",
        "unknown",
        f"discard pile: {card_text(sorted(car.discard))} (# 5.6)",
        ("unknown",),
    )


def _closed_map(closed: list[tuple[int, str, int]]) -> Closed:
    out: Closed = {}
    for r, c, x in closed:
        out[(r, c)] = max(x, out.get((r, c), 0))
    return out


def _react_tokens(opts: list[Event]) -> list[str]:
    out: list[str] = []
    cool = [o["count"] for o in opts if o["type"] == "cooldown"]
    if cool:
        out.append("c1" if max(cool) == 1 else f"c1-c{max(cool)}")
    if any(o["type"] == "boost" for o in opts):
        out.append("b")
    for o in opts:
        if o["type"] == "adrenaline":
            out.append("a" if o["bonus"] == "move" else "ac")
    return out


def _react_answers(opts: list[Event]) -> list[str]:
    """Every single react answer (for Tab completion)."""
    out = [f"c{o['count']}" for o in opts if o["type"] == "cooldown"]
    out += ["b" for o in opts if o["type"] == "boost"]
    out += ["a" if o["bonus"] == "move" else "ac" for o in opts if o["type"] == "adrenaline"]
    return out


def _can_discard(car: Car) -> bool:
    if car.hand_size == 0:
        return False
    source = car.hand if car.hand is not None else car.pool
    return any(source[c] > 0 for c in DISCARDABLE)


def advance(state: RaceState, closed: Closed | None = None, *, inplace: bool = False) -> _Derived:
    """Close every optional step nobody needs to answer (on a copy unless ``inplace``) and return the state
    the next question is asked at, the question, and what happened on the way."""
    view = state
    copied = inplace
    d = _Derived(state, Question("over", None, ""))
    while True:
        q = ask(view, closed)
        if isinstance(q, Question):
            d.view, d.question = view, q
            return d
        if not copied:
            view = view.copy()
            copied = True
        turn = view.turn
        assert turn is not None
        if q.reason:
            d.notes.append((("noslip", turn.round, turn.car), Line(q.reason, "dim")))
        before = turn.sub
        done = _completing(view, _go_on(view))
        if before <= 6 and turn.corners and view.turn is turn:
            d.notes.append((("corners", turn.round, turn.car), Line(_corner_preview(view, turn), "info")))
        d.turns += [(view, t) for t in done]


def _go_on(state: RaceState) -> Callable[[], Any]:
    return lambda: go_on(state)


def _corner_preview(state: RaceState, turn: Turn) -> str:
    parts = []
    for cc in turn.corners:
        n = corner_number(state, cc.after_space)
        if cc.spinout:
            parts.append(f"corner {n} (limit {cc.limit}) at speed {cc.speed}: owes {cc.cost}, has {cc.paid}: SPINS OUT")
        else:
            parts.append(f"corner {n} (limit {cc.limit}) at speed {cc.speed}: pays {cc.cost} Heat")
    return f"{turn.car}: " + "; ".join(parts)


# --------------------------------------------------------------------------------------------- the lease


def _proc_start(pid: int) -> str:
    """The start time of process ``pid`` (Linux /proc; "" elsewhere): tells a reused pid from the holder."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else ""


def _alive(pid: int, host: str, start: str) -> bool:
    if host != socket.gethostname():
        return True  # cannot look: a lease held elsewhere stands until released or forced
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        state = stat.rsplit(")", 1)[-1].split()[0]
        if state in ("Z", "X"):
            return False  # killed, not yet reaped
    except (OSError, IndexError):
        pass
    return not start or _proc_start(pid) == start


class Lease:
    """One live recorder per race, plus the recorder's cursor (optional steps closed by Enter).

    Stored in the race's database (table ``recorder_sessions``), so every recorder on any machine sharing the
    file sees it. It is UI state, not race truth: the events are the truth."""

    TABLE = "recorder_sessions"

    def __init__(self, log: RaceLog, race: int) -> None:
        self.conn: sqlite3.Connection = log.store.conn
        self.race = race
        self.pid = os.getpid()
        self.host = socket.gethostname()
        self.start = _proc_start(self.pid)
        self.held = False
        self._sql(
            f"CREATE TABLE IF NOT EXISTS {self.TABLE} (race INTEGER PRIMARY KEY REFERENCES races(id), "
            "pid INTEGER, host TEXT, start TEXT, since TEXT, cursor TEXT)"
        )

    def _sql(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"the recorder cannot use its table in the database: {exc}", race=self.race) from None

    @contextlib.contextmanager
    def _tx(self) -> Iterator[None]:
        self._sql("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")
            raise
        self._sql("COMMIT")

    def _row(self) -> tuple[Any, ...] | None:
        rows = self._sql(f"SELECT pid, host, start, since, cursor FROM {self.TABLE} WHERE race = ?", (self.race,))
        return tuple(rows[0]) if rows else None

    def acquire(self, force: bool = False) -> str | None:
        """Take the race; raise ConflictError if another live recorder holds it. Returns a notice when a
        stale lease was taken over."""
        notice = None
        with self._tx():
            row = self._row()
            if row is not None and row[0] is not None:
                pid, host, start, since = row[0], row[1], row[2] or "", row[3]
                mine = pid == self.pid and host == self.host
                if not mine and _alive(int(pid), str(host), str(start)) and not force:
                    elsewhere = "" if host == self.host else f" on {host}"
                    raise ConflictError(
                        f"race {self.race} is being recorded by another heatlog record (pid {pid}{elsewhere}, "
                        f"since {str(since)[:19]}): one recorder per race. Close that one first"
                        + (", or run heatlog record --force if it is gone" if host != self.host else ""),
                    )
                if not mine:
                    notice = (
                        f"took over from a recorder that stopped without closing (pid {pid}, since {str(since)[:19]})"
                    )
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
            self._sql(
                f"INSERT INTO {self.TABLE} (race, pid, host, start, since) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(race) DO UPDATE SET pid = excluded.pid, host = excluded.host, start = excluded.start, "
                "since = excluded.since",
                (self.race, self.pid, self.host, self.start, stamp),
            )
        self.held = True
        return notice

    def check(self) -> None:
        """Still ours? (another recorder may have forced a take-over)"""
        row = self._row()
        if row is None or row[0] != self.pid or row[1] != self.host:
            self.held = False
            who = f"pid {row[0]} on {row[1]}" if row is not None and row[0] is not None else "nobody"
            raise ConflictError(f"another recorder took race {self.race} over ({who}); this one stops", race=self.race)

    def release(self) -> None:
        if not self.held:
            return
        with contextlib.suppress(StoreError):
            self._sql(
                f"UPDATE {self.TABLE} SET pid = NULL, host = NULL, start = NULL "
                "WHERE race = ? AND pid = ? AND host = ?",
                (self.race, self.pid, self.host),
            )
        self.held = False

    def load_cursor(self) -> dict[str, Any] | None:
        row = self._row()
        if row is None or not row[4]:
            return None
        try:
            cur = json.loads(row[4])
        except ValueError:
            return None
        return cur if isinstance(cur, dict) else None

    def save_cursor(self, cursor: dict[str, Any] | None) -> None:
        self._sql(
            f"UPDATE {self.TABLE} SET cursor = ? WHERE race = ?",
            (json.dumps(cursor) if cursor is not None else None, self.race),
        )


# --------------------------------------------------------------------------------------------- the session


class Session:
    """A recording session on one race: the question now, and what an answer does."""

    def __init__(self, log: RaceLog, race: int, *, lease: Lease | None = None, fresh: bool = False) -> None:
        self.log = log
        self.fresh = fresh
        self.race = race
        self.lease = lease
        self.proj: Projection = log.project(race)
        # Optional steps closed by Enter, (round, car, step) in the order closed, valid at log length closed_at.
        self.closed: list[tuple[int, str, int]] = []
        self.closed_at = -1
        self.quit = False
        self.narrated: set[tuple[int, str]] = set()
        self.said: set[Any] = set()
        # seq of each event appended by this session -> the optional steps closed by Enter just before it
        self.closed_before: dict[int, list[tuple[int, str, int]]] = {}
        cur = lease.load_cursor() if lease is not None else None
        if cur and cur.get("length") == self.proj.effective.length and isinstance(cur.get("closed"), list):
            self.closed = [(int(r), str(c), int(x)) for r, c, x in cur["closed"]]
            self.closed_at = self.proj.effective.length
        self._d = advance(self.proj.state, self._closed())
        # Everything up to here was told before this session: only what happens from now on is narrated.
        self._mark_known(self._d)

    # ---- what to ask

    @property
    def state(self) -> RaceState:
        return self.proj.state

    @property
    def view(self) -> RaceState:
        """The state the question is asked at (optional steps nobody answers are closed)."""
        return self._d.view

    @property
    def question(self) -> Question:
        return self._d.question

    def _closed(self) -> Closed:
        return _closed_map(self._closed_list())

    def _set_closed(self, closed: list[tuple[int, str, int]]) -> None:
        self.closed = closed
        self.closed_at = self.proj.effective.length
        if self.lease is not None:
            cursor = {"length": self.closed_at, "closed": [list(x) for x in closed]}
            self.lease.save_cursor(cursor if closed else None)

    def _mark_known(self, d: _Derived) -> None:
        v = d.view
        for key, _ in d.notes:
            self.said.add(key)
        self.said.add(("round", v.round))
        self.said.update(("hof", n) for n in v.hall_of_fame)
        if v.turn is not None and v.turn.sub >= 5:
            self.said.add(("move", v.turn.round, v.turn.car))
        for _, t in d.turns:
            self.narrated.add((t.round, t.car))

    def start_lines(self) -> list[Line]:
        """What the screen shows when the session opens (or resumes)."""
        s = self.view
        laps = f"{s.laps} lap{'s' if s.laps > 1 else ''}"
        lines = [
            Line(f"race {self.race}: {s.track.name}, {laps}, {s.mode} mode", "head"),
            Line("at any prompt: undo, note TEXT, board, help, quit (Ctrl-D)", "dim"),
        ]
        typed = any("raw" in e.event for e in self.proj.effective.entries)
        if not self.fresh and typed and s.phase != "over":
            q = self.question
            lines.append(Line(f"resuming at round {s.round}: {q.prompt.rstrip(': ').strip() or q.kind}", "info"))
        if s.phase == "race":
            lines += self._round_header(s)
            t = s.turn
            if t is not None and t.sub >= 5 and not t.cluttered:
                lines.append(Line("so far: " + narrate_turn(s, t), "info"))
        elif s.phase == "over":
            lines += self._results(s)
        return lines

    # ---- answering

    def answer(self, text: str) -> list[Line]:
        """Turn one typed answer into events (committed before returning), a command, or an error."""
        raw = text[:2000]
        s = text.strip()
        word, _, rest = s.partition(" ")
        cmd = word.lower()
        if cmd == "undo" and not rest.strip():
            return self.undo()
        if cmd == "note":
            return self.note(rest.strip(), raw)
        if cmd == "board" and not rest.strip():
            return [Line("", "board")]
        if cmd in ("help", "?") and not rest.strip():
            return self.help()
        if cmd in ("quit", "exit") and not rest.strip():
            self.quit = True
            return [Line(SAVED, "info")]
        q = self.question
        if q.kind == "over":
            return [Line("the race is over: nothing more to record", "info")]
        try:
            if q.kind in ("react", "discard") and s.lower() in ("", "-", "none", "done"):
                return self._close_optional(q)
            events = self._interpret(q, s)
        except HeatlogError as err:
            return [Line(error_text(err), "error")]
        for ev, typed in events:
            if typed:
                ev["raw"] = raw
        return self._commit([ev for ev, _ in events])

    def _close_optional(self, q: Question) -> list[Line]:
        sub = 5 if q.kind == "react" else 8
        turn = self.view.turn
        assert turn is not None
        self._set_closed([*self._closed_list(), (turn.round, turn.car, sub)])
        lines = self._rederive()
        return lines

    def _closed_list(self) -> list[tuple[int, str, int]]:
        return list(self.closed) if self.closed_at == self.proj.effective.length else []

    def _interpret(self, q: Question, s: str) -> list[tuple[Event, bool]]:
        """The events an answer stands for, checked together on a copy of the state first (all or none)."""
        name = q.car or ""
        kind = q.kind
        if kind == "grid":
            names = list(self.state.cars)
            if s == "" or s.lower() == "random":
                order = names[:]
                random.shuffle(order)  # # 1.4
            else:
                order = [self._car_name(t) for t in s.replace(",", " ").split()]
            return self._trial([_ev("grid_set", order=order)])
        if kind in ("setup_shuffle", "shuffle"):
            if self.state.mode == "table":
                if s.lower() not in ("", "y", "yes", "ok", "done"):
                    raise MalformedInput("decks are hidden in table mode: press Enter once the deck is shuffled")
                return self._trial([_ev("deck_shuffled", car=name)])
            if s.lower() in ("", "unknown", "?", "u"):
                return self._trial([_ev("deck_shuffled", car=name)])
            return self._trial([_ev("deck_shuffled", car=name, order=parse_cards(s))])
        if kind in ("setup_draw", "draw"):
            if self.state.mode == "table":
                text = s or (q.default or "")
                if not text.isdigit():
                    raise MalformedInput(f"type how many cards {name} draws (Enter = {q.default})")
                return self._trial([_ev("cards_drawn", car=name, count=int(text))])
            cards = parse_cards(s)
            if not cards:
                raise MalformedInput(f"type the cards {name} draws, e.g. 4 h 2")
            return self._trial([_ev("cards_drawn", car=name, cards=cards)])
        if kind in ("play", "reveal", "discard"):
            cards = parse_cards(s)
            if not cards and kind != "discard":
                raise MalformedInput(f"type {name}'s cards, e.g. 4 3 s")
            etype = {"play": "cards_played", "reveal": "cards_revealed", "discard": "cards_discarded"}[kind]
            return self._trial([_ev(etype, car=name, cards=cards)])
        if kind == "slipstream":
            yn = s.lower()
            if yn in ("y", "yes"):
                return self._trial([_ev("slipstream", car=name, taken=True)])
            if yn in ("n", "no"):
                return self._trial([_ev("slipstream", car=name, taken=False)])
            raise MalformedInput("answer y (slipstream 2 spaces, # 8.2) or n")
        if kind in ("gear", "flip", "react"):
            return self._walk(q, s)
        raise MalformedInput(f"nothing to answer here ({kind})")  # pragma: no cover

    def _car_name(self, token: str) -> str:
        hits = [n for n in self.state.cars if n.lower() == token.lower()]
        if not hits:
            hits = [n for n in self.state.cars if n.lower().startswith(token.lower())]
        if len(hits) != 1:
            raise MalformedInput(f"{token!r} is not one car of this race ({', '.join(self.state.cars)})")
        return hits[0]

    def _token_event(self, q: Question, tok: str) -> Event:
        name = q.car or ""
        t = tok.lower()
        if q.kind == "gear":
            if t not in ("1", "2", "3", "4"):
                raise MalformedInput(f"{tok!r} is not a gear: type 1, 2, 3 or 4 (Enter keeps {q.default})")
            return _ev("gear_chosen", car=name, gear=int(t))
        if q.kind == "flip":
            cards = parse_cards(t)
            if len(cards) != 1:
                raise MalformedInput(f"{tok!r}: one card per flip")
            return _ev("card_flipped", car=name, card=cards[0])
        if q.kind == "react":
            if t in ("b", "boost"):
                return _ev("boost", car=name)
            if t in ("a", "am"):
                return _ev("adrenaline", car=name, bonus="move")
            if t == "ac":
                return _ev("adrenaline", car=name, bonus="cooldown")
            if t.startswith("c") and (t[1:].isdigit() or t == "c"):
                return _ev("cooldown", car=name, count=int(t[1:] or "1"))
            raise MalformedInput(f"{tok!r}: react with cN (cooldown N), b (boost), a / ac (adrenaline move / cooldown)")
        raise MalformedInput(f"{tok!r} belongs to its own question ({q.prompt.strip()})")

    def _walk(self, q: Question, s: str) -> list[tuple[Event, bool]]:
        """Several answers typed at once (``3 2 4`` for three gears, ``h 5 3`` for flips, ``c1 b 3`` for a
        cooldown, a boost and its flip): each token answers the question the previous ones lead to."""
        tokens = s.replace(",", " ").split()
        if not tokens:
            if q.kind == "gear":
                tokens = [q.default or ""]
            else:
                raise MalformedInput("type the flipped card, e.g. 3 (or h 5 3 for several flips)")
        work = self.view.copy()
        events: list[tuple[Event, bool]] = []
        cur = q
        allowed = {"gear": ("gear",), "flip": ("flip",), "react": ("react", "flip")}[q.kind]
        for i, tok in enumerate(tokens):
            if cur.kind not in allowed:
                rest = " ".join(tokens[i:])
                nxt = cur.prompt.strip() or cur.kind
                raise MalformedInput(f"{rest!r}: too much for this answer (the next question is {nxt!r})")
            ev = self._token_event(cur, tok)
            self._check(work, ev, tok)
            events.append((ev, True))
            d = advance(work, inplace=True)
            work, cur = d.view, d.question
            while cur.auto is not None:
                auto = dict(cur.auto)
                self._check(work, auto, "")
                events.append((auto, False))
                d = advance(work, inplace=True)
                work, cur = d.view, d.question
        return events

    def _trial(self, events: list[Event]) -> list[tuple[Event, bool]]:
        work = self.view.copy()
        for ev in events:
            self._check(work, ev, "")
        return [(ev, True) for ev in events]

    def _check(self, work: RaceState, ev: Event, tok: str) -> None:
        try:
            apply(work, ev)  # the rules first: their message names the rule (# 4.1 rather than "at most 4 items")
            validate_event(ev)
        except HeatlogError as err:
            if tok:
                err.message = f"{tok}: {err.message}"
            raise

    # ---- committing

    def _commit(self, events: list[Event]) -> list[Line]:
        lines: list[Line] = []
        for ev in events:
            try:
                done = self._append(ev)
            except ConflictError as err:
                return lines + self._reload(err)
            except StoreError as err:
                return lines + self._reload(err)
            except HeatlogError as err:
                lines.append(Line(error_text(err), "error"))
                break
            if ev.get("raw") is None:
                lines.append(Line(f"  {describe(ev)} (determined by the rules)", "dim"))
            lines += self._narrate(done)
        return lines + self._rederive()

    def _append(self, ev: Event) -> list[tuple[RaceState, Turn]]:
        if self.lease is not None:
            self.lease.check()
        state = self.proj.state
        closed = self._closed_list()
        holder: list[tuple[int, Projection]] = []

        def do() -> None:
            holder.append(self.log.append(self.race, ev, self.proj))

        done = _completing(state, do)
        seq, self.proj = holder[0]
        self.closed_before[seq] = closed  # undo restores them: the state without the event is the state before it
        return [(self.proj.state, t) for t in done]

    def _reload(self, err: HeatlogError) -> list[Line]:
        self.proj = self.log.project(self.race)
        lines = [Line(error_text(err), "error")]
        if isinstance(err, ConflictError) and self.lease is not None and not self.lease.held:
            self.quit = True
            return lines
        lines.append(Line("the race was reloaded from the database; answer again", "info"))
        self._d = advance(self.proj.state)
        self._mark_known(self._d)
        return lines

    def _rederive(self) -> list[Line]:
        """Derive the next question; append what the rules determine (auto) until a real question is open."""
        lines: list[Line] = []
        for _ in range(1000):
            d = advance(self.proj.state, self._closed())
            self._d = d
            lines += self._notes(d)
            auto = d.question.auto
            if auto is None:
                break
            try:
                done = self._append(dict(auto))
            except StoreError as err:
                return lines + self._reload(err)
            lines.append(Line(f"  {describe(auto)} (determined by the rules)", "dim"))
            lines += self._narrate(done)
        return lines

    def _notes(self, d: _Derived) -> list[Line]:
        lines = self._narrate(d.turns)
        v = d.view
        for key, line in d.notes:
            if key not in self.said:
                self.said.add(key)
                lines.append(line)
        for name in v.hall_of_fame:
            if ("hof", name) not in self.said:
                self.said.add(("hof", name))
                place = v.hall_of_fame.index(name) + 1
                lines.append(Line(f"{name} finishes {_ordinal(place)} (round {v.finish_rounds.get(name)})", "outcome"))
        if v.phase == "over":
            if ("over",) not in self.said:
                self.said.add(("over",))
                lines += self._results(v)
            return lines
        if v.phase == "race" and ("round", v.round) not in self.said:
            self.said.add(("round", v.round))
            lines += self._round_header(v)
        t = v.turn
        if t is not None and t.sub >= 5 and not t.cluttered and ("move", t.round, t.car) not in self.said:
            self.said.add(("move", t.round, t.car))
            lines.append(Line(_move_line(v, t), "info"))
        return lines

    def _narrate(self, turns: list[tuple[RaceState, Turn]]) -> list[Line]:
        out = []
        for state, t in turns:
            key = (t.round, t.car)
            if key in self.narrated:
                continue
            self.narrated.add(key)
            out.append(Line("→ " + narrate_turn(state, t), "outcome"))
        return out

    def _round_header(self, s: RaceState) -> list[Line]:
        adr = ", ".join(s.adrenaline) or "-"
        lines = [
            Line(f"── round {s.round} ── order: {' > '.join(s.order)} · adrenaline: {adr} (# 2.2, 6.1)", "head"),
        ]
        from .views.board import track_strip

        lines += [Line(x, "board-strip") for x in track_strip(s) if x.strip()]
        for name in s.standings():
            car = s.cars[name]
            if name in s.hall_of_fame:
                continue
            lane = "a" if car.lane == 1 else "b"
            hand = f", hand {_hand(car)}" if car.hand is not None else ""
            lines.append(
                Line(
                    f"  {name}: space {s.track.space_of(car.progress)}{lane}, lap {s.lap_of(car)}/{s.laps}, "
                    f"gear {car.gear}, Engine {car.engine}{hand}",
                    "",
                )
            )
        return lines

    def _results(self, s: RaceState) -> list[Line]:
        hof = ", ".join(f"{i}. {n} (round {s.finish_rounds.get(n)})" for i, n in enumerate(s.hall_of_fame, 1))
        return [Line(f"race over — Hall of Fame: {hof} (# 16.8)", "head")]

    # ---- corrections and commands

    def undo(self) -> list[Line]:
        """Withdraw the last answer: a closed optional step reopens, or the last entry is retracted (and the
        entries the rules derived from it)."""
        closed = self._closed_list()
        if closed:
            _, _, step = closed.pop()
            self._set_closed(closed)
            lines = [Line(f"undone: {'done reacting' if step == 5 else 'no discard'}", "info")]
            self._d = advance(self.proj.state, self._closed())
            return lines
        gone: list[Entry] = []
        reopened: list[int] = []
        restore: list[tuple[int, str, int]] = []
        try:
            while True:
                entries = self.proj.effective.entries
                if len(entries) <= 1:
                    raise IllegalEvent("nothing to undo: only the race set-up is left")
                gone.append(entries[-1])
                restore = list(self.closed_before.get(entries[-1].seq, []))
                _, self.proj = self.log.retract_last(self.race, "undo at the recorder")
                while True:
                    d = advance(self.proj.state, _closed_map(restore))
                    if d.question.auto is None or not restore:
                        break
                    reopened.append(restore.pop()[2])  # the determined event followed an Enter: reopen that step
                if d.question.auto is None:
                    break
        except StoreError as err:
            return self._reload(err)
        except HeatlogError as err:
            if not gone:
                return [Line(error_text(err), "error")]
            restore = []
            d = advance(self.proj.state)
        self._set_closed(restore)
        self._d = d
        v = d.view
        done = {(t.round, t.car) for t in v.turns}
        self.narrated = {k for k in self.narrated if k[0] < v.round or k in done}
        self.said = set()
        self._mark_known(d)
        typed = [e for e in gone if e.event.get("raw") is not None] or gone
        what = "; ".join(describe(e.event) for e in reversed(typed))
        if reopened:
            what += "; " + "; ".join("done reacting" if x == 5 else "no discard" for x in reopened)
        return [
            Line(f"undone: {what} (event {typed[-1].seq} retracted; the original stays in the log)", "info"),
            Line(self.status(), "dim"),
        ]

    def status(self) -> str:
        """Where the race is now, in one line (shown after an undo)."""
        v = self.view
        if v.phase != "race":
            return f"now: {v.phase}"
        q = self.question
        car = v.cars.get(q.car or "")
        where = f"round {v.round}, step {waiting_for(v).step}"
        if car is None:
            return f"now: {where}"
        lane = "a" if car.lane == 1 else "b"
        return (
            f"now: {where}; {car.name} on space {v.track.space_of(car.progress)}{lane}, gear {car.gear}, "
            f"Engine {car.engine}, hand {_hand(car)}"
        )

    def note(self, text: str, raw: str) -> list[Line]:
        if not text:
            return [Line("note what? e.g. note Bob's cards were knocked over", "error")]
        v = self.view
        ev = _ev("note", text=text[:2000], round=v.round, raw=raw)
        if self.question.car:
            ev["car"] = self.question.car
        keep = self._closed_list()
        try:
            validate_event(ev)
            self._append(ev)
        except StoreError as err:
            return self._reload(err)
        except HeatlogError as err:
            return [Line(error_text(err), "error")]
        if keep:
            self._set_closed(keep)
        return [Line(f"note recorded at round {v.round}", "info")]

    def help(self) -> list[Line]:
        q = self.question
        lines = []
        if q.hint:
            lines.append(Line(f"{q.prompt.strip()} {q.hint}", "info"))
        if q.default is not None:
            lines.append(Line(f"Enter = {q.default or 'done / none'}", "info"))
        lines += [
            Line("cards: 1 2 3 4, 0 5 (upgrades), h Heat, s Stress — '4 3 s' or '43s'", ""),
            Line("react: cN cooldown N, b boost (then its flips), a adrenaline move, ac adrenaline cooldown", ""),
            Line("commands: undo (take back the last answer), note TEXT, board, help, quit", ""),
        ]
        return lines


def _ordinal(n: int) -> str:
    return ORDINAL.get(n, f"{n}th")


def _move_line(s: RaceState, t: Turn) -> str:
    car = s.cars[t.car]
    step3 = t.speed - (1 if t.adrenaline_move else 0)
    if t.boosted and t.boost_card:
        from .engine.cards import VALUE

        step3 -= VALUE.get(t.boost_card, 0)
    return (
        f"{t.car} plays {played_words(t)}: speed {step3}, moves {t.moved} "
        f"to space {s.track.space_of(t.start + t.moved) if t.moved else s.track.space_of(t.start)}"
        f" (Engine {car.engine})"
    )


# --------------------------------------------------------------------------------------------- set-up (--new)


@dataclass(slots=True)
class NewRace:
    """The set-up questions of ``heatlog record --new``: track, cars, variant, handicap, mode, grid."""

    answers: dict[str, Any] = field(default_factory=dict)
    # # 17.2: experienced drivers are declared before the grid is randomised.
    STEPS: tuple[str, ...] = ("track", "cars", "variant", "handicap", "mode", "grid")

    @property
    def step(self) -> str | None:
        for s in self.STEPS:
            if s not in self.answers:
                return s
        return None

    def prompt(self) -> str:
        return {
            "track": "track (usa, great-britain, france, italy, or a track file) [usa]: ",
            "cars": "cars, NAME:COLOUR each, e.g. Ann:red Bob:blue (2–6): ",
            "variant": "variant: standard or one-lap [standard]: ",
            "handicap": "experienced drivers, 5 Engine Heat (# 17.2) (Enter = none): ",
            "mode": "mode: table (hands hidden) or open (every card entered) [table]: ",
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
            return f"undone: {done[-1]}"
        try:
            if step == "track":
                from .tracks import load_track_data

                data = load_track_data(s or "usa")
                self.answers["track"] = s or "usa"
                laps = f"{data['laps']} lap{'s' if data['laps'] > 1 else ''}"
                return f"{data['name']}: {data['spaces']} spaces, {laps}, {len(data['corners'])} corners"
            if step == "cars":
                cars = []
                for spec in s.replace(",", " ").split():
                    name, sep, colour = spec.partition(":")
                    if not name or not sep or not colour:
                        raise MalformedInput(f"{spec!r}: write NAME:COLOUR, e.g. Ann:red")
                    cars.append({"name": name, "colour": colour})
                names = [c["name"] for c in cars]
                if not 2 <= len(cars) <= 6:
                    raise MalformedInput(f"a base race has 2 to 6 cars, not {len(cars)} (# A14)")
                if len(set(names)) != len(names):
                    raise MalformedInput("every car needs its own name")
                validate_event(_ev("grid_set", order=names))
                self.answers["cars"] = cars
                return None
            if step == "variant":
                v = s.lower() or "standard"
                if v not in ("standard", "one-lap"):
                    raise MalformedInput("standard or one-lap (# 17.1)")
                self.answers["variant"] = v
                return None
            if step == "handicap":
                names = [c["name"] for c in self.answers["cars"]]
                chosen = []
                for tok in s.replace(",", " ").split():
                    hits = [n for n in names if n.lower() == tok.lower()]
                    if not hits:
                        raise MalformedInput(f"{tok!r} is not a car of this race ({', '.join(names)})")
                    chosen.append(hits[0])
                self.answers["handicap"] = chosen
                return ("handicap: " + ", ".join(chosen) + " start with 5 Heat on the Engine") if chosen else None
            if step == "mode":
                m = s.lower() or "table"
                if m not in ("table", "open"):
                    raise MalformedInput("table or open")
                self.answers["mode"] = m
                return None
            if step == "grid":
                names = [c["name"] for c in self.answers["cars"]]
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
        from .setup import start_race

        a = self.answers
        return start_race(
            log,
            track=a["track"],
            cars=a["cars"],
            mode=a["mode"],
            variant=None if a["variant"] == "standard" else a["variant"],
            handicap=a["handicap"],
            grid=a["grid"],
        )


# --------------------------------------------------------------------------------------------- the prompt loop

STYLES = {
    "error": "bold red",
    "outcome": "bold",
    "info": "cyan",
    "dim": "dim",
    "head": "bold magenta",
    "board-strip": "",
    "": "",
}


def show(console: Any, session: Session | None, lines: list[Line]) -> None:
    for line in lines:
        if line.style == "board" and session is not None:
            from .views.board import render_state

            render_state(console, session.view, race=session.race)
            continue
        console.print(line.text, style=STYLES.get(line.style, ""), markup=False, highlight=False, soft_wrap=True)


def _readline(options: Callable[[], tuple[str, ...]]) -> None:
    """Line editing, history and Tab completion of the current question's answers and the commands."""
    try:
        import readline
    except ImportError:  # pragma: no cover - not on every platform
        return

    def complete(text: str, state: int) -> str | None:
        words = [w for w in (*options(), *COMMANDS) if w.startswith(text.lower())]
        return words[state] if state < len(words) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" ,")
    readline.parse_and_bind("tab: complete")


def run(session: Session, console: Any, input_fn: Callable[[str], str] = input) -> int:
    """Ask until the race is over or the host leaves. Every answer is committed before the next question."""
    show(console, session, session.start_lines())
    over_at_start = session.question.kind == "over"
    while True:
        q = session.question
        if q.kind == "over" and over_at_start:
            return 0  # nothing recorded here: just the results
        try:
            text = input_fn(q.prompt)
        except (EOFError, KeyboardInterrupt):
            console.print(f"\n{SAVED}", style="cyan", markup=False, highlight=False)
            return 0
        if q.kind == "over" and text.strip().lower() in ("", "quit", "exit", "leave"):
            return 0  # the last answer stands (undo, note, board and help still work at this prompt)
        show(console, session, session.answer(text))
        if session.quit:
            return 0


def new_race(log: RaceLog, console: Any, input_fn: Callable[[str], str] = input) -> int | None:
    """Ask the set-up questions; create the race. None if the host left before the end."""
    wiz = NewRace()
    console.print("new race — set-up (undo goes back one question)", style="bold magenta", markup=False)
    while wiz.step is not None:
        try:
            text = input_fn(wiz.prompt())
        except (EOFError, KeyboardInterrupt):
            console.print("\nno race was created", style="cyan", markup=False)
            return None
        if text.strip().lower() in ("quit", "exit"):
            console.print("no race was created", style="cyan", markup=False)
            return None
        msg = wiz.answer(text)
        if msg:
            console.print(msg, style="bold red" if msg.startswith("error") else "cyan", markup=False, soft_wrap=True)
    return wiz.create(log)


def record(
    log: RaceLog,
    *,
    race: int | None = None,
    new: bool = False,
    force: bool = False,
    console: Any = None,
    input_fn: Callable[[str], str] = input,
) -> int:
    """``heatlog record``: open (or create) the race, take its lease, run the session. Returns the exit code."""
    from rich.console import Console

    con = console or Console(highlight=False)
    if new and race is not None:
        raise MalformedInput("--new starts a new race: leave out --race")
    if new:
        made = new_race(log, con, input_fn)
        if made is None:
            return 0
        rid = made
    else:
        if race is None and log.store.latest_race() is None:
            raise MalformedInput(f"no races in {log.path} yet: start one with heatlog record --new")
        rid = log.resolve(race)
    lease = Lease(log, rid)
    notice = lease.acquire(force=force)
    try:
        if notice:
            con.print(notice, style="cyan", markup=False)
        session = Session(log, rid, lease=lease, fresh=new)
        _readline(lambda: session.question.options)
        return run(session, con, input_fn)
    except KeyboardInterrupt:
        con.print(f"\n{SAVED}", style="cyan", markup=False)
        return 0
    finally:
        lease.release()
