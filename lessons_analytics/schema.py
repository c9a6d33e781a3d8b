"""The raw schema, declared once: every table the loader writes, column by column.

Parsers append rows of Python values to per-table lists; ``frame`` turns them into a Polars
frame of exactly these types, which DuckDB then takes through Arrow. Staging views in
``sql/staging`` rename, cast and de-duplicate from here.

Every row is checked against these types as it is added (``Columns.add``): a value of another
type (an object where a string belongs, an integer beyond 64 bits, a timestamp that is not
ISO 8601) raises ``BadValue``, and the loader rejects that one line, naming the column, instead
of letting the whole batch fail when its frame is built. Values are not coerced: a token count
written as ``"12"`` or ``true`` is a wrong type, not 12 or 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import polars as pl

from lessons_analytics.sqlfiles import quote_identifier

Str = pl.String
Int = pl.Int64
Bool = pl.Boolean
Ts = pl.Datetime("us", "UTC")

RAW_TABLES: dict[str, dict[str, Any]] = {
    # one row per transcript file: what has been consumed, so a re-run reads only new lines
    "raw_files": {
        "file_id": Int,
        "path": Str,
        "runtime": Str,
        "file_kind": Str,
        "size_bytes": Int,
        "mtime_ns": Int,
        "consumed_bytes": Int,
        "consumed_lines": Int,
        "head_hash": Str,
        "context_json": Str,
        "loaded_at": Ts,
    },
    "raw_load_errors": {
        "file_id": Int,
        "path": Str,
        "line_no": Int,
        "reason": Str,
        "loaded_at": Ts,
    },
    # one row per transcript line (conversation and bookkeeping lines alike)
    "raw_events": {
        "file_id": Int,
        "line_no": Int,
        "runtime": Str,
        "line_type": Str,
        "subtype": Str,
        "is_known_type": Bool,
        "uuid": Str,
        "parent_uuid": Str,
        "session_id": Str,
        "agent_id": Str,
        "is_sidechain": Bool,
        "ts": Ts,
        "cwd": Str,
        "version": Str,
        "message_id": Str,
        "request_id": Str,
        "role": Str,
        "is_meta": Bool,
        "is_api_error": Bool,
        "model": Str,
        "text": Str,
        "input_tokens": Int,
        "output_tokens": Int,
        "cache_creation_tokens": Int,
        "cache_read_tokens": Int,
        "tool_uses": Int,
        "tool_results": Int,
    },
    # one row per tool_use block / Codex call item
    "raw_tool_calls": {
        "file_id": Int,
        "line_no": Int,
        "runtime": Str,
        "session_id": Str,
        "agent_id": Str,
        "uuid": Str,
        "message_id": Str,
        "tool_use_id": Str,
        "tool_name": Str,
        "ts": Ts,
        "cwd": Str,
        "command": Str,
        "file_path": Str,
        "read_offset": Int,
        "read_limit": Int,
        "prompt_hash": Str,
        "input_json": Str,
    },
    # one row per tool_result block / Codex call output
    "raw_tool_results": {
        "file_id": Int,
        "line_no": Int,
        "runtime": Str,
        "session_id": Str,
        "agent_id": Str,
        "uuid": Str,
        "tool_use_id": Str,
        "ts": Ts,
        "is_error": Bool,
        "result_chars": Int,
        "result_lines": Int,
        "text_head": Str,
        "exit_code": Int,
        "duration_s": pl.Float64,
        "trunc_chars": Int,
        "trunc_lines": Int,
        "is_persisted": Bool,
        "is_truncated": Bool,
        "numbered_first": Int,
        "numbered_last": Int,
        "numbered_count": Int,
        "head_part_lines": Int,
        "tail_part_lines": Int,
        "spawned_agent_id": Str,
        "tur_start_line": Int,
        "tur_num_lines": Int,
        "tur_total_lines": Int,
        "is_interrupt": Bool,
        "is_rejected": Bool,
    },
    # one row per file a call read: the Read tool, or each file of a shell read command
    "raw_file_reads": {
        "file_id": Int,
        "tool_use_id": Str,
        "read_idx": Int,
        "path": Str,
        "method": Str,
        "range_start": Int,
        "range_end": Int,
        "tail_n": Int,
        "head_n": Int,
        "is_prefix": Bool,
        "is_numbered": Bool,
        "grep_pattern": Str,
        "grep_flags": Str,
        "n_files": Int,
    },
    # full result text of reads of an INDEX.md: the evidence of which rows were seen
    "raw_read_texts": {
        "file_id": Int,
        "tool_use_id": Str,
        "text": Str,
    },
    # a lesson id seen in a tool result, a user message or a system/hook message
    "raw_mentions": {
        "file_id": Int,
        "line_no": Int,
        "session_id": Str,
        "agent_id": Str,
        "ts": Ts,
        "source": Str,
        "tool_use_id": Str,
        "lesson_id": Str,
    },
    # Claude Code 2.1.x subagent sidecars (<sessionId>/subagents/agent-<id>.meta.json)
    "raw_subagent_meta": {
        "file_id": Int,
        "path": Str,
        "session_id": Str,
        "agent_id": Str,
        "agent_type": Str,
        "description": Str,
        "tool_use_id": Str,
    },
}

# tables whose rows belong to one transcript file (deleted when the file is rewritten)
FILE_TABLES = [
    name for name, cols in RAW_TABLES.items() if "file_id" in cols and name != "raw_files"
]


@dataclass(slots=True)
class FileState:
    """A transcript file's row of ``raw_files``: how much of it is already loaded."""

    file_id: int
    size_bytes: int
    mtime_ns: int
    consumed_bytes: int
    consumed_lines: int
    head_hash: str
    context: dict[str, Any]


