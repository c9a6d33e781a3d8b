"""``config``: the effective settings and where each came from."""

from __future__ import annotations

from pathlib import Path

import click

from lessons_analytics.options import AppContext, echo_json, json_option
from lessons_analytics.settings import CONFIG_ENV, ENV_PREFIX


def _plain(value: object) -> object:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _text(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, tuple | list):
        return ", ".join(str(v) for v in value) or "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@click.command("config")
@json_option
@click.pass_obj
def config_cmd(app: AppContext, as_json: bool) -> None:
    """Print every setting, its effective value and where it came from: default, the file,
    an environment variable or the command line.

    The file is --config, else $LESSONS_ANALYTICS_CONFIG, else ./lessons-analytics.toml.
    Environment: LESSONS_ANALYTICS_<KEY> (LESSONS_ANALYTICS_WAREHOUSE) and
    LESSONS_ANALYTICS_<SECTION>__<KEY> (LESSONS_ANALYTICS_THRESHOLDS__GAP_CAP_S).

    Example: lessons-analytics --config lessons-analytics.toml config --json
    """
    settings = app.settings
    entries = settings.entries()
    if as_json:
        echo_json(
            {
                "schema": "lessons-analytics/config/1",
                "config_file": str(settings.config_path) if settings.config_path else None,
                "environment": {"prefix": ENV_PREFIX, "config_file": CONFIG_ENV},
                "settings": [
                    {"key": key, "value": _plain(value), "origin": origin}
                    for key, value, origin in entries
                ],
            }
        )
        return
    width = max(len(key) for key, _, _ in entries)
    click.echo(f"config file: {settings.config_path or '(none)'}")
    for key, value, origin in entries:
        if key == "sources" and not value:
            value = settings.sources_or_default() or "(none: no runtime folder exists)"
        click.echo(f"{key:<{width}}  {_text(value)}  [{origin}]")
