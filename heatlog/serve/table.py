"""The served race: one recorder session driven by many phones, and what each of them may see.

No HTTP here (heatlog/serve/app.py is the web layer): a :class:`Table` takes submissions from a seat or the host
and answers with plain data. Every entry goes through the recorder's :class:`~heatlog.recorder.Session`, so
through ``RaceLog.append`` (schema, rules, then one durable transaction): the server asks the engine what the
race waits for and what is legal exactly as ``heatlog record`` does, and names no module (a module's questions
come with their own options and hints).

Steps 1-2 are simultaneous and private: each seat sends its gear and cards in one submission (a *plan*), held
in ``serve_plans`` until every car still to choose has one; then the gears are entered (the table sees them
together, # 3.1) and each car's cards are entered at its reveal, in round order (# 5.1). In an open race (the
"private hands" way, docs/table.md) the played cards are entered at step 2 from the plans, as the rules order
them.

Who answers what: a question about a car goes to its seat when a phone holds the seat, else to the host
screen (a car with no phone); questions about no car (the grid, a Legend card, the weather) go to the host.
"""

from __future__ import annotations

import re
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine import HeatlogError, RaceState, apply
from ..engine.decide import legal_gears, slipstream_status
from ..engine.errors import ConflictError, MalformedInput
from ..engine.module import car_cards, card_namer, turn_answer
from ..engine.redact import open_to_table
from ..engine.rules import check_plan
from ..engine.state import expand
from ..log.racelog import RaceLog
from ..recorder import Lease, Line, Session, error_text, parse_cards, race_cards
from ..views.board import car_labels, lap_text, spot_text
from ..views.narrate import narrate_turn
from ..views.replay_html import car_colour
from .seats import Plan, Seat, ServeStore

Event = dict[str, Any]

#: The cards every deck may hold, as typed (# 1.1): the buttons of a card picker, before a car's own cards (its
#: upgrades, # 18.2).
BASE_TOKENS = ("1", "2", "3", "4", "0", "5", "h", "s")
TOKEN_WORDS = {"h": "Heat", "s": "Stress", "H": "Heat", "S": "Stress"}
#: Kinds of the recorder's questions answered with cards (a picker of card buttons); a module's question inside a
#: turn says so itself (``TurnAnswer.cards``: a Scrap's cards, a Salvage's shuffle, # 18.12, 18.18).
CARD_KINDS = (
    *("reveal", "play", "flip", "discard", "draw", "setup_draw"),
    *("shuffle", "setup_shuffle"),  # an order top first, when it is known (Enter: unknown)
)


def _with_cards(kind: str) -> bool:
    """Whether a question of ``kind`` is answered with cards (the recorder's, or a module's in a turn)."""
    own = turn_answer(kind)
    return kind in CARD_KINDS or (own is not None and own.cards)


#: Words for the recorder's React and slipstream answers (the token is sent; a token not here shows as itself).
ANSWER_WORDS = {
    "b": "boost (1 Heat)",
    "a": "adrenaline move +1",
    "ac": "adrenaline cooldown",
    "ac0": "adrenaline bonus alone (cools nothing)",
    "p": "pay the Heat costs",
    "y": "yes",
    "n": "no",
    "dr": "draft",
    "f": "refresh",
}
#: The slipstream question's own words for its yes and no.
SLIPSTREAM_WORDS = {"y": "take the slipstream", "n": "no slipstream"}
#: The recorder's tokens with a number or cards after them: a button's words (``c2`` -> cool 2 Heat).
TOKEN_PATTERNS = (
    (re.compile(r"c(\d+)"), "cool {} Heat"),
    (re.compile(r"ac(\d+)"), "adrenaline cooldown {}"),
    (re.compile(r"r(\d+)"), "reduce {} Stress"),
    (re.compile(r"k(\d+)"), "super-cool {}"),
    (re.compile(r"play:(.+)"), "play {} directly"),
    (re.compile(r"play\+:(.+)"), "play {} directly, accelerated"),
    (re.compile(r"p:(.+)"), "pay the Heat of {}"),
    (re.compile(r"u:(.+)"), "leave the Heat of {} unpaid"),
)
STYLES = ("error", "outcome", "info", "warn", "dim")
#: A recorder line about a corner ahead or crossed (``as it stands: corner 1 (limit 4) at speed 9 costs 5 Heat``).
CORNER_LINE = re.compile(r"^\S+(?: as it stands| if it slipstreams)?: corner \d+ \(limit \d+\) at speed \d+")

