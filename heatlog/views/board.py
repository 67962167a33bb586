"""The board in the terminal: the track as a strip of spaces with the cars in their spots, a table of what each
car did this round and where it stands, and the narration of the round's turns.

``heatlog show`` (the board now) and ``heatlog replay`` (round by round) print the same pieces:
:func:`render_header`, :func:`strip_lines`, :func:`cars_table` and :func:`render_narration`, put together by
:func:`render_round`. The strip is plain text (``track_strip``) with colour added on top, so it reads the same
on a colourless console.

Strip legend: lane 1 above lane 2; ``━━━`` is the race-line spot of a space (# 1.5), ``·`` the other spot; a car
is shown by its letter (``━R━`` on the race line); ``┃`` is a corner line with its speed limit above it, ``║``
the start/finish line. The limit is the one this race's rules set (a road-condition token, # 20.8), asked from
the race's Rules; ``6*`` marks one that differs from the printed limit (:func:`limits_key` says so under the strip).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine.decide import waiting_for
from ..engine.errors import STEP_NAMES
from ..engine.module import car_facts, card_namer, race_words, rules_lines, spaces_moved, turn_row
from ..engine.module import marks as module_marks
from ..engine.state import Car, RaceState, Turn, expand
from ..formats.usertext import visible
from . import cell_len, counted
from .cards import card_short
from .listing import fit, wrap_cells
from .narrate import corner_number
from .plain import Grid, Styled

if TYPE_CHECKING:
    from .replay import RoundView

RICH_COLOURS = {
    "red": "red",
    "blue": "blue",
    "green": "green",
    "black": "bright_black",
    "white": "white",
    "yellow": "yellow",
    "grey": "grey50",
    "gray": "grey50",
    "orange": "dark_orange",
    "purple": "magenta",
}
CELL = 3  # characters per space in the strip
PREFIX = "        "  # room for the row labels ("lane 1 ")
ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


def colour_style(car: Car) -> str:
    return "bold " + RICH_COLOURS.get(car.colour.lower(), "default")


def car_labels(state: RaceState) -> dict[str, str]:
    """One distinct letter per car, for the strip: its initial, else the next unused letter of its name, else
    a digit; a Legend's colour comes first (Legend-Yellow is Y, never the G of "Legend"; issue 29). Decided in
    race (set-up) order, so a car keeps its letter for the whole race."""
    used: set[str] = set()
    out: dict[str, str] = {}
    for name, car in state.cars.items():
        # one cell each, so the strip keeps its columns: a 李 or an emoji (two cells) is never a label
        words = f"{car.colour} {name}" if car.legend else name
        letters = [ch.upper() for ch in words if ch.isalnum() and cell_len(ch.upper()) == 1]
        pick = next((ch for ch in letters if ch not in used), None)
        if pick is None:
            pick = next(str(d) for d in range(10) if str(d) not in used)
        used.add(pick)
        out[name] = pick
    return out


def _rows(n: int, width: int) -> list[range]:
    """Balanced rows of spaces that fit ``width`` (corner and finish lines take one more column each)."""
    fit = max(8, (width - len(PREFIX) - 6) // CELL)
    rows = -(-n // fit)
    per = -(-n // rows)
    return [range(s, min(n, s + per - 1) + 1) for s in range(1, n + 1, per)]


def _strip_segments(state: RaceState, width: int) -> list[list[tuple[str, str | None]]]:
    """The strip as lines of (text, car name or None) segments: the caller colours the cars."""
    t = state.track
    limits = {s: f"{n}*" if n != printed else str(n) for s, (n, printed) in race_limits(state).items()}
    labels = car_labels(state)
    out: list[list[tuple[str, str | None]]] = []
    for row in _rows(t.spaces, width):
        signs: list[tuple[str, str | None]] = [("corner".ljust(len(PREFIX)), None)]
        head: list[tuple[str, str | None]] = [("space".ljust(len(PREFIX)), None)]
        lanes: list[list[tuple[str, str | None]]] = [
            [("lane 1".ljust(len(PREFIX)), None)],
            [("lane 2".ljust(len(PREFIX)), None)],
        ]
        for s in row:
            race = t.race_lane(s)
            signs.append((" " * CELL, None))
            head.append((f"{s:>{CELL}}", None))
            for lane in (1, 2):
                fill = "━" if race == lane else " "
                name = state.spots.get((s, lane))
                if name is not None:
                    lanes[lane - 1] += [(fill, None), (labels.get(name, "?"), name), (fill, None)]
                else:
                    lanes[lane - 1].append((fill * CELL if race == lane else " · ", None))
            line = "┃" if s in limits else "║" if s == t.spaces else None
            if line is not None:
                signs.append((limits.get(s, "F"), None))
                head.append((" ", None))
                lanes[0].append((line, None))
                lanes[1].append((line, None))
        out += [signs, head, lanes[0], lanes[1], []]
    return out


def _plain(segments: list[tuple[str, str | None]]) -> str:
    return "".join(text for text, _ in segments).rstrip()


def track_strip(state: RaceState, width: int = 100) -> list[str]:
    """The track as plain text lines (see the module doc for the legend); rows are balanced to fit ``width``."""
    return [_plain(segs) for segs in _aligned(state, width)]


def _aligned(state: RaceState, width: int) -> list[list[tuple[str, str | None]]]:
    """Segments with multi-digit limits kept in their column (they borrow the blank cell that follows)."""
    lines = _strip_segments(state, width)
    for segs in lines:
        if segs and segs[0][0].startswith("corner"):
            fixed: list[tuple[str, str | None]] = []
            carry = 0
            for text, who in segs:
                if carry and text.strip() == "":
                    take = min(carry, len(text))
                    text, carry = text[take:], carry - take
                fixed.append((text, who))
                if text not in ("F",) and text.strip().rstrip("*").lstrip("-").isdigit():
                    carry += len(text) - 1
            segs[:] = fixed
    return lines


def strip_lines(state: RaceState, width: int = 100) -> list[Styled]:
    """The strip as styled lines (rich prints each as a ``Text``), each car's letter in its colour."""
    out = []
    for segs in _aligned(state, width):
        parts = [
            (chunk, colour_style(state.cars[who]) if who else ("dim" if chunk == " · " else None))
            for chunk, who in segs
        ]
        out.append(Styled(parts, no_wrap=True, rstrip=True))
    return out


