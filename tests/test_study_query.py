"""`heatlog study query` only reads the corpus: one SELECT-type statement (DuckDB's own statement split), on a
connection that may open the corpus's files alone with its configuration locked. Hostile queries are refused
with the house's words and write nothing; the studies of docs/study.md still run; a query that would run for
ever stops at --timeout or on Ctrl-C."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("pyarrow.parquet", reason="the study extra: pip install 'heatlog[study]'")
duckdb = pytest.importorskip("duckdb")

from heatlog import rules_version  # noqa: E402
from heatlog.analysis.executors import InlineExecutor  # noqa: E402
from heatlog.engine import MalformedInput  # noqa: E402
from heatlog.study import corpus  # noqa: E402
from heatlog.study.query import connect, query  # noqa: E402
from heatlog.study.spec import StudySpec  # noqa: E402
from tests.test_cli import HEATLOG, run  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FOREVER = "with recursive r(n) as (select 1 union all select n + 1 from r) select count(*) from r"


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding a small corpus (`corpus/`) and a file that is not the corpus's (`secret.txt`)."""
    d = tmp_path_factory.mktemp("place")
    spec = StudySpec.from_dict(
        {"tracks": ["usa"], "cars": [3], "seeds": {"count": 2}, "batch": 1}, rules=rules_version()
    )
    corpus.create(d / "corpus", spec)
    corpus.run(d / "corpus", spec, InlineExecutor())
    (d / "secret.txt").write_text("the lead's notes\n")
    (d / "secret.csv").write_text("note\nthe lead's\n")
    return d


def tree(*roots: Path) -> set[str]:
    """Every path under the roots, with its size and modification time: what a query must leave as it was."""
    return {
        f"{p}:{p.stat().st_size}:{p.stat().st_mtime_ns}"
        for root in roots
        for p in [root, *root.rglob("*")]
        if p.exists()
    }


# What is refused (the statement, or what it would open) and the words that say why.
HOSTILE: list[tuple[str, str]] = [
    ("copy (select * from races) to '{out}/out.csv'", "COPY writes or reads files"),
    ("copy races to '{out}/out.parquet' (format parquet)", "COPY writes or reads files"),
    ("copy races from '{out}/secret.txt'", "COPY writes or reads files"),
    ("export database '{out}/exported'", "EXPORT writes files"),
    ("attach '{out}/other.duckdb' as other", "ATTACH opens another database"),
    ("attach ':memory:' as other", "ATTACH"),
    ("detach memory", "DETACH"),
    ("install httpfs", "INSTALL (DuckDB's LOAD statement) installs or loads an extension"),
    ("load parquet", "LOAD installs or loads an extension"),
    ("force install json", "FORCE (DuckDB's LOAD statement) installs"),
    ("set enable_external_access = true", "SET changes a setting"),
    ("reset lock_configuration", "RESET (DuckDB's SET statement)"),
    ("set temp_directory = '{out}/spill'", "SET"),
    ("set variable x = 1", "SET"),
    ("use memory", "USE (DuckDB's SET statement)"),
    ("pragma enable_profiling", "PRAGMA changes a setting"),
    ("pragma profiling_output = '{out}/profile.txt'", "PRAGMA (DuckDB's SET statement)"),
    ("create table t as select * from races", "CREATE creates something"),
    ("create or replace view races as select 1 as race", "CREATE"),
    ("create macro m(a) as a + 1", "CREATE"),
    ("insert into races select * from races", "INSERT changes data"),
    ("update races set track = 'x'", "UPDATE"),
    ("delete from races", "DELETE"),
    ("drop view races", "DROP"),
    ("alter view races rename to r", "ALTER"),
    ("explain analyze copy (select 1) to '{out}/explained.csv'", "EXPLAIN"),
    ("explain select * from races", "EXPLAIN"),
    ("call duckdb_settings()", "CALL"),
    ("checkpoint", "CHECKPOINT (DuckDB's CALL statement)"),
    ("begin transaction", "BEGIN (DuckDB's TRANSACTION statement) is not a query that reads"),
    ("prepare p as select 1", "PREPARE"),
    ("vacuum", "VACUUM"),
    ("select 1; select 2", "2 statements (SELECT, SELECT)"),
    ("select count(*) from races; copy races to '{out}/second.csv'", "2 statements (SELECT, COPY)"),
    ("pivot races on track using count(*)", "a PIVOT must list its columns"),
    ("", "no statement in it"),
    (" ;; -- nothing ", "no statement in it"),
    ("select * from read_csv('/etc/passwd', sep = ':')", "it would open '/etc/passwd', outside the corpus"),
    ("select * from read_text('{out}/secret.txt')", "secret.txt', outside the corpus"),
    ("select * from read_blob('{out}/secret.txt')", "secret.txt', outside the corpus"),
    ("select * from '{out}/secret.csv'", "secret.csv', outside the corpus"),
    ("select * from read_json('{out}/corpus/study.json')", "study.json', outside the corpus"),
    ("select * from read_parquet('{out}/corpus/races/*.parquet')", "*.parquet', outside the corpus"),
    ("select * from glob('/etc/*')", "it would open '/etc/*'"),
    ("select * from 'https://example.com/races.csv'", "it would open 'https://example.com/races.csv'"),
    ("select * from query('copy races to ''{out}/q.csv''')", "Expected a single SELECT statement"),
]


