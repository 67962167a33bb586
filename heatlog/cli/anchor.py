"""Anchors: each race's head, to keep somewhere else (a note, a chat, a git repository)."""

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from .common import DbOpt, RaceOpt, app, fail, open_log, user_errors


@app.command()
@user_errors
def anchor(race: RaceOpt = None, db: DbOpt = None) -> None:
    """Print each race's anchor (race, last seq, head hash), one JSON line per race, to keep elsewhere.

    `heatlog audit --anchor FILE` later tells whether a log was cut short or rewritten since (even re-hashed
    consistently, which no check inside the file can see). Appending events afterwards is fine.

    Example: heatlog anchor >> ~/heatlog-anchors.jsonl
    """
    from ..store import DamagedLog

    damaged = []
    with open_log(db) as log:
        ids = [log.resolve(race)] if race is not None else [i.id for i in log.store.races()]
        for rid in ids:
            # An anchor vouches for the log as it stands: a log whose chain is already broken gets none (kept
            # elsewhere, it would be taken for the race's good state), as export --anchor refuses it.
            problems = log.store.verify(rid)
            if problems:  # worded as every read of a damaged log is (DamagedLog names the race that holds it)
                damaged.append(f"race {rid}: no anchor printed: {DamagedLog(problems[0]).message}")
                continue
            import json

            typer.echo(json.dumps(log.store.anchor(rid), sort_keys=True, allow_nan=False))
        if race is None:  # the season streams too: the races' guarantees (a cut or rewritten stream is seen)
            from ..season import season_anchor, season_chain_problems, seasons

            for sid, _, _ in seasons(log):
                broken = season_chain_problems(log, sid)
                if broken:
                    damaged.append(f"season {sid}: no anchor printed: {broken[0]}")
                    continue
                import json

                typer.echo(json.dumps(season_anchor(log, sid), sort_keys=True, allow_nan=False))
    if damaged:
        raise fail("; ".join(damaged))


def anchors_home() -> Path:
    """Where the recorder keeps the anchors it is told to keep: ``$XDG_DATA_HOME/heatlog/anchors.jsonl``
    (``~/.local/share/heatlog/anchors.jsonl``), outside the folder of the database it vouches for."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "heatlog" / "anchors.jsonl"


def offer_anchor(log: Any, race: int, ask: Callable[[str], str], say: Callable[[str], None]) -> Path | None:
    """At the end of a recorded race: offer to keep its anchor (appended to :func:`anchors_home`, once), and say
    in plain words what it is for. The path written, or None (declined, damaged, or not writable)."""
    from ..engine.errors import HeatlogError

    try:
        if log.store.verify(race):
            return None  # an anchor vouches for the log as it stands: none for a broken chain
        import json

        line = json.dumps(log.store.anchor(race), sort_keys=True, allow_nan=False)
    except HeatlogError:
        return None
    where = anchors_home()
    say(
        f"an anchor of race {race} (its last event and that event's hash) lets `heatlog audit --anchor FILE` tell "
        "later whether this race was cut short or rewritten, which no check inside the database can see"
    )
    try:
        answer = ask(f"keep it in {where}? [Y/n] ")
    except (EOFError, KeyboardInterrupt):
        return None
    if answer.strip().lower() not in ("", "y", "yes"):
        return None
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        have = where.read_text(encoding="utf-8").splitlines() if where.exists() else []
        if line not in have:
            with open(where, "a", encoding="utf-8") as fh:
                fh.write(line + "\n")
    except OSError as exc:
        say(f"the anchor could not be written to {where} ({exc.strerror or exc}): `heatlog anchor` prints it")
        return None
    say(f"kept in {where}: keep a copy somewhere else too (a mail, a chat); check with heatlog audit --anchor {where}")
    return where
