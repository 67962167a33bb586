"""Corpus studies in Parquet (issue 31): the same bytes for any number of workers and on a Dask cluster, resumed
and extended corpora equal to one run, export --parquet equal to stats, hostile specs refused, and the studies
of docs/study.md run on a small corpus."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

pq = pytest.importorskip("pyarrow.parquet", reason="the study extra: pip install 'heatlog[study]'")
duckdb = pytest.importorskip("duckdb")

from heatlog import rules_version  # noqa: E402
from heatlog.analysis.executors import InlineExecutor, local_executor  # noqa: E402
from heatlog.engine import HeatlogError  # noqa: E402
from heatlog.log.racelog import RaceLog  # noqa: E402
from heatlog.simulate import simulate_race  # noqa: E402
from heatlog.stats import TurnsTable, race_stats  # noqa: E402
from heatlog.stats.facts import TURN_COLUMNS  # noqa: E402
from heatlog.study import corpus  # noqa: E402
from heatlog.study.export import export_parquet  # noqa: E402
from heatlog.study.query import query  # noqa: E402
from heatlog.study.spec import StudySpec  # noqa: E402
from heatlog.study.tables import COLUMNS, TABLES  # noqa: E402
from tests.test_cli import run  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# Two tracks, 3 and 4 cars, a base race and two module options: 12 configurations, 2 seeds, batches of 5 (the
# last one short).
GRID = {
    "tracks": ["usa", "italy"],
    "cars": [3, 4],
    "modules": [{}, {"name": "weather", "weather": True}, {"name": "legend", "legends": 1}],
    "seeds": {"first": 3, "count": 2},
    "batch": 5,
}


def spec_of(doc: dict[str, Any]) -> StudySpec:
    return StudySpec.from_dict(doc, rules=rules_version())


def make(directory: Path, spec: StudySpec, executor: Any = None, **kw: Any) -> corpus.RunResult:
    corpus.create(directory, spec)
    return corpus.run(directory, spec, executor or InlineExecutor(), **kw)


def files(directory: Path) -> dict[str, bytes]:
    return {f"{t}/{p.name}": p.read_bytes() for t in TABLES for p in corpus.table_files(directory, t)}


def data(directory: Path) -> dict[str, list[dict[str, Any]]]:
    """Every table's rows, in file order: the data, whatever the files' metadata."""
    return {t: [r for p in corpus.table_files(directory, t) for r in pq.read_table(p).to_pylist()] for t in TABLES}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The grid's corpus made in this process (one worker)."""
    d = tmp_path_factory.mktemp("ref") / "corpus"
    result = make(d, spec_of(GRID))
    assert not result.partial and result.written == 24
    return d


def test_a_corpus_holds_every_race_of_the_spec_once_with_its_configuration(reference: Path) -> None:
    tables = data(reference)
    races = tables["races"]
    assert [r["race"] for r in races] == list(range(24))
    # race i: configuration i % 12, seed 3 + i // 12 (docs/study.md)
    configs = spec_of(GRID).configs()
    for r in races:
        c = configs[r["race"] % 12]
        assert (r["track"], r["cars"] - r["legends"], r["option"]) == (c.track, c.cars, c.option)
        assert r["seed"] == 3 + r["race"] // 12
        assert r["over"] and r["winner"]
    weather = [r for r in races if r["option"] == "weather"]
    assert weather and all(r["weather"] and r["road_conditions"] for r in weather)  # MODULES.md 20.2
    assert all(r["legends"] == 1 and r["pro"] == 0 for r in races if r["option"] == "legend")
    # every car of every race, its grid position a permutation (# 1.4)
    by_race: dict[int, list[int]] = {}
    for c in tables["car_races"]:
        by_race.setdefault(c["race"], []).append(c["grid"])
    assert all(sorted(g) == list(range(1, len(g) + 1)) for g in by_race.values())
    assert {(t["race"], t["round"], t["turn"]) for t in tables["turns"]}.__len__() == len(tables["turns"])
    assert {d["type"] for d in tables["decisions"]} >= {"gear_chosen", "cards_played"}


def test_a_race_of_the_corpus_is_the_simulators_race(reference: Path) -> None:
    """Race 13 (italy? no: configuration 1 with seed 4) has the facts of the same race simulated alone."""
    spec = spec_of(GRID)
    config, seed = spec.plan(13)
    _, events, _ = simulate_race(None, seed=seed, **config.kwargs())
    from heatlog.stats import collect

    alone = collect(events, race=13)
    turns = [t for t in data(reference)["turns"] if t["race"] == 13]
    assert [tuple(t[c] for c in TURN_COLUMNS) for t in turns] == [
        tuple(getattr(f, c) for c in TURN_COLUMNS) for f in alone.turns
    ]
    races = [r for r in data(reference)["races"] if r["race"] == 13]
    assert races[0]["events"] == len(events) and races[0]["rounds"] == alone.rounds


