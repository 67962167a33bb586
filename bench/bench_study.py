"""Corpus studies (issue 31): ``python bench/bench_study.py [--big-corpus DIR [--replicate CORPUS]]``

Same-run figures, 4-car USA races with four heuristic bots unless said otherwise. The default run takes about
3 minutes on a quiet 2-core machine; every ratio is printed as median (min–max, n) over its rounds, with the
load average (other programs on the same cores change the scaling figures more than heatlog does):

1. **per core**: races per CPU second of a corpus written with one worker (simulated, facts and rows collected,
   Parquet written to disk) against the simulator alone in memory (``simulate_race``), seeds alternated in
   rounds so that both see the same machine (goal ≥ 0.8×; ``--races``, ``--rounds``);
2. **2 workers vs 1**: wall time of the same corpus with a process pool of 2 against 1 worker (goal ≥ 1.7×),
3. **Dask vs the pool**: a local Dask cluster of 2 worker processes against the process pool of 2 (≥ 0.9×):
   the three made in turn in ``--scale-rounds`` rounds (the order turned each round), the pool and the cluster
   started and warmed once; on 2 cores the 2-worker figure needs them free (a load average under ~0.5);
4. **a query over the turns of 100,000 races** (the corpus of docs/study.md: 8 tracks × base/weather × 6,250
   seeds; made once under ``--big-corpus`` and reused, which takes a while the first time) (goal < 1 s);
5. **size on disk per race**: the corpus's Parquet files against the same races' ``heatlog export`` JSONL.

The figures of docs/study.md and docs/performance.md come from this script.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/bench_study.py` from a checkout works without installing
    sys.path.insert(0, str(ROOT))

from heatlog import rules_version  # noqa: E402
from heatlog.analysis.executors import InlineExecutor, local_executor  # noqa: E402
from heatlog.simulate import simulate_race  # noqa: E402
from heatlog.study import corpus  # noqa: E402
from heatlog.study.spec import StudySpec  # noqa: E402

BIG_SPEC = {
    "tracks": ["usa", "great-britain", "france", "italy", "japan", "mexico", "spain", "netherlands"],
    "cars": [4],
    "bots": ["heuristic"],
    "modules": [{"name": "base"}, {"name": "weather", "weather": True}],
    "seeds": {"first": 1, "count": 6250},
    "batch": 1000,
}


def spec(races: int, batch: int, first: int = 1) -> StudySpec:
    return StudySpec.from_dict(
        {"tracks": ["usa"], "cars": [4], "seeds": {"first": first, "count": races}, "batch": batch},
        rules=rules_version(),
    )


def make(directory: Path, s: StudySpec, executor: Any, window: int = 5) -> float:
    """Wall seconds to write the corpus of ``s`` under ``directory`` (made afresh)."""
    shutil.rmtree(directory, ignore_errors=True)
    corpus.create(directory, s)
    t0 = time.perf_counter()
    result = corpus.run(directory, s, executor, window=window)
    assert not result.partial and result.written == s.total
    return time.perf_counter() - t0


def per_core(races: int, rounds: int, scratch: Path) -> dict[str, float]:
    """CPU seconds of this process for ``races`` races, simulator alone vs corpus, alternated ``rounds`` times."""
    for seed in range(10_000, 10_020):  # warm the heuristic's caches for both (per track, pure values)
        simulate_race(None, track="usa", cars=4, seed=seed)
    corpus.code_fingerprint()  # (worked out once per process, before the first batch: not a race's cost)
    sim: list[float] = []
    cor: list[float] = []

    def simulator(first: int) -> None:
        c0 = time.process_time()
        for seed in range(first, first + races):
            simulate_race(None, track="usa", cars=4, seed=seed, bots="heuristic")
        sim.append(time.process_time() - c0)

    def study(first: int) -> None:
        c0 = time.process_time()
        make(scratch / "core", spec(races, races, first), InlineExecutor())
        cor.append(time.process_time() - c0)

    for r in range(rounds):  # the same seeds for both, each first in every other round (warm caches help the second)
        first = 1 + r * races
        for side in (simulator, study) if r % 2 == 0 else (study, simulator):
            side(first)
    ratios = [s / c for s, c in zip(sim, cor, strict=True)]
    return {
        "sim_rps": races / statistics.median(sim),
        "corpus_rps": races / statistics.median(cor),
        "ratio_median": statistics.median(ratios),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
        "ratio_total": sum(sim) / sum(cor),
    }


def warm_worker() -> str:
    """Run in a worker before the timed corpus: what every worker pays once (its imports, the code fingerprint,
    the heuristic's per-track caches), so that the pool and the cluster are compared warm, as in a long run."""
    import pyarrow.parquet  # noqa: F401

    for seed in range(10_000, 10_004):
        simulate_race(None, track="usa", cars=4, seed=seed)
    return corpus.code_fingerprint()


def same_bytes(a: Path, b: Path) -> bool:
    """Whether the corpora under ``a`` and ``b`` hold the same files with the same bytes."""
    return all(
        sorted(os.listdir(a / t)) == sorted(os.listdir(b / t))
        and all((a / t / n).read_bytes() == (b / t / n).read_bytes() for n in os.listdir(a / t))
        for t in corpus.TABLES
    )


def load() -> float:
    """The one-minute load average now (the share of the 2 cores other programs want)."""
    return os.getloadavg()[0]


def scaling(races: int, batch: int, rounds: int, scratch: Path, dask: bool) -> dict[str, Any]:
    """Wall seconds of the same corpus made with 1 worker (this process), a process pool of 2 and (``dask``) a
    local Dask cluster of 2 worker processes, in ``rounds`` rounds, the order of the three turned at each round
    (each sees the machine as the others did); the pool and the cluster are started and warmed once, before the
    first round, as in a long run. Per-round ratios and the load average after each round; the bytes of every
    corpus are checked against the first one's."""
    s = spec(races, batch)
    times: dict[str, list[float]] = {"one": [], "two": [], "dask": []}
    loads: list[float] = []
    same = True
    with contextlib.ExitStack() as stack:
        makers: dict[str, Any] = {"one": InlineExecutor()}
        pool = stack.enter_context(local_executor(2))
        make(scratch / "warm", spec(4, 2, 99_000), pool)  # the pool's processes started and warm
        for f in [pool.submit(warm_worker) for _ in range(4)]:  # (as the cluster's workers below)
            f.result()
        makers["two"] = pool
        if dask:
            import distributed

            from heatlog.analysis.executors import dask_executor

            cluster = stack.enter_context(
                distributed.LocalCluster(
                    n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
                )
            )
            ex = stack.enter_context(dask_executor(cluster.scheduler_address))
            client = stack.enter_context(distributed.Client(cluster.scheduler_address))
            make(scratch / "warm", spec(4, 2, 99_000), ex)
            client.run(warm_worker)  # every worker warm: the two batches above may both have gone to one of them
            makers["dask"] = ex
        modes = list(makers)
        for r in range(rounds):
            for mode in modes[r % len(modes) :] + modes[: r % len(modes)]:
                times[mode].append(make(scratch / mode, s, makers[mode]))
                if r == 0 and mode == modes[0]:
                    shutil.rmtree(scratch / "first", ignore_errors=True)
                    shutil.copytree(scratch / mode, scratch / "first")
                else:
                    same = same and same_bytes(scratch / "first", scratch / mode)
            loads.append(load())
            names = {"one": "1 worker", "two": "the pool of 2", "dask": "Dask"}
            done = ", ".join(f"{names[m]} {times[m][-1]:.1f} s" for m in modes)
            print(f"  round {r + 1} of {rounds} (wall): {done}; load average {loads[-1]:.2f}", flush=True)
    out: dict[str, Any] = {"times": times, "loads": loads, "same_bytes": same}
    out["two_vs_one"] = [o / t for o, t in zip(times["one"], times["two"], strict=True)]
    if dask:
        out["dask_vs_pool"] = [t / d for t, d in zip(times["two"], times["dask"], strict=True)]
    return out


def spread(xs: list[float]) -> str:
    """median (min–max, n) of the ratios ``xs``."""
    return f"{statistics.median(xs):.2f}x ({min(xs):.2f}–{max(xs):.2f}, n={len(xs)})"


QUERIES = {
    "mean speed per gear, every turn": "select gear, avg(speed), count(*) from turns group by gear order by gear",
    "Heat paid at corners per track and round": (
        "select r.track, t.round, avg(t.heat_corners) from turns t join races r using (race) "
        "group by r.track, t.round order by 1, 2"
    ),
}


def replicate(source: Path, directory: Path, races: int, batch: int = 1000) -> int:
    """A query corpus of at least ``races`` races made from ``source``'s batches, copied with their race ids
    shifted, in files of ``batch`` races (the same rows, columns, files and compression as a corpus of that size
    made with that batch): the quick way to time a query over 100,000 races where simulating them would take
    hours. Returns the races it holds."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from heatlog.study.tables import PARQUET_OPTIONS

    shutil.rmtree(directory, ignore_errors=True)
    held = pq.read_table(source / "races").num_rows
    copies = -(-races // held)
    for table in corpus.TABLES:
        (directory / table).mkdir(parents=True)
        files = corpus.table_files(source, table)
        per = max(1, batch * len(files) // held)  # source files per output file
        n = 0
        for c in range(copies):
            for k in range(0, len(files), per):
                t = pa.concat_tables([pq.read_table(p) for p in files[k : k + per]])
                t = t.set_column(0, "race", pc.add(t["race"], c * held))
                out = directory / table / corpus.batch_name(n)
                pq.write_table(t, out, row_group_size=max(1, t.num_rows), **PARQUET_OPTIONS)
                n += 1
    return held * copies


def big_query(directory: Path, workers: int, source: Path | None) -> dict[str, Any]:
    """The queries timed over ``directory``: the corpus of BIG_SPEC made there (resumable) or, with ``source``,
    :func:`replicate`'s copy of ``source`` up to 100,000 races."""
    from heatlog.study.query import connect

    out: dict[str, Any] = {"made_seconds": None}
    if source is not None:
        t0 = time.perf_counter()
        out["races"] = replicate(source, directory, 100_000)
        out["replicated_from"] = str(source)
        out["made_seconds"] = time.perf_counter() - t0
    else:
        s = StudySpec.from_dict(BIG_SPEC, rules=rules_version())
        corpus.create(directory, s)
        t0 = time.perf_counter()
        with local_executor(workers) as ex:
            result = corpus.run(directory, s, ex, window=2 * workers + 1)
        if result.written:
            out["made_seconds"] = time.perf_counter() - t0
        out["races"] = s.total
    con = connect(directory)
    out["turn_rows"] = con.execute("select count(*) from turns").fetchone()[0]
    con.close()
    for label, sql in QUERIES.items():
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            con = connect(directory)  # the views made afresh each time: part of a query's cost
            con.execute(sql).fetchall()
            con.close()
            times.append(time.perf_counter() - t0)
        out[label] = statistics.median(times)
    size = sum(p.stat().st_size for t in corpus.TABLES for p in corpus.table_files(directory, t))
    out["bytes_per_race"] = size / out["races"]
    return out


def jsonl_per_race(races: int, scratch: Path) -> float:
    """Bytes per race of ``heatlog export`` (JSON Lines) of the same races (4-car USA, seeds 1…)."""
    from heatlog.log.racelog import RaceLog

    db = scratch / "jsonl.db"
    total = 0
    with RaceLog(db) as log:
        for seed in range(1, races + 1):
            rid, _, _ = simulate_race(log, track="usa", cars=4, seed=seed)
            assert rid is not None
            total += len(log.store.export_jsonl(rid).encode())
    return total / races


def small(args: argparse.Namespace, scratch: Path) -> None:
    """Per core, 1 vs 2 workers, Dask vs the pool, size per race, and 10 million races on 16 cores."""
    import pyarrow.parquet  # noqa: F401  (imported once per process in a real run: not timed)

    core = per_core(args.races, args.rounds, scratch)
    print(
        f"per core: simulator {core['sim_rps']:.1f} races/s, corpus {core['corpus_rps']:.1f} races/s (CPU, this run): "
        f"{core['ratio_median']:.2f}x ({core['ratio_min']:.2f}–{core['ratio_max']:.2f}, n={args.rounds} rounds of "
        f"{args.races} races; {core['ratio_total']:.2f}x over all); load average {load():.2f} after"
    )
    if args.only_per_core:
        return
    scale = scaling(args.scale_races, args.scale_batch, args.scale_rounds, scratch, not args.no_dask)
    t = scale["times"]
    print(
        f"{args.scale_races} races in batches of {args.scale_batch}, {args.scale_rounds} rounds (wall, median): "
        f"1 worker {statistics.median(t['one']):.1f} s, 2 workers {statistics.median(t['two']):.1f} s: "
        f"{spread(scale['two_vs_one'])}"
    )
    if "dask_vs_pool" in scale:
        print(
            f"  local Dask cluster of 2: {statistics.median(t['dask']):.1f} s: {spread(scale['dask_vs_pool'])} "
            "the process pool"
        )
    print(
        f"  the same bytes in every corpus: {scale['same_bytes']}; load average after each round: "
        f"{' '.join(f'{x:.2f}' for x in scale['loads'])} (2 cores: above ~0.5 the second worker shares its core)"
    )
    if args.no_size:
        return
    jsonl = jsonl_per_race(100, scratch)
    parquet = corpus.info(scratch / "one")["bytes_per_race"]
    print(
        f"size per race (4-car USA): Parquet {parquet:,.0f} bytes (batches of {args.scale_batch}), "
        f"JSONL export {jsonl:,.0f} bytes: {jsonl / parquet:.0f}x smaller"
    )
    rate = core["corpus_rps"]
    efficiency = statistics.median(scale["two_vs_one"]) / 2
    hours = 10_000_000 / (rate * 16 * efficiency) / 3600
    print(
        f"10 million races on 16 cores at {rate:.0f} races/s per core and the measured 2-worker efficiency "
        f"({efficiency:.0%}): {hours:.1f} h"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--races", type=int, default=150, help="races per round of the per-core comparison")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of the per-core comparison")
    parser.add_argument("--scale-races", type=int, default=900, help="races of the 1 vs 2 workers vs Dask corpus")
    parser.add_argument("--scale-batch", type=int, default=75, help="races per batch (a task) of that corpus")
    parser.add_argument("--scale-rounds", type=int, default=4, help="rounds of 1 worker, 2 workers and Dask")
    parser.add_argument("--no-size", action="store_true", help="not the size per race against the JSONL export")
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--big-corpus", type=Path, default=None, help="where the 100,000-race corpus is kept")
    parser.add_argument(
        "--replicate", type=Path, default=None, help="make --big-corpus from this corpus's batches, copied"
    )
    parser.add_argument("--only-query", action="store_true", help="only the query over --big-corpus")
    parser.add_argument("--only-per-core", action="store_true", help="only the per-core comparison")
    args = parser.parse_args()
    from _common import machine

    print(f"# bench_study: {machine()}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the start")
    started = time.perf_counter()
    if not args.only_query:
        with tempfile.TemporaryDirectory(prefix="heatlog-bench-study-") as tmp:
            small(args, Path(tmp))
    if args.big_corpus is not None:
        big = big_query(args.big_corpus, 2, args.replicate)
        how = f"replicated from {args.replicate}" if args.replicate else "simulated (2 workers)"
        if big["made_seconds"]:
            print(f"big corpus: {big['races']:,} races {how} in {big['made_seconds']:.0f} s")
        print(
            f"big corpus: {big['races']:,} races, {big['turn_rows']:,} turns, {big['bytes_per_race']:,.0f} bytes "
            "per race"
        )
        for label in QUERIES:
            print(f"  query '{label}': {big[label]:.3f} s (median of 5, views made each time)")
        print(json.dumps(big, default=str))
    loads = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# {time.perf_counter() - started:.0f} s, load average {loads} at the end")


if __name__ == "__main__":
    main()