def create_sql(table: str) -> str:
    """``create table if not exists`` for a raw table or a table of ``STORED_TABLES`` or
    ``META_TABLES``."""
    columns = {**RAW_TABLES, **STORED_TABLES, **META_TABLES}[table]
    cols = ", ".join(
        f"{quote_identifier(name)} {duck_type(dtype)}" for name, dtype in columns.items()
    )
    return f"create table if not exists {quote_identifier(table)} ({cols})"


def duck_type(dtype: Any) -> str:
    """The DuckDB type of a Polars column type, for every type the schema declares; the one
    map (a frame of these types goes to DuckDB through Arrow with the same types)."""
    if isinstance(dtype, pl.Datetime):
        return "timestamptz"
    if dtype == pl.List(pl.String):
        return "varchar[]"
    found = _DUCK_TYPES.get(dtype)
    if found is None:
        raise TypeError(f"no DuckDB type for {dtype!r}")
    return found


_DUCK_TYPES: dict[Any, str] = {
    pl.String: "varchar",
    pl.Int64: "bigint",
    pl.Boolean: "boolean",
    pl.Float64: "double",
    pl.Date: "date",
}


class BadValue(ValueError):
    """A value that does not fit its raw column; the line that produced it is rejected."""


_INT64 = (-(1 << 63), (1 << 63) - 1)
# what DuckDB and Polars both read as an instant: date, T, time, optional fraction and zone
_ISO_TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?")


def _kind(dtype: Any) -> str:
    if isinstance(dtype, pl.Datetime):
        return "ts"
    return {Str: "str", Int: "int", Bool: "bool", pl.Float64: "float"}[dtype]


_KINDS = {table: {col: _kind(t) for col, t in cols.items()} for table, cols in RAW_TABLES.items()}


def check_row(table: str, row: dict[str, Any]) -> None:
    """Raise ``BadValue`` unless every value of ``row`` fits its column of ``table``."""
    kinds = _KINDS[table]
    for column, value in row.items():
        if value is None:
            continue
        kind = kinds.get(column)
        if kind is None:
            raise KeyError(f"{table} has no column {column!r}")  # a parser bug, not bad input
        cls = type(value)
        if kind == "str" and cls is str:
            continue
        if kind == "int" and cls is int and _INT64[0] <= value <= _INT64[1]:
            continue
        if kind == "bool" and cls is bool:
            continue
        if kind == "float" and (cls is float or (cls is int and abs(value) < 1 << 53)):
            continue
        if kind == "ts" and cls is str and _is_instant(value):
            continue
        raise BadValue(f"{table}.{column}: {_describe(value)} is not a valid {kind}")


