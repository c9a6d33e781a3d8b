"""``lessons-analytics.toml``: sources, bases, warehouse, report dir, thresholds, marking.

Every key is optional; the command line overrides the file, the file overrides the
defaults here (the defaults of metrics.md §6 and lesson-base.md).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lessons_analytics.errors import ConfigError

THRESHOLDS: dict[str, float] = {
    "candidate_independent_hits": 3,  # candidate-needs-verdict: >= 3 independent hits ...
    "candidate_aged_hits": 2,  # ... or >= 2 of them
    "candidate_age_days": 14,  # ... and older than 14 days
    "candidates_max": 10,  # candidates-without-verdict: more than 10 candidates
    "stale_candidate_days": 10,
    "class_share": 0.25,
    "active_without_hit_days": 30,
    "fat_body_bytes": 20480,
    "journal_share": 0.5,
    "recalled_but_failed_hits": 2,
    "never_recalled_hits": 2,
    "costly_ritual_hours_per_week": 1.0,
    "costly_body_tokens_per_week": 200_000,
    "sleep_due_lessons": 3,  # lesson-level signs must fire for more than this many lessons
    # index layout (check)
    "active_heading_max_line": 15,
    "index_max_bytes": 16384,
    # effect of a lesson (effect.py): one-sided test level and power of the halving test
    "effect_alpha": 0.05,
    "effect_power": 0.8,
    # retire candidate: no hit over this many days with at least this many exposed sessions
    "retire_window_days": 60,
    "retire_min_sessions": 30,
    # what one avoided hit is worth, against a lesson's ritual hours and body tokens: a
    # repeated failure caught by a gate or a person costs about half a session hour of rework
    "hours_per_hit": 0.5,
    "tokens_per_hit": 100_000,
    # interventions: sessions compared on each side of a change of the base
    "intervention_window_sessions": 20,
    # measurement
    "chars_per_token": 4,
    "large_body_bytes": 20480,
    "gap_cap_s": 300,
}


@dataclass
class Config:
    sources: list[Path] = field(default_factory=list)
    bases: list[Path] = field(default_factory=list)
    warehouse: Path | None = None
    report_dir: Path | None = None
    export_parquet: Path | None = None  # nightly writes the Parquet contract here
    mark: bool = False
    thresholds: dict[str, float] = field(default_factory=lambda: dict(THRESHOLDS))
    raw: dict[str, Any] = field(default_factory=dict)


def load_config(path: Path | None) -> Config:
    """The config of ``path`` (None: the defaults). Unknown threshold names are an error,
    because a misspelt threshold silently keeping its default is worse than stopping."""
    config = Config()
    if path is None:
        return config
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    config.raw = data
    here = path.parent
    config.sources = [_path(here, p) for p in _list(data, "sources", path)]
    config.bases = [_path(here, p) for p in _list(data, "bases", path)]
    if "warehouse" in data:
        config.warehouse = _path(here, str(data["warehouse"]))
    if "report_dir" in data:
        config.report_dir = _path(here, str(data["report_dir"]))
    if "export_parquet" in data:
        config.export_parquet = _path(here, str(data["export_parquet"]))
    config.mark = bool(data.get("mark", False))
    for name, value in (data.get("thresholds") or {}).items():
        if name not in THRESHOLDS:
            raise ConfigError(
                f"{path}: unknown threshold {name!r} (known: {', '.join(THRESHOLDS)})"
            )
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{path}: threshold {name} must be a number, not {value!r}")
        config.thresholds[name] = value
    return config


def _list(data: dict[str, Any], key: str, path: Path) -> list[str]:
    value = data.get(key, [])
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: {key} must be a path or a list of paths")
    return value


def _path(here: Path, text: str) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else here / path
