"""``export``: the warehouse in the formats other tools read.

Each format is its own option and its own library call, so formats are added side by side;
one run may write several.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from lessons_analytics.errors import LessonsAnalyticsError
from lessons_analytics.options import AppContext, echo_json, json_option


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
@json_option
@click.pass_obj
def export_cmd(
    app: AppContext, parquet_dir: Path | None, machine: str | None, as_json: bool
) -> None:
    """Write the warehouse out for other machines and other tools.

    Example: lessons-analytics export --parquet /shared/lessons-export
    """
    if parquet_dir is None:
        raise click.UsageError("name at least one format, e.g. --parquet DIR")
    document: dict[str, Any] = {"schema": "lessons-analytics/export/1"}
    try:
        if parquet_dir is not None:
            document["parquet"] = _parquet(app, parquet_dir, machine)
    except LessonsAnalyticsError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        echo_json(document)
    elif not app.quiet and "parquet" in document:
        p = document["parquet"]
        click.echo(
            f"parquet: machine {p['machine']}, {p['written']} partitions written, "
            f"{p['unchanged']} unchanged, {p['removed']} removed → {parquet_dir}"
        )


def _parquet(app: AppContext, out: Path, machine: str | None) -> dict[str, Any]:
    from lessons_analytics.exchange import export_parquet, machine_name

    name = machine_name({"machine": machine} if machine else app.config)
    return export_parquet(app.db_path, out, name).document()
