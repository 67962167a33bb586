"""Error taxonomy shared by every layer (python-chess style: malformed / illegal / ambiguous)."""

from __future__ import annotations

import json
from typing import Any

from .steps import STEP_NAMES


class HeatlogError(Exception):
    """Base of every error a user can cause. The message names where it happened and which rule.

    ``kind`` is the machine's word (JSON, ``--rules``); ``words`` the first words a user reads, the kind of problem
    in plain words ("not understood", "not allowed by the rules", "not found", "can't read the file"): each class
    has its own, and a raise site may say better (``words=``: a name typed that does not exist is not found, not
    "not understood")."""

    kind = "error"
    words = "error"

    def __init__(
        self,
        message: str,
        *,
        race: Any = None,
        round: int | None = None,
        step: int | None = None,
        car: str | None = None,
        input: Any = None,
        rule: str | None = None,
        words: str | None = None,
    ) -> None:
        if words is not None:
            self.words = words
        self.message = message
        self.race = race
        self.round = round
        self.step = step
        self.car = car
        self.input = input
        self.rule = rule
        super().__init__(self.describe())

    def describe(self) -> str:
        where: list[str] = []
        if self.race is not None:
            where.append(f"race {self.race}")
        if self.round is not None:
            where.append(f"round {self.round}")
        if self.step is not None:
            where.append(f"step {self.step} ({STEP_NAMES.get(self.step, '?')})")
        if self.car is not None:
            where.append(f"car {self.car}")
        head = f"{self.kind}: " + (", ".join(where) + ": " if where else "")
        if self.input is not None:
            head += f"{shown_input(self.input)}: "
        tail = f" (# {self.rule})" if self.rule else ""
        return head + self.message + tail

    def located(self, **where: Any) -> HeatlogError:
        """Fill in location fields that are still unknown (e.g. the race id at the store boundary)."""
        for key, value in where.items():
            if getattr(self, key, None) is None and value is not None:
                setattr(self, key, value)
        self.args = (self.describe(),)
        return self

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "message": self.message,
            "race": self.race,
            "round": self.round,
            "step": self.step,
            "car": self.car,
            "input": self.input,
            "rule": self.rule,
        }


MAX_SHOWN = 300


def shown_input(value: Any) -> str:
    """The input as the message shows it: JSON, an embedded track or position by name only, cut if long."""
    if isinstance(value, str):
        text = value
    else:
        if isinstance(value, dict):
            value = {
                k: (
                    f"<{k} {v.get('id', '')}>".replace(" >", ">")
                    if isinstance(v, dict) and k in ("track", "position")
                    else v
                )
                for k, v in value.items()
            }
        text = json.dumps(value, sort_keys=True, default=repr)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


class MalformedInput(HeatlogError):
    """The input cannot be read: bad JSON, wrong fields, unknown card token, schema violation."""

    kind = "malformed"
    words = "not understood"


class IllegalEvent(HeatlogError):
    """Well-formed, but the rules (or the turn order) forbid it now."""

    kind = "illegal"
    words = "not allowed by the rules"


class AmbiguousInput(HeatlogError):
    """The input could mean more than one thing; say which."""

    kind = "ambiguous"
    words = "ambiguous"


class StoreError(HeatlogError):
    """The event store cannot do what was asked (damaged, locked or foreign file, conflict)."""

    kind = "store"
    words = "can't use the database"


class UnknownRace(StoreError):
    """The database holds no race of that id. It names the database and what it does hold (how many races,
    the lowest and highest id) so that a shell can say where to look instead of a bare "no race 99"."""

    words = "not found"

    def __init__(self, race: int, path: str, held: int, first: int | None, last: int | None) -> None:
        self.asked, self.path, self.held, self.first, self.last = race, path, held, first, last
        super().__init__(f"no race {race} in {path} ({held_words(held, first, last)})")


def held_words(held: int, first: int | None, last: int | None) -> str:
    """What a database holds, in words: "it holds no race yet", "it holds race 1", "it holds 3 races, 1 to 3"."""
    if held == 0 or first is None or last is None:
        return "it holds no race yet"
    if held == 1:
        return f"it holds race {first}"
    return f"it holds {held} races, {first} to {last}"


class ConflictError(StoreError):
    """Another writer appended to the same race first; nothing was written."""

    kind = "conflict"
    words = "conflict"


#: The first words of the problems raised with ``words=`` (one spelling everywhere).
NOT_FOUND = "not found"
CANT_READ = "can't read the file"
CANT_WRITE = "can't write the file"
DAMAGED = "damaged log"
REFUSED = "refused"
BY_THE_RULES = IllegalEvent.words  # a set-up the rules forbid (2 to 6 cars) is refused in the same words
