"""Parquet is the contract between machines: export a warehouse, load exports back.

Layout of an export folder (several machines may write into the same one)::

    DIR/schema_version                        "lessons-analytics/parquet/1"
    DIR/<table>/machine=<m>/date=<d>/part-<fingerprint>.parquet   event-grained tables
    DIR/<table>/machine=<m>/part-<fingerprint>.parquet            every other table

Every raw table and every mart is written. ``date`` is the UTC day of the table's event
time (``EVENT_TIME``); rows without one go to ``date=__HIVE_DEFAULT_PARTITION__``, the
name Spark and Hive read as null. Timestamps are stored as UTC instants
(``isAdjustedToUTC``). A partition's file is named after a fingerprint of its rows, so an
export writes only the partitions whose rows changed since the last one (a nightly run
writes today's, a re-run writes nothing) and removes the partitions that no longer exist.

Identity across machines. The ids of the runtimes (session, line, agent and tool-call
ids) are random UUIDs and stay as they are: the same session exported by two machines (a
synced home folder) is one session, and the staging layer keeps one copy of each line.
The one id made locally is ``file_id``, a 64-bit hash of the transcript's absolute path;
the export writes it unchanged. When the contract is read (``import_parquet`` and the
Spark engine alike), a path that more than one machine exported gets, on every one of
them, ``file_id = file_id_of(machine + NUL + path)``; every other file keeps its id. So
ids are unique across machines, and a combination of machines whose paths differ (the
usual case) gives exactly the warehouse a single ingest of all their transcripts gives.
Paths themselves stay as they are, because reads of lessons are matched to bases by path
on the machine that made them. A base (LESSONS/ folder) whose path several machines
exported is one base, taken from the first of those machines by name.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import pyarrow.parquet as pq

from lessons_analytics import refresh, transform, warehouse
from lessons_analytics.documents import ImportSummary, ParquetExportSummary
from lessons_analytics.engine import duckdb, with_relations
from lessons_analytics.errors import LessonsAnalyticsError
from lessons_analytics.load import file_id_of
from lessons_analytics.schema import BASE_TABLES, RAW_TABLES
from lessons_analytics.sqlfiles import models_fingerprint, quote_identifier, sql_root

SCHEMA_VERSION = "lessons-analytics/parquet/1"
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"

# the column whose UTC day partitions an event-grained table
EVENT_TIME: dict[str, str] = {
    "raw_events": "ts",
    "raw_tool_calls": "ts",
    "raw_tool_results": "ts",
    "raw_mentions": "ts",
    "fct_events": "ts",
    "fct_messages": "ts",
    "fct_texts": "ts",
    "fct_tool_calls": "called_at",
    "fct_recall_evidence": "surfaced_at",
    "fct_sessions": "started_at",
    "fct_session_recall": "started_at",
    "dim_agent_runs": "started_at",
}


class ExportError(LessonsAnalyticsError):
    """An export folder that cannot be read or written as the contract says."""


@dataclass
class ExportReport:
    machine: str
    written: list[str] = field(default_factory=list)  # partition folders written this run
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0

    def document(self) -> ParquetExportSummary:
        return {
            "machine": self.machine,
            "written": len(self.written),
            "removed": len(self.removed),
            "unchanged": self.unchanged,
            "partitions": self.written,
        }


def machine_name(machine: str | None) -> str:
    """``machine`` (the setting or ``--machine``), else the host name; made safe as a
    folder name."""
    name = str(machine or socket.gethostname() or "localhost")
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "localhost"


def contract_tables() -> list[str]:
    """Every table an export holds: the raw tables, then the marts. A mart that is a view
    (``materialized: view``) is left out: it is a query over the other marts, which a
    reader recomputes from them."""
    marts = sorted(
        p.stem
        for p in (sql_root() / "marts").glob("*.sql")
        if transform.materialization(p, transform.model_body(p)) == "table"
    )
    return [*RAW_TABLES, *BASE_TABLES, *marts]


def export_parquet(db_path: Path, out: Path, machine: str) -> ExportReport:
    """Write the warehouse's tables under ``out`` for ``machine``, changed partitions only."""
    con = warehouse.connect(db_path, read_only=True)
    try:
        if is_central(con):
            raise ExportError(
                f"{db_path} combines other machines' exports; export each machine's own warehouse"
            )
        out.mkdir(parents=True, exist_ok=True)
        write_version(out)
        report = ExportReport(machine)
        existing = _existing_tables(con)
        for table in contract_tables():
            if table in existing:
                _export_table(con, table, out / table / f"machine={machine}", report)
        return report
    finally:
        con.close()


def write_version(out: Path) -> None:
    marker = out / "schema_version"
    if marker.is_file():
        found = marker.read_text(encoding="utf-8").strip()
        if found != SCHEMA_VERSION:
            raise ExportError(f"{marker}: holds {found!r}; this version writes {SCHEMA_VERSION!r}")
        return
    marker.write_text(SCHEMA_VERSION + "\n", encoding="utf-8")


