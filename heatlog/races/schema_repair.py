"""A heatlog file whose schema (``sqlite_master``) is damaged: what is damaged, what survives, a way on.

A flipped byte in the text of one ``CREATE`` statement stops SQLite from opening the file at all ("malformed
database schema"), although every page of data may be intact. heatlog knows exactly which schema it writes,
so :func:`examine` compares the file's schema object by object with it (read with ``writable_schema`` on,
which makes SQLite skip what it cannot parse, and as bytes, so text that is not UTF-8 is no obstacle), and
:func:`salvage` writes a *copy* of the file with heatlog's own definitions put back for the damaged objects.
The user's file is never written. ``heatlog audit`` then audits the races of the copy, so the report says,
per object, what is damaged and, per race, what survives; ``heatlog audit --salvage NEW.db`` keeps the copy.
"""

from __future__ import annotations

import contextlib
import difflib
import re
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ..engine.errors import StoreError
from ..store import APPLICATION_ID

__all__ = ["SchemaObject", "examine", "looks_like_heatlog", "salvage"]

_HEADER = b"SQLite format 3\x00"


@dataclass(frozen=True)
class SchemaObject:
    """One object of heatlog's schema as the file holds it.

    ``status``: ``ok``; ``damaged`` (its definition is not heatlog's: a changed byte, text that is not UTF-8,
    a broken name); ``missing``; ``unknown`` (a row heatlog does not write, matching none of its objects)."""

    type: str
    name: str
    status: str
    detail: str
    rowid: int | None = None  # the row of sqlite_master holding it (None: missing)


def looks_like_heatlog(path: Path) -> bool:
    """True if the file's header says SQLite and its application id says heatlog (read without SQLite)."""
    try:
        with open(path, "rb") as f:
            head = f.read(72)
    except OSError:
        return False
    return len(head) == 72 and head[:16] == _HEADER and int.from_bytes(head[68:72], "big") == APPLICATION_ID


def _optional_ddl() -> list[str]:
    """The statements of the tables heatlog makes only when first needed (recorder, summaries, seasons, the
    derived turns): their absence is no damage."""
    from ..stats.derived import DDL as DERIVED_DDL
    from ..store import optional_ddl

    return [*optional_ddl(), *DERIVED_DDL]


def _objects(conn: sqlite3.Connection) -> dict[str, tuple[str, str, str | None]]:
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")
    return {str(name): (str(type_), str(tbl), sql) for type_, name, tbl, sql in rows}


def _format_of(path: Path) -> int:
    """The file's format (heatlog.store.eventrows) as its header says (``PRAGMA user_version``, bytes 60-63; heatlog
    sets it with the format), read without SQLite; the current format if it says none heatlog writes."""
    from ..store import FORMAT_VERSION

    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:
        return FORMAT_VERSION
    version = int.from_bytes(head[60:64], "big") if len(head) == 64 else 0
    return version if 1 <= version <= FORMAT_VERSION else FORMAT_VERSION


def _expected(version: int | None = None) -> tuple[dict[str, tuple[str, str, str | None]], frozenset[str]]:
    """name -> (type, table, sql) of every object heatlog writes in a file of format ``version`` (the current one
    if None), and the names of the optional ones."""
    import sqlite_utils

    from ..store import FORMAT_VERSION
    from ..store.schema import create_schema

    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        create_schema(
            sqlite_utils.Database(conn, execute_plugins=False, recursive_triggers=False), version or FORMAT_VERSION
        )
        core = _objects(conn)
        for sql in _optional_ddl():
            conn.execute(sql)
        every = _objects(conn)
    finally:
        conn.close()
    return every, frozenset(every) - frozenset(core)


def _norm(sql: str | None) -> str:
    return "" if sql is None else re.sub(r"\s+", " ", sql).strip()


def _rows(path: Path) -> list[tuple[int, bytes, bytes, bytes, object, bytes | None]]:
    """(rowid, type, name, tbl_name, rootpage, sql) of sqlite_master, as bytes, read-only."""
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open the file to examine it ({exc}): {path}") from None
    try:
        conn.text_factory = bytes
        conn.execute("PRAGMA writable_schema = ON")  # SQLite skips the definitions it cannot parse
        return [
            (int(r[0]), *r[1:])
            for r in conn.execute("SELECT rowid, type, name, tbl_name, rootpage, sql FROM sqlite_master")
        ]
    except (sqlite3.Error, UnicodeDecodeError) as exc:
        raise StoreError(f"the file's schema cannot be read at all ({exc}): {path}") from None
    finally:
        conn.close()


def _text(raw: object) -> str:
    if isinstance(raw, bytes):
        return raw.decode("utf-8", "replace")
    return "" if raw is None else str(raw)


