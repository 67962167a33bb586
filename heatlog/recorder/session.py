"""The recording session: the race's projection, the next question, and each answer turned into events."""

from __future__ import annotations

import random
from typing import Any

from ..engine import HeatlogError, IllegalEvent, MalformedInput, RaceState, apply
from ..engine.decide import waiting_for
from ..engine.errors import ConflictError, StoreError
from ..engine.state import Turn
from ..racelog import Entry, Projection, RaceLog
from ..validation import validate_event
from ..views.narrate import ORDINAL, narrate_turn, played_words
from .lease import Lease
from .notation import SAVED, Event, describe, error_text, parse_cards
from .questions import Closed, Derived, Line, Question, advance, closed_map, completing, hand_text, make_event


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
        return closed_map(self._closed_list())

    def _set_closed(self, closed: list[tuple[int, str, int]]) -> None:
        self.closed = closed
        self.closed_at = self.proj.effective.length
        if self.lease is not None:
            cursor = {"length": self.closed_at, "closed": [list(x) for x in closed]}
            self.lease.save_cursor(cursor if closed else None)

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
            if t is not None and t.revealed and not t.cluttered:
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
            return self._trial([make_event("grid_set", order=order)])
        if kind in ("setup_shuffle", "shuffle"):
            if self.state.mode == "table":
                if s.lower() not in ("", "y", "yes", "ok", "done"):
                    raise MalformedInput("decks are hidden in table mode: press Enter once the deck is shuffled")
                return self._trial([make_event("deck_shuffled", car=name)])
            if s.lower() in ("", "unknown", "?", "u"):
                return self._trial([make_event("deck_shuffled", car=name)])
            return self._trial([make_event("deck_shuffled", car=name, order=parse_cards(s))])
        if kind in ("setup_draw", "draw"):
            if self.state.mode == "table":
                text = s or (q.default or "")
                if not text.isdigit():
                    raise MalformedInput(f"type how many cards {name} draws (Enter = {q.default})")
                return self._trial([make_event("cards_drawn", car=name, count=int(text))])
            cards = parse_cards(s)
            if not cards:
                raise MalformedInput(f"type the cards {name} draws, e.g. 4 h 2")
            return self._trial([make_event("cards_drawn", car=name, cards=cards)])
        if kind in ("play", "reveal", "discard"):
            cards = parse_cards(s)
            if not cards and kind != "discard":
                raise MalformedInput(f"type {name}'s cards, e.g. 4 3 s")
            etype = {"play": "cards_played", "reveal": "cards_revealed", "discard": "cards_discarded"}[kind]
            return self._trial([make_event(etype, car=name, cards=cards)])
        if kind == "weather":
            return self._trial([make_event("weather_drawn", tile=s.lower().strip())])
        if kind == "road":
            tokens = [t.lower() for t in s.replace(",", " ").split()]
            return self._trial([make_event("road_conditions_drawn", tokens=tokens)])
        if kind == "legend":
            return self._trial([make_event("legend_card_revealed", card=self._legend_card(name, s))])
        if kind == "slipstream":
            yn = s.lower()
            if yn.isdigit() and int(yn) > 2:  # MODULES.md 20.12: a total with the sector bonus
                return self._trial([make_event("slipstream", car=name, taken=True, spaces=int(yn))])
            if yn in ("y", "yes", "2"):
                return self._trial([make_event("slipstream", car=name, taken=True)])
            if yn in ("n", "no"):
                return self._trial([make_event("slipstream", car=name, taken=False)])
            raise MalformedInput("answer y (slipstream 2 spaces, # 8.2) or n")
        if kind in ("gear", "flip", "react"):
            return self._walk(q, s)
        raise MalformedInput(f"nothing to answer here ({kind})")  # pragma: no cover

    def _legend_card(self, name: str, text: str) -> int:
        """The Legend card typed as the helmet number of the Legend whose turn it is, or as ``card N``."""
        rules = self.state.legends
        assert rules is not None
        words = text.lower().split()
        if len(words) == 2 and words[0] == "card" and words[1].isdigit():
            return int(words[1])
        if len(words) == 1 and words[0].isdigit():
            colour = self.state.cars[name].colour
            card = rules.card_by_number(colour, int(words[0]))
            if card is None:
                raise MalformedInput(f"no Legend card gives {colour} the number {words[0]} (10–19, # 19.4)")
            return card.id
        raise MalformedInput(f"type {name}'s helmet number on the card turned (e.g. 16), or card N (1–10)")

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
            return make_event("gear_chosen", car=name, gear=int(t))
        if q.kind == "flip":
            cards = parse_cards(t)
            if len(cards) != 1:
                raise MalformedInput(f"{tok!r}: one card per flip")
            return make_event("card_flipped", car=name, card=cards[0])
        if q.kind == "react":
            if t in ("b", "boost"):
                return make_event("boost", car=name)
            if t in ("a", "am"):
                return make_event("adrenaline", car=name, bonus="move")
            if t == "ac":
                return make_event("adrenaline", car=name, bonus="cooldown")
            if t.startswith("c") and (t[1:].isdigit() or t == "c"):
                return make_event("cooldown", car=name, count=int(t[1:] or "1"))
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

        done = completing(state, do)
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

    def _notes(self, d: Derived) -> list[Line]:
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
        if t is not None and t.revealed and not t.cluttered and ("move", t.round, t.car) not in self.said:
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
        from ..views.board import track_strip

        lines += [Line(x, "board-strip") for x in track_strip(s) if x.strip()]
        for name in s.standings():
            car = s.cars[name]
            if name in s.hall_of_fame:
                continue
            lane = "a" if car.lane == 1 else "b"
            hand = f", hand {hand_text(car)}" if car.hand is not None else ""
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
                    d = advance(self.proj.state, closed_map(restore))
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
            f"Engine {car.engine}, hand {hand_text(car)}"
        )

    def note(self, text: str, raw: str) -> list[Line]:
        if not text:
            return [Line("note what? e.g. note Bob's cards were knocked over", "error")]
        v = self.view
        ev = make_event("note", text=text[:2000], round=v.round, raw=raw)
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
        from ..engine.cards import VALUE

        step3 -= VALUE.get(t.boost_card, 0)
    return (
        f"{t.car} plays {played_words(t)}: speed {step3}, moves {t.moved} "
        f"to space {s.track.space_of(t.start + t.moved) if t.moved else s.track.space_of(t.start)}"
        f" (Engine {car.engine})"
    )
