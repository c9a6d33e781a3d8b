"""Where things live: default transcript folders, the warehouse file, the config file."""

from __future__ import annotations

import os
from pathlib import Path

CONFIG_NAME = "lessons-analytics.toml"


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "lessons-analytics"


def default_db_path() -> Path:
    return data_dir() / "warehouse.duckdb"


def claude_projects_dir() -> Path:
    config = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(config) if config else Path.home() / ".claude") / "projects"


def codex_sessions_dir() -> Path:
    home = os.environ.get("CODEX_HOME")
    return (Path(home) if home else Path.home() / ".codex") / "sessions"


def default_sources() -> list[Path]:
    return [claude_projects_dir(), codex_sessions_dir()]
