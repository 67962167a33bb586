"""Anchors: each race's head, to keep somewhere else (a note, a chat, a git repository)."""

import json

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
            typer.echo(json.dumps(log.store.anchor(rid), sort_keys=True, allow_nan=False))
    if damaged:
        raise fail("; ".join(damaged))