def _why(sql: bytes | None, want: str | None) -> str:
    if sql is None:
        return "its definition is gone"
    try:
        text = sql.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"its definition holds a byte that is not UTF-8 (0x{sql[exc.start]:02x} at character {exc.start})"
    at = next((i for i, (a, b) in enumerate(zip(text, want or "", strict=False)) if a != b), None)
    if at is None:
        return "its definition is cut short or longer than heatlog's"
    return f"its definition differs from heatlog's at character {at} ({text[at]!r} instead of {(want or '')[at]!r})"


def examine(path: Path) -> list[SchemaObject]:
    """Every object of the file's schema against heatlog's, in heatlog's order (then unknown rows)."""
    expected, optional = _expected(_format_of(path))
    rows = _rows(path)
    by_name = {_text(r[2]): r for r in rows}
    found: dict[str, SchemaObject] = {}
    spare = [r for r in rows if _text(r[2]) not in expected]
    for name, (type_, _tbl, sql) in expected.items():
        row = by_name.get(name)
        if row is None:
            continue
        same = _text(row[1]) == type_ and (row[5] is None) == (sql is None)
        if same and sql is not None and isinstance(row[5], bytes):
            try:
                same = _norm(row[5].decode("utf-8")) == _norm(sql)
            except UnicodeDecodeError:
                same = False
        status = "ok" if same else "damaged"
        found[name] = SchemaObject(type_, name, status, "" if same else _why(row[5], sql), row[0])
    # A row whose name itself is damaged: the missing object whose definition it resembles most.
    for row in spare:
        text = _text(row[5])
        best, score = None, 0.0
        for name, (_type, _tbl, sql) in expected.items():
            if name in found or sql is None:
                continue
            ratio = difflib.SequenceMatcher(None, text, sql, autojunk=False).ratio()
            if ratio > score:
                best, score = name, ratio
        if best is not None and score >= 0.9:
            type_, _tbl, sql = expected[best]
            why = f"its row names it {_text(row[2])!r}" if _text(row[2]) != best else _why(row[5], sql)
            found[best] = SchemaObject(type_, best, "damaged", why, row[0])
        else:
            found[f"\0{row[0]}"] = SchemaObject(
                _text(row[1]), _text(row[2]), "unknown", "a row heatlog does not write (added, or damaged)", row[0]
            )
    out: list[SchemaObject] = []
    for name, (type_, _tbl, _sql) in expected.items():
        if name in found:
            out.append(found.pop(name))
        elif name not in optional:
            out.append(SchemaObject(type_, name, "missing", "the file has no such object"))
    out.extend(found.values())
    return out


def salvage(path: Path, dest: Path) -> list[SchemaObject]:
    """Copy ``path`` (with its WAL) to ``dest`` and put heatlog's definitions back into the copy's schema for
    every damaged object (indexes rebuilt); ``path`` is only read. Returns the objects as :func:`examine`."""
    objects = examine(path)
    if dest.exists() or Path(f"{dest}-wal").exists():
        raise StoreError(f"will not overwrite {dest}: give a path that does not exist")
    try:
        shutil.copyfile(path, dest)
        if Path(f"{path}-wal").exists():
            shutil.copyfile(f"{path}-wal", f"{dest}-wal")
    except OSError as exc:
        raise StoreError(f"cannot write the salvaged copy {dest}: {exc.strerror or exc}") from None
    expected, _ = _expected(_format_of(path))
    damaged = [o for o in objects if o.status == "damaged" and o.rowid is not None]
    if not damaged:
        return objects
    conn = sqlite3.connect(dest, isolation_level=None)
    try:
        conn.text_factory = bytes
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("BEGIN IMMEDIATE")
        for o in damaged:
            type_, tbl, sql = expected[o.name]
            conn.execute(
                "UPDATE sqlite_master SET type = ?, name = ?, tbl_name = ?, sql = ? WHERE rowid = ?",
                (type_, o.name, tbl, sql, o.rowid),
            )
        conn.execute("COMMIT")
        conn.execute("PRAGMA writable_schema = OFF")
    except sqlite3.Error as exc:
        conn.close()
        with contextlib.suppress(OSError):
            dest.unlink()
        raise StoreError(f"cannot restore the schema in the copy ({exc}): {dest}") from None
    conn.close()
    conn = sqlite3.connect(dest, isolation_level=None)  # a fresh connection reads the restored schema
    try:
        for o in damaged:
            if o.type == "index" and expected[o.name][2] is not None:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute(f'REINDEX "{o.name}"')
    finally:
        conn.close()
    return objects
