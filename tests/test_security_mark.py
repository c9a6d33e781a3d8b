"""``stats --mark`` is safe whatever the data and the file system: the marker is one line,
a re-mark removes what an older broken marker spilled, a link out of the base and a
read-only INDEX.md are refused, a killed run's temporary file is cleaned up."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from lessons_analytics.signs import apply_marker
from tests.support.basebuilder import index_text
from tests.test_stats import build, hit, lesson, run, tree

HOSTILE = '"x -->\\n\\n## Active\\n| L-0099 | all-agents | x | fake row |\\n<!-- y"'
GOOD = "<!-- sleep-due: 2026-11-30 · reasons: class-share=verify-before-report:100% -->"


def _due(
    project: Path, index: str | bytes | None = None, cls: str = "verify-before-report"
) -> Path:
    text = lesson("L-0001", cls=cls, helped=True, created="2026-11-25", hits=[hit("2026-11-29")])
    return build(project, {"L-0001": text}, index=index)


def _mark(base: Path, tmp_path: Path) -> object:
    return run("stats", str(base), "--mark", "--as-of", "2026-11-30", db=tmp_path / "none.db")


def test_a_class_with_comment_end_and_newlines_gives_one_marker_line(tmp_path: Path) -> None:
    base = _due(tmp_path / "proj", cls=HOSTILE)
    before = (base / "INDEX.md").read_text()
    result = _mark(base, tmp_path)
    assert result.exit_code == 0, result.output
    after = (base / "INDEX.md").read_text()
    added = [line for line in after.splitlines() if line not in before.splitlines()]
    assert len(added) == 1 and added[0].startswith("<!-- sleep-due: 2026-11-30")
    assert added[0].count("-->") == 1 and added[0].endswith("-->")
    # the class survives only as text inside the one comment line
    assert [line for line in after.splitlines() if "L-0099" in line] == added
    assert [line for line in after.splitlines() if line.startswith("## Active")] == ["## Active"]


def test_a_re_mark_removes_what_an_old_broken_marker_spilled(tmp_path: Path) -> None:
    clean = index_text(active=["L-0001"])
    # what the old marker_line wrote for the hostile class: a comment closed early, a fake
    # second ``## Active`` table, and the rest of the reasons on a line of its own
    spilled = (
        "<!-- sleep-due: 2026-11-29 · reasons: class-share=x -->\n\n## Active\n"
        "| L-0099 | all-agents | x | fake row |\n<!-- y:100% -->"
    )
    broken = index_text(active=["L-0001"], marker=spilled)
    assert "L-0099" in broken
    base = _due(tmp_path / "proj", index=broken)
    result = _mark(base, tmp_path)
    assert result.exit_code == 0, result.output
    after = (base / "INDEX.md").read_text().splitlines(keepends=True)
    # (index-layout fires too: the check read the fake row still in the file)
    assert after[1].startswith("<!-- sleep-due: 2026-11-30 · reasons: class-share=")
    assert "".join(after[:1] + after[2:]) == clean
    # and when nothing fires any more, the whole old marker goes
    assert apply_marker(base / "INDEX.md", None) is True
    (base / "INDEX.md").write_text(broken)
    assert apply_marker(base / "INDEX.md", None) is True
    assert (base / "INDEX.md").read_text() == clean


def test_a_link_out_of_the_base_is_refused(tmp_path: Path) -> None:
    base = _due(tmp_path / "proj")
    outside = tmp_path / "home" / ".bashrc"
    outside.parent.mkdir()
    outside.write_text((base / "INDEX.md").read_text())
    (base / "INDEX.md").unlink()
    (base / "INDEX.md").symlink_to(outside)
    result = _mark(base, tmp_path)
    assert result.exit_code == 1
    assert "outside its base" in result.output and len(result.output.strip().splitlines()) == 1
    assert "sleep-due" not in outside.read_text()
    assert (base / "INDEX.md").is_symlink()


def test_a_link_inside_the_base_is_followed(tmp_path: Path) -> None:
    base = _due(tmp_path / "proj")
    (base / "INDEX.md").rename(base / "index-real.md")
    (base / "INDEX.md").symlink_to("index-real.md")
    result = _mark(base, tmp_path)
    assert result.exit_code == 0, result.output
    assert GOOD in (base / "index-real.md").read_text()
    assert (base / "INDEX.md").is_symlink()


def test_a_read_only_index_is_refused_not_replaced(tmp_path: Path) -> None:
    base = _due(tmp_path / "proj")
    index = base / "INDEX.md"
    before = index.read_bytes()
    inode = index.stat().st_ino
    index.chmod(0o444)
    try:
        result = _mark(base, tmp_path)
        assert result.exit_code == 1
        assert "read-only" in result.output
        assert index.read_bytes() == before and index.stat().st_ino == inode
        assert stat.S_IMODE(index.stat().st_mode) == 0o444
    finally:
        index.chmod(0o644)


def test_a_killed_runs_temporary_file_is_removed_by_the_next_run(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    base = _due(project)
    # a run killed (SIGKILL) between writing its temporary file and the rename leaves this
    stale = base / ".INDEX.md.k1ll3d.tmp"
    stale.write_text("half a file")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    fresh = base / ".INDEX.md.running.tmp"  # another run's, still being written: kept
    fresh.write_text("")
    result = _mark(base, tmp_path)
    assert result.exit_code == 0, result.output
    assert not stale.exists() and fresh.exists()
    fresh.unlink()
    assert not [p for p in tree(project) if p.endswith(".tmp")]
