from __future__ import annotations

from pathlib import Path

import click
import orjson
import pytest
from click.testing import CliRunner

from lessons_analytics.check import check_base
from lessons_analytics.cli import cli
from lessons_analytics.commands.base_files import check_cmd
from lessons_analytics.settings import Thresholds
from tests.support.basebuilder import index_text, lesson_text, make_base

LESSONS = {
    "L-0001-report.md": lesson_text("L-0001"),
    "L-0002.md": lesson_text("L-0002", status="candidate"),
}

ROW_9 = "row L-0009 (active) has no lesson file in the base"


def _base(tmp_path: Path, index: str | None, lessons: dict[str, str] | None = None) -> Path:
    return make_base(tmp_path / "p", lessons=lessons or LESSONS, index=index)


def _rules(base: Path, config: dict | None = None) -> list[tuple[str, int]]:
    return [(f.rule, f.line) for f in check_base(base, Thresholds(**(config or {})))]


def test_clean_base_passes(tmp_path: Path) -> None:
    base = _base(tmp_path, index_text(active=["L-0001"], candidates=["L-0002"]))
    assert check_base(base, Thresholds()) == []


def test_clean_base_outside_git_passes(tmp_path: Path) -> None:
    base = make_base(tmp_path, lessons=LESSONS, index=index_text(["L-0001"]), use_git=False)
    assert check_base(base, Thresholds()) == []


def test_index_missing(tmp_path: Path) -> None:
    assert _rules(_base(tmp_path, None)) == [("index-missing", 0)]


@pytest.mark.parametrize(("notes", "expected"), [(12, []), (13, [("active-heading-line", 16)])])
def test_active_heading_line(tmp_path: Path, notes: int, expected: list) -> None:
    # title, the notes and a blank line come first: 12 notes put the heading at line 15.
    index = index_text(["L-0001"], ["L-0002"], header=["note"] * notes)
    assert _rules(_base(tmp_path, index)) == expected


def test_active_heading_line_is_configurable(tmp_path: Path) -> None:
    base = _base(tmp_path, index_text(["L-0001"], ["L-0002"], header=["n"] * 5))
    assert _rules(base, {"active_heading_max_line": 8}) == []
    assert _rules(base, {"active_heading_max_line": 7}) == [("active-heading-line", 8)]


def test_active_heading_missing_and_russian(tmp_path: Path) -> None:
    no_heading = index_text(["L-0001"], ["L-0002"], active_heading="## Rules")
    assert ("active-heading-line", 1) in _rules(_base(tmp_path / "a", no_heading))
    russian = index_text(
        ["L-0001"], ["L-0002"], active_heading="## Действующие", candidates_heading="## Кандидаты"
    )
    assert _rules(_base(tmp_path / "b", russian)) == []


@pytest.mark.parametrize(
    "tail",
    [
        "\n## Quarantine\nsee QUARANTINE.md\n",
        "\n## Карантин\n",
        "\n## Notes\n- 2026-11-02 · signal: said tests pass · seen: 1\n",
    ],
)
def test_no_quarantine_fails(tmp_path: Path, tail: str) -> None:
    index = index_text(["L-0001"], ["L-0002"], tail=tail)
    failures = check_base(_base(tmp_path, index), Thresholds())
    assert [f.rule for f in failures] == ["no-quarantine"]
    assert "QUARANTINE.md" in failures[0].message


def test_no_quarantine_passes_on_a_pointer(tmp_path: Path) -> None:
    index = index_text(["L-0001"], ["L-0002"], header=["Observations live in QUARANTINE.md."])
    assert _rules(_base(tmp_path, index)) == []


def _padded_index(size: int) -> str:
    head = index_text(["L-0001"], ["L-0002"])
    pad = "x" * (size - len(head.encode()) - 1) + "\n"
    return head + pad


@pytest.mark.parametrize(("size", "expected"), [(16384, []), (16385, [("index-size", 1)])])
def test_index_size(tmp_path: Path, size: int, expected: list) -> None:
    index = _padded_index(size)
    assert len(index.encode()) == size
    assert _rules(_base(tmp_path, index)) == expected


def test_index_size_is_configurable(tmp_path: Path) -> None:
    base = _base(tmp_path, index_text(["L-0001"], ["L-0002"]))
    assert _rules(base, {"index_max_bytes": 100}) == [("index-size", 1)]


