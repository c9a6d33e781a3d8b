"""The nightly batch: ingest, signs per base stored in the warehouse, markers, the weekly
report once its week has closed. One run at a time (a lock file beside the warehouse).
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
import polars as pl

from lessons_analytics import warehouse
from lessons_analytics.errors import LockBusy
from lessons_analytics.ingestion import ingest
from lessons_analytics.metrics import query
from lessons_analytics.schema import SIGN_HISTORY, create_sql, polars_schema
from lessons_analytics.settings import Settings, Thresholds
from lessons_analytics.signs import BaseStats, apply_marker, base_stats, marker_line
from lessons_analytics.weeks import last_complete_week

if TYPE_CHECKING:
    import duckdb

Log = Callable[[str], None]


@dataclass
class NightlyResult:
    ingested_files: int = 0
    ingested_lines: int = 0
    bases: list[str] = field(default_factory=list)
    sleep_due: list[str] = field(default_factory=list)
    markers_changed: list[str] = field(default_factory=list)
    report: str | None = None
    exported: int | None = None  # Parquet partitions written (config `export_parquet`)
    stages: dict[str, float] = field(default_factory=dict)


@contextmanager
def run_lock(db_path: Path, wait: bool) -> Iterator[None]:
    """Hold ``<warehouse>.lock``; a second run fails at once (or waits, with ``wait``)."""
    db_path.parent.mkdir(parents=True, exist_ok=True)
    lock_path = db_path.with_name(db_path.name + ".lock")
    with open(lock_path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise LockBusy(
                f"another nightly run holds {lock_path}; not starting a second one"
                " (use --wait to wait for it)"
            ) from exc
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def run_nightly(
    settings: Settings,
    *,
    wait: bool = False,
    today: date | None = None,
    log: Log = lambda _line: None,
) -> NightlyResult:
    """Everything a night does, as ``settings`` say: the warehouse, the sources (none: the
    runtimes' folders), the bases, the report folder, ``mark`` and ``export_parquet``."""
    result = NightlyResult()
    today = today or datetime.now(UTC).date()
    db_path, sources = settings.paths.warehouse, settings.sources_or_default()
    report_dir, mark = settings.paths.report_dir, settings.mark
    with run_lock(db_path, wait):
        with _stage(result, "ingest", log) as note:
            report = ingest(db_path, sources, list(settings.paths.bases))
            result.ingested_files, result.ingested_lines = report.files_loaded, report.lines_loaded
            note(f"{report.files_loaded} files, {report.lines_loaded} new lines, "
                 f"{report.totals.get('load_errors', 0)} load errors")  # fmt: skip
        with _stage(result, "signs", log) as note:
            stats = _signs(db_path, settings.thresholds, today)
            result.bases = [s.base for s in stats]
            result.sleep_due = [s.base for s in stats if s.sleep_due]
            note(f"{len(stats)} bases, {len(result.sleep_due)} due for sleep")
        if mark:
            with _stage(result, "markers", log) as note:
                result.markers_changed = _markers(stats)
                note(f"{len(result.markers_changed)} INDEX.md marker lines changed")
        with _stage(result, "report", log) as note:
            result.report = _weekly_report(
                db_path, report_dir, last_complete_week(today), settings.thresholds
            )
            note(result.report or "this week's report already exists")
        if settings.paths.export_parquet is not None:
            with _stage(result, "export", log) as note:
                result.exported = _export(db_path, settings)
                note(f"{result.exported} Parquet partitions written")
    return result


def _export(db_path: Path, settings: Settings) -> int:
    """The setting ``export_parquet`` names the folder that gets the partitions that
    changed tonight."""
    from lessons_analytics.exchange import export_parquet, machine_name

    target = settings.paths.export_parquet
    assert target is not None
    written = export_parquet(db_path, target, machine_name(settings.machine)).written
    return len(written)


@contextmanager
def _stage(result: NightlyResult, name: str, log: Log) -> Iterator[Callable[[str], None]]:
    started = time.perf_counter()
    notes: list[str] = []
    yield notes.append
    elapsed = time.perf_counter() - started
    result.stages[name] = elapsed
    log(f"nightly {name}: {elapsed:.2f}s" + (f" — {'; '.join(notes)}" if notes else ""))


def _signs(db_path: Path, thresholds: Thresholds, today: date) -> list[BaseStats]:
    con = warehouse.connect(db_path)
    try:
        bases = query(con, "bases", bases=None)["base_path"].to_list()
        stats = [base_stats(Path(b), today, thresholds, con) for b in bases if Path(b).is_dir()]
        store_signs(con, stats)
        return stats
    finally:
        con.close()


def store_signs(con: duckdb.DuckDBPyConnection, stats: list[BaseStats]) -> None:
    """Each night's signs, one row per (day, base, sign); a re-run replaces that day's rows."""
    now = datetime.now(UTC)
    rows = [
        {"as_of": s.as_of, "base_path": s.base, "name": sign.name,
         "value_json": orjson.dumps(sign.value).decode(),
         "threshold_json": orjson.dumps(sign.threshold).decode(), "fired": sign.fired,
         "lessons": sign.lessons, "sleep_due": s.sleep_due, "recorded_at": now}
        for s in stats for sign in s.signs
    ]  # fmt: skip
    frame = pl.DataFrame(rows, schema=polars_schema(SIGN_HISTORY))
    con.begin()
    try:
        con.execute(create_sql("fct_sign_history"))
        warehouse.register_frame(con, "new_signs", frame)
        con.execute(
            "delete from fct_sign_history using new_signs"
            " where fct_sign_history.as_of = new_signs.as_of"
            " and fct_sign_history.base_path = new_signs.base_path"
        )
        con.execute("insert into fct_sign_history select * from new_signs")
        con.unregister("new_signs")
        con.commit()
    except BaseException:
        con.rollback()
        raise


def _markers(stats: list[BaseStats]) -> list[str]:
    changed = []
    for result in stats:
        index = Path(result.base) / "INDEX.md"
        if index.is_file() and apply_marker(index, marker_line(result)):
            changed.append(str(index))
    return changed


def _weekly_report(
    db_path: Path, report_dir: Path, week: str, thresholds: Thresholds
) -> str | None:
    target = report_dir / week
    if (target / "report.html").is_file():
        return None
    try:
        from lessons_analytics.report import write_report
    except ImportError:
        return None
    con = warehouse.connect(db_path, read_only=True)
    try:
        paths = write_report(con, target, week, thresholds=thresholds)
    finally:
        con.close()
    return str(getattr(paths, "html", target))