#: The recorder's keyboard words (a terminal's Enter, y/n, its typing tips), in the one place where the phones'
#: and the host screen's words are made from them (:func:`tap_words`, :func:`shown_lines`): a page is tapped,
#: not typed. Each pattern is cut from a question; the group it names, if any, is the words of the button that
#: sends the empty answer (what Enter did): ``or Enter if unknown`` -> a button "order unknown".
KEYBOARD = (
    (re.compile(r",? or Enter if unknown"), "order unknown"),
    (re.compile(r"\s*\((?:[^()]*; )?Enter = ([^()]*)\)"), None),  # (Enter = none), (hand 1 2; Enter = none)
    (re.compile(r",? Enter = (\w[\w ]*)"), None),  # ", Enter = keep"
    (re.compile(r"\s*\[Enter\]"), "done"),
    (re.compile(r"\s*\[[^\]]*\]"), ""),  # "[1]": the default shown as a terminal does
    (re.compile(r"\s*\(y/n\)"), ""),
    # the typed line's notation: a reveal's "(+ Stress flips, React, d CARDS; - = nothing more)", "(y = 2, …, n)"
    (re.compile(r"\s*\([^()]*(?:\bCARDS\b| = )[^()]*\)"), ""),
    (re.compile(r"\s*\(hand [^()]*\)"), ""),  # an open hand: its seat's alone (the phone shows it above)
)
#: The recorder's lines for a keyboard only: a typing tip (the "how to type it" under the typed line says it).
KEYBOARD_LINES = re.compile(r"^tip: ")


def tap_words(prompt: str) -> tuple[str, str | None]:
    """A recorder question in a page's words, without its keyboard words (:data:`KEYBOARD`), and the words of
    the button that sends the empty answer (None: the question says none)."""
    text, enter = prompt.strip(), None
    for pattern, label in KEYBOARD:
        m = pattern.search(text)
        if m is None:
            continue
        if label is None:
            enter = m[1].strip()
        elif label:
            enter = label
        text = pattern.sub("", text)
    return text.rstrip(":").strip(), enter


def _nth(n: int) -> str:
    """A place in words: 1st, 2nd, 3rd, 4th, 11th."""
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def answer_words(token: str, kind: str = "") -> str:
    """A button's words for one of the recorder's answers (``c2`` -> cool 2 Heat; ``y`` at the slipstream: take
    the slipstream, elsewhere yes)."""
    if kind == "slipstream" and token in SLIPSTREAM_WORDS:
        return SLIPSTREAM_WORDS[token]
    if kind == "slipstream" and token.isdecimal():  # how far, when the rules leave it open (# 20.12)
        return f"slipstream {token} spaces"
    if token in ANSWER_WORDS:
        return ANSWER_WORDS[token]
    if token.isdecimal():
        return token
    for pattern, words in TOKEN_PATTERNS:
        m = pattern.fullmatch(token)
        if m:
            return words.format(m[1])
    return token


@dataclass(slots=True)
class Outcome:
    """What a submission did: ``ok`` (recorded or held), the lines to show the submitter, an error in words."""

    ok: bool
    lines: list[tuple[str, str]] = field(default_factory=list)  # (style, text)
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "lines": [list(x) for x in self.lines], "error": self.error}


def _lines(lines: list[Line]) -> list[tuple[str, str]]:
    """The recorder's lines a page shows: its styles, never a keyboard's tip (:data:`KEYBOARD_LINES`)."""
    shown = [(x.style, x.text.strip()) for x in lines if x.style in STYLES and x.text.strip()]
    return [x for x in shown if not KEYBOARD_LINES.match(x[1])]


def _errors(lines: list[Line]) -> list[str]:
    return [x.text for x in lines if x.style == "error"]


