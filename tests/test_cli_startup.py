"""`--help` and `--version` start without the command modules and the heavy libraries,
and `--help` lists each command as the command itself would describe it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from lessons_analytics import cli
from tests.support.demo_warehouse import demo_warehouse
from tests.support.locks import writer_elsewhere


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
def demo_ws(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[str]]:
    """The demo's warehouse and its bases."""
    ws, db = demo_warehouse(tmp_path_factory.mktemp("startup"))
    return str(db), [str(b) for b in ws.bases]


@pytest.fixture(scope="module")
def demo_db(demo_ws: tuple[str, list[str]]) -> str:
    return demo_ws[0]


# DuckDB's Python layer (the package `duckdb` over its engine `_duckdb`, lessons_analytics/
# engine.py), which reading rows does without
LAYER = ("duckdb",)

# What each analysis command may import: no Polars and no DuckDB Python layer, every
# document is made of rows read straight from DuckDB (`cost` and `effect` sum and rank the
# rituals' durations in Python: metrics.exact_sum, metrics.linear_quantile); pyarrow,
# matplotlib and the YAML parser never, nor the build's modules (the stale check fingerprints
# the models with sqlfiles alone).
# The text tables' modules only where the command's module imports them for its text output
# (commands/analyses.py does, at the top); `effect --json` starts without them.
_TABLES = ["lessons_analytics.tables"]
ANALYSES = [
    (["heads"], _TABLES),
    (["coverage"], _TABLES),
    (["hits"], _TABLES),
    (["bodies"], _TABLES),
    (["cost", "^make test"], _TABLES),
    (["cost", "--rituals"], _TABLES),
    (["effect"], []),
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
        f"heavy = ('polars', 'pyarrow', 'matplotlib', 'yaml', 'frontmatter', *{LAYER!r},"
        " 'lessons_analytics.lint', 'lessons_analytics.schema', 'lessons_analytics.tables',"
        " 'lessons_analytics.transform', 'lessons_analytics.sqlheader')\n"
        "loaded = [m for m in heavy if m in sys.modules]\n"
        "print(repr((code, loaded)), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    # exit 0 and a document on stdout: the command really ran its queries
    assert done.stderr.splitlines()[-1] == repr((0, expected)), done.stderr
    assert done.stdout.startswith("{"), done.stdout[:200]


@pytest.mark.parametrize(
    ("held", "expected"),
    [
        # the warehouse holds the base: the raw schema names the base tables (their columns
        # salt the bases' fingerprints), and declares them without Polars
        (True, ["lessons_analytics.schema"]),
        # no warehouse: the base is read from its files, no frame, no raw schema
        (False, []),
    ],
)
def test_stats_imports_polars_only_for_a_base_the_warehouse_holds(
    held: bool, expected: list[str], demo_ws: tuple[str, list[str]], tmp_path: Path
) -> None:
    db, bases = demo_ws
    where = db if held else str(tmp_path / "none.duckdb")
    command = ["--db", where, "stats", "--base", bases[0], "--as-of", "2026-12-01", "--json"]
    script = (
        "import sys\n"
        "from lessons_analytics.cli import cli\n"
        "try:\n"
        f"    cli({command!r})\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        f"heavy = ('polars', 'pyarrow', 'matplotlib', *{LAYER!r}, 'lessons_analytics.schema')\n"
        "loaded = [m for m in heavy if m in sys.modules]\n"
        "print(repr((code, loaded)), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stderr.splitlines()[-1] == repr((0, expected)), done.stderr
    # the signs came from where the test says: a held base is weighed from the warehouse
    source = orjson.loads(done.stdout)["bases"][0]["source"]
    assert source == ("warehouse" if held else "files"), source


def test_the_report_makes_its_frames_without_the_python_layer(demo_db: str, tmp_path: Path) -> None:
    # its frames come from the engine's Arrow stream (engine.arrow_stream); pyarrow never
    out = tmp_path / "report"
    argv = ["--db", demo_db, "-q", "report", "--week", "2026-W48", "--out", str(out)]
    script = (
        "import sys\n"
        "from lessons_analytics.cli import cli\n"
        "try:\n"
        f"    cli({argv!r})\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        f"heavy = ('polars', 'pyarrow', *{LAYER!r})\n"
        "print(repr((code, [m for m in heavy if m in sys.modules])), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stderr.splitlines()[-1] == repr((0, ["polars"])), done.stderr
    assert orjson.loads((out / "data.json").read_bytes())["has_data"] is True


@pytest.mark.parametrize(
    ("args", "ahead"),
    [
        (["heads", "--json"], True),
        (["effect"], True),
        (["report", "--week", "2026-W48"], True),
        (["heads", "--help"], False),  # help needs no warehouse
        (["cost", "-h"], False),
        (["ingest"], False),  # a writer, which opens the file its own way
        (["query", "select 1"], False),  # the sandbox's connection
    ],
)
def test_a_reading_command_begins_opening_the_warehouse_before_its_import(
    demo_db: str, args: list[str], ahead: bool
) -> None:
    group = cli.cli
    ctx = group.make_context("lessons-analytics", ["--db", demo_db, *args])
    # what click's Group.invoke does first: resolve (import) the command
    assert group.resolve_command(ctx, [*ctx._protected_args, *ctx.args])[0] == args[0]
    begun = ctx.meta.get(cli._AHEAD)
    assert (begun is not None) == ahead
    if begun is None:
        return
    settings, opening = begun
    assert settings.paths.warehouse == Path(demo_db) and opening.read_only
    assert writer_elsewhere(demo_db) != 0  # this process holds the file read-only
    ctx.close()  # no command took the connection: the group's context closes it
    assert writer_elsewhere(demo_db) == 0
