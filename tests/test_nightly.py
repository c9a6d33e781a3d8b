"""nightly: a second run is a no-op; a concurrent run stops at once; markers follow config."""

from __future__ import annotations

import hashlib
from datetime import date
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from lessons_analytics.cli import cli
from lessons_analytics.demo import build_demo
from lessons_analytics.nightly import last_complete_week, run_lock


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts):
        digest.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("nightly")
    build_demo(root)
    (root / "lessons-analytics.toml").write_text(
        'sources = ["claude/projects", "codex/sessions"]\nwarehouse = "w.duckdb"\nmark = true\n'
    )
    return root


def _nightly(workspace: Path, *args: str) -> object:
    config = str(workspace / "lessons-analytics.toml")
    return CliRunner().invoke(
        cli, ["--config", config, "nightly", "--report-dir", str(workspace / "reports"), *args]
    )


def test_twice_in_a_row_the_second_is_a_no_op(workspace: Path) -> None:
    first = _nightly(workspace)
    assert first.exit_code == 0, first.output
    assert "nightly ingest" in first.output and "341 files" in first.output
    bases_after_first = _tree_digest(workspace / "repos")
    second = _nightly(workspace)
    assert second.exit_code == 0, second.output
    assert "0 files, 0 new lines" in second.output
    assert "0 INDEX.md marker lines changed" in second.output
    assert _tree_digest(workspace / "repos") == bases_after_first
    con = duckdb.connect(str(workspace / "w.duckdb"), read_only=True)
    days = con.execute(
        "select count(distinct as_of), count(distinct base_path) from fct_sign_history"
    ).fetchall()
    assert days == [(1, 3)]  # the second run replaced the same day's rows


def test_a_concurrent_run_exits_at_once(workspace: Path) -> None:
    with run_lock(workspace / "w.duckdb", wait=False):
        result = _nightly(workspace)
    assert result.exit_code == 1
    assert "another nightly run holds" in result.output


def test_markers_written_only_when_configured(workspace: Path) -> None:
    index = workspace / "repos" / "atlas" / "LESSONS" / "INDEX.md"
    _nightly(workspace)
    assert "<!-- sleep-due:" in index.read_text()
    _nightly(workspace, "--no-mark")
    assert "<!-- sleep-due:" in index.read_text()  # --no-mark leaves the line alone


@pytest.mark.parametrize(
    ("today", "week"),
    [
        (date(2026, 12, 1), "2026-W48"),
        (date(2026, 11, 30), "2026-W48"),
        (date(2026, 11, 29), "2026-W47"),
        (date(2027, 1, 4), "2026-W53"),
    ],
)
def test_last_complete_week(today: date, week: str) -> None:
    assert last_complete_week(today) == week
