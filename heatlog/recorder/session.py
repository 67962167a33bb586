"""The recording session: the race's projection, the next question, and each answer turned into events."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from itertools import combinations_with_replacement
from typing import Any

from ..engine import HeatlogError, IllegalEvent, MalformedInput, RaceState, Step, apply
from ..engine.cards import BASE_CATALOGUE
from ..engine.decide import decisions, react_options, waiting_for
from ..engine.errors import ConflictError, StoreError
from ..engine.knowledge import Knowledge
from ..engine.module import (
    TurnAnswer,
    card_typed,
    cards_held,
    discard_words,
    notation_kinds,
    notation_of,
    react_pending,
    turn_answer,
)
from ..engine.module import react_word as module_word
from ..engine.rules import slipstream_block
from ..engine.state import Turn
from ..formats.validation import validate_event
from ..log.racelog import Projection, RaceLog
from ..views import counted
from ..views.board import spot_words
from ..views.narrate import ORDINAL, narrate_turn, played_words
from .lease import Lease
from .notation import COMMANDS, SAVED, Event, describe, error_text, parse_cards, race_cards
from .questions import (
    Closed,
    Derived,
    Line,
    Question,
    advance,
    closed_map,
    completing,
    corner_line,
    hand_text,
    heat_may_be_in_hand,
    make_event,
    payable_answers,
    unpayable_answers,
)

ONE_LINE = (
    "tip: a whole car-turn on one line — reveal, flips, React, y/n, d CARDS: 4 3 s 2 c1 y d1 "
    "(the line's end = nothing more this turn)"
)


class Session:
    """A recording session on one race: the question now, and what an answer does."""

    def __init__(
        self, log: RaceLog, race: int, *, lease: Lease | None = None, fresh: bool = False, rules: bool = False
    ) -> None:
        self.log = log
        self.rules = rules  # name the digest items in errors (# 4.1), for hosts who know them
        self.fresh = fresh
        self.race = race
        self.lease = lease
        self.proj: Projection = log.project(race)
        log.cache_snapshots(race, self.proj)  # round starts to replay from: undo stays flat
        # Optional steps closed by Enter, (round, car, step) in the order closed, valid at log length closed_at.
        self.closed: list[tuple[int, str, int]] = []
        self.closed_at = -1
        self.quit = False
        self.narrated: set[tuple[int, str]] = set()
        self.said: set[Any] = set()
        # What the host typed, as undo takes it back: one unit per answer that recorded something -- the seq
        # of its first event (0: it only closed optional steps) and the steps closed by Enter before it. Kept
        # in the cursor, so an undo after a restart takes back exactly what it would have before.
        self.answers: list[tuple[int, list[tuple[int, str, int]]]] = []
        self.last_blank = False  # the previous answer was a bare Enter (a second one is not taken silently)
        self.keep_gears = False  # the double-Enter guard spoke: one more Enter keeps every car's gear
        self.walk_warnings: list[Line] = []  # SPINOUT AHEAD seen inside a one-line entry (shown with its echo)
        self.confirm_reopen = False
        cur = lease.load_cursor() if lease is not None else None
        if cur and cur.get("length") == self.proj.effective.length and isinstance(cur.get("closed"), list):
            self.closed = [(int(r), str(c), int(x)) for r, c, x in cur["closed"]]
            self.closed_at = self.proj.effective.length
        if cur and isinstance(cur.get("answers"), list):
            try:
                self.answers = [(int(a), [(int(r), str(c), int(x)) for r, c, x in cl]) for a, cl in cur["answers"]]
            except (TypeError, ValueError):
                self.answers = []
        self._d = advance(self.proj.state, self._closed())
        # Everything up to here was told before this session: only what happens from now on is narrated.
        self._mark_known(self._d)
        # Stopped just before entries the rules determine (killed between an answer and its forced draw, or
        # events added elsewhere): record them now, so the first question is a real one.
        self.boot: list[Line] = self._rederive() if self._d.question.auto is not None else []

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
        return closed_map(self._closed_list())

    def _set_closed(self, closed: list[tuple[int, str, int]]) -> None:
        self.closed = closed
        self.closed_at = self.proj.effective.length
        self._save_cursor()

    def _save_cursor(self) -> None:
        if self.lease is None:
            return
        self.answers = self.answers[-200:]
        cursor = {
            "length": self.closed_at,
            "closed": [list(x) for x in self.closed] if self.closed_at == self.proj.effective.length else [],
            "answers": [[a, [list(x) for x in cl]] for a, cl in self.answers],
        }
        self.lease.save_cursor(cursor)

    def _mark_known(self, d: Derived) -> None:
        v = d.view
        for key, _ in d.notes:
            self.said.add(key)
        self.said.add(("round", v.round))
        self.said.update(("hof", n) for n in v.hall_of_fame)
        if v.turn is not None and v.turn.revealed:
            self.said.add(("move", v.turn.round, v.turn.car))
        for _, t in d.turns:
            self.narrated.add((t.round, t.car))

    def start_lines(self) -> list[Line]:
        """What the screen shows when the session opens (or resumes)."""
        s = self.view
        laps = counted(s.laps, "lap")
        lines = [
            Line(f"race {self.race}: {s.track.name}, {laps}, {s.mode} mode", "head"),
            Line("at any prompt: undo, note TEXT, board, help, quit (Ctrl-D)", "dim"),
        ]
        typed = any("raw" in e.event for e in self.proj.effective.entries)
        if not self.fresh and typed and s.phase != "over":
            q = self.question
            where = f"round {s.round}" if s.round else "the set-up"  # (the Garage draft comes before round 1)
            lines.append(Line(f"resuming at {where}: {q.prompt.rstrip(': ').strip() or q.kind}", "info"))
        if s.phase == "race":
            lines += self._round_header(s)
            t = s.turn
            entered = self._entered_this_turn() if not self.fresh else []
            if entered:  # resumed mid-turn: what the table already told (the reveal, the first flip, ...)
                when = "round" if self.question.kind == "gear" else "turn"
                lines.append(Line(f"entered this {when}: " + "; ".join(entered), "info"))
            if t is not None and t.revealed and not t.cluttered:
                lines.append(Line("so far: " + narrate_turn(s, t), "info"))
        elif s.phase == "over":
            lines += self._results(s)
        return lines + self.boot

    def _entered_this_turn(self) -> list[str]:
        """The entries of the turn (or, at step 1, of the round's gears) the open question belongs to, in words:
        the log's last entries for the question's car, back to the first of another car or another round."""
        v = self.view
        car = self.question.car
        if v.phase != "race" or car is None:
            return []
        gears = self.question.kind == "gear"
        out: list[str] = []
        for e in reversed(self.proj.effective.entries):
            ev = e.event
            if ev.get("type") in ("note", "retracted"):
                continue
            if gears:
                if ev.get("type") != "gear_chosen":
                    break
            elif ev.get("car") != car or ev.get("type") == "gear_chosen":
                break
            out.append(describe(ev, self._cards()))
        return out[::-1]

    # ---- answering

    def answer(self, text: str) -> list[Line]:
        """Turn one typed answer into events (committed before returning), a command, or an error."""
        raw = text[:2000]
        s = text.strip()
        word, _, rest = s.partition(" ")
        cmd = word.lower()
        blank, self.last_blank = self.last_blank, not s
        if cmd != "undo":
            self.confirm_reopen = False
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
        keep_all, self.keep_gears = self.keep_gears and not s and q.kind == "gear", False
        if not s and blank and q.kind == "gear" and not keep_all:
            # A second Enter in a row: never let it answer the new round's gears silently.
            self.last_blank = False
            self.keep_gears = True  # the next Enter keeps every car's gear, as this line says
            keep = ", ".join(f"{n} {self.view.cars[n].gear}" for n in self.view.pending)
            return [Line(f"Enter twice: type the gears ({keep} now), or press Enter once more to keep them", "info")]
        if keep_all:  # the Enter the guard asked for: every car waiting keeps its gear, in the question's order
            s = " ".join(str(self.view.cars[n].gear) for n in waiting_for(self.view).cars)
        before = self._closed_list()
        self.walk_warnings = []
        try:
            if q.kind in ("react", "discard") and s.lower() in ("", "-", "none", "done"):
                unpaid = self._unpayable_words(q)
                if unpaid is not None:  # # 18.11: React cannot end before an unpayable cost is settled
                    return [Line(unpaid, "error")]
                return self._close_optional(q)
            events, closes = self._interpret(q, s)
        except HeatlogError as err:
            return [Line(error_text(err), "error")]
        for ev, typed in events:
            if typed:
                ev["raw"] = raw
        echo = self._echo(q, [ev for ev, typed in events if typed], closes)
        walked = self._warnings()
        self.answers.append((self.proj.effective.length + 1 if events else 0, before))
        after = self._commit([ev for ev, _ in events], closes)
        # a warning the line walked past, unless the next question shows it anyway (the line stopped before React:
        # "SPINOUT AHEAD" was printed twice, before and after the move line)
        shown = {x.text for x in after}
        return echo + [w for w in walked if w.text not in shown] + after

    def _warnings(self) -> list[Line]:
        """The warnings a one-line entry walked past (a spinout ahead, # 10.1), once each."""
        out: list[Line] = []
        for line in self.walk_warnings:
            if line.text not in (x.text for x in out):
                out.append(line)
        self.walk_warnings = []
        return out

    def _echo(self, q: Question, typed: list[Event], closes: list[tuple[int, str, int]]) -> list[Line]:
        """What was understood, in words, so a slip is seen at once (``Ann gear 2, Cy gear 3``)."""
        if not typed and not closes:
            return []
        cards = self._cards()
        words = [self._said(ev, cards) for ev in typed]
        if not words and q.kind == "gear":
            words = [f"{q.car} keeps gear {q.default}"]
        steps = sorted({x for _, _, x in closes})
        if steps == [5, 8]:
            words.append("nothing more this turn")
        else:
            words += ["done reacting" if x == 5 else "no discard" for x in steps]
        sep = ", " if q.kind == "gear" else "; "
        return [Line("  ✓ " + sep.join(words), "dim")]

    def _cards(self) -> Any:
        """The race's card definitions beyond the base cards (upgrades and sponsorship cards, named by their short
        names, never their tokens: issue 29), or None in a race of base cards only: the race's card catalogue,
        which holds every module's cards (``Module.cards_key``), so no module is named here."""
        return race_cards(self.state)

    def _said(self, ev: Event, cards: Any) -> str:
        """A typed event in the echo's words: the module's own echo given the race before it (``Notation.echo``:
        a Legend card with the number printed for that Legend, # 19.4), else :func:`describe`'s."""
        told = notation_of(str(ev["type"]))
        if told is not None and told.echo is not None:
            return told.echo(self.state, ev)
        return describe(ev, cards)

    def _unpayable_words(self, q: Question) -> str | None:
        """At React, when the Engine cannot pay the Heat costs due (# 18.11): what to type, the cards by their
        names (never their tokens); None otherwise."""
        view = self.view
        turn = view.turn
        if q.kind != "react" or turn is None or waiting_for(view).due != "heat_unpayable":
            return None
        car = view.cars[turn.car]
        opts = react_options(view, car, turn)
        answers = unpayable_answers(opts, view)
        paid = payable_answers(opts, view)  # the engine lists them too: one cost paid first (# 18.10)
        cooling = [o for o in opts if o["type"] in ("cooldown", "super_cooled")]
        return (
            f"not yet: {car.name}'s Engine ({car.engine}) cannot pay every Heat cost of the cards played: type "
            + " or ".join(answers)
            + " (that card's cost goes unpaid: it is discarded and a flip replaces it, the car moves again)"
            + (f", or {' or '.join(paid)} (that card's cost is paid first, # 18.10)" if paid else "")
            + (", or first put Heat on the Engine (a cooldown)" if cooling else "")
            + " (# 18.11)"
        )

    def _close_optional(self, q: Question) -> list[Line]:
        turn = self.view.turn
        assert turn is not None
        if q.kind == "react":  # Enter = nothing more this turn: React, and the discard unless a slipstream comes
            closes = nothing_more(self.view, turn.car) or [(turn.round, turn.car, 5)]
        else:
            closes = [(turn.round, turn.car, 8)]
        self._set_closed([*self._closed_list(), *closes])
        # Enter closes a step: no entry of its own for undo (it goes with the answer before it, as the host sees it)
        words = "done reacting" if len(closes) == 1 and q.kind == "react" else "nothing more this turn"
        lines = [Line(f"  ✓ {q.car} {'discards nothing' if q.kind == 'discard' else words}", "dim")]
        return lines + self._rederive()

    def _closed_list(self) -> list[tuple[int, str, int]]:
        return list(self.closed) if self.closed_at == self.proj.effective.length else []

    def _interpret(self, q: Question, s: str) -> tuple[list[tuple[Event, bool]], list[tuple[int, str, int]]]:
        """The events an answer stands for, checked together on a copy of the state first (all or none), and
        the optional steps it closes after its last event."""
        name = q.car or ""
        kind = q.kind
        if kind == "grid":
            names = list(self.state.cars)
            if s == "" or s.lower() == "random":
                order = names[:]
                random.shuffle(order)  # # 1.4
            else:
                order = [self._car_name(t) for t in s.replace(",", " ").split()]
            return self._trial([make_event("grid_set", order=order)]), []
        defs = race_cards(self.state)  # the race's cards beyond the base, typed by their short names
        held = cards_held(self.view, name) if defs is not None else None  # the car's own cards first
        own = turn_answer(kind)  # a module's question inside the turn (the Garage's step 3, # 18.6, 18.20, ...)
        if own is not None and not own.walks:  # the whole answer at once (Enter: the question's default)
            return self._trial(self._own(own, self.view, name, s or (q.default or ""), "")), []
        if kind in ("setup_shuffle", "shuffle"):
            if s.lower() in ("", "unknown", "?", "u"):
                return self._trial([make_event("deck_shuffled", car=name)]), []
            return self._trial([make_event("deck_shuffled", car=name, order=parse_cards(s, defs, held))]), []
        if kind in ("setup_draw", "draw"):
            cards = parse_cards(s, defs, held)
            if not cards:
                raise MalformedInput(f"type the cards {name} draws, e.g. 4 h 2")
            return self._trial([make_event("cards_drawn", car=name, cards=cards)]), []
        if kind == "play":
            cards = parse_cards(s, defs, held)
            if not cards:
                raise MalformedInput(f"type {name}'s cards, e.g. 4 3 s")
            return self._trial([make_event("cards_played", car=name, cards=cards)]), []
        if kind in notation_kinds():  # a module's own notation (engine/module.py: the weather's tile, a Legend card,
            # the Garage's draft: several events from one answer, a season's picks left, # 21.2)
            due = waiting_for(self.view).due
            told = notation_of(due) if due is not None else None
            if told is None or told.kind != kind:  # pragma: no cover  (asked only when the module words it)
                raise MalformedInput("nothing to answer here")
            try:
                evs = told.parse_many(self.view, s) if told.parse_many is not None else [told.parse(self.view, s)]
            except ValueError as exc:
                raise MalformedInput(str(exc)) from None
            return self._trial(evs), []
        if _walked(kind):
            return self._walk(q, s)
        raise MalformedInput(f"nothing to answer here ({kind})")  # pragma: no cover

    def _car_name(self, token: str) -> str:
        hits = [n for n in self.state.cars if n.lower() == token.lower()]
        if not hits:
            hits = [n for n in self.state.cars if n.lower().startswith(token.lower())]
        if len(hits) != 1:
            raise MalformedInput(f"{token!r} is not one car of this race ({', '.join(self.state.cars)})")
        return hits[0]

    def _walk(self, q: Question, s: str) -> tuple[list[tuple[Event, bool]], list[tuple[int, str, int]]]:
        """One line for a whole car-turn, or several answers at once: each part answers the question the
        previous ones lead to (``3 2 4`` three gears; ``4 3 s 2 c1 y 1`` reveal, the Stress flip, a
        cooldown, slipstream and a discard; ``-`` closes an optional step). Each part is checked as it would
        be alone, on a copy of the state; nothing is written unless every part is accepted."""
        tokens = s.replace(",", " ").split()
        if not tokens:
            if q.kind == "gear":
                tokens = [q.default or ""]
            elif q.kind == "flip":
                raise MalformedInput("type the flipped card, e.g. 3 (or h 5 3 for several flips)")
            elif q.kind == "reveal":
                raise MalformedInput(f"type {q.car}'s cards, e.g. 4 3 s")
            else:
                raise MalformedInput("answer y (slipstream 2 spaces, # 8.2) or n")
        events, closes, _ = self._parts(q, tokens)
        return events, closes

    def _parts(
        self, q: Question, tokens: list[str], *, more: bool = False
    ) -> tuple[list[tuple[Event, bool]], list[tuple[int, str, int]], Question]:
        """The walk of :meth:`_walk` over ``tokens``: the events, the optional steps closed, and the question
        the parts lead to (what the next part would answer). ``more``: the line goes on after ``tokens`` (Tab
        completes its next word), so a "-" at their end is a middle one: it closes only its own step."""
        work = self.view.copy()
        closed = dict(self._closed())
        events: list[tuple[Event, bool]] = []
        closes: list[tuple[int, str, int]] = []
        cur = q
        i = 0
        # a line that answers React (a use, y/n, d CARDS, ...) says all the car does this turn: at its end the
        # optional steps still open are closed (one React prompt, Enter = nothing more once a turn; issue 29).
        # A boost whose flips are asked at their own question leaves React open: the flips were not known.
        touched = False
        boosted = False  # the line's last React use is a boost: its flips decide what comes next, React stays open
        # the line's last React part leaves a module's chance due after React (a Scrap's cards, # 18.12): its end
        # closes React only, the discard is asked after the chance, as Enter there does (nothing_more) -- whether
        # the chance is asked (table mode) or determined and recorded on the way (open mode: the discard was closed
        # unasked, and a race that discarded after its Scrap could not be typed in)
        pending = False
        while i < len(tokens):
            last_dash = tokens[i] == "-" and i == len(tokens) - 1 and not more and q.kind != "gear"
            if last_dash and (not _walked(cur.kind) or cur.car != q.car or cur.kind == "gear"):
                break  # a final "-" means "nothing more this turn": nothing is left to close
            if (
                not _walked(cur.kind)
                or (cur.kind == "gear") != (q.kind == "gear")
                or (q.kind != "gear" and cur.car != q.car)
            ):
                rest = " ".join(tokens[i:])
                nxt = cur.prompt.strip() or cur.kind
                raise MalformedInput(f"{rest!r}: too much for this answer (the next question is {nxt!r})")
            touched = touched or cur.kind == "react" or (i > 0 and cur.kind in ("slipstream", "discard"))
            used, evs, close = self._part(cur, tokens, i, work, more=more)
            if cur.kind == "react" and evs:
                boosted = any(e["type"] == "boost" for e in evs)
            elif cur.kind in ("slipstream", "discard"):
                boosted = False
            for ev in evs:
                self._check(work, ev, " ".join(tokens[i : i + used]) or tokens[min(i, len(tokens) - 1)])
                events.append((ev, True))
                closes = []
            if evs or used:
                pending = cur.kind == "react" and work.turn is not None and react_pending(work, work.turn)
            if close:
                turn = work.turn
                assert turn is not None
                key = (turn.round, turn.car)
                closed[key] = max(close, closed.get(key, 0))
                closes.append((turn.round, turn.car, close))
            i += used
            d = advance(work, closed, inplace=True)
            work, cur = d.view, d.question
            while cur.auto is not None:
                auto = dict(cur.auto)
                self._check(work, auto, "")
                events.append((auto, False))
                closes = []
                d = advance(work, closed, inplace=True)
                work, cur = d.view, d.question
            self.walk_warnings += [line for key, line in d.notes if line.style == "warn"]
        same = work.turn is not None and work.turn.car == q.car
        if touched and not boosted and not more and q.kind != "gear" and same:
            turn = work.turn
            assert turn is not None
            closes += [(turn.round, turn.car, 5)] if pending else nothing_more(work, q.car or "")
        return events, closes, cur

    def completions(self, before: str) -> tuple[str, ...]:
        """What Tab offers for the next word of a line whose earlier words are ``before``: in a one-line
        entry, the answers of the question those words lead to (each checked as when the line is entered);
        nothing when they are not accepted, or lead past this car's turn."""
        q = self.question
        tokens = before.replace(",", " ").split()
        if not tokens:
            return (*self._words(q, q, first=True), *COMMANDS)
        if not _walked(q.kind):
            return ()
        if q.kind == "reveal" and self.view.turn is not None:
            try:
                typed = [c for t in tokens for c in parse_cards(t)]
            except HeatlogError:
                typed = None
            if typed is not None and len(typed) < self.view.turn.gear:
                return self._words(q, q, first=True, typed=typed)  # the reveal still needs cards
        try:
            _, _, cur = self._parts(q, tokens, more=True)
        except HeatlogError:
            return ()
        if (
            not _walked(cur.kind)
            or (q.kind != "gear" and cur.car != q.car)
            or (cur.kind == "gear") != (q.kind == "gear")
        ):
            return ()
        return self._words(q, cur, first=False)

    def _words(self, q: Question, cur: Question, *, first: bool, typed: Sequence[str] = ()) -> tuple[str, ...]:
        """The words that answer ``cur`` (alone, or as a later part of a line begun at ``q``; ``typed``: the
        cards of a reveal typed so far)."""
        car = self.view.cars.get(cur.car or "")
        if cur.kind in ("reveal", "discard") and car is not None:
            known = Knowledge.of(car)  # the one deduction: a card that may be in the hand (# 1.7)
            cards = [c for c in BASE_CATALOGUE.cards if known.hand_max(c.token) > 0]
            if cur.kind == "discard":
                cards = [c for c in cards if self.view.rules.can_discard(self.view, car, c.token)]
                prefix = "" if first else "d"
                return (*[prefix + c.short for c in cards], "-")
            legal = self._revealable(car.name, list(typed), [c.token for c in cards])
            return tuple(c.short for c in cards if c.token in legal)
        if cur.kind == "react":
            return (*cur.options, "-")
        return cur.options

    def _revealable(self, name: str, typed: list[str], tokens: list[str]) -> set[str]:
        """The cards that may come next in a reveal begun with ``typed``: those of some whole reveal the rules
        accept (asked of the engine, reveal by reveal: # 4.1 what the hand may hold, # 13.1 a cluttered hand,
        which Heat claims), so Tab never offers a card that no reveal can go on with."""
        turn = self.view.turn
        need = (turn.gear if turn is not None else 0) - len(typed)
        legal: set[str] = set()
        if need <= 0:
            return legal
        for rest in combinations_with_replacement(tokens, need):
            if legal.issuperset(rest):
                continue  # nothing to learn from this reveal
            try:
                apply(self.view.copy(), {"type": "cards_revealed", "v": 1, "car": name, "cards": typed + list(rest)})
            except HeatlogError:
                continue
            legal.update(rest)
        return legal

    def _part(
        self, q: Question, tokens: list[str], i: int, work: RaceState, *, more: bool = False
    ) -> tuple[int, list[Event], int]:
        """(tokens used, events, optional step closed) for the part of a line that answers ``q`` (``more``: as
        :meth:`_parts`)."""
        final = i == len(tokens) - 1 and not more  # the line's last word: a "-" there ends the car's turn
        name = q.car or ""
        tok = tokens[i]
        t = tok.lower()
        defs = race_cards(work)  # the race's cards beyond the base, typed by their short names
        held = cards_held(work, name) if defs is not None else None  # a name means the car's own card first

        def read(text: str) -> list[str]:  # cards as typed, for a module's words (Module.react_word)
            return parse_cards(text, defs, held)

        if q.kind == "gear":
            if t not in ("1", "2", "3", "4"):  # the car this word is for, and its gear (not the first car's)
                raise MalformedInput(
                    f"{tok!r} is not a gear for {name}: type 1, 2, 3 or 4 ({name} is in gear {work.cars[name].gear})"
                )
            return 1, [make_event("gear_chosen", car=name, gear=int(t))], 0
        if q.kind == "reveal":
            turn = work.turn
            need = turn.gear if turn is not None else 0
            cards: list[str] = []
            used = 0
            while len(cards) < need and i + used < len(tokens):
                cards += parse_cards(tokens[i + used], defs, held)  # a typo among the cards is named, not taken
                used += 1
            if not cards:
                raise MalformedInput(f"{tok!r} is not a card: write 1 2 3 4, 0 or 5 (upgrades), h (Heat), s (Stress)")
            return used, [make_event("cards_revealed", car=name, cards=cards)], 0
        own = turn_answer(q.kind)  # a module's question as a part of the line (a card's value, a Scrap's card)
        if own is not None and own.line:
            return 1, self._own(own, work, name, tok, tok), 0
        if q.kind == "flip":
            if t in ("-", ".", "done"):  # "nothing more" where the rules still want a card turned over
                raise MalformedInput(
                    f"{tok!r}: {name} flips first (a Stress card's or a card's + flips, # 14.1, 18.8): type the "
                    "card turned over, then the rest of the turn"
                )
            cards = parse_cards(t, defs, held)
            if len(cards) != 1:
                raise MalformedInput(f"{tok!r}: one card per flip")
            return 1, [make_event("card_flipped", car=name, card=cards[0])], 0
        if q.kind == "react":
            if t in ("b", "boost"):
                return 1, [make_event("boost", car=name)], 0
            if t in ("a", "am"):
                return 1, [make_event("adrenaline", car=name, bonus="move")], 0
            if t == "ac" or (t.startswith("ac") and t[2:].isdecimal()):  # ac, ac0, ac2 (# 6.2, 7.4)
                return 1, self._adrenaline_cooldown(work, name, None if t == "ac" else _count(tok, t[2:]), read), 0
            if t.startswith("c") and (t[1:].isdecimal() or t == "c"):
                n = _count(tok, t[1:] or "1")
                # a module may read it (the Garage: the gear's cooldown, then the cards', # 18.13)
                ev = module_word(work, name, f"c{n}", read)
                return 1, [ev or make_event("cooldown", car=name, count=n)], 0
            if _is_slip_part(t):
                return 0, [], 5  # done reacting: a slipstream answer (y4:rpm1, # 18.16)
            ev = module_word(work, name, tok, read)  # a module's React words (the Garage's p, r2, f, play:NAME …)
            if ev is not None:
                return 1, [ev], 0
            if t in ("-", ".", "done"):
                # a final "-" closes React and goes on to close the discard too ("nothing more this turn")
                return (0 if t == "-" and final else 1), [], 5
            if _is_later_part(t):
                return 0, [], 5  # done reacting: the part answers a later question
            if i > 0 and _is_cards(t):
                turn = work.turn
                gear = turn.gear if turn is not None else 0
                n = (len(turn.played) if turn is not None else 0) + len(parse_cards(t))
                raise IllegalEvent(
                    f"{tok!r}: in gear {gear} play exactly {gear} card{'s' if gear > 1 else ''}, not {n}; "
                    "after them come react (cN b a ac), y/n for the slipstream and d CARDS for a discard",
                    rule="4.1",
                )
            raise MalformedInput(f"{tok!r}: react with cN (cooldown N), b (boost), a / ac (adrenaline move / cooldown)")
        if q.kind == "slipstream":
            if t in ("n", "no", "-"):
                keep = t == "-" and final  # a final "-": no slipstream, and no discard either
                return (0 if keep else 1), [make_event("slipstream", car=name, taken=False)], 0
            taken = slipstream_answer(work, name, t)
            if taken is None:
                ev = _module_word_now(work, name, tok, read)  # one that ends step 6 (the Garage's Refresh, # 18.21)
                if ev is not None:
                    return 1, [ev], 0
                raise MalformedInput(f"{tok!r}: answer y (slipstream 2 spaces, # 8.2) or n")
            return 1, [taken], 0
        if q.kind == "discard":
            if t in ("-", ".", "none"):
                return 1, [], 8
            if _is_slip_part(t) or t in ("n", "no"):
                # a slipstream answer where none is possible (the reason was shown): n is no change, y is refused
                if t in ("n", "no"):
                    return 1, [], 0
                turn = work.turn
                why = slipstream_block(work, work.cars[name], turn) if turn is not None else None
                raise IllegalEvent(f"{tok!r}: no slipstream for {name}: {why or 'not in position (# 8.1)'}")
            if not t.startswith("d") and not _is_cards(t):  # a module's word (the Garage's Refresh, # 18.21)
                ev = _module_word_now(work, name, tok, read)
                if ev is not None:
                    return 1, [ev], 0
            # Alone, the discard is the cards; later in a line it is d CARDS (d12, d 1 2), so a stray card
            # (a fourth card revealed in gear 3) is never taken as a discard silently.
            # "d0" / "d 1 2" is a discard anywhere, even as the first word at React (docs/recording.md)
            first = i == 0 and not (t.startswith("d") and (t == "d" or _is_cards(t[1:])))
            if not first and not t.startswith("d"):
                raise MalformedInput(f"{tok!r}: write the discard as d and the cards (d12), or - for none")
            cards = []
            used = 0
            if not first:
                rest = t[1:]
                if rest:
                    cards += parse_cards(rest, defs, held)
                used = 1
            while i + used < len(tokens):
                try:
                    cards += parse_cards(tokens[i + used], defs, held)
                except MalformedInput:
                    break
                used += 1
            if not cards:
                raise MalformedInput(f"{tok!r}: the cards to discard (never Heat or Stress, # 11.1), or - for none")
            return used, [make_event("cards_discarded", car=name, cards=cards)], 0
        raise MalformedInput(f"{tok!r} belongs to its own question ({q.prompt.strip()})")

    def _own(self, own: TurnAnswer, work: RaceState, name: str, text: str, tok: str) -> list[Event]:
        """The events a module's answer makes (``TurnAnswer.read``), the cards read as typed (the car's own
        first); refused in its words, naming the word of a line (``tok``) unless they already do."""
        defs = race_cards(work)
        held = cards_held(work, name) if defs is not None else None

        def read(typed: str) -> list[str]:
            return parse_cards(typed, defs, held)

        try:
            return own.read(work, name, text, read)
        except (MalformedInput, ValueError) as exc:
            said = exc.message if isinstance(exc, MalformedInput) else str(exc)
            if tok and repr(tok) not in said:
                said = f"{tok!r}: {said}"
            raise MalformedInput(said) from None

    def _adrenaline_cooldown(
        self, work: RaceState, name: str, count: int | None = None, read: Callable[[str], list[str]] | None = None
    ) -> list[Event]:
        """``ac``: the adrenaline cooldown moves one more Heat card from the hand to the Engine (# 6.2, 7.4): the
        bonus and the cooldown it allows, one entry. Refused when no Heat can be in the hand (# 7.3).

        ``acN`` (``count``): the bonus and a cooldown of N at once, read as ``cN`` is after the bonus (``ac2`` in
        gear 2: the gear's 1 and the adrenaline's 1, one cooldown of 2; # 7.4 adds them); whether it is allowed is
        the engine's to say when the events are checked. ``ac0``: the bonus alone, nothing cooled with it now (a
        later ``cN``, a boost first, or none at all: # 6.2 makes each bonus optional, # 7.1 any order)."""
        bonus = make_event("adrenaline", car=name, bonus="cooldown")
        if count == 0:
            return [bonus]
        car = work.cars[name]
        if not heat_may_be_in_hand(car):  # the hand as it is now: earlier cooldowns already left it
            raise IllegalEvent(
                f"ac moves a Heat card from {name}'s hand to the Engine, but no Heat can be in the hand "
                "(all are seen elsewhere); ac0 takes the bonus alone",
                rule="7.3",
            )
        after = work.copy()
        apply(after, bonus)
        if count is not None:  # the cooldown as cN reads it now (a module may: the Garage's cards, # 18.13)
            cool = module_word(after, name, f"c{count}", read) if read is not None else None
            return [bonus, cool or make_event("cooldown", car=name, count=count)]
        turn = after.turn
        cool = make_event("cooldown", car=name, count=1)
        if turn is not None and cool not in react_options(after, after.cars[name], turn):
            return [bonus]  # not here (a no-cooldown sector, # 20.9, MA5): the allowance waits for a later cN
        return [bonus, cool]

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

    def _commit(self, events: list[Event], closes: list[tuple[int, str, int]] | None = None) -> list[Line]:
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
                lines.append(Line(f"  {describe(ev, self._cards())} (determined by the rules)", "dim"))
            lines += self._narrate(done)
        if closes:
            self._set_closed([*self._closed_list(), *closes])
        else:
            self._save_cursor()
        return lines + self._rederive()

    def _append(self, ev: Event) -> list[tuple[RaceState, Turn]]:
        if self.lease is not None:
            self.lease.check()
        state = self.proj.state
        holder: list[tuple[int, Projection]] = []

        def do() -> None:
            holder.append(self.log.append(self.race, ev, self.proj))

        done = completing(state, do)
        seq, self.proj = holder[0]
        self.log.cache_round_start(self.race, self.proj)  # a flat undo replays from the round's start
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
            lines.append(Line(f"  {describe(auto, self._cards())} (determined by the rules)", "dim"))
            lines += self._narrate(done)
        return lines

    def _notes(self, d: Derived) -> list[Line]:
        lines = self._narrate(d.turns)
        v = d.view
        ahead = [(k, x) for k, x in d.notes if k[0] == "ahead"]  # after the move line they follow from
        t = v.turn
        if t is not None and t.revealed and not t.cluttered and ("move", t.round, t.car) not in self.said:
            # the move first: the words closing its steps ("no slipstream — ...", the corner paid) follow from it
            # (issue 29 bug 16: they came before it when no React question stood between)
            self.said.add(("move", t.round, t.car))
            lines.append(Line(_move_line(v, t), "info"))
        for key, line in d.notes:
            if key not in self.said and key[0] != "ahead":
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
            if v.round == 2:  # after the first round: the one-line form, once (help says it again)
                lines.append(Line(ONE_LINE, "info"))
        checked = t is not None and t.corners and waiting_for(v).step >= Step.DISCARD
        if t is not None and checked and ("corners", t.round, t.car) not in self.said:
            # # 9.1–10.5: the corner check happened (whatever closed step 6); the table pays or spins out now,
            # before discards and draws.
            self.said.add(("corners", t.round, t.car))
            lines.append(Line(corner_line(v, t), "outcome"))
        for key, line in ahead:
            if key not in self.said:
                self.said.add(key)
                lines.append(line)
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
        from ..views.board import limits_key, next_corner, track_strip

        lines += [Line(x, "board-strip") for x in track_strip(s) if x.strip()]
        if (key := limits_key(s)) is not None:  # a limit drawn with * is this race's, not the printed one (# 20.8)
            lines.append(Line(key, "board-strip"))
        for name in s.standings():
            car = s.cars[name]
            if name in s.hall_of_fame:
                continue
            hand = f", hand {hand_text(car)}" if car.hand is not None else ""
            nxt = next_corner(s, car)
            ahead = ""
            if nxt is not None:
                n, limit, gap = nxt
                ahead = f"; next: corner {n}, limit {limit}, {gap} space{'s' if gap != 1 else ''} ahead"
            # # 19.1: a Legend has no gear, Engine or hand; its line says what moves it
            kit = "Legend (moved by the Legend card)" if car.legend else f"gear {car.gear}, Engine {car.engine}{hand}"
            lines.append(
                Line(
                    f"  {name}: space {s.track.space_of(car.progress)} ({spot_words(s, car)}), "
                    f"lap {s.lap_of(car)}/{s.laps}, {kit}{ahead}",
                    "",
                )
            )
        return lines

    def _results(self, s: RaceState) -> list[Line]:
        from datetime import datetime

        from ..views.bgstats import bgstats_link

        hof = ", ".join(f"{i}. {n} (round {s.finish_rounds.get(n)})" for i, n in enumerate(s.hall_of_fame, 1))
        lines = [Line(f"race over — Hall of Fame: {hof} (# 16.8)", "head")]
        link = bgstats_link(s, played_at=datetime.now().strftime("%Y-%m-%d %H:%M:%S"))
        if link:  # the play in the group's log book, not typed twice (issue 29, Build 6)
            lines.append(Line(f"BG Stats (open on the phone to log the play): {link}", "dim"))
        return lines

    # ---- corrections and commands

    def undo(self) -> list[Line]:
        """Take back the last answer as the host typed it: its events, the entries the rules derived from them,
        and the optional steps closed by Enter after it (an Enter records nothing of its own). Undoing into a
        finished race asks first."""
        if self.view.phase == "over" and not self.confirm_reopen:
            self.confirm_reopen = True
            return [
                Line("the race is finished: undo reopens it. Type undo again to reopen, anything else keeps it", "info")
            ]
        self.confirm_reopen = False
        entries = self.proj.effective.entries
        unit = self._last_unit()
        if unit is None:
            return [Line("nothing to undo: only the race set-up is left", "error")]
        first, restore = unit
        count = sum(1 for e in entries if e.seq >= first)
        if count == 0 or count >= len(entries):
            return [Line("nothing to undo: only the race set-up is left", "error")]
        try:
            gone, self.proj = self.log.retract_entries(self.race, count, self.proj, "undo at the recorder")
        except StoreError as err:
            return self._reload(err)
        except HeatlogError as err:
            return [Line(error_text(err), "error")]
        self.answers.pop()
        self._set_closed(restore)
        d = advance(self.proj.state, self._closed())
        self._d = d
        v = d.view
        done = {(t.round, t.car) for t in v.turns}
        self.narrated = {k for k in self.narrated if k[0] < v.round or k in done}
        self.said = set()
        self._mark_known(d)
        typed = [e for e in gone if e.event.get("raw") is not None] or gone
        what = "; ".join(describe(e.event, self._cards()) for e in typed)
        extra = len(gone) - len(typed)
        if extra:
            what += f" (and {extra} entr{'y' if extra == 1 else 'ies'} the rules derived from it)"
        span = str(gone[0].seq) if len(gone) == 1 else f"{gone[0].seq}–{gone[-1].seq}"
        what += f"; event{'s' if len(gone) > 1 else ''} {span} retracted, the originals stay in the log"
        return [Line(f"undone: {what}", "info"), Line(self.status(), "dim")]

    def _last_unit(self) -> tuple[int, list[tuple[int, str, int]]] | None:
        """The last answer that recorded something: (seq of its first event, the steps closed before it).
        Everything from that seq on goes: its events and the entries the rules derived after them. An Enter
        that only closed a step is no answer of its own (the host sees one answer with its consequences).
        Without a record of the answers (events added elsewhere, an older recorder) the last typed event, the
        events typed in the same line and what followed them."""
        entries = self.proj.effective.entries
        last = entries[-1].seq if entries else 0
        self.answers = [a for a in self.answers if 1 < a[0] <= last]
        if self.answers:
            return self.answers[-1]
        typed = [i for i, e in enumerate(entries) if i > 0 and e.event.get("raw") is not None]
        if not typed:
            return None
        i = typed[-1]
        raw = entries[i].event.get("raw")
        while i > 1 and entries[i - 1].event.get("raw") == raw and entries[i - 1].seq == entries[i].seq - 1:
            i -= 1
        self.answers.append((entries[i].seq, []))
        return self.answers[-1]

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
        on = f"now: {where}; {car.name} on space {v.track.space_of(car.progress)} ({spot_words(v, car)}), "
        if car.legend:  # # 19.1: a Legend has no gear, Engine or hand; the Legend card moves it
            return on + "a Legend (moved by the Legend card)"
        return on + f"gear {car.gear}, Engine {car.engine}, hand {hand_text(car)}"

    def note(self, text: str, raw: str) -> list[Line]:
        if not text:
            return [Line("note what? e.g. note Bob's cards were knocked over", "error")]
        v = self.view
        # the whole note: one too long is refused by its schema, as the note command refuses it, not cut short
        ev = make_event("note", text=text, round=v.round, raw=raw)
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
            # the question without its "[default]:" (with them the line read as an answer typed at the prompt)
            asked = re.sub(r"\s*\[[^\]]*\]", "", q.prompt.strip().rstrip(":").strip())
            lines.append(Line(f"{asked} — {q.hint}", "info"))
        if q.default is not None:
            lines.append(Line(f"Enter = {q.default or 'done / none'}", "info"))
        lines += [
            Line("cards: 1 2 3 4, 0 5 (upgrades), h Heat, s Stress — '4 3 s' or '43s'", ""),
            Line(
                "react: cN cooldown N, b boost (then its flips), a adrenaline move, ac adrenaline cooldown "
                "(acN with a cooldown of N at once, ac0 the bonus alone)",
                "",
            ),
            Line(ONE_LINE, ""),
            Line(
                "React takes every use at once; Enter there = nothing more this turn (React, and the discard "
                "unless a slipstream question comes); d CARDS may start a line",
                "",
            ),
            Line("commands: undo (take back the last answer), note TEXT, board, help, quit", ""),
        ]
        extra = self._cards()
        if extra:  # the race's upgrades and sponsorship cards, by the names typed (docs/cards.md lists them all)
            names = " ".join(sorted({str(c["short"]) for c in extra.values()}))
            lines.append(Line(f"this race's cards, by name (a unique beginning is enough; docs/cards.md): {names}", ""))
        return lines


def nothing_more(state: RaceState, name: str) -> list[tuple[int, str, int]]:
    """The optional steps "nothing more this turn" closes for ``name`` at ``state``: React (5), then the discard
    (8) unless a slipstream question comes between (# 8.1: it is a decision, asked) or, in a Garage race, a
    Refresh is open (# 18.21: the discard question offers it); [] when there is none to close (a boost's flips
    are due, a Heat cost must be settled first, # 18.11, or the turn is past its optional steps). A Garage
    React's chance that follows (a Scrap's cards, # 18.12) is asked all the same: closing React does not skip it."""
    turn = state.turn
    if turn is None or turn.car != name:
        return []
    w = waiting_for(state)
    if w.flipping is not None or not w.may_go_on or name not in w.cars or w.due == "heat_unpayable":
        return []
    key = (turn.round, name)
    if w.step == Step.REACT:
        if slipstream_block(state, state.cars[name], turn) is None or _refresh_open(state, turn):
            return [(*key, 5)]
        if react_pending(state, turn):  # a module's chance after React (a Scrap's cards, # 18.12), then the discard
            return [(*key, 5)]
        return [(*key, 5), (*key, 8)]
    if w.step == Step.DISCARD and not _refresh_open(state, turn):
        return [(*key, 8)]
    return []


def _refresh_open(state: RaceState, turn: Turn) -> bool:
    """Something left for the discard question to offer (a Refresh card in the Play Area, # 18.21: a module's
    ``discard_words``), so "nothing more" leaves the discard open."""
    return bool(discard_words(state, state.cars[turn.car], turn))


def slipstream_answer(work: RaceState, name: str, answer: str) -> Event | None:
    """A slipstream answer as its event, one of the engine's choices (``slipstream_choices``): ``y`` (the
    longest with the Garage's bonus cards, # 18.16, else the basic 2), a distance (``3``, ``y3`` in a line:
    the plainest way to cover it, fewest cards first, # 20.12), or a distance and the bonus cards it names
    (``4:rpm1``). A distance the engine does not offer is sent as typed, for the engine to refuse with its
    reason. None: not a slipstream answer."""
    from ..engine.decide import slipstream_choices

    text = answer.lower()
    head, sep, tail = text.partition(":")
    if head in ("y", "yes"):
        head = ""
    elif head.startswith("y"):
        head = head[1:]
    if (head and not head.isdecimal()) or (sep and not head):
        return None
    choices = slipstream_choices(work, work.cars[name])
    if not head:
        bonus = [(n, c) for n, c in choices if c.get("bonuses")]
        if bonus:
            best = max(n for n, _ in bonus)
            return dict(next(c for n, c in choices if n == best))
        return make_event("slipstream", car=name, taken=True)
    total = _count(answer, head)
    named: list[str] | None = None
    if sep:
        defs = race_cards(work)  # the race's cards beyond the base: the bonus cards are among them
        if defs is None:
            raise MalformedInput(f"{answer!r}: slipstream bonus cards come from the Garage (# 18.16)")
        named = sorted(str(card_typed(x, defs)) for x in tail.split("/") if x)
    for n, c in choices:
        if n == total and (named is None or sorted(c.get("bonuses", [])) == named):
            return dict(c)
    ev = make_event("slipstream", car=name, taken=True, spaces=total)  # refused by the rules, with the reason
    if named:
        ev["bonuses"] = named
    return ev


def _count(tok: str, digits: str) -> int:
    """The number a word's digits say (``c2``, ``ac2``, ``y4``): a few digits at most, so that a long run of them
    is refused as what it is, never a crash (``int`` refuses more than 4300 digits) nor an event no rule reads."""
    if len(digits) > 3:
        raise MalformedInput(f"{tok[:20]!r}{'…' if len(tok) > 20 else ''}: {len(digits)} digits are no count here")
    return int(digits)


#: The recorder's own questions a one-line entry walks through (a module's own, ``TurnAnswer.line``, too).
WALKS = frozenset(("gear", "reveal", "flip", "react", "slipstream", "discard"))


def _walked(kind: str) -> bool:
    """Whether a question of ``kind`` may be a part of a one-line entry (the recorder's, or a module's)."""
    if kind in WALKS:
        return True
    own = turn_answer(kind)
    return own is not None and own.line


def _is_later_part(t: str) -> bool:
    """A part of a one-line entry that answers a question after React: y/n (slipstream), d CARDS (discard)."""
    if t in ("n", "no") or _is_slip_part(t):
        return True
    return t.startswith("d") and (t == "d" or _is_cards(t[1:]))


def _module_word_now(work: RaceState, name: str, word: str, read: Any) -> Event | None:
    """The event a module's word on ``name``'s line means (``Module.react_word``: the Garage's ``f`` / ``f:CARD``
    Refresh, # 18.21), when the engine lists its kind among ``name``'s decisions now; None otherwise (the word is
    the recorder's to read). A module's word it refuses is refused in its words (``MalformedInput``)."""
    ev = module_word(work, name, word, read)
    if ev is None or not any(o["type"] == ev["type"] for o in decisions(work, name)):
        return None
    return ev


def _is_slip_part(t: str) -> bool:
    """A slipstream taken, in a line: ``y``, ``y3`` (a distance), ``y4:rpm1`` (a distance and its bonus cards)."""
    head = t.partition(":")[0]
    return t in ("y", "yes") or (len(head) > 1 and head[0] == "y" and head[1:].isdecimal())


def _is_cards(t: str) -> bool:
    try:
        return bool(parse_cards(t))
    except MalformedInput:
        return False


def _ordinal(n: int) -> str:
    return ORDINAL.get(n, f"{n}th")


def _move_line(s: RaceState, t: Turn) -> str:
    car = s.cars[t.car]
    return (
        f"{t.car} plays {played_words(t, s.cards)}: speed {t.step3_speed}, moves {t.moved} "
        f"to space {s.track.space_of(t.start + t.moved) if t.moved else s.track.space_of(t.start)}"
        f" (Engine {car.engine})"
    )
