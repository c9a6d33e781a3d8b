"""One ingest run: transcripts and bases into the warehouse, in a single transaction.

Killed halfway, the run leaves the warehouse as it was (DuckDB rolls the open transaction
back), and the next run does the whole job again.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lessons_analytics import refresh, sqlfiles, unchanged, warehouse
from lessons_analytics.engine import duckdb
from lessons_analytics.lessonbase import loading as baseload
from lessons_analytics.load import (
    LoadOutcome,
    SourceFile,
    classify,
    discover,
    load_chunks,
    now_utc,
)
from lessons_analytics.schema import RAW_TABLES, Columns, FileRow, FileState
from lessons_analytics.unchanged import ERRORS_SHOWN, IngestReport

if TYPE_CHECKING:
    from lessons_analytics.documents import IngestTotals


def ingest(
    db_path: Path,
    paths: Iterable[Path],
    extra_bases: Iterable[Path] = (),
    progress: Callable[[int, int], Callable[[int], None]] | None = None,
    stage: Callable[[str], None] | None = None,
) -> IngestReport:
    """Load new transcript lines and changed bases, then rebuild the layers. A run that
    would change nothing is told from the file system alone (``unchanged``).

    ``progress(total, done)`` returns the per-file tick of the reading stage; ``stage(name)``
    is told when each later stage starts (``storing rows``, ``building tables``,
    ``committing``, ``counting``), so a progress display need not sit at 100 % through them.
    """
    paths, extra_bases = list(paths), list(extra_bases)
    answer = unchanged.ask(db_path, paths, extra_bases)
    if answer.report is not None:
        return answer.report
    return ingest_changed(db_path, paths, extra_bases, progress, stage, answer)


def ingest_changed(
    db_path: Path,
    paths: list[Path],
    extra_bases: list[Path],
    progress: Callable[[int, int], Callable[[int], None]] | None = None,
    stage: Callable[[str], None] | None = None,
    asked: unchanged.Answer | None = None,
    opening: warehouse.Opening | None = None,
) -> IngestReport:
    """``ingest`` once ``unchanged.ask`` has said the run may change something (the CLI
    asks it before importing this module, so it is not asked twice). ``asked`` holds the
    listing that question made, if it got that far: the folders are not walked, nor the
    files stat'ed, twice. ``opening``: the writer's connection to ``db_path``, opened while
    the CLI imported this module."""
    if asked is not None:
        asked.changed()  # the stored listing read and compared while the warehouse opens
    try:
        con = opening.take() if opening is not None else warehouse.connect(db_path)
    except Exception as exc:
        if warehouse.is_disk_full(exc):
            raise warehouse.disk_full(exc, db_path) from None
        raise
    try:
        report = _run(con, paths, extra_bases, progress, stage or (lambda _name: None), asked)
    except Exception as exc:
        # one clear line instead of DuckDB's (or a spool writer's) traceback
        if warehouse.is_disk_full(exc):
            raise warehouse.disk_full(exc, db_path) from None
        raise
    finally:
        with contextlib.suppress(duckdb.Error):
            con.close()
    unchanged.remember(db_path, paths, extra_bases, report, asked)
    return report


def _run(
    con: duckdb.DuckDBPyConnection,
    paths: list[Path],
    extra_bases: list[Path],
    progress: Callable[[int, int], Callable[[int], None]] | None,
    stage: Callable[[str], None],
    asked: unchanged.Answer | None,
) -> IngestReport:
    """The stages in order. Bases load after the transcripts' rows are stored: which bases
    apply follows from the working directories those rows name."""
    _open(con)
    con.begin()
    try:
        files = _discover(con, paths, asked)
        build = refresh.Refresh(con)
        with _spool(con) as spool:
            loaded = _load_transcripts(con, files, build, spool, progress)
            stage("storing rows")
            _append(con, loaded, build)
        bases = baseload.refresh_bases(con, extra_bases)
        report = _report(loaded, files.cleared, bases, build)
        if report.changed:
            report.build = build.build(bases, stage)
        stage("committing")
        con.commit()
    except BaseException:
        # a failed commit has already ended the transaction: rolling back again would only
        # hide the real error behind a second one
        with contextlib.suppress(duckdb.Error):
            con.rollback()
        raise
    stage("counting")
    report.totals = dict(totals(con))
    now, stored, as_stat_ed = _after(files, loaded.outcome.states)
    report.listing = unchanged.listing_of(
        con, files.sources, extra_bases, baseload.base_salt(), now, bases.links, stored
    )
    if asked is not None and asked.digest is not None and as_stat_ed:
        # every file loaded as the question stat'ed it: the listing it hashed (D: 0.02 s)
        report.listing_digest = asked.digest
    return report


def _open(con: duckdb.DuckDBPyConnection) -> None:
    warehouse.ensure_raw_tables(con)
    # exchange.is_central asks the same, but importing it costs its PyArrow writer (0.2 s)
    if con.execute("select count(*) from meta_imports").fetchall()[0][0]:
        from lessons_analytics import exchange

        raise exchange.ExportError(
            "this warehouse combines other machines' exports; feed it with `ingest --parquet`"
        )


@dataclass
class _Files:
    """The listed transcript files, and which of them the loader must look at."""

    listed: Collection[str]  # the path of every listed file
    seen: int  # how many files were listed (two odd names may show as one path)
    # every listed file, when the run listed them the long way (else only ``pending`` is
    # made: classifying every file of a big tree cost a +1 run 0.08 s)
    sources: list[SourceFile] | None
    pending: list[SourceFile]  # those the loader opens: all, or those whose stat changed
    states: dict[str, FileState]  # what raw_files holds of the pending ones
    cleared: bool  # errors of paths that are gone were forgotten
    # with the no-op question's listing: its size and mtime of every listed file, and
    # raw_files' of every listed one before the run (None when the stored listing said which
    # of them differ: ``changed``)
    stats: dict[str, list[int]] | None = None
    stored: dict[str, list[int]] | None = None
    changed: list[str] | None = None  # the listed files whose size or mtime differed


def _discover(
    con: duckdb.DuckDBPyConnection, paths: list[Path], asked: unchanged.Answer | None
) -> _Files:
    """The transcript files under ``paths`` and what is already loaded of them.

    When the no-op question (``asked``) listed and stat'ed the files, they are not listed
    again, and the loader is handed only the files whose size or mtime differ from what
    raw_files holds, the files it would open itself; the states of the others are not even
    read. A file that changes after that stat differs at the next run's question."""
    if asked is None or asked.stats is None:
        sources = discover(paths) if asked is None or asked.sources is None else asked.sources
        listed = {source.path for source in sources}
        cleared = _clear_stale_errors(con, paths, listed)
        return _Files(listed, len(sources), sources, sources, warehouse.file_states(con), cleared)
    stats = asked.stats
    cleared = _clear_stale_errors(con, paths, stats.keys())
    # in discover's order (sorted by path); the stats' paths are scan's, which are
    # discover's own when neither found a problem (and asked.sources is discover's else)
    changed = asked.changed()
    stored = None
    if changed is None:  # no stored listing: raw_files says what is loaded
        stored = _stored(con)
        changed = sorted(path for path, stat in stats.items() if stored.get(path) != stat)
    if asked.sources is not None:
        wanted = set(changed)
        pending = [source for source in asked.sources if source.path in wanted]
    else:
        pending = [source for path in changed if (source := classify(path)) is not None]
    states = warehouse.file_states(con, [s.path for s in pending])
    seen = len(stats) if asked.sources is None else len(asked.sources)
    return _Files(
        stats.keys(), seen, asked.sources, pending, states, cleared, stats, stored, changed
    )


