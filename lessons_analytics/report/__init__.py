"""The weekly audit report: ``report.md``, a self-contained ``report.html``, the charts as
PNG and ``data.json`` with every figure shown.

    from lessons_analytics import connect
    from lessons_analytics.report import write_report
    paths = write_report(connect(db, read_only=True), None, "2026-W48")
    paths.html  # reports/2026-W48/report.html

The numbers come from the same ``metrics`` functions as the commands' ``--json``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import orjson

from lessons_analytics import metrics
from lessons_analytics.engine import duckdb
from lessons_analytics.proportions import wilson
from lessons_analytics.redact import redact_json
from lessons_analytics.report.data import Window, build_report_data
from lessons_analytics.report.layout import build_layout
from lessons_analytics.report.numbers import share
from lessons_analytics.report.render import to_html, to_markdown
from lessons_analytics.settings import Thresholds
from lessons_analytics.weeks import last_complete_week, parse_week, week_bounds

__all__ = [
    "ReportPaths",
    "Window",
    "build_report_data",
    "demo_report",
    "last_complete_week",
    "parse_week",
    "share",
    "to_json",
    "week_bounds",
    "wilson",
    "write_report",
]


@dataclass(frozen=True)
class ReportPaths:
    directory: Path
    markdown: Path
    html: Path
    data: Path
    charts: list[Path] = field(default_factory=list)


def _default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON: {type(value).__name__}")


def to_json(document: Any) -> bytes:
    """The report's JSON encoding (the one ``data.json`` and the commands' ``--json`` use)."""
    return orjson.dumps(
        document,
        default=_default,
        option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS | orjson.OPT_SORT_KEYS,
    )


def _relative(value: Any, root: str) -> Any:
    """Every string naming a path under ``root`` made relative to it. A Claude Code project
    folder is named after its cwd with every character but letters and digits turned into
    ``-``: one for a cwd under ``root`` loses ``root``'s part too (``-repos-atlas``), so that
    the report does not depend on where ``root`` is."""
    encoded = re.sub(r"[^A-Za-z0-9]", "-", root) + "-"
    return _replaced(value, [(root + "/", ""), (encoded, "-")] if root.strip("/") else [])


def _replaced(value: Any, pairs: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for old, new in pairs:
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [_replaced(v, pairs) for v in value]
    if isinstance(value, dict):
        return {k: _replaced(v, pairs) for k, v in value.items()}
    return value


def write_report(
    con: duckdb.DuckDBPyConnection,
    out_dir: Path | None = None,
    week: str | None = None,
    bases: Sequence[str | Path] | None = None,
    as_of: date | None = None,
    *,
    thresholds: Thresholds,
    generated_at: datetime | None = None,
    relative_to: Path | None = None,
) -> ReportPaths:
    """Write the report of ``week`` (default: the last complete ISO week, UTC) into
    ``out_dir`` (default ``reports/<week>/``). ``relative_to`` shows paths under it
    relative to it (for a report that is shared or committed)."""
    week = week or last_complete_week()
    parse_week(week)
    directory = Path(out_dir) if out_dir is not None else Path("reports") / week
    wanted = [str(b) for b in bases] if bases else None
    with metrics.remembering(con):
        data = build_report_data(
            con, week, wanted, as_of, thresholds=thresholds, generated_at=generated_at
        )
    if relative_to is not None:
        data = _relative(data, str(Path(relative_to)))
    # Redacted once, here, for every output: data.json, report.md and report.html all come
    # from this one document, so no field can be forgotten.
    data = redact_json(to_json(data))  # what data.json holds, the page shows
    layout = build_layout(data)
    directory.mkdir(parents=True, exist_ok=True)
    from lessons_analytics.report.chartcache import render_charts

    images = render_charts(layout.charts, directory)
    paths = []
    for chart in layout.charts:
        (directory / chart.name).write_bytes(images[chart.name])
        paths.append(directory / chart.name)
    result = ReportPaths(
        directory,
        directory / "report.md",
        directory / "report.html",
        directory / "data.json",
        paths,
    )
    result.markdown.write_text(to_markdown(layout), encoding="utf-8")
    result.html.write_text(to_html(layout, images), encoding="utf-8")
    result.data.write_bytes(to_json(data) + b"\n")
    return result


def demo_report(
    con: duckdb.DuckDBPyConnection,
    root: Path,
    last_day: date,
    out_dir: Path | None = None,
    *,
    thresholds: Thresholds,
) -> ReportPaths:
    """The report of the demo's last week (2026-W48), paths shown relative to the demo root
    and ``generated_at`` pinned to the day after the demo ends, so that it is reproducible."""
    year, number, _ = last_day.isocalendar()
    week = f"{year}-W{number:02d}"
    as_of = last_day + timedelta(days=1)
    return write_report(
        con,
        out_dir if out_dir is not None else Path(root) / "reports" / week,
        week,
        as_of=as_of,
        thresholds=thresholds,
        generated_at=datetime.combine(as_of, time(), UTC),
        relative_to=Path(root),
    )
