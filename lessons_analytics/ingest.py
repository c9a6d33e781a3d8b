"""One ingest run: transcripts and bases into the warehouse, in a single transaction.

Killed halfway, the run leaves the warehouse as it was (DuckDB rolls the open transaction
back), and the next run does the whole job again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import orjson

from lessons_analytics import bases as base_reader
from lessons_analytics import transform, warehouse
from lessons_analytics.load import LoadOutcome, discover, load_chunks, now_utc
from lessons_analytics.schema import BASE_TABLES, base_frame

ERRORS_SHOWN = 100


@dataclass
class IngestReport:
    files_seen: int = 0
    files_loaded: int = 0
    lines_loaded: int = 0
    changed: bool = False
    new_errors: list[dict[str, Any]] = field(default_factory=list)
    totals: dict[str, Any] = field(default_factory=dict)

    def document(self) -> dict[str, Any]:
        """The ``ingest --json`` document of cli.md."""
        return {
            "files_seen": self.files_seen,
            "files_loaded": self.files_loaded,
            "lines_loaded": self.lines_loaded,
            **self.totals,
            "errors": self.totals.get("errors", [])[:ERRORS_SHOWN],
        }


def ingest(
    db_path: Path,
    paths: Iterable[Path],
    extra_bases: Iterable[Path] = (),
    progress: Callable[[int, int], Callable[[int], None]] | None = None,
) -> IngestReport:
    """Load new transcript lines and changed bases, then rebuild the layers."""
    con = warehouse.connect(db_path)
    try:
        return _run(con, list(paths), list(extra_bases), progress)
    finally:
        con.close()


def _run(
    con: duckdb.DuckDBPyConnection,
    paths: list[Path],
    extra_bases: list[Path],
    progress: Callable[[int, int], Callable[[int], None]] | None,
) -> IngestReport:
    warehouse.ensure_raw_tables(con)
    report = IngestReport()
    con.begin()
    try:
        sources = discover(paths)
        states = warehouse.file_states(con)
        loaded_at = now_utc()
        tick = progress(len(sources), 0) if progress else None
        outcome = LoadOutcome(files_seen=len(sources))
        new_errors = False
        for chunk in load_chunks(sources, states, loaded_at, progress=tick):
            warehouse.forget_files(con, chunk.outcome.rewritten)
            for table, frame in chunk.frames.items():
                warehouse.append(con, table, frame)
            new_errors = new_errors or "raw_load_errors" in chunk.frames
            outcome.files_loaded += chunk.outcome.files_loaded
            outcome.lines_loaded += chunk.outcome.lines_loaded
            outcome.states.extend(chunk.outcome.states)
        warehouse.write_states(con, outcome.states)
        bases_changed = _refresh_bases(con, extra_bases)
        report.files_seen = outcome.files_seen
        report.files_loaded = outcome.files_loaded
        report.lines_loaded = outcome.lines_loaded
        models = transform.models_fingerprint()
        built_with = _built_with(con)
        report.changed = bool(outcome.states) or new_errors or bases_changed or built_with != models
        if report.changed:
            transform.build(con)
            _record_build(con, models)
        con.commit()
    except BaseException:
        con.rollback()
        raise
    report.totals = totals(con)
    return report


def _built_with(con: duckdb.DuckDBPyConnection) -> str | None:
    """Fingerprint of the sql/ models the layers were last built from (None: never built)."""
    con.execute("create table if not exists meta_build (models varchar, built_at timestamptz)")
    rows = con.execute("select models from meta_build").fetchall()
    return rows[0][0] if rows else None


def _record_build(con: duckdb.DuckDBPyConnection, models: str) -> None:
    con.execute("delete from meta_build")
    con.execute("insert into meta_build values (?, now())", [models])


def _refresh_bases(con: duckdb.DuckDBPyConnection, extra_bases: list[Path]) -> bool:
    """Re-read every base that changed since the last run; True when anything did."""
    cwds = [
        row[0]
        for row in con.execute(
            "select distinct cwd from raw_events where cwd is not null"
        ).fetchall()
    ] + [
        row[0]
        for row in con.execute(
            "select distinct cwd from raw_tool_calls where cwd is not null"
        ).fetchall()
    ]
    links: dict[tuple[str, str], int] = {}
    for cwd in cwds:
        for depth, base in enumerate(base_reader.discover_bases(cwd)):
            links.setdefault((cwd, str(base)), depth)
    wanted = {base for _cwd, base in links}
    wanted |= {str(base_reader.resolve_base(path)) for path in extra_bases}
    fingerprints = {base: _fingerprint(Path(base)) for base in sorted(wanted)}
    known = _known_fingerprints(con)
    cwd_rows = [{"cwd": c, "base_path": b, "depth": d} for (c, b), d in sorted(links.items())]
    old_links = _table_rows(con, "raw_cwd_bases")
    if known == fingerprints and old_links == len(cwd_rows):
        return False
    snapshots = [base_reader.load_base(Path(base)) for base in fingerprints]
    tables: dict[str, list[dict[str, Any]]] = {name: [] for name in BASE_TABLES}
    for snapshot in snapshots:
        base_row = dict(snapshot.base)
        base_row["fingerprint"] = fingerprints[base_row["base_path"]]
        tables["raw_bases"].append(base_row)
        for name in (
            "lessons",
            "hits",
            "lesson_versions",
            "index_versions",
            "index_rows",
            "index_sections",
            "quarantine",
            "retired",
        ):
            tables[f"raw_{name}"].extend(getattr(snapshot, name))
        for error in snapshot.errors:
            tables["raw_base_errors"].append({"base_path": base_row["base_path"], **error})
    for hit in tables["raw_hits"]:
        if isinstance(hit.get("extra"), dict):
            hit["extra"] = orjson.dumps(hit["extra"]).decode()
    tables["raw_cwd_bases"] = cwd_rows
    for name, rows in tables.items():
        warehouse.replace_table(con, name, base_frame(name, rows))
    return True


def _fingerprint(base: Path) -> str:
    """Changes whenever a file of the base or the repository HEAD changes. INDEX.md counts
    by its content without the sleep marker, so refreshing the marker is not a change."""
    digest = hashlib.blake2b(digest_size=16)
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return "missing"
    for entry in entries:
        if entry.name == "INDEX.md":
            try:
                text = Path(entry.path).read_bytes()
            except OSError:
                text = b""
            kept = [
                line
                for line in text.splitlines()
                if not line.lstrip().startswith(b"<!-- sleep-due:")
            ]
            digest.update(b"INDEX.md:" + hashlib.blake2b(b"\n".join(kept)).digest())
            continue
        stat = entry.stat()
        digest.update(f"{entry.name}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    root = base_reader.repo_root_of(base)
    if root is not None:
        for ref in (root / ".git" / "HEAD", root / ".git" / "index"):
            with contextlib.suppress(OSError):
                digest.update(f"{ref}:{ref.stat().st_mtime_ns};".encode())
    return digest.hexdigest()


def _known_fingerprints(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    if not _table_rows(con, "raw_bases"):
        return {}
    return dict(con.execute("select base_path, fingerprint from raw_bases").fetchall())


def _table_rows(con: duckdb.DuckDBPyConnection, table: str) -> int:
    exists = con.execute(
        "select count(*) from information_schema.tables where table_name = ?", [table]
    ).fetchall()[0]
    if not exists[0]:
        return 0
    count = con.execute(f"select count(*) from {table}").fetchall()[0]
    return int(count[0])


def totals(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """Counts of the warehouse after a run, in the shape of ``ingest --json``."""

    def one(sql: str) -> Any:
        return con.execute(sql).fetchall()[0][0]

    by_tool = dict(
        con.execute(
            "select tool_name, count(*) from fct_tool_calls group by 1 order by 2 desc, 1"
        ).fetchall()
    )
    errors = con.execute(
        "select file, line, reason from fct_load_errors order by file, line limit ?",
        [ERRORS_SHOWN],
    ).fetchall()
    return {
        "sessions": one("select count(*) from fct_sessions"),
        "agent_runs": one("select count(*) from dim_agent_runs"),
        "tool_calls": one("select count(*) from fct_tool_calls"),
        "by_tool": by_tool,
        "file_reads": one("select count(*) from fct_file_reads"),
        "bases": one("select count(*) from dim_bases"),
        "lessons": one("select count(*) from dim_lessons"),
        "hits": one("select count(*) from fct_hits where is_hit"),
        "load_errors": one("select count(*) from fct_load_errors"),
        "errors": [{"file": f, "line": line, "reason": r} for f, line, r in errors],
    }
