"""``stats``: the sleep signs of a base, and ``--mark`` for the marker line."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import click

from lessons_analytics import tables
from lessons_analytics.commands.base_args import base_paths
from lessons_analytics.documents import StatsDocument
from lessons_analytics.errors import BaseNotFound
from lessons_analytics.lessonbase.locate import discover_bases, resolve_base
from lessons_analytics.metrics import generated_at, schema
from lessons_analytics.options import AppContext, base_option, echo_json, json_option
from lessons_analytics.signs import BaseStats, apply_marker, bases_stats, marker_line


def _targets(given: tuple[Path, ...]) -> list[Path]:
    if given:
        return [resolve_base(base) for base in given]
    found = discover_bases(Path.cwd())
    if not found:
        raise BaseNotFound("no LESSONS/ folder here or above; give BASE or --base")
    return found


def compute(app: AppContext, targets: list[Path], as_of: date) -> list[BaseStats]:
    """Signs of every target; the warehouse (if there is one) supplies transcript signs."""
    con = app.read_warehouse() if app.db_path.exists() else None
    try:
        return bases_stats(targets, as_of, app.settings.thresholds, con)
    finally:
        if con is not None:
            con.close()


@click.command("stats")
@click.argument("base", required=False, type=click.Path(path_type=Path))
@base_option
@click.option("--mark", is_flag=True, help="Write, refresh or remove the sleep marker line.")
@click.option("--as-of", "as_of", default=None, metavar="DATE", help="Measure ages at DATE (UTC).")
@json_option
@click.pass_obj
def stats_cmd(
    app: AppContext,
    base: Path | None,
    bases: tuple[Path, ...],
    mark: bool,
    as_of: str | None,
    as_json: bool,
) -> None:
    """Sleep signs per base: number, threshold, fired, the lessons that fired them.

    A base the warehouse holds is weighed as the last ingest read it (a note says when its
    files changed since; --mark then refuses); any other base from its files.

    Example: lessons-analytics stats ~/src/app --as-of 2026-11-30 --json
    """
    try:
        day = date.fromisoformat(as_of) if as_of else datetime.now(UTC).date()
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--as-of") from exc
    results = compute(app, _targets(base_paths(base, bases)), day)
    stale = [r.base for r in results if r.changed_since_ingest]
    if mark and stale:
        # a marker must say what the files it is written into say
        raise click.ClickException(
            f"{stale[0]} changed since the last ingest: run `lessons-analytics ingest`"
            " first, so that the marker weighs the base as it is"
        )
    changed = []
    if mark:
        for result in results:
            index = Path(result.base) / "INDEX.md"
            if index.is_file() and apply_marker(index, marker_line(result)):
                changed.append(str(index))
    if as_json:
        doc: StatsDocument = {
            "schema": schema("stats"),
            "generated_at": generated_at(),
            "bases": [r.as_dict() for r in results],
            "marked": changed,
        }
        echo_json(doc)
        return
    click.echo(tables.stats(results))
    for base_path in stale:
        click.echo(
            f"note: {base_path} changed since the last ingest; these signs weigh it as that"
            " ingest read it (run `lessons-analytics ingest` to weigh it as it is)",
            err=True,
        )
    for path in changed:
        click.echo(f"marker updated: {path}", err=True)
