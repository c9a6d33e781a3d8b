"""``export``: the warehouse in the formats other tools read.

Each format is its own option and its own library call, so formats are added side by side;
one run may write several.
"""

from __future__ import annotations

from pathlib import Path

import click

from lessons_analytics.documents import ExportDocument, ParquetExportSummary
from lessons_analytics.options import AppContext, echo_json, filter_options, json_option


@click.command("export")
@click.option(
    "--parquet",
    "parquet_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Hive-partitioned Parquet of every raw table and mart (the contract between machines).",
)
@click.option(
    "--machine",
    default=None,
    help="This machine's name in the export (default: the config's `machine`, else the host).",
)
@click.option(
    "--otel",
    "otel_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="OTLP/JSON traces (OpenTelemetry GenAI conventions): one trace per session.",
)
@click.option(
    "--otel-content",
    is_flag=True,
    help="Put tool-call arguments and results, redacted, into the --otel spans.",
)
@click.option(
    "--ocel",
    "ocel_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="OCEL 2.0 object-centric event log; FILE.json or FILE.sqlite picks the layout.",
)
@filter_options
@json_option
@click.pass_obj
def export_cmd(
    app: AppContext,
    parquet_dir: Path | None,
    machine: str | None,
    otel_file: Path | None,
    otel_content: bool,
    ocel_file: Path | None,
    bases: tuple[Path, ...],
    since: str | None,
    until: str | None,
    as_json: bool,
) -> None:
    """Write the warehouse out for other machines and other tools.

    --base/--since/--until narrow the --otel and --ocel exports (sessions by base and
    start, hits by base and miss time); --parquet always holds everything.

    Example: lessons-analytics export --parquet /shared/lessons-export

    Example: lessons-analytics export --otel traces.json --ocel lessons.sqlite --since 2026-11-01
    """
    if parquet_dir is None and otel_file is None and ocel_file is None:
        raise click.UsageError("name at least one format: --parquet DIR, --otel FILE, --ocel FILE")
    if ocel_file is not None and ocel_file.suffix.lower() not in _OCEL_SUFFIXES:
        raise click.BadParameter("FILE must end in .json or .sqlite", param_hint="--ocel")
    document: ExportDocument = {"schema": "lessons-analytics/export/1"}
    if parquet_dir is not None:
        document["parquet"] = _parquet(app, parquet_dir, machine)
    if otel_file is not None or ocel_file is not None:
        _traces_and_logs(app, document, otel_file, otel_content, ocel_file, bases, since, until)
    if as_json:
        echo_json(document)
    elif not app.quiet and "parquet" in document:
        p = document["parquet"]
        click.echo(
            f"parquet: machine {p['machine']}, {p['written']} partitions written, "
            f"{p['unchanged']} unchanged, {p['removed']} removed → {parquet_dir}"
        )
    if not as_json and not app.quiet:
        for line in _summary_lines(document):
            click.echo(line)


def _parquet(app: AppContext, out: Path, machine: str | None) -> ParquetExportSummary:
    from lessons_analytics.exchange import export_parquet, machine_name

    name = machine_name(machine or app.settings.machine)
    return export_parquet(app.db_path, out, name).document()


_OCEL_SUFFIXES = (".json", ".jsonocel", ".sqlite", ".sqlite3", ".db")


def _traces_and_logs(
    app: AppContext,
    document: ExportDocument,
    otel_file: Path | None,
    otel_content: bool,
    ocel_file: Path | None,
    bases: tuple[Path, ...],
    since: str | None,
    until: str | None,
) -> None:
    """Write the --otel and --ocel files; their summaries go into ``document``."""
    from lessons_analytics import warehouse
    from lessons_analytics.commands.common import filters as window_filters
    from lessons_analytics.export_ocel import build_ocel, write_ocel
    from lessons_analytics.export_otel import write_otel

    con = warehouse.connect(app.db_path, read_only=True)
    try:
        filters = window_filters(con, bases, since, until)
        if otel_file is not None:
            document["otel"] = write_otel(
                con, otel_file, filters, include_content=otel_content
            ).document()
        if ocel_file is not None:
            document["ocel"] = write_ocel(build_ocel(con, filters), ocel_file).document()
    finally:
        con.close()


def _summary_lines(document: ExportDocument) -> list[str]:
    lines = []
    if "otel" in document:
        o = document["otel"]
        lines.append(
            f"otel: {o['traces']} traces, {o['spans']} spans, {o['events']} events "
            f"(semantic conventions {o['semconv']}) → {o['path']}"
        )
    if "ocel" in document:
        c = document["ocel"]
        lines.append(
            f"ocel: {c['events']} events, {c['objects']} objects, "
            f"{c['event_object_relationships'] + c['object_object_relationships']} "
            f"relationships ({c['layout']}) → {c['path']}"
        )
    for fmt, part in (("otel", document.get("otel")), ("ocel", document.get("ocel"))):
        for reason, count in (part["skipped"] if part else {}).items():
            lines.append(f"{fmt}: left out {count} ({reason.replace('_', ' ')})")
    return lines