def _existing_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {row[0] for row in con.execute("select table_name from duckdb_tables()").fetchall()}


def _export_table(
    con: duckdb.DuckDBPyConnection, table: str, folder: Path, report: ExportReport
) -> None:
    column = EVENT_TIME.get(table)
    day = f"cast({quote_identifier(column)} as date)" if column else "null::date"
    quoted = quote_identifier(table)
    # a fingerprint of each partition's rows: count and the sum of the rows' hashes
    parts = con.execute(
        f"select {day} as day, count(*), sum(hash(t)::hugeint)::varchar from {quoted} t"
        " group by day"
    ).fetchall()
    if not parts:
        # an empty table still gets one (empty) file, so readers find it and its schema
        parts = [(None, 0, "0")]
    wanted: dict[Path, tuple[date | None, str]] = {}
    for value, count, total in parts:
        target = folder
        if column:
            target = folder / f"date={value.isoformat() if value else NULL_PARTITION}"
        digest = hashlib.blake2b(f"{table}:{count}:{total}".encode(), digest_size=8)
        wanted[target] = (value, f"part-{digest.hexdigest()}.parquet")
    for target, (value, name) in sorted(wanted.items()):
        if (target / name).is_file():
            report.unchanged += 1
            continue
        where = f"{day} is not distinct from ?" if column else "true"
        with_relations()  # con.sql and its Arrow table are DuckDB's Python layer
        rows = con.sql(f"select * from {quoted} t where {where}", params=[value] if column else [])
        target.mkdir(parents=True, exist_ok=True)
        tmp = target / f".{name}.tmp"
        pq.write_table(rows.to_arrow_table(), tmp)
        os.replace(tmp, target / name)
        _remove_others(target, keep=name)
        report.written.append(str(target))
    for stale in _partition_folders(folder, dated=column is not None) - set(wanted):
        _remove_others(stale, keep=None)
        report.removed.append(str(stale))


def _partition_folders(folder: Path, *, dated: bool) -> set[Path]:
    if not folder.is_dir():
        return set()
    if not dated:
        return {folder} if any(folder.glob("part-*.parquet")) else set()
    return {p for p in folder.iterdir() if p.is_dir() and p.name.startswith("date=")}


def _remove_others(folder: Path, keep: str | None) -> None:
    for path in folder.glob("part-*.parquet"):
        if path.name != keep:
            path.unlink()
    if keep is None and folder.name.startswith("date=") and not any(folder.iterdir()):
        folder.rmdir()


# ---------------------------------------------------------------- reading the contract


@dataclass
class ImportReport:
    machines: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    shared_paths: int = 0  # transcript paths exported by more than one machine
    shared_bases: list[str] = field(default_factory=list)

    def document(self) -> ImportSummary:
        return {
            "machines": self.machines,
            "rows": self.rows,
            "shared_paths": self.shared_paths,
            "shared_bases": self.shared_bases,
        }


def check_export(folder: Path) -> None:
    marker = folder / "schema_version"
    if not marker.is_file():
        raise ExportError(f"{folder}: no schema_version file; not a lessons-analytics export")
    found = marker.read_text(encoding="utf-8").strip()
    if found != SCHEMA_VERSION:
        raise ExportError(f"{marker}: holds {found!r}; this version reads {SCHEMA_VERSION!r}")


def table_files(folders: list[Path], table: str) -> list[str]:
    """The Parquet files of one table across export folders, in a stable order."""
    return sorted(
        str(p) for folder in folders for p in (folder / table).glob("machine=*/**/part-*.parquet")
    )


def machine_of(path: str) -> str:
    found = re.search(r"/machine=([^/]+)/", path.replace(os.sep, "/"))
    if not found:
        raise ExportError(f"{path}: not under a machine=… folder")
    return found.group(1)


def qualified_file_ids(rows: list[tuple[str, int, str]]) -> dict[tuple[str, int], int]:
    """``(machine, file_id) -> file_id`` in the combination, from every machine's
    ``(machine, file_id, path)``: a path exported by several machines is qualified by the
    machine on each of them; every other file keeps its id."""
    machines_of: dict[str, set[str]] = {}
    for machine, _id, path in rows:
        machines_of.setdefault(path, set()).add(machine)
    return {
        (machine, old): file_id_of(f"{machine}\0{path}") if len(machines_of[path]) > 1 else old
        for machine, old, path in rows
    }