def _stored(con: duckdb.DuckDBPyConnection) -> dict[str, list[int]]:
    """raw_files' size and mtime of every file."""
    found = con.execute("select path, size_bytes, mtime_ns from raw_files").fetchall()
    return {path: [size, mtime] for path, size, mtime in found}


def _after(
    files: _Files, states: list[FileRow]
) -> tuple[dict[str, list[int]] | None, dict[str, list[int]] | None, bool]:
    """The files' sizes and mtimes, and raw_files' of them, for the sidecar: the no-op
    question's stats and the states read before the run, each with the size and mtime at
    which the run loaded each file (``states``, the rows it wrote to raw_files). The
    sidecar then says what is true, that the warehouse holds the files as they were when
    read; a file that grew since differs at the next question, which then ingests. Taken
    from the states, not by stat'ing every loaded file again and reading raw_files: a cold
    run of D at 1.25 GB (55,900 files) spent 0.07 s here instead of 0.23. (None, None,
    False) without the question's listing, or when a file the run meant to load left no
    state (unreadable, or unchanged by the time it was read): the next run looks at all
    again.
    The third value: whether every file was loaded at the size and mtime the question
    stat'ed, so that the listing is the one the question hashed.

    Where the stored listing said which files changed (``files.changed``, without
    ``files.stored``), raw_files held every other listed file at its listed size and mtime,
    so it agrees with the listing when the run loaded every changed one: raw_files' is then
    the listing itself."""
    if files.stats is None or files.changed is None:
        return None, None, False
    loaded = {state["path"]: [state["size_bytes"], state["mtime_ns"]] for state in states}
    if any(source.path not in loaded for source in files.pending):
        return None, None, False
    now = {**files.stats, **loaded}
    as_stat_ed = all(files.stats.get(path) == stat for path, stat in loaded.items())
    if files.stored is not None:
        return now, {**files.stored, **loaded}, as_stat_ed
    if any(path not in loaded for path in files.changed):
        return None, None, False
    return now, now, as_stat_ed