def race_limits(state: RaceState) -> dict[int, tuple[int, int]]:
    """Corner line (``after_space``) -> (the limit this race's rules set, the printed limit), asked from the race's
    Rules (# 9.3; a road-condition token, # 20.8; a module's, such as rain's) for a turn with nothing in its Play
    Area: a card's Adjust (# 18.17) is one car's, for one turn, and the board draws none."""
    t = state.track
    car = next(iter(state.cars.values()), None)
    if car is None or state.rules.unchanged.corner_limit:
        return {c.after_space: (c.limit, c.limit) for c in t.corners}
    limit = state.rules.corner_limit
    turn = Turn(car.name, state.round, car.gear, car.gear)
    return {c.after_space: (limit(state, car, turn, c), c.limit) for c in t.corners}


def limits_key(state: RaceState) -> str | None:
    """The strip's note for a limit drawn with ``*`` (:func:`race_limits`); None when every limit is the printed one."""
    if all(n == printed for n, printed in race_limits(state).values()):
        return None
    return "* limit changed in this race (road conditions, # 20.8)"


def legend_line(state: RaceState) -> str:
    labels = car_labels(state)
    return "  ".join(f"{labels[n]} {n}" for n in state.cars) + "   ━ race line  ┃ corner  ║ finish"


# ---------------------------------------------------------------------------------------------- the cars table


def _gear(turn: Turn) -> str:
    shown = f"{turn.from_gear}→{turn.gear}" if turn.from_gear != turn.gear else str(turn.gear)
    return shown + "→1" if turn.cluttered else shown  # # 13.2: a cluttered hand drops the gear to 1


def next_corner(state: RaceState, car: Car) -> tuple[int, int, int] | None:
    """(corner number, limit, spaces to move to cross its line) of the next corner ahead of ``car``. The limit is
    the one in force, as the rules compute it (a road-condition token, # 20.8; the car's Play Area in its turn,
    # 18.17), not the printed one (issue 29, bug 11)."""
    p = car.progress
    ahead = state.track.corner_lines_between(p, p + state.track.spaces + 1, state.final_line)
    if not ahead:
        return None
    line, corner = ahead[0]
    turn = state.turn
    if turn is None or turn.car != car.name:
        turn = Turn(car.name, state.round, car.gear, car.gear)  # between turns: nothing in a Play Area
    limit = state.rules.corner_limit(state, car, turn, corner)
    return corner_number(state, corner.after_space), limit, line - p + 1


