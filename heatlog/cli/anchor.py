"""Anchors: each race's head, to keep somewhere else (a note, a chat, a git repository)."""

import json

import typer

from .common import DbOpt, RaceOpt, app, open_log, user_errors


@app.command()
@user_errors
def anchor(race: RaceOpt = None, db: DbOpt = None) -> None:
    """Print each race's anchor (race, last seq, head hash), one JSON line per race, to keep elsewhere.

    `heatlog audit --anchor FILE` later tells whether a log was cut short or rewritten since (even re-hashed
    consistently, which no check inside the file can see). Appending events afterwards is fine.

    Example: heatlog anchor >> ~/heatlog-anchors.jsonl
    """
    with open_log(db) as log:
        ids = [log.resolve(race)] if race is not None else [i.id for i in log.store.races()]
        for rid in ids:
            typer.echo(json.dumps(log.store.anchor(rid), sort_keys=True))
