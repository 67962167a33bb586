"""A corpus on disk: a directory with the spec (``study.json``) and one Parquet file per table and batch.

::

    DIR/study.json                    the spec, with the rules fingerprint
    DIR/races/batch-000000.parquet    races 0 … B-1 (B: the spec's batch size)
    DIR/car_races/batch-000000.parquet
    DIR/turns/batch-000000.parquet
    DIR/decisions/batch-000000.parquet
    DIR/races/batch-000001.parquet    races B … 2B-1, …

A batch is a task: a worker (a local process, or a Dask worker anywhere) plays its races, straight from the spec
— never through the race log or a database — and returns the four files' bytes; this process writes each one
atomically (a temporary file, fsync, rename). Batch ``k`` always holds races ``kB … min((k+1)B, N)-1`` in that
order, and each race is a pure function of the spec and its index, so the bytes of every file are the same
whatever the number of workers, the machines or the order the batches finish in.

Each file says which races it holds (``heatlog.races`` in its key-value metadata). A run skips the batches
whose four files are there and say so: an interrupted run resumes where it stopped, and a corpus extended with
more seeds rewrites only its last batch if that one was short (with the same rows for the races it held:
never a race twice).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import rules_version
from ..engine.errors import MalformedInput
from ..simulate.collector import collector_paused
from .spec import SPEC_FILE, StudySpec
from .tables import TABLES, Batch, RaceRows

RACES_KEY = "heatlog.races"


@dataclass(slots=True)
class BatchFiles:
    """A batch as a worker hands it back: its index, races and the Parquet bytes of each table."""

    index: int
    start: int
    stop: int
    files: dict[str, bytes]


_SPECS: dict[str, StudySpec] = {}  # a worker's parsed specs (a batch carries the spec's JSON text)


def _spec_of(text: str) -> StudySpec:
    import json

    spec = _SPECS.get(text)
    if spec is None:
        spec = StudySpec.from_dict(json.loads(text))
        _SPECS.clear()
        _SPECS[text] = spec
    return spec


def batch_range(spec: StudySpec, index: int) -> tuple[int, int]:
    return index * spec.batch, min((index + 1) * spec.batch, spec.total)


_CODE: list[str] = []  # this process's code_fingerprint(), once worked out


def code_fingerprint() -> str:
    """A digest of heatlog's sources and data (the bots, the simulator, the rules, the tables) and the pyarrow
    version: everything a batch's bytes depend on besides the spec. The rules fingerprint in the spec says which
    rules a corpus follows; this says which heatlog plays it, and a run's workers must all have this one."""
    if not _CODE:
        import hashlib

        import pyarrow

        root = Path(__file__).resolve().parents[1]
        digest = hashlib.sha256()
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".json") and "__pycache__" not in path.parts and path.is_file():
                digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        _CODE.append(f"{digest.hexdigest()[:16]} pyarrow {pyarrow.__version__}")
    return _CODE[0]


def play_batch(spec_text: str, index: int, code: str | None = None) -> BatchFiles:
    """A worker's task: play batch ``index`` of the spec and return its tables as Parquet bytes. Refused when
    the worker's rules are not the spec's, or its heatlog is not the one of the run (``code``: the caller's
    :func:`code_fingerprint`): a cluster worker running another heatlog would write other bytes."""
    from ..simulate import default_cars, simulate_race

    spec = _spec_of(spec_text)
    mine = rules_version()
    if mine != spec.rules:
        raise MalformedInput(f"a worker's rules ({mine}) are not the corpus's ({spec.rules}): install the same heatlog")
    if code is not None and code != code_fingerprint():
        raise MalformedInput(
            f"a worker's heatlog ({code_fingerprint()}) is not this one's ({code}): install the same heatlog and "
            "pyarrow on every worker"
        )
    configs = spec.configs()
    start, stop = batch_range(spec, index)
    batch = Batch()
    with collector_paused():  # the whole batch: its rows make no cycles either (heatlog.simulate.collector, issue 31)
        for i in range(start, stop):
            config, seed = spec.plan(i, configs)
            kwargs = config.kwargs()
            names = [c["name"] for c in default_cars(config.cars)]
            bots = kwargs["bots"]
            labels = dict(zip(names, bots if isinstance(bots, list) else [bots] * len(names), strict=True))
            rows = RaceRows(i, bots=labels, extra={"option": config.option})
            simulate_race(None, seed=seed, watch=rows, **kwargs)
            batch.add(rows)
    return BatchFiles(index, start, stop, batch.files({RACES_KEY: f"{start}-{stop}"}))


# ------------------------------------------------------------------------------------------------ on disk


def batch_name(index: int) -> str:
    return f"batch-{index:06d}.parquet"