def spot_words(state: RaceState, car: Car) -> str:
    """The spot as the table reads it: on the race line (ahead of a car beside it, # 1.5) or beside it."""
    return "race line" if car.lane == state.track.race_lane(car.progress) else "beside the race line"


def _flips(state: RaceState, turn: Turn) -> str:
    """Cards flipped for Stress, then ``b:`` and the cards flipped for a Boost (# 5.2, 7.5); upgrades by name."""
    stress = [card_short(state, card) for purpose, card in turn.flips if purpose == "stress"]
    boost = [card_short(state, card) for purpose, card in turn.flips if purpose != "stress"]
    return " ".join(stress + (["b:" + " ".join(boost)] if boost else []))


def _corners(state: RaceState, turn: Turn) -> str:
    parts = []
    for cc in turn.corners:
        n = corner_number(state, cc.after_space)
        parts.append(f"C{n}:{cc.paid}/{cc.cost}!" if cc.spinout else f"C{n}:{cc.cost}")
    return " ".join(parts)


def _slip(turn: Turn) -> str:
    if turn.slipstream is None:
        return ""
    return f"+{turn.slipstream_moved}" if turn.slipstream else "no"


def spot_text(state: RaceState, car: Car) -> str:
    if car.name in state.hall_of_fame:
        return f"P{state.hall_of_fame.index(car.name) + 1}"
    return f"{state.track.space_of(car.progress)} L{car.lane}"


def lap_text(state: RaceState, car: Car) -> str:
    if car.name in state.hall_of_fame or car.finished:
        return "done"
    return f"{state.lap_of(car)}/{state.laps}"


def hand_text(car: Car) -> str:
    """The hand as a table sees it: a count (table mode: the cards are hidden, # 1.7)."""
    return str(car.hand_size) if car.hand is not None else f"{car.hand_size}?"


def deck_text(state: RaceState, car: Car) -> str:
    """The deck as a table sees it: its size, and the cards a Refresh put back on top, face known (# 18.21,
    MA15), top first."""
    if not car.deck_top:
        return str(car.deck_size)
    named = card_namer(state)  # (a Refresh is the Garage's: its upgrades by name and value, # 18.2)
    name = named if named is not None else lambda s, c: s.cards.label(c)
    return f"{car.deck_size}, top {', '.join(name(state, c) for c in reversed(car.deck_top))}"


TURN_COLUMNS = ("car", "gear", "played", "flips", "speed", "move", "slip", "corners", "spin")
STAND_COLUMNS = ("car", "lap", "spot", "Eng", "hand", "deck", "disc")
WIDE = 100  # narrower consoles get two tables (what each car did, where each car stands)