def test_active_without_row(tmp_path: Path) -> None:
    # L-0001 is active but only listed as a candidate; L-0002 (candidate) needs no row.
    failures = check_base(
        _base(tmp_path, index_text(active=[], candidates=["L-0001"])), Thresholds()
    )
    assert [(f.rule, f.line) for f in failures] == [("active-without-row", 4)]
    assert "L-0001" in failures[0].message and failures[0].file.endswith("INDEX.md")


def test_row_without_file(tmp_path: Path) -> None:
    tail = "\n## Later\n| L-0077 | x | y | z |\n"
    index = index_text(["L-0001", "L-0009"], ["L-0002"], tail=tail)
    assert _rules(_base(tmp_path, index)) == [("row-without-file", 8), ("row-without-file", 16)]


def test_row_of_a_lesson_with_broken_yaml_has_its_file(tmp_path: Path) -> None:
    lessons = {**LESSONS, "L-0003-x.md": "---\nid: [\n---\nRule: x\n"}
    index = index_text(["L-0001"], ["L-0002", "L-0003"])
    assert _rules(_base(tmp_path, index, lessons)) == []


def test_marker_count(tmp_path: Path) -> None:
    one = "<!-- sleep-due: 2026-11-30 · reasons: class-share=x:31% -->"
    assert _rules(_base(tmp_path / "a", index_text(["L-0001"], ["L-0002"], marker=one))) == []
    two = index_text(["L-0001"], ["L-0002"], marker=one, header=[one])
    assert _rules(_base(tmp_path / "b", two)) == [("marker-count", 3)]


def test_marker_position(tmp_path: Path) -> None:
    tail = "<!-- sleep-due: 2026-11-30 -->\n"
    index = index_text(["L-0001"], ["L-0002"], tail=tail)
    assert _rules(_base(tmp_path, index)) == [("marker-position", 13)]


def test_failure_str_is_file_line_rule_message(tmp_path: Path) -> None:
    base = _base(tmp_path, index_text(["L-0001", "L-0009"], ["L-0002"]))
    (failure,) = check_base(base, Thresholds())
    assert str(failure) == f"{base / 'INDEX.md'}:8: row-without-file: {ROW_9}"


# ------------------------------------------------------------------ the command


def test_check_cmd_text_and_exit(tmp_path: Path) -> None:
    base = _base(tmp_path, index_text(["L-0001", "L-0009"], ["L-0002"]))
    result = CliRunner().invoke(check_cmd, [str(base.parent)])
    assert result.exit_code == 1
    assert result.stdout == f"{base / 'INDEX.md'}:8: row-without-file: {ROW_9}\n"
    assert "1 failure" in result.stderr


def test_check_cmd_json(tmp_path: Path) -> None:
    base = _base(tmp_path, index_text(["L-0001"], ["L-0002"]))
    result = CliRunner().invoke(check_cmd, [str(base), "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    assert doc["schema"] == "lessons-analytics/check/1" and doc["generated_at"].endswith("Z")
    assert doc["bases"] == [{"base": str(base), "ok": True, "failures": []}]


def test_check_cmd_json_failure_shape(tmp_path: Path) -> None:
    base = _base(tmp_path, index_text([], ["L-0002"]))
    result = CliRunner().invoke(check_cmd, [str(base), "--json"])
    assert result.exit_code == 1
    (entry,) = orjson.loads(result.stdout)["bases"]
    assert entry["ok"] is False
    assert entry["failures"] == [
        {"file": str(base / "INDEX.md"), "line": 4, "rule": "active-without-row",
         "message": "active lesson L-0001 (L-0001-report.md) has no row under ## Active"}
    ]  # fmt: skip


def test_check_cmd_default_is_cwd_and_missing_base_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _base(tmp_path, index_text(["L-0001"], ["L-0002"]))
    runner = CliRunner()
    monkeypatch.chdir(tmp_path / "p" / "LESSONS")  # below the project: found upward
    assert runner.invoke(check_cmd, []).exit_code == 0
    # errors become messages at the group's boundary (cli.py), as a user runs it
    result = runner.invoke(cli, ["check", str(tmp_path / "nowhere")])
    assert result.exit_code == 1 and "no LESSONS/ folder" in result.stderr


def test_check_cmd_in_a_group(tmp_path: Path) -> None:
    group = click.Group(commands=[check_cmd])
    base = _base(tmp_path, index_text(["L-0001"], ["L-0002"]))
    assert CliRunner().invoke(group, ["check", str(base)]).exit_code == 0
