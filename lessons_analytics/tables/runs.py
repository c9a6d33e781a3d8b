"""Summaries of the runs that fill the warehouse: ingest."""

from __future__ import annotations

from typing import Any

from lessons_analytics.ingest import IngestReport


def ingest_summary(report: IngestReport) -> str:
    t: dict[str, Any] = report.totals
    tools = ", ".join(f"{name} {count}" for name, count in list(t["by_tool"].items())[:8])
    return "\n".join(
        [
            f"files: {report.files_seen} seen, {report.files_loaded} loaded, "
            f"{report.lines_loaded} new lines",
            f"sessions: {t['sessions']}  agent runs: {t['agent_runs']}  "
            f"tool calls: {t['tool_calls']}" + (f" ({tools})" if tools else ""),
            f"file reads: {t['file_reads']}  bases: {t['bases']}  lessons: {t['lessons']}  "
            f"hits: {t['hits']}",
            f"load errors: {t['load_errors']}",
        ]
    )
