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