def test_tables_have_their_documented_columns_and_types(reference: Path) -> None:
    for table in TABLES:
        for p in corpus.table_files(reference, table):
            schema = pq.read_schema(p)
            assert schema.names == list(COLUMNS[table])
    assert list(COLUMNS["turns"]) == list(TURN_COLUMNS)  # the derived SQLite table's columns


def test_two_workers_give_the_same_bytes(reference: Path, tmp_path: Path) -> None:
    with local_executor(2) as ex:
        result = make(tmp_path / "two", spec_of(GRID), ex, window=3)
    assert result.written == 24
    assert data(tmp_path / "two") == data(reference)
    assert files(tmp_path / "two") == files(reference)


def test_a_local_dask_cluster_gives_the_same_bytes(reference: Path, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed", reason="the dask extra: pip install 'heatlog[dask]'")
    from heatlog.analysis.executors import dask_executor

    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
        ) as cluster,
        dask_executor(cluster.scheduler_address) as ex,
    ):
        result = make(tmp_path / "dask", spec_of(GRID), ex, window=4)
    assert result.written == 24
    assert data(tmp_path / "dask") == data(reference)
    assert files(tmp_path / "dask") == files(reference)


def test_an_interrupted_run_resumes_to_the_same_corpus(reference: Path, tmp_path: Path) -> None:
    d = tmp_path / "cut"
    first = make(d, spec_of(GRID), stop_after=2)
    assert first.partial and first.written == 10
    # what an interruption in the middle of a write leaves: a temporary file, a batch with one table of four
    (d / "turns" / ".batch-000003.parquet.123.tmp").write_bytes(b"half a file")
    (d / "races" / "batch-000003.parquet").write_bytes((reference / "races" / "batch-000003.parquet").read_bytes())
    assert corpus.done_batches(d, spec_of(GRID)) == {0, 1}
    again = corpus.run(d, corpus.StudySpec.read(d), InlineExecutor())
    assert not again.partial and again.before == 10 and again.written == 14
    assert files(d) == files(reference)
    assert corpus.run(d, spec_of(GRID), InlineExecutor()).written == 0  # nothing left to do


def test_an_extended_corpus_equals_the_corpus_made_at_once(reference: Path, tmp_path: Path) -> None:
    d = tmp_path / "grow"
    make(d, spec_of({**GRID, "seeds": {"first": 3, "count": 1}}))  # 12 races: batches 0-1 full, batch 2 short
    assert corpus.info(d)["done"] == 12
    spec = corpus.extend(d, 1)
    result = corpus.run(d, spec, InlineExecutor())
    assert result.before == 10 and result.written == 14  # the short batch rewritten, with the new races
    assert files(d) == files(reference)
    races = [r["race"] for r in data(d)["races"]]
    assert races == sorted(set(races))  # no race twice


def test_a_sample_draws_configurations_from_the_spec_alone(tmp_path: Path) -> None:
    doc = {k: v for k, v in GRID.items() if k != "seeds"} | {"sample": {"races": 6, "seed": 9}, "batch": 4}
    make(tmp_path / "s", spec_of(doc))
    races = data(tmp_path / "s")["races"]
    spec = spec_of(doc)
    assert [(r["option"], r["seed"]) for r in races] == [(spec.plan(i)[0].option, spec.plan(i)[1]) for i in range(6)]
    longer = spec.extended(4)
    assert [longer.plan(i) for i in range(6)] == [spec.plan(i) for i in range(6)]


def test_a_corpus_of_other_rules_is_not_resumed_or_extended(tmp_path: Path) -> None:
    d = tmp_path / "old"
    spec = StudySpec.from_dict({"seeds": {"first": 1, "count": 1}}, rules="0000not-these")
    d.mkdir()
    (d / "study.json").write_text(spec.text())
    with pytest.raises(HeatlogError, match="other|rules"):
        corpus.run(d, spec, InlineExecutor())
    with pytest.raises(HeatlogError, match="rules"):
        corpus.extend(d, 1)
    with pytest.raises(HeatlogError, match="rules"):
        corpus.play_batch(spec.text(), 0)  # a cluster worker of another heatlog refuses the batch


