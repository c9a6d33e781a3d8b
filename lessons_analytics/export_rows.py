"""The rows the exporters read from ``queries/``, as ``TypedDict``s checked against the query.

``polars.DataFrame.to_dicts`` leaves every value of a row untyped, so a column renamed in
a query, or misspelt in an exporter, would be found only by the export's output. Here each
row shape the OTel and OCEL exporters read names the columns they use, and ``rows`` checks,
once per frame, that the query returned every one of them (extra columns are allowed: a
query may grow a column its exporters do not read). Nullable columns are ``| None``; a
column typed without it is never null by the query's construction (a key of its grain).
"""

# no ``from __future__ import annotations``: TypedDict reads its annotations at run time
from collections.abc import Mapping
from datetime import date, datetime
from typing import TypedDict, TypeVar, cast

import polars as pl

Row = TypeVar("Row", bound=Mapping[str, object])


def rows(frame: pl.DataFrame, shape: type[Row]) -> list[Row]:
    """The rows of ``frame`` as ``shape``; raises ``KeyError`` naming any column it lacks."""
    missing = sorted(set(shape.__annotations__) - set(frame.columns))
    if missing:
        raise KeyError(f"{shape.__name__}: the query returned no column {missing}")
    return cast(list[Row], frame.to_dicts())


class SessionRow(TypedDict):
    """queries/export_sessions.sql"""

    session_id: str
    runtime: str | None
    started_at: datetime | None
    ended_at: datetime | None
    subagent_runs: int | None
    active_seconds: float | None
    cwd: str | None


class AgentRunRow(TypedDict):
    """queries/export_agent_runs.sql"""

    agent_run_id: str
    session_id: str
    agent_key: str | None
    agent_id: str | None
    is_main: bool | None
    runtime: str
    started_at: datetime | None
    ended_at: datetime | None
    agent_type: str | None
    spawned_by_tool_use_id: str | None


class ToolCallRow(TypedDict):
    """queries/export_tool_calls.sql"""

    session_id: str
    agent_run_id: str
    tool_use_id: str
    tool_name: str | None
    called_at: datetime | None
    result_at: datetime | None
    has_result: bool | None
    duration_s: float | None
    is_error: bool | None
    exit_code: int | None
    is_interrupt: bool | None
    is_rejected: bool | None
    command: str | None
    file_path: str | None
    input_json: str | None
    result_head: str | None


class LessonReadRow(TypedDict):
    """queries/export_lesson_reads.sql"""

    session_id: str
    tool_use_id: str
    base_path: str
    kind: str
    lesson_id: str | None
    path: str | None
    lines_seen: int | None
    active_rows_seen: int | None
    active_rows_total: int | None
    partial_reason: str | None
    is_partial: bool | None


class FileReadRow(TypedDict):
    """queries/export_file_reads.sql"""

    session_id: str
    tool_use_id: str
    path: str | None


class IndexRowSeenRow(TypedDict):
    """queries/export_index_rows_seen.sql"""

    session_id: str
    tool_use_id: str
    base_path: str
    lesson_id: str


class LessonRow(TypedDict):
    """queries/export_lessons.sql"""

    base_path: str
    lesson_id: str
    file_path: str | None
    status: str | None
    lesson_class: str | None
    last_commit_at: datetime | None


class LessonVersionRow(TypedDict):
    """queries/report_lesson_versions.sql"""

    base_path: str
    lesson_id: str
    commit: str
    committed_at: datetime | None
    body_bytes: int | None
    hits: int | None


class HitRow(TypedDict):
    """queries/hits_list.sql"""

    base_path: str
    lesson_id: str
    file_path: str
    line_no: int
    hit_date: date | None
    session_id: str | None
    missed_at: datetime | None
    recall: str
    recorded_recalled: str | None
    disagrees: bool | None
    caught_by: str | None
    defect: str | None
    what: str | None
    first_recall_at: datetime | None
    first_index_row_at: datetime | None
