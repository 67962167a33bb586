"""The descriptor classes of a module (``Module`` and the pieces it is made of: ``Notation``, ``Flag``,
``TurnRecord`` …), apart from the registry (engine/module.py): a module folder's ``__init__`` imports them to
declare its ``MODULE``, and a race that plays no module never loads them (issue 32 item 4: start-up). Every name
here is also ``heatlog.engine.module``'s (loaded there at its first use), where the shells and the folders name
them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from .events import EventType
from .written import lite

if TYPE_CHECKING:
    from .decide import Waiting
    from .ruleset import Rules
    from .state import Car, RaceState, Turn

Event = dict[str, Any]
_EMPTY: Mapping[str, Any] = MappingProxyType({})


@lite(frozen=True, slots=True)
class Notation:
    """How the table types one of a module's events, and how heatlog words it (pure functions).

    ``question(state)`` -> (prompt, hint, answers for Tab completion); ``parse(state, text)`` -> the event
    (a ``ValueError`` refuses the answer with its words); ``answer(event)`` -> the text that makes the event,
    so ``parse(state, answer(ev)) == ev`` (the contract test round-trips it); ``words(event)`` -> the event in
    a short sentence (the recorder's log line, the narration).

    ``kind`` names the recorder's question (``Question.kind``: what the session, the scripted host and the table
    server see; "module" unless the module keeps a name of its own, the weather's "weather" and "road", the
    Legends' "legend"); the question is for the car the race waits for, else for the car whose turn it is (a
    Legend's card), else for nobody (the host). ``echo(state, event)``, when given, is what the recorder echoes
    for a typed answer, given the race before it (the Legend card with the helmet number printed for that
    Legend, # 19.4); ``several``: one answer holds several words (the weather's tokens, one per corner: the
    table server offers them as a row of tokens, not as buttons)."""

    question: Callable[[RaceState], tuple[str, str, tuple[str, ...]]]
    parse: Callable[[RaceState, str], Event]
    answer: Callable[[Event], str]
    words: Callable[[Event], str]
    kind: str = "module"
    echo: Callable[[RaceState, Event], str] | None = None
    several: bool = False
    #: The events one answer makes when it may make several (a season draft's picks left, typed in pick order,
    #: # 21.2; the sponsorship cards drawn at once, # 21.4, 21.7): ``parse_many(state, text)`` -> the events, in
    #: order (the recorder checks them together, each as it is applied); None: ``parse``'s one event.
    parse_many: Callable[[RaceState, str], list[Event]] | None = None
    #: The answer as the table types it, the race's cards by the words the host reads them by (``typed(event,
    #: nm)``, ``nm(token)``: an upgrade's short name, # 18.2); None: ``answer``.
    typed: Callable[[Event, Callable[[str], str]], str] | None = None
    #: Whether the events of this kind that follow one another go on one answer in the race ``race_started``
    #: starts (``together(race_started)``: the scripted host types them so); None: one answer each.
    together: Callable[[Event], bool] | None = None
    #: What Enter means at its question (the season draft's swap: ``keep``, # 21.2), shown with it; None: nothing.
    default: str | None = None
    #: Its question as the terminal shows it, a regular expression whose group 1 is the car (empty for the
    #: host): how the scripted host (recorder/script.py) tells it on a screen; None: not told there.
    screen: str | None = None


#: What a module's ``BotPolicy.decide`` returns to say "go on" (the step may be skipped; not an event).
GO_ON: dict[str, Any] = {"type": "go on"}  # (compared by identity; never changed)


#: The heuristic's value of ending the turn under way at a position with a speed: ``end_value(state, car, q,
#: speed)``, in the bot's units (spaces); handed to ``BotPolicy.decide`` by the bot.
EndValue = Callable[["RaceState", "Car", int, int], float]


@lite(frozen=True, slots=True)
class BotPolicy:
    """How the bots play a module's races (``Module.bot_policy``): its decisions and its cards, as pure functions of
    the engine's state and legal decisions; the bot hands over its own valuation (``EndValue``), so the engine
    never imports a bot. The random bot needs none of it: it draws among the legal decisions the engine lists.

    ``decide(state, car, waiting, options, end_value)``: the heuristic's choice for a decision of the module
    (``options``: the legal decisions, a lazy list: read it only when needed), ``GO_ON`` to go on, or None to leave
    the decision to the heuristic's base choices, except for the kinds in ``owns``, where None is the answer.
    ``card_plans(state)``: the race's module cards as the planner counts them, token -> (Speed, "+" flips, Heat
    cost), the same mapping object for the same cards (the planner keys its caches by it). ``planned_turn(state,
    car, gear, cards, paid)``: the turn a play would be once revealed, its Heat costs paid (``paid``) or its cards
    replaced: the planner asks the Rules' ``corner_limit`` with it, so a card that changes a limit counts (# 18.17).
    ``searched``: whether the search bot's playouts may play its races (False: it leaves them to the heuristic).
    ``spinout_eliminates(state)``: whether a spinout ends the car's race in this race (the championship's event 10,
    MODULES.md 21.8, MA21: 0 points, last place), which the planner weighs beyond the spaces and Stress it loses."""

    decide: Callable[[RaceState, Car, Waiting, Any, EndValue], dict[str, Any] | None] | None = None
    owns: frozenset[str] = frozenset()
    card_plans: Callable[[RaceState], Mapping[str, tuple[int, int, int]]] | None = None
    planned_turn: Callable[[RaceState, Car, int, list[str], bool], Turn] | None = None
    searched: bool = True
    spinout_eliminates: Callable[[RaceState], bool] | None = None


@lite(frozen=True, slots=True)
class FactColumn:
    """A column a module adds to a statistics table (``Module.turn_columns``, ``Module.race_columns``): its
    name, its type (``"int"``, ``"str"``, ``"bool"``; NULL allowed in every one), its value in a race without the
    module, and what it means (docs/study.md, docs/stats.md list them from here)."""

    name: str
    type: str
    default: Any
    doc: str


@lite(frozen=True, slots=True)
class Flag:
    """One command-line option of a module (issue 26, build 5): the commands that start races (``new``,
    ``simulate``, ``record --new``) build their flags from the registry, never by a module's name.

    ``param`` is the command's parameter (the key ``Module.from_flags`` reads its value by); ``decls`` its
    spellings (``("--garage",)``); ``kind`` ``"bool"`` (a switch, off by default), ``"int"`` (``default``, else
    0), ``"str"`` (None unless given) or ``"strs"`` (repeatable: a list, None unless given); ``commands`` the
    commands that take it (a module may word one option differently per command: two ``Flag``s of one param)."""

    param: str
    decls: tuple[str, ...]
    help: str
    kind: str = "bool"
    default: Any = None
    commands: tuple[str, ...] = ("new", "simulate")
    #: The words a form shows for it (the table server's set-up page, a switch of ``record``); None: its help.
    label: str | None = None
    #: The set-up event kind its value is recorded as (the weather's ``--tile``: ``weather_drawn``, # 20.2), so
    #: that a refusal of that event names the option typed; None: it gives no event.
    gives: str | None = None
    #: ``simulate --season`` refuses it, in these words: what it chooses, the season decides itself (the
    #: Garage's draft method: one upgrade drafted before each race, # 21.2); None: the season takes it (as its
    #: ``season`` command's flag of the same param) or refuses its module.
    not_in_season: str | None = None
    #: Each of its values is a car the module adds, after the players' (a ``--legend COLOUR``, # 19.3): a refusal
    #: of that car names the value as typed (``--legend pink: …``).
    cars: bool = False


class Said(Protocol):
    """How a season's refusal names one of its arguments (``said(key, fallback, at)``): as the user typed it (the
    ``typed`` mapping of ``season.new_season``: ``"--legends 9"``; ``at``: which of a repeated option), else by
    ``fallback``."""

    def __call__(self, key: str, fallback: str, at: int = 0) -> str: ...


@lite(frozen=True, slots=True)
class SeasonHook:
    """What a module adds to a championship season (MODULES.md 21; ``Module.season``, issue 26): the season
    (heatlog/season, log/season_view.py, its CLI and page) iterates the registry's hooks and never names a module.

    A module's season block is ``season_started.options[name]``, the key the season stream has kept it under
    since the first seasons, so the streams written before the hook load unchanged. Every piece is a plain
    function of that block (or of the options the caller gave), pure like the rest of the engine.

    ``words``/``rule``: the module in words and its rules item (a season refuses a module without a hook naming
    the ones it plays). ``count(given, said)``: how many cars its options add to every race, checked before the
    drivers are (the Legends: 0 to 5, # 19.2); ``solo``: the words that tell a lone driver how this module lets
    one driver race a season (# 19.16: against Legends), so one driver is enough when it adds cars;
    ``driver_problem(name)``: the words that refuse a driver's name (a Legend is no driver, # 19.1).
    ``setup(given, drivers, data, said)``: its season block from the options as given (None: not in the season;
    ``data``: its data file's content, read by the season); ``MalformedInput`` refuses in words.
    ``cars(block)``: the cars it adds to every race after the drivers (they race and score, # 21.10, and never
    draft, # 19.12), counted in the season's words as ``car_noun``.
    ``race(block)``: its options in each race of the season (``race_started_event(modules=)``; # 21.3: the
    weather's, revealed after the draft). ``schema``: its season block's schema."""

    words: str
    rule: str = ""
    count: Callable[[Any, Said], int] | None = None
    solo: str | None = None
    driver_problem: Callable[[str], str | None] | None = None
    setup: Callable[[Any, Sequence[Mapping[str, Any]], Any, Said], Any] | None = None
    cars: Callable[[Any], list[dict[str, str]]] | None = None
    car_noun: str = "car"
    race: Callable[[Any], Any] | None = None
    #: The event-card effects the season's races apply because it plays (the Garage's sponsorship cards and press
    #: corners, # 21.4-21.9: their symbols are the Garage's, # 21.5); the season says the others are not applied.
    effects: frozenset[str] = frozenset()
    #: What a finished race of the season gives the next ones (# 21.11: the upgrades each driver owns; MA7: the
    #: sponsorship cards kept; # 18.24, 18.5: the cards out of the supply and in the box): ``finished(state,
    #: drivers, events)`` -> the ``SeasonRace`` fields it fills, by name ({}: nothing, as in a race it does not
    #: play); ``drivers``: the season's drivers (the cars a module adds never draft, # 19.12); ``events``: the
    #: race's effective events, or None when they cannot be read.
    finished: Callable[[RaceState, list[str], list[Event] | None], dict[str, Any]] | None = None
    #: Its part of each race's championship block (``race_started.championship``): ``race_block(view, index,
    #: files)`` -> the keys it adds (the Garage's draft before the race and its sponsorship cards, # 21.2, 21.4-21.7;
    #: ``view``: the season's state, log/season_view.SeasonView, read only), and the cards it adds to each race's
    #: own (``race_cards(block, files)``: the sponsorship cards, # 21.5). ``files``: its ``files`` read, by path
    #: under ``heatlog/data/`` (the engine reads no file: the season does).
    race_block: Callable[[Any, int, Mapping[str, Any]], dict[str, Any]] | None = None
    race_cards: Callable[[Any, Mapping[str, Any]], dict[str, Any]] | None = None
    files: tuple[str, ...] = ()
    #: Its lines under ``season next``'s (a view piece, in words): what the season carries into race ``index`` and
    #: what the race's set-up of the module waits for (the Garage's upgrades and sponsorship cards kept, # 21.11,
    #: MA7, and its draft, # 21.2): ``next_lines(view, index, state, files)``, ``state`` the race as it stands.
    next_lines: Callable[[Any, int, RaceState, Mapping[str, Any]], list[str]] | None = None
    #: Its keys in ``season show --json`` (asked of every season module, whether the season plays it or not, so
    #: that every season's JSON has one shape; their values None when it does not play): ``race_json(race)`` after
    #: each race's keys (``race``: a ``SeasonRace``), ``season_json(view)`` after the season's; and its lines in
    #: ``season show``'s text, ``show_lines(data, files)`` from that JSON (``data``), after the standings.
    race_json: Callable[[Any], dict[str, Any]] | None = None
    season_json: Callable[[Any], dict[str, Any]] | None = None
    show_lines: Callable[[Mapping[str, Any], Mapping[str, Any]], list[str]] | None = None
    #: The keys of each race's ``race_started`` the season's audit holds to what the season gives (the Garage's
    #: options and the race's cards, # 21.2, 21.5), and the words that say one differs; (): none.
    audited: tuple[str, ...] = ()
    audit_words: str = ""
    #: The schema of its season block (a name under ``schema/``, as ``Module.options_schema``), added to
    #: ``season_started``'s options where that file does not spell it (formats/schemas.py); None: the file does.
    schema: str | None = None
    #: A race of the season entered by its result (``heatlog season result``, issue 29) and the facts the module
    #: adds to it (the Garage's draft and sponsorship cards, # 21.2, 21.4-21.9). ``result_flags``: its options of
    #: ``season result`` (``Flag.commands`` ``("season result",)``; ``param``: the key the typed value is handed
    #: by, and the ``race_result`` field a refusal names it for). ``result_entry(block, typed, files, refuse,
    #: words)`` -> the keys it adds to the ``race_result`` from the values typed (``block``: its season block,
    #: None when the season does not play it, which then refuses what was typed; ``refuse(what, rule, car=,
    #: option=, given=)`` makes the refusal; ``words(text, option)`` splits a typed list). ``result(view, index,
    #: block, race, entry, refuse)`` checks the entry's facts against the rules and returns the ``SeasonRace``
    #: fields they give the season, by name, as ``finished`` does (``race``: a ``ResultRace``, the race as the
    #: season sets it up, its grid set). ``result_grid``: the words that refuse a first race entered without its
    #: grid ("": the module needs none).
    result_flags: tuple[Flag, ...] = ()
    result_entry: Callable[[Any, Mapping[str, Any], Mapping[str, Any], Any, Any], dict[str, Any]] | None = None
    result: Callable[[Any, int, Any, Any, Mapping[str, Any], Any], dict[str, Any]] | None = None
    result_grid: str = ""


@lite(frozen=True, slots=True)
class SampleRace:
    """A simulated race a generated page shows (``Module.samples``, ``Module.goldens``; heatlog/docsgen/samples.py):
    its file name, its title in words, the ``simulate_race`` keyword arguments that make it (the seed picked for
    what happens in the race) and, for a golden playthrough, whether it is kept in table mode (# 1.7)."""

    file: str
    title: str
    args: Mapping[str, Any]
    table: bool = False


@lite(frozen=True, slots=True)
class CardTable:
    """One table of docs/cards.md a module adds (``Module.card_tables``): its heading, its column names and its
    rows of plain words (the first cell a card's short name, which the page shows as code; the page sorts the rows
    by it and escapes the rest)."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@lite(frozen=True, slots=True)
class Module:
    """One optional module of the rules, whole (see the module docstring)."""

    name: str
    #: (rules so far, the module's options from race_started) -> rules: wrap the points, never replace one.
    build: Callable[[Rules, Any], Rules] | None = None
    #: Its event types (``EventType.module`` is ``name``); ``register_unit`` puts them in the catalogue.
    events: tuple[EventType, ...] = ()
    #: Where its Rules compose when a position rebuilds them (lower first: the Garage replaces points, so first).
    rank: int = 100
    #: Where it registers (lower first): the order of its event types in the catalogue (docs/events.md) and of its
    #: block in a position. The first waves' modules keep the order they had: weather 1, Legends 2, championship
    #: 3, Garage 4; a new module, 100 (then by name).
    order: int = 100
    #: race_started: read and check its options (``ev[name]``) into its state; ``ValueError`` refuses the race.
    start: Callable[[RaceState, Event], None] | None = None
    #: Its block under ``position.modules[name]`` (None: nothing to write) and the way back.
    to_position: Callable[[RaceState], Any] | None = None
    from_position: Callable[[RaceState, Any, Mapping[str, Any]], None] | None = None
    #: Keys it writes at the top of the position (the championship's ``sponsor_deck``, written there before the
    #: descriptor existed: positions keep their shape) and the way back, given the whole position.
    top_to_position: Callable[[RaceState], dict[str, Any]] | None = None
    top_from_position: Callable[[RaceState, Mapping[str, Any]], None] | None = None
    #: The position's block is its race_started options (the championship's): a rebuilt race's Rules get it.
    options_in_position: bool = False
    #: The key of its position block that holds the race's cards beyond the base (the Garage's "cards"), which
    #: the position then does not write again; None: the position's own ``cards`` carry them.
    cards_key: str | None = None
    #: The world's draw of its chance events when the race waits for one of them, else None.
    chance: Callable[[RaceState, random.Random], Event | None] | None = None
    #: The set-up phases it adds (a position may stand in one).
    phases: tuple[str, ...] = ()
    #: Copy of its slot in ``state.modules`` (None: the slot is immutable and shared by copies).
    copy: Callable[[Any], Any] | None = None
    #: Its data file under ``heatlog/data/`` (the shells embed it in race_started; the engine never reads it),
    #: the schema of its race_started block and of its position block (names under ``schema/``).
    data: str | None = None
    options_schema: str | None = None
    position_schema: str | None = None
    #: What the race waits for, in words, per event kind (``Waiting.text``; ``{name}``: the car it waits for,
    #: ``{count}``: ``Waiting.count``).
    waiting: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    #: The recorder's question and notation, and the narration's words, per event kind.
    notation: Mapping[str, Notation] = field(default_factory=lambda: _EMPTY)
    #: The exact odds of its chance event ``kind`` when the race waits for it alone (the game API's
    #: ``pending_chance``): ``outcomes[kind](state)`` -> (the car it is for, the cards it counts, [(event,
    #: probability)]) or None. Without one the game API lists no outcomes for it (the world still draws it).
    outcomes: Mapping[str, Callable[[RaceState], tuple[str, int, list[tuple[Event, float]]] | None]] = field(
        default_factory=lambda: _EMPTY
    )
    #: Its set-up phases that come before the starting shuffles and draws: phase -> (the refusal's words, its
    #: rules item) for a shuffle or a draw while the race stands in it (the weather's tile and tokens, # 20.3).
    before_decks: Mapping[str, tuple[str, str]] = field(default_factory=lambda: _EMPTY)
    #: View pieces: lines the board and the HTML replay show for the race (its tile, its sky …).
    marks: Callable[[RaceState], list[str]] | None = None
    #: Table-mode set-up (``races.race_started_event``): (its options as the caller gives them, its data file's
    #: content, read by the shell, the race_started event so far) -> its race_started block, or None: it stays
    #: out of the race. It may add to the event (the Garage its cards, # 18.2; the Legends their cars, # 19.1);
    #: ``ValueError`` refuses the options in words. Without one, the options are the block, as given.
    setup: Callable[[Any, Any, Event], Any] | None = None
    #: The rules the race plays by that the module sets, in words (the championship's event card and press
    #: corners, # 21.6-21.8): the board's lines after ``marks``, the HTML replay's key under the circuit.
    rules_lines: Callable[[RaceState], list[str]] | None = None
    #: The corner lines (after_space) that are press corners this race (# 21.6), which the HTML replay marks on
    #: the circuit; None: the module does not choose them.
    press_corners: Callable[[RaceState], set[int] | None] | None = None
    #: A car's facts the module adds to the board and the HTML replay's cars table, label -> words (None: shown
    #: as nothing for that car): the Garage's ``{"upgrades": "Brakes 1/3, Heat"}`` (# 18.5).
    car_facts: Callable[[RaceState, str], dict[str, str | None]] | None = None
    #: Narration pieces (views/narrate.py): how every card of a race it plays is named (the Garage's upgrades by
    #: name and value, # 18.2); the played cards told elsewhere (played from the hand in React, # 18.19); a turn
    #: it plays itself (a Legend's, # 19.7: the sentence's parts before the finish and lap words, else None);
    #: the words of its React symbols (after the boosts); its words after the corners (sponsorship cards …).
    card_name: Callable[[RaceState, str], str] | None = None
    played_aside: Callable[[Turn], Collection[int]] | None = None
    #: The spaces a turn moved at step 3 and by React moves (the ``move`` column), where the module can change
    #: it (the Garage's re-move after an unpayable Heat cost replaces the moves before it, # 18.11); None: as the
    #: turn counts them.
    spaces_moved: Callable[[Turn], int | None] | None = None
    narrate_turn: Callable[[RaceState, Turn], list[str] | None] | None = None
    narrate_step3: Callable[[RaceState, Turn], list[str]] | None = None  # step 3's words, before the move
    narrate_react: Callable[[RaceState, Turn], list[str]] | None = None
    narrate_after: Callable[[RaceState, Turn], list[str]] | None = None
    #: Each of the module's event kinds in a few words, for the recorder's echo and undo lines:
    #: ``event_words(event, cards)`` where ``cards(tokens)`` words cards as the race names them (an upgrade by its
    #: short name); None for a kind it leaves to ``notation``'s ``words`` (the contract test asks that every
    #: declared kind be worded by one of the two).
    event_words: Callable[[Event, Callable[[list[str]], str]], str | None] | None = None
    #: A race_started block that plays the module (its data and options), for tests and the simulator's
    #: examples, given its data file's content (None when it has none).
    example: Callable[[Any], Any] | None = None
    #: How the bots play its races (``BotPolicy``), made at the first call (its folder's ``bots.py``, loaded with
    #: the first race a bot plays with it); None: the bots play it with the base game's choices alone.
    bot_policy: Callable[[], BotPolicy] | None = None
    #: The recorder's React question: what the module makes of the car's place now, in words ending "; " (the
    #: weather's sector: what it forbids or adds, # 20.7), put in the question's hint; "" when nothing.
    react_hint: Callable[[RaceState, Car], str] | None = None
    #: The cards beyond the base that car ``name`` owns in this race (the Garage's upgrades, # 18.5), in the
    #: order it got them: the table server's card buttons, the recorder's reading of a typed name (the car's own
    #: cards first).
    car_cards: Callable[[RaceState, str], Collection[str]] | None = None
    #: Statistics facts (``heatlog.stats``, a corpus's tables, issue 26): the columns it adds to each completed
    #: turn (the derived ``turns`` table, after ``led``) and their values for a turn of a race it plays,
    #: ``turn_facts(turn)`` in ``turn_columns`` order; the columns it adds to a race (a corpus's ``races`` table,
    #: after the base column ``race_after``, modules of one place by rank) and their values,
    #: ``race_facts(state, race_started)``. A race without the module gets the columns' defaults. Asked of the
    #: registry once per race, never per event.
    turn_columns: tuple[FactColumn, ...] = ()
    turn_facts: Callable[[Turn], tuple[Any, ...]] | None = None
    race_columns: tuple[FactColumn, ...] = ()
    race_after: str = "modules"
    race_facts: Callable[[RaceState, Event], tuple[Any, ...]] | None = None
    #: Its command-line options (``Flag``), and how their values make its options for ``race_started_event(
    #: modules=)`` / ``simulate_race(modules=)``: ``from_flags(values by param, the command, its data file's
    #: content) -> options``, or None: not in the race; a ``ValueError`` refuses them, naming the option typed.
    #: Without ``from_flags``, a switch puts the module in the race with its ``example`` block.
    flags: tuple[Flag, ...] = ()
    from_flags: Callable[[Mapping[str, Any], str, Any], Any] | None = None
    #: Set-up draws the table made before the race was entered (the weather's tile and tokens, # 20.2):
    #: ``given_draws(its flag values by param)`` -> the chance events recorded with race_started, before the
    #: decks ([]: none given, the recorder asks them); ``ValueError`` refuses them in words. A race whose every
    #: module with set-up ``phases`` had its draws given gets its table-mode shuffles and draws at once.
    given_draws: Callable[[Mapping[str, Any]], list[Event]] | None = None
    #: A simulated race's facts it adds to ``simulate --json``'s race (the weather's ``weather`` and
    #: ``road_conditions``, # 20.2), by key, and their words in the race table's title (None: none of its keys in
    #: the race given), ``summary_words(the race's JSON)``.
    summary: Callable[[RaceState], dict[str, Any]] | None = None
    summary_words: Callable[[Mapping[str, Any]], str | None] | None = None
    #: Its words on a car's line at the table (the recorder's one-line answers, React and the steps after it):
    #: ``react_word(state, car, word, cards)`` -> the event the word means (the Garage's ``p``, ``r2``,
    #: ``play:NAME``, ``f``, its reading of ``cN``, # 18.10-18.23), None: not the module's word (the recorder
    #: reads it); ``cards(text)`` reads cards as the table types them. ``react_answer(event, nm)`` -> the word
    #: that makes the event (``nm`` names a card as typed), None: not its event; the scripted host types it, and
    #: ``react_word`` reads it back to the event (the contract test records every module race through both).
    react_word: Callable[[RaceState, str, str, Callable[[str], list[str]]], Event | None] | None = None
    react_answer: Callable[[Event, Callable[[str], str]], str | None] | None = None
    #: The recorder's questions of its own inside a car's turn (the Garage's: step 3's value and Accelerate,
    #: # 18.6, 18.20; a Scrap's cards, # 18.12; a Salvage's shuffle, # 18.18; the unpaid Heat cost, # 18.11):
    #: ``ask(state, waiting)`` -> an ``Ask`` (None: the recorder asks its own). Asked while the race waits in a
    #: car's turn: once while it flips (before the recorder's flip question), once otherwise (before step 3's).
    ask: Callable[[RaceState, Waiting], Ask | None] | None = None
    #: The React question's hint: the words of its own React answers (the Garage's ``p``, ``rN`` …), after the
    #: recorder's.
    react_help: str = ""
    #: Whether React ends with a chance of its own still due (a Scrap's cards, # 18.12): the recorder closes
    #: React and asks it next, the discard after it.
    react_pending: Callable[[RaceState, Turn], bool] | None = None
    #: What the car may still do at the discard, in words ending "; " (a Refresh, # 18.21: "f = refresh Brakes
    #: 1/3; "), "" for nothing: the discard question offers it, and "nothing more" leaves the discard open.
    discard_words: Callable[[RaceState, Car, Turn], str] | None = None
    #: How a host's word names one of the race's cards beyond the base (``card_typed(word, cards, held)`` ->
    #: its token; ``cards``: the race's card definitions by token, each with its ``short`` name; ``held``: the
    #: tokens the car can hold, which a name means first): the module whose cards they are (the Garage's: a
    #: token, a short name or a unique prefix, # 18.2). ``MalformedInput`` names what is wrong.
    card_typed: Callable[[str, Mapping[str, Any], Collection[str] | None], str] | None = None
    #: Its set-up phases a play-out cannot start from (what the table reveals there is no draw of the game's:
    #: the Garage draft's markets, # 18.5): phase -> (the phase in words, why, the rules item). A play-out, the
    #: review and luck refuse a race standing in one, in these words (``unplayable``).
    unplayable: Mapping[str, tuple[str, str, str]] = field(default_factory=lambda: _EMPTY)
    #: How many cars its options add to the race (the Legends', # 19.1), a count or a list of cars: they count
    #: toward a race's 2-6 cars (# A14, 19.2) and the table's set-up deals them no deck (# 19.3); None: none.
    car_count: Callable[[Any], int] | None = None
    #: Its options with a count of cars made into cars (``simulate --legends 2``): ``expand(options, taken, data)``
    #: -> the options, the cars in colours the players' cars (``taken``: their colours) leave free, from its data
    #: file's content (read by the shell); ``ValueError`` refuses in words. None: the options as given.
    expand: Callable[[Any, list[str], Any], Any] | None = None
    #: Its questions in the set-up of ``record --new`` and fields of the table server's form (the Garage's
    #: options, # 18.3, 18.5; the Legends' pro and aggressive, # 19.14, 19.15), each asked after a base step.
    setup_steps: tuple[SetupStep, ...] = ()
    #: How the set-up's cars question types the cars it adds (the Legends' ``legend:COLOUR``, # 19.3); None: none.
    setup_cars: SetupCars | None = None
    #: Tokens it draws on the circuit of the HTML replay (a view piece, as data: the weather's road conditions,
    #: # 20.2): ``badges(state)`` -> the group, or None: nothing to draw.
    badges: Callable[[RaceState], Badges | None] | None = None
    #: What the sample races' pages (heatlog/docsgen/samples.py) say of it: ``highlight(state)``, its words in a
    #: finished race's sentence (where the players finish among the Legends, # 19; the weather tile, # 20);
    #: ``playthrough_head(state)``, lines under a golden playthrough's result (the Legend options); and
    #: ``playthrough_tail(state, events)``, lines after the modules' marks (the Garage's draft, # 18.5).
    highlight: Callable[[RaceState], str | None] | None = None
    playthrough_head: Callable[[RaceState], list[str]] | None = None
    playthrough_tail: Callable[[RaceState, list[Event]], list[str]] | None = None
    #: What it says about the cards the cars of a position own (``PositionCards``; formats/positions.py checks a
    #: position's cards with it), None: nothing beyond the race's ``Rules.starting_deck`` and ``engine_heat``.
    position_cards: Callable[[RaceState], PositionCards | None] | None = None
    #: Its own check of its data file's content, after the schema's (``heatlog/data/<data>``: the engine's rules
    #: read it as a race would, # 19.4, 20.1); ``ValueError`` names what is wrong. The formats ask it when they
    #: read the file (formats/module_data.py), so that they import no module's rules.
    data_check: Callable[[Any], None] | None = None
    #: The keys of a car (race_started's ``cars``, a position's) that only a race playing it may set, each with the
    #: words that refuse one elsewhere (the Legends' ``legend``, # 19.1).
    car_keys: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    #: The chance events of its own a turn may owe before it goes on (``Turn.owed``: an outcome only the table
    #: knows, event 18's Heat card, MA23), each with the words and the rules item that refuse anything else first.
    owed: Mapping[str, tuple[str, str]] = field(default_factory=lambda: _EMPTY)
    #: How the recorder reads the answers to its questions inside a car's turn (``ask``'s ``Ask.kind``), by kind:
    #: ``TurnAnswer``. Every kind ``ask`` may ask is here (the contract test checks it), so a module's question
    #: lands with no edit to the recorder's session.
    turn_answers: Mapping[str, TurnAnswer] = field(default_factory=lambda: _EMPTY)
    #: Whether its race_started block says the race's grid is given from outside the race, by the season it names
    #: (``grid_given(block)``: a season race after the first with the standings grid, # 21.12, MA11): the door
    #: then refuses a grid entered again that is not the one the season gives (log/season_view.given_grid).
    grid_given: Callable[[Any], bool] | None = None
    #: The open-to-table projection (engine/redact.py) of a race whose turns may owe such an outcome: given the
    #: race_started event, None when this race's turns never owe one, else the event the table says for a
    #: table-mode turn (``Turn.owed``) refused for it, from the open replay's same turn (None: nothing to say,
    #: the event is refused for another reason). Event 18's Heat card's pile (MA23).
    table_says: Callable[[Event], Callable[[Turn, Turn | None], Event | None] | None] | None = None
    #: Its pieces of the generated pages (heatlog/docsgen): ``doc_order`` places them among the other modules'
    #: (lower first; the first waves' keep the places they had: Legends 1, weather 2, Garage 3, championship 4; a
    #: new module, 100, then by name); ``samples``, the sample races of ``replays/`` that show it (one that plays
    #: several modules is declared by the last of them in ``doc_order``, which needs the others: its README line
    #: comes after theirs); ``goldens``, its golden playthroughs (tests/golden/); ``card_tables(read)``, its tables
    #: of docs/cards.md (``read(name)``: the JSON of ``heatlog/data/<name>``, read by the shell).
    doc_order: int = 100
    samples: tuple[SampleRace, ...] = ()
    goldens: tuple[SampleRace, ...] = ()
    card_tables: Callable[[Callable[[str], Any]], list[CardTable]] | None = None
    #: The keys of a study spec's module entry (docs/study.md) it was read by before it was a unit (the first waves':
    #: ``{"weather": true}``, ``{"legends": 2, "pro": 1, "aggressive": true}``, ``{"garage": {...}}``), so that old
    #: specs keep loading and play the same races (its upcaster, issue 26). ``study_read(given)``: the values an
    #: entry gives its keys (the keys of ``study_keys`` in the entry), checked, as the spec keeps them (JSON values;
    #: ``null``, ``false`` and ``0`` left out: not given); a ``ValueError`` reads "KEY: what is wrong". The spec
    #: keeps them as written (a corpus's configuration names are made of them) and ``study_block(kept)`` makes its
    #: options for ``simulate_race(modules=)`` from them (None: not in the race).
    study_keys: tuple[str, ...] = ()
    study_read: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    study_block: Callable[[Mapping[str, Any]], Any] | None = None
    #: The answers its own React options open at the recorder's React question (the Garage's ``p``, ``rN``, ``kN``,
    #: ``dr``, ``play:NAME``, ``salvage:CARDS``, ``u:CARDS``, # 18.10-18.23): ``react_offers(options, label)`` ->
    #: (the prompt's words, the Tab completions), shown after the recorder's own; ``options``: the React options
    #: the engine lists (``decide.react_options``), ``label(token)``: a card as the host types it.
    react_offers: Callable[[list[Event], Callable[[str], str]], tuple[list[str], list[str]]] | None = None
    #: How its events move a car's cards in sight of the table (the review's information sets, analysis/infoset.py):
    #: event kind -> (``"out"``: the cards it takes out of the car's hand, a Stress reduced # 18.15, a Direct Play
    #: # 18.19; ``"in"``: the cards it puts in the hand, shown, a sponsorship card # 21.4, 21.7; ``"top"``: the top
    #: of the deck it shows, as a flip does, a Scrap's card # 18.12; ``cards(event)`` -> their tokens).
    hand_moves: Mapping[str, tuple[str, Callable[[Event], list[str]]]] = field(default_factory=lambda: _EMPTY)
    #: What it adds to a championship season (``SeasonHook``: its season block, its races' options, the cars it
    #: adds, …); None: a season does not play it (MODULES.md 21).
    season: SeasonHook | None = None
    #: Its record of a car's turn (``Turn.modules[name]``: the Garage's, a Legend's move, the championship's
    #: lists), how a position keeps it and how a turn's copy copies it (``TurnRecord``); None: it keeps none.
    turn_record: TurnRecord | None = None
    #: The event kinds of its own after which a car's one-line entry of its turn stops, the rest asked at their
    #: own questions or at the React prompt (the Garage's Scrap, Salvage, Refresh and unpaid cost, # 18.11-18.21;
    #: the championship's sponsorship card drawn, # 21.7): the scripted host (recorder/script.py) types no more
    #: of the turn on the reveal's line when one of them follows.
    line_ends: frozenset[str] = frozenset()
    #: A turn it plays itself, as the row of a turn shows it (the terminal board, views/board.py, and the HTML
    #: replay's, views/replay_html.py): ``turn_row(turn)`` -> its cells (``TurnRow``: what stands for the cards
    #: played, the speed, the gear; a Legend's card's numbers, MODULES.md 19.7, 19.8), None: a car's own turn,
    #: shown by its cards.
    turn_row: Callable[[Turn], TurnRow | None] | None = None
    #: The cards its record of a turn took out of the game, in order, each by where it came from (event 18's Heat
    #: cards, MA23: "engine", "hand", "discard", "deck"): ``removed_cards(turn)``, empty for a turn that took none.
    #: The review's information sets (analysis/infoset.py) take them out of the car's cards the table sees.
    removed_cards: Callable[[Turn], Sequence[str]] | None = None


@lite(frozen=True, slots=True)
class TurnRow:
    """A turn a module plays itself in a turn's row of the board and of the HTML replay (``Module.turn_row``):
    ``played``, the short words that stand for its cards (the terminal board's column), ``played_long``, the
    same in full (the HTML replay's), ``speed``, its speed column, ``gear``, its gear column (a Legend's "L")."""

    played: str
    played_long: str
    speed: int
    gear: str


@lite(frozen=True, slots=True)
class TurnRecord:
    """A module's record of a car's turn (``Module.turn_record``), kept in ``Turn.modules[name]`` and read through
    an accessor of its folder (the Garage's ``garage_turn``, the Legends' ``legend_move``, the championship's
    ``championship_turn``): the core copies it and writes it in positions without knowing what it holds.

    A position keeps it as the module's own keys in the turn's dict, where they were before the record existed
    (positions keep their shape, byte for byte): ``to_position(record)`` -> those keys and their JSON values, asked
    of every turn, None for a turn without the record (the Legends write ``"legend": null`` in every turn, as they
    always did); ``from_position(the turn's dict)`` -> the record, or None; ``keys``: every key it may write (the
    schema's, tests/test_properties.py); ``after``: the base field of ``Turn`` its keys follow in the turn's dict
    (None: after every base key). ``copy(record)``: an independent copy for ``Turn.copy`` (None: the record is
    immutable and shared by copies)."""

    keys: tuple[str, ...]
    to_position: Callable[[Any], dict[str, Any]]
    from_position: Callable[[Mapping[str, Any]], Any]
    after: str | None = None
    copy: Callable[[Any], Any] | None = None


@lite(frozen=True, slots=True)
class PositionCards:
    """What a module of a race says about the cards a position's cars own, beyond the race's starting deck and
    Engine (``Module.position_cards``; the position check in formats/positions.py asks it, never a module).

    ``unbuilt``: the cars hold no cards yet in the phase the race stands in (the Garage's draft, # 18.4).
    ``start(stress, engine)``: the Stress a car owns and its Engine's Heat after the module's start effect (the
    weather tile's, # 20.3), from what the car owned before. ``floating``: cards whose holder only the race's
    history says (the sponsorship cards, # 21.4, 21.7), token -> copies in the race: checked over the race by
    ``floating_problems(state, held)`` (``held``: each token's copies in every car's cards) -> (path, words).
    ``heat_less(state, car)``: how much of its own Heat a car may hold less, and why, in words (event 18, MA23)."""

    unbuilt: bool = False
    start: Callable[[int, int], tuple[int, int]] | None = None
    floating: Mapping[str, int] = field(default_factory=lambda: _EMPTY)
    floating_problems: Callable[[RaceState, Mapping[str, int]], list[tuple[str, str]]] | None = None
    heat_less: Callable[[RaceState, Car], tuple[int, str]] | None = None


class Ask:
    """A question of a module's own inside a car's turn, as data (``Module.ask``): the recorder makes its
    ``Question`` of it (the same fields) and reads the answer by ``kind``; ``auto``: the event the rules
    determine (told, never asked)."""

    __slots__ = ("kind", "car", "prompt", "default", "hint", "options", "auto")

    def __init__(
        self,
        kind: str,
        car: str | None,
        prompt: str,
        default: str | None = None,
        hint: str = "",
        options: tuple[str, ...] = (),
        auto: Event | None = None,
    ) -> None:
        self.kind, self.car, self.prompt, self.default = kind, car, prompt, default
        self.hint, self.options, self.auto = hint, options, auto

    def __repr__(self) -> str:
        return f"Ask({self.kind!r}, {self.car!r}, {self.prompt!r})"


@lite(frozen=True, slots=True)
class TurnAnswer:
    """How the recorder reads the answer to one of a module's questions inside a car's turn (``Module.ask``'s
    kind; ``Module.turn_answers``).

    ``read(state, car, text, cards)`` -> the events the answer makes at ``state`` (``cards(text)``: the shell's
    reading of cards as typed, the car's own first); ``MalformedInput`` or ``ValueError`` refuses it in words.
    ``event``: the event type an answer makes; ``typed(event, nm)`` -> the answer that makes it (``nm(token)``:
    a card as the host types it), so ``read(state, car, typed(ev, nm), cards) == [ev]`` at the state before it
    (the contract test round-trips it; the scripted host types it). ``line``: the question may be a later part of
    a car's one-line entry (one word each: step 3's value, a Scrap's card, # 18.6, 18.12), which the recorder
    walks. ``walks``: alone too, the answer is walked as a line (its words answer the questions that follow, one
    each: a Scrap's cards); else the whole answer is read at once (Enter: the question's default). ``screen``:
    its question as the terminal shows it, a regular expression whose group 1 is the car (the scripted host,
    recorder/script.py); ``cards``: it is answered with cards (the table server's card picker)."""

    read: Callable[[RaceState, str, str, Callable[[str], list[str]]], list[Event]]
    event: str
    typed: Callable[[Event, Callable[[str], str]], str]
    screen: str
    line: bool = False
    walks: bool = False
    cards: bool = False


@lite(frozen=True, slots=True)
class SetupStep:
    """A set-up question a module adds to ``record --new`` (recorder/wizard.py) and a field of the table server's
    set-up form, asked after the base step ``after`` (``"cars"``, ``"mode"`` …).

    ``key`` names the answer and the form's field; ``read(typed, answers)`` -> (its value, the echo's words),
    given the answers so far (``ValueError`` or ``MalformedInput`` refuses in words); ``options(value, so_far)``
    -> the module's options with the value in (``so_far``: what the set-up gave the module before, None: nothing;
    None back: the module stays out); ``asked(answers)``: whether it is asked at all (None: always)."""

    key: str
    after: str
    prompt: str
    label: str
    placeholder: str
    read: Callable[[str, Mapping[str, Any]], tuple[Any, str]]
    options: Callable[[Any, Any], Any]
    asked: Callable[[Mapping[str, Any]], bool] | None = None


@lite(frozen=True, slots=True)
class SetupCars:
    """How the set-up's cars question (``NAME:COLOUR`` each) types the cars a module adds: ``WORD:COLOUR`` (the
    Legends' ``legend:black``, # 19.3). ``car(colour)`` -> the car (named after its colour); ``check(cars, data)``
    -> the refusal's words for cars its data file does not allow (a colour no Legend card has, # 19.4), or None;
    ``label`` words them in the echo ("Legends"). The cars become the module's options' ``cars``."""

    word: str
    label: str
    car: Callable[[str], dict[str, str]]
    check: Callable[[list[dict[str, str]], Any], str | None] | None = None
    #: One of them as typed, for the refusal of a car not written NAME:COLOUR ("a Legend: legend:black").
    example: str = ""


@lite(frozen=True, slots=True)
class Badge:
    """One token a module draws on the circuit (``Module.badges``), as data the view draws: a badge under the
    sign of each corner line in ``lines`` (``kind`` "corner"), or a tent beside the middle of the sector
    ``sector`` (first and last space; ``kind`` "sector"); ``text``: its few characters, ``title``: its words."""

    kind: str
    corner: int
    token: str
    text: str
    title: str
    lines: tuple[int, ...] = ()
    sector: tuple[int, int] | None = None


@lite(frozen=True, slots=True)
class Badges:
    """A module's tokens on the circuit (``Module.badges``): the SVG group's class and attributes (the weather's
    ``road-conditions``, ``data-weather``) and its badges, in racing order."""

    group: str
    attrs: Mapping[str, str]
    items: tuple[Badge, ...]