def cars_table(
    state: RaceState,
    turns: list[Turn],
    order: list[str] | None = None,
    *,
    car: str | None = None,
    columns: tuple[str, ...] | None = None,
    name_cells: int | None = None,
) -> Grid:
    """One row per car: what it did in ``turns`` (this round) and where it stands in ``state``. Cars are in
    ``order`` (the round's turn order), then the cars that are not in it (finished earlier). ``columns``
    picks some columns (e.g. ``TURN_COLUMNS``) for narrow consoles; ``name_cells`` cuts the names longer than
    that many terminal cells with ``…`` (a name is one word of up to 40 characters: 80 cells of wide ones).

    Columns: ``gear`` (``2→3`` when shifted), ``played`` cards, ``flips`` (cards flipped for Stress, then ``b:``
    and those flipped for a Boost), ``speed``, spaces moved (``move``, step 3 and React), ``slip`` (spaces
    slipstreamed, ``no`` when declined), ``corners`` (``C2:3``: corner 2 cost 3 Heat; ``C2:1/4!``: paid 1 of 4
    and spun out), ``spin`` (Stress taken), then the car now: ``lap``, ``spot`` (space and lane, or ``P1``
    once finished), Engine Heat, cards in hand (``7?``: hidden, table mode), deck and discard. A rich console
    prints it as a ``rich.table.Table`` (simple head, no edges, no padding); :mod:`heatlog.views.plain` as text."""
    by_car = {t.car: t for t in turns}
    names = list(order or state.order or state.cars)
    names += [n for n in state.standings() if n not in names]
    labels = car_labels(state)
    cols = (
        ("car", "left", True),
        ("gear", "right", True),
        ("played", "left", False),
        ("flips", "left", False),
        ("speed", "right", True),
        ("move", "right", True),
        ("slip", "right", True),
        ("corners", "left", False),
        ("spin", "left", True),
        ("lap", "right", True),
        ("spot", "right", True),
        ("Eng", "right", True),
        ("hand", "right", True),
        ("deck", "right", True),
        ("disc", "right", True),
    )
    keep = [i for i, (col, _, _) in enumerate(cols) if columns is None or col in columns]
    # no cell padding: the box already puts one blank between columns, so 15 columns fit 100 characters;
    # an empty corners column keeps its header readable
    shown = [cols[i] for i in keep]
    table = Grid([(col, justify, nowrap, len(col) if col == "corners" else None) for col, justify, nowrap in shown])
    for name in names:
        c = state.cars[name]
        t = by_car.get(name)
        label = name if name_cells is None else fit(name, name_cells).rstrip()
        who = Styled([(visible(f"{'▶' if name == car else ''}{labels[name]} {label}"), None)], style=colour_style(c))
        if t is None:
            did = ["", "", "", "", "", "", "", ""] if name not in state.hall_of_fame else ["finished"] + [""] * 7
            gear = "L" if c.legend else str(c.gear)
        elif (own := turn_row(state, t)) is not None:  # a turn a module plays (a Legend's card's numbers, # 19.7)
            did = [own.played, "", str(own.speed), str(t.moved), "", "", "", ""]
            gear = own.gear
        else:
            moved = spaces_moved(state, t)  # # 18.11: a re-move from the start replaces the first move
            did = [
                " ".join(card_short(state, c) for c in t.played),  # upgrades by their names, never U39 (issue 29)
                _flips(state, t),
                str(t.speed) if t.revealed or t.speed else "",
                str(moved) if t.revealed or moved else "",
                _slip(t),
                _corners(state, t),
                f"+{t.spinout_stress}S" if t.spinout else "",
                "",
            ]
            if t.cluttered:
                did[0] += " (cluttered)"
            gear = _gear(t)
        row: list[str | Styled] = [
            who,
            gear,
            *did[:7],
            lap_text(state, c),
            spot_text(state, c),
            *(
                ("-", "-", "-", "-")
                if c.legend
                else (str(c.engine), hand_text(c), deck_text(state, c), str(len(c.discard)))
            ),
        ]
        table.add_row(*(row[i] for i in keep))
    return table


def _print_cars(
    console: Any, state: RaceState, turns: list[Turn], order: list[str], car: str | None, width: int
) -> None:
    """The cars table of a wide console; the two tables of a narrow one when its cells would not fit the width
    (long cells, upgrades by name) rather than wrapped columns."""
    whole = cars_table(state, turns, order, car=car)
    if whole.natural_width() <= width:
        console.print(whole)
        return
    _print_split(console, state, turns, order, car, width)


def _print_split(
    console: Any, state: RaceState, turns: list[Turn], order: list[str], car: str | None, width: int
) -> None:
    """The two tables of a narrow console (what each car did, where each car stands)."""
    for columns in (TURN_COLUMNS, STAND_COLUMNS):
        part = cars_table(state, turns, order, car=car, columns=columns)
        over = part.natural_width() - width
        if over > 0:  # a long name: it is cut, rather than rich cutting the figures ("6…" for a spot, "s…")
            longest = max(cell_len(visible(n)) for n in state.cars)
            part = cars_table(state, turns, order, car=car, columns=columns, name_cells=max(8, longest - over))
        console.print(part)


# ---------------------------------------------------------------------------------------------- putting it together


def render_header(
    console: Any, state: RaceState, *, race: Any = None, where: str = "", name: str | None = None
) -> None:
    title = f"race {race}" if race is not None else "race"
    if name:
        title += f" ({name})"
    laps = counted(state.laps, "lap")
    modules = "".join(f", {words}" for words in race_words(state))  # the modules it plays with (their options)
    console.print(
        f"{title}: {state.track.name}, {laps}, {state.mode} mode{modules} — {where}", markup=False, highlight=False
    )