def _is_instant(text: str) -> bool:
    if not _ISO_TS.fullmatch(text):
        return False
    try:
        datetime.fromisoformat(text)  # month 13, hour 25 and the like
    except ValueError:
        return False
    return True


def _describe(value: object) -> str:
    kind = {dict: "an object", list: "a list", bool: "a boolean", str: "the string"}.get(
        type(value), f"the {type(value).__name__}"
    )
    shown = repr(value)
    return f"{kind} {shown[:40]}{'...' if len(shown) > 40 else ''}"


class Columns:
    """Rows of one raw table, appended as dicts by a parser (absent keys are null)."""

    __slots__ = ("table", "rows")

    def __init__(self, table: str) -> None:
        self.table = table
        self.rows: list[dict[str, Any]] = []

    def add(self, **row: Any) -> None:
        """Append a row; ``BadValue`` when a value does not fit its column."""
        check_row(self.table, row)
        self.rows.append(row)

    def __len__(self) -> int:
        return len(self.rows)

    def frame(self) -> pl.DataFrame:
        schema = RAW_TABLES[self.table]
        # timestamps arrive as ISO strings and are parsed column-wise, which is far faster
        # than per value; a value that does not parse becomes null
        as_text = {k: (Str if isinstance(t, pl.Datetime) else t) for k, t in schema.items()}
        frame = pl.from_dicts(self.rows, schema=as_text, strict=False)
        stamps = [k for k, t in schema.items() if isinstance(t, pl.Datetime)]
        return frame.with_columns(
            pl.col(k).str.to_datetime(time_zone="UTC", strict=False, time_unit="us") for k in stamps
        )


class Batch:
    """All rows parsed in one run, table by table."""

    def __init__(self) -> None:
        self.tables = {name: Columns(name) for name in RAW_TABLES}

    def __getitem__(self, table: str) -> Columns:
        return self.tables[table]

    def mark(self) -> dict[str, int]:
        """Where each table stands now, for ``rollback``."""
        return {name: len(cols.rows) for name, cols in self.tables.items()}

    def rollback(self, mark: dict[str, int]) -> None:
        """Drop every row added since ``mark``: a rejected line leaves no part of itself."""
        for name, size in mark.items():
            del self.tables[name].rows[size:]


Date = pl.Date
StrList = pl.List(pl.String)

