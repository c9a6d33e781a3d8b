"""The lint tooling: the notebook output check, and the sqlfluff config on `$param` SQL."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECK = ROOT / ".ci" / "check_notebooks.py"


def _check(*args: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CHECK), *map(str, args)], capture_output=True, text=True, check=False
    )


def test_the_committed_notebooks_have_no_outputs() -> None:
    result = _check(ROOT / "notebooks")
    assert result.returncode == 0, result.stdout
    count = len(list((ROOT / "notebooks").glob("*.ipynb")))
    assert count and result.stdout.splitlines() == [f"notebooks: {count} checked, 0 problem(s)"]


def test_a_notebook_with_outputs_fails(tmp_path: Path) -> None:
    notebook = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# t"]},
            {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
             "source": ["1"]},
            {"cell_type": "code", "execution_count": 3, "metadata": {},
             "outputs": [{"output_type": "stream", "name": "stdout", "text": ["/home/me\n"]}],
             "source": ["print(1)"]},
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }  # fmt: skip
    path = tmp_path / "run.ipynb"
    path.write_text(json.dumps(notebook))
    result = _check(tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{path}: cell 3 has outputs",
        f"{path}: cell 3 has an execution count",
        "notebooks: 1 checked, 2 problem(s)",
    ]
    path.write_text("{not json")
    assert "not a readable notebook" in _check(path).stdout


SQL = """-- q: a query.
-- Grain: one row per id. Parameters: $since.
select id, count(*) as n from t where ts >= $since group by id
"""


def _sqlfluff(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("sqlfluff", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("sqlfluff not installed (dev extra)")
    return subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True, check=False)


def test_sqlfluff_config_requires_trailing_commas_and_keeps_placeholders(tmp_path: Path) -> None:
    shutil.copy(ROOT / ".sqlfluff", tmp_path / ".sqlfluff")
    path = tmp_path / "q.sql"
    path.write_text(SQL)
    lint = _sqlfluff("lint", "q.sql", "--format", "json", cwd=tmp_path)
    codes = {v["code"] for f in json.loads(lint.stdout) for v in f["violations"]}
    assert {"CV03", "LT09"} <= codes  # trailing comma; one select target per line
    _sqlfluff("fix", "q.sql", cwd=tmp_path)
    fixed = path.read_text()
    assert "$since" in fixed and "count(*) as n," in fixed
    assert _sqlfluff("lint", "q.sql", cwd=tmp_path).returncode == 0
    # the fixed query still binds its parameter in DuckDB
    con = duckdb.connect(":memory:")
    con.execute("create table t (id int, ts int)")
    con.execute("insert into t values (1, 5), (1, 9), (2, 1)")
    rows = con.execute(fixed, {"since": 4}).fetchall()
    assert rows == [(1, 2)]


def test_sqlfluff_config_holds_the_house_rules() -> None:
    text = (ROOT / ".sqlfluff").read_text()
    for line in (
        "dialect = duckdb",
        "templater = placeholder",
        "param_style = dollar",
        "max_line_length = 100",
        "select_clause_trailing_comma = require",
    ):
        assert line in text


def test_ci_runs_the_readme_commands() -> None:
    run = (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert ".venv/bin/python -m pytest" in run and "bash .ci/lint" in run
    assert "'.[test,spark,dev]'" in run  # the linters come with the dev extra
    assert ".ci/lint" in readme