class Table:
    """One race at the table, served: the recorder session, the seats, the plans, the public narration."""

    def __init__(self, log: RaceLog, race: int, store: ServeStore, *, force: bool = False) -> None:
        self.log = log
        self.race = race
        self.store = store
        self.lock = threading.RLock()
        self.lease = Lease(log, race)
        self.notice = self.lease.acquire(force=force)  # one recorder per race (a terminal one is refused, # lease)
        self.session = Session(log, race, lease=self.lease)
        self.private = store.private(race)
        state = self.session.view
        self.names = [n for n, c in state.cars.items() if not c.legend]
        self.seats: dict[str, Seat] = store.seats(race, self.names)
        self.version = 0
        self.on_change: Callable[[], None] | None = None
        self.narration: deque[tuple[int, str, str]] = deque(maxlen=40)
        self.said: dict[str, list[tuple[str, str]]] = {}  # what the last answer for a car showed (its seat, the host)
        self.told: dict[str, str] = {}  # a seat's phone told that the host acted for it (until the seat acts)
        self.public_lines: list[tuple[str, str]] = []  # the last answer's public consequences (table mode)
        self._pub_state: RaceState | None = None
        self._shorts: dict[str, str] | None = None
        self.just: list[str] = []  # what the latest change entered, in words (the shared screen's "just now")
        self._pub_events: list[Event] = []
        self._public_fold(narrate=False)
        self.head = self._head()
        self._drive()

    # ---- bookkeeping

    def _head(self) -> int:
        return self.log.store.head(self.race)[0]

    def close(self) -> None:
        self.lease.release()

    def _changed(self) -> None:
        self.head = self._head()
        self._public_fold(narrate=True)
        self.version += 1
        if self.on_change is not None:
            self.on_change()

    def refresh(self) -> bool:
        """Pick up entries written by another program (``heatlog add``, ``heatlog undo``): the store is the
        truth; the session is rebuilt from it. True when something changed."""
        with self.lock:
            if self._head() == self.head:
                return False
            self.session = Session(self.log, self.race, lease=self.lease)
            self._drive()
            self._changed()
            return True

    def _public_events(self) -> list[Event]:
        events = [e.event for e in self.session.proj.effective.entries]
        if self.session.view.mode == "open" and self.private:
            return open_to_table(events)  # what a table sees of an open log (engine/redact.py)
        return events

    def _public_fold(self, *, narrate: bool) -> None:
        """Fold what the table may see, narrating each turn as it completes (never a hidden card)."""
        events = self._public_events()
        n = len(self._pub_events)
        if self._pub_state is None or events[:n] != self._pub_events:
            if narrate and self._pub_state is not None:  # an entry went: undone (a phone, the host, heatlog undo)
                self.just = ["a correction: the latest entry was taken back (the original stays in the log)"]
            state: RaceState | None = None
            for ev in events:
                state = apply(state, ev)
            self._pub_state, self._pub_events = state, events
            if not narrate:
                self.narration.clear()
                if state is not None:
                    self.narration.extend((t.round, t.car, narrate_turn(state, t)) for t in state.turns)
            return
        state = self._pub_state
        self.just = self._words(events[n:]) or self.just
        for ev in events[n:]:
            old, k = state.turns, len(state.turns)
            apply(state, ev)
            done = old[k:] if state.turns is old else old[k:] + state.turns
            self.narration.extend((t.round, t.car, narrate_turn(state, t)) for t in done)
        self._pub_events = events

    def _words(self, events: list[Event]) -> list[str]:
        """What the entries just made say, as the table sees them (public events: never a hidden card), for
        the shared screen's "just now" line; the last few, notes and entries without words left out."""
        from ..recorder import describe

        defs = race_cards(self.session.state)
        out = []
        for ev in events:
            kind = str(ev.get("type", ""))
            words = describe(ev, defs) if kind not in ("note", "race_started") else ""
            if words and words != kind.replace("_", " "):
                out.append(self._named(words))
        return out[-4:]

    # ---- who is who

    def seat_of(self, secret: str, device: str | None) -> str | None:
        """The car a seat secret (and its phone's device token) acts for, or None."""
        for name, seat in self.seats.items():
            if seat.secret == secret and seat.device is not None and seat.device == device:
                return name
        return None

    def join(self, car: str) -> str:
        with self.lock:
            device = self.store.join(self.race, car)
            self.seats = self.store.seats(self.race, self.names)
            self.version += 1
            if self.on_change is not None:
                self.on_change()
            return device

    def has_phone(self, car: str) -> bool:
        seat = self.seats.get(car)
        return seat is not None and seat.device is not None

    def answerer(self, car: str | None) -> str:
        """``seat`` when a phone holds the car's seat, else ``host``."""
        return "seat" if car is not None and self.has_phone(car) else "host"

    # ---- steps 1-2: the private plan

    def plan_wanted(self, car: str) -> bool:
        v = self.session.view
        q = self.session.question
        return v.phase == "race" and q.kind == "gear" and car in v.pending

    def submit_plan(self, car: str, cards_text: str, *, who: str = "seat") -> Outcome:
        """Gear and cards in one submission: the gear is the number of cards (# 4.1). Held, not entered."""
        with self.lock:
            self.refresh()
            if not self.plan_wanted(car):
                return Outcome(False, error=f"{car} has nothing to choose now: the race waits for {self.waits()}")
            v = self.session.view
            state = self.session.state
            defs = race_cards(state)  # the race's cards beyond the base, by token
            try:
                cards = parse_cards(cards_text, defs)
            except HeatlogError as err:
                return Outcome(False, error=error_text(err))
            gears = legal_gears(v, v.cars[car])
            if len(cards) not in gears:
                return Outcome(
                    False,
                    error=f"{len(cards)} card{'s' if len(cards) != 1 else ''} means gear {len(cards)}: "
                    f"{car} may shift to {', '.join(map(str, gears))} now (gear {v.cars[car].gear}, "
                    f"Engine {v.cars[car].engine}; # 3.1–3.4)",
                )
            try:  # the reveal's own check, on what the race knows of this car now (# 4.1, 4.2, 13.1)
                check_plan(v, car, len(cards), cards)
            except HeatlogError as err:
                return Outcome(False, error=f"{car} cannot play these cards: {err.message}")
            text = " ".join(self._token(c, defs) for c in cards)
            self.store.put_plan(self.race, Plan(v.round, car, len(cards), text))
            words = self._card_words(text)
            lines = [("info", f"held: gear {len(cards)}, cards {words} — nobody sees them until the reveal")]
            self._tell(who, car, f"the host chose for you: gear {len(cards)}, cards {words}")
            self._drive()
            self._changed()
            return Outcome(True, lines)

    def take_back_plan(self, car: str) -> Outcome:
        with self.lock:
            v = self.session.view
            if not self.plan_wanted(car) or self.store.plan(self.race, v.round, car) is None:
                return Outcome(False, error="no plan of yours is waiting: the gears were entered already")
            self.store.drop_plan(self.race, v.round, car)
            self._changed()
            return Outcome(True, [("info", "plan taken back: choose again")])

    @staticmethod
    def _token(card: str, defs: Any) -> str:
        if defs is not None and card in defs:
            return str(defs[card]["short"])
        return card.lower() if card in ("H", "S") else card

    def _drive(self) -> None:
        """Enter what the held plans answer: the gears once every car still to choose has one, then each car's
        cards when its turn reveals them (or at step 2 in an open race). Stops at the first question a plan
        does not answer."""
        for _ in range(100):
            v, q = self.session.view, self.session.question
            if v.phase != "race" or q.car is None:
                return
            if q.kind == "gear":
                plans = {c: self.store.plan(self.race, v.round, c) for c in v.pending}
                if any(p is None for p in plans.values()):
                    return
                plan = plans[q.car]
                assert plan is not None
                lines = self.session.answer(str(plan.gear))
                if _errors(lines):  # (checked at the plan: only a race changed meanwhile gets here)
                    self.store.drop_plan(self.race, v.round, q.car)
                    self.said[q.car] = _lines(lines)
                    return
                continue
            if q.kind in ("reveal", "play"):
                plan = self.store.plan(self.race, v.round, q.car)
                if plan is None or not plan.cards or plan.error:
                    return
                lines = self.session.answer(plan.cards)
                errs = _errors(lines)
                if errs:
                    self.store.put_plan(self.race, Plan(v.round, q.car, plan.gear, None, errs[0]))
                    self.said[q.car] = _lines(lines)
                    return
                self._said(q.car, lines)
                continue
            return

    def _said(self, car: str | None, lines: list[Line]) -> None:
        shown = _lines(lines)
        if car is not None:  # its seat sees what its answer did, not what the rules then did for another car
            others = tuple(n for n in self.session.view.cars if n != car)
            self.said[car] = [x for x in shown if not x[1].lstrip("→✓ ").startswith(others)]
        # in table mode every consequence is public; with private hands only the corner lines (speed, Heat, the
        # spinout warning: # 10.1), which name no card, never a hand or a draw
        public = [x for x in shown if x[0] != "dim"]
        if self.private:
            public = [x for x in public if CORNER_LINE.search(x[1]) and "hand" not in x[1] and "draws" not in x[1]]
        self.public_lines = public

    # ---- answering the question now

    def answer(self, who: str, car: str | None, text: str, *, at: str | None = None) -> Outcome:
        """An answer to the open question, as the recorder takes it (its notation). ``who`` is ``seat`` (acting
        for ``car``) or ``host``; a seat answers only its own car's questions, the host those of cars with no
        phone and of no car. ``at``: the question the screen that sent it showed (``controls``' "at",
        :meth:`moment`): an answer from a screen the race has moved past (a double tap, a stale page) is refused,
        never taken as the answer to the next question."""
        with self.lock:
            self.refresh()
            q = self.session.question
            v = self.session.view
            if v.phase == "over":
                return Outcome(False, error="the race is over: nothing more to record")
            if at is not None and at != self.moment():
                return Outcome(
                    False,
                    error=f"not entered: that tap was on an earlier screen (the race has moved on since); "
                    f"it waits for {self.waits()}",
                )
            if q.kind == "gear":
                return Outcome(False, error="gears and cards are chosen together: use the plan")
            if who == "seat" and q.car != car:
                whose = q.car or "the host"
                return Outcome(False, error=f"not {car}'s turn: the race waits for {whose} ({self.waits()})")
            if who == "host" and self.answerer(q.car) != "host" and car != q.car:
                # a phone's car: the host acts for it only when it names the car (the player is away)
                return Outcome(False, error=f"{q.car}'s phone answers this: the race waits for {self.waits()}")
            text = text[:2000]
            word = text.strip().split(" ", 1)[0].lower()
            if word in ("undo", "note", "board", "help", "quit", "exit", "?"):
                return Outcome(False, error=f"{word!r} is not an answer here: use the buttons")
            head = self._head()
            lines = self.session.answer(text)
            errs = _errors(lines)
            if errs:
                return Outcome(False, _lines(lines), errs[0])
            self._said(q.car, lines)
            # what it entered in words (never the notation typed: "- y -"); an answer that entered nothing (Enter
            # closing React) by its button's words
            entered = self.own_last_entry(q.car) if q.car is not None and self._head() != head else None
            said = entered or tap_words(q.prompt)[1] or answer_words(text.strip(), q.kind) or "done"
            self._tell(who, q.car, f"the host answered for you: {said}")
            self._drive()
            self._changed()
            return Outcome(True, _lines(lines))

    def moment(self) -> str:
        """The question open now, as a screen names it: the log's head, the question's kind and car. An answer
        that records nothing (Enter closing React) leaves the head but not the question: a second tap on "done
        reacting" must not answer the discard."""
        q = self.session.question
        return f"{self._head()}/{q.kind}/{q.car or ''}"

    def _tell(self, who: str, car: str | None, text: str) -> None:
        """Keep the seat's phone told when the host acted for its car; a seat's own act clears it."""
        if car is None:
            return
        if who == "host" and self.has_phone(car):
            self.told[car] = text
        elif who == "seat":
            self.told.pop(car, None)

    # ---- corrections

    def last_typed(self) -> Event | None:
        """The last entry someone answered (not determined by the rules, not a note)."""
        for e in reversed(self.session.proj.effective.entries):
            if e.event.get("raw") is not None and e.event.get("type") != "note":
                return e.event
        return None

    def own_last_entry(self, car: str) -> str | None:
        """What "take back my last entry" would take back for ``car``, in words, or None when it would be refused
        (nothing of this car's is the latest answer, or the race is over): the entries of its last answer (those
        typed with the same words, the rules' own entries between them left out)."""
        if self.session.view.phase == "over":
            return None
        last = self.last_typed()
        if last is None or last.get("car") != car:
            return None
        answer: list[Event] = []
        for e in reversed(self.session.proj.effective.entries):
            ev = e.event
            if ev.get("raw") is None or ev.get("type") == "note":
                continue
            if ev.get("raw") != last.get("raw") or ev.get("car") != car:
                break
            answer.append(ev)
        from ..recorder import describe

        defs = race_cards(self.session.state)
        return self._named("; ".join(describe(ev, defs) for ev in answer[::-1]))

    def take_back(self, car: str) -> Outcome:
        """A seat takes back its own last entry, while nobody has answered anything since."""
        with self.lock:
            self.refresh()
            if self.plan_wanted(car) and self.store.plan(self.race, self.session.view.round, car) is not None:
                return self.take_back_plan(car)
            if self.session.view.phase == "over":
                return Outcome(False, error="the race is over: only the host can reopen it")
            last = self.last_typed()
            if last is None or last.get("car") != car:
                who = "nobody" if last is None else str(last.get("car") or "the host")
                return Outcome(
                    False, error=f"your last entry is no longer the latest ({who} answered since): ask the host to undo"
                )
            round_ = self.session.view.round
            lines = self.session.undo()
            errs = _errors(lines)
            if errs:
                return Outcome(False, _lines(lines), errs[0])
            self._reset_plan(car, round_, last)
            self._changed()
            return Outcome(True, _lines(lines))

    def _reset_plan(self, car: str | None, round_: int, gone: Event) -> None:
        """A plan is used once: an entry it made, taken back, is chosen again (never re-entered by itself)."""
        if car is None:
            return
        if gone.get("type") == "gear_chosen":
            for r in (round_, self.session.view.round):
                self.store.drop_plan(self.race, r, car)
        elif gone.get("type") in ("cards_revealed", "cards_played"):
            plan = self.store.plan(self.race, self.session.view.round, car)
            if plan is not None:
                self.store.put_plan(self.race, Plan(plan.round, car, plan.gear, None, None))

    def host_undo(self, reason: str, *, reopen: bool = False) -> Outcome:
        """Retract the latest entry with a reason, as ``heatlog undo --reason`` does."""
        with self.lock:
            self.refresh()
            reason = reason.strip()
            if not reason:
                return Outcome(False, error="say why (a reason): it is kept in the log with the correction")
            proj = self.session.proj
            entries = proj.effective.entries
            if len(entries) <= 1:
                return Outcome(False, error="nothing to undo: only the race set-up is left")
            if proj.state.phase == "over" and not reopen:
                return Outcome(False, error="the race is finished: undo reopens it (tick 'reopen' to do so)")
            target = entries[-1]
            round_ = self.session.view.round
            try:
                seq, _ = self.log.retract_last(self.race, reason)
            except HeatlogError as err:
                return Outcome(False, error=error_text(err))
            self.session = Session(self.log, self.race, lease=self.lease)
            self._reset_plan(target.event.get("car"), round_, target.event)
            self._drive()
            self._changed()
            from ..recorder import describe

            return Outcome(
                True,
                [
                    (
                        "info",
                        f"undone: {describe(target.event)} (event {target.seq}, retracted by event {seq}: {reason})",
                    )
                ],
            )

    def note(self, text: str) -> Outcome:
        with self.lock:
            self.refresh()
            lines = self.session.answer("note " + text[:2000])
            errs = _errors(lines)
            if errs:
                return Outcome(False, error=errs[0])
            self._changed()
            return Outcome(True, _lines(lines))

    # ---- what each may see

    def waits(self) -> str:
        """What the race waits for, in public words (never a planned card)."""
        v, q = self.session.view, self.session.question
        if v.phase == "over":
            return "nothing: the race is over"
        if q.kind == "gear":
            chosen = [c for c in v.pending if self.store.plan(self.race, v.round, c) is not None]
            still = [c for c in v.pending if c not in chosen]
            return f"gears and cards from {', '.join(still)}" + (f" ({', '.join(chosen)} ready)" if chosen else "")
        car = q.car or ""
        words = {
            "react": f"{car}: React (cool, boost, adrenaline…) or end the turn",
            "slipstream": f"{car}: slipstream or not",
            "discard": f"{car}: discard or not",
        }
        flipped = re.search(r"'s ([^:]*):?\s*$", q.prompt)
        if q.kind == "flip" and flipped:
            words["flip"] = f"{car} flips a card for the {flipped[1]} (# 14.1)"
        if q.kind in words:
            return words[q.kind]
        # the recorder's prompt without its keyboard words ("(Enter = none)", "[1]", "or Enter if unknown", "(y/n)")
        # nor an open hand (its seat's alone), its cards by their names
        return self._named(tap_words(q.prompt)[0]) or q.kind

    def public(self) -> dict[str, Any]:
        """What anyone may see: the board, whose turn, the narration. No hand, no plan (a spectator's view)."""
        v = self.session.view
        labels = car_labels(v)
        cars = []
        ranks = {n: i for i, n in enumerate(v.standings(), start=1)}
        for i, (name, c) in enumerate(v.cars.items()):
            finished = name in v.hall_of_fame
            cars.append(
                {
                    "name": name,
                    "label": labels[name],
                    "fill": car_colour(c.colour, i),
                    "space": v.track.space_of(c.progress),
                    "lane": c.lane,
                    "finished": finished,
                    "place": v.hall_of_fame.index(name) + 1 if finished else None,
                    "rank": ranks.get(name),
                    "legend": c.legend,
                    "gear": None if c.legend else c.gear,
                    "engine": None if c.legend else c.engine,
                    "hand_size": None if c.legend else c.hand_size,
                    "lap": lap_text(v, c),
                    "spot": spot_text(v, c),
                    "phone": self.has_phone(name),
                }
            )
        q = self.session.question
        turn_car = q.car if v.phase == "race" and q.kind != "gear" else None
        return {
            "version": self.version,
            "race": self.race,
            "track": v.track.name,
            "mode": "private hands" if self.private else f"{v.mode}",
            "phase": v.phase,
            "round": v.round,
            "order": list(v.order) if v.phase == "race" else [],
            "adrenaline": list(v.adrenaline) if v.phase == "race" else [],
            "waits": self.waits(),
            "turn": turn_car,
            "cars": cars,
            "narration": [list(x) for x in list(self.narration)[-12:]][::-1],
            "lines": [list(x) for x in self.public_lines],
            "just": list(self.just),
            "hall_of_fame": list(v.hall_of_fame) if v.phase == "over" else [],
        }

    def hand(self, car: str) -> list[str] | None:
        """A car's hand when the log knows it (an open race), for its own seat only."""
        hand = self.session.view.cars[car].hand
        return None if hand is None else expand(hand)

    def controls(self, who: str, car: str | None) -> list[dict[str, Any]]:
        """What ``who`` (``seat`` for ``car``, or ``host``) may do now: plan forms, the open question, or wait."""
        v, q = self.session.view, self.session.question
        state = self.session.state
        defs = race_cards(state)  # the race's cards beyond the base, by token
        if v.phase == "over":
            if who == "seat" and car in v.hall_of_fame:  # its place, on its own phone (# 16.1)
                return [
                    {"kind": "over", "text": f"The race is over: you finished {_nth(v.hall_of_fame.index(car) + 1)}"}
                ]
            return [{"kind": "over", "text": "The race is over"}]
        if v.phase != "race" and q.kind not in ("grid",) and q.car is None and who == "seat":
            return [{"kind": "wait", "text": f"the host enters {self.waits()}"}]
        out: list[dict[str, Any]] = []
        if q.kind == "gear":
            mine = [car] if who == "seat" and car is not None else list(v.pending)
            for name in mine:
                if name not in v.pending:
                    continue
                plan = self.store.plan(self.race, v.round, name)
                c = v.cars[name]
                if plan is not None:
                    if who == "host" and self.has_phone(name):
                        continue  # a phone's plan is its own: never on the shared screen
                    out.append(
                        {
                            "kind": "held",
                            "car": name,
                            "gear": plan.gear,
                            "cards": plan.cards,
                            "text": f"held: gear {plan.gear}, cards {self._card_words(plan.cards or '')}",
                        }
                    )
                    continue
                out.append(
                    {
                        "kind": "plan" if who == "seat" or not self.has_phone(name) else "away",
                        "car": name,
                        "gear": c.gear,
                        "engine": c.engine,
                        "gears": legal_gears(v, c),
                        "tokens": self._tokens(name, defs, hand=True),
                        "round": v.round,
                    }
                )
            if all(c["kind"] == "away" for c in out):
                done = who == "seat" and car in v.hall_of_fame  # # 16.1: it has finished
                out.insert(0, {"kind": "wait", "text": self._not_yours(car) if done else f"waiting for {self.waits()}"})
            return out
        away = who == "host" and q.car is not None and self.answerer(q.car) == "seat"  # the host may act for it
        answers = (who == "seat" and q.car == car) or (who == "host" and (away or self.answerer(q.car) == "host"))
        if not answers:
            if who == "host":
                return [{"kind": "wait", "text": "nothing for the host screen to enter now: the phones play"}]
            return [{"kind": "wait", "text": self._not_yours(car), "next": self._next(car)}]
        ctl: dict[str, Any] = {
            "kind": "away" if away else "question",
            "question": q.kind,
            "car": q.car,
            "prompt": self.waits(),
            "hint": q.hint,
            "enter": q.default if q.default is not None else None,
            "enter_label": tap_words(q.prompt)[1],  # what the recorder's Enter did, as a button's words
            "at": self.moment(),  # the question this screen asks: an answer from it says so (answer)
            "buttons": [],
            "said": [list(x) for x in self.said.get(q.car or "", [])],
        }
        if q.car is not None:
            plan = self.store.plan(self.race, v.round, q.car)
            if plan is not None and plan.error and q.kind in ("reveal", "play"):
                ctl["error"] = f"your cards were refused: {plan.error}"
        if _with_cards(q.kind) and q.car is not None:
            ctl["tokens"] = self._tokens(q.car, defs, hand=q.kind in ("reveal", "play", "discard"))
            if q.kind == "discard":  # # 11.1: Heat and Stress are never discarded: no button offers them
                ctl["tokens"] = [t for t in ctl["tokens"] if t[1] not in ("h", "s")]
            if q.kind in ("reveal", "play") and v.cars[q.car].gear:
                ctl["count"] = v.turn.gear if v.turn is not None and q.kind == "reveal" else v.cars[q.car].gear
            elif q.kind == "flip":
                ctl["count"] = 1
            elif q.kind in ("draw", "setup_draw"):
                m = re.search(r"draws \[?(\d+)", q.prompt)
                ctl["count"] = int(m[1]) if m else None
        elif q.several:
            shorts = self._short_names()  # several in one answer (# 20.2 tokens, # 18.5 a market: by their names)
            ctl["tokens"] = [[shorts.get(o, o), o] for o in q.options]
            ctl["empty"] = "tap them in order"  # tokens, not cards (the weather's road conditions, # 20.2)
        else:
            shorts = self._short_names()  # a draft's cards by their names (# 18.5)
            ctl["buttons"] = [[shorts.get(o) or self._named(answer_words(o, q.kind)), o] for o in q.options]
        if q.kind == "react" and q.car is not None:  # the recorder's one-line "-": nothing more this turn
            if slipstream_status(v, v.cars[q.car])[0]:  # # 8.1: open now, so "- -" declines it
                ctl["buttons"].append(["slipstream, end my turn (no discard)", "- y -"])
                ctl["buttons"].append(["no slipstream, end my turn (no discard)", "- -"])
            else:
                ctl["buttons"].append(["end my turn (no discard)", "- -"])
                # the one-line "- d 1 2": React done, then the discard (# 11.1: never Heat/Stress), upgrades by name
                ctl["discard"] = [t for t in self._tokens(q.car, defs, hand=True) if t[1] not in ("h", "s")]
        elif q.kind == "slipstream" and "n" in q.options:
            ctl["buttons"] += [["slipstream, end my turn (no discard)", "y -"], ["no slipstream, end my turn", "n -"]]
        return [ctl]

    def _not_yours(self, car: str | None) -> str:
        """A phone's words while the race waits for another: whose turn it is, what it waits for, and whether
        this car is next (the round's order, # 5.1)."""
        q, v = self.session.question, self.session.view
        if car is not None and car in v.hall_of_fame:  # # 16.1: it has crossed the line; the others race on
            nth = _nth(v.hall_of_fame.index(car) + 1)
            return f"You finished {nth}. The race goes on for the others: {self.waits()}."
        if q.car is None:
            text = f"The host screen enters {self.waits()}."
        else:
            text = f"{q.car}'s turn, not yours: {self.waits()}."
        return text + (" You are next." if self._next(car) else "")

    def _next(self, car: str | None) -> bool:
        """Whether ``car`` plays right after the car whose turn it is now, in this round's order (# 5.1)."""
        v, q = self.session.view, self.session.question
        if v.phase != "race" or car is None or q.car is None or q.kind == "gear":
            return False
        order = [n for n in v.order if n not in v.hall_of_fame]
        return q.car in order and car in order and order.index(car) == order.index(q.car) + 1

    def _tokens(self, car: str, defs: Any, *, hand: bool) -> list[list[str]]:
        """Card buttons for ``car``: [label, token]. Its hand when the log knows it (an open race), else every
        card a deck may hold (# 1.1) and the car's own cards (its upgrades, # 18.2)."""
        cards = self.hand(car) if hand else None
        if cards is not None:
            return [[self._label(c, defs), self._token(c, defs)] for c in cards]
        out = [[TOKEN_WORDS.get(t, t), t] for t in BASE_TOKENS]
        state = self.session.state
        if defs is not None:  # the car's own cards beyond the base (Module.car_cards: its upgrades, # 18.5)
            owned = car_cards(state, car)
            out += [[self._label(t, defs), str(defs[t]["short"])] for t in dict.fromkeys(owned) if t in defs]
        return out

    def _label(self, card: str, defs: Any) -> str:
        """A card on a button or in a hand: an upgrade by its name and value(s) as the narration names it
        (``Body 5``, ``Brakes 2/4``: two Bodies differ), never its code (``U53``); Heat and Stress in words."""
        if defs is not None and card in defs:
            namer = card_namer(self.session.state)
            return namer(self.session.state, card) if namer is not None else str(defs[card]["name"])
        return TOKEN_WORDS.get(card, card)

    def _short_names(self) -> dict[str, str]:
        """The race's cards beyond the base by the short names the recorder types and shows them by, to their
        names (``body5`` -> ``Body 5``; ``heat``, a Heat card in the Garage's market)."""
        if self._shorts is None:
            defs = race_cards(self.session.state)
            self._shorts = {str(d["short"]): self._label(t, defs) for t, d in (defs or {}).items()}
            if self._shorts:
                self._shorts["heat"] = "Heat"
        return self._shorts

    def _card_words(self, tokens: str) -> str:
        """Cards as typed (``3 s cool3``) as the buttons name them (``3, Stress, Cooling system 3``)."""
        shorts = self._short_names()
        return ", ".join(shorts.get(t) or TOKEN_WORDS.get(t, t) for t in tokens.split())

    def _named(self, text: str) -> str:
        """A recorder's text with the race's cards by their names, not their short names (``picks one of body5
        rpm1heat`` -> ``picks one of Body 5, R.P.M. 1``)."""
        shorts = self._short_names()
        if not shorts:
            return text
        words = text.split(" ")
        out: list[str] = []
        for w in words:
            name = shorts.get(w)
            if name is not None and out and out[-1] in shorts.values():
                out[-1] += ","  # a list of cards: commas between names of several words
            out.append(name if name is not None else w)
        return " ".join(out)

    def seat_private(self, car: str) -> dict[str, Any]:
        """What only ``car``'s seat sees: its hand (an open race), its plan."""
        v = self.session.view
        plan = self.store.plan(self.race, v.round, car) if v.phase == "race" else None
        if plan is not None and plan.error is None and self.session.question.kind != "gear":
            plan = None  # entered by now: the board shows what was revealed
        hand = self.hand(car)
        state = self.session.state
        defs = race_cards(state)  # the race's cards beyond the base, by token
        return {
            "car": car,
            "hand": hand,
            "hand_names": None if hand is None else [self._label(c, defs) for c in hand],  # never U53
            "plan": None
            if plan is None
            else {
                "gear": plan.gear,
                "cards": plan.cards,
                "words": self._card_words(plan.cards or ""),
                "error": plan.error,
            },
            "said": [list(x) for x in self.said.get(car, [])],
            "told": self.told.get(car),
            "last": self.own_last_entry(car),  # what "take back my last entry" takes back (None: nothing)
        }


def open_table(log: RaceLog, race: int, store: ServeStore, *, force: bool = False) -> Table:
    """Serve ``race`` (refused in words when another recorder holds it)."""
    try:
        return Table(log, race, store, force=force)
    except ConflictError:
        raise
    except HeatlogError as err:
        raise MalformedInput(error_text(err), race=race) from None
