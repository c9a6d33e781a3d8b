"""``stats``: the sleep signs of a base, and ``--mark`` for the marker line."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import click

from lessons_analytics import render, warehouse
from lessons_analytics.bases import discover_bases, resolve_base
from lessons_analytics.errors import LessonsAnalyticsError
from lessons_analytics.metrics import envelope
from lessons_analytics.options import AppContext, echo_json, json_option
from lessons_analytics.stats import BaseStats, apply_marker, base_stats, marker_line


def _targets(base: Path | None) -> list[Path]:
    if base is not None:
        return [resolve_base(base)]
    found = discover_bases(Path.cwd())
    if not found:
        raise click.ClickException("no LESSONS/ folder here or above; give BASE")
    return found


def compute(app: AppContext, targets: list[Path], as_of: date) -> list[BaseStats]:
    """Signs of every target; the warehouse (if there is one) supplies transcript signs."""
    con = warehouse.connect(app.db_path, read_only=True) if app.db_path.exists() else None
    try:
        return [base_stats(base, as_of, app.settings.thresholds, con) for base in targets]
    finally:
        if con is not None:
            con.close()


@click.command("stats")
@click.argument("base", required=False, type=click.Path(path_type=Path))
@click.option("--mark", is_flag=True, help="Write, refresh or remove the sleep marker line.")
@click.option("--as-of", "as_of", default=None, metavar="DATE", help="Measure ages at DATE (UTC).")
@json_option
@click.pass_obj
def stats_cmd(
    app: AppContext, base: Path | None, mark: bool, as_of: str | None, as_json: bool
) -> None:
    """Sleep signs per base: number, threshold, fired, the lessons that fired them.

    Example: lessons-analytics stats ~/src/app --as-of 2026-11-30 --json
    """
    try:
        day = date.fromisoformat(as_of) if as_of else datetime.now(UTC).date()
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--as-of") from exc
    try:
        results = compute(app, _targets(base), day)
    except LessonsAnalyticsError as exc:
        raise click.ClickException(str(exc)) from exc
    changed = []
    if mark:
        for result in results:
            index = Path(result.base) / "INDEX.md"
            try:
                if index.is_file() and apply_marker(index, marker_line(result)):
                    changed.append(str(index))
            except OSError as exc:
                raise click.ClickException(
                    f"{index}: cannot write the sleep marker: {exc}"
                ) from exc
    if as_json:
        doc = envelope("stats", [r.as_dict() for r in results])
        doc["marked"] = changed
        echo_json(doc)
        return
    for result in results:
        click.echo(_text(result))
    for path in changed:
        click.echo(f"marker updated: {path}", err=True)


def _text(result: BaseStats) -> str:
    rows: list[list[Any]] = []
    for sign in result.signs:
        value = sign.value
        if isinstance(value, dict):
            value = ", ".join(f"{k}={render.fmt(v)}" for k, v in value.items())
        threshold = sign.threshold
        if isinstance(threshold, dict):
            threshold = " / ".join(render.fmt(v) for v in threshold.values())
        rows.append(
            [
                sign.name,
                value,
                threshold,
                "FIRED" if sign.fired else "",
                ", ".join(sign.lessons[:8]) + (" ..." if len(sign.lessons) > 8 else ""),
            ]
        )
    head = (
        f"{result.base}  (as of {result.as_of}; sleep due: {'yes' if result.sleep_due else 'no'})"
    )
    return (
        head + "\n" + render.table(rows, ["sign", "value", "threshold", "fired", "lessons"]) + "\n"
    )
