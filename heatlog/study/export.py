"""The races of a database as a corpus: the same four Parquet tables (``heatlog export --parquet DIR``).

Recorded, imported and simulated races alike: each race's effective log (retractions applied) is folded once by
the same :class:`~heatlog.study.tables.RaceRows` a study uses while it simulates, so the same queries run on
both, and the per-car rows are exactly ``heatlog stats --race R --csv``'s. Race ids are the database's;
what-if branches are exported too, with their ``parent`` race (leave them out with ``where parent is null``). A
race whose log is damaged is left out and named, as ``heatlog stats --all`` does.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import rules_version
from ..engine.errors import MalformedInput
from .corpus import RACES_KEY, batch_name, write_atomic
from .spec import DEFAULT_BATCH
from .tables import TABLES, Batch, RaceRows

EXPORT_FILE = "export.json"


@dataclass(slots=True)
class Exported:
    races: list[int] = field(default_factory=list)  # races written
    damaged: list[Any] = field(default_factory=list)  # DamagedLog of each race left out
    batches: int = 0


def _prepare(directory: Path) -> None:
    """An empty directory, or a previous export (whose files are replaced); never anything else."""
    if directory.exists() and not directory.is_dir():
        raise MalformedInput(f"{directory} is a file, not a directory")
    if directory.is_dir():
        names = set(os.listdir(directory))
        if names and EXPORT_FILE not in names:
            raise MalformedInput(f"{directory} is not empty and holds no export: choose a new directory")
        for table in TABLES:
            d = directory / table
            if d.is_dir():
                for name in os.listdir(d):
                    if name.endswith((".parquet", ".tmp")):
                        (d / name).unlink()
    directory.mkdir(parents=True, exist_ok=True)
    for table in TABLES:
        (directory / table).mkdir(exist_ok=True)


def export_parquet(
    log: Any,
    directory: Path,
    races: Sequence[int] | None = None,
    *,
    batch: int = DEFAULT_BATCH,
    progress: Callable[[int], None] | None = None,
) -> Exported:
    """Write the tables of ``races`` (default: every race and branch of ``log``, a RaceLog) under ``directory``."""
    from ..store import DamagedLog

    infos = {i.id: i for i in log.store.races()}
    ids = list(infos) if races is None else list(races)
    _prepare(directory)
    out = Exported()
    current = Batch()
    first: int | None = None

    def flush() -> None:
        nonlocal current, first
        if current.races:
            files = current.files({RACES_KEY: f"{first}-{out.races[-1]}"})
            for table in TABLES:
                write_atomic(directory / table / batch_name(out.batches), files[table])
            out.batches += 1
        current, first = Batch(), None

    for rid in ids:
        info = infos.get(rid) or log.store.race(rid)
        simulated = info.meta.get("simulated") if isinstance(info.meta, dict) else None
        bots = simulated.get("bots") if isinstance(simulated, dict) else None
        rows = RaceRows(
            rid,
            bots=bots if isinstance(bots, dict) else None,
            extra={"name": info.name, "parent": info.parent},
        )
        try:
            rows.fold([e.event for e in log.effective(rid).entries])
        except DamagedLog as err:
            out.damaged.append(err)
            if progress is not None:
                progress(1)
            continue
        current.add(rows)
        first = rid if first is None else first
        out.races.append(rid)
        if progress is not None:
            progress(1)
        if current.races >= batch:
            flush()
    flush()
    manifest = {
        "export": 1,
        "database": str(log.path),
        "rules": rules_version(),
        "races": len(out.races),
        "left_out": [err.problem.race for err in out.damaged],
    }
    write_atomic(
        directory / EXPORT_FILE, (json.dumps(manifest, indent=1, ensure_ascii=False, allow_nan=False) + "\n").encode()
    )
    return out


__all__ = ["EXPORT_FILE", "Exported", "export_parquet"]
