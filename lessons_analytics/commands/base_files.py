"""The judge's commands that read a base from its files alone: ``check``, ``lint``, ``cards``.

Settings come from the ``AppContext`` the group put on the context: ``check`` reads
``[thresholds] active_heading_max_line`` and ``index_max_bytes`` (the keys of the stats
``index-layout`` sign), ``lint`` and ``cards`` read ``[lint]``. Each command imports its
library module when it runs, so ``check`` loads neither the YAML parser nor the poisoning
scan of ``lint`` and ``cards``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from lessons_analytics import tables
from lessons_analytics.commands.base_args import base_paths
from lessons_analytics.documents import CardsDocument, CheckDocument, LintBase, LintDocument
from lessons_analytics.lessonbase.locate import discover_bases, resolve_base
from lessons_analytics.options import AppContext, base_option, echo_json, json_option
from lessons_analytics.settings import Settings

if TYPE_CHECKING:
    from lessons_analytics.lint import Finding

_BASE = click.argument("base", required=False, type=click.Path(path_type=Path))


def _generated_at() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _bases(base: Path | None, bases: tuple[Path, ...]) -> list[Path]:
    """The given base(s), or every base from the current directory upward."""
    given = base_paths(base, bases)
    if given:
        return [resolve_base(b) for b in given]
    return discover_bases(Path.cwd()) or [resolve_base(Path.cwd())]


def _settings(ctx: click.Context) -> Settings:
    app = ctx.find_object(AppContext)
    return app.settings if app is not None else Settings()


def _note(ctx: click.Context, message: str) -> None:
    app = ctx.find_object(AppContext)
    if app is None or not app.quiet:
        click.echo(message, err=True)


@click.command("check")
@_BASE
@base_option
@json_option
@click.pass_context
def check_cmd(
    ctx: click.Context, base: Path | None, bases: tuple[Path, ...], as_json: bool
) -> None:
    """INDEX.md layout; exit 1 when a rule fails.

    Example: lessons-analytics check path/to/project
    """
    from lessons_analytics.check import check_base

    results = [(b, check_base(b, _settings(ctx).thresholds)) for b in _bases(base, bases)]
    if as_json:
        doc: CheckDocument = {
            "schema": "lessons-analytics/check/1", "generated_at": _generated_at(),
            "bases": [{"base": str(b), "ok": not fs, "failures": [f.to_dict() for f in fs]}
                      for b, fs in results]}  # fmt: skip
        echo_json(doc)
    else:
        for b, failures in results:
            for line in tables.check(failures):
                click.echo(line)
            _note(ctx, f"check: {b}: {len(failures)} failure(s)" if failures else f"check: {b}: ok")
    if any(failures for _, failures in results):
        ctx.exit(1)


@click.command("lint")
@_BASE
@base_option
@json_option
@click.pass_context
def lint_cmd(ctx: click.Context, base: Path | None, bases: tuple[Path, ...], as_json: bool) -> None:
    """Lesson form, mechanism gate, poisoning; exit 1 on errors, 0 with warnings only.

    Example: lessons-analytics lint path/to/project/LESSONS
    """
    from lessons_analytics.lint import lint_base

    results = [(b, lint_base(b, _settings(ctx).lint)) for b in _bases(base, bases)]
    if as_json:
        doc: LintDocument = {
            "schema": "lessons-analytics/lint/1", "generated_at": _generated_at(),
            "bases": [_lint_entry(b, findings) for b, findings in results]}  # fmt: skip
        echo_json(doc)
    else:
        for b, findings in results:
            for line in tables.lint(findings):
                click.echo(line)
            entry = _lint_entry(b, findings)
            _note(ctx, f"lint: {b}: {entry['errors']} error(s), {entry['warnings']} warning(s)")
    if any(f.severity == "error" for _, findings in results for f in findings):
        ctx.exit(1)


def _lint_entry(base: Path, findings: list[Finding]) -> LintBase:
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
@click.option(
    "--base",
    "base_opt",
    type=click.Path(path_type=Path),
    default=None,
    help="The folder whose bases (it and the ones above it) to page; as BASE.",
)
@click.option("--page", default=1, show_default=True, type=click.IntRange(min=1))
@click.option("--page-size", default=10, show_default=True, type=click.IntRange(min=1))
@json_option
@click.pass_context
def cards_cmd(
    ctx: click.Context,
    base: Path | None,
    base_opt: Path | None,
    page: int,
    page_size: int,
    as_json: bool,
) -> None:
    """Active lessons in pages for a scout; the last page ends with READ: cards N of N.

    Example: lessons-analytics cards path/to/project/sub --page 2
    """
    from lessons_analytics.cards import cards

    given = base_paths(base, (base_opt,) if base_opt is not None else ())
    result = cards(given[0] if given else Path.cwd(), page, page_size, lint=_settings(ctx).lint)
    if not as_json:
        click.echo(result.text, nl=False)
        return
    doc: CardsDocument = {
        "schema": "lessons-analytics/cards/1", "generated_at": _generated_at(),
        "bases": [{"base": b} for b in result.bases], "page": result.page,
        "pages": result.pages, "page_size": result.page_size, "total": result.total,
        "cards": [{"number": c.number, "base": c.base, "id": c.lesson_id, "file": c.file,
                   "text": c.text, "warnings": list(c.warnings)} for c in result.cards],
        "footer": result.footer}  # fmt: skip
    echo_json(doc)