@dataclass
class _Loaded:
    outcome: LoadOutcome
    new_errors: bool = False
    # the workers' Parquet files per raw table, appended in one statement each
    spooled: dict[str, list[Path]] = field(default_factory=dict)


def _load_transcripts(
    con: duckdb.DuckDBPyConnection,
    files: _Files,
    build: refresh.Refresh,
    spool: Path,
    progress: Callable[[int, int], Callable[[int], None]] | None,
) -> _Loaded:
    """Parse the new lines of the pending files; rows that came back in memory go into the
    raw tables at once, the rest waits in ``spool`` for ``_append``."""
    loaded_at = now_utc()
    tick = progress(files.seen, 0) if progress else None
    loaded = _Loaded(LoadOutcome(files_seen=files.seen))
    outcome = loaded.outcome
    chunks = load_chunks(files.pending, files.states, loaded_at, progress=tick, spool=spool)
    for chunk in chunks:
        rewritten = warehouse.files_with_rows(con, chunk.outcome.rewritten)
        build.touch(rewritten)
        warehouse.forget_files(con, rewritten)
        for table, frame in chunk.frames.items():
            if isinstance(frame, Path):
                loaded.spooled.setdefault(table, []).append(frame)
            elif isinstance(frame, Columns):
                warehouse.insert_lists(con, table, RAW_TABLES[table], frame.lists())
            else:
                warehouse.append(con, table, frame)
        loaded.new_errors = loaded.new_errors or "raw_load_errors" in chunk.frames
        outcome.files_loaded += chunk.outcome.files_loaded
        outcome.lines_loaded += chunk.outcome.lines_loaded
        outcome.states.extend(chunk.outcome.states)
    return loaded


def _append(con: duckdb.DuckDBPyConnection, loaded: _Loaded, build: refresh.Refresh) -> None:
    """Store the spooled rows and the files' new states."""
    big = bool(loaded.spooled)  # its workers spooled: Polars is loaded, a big build follows
    if big:
        warehouse.keep_freed_blocks(con)
    for table, files in loaded.spooled.items():
        warehouse.append_parquet(con, table, files)
    warehouse.write_states(con, loaded.outcome.states, as_frame=big)
    build.touch([state["file_id"] for state in loaded.outcome.states])


def _report(
    loaded: _Loaded, cleared: bool, bases: baseload.BaseRefresh, build: refresh.Refresh
) -> IngestReport:
    outcome = loaded.outcome
    report = IngestReport()
    report.files_seen = outcome.files_seen
    report.files_loaded = outcome.files_loaded
    report.lines_loaded = outcome.lines_loaded
    report.changed = (
        bool(outcome.states)
        or loaded.new_errors
        or cleared
        or bases.reloaded
        or bases.links_changed
        or build.models_changed
    )
    return report


@contextlib.contextmanager
def _spool(con: duckdb.DuckDBPyConnection) -> Iterator[Path]:
    """A folder for the workers' Parquet files beside the warehouse (same disk), named after
    it; a killed run's leftovers go first."""
    folder, prefix = db_dir(con), _spool_prefix(con)
    _remove_stale_spools(Path(folder), prefix)
    with tempfile.TemporaryDirectory(prefix=prefix, dir=folder) as spool:
        yield Path(spool)


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
    con: duckdb.DuckDBPyConnection, roots: list[Path], listed: Collection[str]
) -> bool:
    """Forget the errors of paths that never loaded (an unreadable folder, a FIFO) and are
    no longer listed under the folders of this run: the folder became readable, the FIFO
    went away. Every path still listed is re-examined and reports its error again."""
    rows = con.execute(
        "select distinct file_id, path from raw_load_errors"
        " where file_id not in (select file_id from raw_files)"
    ).fetchall()
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


def totals(con: duckdb.DuckDBPyConnection) -> IngestTotals:
    """Counts of the warehouse after a run, in the shape of ``ingest --json``."""
    counts = con.execute(sqlfiles.load("ingest_totals"))
    names = [column[0] for column in counts.description]
    row = dict(zip(names, counts.fetchall()[0], strict=True))
    by_tool = dict(con.execute(sqlfiles.load("ingest_tools")).fetchall())
    errors = con.execute(sqlfiles.load("ingest_errors"), {"shown": ERRORS_SHOWN}).fetchall()
    return {
        "sessions": row["sessions"],
        "agent_runs": row["agent_runs"],
        "tool_calls": row["tool_calls"],
        "by_tool": by_tool,
        "file_reads": row["file_reads"],
        "bases": row["bases"],
        "lessons": row["lessons"],
        "hits": row["hits"],
        "load_errors": row["load_errors"],
        "errors": [{"file": f, "line": line, "reason": r} for f, line, r in errors],
    }