def render_narration(console: Any, lines: list[tuple[int, str, str]], state: RaceState) -> None:
    """One numbered sentence per turn (the number is the turn's place in the round's order), wrapped with a
    hanging indent."""
    labels = car_labels(state)
    width = max(40, (getattr(console, "width", 100) or 100) - 1)
    for i, name, sentence in lines:
        head = f"{i:>2}. "
        indent = " " * (len(head) + 2)
        wrapped = wrap_cells(sentence, width - len(indent)) or [""]
        parts: list[tuple[str, str | None]] = [
            (head, None),
            (labels.get(name, "?"), colour_style(state.cars[name]) if name in state.cars else ""),
            (" " + wrapped[0], None),
        ]
        parts += [("\n" + indent + more, None) for more in wrapped[1:]]
        console.print(Styled(parts), highlight=False, soft_wrap=True)


def render_round_head(
    console: Any, rv: RoundView, *, race: Any = None, name: str | None = None, of: int | None = None
) -> None:
    """The first lines of :func:`render_round`: the race, the round (and step of a round under way), the turn order
    (the lines the terminal's step-through keeps on screen whatever else scrolls)."""
    state = rv.end
    if rv.number == 0:
        where = "set-up"
    else:
        where = f"round {rv.number}" + (f" of {of}" if of else "")
        if not rv.complete:
            w = waiting_for(state)
            where += f", step {w.step} ({STEP_NAMES.get(w.step, '')})" if state.phase == "race" else ""
    render_header(console, state, race=race, where=where, name=name)
    if rv.order:
        adrenaline = ", ".join(rv.start.adrenaline) or "-"
        console.print(f"turn order: {' > '.join(rv.order)}   adrenaline: {adrenaline}", markup=False, highlight=False)


def render_round(
    console: Any,
    rv: RoundView,
    *,
    race: Any = None,
    name: str | None = None,
    of: int | None = None,
    car: str | None = None,
    waiting: bool = False,
) -> None:
    """The board at the end of round ``rv`` (or now, for a round under way), the cars table and the narration."""
    render_round_head(console, rv, race=race, name=name, of=of)
    console.print()
    render_round_board(console, rv)
    render_round_rest(console, rv, car=car, waiting=waiting)


def render_round_board(console: Any, rv: RoundView) -> None:
    """The board of :func:`render_round`: the track strip, its key and the modules' lines."""
    state = rv.end
    width = getattr(console, "width", 100) or 100
    for line in strip_lines(state, width):
        console.print(line, highlight=False)
    console.print(legend_line(state), markup=False, highlight=False)
    if (key := limits_key(state)) is not None:
        console.print(key, markup=False, highlight=False)
    for text in module_marks(state):  # the modules' own lines (engine/module.py: Module.marks; the weather's)
        console.print(text, markup=False, highlight=False, soft_wrap=True)
    for text in rules_lines(state):  # the rules the modules set (the championship's event card, # 21.6-21.8)
        console.print(text, markup=False, highlight=False, soft_wrap=True)


def render_round_rest(console: Any, rv: RoundView, *, car: str | None = None, waiting: bool = False) -> None:
    """What follows the board in :func:`render_round`: the cars tables, the cars' facts, the narration, notes."""
    state = rv.end
    width = getattr(console, "width", 100) or 100
    if width >= WIDE:
        _print_cars(console, state, rv.all_turns(), rv.order, car, width)
    else:
        _print_split(console, state, rv.all_turns(), rv.order, car, width)
    if state.mode == "table":
        console.print("table mode: hands are hidden (counts only, marked ?)", markup=False, highlight=False)
    for name in state.grid or state.cars:  # the modules' facts of each car (the Garage's upgrades, # 18.5)
        for label, said in car_facts(state, name).items():
            if said is not None:
                console.print(f"{label} {name}: {said}", markup=False, highlight=False)
    if state.hall_of_fame:
        console.print(
            "Hall of Fame: " + ", ".join(f"{i}. {n}" for i, n in enumerate(state.hall_of_fame, 1)),
            markup=False,
            highlight=False,
        )
    lines = rv.lines(car)
    if lines:
        console.print()
        render_narration(console, lines, state)
    for who, text in rv.notes:
        if car is None or who in (None, car):
            # visible: a line break in a note is shown as \\n, not taken as one (a note could print a fake line)
            console.print(f"    note{f' ({who})' if who else ''}: {visible(text)}", markup=False, highlight=False)
    if waiting:
        console.print(f"waiting for: {waiting_for(state).text}", markup=False, highlight=False)


