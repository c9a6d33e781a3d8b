"""Every analysis command's table and --json output on the scenario, against golden files.

Paths of the temporary workspace become <root> and generated_at a fixed value, so the
files are stable; regenerate them with ``pytest --update-golden``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from lessons_analytics.cli import cli
from lessons_analytics.ingestion import ingest
from tests.support import scenario


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("golden")
    built = scenario.build(root)
    db = root / "w.duckdb"
    ingest(db, [built.projects, built.codex])
    return root, db


def _normal(text: str, root: Path) -> str:
    text = text.replace(str(root), "<root>")
    text = re.sub(r'"generated_at": "[^"]+"', '"generated_at": "<now>"', text)
    # column widths follow the temporary path's length: compare cells, not padding
    return re.sub(r"-{2,}", "--", re.sub(r"(?<=\S) {2,}", "  ", text))


COMMANDS = {
    "heads": ["heads"],
    "coverage": ["coverage"],
    "hits": ["hits"],
    "bodies": ["bodies"],
    "cost": ["cost", "^make test"],
    "cost-rituals": ["cost", "--rituals"],
    "effect": ["effect"],
    "recalled": ["recalled", "L-0001", "--session", scenario.S2],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
@pytest.mark.parametrize("fmt", ["table", "json"])
def test_golden(world: tuple[Path, Path], golden, name: str, fmt: str) -> None:  # type: ignore[no-untyped-def]
    root, db = world
    args = ["--db", str(db), *COMMANDS[name], *(["--json"] if fmt == "json" else [])]
    result = CliRunner().invoke(cli, args)
    expected_exit = 4 if name == "recalled" else 0  # S2 only saw the index row: index_only
    assert result.exit_code == expected_exit, result.output
    golden(f"{name}-{fmt}", _normal(result.output, root))


def test_json_stdout_is_only_data(world: tuple[Path, Path]) -> None:
    import json

    _root, db = world
    result = CliRunner().invoke(cli, ["--db", str(db), "heads", "--json"])
    assert json.loads(result.stdout)["schema"] == "lessons-analytics/heads/1"


def test_missing_warehouse_is_a_clear_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "none.duckdb"), "heads"])
    assert result.exit_code == 1
    assert "no warehouse yet" in result.output


def test_bad_date_is_a_usage_error(world: tuple[Path, Path]) -> None:
    _root, db = world
    result = CliRunner().invoke(cli, ["--db", str(db), "coverage", "--since", "last tuesday"])
    assert result.exit_code == 2


def test_cost_needs_exactly_one_selector(world: tuple[Path, Path]) -> None:
    _root, db = world
    result = CliRunner().invoke(cli, ["--db", str(db), "cost"])
    assert result.exit_code == 2
