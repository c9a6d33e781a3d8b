"""``lessons-analytics ingest``: the ``--json`` document of cli.md and ``--strict``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from lessons_analytics.cli import cli

DATA = Path(__file__).parent / "data"
# cli.md, "ingest --json" (top level, no `bases`)
KEYS = {
    "files_seen", "files_loaded", "lines_loaded", "sessions", "agent_runs", "tool_calls",
    "by_tool", "file_reads", "bases", "lessons", "hits", "load_errors", "errors",
}  # fmt: skip


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_ingest_json_document(tmp_path: Path) -> None:
    code, out, _ = invoke(
        "--db",
        str(tmp_path / "w.duckdb"),
        "ingest",
        str(DATA / "projects"),
        str(DATA / "codex"),
        "--json",
    )
    assert code == 0
    doc = json.loads(out)  # stdout holds only the document
    assert set(doc) == KEYS
    # the fixture tree, counted in tests/test_load.py::test_whole_fixture_tree_totals
    assert (doc["files_seen"], doc["files_loaded"], doc["lines_loaded"]) == (25, 25, 114)
    assert (doc["sessions"], doc["agent_runs"], doc["tool_calls"]) == (19, 22, 27)
    assert doc["by_tool"]["Bash"] == 9 and sum(doc["by_tool"].values()) == 27
    assert (doc["bases"], doc["lessons"], doc["hits"]) == (0, 0, 0)
    assert (doc["load_errors"], doc["errors"]) == (0, [])
    # a second run loads nothing and reports the same warehouse
    code, out, _ = invoke(
        "--db",
        str(tmp_path / "w.duckdb"),
        "ingest",
        str(DATA / "projects"),
        str(DATA / "codex"),
        "--json",
    )
    again = json.loads(out)
    assert (code, again["files_loaded"], again["lines_loaded"]) == (0, 0, 0)
    assert again["tool_calls"] == 27


def bad_tree(tmp_path: Path) -> Path:
    root = tmp_path / "projects" / "-home-dev-shop"
    root.mkdir(parents=True)
    good = DATA / "projects" / "-home-dev-shop" / "a1000000-0000-4000-8000-0000000000a1.jsonl"
    shutil.copy(good, root / good.name)
    (root / "c9000000-0000-4000-8000-0000000000c9.jsonl").write_bytes(b'{"type":"user"}\n{oops\n')
    return root


def test_load_errors_listed_and_exit_0_without_strict(tmp_path: Path) -> None:
    root = bad_tree(tmp_path)
    code, out, err = invoke("--db", str(tmp_path / "w.duckdb"), "ingest", str(root), "--json")
    assert code == 0
    doc = json.loads(out)
    bad = str(root / "c9000000-0000-4000-8000-0000000000c9.jsonl")
    assert doc["load_errors"] == 1
    assert [(e["file"], e["line"]) for e in doc["errors"]] == [(bad, 2)]
    assert doc["errors"][0]["reason"].startswith("invalid JSON")
    code, out, err = invoke("--db", str(tmp_path / "w2.duckdb"), "ingest", str(root))
    assert code == 0
    assert f"{bad}:2: invalid JSON" in err


def test_strict_exits_1_on_load_errors(tmp_path: Path) -> None:
    root = bad_tree(tmp_path)
    code, _, err = invoke("--db", str(tmp_path / "w.duckdb"), "ingest", str(root), "--strict")
    assert code == 1
    assert "--strict" in err
    good = DATA / "projects" / "-home-dev-shop" / "a1000000-0000-4000-8000-0000000000a1.jsonl"
    code, _, _ = invoke("--db", str(tmp_path / "ok.duckdb"), "ingest", str(good), "--strict")
    assert code == 0


def test_ingest_names_each_stage_after_reading(tmp_path: Path) -> None:
    """The stages after the per-file bar, in order; a second run with nothing new is
    answered from the file system (``unchanged``), so it has no stage at all, and a run
    after a change to the warehouse file alone stores and commits but builds nothing."""
    from lessons_analytics.ingestion import ingest

    stages: list[str] = []
    ingest(tmp_path / "w.duckdb", [DATA / "projects"], stage=stages.append)
    assert stages == ["storing rows", "building tables", "committing", "counting"]
    stages.clear()
    ingest(tmp_path / "w.duckdb", [DATA / "projects"], stage=stages.append)
    assert stages == []
    (tmp_path / "w.duckdb.unchanged.json").unlink()  # forget the no-op answer
    ingest(tmp_path / "w.duckdb", [DATA / "projects"], stage=stages.append)
    assert stages == ["storing rows", "committing", "counting"]


def test_a_stage_ends_the_reading_bar_and_prints_its_name(capsys) -> None:  # type: ignore[no-untyped-def]
    from lessons_analytics.commands.ingest import _stage_line

    class Bar:
        closed = 0

        def __exit__(self, *args: object) -> None:
            Bar.closed += 1

    bars: list[object] = [Bar()]
    stage = _stage_line(bars)
    stage("building tables")
    stage("committing")
    assert Bar.closed == 1 and bars == []  # closed once, at the first stage
    assert capsys.readouterr().err == "ingest: building tables ...\ningest: committing ...\n"
