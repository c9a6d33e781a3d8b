"""A first run without a lesson base (issue 12): ingest says so and where the warehouse
is; every analysis command says "no lesson base in the warehouse" with the next step,
exits 0 and, under --json, prints the empty document."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from lessons_analytics.cli import cli
from tests.support.basebuilder import index_text, make_base
from tests.support.transcripts import ClaudeSession

NOTE = (
    "no lesson base in the warehouse: ingest again with --base PATH (a project holding"
    " LESSONS/), or run `lessons-analytics retro` to find the failure signals that can"
    " seed a base\n"
)
INGEST_NOTE = (
    "no lesson base found: no session ran in a folder holding LESSONS/. Give one with"
    " `lessons-analytics ingest --base PATH`, or run `lessons-analytics retro` to find the"
    " failure signals that can seed a base.\n"
)


def _logs(root: Path, cwd: Path) -> Path:
    """Two Claude Code sessions in ``cwd``, each running `make test` for 30 s."""
    folder = root / "projects" / "-app"
    for n, sid in enumerate(("aaaa0001-0000-4000-8000-000000000000",
                             "aaaa0002-0000-4000-8000-000000000000")):  # fmt: skip
        s = ClaudeSession(folder, sid, cwd=str(cwd))
        s.prompt(f"2026-11-0{3 + n}T10:00:00Z", "run the tests")
        call = s.bash(f"2026-11-0{3 + n}T10:00:10Z", "make test")
        s.result(call, f"2026-11-0{3 + n}T10:00:40Z", "ok")
        s.write()
    return root / "projects"


def run(db: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--db", str(db), *args])


@pytest.fixture()
def no_base(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    app.mkdir()
    db = tmp_path / "w.duckdb"
    result = run(db, "ingest", str(_logs(tmp_path, app)))
    assert result.exit_code == 0
    assert "bases: 0" in result.stdout
    assert result.stderr == INGEST_NOTE + f"warehouse: {db}\n"
    return db


def test_ingest_quiet_and_json(tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    logs = _logs(tmp_path, app)
    quiet = CliRunner().invoke(cli, ["--db", str(tmp_path / "q.duckdb"), "--quiet", "ingest",
                                     str(logs)])  # fmt: skip
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "", "")
    as_json = run(tmp_path / "j.duckdb", "ingest", str(logs), "--json")
    assert json.loads(as_json.stdout)["bases"] == 0
    assert as_json.stderr == INGEST_NOTE


def test_ingest_with_a_base_only_says_where_the_warehouse_is(tmp_path: Path) -> None:
    app = tmp_path / "app"
    make_base(app, index=index_text([]))
    db = tmp_path / "w.duckdb"
    result = run(db, "ingest", str(_logs(tmp_path, app)))
    assert result.exit_code == 0
    assert "bases: 1" in result.stdout
    assert result.stderr == f"warehouse: {db}\n"


COMMANDS = {
    "heads": ["heads"],
    "coverage": ["coverage"],
    "hits": ["hits"],
    "bodies": ["bodies"],
    "cost": ["cost", "--rituals"],
    "effect": ["effect"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_analyses_say_there_is_no_base(no_base: Path, name: str) -> None:
    table = run(no_base, *COMMANDS[name])
    assert (table.exit_code, table.stderr) == (0, NOTE)
    as_json = run(no_base, *COMMANDS[name], "--json")
    assert (as_json.exit_code, as_json.stderr) == (0, NOTE)
    doc = json.loads(as_json.stdout)
    assert doc["rituals" if name == "cost" else "bases"] == []


def test_report_says_there_is_no_base(no_base: Path, tmp_path: Path) -> None:
    result = run(no_base, "report", "--week", "2026-W45", "--out", str(tmp_path / "r"))
    assert (result.exit_code, result.stderr) == (0, NOTE)
    assert (tmp_path / "r" / "report.html").is_file()


def test_ritual_time_of_a_regex_needs_no_base(no_base: Path) -> None:
    result = run(no_base, "cost", "^make test", "--json")
    assert (result.exit_code, result.stderr) == (0, "")
    (ritual,) = json.loads(result.stdout)["rituals"]
    # two calls of 30 s each; each session's events are 10 s and 30 s apart
    assert (ritual["calls"], ritual["total_hours"]) == (2, 60 / 3600)
    assert ritual["share_of_active_time"] == pytest.approx(60 / 80)


REAL = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "real"


@pytest.mark.real
@pytest.mark.skipif(not REAL.is_dir(), reason="real corpus not present")
def test_real_logs_without_a_base(tmp_path: Path) -> None:
    # independent count: no working directory of the corpus has a LESSONS/ folder on disk
    # on its way up (the corpus comes from other machines)
    cwds = {
        found.group(1)
        for path in REAL.rglob("*.jsonl")
        for found in re.finditer(r'"cwd":\s*"([^"]+)"', path.read_text(errors="replace"))
    }
    folders = {parent for c in cwds for parent in [Path(c), *Path(c).parents]}
    assert cwds and not any((folder / "LESSONS").is_dir() for folder in folders)
    db = tmp_path / "real.duckdb"
    result = run(db, "ingest", str(REAL))
    assert result.exit_code == 0
    assert "bases: 0" in result.stdout
    assert result.stderr.endswith(INGEST_NOTE + f"warehouse: {db}\n")
    for command in (["heads"], ["hits", "--json"]):
        answer = run(db, *command)
        assert (answer.exit_code, answer.stderr) == (0, NOTE)
