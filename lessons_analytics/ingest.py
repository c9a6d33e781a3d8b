"""One ingest run: transcripts and bases into the warehouse, in a single transaction.

Killed halfway, the run leaves the warehouse as it was (DuckDB rolls the open transaction
back), and the next run does the whole job again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import duckdb
import orjson
import polars as pl

from lessons_analytics import bases as base_reader
from lessons_analytics import exchange, transform, warehouse
from lessons_analytics.documents import IngestDocument
from lessons_analytics.load import LoadOutcome, SourceFile, discover, load_chunks, now_utc
from lessons_analytics.schema import BASE_TABLES, base_frame

ERRORS_SHOWN = 100


@dataclass
class IngestReport:
    files_seen: int = 0
    files_loaded: int = 0
    lines_loaded: int = 0
    changed: bool = False
    build: str | None = None  # "full" or "incremental" when the layers were (re)built
    new_errors: list[dict[str, Any]] = field(default_factory=list)
    totals: dict[str, Any] = field(default_factory=dict)

    def document(self) -> IngestDocument:
        """The ``ingest --json`` document of cli.md."""
        # totals is totals()'s dict: test_documents holds its keys to IngestTotals
        doc = {
            "files_seen": self.files_seen,
            "files_loaded": self.files_loaded,
            "lines_loaded": self.lines_loaded,
            **self.totals,
            "errors": self.totals.get("errors", [])[:ERRORS_SHOWN],
        }
        return cast(IngestDocument, doc)


def ingest(
    db_path: Path,
    paths: Iterable[Path],
    extra_bases: Iterable[Path] = (),
    progress: Callable[[int, int], Callable[[int], None]] | None = None,
    stage: Callable[[str], None] | None = None,
) -> IngestReport:
    """Load new transcript lines and changed bases, then rebuild the layers.

    ``progress(total, done)`` returns the per-file tick of the reading stage; ``stage(name)``
    is told when each later stage starts (``storing rows``, ``building tables``,
    ``committing``, ``counting``), so a progress display need not sit at 100 % through them.
    """
    try:
        con = warehouse.connect(db_path)
    except Exception as exc:
        if warehouse.is_disk_full(exc):
            raise warehouse.disk_full(exc, db_path) from None
        raise
    try:
        return _run(con, list(paths), list(extra_bases), progress, stage or (lambda _name: None))
    except Exception as exc:
        # one clear line instead of DuckDB's (or a spool writer's) traceback
        if warehouse.is_disk_full(exc):
            raise warehouse.disk_full(exc, db_path) from None
        raise
    finally:
        with contextlib.suppress(duckdb.Error):
            con.close()


def _run(
    con: duckdb.DuckDBPyConnection,
    paths: list[Path],
    extra_bases: list[Path],
    progress: Callable[[int, int], Callable[[int], None]] | None,
    stage: Callable[[str], None],
) -> IngestReport:
    warehouse.ensure_raw_tables(con)
    if exchange.is_central(con):
        raise exchange.ExportError(
            "this warehouse combines other machines' exports; feed it with `ingest --parquet`"
        )
    report = IngestReport()
    con.begin()
    try:
        sources = discover(paths)
        states = warehouse.file_states(con)
        cleared = _clear_stale_errors(con, paths, sources)
        loaded_at = now_utc()
        tick = progress(len(sources), 0) if progress else None
        outcome = LoadOutcome(files_seen=len(sources))
        new_errors = False
        models = transform.models_fingerprint()
        built_with = _built_with(con)
        # which sessions change matters only to an incremental refresh; a first build or a
        # model upgrade rebuilds everything anyway
        track = built_with == models
        _touched_table(con)
        folder, prefix = db_dir(con), _spool_prefix(con)
        _remove_stale_spools(Path(folder), prefix)
        with tempfile.TemporaryDirectory(prefix=prefix, dir=folder) as spool:
            spooled: dict[str, list[Path]] = {}
            for chunk in load_chunks(sources, states, loaded_at, progress=tick, spool=Path(spool)):
                if track:
                    _touch(con, chunk.outcome.rewritten)
                warehouse.forget_files(con, chunk.outcome.rewritten)
                for table, frame in chunk.frames.items():
                    if isinstance(frame, Path):
                        spooled.setdefault(table, []).append(frame)
                    else:
                        warehouse.append(con, table, frame)
                new_errors = new_errors or "raw_load_errors" in chunk.frames
                outcome.files_loaded += chunk.outcome.files_loaded
                outcome.lines_loaded += chunk.outcome.lines_loaded
                outcome.states.extend(chunk.outcome.states)
            stage("storing rows")
            for table, files in spooled.items():
                warehouse.append_parquet(con, table, files)
        warehouse.write_states(con, outcome.states)
        if track:
            _touch(con, [state["file_id"] for state in outcome.states])
        refresh = _refresh_bases(con, extra_bases)
        report.files_seen = outcome.files_seen
        report.files_loaded = outcome.files_loaded
        report.lines_loaded = outcome.lines_loaded
        report.changed = (
            bool(outcome.states)
            or new_errors
            or cleared
            or refresh.reloaded
            or refresh.links_changed
            or built_with != models
        )
        if report.changed:
            # new links come only with new working directories, whose sessions are touched
            incremental = (
                built_with == models
                and not refresh.reloaded
                and (refresh.links_only_added or not refresh.links_changed)
            )
            report.build = "incremental" if incremental else "full"
            stage("building tables")
            transform.build(con, _affected_sessions(con) if incremental else None)
            _record_build(con, models)
        stage("committing")
        con.commit()
    except BaseException:
        # a failed commit has already ended the transaction: rolling back again would only
        # hide the real error behind a second one
        with contextlib.suppress(duckdb.Error):
            con.rollback()
        raise
    stage("counting")
    report.totals = totals(con)
    return report


def _spool_prefix(con: duckdb.DuckDBPyConnection) -> str:
    path = con.execute(
        "select path from duckdb_databases() where database_name = current_database()"
    ).fetchall()
    name = os.path.basename(path[0][0]) if path and path[0][0] else "memory"
    return f".spool-{name}."


_LEGACY_SPOOL_AGE_S = 600.0


def _remove_stale_spools(folder: Path, prefix: str) -> None:
    """Remove the spool folders a killed run left. This run holds the warehouse's write lock,
    so every spool named after this warehouse is stale; an unnamed one (older versions)
    goes once it is ten minutes old (it may belong to another warehouse's live run)."""
    now = time.time()
    for spool in folder.glob(".spool-*"):
        with contextlib.suppress(OSError):
            if spool.is_symlink() or not spool.is_dir():
                continue
            ours = spool.name.startswith(prefix)
            legacy = spool.name.count(".") == 1  # ".spool-<random>", no warehouse name
            if ours or (legacy and now - spool.stat().st_mtime > _LEGACY_SPOOL_AGE_S):
                shutil.rmtree(spool)


def _clear_stale_errors(
    con: duckdb.DuckDBPyConnection, roots: list[Path], sources: list[SourceFile]
) -> bool:
    """Forget the errors of paths that never loaded (an unreadable folder, a FIFO) and are
    no longer listed under the folders of this run: the folder became readable, the FIFO
    went away. Every path still listed is re-examined and reports its error again."""
    rows = con.execute(
        "select distinct file_id, path from raw_load_errors"
        " where file_id not in (select file_id from raw_files)"
    ).fetchall()
    listed = {source.path for source in sources}
    scanned = [os.path.abspath(os.path.expanduser(root)) for root in roots]
    stale = [
        file_id
        for file_id, path in rows
        if path not in listed and any(_under(path, root) for root in scanned)
    ]
    warehouse.forget_files(con, stale)
    return bool(stale)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def db_dir(con: duckdb.DuckDBPyConnection) -> str:
    """The warehouse's folder: the workers' spool goes on the same disk."""
    path = con.execute(
        "select path from duckdb_databases() where database_name = current_database()"
    ).fetchall()
    return os.path.dirname(path[0][0]) if path and path[0][0] else tempfile.gettempdir()


def _touched_table(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("create or replace temp table touched_lines (session_id varchar, uuid varchar)")


def _touch(con: duckdb.DuckDBPyConnection, file_ids: list[int]) -> None:
    """Remember the sessions (and line ids) of files whose rows are about to change."""
    if not file_ids:
        return
    ids = pl.DataFrame({"file_id": file_ids}, schema={"file_id": pl.Int64})
    con.register("touched_ids", ids.to_arrow())
    con.execute(
        "insert into touched_lines select session_id, uuid from raw_events"
        " where file_id in (select file_id from touched_ids) and session_id is not null"
    )
    con.execute(
        "insert into touched_lines select session_id, null from raw_subagent_meta"
        " where file_id in (select file_id from touched_ids) and session_id is not null"
    )
    con.unregister("touched_ids")


def _affected_sessions(con: duckdb.DuckDBPyConnection) -> str:
    """The sessions whose rows a refresh must recompute: those of the touched files, and
    those sharing a line id with them (a resume copy's keeper may change)."""
    con.execute(
        """
        create or replace temp table affected_sessions as
        select distinct session_id from touched_lines
        union
        select distinct events.session_id
        from raw_events events
        inner join (select distinct uuid from touched_lines where uuid is not null) touched
            using (uuid)
        where events.session_id is not null
        """
    )
    return "affected_sessions"


def _built_with(con: duckdb.DuckDBPyConnection) -> str | None:
    """Fingerprint of the sql/ models the layers were last built from (None: never built)."""
    con.execute("create table if not exists meta_build (models varchar, built_at timestamptz)")
    rows = con.execute("select models from meta_build").fetchall()
    return rows[0][0] if rows else None


def _record_build(con: duckdb.DuckDBPyConnection, models: str) -> None:
    con.execute("delete from meta_build")
    con.execute("insert into meta_build values (?, now())", [models])


@dataclass(frozen=True)
class _BaseRefresh:
    reloaded: bool  # a base changed: every base table was re-read
    links_changed: bool  # the cwd -> base links changed
    links_only_added: bool  # ... and only by links for new working directories


def _refresh_bases(con: duckdb.DuckDBPyConnection, extra_bases: list[Path]) -> _BaseRefresh:
    """Re-read the bases when any changed since the last run, and the cwd -> base links."""
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
    old = {
        tuple(row)
        for row in con.execute("select cwd, base_path, depth from raw_cwd_bases").fetchall()
    }
    new = {(row["cwd"], row["base_path"], row["depth"]) for row in cwd_rows}
    if known == fingerprints:
        if old != new:
            warehouse.replace_table(con, "raw_cwd_bases", base_frame("raw_cwd_bases", cwd_rows))
        return _BaseRefresh(False, old != new, old <= new)
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
            "repo_changes",
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
    return _BaseRefresh(True, old != new, False)


def _fingerprint(base: Path) -> str:
    """Changes whenever a file of the base or the repository HEAD changes. INDEX.md counts
    by its content without the sleep marker, so refreshing the marker is not a change."""
    digest = hashlib.blake2b(digest_size=16)
    # a warehouse written with other base columns re-reads its bases once
    digest.update(repr(sorted((t, list(c)) for t, c in BASE_TABLES.items())).encode())
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
