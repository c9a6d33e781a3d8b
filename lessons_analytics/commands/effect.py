"""``effect``: does each lesson make its failure rarer, and what did each change do."""

from __future__ import annotations

from pathlib import Path

import click

from lessons_analytics.commands.common import analysis
from lessons_analytics.effect import effect_document
from lessons_analytics.options import AppContext, echo_json, filter_options, json_option


@click.command("effect")
@filter_options
@json_option
@click.pass_obj
def effect_cmd(
    app: AppContext, bases: tuple[Path, ...], since: str | None, until: str | None, as_json: bool
) -> None:
    """Per lesson: hits per 100 exposed sessions before and after it became active, the
    recall split, and a verdict; per change of a base: its numbers before and after.

    Example: lessons-analytics effect --base ~/src/app --json
    """
    thresholds = app.settings.thresholds
    doc = analysis(
        app,
        lambda con, chosen: effect_document(
            con, chosen, thresholds, as_text=as_json, evidence=as_json
        ),
        bases,
        since,
        until,
    )
    if as_json:
        echo_json(doc)
        return
    from lessons_analytics import tables  # the tables' modules are imports --json does without

    click.echo(tables.effect(doc))
