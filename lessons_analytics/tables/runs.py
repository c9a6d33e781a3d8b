"""Summaries of the runs that fill the warehouse (ingest) and what to run next."""

from __future__ import annotations

import shlex
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for the annotation only: unchanged.py imports the base reader
    from lessons_analytics.unchanged import IngestReport

WIDTH = 100


def ingest_summary(report: IngestReport) -> str:
    t: dict[str, Any] = report.totals
    tools = ", ".join(f"{name} {count}" for name, count in list(t["by_tool"].items())[:8])
    lines = [
        f"files: {report.files_seen} seen, {report.files_loaded} loaded, "
        f"{report.lines_loaded} new lines",
        f"sessions: {t['sessions']}  agent runs: {t['agent_runs']}  tool calls: {t['tool_calls']}",
    ]
    if tools:  # the eight most used tools, wrapped to the width of the tables
        lines.append(textwrap.fill(f"  {tools}", WIDTH, subsequent_indent="  "))
    lines += [
        f"file reads: {t['file_reads']}  bases: {t['bases']}  lessons: {t['lessons']}  "
        f"hits: {t['hits']}",
        f"load errors: {t['load_errors']}",
    ]
    return "\n".join(lines)


EXPLORE = ["heads", "coverage", "hits", "bodies", "cost --rituals", "effect"]


def explore(db: Path) -> str:
    """The analysis commands over `db`, one a line, quoted to paste into a POSIX shell."""
    prefix = f"lessons-analytics --db {shlex.quote(str(db))}"
    return "explore:\n" + "\n".join(f"  {prefix} {command}" for command in EXPLORE)
