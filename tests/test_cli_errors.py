"""One error boundary (issue 12): every typo gets one ``Error:`` line naming the option or
path, exit 1 (2 for a usage error or a value the library cannot use); a bug keeps its
traceback. Real DuckDB files over the hand-worked scenario (a real git base)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from lessons_analytics import metrics
from lessons_analytics.cli import cli
from tests.support import scenario

PACKAGE = Path(__file__).resolve().parent.parent / "lessons_analytics"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("errors")
    return root, scenario.ingested(root)


def run(db: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--db", str(db), *args])


def one_error(result: Result, code: int, line: str) -> None:
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.stderr == f"Error: {line}\n"
    assert "Traceback" not in result.output


def test_ingest_of_a_missing_path(tmp_path: Path) -> None:
    one_error(
        run(tmp_path / "w.duckdb", "ingest", str(tmp_path / "nope")),
        1,
        f"{tmp_path / 'nope'}: no such file or folder",
    )


def test_ingest_of_a_base_typo_fails_before_loading(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    projects.mkdir()
    one_error(
        run(tmp_path / "w.duckdb", "ingest", str(projects), "--base", str(tmp_path / "nope")),
        1,
        f"{tmp_path / 'nope'}: no LESSONS/ folder here",
    )
    assert not (tmp_path / "w.duckdb").exists()


ANALYSES = {
    "heads": ["heads"],
    "coverage": ["coverage"],
    "hits": ["hits"],
    "bodies": ["bodies"],
    "cost": ["cost", "--rituals"],
    "effect": ["effect"],
    "recalled": ["recalled", "L-0001", "--session", scenario.S2],
}


@pytest.mark.parametrize("name", sorted(ANALYSES))
def test_a_base_typo_is_an_error_naming_the_path(world: tuple[Path, Path], name: str) -> None:
    root, db = world
    one_error(
        run(db, *ANALYSES[name], "--base", str(root / "projx")),
        1,
        f"--base {root / 'projx'}: no LESSONS/ folder there, and no such base in the warehouse",
    )


def test_a_base_on_disk_that_was_never_ingested(world: tuple[Path, Path]) -> None:
    root, db = world
    other = root / "other" / "LESSONS"
    other.mkdir(parents=True)
    one_error(
        run(db, "heads", "--base", str(root / "other")),
        1,
        f"--base {root / 'other'}: {other} is not in the warehouse;"
        f" run `lessons-analytics ingest --base {root / 'other'}` first",
    )


@pytest.mark.parametrize("form", ["project", "lessons"])
def test_a_known_base_by_project_or_folder(world: tuple[Path, Path], form: str) -> None:
    root, db = world
    path = root / "proj" if form == "project" else root / "proj" / "LESSONS"
    result = run(db, "heads", "--json", "--base", str(path))
    assert result.exit_code == 0, result.stderr
    assert '"base": "' + str(root / "proj" / "LESSONS") + '"' in result.stdout


def test_report_export_and_file_commands_check_base_too(world: tuple[Path, Path]) -> None:
    root, db = world
    typo = root / "projx"
    expected = f"--base {typo}: no LESSONS/ folder there, and no such base in the warehouse"
    one_error(run(db, "report", "--out", str(root / "r"), "--base", str(typo)), 1, expected)
    one_error(run(db, "export", "--otel", str(root / "t.json"), "--base", str(typo)), 1, expected)
    for command in ("check", "lint", "stats", "cards"):
        one_error(run(db, command, "--base", str(typo)), 1, f"{typo}: no LESSONS/ folder here"
                  + (" or above" if command == "cards" else ""))  # fmt: skip
    one_error(run(db, "retro", "--base", str(typo)), 1, f"{typo}: no LESSONS/ folder here")


def test_since_after_until_is_a_usage_error_naming_both(world: tuple[Path, Path]) -> None:
    _, db = world
    result = run(db, "heads", "--since", "2026-11-05", "--until", "2026-11-01")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "Error: --since 2026-11-05 is not before --until 2026-11-01: the window is empty"
    )
    # a bare --until includes its day: the same day on both sides is a one-day window
    assert run(db, "heads", "--since", "2026-11-03", "--until", "2026-11-03").exit_code == 0


def test_a_date_that_is_not_one(world: tuple[Path, Path]) -> None:
    _, db = world
    result = run(db, "coverage", "--since", "2026-13-01")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "Error: Invalid value for '--since': '2026-13-01' is not a date (YYYY-MM-DD)"
        " or an ISO timestamp"
    )


def test_a_bad_regex_names_the_pattern_and_exits_2(world: tuple[Path, Path]) -> None:
    _, db = world
    one_error(
        run(db, "cost", "[unclosed"),
        2,
        "PATTERN '[unclosed' is not a valid regex: missing ]: [unclosed",
    )


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_demo_into_proc_is_one_line(tmp_path: Path) -> None:
    one_error(run(tmp_path / "w.duckdb", "demo", "--out", "/proc/x"), 1,
              "/proc/x: No such file or directory")  # fmt: skip


def test_unwritable_outputs(world: tuple[Path, Path], tmp_path: Path) -> None:
    _, db = world
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder")
    sub = blocker / "sub"
    one_error(run(db, "report", "--out", str(sub)), 1, f"{sub}: Not a directory")
    one_error(run(db, "export", "--parquet", str(sub)), 1, f"{sub}: Not a directory")
    one_error(run(db, "export", "--otel", str(blocker / "t.json")), 1,
              f"{blocker}: is a file, not a folder")  # fmt: skip
    one_error(run(db, "retro", "--out", str(sub)), 1,
              f"{sub}: cannot write the retro outputs: Not a directory")  # fmt: skip
    one_error(run(db, "query", "heads", "--parquet", str(blocker / "a.parquet")), 1,
              f"{blocker / 'a.parquet'}: Not a directory")  # fmt: skip


def test_missing_warehouse_and_query_errors(world: tuple[Path, Path], tmp_path: Path) -> None:
    _, db = world
    missing = tmp_path / "none.duckdb"
    one_error(run(missing, "hits"), 1,
              f"{missing}: no warehouse yet; run `lessons-analytics ingest` first")  # fmt: skip
    one_error(run(db, "query", str(tmp_path / "q.sql")), 1,
              f"{tmp_path / 'q.sql'}: No such file or directory")  # fmt: skip
    bad = tmp_path / "bad.sql"
    bad.write_text("select * from no_such_table")
    result = run(db, "query", str(bad))
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: query failed: Catalog Error: Table with name")
    assert len(result.stderr.splitlines()) == 1


def test_a_bug_keeps_its_traceback(
    world: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, db = world

    def broken(*_args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(metrics, "heads_document", broken)
    result = run(db, "heads")
    assert isinstance(result.exception, RuntimeError)
    assert "Error:" not in result.stderr


def test_a_value_the_engine_refuses_is_one_line_in_a_real_process(
    world: tuple[Path, Path],
) -> None:
    # a run imports DuckDB's engine module alone (engine.py), never the package this test
    # process has imported: the boundary must know the engine's errors by the engine's name
    _, db = world
    script = (
        "import sys\n"
        "from lessons_analytics import metrics\n"
        "from lessons_analytics.engine import duckdb\n"
        "def refused(*_args):\n"
        "    raise duckdb.InvalidInputException('Invalid Input Error: missing ): (')\n"
        "metrics.heads_document = refused\n"
        "from lessons_analytics.cli import main\n"
        "sys.argv = ['lessons-analytics', '--db', sys.argv[1], 'heads']\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(db)], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stderr) == (1, "Error: Invalid Input Error: missing ): (\n")


def test_no_command_keeps_its_own_error_mapping() -> None:
    """The boundary in cli.py is the only place library errors become messages."""
    offenders = []
    for path in sorted((PACKAGE / "commands").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for pattern in (r"except\s+\(?[\w., ]*(LessonsAnalyticsError|BaseNotFound|duckdb\.)",
                        r"except\s+OSError", r"ClickException\(str\(exc\)\)"):  # fmt: skip
            offenders += [f"{path.name}: {m.group(0)}" for m in re.finditer(pattern, text)]
    assert offenders == []


@pytest.mark.parametrize("name", sorted(ANALYSES))
def test_a_warehouse_of_other_models_says_to_ingest_again(
    world: tuple[Path, Path], tmp_path: Path, name: str
) -> None:
    # an upgrade: the file was built by other sql/ models, so a mart or column a query reads
    # may be missing; one line instead of a Catalog Error traceback
    import shutil

    import duckdb

    stale = tmp_path / "stale.duckdb"
    shutil.copy(world[1], stale)
    con = duckdb.connect(str(stale))
    con.execute("update meta_build set models = 'other'")
    con.close()
    one_error(
        run(stale, *ANALYSES[name]),
        1,
        f"{stale}: built by another version of lessons-analytics (other sql/ models);"
        " run `lessons-analytics ingest` to rebuild it",
    )
    fresh = run(world[1], *ANALYSES[name])
    assert fresh.exit_code in (0, 3, 4) and "another version" not in fresh.output  # recalled: 3, 4
