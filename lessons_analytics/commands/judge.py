"""The judge's commands that read a base from its files alone: ``check``, ``lint``, ``cards``.

Settings come from the ``AppContext`` the group put on the context: ``check`` reads
``[thresholds] active_heading_max_line`` and ``index_max_bytes`` (the keys of the stats
``index-layout`` sign), ``lint`` and ``cards`` read ``[lint]``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from lessons_analytics.bases import discover_bases, resolve_base
from lessons_analytics.cards import cards
from lessons_analytics.check import check_base
from lessons_analytics.errors import BaseNotFound
from lessons_analytics.lint import lint_base
from lessons_analytics.options import AppContext, echo_json, json_option
from lessons_analytics.settings import Settings

_BASE = click.argument("base", required=False, type=click.Path(path_type=Path))


def _generated_at() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _bases(base: Path | None) -> list[Path]:
    """The given base, or every base from the current directory upward."""
    try:
        if base is not None:
            return [resolve_base(base)]
        return discover_bases(Path.cwd()) or [resolve_base(Path.cwd())]
    except BaseNotFound as exc:
        raise click.ClickException(str(exc)) from exc


def _settings(ctx: click.Context) -> Settings:
    app = ctx.find_object(AppContext)
    return app.settings if app is not None else Settings()


def _note(ctx: click.Context, message: str) -> None:
    app = ctx.find_object(AppContext)
    if app is None or not app.quiet:
        click.echo(message, err=True)


@click.command("check")
@_BASE
@json_option
@click.pass_context
def check_cmd(ctx: click.Context, base: Path | None, as_json: bool) -> None:
    """INDEX.md layout; exit 1 when a rule fails.

    Example: lessons-analytics check path/to/project
    """
    results = [(b, check_base(b, _settings(ctx).thresholds)) for b in _bases(base)]
    if as_json:
        echo_json(
            {"schema": "lessons-analytics/check/1", "generated_at": _generated_at(),
             "bases": [{"base": str(b), "ok": not fs, "failures": [f.to_dict() for f in fs]}
                       for b, fs in results]}
        )  # fmt: skip
    else:
        for b, failures in results:
            for failure in failures:
                click.echo(str(failure))
            _note(ctx, f"check: {b}: {len(failures)} failure(s)" if failures else f"check: {b}: ok")
    if any(failures for _, failures in results):
        ctx.exit(1)


@click.command("lint")
@_BASE
@json_option
@click.pass_context
def lint_cmd(ctx: click.Context, base: Path | None, as_json: bool) -> None:
    """Lesson form, mechanism gate, poisoning; exit 1 on errors, 0 with warnings only.

    Example: lessons-analytics lint path/to/project/LESSONS
    """
    results = [(b, lint_base(b, _settings(ctx).lint)) for b in _bases(base)]
    if as_json:
        echo_json(
            {"schema": "lessons-analytics/lint/1", "generated_at": _generated_at(),
             "bases": [_lint_entry(b, findings) for b, findings in results]}
        )  # fmt: skip
    else:
        for b, findings in results:
            for finding in findings:
                click.echo(str(finding))
            entry = _lint_entry(b, findings)
            _note(ctx, f"lint: {b}: {entry['errors']} error(s), {entry['warnings']} warning(s)")
    if any(f.severity == "error" for _, findings in results for f in findings):
        ctx.exit(1)


def _lint_entry(base: Path, findings: list[Any]) -> dict[str, Any]:
    errors = sum(f.severity == "error" for f in findings)
    return {
        "base": str(base),
        "ok": errors == 0,
        "errors": errors,
        "warnings": len(findings) - errors,
        "findings": [f.to_dict() for f in findings],
    }


@click.command("cards")
@_BASE
@click.option("--page", default=1, show_default=True, type=click.IntRange(min=1))
@click.option("--page-size", default=10, show_default=True, type=click.IntRange(min=1))
@json_option
@click.pass_context
def cards_cmd(
    ctx: click.Context, base: Path | None, page: int, page_size: int, as_json: bool
) -> None:
    """Active lessons in pages for a scout; the last page ends with READ: cards N of N.

    Example: lessons-analytics cards path/to/project/sub --page 2
    """
    try:
        result = cards(
            base if base is not None else Path.cwd(), page, page_size, lint=_settings(ctx).lint
        )
    except BaseNotFound as exc:
        raise click.ClickException(str(exc)) from exc
    if not as_json:
        click.echo(result.text, nl=False)
        return
    echo_json(
        {"schema": "lessons-analytics/cards/1", "generated_at": _generated_at(),
         "bases": [{"base": b} for b in result.bases], "page": result.page,
         "pages": result.pages, "page_size": result.page_size, "total": result.total,
         "cards": [{"number": c.number, "base": c.base, "id": c.lesson_id, "file": c.file,
                    "text": c.text, "warnings": list(c.warnings)} for c in result.cards],
         "footer": result.footer}
    )  # fmt: skip