def test_a_worker_of_another_heatlog_refuses_the_batch() -> None:
    """Same rules, other bots or simulator (or pyarrow): the bytes would differ, so the worker says so."""
    spec = spec_of({"seeds": {"first": 1, "count": 1}})
    with pytest.raises(HeatlogError, match="a worker's heatlog .* is not this one's"):
        corpus.play_batch(spec.text(), 0, "0123456789abcdef pyarrow 0.0")
    assert corpus.play_batch(spec.text(), 0, corpus.code_fingerprint()).stop == 1


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        ([], "a JSON object"),
        ({"tracks": ["japn"], "seeds": {"count": 1}}, "tracks[0]: unknown track"),
        ({"tracks": "usa", "seeds": {"count": 1}}, "tracks: a non-empty list"),
        ({"cars": [7], "seeds": {"count": 1}}, "cars[0]: 7 is out of range"),
        ({"cars": [True], "seeds": {"count": 1}}, "cars[0]: a whole number"),
        ({"bots": ["heuristic,nobody"], "seeds": {"count": 1}}, "unknown bot 'nobody'"),
        ({"cars": [6], "modules": [{"legends": 2}], "seeds": {"count": 1}}, "2 to 6 cars"),
        ({"bots": ["heuristic,random"], "cars": [4], "seeds": {"count": 1}}, "2 bots for 4 cars"),
        ({"modules": [{"wether": True}], "seeds": {"count": 1}}, "unknown option 'wether'"),
        ({"modules": [{"garage": {"upgrades": "most"}}], "seeds": {"count": 1}}, "modules 'garage"),
        ({"modules": [{}, {}], "seeds": {"count": 1}}, "two entries are named 'base'"),
        ({"modules": [{"name": "[red]x[/red]\n"}], "seeds": {"count": 1}}, "modules[0].name"),
        ({"seeds": {"count": 10**13}}, "out of range"),
        ({"seeds": {"count": 1}, "sample": {"races": 1}}, "one of them"),
        ({}, "one of them"),
        ({"seeds": {"count": 1}, "batch": 0}, "batch: 0 is out of range"),
        ({"seeds": {"count": 1}, "extra": 1}, "extra: unknown field"),
    ],
)
def test_a_bad_spec_is_refused_naming_the_field(doc: Any, words: str) -> None:
    with pytest.raises(HeatlogError, match=re.escape(words)):
        spec_of(doc)


def test_the_cli_refuses_a_bad_spec_file_and_makes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "spec.json"
    bad.write_text('{"tracks": ["usa"], "seeds": {"count": "many"}}')
    r = run("study", "run", str(bad), "--out", str(tmp_path / "c"))
    assert r.returncode == 1 and "seeds.count: a whole number" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "c").exists()
    bad.write_bytes(b"\xff\xfe{")
    r = run("study", "run", str(bad), "--out", str(tmp_path / "c"))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    r = run("study", "query", str(tmp_path), "select 1")
    assert r.returncode == 1 and "not a corpus" in r.stderr


def test_the_cli_runs_resumes_extends_and_queries(tmp_path: Path) -> None:
    out = tmp_path / "it's [a] corpus"  # a path is data: quotes and brackets in SQL and in the output
    r = run(
        "study",
        "run",
        "--track",
        "usa",
        "--cars",
        "3",
        "--seeds",
        "3",
        "--batch",
        "2",
        "--out",
        str(out),
        "--workers",
        "1",
    )
    assert r.returncode == 0, r.stderr
    assert "3 of 3 races" in r.stdout
    r = run("study", "run", "--track", "usa", "--cars", "4", "--seeds", "3", "--out", str(out))
    assert r.returncode == 1 and "another spec" in r.stderr
    r = run("study", "extend", str(out), "--seeds", "1", "--workers", "1")
    assert r.returncode == 0 and "4 of 4 races" in r.stdout, r.stderr
    r = run("study", "extend", str(out), "--races", "1")
    assert r.returncode == 1 and "a grid" in r.stderr
    r = run("study", "query", str(out), "select count(*) as n, '[b]x[/b]' as t from races", "--csv")
    assert r.returncode == 0 and r.stdout.splitlines() == ["n,t", "4,[b]x[/b]"]
    r = run("study", "query", str(out), "select '[b]x[/b]' as t")
    assert "[b]x[/b]" in r.stdout
    r = run("study", "query", str(out), "select * from nowhere")
    assert r.returncode == 1 and "query refused" in r.stderr and "Traceback" not in r.stderr
    r = run("study", "info", str(out), "--json")
    info = json.loads(r.stdout)
    assert info["done"] == 4 and info["rules_match"] and info["bytes_per_race"] > 0