def write_atomic(path: Path, data: bytes) -> None:
    """``data`` at ``path`` whole or not at all: a temporary file beside it, flushed to disk, renamed over."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    with contextlib.suppress(OSError):  # the rename itself made durable (not possible on every system)
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def file_races(path: Path) -> str | None:
    """The races a batch file says it holds (``"start-stop"``), or None if it is absent or unreadable."""
    import pyarrow.parquet as pq

    try:
        meta = pq.read_schema(path).metadata or {}
    except (OSError, ValueError):
        return None
    value = meta.get(RACES_KEY.encode())
    return value.decode() if value is not None else None


def done_batches(directory: Path, spec: StudySpec) -> set[int]:
    """The batches whose four files are there and hold the races the spec gives them."""
    count = -(-spec.total // spec.batch)
    present = None
    for table in TABLES:
        names = set(os.listdir(directory / table)) if (directory / table).is_dir() else set()
        here = {k for k in range(count) if batch_name(k) in names}
        present = here if present is None else present & here
    out = set()
    for k in sorted(present or ()):
        start, stop = batch_range(spec, k)
        if all(file_races(directory / t / batch_name(k)) == f"{start}-{stop}" for t in TABLES):
            out.add(k)
    return out


def clean_temporary(directory: Path) -> None:
    """Remove temporary files an interrupted write left behind (never a finished file)."""
    for table in TABLES:
        d = directory / table
        if d.is_dir():
            for name in os.listdir(d):
                if name.startswith(".") and name.endswith(".tmp"):
                    with contextlib.suppress(OSError):
                        (d / name).unlink()


def create(directory: Path, spec: StudySpec) -> None:
    """A new corpus directory with its spec (or the same spec again: resumed)."""
    path = directory / SPEC_FILE
    if path.exists():
        old = StudySpec.read(directory)
        check_rules(old)  # (a corpus of other rules is never resumed, whatever the spec)
        if old.to_dict() != spec.to_dict():
            why = "more seeds or races: `heatlog study extend`" if old.same_study(spec) else "another study"
            raise MalformedInput(f"{directory} holds a corpus of another spec ({why}; or choose another --out)")
        return
    if directory.exists() and not directory.is_dir():
        raise MalformedInput(f"{directory} is a file, not a directory")
    if directory.is_dir() and any(directory.iterdir()):
        raise MalformedInput(f"{directory} is not empty and holds no corpus: choose a new directory")
    directory.mkdir(parents=True, exist_ok=True)
    write_atomic(path, spec.text().encode())


def extend(directory: Path, more: int) -> StudySpec:
    """Add ``more`` seeds (a grid) or races (a sample) to the spec on disk; :func:`run` plays them."""
    if more < 1:
        raise MalformedInput(f"extend by at least one, not {more}")
    spec = StudySpec.read(directory)
    check_rules(spec)
    new = spec.extended(more)
    write_atomic(directory / SPEC_FILE, new.text().encode())
    return new


def check_rules(spec: StudySpec) -> None:
    mine = rules_version()
    if spec.rules != mine:
        raise MalformedInput(
            f"the corpus was simulated under rules {spec.rules}; this heatlog's rules are {mine}: a corpus holds "
            "races of one rules version (start a new one)"
        )


@dataclass(slots=True)
class RunResult:
    total: int  # races in the spec
    before: int  # races already there when the run started
    written: int = 0  # races written by this run
    partial: bool = False  # interrupted: the corpus resumes with the same command
    batches: list[int] = field(default_factory=list)  # batches written


def run(
    directory: Path,
    spec: StudySpec,
    executor: Executor,
    *,
    window: int = 8,
    progress: Callable[[int], None] | None = None,
    stop_after: int | None = None,
) -> RunResult:
    """Play every batch of ``spec`` the corpus lacks on ``executor`` and write them. ``window``: batches in
    flight; ``progress(races)`` after each batch written; ``stop_after``: write at most that many batches (the
    tests' interruption). Ctrl-C keeps what is written and returns ``partial``."""
    check_rules(spec)
    clean_temporary(directory)
    for table in TABLES:
        (directory / table).mkdir(exist_ok=True)
    done = done_batches(directory, spec)
    count = -(-spec.total // spec.batch)
    todo = [k for k in range(count) if k not in done]
    before = sum(batch_range(spec, k)[1] - batch_range(spec, k)[0] for k in done)
    result = RunResult(spec.total, before)
    text = spec.text()
    code = code_fingerprint()
    futures: dict[Future[BatchFiles], int] = {}
    pending_iter: Iterator[int] = iter(todo)
    try:
        for k in pending_iter:
            futures[executor.submit(play_batch, text, k, code)] = k
            if len(futures) >= window:
                break
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in sorted(finished, key=lambda f: futures[f]):
                got = fut.result()
                for table in TABLES:
                    write_atomic(directory / table / batch_name(got.index), got.files[table])
                result.written += got.stop - got.start
                result.batches.append(got.index)
                if progress is not None:
                    progress(got.stop - got.start)
                if stop_after is not None and len(result.batches) >= stop_after:
                    raise KeyboardInterrupt
                nxt = next(pending_iter, None)
                if nxt is not None:
                    new = executor.submit(play_batch, text, nxt, code)
                    futures[new] = nxt
                    pending.add(new)
    except KeyboardInterrupt:
        result.partial = True
        for fut in futures:
            fut.cancel()
    return result


def table_files(directory: Path, table: str) -> list[Path]:
    """A corpus's files of ``table``, in batch order."""
    d = directory / table
    if not d.is_dir():
        return []
    return [d / n for n in sorted(os.listdir(d)) if n.endswith(".parquet") and not n.startswith(".")]


def info(directory: Path) -> dict[str, Any]:
    """What a corpus holds: its spec, races done of the total, batches, bytes on disk per table."""
    spec = StudySpec.read(directory)
    done = done_batches(directory, spec)
    races = sum(batch_range(spec, k)[1] - batch_range(spec, k)[0] for k in done)
    sizes = {t: sum(p.stat().st_size for p in table_files(directory, t)) for t in TABLES}
    return {
        "directory": str(directory),
        "spec": spec.to_dict(),
        "configurations": len(spec.configs()),
        "races": spec.total,
        "done": races,
        "batches": -(-spec.total // spec.batch),
        "batches_done": len(done),
        "rules_match": spec.rules == rules_version(),
        "bytes": sizes,
        "bytes_per_race": round(sum(sizes.values()) / races, 1) if races else None,
    }


__all__ = [
    "BatchFiles",
    "RunResult",
    "batch_name",
    "batch_range",
    "code_fingerprint",
    "create",
    "done_batches",
    "extend",
    "info",
    "play_batch",
    "run",
    "table_files",
    "write_atomic",
]