@pytest.mark.parametrize(("sql", "words"), HOSTILE, ids=[s[:40] for s, _ in HOSTILE])
def test_a_hostile_query_is_refused_naming_why_and_writes_nothing(
    place: Path, sql: str, words: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # DuckDB would spill into ./.tmp
    before = tree(place, tmp_path)
    with pytest.raises(MalformedInput, match=re.escape(words)) as refused:
        query(place / "corpus", sql.format(out=place))
    assert "query refused: " in str(refused.value)
    assert "a study query reads the corpus" in str(refused.value) or "Parser Error" in str(refused.value)
    assert tree(place, tmp_path) == before


def test_the_connection_keeps_its_settings_whatever_is_asked(place: Path) -> None:
    """The statement check aside, DuckDB itself refuses: the configuration is locked and no file but the
    corpus's opens (docs/study.md, "Read only")."""
    con = connect(place / "corpus")
    try:
        for sql in ("set enable_external_access = true", "reset enable_external_access", "set allowed_paths = []"):
            with pytest.raises(duckdb.InvalidInputException, match="locked"):
                con.execute(sql)
        with pytest.raises(duckdb.PermissionException):
            con.execute(f"copy races to '{place}/out.csv'")
        with pytest.raises(duckdb.PermissionException):
            con.execute(f"select * from read_text('{place}/secret.txt')")
        assert con.execute("select count(*) from races").fetchone() == (2,)
    finally:
        con.close()
    assert not (place / "out.csv").exists()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    parts=st.lists(
        st.sampled_from(
            [
                "select count(*) from races",
                "copy races to '{out}/h.csv'",
                "attach '{out}/h.duckdb'",
                "install httpfs",
                "set threads = 1",
                "create table h(a int)",
                "select * from read_text('{out}/secret.txt')",
                "pragma enable_profiling",
            ]
        ),
        min_size=1,
        max_size=3,
    ),
    separator=st.sampled_from([";", "; ", ";\n-- x\n"]),
)
def test_any_mix_of_statements_is_one_read_or_refused(place: Path, parts: list[str], separator: str) -> None:
    before = tree(place)
    sql = separator.join(parts).format(out=place)
    try:
        columns, rows = query(place / "corpus", sql)
    except MalformedInput as err:
        assert "query refused: " in str(err)
    else:
        assert parts == ["select count(*) from races"] and rows == [(2,)], sql
    assert tree(place) == before


def test_reading_queries_still_run(place: Path) -> None:
    d = place / "corpus"
    assert query(d, "select count(*) as n from races") == (["n"], [(2,)])
    assert query(d, "with w as (select * from car_races) select count(*) from w;")[1] == [(6,)]
    assert query(d, "from races select race order by race")[1] == [(0,), (1,)]
    assert ("race", "BIGINT") in {(r[0], r[1]) for r in query(d, "describe races")[1]}
    assert len(query(d, "summarize turns")[1]) > 5
    assert query(d, "pivot races on track in ('usa') using count(*) group by cars")[1] == [(3, 2)]
    files = corpus.table_files(d, "races")
    assert query(d, f"select count(*) from read_parquet('{files[0].resolve()}')")[1] == [(1,)]  # the corpus's own


def test_the_studies_of_the_doc_are_reading_queries(place: Path) -> None:
    """Every SQL block of docs/study.md passes the check and runs (on a corpus with no weather races, some are
    empty: tests/test_study.py runs them on the doc's own spec)."""
    queries = re.findall(r"```sql\n(.*?)```", (ROOT / "docs" / "study.md").read_text(), re.S)
    assert len(queries) >= 5
    for sql in queries:
        columns, _ = query(place / "corpus", sql)
        assert columns, sql


def test_a_query_that_would_run_for_ever_stops_at_the_timeout(place: Path) -> None:
    with pytest.raises(MalformedInput, match=re.escape("query stopped after 0.5 s (--timeout)")):
        query(place / "corpus", FOREVER, timeout=0.5)
    with pytest.raises(MalformedInput, match="--timeout 0: a number of seconds above 0"):
        query(place / "corpus", "select 1", timeout=0)


def test_the_cli_refuses_hostile_queries_and_writes_nothing(place: Path, tmp_path: Path) -> None:
    before = tree(place, tmp_path)
    for sql in (
        f"copy races to '{place}/cli.csv'",
        f"attach '{place}/cli.duckdb' as x",
        "select 1; select 2",
        "install httpfs",
        "select * from read_csv('/etc/passwd')",
    ):
        r = run("study", "query", str(place / "corpus"), sql, cwd=tmp_path)
        assert r.returncode == 1, (sql, r.stdout, r.stderr)
        assert r.stderr.startswith("Error: ") and "query refused: " in r.stderr and "Traceback" not in r.stderr
        assert "a study query reads the corpus" in r.stderr and not r.stdout
    r = run("study", "query", str(place / "corpus"), FOREVER, "--timeout", "0.5", cwd=tmp_path)
    assert r.returncode == 1 and "query stopped after 0.5 s (--timeout)" in r.stderr
    assert tree(place, tmp_path) == before
    r = run("study", "query", str(place / "corpus"), "select count(*) as n from races", "--csv", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.splitlines() == ["n", "2"], r.stderr


def test_ctrl_c_stops_a_query_that_would_run_for_ever(place: Path) -> None:
    """DuckDB does not see Ctrl-C while it runs; the CLI interrupts it and exits 130, as `study run` does."""
    pexpect = pytest.importorskip("pexpect")
    cmd = [HEATLOG or sys.executable, *([] if HEATLOG else ["-m", "heatlog.cli"])]
    child = pexpect.spawn(
        cmd[0], [*cmd[1:], "study", "query", str(place / "corpus"), FOREVER], env=dict(os.environ), encoding="utf-8"
    )
    child.expect(pexpect.TIMEOUT, timeout=8)  # running (its start-up is a second or two on a busy machine)
    child.sendintr()
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    assert child.exitstatus == 130 and "query interrupted" in (child.before or "")