# bases are re-read whole each time they change; one raw table per BaseSnapshot attribute
BASE_TABLES: dict[str, dict[str, Any]] = {
    "raw_bases": {
        "base_path": Str,
        "project_dir": Str,
        "repo_root": Str,
        "is_git": Bool,
        "head_commit": Str,
        "fingerprint": Str,
    },
    "raw_lessons": {
        "base_path": Str,
        "lesson_id": Str,
        "file_path": Str,
        "status": Str,
        "addressee": StrList,
        "triggers": StrList,
        "scope": Str,
        "target": Str,
        "lesson_class": Str,
        "created": Date,
        "ritual": Str,
        "evidence_hits": Int,
        "evidence_helped": Bool,
        "rule": Str,
        "body_bytes": Int,
        "journal_bytes": Int,
        "journal_lines": Int,
        "first_commit_at": Ts,
        "last_commit_at": Ts,
        "front_matter_ok": Bool,
    },
    "raw_hits": {
        "base_path": Str,
        "lesson_id": Str,
        "file_path": Str,
        "line_no": Int,
        "hit_date": Date,
        "where_": Str,
        "what": Str,
        "caught": Str,
        "recalled": Str,
        "defect": Str,
        "session_id": Str,
        "commit": Str,
        "ts": Ts,
        "extra": Str,
        "is_hit": Bool,
        "parse_ok": Bool,
        "raw": Str,
    },
    "raw_lesson_versions": {
        "base_path": Str,
        "lesson_id": Str,
        "file_path": Str,
        "commit": Str,
        "committed_at": Ts,
        "body_bytes": Int,
        "journal_bytes": Int,
        "hits": Int,
        # the front matter of that version: the effect of a lesson dates from the commit
        # where its status turned active, so every version's status is kept;
        # version_seq orders one lesson's versions (0 = first), ties of time included
        "version_seq": Int,
        "status": Str,
        "lesson_class": Str,
    },
    # commits of the repository that changed a hook or scout prompt file, or deleted a
    # lesson file: the interventions that are not visible in the versions above
    "raw_repo_changes": {
        "base_path": Str,
        "commit": Str,
        "committed_at": Ts,
        "path": Str,
        "change": Str,
        "kind": Str,
    },
    "raw_index_versions": {
        "base_path": Str,
        "version_id": Str,
        "committed_at": Ts,
        "text": Str,
        "bytes": Int,
        "n_lines": Int,
        "active_heading_line": Int,
        "candidates_heading_line": Int,
        "first_heading_line": Int,
        "marker_count": Int,
    },
    "raw_index_rows": {
        "base_path": Str,
        "version_id": Str,
        "section": Str,
        "line_no": Int,
        "lesson_id": Str,
        "addressee": Str,
        "triggers": Str,
        "target": Str,
        "line_text": Str,
    },
    "raw_index_sections": {
        "base_path": Str,
        "version_id": Str,
        "section": Str,
        "heading_line": Int,
        "first_line": Int,
        "last_line": Int,
    },
    # INDEX.md as it was on disk when the base was read: the index-layout rules' input
    "raw_index_current": {
        "base_path": Str,
        "file_path": Str,
        "text": Str,
    },
    "raw_quarantine": {
        "base_path": Str,
        "line_no": Int,
        "obs_date": Date,
        "signal": Str,
        "session_id": Str,
        "mechanism": Str,
        "seen": Int,
        "raw": Str,
    },
    "raw_retired": {
        "base_path": Str,
        "line_no": Int,
        "lesson_id": Str,
        "retired_date": Date,
        "reason": Str,
        "where_": Str,
        "raw": Str,
    },
    "raw_base_errors": {
        "base_path": Str,
        "file": Str,
        "line": Int,
        "reason": Str,
    },
    # which bases stand on the path from each working directory seen in a transcript
    "raw_cwd_bases": {
        "cwd": Str,
        "base_path": Str,
        "depth": Int,
    },
}


def base_frame(table: str, rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Rows of dicts (python values, datetimes allowed) as a frame of the declared types."""
    schema = BASE_TABLES[table]
    data = {name: [row.get(name) for row in rows] for name in schema}
    return pl.DataFrame(data, schema=schema, strict=False)


def empty_base_frame(table: str) -> pl.DataFrame:
    return pl.DataFrame(schema=BASE_TABLES[table])


# ---------------------------------------------------------------- tables the package keeps
# Not raw: written after the build and kept across rebuilds (the marts are rebuilt from the
# raw tables, these are not). Created from the same map with ``create_sql``.

# the nightly run's sleep signs: one row per (as_of day, base, sign); a re-run of a day
# replaces that day's rows for the base (nightly.store_signs)
SIGN_HISTORY: dict[str, Any] = {
    "as_of": Date,
    "base_path": Str,
    "name": Str,
    "value_json": Str,
    "threshold_json": Str,
    "fired": Bool,
    "lessons": StrList,
    "sleep_due": Bool,
    "recorded_at": Ts,
}

STORED_TABLES: dict[str, dict[str, Any]] = {"fct_sign_history": SIGN_HISTORY}

# ---------------------------------------------------------------- the build's own bookkeeping
# Written by refresh.py (and the import of exports); never exported, never read by a query.
META_TABLES: dict[str, dict[str, Any]] = {
    # the fingerprint of the sql/ models the layers were last built from: one row at most
    "meta_build": {"models": Str, "built_at": Ts},
    # the sessions an incremental refresh rebuilds; empty between runs
    "meta_build_sessions": {"session_id": Str},
    # the export folders a central warehouse was loaded from (exchange.import_parquet)
    "meta_imports": {"folder": Str},
}