# ------------------------------------------------------------------------------------------------ export


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Simulated races (seeds 3 and 4, as the grid's first configuration) and a recorded (imported) race."""
    db = tmp_path_factory.mktemp("db") / "races.db"
    with RaceLog(db) as log:
        for seed in (3, 4):
            simulate_race(log, track="usa", cars=3, seed=seed, bots="heuristic")
    for name in ("usa-4cars-table.jsonl", "usa-garage-legends-weather.jsonl"):
        r = run("import", str(ROOT / "replays" / name), db=db)
        assert r.returncode == 0, r.stderr
    return db


def test_export_parquet_matches_stats_on_the_same_races(database: Path, tmp_path: Path) -> None:
    out = tmp_path / "export"
    r = run("export", "--parquet", str(out), db=database)
    assert r.returncode == 0, r.stderr
    tables = data(out)
    assert [x["race"] for x in tables["races"]] == [1, 2, 3, 4]
    assert tables["races"][2]["mode"] == "table" and tables["races"][2]["name"] == "usa-4cars-table"
    for race in (1, 2, 3, 4):
        r = run("stats", "--race", str(race), "--csv", db=database)
        assert r.returncode == 0, r.stderr
        expected = list(csv.DictReader(io.StringIO(r.stdout)))
        got = [c for c in tables["car_races"] if c["race"] == race]
        assert len(got) == len(expected)
        for want, have in zip(expected, got, strict=True):
            for key, text in want.items():
                value = have[key]
                shown = "" if value is None else str(value) if not isinstance(value, bool) else str(value)
                assert shown == text, (race, key)
    with RaceLog(database) as log:
        facts = list(TurnsTable(log).facts([1, 2, 3, 4], cache=False))
    assert [tuple(t[c] for c in TURN_COLUMNS) for t in tables["turns"]] == [
        tuple(getattr(f, c) for c in TURN_COLUMNS) for rf in facts for f in rf.turns
    ]
    one = race_stats(facts[3]).to_dict()
    assert tables["races"][3]["winner"] == one["cars"][0]["car"] and tables["races"][3]["rounds"] == one["rounds"]


def test_a_simulated_race_is_the_same_in_a_study_and_in_an_export(database: Path, tmp_path: Path) -> None:
    with RaceLog(database) as log:
        export_parquet(log, tmp_path / "ex", [1, 2])
    exported = data(tmp_path / "ex")
    d = tmp_path / "study"
    make(d, spec_of({"tracks": ["usa"], "cars": [3], "seeds": {"first": 3, "count": 2}}))
    studied = data(d)
    for table, skip in (("turns", {"race"}), ("car_races", {"race"}), ("decisions", {"race"})):
        assert [{k: v for k, v in r.items() if k not in skip} for r in exported[table]] == [
            {k: v for k, v in r.items() if k not in skip} for r in studied[table]
        ], table
    same = ("track", "mode", "laps", "over", "rounds", "seed", "cars", "winner", "events", "bots")
    assert [{k: r[k] for k in same} for r in exported["races"]] == [{k: r[k] for k in same} for r in studied["races"]]


def test_export_parquet_leaves_a_damaged_race_out_and_says_so(database: Path, tmp_path: Path) -> None:
    import shutil
    import sqlite3

    db = tmp_path / "damaged.db"
    shutil.copy(database, db)
    con = sqlite3.connect(db, isolation_level=None)  # an edit behind the store's back (its guard dropped first)
    con.execute("DROP TRIGGER events_no_update")
    con.execute("UPDATE events SET payload = ' ' || payload WHERE race = 2 AND seq = 9")  # whatever its format
    con.close()
    r = run("export", "--parquet", str(tmp_path / "out"), db=db)
    assert r.returncode == 1 and "race 2: left out" in r.stderr, r.stderr
    assert [x["race"] for x in data(tmp_path / "out")["races"]] == [1, 3, 4]
    r = run("export", "--parquet", str(tmp_path / "x"), "--anchor", db=db)
    assert r.returncode == 1 and "--parquet" in r.stderr


# ------------------------------------------------------------------------------------------------ the doc


def test_the_studies_of_the_doc_run_on_a_small_corpus(tmp_path: Path) -> None:
    """docs/study.md's corpus spec, with fewer seeds, and every SQL block of the doc run over it."""
    text = (ROOT / "docs" / "study.md").read_text()
    spec_doc = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))  # type: ignore[union-attr]
    spec_doc["seeds"]["count"] = 2
    d = tmp_path / "doc"
    with local_executor(2) as ex:
        make(d, spec_of(spec_doc), ex, window=4)
    queries = re.findall(r"```sql\n(.*?)```", text, re.S)
    assert len(queries) >= 3
    for sql in queries:  # through the study query's checks (one SELECT, the corpus's files alone)
        _, rows = query(d, sql)
        assert rows, sql
