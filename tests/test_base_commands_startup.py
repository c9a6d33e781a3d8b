"""`check`, `lint` and `cards` read a base from its files: they start without the warehouse's
libraries, and `check` (which reads front matter with the YAML parser) without the
poisoning scan of `lint` and `cards`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.basebuilder import index_text, lesson_text, make_base

HEAVY = ("polars", "duckdb", "pyarrow", "matplotlib", "yaml", "lessons_analytics.poison")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (["check"], ["yaml"]),
        (["lint"], ["yaml", "lessons_analytics.poison"]),
        (["cards", "--json"], ["yaml", "lessons_analytics.poison"]),
    ],
)
def test_base_commands_load_only_what_they_use(
    command: list[str], expected: list[str], tmp_path: Path
) -> None:
    base = make_base(
        tmp_path / "p", lessons={"L-0001-a.md": lesson_text("L-0001")}, index=index_text(["L-0001"])
    )
    script = (
        "import sys\n"
        "from lessons_analytics.cli import cli\n"
        "try:\n"
        f"    cli([*{command!r}, {str(base)!r}])\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        f"loaded = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(repr((code, loaded)), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    # exit 0: the command really read the base (a clean one: no failure, no lint error)
    assert done.stderr.splitlines()[-1] == repr((0, expected)), done.stderr