def import_parquet(db_path: Path, folders: list[Path]) -> ImportReport:
    """Make ``db_path`` the combination of the exports in ``folders`` (and of those loaded
    before): the raw tables are reloaded from every export it was given, then the layers
    are rebuilt. A warehouse fed this way takes no transcripts of its own."""
    for folder in folders:
        check_export(folder)
    con = warehouse.connect(db_path)
    try:
        warehouse.ensure_raw_tables(con)
        if _has_own_transcripts(con):
            raise ExportError(
                f"{db_path} holds transcripts ingested on this machine; combine exports in a"
                " warehouse of their own (export this machine too and load all the exports)"
            )
        known = [Path(row[0]) for row in con.execute("select folder from meta_imports").fetchall()]
        every = sorted({*known, *(f.absolute() for f in folders)})
        con.begin()
        try:
            report = _reload(con, every)
            con.execute("delete from meta_imports")
            con.executemany("insert into meta_imports values (?)", [[str(f)] for f in every])
            transform.build(con)
            refresh.record_build(con, models_fingerprint())
            con.commit()
        except BaseException:
            con.rollback()
            raise
        return report
    finally:
        con.close()


def is_central(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the warehouse was fed by `import_parquet` (and so takes no transcripts)."""
    if "meta_imports" not in _existing_tables(con):
        return False
    return bool(con.execute("select count(*) from meta_imports").fetchall()[0][0])


def _has_own_transcripts(con: duckdb.DuckDBPyConnection) -> bool:
    own = con.execute("select count(*) from raw_files").fetchall()[0][0]
    return bool(own) and not is_central(con)


def _reload(con: duckdb.DuckDBPyConnection, folders: list[Path]) -> ImportReport:
    report = ImportReport()
    files = table_files(folders, "raw_files")
    machines = sorted({machine_of(f) for f in table_files(folders, "raw_bases") + files})
    report.machines = machines
    ids = _id_map(con, folders)
    report.shared_paths = sum(1 for (_m, old), new in ids.items() if old != new)
    con.execute(
        "create or replace temp table import_ids (machine varchar, old_id bigint, new_id bigint)"
    )
    con.executemany(
        "insert into import_ids values (?, ?, ?)", [[m, o, n] for (m, o), n in ids.items()]
    )
    for table in RAW_TABLES:
        report.rows[table] = _reload_table(con, folders, table, RAW_TABLES[table])
    report.shared_bases = _shared_bases(con, folders)
    for table in BASE_TABLES:
        report.rows[table] = _reload_table(con, folders, table, BASE_TABLES[table])
    return report


def _id_map(con: duckdb.DuckDBPyConnection, folders: list[Path]) -> dict[tuple[str, int], int]:
    rows: list[tuple[str, int, str]] = []
    for table in ("raw_files", "raw_load_errors"):
        for path in table_files(folders, table):
            machine = machine_of(path)
            found = con.execute(
                "select distinct file_id, path from read_parquet(?) where file_id is not null",
                [path],
            ).fetchall()
            rows.extend((machine, int(fid), str(p)) for fid, p in found)
    return qualified_file_ids(sorted(set(rows)))


def _shared_bases(con: duckdb.DuckDBPyConnection, folders: list[Path]) -> list[str]:
    files = table_files(folders, "raw_bases")
    con.execute("create or replace temp table import_bases (machine varchar, base_path varchar)")
    if not files:
        return []
    con.execute(
        "insert into import_bases select min(machine), base_path from read_parquet(?,"
        " hive_partitioning = true, union_by_name = true) group by base_path",
        [files],
    )
    rows = con.execute(
        "select base_path from read_parquet(?, hive_partitioning = true)"
        " group by base_path having count(distinct machine) > 1 order by 1",
        [files],
    ).fetchall()
    return [row[0] for row in rows]


def _reload_table(
    con: duckdb.DuckDBPyConnection, folders: list[Path], table: str, columns: Mapping[str, object]
) -> int:
    quoted = quote_identifier(table)
    con.execute(f"delete from {quoted}")
    files = table_files(folders, table)
    if not files:
        return 0
    names = [quote_identifier(c) for c in columns if c != "file_id"]
    select = ", ".join(f"t.{c}" for c in names)
    source = "read_parquet(?, hive_partitioning = true, union_by_name = true)"
    if "file_id" in columns:
        # file_id is remapped where a path came from several machines
        sql = (
            f"insert into {quoted} (file_id, {', '.join(names)})"
            f" select coalesce(ids.new_id, t.file_id), {select} from {source} t"
            " left join import_ids ids on ids.machine = t.machine and ids.old_id = t.file_id"
        )
    elif "base_path" in columns and table != "raw_cwd_bases":
        # a base several machines exported is taken once, from the first machine by name
        sql = (
            f"insert into {quoted} ({', '.join(names)}) select {select} from {source} t"
            " semi join import_bases keep on keep.machine = t.machine"
            " and keep.base_path = t.base_path"
        )
    else:
        sql = f"insert into {quoted} ({', '.join(names)}) select distinct {select} from {source} t"
    con.execute(sql, [files])
    count = con.execute(f"select count(*) from {quoted}").fetchall()[0][0]
    return int(count)
