"""``effect``: does each lesson make its failure rarer, and what did each change do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from lessons_analytics import render
from lessons_analytics.commands.analyses import _filters, _run
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
    filters = _filters(bases, since, until)
    doc = _run(app, lambda con: effect_document(con, filters, thresholds))
    if as_json:
        echo_json(doc)
        return
    for entry in doc["bases"]:
        click.echo(entry["base"])
        click.echo(render.table([_lesson_row(r) for r in entry["lessons"]],
                                ["lesson", "status", "before", "after", "diff (95 %)", "p",
                                 "needed", "recalled", "not recalled", "verdict"]))  # fmt: skip
        if entry["interventions"]:
            click.echo(render.table([_group_row(g) for g in _groups(entry["interventions"])],
                                    ["group", "commits", "days", "kinds", "coverage",
                                     "blind", "hit rate"]))  # fmt: skip
        click.echo("")
    if not doc["bases"]:
        click.echo("no lesson bases in the warehouse")


def _per100(k: int, n: int) -> str:
    return f"{k}/{n}" if not n else f"{k}/{n} = {100 * min(k, n) / n:.1f}"


def _points(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f}"


def _lesson_row(row: dict[str, Any]) -> list[Any]:
    diff = (
        f"{_points(row['diff'])} [{_points(row['diff_lo'])}, {_points(row['diff_hi'])}]"
        if row["diff"] is not None
        else "-"
    )
    p = "-" if row["p_value"] is None else f"{row['p_value']:.3g}"
    return [row["lesson_id"], row["status"], _per100(row["hits_before"], row["exposed_before"]),
            _per100(row["hits_after"], row["exposed_after"]), diff, p,
            row["sessions_needed"] if row["sessions_needed"] is not None else "-",
            f"{row['recalled_hits']}/{row['recalled_sessions']}",
            f"{row['unrecalled_hits']}/{row['unrecalled_sessions']}", row["verdict"]]  # fmt: skip


def _groups(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Changes of one group share their numbers: the table shows each group once."""
    groups: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row["group_id"], []).append(row)
    return list(groups.values())


def _group_row(group: list[dict[str, Any]]) -> list[Any]:
    row, last = group[0], group[-1]

    def side(num: str, den: str) -> str:
        return f"{row[num + '_before']}/{row[den + '_before']} -> {row[num + '_after']}/" + str(
            row[den + "_after"]
        )

    kinds = sorted({kind for change in group for kind in change["kinds"]})
    days = row["committed_at"].date().isoformat()
    if last["committed_at"].date() != row["committed_at"].date():
        days += f" .. {last['committed_at'].date().isoformat()}"
    commits = f"{len(group)}{' (confounded)' if row['confounded'] else ''}"
    return [row["group_id"], commits, days, ", ".join(kinds), side("recalled", "sessions"),
            side("blind", "reading_index"), side("hit_sessions", "sessions")]  # fmt: skip
