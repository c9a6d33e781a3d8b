"""`--help` and `--version` start without the command modules and the heavy libraries,
and `--help` lists each command as the command itself would describe it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lessons_analytics import cli


@pytest.mark.parametrize("name", sorted(cli._COMMANDS))
def test_the_short_help_read_from_source_is_the_commands_own(name: str) -> None:
    for limit in (30, 60):
        assert cli._short_help(name, limit) == cli._load(name).get_short_help_str(limit)


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_import_nothing_heavy(flag: str) -> None:
    script = (
        "import sys\n"
        "from lessons_analytics.cli import cli\n"
        "try:\n"
        f"    cli([{flag!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('polars', 'duckdb', 'pyarrow', 'matplotlib',"
        " 'lessons_analytics.commands.ingest')\n"
        "print(' '.join(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stderr.strip() == ""
    assert done.stdout.strip()


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    from lessons_analytics.demo import build_demo
    from lessons_analytics.ingestion import ingest

    root = tmp_path_factory.mktemp("startup")
    ws = build_demo(root / "ws")
    ingest(root / "w.duckdb", [ws.claude_projects, ws.codex_sessions], ws.bases)
    return str(root / "w.duckdb")


# What each analysis command may import: Polars only where a frame is really built (the
# ritual sums and quantiles of `cost` and `effect`, whose float results Polars defines);
# the others read rows straight from DuckDB. pyarrow, matplotlib and the YAML parser never.
ANALYSES = [
    (["heads"], []),
    (["coverage"], []),
    (["hits"], []),
    (["bodies"], []),
    (["cost", "--rituals"], ["polars"]),
    (["effect"], ["polars"]),
]


@pytest.mark.parametrize(("command", "expected"), ANALYSES)
def test_analysis_commands_import_only_what_they_use(
    command: list[str], expected: list[str], demo_db: str
) -> None:
    script = (
        "import sys\n"
        "from lessons_analytics.cli import cli\n"
        "try:\n"
        f"    cli(['--db', {demo_db!r}, *{command!r}, '--json'])\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        "heavy = ('polars', 'pyarrow', 'matplotlib', 'yaml', 'frontmatter',"
        " 'lessons_analytics.lint', 'lessons_analytics.schema')\n"
        "loaded = [m for m in heavy if m in sys.modules]\n"
        "print(repr((code, loaded)), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    # exit 0 and a document on stdout: the command really ran its queries
    assert done.stderr.splitlines()[-1] == repr((0, expected)), done.stderr
    assert done.stdout.startswith("{"), done.stdout[:200]
