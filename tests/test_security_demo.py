"""``demo --out DIR`` builds only into an empty folder or an earlier demo build."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from lessons_analytics.cli import cli
from lessons_analytics.demo import build_demo
from lessons_analytics.demo.guard import MARKER, DemoTargetRefused, check_demo_target


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_folder_holding_someones_project_is_refused_and_untouched(tmp_path: Path) -> None:
    out = tmp_path / "work"
    lessons = out / "repos" / "project" / "LESSONS"
    lessons.mkdir(parents=True)
    (lessons / "L-0001.md").write_text("my lesson\n")
    (out / "warehouse.duckdb").write_bytes(b"my warehouse")
    before = _tree(out)
    result = CliRunner().invoke(cli, ["demo", "--out", str(out)])
    assert result.exit_code == 1
    assert "not empty and not an earlier demo build" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert _tree(out) == before


@pytest.mark.parametrize("kind", ["file", "hidden-file", "link"])
def test_anything_else_in_the_folder_is_refused(tmp_path: Path, kind: str) -> None:
    out = tmp_path / "d"
    out.mkdir()
    if kind == "file":
        (out / "notes.txt").write_text("x")
    elif kind == "hidden-file":
        (out / ".env").write_text("x")
    else:
        (out / MARKER).symlink_to(tmp_path / "elsewhere")
        (tmp_path / "elsewhere").write_text("")
    with pytest.raises(DemoTargetRefused):
        check_demo_target(out)


def test_empty_absent_and_earlier_builds_are_accepted(tmp_path: Path) -> None:
    check_demo_target(tmp_path / "absent")
    (tmp_path / "empty").mkdir()
    check_demo_target(tmp_path / "empty")
    ws = build_demo(tmp_path / "demo")
    assert (ws.root / MARKER).is_file()
    check_demo_target(ws.root)  # an earlier build: rebuilt
    (ws.root / "repos" / "stale-file").write_text("left by the old build")
    again = build_demo(tmp_path / "demo")
    assert not (again.root / "repos" / "stale-file").exists()