def car_round_lines(rv: RoundView, car: str, *, of: int | None = None) -> list[tuple[str, str]]:
    """One car's round in a few lines, (text, style): where it is in the order, its turn in words, its Heat and
    cards, and where it stands (place, space and spot, lap, the gaps to the cars around it, the next corner).
    What ``replay --car`` prints for each round instead of the whole board."""
    state = rv.end
    c = state.cars[car]
    label = car_labels(state).get(car, "?")
    where = f"round {rv.number}" + (f" of {of}" if of else "") if rv.number else "set-up"
    if car in rv.order:
        n = rv.order.index(car) + 1
        adr = ", adrenaline" if car in rv.start.adrenaline else ""
        head = f"{where} · {label} {car}: {_nth(n)} of {len(rv.order)} to move{adr}"
    else:
        head = f"{where} · {label} {car}: finished, not in this round's order"
    out = [(head, "bold")]
    for _, _, sentence in rv.lines(car):
        out.append(("  " + sentence, ""))
    if c.legend:  # # 19.1: no Engine, hand or deck
        out.append(("  a Legend: moved by the Legend card", "dim"))
    else:
        before = rv.start.cars[car].engine if car in rv.start.cars else c.engine
        change = f" ({c.engine - before:+d} this round)" if c.engine != before else ""
        hand = " ".join(expand(c.hand)) if c.hand is not None else f"{c.hand_size} hidden"
        heat_in_hand = f", {c.hand.get('H', 0)} Heat in hand" if c.hand is not None else ""
        out.append(
            (
                f"  Engine {c.engine} Heat{change}{heat_in_hand} · hand {hand} · deck {deck_text(state, c)}"
                f" · discard {len(c.discard)}",
                "",
            )
        )
    standings = state.standings()
    place = standings.index(car) + 1
    if c.finished or car in state.hall_of_fame:
        out.append((f"  finished {_nth(place)} (round {state.finish_rounds.get(car, '?')})", ""))
    else:
        parts = [
            f"{_nth(place)} of {len(standings)}",
            f"space {state.track.space_of(c.progress)} ({spot_words(state, c)})",
            f"lap {state.lap_of(c)}/{state.laps}",
        ]
        i = standings.index(car)
        if i > 0 and standings[i - 1] not in state.hall_of_fame:
            gap = state.cars[standings[i - 1]].progress - c.progress
            parts.append(f"{_spaces(gap)} behind {standings[i - 1]}" if gap else f"beside {standings[i - 1]}")
        if i + 1 < len(standings):
            gap = c.progress - state.cars[standings[i + 1]].progress
            parts.append(f"{_spaces(gap)} ahead of {standings[i + 1]}" if gap else f"beside {standings[i + 1]}")
        nxt = next_corner(state, c)
        if nxt is not None:
            parts.append(f"next: corner {nxt[0]}, limit {nxt[1]}, {_spaces(nxt[2])} ahead")
        out.append(("  " + " · ".join(parts), ""))
    for who, text in rv.notes:
        if who in (None, car):
            out.append((f"  note{f' ({who})' if who else ''}: {visible(text)}", "dim"))
    return out


def _spaces(n: int) -> str:
    return f"{n} space{'s' if n != 1 else ''}"


def _nth(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def render_car_round(console: Any, rv: RoundView, car: str, *, of: int | None = None) -> None:
    """``car_round_lines`` on the console (user text printed literally)."""
    width = max(40, (getattr(console, "width", 100) or 100) - 1)
    for text, style in car_round_lines(rv, car, of=of):
        indent = "  " if text.startswith("  ") else ""
        lines = wrap_cells(text.strip(), width - len(indent) - 2) or [""]
        console.print(indent + ("\n" + indent + "  ").join(lines), style=style, markup=False, highlight=False)


def render_state(console: Any, state: RaceState, race: Any = None) -> None:
    """The board now (``heatlog show``): the current round as far as it went, rendered like a replayed round."""
    from .replay import current_round

    render_round(console, current_round(state), race=race, waiting=True)
